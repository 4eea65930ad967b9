"""Sensors, bogeys, dummy bogeys and weasel boats (001 L933-971): the rules, the per-side
view, replay and notation."""

from __future__ import annotations

import random

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    DummySetup,
    IllegalActionError,
    SetupError,
    ShipSetup,
    ShipsMoved,
    Shot,
    StepKind,
    context,
    decode_journal,
    encode_journal,
    initial_state,
    replay,
    sides_to_fly,
    sides_to_write,
    view,
)
from tactical.commanders import Commander, engage_commander, random_commander
from tactical.dice import SeededDice
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.sensors import Bogey
from tactical.summary import contact_report, describe_contacts


def ship(sid: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=sid, side=side, design=design, x=x, y=y, course=course, speed=0)


def setup_of(*ships: ShipSetup, dummies: tuple[DummySetup, ...] = ()) -> BattleSetup:
    return BattleSetup(sides=("red", "blue"), ships=ships, bogeys=True, dummies=dummies)


def moved(setup: BattleSetup, red: dict[str, Order], blue: dict[str, Order]) -> Battle:
    """Write these orders and move: every ship at speed 0 stays where it is."""
    battle = Battle(setup)
    battle.write_orders("red", red)
    battle.write_orders("blue", blue)
    battle.resolve(SeededDice(1))
    return battle


def hidden(state: BattleState) -> set[str]:
    return {s.id for s in state.ships if s.bogey is not None}


def test_bogeys_are_off_by_default() -> None:
    state = initial_state(
        context(BattleSetup(sides=("red", "blue"), ships=(ship("r1", "red", "frigate", 0, 0),)))
    )
    assert hidden(state) == set()


def test_passive_sensors_reveal_at_exactly_36() -> None:
    # 001 L945: within 36"; both bogeys are revealed at once. The limit is included.
    ctx = context(
        setup_of(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 36))
    )
    assert hidden(initial_state(ctx)) == set()
    ctx = context(
        setup_of(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 36.001))
    )
    assert hidden(initial_state(ctx)) == {"r1", "b1"}


def test_passive_sensors_after_movement() -> None:
    setup = setup_of(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 40, 6))
    battle = moved(setup, {"r1": Order(accel=4)}, {})  # r1 ends 36" from b1
    event = battle.journal[-1]
    assert isinstance(event, ShipsMoved)
    assert {(s.counter, s.how, s.by) for s in event.sensed} == {
        ("r1", "passive", "b1"),
        ("b1", "passive", "r1"),
    }
    assert hidden(battle.state) == set()


@pytest.mark.parametrize(
    ("design", "limit"), [("frigate", 1), ("light_cruiser", 2), ("battleship", 3)]
)
def test_active_scan_limits_per_class(design: str, limit: int) -> None:
    # 001 L949: escorts scan one bogey a turn, cruisers two, capitals three, within 54".
    blue = [ship(f"b{i}", "blue", "scout", 10 * i, 50, 6) for i in range(4)]
    far = ship("b9", "blue", "scout", 0, 54.5, 6)  # out of the scan's reach
    battle = moved(
        setup_of(ship("r1", "red", design, 0, 0), *blue, far), {"r1": Order(scan=True)}, {}
    )
    scanned = {s.counter for s in battle.journal[-1].sensed if s.how == "active"}  # type: ignore[union-attr]
    assert len(scanned) == limit
    assert scanned == {f"b{i}" for i in range(limit)}  # the nearest first
    assert "r1" not in hidden(battle.state)  # the scan gives the scanner away (001 L949)
    assert "b9" in hidden(battle.state)


def labels(battle: Battle, side: str) -> dict[str, str]:
    """The bogey labels ``side``'s view shows, by the true id (for the test only)."""
    return {s.id: s.bogey for s in battle.state.ships if s.side != side and s.bogey is not None}


def test_a_scan_names_the_bogeys_it_scans() -> None:
    # 001 L949: "The player chooses which of the enemy Bogeyes he will scan (of those within
    # 54" range)". A frigate (an escort: one bogey) names the farther of two: that one is
    # identified, the nearer is not.
    setup = setup_of(
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "scout", 0, 40, 6),
        ship("b2", "blue", "scout", 0, 50, 6),
    )
    names = labels(Battle(setup), "red")
    battle = moved(setup, {"r1": Order(scan=True, scan_for=(names["b2"],))}, {})
    assert [s.counter for s in battle.journal[-1].sensed if s.how == "active"] == ["b2"]  # type: ignore[union-attr]
    assert hidden(battle.state) == {"b1"}
    assert battle.journal[0].orders == f"r1:A{names['b2']}" == "r1:AB3"  # type: ignore[union-attr]


def test_a_named_scan_takes_only_what_it_names() -> None:
    # A bogey named but beyond 54" is not identified, nor is another in its place: the
    # player chose (see docs/rulings.md). A cruiser (two scans) names one: one at most.
    setup = setup_of(
        ship("r1", "red", "light_cruiser", 0, 0),
        ship("b1", "blue", "scout", 0, 40, 6),
        ship("b2", "blue", "scout", 0, 60, 6),
    )
    names = labels(Battle(setup), "red")
    battle = moved(setup, {"r1": Order(scan=True, scan_for=(names["b2"],))}, {})
    assert [s for s in battle.journal[-1].sensed if s.how == "active"] == []  # type: ignore[union-attr]
    assert hidden(battle.state) == {"b1", "b2"}


@pytest.mark.parametrize(
    ("named", "void"),
    [
        (("B2", "B3"), "the scan names 2 bogeys and this ship may scan 1 (001 L949)"),
        (("B9",), "B9 is no enemy bogey on the table (001 L949)"),
        (("B1",), "B1 is no enemy bogey on the table (001 L949)"),  # its own label
    ],
)
def test_an_impossible_named_scan_is_void(named: tuple[str, ...], void: str) -> None:
    setup = setup_of(
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "scout", 0, 40, 6),
        ship("b2", "blue", "scout", 0, 50, 6),
    )
    assert labels(Battle(setup), "blue") == {"r1": "B1"}
    battle = moved(setup, {"r1": Order(scan=True, scan_for=named)}, {})
    assert battle.journal[-1].moves[0].void == void  # type: ignore[union-attr]
    assert "r1" in hidden(battle.state)  # a void scan gives nothing away


def test_merchants_cannot_scan() -> None:
    setup = setup_of(ship("r1", "red", "bulk_tanker", 0, 0), ship("b1", "blue", "scout", 0, 50, 6))
    battle = moved(setup, {"r1": Order(scan=True)}, {})
    move = battle.journal[-1].moves[0]  # type: ignore[union-attr]
    assert move.void == "only military vessels carry active sensors (001 L947)"
    assert hidden(battle.state) == {"r1", "b1"}


def test_a_scan_without_bogeys_is_void() -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 60)),
    )
    battle = moved(setup, {"r1": Order(scan=True)}, {})
    assert "without sensors" in (battle.journal[-1].moves[0].void or "")  # type: ignore[union-attr]


def test_dummy_removed_when_scanned_actively_or_passively() -> None:
    dummies = (
        DummySetup(id="d1", side="blue", x=0, y=50, course=6),
        DummySetup(id="d2", side="blue", x=40, y=0, course=9, speed=0),
    )
    setup = setup_of(
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "frigate", 0, 100, 6),
        ship("b2", "blue", "frigate", 50, 100, 6),
        dummies=dummies,
    )
    state = initial_state(context(setup))
    assert [d.id for d in state.dummies] == ["d1", "d2"]
    seen = view(state, "red")
    assert [b.shows for b in seen.bogeys] == ["escort"] * 4  # 001 L957
    battle = moved(setup, {"r1": Order(scan=True)}, {"d2": Order(accel=4)})  # d2 ends 36" off
    sensed = {(s.counter, s.how, s.dummy) for s in battle.journal[-1].sensed}  # type: ignore[union-attr]
    assert ("d1", "active", True) in sensed
    assert ("d2", "passive", True) in sensed
    assert battle.state.dummies == ()


def test_dummies_need_bogeys_and_a_ship_each() -> None:
    dummies = tuple(DummySetup(id=f"d{i}", side="blue", x=0, y=90, course=6) for i in range(2))
    bad = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 90)),
        dummies=dummies,
    )
    with pytest.raises(SetupError) as caught:
        context(bad)
    text = str(caught.value)
    assert "dummy bogeys need bogeys = true" in text
    assert "at most one dummy per real ship (001 L959)" in text


def test_dummy_moves_like_a_scoutship() -> None:
    dummy = DummySetup(id="d1", side="blue", x=0, y=100, course=6, speed=0)
    setup = setup_of(
        ship("r1", "red", "frigate", 0, 0),
        ship("b1", "blue", "frigate", 40, 100, 6),
        dummies=(dummy,),
    )
    battle = moved(setup, {}, {"d1": Order(accel=8)})
    assert battle.state.dummies[0].y == 92
    battle = moved(setup, {}, {"d1": Order(accel=9)})
    assert battle.journal[-1].decoys[0].void  # type: ignore[union-attr]
    battle = moved(setup, {}, {"d1": Order(scan=True)})
    assert battle.journal[-1].decoys[0].void == "a dummy bogey only moves (001 L957)"  # type: ignore[union-attr]


def test_weasel_shows_its_emitted_class_until_scanned() -> None:
    # 001 L961-969: the weasel's bogey shows a capital ship until it is scanned.
    setup = setup_of(
        ship("r1", "red", "light_cruiser", 0, 0), ship("b1", "blue", "weasel_scout", 0, 50, 6)
    )
    ctx = context(setup)
    state = initial_state(ctx)
    assert [b.shows for b in view(state, "red").bogeys] == ["capital"]
    assert contact_report(ctx, state, "red") == {"capital": 1}
    battle = moved(setup, {"r1": Order(scan=True)}, {})
    seen = view(battle.state, "red")
    assert seen.bogeys == ()
    assert seen.ship("b1").design == "weasel_scout"
    assert contact_report(ctx, battle.state, "red") == {"escort": 1}
    assert describe_contacts(ctx, battle.state, "red") == "red sees 1 escort (0 unidentified)"


def test_no_fire_at_a_bogey() -> None:
    # See docs/rulings.md: an unidentified contact cannot be fired on.
    setup = setup_of(ship("r1", "red", "battleship", 0, 0), ship("b1", "blue", "frigate", 0, 40, 6))
    battle = moved(setup, {}, {})
    assert battle.state.phase != "fire"  # nobody has a target
    with pytest.raises(IllegalActionError):
        battle.fire("r1", [Shot("beam_a-1", "b1")], SeededDice(1))


BOGEY_FIELDS = {f.name for f in msgspec.structs.fields(Bogey)}
"""What a bogey may carry: an opaque label, its side, the class it shows, place, course and
speed (001 L939-945)."""


def _secret_setup(rng: random.Random) -> BattleSetup:
    designs = ["frigate", "destroyer", "light_cruiser", "heavy_cruiser", "weasel_scout", "scout"]
    ships = [
        ShipSetup(
            id=f"{side}-secret-{i}",
            side=side,
            design=rng.choice(designs),
            x=rng.uniform(-40, 40),
            y=rng.uniform(0, 20) + (110 if side == "blue" else 0),
            course=6 if side == "blue" else 12,
            speed=rng.randint(0, 8),
        )
        for side in ("red", "blue")
        for i in range(rng.randint(1, 3))
    ]
    dummies = [
        DummySetup(
            id=f"{s.side}-drone-{i}", side=s.side, x=s.x + 5, y=s.y, course=s.course, speed=s.speed
        )
        for i, s in enumerate(ships)
        if rng.random() < 0.5
    ]
    return BattleSetup(
        sides=("red", "blue"),
        ships=tuple(ships),
        bogeys=True,
        dummies=tuple(dummies),
        turn_limit=10,
    )


def _check_view(battle: Battle, side: str) -> None:
    state = battle.state
    seen = view(state, side)
    text = msgspec.json.encode(seen).decode()
    secret = [s for s in state.ships if s.side != side and s.bogey is not None]
    shown_designs = {s.design for s in seen.ships}
    for enemy in secret:
        assert enemy.id not in text
        assert enemy.design in shown_designs or f'"{enemy.design}"' not in text
    for dummy in state.dummies:
        if dummy.side != side:
            assert dummy.id not in text
    assert all(s.bogey is None or s.side == side for s in seen.ships)
    for bogey in seen.bogeys:
        assert set(msgspec.structs.asdict(bogey)) == BOGEY_FIELDS
        assert bogey.label.startswith("B")
        assert bogey.label[1:].isdigit()
    labels = [b.label for b in seen.bogeys]
    assert labels == sorted(labels, key=lambda label: (len(label), label))
    # The position notation reads every state and every view back unchanged.
    assert parse_position(format_position("ft2", state)) == ("ft2", state)
    assert parse_position(format_position("ft2", seen)) == ("ft2", seen)


def _play_checking(battle: Battle, commanders: dict[str, Commander], seed: int) -> Battle:
    """Play like :func:`tactical.commanders.play`, checking both views at every step."""
    dice = SeededDice(seed)
    while True:
        for side in battle.ctx.setup.sides:
            _check_view(battle, side)
        step = battle.step()
        if step.kind == StepKind.TERMINAL:
            return battle
        if step.kind == StepKind.SIMULTANEOUS and step.phase == "flight":
            for side in sides_to_fly(battle.ctx, battle.state):
                battle.fly(
                    side, commanders[side].flight(battle.ctx, view(battle.state, side), side)
                )
        elif step.kind == StepKind.SIMULTANEOUS:
            for side in sides_to_write(battle.ctx, battle.state):
                battle.write_orders(
                    side, commanders[side].orders(battle.ctx, view(battle.state, side), side)
                )
        elif step.kind == StepKind.CHANCE:
            battle.resolve(dice)
        else:
            assert step.side is not None
            seen = view(battle.state, step.side)
            ship_id, shots = commanders[step.side].fire(battle.ctx, seen, step.side)
            battle.fire(ship_id, shots, dice)


@pytest.mark.parametrize("seed", range(12))
def test_views_leak_nothing_and_replay_equals_live(seed: int) -> None:
    rng = random.Random(seed)
    setup = _secret_setup(rng)
    commanders = {
        "red": engage_commander(),
        "blue": engage_commander() if seed % 2 else random_commander(random.Random(seed)),
    }
    battle = _play_checking(Battle(setup), commanders, seed)
    assert replay(setup, battle.journal) == battle.state
    assert replay(setup, decode_journal(encode_journal(battle.journal))) == battle.state


def test_engage_commanders_find_each_other() -> None:
    # With every ship a bogey, the Engage commander seeks and scans, and a battle is fought.
    setup = setup_of(
        ShipSetup(id="r1", side="red", design="heavy_cruiser", x=0, y=0, course=12, speed=6),
        ShipSetup(id="b1", side="blue", design="heavy_cruiser", x=30, y=100, course=6, speed=6),
    )
    battle = _play_checking(
        Battle(setup), {"red": engage_commander(), "blue": engage_commander()}, 3
    )
    assert any(isinstance(e, ShipsMoved) and e.sensed for e in battle.journal)
    assert hidden(battle.state) == set()
