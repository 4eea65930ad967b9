"""Ramming (FT2 section 6, 001 L973-1001), read line by line.

The ram is written in the movement orders (L979); after the move the rammer must lie within 2"
of its target (L981) and roll a 6 to go on (L979, lower by the special option); each ship's D6
+ thrust, the rammer's higher to make contact (L993, a tie the target's: digest A16); on
contact each deals D6 x its own damage points left to the other (L995); the worked example is
L999. The choices are in docs/rulings.md, "Tactical: ramming".
"""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    DummySetup,
    Hit,
    Rammed,
    SetupError,
    ShipSetup,
    ShipsMoved,
    Threshold,
    context,
    decode_journal,
    decode_setup,
    encode_journal,
    ram_need,
    replay,
    sheet_for,
    sides_to_write,
)
from tactical.commanders import (
    closing_commander,
    engage_commander,
    ram_course,
    stand_off_commander,
)
from tactical.commanders.engage import _desperate_ram
from tactical.dice import ScriptedDice
from tactical.movement import format_order, parse_orders
from tactical.notation import format_position, parse_position
from tactical.ramming import RAM_RANGE_MU
from tactical.ship import ShipState, fresh_state, with_system_status
from tactical.summary import describe

NO_THRESHOLD = [1] * 11  # a heavy cruiser's first threshold: 9 systems, drive and FTL, all 1s
INITIATIVE = [1, 2]  # one ship a side: a D6 each (001 L262), blue first


def ship(
    ship_id: str,
    side: str,
    design: str,
    x: float,
    y: float,
    *,
    course: int = 12,
    speed: int = 0,
    state: ShipState | None = None,
) -> ShipSetup:
    return ShipSetup(
        id=ship_id, side=side, design=design, x=x, y=y, course=course, speed=speed, state=state
    )


def corvette_with_2_of_3() -> ShipState:
    """001 L999: "A Corvette with 2 of its original 3 Damage Points left"."""
    sheet = sheet_for("corvette", "ft2")
    assert sheet.hull_boxes == 3
    return msgspec.structs.replace(fresh_state(sheet), hull_lost=(1, 0))


def start(*ships: ShipSetup, **options: object) -> Battle:
    setup = BattleSetup(sides=("red", "blue"), ships=ships, turn_limit=5)
    return Battle(msgspec.structs.replace(setup, **options))


def move(battle: Battle, dice: ScriptedDice, **orders: str) -> ShipsMoved:
    """Write each side's orders (``red="c1:Rhc"``) and move the ships."""
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, parse_orders(orders.get(side, "")))
    event = battle.resolve(dice)
    assert isinstance(event, ShipsMoved)
    return event


def check_replay_and_notation(battle: Battle) -> None:
    rules = battle.ctx.setup.rules
    assert replay(battle.ctx.setup, battle.journal) == battle.state
    assert decode_journal(encode_journal(battle.journal)) == battle.journal
    assert parse_position(format_position(rules, battle.state)) == (rules, battle.state)


def corvette_and_cruiser(gap: float = 1.5, **options: object) -> Battle:
    return start(
        ship("c1", "red", "corvette", 0, 0, state=corvette_with_2_of_3()),
        ship("hc", "blue", "heavy_cruiser", 0, gap),
        **options,
    )


# ---------------------------------------------------------------- the worked example (L999)


def test_the_worked_example() -> None:
    # 001 L999: the corvette (2 of 3 DP left) succeeds in ramming an undamaged heavy cruiser
    # (16 DP); it rolls a 4, 2 x 4 = 8 to the cruiser; the cruiser rolls 3, 3 x 16 = 48 to the
    # corvette: "one vapourised Corvette, and a badly-damaged Cruiser".
    battle = corvette_and_cruiser()
    # The 6 to go on; 5 + thrust 8 = 13 against 6 + thrust 4 = 10, contact; then 4 and 3. The
    # 8 points complete the cruiser's first row (5 boxes): its threshold check, all 1s.
    dice = ScriptedDice([6, 5, 6, 4, 3, *NO_THRESHOLD])
    moved = move(battle, dice, red="c1:Rhc")
    assert dice.remaining == 0
    assert moved.rams == (
        Rammed(
            ship="c1",
            target="hc",
            distance=1.5,
            need=6,
            proceed=6,
            attack=5,
            attack_thrust=8,
            evade=6,
            evade_thrust=4,
            contact=True,
            impact=4,
            ship_points=2,
            recoil=3,
            target_points=16,
            hits=(
                Hit(target="hc", damage=8, to_armour=0, to_hull=8, rows=(1,)),
                Hit(target="c1", damage=48, to_armour=0, to_hull=2, destroyed=True),
            ),
        ),
    )
    assert moved.thresholds == (Threshold(ship="hc", row=1),)
    assert [r.key for r in moved.rolls[:5]] == [
        "t1/ram/c1/proceed",
        "t1/ram/c1/attack",
        "t1/ram/c1/evade",
        "t1/ram/c1/impact",
        "t1/ram/c1/recoil",
    ]
    assert moved.rolls[5].key.startswith("t1/threshold/hc/ram/c1/row1/")
    corvette, cruiser = battle.state.ship("c1"), battle.state.ship("hc")
    assert corvette.status == "destroyed"
    assert cruiser.status == "active"
    assert cruiser.record.hull_lost == (5, 3, 0)
    assert moved.first == "blue"  # the ram came before initiative: red has no ship left
    check_replay_and_notation(battle)
    assert describe(moved)[1:] == [
        "    c1 Rhc to 0,0 course 12 speed 0",
        "    hc = to 0,1.5 course 12 speed 0",
        "    c1 rams hc at 1.5 MU: rolls 6 to go on, 5 + thrust 8 = 13 against 6 + thrust 4 "
        "= 10: contact",
        "    c1 strikes for 4 x 2 DP, hc for 3 x 16 DP",
        "    hc takes 8, row 1 gone",
        "    c1 takes 48, destroyed",
        "    blue fires first",
        "    hc threshold check (row 1): nothing lost",
    ]


# ---------------------------------------------------------------- the steps (L979-995)


def test_only_a_six_lets_the_attempt_proceed() -> None:
    # 001 L979: "only if he rolls a SIX may the ramming attempt proceed". A 5: no more dice.
    battle = corvette_and_cruiser()
    moved = move(battle, ScriptedDice([5, *INITIATIVE]), red="c1:Rhc")
    (ram,) = moved.rams
    assert (ram.proceed, ram.need, ram.attack, ram.contact) == (5, 6, None, False)
    assert battle.state.ship("c1").record.hull_lost == (1, 0)
    assert (
        describe(moved)[3] == "    c1 rams hc at 1.5 MU: rolls 5, needs 6, and the attempt is off"
    )
    check_replay_and_notation(battle)


def test_the_special_option_lowers_the_roll_for_a_side() -> None:
    # 001 L979: "players may agree that certain scenarios and/or certain races may make ramming
    # attacks more likely, and hence reduce this required die roll for them".
    battle = corvette_and_cruiser(ram_on={"red": 4})
    assert (ram_need(battle.ctx, "red"), ram_need(battle.ctx, "blue")) == (4, 6)
    moved = move(battle, ScriptedDice([4, 1, 6, *INITIATIVE]), red="c1:Rhc")  # goes on, then evaded
    (ram,) = moved.rams
    assert (ram.proceed, ram.need, ram.attack, ram.evade, ram.contact) == (4, 4, 1, 6, False)
    check_replay_and_notation(battle)


def test_the_special_option_is_checked_in_the_set_up() -> None:
    with pytest.raises(SetupError, match=r"\$\.ram_on\.green"):
        context(BattleSetup(sides=("red", "blue"), ships=(), ram_on={"green": 4}))
    with pytest.raises(SetupError, match="ram_on"):
        decode_setup('sides = ["red", "blue"]\nships = []\nram_on = {red = 0}\n')
    text = 'sides = ["red", "blue"]\nships = []\nram_on = {red = 4}\n'
    assert decode_setup(text).ram_on == {"red": 4}


def test_a_tie_is_the_targets() -> None:
    # 001 L993: the rammer needs "the highest total"; on equal totals the target evades
    # (digest A16). 1 + thrust 8 = 9 against 5 + thrust 4 = 9.
    battle = corvette_and_cruiser()
    moved = move(battle, ScriptedDice([6, 1, 5, *INITIATIVE]), red="c1:Rhc")
    (ram,) = moved.rams
    assert (ram.attack, ram.attack_thrust, ram.evade, ram.evade_thrust) == (1, 8, 5, 4)
    assert not ram.contact
    assert ram.hits == ()
    assert describe(moved)[3].endswith("1 + thrust 8 = 9 against 5 + thrust 4 = 9: hc evades")


def test_the_thrust_added_is_the_current_thrust() -> None:
    # A halved drive gives half its thrust to the roll, as it does to the ship's orders (see
    # docs/rulings.md): the cruiser's 4 becomes 2.
    halved = msgspec.structs.replace(fresh_state(sheet_for("heavy_cruiser", "ft2")), drive="half")
    battle = start(
        ship("c1", "red", "corvette", 0, 0, state=corvette_with_2_of_3()),
        ship("hc", "blue", "heavy_cruiser", 0, 1.5, state=halved),
    )
    moved = move(battle, ScriptedDice([6, 1, 6, 1, 1, *INITIATIVE]), red="c1:Rhc")
    (ram,) = moved.rams
    assert (ram.attack_thrust, ram.evade_thrust, ram.contact) == (8, 2, True)  # 9 beats 8


def test_the_rammer_must_end_its_move_within_2() -> None:
    # 001 L981: "ends the movement within 2" of the intended target"; the bound is included
    # (digest R). Beyond it, no die is rolled.
    battle = corvette_and_cruiser(gap=2.0)
    assert move(battle, ScriptedDice([5, *INITIATIVE]), red="c1:Rhc").rams[0].proceed == 5
    battle = corvette_and_cruiser(gap=2.001)
    moved = move(battle, ScriptedDice(INITIATIVE), red="c1:Rhc")
    assert moved.rams == (
        Rammed(
            ship="c1",
            target="hc",
            distance=2.001,
            reason="hc is 2.001 MU away, more than 2 (001 L981)",
        ),
    )
    assert (
        describe(moved)[3] == "    c1 means to ram hc: hc is 2.001 MU away, more than 2 (001 L981)"
    )


def test_the_ram_is_tried_where_the_ships_end_their_moves() -> None:
    # Both move first (001 L981: the rammer "planned his move so that his ship ends the
    # movement within 2" of the intended target"): the corvette turns into the cruiser's path.
    battle = start(
        ship("c1", "red", "corvette", 8, 4, course=12, speed=8),
        ship("hc", "blue", "heavy_cruiser", 0, 16, course=3, speed=6),
    )
    order = ram_course(battle.ctx, battle.state.ship("c1"), battle.state.ship("hc"))
    assert order.ram == "hc"
    moved = move(battle, ScriptedDice([2, *INITIATIVE]), red=f"c1:{format_order(order)}")
    (ram,) = moved.rams
    assert ram.distance is not None
    assert ram.distance <= RAM_RANGE_MU
    assert ram.proceed == 2
    assert moved.moves[0].void is None


# ---------------------------------------------------------------- void rams (001 L364)


@pytest.mark.parametrize(
    ("order", "void"),
    [
        ("S1Rr2", "r2 is no enemy: only an enemy ship is rammed (001 L977)"),
        ("Rc1", "c1 is no enemy: only an enemy ship is rammed (001 L977)"),
        ("P1+1Rzz", "there is no ship 'zz' to ram (a dummy bogey is no ship, 001 L957)"),
    ],
)
def test_a_ram_on_no_enemy_is_void(order: str, void: str) -> None:
    # An order the ship cannot carry out is recorded as written and void: the ship flies
    # straight on at its speed (001 L364), and no ram is tried.
    battle = start(
        ship("c1", "red", "corvette", 0, 0, speed=2),
        ship("r2", "red", "frigate", 0, 1),
        ship("hc", "blue", "heavy_cruiser", 0, 4),
    )
    moved = move(battle, ScriptedDice([]), red=f"c1:{order}")
    assert (moved.moves[0].order, moved.moves[0].void) == (order, void)
    assert (moved.moves[0].x, moved.moves[0].y, moved.moves[0].course) == (0, 2, 12)
    assert moved.rams == ()
    check_replay_and_notation(battle)


def test_a_ram_on_a_ship_not_in_play_is_void() -> None:
    battle = corvette_and_cruiser()
    gone = msgspec.structs.replace(battle.state.ship("hc"), status="left")
    battle.state = msgspec.structs.replace(battle.state, ships=(battle.state.ships[0], gone))
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, parse_orders("c1:Rhc" if side == "red" else ""))
    moved = battle.resolve(ScriptedDice([]))
    assert isinstance(moved, ShipsMoved)
    assert moved.moves[0].void == "hc is not in play"


def test_bogeys_and_dummies_cannot_be_rammed() -> None:
    # A ship its side has not identified may not be named (001 L937: a bogey is only a
    # contact), and a dummy bogey is no ship (001 L957): both void.
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("c1", "red", "corvette", 0, 0), ship("hc", "blue", "heavy_cruiser", 0, 40)),
        bogeys=True,
        dummies=(DummySetup(id="d1", side="blue", x=5, y=40, course=6),),
    )
    for target, void in [
        ("hc", "hc is a bogey its side has not identified (001 L937)"),
        ("d1", "there is no ship 'd1' to ram (a dummy bogey is no ship, 001 L957)"),
    ]:
        battle = Battle(setup)
        moved = move(battle, ScriptedDice(INITIATIVE), red=f"c1:R{target}")
        assert moved.moves[0].void == void
        assert moved.rams == ()


def test_a_ram_gives_nothing_away_until_it_is_tried() -> None:
    # Unlike a scan or a launch, the intention to ram emits nothing: the rammer stays a bogey
    # while it is out of reach (see docs/rulings.md).
    setup = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("c1", "red", "corvette", 0, 0), ship("hc", "blue", "heavy_cruiser", 0, 40)),
        bogeys=True,
    )
    battle = Battle(setup)
    battle.state = msgspec.structs.replace(
        battle.state,
        ships=tuple(
            msgspec.structs.replace(s, bogey=None, shows=None) if s.id == "hc" else s
            for s in battle.state.ships
        ),
    )
    moved = move(battle, ScriptedDice(INITIATIVE), red="c1:Rhc")
    assert moved.moves[0].void is None
    assert moved.rams[0].reason == "hc is 40 MU away, more than 2 (001 L981)"
    assert battle.state.ship("c1").bogey is not None


def test_a_rammer_or_target_gone_before_the_ram() -> None:
    # The target flew off the table in its move: nothing to ram, and no die.
    battle = start(
        ship("c1", "red", "corvette", 0, 0),
        ship("hc", "blue", "heavy_cruiser", 0, 1, speed=10),
        table=(-20.0, -20.0, 20.0, 5.0),
    )
    moved = move(battle, ScriptedDice([1]), red="c1:Rhc")  # the leave roll: gone for good
    assert moved.rams == (Rammed(ship="c1", target="hc", reason="hc is no longer in play"),)


# ---------------------------------------------------------------- order and timing


def test_rams_go_in_the_order_the_ships_stand_before_initiative() -> None:
    # Two corvettes each with 2 of 3 DP ram the cruiser. The first's contact (6 x 2 = 12
    # damage) takes the cruiser to 4 DP left, and the second's is rolled against those 4.
    # No ship is left, so no initiative die is rolled: the rams come before it.
    battle = start(
        ship("c1", "red", "corvette", 0, 0, state=corvette_with_2_of_3()),
        ship("c2", "red", "corvette", 1, 0, state=corvette_with_2_of_3()),
        ship("hc", "blue", "heavy_cruiser", 0, 1),
    )
    first = [6, 6, 1, 6, 1]  # go on, 14 beats 5, impact 6 (12 to hc), recoil 1 (16 to c1)
    hc_rows = [1] * 11 + [1] * 11  # rows 1 and 2 of the cruiser completed: two checks
    second = [6, 6, 1, 2, 1]  # impact 2 (4 to hc: destroyed), recoil 1 (4 to c2: destroyed)
    dice = ScriptedDice([*first, *hc_rows, *second])
    moved = move(battle, dice, red="c1:Rhc c2:Rhc")
    assert dice.remaining == 0
    assert [r.ship for r in moved.rams] == ["c1", "c2"]
    assert moved.rams[1].target_points == 4
    assert [s.status for s in battle.state.ships] == ["destroyed", "destroyed", "destroyed"]
    assert moved.first is None
    check_replay_and_notation(battle)


class KeyedDice:
    """Dice by name: the ram's dice as given, initiative to red, every other die a 1."""

    def __init__(self, faces: dict[str, int]) -> None:
        self.faces = faces

    def roll(self, key: str, sides: int) -> int:
        if "/initiative/" in key:
            return 2 if "/red/" in key else 1
        return self.faces.get(key, 1)


def test_continuum_ram_thresholds_are_checked_at_once() -> None:
    # Continuum checks fire-phase damage at the end of the phase (000 L3194-3397); ram damage
    # is checked at once, one check per row, as mines' is (see docs/rulings.md). The rammer
    # has 15 of its 26 DP left: 1 x 15 to b1 completes its rows 1 and 2 (7 + 7 boxes).
    sheet = sheet_for("heavy_cruiser", "continuum")
    hurt = msgspec.structs.replace(fresh_state(sheet), hull_lost=(7, 4, 0, 0))
    battle = start(
        ship("r1", "red", "heavy_cruiser", 0, 0, state=hurt),
        ship("b1", "blue", "heavy_cruiser", 0, 2),
        rules="continuum",
        ram_on={"red": 1},
    )
    ram_dice = {"proceed": 1, "attack": 6, "evade": 1, "impact": 1, "recoil": 1}
    dice = KeyedDice({f"t1/ram/r1/{name}": face for name, face in ram_dice.items()})
    battle.write_orders("red", parse_orders("r1:Rb1"))
    battle.write_orders("blue", {})
    moved = battle.resolve(dice)
    assert isinstance(moved, ShipsMoved)
    (ram,) = moved.rams
    assert (ram.ship_points, ram.target_points) == (15, 26)
    assert [(h.target, h.rows, h.destroyed) for h in ram.hits] == [
        ("b1", (1, 2), False),
        ("r1", (2, 3), True),  # destroyed: no check for its rows
    ]
    assert [(t.ship, t.row) for t in moved.thresholds] == [("b1", 1), ("b1", 2)]
    assert battle.state.ship("b1").rows == ()  # nothing waits for the end of the phase
    assert battle.state.ship("r1").status == "destroyed"
    check_replay_and_notation(battle)


def test_a_written_ram_round_trips_in_the_position() -> None:
    battle = corvette_and_cruiser()
    battle.write_orders("red", parse_orders("c1:S1+2Rhc"))
    text = format_position("ft2", battle.state)
    assert "w:red=c1:S1+2Rhc" in text
    assert parse_position(text) == ("ft2", battle.state)


def test_an_old_journal_without_rams_decodes() -> None:
    battle = corvette_and_cruiser()
    move(battle, ScriptedDice([5, *INITIATIVE]), red="c1:Rhc")
    events = msgspec.json.decode(encode_journal(battle.journal))
    for event in events:
        event.pop("rams", None)
    old = decode_journal(msgspec.json.encode(events))
    assert isinstance(old[-1], ShipsMoved)
    assert old[-1].rams == ()


# ---------------------------------------------------------------- commanders


def test_engage_rams_only_with_its_guns_gone() -> None:
    # A frigate whose beams are all lost, next to an enemy: a desperate ram (001 L977: "such
    # suicide attacks should be rarely attempted"). With a working gun it does not ram.
    sheet = sheet_for("frigate", "ft2")
    unarmed = fresh_state(sheet)
    for spec in sheet.systems:
        if spec.kind.startswith("beam"):
            unarmed = with_system_status(unarmed, spec.id, "destroyed")
    battle = start(
        ship("r1", "red", "frigate", 0, 0, speed=4, state=unarmed),
        ship("b1", "blue", "destroyer", 0, 10, course=6, speed=4),
    )
    ctx, state = battle.ctx, battle.state
    enemies = [state.ship("b1")]
    ram = _desperate_ram(ctx, state.ship("r1"), enemies)
    assert ram is not None
    assert ram.ram == "b1"
    assert engage_commander().orders(ctx, state, "red")["r1"] == ram
    armed = msgspec.structs.replace(state.ship("r1"), record=fresh_state(sheet))
    assert _desperate_ram(ctx, armed, enemies) is None
    for commander in (closing_commander(), stand_off_commander()):
        assert all(o.ram is None for o in commander.orders(ctx, state, "red").values())
