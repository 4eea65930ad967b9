"""Terminal pictures of star maps (rich). The only module of ``maps`` that imports rich.

Colours come from the named styles in `THEME`; print with a console built with it, e.g.
``Console(theme=THEME)``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rich.align import VerticalAlignMethod
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Column, Table, _Cell
from rich.text import Text
from rich.theme import Theme

from maps.hexes import Hex, from_offset, label
from maps.model import Facility, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.starmap import StarMap

__all__ = [
    "THEME",
    "HexGrid",
    "SystemsTable",
    "render_map",
    "render_systems",
    "render_text_map",
]

THEME = Theme(
    {
        "map.title": "bold",
        "map.note": "dim italic",
        "map.axis": "dim",
        "map.grid": "bright_black",
        "map.cloud": "magenta",
        "map.entry": "bold reverse",
        "map.unknown": "dim",
        "star.blue": "bold bright_blue",
        "star.white": "bold bright_white",
        "star.yellow": "bold yellow",
        "star.orange": "bold dark_orange",
        "star.red": "bold red",
    }
)

COLOUR_LETTER: dict[StarColour, str] = {
    StarColour.BLUE: "B",
    StarColour.WHITE: "W",
    StarColour.YELLOW: "Y",
    StarColour.ORANGE: "O",
    StarColour.RED: "R",
}

PLANET_LETTER: dict[PlanetType, str] = {
    PlanetType.TERRAN: "T",
    PlanetType.SUB_TERRAN: "S",
    PlanetType.MINIMAL_TERRAN: "M",
    PlanetType.BARREN: "B",
}

FEATURE_TEXT: dict[Feature, str] = {
    Feature.DENSE_WORLD: "dense world",
    Feature.GAS_GIANT: "gas giant",
    Feature.ASTEROID_FIELD: "asteroids",
}

# Each hex column is 3 characters wide: a 2-character glyph and a space.
PITCH = 3
MARGIN = 3


def _glyphs(
    starmap: StarMap, explored: Collection[str] | None
) -> list[list[tuple[str, str, StarSystem | None]]]:
    """Each cell's glyph and style, and its star system, by column and row (a star shows its
    colour letter and planet count, an entry hex ``@`` and the player's initial)."""
    entries: dict[Hex, str] = {}
    for entry in starmap.entries:
        entries.setdefault(entry.hex, entry.name)
    clouds = starmap.clouds
    grid = []
    for col in range(starmap.width):
        column = []
        for row in range(starmap.height):
            cell = from_offset(col, row)
            system = starmap.system_at(cell)
            if system is not None:
                known = explored is None or system.name in explored
                count = str(min(len(system.planets), 9)) if known else "?"
                glyph = (COLOUR_LETTER[system.colour] + count, f"star.{system.colour.value}")
            elif cell in entries:
                glyph = ("@" + entries[cell][:1], "map.entry")
            elif cell in clouds:
                glyph = ("░░", "map.cloud")
            else:
                glyph = (" ·", "map.grid")
            column.append((*glyph, system))
        grid.append(column)
    return grid


def _grid_lines(starmap: StarMap, explored: Collection[str] | None) -> list[list[tuple[str, str]]]:
    """The hex grid's text lines, each a list of (text, style name) pieces ("" unstyled), the
    first one the column numbers, every line with its trailing blanks cut off.

    Even-numbered columns sit half a hex lower, as on the printed map. A star shows its colour
    letter and planet count (``Y3``) followed by the start of its name, written in the next
    column's slot, which is always blank on that text line.
    """
    header = " " * MARGIN + "".join(f"{c + 1:02d} " for c in range(starmap.width))
    lines = [[(header.rstrip(), "map.axis")]]
    glyphs = _glyphs(starmap, explored)  # each cell worked out once (a 600-star map: 7,821)

    def cell_at(col: int, y: int) -> tuple[str, str, StarSystem | None] | None:
        offset = col % 2
        row = (y - offset) // 2
        if col >= starmap.width or (y - offset) % 2 or not 0 <= row < starmap.height:
            return None
        return glyphs[col][row]

    for y in range(2 * starmap.height + 1):
        row_label = f"{y // 2 + 1:02d} " if y % 2 == 0 and y // 2 < starmap.height else "   "
        line = [(row_label, "map.axis")]
        name: tuple[str, str] | None = None
        for col in range(starmap.width):
            found = cell_at(col, y)
            if found is not None:
                glyph, style, system = found
                line.append((glyph + " ", style))
                if system is not None:
                    after = cell_at(col + 2, y)
                    room = 3 if after is None or after[0] == " ·" else 2
                    name = (system.name[:room].ljust(3), style)
            elif name is not None:
                line.append(name)
                name = None
            else:
                line.append(("   ", ""))
        if name is not None:  # a star in the last column: its name runs off the grid
            line.append(name)
        lines.append(_rstrip(line))
    while lines and not lines[-1]:  # the picture ends at its last mark
        lines.pop()
    return lines


def _rstrip(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pieces without the line's trailing blanks (as `Text.rstrip` cuts its spans)."""
    while pieces and not pieces[-1][0].rstrip():
        pieces.pop()
    if pieces:
        text, style = pieces[-1]
        pieces[-1] = (text.rstrip(), style)
    return pieces


def render_text_map(starmap: StarMap, *, explored: Collection[str] | None = None) -> Text:
    """Return the hex grid as one rich `Text`: columns numbered on top, rows on the left.

    A star shows its colour letter and planet count (``Y3``) and the start of its name; ``?``
    hides the planets of a system not in ``explored`` (``None`` shows everything). `render_map`
    draws the same picture faster (`HexGrid`).
    """
    out = Text(no_wrap=True, overflow="ignore")
    for number, line in enumerate(_grid_lines(starmap, explored)):
        if number:
            out.append("\n")
        for text, style in line:
            out.append(text, style=style or None)
    return out


class HexGrid:
    """The hex grid as a rich renderable that yields its segments straight away: the bytes
    `render_text_map`'s `Text` prints, in every colour mode and width, without rich dividing
    and styling a 7,821-cell text (a 600-star map) span by span.

    A `Text` that does not wrap (``no_wrap``, overflow ``ignore``) is printed as one segment a
    span, in the span's style, the unstyled text between and a newline a line; so is this.
    """

    def __init__(self, lines: list[list[tuple[str, str]]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        styles: dict[str, Style] = {}
        newline = Segment("\n")
        for number, line in enumerate(self.lines):
            if number:
                yield newline
            for text, name in line:
                if not name:
                    yield Segment(text)
                    continue
                style = styles.get(name)
                if style is None:
                    style = styles[name] = console.get_style(name, default=Style.null())
                yield Segment(text, style)
        yield newline


def _planets(planets: tuple[Planet, ...]) -> str:
    return (
        " ".join(
            f"{PLANET_LETTER[p.type]}{p.capacity}{'*' if p.mineral_rich else ''}" for p in planets
        )
        or "-"
    )


def _extras(system: StarSystem) -> str:
    parts = [FEATURE_TEXT[f] for f in system.features]
    if system.settled:
        parts.append("settled")
    if system.facilities:
        base = "+".join(f.value for f in system.facilities)
        if Facility.REPAIR in system.facilities and system.repair_mass_limit is not None:
            base += f" (mass <= {system.repair_mass_limit})"
        parts.append(base)
    return ", ".join(parts)


SystemsRow = tuple[str, Text, Text, str | Text, str]


def _systems_rows(starmap: StarMap, explored: Collection[str] | None) -> list[SystemsRow]:
    rows: list[SystemsRow] = []
    for system in sorted(starmap.systems, key=lambda s: label(s.hex)):
        known = explored is None or system.name in explored
        style = f"star.{system.colour.value}"
        rows.append(
            (
                label(system.hex),
                Text(system.name, style=style),
                Text(system.colour.value, style=style),
                _planets(system.planets) if known else Text("unexplored", style="map.unknown"),
                _extras(system) if known else "",
            )
        )
    return rows


def _systems_table(rows: Iterable[Sequence[str | Text]]) -> Table:
    table = Table(title="Star systems", title_style="map.title", expand=False)
    table.add_column("Hex", style="map.axis")
    table.add_column("System")
    table.add_column("Star")
    table.add_column("Planets")
    table.add_column("Features")
    for row in rows:
        table.add_row(*row)
    return table


def render_systems(starmap: StarMap, *, explored: Collection[str] | None = None) -> Table:
    """Return a table of the systems: hex, name, star colour, planets and features.

    Planets read ``T80*``: type letter (Terran, Sub-terran, Minimal-terran, Barren), population
    capacity in millions, ``*`` if mineral-rich. `render_map` draws the same table faster
    (`SystemsTable`).
    """
    return _systems_table(_systems_rows(starmap, explored))


def _plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _simple(texts: list[str]) -> bool:
    """Whether rich prints these cell texts as they are: printable ASCII (one cell a
    character), no markup or emoji code (``[``, ``:``), single spaces between words."""
    joined = "\n" + "\n".join(texts) + "\n"  # checked at once: 3,000 cells on a 600-star map
    return (
        joined.count("\n") == len(texts) + 1
        and joined.isascii()
        and joined.replace("\n", "").isprintable()
        and not any(bad in joined for bad in ("[", ":", "  ", "\n ", " \n"))
    )


class SystemsTable:
    """The systems table as a rich renderable: the bytes `render_systems`'s `Table` prints,
    in every colour mode and width, at a fraction of the cost on a 600-star map.

    rich lays out the columns (from a stand-in table whose one row measures as all the rows
    do), draws the title, the header and every row that wraps; a row whose cells each fit on
    one line is written here as rich writes it: per cell a blank, the text filled out to the
    column's width in the text's style, and a blank, in the column's style. A cell rich might
    read differently (markup, emoji codes, wide or control characters) sends the whole table to
    rich.
    """

    def __init__(self, rows: list[SystemsRow]) -> None:
        self.rows = rows
        self.texts = [[_plain(cell) for cell in row] for row in rows]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not _simple([text for row in self.texts for text in row]):
            yield _systems_table(self.rows)
            return
        stand_in = _systems_table([_measuring_row(self.texts)])
        extra_width = stand_in._extra_width
        widths = stand_in._calculate_column_widths(
            console, options.update_width(options.max_width - extra_width)
        )
        render_options = options.update(
            width=sum(widths) + extra_width, highlight=stand_in.highlight, height=None
        )
        title = console.render_str(
            "Star systems",
            style=Style.pick_first(stand_in.title_style, "table.title"),
            highlight=False,
        )
        yield from console.render(title, options=render_options.update(justify="center"))
        yield from self._body(console, render_options, stand_in, widths)

    def _body(
        self, console: Console, options: ConsoleOptions, stand_in: Table, widths: list[int]
    ) -> RenderResult:
        """`Table._render` for this table's shape: a box with edges and a header."""
        assert stand_in.box is not None
        box = stand_in.box.substitute(options, safe=console.safe_box)
        border = console.get_style(stand_in.style or "") + console.get_style(
            stand_in.border_style or ""
        )
        new_line = Segment.line()
        columns = stand_in.columns
        header = [next(iter(stand_in._get_cells(console, i, c))) for i, c in enumerate(columns)]
        yield Segment(box.get_top(widths), border)
        yield new_line
        ends = (Segment(box.head_left, border), Segment(box.head_right, border))
        divider = Segment(box.head_vertical, border)
        yield from _box_lines(
            _rich_cells(console, options, columns, widths, header, "bottom"), ends, divider
        )
        yield Segment(box.get_row(widths, "head", edge=True), border)
        yield new_line
        cell_styles = [console.get_style(c.style or "") + Style.null() for c in columns]
        styles: dict[str, Style] = {}
        for index, (row, texts) in enumerate(zip(self.rows, self.texts, strict=True)):
            last = index == len(self.rows) - 1
            left, right, vertical = (
                (box.foot_left, box.foot_right, box.foot_vertical)
                if last
                else (box.mid_left, box.mid_right, box.mid_vertical)
            )
            ends = (Segment(left, border), Segment(right, border))
            divider = Segment(vertical, border)
            if all(len(text) <= width - 2 for text, width in zip(texts, widths, strict=True)):
                line: list[Segment] = [ends[0]]
                for number, (cell, text, width, style) in enumerate(
                    zip(row, texts, widths, cell_styles, strict=True)
                ):
                    if number:
                        line.append(divider)
                    line += _fitting_cell(console, cell, text, width, style, styles)
                line += (ends[1], new_line)
                yield from line
                continue
            cells = [
                _Cell(style, Padding(cell, (0, 1, 0, 1)), "top")
                for cell, style in zip(row, cell_styles, strict=True)
            ]
            yield from _box_lines(
                _rich_cells(console, options, columns, widths, cells, "top"), ends, divider
            )
        yield Segment(box.get_bottom(widths), border)
        yield new_line


def _measuring_row(rows: list[list[str]]) -> list[str]:
    """One row of cells that rich measures as it measures all of ``rows``, column by column:
    the longest word as long as the longest word of the column, the cell as long as its
    longest cell."""
    measuring = []
    for texts in zip(*rows, strict=True):
        longest = max((len(text) for text in texts), default=0)
        word = max((len(w) for text in texts for w in text.split()), default=0)
        measuring.append("x" * word + " " * (longest - word))
    return measuring


def _fitting_cell(
    console: Console,
    cell: str | Text,
    text: str,
    width: int,
    style: Style,
    styles: dict[str, Style],
) -> list[Segment]:
    """A one-line cell's segments as rich's table writes them (``text``: the cell's text)."""
    text_style = style
    if isinstance(cell, Text) and isinstance(cell.style, str) and cell.style:
        key = cell.style
        if key not in styles:
            styles[key] = style + console.get_style(key, default=Style.null())
        text_style = styles[key]
    pad = Segment(" ", style)
    return [pad, Segment(text.ljust(width - 2), text_style), pad]


def _rich_cells(
    console: Console,
    options: ConsoleOptions,
    columns: list[Column],
    widths: list[int],
    cells: list[_Cell],
    vertical: VerticalAlignMethod,
) -> list[list[list[Segment]]]:
    """One row's cells, each drawn by rich as its table draws it (lines of segments)."""
    drawn = []
    for width, cell, column in zip(widths, cells, columns, strict=True):
        column_options = options.update(
            width=width,
            justify=column.justify,
            no_wrap=column.no_wrap,
            overflow=column.overflow,
            height=None,
            # rich 13.7's columns have no highlight of their own: the table's stands
            highlight=getattr(column, "highlight", options.highlight),
        )
        lines = console.render_lines(
            cell.renderable, column_options, style=console.get_style(cell.style) + Style.null()
        )
        drawn.append(lines)
    height = max(len(lines) for lines in drawn)
    align = Segment.align_bottom if vertical == "bottom" else Segment.align_top
    return [
        Segment.set_shape(
            align(lines, width, height, console.get_style(cell.style) + Style.null()),
            width,
            max(height, 1),  # a row is a line high at least, even where no cell draws one
        )
        for lines, width, cell in zip(drawn, widths, cells, strict=True)
    ]


def _box_lines(
    cells: list[list[list[Segment]]], ends: tuple[Segment, Segment], divider: Segment
) -> RenderResult:
    for line_no in range(len(cells[0])):
        yield ends[0]
        for number, cell in enumerate(cells):
            if number:
                yield divider
            yield from cell[line_no]
        yield ends[1]
        yield Segment.line()


def render_map(starmap: StarMap, *, explored: Collection[str] | None = None) -> RenderableType:
    """Return the whole picture: title, hex grid, key and the systems table.

    ``explored`` is the fog-of-war hook: star positions and colours are seen by everyone (as on
    Stellar Conquest's board), planets only in the named systems. ``None`` shows everything.
    """
    title = Text(starmap.title or starmap.name, style="map.title")
    title.append(f"  [{starmap.name}, {starmap.width}x{starmap.height} hexes]", style="map.axis")
    parts: list[RenderableType] = [title]
    if starmap.provenance:
        parts.append(Text(starmap.provenance, style="map.note"))
    parts.append(HexGrid(_grid_lines(starmap, explored)))
    key = Text("Key: ")
    for colour, letter in COLOUR_LETTER.items():
        key.append(f"{letter}", style=f"star.{colour.value}")
        key.append(f"={colour.value} ")
    key.append("(digit = planets)  ")
    key.append("░░", style="map.cloud")
    key.append("=cloud  ")
    key.append("@1", style="map.entry")
    key.append("=entry hex of player 1")
    parts += [key, SystemsTable(_systems_rows(starmap, explored))]
    if starmap.entries:
        entries = ", ".join(f"{e.name} at {label(e.hex)}" for e in starmap.entries)
        parts.append(Text(f"Entry hexes: {entries}", style="map.axis"))
    return Group(*parts)
