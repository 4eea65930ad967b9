"""FT2 section 7 (001 L1220-1383): every standard class reproduces its printed points."""

from __future__ import annotations

import msgspec
import pytest

from tactical.designs import builtin_ids, load_builtin
from tactical.points import build, price, track_rows
from tactical.ship import PRESETS, Design, DesignError, Mount

FT2 = PRESETS["ft2"]

# id, printed points, where the figure is printed. Every standard class of 001 L582-599.
PRINTED_POINTS = [
    ("courier", 15, "001 L656-657"),
    ("scout", 28, "001 L659-660"),
    ("corvette", 43, "001 L662-663"),
    ("frigate", 65, "001 L667-668"),
    ("destroyer", 92, "001 L672-673"),
    ("light_cruiser", 190, "001 L677-678"),
    ("escort_cruiser", 195, "001 L682-683"),
    ("heavy_cruiser", 238, "001 L687-688"),
    ("battlecruiser", 381, "001 L696-697"),
    ("battleship", 447, "001 L701-702"),
    ("battledreadnought", 431, "001 L706-707"),
    ("superdreadnought", 580, "001 L711-712"),
    ("light_carrier", 499, "001 L715-716"),
    ("fleet_carrier", 687, "001 L719-720"),
    ("bulk_tanker", 502, "001 L726-727"),
    ("heavy_freighter", 306, "001 L731-732"),
    ("survey_cruiser", 333, "001 L736-737"),
    # Designs printed in the text outside the class pages.
    ("super_heavy_cruiser", 267, "001 L1378, L1382-1383"),
    ("system_defence_ship", 95, "001 L1140"),
]
# Whose fit the text states (digest section 2, "verified"); the rest are project designs.
FIT_IN_TEXT = {
    "frigate",
    "destroyer",
    "light_cruiser",
    "escort_cruiser",
    "heavy_cruiser",
    "battledreadnought",
    "heavy_freighter",
    "super_heavy_cruiser",
    "system_defence_ship",
}
# Masses and damage points of the hull table, 001 L582-599.
HULL_TABLE = {
    "courier": (2, 1),
    "scout": (4, 2),
    "corvette": (6, 3),
    "frigate": (10, 5),
    "destroyer": (14, 7),
    "light_cruiser": (22, 11),
    "escort_cruiser": (26, 13),
    "heavy_cruiser": (32, 16),
    "battlecruiser": (40, 20),
    "battleship": (48, 24),
    "battledreadnought": (60, 30),
    "superdreadnought": (80, 40),
    "light_carrier": (70, 35),
    "fleet_carrier": (98, 49),
    "bulk_tanker": (100, 25),
    "heavy_freighter": (60, 15),
    "survey_cruiser": (48, 12),
}


@pytest.mark.parametrize(("design_id", "points", "cite"), PRINTED_POINTS)
def test_printed_points(design_id: str, points: int, cite: str) -> None:
    costing = price(load_builtin(design_id, "ft2"), FT2)
    assert costing.problems == ()
    assert costing.points == points, f"{design_id} should cost {points} ({cite})"
    assert costing.exact_points == points  # no rounding was needed


@pytest.mark.parametrize(("design_id", "points", "cite"), PRINTED_POINTS)
def test_designs_use_their_whole_allowance(design_id: str, points: int, cite: str) -> None:
    # All nine fully specified designs in 001 fill their allowance (digest section 2 notes).
    costing = price(load_builtin(design_id, "ft2"), FT2)
    assert costing.mass_used == costing.mass_allowance, cite


@pytest.mark.parametrize(("design_id", "points", "cite"), PRINTED_POINTS)
def test_provenance_says_where_the_fit_comes_from(design_id: str, points: int, cite: str) -> None:
    provenance = load_builtin(design_id, "ft2").provenance
    if design_id in FIT_IN_TEXT:
        assert provenance.startswith("001 L"), provenance
    else:
        assert provenance.startswith("project design: the fit was a picture"), provenance
        assert str(points) in provenance


@pytest.mark.parametrize(("design_id", "mass_dp"), sorted(HULL_TABLE.items()))
def test_hull_table(design_id: str, mass_dp: tuple[int, int]) -> None:
    ship = build(load_builtin(design_id, "ft2"), FT2)
    assert (ship.mass, ship.hull_boxes) == mass_dp  # 001 L582-599


def test_every_ft2_builtin_is_valid() -> None:
    for family, design_id in builtin_ids("ft2"):
        assert price(load_builtin(design_id, family), FT2).problems == (), design_id


def test_super_heavy_cruiser_breakdown() -> None:
    # 001 L1361-1376: hull 72, FTL 36, thrust-4 drive 72, screen 25, 3 PDAF 9, 2 A 26, 3 B 27.
    costing = price(load_builtin("super_heavy_cruiser", "ft2"), FT2)
    assert [line.points for line in costing.lines] == [72, 36, 72, 25, 9, 26, 27]
    assert costing.mass_used == 18  # 001 L1365, L1376: 18 mass of systems
    ship = build(load_builtin("super_heavy_cruiser", "ft2"), FT2)
    assert ship.hull_boxes == 18  # 001 L1363
    assert ship.hull_class == "cruiser"  # 001 L1251: 19-36 is a cruiser


def test_system_defence_ship_breakdown() -> None:
    # 001 L1140: hull 28, drives 21, weapons 46, no FTL, 11 mass (75% of 14 rounded up).
    costing = price(load_builtin("system_defence_ship", "ft2"), FT2)
    assert [line.points for line in costing.lines[:2]] == [28, 21]
    assert sum(line.points for line in costing.lines[2:]) == 46
    assert costing.mass_allowance == 11


def test_missile_destroyer_and_con_am_12_derived_points() -> None:
    # Not printed: derived in the digest (section 2 and A23) from the stated fits.
    assert price(load_builtin("missile_destroyer", "ft2"), FT2).points == 86
    station = build(load_builtin("con_am_12", "ft2"), FT2)
    assert station.points == 346
    assert station.hull_boxes == 50  # 001 L1447: 50 damage points
    assert station.mass_allowance == 20
    assert station.systems[-4].arcs == ("P", "F", "S", "A")  # "ALL arc fire"


def test_drive_examples() -> None:
    # 001 L1284: escort mass 12: thrust 6 -> 18, thrust 4 -> 12, thrust 8 -> 24.
    for thrust, cost in ((6, 18), (4, 12), (8, 24)):
        design = Design(name="E", rules="ft2", mass=12, thrust=thrust)
        assert price(design, FT2).lines[2].points == cost
    # 001 L1286: capital mass 48: thrust 4 -> 192, thrust 2 -> 96.
    for thrust, cost in ((4, 192), (2, 96)):
        design = Design(name="C", rules="ft2", mass=48, thrust=thrust)
        assert price(design, FT2).lines[2].points == cost


def test_hull_cost_example() -> None:
    # 001 L1262: a mass-20 warship hull costs 40, a merchant hull 30.
    warship = Design(name="W", rules="ft2", mass=20, thrust=0, ftl=False)
    merchant = msgspec.structs.replace(warship, hull="merchant")
    assert price(warship, FT2).lines[0].points == 40
    assert price(merchant, FT2).lines[0].points == 30


def test_fractional_costs_round_the_total_up() -> None:
    # Digest A20: price exactly, round the total up. Mass 13 escort, thrust 6: drive 19.5.
    design = Design(name="Odd", rules="ft2", mass=13, thrust=6)
    costing = price(design, FT2)
    assert costing.exact_points == 26 + 13 + 19.5
    assert costing.points == 59


def test_survey_cruiser_needs_allowance_rounded_up() -> None:
    # 10% of 48 is 4.8: only 5 mass fits the printed 333 (digest section 2, A20).
    down = msgspec.structs.replace(FT2, allowance_rounding="down")
    problems = price(load_builtin("survey_cruiser", "ft2"), down).problems
    assert [p.path for p in problems] == ["$.systems"]
    assert "allows 4" in problems[0].reason


def test_tug_pays_triple_ftl() -> None:
    # 001 L1158: a mass-50 tug spends 150 points on FTL.
    tug = Design(name="Tug", rules="ft2", hull="tug", mass=50, thrust=1)
    assert price(tug, FT2).lines[1].points == 150


def test_q_ship_buys_military_drives() -> None:
    # 001 L1196: a cruiser-sized Q-ship pays cruiser drive prices (mass x thrust / 2).
    q_ship = Design(name="Q", rules="ft2", hull="q_ship", mass=30, thrust=4)
    costing = price(q_ship, FT2)
    assert [line.points for line in costing.lines] == [45, 30, 60]
    assert costing.mass_allowance == 15
    assert build(q_ship, FT2).hull_boxes == 7  # 25% of 30, floored


@pytest.mark.parametrize(
    ("boxes", "rows", "expected"),
    [
        (7, 2, (3, 4)),  # 001 L550: the destroyer example
        (11, 3, (3, 4, 4)),
        (13, 3, (4, 4, 5)),
        (30, 4, (7, 7, 8, 8)),
        (49, 4, (12, 12, 12, 13)),
        (1, 2, (0, 1)),  # the courier (digest A7)
    ],
)
def test_ft2_track_rows_put_the_surplus_low(
    boxes: int, rows: int, expected: tuple[int, ...]
) -> None:
    assert track_rows(boxes, rows, extra_on_top=False) == expected


def test_rows_and_firecons_by_class() -> None:
    # 001 L382 and L526: escorts 1 FireCon and 2 rows; cruisers 2 and 3; capitals 3 and 4.
    for design_id, firecons, rows in (
        ("destroyer", 1, 2),
        ("heavy_cruiser", 2, 3),
        ("battleship", 3, 4),
        ("heavy_freighter", 1, 4),
    ):
        ship = build(load_builtin(design_id, "ft2"), FT2)
        assert (ship.fire_controls, len(ship.rows)) == (firecons, rows), design_id


def _problems(design: Design) -> list[tuple[str, str]]:
    return [(p.path, p.reason) for p in price(design, FT2).problems]


def _paths(design: Design) -> list[str]:
    return [path for path, _ in _problems(design)]


FRIGATE = Design(
    name="Test frigate",
    rules="ft2",
    mass=10,
    thrust=6,
    systems=(Mount(kind="beam_b", arcs=("P", "F", "S")),),
)


def _with(*mounts: Mount, **fields: object) -> Design:
    return msgspec.structs.replace(FRIGATE, systems=FRIGATE.systems + mounts, **fields)


def test_aft_arc_is_refused() -> None:
    problems = _problems(_with(Mount(kind="beam_c", arcs=("A",))))
    assert problems == [("$.systems[1].arcs", problems[0][1])]
    assert "aft arc" in problems[0][1]
    assert "001 L404" in problems[0][1]


def test_two_arcs_must_be_adjacent() -> None:
    assert _paths(_with(Mount(kind="beam_c", arcs=("P", "S")))) == ["$.systems[1].arcs"]
    assert _paths(_with(Mount(kind="beam_c", arcs=("F", "S")))) == []


def test_two_arc_battery_costs_seven() -> None:
    # 001 L1333: a B battery bearing through 2 arcs costs 3 + 2 + 2 = 7.
    costing = price(_with(Mount(kind="beam_b", arcs=("P", "F")), thrust=4), FT2)
    assert costing.lines[-1].points == 7


def test_unknown_arc_and_duplicate_arc() -> None:
    assert _paths(_with(Mount(kind="beam_c", arcs=("Q",)))) == ["$.systems[1].arcs"]
    assert _paths(_with(Mount(kind="beam_c", arcs=("F", "F")))) == ["$.systems[1].arcs"]


def test_battery_needs_arcs_and_pdaf_takes_none() -> None:
    assert _paths(_with(Mount(kind="beam_c"))) == ["$.systems[1].arcs"]
    assert _paths(_with(Mount(kind="pdaf", arcs=("F",)))) == ["$.systems[1].arcs"]


def test_torpedo_fore_only_and_needle_one_arc() -> None:
    assert _paths(_with(Mount(kind="pulse_torpedo", arcs=("P",)), mass=20)) == ["$.systems[1].arcs"]
    assert _paths(_with(Mount(kind="needle", arcs=("P", "F")))) == ["$.systems[1].arcs"]


def test_unknown_system_names_the_known_ones() -> None:
    problems = _problems(_with(Mount(kind="beam_d", arcs=("F",))))
    assert problems[0][0] == "$.systems[1].kind"
    assert "beam_a" in problems[0][1]


def test_exactly_full_is_fine() -> None:
    assert _problems(_with(Mount(kind="beam_a", arcs=("F",)))) == []  # 2 + 3 = 5 of 5 mass


def test_over_allowance_reason() -> None:
    design = _with(Mount(kind="beam_a", arcs=("F",)), Mount(kind="pdaf"))
    assert _problems(design) == [("$.systems", "systems need 6 mass but the hull allows 5")]


def test_thrust_limit_and_mass_limit() -> None:
    assert _paths(msgspec.structs.replace(FRIGATE, thrust=9)) == ["$.thrust"]
    assert "$.mass" in _paths(msgspec.structs.replace(FRIGATE, mass=101))


def test_screens_limits() -> None:
    assert "$.screens" in _paths(Design(name="S", rules="ft2", mass=100, thrust=1, screens=4))
    merchant = Design(name="M", rules="ft2", hull="merchant", mass=60, thrust=2, screens=2)
    assert "$.screens" in _paths(merchant)


def test_merchant_kit_only() -> None:
    merchant = Design(
        name="M",
        rules="ft2",
        hull="merchant",
        mass=60,
        thrust=2,
        systems=(Mount(kind="beam_b", arcs=("F",)),),
    )
    problems = _problems(merchant)
    assert problems[0][0] == "$.systems[0].kind"
    assert "001 L1304" in problems[0][1]
    # Any merchant may carry 1 mass even below mass 10 (001 L1256).
    tiny = Design(
        name="T", rules="ft2", hull="merchant", mass=4, thrust=1, systems=(Mount(kind="pdaf"),)
    )
    assert _problems(tiny) == []


def test_fighters_and_nova_need_a_capital() -> None:
    cruiser = Design(
        name="C",
        rules="ft2",
        mass=36,
        thrust=2,
        systems=(Mount(kind="fighter_group"),),
    )
    assert _paths(cruiser) == ["$.systems[0].kind"]
    capital = msgspec.structs.replace(cruiser, mass=37)
    assert _paths(capital) == []
    nova = msgspec.structs.replace(cruiser, systems=(Mount(kind="nova_cannon"),))
    assert "$.systems[0].kind" in _paths(nova)


def test_continuum_fields_are_refused_under_ft2() -> None:
    design = msgspec.structs.replace(FRIGATE, armour=2, hull_boxes=5, advanced_drive=True)
    assert _paths(design) == ["$.armour", "$.hull_boxes", "$.advanced_drive"]


def test_extra_firecons_cost_and_merchants_cannot_buy_them() -> None:
    costing = price(msgspec.structs.replace(FRIGATE, mass=14, fire_controls=2), FT2)
    assert costing.lines[-1].item == "B battery (P/F/S)"
    extra = [line for line in costing.lines if line.item.startswith("Extra FireCon")]
    assert [(line.mass, line.points) for line in extra] == [(3, 10)]  # 001 L1346
    merchant = Design(name="M", rules="ft2", hull="merchant", mass=100, thrust=1, fire_controls=2)
    assert _paths(merchant) == ["$.fire_controls"]


def test_installations_are_unpowered() -> None:
    station = Design(name="S", rules="ft2", hull="military_installation", mass=200, thrust=2)
    assert _paths(station) == ["$.thrust"]


def test_warship_rows_cannot_be_changed() -> None:
    assert _paths(msgspec.structs.replace(FRIGATE, hull_rows=3)) == ["$.hull_rows"]


def test_preset_must_match_rules() -> None:
    problems = price(FRIGATE, PRESETS["continuum"]).problems
    assert problems[0].path == "$.rules"


def test_build_raises_with_every_problem() -> None:
    design = msgspec.structs.replace(FRIGATE, thrust=9, screens=4)
    with pytest.raises(DesignError) as caught:
        build(design, FT2)
    assert [p.path for p in caught.value.problems] == ["$.thrust", "$.screens", "$.systems"]
    assert "Test frigate" in str(caught.value)
