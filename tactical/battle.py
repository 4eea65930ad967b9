"""The battle: a set-up, a state that is a fold of events, and the turn as explicit steps.

A battle is a :class:`BattleSetup` (ships from the design catalogue with their record state,
positions in MU, course, speed, sides) plus a journal of events. Like an OpenSpiel game, the
state says what happens next (:func:`current_step`):

- ``SIMULTANEOUS`` (phase ``orders``): every side secretly writes movement orders
  (:func:`write_orders`, 001 L248);
- ``CHANCE`` (phase ``movement``): all ships move at once, laying mines, sweeping and
  meeting the mines in their way (001 L868-898), then the first side to fire is found
  (:func:`resolve`, 001 L250-262);
- ``PLAYER`` (phase ``fire``): the side to play picks one of its ships that has not fired and
  declares all its shots, which are rolled and applied at once (:func:`fire_ship`, 001
  L262-276); sides alternate, and a side with ships left over fires them after the other's last;
- ``SIMULTANEOUS`` (phase ``assault``, with boarders aboard a ship that has marines): each
  side with boarders aboard an enemy ship says which of them engage the defending marines, the
  rest going for the hull (:func:`write_assault`, 000 12.7, phase 12);
- ``SIMULTANEOUS`` (phase ``repel``, with boarders aboard): each side with enemy boarders
  aboard its ships puts its DCPs and marines on them, and the boarding combat is rolled
  (:func:`repel`, 000 L13043-13093);
- ``CHANCE`` (phase ``end``): end-of-phase threshold checks where the rules have them, wrecks
  removed, the battle ended by a side gone or the turn limit (:func:`resolve`);
- ``SIMULTANEOUS`` (phase ``repair``, under rules with damage control): each side with damaged
  systems and parties to spare assigns them and rolls (:func:`repair`, 000 10.4, phase 14);
- ``CHANCE`` (phase ``core``, under the ``core_systems`` option, when a ship has a core system
  out): damaged power cores roll to explode, failed life support and lost control count down
  (:func:`resolve`, 000 10.3, phase 15);
- ``TERMINAL`` (phase ``over``).

Every command is ``decide``-shaped: it checks the command, raises :class:`IllegalActionError`
quoting it if illegal, and returns one event that records every die it rolled. :func:`evolve`
folds an event into the state by running the same rules on the recorded dice
(:class:`~tactical.dice.ReplayDice`), so replaying a journal never rolls.

>>> setup = BattleSetup(sides=("red", "blue"), ships=(
...     ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12, speed=4),
...     ShipSetup(id="b1", side="blue", design="frigate", x=0, y=20, course=6, speed=4)))
>>> battle = Battle(setup)
>>> battle.step()
Step(kind='simultaneous', phase='orders', side=None)
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Literal, NamedTuple

import msgspec
from msgspec import Struct

from tactical.asteroids import (
    asteroids_crossed,
    avoid_need,
    drift_legs,
    ends_inside,
    evades,
    needs_die,
)
from tactical.boarding import (
    BOARDING_TORPEDO,
    TORPEDO_HULL,
    TORPEDO_MARINES,
    Assault,
    Guard,
    parse_assaults,
    parse_repel,
    torpedo_feeds,
    torpedo_ready,
)
from tactical.designs import load_builtin
from tactical.dice import DiceSource, RecordingDice, ReplayDice, Roll
from tactical.fighters import (
    FIGHTER_RANGE_MU,
    HOLD,
    INTERCEPT_LOSS_ON,
    MISSILE_FIGHTER_RANGE_MU,
    NEVER_RELAUNCH,
    SECONDARY_MOVE_MU,
    SHUTTLE_LANDS_ON,
    TORPEDO_HITS_ON,
    FighterGroup,
    FighterNameError,
    FighterType,
    FlightOrder,
    KillRoll,
    bays,
    fighter_type,
    format_flight,
    format_flight_order,
    group_id,
    launch_limit,
    parse_fighters,
    parse_flight,
    relaunch_turn,
    roll_kills,
    roll_missile_kills,
)
from tactical.fire import (
    CORE_SYSTEMS,
    MKP_DAMAGE,
    NEEDLE_GRAZE,
    NEEDLE_HIT,
    NEEDLE_KILL,
    NEEDLE_SENSOR_MU,
    NEEDLE_STRENGTH,
    NOVA_ARMING_MU,
    NOVA_STAGES,
    OVERLOAD,
    TORPEDO_BANDS_MU,
    TORPEDO_SETTINGS,
    BeamOutcome,
    arc_of,
    beam_dice,
    bearing,
    is_beam,
    line_blocked,
    mkp_hits,
    needle_dice,
    needle_sight,
    nova_touches,
    range_between,
    roll_beams,
    score_beam_die,
    score_plasma_die,
    submunition_dice,
    torpedo_band,
    torpedo_to_hit,
    torpedo_warhead,
)
from tactical.ftl import (
    ARRIVAL_TIMES_ON,
    EXTREME_ON,
    Departure,
    arrival_damage,
    departure,
    explosion_damage,
    scatter,
    scatter_distance,
    within_radius,
)
from tactical.mines import (
    MINE_RADIUS_MU,
    MINE_TENTHS,
    MINELAYER,
    MINESWEEPER,
    Mine,
    Path,
    first_contact,
    mine_id,
    point_along,
    sweep_result,
)
from tactical.missiles import (
    ATTACK_RADIUS_MU,
    LAUNCHERS,
    RACKS,
    SALVO_AIM,
    STANDARD_RANGE_MU,
    VECTOR_ATTACK_RADIUS_MU,
    Salvo,
    feeds,
    hits_through,
    homing_target,
    launch_range,
    launcher_ready,
    parse_aim,
    salvo_id,
)
from tactical.movement import (
    MU_DECIMALS,
    NO_ORDER,
    MoveStart,
    Order,
    course_after,
    format_mu,
    format_order,
    heading_vector,
    move,
    order_problem,
    parse_orders,
    round_mu,
)
from tactical.phases.boarding import (
    AssaultOrdered,
    BoardingFight,
    BoardingFought,
    after_fire,
    apply_assault,
    assault_on,
    board,
    boarder_losses,
    boarders_aboard,
    check_repel,
    fight_boarders,
    repel,
    settle_boarders,
    sides_to_assault,
    sides_to_repel,
    write_assault,
)
from tactical.phases.damage import apply_hit, check_threshold, colours_struck, crash, take_damage
from tactical.phases.orders import (
    OrdersWritten,
    apply_orders,
    next_turn,
    setting_problem,
    sides_to_write,
    write_orders,
)
from tactical.phases.repair import (
    DRIVE,
    Repair,
    RepairsMade,
    after_repairs,
    check_repairs,
    free_parties,
    make_repairs,
    repair,
    repair_jobs,
    sides_to_repair,
)
from tactical.points import build
from tactical.ramming import RAM_ON, contact, in_reach, proceeds, ram_damage
from tactical.rules import BattleRules, rules_named
from tactical.sensors import (
    ACTIVE_RANGE_MU,
    ACTIVE_SCANS,
    DUMMY_SIGNATURE,
    DUMMY_THRUST,
    PASSIVE_RANGE_MU,
    SCANNING_HULLS,
    Bogey,
    Dummy,
    Sensed,
    bogey_labels,
    signature,
)
from tactical.ship import (
    FOR_THE_BATTLE,
    GIVEN_OUT,
    PRESETS,
    DesignError,
    Problem,
    Ship,
    ShipState,
    SystemSpec,
    collision_thrust,
    core_damaged,
    current_thrust,
    fresh_state,
    hit_drive,
    hull_remaining,
    with_system_status,
)
from tactical.state import (
    IN_PLAY,
    LOST,
    ON_THE_TABLE,
    BattleContext,
    BattleSetup,
    BattleState,
    DummySetup,
    FtlDeparture,
    Hit,
    Identifier,
    IllegalActionError,
    JumpState,
    MineSetup,
    Moved,
    NovaBlast,
    Phase,
    ShipInPlay,
    ShipSetup,
    ShipStatus,
    SideOrders,
    Theatre,
    Threshold,
    Zone,
    asteroids_at,
    asteroids_now,
    enemy_in_sight,
    ftl_blocked,
    identified,
    in_well,
    moves_this_turn,
    off_table,
    other_side,
    prize,
    replace_ship,
    targetable,
    velocity,
    working_defence,
    working_screen,
)

__all__ = [
    "AFT",
    "DRIVE",
    "LOST",
    "NEEDLE",
    "NEEDLES",
    "NOVA",
    "NOVA_LINE",
    "SUBMUNITION",
    "TORPEDO",
    "TORPEDOES",
    "AssaultOrdered",
    "AsteroidMet",
    "Battle",
    "BattleContext",
    "BattleSetup",
    "BattleState",
    "BoardingFight",
    "BoardingFought",
    "Breach",
    "CoreRoll",
    "CoreSystemsRolled",
    "DefenceFire",
    "Dogfight",
    "Dropout",
    "DummySetup",
    "Event",
    "FighterAttack",
    "FighterWeapon",
    "FightersResolved",
    "FlightWritten",
    "FtlDeparture",
    "GroupMoved",
    "Hit",
    "Identifier",
    "IllegalActionError",
    "Interception",
    "JumpState",
    "Landing",
    "MineDetonated",
    "MineEvent",
    "MineLaid",
    "MineSetup",
    "MineSwept",
    "MissilesResolved",
    "Moved",
    "NovaBlast",
    "NovaHit",
    "OrdersWritten",
    "Phase",
    "PointDefenceDie",
    "Rammed",
    "Rearm",
    "Repair",
    "RepairsMade",
    "SalvoAttack",
    "SalvoLaunch",
    "Scramble",
    "SetupError",
    "ShipFired",
    "ShipInPlay",
    "ShipSetup",
    "ShipStatus",
    "ShipsMoved",
    "Shot",
    "ShotRoll",
    "SideOrders",
    "Step",
    "StepKind",
    "Theatre",
    "Threshold",
    "TurnEnded",
    "Zone",
    "assault_on",
    "asteroids_at",
    "asteroids_now",
    "board",
    "boarders_aboard",
    "context",
    "current_step",
    "decode_journal",
    "decode_setup",
    "dropout_ids",
    "encode_journal",
    "evolve",
    "fire_controls",
    "fire_options",
    "fire_ship",
    "firecons_needed",
    "flight_targets",
    "free_parties",
    "ftl_blocked",
    "group_reach",
    "initial_state",
    "launch_options",
    "launch_problem",
    "launchable_bays",
    "mine_layers",
    "move_path",
    "needle_aims",
    "needle_focus_problem",
    "needle_reach",
    "order_limits",
    "ram_need",
    "rearmed",
    "repair",
    "repair_jobs",
    "repel",
    "replay",
    "resolve",
    "salvo_targets",
    "scan_limit",
    "scramble_bays",
    "setting_problem",
    "sheet_for",
    "ships_to_fire",
    "sides_to_assault",
    "sides_to_fly",
    "sides_to_repair",
    "sides_to_repel",
    "sides_to_write",
    "sweeper_working",
    "velocity",
    "view",
    "withdraw_at",
    "write_assault",
    "write_flight",
    "write_orders",
]


SCRAMBLE_MISHAP = 1  # a scramble's 1: a bay and its fighters out of action (000 L8597-8605)


SCRAMBLE_LATE = 4  # a 4: one group gets away too late to stop the attack (000 L8615-8621)


RETURN_ON = 4  # 001 L538: on a 4, 5 or 6 the ship re-enters after that many turns


AFT = "A"  # no offensive fire through the aft arc (001 L404; 000 L2483-2679)


MAX_INITIATIVE_ROLLS = 50  # ties re-rolled (000 L1053-1472); a stop for scripted dice


@cache
def sheet_for(design: str, preset_name: str) -> Ship:
    """Return the record sheet of a catalogue design under a points preset (cached).

    Raises:
        tactical.designs.UnknownDesignError: no such design under those rules.
    """
    preset = PRESETS[preset_name]
    return build(load_builtin(design, preset.rules), preset, ship_id=design)


class SetupError(ValueError):
    """A battle set-up does not fit the rules or the catalogue; ``problems`` lists them all."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__(f"{source}: " + "; ".join(str(p) for p in self.problems))


def _record_problems(sheet: Ship, state: ShipState, path: str) -> list[Problem]:
    """Check a record state carried into a battle against its record sheet."""
    problems: list[Problem] = []
    if len(state.hull_lost) != len(sheet.rows):
        problems.append(Problem(f"{path}.hull_lost", f"{len(sheet.rows)} rows expected"))
    elif any(not 0 <= lost <= size for lost, size in zip(state.hull_lost, sheet.rows, strict=True)):
        problems.append(
            Problem(f"{path}.hull_lost", f"boxes lost must be 0 to the row sizes {sheet.rows}")
        )
    elif sum(state.hull_lost) >= sheet.hull_boxes:
        problems.append(Problem(f"{path}.hull_lost", "a destroyed ship cannot join a battle"))
    if not 0 <= state.armour_lost <= sheet.armour:
        problems.append(Problem(f"{path}.armour_lost", f"must be 0 to {sheet.armour}"))
    if tuple(s.id for s in state.systems) != tuple(s.id for s in sheet.systems):
        listed = ", ".join(s.id for s in sheet.systems)
        problems.append(Problem(f"{path}.systems", f"expected the systems {listed}, in order"))
    elif any(
        (s.ammo is not None and s.ammo < 0) or (s.fighters is not None and s.fighters < 0)
        for s in state.systems
    ):
        problems.append(Problem(f"{path}.systems", "ammunition and fighters must be >= 0"))
    if state.out_of_control < FOR_THE_BATTLE:
        problems.append(Problem(f"{path}.out_of_control", "turns must be >= 0, or -1 for good"))
    if state.life_support < 0:
        problems.append(Problem(f"{path}.life_support", "a ship with no life support is a hulk"))
    return problems


def context(setup: BattleSetup, source: str = "<set-up>") -> BattleContext:
    """Check a set-up and build its record sheets from the design catalogue.

    Raises:
        SetupError: every problem found: rules, sides, ids, designs, record states.
    """
    problems: list[Problem] = []
    try:
        rules = rules_named(setup.rules)
    except KeyError as exc:
        raise SetupError(source, [Problem("$.rules", str(exc.args[0]))]) from None
    if setup.sides[0] == setup.sides[1]:
        problems.append(Problem("$.sides", f"the two sides {setup.sides!r} must differ"))
    sheets: dict[str, Ship] = {}
    seen: set[str] = set()
    for index, ship in enumerate(setup.ships):
        path = f"$.ships[{index}]"
        if ship.id in seen:
            problems.append(Problem(f"{path}.id", f"two ships have the id {ship.id!r}"))
        seen.add(ship.id)
        if ship.side not in setup.sides:
            problems.append(Problem(f"{path}.side", f"{ship.side!r} is not one of {setup.sides}"))
        try:
            sheet = sheet_for(ship.design, rules.ships)
        except (LookupError, DesignError) as exc:
            problems.append(Problem(f"{path}.design", str(exc)))
            continue
        if ship.state is not None:
            problems.extend(_record_problems(sheet, ship.state, f"{path}.state"))
            if not (setup.core_systems or rules.core_systems) and core_damaged(ship.state):
                problems.append(Problem(f"{path}.state", "core-system damage needs core_systems"))
        problems.extend(_deployment_problems(sheet, ship, f"{path}.ftl_deployed"))
        if ship.dropout is not None and setup.theatre is not None:
            problems.append(
                Problem(f"{path}.dropout", "FTL dropouts are for table battles (001 L1055)")
            )
        sheets.setdefault(ship.id, sheet)
    problems.extend(_mine_problems(setup))
    problems.extend(_dummy_problems(setup, seen))
    if setup.reactor_breach and not setup.core_systems and not rules.core_systems:
        problems.append(Problem("$.reactor_breach", "a reactor breach needs core_systems"))
    if setup.dummies and "vector" in (setup.movement, rules.movement):
        problems.append(Problem("$.dummies", "dummy bogeys move only cinematically"))
    problems.extend(
        Problem(f"$.ram_on.{side}", f"{side!r} is not one of {setup.sides}")
        for side in setup.ram_on
        if side not in setup.sides
    )
    problems.extend(
        Problem("$.ftl_deployed", f"{side!r} is not one of {setup.sides}")
        for side in setup.ftl_deployed
        if side not in setup.sides
    )
    if problems:
        raise SetupError(source, problems)
    return BattleContext(setup=setup, rules=_with_options(rules, setup), sheets=sheets)


def _with_options(rules: BattleRules, setup: BattleSetup) -> BattleRules:
    """Return the preset's rules with the options the set-up turns on or sets."""
    if setup.bogeys:
        rules = msgspec.structs.replace(rules, bogeys=True)
    if setup.core_systems:
        rules = msgspec.structs.replace(rules, core_systems=True)
    if setup.reactor_breach:
        rules = msgspec.structs.replace(rules, reactor_breach=True)
    if setup.morale is not None or setup.strike_colours or setup.strike_as_core:
        rules = msgspec.structs.replace(
            rules,
            morale=rules.morale if setup.morale is None else setup.morale,
            strike_colours=rules.strike_colours or setup.strike_colours,
            strike_as_core=rules.strike_as_core or setup.strike_as_core,
        )
    if setup.fighter_rearming is not None:
        rules = msgspec.structs.replace(rules, fighter_rearming=setup.fighter_rearming)
    if setup.fighter_scramble is not None:
        rules = msgspec.structs.replace(rules, fighter_scramble=setup.fighter_scramble)
    if setup.fighter_secondary_move is not None:
        rules = msgspec.structs.replace(rules, fighter_secondary_move=setup.fighter_secondary_move)
    if setup.ftl_dropout_extreme:
        rules = msgspec.structs.replace(rules, ftl_dropout_extreme=True)
    if setup.movement == "vector":
        rules = msgspec.structs.replace(rules, movement="vector")
    if not setup.vector_rounding:
        rules = msgspec.structs.replace(rules, vector_rounding=False)
    if setup.advanced_vector_thrusters != rules.advanced_vector_thrusters:
        rules = msgspec.structs.replace(
            rules, advanced_vector_thrusters=setup.advanced_vector_thrusters
        )
    return rules


def _deployment_problems(sheet: Ship, ship: ShipSetup, path: str) -> list[Problem]:
    """Check a ship's ``ftl_deployed`` bays: each a bay of FTL fighters with its group aboard
    and working, named once (000 L9981-9989)."""
    problems: list[Problem] = []
    deployed = ship.ftl_deployed
    states = {s.id: s for s in (ship.state or fresh_state(sheet)).systems}
    for index, bay in enumerate(deployed):
        where = f"{path}[{index}]"
        spec = next((s for s in bays(sheet) if s.id == bay), None)
        aboard = states.get(bay)
        if bay in deployed[:index]:
            problems.append(Problem(where, f"the bay {bay!r} is named twice"))
        elif spec is None:
            listed = ", ".join(s.id for s in bays(sheet)) or "none"
            problems.append(Problem(where, f"{bay!r} is not a fighter bay; its bays: {listed}"))
        elif not _ftl_wing(spec):
            problems.append(
                Problem(where, f"{bay} carries {spec.fighters} fighters, not FTL fighters")
            )
        elif aboard is None or aboard.status != "ok" or not aboard.fighters:
            problems.append(Problem(where, f"{bay} has no working group aboard to deploy"))
    return problems


def _dummy_problems(setup: BattleSetup, ship_ids: set[str]) -> list[Problem]:
    """Check the set-up's dummy bogeys: only with bogeys on, ids unlike every ship's, a side
    of the battle each, no more than the side's real ships (001 L959)."""
    problems: list[Problem] = []
    seen = set(ship_ids)
    for index, dummy in enumerate(setup.dummies):
        path = f"$.dummies[{index}]"
        if not setup.bogeys:
            problems.append(Problem(path, "dummy bogeys need bogeys = true (001 L955)"))
        if dummy.id in seen:
            problems.append(Problem(f"{path}.id", f"the id {dummy.id!r} is taken"))
        seen.add(dummy.id)
        if dummy.side not in setup.sides:
            problems.append(Problem(f"{path}.side", f"{dummy.side!r} is not one of {setup.sides}"))
    for side in setup.sides:
        dummies = sum(1 for d in setup.dummies if d.side == side)
        ships = sum(1 for s in setup.ships if s.side == side)
        if dummies > ships:
            problems.append(
                Problem(
                    "$.dummies",
                    f"{side} has {dummies} dummies and {ships} ships: at most one dummy per "
                    "real ship (001 L959)",
                )
            )
    return problems


def _mine_problems(setup: BattleSetup) -> list[Problem]:
    """Check the set-up's mines: a side of the battle each, ids unique and unlike the names of
    mines laid in battle (``ship.layer.tN``)."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, mine in enumerate(setup.mines):
        path = f"$.mines[{index}]"
        if mine.id in seen:
            problems.append(Problem(f"{path}.id", f"two mines have the id {mine.id!r}"))
        seen.add(mine.id)
        if "." in mine.id:
            problems.append(
                Problem(
                    f"{path}.id",
                    "a set-up mine's id has no '.': mines laid in battle are named ship.layer.tN",
                )
            )
        if mine.side not in setup.sides:
            problems.append(Problem(f"{path}.side", f"{mine.side!r} is not one of {setup.sides}"))
    return problems


def decode_setup(text: str | bytes, source: str = "<set-up>") -> BattleSetup:
    """Decode a battle set-up from TOML; unknown fields are errors.

    Raises:
        SetupError: not TOML, or a field is missing, unknown or mistyped (with its path).
    """
    try:
        return msgspec.toml.decode(text, type=BattleSetup)
    except msgspec.DecodeError as exc:
        raise SetupError(source, [Problem.from_decode_error(exc)]) from None


def initial_state(ctx: BattleContext) -> BattleState:
    """Return the state before the first orders: with bogeys, every ship and dummy a bogey
    but those the enemy's passive sensors already reach (001 L937-947)."""
    state = BattleState(
        ships=tuple(
            ShipInPlay(
                id=s.id,
                side=s.side,
                design=s.design,
                x=round_mu(s.x),
                y=round_mu(s.y),
                course=s.course,
                speed=s.speed,
                record=msgspec.structs.replace(
                    s.state or fresh_state(ctx.sheets[s.id]), ship_id=s.id
                ),
                vector=(
                    (s.course % 12 * 30.0, float(s.speed))
                    if ctx.rules.movement == "vector"
                    else None
                ),
                status="active" if s.dropout is None else "away",
                returns=s.dropout,
            )
            for s in ctx.setup.ships
        ),
        mines=tuple(
            Mine(id=m.id, side=m.side, x=round_mu(m.x), y=round_mu(m.y)) for m in ctx.setup.mines
        ),
    )
    state = _deploy_ftl_fighters(ctx, state)
    if not ctx.rules.bogeys:
        return state
    state, _sensed = sense(ctx, _as_bogeys(ctx, state), (), ())
    return state


def _deploy_ftl_fighters(ctx: BattleContext, state: BattleState) -> BattleState:
    """Put the FTL fighter groups the set-up deploys on the table at their carriers, 1 CEF
    checked off for the flight in (000 L9981-9989): every FTL bay with a working group aboard
    of the ``ftl_deployed`` sides, and each ship's own ``ftl_deployed`` bays."""
    sides = set(ctx.setup.ftl_deployed)
    chosen = {s.id: set(s.ftl_deployed) for s in ctx.setup.ships}
    ships: list[ShipInPlay] = []
    groups: list[FighterGroup] = []
    for ship in state.ships:
        carrier, sheet = ship, ctx.sheets[ship.id]
        deployed = [
            spec.id
            for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True)
            if spec.bay_capacity
            and _ftl_wing(spec)
            and (ship.side in sides or spec.id in chosen[ship.id])
            and sys_state.status == "ok"
            and (sys_state.fighters or 0) > 0
        ]
        for bay in deployed:
            carrier, group = take_off(ctx, carrier, bay, ship.x, ship.y)
            spent = None if group.endurance is None else group.endurance - 1
            groups.append(msgspec.structs.replace(group, endurance=spent))
        ships.append(carrier)
    if not groups:
        return state
    return msgspec.structs.replace(state, ships=tuple(ships), fighters=tuple(groups))


def _ftl_wing(spec: SystemSpec) -> bool:
    """Whether a bay carries FTL fighters (000 L9971-9993)."""
    try:
        return spec.fighters is not None and parse_fighters(spec.fighters).ftl
    except FighterNameError:
        return False


def _as_bogeys(ctx: BattleContext, state: BattleState) -> BattleState:
    """Put every ship and dummy on the table as a bogey with its label (001 L937-941)."""
    dummies = [
        (d.id, d.side, round_mu(d.x), round_mu(d.y), d.course, d.speed) for d in ctx.setup.dummies
    ]
    labels = bogey_labels(
        [(s.side, s.id, s.x, s.y) for s in state.ships]
        + [(side, name, x, y) for name, side, x, y, _c, _v in dummies],
        ctx.setup.sides,
    )
    ships = tuple(
        msgspec.structs.replace(
            ship,
            bogey=labels[ship.id],
            shows=signature(
                ctx.sheets[ship.id].hull_class, (spec.kind for spec in ctx.sheets[ship.id].systems)
            ),
        )
        for ship in state.ships
    )
    return msgspec.structs.replace(
        state,
        ships=ships,
        dummies=tuple(
            Dummy(id=name, side=side, label=labels[name], x=x, y=y, course=c, speed=v)
            for name, side, x, y, c, v in dummies
        ),
    )


class StepKind(enum.StrEnum):
    """Who acts next, as in OpenSpiel."""

    SIMULTANEOUS = "simultaneous"
    CHANCE = "chance"
    PLAYER = "player"
    TERMINAL = "terminal"


class Step(NamedTuple):
    """The next step: its kind, the phase, and for ``PLAYER`` the side to play."""

    kind: str
    phase: Phase
    side: str | None = None


def current_step(state: BattleState) -> Step:
    """Return what happens next."""
    if state.phase in ("orders", "flight", "assault", "repel", "repair"):
        return Step(StepKind.SIMULTANEOUS.value, state.phase)
    if state.phase == "fire":
        return Step(StepKind.PLAYER.value, "fire", state.to_fire)
    if state.phase == "over":
        return Step(StepKind.TERMINAL.value, "over")
    return Step(StepKind.CHANCE.value, state.phase)


def dropout_ids(ctx: BattleContext) -> frozenset[str]:
    """Return the ships the set-up brings in by FTL dropout (001 L1053-1055): noted at the
    start, secret from the other side until they appear."""
    return frozenset(s.id for s in ctx.setup.ships if s.dropout is not None)


def view(state: BattleState, side: str, dropouts: Collection[str] = ()) -> BattleState:
    """Return the state as one side may see it: other sides' written orders are blanked, and
    enemy ships not yet identified and enemy dummies are only :class:`~tactical.sensors.Bogey`
    contacts in ``bogeys``, sorted by label.

    ``dropouts`` (:func:`dropout_ids`) are the ships that enter by FTL dropout: an enemy one
    not yet on the table is not seen at all (001 L1053-1058).

    Orders are secret until ships move (001 L248), torpedo settings until they fire; the
    boarders' assaults are open once all are written, for the defenders to answer (000
    L13049-13057). A bogey
    shows its label, place, course, speed and the class its signature shows, nothing else
    (001 L939-945); an unidentified enemy ship off the table is not seen at all. Identified
    ships are open-book.
    """
    written = tuple(
        w if w.side == side or state.phase == "repel" else SideOrders(w.side, "")
        for w in state.written
    )
    # Enemy salvos are placed after the orders are written (000 L1053-1472 phases 1, 3), and
    # are on the table when the fighters move (phases 4-8): a group may intercept one.
    fighters_fly = state.phase in ("flight", "fighters")
    salvos = tuple(s for s in state.salvos if s.side == side or fighters_fly)
    # Torpedo settings are written orders (000 L4681-4683, L4786-4794): secret until fired;
    # so is a standing order to scramble fighters (000 8.3) until the carrier scrambles.
    state = msgspec.structs.replace(
        state,
        ships=tuple(
            s
            if s.side == side or not (s.settings or s.scramble)
            else msgspec.structs.replace(s, settings=(), scramble=False)
            for s in state.ships
        ),
    )
    inbound = {
        s.id for s in state.ships if s.side != side and s.id in dropouts and s.status == "away"
    }
    if inbound:
        state = msgspec.structs.replace(
            state, ships=tuple(s for s in state.ships if s.id not in inbound)
        )
    hidden = {s.id for s in state.ships if s.side != side and s.bogey is not None}
    if not hidden and not state.dummies:
        return msgspec.structs.replace(state, written=written, salvos=salvos)
    contacts = [
        Bogey(
            label=s.bogey, side=s.side, shows=s.shows, x=s.x, y=s.y, course=s.course, speed=s.speed
        )
        for s in state.ships
        if s.id in hidden and s.status == "active" and s.bogey is not None and s.shows is not None
    ] + [
        Bogey(
            label=d.label,
            side=d.side,
            shows=DUMMY_SIGNATURE,
            x=d.x,
            y=d.y,
            course=d.course,
            speed=d.speed,
        )
        for d in state.dummies
        if d.side != side
    ]
    return msgspec.structs.replace(
        state,
        written=written,
        ships=tuple(s for s in state.ships if s.id not in hidden),
        dummies=tuple(d for d in state.dummies if d.side == side),
        bogeys=tuple(sorted(contacts, key=lambda b: (len(b.label), b.label))),
        held=tuple(h for h in state.held if h not in hidden),
        before=tuple(b for b in state.before if b[0] not in hidden),
        fighters=tuple(g for g in state.fighters if g.carrier not in hidden),
        salvos=salvos,
    )


class Shot(Struct, frozen=True, array_like=True):
    """One declared shot: a weapon of the firing ship and the ship it fires at.

    A needle beam also names the system it aims at: a system id or ``"drive"`` (001 L848).
    """

    weapon: str
    target: str
    aim: str | None = None


class ShotRoll(Struct, frozen=True, kw_only=True):
    """One weapon's dice against its target.

    A beam's ``faces`` are its damage dice; a pulse torpedo's are its to-hit die, and
    ``damage`` holds the second D6 of a hit (001 L840), a D3 for a variable torpedo at long
    range (000 L4756-4760), before any +2 (000 L4704-4708, L4778-4780).
    """

    weapon: str
    target: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    damage: tuple[int, ...] = ()
    aim: str | None = None
    """The system a needle beam aimed at; its one face of 6 knocked it out (001 L848), or
    each natural 6 of a class-N needle's dice destroyed it (000 L4578-4580)."""
    setting: str | None = None
    """A pulse torpedo's setting from the orders: ``O`` overloaded, ``S`` or ``L`` a variable
    torpedo's mode (see :attr:`ShipInPlay.settings`)."""
    backfire: tuple[int, ...] = ()
    """An overloaded torpedo's second D6 after a damage die of 1: a 1 destroyed the tube
    (000 L4708-4714)."""


class NovaHit(Struct, frozen=True, kw_only=True):
    """One ship a nova template touched: the stage, its dice at face value and the damage."""

    ship: str
    """The ship that fired the nova cannon."""
    stage: int
    faces: tuple[int, ...]
    hit: Hit


class Dropout(Struct, frozen=True, kw_only=True):
    """A ship that dropped out of FTL at the start of the movement (001 L1057-1070): its
    intended point, the scatter's dice, where it appeared and what lay within 6"."""

    ship: str
    aimed: tuple[float, float]
    direction: int
    """The D12 for the scatter's direction, a clock point of the course gauge (001 L1059)."""
    distance: int
    """The D6 for the scatter's distance in MU (001 L1061)."""
    extreme: int | None = None
    """Under ``ftl_dropout_extreme``, the second D6 after a distance 6 (001 L1063)."""
    x: float
    y: float
    entered: bool = True
    """``False``: under the OPTION it would appear off the table and never enters (L1063)."""
    faces: tuple[tuple[str, int, int | None], ...] = ()
    """Each ship, itself included, and fighter group within 6": its D6 and a 6's second D6
    (001 L1066-1070)."""
    hits: tuple[Hit, ...] = ()
    fighters: tuple[tuple[str, int], ...] = ()
    """Fighters each group near lost, one a point (see docs/rulings.md)."""


class MineLaid(Struct, frozen=True, kw_only=True, tag="mine_laid"):
    """A minelayer dropped a mine along its move, active from the next turn (001 L876-888)."""

    mine: str
    ship: str
    layer: str
    x: float
    y: float


class MineSwept(Struct, frozen=True, kw_only=True, tag="mine_swept"):
    """An active minesweeper passed within 3" of an enemy mine and rolled its D6: on a 2 the
    mine stays, on 3-6 it is removed (001 L896)."""

    mine: str
    ship: str
    face: int
    cleared: bool


class MineDetonated(Struct, frozen=True, kw_only=True, tag="mine_detonated"):
    """A mine fired its beam dice at an enemy ship within 3" and was removed (001 L872).

    ``sweep`` is the sweep die of 1 that set it off against a minesweeper (001 L896).
    """

    mine: str
    ship: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    hit: Hit
    sweep: int | None = None


MineEvent = MineLaid | MineSwept | MineDetonated
"""What happened with a mine during the ships' move."""


class AsteroidMet(Struct, frozen=True, kw_only=True):
    """A ship's move crossed an asteroid's base (001 L1092-1108; 000 L18059-18153), or, with
    ``swept``, a moving asteroid's drift swept over the ship before it moved (000 L18086-18089).

    ``x``, ``y`` are the asteroid's centre this turn. ``need`` is the ship's ``velocity``
    less its ``thrust`` now (001 L1092); ``face`` the D6 rolled to avoid it, ``None`` when no
    die was needed: at ``need`` 1 or less the ship avoids it, above 6 it crashes (001 L1106).
    ``crashed``: the ship hit the asteroid and is destroyed, whatever its class (001 L1108).
    """

    ship: str
    x: float
    y: float
    velocity: float
    thrust: int
    need: int
    face: int | None = None
    crashed: bool = False
    swept: bool = False


class Rammed(Struct, frozen=True, kw_only=True):
    """A ram a ship's orders named, tried after every ship had moved (001 L977-995).

    ``reason`` says why it never came to the dice: the target beyond 2" at ``distance`` (001
    L981), or either ship no longer in play. Else ``proceed`` is the rammer's D6, which needed
    ``need`` (001 L979); ``attack`` and ``evade`` the two ships' D6, added to their thrust now,
    ``attack_thrust`` and ``evade_thrust`` (L993); on ``contact``, ``impact`` is the
    rammer's D6, times its ``ship_points`` (damage points left) dealt to the target, and
    ``recoil`` the target's, times its ``target_points`` dealt to the rammer (L995). ``hits``
    are the damage: the target's, then the rammer's.
    """

    ship: str
    target: str
    distance: float | None = None
    reason: str | None = None
    need: int = RAM_ON
    proceed: int | None = None
    attack: int | None = None
    attack_thrust: int = 0
    evade: int | None = None
    evade_thrust: int = 0
    contact: bool = False
    impact: int | None = None
    ship_points: int = 0
    recoil: int | None = None
    target_points: int = 0
    hits: tuple[Hit, ...] = ()


class ShipsMoved(Struct, frozen=True, kw_only=True, tag="ships_moved"):
    """Every ship moved by its orders, and the side to fire first was found."""

    turn: int
    moves: tuple[Moved, ...]
    first: str | None
    nova: tuple[NovaHit, ...] = ()
    """Nova templates moved on at the start of the firing (001 L917-921), with no fighters
    in flight to resolve first."""
    thresholds: tuple[Threshold, ...] = ()
    mines: tuple[MineEvent, ...] = ()
    """Mines laid, swept and set off during the move, in the order they happened."""
    decoys: tuple[Moved, ...] = ()
    """Dummy bogeys moved by their orders; ``left`` ones are gone (001 L957)."""
    sensed: tuple[Sensed, ...] = ()
    """Bogeys identified at the end of the move, in order: self-revealed, passive, active
    (001 L945-951); a dummy identified is removed (001 L957)."""
    rams: tuple[Rammed, ...] = ()
    """The rams the orders named, tried after the move and the sensors, before initiative
    (001 L977-995), in the order the ships stand; their thresholds are in ``thresholds``."""
    asteroids: tuple[AsteroidMet, ...] = ()
    """Asteroids the ships' moves crossed, before the mines, each ship's in the order it met
    them (001 L1092-1108)."""
    dropouts: tuple[Dropout, ...] = ()
    """Ships that dropped out of FTL at the start of the move, before any ship moved, in the
    order the ships stand (001 L1057-1070); their thresholds are in ``thresholds``."""
    rolls: tuple[Roll, ...] = ()


class Landing(Struct, frozen=True, kw_only=True):
    """Boarders of ``side`` that came aboard ``ship``: a boarding torpedo's two marines (000
    L5122-5128), or whatever :func:`board` was given."""

    ship: str
    side: str
    marines: int = 0
    parties: int = 0


class ShipFired(Struct, frozen=True, kw_only=True, tag="ship_fired"):
    """A ship took its firing turn: its declared shots, their dice, damage and thresholds."""

    turn: int
    ship: str
    shots: tuple[ShotRoll, ...]
    hits: tuple[Hit, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    nova: tuple[NovaHit, ...] = ()
    """What the ship's nova cannon template touched as it was fired (001 L915-917)."""
    landed: tuple[Landing, ...] = ()
    """Marines its boarding torpedoes put aboard their targets (000 L5122-5128)."""
    captured: tuple[str, ...] = ()
    """Captured ships its fire destroyed: a single point is enough (000 L13128-13130)."""
    rolls: tuple[Roll, ...] = ()


class TurnEnded(Struct, frozen=True, kw_only=True, tag="turn_ended"):
    """The turn ended: end-of-phase thresholds, wrecks removed, and whether the battle is over."""

    turn: int
    thresholds: tuple[Threshold, ...] = ()
    removed: tuple[str, ...] = ()
    over: bool = False
    winner: str | None = None
    reason: str = ""
    ready: tuple[str, ...] = ()
    """Campaign ships that rolled their 6 and may power up for a jump (004 L142-143)."""
    fell: tuple[str, ...] = ()
    """Ships the gas giant's gravity drew off the table for good (004 L167-168)."""
    table: tuple[float, float, float, float] | None = None
    """A campaign battle's table after this turn: fixed, or ``None`` floating (004 L133-135)."""
    withdrew: tuple[str, ...] = ()
    """Sides that lost their morale's share of their mass and withdrew (000 L13214-13273)."""
    boarding: tuple[BoardingFight, ...] = ()
    """Boarding actions fought out aboard ships that left the battle, or at its end (000
    L13134-13140); their threshold checks are in ``thresholds``."""
    rolls: tuple[Roll, ...] = ()


class CoreRoll(Struct, frozen=True, kw_only=True):
    """A damaged power core's D6 at the end of the turn: on 5-6 it explodes and destroys the
    ship (000 L11207-11211)."""

    ship: str
    face: int
    exploded: bool


class Breach(Struct, frozen=True, kw_only=True):
    """An exploding power core's blast on one ship within 3 MU: 1D6 per 25 mass of the ship
    that exploded, at face value, semi-armour-piercing and past screens (000 L11217-11254)."""

    ship: str
    """The ship whose power core exploded."""
    faces: tuple[int, ...]
    hit: Hit


class CoreSystemsRolled(Struct, frozen=True, kw_only=True, tag="core_systems_rolled"):
    """The core systems at the end of the turn, after damage control (000 phase 15): damaged
    power cores rolled, failed life support counted down, lost control counted down."""

    turn: int
    cores: tuple[CoreRoll, ...] = ()
    breaches: tuple[Breach, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    """The threshold checks the breaches' damage made at once (000 phase 15)."""
    destroyed: tuple[str, ...] = ()
    """Ships destroyed: by their own power core, or by a breach."""
    abandoned: tuple[str, ...] = ()
    """Ships whose life support gave out: their crews abandoned them (000 L11189-11197)."""
    control: tuple[str, ...] = ()
    """Ships back under control, their turns out of control over (000 L11161-11165)."""
    withdrew: tuple[str, ...] = ()
    """Sides that lost their morale's share of their mass and withdrew (000 L13214-13273)."""
    over: bool = False
    winner: str | None = None
    reason: str = ""
    boarding: tuple[BoardingFight, ...] = ()
    """Boarding actions fought out aboard ships that left the battle, or at its end (000
    L13134-13140)."""
    rolls: tuple[Roll, ...] = ()


class FlightWritten(Struct, frozen=True, kw_only=True, tag="flight_written"):
    """A side wrote the flight orders of its fighter groups in flight (secret until they fly)."""

    turn: int
    side: str
    orders: str


class GroupMoved(Struct, frozen=True, kw_only=True):
    """Where one fighter group flew, and why its order was not carried out if it was not."""

    group: str
    order: str
    x: float
    y: float
    void: str | None = None
    recovered: bool = False
    secondary: bool = False
    """It made a secondary move, for 1 CEF (000 L8760-8774)."""


class Dogfight(Struct, frozen=True, kw_only=True):
    """One round of a dogfight: both groups' dice, rolled simultaneously (001 L810)."""

    attacker: str
    defender: str
    attacker_roll: KillRoll
    defender_roll: KillRoll
    exhausted: bool = False
    """The defender had no endurance left: its dice kill only on 6s (000 L9346-9350)."""
    late: bool = False
    """A group scrambled too late fights the attacker after its attack run (000 L8659-8671)."""


class Scramble(Struct, frozen=True, kw_only=True):
    """A carrier's scramble die (000 8.3): the bay a mishap put out of action, or the groups
    that launched, ``late`` if too late to stop the attack."""

    ship: str
    face: int
    mishap: str | None = None
    groups: tuple[str, ...] = ()
    late: bool = False


class DefenceFire(Struct, frozen=True, kw_only=True):
    """One point-defence system's die at a fighter group."""

    ship: str
    system: str
    group: str
    roll: KillRoll


FighterWeapon = Literal["beams", "graser", "plasma", "torpedoes", "mkps", "shuttles"]
"""What a fighter group fires at a ship (000 8.15): BD* beams (a specialised type's secondary
weapons among them), a graser or plasma cannon, or its one-shot pulse torpedoes or MKPs; or
``shuttles``, assault shuttles landing boarding parties (000 L10020-10026)."""


class FighterAttack(Struct, frozen=True, kw_only=True):
    """A group's attack run on a ship: one die per fighter (001 L779; 000 L9160-9166)."""

    group: str
    target: str
    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    hit: Hit
    torpedoes: bool = False
    """Torpedo fighters' pulse torpedoes, not their beams (000 L9659-9680)."""
    weapon: FighterWeapon = "beams"
    """What the run fired (``torpedoes`` with ``torpedoes`` set)."""
    damage: tuple[int, ...] = ()
    """A graser run's 1d3 per hit (000 L9702-9706): the screened hits', then the re-rolls'."""
    landed: int = 0
    """Assault shuttles (``shuttles``): the boarding parties landed, one a die of 3+ (000
    L10020-10026); ``faces`` are the shuttles' dice, ``hit`` no damage."""


class SalvoLaunch(Struct, frozen=True, kw_only=True):
    """A missile fighter group launched its salvo at an aim point, against the enemy ship it
    closed on (000 L9810-9849); ``lost`` is the fighters it had lost, off the on-target die."""

    group: str
    target: str
    salvo: str
    x: float
    y: float
    lost: int = 0


class Rearm(Struct, frozen=True, kw_only=True):
    """A group recovered under the re-arming rule: its die and the turn from which it may
    launch again, ``None`` never in this battle (000 8.16, L10104-10121)."""

    group: str
    face: int
    ready: int | None


class Interception(Struct, frozen=True, kw_only=True):
    """A group intercepted a salvo (000 L9295-9315): its dice at the missiles, a D6 for each
    missile killed (``losses``), and the fighters those 6s cost it."""

    group: str
    salvo: str
    roll: KillRoll
    losses: tuple[int, ...] = ()
    lost: int = 0


class FightersResolved(Struct, frozen=True, kw_only=True, tag="fighters_resolved"):
    """The fighter groups flew, dogfought, met point defence and made their attack runs."""

    turn: int
    moves: tuple[GroupMoved, ...] = ()
    dogfights: tuple[Dogfight, ...] = ()
    defence: tuple[DefenceFire, ...] = ()
    attacks: tuple[FighterAttack, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    lost: tuple[str, ...] = ()
    """Groups wiped out."""
    launches: tuple[SalvoLaunch, ...] = ()
    """Missile fighters' salvos launched, after the attack runs (000 L9821-9833)."""
    rearms: tuple[Rearm, ...] = ()
    """The re-arming dice of the groups that landed (000 8.16)."""
    interceptions: tuple[Interception, ...] = ()
    """Groups' interceptions of salvos, their kills counted with the point defence's."""
    scrambles: tuple[Scramble, ...] = ()
    """Carriers' scramble dice at the groups attacking them (000 8.3)."""
    nova: tuple[NovaHit, ...] = ()
    """Nova templates moved on at the start of the firing, after the fighters (001 L917)."""
    salvo_defence: tuple[PointDefenceDie, ...] = ()
    """Point defence at the salvos in flight, after the fighters' (000 L1053-1472 phase 9)."""
    salvos: tuple[SalvoAttack, ...] = ()
    """The salvos in flight, resolved in this step when fighters fly (phases 7-10)."""
    rolls: tuple[Roll, ...] = ()


class PointDefenceDie(Struct, frozen=True, kw_only=True):
    """One point defence system's die against one salvo (000 L5851-5862)."""

    ship: str
    system: str
    salvo: str
    roll: KillRoll


class SalvoAttack(Struct, frozen=True, kw_only=True):
    """One salvo after the ships moved: the ship it homed on (``None``: none within its radius,
    wasted, 000 L5733-5736), the on-target die, the kills, the hits and their damage dice."""

    salvo: str
    target: str | None = None
    on_target: int | None = None
    lost: int = 0
    """A missile fighters' salvo: taken off the on-target die (000 L9843-9849)."""
    kills: int = 0
    hits: int = 0
    faces: tuple[int, ...] = ()
    hit: Hit | None = None


class MissilesResolved(Struct, frozen=True, kw_only=True, tag="missiles_resolved"):
    """The salvos in flight homed, met point defence and struck, with thresholds at once
    (000 L1053-1472 phases 7-10)."""

    turn: int
    defence: tuple[PointDefenceDie, ...] = ()
    attacks: tuple[SalvoAttack, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    rolls: tuple[Roll, ...] = ()


Event = (
    OrdersWritten
    | ShipsMoved
    | ShipFired
    | TurnEnded
    | RepairsMade
    | FlightWritten
    | FightersResolved
    | CoreSystemsRolled
    | MissilesResolved
    | AssaultOrdered
    | BoardingFought
)


def encode_journal(events: Sequence[Event]) -> bytes:
    """Encode a journal as JSON, one tagged object per event."""
    return msgspec.json.encode(list(events))


def decode_journal(data: bytes | str) -> list[Event]:
    """Decode a journal written by :func:`encode_journal`.

    Raises:
        msgspec.ValidationError: an event is malformed (the message gives its path).
    """
    return msgspec.json.decode(data, type=list[Event])


def _may_fire(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> bool:
    """A ship takes a firing turn if it is in play, has not fired and has an enemy to aim at.

    Under ``destroyed_fire`` a ship reduced to 0 hull this phase still takes its turn.
    """
    if ship.status != "active" or ship.fired or ship.jump in ("powering", "unplanned"):
        return False  # no offensive fire in the final power-up turn (004 L144-145)
    if ship.sweeping:
        return False  # an active minesweeper fires no offensive weapon (001 L898)
    if ship.record.out_of_control:
        return False  # out of control: no weapons fire (000 L11151-11157)
    if not ctx.rules.destroyed_fire and hull_remaining(ctx.sheets[ship.id], ship.record) <= 0:
        return False
    return any(enemy_in_sight(ctx, ship.side, s) or prize(s) for s in state.ships)


def ships_to_fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, ...]:
    """Return the ids of this side's ships that may take their firing turn now."""
    if state.phase != "fire" or state.to_fire != side:
        return ()
    return tuple(s.id for s in state.ships if s.side == side and _may_fire(ctx, state, s))


def _next_to_fire(ctx: BattleContext, state: BattleState, after: str) -> str | None:
    """Alternate sides; a side with ships left fires them after the other's last (001 L270)."""
    for side in (other_side(ctx, after), after):
        if any(s.side == side and _may_fire(ctx, state, s) for s in state.ships):
            return side
    return None


def order_limits(ctx: BattleContext, ship: ShipInPlay) -> tuple[int, int]:
    """Return a ship's thrust now and its course-change limit (under vector movement, its
    manoeuvre points).

    An advanced drive may spend all its thrust on turning, not half (000 L1713-1721); under
    vector movement its thrusters give the whole rating unless the rules'
    ``advanced_vector_thrusters`` says ``"half"`` (see docs/rulings.md). In a campaign battle
    a Level 1 captain turns one point more, a Level 3 one less but never below one (004
    L329-335); never more than the thrust, which pays for every point.
    """
    sheet = ctx.sheets[ship.id]
    thrust = current_thrust(sheet, ship.record)
    limit = thrust if sheet.advanced_drive else ctx.rules.turn_limit(thrust)
    if ctx.rules.movement == "vector":
        full = sheet.advanced_drive and ctx.rules.advanced_vector_thrusters == "full"
        # manoeuvre points, FB1 errata: T6 gives 3 (000 L13411-13986)
        limit = thrust if full else thrust // 2
    theatre = ctx.setup.theatre
    mod = dict(theatre.turn_mods).get(ship.id, 0) if theatre else 0
    if mod > 0:
        limit = min(limit + mod, thrust)
    elif mod < 0:
        limit = max(limit + mod, min(limit, 1))
    return thrust, limit


def _reenter(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> ShipInPlay:
    """Put a returning ship back on the edge it left by, at its exit point, facing onto the
    table at its exit speed (001 L538; digest A10; see docs/rulings.md).

    In a campaign battle it returns at the point it left (004 L138), turned about, at its
    exit speed up to 3 x thrust; on the fixed table if there is one.
    """
    if ctx.setup.theatre is not None:
        thrust = current_thrust(ctx.sheets[ship.id], ship.record)
        x, y = ship.x, ship.y
        if state.table is not None:
            x_min, y_min, x_max, y_max = state.table
            x, y = min(max(x, x_min), x_max), min(max(y, y_min), y_max)
        return msgspec.structs.replace(
            ship,
            x=round_mu(x),
            y=round_mu(y),
            course=course_after(ship.course, 6),
            speed=min(ship.speed, 3 * thrust),
            status="active",
            returns=None,
            vector=_turned_about(ship.vector, 3 * thrust),
        )
    assert ctx.setup.table is not None
    x_min, y_min, x_max, y_max = ctx.setup.table
    overshoot = {
        3: x_min - ship.x,  # off the west edge: come back heading east, course 3
        9: ship.x - x_max,
        12: y_min - ship.y,
        6: ship.y - y_max,
    }
    course = max(overshoot, key=lambda c: (overshoot[c], -c))
    return msgspec.structs.replace(
        ship,
        x=round_mu(min(max(ship.x, x_min), x_max)),
        y=round_mu(min(max(ship.y, y_min), y_max)),
        course=course,
        status="active",
        returns=None,
        vector=None if ship.vector is None else (course * 30.0, ship.vector[1]),
    )


def _turned_about(vector: tuple[float, float] | None, most: int) -> tuple[float, float] | None:
    """A vector ship back from disengaging: its velocity reversed, at most ``most`` MU."""
    if vector is None:
        return None
    course, speed = vector
    return (round_mu((course + 180.0) % 360.0), min(speed, float(most)))


def move_ships(  # noqa: PLR0915 - ships, launches, mines, rams and initiative in one step
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, ShipsMoved]:
    """Move every ship by its orders at once, meeting mines on the way, then try the rams the
    orders named and find who fires first (001 L250-262, L868-898, L977-995)."""
    written: dict[str, Order] = {}
    for side_orders in state.written:
        written.update(parse_orders(side_orders.orders))
    # Torpedo settings are a note on the record sheet, not a move (000 L4786-4794).
    settings = {ship_id: order.torpedoes for ship_id, order in written.items()}
    written = {k: msgspec.structs.replace(v, torpedoes=()) for k, v in written.items()}
    moves: list[Moved] = []
    ships: list[ShipInPlay] = []
    launched: list[FighterGroup] = []
    held: list[str] = []
    paths: dict[str, Path] = {}
    drops: dict[str, tuple[int, ...]] = {}
    sweeps: set[str] = set()
    scanners: list[tuple[str, tuple[str, ...]]] = []
    revealers: list[str] = []
    rams: list[tuple[str, str]] = []
    state, swept = _asteroid_sweeps(ctx, state, dice)
    thresholds: list[Threshold] = []
    dropouts: list[Dropout] = []
    for ship in state.ships:
        if dropping_out(ctx, ship, state.turn):
            state, dropped = drop_out(ctx, state, ship.id, dice, thresholds)
            dropouts.append(dropped)
    starts = tuple((s.id, s.x, s.y) for s in state.ships if s.status == "active")
    departing: list[str] = []
    for ship in state.ships:
        if not moves_this_turn(ship, state.turn):
            ships.append(ship)
            continue
        if ship.status == "away":
            ship = _reenter(ctx, state, ship)  # noqa: PLW2901 - the returning ship moves from the edge
        order = written.get(ship.id, NO_ORDER)
        if ship.jump == "powering" and ctx.setup.theatre is None:
            departing.append(ship.id)  # moved after every other ship (001 L1027)
            ships.append(ship)
            continue
        if ship.jump in ("powering", "unplanned"):
            moved, after = jump_move(ctx, state, ship, order, dice)
            moves.append(moved)
            ships.append(after)
            paths[ship.id] = ((ship.x, ship.y), (after.x, after.y))
            continue
        thrust, limit = order_limits(ctx, ship)
        void = order_problem(
            order,
            speed=ship.speed,
            course=ship.course,
            thrust=thrust,
            rules=ctx.rules,
            limit=limit,
        )
        if ship.record.out_of_control and order != NO_ORDER:
            void = "out of control: it keeps its course and speed (000 L11151-11157)"
        if order.jump and void is None:
            void = jump_problem(ctx, ship)
        if order.launch and void is None:
            void = bay_launch_problem(ctx, state, ship, order.launch)
        if order.nova and void is None:
            void = nova_problem(ctx, ship)
        if (order.mines or order.sweep) and void is None:
            void = _mine_problem(ctx, ship, order)
        if order.scan and void is None:
            void = _scan_problem(ctx, state, ship, order.scan_for)
        if order.ram is not None and void is None:
            void = _ram_problem(state, ship, order.ram)
        if order.scramble and void is None:
            void = scramble_problem(ctx, ship, order)
        jump = ship.jump
        if order.jump and void is None and ctx.setup.theatre is None:
            jump = "powering"  # the drives warm up this turn (001 L1025)
        elif order.jump and void is None:
            jump = "powering" if ship.jump == "ready" else "unplanned"
        start = MoveStart(
            x=ship.x, y=ship.y, course=ship.course, speed=ship.speed, vector=ship.vector
        )
        end = move(
            start,
            NO_ORDER if void else order,
            ctx.rules.split_velocity,
            whole=ctx.rules.vector_rounding,
        )
        fell = in_well(ctx, end.x)
        left = fell or off_table(ctx, state, end.x, end.y)
        returns = None
        if left and not fell and ctx.setup.theatre is not None:
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)  # 004 L136-138
            returns = state.turn + face if face >= ctx.setup.theatre.return_on else None
        elif left and not fell and ctx.rules.leave_table == "return_roll":
            face = dice.roll(f"t{state.turn}/leave/{ship.id}", 6)
            returns = state.turn + face if face >= RETURN_ON else None
        moves.append(
            Moved(
                ship=ship.id,
                order=format_order(order),
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                void=void,
                left=left,
                returns=returns,
                vector=end.vector,
            )
        )
        carried = NO_ORDER if void else order
        # A standing order to scramble gives nothing away until it is carried out.
        quiet = msgspec.structs.replace(carried, ram=None, scramble=False)
        if not left and quiet != _course_and_speed(carried):
            revealers.append(ship.id)  # scanning or any other system gives it away
        if carried.ram is not None:
            rams.append((ship.id, carried.ram))  # a ram gives nothing away until it is tried
        if carried.scan and not left:
            scanners.append((ship.id, carried.scan_for))
        paths[ship.id] = ((ship.x, ship.y), (end.mid_x, end.mid_y), (end.x, end.y))
        drops[ship.id] = carried.mines
        if carried.sweep:
            sweeps.add(ship.id)
        if bays(ctx.sheets[ship.id]) and not left:
            if (carried.turn, carried.accel, carried.pivot, carried.jump, carried.vector) == (
                0,
                0,
                None,
                False,
                (),
            ):
                held.append(ship.id)  # course and velocity held: it may recover (001 L761)
            if carried.launch:
                ship, groups = launch_groups(ctx, state, ship, carried.launch)  # noqa: PLW2901
                launched.extend(groups)
        ships.append(
            msgspec.structs.replace(
                ship,
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                vector=end.vector,
                status=("away" if returns else "left") if left else "active",
                returns=returns,
                jump=jump,
                nova=carried.nova and not left,
                sweeping=carried.sweep and not left,
                scramble=carried.scramble and not left,
            )
        )
    ships = [
        msgspec.structs.replace(ship, settings=settings[ship.id])
        if settings.get(ship.id) and ship.status == "active"
        else ship
        for ship in ships
    ]
    fighters = state.fighters + tuple(launched)
    robots = ctx.rules.fighter_secondary_move and any(
        group_type(ctx, g.carrier, g.bay).robot for g in fighters
    )
    state = msgspec.structs.replace(
        state,
        ships=tuple(ships),
        written=(),
        fighters=fighters,
        held=tuple(held),
        before=starts if robots else (),  # robots' secondary moves (000 L10070-10078)
    )
    for ship_id in departing:
        state, moved, path = depart(
            ctx, state, ship_id, written.get(ship_id, NO_ORDER), dice, thresholds
        )
        moves.append(moved)
        if path is not None:
            paths[ship_id] = path
    state, decoys = _move_dummies(ctx, state, written)
    state, met = _asteroid_collisions(ctx, state, paths, dice)
    met = swept + met
    state, mines = _mines(ctx, state, paths, drops, sweeps, dice, thresholds)
    sensed: list[Sensed] = []
    if ctx.rules.bogeys:
        state, sensed = sense(ctx, state, scanners, revealers)
    rammed: list[Rammed] = []
    for rammer, target in rams:  # after the move, before the firing (see docs/rulings.md)
        state, tried = _ram(ctx, state, rammer, target, dice, thresholds)
        rammed.append(tried)
    first = _initiative(ctx, state, dice)
    nova: list[NovaHit] = []
    if not state.fighters:
        state = advance_novas(ctx, state, dice, nova, thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "moved")
    if state.fighters:
        # Fighters fly after the ships (001 L256-258; 000 L1053-1472 phases 4-10).
        state = msgspec.structs.replace(state, phase="flight", first=first, to_fire=None)
    else:
        state = to_fire_phase(ctx, state, first)
    return state, ShipsMoved(
        turn=state.turn,
        moves=tuple(moves),
        first=first,
        nova=tuple(nova),
        thresholds=tuple(thresholds),
        mines=tuple(mines),
        decoys=tuple(decoys),
        sensed=tuple(sensed),
        rams=tuple(rammed),
        asteroids=tuple(met),
        dropouts=tuple(dropouts),
    )


def dropping_out(ctx: BattleContext, ship: ShipInPlay, turn: int) -> bool:
    """Whether a ship is off the table waiting to drop out of FTL on ``turn`` (001 L1055)."""
    return ship.status == "away" and ship.returns == turn == _dropout_turn(ctx, ship.id)


def awaiting_dropout(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Whether a ship has yet to drop out of FTL onto the table (001 L1055)."""
    return ship.status == "away" and ship.returns == _dropout_turn(ctx, ship.id) is not None


def _dropout_turn(ctx: BattleContext, ship_id: str) -> int | None:
    """The turn the set-up has a ship drop out of FTL, if it does (001 L1055)."""
    return next((s.dropout for s in ctx.setup.ships if s.id == ship_id), None)


def drop_out(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Dropout]:
    """Bring a ship out of FTL at the start of the movement (001 L1057-1070): the marker at
    its intended point scatters a D12 clock direction and a D6 MU (under the OPTION, a 6 times
    a second D6, and off the table it never enters); then every ship, itself included, and
    fighter group within 6" of where it appears takes a D6, a 6 making it a second D6 times 6,
    unscreened, thresholds checked at once. Dice are keyed ``t<turn>/dropout/<ship>/...``.
    """
    turn = state.turn
    key = f"t{turn}/dropout/{ship_id}"
    ship = state.ship(ship_id)
    direction = dice.roll(f"{key}/direction", 12)
    distance = dice.roll(f"{key}/distance", 6)
    extreme = None
    if ctx.rules.ftl_dropout_extreme and distance == EXTREME_ON:
        extreme = dice.roll(f"{key}/extreme", 6)
    x, y = scatter(ship.x, ship.y, direction, scatter_distance(distance, extreme))
    report = Dropout(
        ship=ship_id,
        aimed=(ship.x, ship.y),
        direction=direction,
        distance=distance,
        extreme=extreme,
        x=x,
        y=y,
    )
    if ctx.rules.ftl_dropout_extreme and off_table(ctx, state, x, y):
        state = replace_ship(state, msgspec.structs.replace(ship, status="left", returns=None))
        return state, msgspec.structs.replace(report, entered=False)
    state = replace_ship(
        state, msgspec.structs.replace(ship, x=x, y=y, status="active", returns=None)
    )
    victims = [
        s.id for s in state.ships if s.status in ON_THE_TABLE and within_radius(x, y, s.x, s.y)
    ]
    groups = [g.id for g in state.fighters if within_radius(x, y, g.x, g.y)]
    faces: list[tuple[str, int, int | None]] = []
    hits: list[Hit] = []
    lost: list[tuple[str, int]] = []
    for victim in (*victims, *groups):
        face = dice.roll(f"{key}/damage/{victim}", 6)
        second = dice.roll(f"{key}/damage/{victim}/times", 6) if face == ARRIVAL_TIMES_ON else None
        faces.append((victim, face, second))
        points = arrival_damage(face, second)
        if victim in victims:
            state, hit = crash(ctx, state, victim, points, f"dropout/{ship_id}", dice, thresholds)
            hits.append(hit)
        else:
            state, killed = _fighters_lost(state, victim, points)
            lost.append((victim, killed))
    return state, msgspec.structs.replace(
        report, faces=tuple(faces), hits=tuple(hits), fighters=tuple(lost)
    )


def _asteroid_collisions(
    ctx: BattleContext, state: BattleState, paths: Mapping[str, Path], dice: DiceSource
) -> tuple[BattleState, list[AsteroidMet]]:
    """Roll for every asteroid a ship's move crossed, in the order the ships stand and, for
    each ship, the order it met them (001 L1092-1108; 000 L18059-18153).

    The path is the move's legs (cinematic: start, mid-move turn, end; vector: the straight
    line, 000 L13828-13850), the asteroids stand where they are this turn, and a path crosses
    one when it passes strictly inside its base (:func:`tactical.asteroids.asteroids_crossed`).
    The ship needs its velocity after the move less its thrust now on a D6 (001 L1092,
    L1106; 000 L18116-18124); the die is keyed by the turn, the ship and the asteroid. A ship
    that hits one is destroyed at once, whatever its class (001 L1108), and meets nothing
    further. Collisions come before mines (see docs/rulings.md).
    """
    asteroids = asteroids_now(ctx, state)
    if not asteroids:
        return state, []
    theatre = ctx.setup.theatre
    moving = theatre is not None and theatre.asteroid_motion == "sweep"
    met: list[AsteroidMet] = []
    for ship in state.ships:
        path = paths.get(ship.id)
        if path is None or ship.status == "destroyed":
            continue
        risked = ends_inside(path[-1], asteroids) if moving else asteroids_crossed(path, asteroids)
        for index in risked:
            key = f"t{state.turn}/asteroid/{ship.id}/{index}"
            state, event = _meet_asteroid(ctx, state, ship, asteroids[index], key, dice)
            met.append(event)
            if event.crashed:
                break
    return state, met


def _meet_asteroid(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    at: tuple[float, float],
    key: str,
    dice: DiceSource,
    *,
    swept: bool = False,
) -> tuple[BattleState, AsteroidMet]:
    """Roll a ship's D6 to avoid the asteroid at ``at``, when a die is needed, and destroy it
    if it fails (001 L1092-1108). The need is its current velocity less "the ship's total
    available THRUST RATING": what its drive delivers now, an advanced drive's doubled (000
    L18116-18126)."""
    thrust = collision_thrust(ctx.sheets[ship.id], ship.record)
    speed = ship.vector[1] if ship.vector is not None else float(ship.speed)
    need = avoid_need(velocity=speed, thrust=thrust)
    face = dice.roll(key, 6) if needs_die(need) else None
    crashed = not evades(face=face, need=need)
    event = AsteroidMet(
        ship=ship.id,
        x=at[0],
        y=at[1],
        velocity=speed,
        thrust=thrust,
        need=need,
        face=face,
        crashed=crashed,
        swept=swept,
    )
    if crashed:  # 001 L1108: "THE SHIP IS COMPLETELY DESTROYED" (000 L18147-18149)
        state = replace_ship(state, msgspec.structs.replace(ship, status="destroyed", returns=None))
    return state, event


def _asteroid_sweeps(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, list[AsteroidMet]]:
    """Under ``asteroid_motion = "sweep"``, roll for every ship a drifting asteroid swept over
    since the last turn: "the movement path of the asteroid brings it into contact with a
    ship at any point (this is before the ship itself has moved, at the beginning of the Ship
    Movement Phase)" (000 L18086-18089). The ship's centre against the base along the drift's
    legs (:func:`tactical.asteroids.drift_legs`, wrapping round the field, 004 L180-181); the
    need is its velocity now less its thrust (000 L18116-18126); the die is keyed
    ``t<turn>/asteroid-sweep/<ship>/<asteroid>``.
    """
    theatre = ctx.setup.theatre
    if (
        theatre is None
        or theatre.asteroid_motion != "sweep"
        or theatre.field is None
        or theatre.drift == (0.0, 0.0)
        or state.turn < 2  # the first drift is at the end of turn 1
    ):
        return state, []
    sweeps = [
        drift_legs(start, theatre.drift, theatre.field)
        for start in asteroids_at(theatre, state.turn - 1)
    ]
    now = asteroids_at(theatre, state.turn)
    met: list[AsteroidMet] = []
    for ship in state.ships:
        if ship.status != "active":
            continue
        for index, legs in enumerate(sweeps):
            if not any(line_blocked(a, b, [(ship.x, ship.y)]) for a, b in legs):
                continue
            key = f"t{state.turn}/asteroid-sweep/{ship.id}/{index}"
            state, event = _meet_asteroid(ctx, state, ship, now[index], key, dice, swept=True)
            met.append(event)
            if event.crashed:
                break
    return state, met


def _course_and_speed(order: Order) -> Order:
    """The order's course and speed change alone: what a bogey may do unseen."""
    return Order(turn=order.turn, accel=order.accel, pivot=order.pivot, vector=order.vector)


def scan_limit(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return how many bogeys the ship's active sensors may identify this turn: escort 1,
    cruiser 2, capital 3 (001 L951), or one per working FireCon under the ``active_scans``
    option (000 12.1); none for a civilian hull, which has passive sensors only (001 L949)."""
    sheet = ctx.sheets[ship.id]
    if sheet.hull not in SCANNING_HULLS:
        return 0
    if ctx.rules.active_scans == "firecon":
        return fire_controls(ctx, ship)
    return ACTIVE_SCANS.get(sheet.hull_class, 1)  # a Q-ship's merchant hull scans one


def _scan_problem(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, names: Sequence[str]
) -> str | None:
    """Return why a ship may not make this active scan this turn, or ``None``: the bogeys it
    names must be enemy bogeys on the table as the orders were written, no more than it may
    scan (001 L951)."""
    if not ctx.rules.bogeys:
        return "there are no bogeys to scan: the battle is played without sensors (001 L933)"
    limit = scan_limit(ctx, ship)
    if limit == 0:
        return "only military vessels carry active sensors (001 L949)"
    if len(names) > limit:
        return f"the scan names {len(names)} bogeys and this ship may scan {limit} (001 L951)"
    contacts = {
        s.bogey for s in state.ships if s.side != ship.side and s.status == "active" and s.bogey
    } | {d.label for d in state.dummies if d.side != ship.side}
    unknown = [name for name in names if name not in contacts]
    if unknown:
        return f"{', '.join(unknown)} is no enemy bogey on the table (001 L951)"
    return None


def _move_dummies(
    ctx: BattleContext, state: BattleState, written: Mapping[str, Order]
) -> tuple[BattleState, list[Moved]]:
    """Move every dummy bogey by its orders, with a scoutship's thrust (001 L957). A dummy
    only moves; any other order is void. One that leaves the table is gone."""
    moves: list[Moved] = []
    kept: list[Dummy] = []
    for dummy in state.dummies:
        order = written.get(dummy.id, NO_ORDER)
        void = order_problem(
            order, speed=dummy.speed, course=dummy.course, thrust=DUMMY_THRUST, rules=ctx.rules
        )
        if void is None and order != _course_and_speed(order):
            void = "a dummy bogey only moves (001 L957)"
        start = MoveStart(x=dummy.x, y=dummy.y, course=dummy.course, speed=dummy.speed)
        end = move(start, NO_ORDER if void else order, ctx.rules.split_velocity)
        left = in_well(ctx, end.x) or off_table(ctx, state, end.x, end.y)
        moves.append(
            Moved(
                ship=dummy.id,
                order=format_order(order),
                x=end.x,
                y=end.y,
                course=end.course,
                speed=end.speed,
                void=void,
                left=left,
            )
        )
        if not left:
            kept.append(
                msgspec.structs.replace(dummy, x=end.x, y=end.y, course=end.course, speed=end.speed)
            )
    return msgspec.structs.replace(state, dummies=tuple(kept)), moves


def sense(
    ctx: BattleContext,
    state: BattleState,
    scanners: Sequence[tuple[str, tuple[str, ...]]],
    revealers: Sequence[str],
) -> tuple[BattleState, list[Sensed]]:
    """Identify bogeys at the end of the move (digest A17): ships that gave themselves away,
    then every enemy bogey within 36" of a ship in play, both at once when both are bogeys
    (001 L947), then each active scan's bogeys within 54", up to its limit (001 L951): those
    its order names, in the order named, else the nearest.

    Passive sensors go first, so that no scan is spent on a bogey they identify anyway; a scan
    naming no bogeys takes the nearest left, the labels settling ties, and one naming bogeys
    takes only those still unidentified within 54" (see docs/rulings.md). A dummy identified
    is removed (001 L957).
    """
    sensed: list[Sensed] = []
    done: set[str] = set()

    def bogeys_of(side: str) -> list[tuple[str, str, float, float, bool]]:
        ships = [
            (s.bogey, s.id, s.x, s.y, False)
            for s in state.ships
            if s.side != side and s.status == "active" and s.bogey is not None
        ]
        dummies = [(d.label, d.id, d.x, d.y, True) for d in state.dummies if d.side != side]
        return [c for c in ships + dummies if c[1] not in done]

    for ship_id in revealers:
        if state.ship(ship_id).bogey is not None:
            done.add(ship_id)
            sensed.append(Sensed(counter=ship_id, how="self"))
    sensors = [s for s in state.ships if s.status == "active"]
    asteroids = asteroids_now(ctx, state)

    def clear(ship: ShipInPlay, x: float, y: float) -> bool:
        # 001 L1090: a bogey is revealed only to a ship within scan range that "can get a
        # clear line-of-sight on to the Bogey", active or passive (000 L17826-17842).
        return not line_blocked((ship.x, ship.y), (x, y), asteroids)

    passive: list[Sensed] = []
    for side in ctx.setup.sides:
        for _label, name, x, y, dummy in bogeys_of(side):
            near = [
                (range_between(s.x, s.y, x, y), s.id)
                for s in sensors
                if s.side == side
                and range_between(s.x, s.y, x, y) <= PASSIVE_RANGE_MU
                and clear(s, x, y)
            ]
            if near:
                passive.append(Sensed(counter=name, how="passive", by=min(near)[1], dummy=dummy))
    done.update(p.counter for p in passive)
    sensed.extend(passive)
    for scanner_id, named in scanners:
        scanner = state.ship(scanner_id)
        if scanner.status != "active":
            continue
        in_range = sorted(
            (range_between(scanner.x, scanner.y, x, y), len(label), label, name, dummy)
            for label, name, x, y, dummy in bogeys_of(scanner.side)
            if range_between(scanner.x, scanner.y, x, y) <= ACTIVE_RANGE_MU and clear(scanner, x, y)
        )
        if named:  # the player chooses which bogeys he scans (001 L951)
            in_range = sorted(
                (c for c in in_range if c[2] in named), key=lambda c: named.index(c[2])
            )
        for _r, _n, _label, name, dummy in in_range[: scan_limit(ctx, scanner)]:
            done.add(name)
            sensed.append(Sensed(counter=name, how="active", by=scanner_id, dummy=dummy))
    gone = {s.counter for s in sensed if s.dummy}
    ships = tuple(identified(s) if s.id in done else s for s in state.ships)
    dummies = tuple(d for d in state.dummies if d.id not in gone)
    return msgspec.structs.replace(state, ships=ships, dummies=dummies), sensed


def to_fire_phase(ctx: BattleContext, state: BattleState, first: str | None) -> BattleState:
    if any(s.due(state.turn) for s in state.salvos):
        # Salvos in flight home and strike before the firing (000 L1053-1472 phases 7-10).
        return msgspec.structs.replace(state, phase="missiles", first=first, to_fire=None)
    to_fire = None if first is None else _next_to_fire(ctx, state, other_side(ctx, first))
    if to_fire is None:
        return after_fire(ctx, msgspec.structs.replace(state, first=first))
    return msgspec.structs.replace(state, phase="fire", first=first, to_fire=to_fire)


def nova_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not arm a nova cannon this turn, or ``None``."""
    sheet = ctx.sheets[ship.id]
    if not any(
        spec.kind == NOVA and now.status == "ok"
        for spec, now in zip(sheet.systems, ship.record.systems, strict=True)
    ):
        return "the ship has no working nova cannon to arm (001 L906)"
    return None


def mine_layers(ctx: BattleContext, ship: ShipInPlay) -> tuple[str, ...]:
    """Return the ship's working minelayers with mines left, in record-sheet order: each
    may drop one mine this turn (001 L884-886)."""
    return tuple(
        spec.id
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if spec.kind == MINELAYER and now.status == "ok" and (now.ammo or 0) > 0
    )


def sweeper_working(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Return whether the ship has a working minesweeper to activate (001 L894)."""
    return any(
        spec.kind == MINESWEEPER and now.status == "ok"
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
    )


def move_path(ctx: BattleContext, ship: ShipInPlay, order: Order) -> Path:
    """Return the points a ship flies through carrying out a legal order: its start, the
    mid-move turn and its end (001 L346-358)."""
    start = MoveStart(x=ship.x, y=ship.y, course=ship.course, speed=ship.speed, vector=ship.vector)
    end = move(start, order, ctx.rules.split_velocity, whole=ctx.rules.vector_rounding)
    return ((ship.x, ship.y), (end.mid_x, end.mid_y), (end.x, end.y))


def _mine_problem(ctx: BattleContext, ship: ShipInPlay, order: Order) -> str | None:
    """Return why a ship may not lay these mines or sweep this turn, or ``None``."""
    if order.nova:
        return "an armed nova cannon leaves no power for mines or sweeping (001 L910)"
    layers = mine_layers(ctx, ship)
    if order.mines and not layers:
        return "no working minelayer with mines left (001 L876-886)"
    if len(order.mines) > len(layers):
        return (
            f"{len(order.mines)} mines and {len(layers)} working minelayers with mines: one "
            "mine per minelayer a turn (001 L884)"
        )
    if order.sweep and not sweeper_working(ctx, ship):
        return "no working minesweeper to activate (001 L894)"
    return None


def _mines(
    ctx: BattleContext,
    state: BattleState,
    paths: Mapping[str, Path],
    drops: Mapping[str, tuple[int, ...]],
    sweeps: set[str],
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, list[MineEvent]]:
    """Lay, sweep and set off mines along the ships' moves, in the order they happen.

    Ships move at once and at an even pace, so how far through its move a ship is tells the
    time: the first enemy to come within 3" of an active mine meets it (001 L872), and a
    mine swept or set off earlier in the move is gone for those that come later (see
    docs/rulings.md). A minelayer drops each mine at the point of its move its order names;
    the mine is active from the next turn (001 L884-888). An active minesweeper passing an
    enemy mine rolls its D6 instead of being attacked (001 L896). Mine damage and its
    threshold checks are resolved on the spot, as for fighters (000 L1241).
    """
    turn = state.turn
    order = {s.id: i for i, s in enumerate(state.ships)}
    happenings: list[tuple[float, int, int, str]] = []  # when, drop 0 / contact 1, ship, name
    for ship_id, path in paths.items():
        ship = state.ship(ship_id)
        for tenth, layer in zip(drops.get(ship_id, ()), mine_layers(ctx, ship), strict=False):
            happenings.append((tenth / MINE_TENTHS, 0, order[ship_id], layer))
        for placed in state.mines:
            if placed.side == ship.side or not placed.active(turn):
                continue  # mines never attack their own side's ships (001 L870)
            when = first_contact(path, placed.x, placed.y, MINE_RADIUS_MU)
            if when is not None:
                happenings.append((when, 1, order[ship_id], placed.id))
    events: list[MineEvent] = []
    for when, kind, index, name in sorted(happenings):
        ship = state.ships[index]
        sheet = ctx.sheets[ship.id]
        if ship.status == "destroyed" or hull_remaining(sheet, ship.record) <= 0:
            continue
        if kind == 0:
            if name not in mine_layers(ctx, ship):
                continue  # knocked out earlier in the move
            x, y = point_along(paths[ship.id], when)
            laid = Mine(
                id=mine_id(ship.id, name, turn),
                side=ship.side,
                x=round_mu(x),
                y=round_mu(y),
                laid=turn,
            )
            systems = tuple(
                msgspec.structs.replace(now, ammo=(now.ammo or 0) - 1) if now.id == name else now
                for now in ship.record.systems
            )
            record = msgspec.structs.replace(ship.record, systems=systems)
            state = replace_ship(state, msgspec.structs.replace(ship, record=record))
            state = msgspec.structs.replace(state, mines=(*state.mines, laid))
            events.append(MineLaid(mine=laid.id, ship=ship.id, layer=name, x=laid.x, y=laid.y))
            continue
        mine = next((m for m in state.mines if m.id == name), None)
        if mine is None:
            continue  # swept or set off earlier in the move
        sweep = None
        if ship.id in sweeps and sweeper_working(ctx, ship):
            sweep = dice.roll(f"t{turn}/sweep/{ship.id}/{mine.id}", 6)
            result = sweep_result(sweep)
            if result != "detonated":
                events.append(
                    MineSwept(mine=mine.id, ship=ship.id, face=sweep, cleared=result == "cleared")
                )
                if result == "cleared":
                    state = _without_mine(state, mine.id)
                continue
        state, detonated = _detonate(ctx, state, ship, mine, sweep, dice, thresholds)
        events.append(detonated)
    return state, events


def _without_mine(state: BattleState, mine: str) -> BattleState:
    return msgspec.structs.replace(state, mines=tuple(m for m in state.mines if m.id != mine))


def _detonate(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    mine: Mine,
    sweep: int | None,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, MineDetonated]:
    """Fire a mine at a ship and remove it: beam dice against its screens (001 L872; 4 under
    Continuum, 000 L6737-6739), with threshold checks at once."""
    turn = state.turn
    sheet = ctx.sheets[ship.id]
    outcome = roll_beams(
        dice,
        f"t{turn}/mine/{mine.id}",
        ctx.rules.mine_dice,
        working_screen(ctx, ship),
        reroll=ctx.rules.beam_reroll,
    )
    record, hit = take_damage(
        sheet, ship.record, ship.id, outcome.screened_damage, (), outcome.reroll_damage
    )
    if not hit.destroyed:
        for row in hit.rows:
            record, check = check_threshold(
                ctx,
                ship.id,
                record,
                dice,
                f"t{turn}/threshold/{ship.id}/mine/{mine.id}/row{row}",
                row,
            )
            thresholds.append(check)
    hurt = msgspec.structs.replace(
        ship,
        record=record,
        status="destroyed" if hit.destroyed else colours_struck(ship.status, ship.id, thresholds),
        returns=None if hit.destroyed else ship.returns,
    )
    state = _without_mine(replace_ship(state, hurt), mine.id)
    event = MineDetonated(
        mine=mine.id,
        ship=ship.id,
        faces=tuple(outcome.faces),
        rerolls=tuple(outcome.rerolls),
        hit=hit,
        sweep=sweep,
    )
    return state, event


def ram_need(ctx: BattleContext, side: str) -> int:
    """Return the D6 face a side's rams need to go on: the rules' 6 (001 L979), or what the
    set-up's special option gives the side."""
    return ctx.setup.ram_on.get(side, ctx.rules.ram_on)


def _ram_problem(state: BattleState, ship: ShipInPlay, target_id: str) -> str | None:
    """Return why a ship may not mean to ram this target this turn, or ``None``: only an
    enemy ship in play that its side has identified may be named (001 L977-979)."""
    try:
        target = state.ship(target_id)
    except KeyError:
        return f"there is no ship {target_id!r} to ram (a dummy bogey is no ship, 001 L957)"
    if target.side == ship.side:
        return f"{target_id} is no enemy: only an enemy ship is rammed (001 L977)"
    if not moves_this_turn(target, state.turn):
        return f"{target_id} is not in play"
    if target.bogey is not None:
        return f"{target_id} is a bogey its side has not identified (001 L941)"
    return None


def _ram(
    ctx: BattleContext,
    state: BattleState,
    rammer_id: str,
    target_id: str,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Rammed]:
    """Try one ram after the move (001 L979-995): within 2" of the target, the rammer's D6 to
    go on, D6 + current thrust each to make contact, then D6 x damage points left each way.

    Both ships' damage is rolled from the damage points they had before the ram, since they
    hit each other at once; it goes armour first and ignores screens (digest A14), and its
    threshold checks are made at once, as for mines (see docs/rulings.md).
    """
    rammer, target = state.ship(rammer_id), state.ship(target_id)
    for ship in (rammer, target):
        if not targetable(ctx, ship):
            reason = f"{ship.id} is no longer in play"
            return state, Rammed(ship=rammer_id, target=target_id, reason=reason)
    distance = round_mu(range_between(rammer.x, rammer.y, target.x, target.y))
    tried = Rammed(ship=rammer_id, target=target_id, distance=distance)
    if not in_reach(distance):
        reason = f"{target_id} is {format_mu(distance)} MU away, more than 2 (001 L981)"
        return state, msgspec.structs.replace(tried, reason=reason)
    key = f"t{state.turn}/ram/{rammer_id}"
    need = ram_need(ctx, rammer.side)
    face = dice.roll(f"{key}/proceed", 6)
    tried = msgspec.structs.replace(tried, need=need, proceed=face)
    if not proceeds(face, need):
        return state, tried
    rammer_sheet, target_sheet = ctx.sheets[rammer_id], ctx.sheets[target_id]
    attack, evade = dice.roll(f"{key}/attack", 6), dice.roll(f"{key}/evade", 6)
    attack_thrust = current_thrust(rammer_sheet, rammer.record)
    evade_thrust = current_thrust(target_sheet, target.record)
    tried = msgspec.structs.replace(
        tried,
        attack=attack,
        attack_thrust=attack_thrust,
        evade=evade,
        evade_thrust=evade_thrust,
    )
    if not contact(
        attack=attack, attack_thrust=attack_thrust, evade=evade, evade_thrust=evade_thrust
    ):
        return state, tried
    impact, recoil = dice.roll(f"{key}/impact", 6), dice.roll(f"{key}/recoil", 6)
    ship_points = hull_remaining(rammer_sheet, rammer.record)
    target_points = hull_remaining(target_sheet, target.record)
    hits: list[Hit] = []
    for victim, points in (
        (target_id, ram_damage(face=impact, points=ship_points)),
        (rammer_id, ram_damage(face=recoil, points=target_points)),
    ):
        state, hit = crash(ctx, state, victim, points, f"ram/{rammer_id}", dice, thresholds)
        hits.append(hit)
    return state, msgspec.structs.replace(
        tried,
        contact=True,
        impact=impact,
        ship_points=ship_points,
        recoil=recoil,
        target_points=target_points,
        hits=tuple(hits),
    )


def jump_problem(ctx: BattleContext, ship: ShipInPlay) -> str | None:
    """Return why a ship may not start its final power-up for a jump, or ``None``."""
    theatre = ctx.setup.theatre
    if theatre is None:  # a table battle: FT2's FTL departure (001 L1025)
        return None if ship.record.ftl == "ok" else "its FTL drive is lost"
    if ship.side not in theatre.ftl_sides:
        return "only ships under FTL Move orders may jump (004 L139)"
    if ship.record.ftl != "ok":
        return "its FTL drive is lost"
    return None


def jump_move(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, dice: DiceSource
) -> tuple[Moved, ShipInPlay]:
    """The turn after the final power-up: half the normal distance, then the jump (004 L145).

    Where FTL may not be engaged (:func:`ftl_blocked`) the jump is called off: a planned jump
    stays ready, an unplanned one must power up again. An unplanned jump rolls a D6 for the
    parsecs it lands off target and a D6 for the hex direction (004 L140-141).
    """
    assert ctx.setup.theatre is not None
    dx, dy = velocity(ship)
    x = round_mu(ship.x + dx / 2)
    y = round_mu(ship.y + dy / 2)
    ignored = None if order == NO_ORDER else "the ship is entering jump (004 L145)"
    blocked = ftl_blocked(ctx.setup.theatre, state.turn, x, y)
    if blocked is not None:
        after = msgspec.structs.replace(
            ship, x=x, y=y, jump="ready" if ship.jump == "powering" else "none"
        )
        moved = Moved(
            ship=ship.id,
            order=format_order(order),
            x=x,
            y=y,
            course=ship.course,
            speed=ship.speed,
            void=f"jump called off: {blocked}",
        )
        return moved, after
    displaced = None
    if ship.jump == "unplanned":
        parsecs = dice.roll(f"t{state.turn}/jump/{ship.id}/parsecs", 6)
        direction = dice.roll(f"t{state.turn}/jump/{ship.id}/direction", 6)
        displaced = (parsecs, direction)
    after = msgspec.structs.replace(ship, x=x, y=y, status="jumped")
    moved = Moved(
        ship=ship.id,
        order=format_order(order),
        x=x,
        y=y,
        course=ship.course,
        speed=ship.speed,
        void=ignored,
        jumped=True,
        displaced=displaced,
    )
    return moved, after


def depart(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    order: Order,
    dice: DiceSource,
    thresholds: list[Threshold],
) -> tuple[BattleState, Moved, Path | None]:
    """A table battle's jump into FTL, the turn after the warm-up (001 L1027-1047): half the
    velocity on its course after every other ship has moved, then gone, unless something
    within 6" makes the D6 necessary. Return the path of a ship that stays in normal space.

    On a 1 the drive fails and the ship completes its move at its course and velocity; on 2-4
    it jumps and every ship and fighter group within 6" takes 1D6 (a D6 each) unscreened; on
    5-6 it explodes and every other ship within 6" takes its original damage points. Dice are
    keyed ``t<turn>/ftl/<ship>`` and ``t<turn>/ftl/<ship>/damage/<victim>``; thresholds are
    checked at once, as for mines and rams.
    """
    turn = state.turn
    ship = state.ship(ship_id)
    dx, dy = velocity(ship)
    x, y = round_mu(ship.x + dx / 2), round_mu(ship.y + dy / 2)
    ignored = None if order == NO_ORDER else "the ship is entering FTL (001 L1027)"
    ships_near = [
        s.id
        for s in state.ships
        if s.id != ship_id and s.status in ON_THE_TABLE and within_radius(x, y, s.x, s.y)
    ]
    groups_near = [g.id for g in state.fighters if within_radius(x, y, g.x, g.y)]
    rocks_near = [
        f"asteroid{index}"
        for index, (ax, ay) in enumerate(asteroids_now(ctx, state))
        if within_radius(x, y, ax, ay)
    ]
    near = (*ships_near, *groups_near, *rocks_near)
    face = dice.roll(f"t{turn}/ftl/{ship_id}", 6) if near else None
    outcome: Departure = "jumps" if face is None else departure(face)
    report = FtlDeparture(near=near, face=face, outcome=outcome)
    moved = Moved(
        ship=ship_id,
        order=format_order(order),
        x=x,
        y=y,
        course=ship.course,
        speed=ship.speed,
        void=ignored,
        vector=ship.vector,
    )
    if outcome == "fails":  # 001 L1037: it completes the move at its course and velocity
        end_x, end_y = round_mu(ship.x + dx), round_mu(ship.y + dy)
        left = off_table(ctx, state, end_x, end_y)
        stays = msgspec.structs.replace(
            ship, x=end_x, y=end_y, jump="none", status="left" if left else "active"
        )
        state = replace_ship(state, stays)
        moved = msgspec.structs.replace(moved, x=end_x, y=end_y, left=left, ftl=report)
        return state, moved, ((ship.x, ship.y), (end_x, end_y))
    hits: list[Hit] = []
    faces: list[tuple[str, int]] = []
    lost: list[tuple[str, int]] = []
    if outcome == "jumps":
        state = replace_ship(state, msgspec.structs.replace(ship, x=x, y=y, status="jumped"))
        for victim in (*ships_near, *groups_near):
            points = dice.roll(f"t{turn}/ftl/{ship_id}/damage/{victim}", 6)  # 001 L1041
            faces.append((victim, points))
            if victim in ships_near:
                state, hit = crash(ctx, state, victim, points, f"ftl/{ship_id}", dice, thresholds)
                hits.append(hit)
            else:
                state, killed = _fighters_lost(state, victim, points)
                lost.append((victim, killed))
    else:
        points = explosion_damage(ctx.sheets[ship_id].hull_boxes)  # 001 L1045-1047
        wreck = msgspec.structs.replace(ship, x=x, y=y, status="destroyed", jump="none")
        state = replace_ship(state, wreck)
        for victim in ships_near:
            state, hit = crash(ctx, state, victim, points, f"ftl/{ship_id}", dice, thresholds)
            hits.append(hit)
    report = msgspec.structs.replace(
        report, faces=tuple(faces), hits=tuple(hits), fighters=tuple(lost)
    )
    return state, msgspec.structs.replace(moved, jumped=outcome == "jumps", ftl=report), None


def _fighters_lost(state: BattleState, group_id: str, points: int) -> tuple[BattleState, int]:
    """Take ``points`` fighters from a group, one a point; a group with none left is gone."""
    group = next(g for g in state.fighters if g.id == group_id)
    killed = min(points, group.fighters)
    groups = tuple(
        msgspec.structs.replace(g, fighters=g.fighters - killed) if g.id == group_id else g
        for g in state.fighters
    )
    return msgspec.structs.replace(
        state, fighters=tuple(g for g in groups if g.fighters > 0)
    ), killed


def _initiative(ctx: BattleContext, state: BattleState, dice: DiceSource) -> str | None:
    """Return the side that fires first: most ships in play, else a D6 each, ties re-rolled
    (001 L262; 000 L1053-1472 phase 2)."""
    counts = {
        side: sum(1 for s in state.ships if s.side == side and s.status == "active")
        for side in ctx.setup.sides
    }
    present = [side for side in ctx.setup.sides if counts[side]]
    if len(present) < len(ctx.setup.sides):
        return present[0] if present else None
    first, second = ctx.setup.sides
    if ctx.rules.initiative == "most_ships" and counts[first] != counts[second]:
        return first if counts[first] > counts[second] else second
    theatre = ctx.setup.theatre
    mods = dict(theatre.initiative_mods) if theatre else {}
    for attempt in range(MAX_INITIATIVE_ROLLS):
        # A campaign side's senior captain or admiral adds or takes one (004 L329-343).
        a = dice.roll(f"t{state.turn}/initiative/{first}/{attempt}", 6) + mods.get(first, 0)
        b = dice.roll(f"t{state.turn}/initiative/{second}/{attempt}", 6) + mods.get(second, 0)
        if a != b:
            return first if a > b else second
    return first


def launchable_bays(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the bays whose group is aboard and may launch: working, with fighters, re-armed
    (000 8.16), in record-sheet order."""
    return [bay for bay in _bays_aboard(ctx, state, ship) if rearmed(state, ship, bay)]


def _bays_aboard(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the working bays with their group aboard, ready or re-arming, in record-sheet
    order."""
    flying = {g.id for g in state.fighters}
    return [
        spec.id
        for spec, sys_state in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if spec.bay_capacity
        and spec.fighters
        and sys_state.status == "ok"
        and (sys_state.fighters or 0) > 0
        and group_id(ship.id, spec.id) not in flying
    ]


def rearmed(state: BattleState, ship: ShipInPlay, bay: str) -> bool:
    """Whether the group in this bay has re-armed and may launch this turn: it never landed
    under the re-arming rule, or its relaunch turn has come (000 8.16, L10104-10121)."""
    ready = dict(ship.rearming).get(bay)
    return ready is None or (ready != NEVER_RELAUNCH and ready <= state.turn)


def _rearming_text(ship: ShipInPlay, bay: str) -> str:
    """Say when a re-arming bay's group may launch again."""
    ready = dict(ship.rearming)[bay]
    if ready == NEVER_RELAUNCH:
        return f"{bay} may not relaunch this battle (000 L10110-10114)"
    return f"{bay} is re-arming until turn {ready} (000 L10114-10121)"


def bay_launch_problem(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, groups: int
) -> str | None:
    """Return why a ship may not launch this many groups, or ``None``."""
    if not launchable_bays(ctx, state, ship):
        aboard = _bays_aboard(ctx, state, ship)
        if aboard:
            return "no fighter group ready to launch: " + "; ".join(
                _rearming_text(ship, bay) for bay in aboard
            )
        return "no fighter group aboard to launch (001 L753-759)"
    limit = launch_limit(ctx.sheets[ship.id], ctx.rules.carrier_bays)
    if groups > limit:
        return f"launches at most {limit} group{'s' if limit > 1 else ''} a turn (001 L759)"
    return None


def scramble_problem(ctx: BattleContext, ship: ShipInPlay, order: Order) -> str | None:
    """Return why a ship may not stand ready to scramble fighters this turn, or ``None``."""
    if not ctx.rules.fighter_scramble:
        return "scrambling fighters is not in these rules (000 8.3: rule fighter_scramble)"
    if not bays(ctx.sheets[ship.id]):
        return "no fighter bays to scramble from (000 L8574-8580)"
    if order.turn or order.accel or order.pivot is not None or order.vector:
        return "a ship may not scramble fighters if it applied thrust (000 L8647-8649)"
    return None


def launch_groups(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, groups: int
) -> tuple[ShipInPlay, list[FighterGroup]]:
    """Launch groups from the first bays with fighters, at the halfway point of the carrier's
    move (001 L757): the bays empty, the groups take to the table."""
    dx, dy = velocity(ship)  # a launch holds course and speed: the move is the drift
    x = round_mu(ship.x + dx / 2)
    y = round_mu(ship.y + dy / 2)
    launched: list[FighterGroup] = []
    for bay in launchable_bays(ctx, state, ship)[:groups]:
        ship, group = take_off(ctx, ship, bay, x, y)
        launched.append(group)
    return ship, launched


def take_off(
    ctx: BattleContext, ship: ShipInPlay, bay: str, x: float, y: float
) -> tuple[ShipInPlay, FighterGroup]:
    """Take a bay's group off the ship at (x, y): the bay empties, the group flies with its
    type's endurance (long range 9, light 4; 000 L9557-9563, L9923-9927)."""
    aboard = next(s.fighters or 0 for s in ship.record.systems if s.id == bay)
    kind = group_type(ctx, ship.id, bay)
    endurance = ctx.rules.fighter_endurance
    if endurance is not None:
        endurance = kind.endurance or endurance
    group = FighterGroup(
        side=ship.side,
        carrier=ship.id,
        bay=bay,
        x=x,
        y=y,
        fighters=aboard,
        endurance=endurance,
        # One-shot weapons are rearmed on every launch (000 L9643-9647).
        torpedoes=kind.torpedoes,
        mkps=kind.mkps,
        salvo=kind.salvo,
    )
    systems = tuple(
        msgspec.structs.replace(s, fighters=0) if s.id == bay else s for s in ship.record.systems
    )
    record = msgspec.structs.replace(ship.record, systems=systems)
    rearming = tuple(entry for entry in ship.rearming if entry[0] != bay)
    return msgspec.structs.replace(ship, record=record, rearming=rearming), group


def sides_to_fly(ctx: BattleContext, state: BattleState) -> tuple[str, ...]:
    """Return the sides that still have flight orders to write this turn."""
    if state.phase != "flight":
        return ()
    done = {w.side for w in state.written}
    present = {g.side for g in state.fighters}
    return tuple(side for side in ctx.setup.sides if side in present and side not in done)


def flight_targets(ctx: BattleContext, state: BattleState, group: FighterGroup) -> FlightTargets:
    """Return what a group may be ordered at: enemy ships to attack, enemy groups to
    dogfight, enemy salvos in flight to intercept (not by attack or torpedo fighters, 000
    L9309-9312), friendly ships to cover."""
    enemy_ships = tuple(s.id for s in state.ships if enemy_in_sight(ctx, group.side, s))
    friends = tuple(s.id for s in state.ships if s.side == group.side and targetable(ctx, s))
    enemy_groups = tuple(g.id for g in state.fighters if g.side != group.side)
    salvos = tuple(
        s.id
        for s in state.salvos
        if s.side != group.side and group_type(ctx, group.carrier, group.bay).intercepts
    )
    return FlightTargets(attack=enemy_ships, dogfight=enemy_groups, cover=friends, intercept=salvos)


class FlightTargets(NamedTuple):
    """The targets open to one fighter group's flight order."""

    attack: tuple[str, ...]
    dogfight: tuple[str, ...]
    cover: tuple[str, ...]
    intercept: tuple[str, ...] = ()


def group_type(ctx: BattleContext, carrier: str, bay: str) -> FighterType:
    """Return the fighter type a carrier's bay holds (000 8.15): its ``SystemSpec.fighters``,
    standard for FT2 bays and types the engine does not model (see docs/rulings.md)."""
    spec = next(s for s in ctx.sheets[carrier].systems if s.id == bay)
    return fighter_type(spec.fighters)


def group_reach(ctx: BattleContext, group: FighterGroup) -> float:
    """Return how far a group flies in a turn: the rules' 12" or 24 MU, fast fighters 36 MU
    (000 L9525-9527)."""
    return float(group_type(ctx, group.carrier, group.bay).move or ctx.rules.fighter_move)


def _group(state: BattleState, group: str) -> FighterGroup:
    for g in state.fighters:
        if g.id == group:
            return g
    raise KeyError(group)


def write_flight(
    ctx: BattleContext, state: BattleState, side: str, orders: Mapping[str, FlightOrder]
) -> FlightWritten:
    """Record one side's flight orders for its groups in flight; groups left out hold.

    Raises:
        IllegalActionError: not the flight step, the side has written already, or an order
            is for a group that is not this side's or at a target it may not take.
    """
    where = f"flight {format_flight(orders)!r} for {side} on turn {state.turn}"
    if state.phase != "flight":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    if side not in sides_to_fly(ctx, state):
        raise IllegalActionError(f"{where}: {side} has no flight orders to write now")
    for group_name, order in orders.items():
        try:
            group = _group(state, group_name)
        except KeyError:
            raise IllegalActionError(f"{where}: there is no group {group_name!r}") from None
        if group.side != side:
            raise IllegalActionError(f"{where}: {group_name!r} is not {side}'s group")
        targets = flight_targets(ctx, state, group)
        allowed = {
            "attack": targets.attack,
            "dogfight": targets.dogfight,
            "intercept": targets.intercept,
            "cover": targets.cover,
        }.get(order.kind)
        if allowed is not None and order.target not in allowed:
            raise IllegalActionError(f"{where}: {group_name} cannot {order.kind} {order.target!r}")
        if order.secondary and not ctx.rules.fighter_secondary_move:
            raise IllegalActionError(
                f"{where}: {group_name} may make no secondary move under these rules (001 L763)"
            )
    return FlightWritten(turn=state.turn, side=side, orders=format_flight(orders))


def apply_flight(ctx: BattleContext, state: BattleState, event: FlightWritten) -> BattleState:
    written = (*state.written, SideOrders(event.side, event.orders))
    state = msgspec.structs.replace(state, written=written)
    if not sides_to_fly(ctx, state):
        state = msgspec.structs.replace(state, phase="fighters")
    return state


def _towards(x: float, y: float, tx: float, ty: float, reach: float) -> tuple[float, float, bool]:
    """Fly from (x, y) towards (tx, ty) up to ``reach``; return where and whether it got there."""
    distance = range_between(x, y, tx, ty)
    if distance <= reach:
        return tx, ty, True
    return (
        round_mu(x + (tx - x) * reach / distance),
        round_mu(y + (ty - y) * reach / distance),
        False,
    )


MU_GRAIN = 10.0**-MU_DECIMALS
"""The table's grain: a group that closes to a range stops on the nearest 0.001 MU, so a range
check after the move allows this much."""


def _close_on(
    x: float, y: float, tx: float, ty: float, reach: float, stand_off: float
) -> tuple[float, float]:
    """Fly from (x, y) towards (tx, ty) up to ``reach``, stopping ``stand_off`` short of it;
    a group already that close stays put."""
    if stand_off <= 0:
        return _towards(x, y, tx, ty, reach)[:2]
    distance = range_between(x, y, tx, ty)
    if distance <= stand_off:
        return x, y
    scale = (distance - stand_off) / distance
    sx, sy = round_mu(x + (tx - x) * scale), round_mu(y + (ty - y) * scale)
    return _towards(x, y, sx, sy, reach)[:2]


def _flown(
    start: tuple[float, float],
    aim: tuple[float, float],
    reach: float,
    stand_off: float,
    *,
    secondary: bool,
    blind: tuple[float, float] | None = None,
) -> tuple[float, float, bool]:
    """Fly a group from ``start`` at ``aim`` by its move (``reach``), stopping ``stand_off``
    short; with a ``secondary`` move, up to 12 MU further (000 L8760-8770), or, for a robot,
    12 MU towards ``blind`` first (000 L10070-10078). Return where it ends and whether it made
    the secondary move: flew beyond its move, or (a robot) flew its blind leg at all.

    >>> _flown((0.0, 0.0), (0.0, 30.0), 24, 0, secondary=True)
    (0.0, 30.0, True)
    >>> _flown((0.0, 0.0), (0.0, 20.0), 24, 0, secondary=True)
    (0.0, 20.0, False)
    >>> _flown((0.0, 0.0), (0.0, 40.0), 24, 0, secondary=True, blind=(0.0, -20.0))
    (0.0, 12.0, True)
    """
    x, y = start
    if not secondary:
        return (*_close_on(x, y, *aim, reach, stand_off), False)
    if blind is not None:
        bx, by = _close_on(x, y, *blind, SECONDARY_MOVE_MU, stand_off)
        ex, ey = _close_on(bx, by, *aim, reach, stand_off)
        return ex, ey, (bx, by) != (x, y)
    ex, ey = _close_on(x, y, *aim, reach + SECONDARY_MOVE_MU, stand_off)
    return ex, ey, range_between(x, y, ex, ey) > reach + MU_GRAIN


def _spend(group: FighterGroup, cost: int = 1) -> FighterGroup:
    """Spend combat endurance: 1 a combat, 2 to fire a graser or plasma cannon (000 L9714-9716,
    L9754-9756); a group with less left spends what it has."""
    if group.endurance is None:
        return group
    return msgspec.structs.replace(group, endurance=max(group.endurance - cost, 0))


def resolve_fighters(  # noqa: PLR0915 - one rules step, kept in the rulebook's order
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, FightersResolved]:
    """Resolve the fighter step: groups fly by their orders, dogfights, point defence, then
    attack runs with damage and threshold checks at once (000 L1053-1472 phases 4-10; see
    docs/rulings.md for FT2's timing)."""
    turn = state.turn
    orders: dict[str, FlightOrder] = {}
    for side_orders in state.written:
        orders.update(parse_flight(side_orders.orders))
    groups = {g.id: g for g in state.fighters}
    kinds = {g.id: group_type(ctx, g.carrier, g.bay) for g in state.fighters}
    reaches = {g.id: group_reach(ctx, g) for g in state.fighters}
    start = dict(groups)
    engaged: dict[str, str] = {}  # group -> the group it dogfights
    pairs: list[tuple[str, str]] = []  # (the group that made contact, the group it caught)
    attacking: dict[str, str] = {}  # group -> the ship it attacks
    launching: dict[str, str] = {}  # missile fighter group -> the ship it launches its salvo at
    intercepting: dict[str, str] = {}  # group -> the enemy salvo it intercepts
    recovered: set[str] = set()
    landed_on: set[str] = set()
    moves: list[GroupMoved] = []

    def spent(group: FighterGroup) -> bool:
        return group.endurance is not None and group.endurance <= 0

    before = {ship_id: (x, y) for ship_id, x, y in state.before}

    def fly(
        group: FighterGroup, order: FlightOrder, aim: tuple[float, float], stand_off: float = 0
    ) -> tuple[FighterGroup, bool]:
        """Fly a group at its objective, its secondary move too if ordered and allowed; a
        robot's comes first, towards where a ship objective stood before the ships moved."""
        name = group.id
        secondary = order.secondary and not spent(group)
        blind = None
        if secondary and kinds[name].robot:
            blind = before.get(order.target or group.carrier, aim)  # groups, salvos stay
        x, y, made = _flown(
            (group.x, group.y), aim, reaches[name], stand_off, secondary=secondary, blind=blind
        )
        group = msgspec.structs.replace(group, x=x, y=y)
        return (_spend(group) if made else group), made  # 1 CEF (000 L8770-8774)

    # Dogfights first: contact is measured to where the other group starts (see rulings).
    for name in sorted(groups):
        order = orders.get(name, HOLD)
        group = groups[name]
        if order.kind != "dogfight" or name in engaged:
            continue
        assert order.target is not None
        other = start[order.target]
        void = None
        moved, made = fly(group, order, (other.x, other.y))
        if spent(moved):
            void = "no combat endurance left (000 L8482-8484)"
        elif order.target in engaged:
            void = f"{order.target} is already in a dogfight"
        elif (moved.x, moved.y) != (other.x, other.y):
            void = f"{order.target} is out of reach"
        if void is None:
            engaged[name], engaged[order.target] = order.target, name
            pairs.append((name, order.target))
        groups[name] = moved
        moves.append(
            GroupMoved(
                group=name,
                order=format_flight_order(order),
                x=moved.x,
                y=moved.y,
                void=void,
                secondary=made,
            )
        )
    for name in sorted(groups):
        group = groups[name]
        order = orders.get(name, HOLD)
        if order.kind == "dogfight":
            continue
        text = format_flight_order(order)
        if name in engaged:
            moves.append(
                GroupMoved(
                    group=name,
                    order=text,
                    x=group.x,
                    y=group.y,
                    void=f"caught in a dogfight by {engaged[name]} (001 L812)",
                )
            )
            continue
        void = None
        made = False
        landed = False
        if order.kind in ("attack", "cover"):
            assert order.target is not None
            target = state.ship(order.target)
            # A missile group with its salvo aboard closes only to launch range (see rulings).
            stand_off = MISSILE_FIGHTER_RANGE_MU if order.kind == "attack" and group.salvo else 0
            group, made = fly(group, order, (target.x, target.y), stand_off)
            distance = range_between(group.x, group.y, target.x, target.y)
            if order.kind == "attack":
                contact = (group.x, group.y) == (target.x, target.y)
                if spent(group):
                    void = "no combat endurance left (000 L8482-8484)"
                elif kinds[name].shuttles and not contact:
                    # Assault shuttles must end in contact with the ship (000 L10004-10010).
                    void = f"{order.target} is out of reach (shuttles must reach its position)"
                elif group.salvo and distance <= MISSILE_FIGHTER_RANGE_MU + MU_GRAIN:
                    launching[name] = order.target
                elif group.salvo or distance > FIGHTER_RANGE_MU:
                    void = f"{order.target} is out of reach"
                else:
                    attacking[name] = order.target
        elif order.kind == "intercept":
            # Move up to the marker; it engages a salvo within 6 MU (000 L9297-9307), the
            # group facing it (see docs/rulings.md).
            assert order.target is not None
            salvo = next(m for m in state.salvos if m.id == order.target)
            group, made = fly(group, order, (salvo.x, salvo.y))
            if spent(group):
                void = "no combat endurance left (000 L9311-9315)"
            elif range_between(group.x, group.y, salvo.x, salvo.y) > FIGHTER_RANGE_MU:
                void = f"{order.target} is out of reach"
            else:
                intercepting[name] = order.target
        elif order.kind == "recover":
            carrier = state.ship(group.carrier)
            group, made = fly(group, order, (carrier.x, carrier.y))
            met = (group.x, group.y) == (carrier.x, carrier.y)
            bay_ok = any(s.id == group.bay and s.status == "ok" for s in carrier.record.systems)
            if carrier.status != "active":
                void = "its carrier is not in play"
            elif not bay_ok:
                void = "its bay is knocked out (001 L532-534)"
            elif not met:
                void = "the carrier is out of reach"
            elif carrier.id not in state.held:
                void = "the carrier changed course or speed (001 L761)"
            elif carrier.id in landed_on:
                void = "the carrier has recovered a group this turn (001 L761)"
            else:
                landed = True
                landed_on.add(carrier.id)
                recovered.add(name)
        groups[name] = group
        moves.append(
            GroupMoved(
                group=name,
                order=text,
                x=group.x,
                y=group.y,
                void=void,
                recovered=landed,
                secondary=made,
            )
        )

    # Carriers standing ready to scramble roll when enemy groups have moved in to attack them
    # (000 8.3, L8572-8685): groups in time catch an attacker before it attacks; a group
    # launched late fights one after the attack runs.
    scrambles: list[Scramble] = []
    late: list[str] = []
    for carrier_id in sorted(set(attacking.values())):
        carrier = state.ship(carrier_id)
        if not carrier.scramble or carrier.status != "active":
            continue
        carrier, scramble, launched = _scramble(ctx, state, dice, carrier)
        if scramble is None:
            continue
        scrambles.append(scramble)
        state = msgspec.structs.replace(
            replace_ship(state, carrier), fighters=state.fighters + tuple(launched)
        )
        for group in launched:
            groups[group.id] = group
            kinds[group.id] = group_type(ctx, group.carrier, group.bay)
            if scramble.late:
                late.append(group.id)
                continue
            raiders = [g for g in attacking if attacking[g] == carrier_id and g not in engaged]
            if not raiders:
                continue
            # It catches the attacker with most fighters (see docs/rulings.md).
            prey = min(raiders, key=lambda g: (-groups[g].fighters, g))
            del attacking[prey]
            engaged[group.id], engaged[prey] = prey, group.id
            pairs.append((group.id, prey))
            groups[group.id] = msgspec.structs.replace(group, x=groups[prey].x, y=groups[prey].y)
            index = next(i for i, m in enumerate(moves) if m.group == prey)
            void = f"caught by {group.id}, scrambled from {carrier_id} (000 L8653-8659)"
            moves[index] = msgspec.structs.replace(moves[index], void=void)

    # Dogfight rounds, simultaneous (001 L810, L818). Each die takes the shooter's type's
    # modifier against fighters (000 L9593-9597, L9625-9627) and -1 at heavy fighters
    # (000 L9489-9491).
    dogfights = [
        _dogfight(ctx, dice, turn, groups, kinds, name, partner) for name, partner in pairs
    ]
    reroll = ctx.rules.fighter_reroll

    # Point defence: each attacked ship's own PD, then area cover from friends within 6.
    defence: list[DefenceFire] = []
    used: set[tuple[str, str]] = set()
    attacked = [s for s in state.ships if s.id in attacking.values()]

    def allocate(ship: ShipInPlay, systems: list[str], victim: ShipInPlay) -> None:
        raiders = sorted(g for g, t in attacking.items() if t == victim.id)
        planned: dict[str, int] = dict.fromkeys(raiders, 0)
        plan: list[tuple[str, str]] = []
        for system in systems:
            if (ship.id, system) in used:
                continue
            alive = [g for g in raiders if groups[g].fighters > 0]
            if not alive:
                return
            # Announce every target before any die (000 L9071-9073): spread the systems so
            # each group is met by dice in proportion to its fighters.
            pick = max(alive, key=lambda g: (groups[g].fighters - 0.67 * planned[g], g))
            planned[pick] += 1
            plan.append((system, pick))
            used.add((ship.id, system))
        for system, pick in plan:
            # Point defence at heavy fighters is at -1 (000 L9489-9491).
            drm = kinds[pick].hit_drm
            roll = roll_kills(dice, f"t{turn}/pd/{ship.id}/{system}", 1, reroll=reroll, drm=drm)
            defence.append(DefenceFire(ship=ship.id, system=system, group=pick, roll=roll))
            g = groups[pick]
            groups[pick] = msgspec.structs.replace(g, fighters=max(g.fighters - roll.kills, 0))

    for shooter, guns, victim in area_defenders(ctx, state, attacked):
        allocate(shooter, guns, victim)

    # Attack runs: one die per fighter, beam damage with screens (001 L779; 000 L9160-9166),
    # each die at the type's modifier against ships (000 L9593-9595, L9619-9625), or the
    # type's own weapon (000 8.15, :func:`_attack_run`).
    attacks: list[FighterAttack] = []
    thresholds: list[Threshold] = []
    boarded: set[str] = set()  # assault shuttle groups that made their one landing run
    for name in sorted(attacking):
        group = groups[name]
        target = state.ship(attacking[name])
        if group.fighters <= 0 or not targetable(ctx, target):
            continue
        if kinds[name].shuttles:
            # The survivors of point defence land their boarding parties, and the one-use
            # shuttles are gone (000 L9997, L10016-10032).
            attack = _landing(dice, turn, group, target)
            attacks.append(attack)
            state = board(state, target.id, group.side, parties=attack.landed)
            boarded.add(name)
            continue
        record, attack, group = _attack_run(ctx, dice, turn, group, kinds[name], target)
        hit = attack.hit
        status: ShipStatus = "destroyed" if hit.destroyed else target.status
        if not hit.destroyed:
            # Fighter damage is checked on the spot (001 L264; 000 L1053-1472 phase 10).
            for row in hit.rows:
                record, check = check_threshold(
                    ctx,
                    target.id,
                    record,
                    dice,
                    f"t{turn}/threshold/{target.id}/fighters/{name}/row{row}",
                    row,
                )
                thresholds.append(check)
                status = colours_struck(status, target.id, thresholds)
        attacks.append(attack)
        # A graser or plasma run costs 2 endurance (000 L9714-9716, L9754-9756), others 1.
        groups[name] = _spend(group, kinds[name].ship_cef)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))

    # A group scrambled too late fights an attacker of its carrier once the attack runs are
    # over, though the attacker has fired (000 L8659-8671): one round, as ever.
    for name in late:
        carrier_id = groups[name].carrier
        raiders = [
            g
            for g in attacking
            if attacking[g] == carrier_id
            and groups[g].fighters > 0
            and g not in engaged
            and g not in boarded
        ]
        if not raiders:
            continue
        prey = min(raiders, key=lambda g: (-groups[g].fighters, g))
        engaged[name], engaged[prey] = prey, name
        groups[name] = msgspec.structs.replace(groups[name], x=groups[prey].x, y=groups[prey].y)
        dogfights.append(_dogfight(ctx, dice, turn, groups, kinds, name, prey, late=True))

    # Missile fighters launch their salvos, for 1 endurance (000 L9821-9833). The rules launch
    # in the next turn's phase 3, from where the group and the ships now stand; the salvo
    # homes after the next move, as a ship's (see docs/rulings.md).
    launches: list[SalvoLaunch] = []
    for name in sorted(launching):
        group = groups[name]
        target = state.ship(launching[name])
        aim = _fighter_salvo_aim(group, target)
        void = None
        if not targetable(ctx, target):
            void = f"{target.id} was destroyed before the launch"
        elif line_blocked((group.x, group.y), aim, asteroids_now(ctx, state)):
            void = "an asteroid lies across the line to the aim point (000 L5757-5759)"
        if void is not None:
            index = next(i for i, m in enumerate(moves) if m.group == name)
            moves[index] = msgspec.structs.replace(moves[index], void=void)
            continue
        full = ctx.sheets[group.carrier].system(group.bay).bay_capacity or group.fighters
        salvo = Salvo(
            id=salvo_id(group.carrier, group.bay, turn),
            side=group.side,
            x=aim[0],
            y=aim[1],
            launched=turn,
            lost=max(full - group.fighters, 0),  # 000 L9841-9849
        )
        state = msgspec.structs.replace(state, salvos=(*state.salvos, salvo))
        groups[name] = _spend(msgspec.structs.replace(group, salvo=False))
        launches.append(
            SalvoLaunch(
                group=name,
                target=target.id,
                salvo=salvo.id,
                x=salvo.x,
                y=salvo.y,
                lost=salvo.lost,
            )
        )

    # Groups intercept the salvos they reached, once the salvos have homed (000 L1053-1472
    # phases 7-8, L9295-9315): the kills come off the salvo with the point defence's.
    interceptions: list[Interception] = []
    intercepted: dict[str, int] = {}
    homes = salvo_targets(ctx, state)
    for name in sorted(intercepting):
        marker = intercepting[name]
        if homes.get(marker) is None:
            index = next(i for i, m in enumerate(moves) if m.group == name)
            void = f"{marker} found no ship to home on and was wasted (000 L5733-5736)"
            moves[index] = msgspec.structs.replace(moves[index], void=void)
            continue
        group, interception = _intercept(dice, turn, groups[name], kinds[name], marker)
        groups[name] = group
        interceptions.append(interception)
        intercepted[marker] = intercepted.get(marker, 0) + interception.roll.kills

    # Recovered groups land in their bays, and under the re-arming rule roll for when they
    # may launch again (000 8.16, L10102-10121); wiped-out groups leave the table.
    rearms: list[Rearm] = []
    for name in sorted(recovered):
        group = groups[name]
        carrier = state.ship(group.carrier)
        systems = tuple(
            msgspec.structs.replace(s, fighters=(s.fighters or 0) + group.fighters)
            if s.id == group.bay
            else s
            for s in carrier.record.systems
        )
        record = msgspec.structs.replace(carrier.record, systems=systems)
        rearming = carrier.rearming
        if ctx.rules.fighter_rearming:
            face = dice.roll(f"t{turn}/rearm/{name}", 6)
            ready = relaunch_turn(face, turn)
            rearming = (*(e for e in rearming if e[0] != group.bay), (group.bay, ready))
            rearms.append(
                Rearm(group=name, face=face, ready=None if ready == NEVER_RELAUNCH else ready)
            )
        carrier = msgspec.structs.replace(carrier, record=record, rearming=rearming)
        state = replace_ship(state, carrier)
    lost = tuple(g.id for g in state.fighters if groups[g.id].fighters <= 0)
    flying = tuple(
        groups[g.id]
        for g in state.fighters
        if groups[g.id].fighters > 0 and g.id not in recovered and g.id not in boarded
    )
    state = msgspec.structs.replace(state, fighters=flying, written=(), before=())
    state, salvo_defence, salvos = salvo_attacks(ctx, state, dice, used, thresholds, intercepted)
    nova: list[NovaHit] = []
    state = advance_novas(ctx, state, dice, nova, thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "fighters")
    state = to_fire_phase(ctx, state, state.first)
    return state, FightersResolved(
        turn=turn,
        moves=tuple(moves),
        dogfights=tuple(dogfights),
        defence=tuple(defence),
        attacks=tuple(attacks),
        thresholds=tuple(thresholds),
        lost=lost,
        launches=tuple(launches),
        rearms=tuple(rearms),
        interceptions=tuple(interceptions),
        scrambles=tuple(scrambles),
        nova=tuple(nova),
        salvo_defence=tuple(salvo_defence),
        salvos=tuple(salvos),
    )


def _dogfight(
    ctx: BattleContext,
    dice: DiceSource,
    turn: int,
    groups: dict[str, FighterGroup],
    kinds: Mapping[str, FighterType],
    name: str,
    partner: str,
    *,
    late: bool = False,
) -> Dogfight:
    """Roll one dogfight round between the group that made contact and the group it caught,
    simultaneous (001 L810, L818), and take off the losses and the endurance in ``groups``.
    A ``late`` round follows the caught group's attack run this turn, whose endurance already
    paid for its combat (000 L8659-8671, L9319-9323)."""
    a, b = groups[name], groups[partner]
    reroll = ctx.rules.fighter_reroll
    a_drm = kinds[name].fighter_drm + kinds[partner].hit_drm
    b_drm = kinds[partner].fighter_drm + kinds[name].hit_drm
    a_roll = roll_kills(dice, f"t{turn}/dogfight/{name}", a.fighters, reroll=reroll, drm=a_drm)
    # A group caught with no endurance left kills only on 6s (000 L9346-9350).
    exhausted = b.endurance is not None and b.endurance <= 0
    b_roll = roll_kills(
        dice,
        f"t{turn}/dogfight/{partner}",
        b.fighters,
        reroll=reroll,
        drm=b_drm,
        exhausted=exhausted,
    )
    # A plasma fighter's cannon costs 2 endurance at fighters too (000 L9746-9756).
    groups[name] = _spend(
        msgspec.structs.replace(a, fighters=max(a.fighters - b_roll.kills, 0)),
        kinds[name].fighter_cef,
    )
    caught = msgspec.structs.replace(b, fighters=max(b.fighters - a_roll.kills, 0))
    groups[partner] = caught if late else _spend(caught, kinds[partner].fighter_cef)
    return Dogfight(
        attacker=name,
        defender=partner,
        attacker_roll=a_roll,
        defender_roll=b_roll,
        exhausted=exhausted,
        late=late,
    )


def scramble_bays(ctx: BattleContext, state: BattleState, ship: ShipInPlay) -> list[str]:
    """Return the bays a ship could scramble from, in the order they would go: those whose
    group is ready, then those re-arming, in record-sheet order; never a group whose re-arming
    die showed a 1 (000 L8675-8685, L10110-10114)."""
    ready = launchable_bays(ctx, state, ship)
    rearming = [
        bay
        for bay in _bays_aboard(ctx, state, ship)
        if bay not in ready and dict(ship.rearming).get(bay) != NEVER_RELAUNCH
    ]
    return ready + rearming


def _scramble(
    ctx: BattleContext, state: BattleState, dice: DiceSource, carrier: ShipInPlay
) -> tuple[ShipInPlay, Scramble | None, list[FighterGroup]]:
    """Roll a carrier's scramble at the groups attacking it (000 L8595-8649): 1 a mishap, its
    first bay that could launch damaged with its fighters; 2-3 nothing; 4 one group, late; 5
    one in time; 6 two in time if it launches two a turn. Groups ready launch first, then
    groups re-arming, with half their endurance and no one-shot weapons (L8675-8685); a group
    that may not relaunch this battle stays aboard. No group aboard: no roll."""
    candidates = scramble_bays(ctx, state, carrier)
    if not candidates:
        return carrier, None, []
    face = dice.roll(f"t{state.turn}/scramble/{carrier.id}", 6)
    if face <= SCRAMBLE_MISHAP:
        record = with_system_status(carrier.record, candidates[0], "damaged")
        carrier = msgspec.structs.replace(carrier, record=record)
        return carrier, Scramble(ship=carrier.id, face=face, mishap=candidates[0]), []
    count = {4: 1, 5: 1, 6: launch_limit(ctx.sheets[carrier.id], ctx.rules.carrier_bays)}
    launched: list[FighterGroup] = []
    for bay in candidates[: count.get(face, 0)]:
        rearming = not rearmed(state, carrier, bay)
        carrier, group = take_off(ctx, carrier, bay, carrier.x, carrier.y)
        if rearming:
            half = None if group.endurance is None else group.endurance // 2
            group = msgspec.structs.replace(
                group, endurance=half, torpedoes=False, mkps=False, salvo=False
            )
        launched.append(group)
    scramble = Scramble(
        ship=carrier.id,
        face=face,
        groups=tuple(g.id for g in launched),
        late=face == SCRAMBLE_LATE,
    )
    return carrier, scramble, launched


def _attack_run(
    ctx: BattleContext,
    dice: DiceSource,
    turn: int,
    group: FighterGroup,
    kind: FighterType,
    target: ShipInPlay,
) -> tuple[ShipState, FighterAttack, FighterGroup]:
    """Roll one group's attack run at a ship and cross off its damage, thresholds apart: its
    one-shot torpedoes or MKPs while aboard, else its type's ship weapon (000 8.15). Return
    the target's record, the run, and the group with any one-shot spent."""
    name = group.id
    sheet = ctx.sheets[target.id]
    screen = working_screen(ctx, target)
    reroll = ctx.rules.fighter_reroll
    faces: tuple[int, ...] = ()
    rerolls: tuple[int, ...] = ()
    damage: tuple[int, ...] = ()
    weapon: FighterWeapon = kind.ship_weapon
    if group.torpedoes:
        # Torpedo fighters fire all their pulse torpedoes at the first ship they attack, and
        # not their beams that turn (000 L9659-9680; see docs/rulings.md): one per fighter,
        # 4+ hits for its face in damage, past screens, semi-armour-piercing.
        weapon = "torpedoes"
        faces = tuple(dice.roll(f"t{turn}/torpedoes/{name}/{i}", 6) for i in range(group.fighters))
        hits = [face for face in faces if face >= TORPEDO_HITS_ON]
        record, hit = take_damage(sheet, target.record, target.id, 0, hits, 0)
        group = msgspec.structs.replace(group, torpedoes=False)
    elif group.mkps:
        # MKP fighters likewise fire all their MKPs at once, and not their secondary weapons
        # that turn (000 L9768-9794): one per fighter, 4+ one hit, 6 two, 4 points each,
        # armour piercing, past screens, no re-roll (000 L5056-5066).
        weapon = "mkps"
        faces = tuple(dice.roll(f"t{turn}/mkps/{name}/{i}", 6) for i in range(group.fighters))
        piercing = [MKP_DAMAGE] * sum(mkp_hits(face) for face in faces)
        record, hit = take_damage(sheet, target.record, target.id, 0, (), 0, piercing)
        group = msgspec.structs.replace(group, mkps=False)
    elif weapon == "graser":
        # "6 BD* hits with the Graser ... each hit inflicting 1d3 damage, semi-AP" (000
        # L9700-9706): by default each fighter rolls a Graser-1's BD* die against the screens
        # and each point it scores is a hit of 1d3 SAP; re-rolled hits ignore armour like any
        # beam re-roll (000 L3966-3994; see docs/rulings.md, and the ``graser_fighters`` rule).
        key = f"t{turn}/graser/{name}"
        if ctx.rules.graser_fighters == "one_hit_each":
            hits_first, hits_rerolled = group.fighters, 0
        else:
            outcome = roll_beams(
                dice, key, group.fighters, screen, reroll=reroll, drm=kind.ship_drm
            )
            faces, rerolls = tuple(outcome.faces), tuple(outcome.rerolls)
            hits_first, hits_rerolled = outcome.screened_damage, outcome.reroll_damage
        damage = tuple(dice.roll(f"{key}/damage/{i}", 3) for i in range(hits_first + hits_rerolled))
        first, rerolled = damage[:hits_first], sum(damage[hits_first:])
        record, hit = take_damage(sheet, target.record, target.id, 0, first, rerolled)
    else:
        # BD* beams, or plasma dice: the face less 2 and the screens in hits of 1, a natural
        # 6 re-rolling and penetrating (000 L9730-9734, L3924-3932).
        plasma = weapon == "plasma"
        outcome = roll_beams(
            dice,
            f"t{turn}/{'plasma' if plasma else 'fighters'}/{name}",
            group.fighters,
            screen,
            reroll=reroll,
            drm=kind.ship_drm,
            score=score_plasma_die if plasma else score_beam_die,
        )
        faces, rerolls = tuple(outcome.faces), tuple(outcome.rerolls)
        record, hit = take_damage(
            sheet, target.record, target.id, outcome.screened_damage, (), outcome.reroll_damage
        )
    attack = FighterAttack(
        group=name,
        target=target.id,
        faces=faces,
        rerolls=rerolls,
        hit=hit,
        torpedoes=weapon == "torpedoes",
        weapon=weapon,
        damage=damage,
    )
    return record, attack, group


def _landing(dice: DiceSource, turn: int, group: FighterGroup, target: ShipInPlay) -> FighterAttack:
    """Roll an assault shuttle group's landing on a ship (000 L10016-10026): a D6 for each
    shuttle left after point defence, each 3+ landing one boarding party from the carrier's
    crew, each failure a casualty. Screens do not stop them; the engine has no advanced screens,
    which would (see docs/rulings.md). Keys ``t<turn>/shuttles/<group>/<i>``."""
    faces = tuple(dice.roll(f"t{turn}/shuttles/{group.id}/{i}", 6) for i in range(group.fighters))
    return FighterAttack(
        group=group.id,
        target=target.id,
        faces=faces,
        hit=Hit(target=target.id, damage=0, to_armour=0, to_hull=0),
        weapon="shuttles",
        landed=sum(1 for face in faces if face >= SHUTTLE_LANDS_ON),
    )


def _fighter_salvo_aim(group: FighterGroup, target: ShipInPlay) -> tuple[float, float]:
    """Return where a missile fighter group aims its salvo: where its target will be after one
    more move on its course and speed, since the salvo homes after the ships move (000
    L5724-5729), brought in to 24 MU of the group if it lies further (000 L5707-5710)."""
    dx, dy = velocity(target)
    lead_x, lead_y = round_mu(target.x + dx), round_mu(target.y + dy)
    x, y, _ = _towards(group.x, group.y, lead_x, lead_y, STANDARD_RANGE_MU)
    return x, y


def _attack_radius(ctx: BattleContext) -> float:
    """A salvo's attack radius: 6 MU, 3 MU against vector-drive ships (000 L5724-5748); every
    ship of a battle moves one way, so the battle's movement decides."""
    return VECTOR_ATTACK_RADIUS_MU if ctx.rules.movement == "vector" else ATTACK_RADIUS_MU


def resolve_missiles(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, MissilesResolved]:
    """Resolve the salvos in flight when no fighters fly this turn, then go on to the firing."""
    thresholds: list[Threshold] = []
    state, defence, attacks = salvo_attacks(ctx, state, dice, set(), thresholds)
    state = boarder_losses(ctx, state, thresholds, 0, dice, "missiles")
    state = to_fire_phase(ctx, state, state.first)
    return state, MissilesResolved(
        turn=state.turn,
        defence=tuple(defence),
        attacks=tuple(attacks),
        thresholds=tuple(thresholds),
    )


def salvo_targets(ctx: BattleContext, state: BattleState) -> dict[str, str | None]:
    """Return the ship each salvo due this turn homes on, ``None`` if none is within its
    attack radius (000 L5724-5736)."""
    targets: dict[str, str | None] = {}
    for salvo in state.salvos:
        if not salvo.due(state.turn):
            continue
        enemies = [
            (ship.id, ship.x, ship.y, _attack_radius(ctx))
            for ship in state.ships
            if ship.side != salvo.side and targetable(ctx, ship)
        ]
        targets[salvo.id] = homing_target(salvo, enemies)
    return targets


def _intercept(
    dice: DiceSource, turn: int, group: FighterGroup, kind: FighterType, salvo: str
) -> tuple[FighterGroup, Interception]:
    """Roll a group's interception of a salvo (000 L9295-9315, L5859-5861, L5913-5917): a die
    per fighter at its type's modifier against missiles, then a D6 for each missile killed,
    each 6 losing a fighter; 1 endurance spent (000 L9319-9323)."""
    key = f"t{turn}/intercept/{group.id}"
    roll = roll_missile_kills(dice, key, group.fighters, drm=kind.fighter_drm)
    losses = tuple(dice.roll(f"{key}/loss/{i}", 6) for i in range(roll.kills))
    lost = min(sum(1 for face in losses if face >= INTERCEPT_LOSS_ON), group.fighters)
    group = _spend(msgspec.structs.replace(group, fighters=group.fighters - lost))
    return group, Interception(group=group.id, salvo=salvo, roll=roll, losses=losses, lost=lost)


def salvo_attacks(
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    used: set[tuple[str, str]],
    thresholds: list[Threshold],
    intercepted: Mapping[str, int] | None = None,
) -> tuple[BattleState, list[PointDefenceDie], list[SalvoAttack]]:
    """Home every salvo due this turn, fire point defence at it and strike (000 L5724-6040).

    Each salvo attacks the closest enemy within its radius of its marker, or is wasted. Each
    attacked ship's PDS and area systems not yet fired this turn (``used``, at fighters) are
    shared among the salvos attacking it, announced before any die; then friends' area systems
    within 6 MU, and with ADFC their PDS (000 L9083-9086). Each rolls one die: 4-5 kills one
    missile, 6 kills two and re-rolls (000 L5851-5856). Then the salvo's on-target die; each
    missile through does 1D6, semi-armour-piercing, past screens (L5943-5950), and the
    thresholds it crosses are checked at once (phase 10).
    """
    turn = state.turn
    due = [s for s in state.salvos if s.due(turn)]
    if not due:
        return state, [], []
    targets = salvo_targets(ctx, state)
    # Fighters that intercepted a salvo defend against it too (000 L5859-5861, L9295-9315).
    kills: dict[str, int] = {s.id: (intercepted or {}).get(s.id, 0) for s in due}
    defended: set[str] = {s.id for s in due if s.id in (intercepted or {})}
    defence: list[PointDefenceDie] = []

    def allocate(ship: ShipInPlay, systems: list[str], victim: ShipInPlay) -> None:
        incoming = sorted(name for name, target in targets.items() if target == victim.id)
        if not incoming:
            return
        planned: dict[str, int] = dict.fromkeys(incoming, 0)
        plan: list[tuple[str, str]] = []
        for system in systems:
            if (ship.id, system) in used:
                continue
            # Announced before any die (000 L5837-5843): spread evenly over the salvos.
            pick = min(incoming, key=lambda name: (planned[name], name))
            planned[pick] += 1
            plan.append((system, pick))
            used.add((ship.id, system))
        for system, pick in plan:
            roll = roll_kills(dice, f"t{turn}/salvo/{pick}/pd/{ship.id}/{system}", 1, reroll=True)
            defence.append(PointDefenceDie(ship=ship.id, system=system, salvo=pick, roll=roll))
            kills[pick] += roll.kills
            defended.add(pick)

    attacked = [state.ship(t) for t in sorted({t for t in targets.values() if t is not None})]
    for shooter, systems, victim in area_defenders(ctx, state, attacked):
        allocate(shooter, systems, victim)

    attacks: list[SalvoAttack] = []
    for salvo in due:
        target_id = targets[salvo.id]
        if target_id is None:
            attacks.append(SalvoAttack(salvo=salvo.id))
            continue
        target = state.ship(target_id)
        on_target = dice.roll(f"t{turn}/salvo/{salvo.id}/on", 6)
        # A missile fighters' salvo locks on with 1 fewer per fighter lost (000 L9843-9849).
        hits = hits_through(
            max(on_target - salvo.lost, 0), kills=kills[salvo.id], defended=salvo.id in defended
        )
        if not targetable(ctx, target):
            # Destroyed by an earlier salvo: the rest have nothing left to strike.
            attacks.append(
                SalvoAttack(
                    salvo=salvo.id,
                    target=target_id,
                    on_target=on_target,
                    lost=salvo.lost,
                    kills=kills[salvo.id],
                )
            )
            continue
        faces = tuple(dice.roll(f"t{turn}/salvo/{salvo.id}/damage/{i}", 6) for i in range(hits))
        sheet = ctx.sheets[target_id]
        record, hit = take_damage(sheet, target.record, target_id, 0, faces, 0)
        status: ShipStatus = "destroyed" if hit.destroyed else target.status
        if not hit.destroyed:
            # Missile damage is checked on the spot (000 L1053-1472 phase 10).
            for row in hit.rows:
                record, check = check_threshold(
                    ctx,
                    target_id,
                    record,
                    dice,
                    f"t{turn}/threshold/{target_id}/salvo/{salvo.id}/row{row}",
                    row,
                )
                thresholds.append(check)
                status = colours_struck(status, target_id, thresholds)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))
        attacks.append(
            SalvoAttack(
                salvo=salvo.id,
                target=target_id,
                on_target=on_target,
                lost=salvo.lost,
                kills=kills[salvo.id],
                hits=hits,
                faces=faces,
                hit=hit,
            )
        )
    gone = {s.id for s in due}
    state = msgspec.structs.replace(
        state, salvos=tuple(s for s in state.salvos if s.id not in gone)
    )
    return state, defence, attacks


TORPEDO = "pulse_torpedo"


TORPEDOES = frozenset(TORPEDO_BANDS_MU)
"""Pulse torpedoes: FT2's and Continuum's standard one, and Continuum's short and long range
ones (000 L4636-4658), which differ only in their to-hit bands; the overload-upgraded standard
and long range ones (000 L4669-4736) and the variable one (000 L4740-4800), which differ by
their setting this turn (:attr:`ShipInPlay.settings`)."""


NEEDLE = "needle"


NEEDLES = frozenset({NEEDLE, *NEEDLE_STRENGTH})
"""Needle beams: FT2's and FB1's one-die ``needle`` (001 L844-854; index 5.13, the campaign's
NB-1), and Continuum's class-N needles NB-2 to NB-4 (000 L4473-4610), which roll dice by band."""


SUBMUNITION = "submunition"


NOVA = "nova_cannon"


NOVA_LINE = "bow"
"""The target a nova cannon's shot names: it fires along the bow's line, at no ship (001 L906)."""


def _reach(ctx: BattleContext, kind: str, distance: float, setting: str | None = None) -> bool:
    """Return whether a weapon of this kind, a torpedo under this setting, reaches this far."""
    if is_beam(kind):
        return beam_dice(kind, distance) > 0
    if kind in TORPEDOES:
        band = torpedo_band(kind, setting)
        return torpedo_to_hit(ctx.rules.torpedo_to_hit, distance, band) is not None
    if kind == NEEDLE:
        return distance <= ctx.rules.needle_range
    if kind in NEEDLE_STRENGTH:
        return needle_dice(kind, distance) > 0
    if kind == SUBMUNITION:
        return submunition_dice(distance) > 0
    if kind == BOARDING_TORPEDO:  # the standard projectile row (000 L5118-5122)
        return torpedo_to_hit(ctx.rules.torpedo_to_hit, distance) is not None
    return False


def fire_options(
    ctx: BattleContext, state: BattleState, ship_id: str
) -> dict[str, tuple[str, ...]]:
    """Return, for each weapon that can fire now, the targets it can reach.

    A beam fires at an enemy in play inside one of its arcs, never aft (001 L404, L443), and
    within range (001 L456-462). A pulse torpedo fires through the fore arc to 24" (001
    L829-838; Continuum's projectile table to 30 MU, 20 MU short range, 45 MU long range,
    000 L20332-20433; an overloaded or variable torpedo on the row its setting gives, 000
    L4689-4703, L4752-4782), a needle beam to 9" (001 L848), a class-N needle beam while it rolls
    a die and within its ship's sensors (000 L4517-4523, L4570-4574; :func:`needle_reach`), a
    submunition pack not yet fired to 18" (001 L858-862). No weapon fires at a ship when the
    line between their centres crosses an asteroid (001 L1082-1088; 000 L17775-17812). A ship
    whose nova cannon is armed may fire that alone, along its bow's line (001 L906-911); one
    whose minesweeper is active fires nothing (001 L898). A boarding torpedo launcher fires
    while it and its magazine work and the magazine holds a torpedo, on the projectile table's
    standard row (000 L5090-5122). A captured ship may be fired on like an enemy (000
    L13122-13128).
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    options: dict[str, tuple[str, ...]] = {}
    if ship.sweeping or ship.record.out_of_control:
        # No offensive weapon while the minesweeper is active (001 L898) or out of control
        # (000 L11151-11157).
        return options
    if ship.nova:
        for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True):
            if spec.kind == NOVA and sys_state.status == "ok":
                options[spec.id] = (NOVA_LINE,)
        return options
    asteroids = asteroids_now(ctx, state)
    targets = [
        s
        for s in state.ships
        if (enemy_in_sight(ctx, ship.side, s) or prize(s))
        and not line_blocked((ship.x, ship.y), (s.x, s.y), asteroids)
    ]
    settings = dict(ship.settings)
    sight = needle_reach(ctx, ship)
    for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True):
        if spec.kind in RACKS or spec.kind in LAUNCHERS:
            continue  # a salvo flies at a point: launch_options
        if sys_state.status != "ok" or sys_state.ammo == 0:
            continue  # a fired submunition pack is crossed off (001 L858)
        if spec.kind == BOARDING_TORPEDO and not torpedo_ready(sheet, ship.record, spec.id):
            continue
        reachable: list[str] = []
        for target in targets:
            arc = arc_of(bearing(ship.x, ship.y, ship.course, target.x, target.y), ctx.rules.arcs)
            distance = range_between(ship.x, ship.y, target.x, target.y)
            setting = settings.get(spec.id)
            if spec.kind in NEEDLE_STRENGTH and distance > sight:
                continue  # its sensors cannot aim it this far (000 L4517-4523)
            if arc != AFT and arc in spec.arcs and _reach(ctx, spec.kind, distance, setting):
                reachable.append(target.id)
        if reachable:
            options[spec.id] = tuple(reachable)
    return options


def launch_options(ctx: BattleContext, state: BattleState, ship_id: str) -> tuple[str, ...]:
    """Return the salvo missile racks and launchers that can launch now, in a firing turn's
    shots as ``Shot(launcher, SALVO_AIM, "x,y")`` (see :func:`launch_problem`).

    A rack holding its salvo, or a launcher whose magazine works and holds a load (000
    L6044-6060); none while the ship may fire no offensive weapon (001 L898, L910; 000
    L11151-11157).
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    if ship.sweeping or ship.record.out_of_control or ship.nova:
        return ()
    return tuple(
        spec.id
        for spec in sheet.systems
        if (spec.kind in RACKS or spec.kind in LAUNCHERS)
        and launcher_ready(sheet, ship.record, spec.id)
    )


def fire_controls(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the working FireCons: one target each (001 L380)."""
    sheet = ctx.sheets[ship.id]
    return sum(
        1
        for spec, sys_state in zip(sheet.systems, ship.record.systems, strict=True)
        if spec.kind == "firecon" and sys_state.status == "ok"
    )


def firecons_needed(ctx: BattleContext, ship_id: str, shots: Sequence[Shot]) -> int:
    """Return the FireCons a set of shots takes: one per target for the beams, and another
    per target for the torpedoes, since a FireCon directing torpedoes directs no beams that
    turn, even at the same target (001 L829; digest 1.6).

    Class-N needles take one FireCon for each system they aim at, shared by the needles at
    that system, and the other weapons at the same ship may share it (000 L4546-4554): a
    ship's beams and class-N needles at one target need as many FireCons as the needles aim
    at systems there, and at least one.
    """
    sheet = ctx.sheets[ship_id]
    uses = {
        (shot.target, _firecon_use(sheet.system(shot.weapon).kind, shot))
        for shot in shots
        if sheet.system(shot.weapon).kind != NOVA  # it needs no FireCon (digest 4.5)
        and not _launches(sheet, shot)  # the launch phase's FireCons: launch_problem
    }
    # Beams ride on a class-N needle FireCon at the same ship (000 L4552-4554).
    aimed = {target for target, use in uses if use.startswith(_FOCUSED)}
    return len(uses) - sum(1 for target, use in uses if use == "beams" and target in aimed)


def _launches(sheet: Ship, shot: Shot) -> bool:
    """Whether a shot launches a salvo."""
    kind = sheet.system(shot.weapon).kind
    return kind in RACKS or kind in LAUNCHERS


def launch_problem(
    ctx: BattleContext, state: BattleState, ship_id: str, launcher: str, aim: str | None
) -> str | None:
    """Return why a launcher may not send a salvo at this aim point now, or ``None``.

    The aim point (``x,y``) must be within 24 MU of the ship, 36 MU for extended range, and
    inside the launcher's arcs (000 L5699-5712); never aft, as for every offensive weapon; and
    no asteroid may lie across the line to it (000 L5757-5759, L17810-17812).
    """
    point = parse_aim(aim)
    if point is None:
        return f"a salvo needs an aim point x,y, not {aim!r}"
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    reach, _er = launch_range(sheet, launcher)
    distance = range_between(ship.x, ship.y, *point)
    if distance > reach:
        return f"the aim point is {distance:.1f} MU away, beyond {reach:g} MU (000 L5707-5710)"
    arc = arc_of(bearing(ship.x, ship.y, ship.course, *point), ctx.rules.arcs)
    if distance > 0 and (arc == AFT or arc not in sheet.system(launcher).arcs):
        return f"the aim point is in the {arc} arc, outside the launcher's arcs (000 L5710-5712)"
    if line_blocked((ship.x, ship.y), point, asteroids_now(ctx, state)):
        return "an asteroid lies across the line to the aim point (000 L5757-5759)"
    return None


_FOCUSED = "class-N needles at "


def _firecon_use(kind: str, shot: Shot) -> str:
    """What a FireCon directs: beams, torpedoes, or needles at one system (001 L829, L850);
    class-N needles at one system, with the beams at that ship (000 L4546-4554)."""
    if kind in TORPEDOES:
        return "torpedoes"
    if kind == NEEDLE:
        return f"needles at {shot.aim}"
    if kind in NEEDLE_STRENGTH:
        return f"{_FOCUSED}{shot.aim}"
    return "beams"


def needle_reach(ctx: BattleContext, ship: ShipInPlay) -> float:
    """Return how far a ship's working sensors let it aim class-N needle beams: 12 MU, 24 MU
    with Enhanced Sensors, any range with Superior Sensors or two Enhanced (000 L4517-4523)."""
    working = [
        spec.kind
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if now.status == "ok"
    ]
    return needle_sight(working.count("enhanced_sensors"), working.count("superior_sensors"))


def needle_focus_problem(
    ctx: BattleContext, state: BattleState, ship_id: str, shots: Sequence[Shot]
) -> str | None:
    """Return why a ship's class-N needle shots break the sensors' focus, or ``None``.

    "Like the restrictions for FireCon these sensors may only focus the Needle Beam weapons
    on one enemy ship's system per turn" (000 L4525-4529): the class-N needles that fire
    beyond 12 MU, where they need the sensors (L4517-4523), must all aim at one system of one
    ship. Within 12 MU a ship needs no sensors beyond its basic ones, and this does not bind.
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    focus = sorted(
        {
            (shot.target, shot.aim or "")
            for shot in shots
            if sheet.system(shot.weapon).kind in NEEDLE_STRENGTH
            and range_between(ship.x, ship.y, *_position(state, shot.target)) > NEEDLE_SENSOR_MU[0]
        }
    )
    if len(focus) <= 1:
        return None
    aims = ", ".join(f"{aim} of {target}" for target, aim in focus)
    return (
        f"the sensors focus needle beams beyond {NEEDLE_SENSOR_MU[0]} MU on one enemy ship's "
        f"system a turn, not {aims} (000 L4525-4529)"
    )


def _position(state: BattleState, ship_id: str) -> tuple[float, float]:
    ship = state.ship(ship_id)
    return ship.x, ship.y


def needle_aims(ctx: BattleContext, state: BattleState, target_id: str) -> tuple[str, ...]:
    """Return what a needle beam may aim at on a ship: any working system, or the drive
    until it is disabled (001 L848-854)."""
    target = state.ship(target_id)
    sheet = ctx.sheets[target_id]
    aims = [
        spec.id
        for spec, sys_state in zip(sheet.systems, target.record.systems, strict=True)
        if sys_state.status == "ok"
    ]
    if target.record.drive != "disabled":
        aims.append(DRIVE)
    return tuple(aims)


def check_fire(ctx: BattleContext, state: BattleState, ship_id: str, shots: Sequence[Shot]) -> None:
    listed = ", ".join(f"{s.weapon}>{s.target}" for s in shots) or "no shots"
    where = f"fire {listed} by {ship_id!r} on turn {state.turn}"
    if state.phase != "fire":
        raise IllegalActionError(f"{where}: it is the {state.phase} step")
    try:
        ship = state.ship(ship_id)
    except KeyError:
        raise IllegalActionError(f"{where}: there is no such ship") from None
    if ship.side != state.to_fire:
        raise IllegalActionError(f"{where}: it is {state.to_fire}'s turn to fire")
    if ship.record.out_of_control:
        raise IllegalActionError(
            f"{where}: the ship is out of control and fires no weapon (000 L11151-11157)"
        )
    if not _may_fire(ctx, state, ship):
        raise IllegalActionError(f"{where}: the ship has fired or cannot fire this turn")
    options = fire_options(ctx, state, ship_id)
    seen: set[str] = set()
    for shot in shots:
        if shot.weapon in seen:
            raise IllegalActionError(f"{where}: {shot.weapon} fires once a turn (001 L443)")
        seen.add(shot.weapon)
        if shot.target == SALVO_AIM and shot.weapon in launch_options(ctx, state, ship_id):
            pass  # the aim point is checked below
        elif shot.target not in options.get(shot.weapon, ()):
            why = _unreachable(ctx, state, ship, shot.weapon, shot.target)
            raise IllegalActionError(f"{where}: {shot.weapon} cannot reach {shot.target} ({why})")
        needle = ctx.sheets[ship_id].system(shot.weapon).kind in NEEDLES
        if needle and ctx.rules.core_systems and shot.aim in CORE_SYSTEMS:
            raise IllegalActionError(
                f"{where}: {shot.weapon} cannot aim at the core system {shot.aim!r}: needle "
                "beams fire only at surface features (000 L11115-11121)"
            )
        if needle and shot.aim not in needle_aims(ctx, state, shot.target):
            raise IllegalActionError(
                f"{where}: {shot.weapon} must aim at a working system of {shot.target} or its "
                f"drive, not {shot.aim!r} (001 L848)"
            )
        if shot.target == SALVO_AIM:
            problem = launch_problem(ctx, state, ship_id, shot.weapon, shot.aim)
            if problem is not None:
                raise IllegalActionError(f"{where}: {shot.weapon}: {problem}")
        elif not needle and shot.aim is not None:
            raise IllegalActionError(f"{where}: only a needle beam aims at a system")
    sheet = ctx.sheets[ship_id]
    launches = [shot for shot in shots if _launches(sheet, shot)]
    aims = {shot.aim for shot in launches}
    if len(aims) > fire_controls(ctx, ship):
        raise IllegalActionError(
            f"{where}: {len(aims)} aim points and {fire_controls(ctx, ship)} working FireCons "
            "(a FireCon for each launch, 000 L5713-5715)"
        )
    _check_magazines(sheet, ship, shots, where)
    _check_firecons(ctx, state, ship, shots, where)


def _check_magazines(sheet: Ship, ship: ShipInPlay, shots: Sequence[Shot], where: str) -> None:
    """Refuse launches and boarding torpedoes that draw more loads on a magazine than it
    holds: a salvo each (000 L6051-6053), a torpedo each, hit or miss (000 L5090-5100)."""
    drawn: dict[str, int] = {}
    for fed in (feeds(sheet), torpedo_feeds(sheet)):
        for shot in shots:
            if shot.weapon in fed:
                drawn[fed[shot.weapon]] = drawn.get(fed[shot.weapon], 0) + 1
    loads = {s.id: s.ammo or 0 for s in ship.record.systems}
    for magazine, count in drawn.items():
        if count > loads[magazine]:
            raise IllegalActionError(
                f"{where}: {count} launchers draw on {magazine}, which holds {loads[magazine]}"
            )


def _check_firecons(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, shots: Sequence[Shot], where: str
) -> None:
    """Refuse shots beyond the ship's FireCons (001 L380, L829; 000 L4546-4554) or its
    sensors' needle focus (000 L4525-4529)."""
    needed = firecons_needed(ctx, ship.id, shots)
    if needed > fire_controls(ctx, ship):
        raise IllegalActionError(
            f"{where}: {needed} targets and {fire_controls(ctx, ship)} working FireCons "
            "(001 L380; torpedoes take a FireCon apart from beams, L829)"
        )
    focus = needle_focus_problem(ctx, state, ship.id, shots)
    if focus is not None:
        raise IllegalActionError(f"{where}: {focus}")


def _unreachable(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, weapon: str, target_id: str
) -> str:
    """Say why a weapon of ``ship`` may not fire at ``target_id``: an asteroid across the line
    between them, a class-N needle beyond its ship's sensors, or else the weapon, its arc or
    its range."""
    target = next((s for s in state.ships if s.id == target_id), None)
    if target is not None and line_blocked(
        (ship.x, ship.y), (target.x, target.y), asteroids_now(ctx, state)
    ):
        return "an asteroid blocks the line of fire, 001 L1088"
    kind = next((s.kind for s in ctx.sheets[ship.id].systems if s.id == weapon), None)
    if target is not None and kind in NEEDLE_STRENGTH:
        distance = range_between(ship.x, ship.y, target.x, target.y)
        sight = needle_reach(ctx, ship)
        if needle_dice(kind, distance) > 0 and distance > sight:
            need = "Enhanced" if sight < NEEDLE_SENSOR_MU[1] else "Superior or two Enhanced"
            return f"a needle beam beyond {sight:g} MU needs {need} Sensors, 000 L4517-4523"
    return "not a working weapon, out of arc or out of range"


def fire_ship(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: Sequence[Shot],
    dice: DiceSource,
) -> ShipFired:
    """Take one ship's firing turn: every shot declared first, then rolled (001 L266).

    An empty list holds fire; the ship's turn is spent either way (001 L276).

    Raises:
        IllegalActionError: not this ship's turn, or a shot is out of arc, range or FireCons.
    """
    check_fire(ctx, state, ship_id, shots)
    recording = RecordingDice(dice)
    _state, event = fire_shots(ctx, state, ship_id, tuple(shots), recording)
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def fire_shots(  # noqa: PLR0915 - novas, launches and aimed fire in declaration order
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: tuple[Shot, ...],
    dice: DiceSource,
) -> tuple[BattleState, ShipFired]:
    """Resolve a checked firing turn target by target, in declaration order (digest A11);
    a nova cannon's template first, since it fires alone (001 L910)."""
    turn = state.turn
    firer = state.ship(ship_id)
    firer_sheet = ctx.sheets[ship_id]
    rolled: list[ShotRoll] = []
    hits: list[Hit] = []
    thresholds: list[Threshold] = []
    landed: list[Landing] = []
    taken: list[str] = []  # captured ships destroyed
    novas = [s for s in shots if firer_sheet.system(s.weapon).kind == NOVA]
    launched = [s for s in shots if _launches(firer_sheet, s)]
    aimed = [s for s in shots if firer_sheet.system(s.weapon).kind != NOVA and s not in launched]
    order = list(dict.fromkeys(shot.target for shot in aimed))  # in declaration order
    tubes = dict(firer.tubes)
    burst: list[str] = []  # overloaded tubes destroyed by their own warhead
    state = replace_ship(state, _spend_rounds(firer_sheet, firer, shots))
    if shots and firer.bogey is not None:
        # A ship that fires gives itself away (see docs/rulings.md).
        state = replace_ship(state, identified(state.ship(ship_id)))
    nova: list[NovaHit] = []
    for shot in novas:
        # The round flies 6" out, then the 2" template moves 18" on (001 L913-917).
        dx, dy = heading_vector(firer.course)
        start = (firer.x + dx * NOVA_ARMING_MU, firer.y + dy * NOVA_ARMING_MU)
        blast = NovaBlast(ship=ship_id, x=start[0], y=start[1], course=firer.course, stage=0)
        state, after = _nova_pass(ctx, state, blast, dice, nova, thresholds)
        if after is not None:
            state = msgspec.structs.replace(state, novas=(*state.novas, after))
        rolled.append(ShotRoll(weapon=shot.weapon, target=NOVA_LINE, faces=()))
    for shot in launched:
        state = _launch_salvo(ctx, state, ship_id, shot)
        rolled.append(ShotRoll(weapon=shot.weapon, target=SALVO_AIM, faces=(), aim=shot.aim))
    for target_id in order:
        target = state.ship(target_id)
        sheet = ctx.sheets[target_id]
        screen = working_screen(ctx, target)
        screened = rerolled = 0
        torpedoes: list[int] = []
        piercing: list[int] = []
        boarding_hits = 0
        record = target.record
        for shot in (s for s in aimed if s.target == target_id):
            kind = firer_sheet.system(shot.weapon).kind
            distance = range_between(firer.x, firer.y, target.x, target.y)
            if kind == BOARDING_TORPEDO:
                key = f"t{turn}/fire/{ship_id}"
                rolled.append(_boarding_torpedo(ctx, dice, key, shot, distance))
                boarding_hits += len(rolled[-1].damage)
                continue
            if kind in TORPEDOES:
                key = f"t{turn}/fire/{ship_id}"
                setting = dict(firer.settings).get(shot.weapon)
                rolled.append(_torpedo(ctx, dice, key, shot, distance, kind, setting))
                warhead = torpedo_warhead(kind, setting)
                points = [face + warhead.plus for face in rolled[-1].damage]
                (piercing if warhead.ap else torpedoes).extend(points)
                if kind in TORPEDO_SETTINGS and OVERLOAD in TORPEDO_SETTINGS[kind]:
                    tubes[shot.weapon] = turn  # it may not overload next turn (000 L4681-4685)
                if rolled[-1].backfire == (1,):
                    burst.append(shot.weapon)
                continue
            if kind == NEEDLE:
                record, needled = _needle(dice, f"t{turn}/fire/{ship_id}", shot, record)
                rolled.append(needled)
                rerolled += 1 if ctx.rules.needle_hull and needled.faces[0] >= NEEDLE_GRAZE else 0
                continue
            if kind in NEEDLE_STRENGTH:
                key = f"t{turn}/fire/{ship_id}"
                record, needled = _class_needle(dice, key, kind, shot, distance, record)
                rolled.append(needled)
                # A point a die of 4+, past screens, armour first as beam damage (000
                # L4558-4560, L4574-4580; docs/rulings.md).
                screened += sum(1 for face in needled.faces if face >= NEEDLE_HIT)
                continue
            outcome = _beams(ctx, dice, f"t{turn}/fire/{ship_id}", kind, shot, distance, screen)
            rolled.append(
                ShotRoll(
                    weapon=shot.weapon,
                    target=target_id,
                    faces=tuple(outcome.faces),
                    rerolls=tuple(outcome.rerolls),
                )
            )
            screened += outcome.screened_damage
            rerolled += outcome.reroll_damage
        # A boarding torpedo's point goes on the hull past armour (000 L5122-5124), like the
        # damage of a beam's re-roll.
        rerolled += TORPEDO_HULL * boarding_hits
        record, hit = take_damage(sheet, record, target_id, screened, torpedoes, rerolled, piercing)
        hits.append(hit)
        if target.status == "captured":
            if hit.damage:  # a single point destroys a captured ship (000 L13128-13130)
                taken.append(target_id)
            status: ShipStatus = "destroyed" if hit.damage else "captured"
            state = replace_ship(
                state, msgspec.structs.replace(target, record=record, status=status)
            )
            continue
        state = apply_hit(ctx, state, target, record, hit, dice, thresholds)
        hit_ship = state.ship(target_id)
        if boarding_hits and hit_ship.status == "active" and not hit.destroyed:
            marines = TORPEDO_MARINES * boarding_hits  # two marines a hit (000 L5122-5128)
            state = board(state, target_id, firer.side, marines=marines)
            landed.append(Landing(ship=target_id, side=firer.side, marines=marines))
    state = boarder_losses(ctx, state, thresholds, 0, dice, f"fire/{ship_id}")
    fired = state.ship(ship_id)
    own = fired.record
    for weapon in burst:
        # The tube is destroyed and may not be repaired by DCPs (000 L4710-4714).
        own = with_system_status(own, weapon, "destroyed")
    state = replace_ship(
        state,
        msgspec.structs.replace(fired, record=own, fired=True, tubes=tuple(sorted(tubes.items()))),
    )
    to_fire = _next_to_fire(ctx, state, firer.side)
    if to_fire:
        state = msgspec.structs.replace(state, to_fire=to_fire, phase="fire")
    else:
        state = after_fire(ctx, state)
    event = ShipFired(
        turn=turn,
        ship=ship_id,
        shots=tuple(rolled),
        hits=tuple(hits),
        thresholds=tuple(thresholds),
        nova=tuple(nova),
        landed=tuple(landed),
        captured=tuple(taken),
    )
    return state, event


def ejected(ship: ShipInPlay, turn: int) -> tuple[tuple[str, int], ...]:
    """The tubes a ship takes into the next turn as fired this turn: those that fired, and
    those overloaded and not fired, which the crew ejects and which count as having fired
    (000 L4718-4724). Older turns no longer matter (000 L4681-4685)."""
    tubes = {weapon: when for weapon, when in ship.tubes if when == turn}
    for weapon, setting in ship.settings:
        if setting == OVERLOAD:
            tubes[weapon] = turn
    return tuple(sorted(tubes.items()))


def _nova_pass(
    ctx: BattleContext,
    state: BattleState,
    blast: NovaBlast,
    dice: DiceSource,
    nova: list[NovaHit],
    thresholds: list[Threshold],
) -> tuple[BattleState, NovaBlast | None]:
    """Move a nova template one stage on from where it lies and damage every ship it
    touches, friend or foe (001 L915-927).

    Each ship touched takes the stage's dice at face value, screens ignored (001 L923-927),
    in the order ships stand in the battle. Returns the blast as it lies for its next stage,
    or ``None`` once it has burnt out.
    """
    diameter, flight, count = NOVA_STAGES[blast.stage]
    dx, dy = heading_vector(blast.course)
    start = (blast.x, blast.y)
    end = (round_mu(blast.x + dx * flight), round_mu(blast.y + dy * flight))
    key = f"t{state.turn}/nova/{blast.ship}/s{blast.stage + 1}"
    for target in state.ships:
        if not targetable(ctx, target) or not nova_touches(
            start, end, diameter, target.x, target.y
        ):
            continue
        faces = tuple(dice.roll(f"{key}/{target.id}/{i}", 6) for i in range(count))
        record, hit = take_damage(
            ctx.sheets[target.id], target.record, target.id, sum(faces), (), 0
        )
        nova.append(NovaHit(ship=blast.ship, stage=blast.stage + 1, faces=faces, hit=hit))
        state = apply_hit(ctx, state, target, record, hit, dice, thresholds)
    if blast.stage + 1 >= len(NOVA_STAGES):
        return state, None  # burnt out after its third move (001 L921)
    after = NovaBlast(
        ship=blast.ship, x=end[0], y=end[1], course=blast.course, stage=blast.stage + 1
    )
    return state, after


def advance_novas(
    ctx: BattleContext,
    state: BattleState,
    dice: DiceSource,
    nova: list[NovaHit],
    thresholds: list[Threshold],
) -> BattleState:
    """Move every burning nova template on at the start of the firing (001 L917-921)."""
    burning: list[NovaBlast] = []
    for blast in state.novas:
        state, after = _nova_pass(ctx, state, blast, dice, nova, thresholds)
        if after is not None:
            burning.append(after)
    return msgspec.structs.replace(state, novas=tuple(burning))


def _beams(
    ctx: BattleContext,
    dice: DiceSource,
    key: str,
    kind: str,
    shot: Shot,
    distance: float,
    screen: int,
) -> BeamOutcome:
    """Roll a beam battery, or a submunition pack's beam dice past screens (001 L862-864)."""
    if kind == SUBMUNITION:
        count, screen = submunition_dice(distance), 0
    else:
        count = beam_dice(kind, distance)
    return roll_beams(dice, f"{key}/{shot.weapon}", count, screen, reroll=ctx.rules.beam_reroll)


def _launch_salvo(ctx: BattleContext, state: BattleState, ship_id: str, shot: Shot) -> BattleState:
    """Place a salvo marker at its aim point and cross off a launcher's load from its magazine
    (000 L5699-5712, L6051-6060); a rack's own round is spent by :func:`_spend_rounds`."""
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    point = parse_aim(shot.aim)
    assert point is not None  # checked by launch_problem
    _reach, er = launch_range(sheet, shot.weapon)
    salvo = Salvo(
        id=salvo_id(ship_id, shot.weapon, state.turn),
        side=ship.side,
        x=point[0],
        y=point[1],
        launched=state.turn,
        er=er,
    )
    magazine = feeds(sheet).get(shot.weapon)
    if magazine is not None:
        systems = tuple(
            msgspec.structs.replace(now, ammo=max((now.ammo or 0) - 1, 0))
            if now.id == magazine
            else now
            for now in ship.record.systems
        )
        ship = msgspec.structs.replace(
            ship, record=msgspec.structs.replace(ship.record, systems=systems)
        )
        state = replace_ship(state, ship)
    return msgspec.structs.replace(state, salvos=(*state.salvos, salvo))


def _spend_rounds(sheet: Ship, firer: ShipInPlay, shots: Sequence[Shot]) -> ShipInPlay:
    """Cross off a round of every one-shot weapon fired (001 L858), and a torpedo from the
    magazine of each boarding torpedo launcher fired, hit or miss (000 L5090-5100)."""
    spent = {shot.weapon: 1 for shot in shots if sheet.system(shot.weapon).ammo is not None}
    fed = torpedo_feeds(sheet)
    for shot in shots:
        if shot.weapon in fed:
            spent[fed[shot.weapon]] = spent.get(fed[shot.weapon], 0) + 1
    if not spent:
        return firer
    systems = tuple(
        msgspec.structs.replace(now, ammo=max((now.ammo or 0) - spent[now.id], 0))
        if now.id in spent
        else now
        for now in firer.record.systems
    )
    return msgspec.structs.replace(
        firer, record=msgspec.structs.replace(firer.record, systems=systems)
    )


def _needle(
    dice: DiceSource, key: str, shot: Shot, record: ShipState
) -> tuple[ShipState, ShotRoll]:
    """Roll one needle beam: on a 6 its nominated system is knocked out as a failed threshold
    would; the drive halves, then fails (001 L848, L854). Needle kills are not repairable
    (index 5.13). Under ``needle_hull`` a 5 or 6 also does a point of hull damage (past
    screens and armour), which the caller adds."""
    face = dice.roll(f"{key}/{shot.weapon}/needle", 6)
    rolled = ShotRoll(weapon=shot.weapon, target=shot.target, faces=(face,), aim=shot.aim)
    if face < NEEDLE_KILL:
        return record, rolled
    if shot.aim == DRIVE:
        return hit_drive(record), rolled
    if shot.aim is None:  # checked before firing
        raise IllegalActionError(f"{shot.weapon} fired at {shot.target} with no aim")
    return with_system_status(record, shot.aim, "destroyed"), rolled


def _class_needle(
    dice: DiceSource, key: str, kind: str, shot: Shot, distance: float, record: ShipState
) -> tuple[ShipState, ShotRoll]:
    """Roll a class-N needle beam: its dice by 12 MU band (000 L4570-4574), keys
    ``{key}/{weapon}/{i}``. Each natural 6 destroys the aimed system, for good (L4578-4590);
    at the drive each 6 is a drive hit, as FB1's needle (half, then disabled). The caller
    counts a point of damage for each die of 4+ (L4574-4580)."""
    faces = tuple(
        dice.roll(f"{key}/{shot.weapon}/{index}", 6) for index in range(needle_dice(kind, distance))
    )
    if not faces:  # checked before firing; a target cannot move away mid-phase
        raise IllegalActionError(f"{shot.weapon} cannot reach {shot.target} at {distance:.1f}")
    if shot.aim is None:  # checked before firing
        raise IllegalActionError(f"{shot.weapon} fired at {shot.target} with no aim")
    for face in faces:
        if face < NEEDLE_KILL:
            continue
        if shot.aim == DRIVE:
            record = hit_drive(record)
        else:
            record = with_system_status(record, shot.aim, "destroyed")
    return record, ShotRoll(weapon=shot.weapon, target=shot.target, faces=faces, aim=shot.aim)


def _torpedo(
    ctx: BattleContext,
    dice: DiceSource,
    key: str,
    shot: Shot,
    distance: float,
    kind: str,
    setting: str | None = None,
) -> ShotRoll:
    """Roll one pulse torpedo: a D6 to hit by range in the bands of its row under its setting,
    then its damage die (001 L833-842; 000 L4626-4658, every size the same 1D6 SAP; 000
    L4669-4800 for an overloaded or a variable torpedo, :func:`~tactical.fire.torpedo_warhead`).

    An overloaded torpedo whose damage die shows 1 rolls a second D6, ``backfire``: on a 1 the
    tube is destroyed (000 L4708-4714), which the caller does.
    """
    need = torpedo_to_hit(ctx.rules.torpedo_to_hit, distance, torpedo_band(kind, setting))
    if need is None:  # checked before firing; a target cannot move away mid-phase
        raise IllegalActionError(f"{shot.weapon} cannot reach {shot.target} at {distance:.1f}")
    warhead = torpedo_warhead(kind, setting)
    face = dice.roll(f"{key}/{shot.weapon}/hit", 6)
    damage = (dice.roll(f"{key}/{shot.weapon}/damage", warhead.sides),) if face >= need else ()
    backfire: tuple[int, ...] = ()
    if warhead.backfire and damage == (1,):
        backfire = (dice.roll(f"{key}/{shot.weapon}/backfire", 6),)
    return ShotRoll(
        weapon=shot.weapon,
        target=shot.target,
        faces=(face,),
        damage=damage,
        setting=setting,
        backfire=backfire,
    )


def _boarding_torpedo(
    ctx: BattleContext, dice: DiceSource, key: str, shot: Shot, distance: float
) -> ShotRoll:
    """Roll one boarding torpedo on the projectile table's standard row, ``{key}/{weapon}/hit``
    (000 L5118-5122); a hit is recorded as its point of damage in ``damage``."""
    need = torpedo_to_hit(ctx.rules.torpedo_to_hit, distance)
    if need is None:  # checked before firing; a target cannot move away mid-phase
        raise IllegalActionError(f"{shot.weapon} cannot reach {shot.target} at {distance:.1f}")
    face = dice.roll(f"{key}/{shot.weapon}/hit", 6)
    damage = (TORPEDO_HULL,) if face >= need else ()
    return ShotRoll(weapon=shot.weapon, target=shot.target, faces=(face,), damage=damage)


def withdraw_at(ctx: BattleContext, side: str) -> int | None:
    """Return the percentage of its mass a side may lose before it withdraws, or ``None``
    without fleet morale: the set-up's figure, moved by a campaign admiral (004 L336-337,
    L341-342), kept within 1-100.

    >>> setup = BattleSetup(sides=("red", "blue"), ships=(), morale=50)
    >>> withdraw_at(context(setup), "red")
    50
    """
    if ctx.rules.morale is None:
        return None
    mods = dict(ctx.setup.theatre.morale_mods) if ctx.setup.theatre is not None else {}
    return max(1, min(100, ctx.rules.morale + mods.get(side, 0)))


def withdraw(ctx: BattleContext, state: BattleState) -> tuple[BattleState, tuple[str, ...]]:
    """Fleet morale at the end of a turn (000 L13214-13273): each side still in the battle
    that has lost at least its :func:`withdraw_at` share of its starting mass, in ships
    destroyed, struck or abandoned, withdraws; its ships still in play leave the battle
    (``left``: the campaign's disengaged). Exactly the share is enough. When a side has
    nothing left in play the battle is over anyway, and nobody withdraws."""
    withdrew: list[str] = []
    if not all(
        any(s.side == side and s.status in IN_PLAY for s in state.ships) for side in ctx.setup.sides
    ):
        return state, ()
    for side in ctx.setup.sides:
        share = withdraw_at(ctx, side)
        # A ship yet to drop out of FTL is not yet in the battle (001 L1055).
        ships = [s for s in state.ships if s.side == side and not awaiting_dropout(ctx, s)]
        if share is None:
            continue
        total = sum(ctx.sheets[s.id].mass for s in ships)
        lost = sum(ctx.sheets[s.id].mass for s in ships if s.status in LOST)
        if lost * 100 >= share * total:
            withdrew.append(side)
    if not withdrew:
        return state, ()
    after = tuple(
        msgspec.structs.replace(s, status="left", returns=None, jump="none")
        if s.side in withdrew and s.status in IN_PLAY
        else s
        for s in state.ships
    )
    return msgspec.structs.replace(state, ships=after), tuple(withdrew)


def ending(
    ctx: BattleContext, state: BattleState, withdrew: Sequence[str]
) -> tuple[bool, str | None, str]:
    """Whether the battle is over after this turn, the winner and why: a side with nothing
    left in play, or the turn limit."""
    present = [
        side
        for side in ctx.setup.sides
        if any(s.side == side and s.status in IN_PLAY for s in state.ships)
    ]
    if len(present) < len(ctx.setup.sides):
        winner = present[0] if present else None
        if withdrew:
            return True, winner, f"{' and '.join(withdrew)} withdrew (fleet morale)"
        return True, winner, f"{winner} alone remains" if winner else "no ship remains"
    if state.turn >= ctx.setup.turn_limit:
        return True, None, f"turn limit {ctx.setup.turn_limit} reached"
    return False, None, ""


def area_defenders(
    ctx: BattleContext, state: BattleState, attacked: Sequence[ShipInPlay]
) -> list[tuple[ShipInPlay, list[str], ShipInPlay]]:
    """Return who fires point defence for whom, in order, as (ship, systems, ship defended):
    each attacked ship with its own point and area systems, then each friend within
    :data:`FIGHTER_RANGE_MU` of an attacked ship with its area systems, and its PDS too for
    one ally per ADFC (000 L9083-9086). Used against fighters and salvo missiles alike."""
    plan: list[tuple[ShipInPlay, list[str], ShipInPlay]] = []
    for victim in attacked:
        own = working_defence(ctx, victim)
        plan.append((victim, [*own.point, *own.area], victim))
    covered: dict[str, int] = {}
    for victim in attacked:
        for friend in state.ships:
            if (
                friend.side != victim.side
                or friend.id == victim.id
                or not targetable(ctx, friend)
                or range_between(friend.x, friend.y, victim.x, victim.y) > FIGHTER_RANGE_MU
            ):
                continue
            spec = working_defence(ctx, friend)
            cover = list(spec.area)
            if covered.get(friend.id, 0) < spec.controls:
                covered[friend.id] = covered.get(friend.id, 0) + 1
                cover += list(spec.point)
            plan.append((friend, cover, victim))
    return plan


def end_turn(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, TurnEnded]:
    """End the turn: deferred threshold checks, wrecks removed, the battle over or not."""
    turn = state.turn
    thresholds: list[Threshold] = []
    removed: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        sheet = ctx.sheets[ship.id]
        record = ship.record
        status = ship.status
        if status == "active" and hull_remaining(sheet, record) <= 0:
            status = "destroyed"
            removed.append(ship.id)
        elif status == "active" and (ship.rows or ship.board_rows):
            # One check at the last row's level, +1 per extra row (000 L3194-3397), for the
            # damage of phases 11 and 12 (000 L1385-1390).
            rows = ship.rows + ship.board_rows
            row, modifier = max(rows), len(rows) - 1
            record, check = check_threshold(
                ctx,
                ship.id,
                record,
                dice,
                f"t{turn}/threshold/{ship.id}",
                row,
                modifier,
                boarding=not ship.rows,
            )
            thresholds.append(check)
            status = colours_struck(status, ship.id, thresholds)
        ships.append(
            # An armed nova cannon not fired this turn loses its arming (001 L911).
            msgspec.structs.replace(
                ship,
                record=record,
                status=status,
                fired=False,
                rows=(),
                board_rows=(),
                nova=False,
                sweeping=False,
                settings=(),
                tubes=ejected(ship, turn),
            )
        )
    state = msgspec.structs.replace(state, ships=tuple(ships))
    state = boarder_losses(ctx, state, thresholds, 0, dice, "end")
    ready: tuple[str, ...] = ()
    fell: tuple[str, ...] = ()
    if ctx.setup.theatre is not None:
        state, ready, fell = _theatre_end(ctx, ctx.setup.theatre, state, dice)
    state, withdrew = withdraw(ctx, state)
    over, winner, reason = ending(ctx, state, withdrew)
    fights: list[BoardingFight] = []
    state = settle_boarders(ctx, state, dice, over, fights, thresholds)
    state = msgspec.structs.replace(state, first=None, to_fire=None, winner=winner, held=())
    if over:
        state = msgspec.structs.replace(state, phase="over")
    elif sides_to_repair(ctx, msgspec.structs.replace(state, phase="repair")):
        state = msgspec.structs.replace(state, phase="repair")
    else:
        state = after_repairs(ctx, state)
    return state, TurnEnded(
        turn=turn,
        thresholds=tuple(thresholds),
        removed=tuple(removed),
        over=over,
        winner=winner,
        reason=reason,
        ready=ready,
        fell=fell,
        table=state.table,
        withdrew=withdrew,
        boarding=tuple(fights),
    )


CORE_EXPLODES = 5  # a damaged power core explodes on a 5 or 6 (000 L11207-11211)


BREACH_RADIUS_MU = 3.0  # a breach reaches every ship within 3 MU (000 L11223-11225)


BREACH_MASS = 25  # 1D6 for every 25 mass of the exploding ship (000 L11225-11227; 130 -> 5D6)


def resolve_core(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> tuple[BattleState, CoreSystemsRolled]:
    """The end of the turn, after damage control (000 phase 15): each power core still
    damaged rolls a D6 and explodes on 5-6, destroying its ship (000 L11207-11211), with a
    breach if the option is on; then each failed life support counts down a turn and, at 0,
    gives out: the crew abandons ship (L11189-11197); then each ship out of control counts
    down a turn, and at 0 is back under control (L11161-11165). Ships in battle order; the
    cores rolled are those damaged when the step begins (a breach's damage rolls next turn).
    """
    turn = state.turn
    cores: list[CoreRoll] = []
    breaches: list[Breach] = []
    thresholds: list[Threshold] = []
    destroyed: list[str] = []
    abandoned: list[str] = []
    control: list[str] = []
    damaged = [s.id for s in state.ships if s.status in IN_PLAY and s.record.power_core != "ok"]
    for ship_id in damaged:
        ship = state.ship(ship_id)
        if ship.status not in IN_PLAY:
            continue  # destroyed by a breach earlier in the step
        face = dice.roll(f"t{turn}/core/{ship_id}/power_core", 6)
        exploded = face >= CORE_EXPLODES
        cores.append(CoreRoll(ship=ship_id, face=face, exploded=exploded))
        if not exploded:
            continue
        destroyed.append(ship_id)
        gone = msgspec.structs.replace(ship, status="destroyed", returns=None)
        state = replace_ship(state, gone)
        if ctx.rules.reactor_breach and ship.status == "active":
            state = _breach(ctx, state, ship, dice, breaches, thresholds, destroyed)
    for ship in state.ships:
        if ship.status not in IN_PLAY:
            continue
        record = ship.record
        status: ShipStatus = ship.status
        if record.life_support > 0:
            left = record.life_support - 1
            record = msgspec.structs.replace(record, life_support=left or GIVEN_OUT)
            if not left:
                status = "abandoned"
                abandoned.append(ship.id)
        if record.out_of_control > 0 and status != "abandoned":
            record = msgspec.structs.replace(record, out_of_control=record.out_of_control - 1)
            if record.out_of_control == 0:
                control.append(ship.id)
        returns = None if status == "abandoned" else ship.returns
        state = replace_ship(
            state, msgspec.structs.replace(ship, record=record, status=status, returns=returns)
        )
    state = boarder_losses(ctx, state, thresholds, 0, dice, "core")
    state, withdrew = withdraw(ctx, state)
    over, winner, reason = ending(ctx, state, withdrew)
    fights: list[BoardingFight] = []
    state = settle_boarders(ctx, state, dice, over, fights, thresholds)
    if over:
        state = msgspec.structs.replace(state, phase="over", winner=winner)
    else:
        state = next_turn(ctx, state)
    return state, CoreSystemsRolled(
        turn=turn,
        cores=tuple(cores),
        breaches=tuple(breaches),
        thresholds=tuple(thresholds),
        destroyed=tuple(destroyed),
        abandoned=tuple(abandoned),
        control=tuple(control),
        withdrew=withdrew,
        over=over,
        winner=winner,
        reason=reason,
        boarding=tuple(fights),
    )


def _breach(
    ctx: BattleContext,
    state: BattleState,
    exploded: ShipInPlay,
    dice: DiceSource,
    breaches: list[Breach],
    thresholds: list[Threshold],
    destroyed: list[str],
) -> BattleState:
    """A reactor breach (000 L11217-11254): every other ship in play within 3 MU of the
    exploding ship takes 1D6 per 25 mass of it, at face value, half (rounded up) to armour
    and the rest to the hull past armour and screens, like a torpedo's semi-armour-piercing
    damage (000 L3078-3167), with threshold checks at once (000 phase 15): one per row under
    immediate thresholds, else one at the last row's level, +1 per extra row."""
    count = ctx.sheets[exploded.id].mass // BREACH_MASS
    if count == 0:
        return state
    turn = state.turn
    for target in state.ships:
        distance = range_between(exploded.x, exploded.y, target.x, target.y)
        if not targetable(ctx, target) or distance > BREACH_RADIUS_MU:
            continue
        key = f"t{turn}/breach/{exploded.id}/{target.id}"
        faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(count))
        sheet = ctx.sheets[target.id]
        record, hit = take_damage(sheet, target.record, target.id, 0, (sum(faces),), 0)
        breaches.append(Breach(ship=exploded.id, faces=faces, hit=hit))
        status: ShipStatus = target.status
        if hit.destroyed:
            status = "destroyed"
            destroyed.append(target.id)
        elif hit.rows:
            if ctx.rules.threshold_timing == "immediate":
                checks = [(row, 0, f"/row{row}") for row in hit.rows]
            else:
                checks = [(max(hit.rows), len(hit.rows) - 1, "")]
            for row, modifier, suffix in checks:
                record, check = check_threshold(
                    ctx,
                    target.id,
                    record,
                    dice,
                    f"t{turn}/threshold/{target.id}/breach/{exploded.id}{suffix}",
                    row,
                    modifier,
                    core=True,
                )
                thresholds.append(check)
                status = colours_struck(status, target.id, thresholds)
        state = replace_ship(state, msgspec.structs.replace(target, record=record, status=status))
    return state


def _theatre_end(
    ctx: BattleContext, theatre: Theatre, state: BattleState, dice: DiceSource
) -> tuple[BattleState, tuple[str, ...], tuple[str, ...]]:
    """A campaign battle's end of turn: jump rolls, gravity, and the table fixed or floating.

    Returns the new state, the ships that rolled their 6 and the ships gravity took off.
    """
    ready: list[str] = []
    fell: list[str] = []
    ships: list[ShipInPlay] = []
    for ship in state.ships:
        if ship.status != "active":
            ships.append(ship)
            continue
        jump = ship.jump
        # Every ship under FTL Move orders prepares; a 6 readies it (004 L142-143).
        preparing = ship.side in theatre.ftl_sides and ship.record.ftl == "ok" and jump == "none"
        if preparing and dice.roll(f"t{state.turn}/jump/{ship.id}", 6) == 6:
            jump = "ready"
            ready.append(ship.id)
        x = round_mu(ship.x - theatre.gravity)  # towards the gas giant edge (004 L164-165)
        status: ShipStatus = "active"
        if in_well(ctx, x):
            status = "left"
            fell.append(ship.id)
        ships.append(msgspec.structs.replace(ship, x=x, jump=jump, status=status))
    state = msgspec.structs.replace(state, ships=tuple(ships))
    return (
        msgspec.structs.replace(state, table=_table_after(theatre, state)),
        tuple(ready),
        tuple(fell),
    )


def _table_after(theatre: Theatre, state: BattleState) -> tuple[float, float, float, float] | None:
    """Fix the table once two opposing ships are more than 150 MU apart, where the ships are;
    let it float again once every opposing pair is closer than that (004 L133-135)."""
    active = [s for s in state.ships if s.status == "active"]
    widest = max(
        (
            range_between(a.x, a.y, b.x, b.y)
            for i, a in enumerate(active)
            for b in active[i + 1 :]
            if a.side != b.side
        ),
        default=0.0,
    )
    if widest < theatre.float_limit:
        return None
    if widest == theatre.float_limit or state.table is not None:
        return state.table
    margin = theatre.table_margin
    return (
        round_mu(min(s.x for s in active) - margin),
        round_mu(min(s.y for s in active) - margin),
        round_mu(max(s.x for s in active) + margin),
        round_mu(max(s.y for s in active) + margin),
    )


def resolve(
    ctx: BattleContext, state: BattleState, dice: DiceSource
) -> ShipsMoved | TurnEnded | FightersResolved | CoreSystemsRolled | MissilesResolved:
    """Resolve a ``CHANCE`` step (movement, the fighters, the salvos in flight, the end of the
    turn, or the core systems after damage control).

    Raises:
        IllegalActionError: the step is not a chance step.
    """
    recording = RecordingDice(dice)
    event: ShipsMoved | TurnEnded | FightersResolved | CoreSystemsRolled | MissilesResolved
    if state.phase == "movement":
        _state, event = move_ships(ctx, state, recording)
    elif state.phase == "missiles":
        _state, event = resolve_missiles(ctx, state, recording)
    elif state.phase == "fighters":
        _state, event = resolve_fighters(ctx, state, recording)
    elif state.phase == "end":
        _state, event = end_turn(ctx, state, recording)
    elif state.phase == "core":
        _state, event = resolve_core(ctx, state, recording)
    else:
        raise IllegalActionError(
            f"resolve on turn {state.turn}: the {state.phase} step is no chance step"
        )
    return msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def evolve(ctx: BattleContext, state: BattleState, event: Event) -> BattleState:
    """Fold one event into the state, reading its recorded dice; never rolls.

    Raises:
        tactical.dice.DiceError: the event's dice do not fit the rules (a corrupt journal).
        IllegalActionError: the event does not fit the state.
    """
    if isinstance(event, OrdersWritten):
        write_orders(ctx, state, event.side, parse_orders(event.orders))
        return apply_orders(ctx, state, event)
    if isinstance(event, FlightWritten):
        write_flight(ctx, state, event.side, parse_flight(event.orders))
        return apply_flight(ctx, state, event)
    if isinstance(event, AssaultOrdered):
        write_assault(ctx, state, event.side, parse_assaults(event.orders))
        return apply_assault(ctx, state, event)
    dice = ReplayDice(event.rolls)
    if isinstance(event, ShipsMoved):
        if state.phase != "movement":
            raise IllegalActionError(f"ships_moved on turn {event.turn} in the {state.phase} step")
        state, _ = move_ships(ctx, state, dice)
    elif isinstance(event, ShipFired):
        shots = tuple(Shot(s.weapon, s.target, s.aim) for s in event.shots)
        check_fire(ctx, state, event.ship, shots)
        state, _ = fire_shots(ctx, state, event.ship, shots, dice)
    elif isinstance(event, FightersResolved):
        if state.phase != "fighters":
            raise IllegalActionError(
                f"fighters_resolved on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_fighters(ctx, state, dice)
    elif isinstance(event, RepairsMade):
        jobs: dict[str, dict[str, int]] = {}
        for job in event.repairs:
            jobs.setdefault(job.ship, {})[job.target] = job.parties
        check_repairs(ctx, state, event.side, jobs)
        state, _ = make_repairs(ctx, state, event.side, jobs, dice)
    elif isinstance(event, BoardingFought):
        guards = parse_repel(event.orders)
        check_repel(ctx, state, event.side, guards)
        state, _ = fight_boarders(ctx, state, event.side, guards, dice)
    elif isinstance(event, MissilesResolved):
        if state.phase != "missiles":
            raise IllegalActionError(
                f"missiles_resolved on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_missiles(ctx, state, dice)
    elif isinstance(event, CoreSystemsRolled):
        if state.phase != "core":
            raise IllegalActionError(
                f"core_systems_rolled on turn {event.turn} in the {state.phase} step"
            )
        state, _ = resolve_core(ctx, state, dice)
    else:
        if state.phase != "end":
            raise IllegalActionError(f"turn_ended on turn {event.turn} in the {state.phase} step")
        state, _ = end_turn(ctx, state, dice)
    dice.finish()
    return state


def replay(setup: BattleSetup, journal: Sequence[Event]) -> BattleState:
    """Return the state after folding a whole journal into the set-up's initial state.

    Raises:
        SetupError: the set-up is broken.
        tactical.dice.DiceError: an event's dice do not fit the rules.
        IllegalActionError: an event does not fit the state.
    """
    ctx = context(setup)
    state = initial_state(ctx)
    for event in journal:
        state = evolve(ctx, state, event)
    return state


class Battle:
    """A battle in progress: the set-up, the current state and the journal so far.

    Each method checks the action, records its event and folds it in.
    """

    def __init__(self, setup: BattleSetup) -> None:
        """Start a battle.

        Raises:
            SetupError: the set-up is broken.
        """
        self.ctx = context(setup)
        self.state = initial_state(self.ctx)
        self.journal: list[Event] = []

    def step(self) -> Step:
        """Return what happens next."""
        return current_step(self.state)

    def record(self, event: Event) -> Event:
        """Fold an event into the state and append it to the journal."""
        self.state = evolve(self.ctx, self.state, event)
        self.journal.append(event)
        return event

    def write_orders(self, side: str, orders: Mapping[str, Order]) -> Event:
        """Write one side's orders (see :func:`write_orders`)."""
        return self.record(write_orders(self.ctx, self.state, side, orders))

    def fly(self, side: str, orders: Mapping[str, FlightOrder]) -> Event:
        """Write one side's flight orders (see :func:`write_flight`)."""
        return self.record(write_flight(self.ctx, self.state, side, orders))

    def resolve(self, dice: DiceSource) -> Event:
        """Resolve the chance step (see :func:`resolve`)."""
        return self.record(resolve(self.ctx, self.state, dice))

    def fire(self, ship_id: str, shots: Sequence[Shot], dice: DiceSource) -> Event:
        """Fire one ship (see :func:`fire_ship`)."""
        return self.record(fire_ship(self.ctx, self.state, ship_id, shots, dice))

    def repair(self, side: str, jobs: Mapping[str, Mapping[str, int]], dice: DiceSource) -> Event:
        """Make one side's damage-control rolls (see :func:`repair`)."""
        return self.record(repair(self.ctx, self.state, side, jobs, dice))

    def assault(self, side: str, assaults: Mapping[str, Assault]) -> Event:
        """Allot one side's boarders (see :func:`write_assault`)."""
        return self.record(write_assault(self.ctx, self.state, side, assaults))

    def repel(self, side: str, guards: Mapping[str, Sequence[Guard]], dice: DiceSource) -> Event:
        """Fight the boarders aboard one side's ships (see :func:`repel`)."""
        return self.record(repel(self.ctx, self.state, side, guards, dice))
