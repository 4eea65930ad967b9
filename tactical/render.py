"""Rich renderables for ships and battles: the record sheet, a points breakdown, the design
list, a battle's ships turn by turn and a battle's odds.

The only tactical module that imports rich. Colours come from :data:`THEME` by name; give it to
the console (``Console(theme=THEME)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from tactical.fighters import ASSAULT_SHUTTLE, FighterNameError, parse_fighters
from tactical.movement import format_mu
from tactical.points import Costing
from tactical.sensors import DAMAGE_KNOWN, SYSTEMS_KNOWN, Sighting
from tactical.ship import FOR_THE_BATTLE, GIVEN_OUT, CostLine, Ship, ShipState, fresh_state
from tactical.spatial import format_motion

if TYPE_CHECKING:  # named in annotations only: drawing a design needs no battle (issue 19)
    from tactical.battle import BattleContext, BattleState, ShipInPlay
    from tactical.odds import Odds

__all__ = [
    "THEME",
    "battle_table",
    "cost_table",
    "design_table",
    "odds_table",
    "record_sheet",
]

THEME = Theme(
    {
        "sheet.title": "bold",
        "sheet.label": "bold",
        "sheet.dim": "dim",
        "sheet.open": "green",
        "sheet.lost": "red",
        "sheet.armour": "cyan",
        "sheet.warning": "yellow",
        "sheet.status.ok": "green",
        "sheet.status.damaged": "yellow",
        "sheet.status.destroyed": "red",
        "battle.active": "green",
        "battle.away": "yellow",
        "battle.gone": "red",
    }
)

OPEN_BOX, LOST_BOX = "□", "■"
ARMOUR_OPEN, ARMOUR_LOST = "○", "●"


def _number(value: float) -> str:
    return f"{value:g}"


def _summary(ship: Ship) -> Text:
    hull = ship.hull.replace("_", " ")
    parts = [
        f"{ship.hull_class} ({hull})",
        f"mass {ship.mass}",
        f"thrust {ship.thrust}",
        f"FTL {'yes' if ship.ftl else 'no'}",
        f"screens {ship.screens}",
        f"FireCons {ship.fire_controls}",
    ]
    if ship.crew_factor:
        parts.append(f"crew factor {ship.crew_factor}")
    if ship.fighter_stores:
        parts.append(f"fighter stores {ship.fighter_stores}")
    return Text(" · ".join(parts))


def _track(ship: Ship, state: ShipState) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="sheet.dim")
    grid.add_column()
    if ship.armour:
        armour = Text()
        armour.append(ARMOUR_LOST * state.armour_lost, style="sheet.lost")
        armour.append(ARMOUR_OPEN * (ship.armour - state.armour_lost), style="sheet.armour")
        grid.add_row("armour", armour)
    for number, (size, lost) in enumerate(zip(ship.rows, state.hull_lost, strict=True), start=1):
        row = Text()
        row.append(LOST_BOX * lost, style="sheet.lost")
        row.append(OPEN_BOX * (size - lost), style="sheet.open")
        grid.add_row(f"row {number}", row)
    return grid


def _systems(ship: Ship, state: ShipState, core_systems: bool = False) -> Table:
    table = Table(expand=False, box=None, padding=(0, 2, 0, 0), header_style="sheet.label")
    table.add_column("System")
    table.add_column("Id", style="sheet.dim")
    table.add_column("Arcs")
    table.add_column("Status")
    table.add_column("Load", justify="right")
    drive = {"ok": "ok", "half": "half thrust", "disabled": "disabled"}[state.drive]
    if ship.thrust:
        table.add_row(f"Drive, thrust {ship.thrust}", "drive", "", Text(drive), "")
    if ship.ftl:
        table.add_row("FTL drive", "ftl", "", Text(state.ftl), "")
    for spec, sys_state in zip(ship.systems, state.systems, strict=True):
        load = ""
        if sys_state.fighters is not None and spec.bay_capacity is not None:
            load = f"{sys_state.fighters}/{spec.bay_capacity} {_fighters_word(spec.fighters)}"
        elif sys_state.ammo is not None and spec.ammo is not None:
            load = f"{sys_state.ammo}/{spec.ammo}"
        table.add_row(
            spec.label,
            spec.id,
            "/".join(spec.arcs),
            Text(sys_state.status, style=f"sheet.status.{sys_state.status}"),
            load,
        )
    if core_systems:
        _core_rows(table, state)
    return table


def _fighters_word(fighters: str | None) -> str:
    """``fighters`` for a standard bay, else the type: ``light attack fighters`` (000 8.15)."""
    if fighters is None or fighters == "standard":
        return "fighters"
    if fighters == ASSAULT_SHUTTLE:
        return "assault shuttles"
    try:
        return f"{parse_fighters(fighters).label} fighters"
    except FighterNameError:
        return f"{fighters} fighters"


def _core_words(state: ShipState) -> list[str]:
    """The core systems out, in words (000 10.3)."""
    words: list[str] = []
    if state.out_of_control == FOR_THE_BATTLE:
        words.append("out of control for good")
    elif state.out_of_control:
        words.append(f"out of control {state.out_of_control}")
    if state.power_core != "ok":
        words.append("power core damaged")
    if state.life_support == GIVEN_OUT:
        words.append("life support gone")
    elif state.life_support:
        words.append(f"life support {state.life_support}")
    return words


def _core_rows(table: Table, state: ShipState) -> None:
    """The core box (000 L11073-11075): bridge, power core and life support."""
    bridge = "ok"
    if state.out_of_control == FOR_THE_BATTLE:
        bridge = "out of control for the battle"
    elif state.out_of_control:
        bridge = f"out of control, {state.out_of_control} turns"
    support = "ok"
    if state.life_support == GIVEN_OUT:
        support = "given out"
    elif state.life_support:
        support = f"gives out in {state.life_support} turns"
    for label, core_id, status in (
        ("Command Bridge", "bridge", bridge),
        ("Power Core", "power_core", state.power_core),
        ("Life Support", "life_support", support),
    ):
        style = "sheet.status.ok" if status == "ok" else "sheet.status.damaged"
        table.add_row(label, core_id, "", Text(status, style=style), "core")


def _cost_lines(
    lines: Sequence[CostLine], points: int, mass_used: float, allowance: float
) -> Table:
    table = Table(box=None, padding=(0, 2, 0, 0), header_style="sheet.label", show_footer=True)
    table.add_column("Item", footer="Total")
    table.add_column("Mass", justify="right", footer=f"{_number(mass_used)}/{_number(allowance)}")
    table.add_column("Points", justify="right", footer=str(points))
    table.add_column("Source", style="sheet.dim")
    for line in lines:
        table.add_row(
            line.item, _number(line.mass) if line.mass else "—", _number(line.points), line.source
        )
    return table


def record_sheet(
    ship: Ship, state: ShipState | None = None, *, core_systems: bool = False
) -> RenderableType:
    """Return the ship's record sheet: summary, damage track, systems and points; with
    ``core_systems``, the core box too (000 10.3)."""
    state = state or fresh_state(ship)
    parts: list[RenderableType] = [
        _summary(ship),
        Text(""),
        Text(f"Damage track: {ship.hull_boxes} boxes, lost top row first", style="sheet.label"),
        _track(ship, state),
        Text(""),
        _systems(ship, state, core_systems),
        Text(""),
        _cost_lines(ship.cost, ship.points, ship.mass_used, ship.mass_allowance),
    ]
    parts.extend(Text(f"note: {warning}", style="sheet.warning") for warning in ship.warnings)
    if ship.provenance:
        parts.extend([Text(""), Text(ship.provenance, style="sheet.dim")])
    return Panel(
        Group(*parts),
        title=Text(ship.name, style="sheet.title"),
        subtitle=f"{ship.rules} · preset {ship.preset} · {ship.points} points",
        title_align="left",
        subtitle_align="right",
    )


def cost_table(costing: Costing) -> RenderableType:
    """Return a design's points breakdown with its warnings."""
    parts: list[RenderableType] = [
        _cost_lines(costing.lines, costing.points, costing.mass_used, costing.mass_allowance)
    ]
    parts.extend(Text(f"note: {warning}", style="sheet.warning") for warning in costing.warnings)
    return Panel(
        Group(*parts),
        title=Text(costing.design, style="sheet.title"),
        subtitle=f"{costing.rules} · preset {costing.preset} · {costing.points} points",
        title_align="left",
        subtitle_align="right",
    )


def design_table(
    ships: Iterable[tuple[str, Ship]], fits: Mapping[str, str] | None = None
) -> RenderableType:
    """Return a table of designs; Fit says whether the fit is the rules text or ours, or, from
    ``fits``, whose home-made design it is."""
    table = Table(header_style="sheet.label", box=None, padding=(0, 1, 0, 0))
    # Short numeric headers keep the table inside 80 columns; names then wrap at word breaks.
    for name in ("Id", "Name", "Rules", "Class", "Mass", "Thr", "Pts", "Fit"):
        table.add_column(
            name,
            justify="right" if name in ("Mass", "Thr", "Pts") else "left",
            no_wrap=name != "Name",
            min_width=len("Battledreadnought") if name == "Name" else None,
        )
    for design_id, ship in ships:
        source = "project" if ship.provenance.startswith("project design") else "text"
        source = (fits or {}).get(design_id, source)
        table.add_row(
            design_id,
            ship.name,
            ship.rules,
            ship.hull_class,
            str(ship.mass),
            str(ship.thrust),
            str(ship.points),
            source,
        )
    return table


_STATUS_STYLE = {
    "active": "battle.active",
    "away": "battle.away",
    "destroyed": "battle.gone",
    "abandoned": "battle.gone",
    "struck": "battle.gone",
    "captured": "battle.gone",
}


def _status(ship: ShipInPlay) -> Text:
    away = ship.status == "away" and ship.returns is not None
    text = f"away to turn {ship.returns}" if away else ship.status
    return Text(text, style=_STATUS_STYLE.get(ship.status, ""))


def _at(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _damage(ship: ShipInPlay) -> Text:
    """The drive's state and the systems hit: destroyed ones in red, damaged ones in yellow;
    enemy boarders aboard in red."""
    parts: list[tuple[str, str]] = []
    if ship.record.drive != "ok":
        parts.append((f"drive {ship.record.drive}", "sheet.status.damaged"))
    for system in ship.record.systems:
        if system.status != "ok":
            parts.append((system.id, f"sheet.status.{system.status}"))
    parts.extend((words, "sheet.status.damaged") for words in _core_words(ship.record))
    for landing in ship.boarders:  # enemy boarders aboard (000 12.7)
        parts.append((f"{landing.count} {landing.side} boarders", "sheet.status.destroyed"))
    text = Text()
    for index, (words, style) in enumerate(parts):
        text.append(", " if index else "")
        text.append(words, style=style)
    return text


def _estimate_words(design: str, known: Sighting) -> str:
    """An enemy ship known only in part (closed record sheets): what its side's scans told,
    and the design assumed below "every system" (000 L12648-12656)."""
    if known.level >= SYSTEMS_KNOWN:
        return f"{design} (no damage report)"
    facts = [("mass", known.mass), ("thrust", known.thrust), ("screens", known.screens)]
    told = ", ".join(f"{word} {value}" for word, value in facts if value is not None)
    return f"{known.shows}: {told or 'not scanned'}; as {design}?"


def battle_table(ctx: BattleContext, state: BattleState, title: str = "") -> Table:
    """Return every ship of a battle, side by side: status, hull boxes left, where it is and
    its damage (a ship off the table or destroyed has no place)."""
    table = Table(
        title=title or None,
        title_justify="left",
        header_style="sheet.label",
        box=None,
        padding=(0, 1, 0, 0),
    )
    # Under vector and spatial movement a ship's course is its facing and its motion apart.
    moving = ("Crs", "Spd") if ctx.rules.movement == "cinematic" else ("Face", "Motion")
    for name in ("Side", "Ship", "Design", "Status", "Hull", "At", *moving):
        table.add_column(
            name, justify="right" if name in ("Hull", *moving) else "left", no_wrap=True
        )
    table.add_column("Systems hit", min_width=12)
    order = {side: index for index, side in enumerate(ctx.setup.sides)}
    for ship in sorted(state.ships, key=lambda s: order[s.side]):
        sheet = ctx.sheets[ship.id]
        on_table = ship.status == "active"
        known = ship.sighting
        table.add_row(
            ship.side,
            ship.id,
            ship.design if known is None else _estimate_words(ship.design, known),
            _status(ship),
            f"{sheet.hull_boxes - sum(ship.record.hull_lost)}/{sheet.hull_boxes}"
            if known is None or known.level >= DAMAGE_KNOWN
            else "?",
            f"{_at(ship.x)},{_at(ship.y)}" if on_table else "",
            str(ship.course) if on_table else "",
            _speed(ctx, ship) if on_table else "",
            _damage(ship),
        )
    return table


def _speed(ctx: BattleContext, ship: ShipInPlay) -> str:
    """A ship's speed, or under vector and spatial movement its motion: ``6@11`` (003
    L91-94) or its course in degrees and speed."""
    if ship.vector is None:
        return str(ship.speed)
    if ctx.rules.movement == "spatial":
        return format_motion(ship.vector)
    return f"{format_mu(ship.vector[0])}° {format_mu(ship.vector[1])}"


def odds_table(figures: Odds) -> Table:
    """Return each side's win rate with its 95% interval, and losses (mean ± standard
    deviation) over the runs; the title says when a precision asked stopped them early."""
    stopped = (
        f", until every 95% interval was within {figures.precision:.1%}"
        if figures.precision is not None
        else ""
    )
    table = Table(
        title=f"{figures.runs} battles from seed {figures.seed}{stopped}",
        title_justify="left",
        header_style="sheet.label",
        caption=f"draws {figures.draws:.1%} · {figures.turns:.1f} turns on average",
        caption_justify="left",
    )
    for name in ("Side", "Wins", "Ships lost", "Points lost"):
        table.add_column(name, justify="left" if name == "Side" else "right")
    for side in figures.sides:
        table.add_row(
            side.side,
            f"{side.wins:.1%} ({side.wins_low:.1%}-{side.wins_high:.1%})",
            f"{side.ships_lost:.2f} ± {side.ships_lost_sd:.2f}",
            f"{side.points_lost:.0f} ± {side.points_lost_sd:.0f}",
        )
    return table


def battle_plot(ctx: BattleContext, state: BattleState, width: int = 64, height: int = 12) -> Text:
    """Return a rough plot of the ships on the table, north up: each ship is its side's
    initial in the side's colour (``*`` where counters of both sides share a cell), framed by
    the extent of the counters, centred, which the caption gives in MU.

    With bogeys, a ship the enemy has not identified is its initial unbolded and a dummy bogey
    is a ``?`` in its side's colour. The frame is as many MU a column across as the longer
    extent needs (a row is two columns high), so the shorter one is centred with room to
    spare on both sides rather than pushed against one edge.
    """
    counters = [
        (ship.x, ship.y, ship.side, "ship" if ship.bogey is None else "bogey")
        for ship in state.ships
        if ship.status == "active"
    ] + [(dummy.x, dummy.y, dummy.side, "dummy") for dummy in state.dummies]
    if not counters:
        return Text("no ship on the table", style="sheet.dim")
    xs = [x for x, _y, _side, _kind in counters]
    ys = [y for _x, y, _side, _kind in counters]
    # MU per column; a row is two columns high, as terminal cells are about twice as tall.
    scale = max((max(xs) - min(xs)) / (width - 1), (max(ys) - min(ys)) / (2 * (height - 1)), 0.25)
    left = (min(xs) + max(xs)) / 2 - scale * (width - 1) / 2
    bottom = (min(ys) + max(ys)) / 2 - scale * (height - 1)
    cells: dict[tuple[int, int], set[tuple[str, str]]] = {}
    for x, y, side, kind in counters:
        column = round((x - left) / scale)
        row = height - 1 - round((y - bottom) / (2 * scale))
        cells.setdefault((row, column), set()).add((side, kind))
    styles = ("green", "red", "cyan", "magenta", "yellow", "blue")
    colour = {side: styles[index % len(styles)] for index, side in enumerate(ctx.setup.sides)}
    text = Text()
    for row in range(height):
        for column in range(width):
            marks = cells.get((row, column))
            sides = {side for side, _kind in marks or ()}
            kinds = {kind for _side, kind in marks or ()}
            if not marks:
                text.append("·" if row % 4 == 0 and column % 8 == 0 else " ", style="sheet.dim")
            elif len(sides) > 1:
                text.append("*", style="bold")
            else:
                (side,) = sides
                if "ship" in kinds:
                    text.append(side[0], style=f"bold {colour[side]}")
                elif "bogey" in kinds:
                    text.append(side[0], style=colour[side])
                else:
                    text.append("?", style=colour[side])
        text.append("\n")
    text.append(
        f"x {_at(left)} to {_at(left + scale * (width - 1))} MU, "
        f"y {_at(bottom)} to {_at(bottom + 2 * scale * (height - 1))} MU",
        style="sheet.dim",
    )
    if state.dummies or any(ship.bogey is not None for ship in state.ships):
        text.append("; ? a dummy bogey, plain letters unidentified ships", style="sheet.dim")
    return text
