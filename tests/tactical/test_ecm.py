"""Continuum's ECM, area ECM and advanced sensors (000 7.18-7.19, 12.4, 13.13): switched on in
the orders, they cut enemy sensors' identifying range and enemy missiles' and fighters'
lock-on range; area ECM blinds its own ship's FireCons; advanced sensors are fragile."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import Battle, BattleSetup, ShipSetup, ShipsMoved, context, initial_state
from tactical.dice import ScriptedDice, SeededDice
from tactical.fighters import FIGHTER_RANGE_MU
from tactical.fire import SENSORS, threshold_check
from tactical.missiles import ATTACK_RADIUS_MU, Salvo
from tactical.movement import Order, format_order, parse_order
from tactical.notation import format_position, parse_position
from tactical.phases.fire import fire_controls
from tactical.phases.ordnance import salvo_targets
from tactical.sensors import ecm_level
from tactical.ship import fresh_state
from tactical.state import BattleState, ecm_cover, lock_on_range
from tests.tactical import extra_designs

TEST_DESIGNS = {
    # Two levels of ECM, each its own system (000 L7736-7740).
    "jammer": """
name = "Jammer"
rules = "continuum"
provenance = "test design: an escort with two levels of ECM"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "FP"]

[[systems]]
kind = "ecm"
count = 2
""",
    # Two levels of area ECM (000 L7790-7796) and a gun to lose its FireCon for.
    "ew_ship": """
name = "EW Ship"
rules = "continuum"
provenance = "test design: an electronic warfare escort with two levels of area ECM"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "FP"]

[[systems]]
kind = "area_ecm"
count = 2
""",
    "plain": """
name = "Plain"
rules = "continuum"
provenance = "test design: an escort with a gun and nothing else"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "FP"]
""",
    "aft_seer": """
name = "Aft Seer"
rules = "continuum"
provenance = "test design: an escort with enhanced sensors and an all-round Beam-2"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "enhanced_sensors"

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]
""",
    "aft_oracle": """
name = "Aft Oracle"
rules = "continuum"
provenance = "test design: a cruiser with superior sensors and an all-round Beam-3"
mass = 60
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "superior_sensors"

[[systems]]
kind = "beam3"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]
""",
    "aft_blind": """
name = "Aft Blind"
rules = "continuum"
provenance = "test design: an escort with an all-round Beam-2 and basic sensors"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["F", "FS", "AS", "A", "AP", "FP"]
""",
    "seer": """
name = "Seer"
rules = "continuum"
provenance = "test design: an escort with enhanced sensors and a PDS"
mass = 30
thrust = 4
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "enhanced_sensors"

[[systems]]
kind = "pds"
""",
}


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def ship(sid: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=sid, side=side, design=design, x=x, y=y, course=course, speed=0)


def setup_of(*ships: ShipSetup, bogeys: bool = False, rules: str = "continuum") -> BattleSetup:
    return BattleSetup(sides=("red", "blue"), ships=ships, bogeys=bogeys, rules=rules)


def moved(setup: BattleSetup, red: dict[str, Order], blue: dict[str, Order]) -> Battle:
    battle = Battle(setup)
    battle.write_orders("red", red)
    battle.write_orders("blue", blue)
    battle.resolve(SeededDice(1))
    return battle


def switched_on(state: BattleState, *ids: str) -> BattleState:
    ships = tuple(msgspec.structs.replace(s, ecm=s.id in ids) for s in state.ships)
    return msgspec.structs.replace(state, ships=ships)


def test_ecm_order_round_trips() -> None:
    # 000 L12832-12838: ECM is on only in a turn whose orders say so.
    for text in ("=/ecm", "S1+2/ecm", "=/ecm/scramble", "P1/pulse_torpedo_variable-1=S/ecm"):
        order = parse_order(text)
        assert order.ecm
        assert format_order(order) == text
    assert not parse_order("=").ecm


def test_aggregate_ecm_is_at_most_three() -> None:
    # 000 L7722-7724: "The aggregate ECM level of a ship (its own plus any Area ECM) cannot
    # exceed 3."
    assert ecm_level(2, [2]) == 3
    assert ecm_level(1, [1]) == 2


def test_ecm_cuts_the_passive_identifying_range_by_6_mu_a_level() -> None:
    # 000 L7703-7705: each level "subtracts 6 MU from the 'de-blip' range of enemy sensors":
    # two levels switched on, 36 - 12 = 24 MU. The plain ship at 30 MU is identified, the
    # jammer at 30 MU is not; a jammer that leaves its ECM off is.
    for ecm, hidden in ((True, True), (False, False)):
        setup = setup_of(
            ship("r1", "red", "plain", 0, 0),
            ship("b1", "blue", "jammer", 0, 40, 6),
            bogeys=True,
        )
        battle = moved(setup, {}, {"b1": Order(accel=4, ecm=ecm)})  # b1 closes to 36 MU
        event = battle.journal[-1]
        assert isinstance(event, ShipsMoved)
        assert all(m.void is None for m in event.moves)
        assert (battle.state.ship("b1").bogey is not None) is hidden
        # r1 is no jammer: b1's own passive sensors reach it at 36 MU either way.
        assert battle.state.ship("r1").bogey is None
    near = setup_of(
        ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 28, 6), bogeys=True
    )
    battle = moved(near, {}, {"b1": Order(accel=4, ecm=True)})  # 24 MU: within the cut range
    assert battle.state.ship("b1").bogey is None


def test_ecm_cuts_the_active_scan_range_too() -> None:
    # 000 L7703-7705 with 12.1's 54 MU active scan (000 L12593): one level, 48 MU.
    setup = setup_of(
        ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 50, 6), bogeys=True
    )
    battle = moved(setup, {"r1": Order(scan=True)}, {"b1": Order(ecm=True)})
    assert battle.state.ship("b1").bogey is not None  # two levels: 42 MU, and b1 is at 50
    battle = moved(setup, {"r1": Order(scan=True)}, {"b1": Order()})
    assert battle.state.ship("b1").bogey is None


def test_area_ecm_covers_allies_within_6_mu() -> None:
    # 000 L7764-7766: area ECM covers "the ship mounting the system and all allied ships
    # within 6 MU"; an ally 7 MU off is not covered.
    ctx = context(
        setup_of(
            ship("r1", "red", "ew_ship", 0, 0),
            ship("r2", "red", "plain", 6, 0),
            ship("r3", "red", "plain", 7, 0),
            ship("r4", "red", "jammer", 0, 6),
            ship("b1", "blue", "plain", 0, 90),
        )
    )
    state = switched_on(initial_state(ctx), "r1", "r4")
    cover = {s.id: ecm_cover(ctx, state, s) for s in state.ships}
    assert cover == {"r1": 2, "r2": 2, "r3": 0, "r4": 3, "b1": 0}  # r4: 2 + 2, at most 3
    off = initial_state(ctx)
    assert {ecm_cover(ctx, off, s) for s in off.ships} == {0}  # switched off: nothing


def test_area_ecm_on_blinds_its_own_firecons() -> None:
    # 000 L7778-7784: "When Area ECM is turned on, the carrying ship cannot use its own
    # FireCon systems."
    ctx = context(setup_of(ship("r1", "red", "ew_ship", 0, 0), ship("b1", "blue", "plain", 0, 9)))
    state = initial_state(ctx)
    assert fire_controls(ctx, state.ship("r1")) == 1
    assert fire_controls(ctx, switched_on(state, "r1").ship("r1")) == 0


def test_ecm_cuts_the_salvo_lock_on_range_by_1_mu_a_level() -> None:
    # 000 L7717-7721: "Every level of ECM reduces the lock-on range by 1 MU, meaning missiles
    # and fighters need to be closer to attack." A salvo 5.5 MU from the jammer homes on it
    # with ECM off (6 MU, 000 L5778-5786), not with two levels on (4 MU).
    ctx = context(setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 30)))
    salvo = Salvo(id="s1", side="red", x=0.0, y=24.5, launched=0)
    state = msgspec.structs.replace(initial_state(ctx), salvos=(salvo,), turn=1)
    assert salvo_targets(ctx, state) == {"s1": "b1"}
    jammed = switched_on(state, "b1")
    assert lock_on_range(ctx, jammed, jammed.ship("b1"), ATTACK_RADIUS_MU) == 4.0
    assert lock_on_range(ctx, jammed, jammed.ship("b1"), FIGHTER_RANGE_MU) == 4.0
    assert salvo_targets(ctx, jammed) == {"s1": None}


def test_ecm_needs_the_rule_and_a_working_system() -> None:
    setup = setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 90, 6))
    battle = moved(setup, {"r1": Order(accel=1, ecm=True)}, {})
    event = battle.journal[-1]
    assert isinstance(event, ShipsMoved)
    void = {m.ship: m.void for m in event.moves}
    assert void["r1"] is not None
    assert "no working ECM" in void["r1"]
    ft2 = BattleSetup(
        sides=("red", "blue"),
        ships=(ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 90, 6)),
    )
    battle = moved(ft2, {"r1": Order(ecm=True)}, {})
    event = battle.journal[-1]
    assert isinstance(event, ShipsMoved)
    assert "not in these rules" in (event.moves[0].void or "")


def test_ecm_gives_no_bogey_away_and_round_trips_in_the_notation() -> None:
    setup = setup_of(
        ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 90, 6), bogeys=True
    )
    battle = moved(setup, {}, {"b1": Order(ecm=True)})
    assert battle.state.ship("b1").bogey is not None  # jamming does not identify it
    assert battle.state.ship("b1").ecm
    text = format_position("continuum", battle.state)
    assert "/E" in text
    assert parse_position(text) == ("continuum", battle.state)


@pytest.mark.parametrize(("face", "status"), [(4, "ok"), (5, "damaged"), (6, "destroyed")])
def test_advanced_sensors_are_fragile_at_thresholds(face: int, status: str) -> None:
    # 000 L15295-15309: "the sensors are damaged at +1 on the die roll. If a natural 6 is
    # rolled the sensors are destroyed and cannot be repaired during the game. For example, if
    # the ship must make a threshold check for its first row of hull boxes the sensors would be
    # damaged on a die roll of 5 and destroyed on a 6." The PDS beside them fails only on 6.
    ctx = context(setup_of(ship("r1", "red", "seer", 0, 0), ship("b1", "blue", "plain", 0, 90)))
    sheet = ctx.sheets["r1"]
    faces = [face if s.kind == "enhanced_sensors" else 5 for s in sheet.systems] + [1, 1]
    record, _outcome = threshold_check(
        sheet,
        fresh_state(sheet),
        ScriptedDice(faces),
        "t1/threshold/r1",
        row=1,
        lost_status="damaged",
        fragile=SENSORS,
    )
    statuses = {s.kind: r.status for s, r in zip(sheet.systems, record.systems, strict=True)}
    assert statuses == {"enhanced_sensors": status, "pds": "ok", "firecon": "ok"}


def test_continuum_battles_roll_sensors_as_fragile_and_ft2_has_no_ecm() -> None:
    from tactical.rules import BATTLE_RULES

    assert BATTLE_RULES["continuum"].sensors_ecm
    assert not BATTLE_RULES["ft2"].sensors_ecm


def test_order_commanders_switch_ecm_on() -> None:
    # 000 L12832-12838: the order must say so. A jammer switches on every turn; an area ECM
    # ship keeps it off while its gun has a target, since it would blind its FireCon.
    from tactical.commanders import engage_commander

    far = context(
        setup_of(
            ship("r1", "red", "jammer", 0, 0),
            ship("r2", "red", "ew_ship", 10, 0),
            ship("b1", "blue", "plain", 0, 60, 6),
        )
    )
    orders = engage_commander().orders(far, initial_state(far), "red")
    assert orders["r1"].ecm
    assert orders["r2"].ecm
    near = context(
        setup_of(ship("r2", "red", "ew_ship", 0, 0), ship("b1", "blue", "plain", 0, 10, 6))
    )
    assert not engage_commander().orders(near, initial_state(near), "red").get("r2", Order()).ecm


def test_an_advanced_scan_rolls_what_it_learns_less_the_ecm_die() -> None:
    # 000 L12637-12660: with Enhanced sensors the scanner rolls a D6 (Superior +2) on the
    # table; 12.4 (L12848-12856): the jammed ship's owner rolls a D6 taken off it. The worked
    # example (L12858-12866): superior 6 + 2 less an ECM 1 is 7, everything.
    from tactical.dice import RecordingDice
    from tactical.sensors import LEARNED, scan_learned
    from tactical.summary import describe_journal

    assert LEARNED[scan_learned(6 + 2 - 1)] == "everything, damage included"
    for seed in range(6):
        setup = setup_of(
            ship("r1", "red", "seer", 0, 0), ship("b1", "blue", "jammer", 0, 40, 6), bogeys=True
        )
        battle = Battle(setup)
        battle.write_orders("red", {"r1": Order(scan=True)})
        battle.write_orders("blue", {"b1": Order(ecm=True)})
        dice = RecordingDice(SeededDice(seed))
        battle.resolve(dice)
        event = battle.journal[-1]
        assert isinstance(event, ShipsMoved)
        (scan,) = [s for s in event.sensed if s.how == "active"]
        rolled = {r.key: r.value for r in dice.rolls}
        score = rolled["t1/scan/r1/b1"] - rolled["t1/scan/r1/b1/ecm"]
        assert scan.learned == scan_learned(score)
        assert "t1/scan/r1/b1/jammed" not in rolled  # its own side does not jam it
        assert any(
            f"which learns {LEARNED[scan.learned]}" in line
            for line in describe_journal(battle.journal)
        )
    plain = setup_of(
        ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 40, 6), bogeys=True
    )
    battle = moved(plain, {"r1": Order(scan=True)}, {"b1": Order(ecm=True)})
    event = battle.journal[-1]
    assert isinstance(event, ShipsMoved)
    assert [s.learned for s in event.sensed if s.how == "active"] == [None]  # basic sensors


@pytest.mark.parametrize(
    ("design", "distance", "fires"),
    [
        ("aft_blind", 10, False),  # 000 L2591-2597: no offensive fire through the aft arc
        ("aft_seer", 10, True),  # L15257-15259: enhanced, aft to 24 MU
        ("aft_seer", 25, False),
        ("aft_oracle", 30, True),  # L15347-15349: superior, aft to 36 MU
    ],
)
def test_advanced_sensors_let_beams_fire_aft(design: str, distance: float, fires: bool) -> None:
    from tactical.battle import fire_options

    ctx = context(
        setup_of(ship("r1", "red", design, 0, 0), ship("b1", "blue", "plain", 0, -distance))
    )
    options = fire_options(ctx, initial_state(ctx), "r1")
    assert ("b1" in options.get(next(iter(options), ""), ())) is fires


def test_spatial_movement_never_fires_aft_even_with_sensors() -> None:
    """003 L68-70: under spatial movement "ships can never fire ship to ship weapons through
    their rear arc", superior sensors or not (docs/rulings.md, "Tactical: spatial movement")."""
    from tactical.battle import fire_options

    setup = setup_of(ship("r1", "red", "aft_oracle", 0, 0), ship("b1", "blue", "plain", 0, -30))
    ctx = context(msgspec.structs.replace(setup, movement="spatial"))
    assert not any(
        "b1" in targets for targets in fire_options(ctx, initial_state(ctx), "r1").values()
    )


def _aft_shot(design: str, faces: list[int]) -> int:
    from tactical.battle import Shot

    battle = Battle(
        setup_of(ship("r1", "red", design, 0, 0), ship("b1", "blue", "plain", 0, -10, 6))
    )
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    weapon = next(s.id for s in battle.ctx.sheets["r1"].systems if s.kind.startswith("beam"))
    battle.fire("r1", [Shot(weapon, "b1")], ScriptedDice([*faces, *[1] * 20]))
    return sum(battle.state.ship("b1").record.hull_lost)


def test_enhanced_sensors_aft_fire_scores_only_5_and_6() -> None:
    # 000 L15257-15267: aft fire "will only cause a hit on a die roll of 6. Weapons that are
    # penetrating will re-roll their hits but will only inflict one point of damage on a 5 and
    # two points on a 6 (with another re-roll)." Beam-2 at 10 MU: a 4 and a 5 do 1, not 2.
    assert _aft_shot("aft_seer", [4, 5]) == 1


def test_superior_sensors_aft_fire_is_at_minus_1() -> None:
    # 000 L15347-15351: "at -1 to hit. Weapons that are penetrating will re-roll their hits as
    # normal." Beam-3 at 10 MU: 5, 4, 6 read 4, 3, 5: 1 + 0 + 1; the 6 re-rolls, a 4 for 1.
    assert _aft_shot("aft_oracle", [5, 4, 6, 4]) == 3


@pytest.mark.parametrize("design", ["aft_seer", "aft_oracle"])
def test_sensors_that_scan_do_not_augment_fire_control_that_turn(design: str) -> None:
    # 000 L15239-15243, L15329-15333: advanced sensors "can be used to augment a ship's normal
    # fire control sensors or to reveal tactical information ... but not both on the same
    # turn". A ship that scans (A) may not fire aft with them; the next turn it may again.
    from tactical.battle import fire_options

    setup = setup_of(
        ship("r1", "red", design, 0, 0), ship("b1", "blue", "plain", 0, -40, 6), bogeys=True
    )
    battle = Battle(setup)
    battle.write_orders("red", {"r1": Order(scan=True)})
    battle.write_orders("blue", {})
    battle.resolve(ScriptedDice([6, 1] + [3] * 10))
    r1 = battle.state.ship("r1")
    assert r1.scanned
    assert "/K" in format_position(setup.rules, battle.state)
    assert parse_position(format_position(setup.rules, battle.state))[1] == battle.state
    # The scanned ship closes to 10 MU astern (placed there: only the arcs matter here).
    close = msgspec.structs.replace(
        battle.state,
        ships=tuple(
            msgspec.structs.replace(s, y=-10.0) if s.id == "b1" else s for s in battle.state.ships
        ),
    )
    options = fire_options(battle.ctx, close, "r1")
    assert not any("b1" in targets for targets in options.values())
    unscanned = msgspec.structs.replace(
        close,
        ships=tuple(
            msgspec.structs.replace(s, scanned=False) if s.id == "r1" else s for s in close.ships
        ),
    )
    options = fire_options(battle.ctx, unscanned, "r1")
    assert any("b1" in targets for targets in options.values())
