"""The fire step (001 L262-276): sides alternate, one ship at a time declaring all its shots.

``PLAYER``: :func:`fire_ship` checks and rolls one ship's shots: beams and the other direct
fire weapons, pulse torpedoes and needles, nova cannon (001 L908-929), launchers of salvos
and boarding torpedoes; damage is applied at once, threshold checks at the end of the phase.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

import msgspec
from msgspec import Struct

from tactical.boarding import (
    BOARDING_TORPEDO,
    TORPEDO_HULL,
    TORPEDO_MARINES,
    torpedo_feeds,
    torpedo_ready,
)
from tactical.dice import DiceSource, RecordingDice, Roll
from tactical.fighters import SCATTERGUN, SCATTERGUN_RANGE_MU
from tactical.fire import (
    BAND_MU,
    BEAM_STRENGTH,
    CORE_SYSTEMS,
    ENHANCED_AFT,
    NEEDLE_GRAZE,
    NEEDLE_HIT,
    NEEDLE_KILL,
    NEEDLE_SENSOR_MU,
    NEEDLE_STRENGTH,
    NOVA_ARMING_MU,
    NOVA_STAGES,
    OVERLOAD,
    SUPERIOR_AFT,
    TORPEDO_BANDS_MU,
    TORPEDO_SETTINGS,
    AftSight,
    BeamOutcome,
    arc_of,
    beam_dice,
    bearing,
    die_hits,
    is_beam,
    line_blocked,
    needle_dice,
    needle_sight,
    nova_touches,
    placement,
    range_between,
    roll_beams,
    score_aft_die,
    submunition_dice,
    torpedo_band,
    torpedo_to_hit,
    torpedo_warhead,
)
from tactical.missiles import (
    HEAVY_RACKS,
    LAUNCHERS,
    RACKS,
    SALVO_AIM,
    STAGE_MIN_MU,
    Salvo,
    facing_to,
    feeds,
    flight_problem,
    launch_range,
    launcher_ready,
    multi_stage,
    parse_aim,
    salvo_id,
)
from tactical.movement import heading_vector, round_mu
from tactical.phases.boarding import after_fire, board, boarder_losses
from tactical.phases.damage import apply_hit, take_damage
from tactical.phases.knowledge import known_level, sheets_closed
from tactical.phases.repair import DRIVE
from tactical.sensors import AREA_ECM, DAMAGE_KNOWN
from tactical.ship import (
    Ship,
    ShipState,
    SystemSpec,
    hit_drive,
    hull_remaining,
    read_off,
    with_system_status,
)
from tactical.spatial import DEATH_BLOSSOM_RATE
from tactical.state import (
    BattleContext,
    BattleState,
    Hit,
    IllegalActionError,
    NovaBlast,
    ShipInPlay,
    ShipStatus,
    Threshold,
    asteroids_now,
    defending_beams,
    ecm_systems,
    enemy_in_sight,
    identified,
    other_side,
    prize,
    replace_ship,
    targetable,
    working_screen,
)

AFT = "A"  # no offensive fire through the aft arc (001 L404; 000 L2483-2679)


class Shot(Struct, frozen=True, array_like=True, gc=False):
    """One declared shot: a weapon of the firing ship and the ship it fires at.

    A needle beam also names the system it aims at: a system id or ``"drive"`` (001 L848).
    """

    weapon: str
    target: str
    aim: str | None = None


class ShotRoll(Struct, frozen=True, kw_only=True, gc=False):
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


class NovaHit(Struct, frozen=True, kw_only=True, gc=False):
    """One ship a nova template touched: the stage, its dice at face value and the damage."""

    ship: str
    """The ship that fired the nova cannon."""
    stage: int
    faces: tuple[int, ...]
    hit: Hit


class Landing(Struct, frozen=True, kw_only=True, gc=False):
    """Boarders of ``side`` that came aboard ``ship``: a boarding torpedo's two marines (000
    L5122-5128), or whatever :func:`board` was given."""

    ship: str
    side: str
    marines: int = 0
    parties: int = 0


class ShipFired(Struct, frozen=True, kw_only=True, tag="ship_fired", gc=False):
    """A ship took its firing turn: its declared shots, their dice, damage and thresholds."""

    turn: int
    ship: str
    shots: tuple[ShotRoll, ...]
    hits: tuple[Hit, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    nova: tuple[NovaHit, ...] = ()
    """What the ship's nova cannon template touched as it was fired (001 L923-925)."""
    landed: tuple[Landing, ...] = ()
    """Marines its boarding torpedoes put aboard their targets (000 L5122-5128)."""
    captured: tuple[str, ...] = ()
    """Captured ships its fire destroyed: a single point is enough (000 L13128-13130)."""
    rolls: tuple[Roll, ...] = ()


def _may_fire(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, aims: bool | None = None
) -> bool:
    """A ship takes a firing turn if it is in play, has not fired and has an enemy to aim at
    (``aims``: :func:`_has_aims` for its side, when the caller worked it out already).

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
    return _has_aims(ctx, state, ship.side) if aims is None else aims


def _has_aims(ctx: BattleContext, state: BattleState, side: str) -> bool:
    """Whether the side has an enemy in sight, or a prize, to aim at (`_in_sight`, kept for
    the state: the side's firing asks it next)."""
    return bool(_in_sight(ctx, state, side).ships)


def ships_to_fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, ...]:
    """Return the ids of this side's ships that may take their firing turn now."""
    if state.phase != "fire" or state.to_fire != side:
        return ()
    aims = _has_aims(ctx, state, side)
    # Ships that fired or are out of play, passed over before _may_fire is asked of them.
    return tuple(
        [
            s.id
            for s in state.ships
            if s.side == side
            and not s.fired
            and s.status == "active"
            and _may_fire(ctx, state, s, aims)
        ]
    )


def _next_to_fire(ctx: BattleContext, state: BattleState, after: str) -> str | None:
    """Alternate sides; a side with ships left fires them after the other's last (001 L270)."""
    for side in (other_side(ctx, after), after):
        # Whether the side has an enemy to aim at is asked only once it has a ship to fire.
        ready = any(
            _may_fire(ctx, state, s, True)
            for s in state.ships
            if s.side == side and not s.fired and s.status == "active"
        )
        if ready and _has_aims(ctx, state, side):
            return side
    return None


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
    if kind == SCATTERGUN:  # its direct fire at a ship (000 L7516-7518, L7536-7540)
        return distance <= SCATTERGUN_RANGE_MU
    return False


class _Sighted(NamedTuple):
    """The ships a side's ship may fire at in one state, asteroids aside, and each one's id
    and place (what :func:`fire_options` is keyed by)."""

    ships: tuple[ShipInPlay, ...]
    places: tuple[tuple[str, float, float], ...]


_SIGHTED: list[tuple[tuple[ShipInPlay, ...], object, str, _Sighted]] = []
"""The last few ``(ships, record sheets, side, ships in sight)`` :func:`_in_sight` worked out,
by identity: a side's fire asks it of one state for each of its ships, and the states a
firing leaves differ but for their ships (the side to fire, the phase) share their tuple."""


def _in_sight(ctx: BattleContext, state: BattleState, side: str) -> _Sighted:
    """Return the ships a ship of ``side`` may fire at, asteroids aside: enemies in sight and
    prizes (:func:`~tactical.state.enemy_in_sight`, :func:`~tactical.state.prize`)."""
    in_play, sheets = state.ships, ctx.sheets
    last = _SIGHTED[0] if _SIGHTED else None
    if last is not None and last[0] is in_play and last[1] is sheets and last[2] == side:
        return last[3]  # the usual case: the last asked
    for seen, read, who, found in _SIGHTED:
        if seen is in_play and read is sheets and who == side:
            return found
    # enemy_in_sight (identified, in play, some hull left) or prize (captured, identified),
    # as one test: the side asks it of every ship in play after every firing.
    ships = tuple(
        [
            s
            for s in in_play
            if s.bogey is None
            and (
                (
                    s.status == "active"
                    and s.side != side
                    and sheets[s.id].hull_boxes > sum(s.record.hull_lost)
                )
                or s.status == "captured"
            )
        ]
    )
    places = tuple([(s.id, s.x, s.y) for s in ships])
    if len(_PLACES) >= _OPTIONS_KEPT:
        _PLACES.clear()
    found = _Sighted(ships, _PLACES.setdefault(places, places))
    _SIGHTED.insert(0, (in_play, sheets, side, found))
    del _SIGHTED[4:]
    return found


_PLACES: dict[tuple[tuple[str, float, float], ...], tuple[tuple[str, float, float], ...]] = {}
"""One tuple for each set of places in sight :func:`_in_sight` found, so that
:data:`_OPTIONS` may know them by identity, not by hashing every place again for each ship."""

_OPTIONS: dict[
    tuple[object, ...],
    tuple[ShipInPlay, Ship, object, tuple[object, ...], dict[str, tuple[str, ...]]],
] = {}
""":func:`fire_options` worked out, by what they depend on: the firing ship, its record sheet,
the rules and each ship in sight's id and place (by identity; each entry holds them, so no
other object can take their ids while it lives), and the asteroids this turn. A fire phase
asks again and again of ships whose options no shot since has changed."""

_OPTIONS_KEPT = 4096
"""How many entries :data:`_OPTIONS` keeps before it starts again (a memory bound only)."""


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
    whose nova cannon is armed may fire that alone, along its bow's line (001 L906-919); one
    whose minesweeper is active fires nothing (001 L898). Under FT Lite's rule a weapon whose
    arcs include the aft arc fires through it when its ship used no thrust this turn (002 L51);
    under Continuum's, every one of these weapons whose arcs include it, while its ship's
    advanced sensors augment its FireCon, within their reach (:func:`aft_sight`).
    A boarding torpedo launcher fires while it and its magazine work and the magazine holds a
    torpedo, on the projectile table's standard row (000 L5090-5122). A captured ship may be
    fired on like an enemy (000 L13122-13128).
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    if ship.sweeping or ship.record.out_of_control or ship.nova:
        return _fire_options(ctx, ship, sheet, ())
    asteroids = asteroids_now(ctx, state)
    sighted = _in_sight(ctx, state, ship.side)
    key, known = _options_kept(ctx, ship, sheet, sighted.places, asteroids)
    if known is not None:
        return dict(known)
    if asteroids:
        targets = [
            s for s in sighted.ships if not line_blocked((ship.x, ship.y), (s.x, s.y), asteroids)
        ]
        options = _fire_options(ctx, ship, sheet, targets)
    else:
        placed = _placed_in_sight(ctx, ship, sighted)
        options = _fire_options(ctx, ship, sheet, sighted.ships, placed=placed)
    if len(_OPTIONS) >= _OPTIONS_KEPT:
        _OPTIONS.clear()
    _OPTIONS[key] = (ship, sheet, ctx.rules, sighted.places, dict(options))
    return options


def _options_kept(
    ctx: BattleContext,
    ship: ShipInPlay,
    sheet: Ship,
    places: tuple[tuple[str, float, float], ...],
    asteroids: object,
) -> tuple[tuple[object, ...], dict[str, tuple[str, ...]] | None]:
    """:data:`_OPTIONS`' key for a ship's fire options, and the options kept under it, if any
    (to be copied before they are handed on)."""
    key = (id(ship), id(sheet), id(ctx.rules), id(places), asteroids)
    known = _OPTIONS.get(key)
    if (
        known is not None
        and known[0] is ship
        and known[1] is sheet
        and known[2] is ctx.rules
        and known[3] is places
    ):
        return key, known[4]
    return key, None


def _shot_options(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, shots: Sequence[Shot]
) -> Mapping[str, tuple[str, ...]]:
    """:func:`fire_options` for the weapons and targets the shots name, and no others: what
    :func:`check_fire` reads. Each weapon's targets are worked out alone, so a weapon reaches
    a target here exactly when it does among all the ship's options; and so the ship's
    options kept for its ship, sheet and targets' places (:func:`fire_options` worked out
    from the side's view, which shows the side's own ships and sheets as they are and the
    enemies it may fire at where they are) are read as they are, when kept: the kept
    mapping itself, to be read, never changed."""
    asteroids = asteroids_now(ctx, state)
    if not (ship.sweeping or ship.nova):  # out of control: refused before (check_fire)
        sheet = ctx.sheets[ship.id]
        known = _options_kept(ctx, ship, sheet, _in_sight(ctx, state, ship.side).places, asteroids)
        if known[1] is not None:
            return known[1]
    named = {shot.target for shot in shots}
    targets = [
        s
        for s in state.ships
        if s.id in named
        and (enemy_in_sight(ctx, ship.side, s) or prize(s))
        and not (asteroids and line_blocked((ship.x, ship.y), (s.x, s.y), asteroids))
    ]
    weapons = {shot.weapon for shot in shots}
    return _fire_options(ctx, ship, ctx.sheets[ship.id], targets, weapons)


def _fire_options(
    ctx: BattleContext,
    ship: ShipInPlay,
    sheet: Ship,
    targets: Sequence[ShipInPlay],
    weapons: Collection[str] | None = None,
    placed: Sequence[tuple[str, str, float]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """:func:`fire_options` of a ship at these targets (in sight, no asteroid between); of
    the named ``weapons`` only, if named; ``placed``, the targets' :func:`_placed`, when the
    caller has it."""
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
    guns = read_off(sheet, _guns)
    if not guns:
        return options
    settings = dict(ship.settings)
    aft_open = ctx.rules.aft_fire == "unthrusted" and not ship.thrusted
    blossom = death_blossom(ctx, ship)
    spatial = ctx.rules.movement == "spatial"
    # Each target's arc and range, worked out once for all the ship's weapons.
    if placed is None:
        placed = _placed(ctx, ship, targets)
    defending = defending_beams(ctx, ship)
    # The sensors' reach, read off the ship's systems only when a needle beam or a target in
    # the aft arc asks for it.
    needles = read_off(sheet, _has_class_n_needles)
    sight = needle_reach(ctx, ship) if needles else 0.0
    aft_reach = _aft_reach(ctx, ship, placed)
    # Weapons of one kind, arcs and setting reach the same targets: worked out once.
    reaches: dict[tuple[str, tuple[str, ...], str | None], tuple[str, ...]] = {}
    systems = ship.record.systems
    for index, spec in guns:
        sys_state = systems[index]
        if weapons is not None and spec.id not in weapons:
            continue
        if spec.id in defending:
            continue  # on point defence this turn, it may not fire now (000 L9105-9109)
        if sys_state.status != "ok" or sys_state.ammo == 0:
            continue  # a fired submunition pack is crossed off (001 L858)
        if spec.kind == BOARDING_TORPEDO and not torpedo_ready(sheet, ship.record, spec.id):
            continue
        setting = settings.get(spec.id)
        key = (spec.kind, spec.arcs, setting)
        known = reaches.get(key)
        if known is not None:
            if known:
                options[spec.id] = known
            continue
        kind, arcs = spec.kind, spec.arcs
        if is_beam(kind) and not blossom:
            # A beam-N: in one of its arcs (aft as its ship may fire aft), and rolling a die,
            # while ceil(distance / BAND_MU) <= N (beam_dice), that is while distance /
            # BAND_MU <= N: the same float, compared without the ceiling. Every other weapon,
            # and every weapon in a Death Blossom: _reached.
            bands = BEAM_STRENGTH[kind]
            found = reaches[key] = tuple(
                [
                    target_id
                    for target_id, arc, distance in placed
                    if arc in arcs
                    and (arc != AFT or aft_open or distance <= aft_reach)
                    and distance / BAND_MU <= bands
                ]
            )
            if found:
                options[spec.id] = found
            continue
        reaches[key] = found = _reached(
            ctx, placed, kind, arcs, setting, (aft_open, aft_reach, blossom, spatial, sight)
        )
        if found:
            options[spec.id] = found
    return options


def _reached(
    ctx: BattleContext,
    placed: Sequence[tuple[str, str, float]],
    kind: str,
    arcs: tuple[str, ...],
    setting: str | None,
    ship: tuple[bool, float, bool, bool, float],
) -> tuple[str, ...]:
    """:func:`_fire_options`' targets of a weapon of this kind, arcs and setting, of every
    kind but a beam firing by its arcs: ``ship`` is how its ship fires (whether aft by FT
    Lite's rule, how far aft by its sensors, whether in a Death Blossom, under spatial
    movement, and how far its sensors aim class-N needles)."""
    aft_open, aft_reach, blossom, spatial, sight = ship
    beam = is_beam(kind)
    # A beam-N rolls a die while distance / BAND_MU <= N (as in _fire_options).
    bands = BEAM_STRENGTH[kind] if beam else 0
    needle, scattergun = kind in NEEDLE_STRENGTH, kind == SCATTERGUN
    reachable: list[str] = []
    for target_id, arc, distance in placed:
        if needle and distance > sight:
            continue  # its sensors cannot aim it this far (000 L4517-4523)
        # Aft only within advanced sensors' reach, any weapon (none: never, not even at 0
        # MU), or under FT Lite by a ship that used no thrust this turn (002 L51).
        aft_ok = arc != AFT or aft_open or distance <= aft_reach
        # A scattergun fires all round, aft "like PDS" (000 L7516-7518), save aft under
        # spatial movement, where no ship-to-ship fire goes aft (003 L68-70).
        all_round = scattergun and (arc != AFT or not spatial)
        if not blossom and not all_round and (not aft_ok or arc not in arcs):
            continue
        if distance / BAND_MU <= bands if beam else _reach(ctx, kind, distance, setting):
            reachable.append(target_id)
    return tuple(reachable)


def _placed(
    ctx: BattleContext, ship: ShipInPlay, targets: Sequence[ShipInPlay]
) -> list[tuple[str, str, float]]:
    """Each target's id, arc and range from the ship (:func:`~tactical.fire.placement`)."""
    x, y, course, arcs = ship.x, ship.y, ship.course, ctx.rules.arcs
    return [(target.id, *placement(x, y, course, target.x, target.y, arcs)) for target in targets]


def _placed_in_sight(
    ctx: BattleContext, ship: ShipInPlay, sighted: _Sighted
) -> Sequence[tuple[str, str, float]]:
    """:func:`_placed` of every ship in sight, kept by the ship's place and course and the
    places in sight (by identity; each entry holds them): a ship whose record changed, hit or
    having fired, sees them from where it was."""
    places, arcs = sighted.places, ctx.rules.arcs
    key = (ship.x, ship.y, ship.course, id(places), id(arcs))
    known = _PLACED.get(key)
    if known is not None and known[0] is places and known[1] is arcs:
        return known[2]
    placed = _placed(ctx, ship, sighted.ships)
    if len(_PLACED) >= _OPTIONS_KEPT:
        _PLACED.clear()
    _PLACED[key] = (places, arcs, placed)
    return placed


_PLACED: dict[
    tuple[float, float, int, int, int],
    tuple[tuple[tuple[str, float, float], ...], tuple[str, ...], list[tuple[str, str, float]]],
] = {}
""":func:`_placed_in_sight` by the firer's place and course and the places in sight."""


def _guns(sheet: Ship) -> tuple[tuple[int, SystemSpec], ...]:
    """The sheet's systems that may fire at a ship in the fire phase (:func:`_reach`: beams,
    pulse torpedoes, needles, submunition packs, boarding torpedoes, scatterguns), by place,
    in its order; not salvo racks or launchers, whose salvos fly at a point
    (:func:`launch_options`), nor any other system, which reaches nothing."""
    return tuple(
        (index, spec)
        for index, spec in enumerate(sheet.systems)
        if spec.kind not in RACKS
        and spec.kind not in LAUNCHERS
        and (
            is_beam(spec.kind)
            or spec.kind in TORPEDOES
            or spec.kind in NEEDLES
            or spec.kind in (SUBMUNITION, BOARDING_TORPEDO, SCATTERGUN)
        )
    )


def _aft_reach(
    ctx: BattleContext, ship: ShipInPlay, placed: Sequence[tuple[str, str, float]]
) -> float:
    """How far the ship's sensors let its weapons fire aft, worked out only when a target
    lies in the aft arc; 0 when they do not (:func:`aft_sight`)."""
    if not any(arc == AFT for _t, arc, _d in placed):
        return 0.0
    aft = aft_sight(ctx, ship)
    return aft.reach if aft is not None else 0.0


def death_blossom(ctx: BattleContext, ship: ShipInPlay) -> bool:
    """Whether the ship fires any weapon at any target in range, whatever its arcs: the
    optional "Death Blossom" of a ship spinning at rate 12 or more (003 L266-271)."""
    return ctx.rules.death_blossom and abs(ship.spin) >= DEATH_BLOSSOM_RATE


def aft_sight(ctx: BattleContext, ship: ShipInPlay) -> AftSight | None:
    """Return what a ship's advanced sensors let its weapons do through its aft arc, or
    ``None``: nothing (000 L2591-2597) unless working superior sensors augment its FireCon, to
    36 MU at -1 (000 L15347-15351), or enhanced sensors, to 24 MU, a hit on a 6 only
    (L15257-15267), under the ``sensors_ecm`` option (see docs/rulings.md, "Tactical: ECM and
    advanced sensors"). "Any weapons fired through the Aft arc": beams, torpedoes, needles,
    submunition packs and boarding torpedoes alike; salvos and heavy missiles are launched at
    a point, not fired at a ship, and stay barred (:func:`launch_problem`). Sensors that made
    an active scan this turn gathered intelligence, and "can be used to augment fire control
    sensors or to reveal tactical information ... but not both on the same turn" (000
    L15239-15245, L15329-15335). Under spatial movement never: "ships can never fire ship to
    ship weapons through their rear arc" (003 L68-70)."""
    if not ctx.rules.sensors_ecm or ship.scanned or ctx.rules.movement == "spatial":
        return None
    working = {
        spec.kind
        for spec, now in zip(ctx.sheets[ship.id].systems, ship.record.systems, strict=True)
        if now.status == "ok"
    }
    if "superior_sensors" in working:
        return SUPERIOR_AFT
    if "enhanced_sensors" in working:
        return ENHANCED_AFT
    return None


def _aft_help(ctx: BattleContext, firer: ShipInPlay, kind: str, arc: str) -> AftSight | None:
    """The sensors' help a shot through this arc fires with: none but through the aft arc, and
    none for a scattergun, which fires aft "like PDS" (000 L7516-7518), or a ship whose aft
    arc is open by FT Lite's rule, having used no thrust (002 L51)."""
    if arc != AFT or kind == SCATTERGUN:
        return None
    if ctx.rules.aft_fire == "unthrusted" and not firer.thrusted:
        return None
    return aft_sight(ctx, firer)


def launch_options(ctx: BattleContext, state: BattleState, ship_id: str) -> tuple[str, ...]:
    """Return the salvo missile racks and launchers that can launch now, in a firing turn's
    shots as ``Shot(launcher, SALVO_AIM, "x,y")`` (see :func:`launch_problem`).

    A rack holding its salvo, or a launcher whose magazine works and holds a load (000
    L6044-6060); none while the ship may fire no offensive weapon (001 L898, L919; 000
    L11151-11157).
    """
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    known = _LAUNCHES.get(id(ship))
    if known is not None and known[0] is ship and known[1] is sheet:
        return known[2]
    ready: tuple[str, ...] = ()
    if not (ship.sweeping or ship.record.out_of_control or ship.nova):
        ready = tuple(
            [
                launcher
                for launcher in read_off(sheet, _launchers)
                if launcher_ready(sheet, ship.record, launcher)
            ]
        )
    if len(_LAUNCHES) >= _OPTIONS_KEPT:
        _LAUNCHES.clear()
    _LAUNCHES[id(ship)] = (ship, sheet, ready)
    return ready


_LAUNCHES: dict[int, tuple[ShipInPlay, Ship, tuple[str, ...]]] = {}
""":func:`launch_options` by the ship's identity, with the record sheet it was read off (each
entry holds both): a side's orders ask it of every enemy for each of its ships, and its
fire of every ship that may fire."""


def _launchers(sheet: Ship) -> tuple[str, ...]:
    """The sheet's salvo missile racks and launchers, in its order."""
    return tuple(spec.id for spec in sheet.systems if spec.kind in RACKS or spec.kind in LAUNCHERS)


def fire_controls(ctx: BattleContext, ship: ShipInPlay) -> int:
    """Return the working FireCons: one target each (001 L380); none while the ship's area
    ECM is switched on, which blinds them (000 L7778-7784)."""
    sheet = ctx.sheets[ship.id]
    known = _FIRECONS.get(id(ship))
    if known is not None and known[0] is ship and known[1] is sheet and known[2] is ctx.rules:
        return known[3]
    working = 0
    if not ecm_systems(ctx, ship, AREA_ECM):
        systems = ship.record.systems
        if len(systems) == len(sheet.systems):  # the sheet's FireCons' places, read off once
            working = sum(
                [1 for index in read_off(sheet, _firecons) if systems[index].status == "ok"]
            )
        else:
            working = sum(
                1
                for spec, sys_state in zip(sheet.systems, systems, strict=True)
                if spec.kind == "firecon" and sys_state.status == "ok"
            )
    if len(_FIRECONS) >= _OPTIONS_KEPT:
        _FIRECONS.clear()
    _FIRECONS[id(ship)] = (ship, sheet, ctx.rules, working)
    return working


_FIRECONS: dict[int, tuple[ShipInPlay, Ship, object, int]] = {}
""":func:`fire_controls` by the ship's identity, with the record sheet and rules it was read
with (each entry holds them): a ship's firing asks it of its commander's choice, of the
shots it keeps and of the check of its fire."""


def _firecons(sheet: Ship) -> tuple[int, ...]:
    """The places of the sheet's FireCons among its systems (:func:`fire_controls`)."""
    return tuple(index for index, spec in enumerate(sheet.systems) if spec.kind == "firecon")


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
    return firecons_taken({shot.weapon: sheet.system(shot.weapon).kind for shot in shots}, shots)


def firecons_taken(kinds: Mapping[str, str], shots: Sequence[Shot]) -> int:
    """:func:`firecons_needed`, each shot's weapon's kind given (``kinds``, by weapon id): for
    a caller that weighs many sets of one ship's shots."""
    uses: set[tuple[str, str]] = set()
    for shot in shots:
        kind = kinds[shot.weapon]
        if kind in (NOVA, SCATTERGUN):
            continue  # the nova needs none (digest 4.5), a scattergun its own (000 L7502-7506)
        if kind in RACKS or kind in LAUNCHERS:
            continue  # the launch phase's FireCons: launch_problem (_launches)
        uses.add((shot.target, _firecon_use(kind, shot)))
    # Beams ride on a class-N needle FireCon at the same ship (000 L4552-4554).
    aimed = {target for target, use in uses if use.startswith(_FOCUSED)}
    return len(uses) - sum(1 for target, use in uses if use == "beams" and target in aimed)


def flight_options(state: BattleState, ship_id: str) -> tuple[str, ...]:
    """Return the multi-stage markers this ship launched that may fly their second stage in
    its firing turn, as ``Shot(salvo id, SALVO_AIM, "x,y")`` (see :func:`flight_shot_problem`;
    000 L6267-6277; docs/rulings.md, "Multi-stage missiles")."""
    return tuple(
        salvo.id
        for salvo in state.salvos
        if salvo.id.startswith(f"{ship_id}.") and salvo.may_fly(state.turn)
    )


def flight_shot_problem(state: BattleState, ship_id: str, shot: Shot) -> str | None:
    """Return why a ship may not fly its multi-stage marker to this aim point now, or
    ``None``: 16 to 24 MU within the marker's 60° front arc (000 L6271-6285)."""
    point = parse_aim(shot.aim)
    if point is None:
        return f"a missile's second stage needs an aim point x,y, not {shot.aim!r}"
    salvo = next(s for s in state.salvos if s.id == shot.weapon)
    if not salvo.id.startswith(f"{ship_id}."):
        return f"salvo {salvo.id} was not launched by {ship_id}"
    return flight_problem(salvo, state.turn, *point)


def _flights(state: BattleState, shots: Sequence[Shot]) -> list[Shot]:
    """The shots that fly a salvo marker in flight (named by its id) rather than fire a
    weapon."""
    if not state.salvos:
        return []
    markers = {salvo.id for salvo in state.salvos}
    return [shot for shot in shots if shot.weapon in markers]


def _fly_salvo(state: BattleState, shot: Shot) -> BattleState:
    """Fly a multi-stage marker's second stage to its new aim point, facing the way it flew
    (000 L6257-6263, L6271-6277)."""
    point = parse_aim(shot.aim)
    assert point is not None  # checked by flight_shot_problem
    salvos = tuple(
        msgspec.structs.replace(
            salvo,
            x=point[0],
            y=point[1],
            course=facing_to(salvo.x, salvo.y, *point),
            flown=state.turn,
        )
        if salvo.id == shot.weapon
        else salvo
        for salvo in state.salvos
    )
    return msgspec.structs.replace(state, salvos=salvos)


def launch_problem(
    ctx: BattleContext, state: BattleState, ship_id: str, launcher: str, aim: str | None
) -> str | None:
    """Return why a launcher may not send a salvo at this aim point now, or ``None``.

    The aim point (``x,y``) must be within 24 MU of the ship, 36 MU for extended range, and
    inside the launcher's arcs (000 L5749-5757); never aft, as for every offensive weapon,
    advanced sensors or not: a salvo or heavy missile is launched at a point in phase 3, not
    fired at a ship, and its attack has no hit die for "a hit on a die roll of 6" to read
    (000 L15257-15261; docs/rulings.md, "Tactical: ECM and advanced sensors"); and no
    asteroid may lie across the line to it (000 L5757-5759, L17810-17812).
    """
    point = parse_aim(aim)
    if point is None:
        return f"a salvo needs an aim point x,y, not {aim!r}"
    ship = state.ship(ship_id)
    sheet = ctx.sheets[ship_id]
    reach, _er = launch_range(sheet, launcher)
    distance = range_between(ship.x, ship.y, *point)
    if distance > reach:
        return f"the aim point is {distance:.1f} MU away, beyond {reach:g} MU (000 L5749-5753)"
    if multi_stage(sheet, launcher) and distance < STAGE_MIN_MU:
        return (
            f"the aim point is {distance:.1f} MU away; a multi-stage missile's marker is placed "
            f"{STAGE_MIN_MU:g} to {reach:g} MU from the launcher (000 L6253-6257)"
        )
    arc = arc_of(bearing(ship.x, ship.y, ship.course, *point), ctx.rules.arcs)
    if (
        distance > 0
        and not death_blossom(ctx, ship)
        and (arc == AFT or arc not in sheet.system(launcher).arcs)
    ):
        return f"the aim point is in the {arc} arc, outside the launcher's arcs (000 L5753-5757)"
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
    sheet = ctx.sheets[ship_id]
    if not read_off(sheet, _has_class_n_needles):
        return None
    ship = state.ship(ship_id)
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


def _has_class_n_needles(sheet: Ship) -> bool:
    """Whether the sheet mounts a class-N needle beam (:func:`needle_focus_problem`)."""
    return any(spec.kind in NEEDLE_STRENGTH for spec in sheet.systems)


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


class _Where:
    """What a refusal of a firing turn names, ``fire b-1>x, ... by 'ship' on turn n``,
    written out only when a refusal is (a legal turn, the usual one, never reads it)."""

    __slots__ = ("ship_id", "shots", "turn")

    def __init__(self, ship_id: str, shots: Sequence[Shot], turn: int) -> None:
        self.ship_id, self.shots, self.turn = ship_id, shots, turn

    def __str__(self) -> str:
        listed = ", ".join(f"{s.weapon}>{s.target}" for s in self.shots) or "no shots"
        return f"fire {listed} by {self.ship_id!r} on turn {self.turn}"


def check_fire(ctx: BattleContext, state: BattleState, ship_id: str, shots: Sequence[Shot]) -> None:
    where = _Where(ship_id, shots, state.turn)
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
    options = _shot_options(ctx, state, ship, shots)
    seen: set[str] = set()
    flights = _flights(state, shots)
    for shot in flights:
        if shot.weapon in seen:
            raise IllegalActionError(f"{where}: {shot.weapon} flies once a turn (000 L6281-6285)")
        seen.add(shot.weapon)
        problem = flight_shot_problem(state, ship_id, shot)
        if problem is not None:
            raise IllegalActionError(f"{where}: {shot.weapon}: {problem}")
    shots = [shot for shot in shots if shot not in flights]
    sheet = ctx.sheets[ship_id]
    kinds: dict[str, str] = {}  # each weapon's kind, read once it is known to reach
    for shot in shots:
        if shot.weapon in seen:
            raise IllegalActionError(f"{where}: {shot.weapon} fires once a turn (001 L443)")
        seen.add(shot.weapon)
        if shot.target == SALVO_AIM and shot.weapon in launch_options(ctx, state, ship_id):
            pass  # the aim point is checked below
        elif shot.target not in options.get(shot.weapon, ()):
            why = _unreachable(ctx, state, ship, shot.weapon, shot.target)
            raise IllegalActionError(f"{where}: {shot.weapon} cannot reach {shot.target} ({why})")
        kind = kinds[shot.weapon] = sheet.system(shot.weapon).kind
        needle = kind in NEEDLES
        if needle and ctx.rules.core_systems and shot.aim in CORE_SYSTEMS:
            raise IllegalActionError(
                f"{where}: {shot.weapon} cannot aim at the core system {shot.aim!r}: needle "
                "beams fire only at surface features (000 L11115-11121)"
            )
        if (
            needle
            and shot.aim not in needle_aims(ctx, state, shot.target)
            and not _aimed_blind(ctx, state, ship, shot)
        ):
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
    aims = {
        shot.aim for shot in shots if kinds[shot.weapon] in RACKS or kinds[shot.weapon] in LAUNCHERS
    }
    if aims and len(aims) > fire_controls(ctx, ship):
        raise IllegalActionError(
            f"{where}: {len(aims)} aim points and {fire_controls(ctx, ship)} working FireCons "
            "(a FireCon for each launch, 000 L5769-5773)"
        )
    _check_magazines(sheet, ship, shots, where)
    _check_firecons(ctx, state, ship, shots, kinds, where)


def _check_magazines(sheet: Ship, ship: ShipInPlay, shots: Sequence[Shot], where: _Where) -> None:
    """Refuse launches and boarding torpedoes that draw more loads on a magazine than it
    holds: a salvo each (000 L6056-6058), a torpedo each, hit or miss (000 L5090-5100)."""
    drawn: dict[str, int] = {}
    for fed in (feeds(sheet), torpedo_feeds(sheet)):
        for shot in shots:
            if shot.weapon in fed:
                drawn[fed[shot.weapon]] = drawn.get(fed[shot.weapon], 0) + 1
    if not drawn:
        return
    loads = {s.id: s.ammo or 0 for s in ship.record.systems}
    for magazine, count in drawn.items():
        if count > loads[magazine]:
            raise IllegalActionError(
                f"{where}: {count} launchers draw on {magazine}, which holds {loads[magazine]}"
            )


def _check_firecons(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    shots: Sequence[Shot],
    kinds: Mapping[str, str],
    where: _Where,
) -> None:
    """Refuse shots beyond the ship's FireCons (001 L380, L829; 000 L4546-4554) or its
    sensors' needle focus (000 L4525-4529); ``kinds``, each shot's weapon's kind."""
    needed = firecons_taken(kinds, shots)
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
    arcs = next((s.arcs for s in ctx.sheets[ship.id].systems if s.id == weapon), ())
    if target is not None and AFT in arcs and kind != SCATTERGUN and ctx.rules.sensors_ecm:
        bearing_to = bearing(ship.x, ship.y, ship.course, target.x, target.y)
        aft = aft_sight(ctx, ship)
        distance = range_between(ship.x, ship.y, target.x, target.y)
        astern = arc_of(bearing_to, ctx.rules.arcs) == AFT and ctx.rules.movement != "spatial"
        if astern and (aft is None or distance > aft.reach):
            return (
                f"it is {distance:.1f} MU away in the aft arc, where weapons fire only with "
                "working enhanced sensors to 24 MU or superior sensors to 36 MU that made no "
                "scan this turn, 000 L2591-2601, L15257-15259, L15347-15349"
            )
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
    return fired(ctx, state, ship_id, shots, dice)[1]


def fired(
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: Sequence[Shot],
    dice: DiceSource,
) -> tuple[BattleState, ShipFired]:
    """:func:`fire_ship`, and the state after it: the state ``evolve`` folds the event into
    (check_fire and fire_shots, its dice replayed), so a live battle need not fold it again."""
    check_fire(ctx, state, ship_id, shots)
    recording = RecordingDice(dice)
    after, event = fire_shots(ctx, state, ship_id, tuple(shots), recording)
    return after, msgspec.structs.replace(event, rolls=tuple(recording.rolls))


def fire_shots(  # noqa: PLR0915 - novas, launches and aimed fire in declaration order
    ctx: BattleContext,
    state: BattleState,
    ship_id: str,
    shots: tuple[Shot, ...],
    dice: DiceSource,
) -> tuple[BattleState, ShipFired]:
    """Resolve a checked firing turn target by target, in declaration order (digest A11);
    a nova cannon's template first, since it fires alone (001 L919)."""
    turn = state.turn
    firer = state.ship(ship_id)
    firer_sheet = ctx.sheets[ship_id]
    rolled: list[ShotRoll] = []
    hits: list[Hit] = []
    thresholds: list[Threshold] = []
    landed: list[Landing] = []
    taken: list[str] = []  # captured ships destroyed
    flights = _flights(state, shots)
    if flights:
        for shot in flights:
            state = _fly_salvo(state, shot)
            rolled.append(ShotRoll(weapon=shot.weapon, target=SALVO_AIM, faces=(), aim=shot.aim))
        shots = tuple(shot for shot in shots if shot not in flights)
    specs = {shot.weapon: firer_sheet.system(shot.weapon) for shot in shots}  # read once
    kinds = {weapon: spec.kind for weapon, spec in specs.items()}
    # The nova, the launches, and the aimed shots by target in declaration order, in one pass.
    novas: list[Shot] = []
    launched: list[Shot] = []
    aimed: dict[str, list[Shot]] = {}
    for shot in shots:
        kind = kinds[shot.weapon]
        if kind == NOVA:
            novas.append(shot)
        elif kind in RACKS or kind in LAUNCHERS:
            launched.append(shot)
        else:
            aimed.setdefault(shot.target, []).append(shot)
    tubes = dict(firer.tubes)
    burst: list[str] = []  # overloaded tubes destroyed by their own warhead
    spent = _spend_rounds(firer_sheet, firer, shots, specs)
    if spent is not firer:  # a new state only when a round or torpedo was crossed off
        state = replace_ship(state, spent)
    if shots and firer.bogey is not None:
        # A ship that fires gives itself away (see docs/rulings.md).
        state = replace_ship(state, identified(state.ship(ship_id)))
    nova: list[NovaHit] = []
    for shot in novas:
        # The round flies 6" out, then the 2" template moves 18" on (001 L921-923).
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
    key = f"t{turn}/fire/{ship_id}"
    for target_id, at_target in aimed.items():
        target = state.ship(target_id)
        sheet = ctx.sheets[target_id]
        screen = working_screen(ctx, target)
        screened = rerolled = 0
        torpedoes: list[int] = []
        piercing: list[int] = []
        boarding_hits = 0
        record = target.record
        # The target's range and arc, the same for every shot at it.
        arc, distance = placement(
            firer.x, firer.y, firer.course, target.x, target.y, ctx.rules.arcs
        )
        for shot in at_target:
            kind = kinds[shot.weapon]
            aft = _aft_help(ctx, firer, kind, arc) if arc == AFT else None
            if kind == BOARDING_TORPEDO:
                rolled.append(_boarding_torpedo(ctx, dice, key, shot, distance, aft))
                boarding_hits += len(rolled[-1].damage)
                continue
            if kind in TORPEDOES:
                setting = dict(firer.settings).get(shot.weapon)
                rolled.append(_torpedo(ctx, dice, key, shot, distance, kind, setting, aft))
                warhead = torpedo_warhead(kind, setting)
                points = [face + warhead.plus for face in rolled[-1].damage]
                (piercing if warhead.ap else torpedoes).extend(points)
                if kind in TORPEDO_SETTINGS and OVERLOAD in TORPEDO_SETTINGS[kind]:
                    tubes[shot.weapon] = turn  # it may not overload next turn (000 L4681-4685)
                if rolled[-1].backfire == (1,):
                    burst.append(shot.weapon)
                continue
            if kind == NEEDLE:
                record, needled = _needle(dice, key, shot, record)
                rolled.append(needled)
                graze = die_hits(needled.faces[0], NEEDLE_GRAZE, aft)
                rerolled += 1 if ctx.rules.needle_hull and graze else 0
                continue
            if kind in NEEDLE_STRENGTH:
                record, needled = _class_needle(dice, key, kind, shot, distance, record)
                rolled.append(needled)
                # A point a die of 4+, past screens, armour first as beam damage (000
                # L4558-4560, L4574-4580; docs/rulings.md); aft, a hit as the sensors allow.
                screened += sum(1 for face in needled.faces if die_hits(face, NEEDLE_HIT, aft))
                continue
            outcome = _beams(ctx, dice, key, kind, shot, distance, screen, aft)
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
    touches, friend or foe (001 L923-929).

    Each ship touched takes the stage's dice at face value, screens ignored (001 L927-929),
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
        return state, None  # burnt out after its third move (001 L925)
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
    """Move every burning nova template on at the start of the firing (001 L925)."""
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
    aft: AftSight | None = None,
) -> BeamOutcome:
    """Roll a beam battery, or a submunition pack's beam dice past screens (001 L862-864), or
    a scattergun's direct fire, "1 BD* hits ... unaffected by screens" (000 L7536-7540);
    ``aft`` names the sensors that let it fire through the aft arc (:func:`aft_sight`)."""
    reroll = ctx.rules.beam_reroll
    if kind == SUBMUNITION:
        count, screen = submunition_dice(distance), 0
    elif kind == SCATTERGUN:
        count, screen, reroll = 1, 0, True  # BD*: a penetrating die, whatever the preset
    else:
        count = beam_dice(kind, distance)
    key = f"{key}/{shot.weapon}"
    if aft is not None and aft.sixes_only:
        return roll_beams(dice, key, count, screen, reroll=reroll, score=score_aft_die)
    if aft is not None:
        return roll_beams(dice, key, count, screen, reroll=reroll, drm=aft.drm, reroll_drm=0)
    return roll_beams(dice, key, count, screen, reroll=reroll)


def _launch_salvo(ctx: BattleContext, state: BattleState, ship_id: str, shot: Shot) -> BattleState:
    """Place a salvo marker at its aim point and cross off a launcher's load from its magazine
    (000 L5743-5763, L6056-6074); a rack's own round is spent by :func:`_spend_rounds`."""
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
        heavy=sheet.system(shot.weapon).kind in HEAVY_RACKS,
    )
    if multi_stage(sheet, shot.weapon):
        # Facing the nearest clock point away from the launcher (000 L6253-6263).
        salvo = msgspec.structs.replace(
            salvo, stages=2, course=facing_to(ship.x, ship.y, point[0], point[1])
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


def _spend_rounds(
    sheet: Ship, firer: ShipInPlay, shots: Sequence[Shot], specs: Mapping[str, SystemSpec]
) -> ShipInPlay:
    """Cross off a round of every one-shot weapon fired (001 L858), and a torpedo from the
    magazine of each boarding torpedo launcher fired, hit or miss (000 L5090-5100); ``specs``,
    each shot's weapon on the sheet."""
    spent = {shot.weapon: 1 for shot in shots if specs[shot.weapon].ammo is not None}
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


def _aimed_blind(ctx: BattleContext, state: BattleState, ship: ShipInPlay, shot: Shot) -> bool:
    """A needle aimed from what the firer's side knows: under closed record sheets it sees
    an enemy ship below "everything" with its original values, or its estimate (see
    :func:`tactical.battle.side_view`), so any aim it names stands, and a 6 at a system the
    ship has not got destroys nothing (:func:`_needle_kill`)."""
    if shot.aim is None or not sheets_closed(ctx):
        return False
    return known_level(ctx, state, ship.side, state.ship(shot.target)) < DAMAGE_KNOWN


def _needle_kill(record: ShipState, aim: str) -> ShipState:
    """A needle's 6 at its aim: the drive is hit, or the system destroyed; at a system the
    ship has not got (an aim named blind, :func:`_aimed_blind`), nothing, as a needle fired
    without its sensors' information, whose "rolls of a 6 do not damage the targeted
    system" (000 L4507-4513)."""
    if aim == DRIVE:
        return hit_drive(record)
    if any(s.id == aim for s in record.systems):
        return with_system_status(record, aim, "destroyed")
    return record


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
    if shot.aim is None:  # checked before firing
        raise IllegalActionError(f"{shot.weapon} fired at {shot.target} with no aim")
    return _needle_kill(record, shot.aim), rolled


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
        record = _needle_kill(record, shot.aim)
    return record, ShotRoll(weapon=shot.weapon, target=shot.target, faces=faces, aim=shot.aim)


def _torpedo(
    ctx: BattleContext,
    dice: DiceSource,
    key: str,
    shot: Shot,
    distance: float,
    kind: str,
    setting: str | None = None,
    aft: AftSight | None = None,
) -> ShotRoll:
    """Roll one pulse torpedo: a D6 to hit by range in the bands of its row under its setting,
    then its damage die (001 L833-842; 000 L4626-4658, every size the same 1D6 SAP; 000
    L4669-4800 for an overloaded or a variable torpedo, :func:`~tactical.fire.torpedo_warhead`).
    Fired aft with the sensors' help (``aft``), the to-hit die reads as they say
    (:func:`~tactical.fire.die_hits`, 000 L15257-15261, L15347-15349); the damage die is not a
    hit and is rolled as usual.

    An overloaded torpedo whose damage die shows 1 rolls a second D6, ``backfire``: on a 1 the
    tube is destroyed (000 L4708-4714), which the caller does.
    """
    need = torpedo_to_hit(ctx.rules.torpedo_to_hit, distance, torpedo_band(kind, setting))
    if need is None:  # checked before firing; a target cannot move away mid-phase
        raise IllegalActionError(f"{shot.weapon} cannot reach {shot.target} at {distance:.1f}")
    warhead = torpedo_warhead(kind, setting)
    face = dice.roll(f"{key}/{shot.weapon}/hit", 6)
    hit = die_hits(face, need, aft)
    damage = (dice.roll(f"{key}/{shot.weapon}/damage", warhead.sides),) if hit else ()
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
    ctx: BattleContext,
    dice: DiceSource,
    key: str,
    shot: Shot,
    distance: float,
    aft: AftSight | None = None,
) -> ShotRoll:
    """Roll one boarding torpedo on the projectile table's standard row, ``{key}/{weapon}/hit``
    (000 L5118-5122), aft as the sensors allow (:func:`~tactical.fire.die_hits`); a hit is
    recorded as its point of damage in ``damage``."""
    need = torpedo_to_hit(ctx.rules.torpedo_to_hit, distance)
    if need is None:  # checked before firing; a target cannot move away mid-phase
        raise IllegalActionError(f"{shot.weapon} cannot reach {shot.target} at {distance:.1f}")
    face = dice.roll(f"{key}/{shot.weapon}/hit", 6)
    damage = (TORPEDO_HULL,) if die_hits(face, need, aft) else ()
    return ShotRoll(weapon=shot.weapon, target=shot.target, faces=(face,), damage=damage)
