"""The FT2 campaign's data: the scenario file, forces, fleets, encounters, battles, orders.

Full Thrust 2nd edition's own campaign (001 L1459-1536) keeps no economy: each side has
ships from a points budget, grouped in fleets whose contents only their owner knows
(001 L1475). These structs are stored in events, so a new field needs a default.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from maps import tomlinput
from tactical.ship import ShipState

DECISIONS = ("fight", "withdraw", "stand-off")  # 001 L1512-1520
Count = Annotated[int, Meta(ge=0, le=10_000)]


# ---------------------------------------------------------------- the scenario file


class ShipLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """`count` ships of a catalogue design (`umpire ship list`)."""

    design: str
    count: Annotated[int, Meta(ge=1, le=500)] = 1


class ScenarioSide(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One side of a scenario: its budget and where its forces start."""

    name: str
    budget: Count
    entry: str = ""  # a map entry's name: every fleet starts there (001 L1554)
    deploy: str = "entry"  # "entry", or "systems": in any star system, secretly
    default_hex: str = ""  # where the default forces of a "systems" side start
    ftl_only: bool = True
    may_use_facilities: bool = True
    default_designs: tuple[str, ...] = ()
    default_drones: Count = 0


class ScenarioDefence(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fixed non-FTL System Defence forces of a system (001 L1584-1592)."""

    system: str
    points: Count


class Reinforcement(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ships that enter the map for a side at the end of a turn's moves (001 L1536:
    "planned beforehand ... or by special conditions in the Campaign Scenario")."""

    side: str
    turn: Annotated[int, Meta(ge=1)]
    hex: str  # a hex label or a system name
    ships: tuple[ShipLine, ...]
    drones: Count = 0


class Facility(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A naval facility (001 L1530-1536, L1602, L1614)."""

    system: str
    repair: bool = False
    replenish: bool = False
    fighters: bool = False
    repair_mass_limit: int | None = None


class Scenario(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A campaign scenario for the FT2 campaign rules, a file beside its map."""

    format: str
    version: int
    name: str
    title: str
    map: str
    turns: Annotated[int, Meta(ge=1, le=100)]
    sides: tuple[ScenarioSide, ScenarioSide]
    move_hexes: int = 6
    drone_points: int = 20
    class_cap_percent: int = 50
    key_system: str = ""
    win_systems: int = 3
    draw_with_key: int = 2
    defences: tuple[ScenarioDefence, ...] = ()
    facilities: tuple[Facility, ...] = ()
    reinforcements: tuple[Reinforcement, ...] = ()  # Lafayette's end the campaign instead

    def facility(self, system: str) -> Facility | None:
        """Return the facility in `system`, if there is one."""
        return next((f for f in self.facilities if f.system == system), None)


BUILTIN_SCENARIOS = ("lafayette",)


def load_scenario(name: str) -> Scenario:
    """Return a built-in scenario by name.

    Raises:
        LookupError: no built-in scenario of that name.
    """
    if name not in BUILTIN_SCENARIOS:
        raise LookupError(
            f"no scenario {name!r} (built-in scenarios: {', '.join(BUILTIN_SCENARIOS)})"
        )
    from importlib import resources  # imports tempfile and more: only to read a scenario

    text = resources.files("maps").joinpath("data", f"{name}.scenario.toml").read_text("utf-8")
    return tomlinput.decode(text, type=Scenario)


# ---------------------------------------------------------------- forces


class FleetLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A fleet of a forces file: where it starts, its ships and its decoy drones."""

    hex: str = ""  # a hex label or a system name; a side entering at X may leave it out
    ships: tuple[ShipLine, ...] = ()
    drones: Count = 0


class DefenceLine(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A system's fixed defence ships (non-FTL designs, 001 L1136-1146)."""

    system: str
    ships: tuple[ShipLine, ...] = ()


class ForcesFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A player's forces for the scenario (001 L1568-1594)."""

    fleets: tuple[FleetLine, ...] = ()
    defences: tuple[DefenceLine, ...] = ()


# ---------------------------------------------------------------- the campaign's things


class Ft2Ship(msgspec.Struct, frozen=True, kw_only=True):
    """A ship: its catalogue design and the damage it carries until repaired (001 L1530)."""

    id: str
    design: str
    hull_class: str
    mass: int
    ftl: bool = True
    record: ShipState | None = None  # None: undamaged, full magazines and bays


class Fleet(msgspec.Struct, frozen=True, kw_only=True):
    """A fleet counter (001 L1475): only its owner knows what it holds.

    A fixed fleet is a system's non-FTL defence and never moves (001 L1550).
    """

    id: str
    owner: str
    hex: str
    ships: tuple[Ft2Ship, ...]
    drones: int = 0  # decoy drones carried (A38)
    fixed: bool = False
    came_from: str | None = None  # where its last move started (where a jump out goes)
    arrived: int = 0  # the turn it came into its hex (the occupant is who came first)
    must_leave: bool = False  # it withdrew: it leaves on the next move (001 L1512)


class Contact(msgspec.Struct, frozen=True):
    """So many contacts of one basic class on a long-range scan (001 L1491)."""

    hull_class: str
    count: int


class EncounterSide(msgspec.Struct, frozen=True, kw_only=True):
    """One player's forces in an encounter (A37: all his fleets in the system together)."""

    player: str
    fleets: tuple[str, ...]


def encounter_id(turn: int, hex_: str) -> str:
    """The id of the encounter in a star system's hex on a turn: its turn and hex, which tell
    its players nothing they do not know, and nothing of the turn's other encounters (docs/
    rulings.md, "FT2 campaign: an encounter's id"). A hex holds one encounter a turn: all the
    opposing forces ending the turn in one star system meet there (001 L1489).

    >>> encounter_id(3, "0909")
    'E3-0909'
    """
    return f"E{turn}-{hex_}"


def battle_id(turn: int, hex_: str) -> str:
    """The id of the battle an encounter brought, by the encounter's turn and hex (one
    encounter brings one battle at most, 001 L1512-1520).

    >>> battle_id(3, "0909")
    'B3-0909'
    """
    return f"B{turn}-{hex_}"


def battle_turn(battle: str) -> int | None:
    """The turn of a battle id by turn and hex; None for one numbered across its turn as
    campaigns stored before those ids have (`B3-1`).

    >>> battle_turn("B3-0909"), battle_turn("B3-1")
    (3, None)
    """
    kind, _, rest = battle.partition("-")
    turn = kind[1:]
    if kind[:1] != "B" or not turn.isdigit() or len(rest) != 4 or not rest.isdigit():
        return None
    return int(turn)


class Encounter(msgspec.Struct, frozen=True, kw_only=True):
    """Opposing forces ended a turn in one star system (001 L1489)."""

    id: str
    system: str
    hex: str
    occupant: str  # held the inner system; the newcomer is on the fringe (001 L1520)
    sides: tuple[EncounterSide, EncounterSide]


class BattleSide(msgspec.Struct, frozen=True, kw_only=True):
    """One side of a battle: its decision and the ships it fights with."""

    player: str
    decision: str  # fight, stand-off, or withdraw (caught: 001 L1514)
    ships: tuple[str, ...]


class Ft2Battle(msgspec.Struct, frozen=True, kw_only=True):
    """A battle an encounter brought, awaiting its outcome (engine or table)."""

    id: str
    encounter: str
    system: str
    hex: str
    sides: tuple[BattleSide, BattleSide]


class ShipFate(msgspec.Struct, frozen=True, kw_only=True):
    """What a battle did to one ship.

    fate: "present" (still in the system), "disengaged" (left the table: separated, still in
    the system, 001 L1514), "jumped" (left the system by FTL, 001 L1514), "destroyed".
    """

    ship: str
    fate: str = "present"
    record: ShipState | None = None
    hull_lost: int = 0


class Repair(msgspec.Struct, frozen=True, kw_only=True):
    """A ship docked at a facility this turn, and its systems to roll for (001 L1532)."""

    ship: str
    systems: tuple[str, ...] = ()


# ---------------------------------------------------------------- orders


class MoveOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Move a fleet up to the scenario's hexes (001 L1477)."""

    fleet: str
    to: str  # a hex label or a system name


class SplitOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ships of a fleet become a new fleet (it may move at once with `to`)."""

    fleet: str
    ships: tuple[str, ...]
    drones: Count = 0
    to: str | None = None


class MergeOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fleets in one hex become one."""

    into: str
    fleets: tuple[str, ...]


class DockOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Dock a ship at its system's facility this turn (repairs; it cannot fight)."""

    ship: str
    systems: tuple[str, ...] = ()  # up to three to roll for (001 L1532)


class DecoyOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Release decoy drones as the fleet emerges from FTL (001 L1499)."""

    fleet: str
    drones: Annotated[int, Meta(ge=1, le=1000)]


class DecisionOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A decision for an encounter (001 L1512-1520), handed in as an orders file."""

    encounter: str
    decision: str  # fight, withdraw or stand-off


class Ft2Orders(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A player's orders file for one turn of the FT2 campaign: his moves (before the
    turn's movement), or his encounter decisions (once encounters are found)."""

    player: str
    turn: int
    moves: tuple[MoveOrder, ...] = ()
    splits: tuple[SplitOrder, ...] = ()
    merges: tuple[MergeOrder, ...] = ()
    docks: tuple[DockOrder, ...] = ()
    decoys: tuple[DecoyOrder, ...] = ()
    decisions: tuple[DecisionOrder, ...] = ()


class Ft2State(msgspec.Struct, frozen=True, kw_only=True):
    """The FT2 campaign as far as the events folded so far say (a player: his own part)."""

    scenario: str = ""
    scale: int = 100
    end_early: bool = False  # judged at the first week's end the attacker holds every system
    sides: dict[str, str] = msgspec.field(default_factory=dict)  # player -> ESU / NAC
    fleets: dict[str, Fleet] = msgspec.field(default_factory=dict)
    phase: str = "orders"  # orders, encounters, battles, end (the week's end is next)
    orders: dict[str, Ft2Orders] = msgspec.field(default_factory=dict)
    nonces: dict[str, str] = msgspec.field(default_factory=dict)
    encounters: dict[str, Encounter] = msgspec.field(default_factory=dict)
    decisions: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)  # enc -> p -> d
    decision_nonces: dict[str, dict[str, str]] = msgspec.field(default_factory=dict)
    battles: dict[str, Ft2Battle] = msgspec.field(default_factory=dict)
    fought: tuple[str, ...] = ()  # ships that were in a battle this turn (no repairs)
    separated: tuple[str, ...] = ()  # hexes where a battle ended in disengagement this turn
    scans: dict[str, tuple[Contact, ...]] = msgspec.field(default_factory=dict)  # enc -> seen
    next_fleet: dict[str, int] = msgspec.field(default_factory=dict)
    battles_fought: int = 0
    disengagements: dict[str, int] = msgspec.field(default_factory=dict)  # battle -> tries
    result: str | None = None
    held: tuple[str, ...] = ()  # the settled systems the first side held when judged
