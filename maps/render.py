"""Terminal pictures of star maps (rich). The only module of ``maps`` that imports rich.

Colours come from the named styles in `THEME`; print with a console built with it, e.g.
``Console(theme=THEME)``.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from maps.hexes import Hex, from_offset, label
from maps.model import Facility, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.starmap import StarMap

__all__ = ["THEME", "render_map", "render_systems", "render_text_map"]

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


def render_text_map(starmap: StarMap, *, explored: Collection[str] | None = None) -> Text:
    """Return the hex grid as text: columns numbered on top, rows on the left.

    Even-numbered columns sit half a hex lower, as on the printed map. A star shows its colour
    letter and planet count (``Y3``) followed by the start of its name, written in the next
    column's slot, which is always blank on that text line; ``?`` hides the planets of a system
    not in ``explored`` (``None`` shows everything).
    """
    out = Text(no_wrap=True, overflow="ignore")
    header = " " * MARGIN + "".join(f"{c + 1:02d} " for c in range(starmap.width))
    out.append(header.rstrip() + "\n", style="map.axis")
    glyphs = _glyphs(starmap, explored)  # each cell worked out once (a 600-star map: 7,821)

    def cell_at(col: int, y: int) -> tuple[str, str, StarSystem | None] | None:
        offset = col % 2
        row = (y - offset) // 2
        if col >= starmap.width or (y - offset) % 2 or not 0 <= row < starmap.height:
            return None
        return glyphs[col][row]

    for y in range(2 * starmap.height + 1):
        row_label = f"{y // 2 + 1:02d} " if y % 2 == 0 and y // 2 < starmap.height else "   "
        line = Text(no_wrap=True, overflow="ignore")
        line.append(row_label, style="map.axis")
        name: tuple[str, str] | None = None
        for col in range(starmap.width):
            found = cell_at(col, y)
            if found is not None:
                glyph, style, system = found
                line.append(glyph + " ", style=style)
                if system is not None:
                    after = cell_at(col + 2, y)
                    room = 3 if after is None or after[0] == " ·" else 2
                    name = (system.name[:room].ljust(3), style)
            elif name is not None:
                line.append(*name)
                name = None
            else:
                line.append("   ")
        if name is not None:  # a star in the last column: its name runs off the grid
            line.append(*name)
        line.rstrip()
        out.append_text(line)
        out.append("\n")
    out.rstrip()
    return out


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


def render_systems(starmap: StarMap, *, explored: Collection[str] | None = None) -> Table:
    """Return a table of the systems: hex, name, star colour, planets and features.

    Planets read ``T80*``: type letter (Terran, Sub-terran, Minimal-terran, Barren), population
    capacity in millions, ``*`` if mineral-rich.
    """
    table = Table(title="Star systems", title_style="map.title", expand=False)
    table.add_column("Hex", style="map.axis")
    table.add_column("System")
    table.add_column("Star")
    table.add_column("Planets")
    table.add_column("Features")
    for system in sorted(starmap.systems, key=lambda s: label(s.hex)):
        known = explored is None or system.name in explored
        style = f"star.{system.colour.value}"
        table.add_row(
            label(system.hex),
            Text(system.name, style=style),
            Text(system.colour.value, style=style),
            _planets(system.planets) if known else Text("unexplored", style="map.unknown"),
            _extras(system) if known else "",
        )
    return table


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
    parts.append(render_text_map(starmap, explored=explored))
    key = Text("Key: ")
    for colour, letter in COLOUR_LETTER.items():
        key.append(f"{letter}", style=f"star.{colour.value}")
        key.append(f"={colour.value} ")
    key.append("(digit = planets)  ")
    key.append("░░", style="map.cloud")
    key.append("=cloud  ")
    key.append("@1", style="map.entry")
    key.append("=entry hex of player 1")
    parts += [key, render_systems(starmap, explored=explored)]
    if starmap.entries:
        entries = ", ".join(f"{e.name} at {label(e.hex)}" for e in starmap.entries)
        parts.append(Text(f"Entry hexes: {entries}", style="map.axis"))
    return Group(*parts)
