"""Fleet Book 1's expanded fighter rules as Project Continuum carries them (000 section 8), which
the campaign puts in play (004 L45-46): re-arming (8.16), built from the rule text with
scripted dice; the notation, the commanders and journal replay."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleContext,
    BattleSetup,
    BattleState,
    FightersResolved,
    IllegalActionError,
    ShipSetup,
    ShipsMoved,
    context,
    evolve,
    initial_state,
    launchable_bays,
    rearmed,
    replay,
    resolve,
    view,
    write_flight,
    write_orders,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    setup_campaign_battle,
)
from tactical.commanders import (
    closing_commander,
    engage_commander,
    play,
    posture_flight,
    stand_off_commander,
)
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import (
    NEVER_RELAUNCH,
    FighterGroup,
    FlightOrder,
    FlightSyntaxError,
    format_flight,
    parse_flight,
    relaunch_turn,
)
from tactical.missiles import Salvo
from tactical.movement import Order, format_order, parse_order
from tactical.notation import format_position, parse_position
from tactical.summary import describe, describe_journal
from tests.tactical import extra_designs
from tests.tactical.test_battle_fighters import in_flight
from tests.tactical.test_fighter_types import carrier as types_carrier
from tests.tactical.test_fighter_types import fight as types_fight
from tests.tactical.test_fighter_types import group as types_group
from tests.tactical.test_fighter_types import hulk as types_hulk
from tests.tactical.test_fighter_types import table as types_table

BAY = "hangar_bay-1"
BAY2 = "hangar_bay-2"
RED = f"r1.{BAY}"


def _carrier(name: str, fighters: str = "standard", bays: int = 2) -> str:
    return f"""
name = "{name}"
rules = "continuum"
provenance = "test design: a carrier of {bays} {fighters} wings"
mass = 100
thrust = 4
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "hangar_bay"
fighters = "{fighters}"
count = {bays}

[[systems]]
kind = "launch_tube"
count = {bays}

[[systems]]
kind = "pds"
count = 2
"""


TEST_DESIGNS = {
    "test_carrier": _carrier("Test Carrier"),
    "test_escort_carrier": _carrier("Test Escort Carrier", bays=1),
    "test_attack_carrier": _carrier("Test Attack Carrier", fighters="attack"),
}


@pytest.fixture(autouse=True)
def carriers(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def battle_at(
    *ships: ShipSetup, rules: str = "continuum", **options: object
) -> tuple[BattleContext, BattleState]:
    setup = BattleSetup(sides=("red", "blue"), ships=ships, rules=rules, **options)  # type: ignore[arg-type]
    ctx = context(setup)
    return ctx, initial_state(ctx)


def ship(id_: str, side: str, design: str, y: float, course: int = 12, speed: int = 0) -> ShipSetup:
    return ShipSetup(id=id_, side=side, design=design, x=0, y=y, course=course, speed=speed)


def aboard(state: BattleState, ship_id: str, bay: str = BAY) -> int:
    return next(s.fighters or 0 for s in state.ship(ship_id).record.systems if s.id == bay)


def launched(state: BattleState, *groups: FighterGroup) -> BattleState:
    """Put groups in flight, their bays emptied, at the start of a turn's orders."""
    ships = []
    for s in state.ships:
        out = {g.bay for g in groups if g.carrier == s.id}
        systems = tuple(
            msgspec.structs.replace(sys, fighters=0) if sys.id in out else sys
            for sys in s.record.systems
        )
        record = msgspec.structs.replace(s.record, systems=systems)
        ships.append(msgspec.structs.replace(s, record=record))
    return msgspec.structs.replace(state, ships=tuple(ships), fighters=groups)


def group(
    side: str, carrier: str, y: float, n: int = 6, bay: str = BAY, **extra: object
) -> FighterGroup:
    return FighterGroup(
        side=side, carrier=carrier, bay=bay, x=0, y=y, fighters=n, endurance=6, **extra
    )


def move(
    ctx: BattleContext, state: BattleState, orders: dict[str, dict[str, Order]], faces: list[int]
) -> tuple[BattleState, ShipsMoved]:
    """Write every side's orders and move the ships with these dice (initiative first)."""
    for side in ctx.setup.sides:
        if side in {s.side for s in state.ships if s.status == "active"}:
            event = write_orders(ctx, state, side, orders.get(side, {}))
            state = evolve(ctx, state, event)
    moved = resolve(ctx, state, ScriptedDice(faces))
    assert isinstance(moved, ShipsMoved)
    return evolve(ctx, state, moved), moved


def fly(
    ctx: BattleContext, state: BattleState, flight: dict[str, str], faces: list[int]
) -> tuple[BattleState, FightersResolved]:
    for side in ctx.setup.sides:
        if any(g.side == side for g in state.fighters):
            event = write_flight(ctx, state, side, parse_flight(flight.get(side, "")))
            state = evolve(ctx, state, event)
    event = resolve(ctx, state, ScriptedDice([*faces, *[1] * 40]))
    assert isinstance(event, FightersResolved)
    return evolve(ctx, state, event), event


def to_next_orders(state: BattleState) -> BattleState:
    """Skip the firing and the end of the turn: the next turn's orders."""
    return msgspec.structs.replace(state, phase="orders", turn=state.turn + 1, first=None)


# ---------------------------------------------------------------- re-arming (8.16)


def test_the_rearming_die() -> None:
    """000 L10104-10121: 1 never again this game; 2-5 "after 1 full turn, so it may launch in
    the second turn after recovery"; 6 "the turn immediately following"."""
    assert [relaunch_turn(face, 3) for face in range(1, 7)] == [NEVER_RELAUNCH, 5, 5, 5, 5, 4]


def land(face: int) -> tuple[BattleContext, BattleState, FightersResolved]:
    """A carrier holding course recovers its group on turn 1, the re-arming die showing
    ``face``."""
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "test_carrier", 80, 6)
    )
    state = launched(state, group("red", "r1", 10, n=5))
    state, _ = move(ctx, state, {}, [6, 1])
    state, event = fly(ctx, state, {"red": f"{RED}:R"}, [face])
    assert event.moves[0].recovered
    return ctx, state, event


@pytest.mark.parametrize(
    ("face", "ready", "text"),
    [
        (1, None, "may not relaunch this battle"),
        (4, 3, "may launch again from turn 3"),
        (6, 2, "may launch again from turn 2"),
    ],
)
def test_a_recovered_group_rolls_to_rearm(face: int, ready: int | None, text: str) -> None:
    _ctx, state, event = land(face)
    ((rearm,),) = (event.rearms,)
    assert (rearm.group, rearm.face, rearm.ready) == (RED, face, ready)
    assert [r.key for r in event.rolls] == [f"t1/rearm/{RED}"]
    assert state.ship("r1").rearming == ((BAY, NEVER_RELAUNCH if ready is None else ready),)
    assert aboard(state, "r1") == 5
    assert any(text in line for line in describe(event))


def test_a_launch_before_the_group_has_rearmed_is_void() -> None:
    """2-5: it may not launch on the turn after recovery, only the second (L10114-10118); the
    other bay's group, which never landed, launches as ever."""
    ctx, state, _ = land(3)
    state = launched(to_next_orders(state), group("red", "r1", 50, bay=BAY2))
    assert launchable_bays(ctx, state, state.ship("r1")) == []
    state, moved = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    assert moved.moves[0].void == (
        "no fighter group ready to launch: hangar_bay-1 is re-arming until turn 3 "
        "(000 L10114-10121)"
    )
    assert [g.id for g in state.fighters] == [f"r1.{BAY2}"]
    state = msgspec.structs.replace(state, phase="orders", turn=3, fighters=())
    assert rearmed(state, state.ship("r1"), BAY)
    state, moved = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
    assert moved.moves[0].void is None
    assert [(g.id, g.fighters, g.endurance) for g in state.fighters] == [(RED, 5, 6)]
    assert state.ship("r1").rearming == ()


def test_a_crash_turnaround_launches_the_next_turn_and_a_1_never() -> None:
    for face, void in (
        (6, None),
        (1, "hangar_bay-1 may not relaunch this battle (000 L10110-10114)"),
    ):
        ctx, state, _ = land(face)
        state = to_next_orders(state)
        # The second bay's group is kept out of the way: only the landed group is aboard.
        state = launched(state, group("red", "r1", 50, bay=BAY2))
        state, moved = move(ctx, state, {"red": {"r1": Order(launch=1)}}, [6, 1])
        if void is None:
            assert moved.moves[0].void is None
        else:
            assert moved.moves[0].void == f"no fighter group ready to launch: {void}"


def test_ft2_has_no_rearming_and_a_set_up_may_turn_it_off() -> None:
    """FT2 lands and relaunches with no die (001 L757-761); ``fighter_rearming = false`` in a
    Continuum set-up likewise."""
    for options in ({"rules": "ft2"}, {"rules": "continuum", "fighter_rearming": False}):
        ctx, state = battle_at(
            ship("r1", "red", "light_carrier" if options["rules"] == "ft2" else "test_carrier", 0),
            ship("b1", "blue", "frigate" if options["rules"] == "ft2" else "test_carrier", 80, 6),
            **options,
        )
        bay = "fighter_group-1" if options["rules"] == "ft2" else BAY
        state = launched(state, group("red", "r1", 10, bay=bay))
        state, _ = move(ctx, state, {}, [6, 1])
        state, event = fly(ctx, state, {"red": f"r1.{bay}:R"}, [])
        assert event.moves[0].recovered
        assert event.rearms == ()
        assert not any("rearm" in r.key for r in event.rolls)
        assert state.ship("r1").rearming == ()


def test_campaign_battles_rearm_and_scramble_whatever_the_preset() -> None:
    """004 L45-46 names FB1's expanded fighter rules and the re-arming rule: re-arming and
    scrambling in every campaign battle, FT2-built ones too."""
    request = CampaignBattle(
        sides=(
            CampaignSide(
                name="red",
                order="engage",
                ships=(CampaignShip(id="red-C", design="light_carrier"),),
            ),
            CampaignSide(
                name="blue", order="engage", ships=(CampaignShip(id="blue-F", design="frigate"),)
            ),
        ),
        key="rearm",
        rules="ft2",
    )
    setup = setup_campaign_battle(request, SeededDice(1))
    assert (setup.rules, setup.fighter_rearming, setup.fighter_scramble) == ("ft2", True, True)
    rules = context(setup).rules
    assert (rules.fighter_rearming, rules.fighter_scramble) == (True, True)
    # Secondary moves come with the preset: FT2 has no endurance to pay for them.
    assert setup.fighter_secondary_move is None
    assert not rules.fighter_secondary_move


def test_rearming_bays_round_trip_in_the_notation() -> None:
    _ctx, state, _ = land(4)
    carrier = msgspec.structs.replace(state.ship("r1"), rearming=((BAY, 3), (BAY2, NEVER_RELAUNCH)))
    state = msgspec.structs.replace(state, ships=(carrier, *state.ships[1:]))
    text = format_position("continuum", state)
    assert f"/g{BAY}@3/g{BAY2}@x" in text
    assert parse_position(text) == ("continuum", state)


def test_the_commanders_launch_only_rearmed_groups() -> None:
    """A carrier whose only group aboard is re-arming writes no launch (the commanders never
    order an illegal one); once it has re-armed, they launch it."""
    ctx, state, _ = land(3)
    state = launched(to_next_orders(state), group("red", "r1", 50, bay=BAY2))
    state = msgspec.structs.replace(state, fighters=())  # the other group, far away, is gone
    state = msgspec.structs.replace(
        state,
        ships=tuple(
            msgspec.structs.replace(s, y=s.y - 40) if s.id == "b1" else s for s in state.ships
        ),
    )
    commander = engage_commander()
    assert not commander.orders(ctx, state, "red")["r1"].launch
    state = msgspec.structs.replace(state, turn=3)
    assert commander.orders(ctx, state, "red")["r1"].launch  # L2 launches the one ready


def test_a_battle_with_rearming_replays_from_its_journal() -> None:
    """Closing commanders launch, land and relaunch; the journal folds back into the live state
    without a die, re-arming dice and all."""
    found = False
    for seed in range(8):
        setup = BattleSetup(
            sides=("red", "blue"),
            ships=(
                ShipSetup(id="r1", side="red", design="test_carrier", x=0, y=0, course=12, speed=2),
                ShipSetup(
                    id="b1", side="blue", design="heavy_cruiser", x=0, y=60, course=6, speed=2
                ),
            ),
            rules="continuum",
            turn_limit=12,
        )
        battle = play(
            Battle(setup),
            {side: closing_commander(cruise=2) for side in setup.sides},
            SeededDice(seed),
        )
        assert replay(setup, battle.journal) == battle.state
        rearms = [r for e in battle.journal if isinstance(e, FightersResolved) for r in e.rearms]
        if rearms:
            found = True
            assert any("re-arms" in line for line in describe_journal(battle.journal))
    assert found


# ---------------------------------------------------------------- endurance spent (8.13)


def caught(endurance: int, faces: list[int], prey: str = "standard") -> FightersResolved:
    """A standard red group catches a blue group with ``endurance`` left: red rolls 1s, blue
    ``faces``."""
    ctx, state = types_table(types_carrier("standard", "r1"), types_carrier(prey, "b1"), blue_y=60)
    blue = msgspec.structs.replace(types_group("blue", "b1", 30), endurance=endurance)
    state = in_flight(ctx, state, types_group("red", "r1", 20), blue)
    _, event = types_fight(ctx, state, {"red": f"{RED}:D>b1.{BAY}"}, [1] * 6 + faces)
    return event


def test_a_group_dogfighted_at_0_endurance_kills_only_on_6s() -> None:
    """000 L9346-9350: "may return fire, but only scores one kill on rolls of 6": a 6 kills
    one, with no re-roll; 4s and 5s nothing. With 1 left it fights as ever."""
    (fight,) = caught(0, [6, 6, 5, 4, 1, 2]).dogfights
    assert (fight.defender_roll.faces, fight.defender_roll.rerolls) == ((6, 6, 5, 4, 1, 2), ())
    assert (fight.defender_roll.kills, fight.exhausted) == (2, True)
    (fight,) = caught(1, [6, 6, 5, 4, 1, 2]).dogfights
    assert (fight.defender_roll.kills, fight.defender_roll.rerolls, fight.exhausted) == (
        6,
        (1, 1),
        False,
    )


def test_no_modifier_turns_an_exhausted_groups_5_into_a_kill() -> None:
    """An interceptor's +1 at fighters (000 L9593-9597) does not make its 5 a 6 once it has no
    endurance: the text counts "rolls of 6"."""
    (fight,) = caught(0, [5, 5, 5, 5, 5, 6], prey="interceptor").dogfights
    assert fight.defender_roll.kills == 1
    assert any("kills on 6s only" in line for line in describe(caught(0, [6] * 6)))


# ---------------------------------------------------------------- interception of missiles (8.12)

MARKER = "b1.sml-1.t0"


def salvo_at(y: float, side: str = "blue") -> Salvo:
    return Salvo(id=MARKER, side=side, x=0, y=y, launched=0)


def intercept(
    faces: list[int],
    kind: str = "standard",
    group_y: float = 20,
    marker_y: float = 5,
    endurance: int = 6,
) -> tuple[BattleState, FightersResolved]:
    """A red group of ``kind`` at (0, ``group_y``) intercepts a blue salvo at (0,
    ``marker_y``), which homes on red's carrier at the origin if it is within 6 MU."""
    ctx, state = types_table(types_carrier(kind, "r1"), types_hulk("b1"), blue_y=60)
    red = msgspec.structs.replace(types_group("red", "r1", group_y), endurance=endurance)
    state = in_flight(ctx, state, red)
    state = msgspec.structs.replace(state, salvos=(salvo_at(marker_y),))
    return types_fight(ctx, state, {"red": f"{RED}:I>{MARKER}"}, faces)


def test_a_group_intercepts_a_salvo_and_may_lose_fighters() -> None:
    """Each fighter a D6, 5-6 kills a missile, a 6 re-rolls (000 L5859-5861, as L9307-9309
    direct); a D6 for each missile killed, a 6 losing the fighter (L5913-5917); 1 endurance
    (L9319-9323). The kills come off the on-target die like point defence's."""
    state, event = intercept([5, 6, 4, 1, 2, 3, 5, 6, 1, 1, 4, 2])
    (caught,) = event.interceptions
    assert (caught.group, caught.salvo) == (RED, MARKER)
    assert (caught.roll.faces, caught.roll.rerolls, caught.roll.kills) == (
        (5, 6, 4, 1, 2, 3),
        (5,),
        3,
    )
    assert (caught.losses, caught.lost) == ((6, 1, 1), 1)
    assert event.moves[0].void is None
    assert (event.moves[0].x, event.moves[0].y) == (0.0, 5.0)  # moved up to the marker
    (flying,) = state.fighters
    assert (flying.fighters, flying.endurance) == (5, 5)
    (strike,) = event.salvos
    assert (strike.target, strike.on_target, strike.kills, strike.hits) == ("r1", 4, 3, 1)
    assert state.salvos == ()
    text = describe(event)
    told = f"    {RED} intercepts salvo {MARKER} [5, 6, 4, 1, 2, 3, 5] kills 3 missiles"
    assert f"{told}, loss dice [6, 1, 1], 1 fighter lost" in text


def test_an_interceptors_plus_1_counts_against_missiles() -> None:
    """Interceptors roll +1 "against fighters, missiles and ordnance" (000 L9593-9597): a 4
    kills."""
    _, event = intercept([4, 4, 3, 1, 1, 1, 1, 1], kind="interceptor")
    (caught,) = event.interceptions
    assert caught.roll.kills == 2


def test_who_may_not_intercept() -> None:
    """Attack and torpedo fighters cannot intercept missiles (000 L9309-9312): the order is
    illegal; a group with no endurance left may not either, nor one that ends more than 6 MU
    from the marker: void, no die."""
    for kind in ("attack", "torpedo", "attack+fast"):
        ctx, state = types_table(types_carrier(kind, "r1"), types_hulk("b1"), blue_y=60)
        state = in_flight(ctx, state, types_group("red", "r1", 20))
        state = msgspec.structs.replace(state, salvos=(salvo_at(5),))
        with pytest.raises(IllegalActionError, match="cannot intercept"):
            write_flight(ctx, state, "red", parse_flight(f"{RED}:I>{MARKER}"))
    _, event = intercept([1] * 4, endurance=0)
    assert event.moves[0].void == "no combat endurance left (000 L9311-9315)"
    assert event.interceptions == ()
    _, event = intercept([1] * 4, group_y=36, marker_y=5)  # 31 MU: 24 flown, 7 short
    assert event.moves[0].void == f"{MARKER} is out of reach"
    assert event.interceptions == ()
    assert not any(r.key.startswith("t1/intercept") for r in event.rolls)


def test_a_salvo_that_homes_on_nothing_is_not_intercepted() -> None:
    """The salvo homes before the fighters engage it (000 L1053-1472 phases 7-8): one with no
    ship within 6 MU is wasted, and the group rolls nothing and spends nothing."""
    state, event = intercept([1] * 4, marker_y=15)
    assert event.interceptions == ()
    assert (
        event.moves[0].void == f"{MARKER} found no ship to home on and was wasted (000 L5794-5798)"
    )
    assert state.fighters[0].endurance == 6


def test_the_intercept_order_round_trips() -> None:
    text = f"{RED}:I>{MARKER} r1.{BAY2}:A>b1"
    assert format_flight(parse_flight(text)) == text
    assert parse_flight(f"{RED}:I>{MARKER}")[RED] == FlightOrder(kind="intercept", target=MARKER)
    with pytest.raises(FlightSyntaxError, match="take a target"):
        parse_flight(f"{RED}:I")
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "test_carrier", 60, 6)
    )
    state = msgspec.structs.replace(
        launched(state, group("red", "r1", 20)), phase="flight", salvos=(salvo_at(5),)
    )
    state = evolve(ctx, state, write_flight(ctx, state, "red", parse_flight(f"{RED}:I>{MARKER}")))
    position = format_position("continuum", state)
    assert f"w:red={RED}:I>{MARKER}" in position
    assert parse_position(position) == ("continuum", state)


def test_enemy_salvos_show_when_the_fighters_fly() -> None:
    """Salvos are placed in phase 3 and the fighters move in phases 4-6 (000 L1053-1472): the
    flight orders see the enemy's markers; the movement orders do not."""
    _ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "test_carrier", 60, 6)
    )
    state = msgspec.structs.replace(launched(state, group("red", "r1", 20)), salvos=(salvo_at(5),))
    assert view(state, "red").salvos == ()
    assert view(msgspec.structs.replace(state, phase="flight"), "red").salvos == (salvo_at(5),)


def test_the_commanders_intercept_a_salvo_that_threatens_a_friend() -> None:
    """A group that can reach a salvo homing on a friendly ship intercepts it, under Engage and
    Stand Off; a salvo homing on nothing, or one the group cannot reach, it leaves alone, and
    attack fighters never try."""
    for posture in ("attack", "defend"):
        flight = posture_flight(posture)
        for marker_y, kind, order in (
            (5, "standard", "intercept"),
            (15, "standard", "attack" if posture == "attack" else "cover"),
            (5, "attack", "attack" if posture == "attack" else "cover"),
        ):
            ctx, state = types_table(types_carrier(kind, "r1"), types_hulk("b1"), blue_y=60)
            state = in_flight(ctx, state, types_group("red", "r1", 20))
            state = msgspec.structs.replace(state, salvos=(salvo_at(marker_y),))
            assert flight(ctx, state, "red")[RED].kind == order, (posture, marker_y, kind)
    ctx, state = types_table(types_carrier("standard", "r1"), types_hulk("b1"), blue_y=60)
    far = types_group("red", "r1", 40)  # 35 MU from the marker: 24 + 6 do not reach
    state = msgspec.structs.replace(in_flight(ctx, state, far), salvos=(salvo_at(5),))
    assert posture_flight("defend")(ctx, state, "red")[RED].kind == "cover"


MISSILE_CARRIER = """
name = "Missile Carrier"
rules = "continuum"
provenance = "test design: a carrier with a salvo launcher"
mass = 100
thrust = 4
hull_strength = "average"
fire_controls = 2

[[systems]]
kind = "hangar_bay"
fighters = "interceptor"
count = 2

[[systems]]
kind = "launch_tube"
count = 2

[[systems]]
kind = "sml"
arcs = ["F", "FP", "FS"]

[[systems]]
kind = "magazine"
loads = 6
"""


def test_a_battle_with_interceptions_replays_from_its_journal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two carriers with salvo launchers close: the interceptors go for the salvos, and the
    journal folds back into the live state without a die."""
    extra_designs.install(monkeypatch, {**TEST_DESIGNS, "missile_carrier": MISSILE_CARRIER})
    seen = 0
    for seed in range(6):
        setup = BattleSetup(
            sides=("red", "blue"),
            ships=(
                ShipSetup(
                    id="r1", side="red", design="missile_carrier", x=0, y=0, course=12, speed=2
                ),
                ShipSetup(
                    id="b1", side="blue", design="missile_carrier", x=0, y=60, course=6, speed=2
                ),
            ),
            rules="continuum",
            turn_limit=10,
        )
        battle = play(
            Battle(setup), {side: engage_commander() for side in setup.sides}, SeededDice(seed)
        )
        assert replay(setup, battle.journal) == battle.state
        caught = [
            c for e in battle.journal if isinstance(e, FightersResolved) for c in e.interceptions
        ]
        seen += len(caught)
        if caught:
            assert any("intercepts salvo" in line for line in describe_journal(battle.journal))
    assert seen


# ---------------------------------------------------------------- scrambling (8.3)

BLUE1, BLUE2 = f"b1.{BAY}", f"b1.{BAY2}"
STAND_READY = Order(scramble=True)


def raid(
    face: int,
    faces: list[int],
    *,
    red: str = "standard",
    rearming: tuple[tuple[str, int], ...] = (),
    order: Order = STAND_READY,
    bays: int = 2,
) -> tuple[BattleState, FightersResolved]:
    """Blue's two groups (6 and 4 fighters) attack red's carrier, which stands ready to
    scramble; the scramble die shows ``face``, then ``faces``."""
    ctx, state = types_table(types_carrier(red, "r1"), types_carrier("standard", "b1"), blue_y=60)
    if bays == 1:
        sheet = ctx.sheets["r1"]
        one = msgspec.structs.replace(
            sheet, systems=tuple(s for s in sheet.systems if s.id != BAY2)
        )
        ctx = ctx._replace(sheets={**ctx.sheets, "r1": one})
        state = initial_state(ctx)
    blue = (types_group("blue", "b1", 10), types_group("blue", "b1", 10, n=4))
    blue = (blue[0], msgspec.structs.replace(blue[1], bay=BAY2))
    state = launched(state, *blue)
    carrier = msgspec.structs.replace(state.ship("r1"), rearming=rearming)
    state = msgspec.structs.replace(state, ships=(carrier, *state.ships[1:]))
    state, _ = move(ctx, state, {"red": {"r1": order}}, [6, 1])
    return fly(ctx, state, {"blue": f"{BLUE1}:A>r1 {BLUE2}:A>r1"}, [face, *faces])


def test_a_5_scrambles_one_group_in_time_to_stop_an_attack() -> None:
    """000 L8625-8629, L8653-8659: one group engages an attacker in a dogfight, which makes no
    attack; the other attacker goes on."""
    state, event = raid(5, [1] * 12 + [4] * 4)
    (scramble,) = event.scrambles
    assert (scramble.ship, scramble.face, scramble.groups, scramble.late) == (
        "r1",
        5,
        (RED,),
        False,
    )
    (fight,) = event.dogfights
    assert (fight.attacker, fight.defender, fight.late) == (RED, BLUE1, False)
    assert [a.group for a in event.attacks] == [BLUE2]
    caught = next(m for m in event.moves if m.group == BLUE1)
    assert caught.void == f"caught by {RED}, scrambled from r1 (000 L8653-8659)"
    flying = {g.id: g for g in state.fighters}
    assert (flying[RED].fighters, flying[RED].endurance) == (6, 5)  # a full group, 1 CEF spent
    assert (flying[RED].x, flying[RED].y) == (flying[BLUE1].x, flying[BLUE1].y)
    assert (aboard(state, "r1"), aboard(state, "r1", BAY2)) == (0, 6)
    assert any(
        "r1 scrambles [5]: r1.hangar_bay-1 gets away in time" in line for line in describe(event)
    )


def test_a_6_scrambles_two_groups_from_a_carrier_that_launches_two() -> None:
    """000 L8633-8647: two groups, each on its own attacker; a ship that launches one group a
    turn scrambles one."""
    _, event = raid(6, [1] * 24)
    assert event.scrambles[0].groups == (RED, f"r1.{BAY2}")
    assert {(f.attacker, f.defender) for f in event.dogfights} == {
        (RED, BLUE1),
        (f"r1.{BAY2}", BLUE2),
    }
    assert event.attacks == ()
    _, event = raid(6, [1] * 12 + [1] * 4, bays=1)
    assert event.scrambles[0].groups == (RED,)
    assert [a.group for a in event.attacks] == [BLUE2]


def test_a_4_launches_too_late_and_fights_after_the_attack() -> None:
    """000 L8615-8621, L8659-8671: the attackers strike first, then the scrambled group
    dogfights one of them, though it has fired; the attacker's endurance already paid for
    this turn's combat."""
    state, event = raid(4, [4] * 6 + [4] * 4 + [1] * 12)
    assert event.scrambles[0].late
    assert [a.group for a in event.attacks] == [BLUE1, BLUE2]
    (fight,) = event.dogfights
    assert (fight.attacker, fight.defender, fight.late) == (RED, BLUE1, True)
    flying = {g.id: g for g in state.fighters}
    assert flying[BLUE1].endurance == 5  # the attack run's 1, no more
    assert flying[RED].endurance == 5
    assert any("dogfight after its attack run" in line for line in describe(event))


def test_a_1_is_a_mishap_and_2_or_3_nothing() -> None:
    """000 L8597-8611: a 1 puts a bay and its fighters out of action (damaged: a damage
    control party may mend it); 2-3 launch nothing; the attacks go in."""
    state, event = raid(1, [1] * 10)
    assert event.scrambles[0].mishap == BAY
    bay = next(s for s in state.ship("r1").record.systems if s.id == BAY)
    assert (bay.status, bay.fighters) == ("damaged", 6)
    assert len(event.attacks) == 2
    for face in (2, 3):
        _, event = raid(face, [1] * 10)
        assert (event.scrambles[0].groups, event.scrambles[0].mishap) == ((), None)
        assert len(event.attacks) == 2


def test_a_group_rearming_scrambles_with_half_its_endurance_and_no_ordnance() -> None:
    """000 L8675-8685: "a standard fighter group would launch with 3 CEF"; a torpedo group
    leaves its torpedoes; a group whose re-arming die showed a 1 never goes."""
    state, event = raid(5, [1] * 12 + [1] * 4, red="torpedo", rearming=((BAY, 9),))
    assert event.scrambles[0].groups == (f"r1.{BAY2}",)  # the group ready goes first
    state, _ = raid(5, [1] * 12 + [1] * 4, red="torpedo", rearming=((BAY, 9), (BAY2, 9)))
    red = next(g for g in state.fighters if g.id == RED)
    assert (red.endurance, red.torpedoes) == (2, False)  # 3, less the dogfight's 1
    state, event = raid(5, [1] * 12 + [1] * 4, rearming=((BAY, NEVER_RELAUNCH),))
    assert event.scrambles[0].groups == (f"r1.{BAY2}",)


def test_who_may_scramble() -> None:
    """Only a ship that applied no thrust (000 L8647-8649): ``/scramble`` with a turn is void;
    not under FT2 (the rule is off); no roll without a group aboard, nor when no group
    attacks the carrier."""
    ctx, state = types_table(types_carrier("standard", "r1"), types_carrier("standard", "b1"))
    _, moved = move(ctx, state, {"red": {"r1": Order(turn=1, scramble=True)}}, [6, 1])
    assert (
        moved.moves[0].void
        == "a ship may not scramble fighters if it applied thrust (000 L8647-8649)"
    )
    ctx, state = battle_at(
        ship("r1", "red", "light_carrier", 0), ship("b1", "blue", "frigate", 60, 6), rules="ft2"
    )
    _, moved = move(ctx, state, {"red": {"r1": Order(scramble=True)}}, [6, 1])
    assert "not in these rules" in (moved.moves[0].void or "")
    _, event = raid(5, [1] * 10, order=Order())
    assert event.scrambles == ()
    assert not any("scramble" in r.key for r in event.rolls)


def test_the_scramble_order_round_trips_and_stays_secret() -> None:
    assert parse_order("=/scramble") == Order(scramble=True)
    assert parse_order("L1/pulse_torpedo-1=O/scramble") == Order(
        launch=1, torpedoes=(("pulse_torpedo-1", "O"),), scramble=True
    )
    assert format_order(Order(launch=1, scramble=True)) == "L1/scramble"
    ctx, state = battle_at(
        ship("r1", "red", "test_carrier", 0), ship("b1", "blue", "test_carrier", 60, 6)
    )
    state, moved = move(ctx, state, {"red": {"r1": Order(scramble=True)}}, [6, 1])
    assert moved.moves[0].order == "=/scramble"
    assert any("ready to scramble fighters" in line for line in describe(moved))
    assert state.ship("r1").scramble
    text = format_position("continuum", state)
    assert "/S" in text.split()[5]
    assert parse_position(text) == ("continuum", state)
    assert not view(state, "blue").ship("r1").scramble
    assert view(state, "red").ship("r1").scramble


def test_the_commanders_stand_ready_to_scramble() -> None:
    """A carrier that holds course with a group aboard stands ready when enemy groups in flight
    could reach it; a carrier that turns, or with nothing near, does not."""
    ctx, state = battle_at(
        ShipSetup(id="r1", side="red", design="test_carrier", x=0, y=0, course=12, speed=0),
        ShipSetup(id="b1", side="blue", design="test_carrier", x=0, y=200, course=6, speed=0),
    )
    quiet = engage_commander().orders(ctx, state, "red")
    assert not quiet["r1"].scramble
    raided = launched(state, group("blue", "b1", 25))
    assert closing_commander(cruise=0).orders(ctx, raided, "red")["r1"] == STAND_READY
    moving = stand_off_commander().orders(ctx, raided, "red")["r1"]
    assert moving.accel
    assert not moving.scramble


def test_a_battle_with_scrambles_replays_from_its_journal() -> None:
    """Two carriers close under Engage and Closing: carriers scramble at the raids on them, and
    the journal folds back into the live state without a die."""
    scrambled = 0
    # Groups launched fly half their move (000 L8526-8528), so raids come later and fewer
    # catch a carrier with a group still aboard: twelve seeds, not six, to see scrambles.
    for seed in range(12):
        setup = BattleSetup(
            sides=("red", "blue"),
            ships=(
                ShipSetup(id="r1", side="red", design="test_carrier", x=0, y=0, course=12),
                ShipSetup(id="b1", side="blue", design="test_carrier", x=0, y=60, course=6),
            ),
            rules="continuum",
            turn_limit=10,
        )
        commanders = {"red": engage_commander(), "blue": closing_commander(cruise=0)}
        battle = play(Battle(setup), commanders, SeededDice(seed))
        assert replay(setup, battle.journal) == battle.state
        rolled = [s for e in battle.journal if isinstance(e, FightersResolved) for s in e.scrambles]
        scrambled += len(rolled)
        if rolled:
            assert any(" scrambles [" in line for line in describe_journal(battle.journal))
    assert scrambled


# ---------------------------------------------------------------- secondary moves (8.5)


def strike(
    order: str,
    group_y: float,
    *,
    kind: str = "standard",
    endurance: int = 6,
    before: tuple[tuple[str, float, float], ...] = (),
) -> tuple[BattleState, FightersResolved]:
    """A red group of ``kind`` at (0, ``group_y``) flies ``order`` at blue's hulk at (0, 60)."""
    ctx, state = types_table(types_carrier(kind, "r1"), types_hulk("b1"), blue_y=60)
    red = msgspec.structs.replace(types_group("red", "r1", group_y), endurance=endurance)
    state = msgspec.structs.replace(in_flight(ctx, state, red), before=before)
    return types_fight(ctx, state, {"red": f"{RED}:{order}"}, [1] * 6)


def test_a_secondary_move_flies_12_mu_more_for_1_endurance() -> None:
    """000 L8760-8774: up to 12 MU after the ships move, for 1 CEF; the attack run costs its
    own 1 (L9319-9323)."""
    state, event = strike("A>b1", 26)  # 34 MU off: 24 flown, 10 short of the 6 it needs
    assert event.moves[0].void == "b1 is out of reach"
    assert not event.moves[0].secondary
    state, event = strike("A>b1+", 26)
    (moved,) = event.moves
    assert (moved.order, moved.y, moved.secondary, moved.void) == ("A>b1+", 60.0, True, None)
    assert [a.group for a in event.attacks] == [RED]
    assert state.fighters[0].endurance == 4  # 1 for the secondary move, 1 for the attack run
    assert any("with a secondary move (1 endurance)" in line for line in describe(event))


def test_no_secondary_move_when_the_move_reaches_or_without_endurance() -> None:
    """A group whose objective is within its move makes no secondary move and pays nothing; one
    with no endurance left may make none (L9336-9340); one with 1 may, and then may not
    attack."""
    state, event = strike("A>b1+", 40)
    assert not event.moves[0].secondary
    assert state.fighters[0].endurance == 5  # the attack run's 1 only
    _, event = strike("R+", 40, endurance=0)  # home is 40 MU off: only 24 flown
    assert (event.moves[0].y, event.moves[0].secondary) == (16.0, False)
    state, event = strike("A>b1+", 26, endurance=1)
    assert event.moves[0].secondary
    assert event.moves[0].void == "no combat endurance left (000 L8482-8484)"
    assert state.fighters[0].endurance == 0


def test_a_fast_group_adds_12_mu_to_its_36() -> None:
    """Fast fighters move 36 MU, "secondary still 12" (000 L9525-9527)."""
    _, event = strike("A>b1+", 6, kind="fast")  # 54 MU off: 48 flown, within the 6
    assert event.moves[0].void is None
    assert event.moves[0].y == 54.0
    _, event = strike("A>b1+", 0, kind="fast")  # 60 off: 48 flown, 12 short
    assert event.moves[0].void == "b1 is out of reach"


def test_a_secondary_move_brings_a_dogfight_into_reach() -> None:
    ctx, state = types_table(
        types_carrier("standard", "r1"), types_carrier("standard", "b1"), blue_y=90
    )
    state = in_flight(ctx, state, types_group("red", "r1", 0), types_group("blue", "b1", 30))
    _, event = types_fight(ctx, state, {"red": f"{RED}:D>b1.{BAY}+"}, [1] * 12)
    assert event.moves[0].secondary
    (fight,) = event.dogfights
    assert (fight.attacker, fight.defender) == (RED, f"b1.{BAY}")


def test_a_robots_secondary_move_comes_before_the_ships_move() -> None:
    """000 L10070-10078: robots "cannot react to ship movement": their 12 MU go first, towards
    where the target stood before it moved, then their move towards where it is. A piloted
    group flies all 36 at it."""
    before = (("r1", 0.0, 0.0), ("b1", 0.0, -20.0))  # b1 came 80 MU: it stood behind red
    state, event = strike("A>b1+", 24, kind="robot", before=before)
    (moved,) = event.moves
    assert (moved.y, moved.secondary, moved.void) == (36.0, True, "b1 is out of reach")
    assert state.fighters[0].endurance == 5
    _, event = strike("A>b1+", 24, kind="standard", before=before)
    assert (event.moves[0].y, event.moves[0].void) == (60.0, None)
    # Where the target stood is on the way: the robot's 12 and 24 take it there.
    _, event = strike("A>b1+", 24, kind="robot", before=(("b1", 0.0, 50.0),))
    assert (event.moves[0].y, event.moves[0].void) == (60.0, None)


def test_the_move_keeps_where_ships_stood_while_robots_fly() -> None:
    """The move records the ships' places before it (``B:`` in the position) when a robot
    group is in flight, and the fighter step forgets them."""
    robots = {**TEST_DESIGNS, "robot_carrier": _carrier("Robot Carrier", fighters="robot")}
    setup_ships = (
        ship("r1", "red", "robot_carrier", 0, speed=4),
        ship("b1", "blue", "test_carrier", 80, 6),
    )
    mp = pytest.MonkeyPatch()
    extra_designs.install(mp, robots)
    try:
        ctx, state = battle_at(*setup_ships)
        state = launched(state, group("red", "r1", 10))
        state, _ = move(ctx, state, {}, [6, 1])
        assert state.before == (("r1", 0.0, 0.0), ("b1", 0.0, 80.0))
        text = format_position("continuum", state)
        assert "B:r1@0,0 B:b1@0,80" in text
        assert parse_position(text) == ("continuum", state)
        state, _ = fly(ctx, state, {"red": f"{RED}:A>b1+"}, [])
        assert state.before == ()
        ctx, state = battle_at(ship("r1", "red", "test_carrier", 0, speed=4), setup_ships[1])
        state, _ = move(ctx, launched(state, group("red", "r1", 10)), {}, [6, 1])
        assert state.before == ()  # no robot in flight: nothing kept
    finally:
        mp.undo()


def test_the_secondary_move_notation_and_ft2() -> None:
    text = f"{RED}:A>b1+ r1.{BAY2}:R+ x.y:D>z.w+ a.b:I>c.d+ e.f:C>r1+ g.h:="
    assert format_flight(parse_flight(text)) == " ".join(sorted(text.split()))
    assert parse_flight("g.h:R+")["g.h"] == FlightOrder(kind="recover", secondary=True)
    with pytest.raises(FlightSyntaxError, match="no second move"):
        parse_flight("g.h:=+")
    ctx, state = battle_at(
        ship("r1", "red", "light_carrier", 0), ship("b1", "blue", "frigate", 60, 6), rules="ft2"
    )
    state = msgspec.structs.replace(
        launched(state, group("red", "r1", 10, bay="fighter_group-1")), phase="flight"
    )
    with pytest.raises(IllegalActionError, match="no secondary move"):
        write_flight(ctx, state, "red", parse_flight("r1.fighter_group-1:A>b1+"))


def test_the_commanders_take_a_secondary_move_when_it_brings_the_target_in_reach() -> None:
    attack = posture_flight("attack")
    for group_y, endurance, secondary in (
        (26, 6, True),
        (40, 6, False),
        (10, 6, False),
        (26, 2, True),
    ):
        ctx, state = types_table(types_carrier("standard", "r1"), types_hulk("b1"), blue_y=60)
        red = msgspec.structs.replace(types_group("red", "r1", group_y, n=6), endurance=endurance)
        state = in_flight(ctx, state, red)
        order = attack(ctx, state, "red")[RED]
        assert (order.kind, order.secondary) == ("attack", secondary), (group_y, endurance)
    # A robot whose secondary move would carry it away from the target does not take it.
    ctx, state = types_table(types_carrier("robot", "r1"), types_hulk("b1"), blue_y=60)
    state = msgspec.structs.replace(
        in_flight(ctx, state, types_group("red", "r1", 26)), before=(("b1", 0.0, 0.0),)
    )
    assert not attack(ctx, state, "red")[RED].secondary


def test_a_battle_with_secondary_moves_replays_from_its_journal() -> None:
    """Robot and piloted groups under Engage take secondary moves; the journal folds back
    into the live state without a die. The carriers close as cinematic Engage ships did before
    they closed to 4 MU (issue 17): at 4 MU no group of these seeds takes a secondary move."""
    from tactical.commanders import engage

    robots = {**TEST_DESIGNS, "robot_carrier": _carrier("Robot Carrier", fighters="robot")}
    mp = pytest.MonkeyPatch()
    extra_designs.install(mp, robots)
    mp.setattr(engage, "ENGAGE_CLOSE_MU", 6.0)
    made = 0
    try:
        for seed in range(4):
            setup = BattleSetup(
                sides=("red", "blue"),
                ships=(
                    ShipSetup(id="r1", side="red", design="robot_carrier", x=0, y=0, course=12),
                    ShipSetup(id="b1", side="blue", design="test_carrier", x=0, y=40, course=6),
                ),
                rules="continuum",
                turn_limit=10,
            )
            battle = play(
                Battle(setup), {s: engage_commander() for s in setup.sides}, SeededDice(seed)
            )
            assert replay(setup, battle.journal) == battle.state
            made += sum(
                m.secondary and m.group.startswith("r1.")  # the robots
                for e in battle.journal
                if isinstance(e, FightersResolved)
                for m in e.moves
            )
    finally:
        mp.undo()
    assert made
