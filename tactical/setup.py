"""A battle's set-up checked and its first state: record sheets from the catalogue, every
problem of the set-up at once (:class:`SetupError`), FTL fighters deployed and, with bogeys,
every ship a contact but those already sensed (001 L937-947; 000 L9981-9989).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import msgspec

from maps import tomlinput
from tactical.designs import load_builtin
from tactical.fighters import FighterGroup, FighterNameError, bays, parse_fighters
from tactical.mines import Mine
from tactical.movement import round_mu
from tactical.phases.admirals import choose_ships
from tactical.phases.fighters import take_off
from tactical.phases.movement import sense
from tactical.points import build
from tactical.rules import BattleRules, rules_named
from tactical.sensors import Dummy, bogey_labels, signature
from tactical.ship import (
    FOR_THE_BATTLE,
    PRESETS,
    Design,
    DesignError,
    Problem,
    Ship,
    ShipState,
    SystemSpec,
    core_damaged,
    fresh_state,
)
from tactical.state import BattleContext, BattleSetup, BattleState, ShipInPlay, ShipSetup


@cache
def sheet_for(design: str, preset_name: str) -> Ship:
    """Return the record sheet of a catalogue design under a points preset (cached).

    Raises:
        tactical.designs.UnknownDesignError: no such design under those rules.
    """
    preset = PRESETS[preset_name]
    return build(load_builtin(design, preset.rules), preset, ship_id=design)


def design_sheet(designs: Mapping[str, Design], design: str, preset_name: str) -> Ship:
    """Return the record sheet of a battle's own design (``BattleSetup.designs``) or, failing
    that, of a catalogue design, under a points preset.

    Raises:
        tactical.designs.UnknownDesignError: no such design under those rules.
        DesignError: the battle's own design breaks the rules.
    """
    own = designs.get(design)
    if own is None:
        return sheet_for(design, preset_name)
    return _own_sheet(own, preset_name, design)


@cache
def _own_sheet(design: Design, preset_name: str, design_id: str) -> Ship:
    return build(design, PRESETS[preset_name], ship_id=design_id)


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
            sheet = design_sheet(setup.designs, ship.design, rules.ships)
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
                Problem(f"{path}.dropout", "FTL dropouts are for table battles (001 L1053)")
            )
        sheets.setdefault(ship.id, sheet)
    problems.extend(_mine_problems(setup))
    problems.extend(_dummy_problems(setup, seen))
    if setup.reactor_breach and not setup.core_systems and not rules.core_systems:
        problems.append(Problem("$.reactor_breach", "a reactor breach needs core_systems"))
    if setup.morale_ties != "both" and setup.morale is None and rules.morale is None:
        problems.append(Problem("$.morale_ties", "a tie-break of fleet morale needs morale"))
    if setup.movement != "spatial":
        if setup.death_blossom:
            problems.append(
                Problem("$.death_blossom", 'the Death Blossom needs movement = "spatial"')
            )
        if setup.spatial_turn_rounding != "exact":
            problems.append(
                Problem(
                    "$.spatial_turn_rounding", 'spatial_turn_rounding needs movement = "spatial"'
                )
            )
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
            morale_ties=setup.morale_ties,
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
    if setup.enemy_sheets is not None:
        rules = msgspec.structs.replace(rules, enemy_sheets=setup.enemy_sheets)
    if setup.movement == "vector":
        rules = msgspec.structs.replace(rules, movement="vector")
    if setup.movement == "spatial":
        # 003 L68-70: under spatial movement no ship-to-ship fire through the rear arc.
        rules = msgspec.structs.replace(
            rules,
            movement="spatial",
            aft_fire="never",
            death_blossom=setup.death_blossom,
            spatial_turn_rounding=setup.spatial_turn_rounding,
        )
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
        return tomlinput.decode(text, type=BattleSetup)
    except msgspec.DecodeError as exc:
        raise SetupError(source, [Problem.from_decode_error(exc, BattleSetup)]) from None


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
                    if ctx.rules.movement != "cinematic"
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
    state = choose_ships(ctx, _deploy_ftl_fighters(ctx, state), {})  # the admirals' first
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
            # Deployed before the battle, not launched in its first turn: a full move.
            groups.append(msgspec.structs.replace(group, endurance=spent, launching=False))
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
            Dummy(
                id=name,
                side=side,
                label=labels[name],
                x=x,
                y=y,
                course=c,
                speed=v,
                vector=(c % 12 * 30.0, float(v)) if ctx.rules.movement != "cinematic" else None,
            )
            for name, side, x, y, c, v in dummies
        ),
    )
