"""Core systems (000 10.3, L11053-11312; index 10.3): the Command Bridge, the Power Core and the
Life Support, rolled at every threshold with 1 off the die, and what their failures do."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from tactical.battle import (
    Battle,
    BattleSetup,
    BattleState,
    CoreSystemsRolled,
    FightersResolved,
    IllegalActionError,
    SetupError,
    ShipFired,
    ShipSetup,
    ShipsMoved,
    Shot,
    Threshold,
    TurnEnded,
    context,
    evolve,
    fire_options,
    initial_state,
    needle_aims,
    repair_jobs,
    replay,
    resolve,
    sheet_for,
    ships_to_fire,
    sides_to_repair,
    sides_to_write,
    write_flight,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.commanders import closing_commander, greedy_repairs, random_commander
from tactical.dice import SeededDice
from tactical.fighters import FighterGroup, FlightOrder, group_id
from tactical.fire import ThresholdOutcome, core_need, threshold_check
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.render import THEME, record_sheet
from tactical.ship import FOR_THE_BATTLE, GIVEN_OUT, ShipState, fresh_state
from tactical.summary import describe
from tests.tactical.test_random_battles import play_checked, random_setup


class KeyedDice:
    """Dice that show a given face for named keys and ``default`` for any other; every key
    asked is kept, in order."""

    def __init__(self, faces: dict[str, int] | None = None, default: int = 1) -> None:
        self.faces = faces or {}
        self.default = default
        self.asked: list[str] = []

    def roll(self, key: str, sides: int) -> int:
        self.asked.append(key)
        return self.faces.get(key, self.default)


def ship(
    ship_id: str,
    side: str,
    design: str,
    y: float,
    *,
    course: int = 12,
    speed: int = 0,
    x: float = 0.0,
    **record: object,
) -> ShipSetup:
    """A ship; ``record`` fields (``out_of_control=2``...) give it core damage carried in."""
    state = None
    if record:
        rules = "continuum" if design == "heavy_cruiser" else "ft2"
        state = msgspec.structs.replace(fresh_state(sheet_for(design, rules)), **record)
    return ShipSetup(
        id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=speed, state=state
    )


def battle_of(*ships: ShipSetup, rules: str = "ft2", breach: bool = False) -> Battle:
    return Battle(
        BattleSetup(
            sides=("red", "blue"),
            ships=ships,
            rules=rules,
            turn_limit=10,
            core_systems=True,
            reactor_breach=breach,
        )
    )


def to_phase(battle: Battle, phase: str, dice: KeyedDice | None = None) -> None:
    """Play on, writing no orders, holding fire and making no repairs, until ``phase``."""
    dice = dice or KeyedDice()
    for _ in range(200):
        step = battle.step()
        if step.phase == phase or step.kind == "terminal":
            return
        if step.phase == "orders":
            for side in sides_to_write(battle.ctx, battle.state):
                battle.write_orders(side, {})
        elif step.phase == "repair":
            for side in sides_to_repair(battle.ctx, battle.state):
                battle.repair(side, {}, dice)
        elif step.kind == "chance":
            battle.resolve(dice)
        else:
            assert step.side is not None
            battle.fire(ships_to_fire(battle.ctx, battle.state, step.side)[0], [], dice)
    pytest.fail(f"never reached the {phase} step")


def next_turn(battle: Battle, dice: KeyedDice | None = None) -> None:
    """Play the rest of this turn (as :func:`to_phase`) to the next turn's orders."""
    turn = battle.state.turn
    to_phase(battle, "end", dice)
    while battle.state.turn == turn and battle.state.phase != "over":
        to_phase(battle, "orders", dice)


# ---------------------------------------------------------------- the threshold roll


def test_core_systems_roll_with_one_off_the_die() -> None:
    # 000 L11079-11101: never at the first threshold (6 - 1 < 6), a natural 6 at the second,
    # 5-6 at the third; index 10.3: +1 per extra row crossed in the phase.
    assert [core_need(row) for row in (1, 2, 3)] == [7, 6, 5]
    assert [core_need(2, 1), core_need(3, 1), core_need(3, 2)] == [5, 4, 3]
    assert core_need(5) == 5  # rows past the third read as the third (000 L3194-3397)


@pytest.mark.parametrize(
    ("row", "modifier", "fails_on"),
    [(2, 0, 6), (3, 0, 5), (2, 1, 5), (3, 1, 4)],
)
def test_core_roll_boundaries(row: int, modifier: int, fails_on: int) -> None:
    sheet = sheet_for("heavy_cruiser", "continuum")
    for face in range(1, 7):
        dice = KeyedDice({"k/power_core": face}, default=1)
        state, outcome = threshold_check(
            sheet, fresh_state(sheet), dice, "k", row=row, modifier=modifier, core=True
        )
        assert outcome.power_core == (face >= fails_on), face
        assert state.power_core == ("damaged" if face >= fails_on else "ok")


def test_no_core_die_at_the_first_threshold() -> None:
    # 000 L11083-11089: "the Core Systems do not need to be rolled for" at the first point.
    sheet = sheet_for("heavy_cruiser", "continuum")
    dice = KeyedDice(default=6)
    state, outcome = threshold_check(sheet, fresh_state(sheet), dice, "k", row=1, core=True)
    assert not any(key.startswith(("k/bridge", "k/power", "k/life")) for key in dice.asked)
    assert (state.out_of_control, state.power_core, state.life_support) == (0, "ok", 0)
    assert outcome.bridge is None
    # Without the option, core systems are never rolled at all.
    dice = KeyedDice(default=6)
    threshold_check(sheet, fresh_state(sheet), dice, "k", row=3)
    assert "k/bridge" not in dice.asked


def check_bridge(face: int) -> tuple[ShipState, ThresholdOutcome, list[str]]:
    sheet = sheet_for("heavy_cruiser", "continuum")
    dice = KeyedDice({"k/bridge": 6, "k/bridge/turns": face}, default=1)
    state, outcome = threshold_check(sheet, fresh_state(sheet), dice, "k", row=2, core=True)
    return state, outcome, dice.asked


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5])
def test_a_bridge_hit_loses_control_for_d6_turns(face: int) -> None:
    # 000 L11133-11143: "If the roll is 1 to 5, then the ship is 'out of control' for that
    # number of turns, including the remainder of the current one".
    state, outcome, asked = check_bridge(face)
    assert state.out_of_control == face
    assert outcome.bridge == face
    assert asked[-4:] == ["k/bridge", "k/bridge/turns", "k/power_core", "k/life_support"]


def test_a_bridge_hit_of_six_is_for_the_rest_of_the_battle() -> None:
    # 000 L11143-11147: "If the roll is a 6, then the ship is permanently out of control".
    state, outcome, _asked = check_bridge(6)
    assert state.out_of_control == FOR_THE_BATTLE
    assert outcome.bridge == 6


def test_a_core_system_out_is_not_rolled_again() -> None:
    sheet = sheet_for("heavy_cruiser", "continuum")
    hit = msgspec.structs.replace(
        fresh_state(sheet), out_of_control=2, power_core="damaged", life_support=3
    )
    dice = KeyedDice(default=6)
    state, _outcome = threshold_check(sheet, hit, dice, "k", row=3, core=True)
    assert not any(key.startswith(("k/bridge", "k/power", "k/life")) for key in dice.asked)
    assert state.out_of_control == 2


# ---------------------------------------------------------------- the bridge


def test_out_of_control_keeps_course_and_speed() -> None:
    # 000 L11151-11153: "it will continue on its present course and velocity".
    battle = battle_of(
        ship("r1", "red", "frigate", 0, speed=6, out_of_control=2),
        ship("b1", "blue", "frigate", 60, course=6),
    )
    battle.write_orders("red", {"r1": Order(turn=1, accel=1)})
    battle.write_orders("blue", {})
    moved = battle.resolve(KeyedDice())
    assert isinstance(moved, ShipsMoved)
    (r1,) = (m for m in moved.moves if m.ship == "r1")
    assert r1.void is not None
    assert "out of control" in r1.void
    assert (r1.x, r1.y, r1.course, r1.speed) == (0, 6, 12, 6)


def test_out_of_control_fires_no_weapon() -> None:
    # 000 L11151-11157: it "may not fire weapons".
    battle = battle_of(
        ship("r1", "red", "frigate", 0, out_of_control=1),
        ship("r2", "red", "frigate", 0, x=4),
        ship("b1", "blue", "frigate", 8, course=6),
    )
    to_phase(battle, "fire")
    assert "r1" not in ships_to_fire(battle.ctx, battle.state, "red")
    assert fire_options(battle.ctx, battle.state, "r1") == {}
    if battle.state.to_fire == "blue":
        battle.fire("b1", [], KeyedDice())
    with pytest.raises(IllegalActionError, match="out of control"):
        battle.fire("r1", [Shot("beam_b-1", "b1")], KeyedDice())
    battle.fire("r2", [Shot("beam_b-1", "b1")], KeyedDice())  # its friend fires


def test_out_of_control_launches_no_fighters() -> None:
    # 000 L11153-11155: nor "launch fighters".
    battle = battle_of(
        ship("r1", "red", "light_carrier", 0, out_of_control=2),
        ship("b1", "blue", "frigate", 40, course=6),
    )
    battle.write_orders("red", {"r1": Order(launch=1)})
    battle.write_orders("blue", {})
    moved = battle.resolve(KeyedDice())
    assert isinstance(moved, ShipsMoved)
    assert moved.moves[0].void is not None
    assert battle.state.fighters == ()


def fighters_on(out_of_control: int) -> FightersResolved:
    """A red group in flight attacks b1 (escort cruiser: an ADAF and a PDAF)."""
    battle = battle_of(
        ship("r1", "red", "light_carrier", 0),
        ship("b1", "blue", "escort_cruiser", 10, course=6, out_of_control=out_of_control),
    )
    ctx, state = battle.ctx, battle.state
    bay = "fighter_group-1"
    carrier = state.ship("r1")
    systems = tuple(
        msgspec.structs.replace(s, fighters=0) if s.id == bay else s for s in carrier.record.systems
    )
    carrier = msgspec.structs.replace(
        carrier, record=msgspec.structs.replace(carrier.record, systems=systems)
    )
    group = FighterGroup(side="red", carrier="r1", bay=bay, x=0, y=5, fighters=6)
    state = msgspec.structs.replace(
        state,
        phase="flight",
        first="red",
        ships=(carrier, state.ship("b1")),
        fighters=(group,),
    )
    attack = {group_id("r1", bay): FlightOrder(kind="attack", target="b1")}
    state = evolve(ctx, state, write_flight(ctx, state, "red", attack))
    event = resolve(ctx, state, KeyedDice(default=4))
    assert isinstance(event, FightersResolved)
    return event


def test_out_of_control_active_defences_are_down() -> None:
    # 000 L11157-11159: "Passive defenses (screens, armor) are still operational, though
    # active defenses (PDS) are not."
    assert fighters_on(0).defence  # under control its ADAF and PDAF fire
    silent = fighters_on(2)
    assert silent.defence == ()
    assert silent.attacks  # and the group attacks


def test_control_returns_after_the_turns() -> None:
    # 000 L11161-11165: control is regained "after the number of turns indicated".
    battle = battle_of(
        ship("r1", "red", "frigate", 0, out_of_control=2),
        ship("r2", "red", "frigate", 0, x=4, out_of_control=FOR_THE_BATTLE),
        ship("b1", "blue", "frigate", 40, course=6),
    )
    next_turn(battle)
    assert battle.state.ship("r1").record.out_of_control == 1
    to_phase(battle, "core")
    event = battle.resolve(KeyedDice())
    assert isinstance(event, CoreSystemsRolled)
    assert event.control == ("r1",)
    assert battle.state.ship("r1").record.out_of_control == 0
    assert battle.state.ship("r2").record.out_of_control == FOR_THE_BATTLE  # a 6: for good
    to_phase(battle, "fire")
    ready = [s for side in ("red", "blue") for s in ships_to_fire(battle.ctx, battle.state, side)]
    assert "r1" in ready
    assert "r2" not in ready


def test_control_returns_on_a_repair() -> None:
    # 000 L11161-11171: "or a successful repair roll"; DCPs "may be used on any turn".
    battle = battle_of(
        ship("r1", "red", "heavy_cruiser", 0, out_of_control=FOR_THE_BATTLE),
        ship("b1", "blue", "heavy_cruiser", 200, course=6),
        rules="continuum",
    )
    assert repair_jobs(battle.ctx, battle.state.ship("r1")) == ("bridge",)
    to_phase(battle, "repair")
    assert greedy_repairs(battle.ctx, battle.state, "red") == {"r1": {"bridge": 3}}
    battle.repair("red", {"r1": {"bridge": 3}}, KeyedDice({"t1/repair/r1/bridge": 3}))
    assert battle.state.ship("r1").record.out_of_control == 0
    assert battle.state.phase == "orders"  # nothing left for the core step
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# ---------------------------------------------------------------- the power core


@pytest.mark.parametrize(("face", "exploded"), [(4, False), (5, True), (6, True)])
def test_a_damaged_power_core_rolls_at_the_end_of_the_turn(face: int, exploded: bool) -> None:
    # 000 L11207-11211: "At the end of each turn the player must roll a D6: on a 5 or 6, the
    # Power Core explodes and destroys the ship."
    battle = battle_of(
        ship("r1", "red", "frigate", 0, power_core="damaged"),
        ship("r2", "red", "frigate", 0, x=20),
        ship("b1", "blue", "frigate", 100, course=6),
    )
    to_phase(battle, "core")
    event = battle.resolve(KeyedDice({"t1/core/r1/power_core": face}))
    assert isinstance(event, CoreSystemsRolled)
    assert [(c.ship, c.face, c.exploded) for c in event.cores] == [("r1", face, exploded)]
    assert battle.state.ship("r1").status == ("destroyed" if exploded else "active")
    assert event.destroyed == (("r1",) if exploded else ())
    assert not event.over
    assert battle.state.phase == "orders"
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_an_exploding_core_can_end_the_battle() -> None:
    battle = battle_of(
        ship("r1", "red", "frigate", 0, power_core="damaged"),
        ship("b1", "blue", "frigate", 100, course=6),
    )
    to_phase(battle, "core")
    event = battle.resolve(KeyedDice({"t1/core/r1/power_core": 6}))
    assert isinstance(event, CoreSystemsRolled)
    assert (event.over, event.winner, event.reason) == (True, "blue", "blue alone remains")
    assert battle.state.phase == "over"
    assert battle.state.winner == "blue"
    assert describe(event)[-1] == "turn 1 ends: the battle is over, blue wins (blue alone remains)"


def test_a_repair_stabilises_the_power_core_before_its_roll() -> None:
    # 000 L11258-11270: DCP attempts "are made before the roll for explosion for that turn,
    # and success will bring the Power Core back under control".
    battle = battle_of(
        ship("r1", "red", "heavy_cruiser", 0, power_core="damaged"),
        ship("b1", "blue", "heavy_cruiser", 200, course=6),
        rules="continuum",
    )
    to_phase(battle, "repair")
    battle.repair("red", {"r1": {"power_core": 1}}, KeyedDice({"t1/repair/r1/power_core": 1}))
    assert battle.state.ship("r1").record.power_core == "ok"
    assert battle.state.phase == "orders"  # no core roll left to make
    # A failed repair leaves it to the roll.
    battle = battle_of(
        ship("r1", "red", "heavy_cruiser", 0, power_core="damaged"),
        ship("b1", "blue", "heavy_cruiser", 200, course=6),
        rules="continuum",
    )
    to_phase(battle, "repair")
    battle.repair("red", {"r1": {"power_core": 1}}, KeyedDice({"t1/repair/r1/power_core": 2}))
    assert battle.state.phase == "core"


def test_a_reactor_breach_hits_ships_within_3_mu() -> None:
    # 000 L11217-11254: 1D6 per 25 mass (the battleship's 48: 1D6) on every ship within 3 MU,
    # semi-armour-piercing and past screens.
    battle = battle_of(
        ship("r1", "red", "battleship", 0, power_core="damaged"),
        ship("r2", "red", "frigate", 2.5),
        ship("r3", "red", "frigate", 0, x=3.5),
        ship("b1", "blue", "frigate", 100, course=6),
        breach=True,
    )
    to_phase(battle, "core")
    dice = KeyedDice({"t1/core/r1/power_core": 5, "t1/breach/r1/r2/0": 4})
    event = battle.resolve(dice)
    assert isinstance(event, CoreSystemsRolled)
    assert [(b.ship, b.hit.target, b.faces, b.hit.damage) for b in event.breaches] == [
        ("r1", "r2", (4,), 4)
    ]
    assert battle.state.ship("r2").record.hull_lost == (2, 2)  # row 1 gone: a check at once
    assert [t.ship for t in event.thresholds] == ["r2"]
    assert battle.state.ship("r3").record.hull_lost == (0, 0)  # 3.5 MU away
    assert replay(battle.ctx.setup, battle.journal) == battle.state


# ---------------------------------------------------------------- the life support


def test_life_support_gives_out_after_its_turns() -> None:
    # 000 L11175-11197: it "will fail after that number of turns"; then the crew abandons
    # ship and it becomes a drifting hulk.
    battle = battle_of(
        ship("r1", "red", "frigate", 0, life_support=2),
        ship("r2", "red", "frigate", 0, x=20),
        ship("b1", "blue", "frigate", 100, course=6),
    )
    next_turn(battle)
    assert battle.state.ship("r1").record.life_support == 1
    assert battle.state.ship("r1").status == "active"
    to_phase(battle, "core")
    event = battle.resolve(KeyedDice())
    assert isinstance(event, CoreSystemsRolled)
    assert event.abandoned == ("r1",)
    r1 = battle.state.ship("r1")
    assert (r1.status, r1.record.life_support) == ("abandoned", GIVEN_OUT)
    assert "r1's life support gives out: the crew abandons ship" in "\n".join(describe(event))
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_life_support_can_be_repaired_first() -> None:
    # 000 L11185-11189: DCPs may repair it "as for any other system".
    battle = battle_of(
        ship("r1", "red", "heavy_cruiser", 0, life_support=1),
        ship("b1", "blue", "heavy_cruiser", 200, course=6),
        rules="continuum",
    )
    to_phase(battle, "repair")
    battle.repair("red", {"r1": {"life_support": 3}}, KeyedDice({"t1/repair/r1/life_support": 1}))
    assert battle.state.ship("r1").record.life_support == 0
    assert battle.state.phase == "orders"


def test_damage_control_puts_the_power_core_first() -> None:
    battle = battle_of(
        ship(
            "r1",
            "red",
            "heavy_cruiser",
            0,
            out_of_control=3,
            power_core="damaged",
            life_support=2,
        ),
        ship("b1", "blue", "heavy_cruiser", 200, course=6),
        rules="continuum",
    )
    jobs = greedy_repairs(battle.ctx, battle.state, "red")
    assert list(jobs["r1"]) == ["power_core", "life_support"]  # 5 DCPs: 3 and 2


# ---------------------------------------------------------------- needles, set-up, notation


def test_needles_cannot_aim_at_core_systems() -> None:
    # 000 L11115-11121: "the Core Systems may not be targeted by these weapons".
    battle = battle_of(
        ship("r1", "red", "needle_cruiser", 0),
        ship("b1", "blue", "frigate", 8, course=6),
    )
    assert not {"bridge", "power_core", "life_support"} & set(
        needle_aims(battle.ctx, battle.state, "b1")
    )
    to_phase(battle, "fire")
    if battle.state.to_fire == "blue":
        battle.fire("b1", [], KeyedDice())
    for core in ("bridge", "power_core", "life_support"):
        with pytest.raises(IllegalActionError, match="needle beams fire only at surface"):
            battle.fire("r1", [Shot("needle-1", "b1", core)], KeyedDice())


def test_core_damage_needs_the_option() -> None:
    carried = ship("r1", "red", "frigate", 0, power_core="damaged")
    setup = BattleSetup(sides=("red", "blue"), ships=(carried,))
    with pytest.raises(SetupError, match="core-system damage needs core_systems"):
        context(setup)
    with pytest.raises(SetupError, match="reactor breach needs core_systems"):
        context(BattleSetup(sides=("red", "blue"), ships=(), reactor_breach=True))
    assert context(msgspec.structs.replace(setup, core_systems=True)).rules.core_systems


def test_the_presets_leave_core_systems_off() -> None:
    # Golden battles stay as they were; a set-up or a campaign battle turns it on.
    setup = BattleSetup(sides=("red", "blue"), ships=(), rules="continuum")
    assert not context(setup).rules.core_systems


@given(
    out_of_control=st.integers(-1, 6),
    power_core=st.sampled_from(["ok", "damaged"]),
    life_support=st.integers(-1, 6),
    abandoned=st.booleans(),
)
def test_core_state_round_trips(
    out_of_control: int, power_core: str, life_support: int, abandoned: bool
) -> None:
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        core_systems=True,
        ships=(ship("r1", "red", "heavy_cruiser", 0), ship("b1", "blue", "heavy_cruiser", 50)),
    )
    state = initial_state(context(setup))
    r1 = state.ship("r1")
    record = msgspec.structs.replace(
        r1.record,
        out_of_control=out_of_control,
        power_core=power_core,
        life_support=life_support,
    )
    changed: BattleState = msgspec.structs.replace(
        state,
        phase="core",
        ships=(
            msgspec.structs.replace(
                r1, record=record, status="abandoned" if abandoned else "active"
            ),
            state.ship("b1"),
        ),
    )
    assert parse_position(format_position("continuum", changed)) == ("continuum", changed)


def test_core_state_notation() -> None:
    text = (
        "ft2 3 core - - red:r1:frigate@0,0>12v6/h2.0/cbx/cpd/cl2 "
        "red:r2:frigate@4,0>12v6/h0.0/cb3/clx/A blue:b1:frigate@0,40>6v0/h0.0"
    )
    rules, state = parse_position(text)
    r1, r2 = state.ship("r1").record, state.ship("r2").record
    assert (r1.out_of_control, r1.power_core, r1.life_support) == (FOR_THE_BATTLE, "damaged", 2)
    assert (r2.out_of_control, r2.life_support) == (3, GIVEN_OUT)
    assert state.ship("r2").status == "abandoned"
    assert format_position(rules, state) == text


def test_the_record_sheet_shows_the_core_box() -> None:
    sheet = sheet_for("frigate", "ft2")
    console = Console(width=100, record=True, theme=THEME)
    state = msgspec.structs.replace(fresh_state(sheet), out_of_control=2, power_core="damaged")
    console.print(record_sheet(sheet, state, core_systems=True))
    text = console.export_text()
    assert "Command Bridge" in text
    assert "out of control, 2 turns" in text
    assert "Power Core" in text
    console = Console(width=100, record=True, theme=THEME)
    console.print(record_sheet(sheet))
    assert "Command Bridge" not in console.export_text()


# ---------------------------------------------------------------- whole battles


@pytest.mark.parametrize("rules", ["ft2", "continuum"])
def test_random_battles_with_core_systems(rules: str) -> None:
    """Random legal play with core systems (and breaches every other seed): the invariants
    hold at every step, positions round-trip, the battle ends, replay equals live play."""
    seen = {"bridge": 0, "core": 0, "abandoned": 0, "exploded": 0}
    for seed in range(60):
        rng = random.Random(f"core/{rules}/{seed}")
        setup = msgspec.structs.replace(
            random_setup(rules, rng, mines=2), core_systems=True, reactor_breach=seed % 2 == 0
        )
        commanders = {"red": random_commander(rng), "blue": closing_commander()}
        battle = play_checked(setup, commanders, seed)
        assert battle.state.phase == "over"
        assert replay(setup, battle.journal) == battle.state
        for event in battle.journal:
            if isinstance(event, ShipFired | TurnEnded | ShipsMoved | CoreSystemsRolled):
                seen["bridge"] += sum(t.bridge is not None for t in event.thresholds)
            if isinstance(event, CoreSystemsRolled):
                seen["core"] += 1
                seen["abandoned"] += len(event.abandoned)
                seen["exploded"] += sum(c.exploded for c in event.cores)
    assert seen["bridge"] > 3
    assert seen["core"] > 10
    assert seen["exploded"] > 1


def test_a_campaign_battle_reports_its_bridge_failures() -> None:
    """004 L44: campaign battles use the core systems; each bridge failure's threshold level
    is handed back for the officer-casualty roll (004 L361-370)."""
    found = 0
    for seed in range(40):
        request = CampaignBattle(
            sides=(
                CampaignSide(
                    name="red",
                    order="engage",
                    ships=tuple(
                        CampaignShip(id=f"red-W{i}", design="battleship") for i in range(2)
                    ),
                ),
                CampaignSide(
                    name="blue",
                    order="engage",
                    ships=tuple(
                        CampaignShip(id=f"blue-W{i}", design="battleship") for i in range(2)
                    ),
                ),
            ),
            rules="ft2",
            key=f"core-{seed}",
        )
        outcome = resolve_campaign_battle(request, SeededDice(seed))
        assert outcome.setup.core_systems
        checks: dict[str, list[Threshold]] = {}
        for event in outcome.journal:
            if isinstance(event, ShipFired | TurnEnded | ShipsMoved | CoreSystemsRolled):
                for check in event.thresholds:
                    checks.setdefault(check.ship, []).append(check)
        for result in outcome.ships:
            expected = tuple(c.row for c in checks.get(result.id, []) if c.bridge is not None)
            assert result.bridge_failures == expected
            assert all(level >= 2 for level in result.bridge_failures)  # never at the first
            found += len(result.bridge_failures)
    assert found > 0
