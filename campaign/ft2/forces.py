"""Forces from a points budget (001 L1568-1594): checked, or built by default, and deployed.

Pure: a forces file (or the scenario's default roster) becomes each player's fleets, priced
from the FT2 ship catalogue, within the budget scaled by the campaign (001 L1570), under the
50% class cap (001 L1572, A30), FTL-only where the scenario says (001 L1570), and the
non-FTL System Defence ships within each system's points (001 L1584-1592).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import Audience, NewEvent
from campaign.ft2.events import ForcesDeployed
from campaign.ft2.model import (
    DefenceLine,
    FleetLine,
    ForcesFile,
    Ft2Ship,
    Scenario,
    ScenarioSide,
    ShipLine,
)
from campaign.ft2.model import Fleet as Ft2Fleet
from maps import StarMap, label, parse_label
from tactical.designs import UnknownDesignError
from tactical.ship import Ship

DEFENCE_DESIGN = "system_defence_ship"  # 001 L1140-1142: the worked SDS example, non-FTL
CAPPED_CLASSES = ("escort", "cruiser", "capital")  # A30: merchants are not counted
SMALLEST_CAPPED_FORCE = 3  # a force of one or two ships is exempt from the cap (ruling)


def catalogue(design: str) -> Ship:
    """Return the FT2 record sheet of a catalogue design.

    Raises:
        InvalidInputError: no such FT2 design.
    """
    from tactical.setup import sheet_for  # the engine's catalogue (cached): not for a read

    try:
        return sheet_for(design, "ft2")
    except (UnknownDesignError, LookupError):
        raise InvalidInputError(
            f"no ft2 design {design!r} in the ship catalogue (`umpire ship list`)"
        ) from None


def scaled(points: int, scale: int) -> int:
    """Return a budget scaled to `scale` percent (001 L1570), rounded down."""
    return points * scale // 100


def class_cap_problem(classes: Sequence[str], cap_percent: int) -> str | None:
    """Return why a force breaks the class cap (001 L1572, A30), or None.

    >>> class_cap_problem(["capital"] * 10 + ["cruiser"] * 16 + ["escort"] * 25, 50) is None
    True
    >>> class_cap_problem(["capital"] * 8 + ["cruiser"] * 12 + ["escort"] * 40, 50)
    '40 of 60 ships are escort: no class may be over 50% of the ships (001 L1572)'
    """
    counted = [c for c in classes if c in CAPPED_CLASSES]
    if len(counted) < SMALLEST_CAPPED_FORCE:
        return None  # one or two ships cannot spread over classes (docs/rulings.md)
    for hull_class in CAPPED_CLASSES:
        count = counted.count(hull_class)
        if count * 100 > cap_percent * len(counted):
            return (
                f"{count} of {len(counted)} ships are {hull_class}: no class may be over "
                f"{cap_percent}% of the ships (001 L1572)"
            )
    return None


def default_forces(
    scenario: Scenario, side: ScenarioSide, scale: int, starmap: StarMap
) -> ForcesFile:
    """Build a side's default roster: its designs taken in turn while the budget lasts, then
    ships of the most numerous class dropped, last first, until the class cap holds; a
    defending side's System Defence as SDS ships (docs/rulings.md)."""
    budget = scaled(side.budget, scale) - side.default_drones * scenario.drone_points
    sheets = [catalogue(d) for d in side.default_designs]
    chosen: list[Ship] = []
    spent = 0
    added = True
    while added:
        added = False
        for sheet in sheets:
            if spent + sheet.points <= budget:
                chosen.append(sheet)
                spent += sheet.points
                added = True
    while class_cap_problem([s.hull_class for s in chosen], scenario.class_cap_percent):
        classes: list[str] = [s.hull_class for s in chosen]
        most = max(CAPPED_CLASSES, key=classes.count)
        chosen.pop(max(i for i, s in enumerate(chosen) if s.hull_class == most))
    lines: dict[str, int] = {}
    for sheet in chosen:
        lines[sheet.id] = lines.get(sheet.id, 0) + 1
    hex_ = side.default_hex
    fleet = FleetLine(
        hex=hex_,
        ships=tuple(ShipLine(design=d, count=n) for d, n in lines.items()),
        drones=side.default_drones,
    )
    defences: tuple[DefenceLine, ...] = ()
    if side.deploy == "systems":
        sds = catalogue(DEFENCE_DESIGN)
        defences = tuple(
            DefenceLine(
                system=d.system,
                ships=(
                    ShipLine(design=DEFENCE_DESIGN, count=scaled(d.points, scale) // sds.points),
                ),
            )
            for d in scenario.defences
            if scaled(d.points, scale) >= sds.points
        )
    return ForcesFile(fleets=(fleet,) if lines else (), defences=defences)


def place(starmap: StarMap, where: str) -> str:
    """Return the hex label of a hex label or a star system's name.

    Raises:
        InvalidInputError: neither, or off the map.
    """
    try:
        cell = parse_label(where)
    except ValueError:
        try:
            cell = starmap.system(where).hex
        except KeyError:
            raise InvalidInputError(
                f"{where!r} is neither a hex label (CCRR) nor a star system of the map"
            ) from None
    if not starmap.contains(cell):
        raise InvalidInputError(f"hex {where} is off the map")
    return label(cell)


def deploy(
    scenario: Scenario,
    side: ScenarioSide,
    player: str,
    forces: ForcesFile,
    scale: int,
    starmap: StarMap,
) -> NewEvent:
    """Check a player's forces and deploy them, for him alone to know (001 L1554).

    Raises:
        InvalidInputError: every problem with the forces, together.
    """
    problems: list[str] = []
    fleets: list[Ft2Fleet] = []
    numbers = iter(range(1, 100_000))
    mobile: list[Ship] = []
    drones = 0
    entry_hex = label(starmap.entry(side.entry).hex) if side.entry else None
    for n, line in enumerate(forces.fleets, start=1):
        try:
            if side.deploy == "entry":
                hex_ = entry_hex or ""
                if line.hex and place(starmap, line.hex) != hex_:
                    problems.append(f"fleet {n}: {side.name} enters at X, hex {hex_} (001 L1554)")
            else:
                hex_ = place(starmap, line.hex or side.default_hex)
                if starmap.system_at(parse_label(hex_)) is None:
                    problems.append(f"fleet {n}: {line.hex} is not a star system (001 L1554)")
            ships = _ships(player, line.ships, numbers)
        except InvalidInputError as exc:
            problems.append(f"fleet {n}: {exc}")
            continue
        for ship in ships:
            sheet = catalogue(ship.design)
            mobile.append(sheet)
            if side.ftl_only and not sheet.ftl:
                problems.append(f"{ship.id} ({ship.design}) has no FTL drive (001 L1570)")
        drones += line.drones
        fleets.append(
            Ft2Fleet(id=f"{player}-F{n}", owner=player, hex=hex_, ships=ships, drones=line.drones)
        )
    points = sum(s.points for s in mobile) + drones * scenario.drone_points
    budget = scaled(side.budget, scale)
    if points > budget:
        problems.append(f"the fleets cost {points} points, over the {budget} budget (001 L1570)")
    cap = class_cap_problem([s.hull_class for s in mobile], scenario.class_cap_percent)
    if cap:
        problems.append(cap)
    if forces.defences and side.deploy != "systems":
        problems.append(f"{side.name} has no System Defence forces (001 L1584-1592)")
    fleets += _defences(scenario, player, forces, scale, starmap, numbers, problems)
    if problems:
        raise InvalidInputError(f"{player}'s forces: " + "; ".join(problems))
    deployed = ForcesDeployed(player=player, side=side.name, fleets=tuple(fleets), points=points)
    return NewEvent(deployed, Audience.players_([player]), 0)


def _defences(
    scenario: Scenario,
    player: str,
    forces: ForcesFile,
    scale: int,
    starmap: StarMap,
    numbers: Iterator[int],
    problems: list[str],
) -> list[Ft2Fleet]:
    """The fixed System Defence fleets of a forces file; problems are added to `problems`."""
    fleets: list[Ft2Fleet] = []
    allowed = {d.system: scaled(d.points, scale) for d in scenario.defences}
    for n, defence in enumerate(forces.defences, start=1):
        try:
            ships = _ships(player, defence.ships, numbers)
            hex_ = place(starmap, defence.system)
        except InvalidInputError as exc:
            problems.append(f"defence {n}: {exc}")
            continue
        sheets = [catalogue(s.design) for s in ships]
        cost = sum(s.points for s in sheets)
        if defence.system not in allowed:
            problems.append(f"{defence.system} has no System Defence budget (001 L1584-1592)")
        elif cost > allowed[defence.system]:
            problems.append(
                f"{defence.system}'s defences cost {cost} points, "
                f"over its {allowed[defence.system]}"
            )
        if any(s.ftl for s in sheets):
            problems.append(f"{defence.system}'s defences must be non-FTL designs (001 L1136-1146)")
        fleets.append(
            Ft2Fleet(id=f"{player}-D{n}", owner=player, hex=hex_, ships=ships, fixed=True)
        )
    return fleets


def _ships(player: str, lines: tuple[ShipLine, ...], numbers: Iterator[int]) -> tuple[Ft2Ship, ...]:
    ships: list[Ft2Ship] = []
    for line in lines:
        sheet = catalogue(line.design)
        for _ in range(line.count):
            number = next(numbers)
            ships.append(
                Ft2Ship(
                    id=f"{player}-S{number}",
                    design=line.design,
                    hull_class=sheet.hull_class,
                    mass=sheet.mass,
                    ftl=sheet.ftl,
                )
            )
    return tuple(ships)


def decode_forces(text: str, source: str) -> ForcesFile:
    """Decode a forces file (TOML).

    Raises:
        InvalidInputError: not TOML, or a field missing, unknown or mistyped.
    """
    from maps import tomlinput

    try:
        return tomlinput.decode(text, type=ForcesFile)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidInputError(f"forces file {source}: {exc}") from None
