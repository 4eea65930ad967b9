"""The bridge to the campaign: a battle request, its set-up, and the outcome handed back.

The campaign asks for a battle with a :class:`CampaignBattle` (the sides, their ships with
carried-in damage and captains, their campaign orders, the kind of battle and where it is
fought). :func:`setup_campaign_battle` lays the table out by 004 5.3.1-5.3.5 and returns an
ordinary :class:`~tactical.battle.BattleSetup` whose :class:`~tactical.battle.Theatre` carries
the campaign's rules (floating table, FTL escape, gravity, asteroids, command levels);
:func:`resolve_campaign_battle` plays it with the order commanders
(:mod:`tactical.commanders`) and returns a :class:`CampaignBattleOutcome`: each ship's fate
and record state, the winner and the journal, which :func:`outcome_from_journal` turns back
into the same outcome without rolling a die.

This module is pure and knows nothing of the campaign package: the campaign turns its own
``BattleRequested`` facts into a request and stores the outcome as its events.

>>> request = CampaignBattle(sides=(
...     CampaignSide(name="red", order="engage", ships=(CampaignShip(id="red-W1",
...         design="corvette"),)),
...     CampaignSide(name="blue", order="engage", ships=(CampaignShip(id="blue-W1",
...         design="corvette"),))))
>>> preset_for(request)
'ft2'
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from maps import tomlinput
from tactical.battle import (
    Battle,
    BattleContext,
    BattleSetup,
    BattleState,
    BoardingFought,
    CoreSystemsRolled,
    DummySetup,
    Event,
    FightersResolved,
    Identifier,
    SetupError,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    ShipStatus,
    Theatre,
    TurnEnded,
    Zone,
    context,
    replay,
)
from tactical.commanders import Commander, order_commander, play
from tactical.designs import UnknownDesignError
from tactical.dice import DiceSource, RecordingDice, ReplayDice, Roll
from tactical.movement import heading_vector, round_mu
from tactical.phases.admirals import LEVEL_EFFECT
from tactical.rules import BATTLE_RULES, MoraleTies
from tactical.setup import design_sheet
from tactical.ship import (
    Design,
    DesignError,
    Problem,
    ShipState,
    SystemState,
    SystemStatus,
    current_thrust,
    fresh_state,
)

__all__ = [
    "CampaignBattle",
    "CampaignBattleOutcome",
    "CampaignOrder",
    "CampaignShip",
    "CampaignSide",
    "PrefixedDice",
    "ShipOutcome",
    "check_request",
    "decode_request",
    "outcome_from_journal",
    "preset_for",
    "replay_setup",
    "resolve_campaign_battle",
    "setup_campaign_battle",
]

CampaignOrder = Literal["engage", "stand-off", "ftl-move"]
"""A task force's campaign order (004 L105-112)."""
Location = Literal["free-space", "dense-world", "gas-giant", "asteroid-field"]
"""Where in a system the battle is fought (004 L123-124)."""
Fate = Literal["destroyed", "fled", "jumped", "present", "lost", "captured"]
"""A ship's fate: ``fled`` left the fixed table (disengaged, 004 L136), ``lost`` had no drive
to hold altitude over a gas giant at the end (004 L173), or was abandoned by its crew when its
life support gave out (000 L11189-11197; the campaign has no salvage, see docs/rulings.md);
``captured`` struck its colours, or was taken by boarders, and the enemy held the field (000
L13275-13343, L13113-13121); a ship that struck while its own side held the field is
``present``, recovered, and one boarders took is ``destroyed``, a wreck."""

SIDE_GAP_MU = 60.0  # our layout: the fleets' centres start 60 MU apart (004 leaves it open)
FLEET_RADIUS_MU = 10.0  # 004 L148, L156, L169, L175: a fleet's ships within 20 MU of each other
NEAR_WORLD_RADIUS_MU = 4.0  # 004 L154: the fleet by the world starts within 10 MU of it:
NEAR_WORLD_OFFSET_MU = 6.0  # a 4 MU cluster whose centre is 6 MU from the world
DENSE_WORLD_FTL_MU = 40.0  # 004 L146, L161
MOON_FTL_MU = 20.0  # 004 L146, L161
MOON_OFFSET_MU = 30.0  # our layout: the moon 30 MU beyond the world, across the line of battle
WELL_EDGE_MU = -40.0  # our layout: the gas giant edge 40 MU to the fleets' -x side
PURSUER_SPEED = 3  # 004 L150: speeds up to thrust x 3; a pursuer comes on at the most
PURSUED_SPEED = 1  # 004 L151-152: the fleeing side at most thrust x 1
EVEN_SPEED = 1  # our layout: both sides of an even battle at thrust x 1
ASTEROID_FIELD = (-60.0, -30.0, 60.0, 90.0)  # our layout: a 120 MU square round the fleets
ASTEROID_SPACING_MU = 12.0  # 004 L178-179: no two asteroids closer than 12 MU
ASTEROID_ATTEMPTS = 20  # tries per asteroid before it is left out
CAMPAIGN_MORALE = 50  # 000 L13214-13273: half the force by mass lost, in a simple engagement
ADMIRAL_MORALE = {1: 15, 2: 0, 3: -15}  # 004 L336-337, L341-342: points on the withdrawal share
HEX_DIRECTIONS = 6  # an unplanned jump's D6 direction: the six hex sides, 1 = map north


class CampaignShip(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One ship the campaign sends into battle."""

    id: Identifier
    """A stable campaign id, e.g. ``red-W3``."""
    design: Identifier
    """A catalogue design (``umpire ship list``)."""
    state: ShipState | None = None
    """Damage and spent munitions carried in (004 L185-201); undamaged when left out."""
    captain: Annotated[int, Meta(ge=1, le=3)] = 2
    """The captain's command level (004 L322-335)."""


class CampaignSide(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """One player's task force: its order, its ships (the first is the flagship)."""

    name: Identifier
    order: CampaignOrder
    ships: Annotated[tuple[CampaignShip, ...], Meta(min_length=1)]
    admiral: Annotated[int, Meta(ge=1, le=3)] | None = None
    """The admiral's command level, if the task force has one (004 L320-345)."""
    dummies: Annotated[int, Meta(ge=0, le=1000)] = 0
    """Dummy bogeys the task force deploys, at most one per ship (004 L39; 001 L955-959):
    drones in its formation showing an escort's signature until identified."""


class CampaignBattle(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a campaign battle needs: a command to :func:`resolve_campaign_battle`."""

    sides: tuple[CampaignSide, CampaignSide]
    battle: Literal["even", "pursuit"] = "even"
    pursued: Identifier | None = None
    """In a pursuit, the side under FTL Move orders that is being chased (004 L115-122)."""
    location: Location = "free-space"
    chosen_by: Identifier | None = None
    """The side that chose the location (004 L126-131); chooses the gravity band."""
    world: Literal["between", "near"] = "between"
    """Dense world: between the fleets, or with the chooser's fleet within 10 MU (004 L154)."""
    moon: bool = False
    """Dense world: a moon too, with its 20 MU no-FTL zone (004 L161)."""
    gravity: Annotated[int, Meta(ge=2, le=12)] | None = None
    """Gas giant: the chooser's gravity band; rolled on 2d6 when left out (004 L163-164)."""
    rules: str | None = None
    """Battle rules preset; by default ``continuum`` if every design exists there, else
    ``ft2`` (see :func:`preset_for`)."""
    turn_limit: Annotated[int, Meta(ge=1, le=1000)] = 12
    key: Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.\-/]+$", max_length=80)] = "battle"
    """Prefix for every die's key, so one campaign seed serves many battles."""
    movement: Literal["vector", "cinematic", "spatial"] = "vector"
    """Fleet Book 1's vector movement, the campaign's (004 L43); ``cinematic`` for an umpire
    who prefers the rulebooks' cinematic movement, ``spatial`` for spatial movement (003)."""
    designs: dict[Identifier, Design] = msgspec.field(default_factory=dict)
    """The campaign's home-made designs its ships name (004 L26-30), by id; every other
    design is the catalogue's."""
    asteroid_motion: Literal["jump", "sweep"] = "jump"
    """How an asteroid field's drifting asteroids collide: ``jump`` (the drift is a jump at
    the end of each turn, and a ship risks what its move crosses) or ``sweep`` (Continuum's
    moving asteroids, 000 L18073-18101); see :class:`tactical.battle.Theatre`."""
    morale_ties: MoraleTies = "worse"
    """When both sides reach their fleet morale share in the same turn (000 L13214-13273 does
    not say who breaks first): the side ``worse`` off withdraws and the other holds the field,
    or ``both`` withdraw and nobody wins (docs/rulings.md); the campaign's ``--morale-ties``."""
    campaign: Literal["004", "ft2"] = "004"
    """Whose optional rules the battle plays: the 004 campaign's (004 L39-46: bogeys, core
    systems, fleet morale and striking the colours, fighter re-arming and scrambling), or
    FT2's own campaign's (001 L1512: it starts with bogeys; the rest is not FT2's)."""


class ShipOutcome(Struct, frozen=True, kw_only=True, gc=False):
    """What became of one ship: the campaign stores it as events."""

    id: str
    side: str
    design: str
    fate: Fate
    record: ShipState
    """The record state it carries out (004 L185-201)."""
    hull_lost: int
    """Hull boxes lost in this battle."""
    systems_damaged: tuple[str, ...] = ()
    systems_destroyed: tuple[str, ...] = ()
    munitions_spent: int = 0
    fighters_lost: int = 0
    returning: int | None = None
    """A ship that fled: the turn it would have come back, had the battle gone on."""
    displaced: tuple[int, int] | None = None
    """An unplanned jump: D6 parsecs off target and D6 hex direction (004 L140-141)."""
    thresholds: tuple[int, ...] = ()
    """The row level of every threshold check it made (for the campaign's officer rolls)."""
    bridge_failures: tuple[int, ...] = ()
    """The threshold level (row) of every check at which its Command Bridge failed, in order
    (core systems, 000 L11133-11147): each brings the campaign's officer-casualty roll, -1 at
    level 2 and -2 at level 3 (004 L361-370)."""


class CampaignBattleOutcome(Struct, frozen=True, kw_only=True, gc=False):
    """The result handed back to the campaign; its journal replays to it exactly."""

    setup: BattleSetup
    journal: tuple[Event, ...]
    ships: tuple[ShipOutcome, ...]
    winner: str | None
    reason: str
    turns: int
    decoys_lost: tuple[tuple[str, int], ...] = ()
    """Per side that deployed dummy bogeys: how many it lost, identified by the enemy's
    sensors (001 L957) or gone off the table."""
    decoys_kept: tuple[str, ...] = ()
    """The dummy bogeys still on the table, unidentified, at the end."""


class PrefixedDice:
    """A dice source that puts the battle's key prefix in front of every die's key."""

    def __init__(self, source: DiceSource, prefix: str) -> None:
        self.source = source
        self.prefix = prefix

    def roll(self, key: str, sides: int) -> int:
        """Roll the die ``prefix/key``."""
        return self.source.roll(f"{self.prefix}/{key}", sides)


# ---------------------------------------------------------------- the request


def preset_for(request: CampaignBattle) -> str:
    """Return the rules preset: the request's, else ``continuum`` (the campaign default) when
    every design is in its catalogue, else ``ft2`` (see docs/rulings.md)."""
    if request.rules is not None:
        return request.rules
    designs = {ship.design for side in request.sides for ship in side.ships}
    for preset in ("continuum", "ft2"):
        if all(_has_design(request, design, preset) for design in designs):
            return preset
    return "continuum"


def _has_design(request: CampaignBattle, design: str, preset: str) -> bool:
    try:
        design_sheet(request.designs, design, preset)
    except (UnknownDesignError, DesignError, LookupError):
        return False
    return True


def check_request(request: CampaignBattle) -> list[Problem]:
    """Return every problem with a request (an empty list when it is sound)."""
    problems: list[Problem] = []
    names = [side.name for side in request.sides]
    if names[0] == names[1]:
        problems.append(Problem("$.sides", f"the two sides {tuple(names)!r} must differ"))
    orders = [side.order for side in request.sides]
    if "engage" not in orders:
        problems.append(
            Problem(
                "$.sides",
                f"{orders[0]} against {orders[1]} is no battle (004 L118-122, Stand Off"
                " against Stand Off at L121): one side must have Engage orders",
            )
        )
    if request.rules is not None and request.rules not in BATTLE_RULES:
        presets = ", ".join(sorted(BATTLE_RULES))
        problems.append(Problem("$.rules", f"no rules {request.rules!r}; presets are {presets}"))
    if request.battle == "pursuit":
        if request.pursued not in names:
            problems.append(
                Problem("$.pursued", f"a pursuit needs the pursued side, one of {names}")
            )
        else:
            fleeing = request.sides[names.index(request.pursued)]
            chasing = request.sides[1 - names.index(request.pursued)]
            if fleeing.order != "ftl-move" or chasing.order != "engage":
                problems.append(
                    Problem("$.pursued", "a pursuit is Engage against FTL Move (004 L115-122)")
                )
    elif request.pursued is not None:
        problems.append(Problem("$.pursued", "only a pursuit has a pursued side"))
    if request.chosen_by is not None and request.chosen_by not in names:
        problems.append(Problem("$.chosen_by", f"{request.chosen_by!r} is not one of {names}"))
    if request.location == "dense-world" and request.world == "near" and not request.chosen_by:
        problems.append(Problem("$.world", "a fleet near the world needs chosen_by (004 L154)"))
    if request.gravity is not None and request.location != "gas-giant":
        problems.append(Problem("$.gravity", "a gravity band is for a gas giant battle"))
    seen: set[str] = set()
    for s, side in enumerate(request.sides):
        if side.dummies > len(side.ships):
            problems.append(
                Problem(
                    f"$.sides[{s}].dummies",
                    f"{side.dummies} dummies for {len(side.ships)} ships: at most one dummy "
                    "per real ship (001 L959)",
                )
            )
        for i, ship in enumerate(side.ships):
            if ship.id in seen:
                problems.append(Problem(f"$.sides[{s}].ships[{i}].id", f"{ship.id!r} twice"))
            seen.add(ship.id)
    return problems


def decode_request(text: str | bytes, source: str = "<request>") -> CampaignBattle:
    """Decode a request from TOML; unknown fields are errors.

    Raises:
        SetupError: not TOML, a field missing, unknown or mistyped (with its path), or the
            request does not hold together (every problem).
    """
    try:
        request = tomlinput.decode(text, type=CampaignBattle)
    except msgspec.DecodeError as exc:
        raise SetupError(source, [Problem.from_decode_error(exc, CampaignBattle)]) from None
    problems = check_request(request)
    if problems:
        raise SetupError(source, problems)
    return request


# ---------------------------------------------------------------- the set-up


def dummy_id(side: str, index: int) -> str:
    """Return the id of a side's dummy bogey in a campaign battle, counted from 0."""
    return f"{side}.decoy{index + 1}"


def _cluster(count: int, radius: float) -> list[tuple[float, float]]:
    """Return ``count`` offsets on a Vogel spiral inside ``radius``: any two are within
    2 x radius of each other, so the fleet is within 20 MU (004 L148)."""
    golden = math.pi * (3.0 - math.sqrt(5.0))
    return [
        (
            radius * math.sqrt((i + 0.5) / count) * math.cos(i * golden),
            radius * math.sqrt((i + 0.5) / count) * math.sin(i * golden),
        )
        for i in range(count)
    ]


def _fleet_speed(request: CampaignBattle, preset: str, side: CampaignSide, multiple: int) -> int:
    """The whole fleet moves together: the slowest ship's thrust now, times ``multiple``."""
    thrusts = []
    for ship in side.ships:
        try:
            sheet = design_sheet(request.designs, ship.design, BATTLE_RULES[preset].ships)
            thrusts.append(current_thrust(sheet, ship.state or fresh_state(sheet)))
        except (LookupError, DesignError, ValueError):
            continue  # context() reports the design or the record state
    return multiple * min(thrusts, default=0)


def _roll_asteroids(
    dice: DiceSource, key: str
) -> tuple[tuple[tuple[float, float], ...], tuple[float, float]]:
    """Roll d6 x d6 asteroids, none within 12 MU of another, and their drift: d6 MU in a d12
    direction (004 L178-181). An asteroid with no room after 20 tries is left out."""
    count = dice.roll(f"{key}/asteroids/0", 6) * dice.roll(f"{key}/asteroids/1", 6)
    x_min, y_min, x_max, y_max = ASTEROID_FIELD
    width, height = int(x_max - x_min), int(y_max - y_min)
    placed: list[tuple[float, float]] = []
    for index in range(count):
        for attempt in range(ASTEROID_ATTEMPTS):
            where = f"{key}/asteroid/{index}/{attempt}"
            x = x_min + dice.roll(f"{where}/x", width) - 0.5
            y = y_min + dice.roll(f"{where}/y", height) - 0.5
            if all(math.hypot(x - ax, y - ay) >= ASTEROID_SPACING_MU for ax, ay in placed):
                placed.append((x, y))
                break
    speed = dice.roll(f"{key}/drift/speed", 6)
    dx, dy = heading_vector(dice.roll(f"{key}/drift/direction", 12))
    return tuple(placed), (round_mu(dx * speed), round_mu(dy * speed))


def _mods(
    request: CampaignBattle,
) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """Captains' course-change modifiers per ship, each side's initiative modifier and each
    Level 1 or Level 3 admiral's level.

    Level 1 +1, Level 3 -1 (004 L329-335). An admiral of level 1 or 3 makes one ship act at
    his level, which he may change from turn to turn (004 L336-344, ``tactical.phases.admirals``),
    and sets the side's initiative modifier; without one the flagship's captain is the
    senior captain.
    """
    turn_mods: list[tuple[str, int]] = []
    initiative: list[tuple[str, int]] = []
    admirals: list[tuple[str, int]] = []
    for side in request.sides:
        turn_mods.extend(
            (ship.id, LEVEL_EFFECT[ship.captain])
            for ship in side.ships
            if LEVEL_EFFECT[ship.captain]
        )
        if side.admiral is not None and LEVEL_EFFECT[side.admiral]:
            admirals.append((side.name, side.admiral))
        commander = side.admiral if side.admiral is not None else side.ships[0].captain
        if LEVEL_EFFECT[commander]:
            initiative.append((side.name, LEVEL_EFFECT[commander]))
    return tuple(turn_mods), tuple(initiative), tuple(admirals)


def _formation(
    side: CampaignSide,
    index: int,
    centre: tuple[float, float],
    radius: float,
    facing: int,
    speed: int,
) -> tuple[list[ShipSetup], list[DummySetup]]:
    """Place a side's ships and dummy bogeys on a spiral about its centre.

    The second fleet is the first turned half round (about the midpoint), so that neither
    side's formation is the better (docs/rulings.md). Dummy bogeys fly in the formation, each
    after a ship (001 L957: they "confuse the enemy as to the actual strength and disposition
    of the fleet").
    """
    cx, cy = centre
    sign = 1 if index == 0 else -1
    places = [
        (round_mu(cx + sign * ox), round_mu(cy + sign * oy))
        for ox, oy in _cluster(len(side.ships) + side.dummies, radius)
    ]
    counters = [("ship", i) for i in range(len(side.ships))]
    for n in range(side.dummies):
        counters.insert(2 * n + 1, ("dummy", n))
    ships: list[ShipSetup] = []
    dummies: list[DummySetup] = []
    for (kind, i), (x, y) in zip(counters, places, strict=True):
        if kind == "dummy":
            dummies.append(
                DummySetup(
                    id=dummy_id(side.name, i), side=side.name, x=x, y=y, course=facing, speed=speed
                )
            )
            continue
        ship = side.ships[i]
        ships.append(
            ShipSetup(
                id=ship.id,
                side=side.name,
                design=ship.design,
                x=x,
                y=y,
                course=facing,
                speed=speed,
                state=ship.state,
            )
        )
    return ships, dummies


def setup_campaign_battle(request: CampaignBattle, dice: DiceSource) -> BattleSetup:
    """Lay out a campaign battle by 004 5.3.1-5.3.5 and return its set-up.

    The first side's fleet is centred at (0, 0) facing +y (course 12), the second's at
    (0, 60) facing -y (course 6); the pursued side faces away instead, and so does a side
    standing off under cinematic or vector movement. Each fleet sits on a
    spiral within 10 MU of its centre. Speeds: even battles thrust x 1, a pursuer thrust x 3,
    the pursued thrust x 1 (the fleet's slowest ship). A dense world is between the fleets or
    6 MU from the chooser's fleet centre, towards the enemy; a gas giant's edge is at x = -40
    with gravity towards -x; asteroids fill a 120 MU square. Every die (gravity band,
    asteroids) is recorded in the theatre's ``rolls``. Ships move by vector movement (004 L43),
    each starting with its speed along its facing, unless the request asks for cinematic.

    Raises:
        SetupError: the request does not hold together, or a design or record state does not
            fit the catalogue.
    """
    problems = check_request(request)
    if problems:
        raise SetupError("<request>", problems)
    recording = RecordingDice(PrefixedDice(dice, request.key))
    preset = preset_for(request)
    names = (request.sides[0].name, request.sides[1].name)
    centres = ((0.0, 0.0), (0.0, SIDE_GAP_MU))
    facing = [12, 6]
    speeds = [EVEN_SPEED, EVEN_SPEED]
    if request.battle == "pursuit" and request.pursued is not None:
        fled = names.index(request.pursued)
        facing[fled] = 12 if fled == 1 else 6  # facing away from the pursuer (and the world)
        speeds = [PURSUER_SPEED, PURSUER_SPEED]
        speeds[fled] = PURSUED_SPEED
    # Standing off, a fleet sets up turned away from the enemy (any facing and heading, 004
    # L150, L158, L171, L176), so its first moves open the range; whatever the enemy's guns,
    # which under closed record sheets the side does not know and the set-up must not tell.
    # Under vector movement its velocity is then away from the enemy too: set up closing at
    # 4 MU a move, an equal drive could not win back the range and was inside the enemy's
    # reach by the second turn (docs/rulings.md).
    even = request.battle == "even" and request.movement in ("cinematic", "vector")
    for index, side in enumerate(request.sides):
        if even and side.order == "stand-off":
            facing[index] = 6 if index == 0 else 12
    radii = [FLEET_RADIUS_MU, FLEET_RADIUS_MU]
    zones: list[Zone] = []
    if request.location == "dense-world":
        wx, wy = 0.0, SIDE_GAP_MU / 2
        if request.world == "near" and request.chosen_by is not None:
            near = names.index(request.chosen_by)
            radii[near] = NEAR_WORLD_RADIUS_MU
            wy = centres[near][1] + (NEAR_WORLD_OFFSET_MU if near == 0 else -NEAR_WORLD_OFFSET_MU)
        zones.append(Zone(kind="dense world", x=wx, y=wy, radius=DENSE_WORLD_FTL_MU))
        if request.moon:
            zones.append(Zone(kind="moon", x=wx + MOON_OFFSET_MU, y=wy, radius=MOON_FTL_MU))
    gravity = 0
    if request.location == "gas-giant":
        gravity = request.gravity or (
            recording.roll("setup/gravity/0", 6) + recording.roll("setup/gravity/1", 6)
        )
    asteroids: tuple[tuple[float, float], ...] = ()
    drift = (0.0, 0.0)
    if request.location == "asteroid-field":
        asteroids, drift = _roll_asteroids(recording, "setup")
    ships: list[ShipSetup] = []
    dummies: list[DummySetup] = []
    for index, side in enumerate(request.sides):
        speed = _fleet_speed(request, preset, side, speeds[index])
        placed, decoys = _formation(side, index, centres[index], radii[index], facing[index], speed)
        ships.extend(placed)
        dummies.extend(decoys)
    turn_mods, initiative, admirals = _mods(request)
    # A Level 3 admiral withdraws 15 points sooner, a Level 1 15 later (004 L336-337,
    # L341-342); a captain who loses a course point is one likelier to strike (004 L331, L335).
    morale_mods = tuple(
        (side.name, ADMIRAL_MORALE[side.admiral])
        for side in request.sides
        if side.admiral is not None and ADMIRAL_MORALE[side.admiral]
    )
    strike_mods = tuple((ship_id, -mod) for ship_id, mod in turn_mods)
    theatre = Theatre(
        ftl_sides=tuple(side.name for side in request.sides if side.order == "ftl-move"),
        zones=tuple(zones),
        gravity=gravity,
        well_edge=WELL_EDGE_MU if gravity else None,
        asteroids=asteroids,
        drift=drift,
        field=ASTEROID_FIELD if asteroids else None,
        asteroid_motion=request.asteroid_motion,
        turn_mods=turn_mods,
        admirals=admirals,
        initiative_mods=initiative,
        initiative_roll=True,  # the officers' modifiers count in every battle (004 L331-343)
        morale_mods=morale_mods,
        strike_mods=strike_mods,
        rolls=tuple(recording.rolls),
    )
    fleet_book = request.campaign == "004"  # the Fleet Book options 004 L42-46 adds
    setup = BattleSetup(
        name=f"{names[0]} v {names[1]}: {request.battle} battle, {request.location}",
        sides=names,
        ships=tuple(ships),
        rules=preset,
        turn_limit=request.turn_limit,
        theatre=theatre,
        # 004 L39: "Dummy Bogeys and 'Weasel Boats', as described in Full Thrust, may be used":
        # the sensors and bogeys rules (001 L933-951), so each side's ships start as contacts
        # the enemy must detect; a weasel emitter makes its ship's bogey look bigger; a task
        # force's dummies fly in its formation.
        bogeys=True,
        dummies=tuple(dummies),
        core_systems=fleet_book,  # 004 L44: "The Core Systems Optional Rule in Fleet Book 1"
        morale=CAMPAIGN_MORALE if fleet_book else None,  # 004 L42: "Fleet Morale and..."
        morale_ties=request.morale_ties if fleet_book else "both",
        strike_colours=fleet_book,
        movement=request.movement,  # 004 L43: "Vector Movement as described in Fleet Book 1"
        # 004 L45-46: "the Expanded Fighter Rules from Fleet Book 1 ... including the Fighter
        # Launching and Fighter Re-arming Rules", whichever preset the ships are built to:
        # re-arming (000 8.16) and scrambling (000 8.3). Secondary moves (000 8.5) come with
        # the preset: without endurance (FT2) they would be 12 MU more for nothing.
        fighter_rearming=True if fleet_book else None,
        fighter_scramble=True if fleet_book else None,
        # The order commanders start FTL fighters deployed (000 L9981-9989) unless their side
        # is leaving by FTL, which never launches (docs/rulings.md).
        ftl_deployed=tuple(side.name for side in request.sides if side.order != "ftl-move"),
        designs=request.designs,
    )
    context(setup)  # every design and record state checked; raises SetupError
    return setup


# ---------------------------------------------------------------- the battle and its outcome


def resolve_campaign_battle(
    request: CampaignBattle,
    dice: DiceSource,
    commanders: dict[str, Commander] | None = None,
    *,
    verify: bool = True,
) -> CampaignBattleOutcome:
    """Set up and fight a campaign battle with each side's order commander; return the outcome.

    ``commanders`` replaces a side's commander (a :class:`tactical.commanders.Commander`), for
    tests and odds against other play. With ``verify`` the outcome is read off a replay of the
    journal, proving it replays; without, off the battle's own final state (the same state:
    every event was folded in by the same rules as it was recorded), for odds runs that
    verify only a sample.

    Raises:
        SetupError: the request does not hold together or does not fit the catalogue.
    """
    return fight_campaign_battle(request, dice, commanders, verify=verify)[0]


def fight_campaign_battle(
    request: CampaignBattle,
    dice: DiceSource,
    commanders: dict[str, Commander] | None = None,
    *,
    verify: bool = True,
) -> tuple[CampaignBattleOutcome, BattleState]:
    """:func:`resolve_campaign_battle`, and the battle's final state as the engine left it
    (before the fighters in flight land): what each side knew at the end, for whoever tells
    it (:func:`tactical.battle.side_view`).

    Raises:
        SetupError: the request does not hold together or does not fit the catalogue.
    """
    setup = setup_campaign_battle(request, dice)
    chosen = {side.name: order_commander(side.order) for side in request.sides}
    chosen.update(commanders or {})
    battle = play(Battle(setup), chosen, PrefixedDice(dice, request.key))
    outcome = outcome_from_journal(
        setup, battle.journal, None if verify else battle.state, battle.ctx
    )
    return outcome, battle.state


def outcome_from_journal(
    setup: BattleSetup,
    journal: Sequence[Event],
    final: BattleState | None = None,
    ctx: BattleContext | None = None,
) -> CampaignBattleOutcome:
    """Replay a campaign battle's journal (never rolling) and read off its outcome; given the
    battle's ``final`` state, read it off that instead of a replay. ``ctx`` is the set-up's
    context when the caller has it (the battle's own: read off the set-up alone, it need not
    be built again for the replay).

    Raises:
        SetupError: the set-up is broken.
        tactical.dice.DiceError: the journal's dice do not fit the rules.
        tactical.battle.IllegalActionError: an event does not fit the state.
    """
    if ctx is None or ctx.setup is not setup:
        ctx = context(setup)
    state = _land_after_battle(replay(setup, journal, ctx) if final is None else final)
    thresholds: dict[str, list[int]] = {}
    bridges: dict[str, list[int]] = {}
    displaced: dict[str, tuple[int, int]] = {}
    reason = ""
    for event in journal:
        checked = (ShipFired, TurnEnded, FightersResolved, ShipsMoved, CoreSystemsRolled)
        if isinstance(event, (*checked, BoardingFought)):
            for check in event.thresholds:
                thresholds.setdefault(check.ship, []).append(check.row)
                if check.bridge is not None:
                    bridges.setdefault(check.ship, []).append(check.row)
        if isinstance(event, ShipsMoved):
            for moved in event.moves:
                if moved.displaced is not None:
                    displaced[moved.ship] = moved.displaced
        if isinstance(event, TurnEnded | CoreSystemsRolled):
            reason = event.reason
    gravity = setup.theatre.gravity if setup.theatre else 0
    start = {s.id: s for s in setup.ships}
    ships: list[ShipOutcome] = []
    for ship in state.ships:
        sheet = ctx.sheets[ship.id]
        before = start[ship.id].state or fresh_state(sheet)
        record = ship.record
        fate = _FATES[ship.status]
        if ship.status in ("struck", "captured") and state.winner != ship.side:
            fate = "captured"  # the enemy holds the field (or nobody does): taken
        if fate in ("present", "fled") and gravity and current_thrust(sheet, record) == 0:
            fate = "lost"  # no drive to hold altitude over the gas giant; no tugs (004 L173)
        was = {s.id: s for s in before.systems}
        ships.append(
            ShipOutcome(
                id=ship.id,
                side=ship.side,
                design=ship.design,
                fate=fate,
                record=record,
                hull_lost=sum(record.hull_lost) - sum(before.hull_lost),
                systems_damaged=_newly(record, was, "damaged"),
                systems_destroyed=_newly(record, was, "destroyed"),
                munitions_spent=sum((was[s.id].ammo or 0) - (s.ammo or 0) for s in record.systems),
                # Fighters aboard a destroyed carrier go down with it.
                fighters_lost=sum(
                    (was[s.id].fighters or 0) - (0 if fate == "destroyed" else s.fighters or 0)
                    for s in record.systems
                ),
                returning=ship.returns if ship.status == "away" else None,
                displaced=displaced.get(ship.id),
                thresholds=tuple(thresholds.get(ship.id, ())),
                bridge_failures=tuple(bridges.get(ship.id, ())),
            )
        )
    kept = Counter(d.side for d in state.dummies)
    deployed = Counter(d.side for d in setup.dummies)
    return CampaignBattleOutcome(
        setup=setup,
        journal=tuple(journal),
        ships=tuple(ships),
        winner=state.winner,
        reason=reason,
        turns=state.turn,
        decoys_lost=tuple((side, deployed[side] - kept[side]) for side in deployed),
        decoys_kept=tuple(d.id for d in state.dummies),
    )


def _land_after_battle(state: BattleState) -> BattleState:
    """Land the groups still in flight on carriers still on the table with their bay working;
    the rest are lost: fighters are not FTL-capable and cannot follow a carrier that jumped,
    fled or was destroyed (001 L745; see docs/rulings.md). ``fighters_lost`` counts them."""
    ships = {ship.id: ship for ship in state.ships}
    for group in state.fighters:
        carrier = ships[group.carrier]
        if carrier.status != "active":
            continue
        systems = tuple(
            msgspec.structs.replace(s, fighters=(s.fighters or 0) + group.fighters)
            if s.id == group.bay and s.status == "ok"
            else s
            for s in carrier.record.systems
        )
        ships[carrier.id] = msgspec.structs.replace(
            carrier, record=msgspec.structs.replace(carrier.record, systems=systems)
        )
    return msgspec.structs.replace(
        state, ships=tuple(ships[s.id] for s in state.ships), fighters=()
    )


_FATES: dict[ShipStatus, Fate] = {
    "destroyed": "destroyed",
    "left": "fled",
    "away": "fled",
    "jumped": "jumped",
    "active": "present",
    "abandoned": "lost",
    "struck": "present",  # recovered: only when its own side holds the field (see above)
    # Taken by boarders, every hull box gone: only a wreck when its own side holds the field
    # (000 L13113-13121; see docs/rulings.md, "Tactical: boarding").
    "captured": "destroyed",
}


def _newly(record: ShipState, was: dict[str, SystemState], status: SystemStatus) -> tuple[str, ...]:
    """The systems that are ``status`` now and were not when the battle began."""
    return tuple(s.id for s in record.systems if s.status == status and was[s.id].status != status)


def replay_setup(request: CampaignBattle, rolls: Sequence[Roll]) -> BattleSetup:
    """Rebuild a set-up from its request and the dice its theatre recorded; never rolls."""
    return setup_campaign_battle(request, _Unprefixed(ReplayDice(rolls), request.key))


class _Unprefixed:
    """Undo :class:`PrefixedDice` for replay: recorded keys already carry no prefix."""

    def __init__(self, source: ReplayDice, prefix: str) -> None:
        self.source = source
        self.prefix = f"{prefix}/"

    def roll(self, key: str, sides: int) -> int:
        return self.source.roll(key.removeprefix(self.prefix), sides)
