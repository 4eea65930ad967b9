"""What a side knows of enemy ships: closed record sheets under Continuum's sensor rules (000
L1462-1466), the advanced scans' levels (000 L12648-12660) remembered across turns, and every
view a side sees or decides from, its context included, redacted to that knowledge."""

from __future__ import annotations

import io
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from tactical.battle import (
    Battle,
    BattleContext,
    BattleSetup,
    BattleState,
    ShipSetup,
    context,
    initial_state,
    replay,
    side_view,
)
from tactical.commanders import Commander, closing_commander, play, random_commander
from tactical.designs import builtin_ids
from tactical.dice import SeededDice
from tactical.movement import Order
from tactical.notation import format_position, parse_position
from tactical.phases.knowledge import estimate, known_level, remember, sighting_of
from tactical.render import THEME, battle_plot, battle_table
from tactical.rules import BATTLE_RULES
from tactical.sensors import (
    DAMAGE_KNOWN,
    DRIVE_KNOWN,
    MASS_KNOWN,
    SYSTEMS_KNOWN,
    Sensed,
    scan_learned,
)
from tactical.setup import sheet_for
from tactical.ship import Ship, ShipState, SystemState, fresh_state, hull_remaining
from tactical.summary import turn_by_turn
from tests.tactical import extra_designs
from tests.tactical.test_battle_golden import dice_script
from tests.tactical.test_ecm import TEST_DESIGNS


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


T = TypeVar("T")


class KeyedDice:
    """Dice showing the given faces for the named dice, seeded ones for the rest."""

    def __init__(self, faces: dict[str, int], seed: int = 1) -> None:
        self.faces = faces
        self.rest = SeededDice(seed)

    def roll(self, key: str, sides: int) -> int:
        return self.faces[key] if key in self.faces else self.rest.roll(key, sides)


def ship(sid: str, side: str, design: str, x: float, y: float, course: int = 12) -> ShipSetup:
    return ShipSetup(id=sid, side=side, design=design, x=x, y=y, course=course, speed=0)


def setup_of(*ships: ShipSetup, rules: str = "continuum", bogeys: bool = True) -> BattleSetup:
    return BattleSetup(sides=("red", "blue"), ships=ships, bogeys=bogeys, rules=rules)


def damaged(state: BattleState, ship_id: str) -> BattleState:
    """The ship with a hull box lost and its first system destroyed."""
    target = state.ship(ship_id)
    first, *rest = target.record.systems
    record = msgspec.structs.replace(
        target.record,
        hull_lost=(1, *target.record.hull_lost[1:]),
        systems=(msgspec.structs.replace(first, status="destroyed"), *rest),
    )
    ships = tuple(
        msgspec.structs.replace(s, record=record) if s.id == ship_id else s for s in state.ships
    )
    return msgspec.structs.replace(state, ships=ships)


def knowing(state: BattleState, level: int) -> BattleState:
    return msgspec.structs.replace(state, known=(("red", "b1", level),) if level else ())


def test_presets_choose_open_or_sensed_books() -> None:
    # 001 L945: FT2 replaces a bogey with the ship, open-book; 000 L1462-1466: Continuum's
    # sensor rules close the enemy's record sheets.
    assert BATTLE_RULES["ft2"].enemy_sheets == "open"
    assert BATTLE_RULES["continuum"].enemy_sheets == "sensed"


@pytest.mark.parametrize(("rules", "bogeys"), [("ft2", True), ("continuum", False)])
def test_open_books_show_an_identified_ship_as_it_is(rules: str, bogeys: bool) -> None:
    # FT2 (001 L945) and any battle without the sensor rules (000 L1442-1458): open-book.
    design = "frigate"
    ctx = context(
        setup_of(
            ship("r1", "red", design, 0, 0),
            ship("b1", "blue", design, 0, 20, 6),
            rules=rules,
            bogeys=bogeys,
        )
    )
    state = damaged(initial_state(ctx), "b1")
    seen_ctx, seen = side_view(ctx, state, "red")
    assert seen_ctx.sheets == ctx.sheets
    assert seen_ctx.setup.ships == ctx.setup.ships
    assert seen.ship("b1") == state.ship("b1")


def test_an_identified_ship_shows_its_class_and_place_only() -> None:
    # 000 L12517-12521: its class, course and velocity; L1462-1466: no record sheet. b1, a
    # jammer (an escort with ECM) within 36 MU, is identified by passive sensors at the set-up.
    ctx = context(
        setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 20, 6))
    )
    state = damaged(initial_state(ctx), "b1")
    assert state.ship("b1").bogey is None
    seen_ctx, seen = side_view(ctx, state, "red")
    b1 = seen.ship("b1")
    assert b1.sighting is not None
    assert (b1.sighting.level, b1.sighting.shows, b1.sighting.mass) == (0, "escort", None)
    assert (b1.x, b1.y, b1.course) == (0, 20, 6)
    assert b1.design != "jammer"
    assert seen_ctx.sheets["b1"].hull_class == "escort"
    assert b1.record == msgspec.structs.replace(fresh_state(seen_ctx.sheets["b1"]), ship_id="b1")
    assert [s.design for s in seen_ctx.setup.ships if s.id == "b1"] == [b1.design]
    assert "jammer" not in seen_ctx.setup.designs
    # Its own ships it sees as they are; blue sees its own b1 damaged.
    assert seen.ship("r1") == state.ship("r1")
    assert side_view(ctx, state, "blue")[1].ship("b1") == state.ship("b1")
    # The position notation says what is known, and reads back.
    text = format_position("continuum", seen)
    assert f"blue:b1:{b1.design}@" in text
    assert "/k0=escort" in text
    assert parse_position(text)[1] == seen


@pytest.mark.parametrize("rules", ["ft2", "continuum"])
def test_an_unidentified_enemy_is_no_sheet_at_all(rules: str) -> None:
    # 001 L939: the owner notes secretly which ship a bogey is; his set-up is not the
    # enemy's to read, nor his dummies (L955-957).
    ctx = context(
        setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 50, 6))
    )
    seen_ctx, seen = side_view(ctx, initial_state(ctx), "red")
    assert [b.label for b in seen.bogeys] == ["B2"]
    assert "b1" not in seen_ctx.sheets
    assert [s.id for s in seen_ctx.setup.ships] == ["r1"]


def test_a_deeper_scan_reveals_more() -> None:
    # 000 L12648-12660: 3 mass; 4 mass, drive and screens; 5 every system (original values);
    # 6+ everything, damage included.
    ctx = context(
        setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 20, 6))
    )
    state = damaged(initial_state(ctx), "b1")
    real = ctx.sheets["b1"]
    seen = {level: side_view(ctx, knowing(state, level), "red") for level in range(5)}
    sightings = {level: seen[level][1].ship("b1").sighting for level in range(5)}
    assert sightings[0] is not None
    assert sightings[0].mass is None
    assert sightings[MASS_KNOWN] is not None
    assert (sightings[MASS_KNOWN].mass, sightings[MASS_KNOWN].thrust) == (real.mass, None)
    assert sightings[DRIVE_KNOWN] is not None
    assert (
        sightings[DRIVE_KNOWN].mass,
        sightings[DRIVE_KNOWN].thrust,
        sightings[DRIVE_KNOWN].screens,
    ) == (real.mass, real.thrust, real.screens)
    assert seen[MASS_KNOWN][0].sheets["b1"].mass == real.mass
    assert seen[DRIVE_KNOWN][0].sheets["b1"].thrust == real.thrust
    # Every system: the real design, original values: no damage shown.
    systems_ctx, systems = seen[SYSTEMS_KNOWN]
    assert systems.ship("b1").design == "jammer"
    assert systems_ctx.sheets["b1"] == real
    assert systems.ship("b1").record == msgspec.structs.replace(fresh_state(real), ship_id="b1")
    # Everything: the ship as it is.
    assert seen[DAMAGE_KNOWN][1].ship("b1") == state.ship("b1")
    assert seen[DAMAGE_KNOWN][0].sheets["b1"] == real
    # Each level shows strictly more: the sighting's facts grow, then the design, the damage.
    facts = [
        sum(v is not None for v in (s.mass, s.thrust, s.screens)) if s else 9
        for s in sightings.values()
    ]
    assert facts == sorted(facts)
    assert len({format_position("continuum", v) for _, v in seen.values()}) == 5


def test_the_worked_example_scan_reveals_everything_and_is_remembered() -> None:
    # 000 L12858-12866: superior sensors (+2) roll a 6, 8; the jammed ship's ECM roll is a 1;
    # 7, "still enough to reveal everything about the scanned ship". The scanner's side
    # remembers it (L12664-12672): a later scan that learns nothing takes nothing away.
    setup = setup_of(ship("r1", "red", "aft_oracle", 0, 0), ship("b1", "blue", "jammer", 0, 40, 6))
    battle = Battle(setup)
    before = side_view(battle.ctx, battle.state, "red")[1]
    assert [b.label for b in before.bogeys] == ["B2"]  # beyond 36 MU
    battle.write_orders("red", {"r1": Order(scan=True)})
    battle.write_orders("blue", {"b1": Order(ecm=True)})
    battle.resolve(KeyedDice({"t1/scan/r1/b1": 6, "t1/scan/r1/b1/ecm": 1}))
    assert scan_learned(6 + 2 - 1) == DAMAGE_KNOWN
    assert battle.state.known == (("red", "b1", DAMAGE_KNOWN),)
    worse = remember(battle.state, [Sensed(counter="b1", how="active", by="r1", learned=1)])
    assert worse.known == battle.state.known
    hurt = damaged(battle.state, "b1")
    assert side_view(battle.ctx, hurt, "red")[1].ship("b1") == hurt.ship("b1")
    assert known_level(battle.ctx, hurt, "blue", hurt.ship("r1")) == 0  # blue did not scan
    # The knowledge is a fold of the journal: a replay gives it again, and the notation
    # carries it.
    text = format_position("continuum", battle.state)
    assert "K:red:b1=4" in text
    assert parse_position(text)[1] == battle.state


def test_a_jammed_scan_may_learn_only_the_mass() -> None:
    # 000 L12648-12650: superior +2 and a 3, less an ECM 2: 3, "mass only".
    setup = setup_of(ship("r1", "red", "aft_oracle", 0, 0), ship("b1", "blue", "jammer", 0, 40, 6))
    battle = Battle(setup)
    battle.write_orders("red", {"r1": Order(scan=True)})
    battle.write_orders("blue", {"b1": Order(ecm=True)})
    battle.resolve(KeyedDice({"t1/scan/r1/b1": 3, "t1/scan/r1/b1/ecm": 2}))
    sighting = side_view(battle.ctx, battle.state, "red")[1].ship("b1").sighting
    assert sighting is not None
    assert (sighting.level, sighting.mass, sighting.thrust) == (MASS_KNOWN, 30, None)


def test_the_estimate_is_the_class_typical_design_nearest_what_is_known() -> None:
    # With nothing known, the middle design of the class by mass; with the mass, the nearest.
    name, sheet = estimate(
        "continuum",
        sighting_of(context(setup_of(ship("r1", "red", "plain", 0, 0))).sheets["r1"], 0),
    )
    assert sheet.hull_class == "escort"
    heavy = sighting_of(msgspec.structs.replace(sheet, hull_class="capital", mass=160), 1)
    name, sheet = estimate("continuum", heavy)
    assert (sheet.hull_class, sheet.mass) == ("capital", 160)
    assert name in {
        "battleship",
        "battledreadnought",
        "superdreadnought",
        "fleet_carrier",
        "strike_carrier",
        "ortillery_monitor",
        "fleet_tender",
    }


class Spy:
    """A commander that notes every context and state it is given."""

    def __init__(self, inner: Commander) -> None:
        self.seen: list[tuple[BattleContext, BattleState]] = []
        self.inner = inner

    def wrap(self) -> Commander:
        def noting(
            method: Callable[[BattleContext, BattleState, str], T],
        ) -> Callable[[BattleContext, BattleState, str], T]:
            def call(ctx: BattleContext, state: BattleState, side: str) -> T:
                self.seen.append((ctx, state))
                return method(ctx, state, side)

            return call

        i = self.inner
        return Commander(
            noting(i.orders),
            noting(i.fire),
            noting(i.repairs),
            noting(i.flight),
            noting(i.assaults),
            noting(i.repel),
        )


def test_the_commanders_decide_from_what_their_side_knows() -> None:
    # Every context a commander is given names the enemy's ships only by what its side
    # knows: red's closing commander never sees the jammer's design, sheet or damage.
    setup = setup_of(
        ship("r1", "red", "plain", 0, 0),
        ship("r2", "red", "plain", 10, 0),
        ship("b1", "blue", "jammer", 0, 30, 6),
    )
    spy = Spy(closing_commander())
    battle = play(Battle(setup), {"red": spy.wrap(), "blue": closing_commander()}, SeededDice(3))
    assert battle.state.phase == "over"
    assert spy.seen
    for ctx, state in spy.seen:
        assert all(s.design != "jammer" for s in ctx.setup.ships)
        assert all(sheet.name != "Jammer" for sheet in ctx.sheets.values())
        for s in state.ships:
            if s.side == "blue":
                assert s.sighting is not None
                assert all(sys.status == "ok" for sys in s.record.systems)


# ------------------------------------------------------------------ the leak property

FLEETS = {
    "continuum": ("scout", "scout", "heavy_cruiser", "light_cruiser", "frigate", "destroyer"),
    "ft2": ("scout", "frigate", "destroyer", "light_cruiser", "heavy_cruiser", "weasel_scout"),
}


def _catalogue(rules: str) -> list[tuple[str, Ship]]:
    return [(name, sheet_for(name, rules)) for _, name in builtin_ids(rules)]  # type: ignore[arg-type]


def perturbed(
    ctx: BattleContext, state: BattleState, side: str, rng: random.Random
) -> tuple[BattleContext, BattleState]:
    """The battle with everything ``side`` does not know of each enemy ship changed at
    random: a design with the same known facts below every system, a random record (still
    afloat, or still wrecked) below everything, the turn's hidden flags; of an unidentified
    one, its design of the same class and where it started too."""
    setup_ships = {s.id: s for s in ctx.setup.ships}
    sheets = dict(ctx.sheets)
    ships = []
    for ship_now in state.ships:
        unseen = ship_now.side != side and ship_now.bogey is not None
        level = -1 if unseen else known_level(ctx, state, side, ship_now)
        if ship_now.side == side or level >= DAMAGE_KNOWN:
            ships.append(ship_now)
            continue
        sheet = ctx.sheets[ship_now.id]
        design = ship_now.design
        if level < SYSTEMS_KNOWN:
            same = [
                (name, other)
                for name, other in _catalogue(ctx.setup.rules)
                if sighting_of(other, max(level, 0)) == sighting_of(sheet, max(level, 0))
            ]
            if same:
                design, sheet = rng.choice(same)
        sheets[ship_now.id] = sheet
        setup_ships[ship_now.id] = msgspec.structs.replace(
            setup_ships[ship_now.id],
            design=design,
            x=rng.uniform(-50, 50) if unseen else setup_ships[ship_now.id].x,
        )
        wrecked = hull_remaining(ctx.sheets[ship_now.id], ship_now.record) <= 0
        ships.append(
            msgspec.structs.replace(
                ship_now,
                design=design,
                record=_random_record(sheet, ship_now.id, wrecked, rng),
                rows=(rng.randint(1, 3),) if rng.random() < 0.5 else (),
                repelled=rng.randint(0, 2),
                ecm=ship_now.ecm if level >= SYSTEMS_KNOWN else rng.random() < 0.5,
                tubes=ship_now.tubes if level >= SYSTEMS_KNOWN else (("x", 1),),
            )
        )
    setup = msgspec.structs.replace(ctx.setup, ships=tuple(setup_ships.values()))
    return (
        BattleContext(setup=setup, rules=ctx.rules, sheets=sheets),
        msgspec.structs.replace(state, ships=tuple(ships)),
    )


def _random_record(sheet: Ship, ship_id: str, wrecked: bool, rng: random.Random) -> ShipState:
    record = msgspec.structs.replace(fresh_state(sheet), ship_id=ship_id)
    if wrecked:
        return msgspec.structs.replace(record, hull_lost=sheet.rows)
    lost = [rng.randint(0, size) for size in sheet.rows]
    if sum(lost) >= sheet.hull_boxes:
        lost[-1] = max(0, lost[-1] - 1)
        lost = [0] * (len(lost) - 1) + [lost[-1]] if sum(lost) >= sheet.hull_boxes else lost
    return msgspec.structs.replace(
        record,
        hull_lost=tuple(lost),
        armour_lost=rng.randint(0, sheet.armour),
        drive=rng.choice(("ok", "half", "disabled")),
        systems=tuple(
            SystemState(id=s.id, status=rng.choice(("ok", "damaged", "destroyed")), ammo=s.ammo)
            for s in record.systems
        ),
    )


def shown(ctx: BattleContext, state: BattleState, side: str) -> tuple[object, ...]:
    """Everything the side is shown: its view's notation, the rendered table and plot, and
    its context's set-up and record sheets."""
    seen_ctx, seen = side_view(ctx, state, side)
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, theme=THEME)
    console.print(battle_table(seen_ctx, seen))
    console.print(battle_plot(seen_ctx, seen))
    return (
        format_position(ctx.setup.rules, seen),
        out.getvalue(),
        msgspec.json.encode(seen_ctx.setup),
        msgspec.json.encode(dict(sorted(seen_ctx.sheets.items()))),
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), turns=st.integers(1, 4))
@pytest.mark.parametrize("rules", sorted(FLEETS))
def test_no_hidden_fact_of_an_enemy_ship_shows_in_a_side_view(
    rules: str, seed: int, turns: int
) -> None:
    # Under closed books (continuum) nothing of an enemy ship beyond what its side knows;
    # under open ones (ft2) nothing of an enemy ship not yet identified.
    rng = random.Random(seed)
    ships = [
        ShipSetup(
            id=f"{side[0]}{index}",
            side=side,
            design=rng.choice(FLEETS[rules]),
            x=rng.uniform(-20, 20),
            y=base + rng.uniform(-5, 5),
            course=rng.randint(1, 12),
            speed=rng.randint(0, 6),
        )
        for side, base in (("red", 0.0), ("blue", rng.uniform(25, 60)))
        for index in range(rng.randint(1, 3))
    ]
    setup = BattleSetup(
        sides=("red", "blue"), ships=tuple(ships), rules=rules, bogeys=True, turn_limit=turns
    )
    commanders = {side: random_commander(random.Random(seed + n)) for n, side in enumerate("rb")}
    battle = play(
        Battle(setup), {"red": commanders["r"], "blue": commanders["b"]}, SeededDice(seed)
    )
    ctx = context(setup)
    for played in turn_by_turn(setup, battle.journal):
        # The scans' levels as the battle reached them, or any others: every level is tried.
        known = tuple(
            sorted(
                (side, s.id, rng.randint(0, 4))
                for side in setup.sides
                for s in ships
                if s.side != side
            )
        )
        for state in (played.state, msgspec.structs.replace(played.state, known=known)):
            for side in setup.sides:
                before = shown(ctx, state, side)
                other_ctx, other = perturbed(ctx, state, side, rng)
                assert shown(other_ctx, other, side) == before


def test_the_battle_report_table_shows_a_side_only_what_it_knows() -> None:
    # The campaign's replay draws each turn's table from the side's view: a damaged enemy
    # ship known to no level shows its hull as `?` (its sheet there is the side's estimate,
    # whose boxes would read as the truth), the umpire the truth.
    from campaign.battlereport import _table

    ctx = context(
        setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 20, 6))
    )
    state = damaged(initial_state(ctx), "b1")
    red = {c.label: c.hull for c in _table(ctx, state, "red")}
    umpire = {c.label: c.hull for c in _table(ctx, state, "umpire")}
    assert red["b1"] == "?"
    assert umpire["b1"] == f"{ctx.sheets['b1'].hull_boxes - 1}/{ctx.sheets['b1'].hull_boxes}"


# ------------------------------------------------------------------ golden side views

GOLDEN_VIEWS = Path(__file__).parent / "golden" / "battles" / "continuum_scouting_views.txt"


def continuum_scouting() -> BattleSetup:
    """Scouts with enhanced sensors ahead of two fleets that start as bogeys 60 MU apart."""
    return BattleSetup(
        name="Continuum scouts find the enemy",
        sides=("red", "blue"),
        ships=(
            ShipSetup(id="r1", side="red", design="scout", x=0, y=10, course=12, speed=8),
            ShipSetup(id="r2", side="red", design="heavy_cruiser", x=10, y=0, course=12, speed=4),
            ShipSetup(id="b1", side="blue", design="scout", x=4, y=60, course=6, speed=8),
            ShipSetup(id="b2", side="blue", design="light_cruiser", x=-8, y=70, course=6, speed=4),
            ShipSetup(id="b3", side="blue", design="frigate", x=12, y=70, course=6, speed=6),
        ),
        rules="continuum",
        bogeys=True,
        turn_limit=6,
    )


def test_golden_side_views_of_a_scouting_battle() -> None:
    # Each side's view at the end of each turn, in the notation, and the last turn's table as
    # each side sees it: what the scans learned shows, and nothing more.
    setup = continuum_scouting()
    battle = play(Battle(setup), {side: closing_commander() for side in setup.sides}, dice_script())
    ctx = context(setup)
    lines: list[str] = []
    last = battle.state
    for played in turn_by_turn(setup, battle.journal):
        last = played.state
        for side in setup.sides:
            seen = side_view(ctx, played.state, side)[1]
            lines.append(f"turn {played.turn} {side}: {format_position(setup.rules, seen)}")
            assert parse_position(format_position(setup.rules, seen))[1] == seen
    for side in setup.sides:
        out = io.StringIO()
        Console(file=out, width=160, color_system=None, theme=THEME).print(
            battle_table(*side_view(ctx, last, side), title=f"as {side} sees it")
        )
        lines.extend(line.rstrip() for line in out.getvalue().splitlines())
    produced = "\n".join(lines) + "\n"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN_VIEWS.write_text(produced)
    assert GOLDEN_VIEWS.exists(), f"missing golden file {GOLDEN_VIEWS}: run with UPDATE_GOLDEN=1"
    assert produced == GOLDEN_VIEWS.read_text()
    assert battle.state.known  # the scouts' scans learned something
    # What each side knows is a fold of the journal: a replay, rolling nothing, knows it too.
    assert replay(setup, battle.journal) == battle.state
    assert "/k" in produced


# ------------------------------------------------------------------ needles aimed blind


@pytest.fixture
def _needle_ship(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tactical.test_needle_classes import TEST_DESIGNS as NEEDLE_DESIGNS

    extra_designs.install(monkeypatch, {**TEST_DESIGNS, **NEEDLE_DESIGNS})


def _needle_turn(bogeys: bool) -> Battle:
    """Red's needle ship's firing turn against the jammer 10 MU ahead."""
    setup = setup_of(
        ship("r1", "red", "needle_test_ship", 0, 0),
        ship("b1", "blue", "jammer", 0, 10, 6),
        bogeys=bogeys,
    )
    battle = Battle(setup)
    battle.write_orders("red", {})
    battle.write_orders("blue", {})
    battle.resolve(SeededDice(1))
    while battle.step().side == "blue":
        battle.fire("b1", [], SeededDice(1))
    assert battle.step().side == "red"
    return battle


@pytest.mark.usefixtures("_needle_ship")
def test_a_needle_aimed_blind_under_closed_books_kills_nothing_it_has_not_got() -> None:
    # 000 L4507-4513: without the sensors' information "it can still do a point of damage to
    # the target, [but] rolls of a 6 do not damage the targeted system". Red knows nothing of
    # b1's systems, so an aim at a PDS b1 has not got stands, and its 6s only do points.
    from tactical.battle import IllegalActionError, Shot

    battle = _needle_turn(bogeys=True)
    before = battle.state.ship("b1").record
    battle.fire("r1", [Shot("needle2-1", "b1", "pds-1")], Sixes())
    after = battle.state.ship("b1").record
    assert after.systems == before.systems
    assert sum(after.hull_lost) == sum(before.hull_lost) + 2
    # Aimed at a system it has, the 6s destroy it as ever.
    battle = _needle_turn(bogeys=True)
    battle.fire("r1", [Shot("needle2-1", "b1", "beam2-1")], Sixes())
    statuses = {s.id: s.status for s in battle.state.ship("b1").record.systems}
    assert statuses["beam2-1"] == "destroyed"
    # Under open books the aim must be a working system of the ship (001 L848).
    battle = _needle_turn(bogeys=False)
    with pytest.raises(IllegalActionError, match="must aim at a working system"):
        battle.fire("r1", [Shot("needle2-1", "b1", "pds-1")], Sixes())


class Sixes:
    """Dice that always show a 6."""

    def roll(self, key: str, sides: int) -> int:
        return min(6, sides)


def test_the_battle_report_lines_keep_an_unscanned_ships_sheet_closed() -> None:
    # Of a ship whose damage it has not learned, a side is told the damage its own dice
    # dealt and that the ship was destroyed, not its armour, rows, threshold checks or
    # repairs (000 L1462-1466, L12658-12660); of its own ships, everything.
    from campaign.battlereport import _turn

    ctx = context(
        setup_of(ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "jammer", 0, 20, 6))
    )
    state = initial_state(ctx)
    lines = [
        "    b1 takes 4 (1 to armour), rows 1, 2 gone",
        "    b1 threshold check (row 1): beam2-1",
        "  b1 repair beam2-1 with 1 DCP: rolls 6, fails",
        "    r1 takes 3, rows 1, 2 gone",
        "    r1 threshold check (row 2 +1): firecon-1",
    ]
    red = _turn(ctx, 1, lines, state, "red").lines
    assert red == ("    b1 takes 4", "    r1 takes 3, rows 1, 2 gone", lines[4])
    assert _turn(ctx, 1, lines, state, "umpire").lines == tuple(lines)
    everything = msgspec.structs.replace(state, known=(("red", "b1", DAMAGE_KNOWN),))
    assert _turn(ctx, 1, lines, everything, "red").lines == tuple(lines)


def test_a_scenario_may_open_or_close_the_books() -> None:
    # 000 L1462-1466: "or if the designer of a scenario specifies otherwise".
    ships = (ship("r1", "red", "frigate", 0, 0), ship("b1", "blue", "frigate", 0, 20, 6))
    closed_ft2 = msgspec.structs.replace(setup_of(*ships, rules="ft2"), enemy_sheets="sensed")
    ctx = context(closed_ft2)
    assert side_view(ctx, initial_state(ctx), "red")[1].ship("b1").sighting is not None
    plain = (ship("r1", "red", "plain", 0, 0), ship("b1", "blue", "plain", 0, 20, 6))
    open_continuum = msgspec.structs.replace(setup_of(*plain), enemy_sheets="open")
    ctx = context(open_continuum)
    state = initial_state(ctx)
    assert side_view(ctx, state, "red")[1].ship("b1") == state.ship("b1")


@pytest.mark.parametrize(("carrier", "seed"), [("light_carrier", 0), ("strike_carrier", 1)])
def test_enemy_fighters_from_a_carrier_known_only_by_its_estimate_are_played(
    carrier: str, seed: int
) -> None:
    """000 L1442-1466: under closed books a side sees an enemy carrier it has not scanned as
    its estimate, which may hold no bay of the groups flying from it; the side takes them for
    standard fighters, and a carrier mirror under the campaign's rules is fought to its end
    (it stopped the commanders before)."""
    from tactical.campaign_battle import (
        CampaignBattle,
        CampaignShip,
        CampaignSide,
        resolve_campaign_battle,
    )

    def side(name: str) -> CampaignSide:
        return CampaignSide(
            name=name, order="engage", ships=(CampaignShip(id=f"{name}-1", design=carrier),)
        )

    request = CampaignBattle(sides=(side("red"), side("blue")), rules="continuum")
    outcome = resolve_campaign_battle(request, SeededDice(seed))
    assert BATTLE_RULES[outcome.setup.rules].enemy_sheets == "sensed"
    assert outcome.setup.enemy_sheets is None  # the preset's: closed books
    flights = [e for e in outcome.journal if e.__class__.__name__ == "FlightWritten"]
    assert {e.side for e in flights} == {"red", "blue"}  # both sides' groups flew
