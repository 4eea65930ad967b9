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
from typing import NamedTuple

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
from tactical.boarding import Assault, Guard, parse_assaults, parse_repel
from tactical.designs import load_builtin
from tactical.dice import DiceSource, RecordingDice, ReplayDice, Roll
from tactical.fighters import (
    FighterGroup,
    FighterNameError,
    FlightOrder,
    bays,
    parse_fighters,
    parse_flight,
)
from tactical.fire import line_blocked, range_between, roll_beams
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
from tactical.movement import (
    NO_ORDER,
    MoveStart,
    Order,
    course_after,
    format_mu,
    format_order,
    move,
    order_problem,
    parse_orders,
    round_mu,
)
from tactical.phases.boarding import (
    AssaultOrdered,
    BoardingFight,
    BoardingFought,
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
from tactical.phases.damage import check_threshold, colours_struck, crash, take_damage
from tactical.phases.fighters import (
    DefenceFire,
    Dogfight,
    FighterAttack,
    FightersResolved,
    FighterWeapon,
    FlightWritten,
    GroupMoved,
    Interception,
    Rearm,
    SalvoLaunch,
    Scramble,
    apply_flight,
    bay_launch_problem,
    flight_targets,
    group_reach,
    group_type,
    launch_groups,
    launchable_bays,
    rearmed,
    resolve_fighters,
    scramble_bays,
    scramble_problem,
    sides_to_fly,
    take_off,
    write_flight,
)
from tactical.phases.fire import (
    AFT,
    NEEDLE,
    NEEDLES,
    NOVA,
    NOVA_LINE,
    SUBMUNITION,
    TORPEDO,
    TORPEDOES,
    Landing,
    NovaHit,
    ShipFired,
    Shot,
    ShotRoll,
    advance_novas,
    check_fire,
    ejected,
    fire_controls,
    fire_options,
    fire_ship,
    fire_shots,
    firecons_needed,
    launch_options,
    launch_problem,
    needle_aims,
    needle_focus_problem,
    needle_reach,
    nova_problem,
    ships_to_fire,
    to_fire_phase,
)
from tactical.phases.orders import (
    OrdersWritten,
    apply_orders,
    next_turn,
    setting_problem,
    sides_to_write,
    write_orders,
)
from tactical.phases.ordnance import (
    MissilesResolved,
    PointDefenceDie,
    SalvoAttack,
    resolve_missiles,
    salvo_targets,
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
    hull_remaining,
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
    ftl_blocked,
    identified,
    in_well,
    moves_this_turn,
    off_table,
    replace_ship,
    targetable,
    velocity,
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


RETURN_ON = 4  # 001 L538: on a 4, 5 or 6 the ship re-enters after that many turns


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
