"""Project Continuum's fighter types (000 8.15): each type against a standard group, built from
the rule text with scripted dice. The type comes from the bay's ``SystemSpec.fighters``."""

from __future__ import annotations

import msgspec

from tactical.battle import (
    BattleContext,
    BattleSetup,
    BattleState,
    FightersResolved,
    ShipSetup,
    context,
    evolve,
    initial_state,
    resolve,
    write_flight,
    write_orders,
)
from tactical.dice import ScriptedDice
from tactical.fighters import FighterGroup, fighter_type, parse_flight
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.points import build
from tactical.ship import PRESETS, Design, Mount, Ship
from tests.tactical.test_battle_fighters import in_flight

PC = PRESETS["continuum"]
BAY = "hangar_bay-1"


def carrier(kind: str, ship_id: str) -> Ship:
    """A Continuum carrier whose two hangar bays carry ``kind`` fighters. Types the price list
    does not know yet (heavy) are set on the record sheet's bays directly."""
    priced = kind if kind != "heavy" else "standard"
    design = Design(
        name="Carrier",
        rules="continuum",
        mass=100,
        thrust=2,
        hull_strength="average",
        fire_controls=2,
        systems=(
            Mount(kind="hangar_bay", fighters=priced, count=2),
            Mount(kind="launch_tube", count=2),
        ),
    )
    sheet = build(design, PC, ship_id=ship_id)
    systems = tuple(
        msgspec.structs.replace(s, fighters=kind) if s.fighters else s for s in sheet.systems
    )
    return msgspec.structs.replace(sheet, systems=systems)


def hulk(ship_id: str, screens: int = 0, pds: int = 0) -> Ship:
    """A target with no armour, ``screens`` and ``pds`` point-defence systems."""
    design = Design(
        name="Hulk",
        rules="continuum",
        mass=100,
        thrust=2,
        hull_strength="average",
        screens=screens,
        fire_controls=1,
        systems=(Mount(kind="pds", count=pds),) if pds else (),
    )
    return build(design, PC, ship_id=ship_id)


def table(red: Ship, blue: Ship, blue_y: float = 30) -> tuple[BattleContext, BattleState]:
    """Red's ship at the origin, blue's at (0, ``blue_y``) facing it, under Continuum."""
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12),
            ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=0, y=blue_y, course=6),
        ),
        rules="continuum",
    )
    ctx = context(setup)
    ctx = ctx._replace(sheets={"r1": red, "b1": blue})
    return ctx, initial_state(ctx)


def group(side: str, carrier_id: str, y: float, n: int = 6, **extra: object) -> FighterGroup:
    return FighterGroup(
        side=side, carrier=carrier_id, bay=BAY, x=0, y=y, fighters=n, endurance=6, **extra
    )


def fight(
    ctx: BattleContext, state: BattleState, flight: dict[str, str], faces: list[int]
) -> tuple[BattleState, FightersResolved]:
    for side in ctx.setup.sides:
        if any(g.side == side for g in state.fighters):
            event = write_flight(ctx, state, side, parse_flight(flight.get(side, "")))
            state = evolve(ctx, state, event)
    event = resolve(ctx, state, ScriptedDice([*faces, *[1] * 40]))  # 1s for threshold checks
    assert isinstance(event, FightersResolved)
    return evolve(ctx, state, event), event


def attack_run(kind: str, faces: list[int], screens: int = 0) -> FightersResolved:
    """A full group of ``kind`` fighters 4 MU from an undefended target makes an attack run."""
    ctx, state = table(carrier(kind, "r1"), hulk("b1", screens=screens))
    state = in_flight(ctx, state, group("red", "r1", 26))
    _, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, faces)
    return event


def dogfight(red: str, blue: str, faces: list[int]) -> FightersResolved:
    """A ``red`` group catches a ``blue`` group; red's dice are rolled first."""
    ctx, state = table(carrier(red, "r1"), carrier(blue, "b1"), blue_y=60)
    state = in_flight(ctx, state, group("red", "r1", 20), group("blue", "b1", 30))
    _, event = fight(ctx, state, {"red": f"r1.{BAY}:D>b1.{BAY}"}, faces)
    return event


# ---------------------------------------------------------------- the type of a bay


def test_the_type_comes_from_the_bay_and_ft2_bays_are_standard() -> None:
    sheet = carrier("attack", "r1")
    assert [s.fighters for s in sheet.systems if s.bay_capacity] == ["attack", "attack"]
    assert fighter_type("attack").ship_drm == 1
    assert fighter_type(None) == fighter_type("standard") == fighter_type("multi_role")


# ---------------------------------------------------------------- interceptors and attack fighters


def test_standard_attack_run_and_dogfight() -> None:
    """000 L9416-9434: a standard wing rolls BD* at ships (a B1: 4-5 one, 6 two and re-roll)
    and kills fighters like a PDS (4-5 one, 6 two and re-roll)."""
    (attack,) = attack_run("standard", [6, 5, 4, 3, 2, 1, 1]).attacks
    assert (attack.faces, attack.rerolls, attack.hit.damage) == ((6, 5, 4, 3, 2, 1), (1,), 4)
    (df,) = dogfight("standard", "standard", [3, 3, 5, 1, 1, 1, 3, 3, 5, 1, 1, 1]).dogfights
    assert (df.attacker_roll.kills, df.defender_roll.kills) == (1, 1)


def test_interceptors_kill_fighters_better_and_ships_worse() -> None:
    """000 L9593-9597: interceptors roll BD* at -2 against ships and +1 against fighters."""
    # Against ships 6 scores 6-2 = 4, one point, and its natural 6 still re-rolls; the re-roll
    # is at -2 too. Standard dice would score 2 + 1 + 1 = 4.
    (attack,) = attack_run("interceptor", [6, 5, 4, 3, 2, 1, 6, 1]).attacks
    assert attack.rerolls == (6, 1)
    assert attack.hit.damage == 1 + 1  # the first die and the re-rolled 6
    # In a dogfight 3 counts as 4 (one kill) and 5 as 6 (two), as the interceptor kills
    # light fighters at 000 L9929-9933; the standard group's same dice kill one.
    (df,) = dogfight("interceptor", "standard", [3, 3, 5, 1, 1, 1, 3, 3, 5, 1, 1, 1]).dogfights
    assert df.attacker_roll.rerolls == ()  # 5 + 1 scores as 6, but only a natural 6 re-rolls
    assert (df.attacker_roll.kills, df.defender_roll.kills) == (4, 1)


def test_attack_fighters_hit_ships_harder_and_fighters_worse() -> None:
    """000 L9619-9627: attack fighters roll BD* at +1 against ships, so against an unscreened
    ship 3-4 score one and 5-6 two, and at -2 against fighters."""
    (attack,) = attack_run("attack", [1, 2, 3, 4, 5, 6, 1]).attacks
    assert attack.rerolls == (1,)  # the natural 6; the re-roll scores 1 + 1 = 2, nothing
    assert attack.hit.damage == 0 + 0 + 1 + 1 + 2 + 2
    # Behind a level-1 screen the +1 still counts: 4 scores as 5 (one), 5 as 6 (two).
    (screened,) = attack_run("attack", [4, 5, 1, 1, 1, 1], screens=1).attacks
    assert screened.hit.damage == 3
    # In a dogfight a 6 scores as 4: one kill, with its re-roll (at -2 too); the standard
    # group's same dice kill seven.
    (df,) = dogfight("attack", "standard", [6, 5, 4, 4, 4, 4, 1, 6, 5, 4, 4, 4, 4, 1]).dogfights
    assert (df.attacker_roll.rerolls, df.attacker_roll.kills) == ((1,), 1)
    assert (df.defender_roll.rerolls, df.defender_roll.kills) == ((1,), 7)


# ---------------------------------------------------------------- fast, long range, heavy


def test_fast_fighters_move_36() -> None:
    """000 L9525-9527: a fast fighter's base move is 36 MU, not 24; a target 40 MU off is in
    reach of its attack run (within 6 MU) where a standard group ends 16 MU short."""
    ends = {}
    for kind in ("standard", "fast"):
        ctx, state = table(carrier(kind, "r1"), hulk("b1"), blue_y=40)
        state = in_flight(ctx, state, group("red", "r1", 0))
        state, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, [1] * 6)
        ends[kind] = (state.fighters[0].y, len(event.attacks))
    assert ends == {"standard": (24.0, 0), "fast": (36.0, 1)}


def test_long_range_fighters_launch_with_9_endurance() -> None:
    """000 L9557-9563: long-range fighters have 9 combat endurance, not 6 (000 L8482-8484)."""
    launched = {}
    for kind in ("standard", "long_range"):
        ctx, state = table(carrier(kind, "r1"), hulk("b1"), blue_y=80)
        state = evolve(ctx, state, write_orders(ctx, state, "red", {"r1": Order(launch=1)}))
        state = evolve(ctx, state, write_orders(ctx, state, "blue", {}))
        state = evolve(ctx, state, resolve(ctx, state, ScriptedDice([1, 2] + [1] * 20)))
        (flying,) = state.fighters
        launched[kind] = flying.endurance
    assert launched == {"standard": 6, "long_range": 9}


def test_heavy_fighters_shrug_off_point_defence_and_fighters() -> None:
    """000 L9489-9491: point defence, other fighters included, is at -1 against heavy fighters:
    a PDS 4 kills none, a 6 (5 after the -1) one and still re-rolls."""
    kills = {}
    for kind in ("standard", "heavy"):
        ctx, state = table(carrier(kind, "r1"), hulk("b1", pds=2))
        state = in_flight(ctx, state, group("red", "r1", 26))
        state, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, [4, 6, 1] + [1] * 10)
        kills[kind] = [d.roll.kills for d in event.defence]
    assert kills == {"standard": [1, 2], "heavy": [0, 1]}
    (df,) = dogfight("standard", "heavy", [4, 4, 5, 6, 1, 1, 1] + [1] * 6).dogfights
    assert df.attacker_roll.kills == 0 + 0 + 1 + 1  # 4 -> 3, 5 -> 4, 6 -> 5; re-roll 1 -> 0
    # Heavy fighters attack as conventional ones (000 L9472-9476).
    (attack,) = attack_run("heavy", [6, 5, 4, 3, 2, 1, 1]).attacks
    assert attack.hit.damage == 4


# ---------------------------------------------------------------- torpedo fighters


def test_torpedo_fighters_fire_their_pulse_torpedoes_once() -> None:
    """000 L9649-9680: the pulse torpedoes, range 6, hit on 4+ for their die roll in damage,
    past screens, all at once at one target, for 1 endurance and no beams that turn; then the
    group's beams roll BD* at -2."""
    ctx, state = table(carrier("torpedo", "r1"), hulk("b1", screens=2))
    state = in_flight(ctx, state, group("red", "r1", 26, torpedoes=True))
    counters = msgspec.structs.replace(state, ships=())  # the notation reads catalogue ships
    assert "^6/e6/pt" in format_position("continuum", counters)
    assert parse_position(format_position("continuum", counters)) == ("continuum", counters)
    state, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, [6, 5, 4, 3, 2, 1])
    (attack,) = event.attacks
    assert attack.torpedoes
    assert attack.hit.damage == 6 + 5 + 4  # a screen-2 hulk takes all of it
    assert not any(roll.key.startswith("t1/fighters/") for roll in event.rolls)  # no beams
    (flying,) = state.fighters
    assert (flying.torpedoes, flying.endurance) == (False, 5)
    # Next turn: the beams, at -2 behind the screens (6 -> 4 scores nothing at level 2).
    state = msgspec.structs.replace(state, phase="flight")
    state, event = fight(ctx, state, {"red": f"r1.{BAY}:A>b1"}, [6, 6, 5, 1, 1, 1, 1, 1])
    (beams,) = event.attacks
    assert not beams.torpedoes
    assert (beams.rerolls, beams.hit.damage) == ((1, 1), 0)


def test_torpedo_groups_launch_armed_and_replay() -> None:
    """A torpedo group launches with its torpedoes aboard (000 L9643-9647); its dice are in
    the event and fold back into the same state."""
    # 12 MU off: a group flies half its 24 MU on the turn it launches (000 L8526-8528).
    ctx, state = table(carrier("torpedo", "r1"), hulk("b1"), blue_y=12)
    state = evolve(ctx, state, write_orders(ctx, state, "red", {"r1": Order(launch=1)}))
    state = evolve(ctx, state, write_orders(ctx, state, "blue", {}))
    state = evolve(ctx, state, resolve(ctx, state, ScriptedDice([1, 2] + [1] * 20)))
    (flying,) = state.fighters
    assert flying.torpedoes
    event = write_flight(ctx, state, "red", parse_flight(f"r1.{BAY}:A>b1"))
    state = evolve(ctx, state, event)
    fired = resolve(ctx, state, ScriptedDice([5] * 6 + [1] * 40))
    assert isinstance(fired, FightersResolved)
    (attack,) = fired.attacks
    assert attack.torpedoes
    assert attack.hit.damage == 5 * 6
    assert [r.key for r in fired.rolls[:2]] == [
        f"t1/torpedoes/r1.{BAY}/0",
        f"t1/torpedoes/r1.{BAY}/1",
    ]
    after = evolve(ctx, state, fired)
    assert after == evolve(ctx, state, fired)
    assert sum(after.ship("b1").record.hull_lost) == 30
    assert not after.fighters[0].torpedoes


def test_the_commanders_plan_a_fast_groups_reach_at_36_mu() -> None:
    """000 L9525-9527: fast fighters move 36 MU; the commanders judge what a group can reach
    by its own move, not the standard 24: a defending fast group dogfights a raider 30 MU off
    that a standard group leaves alone."""
    from tactical.battle import group_reach
    from tactical.commanders import posture_flight

    for kind, reach, order in (("standard", 24.0, "cover"), ("fast", 36.0, "dogfight")):
        ctx, state = table(carrier(kind, "r1"), carrier("standard", "b1"), blue_y=60)
        mine = group("red", "r1", 0)
        raider = group("blue", "b1", 30)
        state = in_flight(ctx, state, mine, raider)
        assert group_reach(ctx, mine) == reach
        (written,) = posture_flight("defend")(ctx, state, "red").values()
        assert written.kind == order, kind
