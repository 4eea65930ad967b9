"""The random commander: random legal actions from a ``random.Random`` the caller passes in,
for the tests and the fuzzing; the dice stay the battle's.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec

from tactical.battle import (
    NEEDLES,
    BattleContext,
    BattleState,
    ShipInPlay,
    Shot,
    assault_on,
    boarders_aboard,
    fire_controls,
    fire_options,
    flight_targets,
    free_parties,
    launch_options,
    launch_problem,
    launchable_bays,
    mine_layers,
    needle_aims,
    order_limits,
    repair_jobs,
    scan_limit,
    scramble_bays,
    setting_problem,
    ships_to_fire,
    sweeper_working,
)
from tactical.boarding import DCP_MOST, Assault, BoarderKind, Guard, Task, defending_marines
from tactical.commanders.scoring import (
    Assaults,
    Commander,
    Flight,
    Guards,
    Jobs,
    boarded,
    enemies_of,
    fed_launches,
    has_nova,
    repairable,
    torpedoes_fed,
    within_firecons,
)
from tactical.commanders.spatial import spatial_candidates
from tactical.commanders.steering import ram_course, settable
from tactical.fighters import HOLD, FighterGroup, FlightOrder
from tactical.fire import TORPEDO_SETTINGS, range_between
from tactical.mines import MINE_TENTHS
from tactical.missiles import SALVO_AIM, format_aim
from tactical.movement import NO_ORDER, PUSHES, Burn, Manoeuvre, Order, spatial_order
from tactical.repair import MAX_PARTIES_PER_JOB

RAM_ODDS = 0.15
"""How often a random commander's ship with an enemy near means to ram it."""


RAM_LOOK_MU = 20.0
"""How near an enemy must be for a random commander's ship to think of ramming it."""


RANDOM_SCAN_ODDS = 0.3


RANDOM_SCRAMBLE_ODDS = 0.3
RANDOM_SPIN_ODDS = 0.05  # a spatial ship's spin order (003 L249-264), and as often a push
"""How often a random commander's carrier with a group aboard stands ready to scramble."""


def _random_order(rng: random.Random, thrust: int, limit: int, speed: int, pivot: bool) -> Order:
    if rng.random() < 0.2:
        return NO_ORDER
    if pivot and speed == 0 and rng.random() < 0.3:
        return Order(pivot=rng.randint(1, 12))
    turn = rng.randint(-limit, limit) if limit else 0
    room = thrust - abs(turn)
    accel = rng.randint(max(-room, -speed), room) if room else 0
    return Order(turn=turn, accel=accel)


def _random_spatial_order(rng: random.Random, ctx: BattleContext, ship: ShipInPlay) -> Order:
    """A random spatial order (003): one of the commanders' candidates, or now and then a spin
    of any rate up to twice the thrust or a little over (void), or a push."""
    roll = rng.random()
    if roll < RANDOM_SPIN_ODDS:
        most = 2 * order_limits(ctx, ship)[0] + 1
        return spatial_order((Manoeuvre("Spin", rng.randint(-most, most)),))
    if roll < 2 * RANDOM_SPIN_ODDS:
        return spatial_order((Manoeuvre(rng.choice(("PushP", "PushS"))),))
    return rng.choice(spatial_candidates(ctx, ship))


def _random_vector_order(rng: random.Random, thrust: int, points: int) -> Order:
    """A random legal vector order: a rotation, a push and a burn in a random sequence, each
    maybe left out (000 L13411-13986)."""
    if rng.random() < 0.2:
        return NO_ORDER
    burns: list[Burn] = []
    if points and rng.random() < 0.5:
        burns.append(Burn(rng.choice(("TP", "TS")), rng.randint(1, 6)))
    left = points - len(burns)
    if left and rng.random() < 0.5:
        burns.append(Burn(rng.choice(PUSHES), rng.randint(1, left)))
    if thrust and rng.random() < 0.7:
        burns.append(Burn("MD", rng.randint(1, thrust)))
    rng.shuffle(burns)
    return Order(vector=tuple(burns))


def _random_shots(
    ctx: BattleContext, state: BattleState, ship_id: str, rng: random.Random
) -> list[Shot]:
    options = fire_options(ctx, state, ship_id)
    launchers = launch_options(ctx, state, ship_id)
    reachable = sorted({t for targets in options.values() for t in targets})
    rng.shuffle(reachable)
    chosen = set(reachable[: fire_controls(ctx, state.ship(ship_id))])
    shots: list[Shot] = []
    if launchers and fire_controls(ctx, state.ship(ship_id)) and rng.random() < 0.5:
        # A random point within 40 MU: where it is out of range or arc, the launch is dropped.
        ship = state.ship(ship_id)
        point = format_aim(ship.x + rng.uniform(-40, 40), ship.y + rng.uniform(-40, 40))
        fired = [
            Shot(w, SALVO_AIM, point)
            for w in launchers
            if launch_problem(ctx, state, ship_id, w, point) is None
        ]
        shots.extend(fed_launches(ctx, state, ship_id, fired))
    for weapon, targets in options.items():
        allowed = [t for t in targets if t in chosen]
        if allowed and rng.random() < 0.9:
            target = rng.choice(allowed)
            aim = None
            if ctx.sheets[ship_id].system(weapon).kind in NEEDLES:
                aims = needle_aims(ctx, state, target)
                if not aims:
                    continue
                aim = rng.choice(aims)
            shots.append(Shot(weapon, target, aim))
    return torpedoes_fed(ctx, state, ship_id, within_firecons(ctx, state, ship_id, shots))


def random_commander(
    rng: random.Random, *, impossible: float = 0.05, ram: float = RAM_ODDS
) -> Commander:
    """Return a commander that writes random orders and fires random legal shots.

    With probability ``impossible`` an order is over the ship's thrust, to exercise the "no
    order" rule (001 L364), and a fifth of that a ram names any ship in sight, friend, foe or
    wreck. With probability ``ram`` a ship with an enemy within :data:`RAM_LOOK_MU` steers to
    ram one of them (:func:`ram_course`).
    """

    def orders(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        written: dict[str, Order] = {}
        for ship in state.ships:
            if ship.side != side or ship.status != "active":
                continue
            vector = ship.vector is not None
            if rng.random() < impossible:
                over = order_limits(ctx, ship)[0] + 1
                written[ship.id] = (
                    Order(vector=(Burn("TS", 1), Burn("MD", over)))
                    if vector
                    else Order(turn=-1, accel=over)
                )
                continue
            thrust, limit = order_limits(ctx, ship)
            pivot = ctx.rules.pivot_any_course
            written[ship.id] = (
                _random_spatial_order(rng, ctx, ship)
                if ctx.rules.movement == "spatial"
                else _random_vector_order(rng, thrust, limit)
                if vector
                else _random_order(rng, thrust, limit, ship.speed, pivot)
            )
            if launchable_bays(ctx, state, ship) and rng.random() < 0.3:
                written[ship.id] = Order(launch=rng.randint(1, 2))  # sometimes one too many
            scrambles = ctx.rules.fighter_scramble and bool(scramble_bays(ctx, state, ship))
            if scrambles and rng.random() < RANDOM_SCRAMBLE_ODDS:  # void if it applies thrust
                written[ship.id] = msgspec.structs.replace(written[ship.id], scramble=True)
            if has_nova(ctx, ship) and rng.random() < 0.3:
                written[ship.id] = Order(nova=True)
            layers = len(mine_layers(ctx, ship))
            if layers and rng.random() < 0.4:
                count = rng.randint(1, layers + 1)  # sometimes one too many
                mines = tuple(rng.randint(0, MINE_TENTHS) for _ in range(count))
                written[ship.id] = msgspec.structs.replace(written[ship.id], mines=mines)
            if sweeper_working(ctx, ship) and rng.random() < 0.4:
                written[ship.id] = msgspec.structs.replace(written[ship.id], sweep=True)
            written[ship.id] = _random_ram(ctx, state, ship, written[ship.id], rng, ram, impossible)
            if state.bogeys and rng.random() < RANDOM_SCAN_ODDS:
                written[ship.id] = _random_scan(ctx, state, ship, written[ship.id], rng)
            if settable(ctx, ship):
                written[ship.id] = _random_settings(ctx, state, ship, written[ship.id], rng)
        return written

    def flight(ctx: BattleContext, state: BattleState, side: str) -> Flight:
        orders: Flight = {}
        for group in state.fighters:
            if group.side != side or rng.random() < 0.1:
                continue
            orders[group.id] = _random_flight(ctx, state, group, rng)
        return orders

    def fire(ctx: BattleContext, state: BattleState, side: str) -> tuple[str, list[Shot]]:
        ship_id = rng.choice(ships_to_fire(ctx, state, side))
        return ship_id, _random_shots(ctx, state, ship_id, rng)

    def repairs(ctx: BattleContext, state: BattleState, side: str) -> Jobs:
        jobs: Jobs = {}
        for ship in state.ships:
            if ship.side != side or not repairable(ctx, ship) or rng.random() < 0.2:
                continue
            left = free_parties(ctx, ship)
            work: dict[str, int] = {}
            for target in rng.sample(repair_jobs(ctx, ship), len(repair_jobs(ctx, ship))):
                if left <= 0:
                    break
                work[target] = rng.randint(1, min(MAX_PARTIES_PER_JOB, left))
                left -= work[target]
            jobs[ship.id] = work
        return jobs

    return Commander(orders, fire, repairs, flight, _random_assaults(rng), _random_repel(rng))


def _random_assaults(rng: random.Random) -> Callable[[BattleContext, BattleState, str], Assaults]:
    """Random legal assaults: any number of the boarders aboard a ship with marines engage
    them, or the side writes nothing for it (all on the hull)."""

    def assaults(ctx: BattleContext, state: BattleState, side: str) -> Assaults:
        allotted: Assaults = {}
        for ship in state.ships:
            if ship.side == side or not boarded(ctx, ship) or rng.random() < 0.2:
                continue
            if defending_marines(ctx.sheets[ship.id], ship.record):
                marines, parties = boarders_aboard(ship)
                allotted[ship.id] = Assault(
                    marines=rng.randint(0, marines), parties=rng.randint(0, parties)
                )
        return allotted

    return assaults


def _random_repel(rng: random.Random) -> Callable[[BattleContext, BattleState, str], Guards]:
    """Random legal guards (:func:`_random_guards`), or none for a ship now and then."""

    def repel(ctx: BattleContext, state: BattleState, side: str) -> Guards:
        guards: Guards = {}
        for ship in state.ships:
            if ship.side != side or not boarded(ctx, ship) or rng.random() < 0.1:
                continue
            guards[ship.id] = _random_guards(ctx, state, ship, rng)
        return guards

    return repel


def _random_guards(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, rng: random.Random
) -> tuple[Guard, ...]:
    """Random legal guards: each boarder, in a random order, gets some of the DCPs and
    marines left, or none."""
    marines, parties = boarders_aboard(ship)
    assault = assault_on(state, ship)
    units: list[tuple[BoarderKind, Task]] = [
        *(("marine", "marines") for _ in range(assault.marines)),
        *(("marine", "hull") for _ in range(marines - assault.marines)),
        *(("party", "marines") for _ in range(assault.parties)),
        *(("party", "hull") for _ in range(parties - assault.parties)),
    ]
    rng.shuffle(units)
    dcps = free_parties(ctx, ship)
    defenders = len(defending_marines(ctx.sheets[ship.id], ship.record))
    guards: list[Guard] = []
    for kind, task in units:
        on_it = rng.randint(0, min(DCP_MOST, dcps))
        fighting = rng.randint(0, defenders)
        dcps, defenders = dcps - on_it, defenders - fighting
        if on_it or fighting:
            guards.append(Guard(kind, task, dcps=on_it, marines=fighting))
    return tuple(guards)


def _random_settings(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, rng: random.Random
) -> Order:
    """Give each torpedo that takes a setting a random one it may take this turn, or none
    (000 L4669-4800)."""
    settings: list[tuple[str, str]] = []
    for weapon, kind in settable(ctx, ship):
        allowed = [
            s for s in TORPEDO_SETTINGS[kind] if not setting_problem(ctx, state, ship, weapon, s)
        ]
        choice = rng.choice([None, *allowed])
        if choice is not None:
            settings.append((weapon, choice))
    return msgspec.structs.replace(order, torpedoes=tuple(settings))


def _random_flight(
    ctx: BattleContext, state: BattleState, group: FighterGroup, rng: random.Random
) -> FlightOrder:
    """Any flight order open to the group, now and then with a secondary move."""
    targets = flight_targets(ctx, state, group)
    choices = [
        *(FlightOrder(kind="attack", target=t) for t in targets.attack),
        *(FlightOrder(kind="dogfight", target=t) for t in targets.dogfight),
        *(FlightOrder(kind="intercept", target=t) for t in targets.intercept),
        *(FlightOrder(kind="cover", target=t) for t in targets.cover),
        FlightOrder(kind="recover"),
        HOLD,
    ]
    order = rng.choice(choices)
    if ctx.rules.fighter_secondary_move and order.kind != "hold" and rng.random() < 0.3:
        order = msgspec.structs.replace(order, secondary=True)  # 000 L8760-8774
    return order


def _random_ram(
    ctx: BattleContext,
    state: BattleState,
    ship: ShipInPlay,
    order: Order,
    rng: random.Random,
    odds: float,
    impossible: float,
) -> Order:
    """Now and then turn a random order into a ram on an enemy near (keeping its mines and
    sweep), or name any ship in sight to ram, which may be void."""
    near = [
        e
        for e in enemies_of(state, ship.side)
        if range_between(ship.x, ship.y, e.x, e.y) <= RAM_LOOK_MU
    ]
    chance = rng.random()
    if near and chance < odds:
        steer = ram_course(ctx, ship, rng.choice(near))
        return msgspec.structs.replace(steer, mines=order.mines, sweep=order.sweep)
    if chance > 1 - impossible / 5:
        victim = rng.choice(state.ships).id  # maybe itself, a friend or a wreck: void
        return msgspec.structs.replace(order, ram=victim)
    return order


def _random_scan(
    ctx: BattleContext, state: BattleState, ship: ShipInPlay, order: Order, rng: random.Random
) -> Order:
    """Add an active scan to a random order: of the nearest bogeys, or naming up to one more
    of the bogeys in sight than the ship may scan (001 L949), which is void."""
    labels = [b.label for b in state.bogeys if b.side != ship.side]
    count = rng.randint(0, min(len(labels), scan_limit(ctx, ship) + 1))
    return msgspec.structs.replace(order, scan=True, scan_for=tuple(rng.sample(labels, count)))
