"""The commanders' settings for Continuum's overloaded and variable pulse torpedoes (000
L4669-4800; docs/rulings.md, "Tactical: advanced weapons").

Each turn, once its move is chosen, a ship weighs each torpedo's settings by the damage it
expects from where the move ends at the best enemy in its arcs, the enemies flown straight on:
the chance to hit on the setting's row (000 L4689-4703, L4752-4782; the projectile table,
L20332-20436) times the warhead's mean (1D6 SAP 3.5; overloaded or short range 1D6+2, 5.5;
long range 1D3, 2), less an overload's risk to the tube (L4708-4714). Overloading needs a tube
that did not fire, or was not ejected, in the previous turn (L4681-4685, L4718-4724).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleContext,
    BattleSetup,
    BattleState,
    OrdersWritten,
    ShipFired,
    ShipSetup,
    Shot,
    StepKind,
    replay,
    sides_to_write,
    view,
)
from tactical.commanders import (
    Commander,
    closing_commander,
    engage_commander,
    named_commander,
    play,
    random_commander,
    with_torpedo_settings,
)
from tactical.commanders.scoring import focused_fire
from tactical.dice import ScriptedDice, SeededDice
from tactical.movement import Order, parse_orders
from tactical.ship import with_system_status
from tests.tactical import extra_designs
from tests.tactical.test_torpedo_overload import TEST_DESIGNS as OVERLOAD_DESIGNS

LR = "pulse_torpedo_lr_overload-1"
PT = "pulse_torpedo_overload-1"
VPT = "pulse_torpedo_variable-1"

TEST_DESIGNS = {
    **OVERLOAD_DESIGNS,
    "overload_torpedo_cruiser": """
name = "Overload Torpedo Cruiser"
rules = "continuum"
provenance = "test design: the torpedo cruiser's weapons with the overload upgrade"
mass = 70
thrust = 4
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "pulse_torpedo_lr_overload"
arcs = ["F"]

[[systems]]
kind = "pulse_torpedo_overload"
count = 2
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]

[[systems]]
kind = "pds"
count = 2
""",
    "variable_torpedo_cruiser": """
name = "Variable Torpedo Cruiser"
rules = "continuum"
provenance = "test design: two three-arc variable torpedoes and a Beam-2"
mass = 80
thrust = 4
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "pulse_torpedo_variable"
count = 2
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]
""",
    "variable_torpedo_boat": """
name = "Variable Torpedo Boat"
rules = "continuum"
provenance = "test design: two three-arc variable torpedoes and nothing else"
mass = 70
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "pulse_torpedo_variable"
count = 2
arcs = ["FP", "F", "FS"]
""",
}


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _duel(y: float, *, speed: int = 0) -> Battle:
    """The overload test cruiser at the origin facing +y, at rest, and a target at (0, y)
    coming on at ``speed``."""
    return Battle(
        BattleSetup(
            sides=("red", "blue"),
            ships=(
                ShipSetup(id="r1", side="red", design="overload_test_cruiser", x=0, y=0, course=12),
                ShipSetup(
                    id="b1",
                    side="blue",
                    design="armoured_test_target",
                    x=0,
                    y=y,
                    course=6,
                    speed=speed,
                ),
            ),
            rules="continuum",
            turn_limit=10,
        )
    )


def _settings(
    battle: Battle, state: BattleState | None = None, orders: Mapping[str, Order] | None = None
) -> dict[str, str]:
    """The settings red's r1 writes with ``orders`` (none: straight on)."""

    def given(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        return dict(orders or {})

    seen = view(state or battle.state, "red")
    written = with_torpedo_settings(given)(battle.ctx, seen, "red")
    return dict(written.get("r1", Order()).torpedoes)


# ---------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("distance", "expected"),
    [
        # Standard row 6 MU bands, SR row 4, LR row 9; 2+ to 6 (000 L20332-20436).
        # 10 MU: overloaded PT 4+ x 5.5 = 2.75 against 3+ x 3.5 = 2.33; overloaded LR 3+ x 5.5
        # against 3+ x 3.5; the VPT short (4+ x 5.5) beats standard (3+ x 3.5) and long
        # (3+ x 2).
        (10.0, {PT: "O", LR: "O", VPT: "S"}),
        # 22 MU: beyond the SR row; the overloaded LR on the standard row 5+ x 5.5 = 1.83 less
        # 1 in 108 of its 1.75 a turn for 3 turns, against 4+ x 3.5 = 1.75 on its own row;
        # the VPT standard 5+ x 3.5 = 1.17 against long 4+ x 2 = 1.
        (22.0, {LR: "O"}),
        # 28 MU: the VPT long 5+ x 2 = 0.67 against standard 6 x 3.5 = 0.58; the LR on its own
        # row 5+ x 3.5 against 6 x 5.5 overloaded.
        (28.0, {VPT: "L"}),
        # 40 MU: only the LR and the VPT's long mode reach (L4752-4755).
        (40.0, {VPT: "L"}),
        (50.0, {}),
    ],
)
def test_settings_by_range(distance: float, expected: dict[str, str]) -> None:
    assert _settings(_duel(distance)) == expected


def test_settings_for_the_forecast_places() -> None:
    # The target flies straight on at speed 18 from 40 MU: it ends its move at 22 MU.
    assert _settings(_duel(40.0, speed=18)) == {LR: "O"}
    # The ship's own move counts: 4 MU towards a target at rest 26 MU away ends at 22.
    assert _settings(_duel(26.0), orders={"r1": Order(accel=4)}) == {LR: "O"}
    assert _settings(_duel(26.0)) == {VPT: "L"}  # 6 x 3.5 = 0.58 against 4+ x 2 = 1


def test_no_settings_without_a_target_in_arc() -> None:
    # The torpedoes fire through the fore arc: a target dead astern gets no setting.
    assert _settings(_duel(-10.0)) == {}


def test_no_overload_after_firing_the_turn_before() -> None:
    # 000 L4681-4685: the tubes fired in turn 1 may not be overloaded in turn 2; the variable
    # torpedo has no such limit.
    battle = _duel(10.0)
    ship = battle.state.ship("r1")
    fired = msgspec.structs.replace(ship, tubes=((LR, 1), (PT, 1)))
    state = msgspec.structs.replace(battle.state, turn=2, ships=(fired, battle.state.ships[1]))
    assert _settings(battle, state) == {VPT: "S"}


def test_no_settings_without_a_firecon() -> None:
    # A torpedo needs a FireCon (001 L829): an overloaded tube not fired is ejected.
    battle = _duel(10.0)
    ship = battle.state.ship("r1")
    record = ship.record
    for system in ("firecon-1", "firecon-2"):
        record = with_system_status(record, system, "damaged")
    blind = msgspec.structs.replace(ship, record=record)
    state = msgspec.structs.replace(battle.state, ships=(blind, battle.state.ships[1]))
    assert _settings(battle, state) == {}


def test_the_settings_are_written_legally() -> None:
    # Engage, closing and Stand Off close on a target 40 MU off (Stand Off keeps half its
    # 45 MU reach from a target with no guns) and set the variable torpedo long; the battle
    # takes the orders. FTL Move runs, its torpedoes astern.
    for name in ("engage", "closing", "stand-off", "ftl-move"):
        battle = _duel(40.0)
        written = named_commander(name).orders(battle.ctx, view(battle.state, "red"), "red")
        assert written["r1"].torpedoes == (((VPT, "L"),) if name != "ftl-move" else ())
        battle.write_orders("red", written)


# ---------------------------------------------------------------- firing them


def _fire_with(setup: BattleSetup, orders: Mapping[str, Order]) -> Battle:
    """Play to red's firing turn: red writes ``orders``, blue none, red has the initiative."""
    battle = Battle(setup)
    while True:
        step = battle.step()
        if step.phase == "orders":
            for side in sides_to_write(battle.ctx, battle.state):
                battle.write_orders(side, dict(orders) if side == "red" else {})
        elif step.kind == StepKind.CHANCE.value:
            battle.resolve(ScriptedDice([6, 1]))
        elif step.phase == "fire" and step.side == "red":
            return battle
        else:
            raise AssertionError(f"unexpected step {step}")


def _ships(*ships: tuple[str, str, str, float, float]) -> BattleSetup:
    return BattleSetup(
        sides=("red", "blue"),
        ships=tuple(
            ShipSetup(id=i, side=side, design=design, x=x, y=y, course=12 if side == "red" else 6)
            for i, side, design, x, y in ships
        ),
        rules="continuum",
    )


def test_an_overloaded_torpedo_finds_a_target() -> None:
    # Focused fire (the baseline Engage's) fires at the two targets with least hull left (its
    # two FireCons); the overloaded torpedo reaches only the heavy cruiser 8.5 MU off, and
    # fires at it rather than be ejected (000 L4718-4724), taking the first FireCon.
    setup = _ships(
        ("r1", "red", "overload_test_cruiser", 0, 0),
        ("b1", "blue", "heavy_cruiser", 0, 8.5),
        ("b2", "blue", "armoured_test_target", -3, 25),
        ("b3", "blue", "armoured_test_target", 3, 26),
    )
    battle = _fire_with(setup, {"r1": Order(torpedoes=((PT, "O"),))})
    ship_id, shots = focused_fire(battle.ctx, view(battle.state, "red"), "red")
    assert ship_id == "r1"
    assert shots[0] == Shot(PT, "b1")
    assert Shot(LR, "b2") in shots
    # Engage weighs targets by the mass its fire brings nearest destruction: the overloaded
    # torpedo still fires first, at the only target it reaches.
    _, shots = engage_commander().fire(battle.ctx, view(battle.state, "red"), "red")
    assert shots[0] == Shot(PT, "b1")
    battle.fire(ship_id, shots, SeededDice(1))
    # Not overloaded, it reaches the chosen targets on the standard row, to 30 MU.
    battle = _fire_with(setup, {})
    _, shots = focused_fire(battle.ctx, view(battle.state, "red"), "red")
    assert Shot(PT, "b2") in shots


def test_a_ship_with_an_overloaded_torpedo_fires_first() -> None:
    # The heavy cruiser has more guns bearing, and Engage would fire it first; the cruiser
    # with an overloaded torpedo goes first, before a friend destroys its target.
    setup = _ships(
        ("r1", "red", "overload_test_cruiser", 0, 0),
        ("r2", "red", "heavy_cruiser", 4, 0),
        ("b1", "blue", "armoured_test_target", 2, 8),
    )
    battle = _fire_with(setup, {})
    assert engage_commander().fire(battle.ctx, view(battle.state, "red"), "red")[0] == "r2"
    battle = _fire_with(setup, {"r1": Order(torpedoes=((PT, "O"),))})
    assert engage_commander().fire(battle.ctx, view(battle.state, "red"), "red")[0] == "r1"


# ---------------------------------------------------------------- whole battles

DESIGNS = (
    "overload_torpedo_cruiser",
    "variable_torpedo_cruiser",
    "overload_test_cruiser",
    "heavy_cruiser",
)
COMMANDERS = ("closing", "engage", "stand-off", "ftl-move", "random")


def _random_setup(rng: random.Random) -> BattleSetup:
    ships: list[ShipSetup] = []
    for side, base in (("red", 0.0), ("blue", rng.uniform(20, 60))):
        for index in range(rng.randint(1, 3)):
            ships.append(
                ShipSetup(
                    id=f"{side[0]}{index}",
                    side=side,
                    design=rng.choice(DESIGNS),
                    x=rng.uniform(-20, 20),
                    y=base + rng.uniform(-5, 5),
                    course=rng.randint(1, 12),
                    speed=rng.randint(0, 10),
                )
            )
    return BattleSetup(
        sides=("red", "blue"),
        ships=tuple(ships),
        rules="continuum",
        turn_limit=12,
        movement=rng.choice(("cinematic", "vector")),
    )


def _commander(name: str, rng: random.Random) -> Commander:
    return random_commander(rng) if name == "random" else named_commander(name)


def test_commanders_play_only_legal_settings() -> None:
    """Over 60 seeded battles of these torpedoes, every commander on either side, each order
    the battle takes (it refuses an illegal setting), the journal replays to the same state
    and the same seed plays the same journal."""
    written: Counter[tuple[str, str]] = Counter()
    fired: Counter[str | None] = Counter()
    for seed in range(60):
        rng = random.Random(f"torpedo-commanders/{seed}")
        setup = _random_setup(rng)
        names = {side: rng.choice(COMMANDERS) for side in setup.sides}
        runs = []
        for _ in range(2):
            again = random.Random(seed)
            commanders = {side: _commander(names[side], again) for side in setup.sides}
            runs.append(play(Battle(setup), commanders, SeededDice(seed)))
        battle = runs[0]
        assert battle.state.phase == "over"
        assert runs[1].journal == battle.journal
        assert replay(setup, battle.journal) == battle.state
        for event in battle.journal:
            if isinstance(event, OrdersWritten):
                for order in parse_orders(event.orders).values():
                    written.update((names[event.side], s) for _, s in order.torpedoes)
            if isinstance(event, ShipFired):
                fired.update(shot.setting for shot in event.shots if "torpedo" in shot.weapon)
    # FTL Move runs from the enemy, its torpedoes astern of the chase: it sets none here.
    assert {name for name, _ in written} == {"closing", "engage", "stand-off", "random"}
    assert {setting for name, setting in written if name != "random"} == {"O", "S", "L"}
    assert fired["O"] > 10
    assert fired["S"] > 10
    assert fired["L"] > 10


def _standard_only(commander: Commander) -> Commander:
    """The commander as it was before it chose settings: every torpedo in standard mode (the
    fire doctrine for overloaded torpedoes then never comes into play)."""
    orders = commander.orders

    def standard(ctx: BattleContext, state: BattleState, side: str) -> dict[str, Order]:
        return {
            ship_id: msgspec.structs.replace(order, torpedoes=())
            for ship_id, order in orders(ctx, state, side).items()
        }

    commander.orders = standard
    return commander


def _duels(design: str, seeds: int) -> Counter[str]:
    """Fight ``seeds`` seeded 1-on-1 closing battles of ``design`` twice each, the setting
    commander on one side and then the other, with the same dice: count who won."""
    setup = BattleSetup(
        sides=("a", "b"),
        ships=(
            ShipSetup(id="a0", side="a", design=design, x=0, y=0, course=12, speed=4),
            ShipSetup(id="b0", side="b", design=design, x=0, y=60, course=6, speed=4),
        ),
        rules="continuum",
    )
    wins: Counter[str] = Counter()
    for seed in range(seeds):
        for new, old in (("a", "b"), ("b", "a")):
            commanders = {new: closing_commander(), old: _standard_only(closing_commander())}
            winner = play(Battle(setup), commanders, SeededDice(seed)).state.winner
            wins["settings" if winner == new else "standard" if winner == old else "draw"] += 1
    return wins


def test_variable_torpedo_settings_win_more() -> None:
    """The variable torpedo's modes risk nothing (000 L4774-4782): short where it hits harder,
    long beyond the standard row. Two torpedo boats, 100 seeds fought from both sides: the
    setting commander won 98 of the 200 battles, the standard one 63 (39 drawn)."""
    wins = _duels("variable_torpedo_boat", 100)
    assert wins["settings"] >= wins["standard"] + 20
