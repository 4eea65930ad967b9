"""Project Continuum sections 13-14 (000 L13987-16925); the 13.14 heavy cruiser is golden."""

from __future__ import annotations

from fractions import Fraction

import msgspec
import pytest

from tactical.designs import builtin_ids, load_builtin
from tactical.fighters import bays
from tactical.points import build, pc_class, price, round_half_up, track_rows
from tactical.ship import PRESETS, Design, Mount

PC = PRESETS["continuum"]


# The campaign's standard Continuum catalogue (issue 15): every design with the points the 000
# chapter 13-14 rules price it at. Only the heavy cruiser is the text's (000 L15690); the others
# are project designs, golden so that a change to the points rules shows here.
CATALOGUE_POINTS = {
    "assault_cruiser": 218,
    "battledreadnought": 635,
    "battleship": 426,
    "destroyer": 128,
    "ew_frigate": 77,
    "fleet_carrier": 602,
    "flak_destroyer": 106,
    "fleet_tender": 171,
    "frigate": 75,
    "heavy_cruiser": 294,
    "heavy_missile_cruiser": 194,
    "lancer": 122,
    "light_carrier": 351,
    "light_cruiser": 203,
    "missile_cruiser": 161,
    "ortillery_monitor": 254,
    "scout": 61,
    "strike_carrier": 430,
    "superdreadnought": 826,
    "torpedo_cruiser": 179,
}


def test_the_golden_table_names_every_continuum_design() -> None:
    assert {design for _, design in builtin_ids("continuum")} == set(CATALOGUE_POINTS)


@pytest.mark.parametrize(("design_id", "points"), sorted(CATALOGUE_POINTS.items()))
def test_catalogue_design_prices(design_id: str, points: int) -> None:
    costing = price(load_builtin(design_id, "continuum"), PC)
    assert costing.problems == (), costing.problems
    assert costing.points == points


def test_catalogue_covers_every_class_a_campaign_fields() -> None:
    # Escorts, cruisers, capitals, carriers, a fleet tender, a scout, an ortillery ship, and the
    # planetary defences' battledreadnought and superdreadnought (004 L299-304).
    ships = {d: build(load_builtin(d, "continuum"), PC) for d in CATALOGUE_POINTS}
    assert {s.hull_class for s in ships.values()} == {"escort", "cruiser", "capital", "merchant"}
    assert ships["fleet_tender"].fighter_stores == 24
    assert ships["ortillery_monitor"].ortillery
    assert ships["scout"].hull_class == "escort"
    carriers = [d for d in ("light_carrier", "fleet_carrier") if len(bays(ships[d])) > 1]
    assert carriers == ["light_carrier", "fleet_carrier"]
    assert ships["battledreadnought"].hull_class == ships["superdreadnought"].hull_class


def test_catalogue_fields_the_electronic_and_point_defence_systems() -> None:
    # Issue 15: ECM and area ECM (000 7.18-7.19), heavy missiles (6.2-6.6), scatterguns (7.14)
    # and grapeshot (7.15) each on a standard design, so that campaigns field them.
    fitted = {
        spec.kind: design
        for design in sorted(CATALOGUE_POINTS, reverse=True)
        for spec in build(load_builtin(design, "continuum"), PC).systems
    }
    assert {kind: fitted.get(kind) for kind in ("ecm", "area_ecm")} == {
        "ecm": "ew_frigate",
        "area_ecm": "ew_frigate",
    }
    assert fitted.get("heavy_missile") == "heavy_missile_cruiser"
    assert fitted.get("scattergun") == fitted.get("grapeshot") == "flak_destroyer"


def test_heavy_cruiser_worked_example_total() -> None:
    # 000 L15690: "Totals mass 86 294 points".
    costing = price(load_builtin("heavy_cruiser", "continuum"), PC)
    assert costing.problems == ()
    assert costing.warnings == ()
    assert costing.points == 294
    assert costing.mass_used == 86 == costing.mass_allowance


def test_heavy_cruiser_worked_example_lines() -> None:
    # 000 L15658-15686, line by line (mass, points); FireCons come before the weapons here.
    costing = price(load_builtin("heavy_cruiser", "continuum"), PC)
    got = [(line.mass, line.points) for line in costing.lines]
    assert got == [
        (0, 86),  # basic hull: 86 points (its 86 mass is the capacity, L15658)
        (26, 52),  # hull integrity (L15660)
        (9, 18),  # FTL drive (L15662)
        (17, 34),  # main drive thrust-4 (L15664)
        (2, 8),  # 2 x FireCon (L15676)
        (4, 12),  # level-1 screen (L15682)
        (6, 18),  # Beam-3, 3 arcs
        (6, 18),  # Beam-3, 3 arcs; together 12 mass 36 points (L15670)
        (3, 9),  # Beam-2, 6 arcs (L15672)
        (2, 6),  # 2 x Beam-1 (L15674)
        (3, 9),  # SML (L15678)
        (6, 18),  # magazine, 3 loads (L15680)
        (2, 6),  # 2 x PDS (L15684)
    ]
    # 000 L15668: sub-totals 52 mass, 190 points; L15686: systems 34 mass, 104 points.
    assert sum(m for m, _ in got[1:4]) == 52
    assert sum(p for _, p in got[:4]) == 190
    assert (sum(m for m, _ in got[4:]), sum(p for _, p in got[4:])) == (34, 104)


def test_heavy_cruiser_record_sheet() -> None:
    ship = build(load_builtin("heavy_cruiser", "continuum"), PC)
    assert ship.rows == (7, 7, 6, 6)  # 000 L15540-15542
    assert ship.hull_boxes == 26
    assert ship.crew_factor == 5  # 000 L11326-11334: one per 20 mass or part
    assert ship.hull_class == "cruiser"  # 000 L14341-14345
    assert ship.fire_controls == 2
    assert [s.id for s in ship.systems if s.kind.startswith("beam")] == [
        "beam3-1",
        "beam3-2",
        "beam2-1",
        "beam1-1",
        "beam1-2",
    ]
    assert ship.system("magazine-1").ammo == 3


def test_rounding_examples() -> None:
    # 000 L14519-14527: mass 64, FTL 6.4 -> 6, thrust-4 drive 12.8 -> 13;
    # 000 L14762-14764: thrust 6, 19.2 -> 19.
    design = Design(name="M64", rules="continuum", mass=64, thrust=4, hull_boxes=7, fire_controls=0)
    lines = price(design, PC).lines
    assert (lines[2].mass, lines[3].mass) == (6, 13)
    six = msgspec.structs.replace(design, thrust=6)
    assert price(six, PC).lines[3].mass == 19
    assert [round_half_up(Fraction(n, 10)) for n in (64, 128, 192, 258, 25)] == [6, 13, 19, 26, 3]


def test_no_system_rounds_to_zero() -> None:
    # 000 L14543-14561: the smallest FTL ship is mass 3: hull 1, FTL 1, drive 1 for thrust 6.
    scout = Design(name="Scout", rules="continuum", mass=3, thrust=6, hull_boxes=1, fire_controls=0)
    costing = price(scout, PC)
    assert costing.problems == ()
    assert [line.mass for line in costing.lines] == [0, 1, 1, 1]
    assert costing.mass_used == 3


def test_hull_rows_and_costs() -> None:
    # 000 L14674-14680: 2 boxes -> 1,1,0,0; 15 boxes -> 4,4,4,3; L14662-14664: 12 -> 3,3,3,3.
    assert track_rows(2, 4, extra_on_top=True) == (1, 1, 0, 0)
    assert track_rows(15, 4, extra_on_top=True) == (4, 4, 4, 3)
    assert track_rows(24, 3, extra_on_top=True) == (8, 8, 8)  # L14706-14710, advanced hull
    base = Design(
        name="H", rules="continuum", mass=60, thrust=0, ftl=False, hull_boxes=24, fire_controls=0
    )
    options = msgspec.structs.replace(PC, allow_nonstandard_rows=True)
    # L14684-14690, L14718: 4 rows x2, 5 rows x1.5, 6 rows x1, advanced 3 rows x3.
    for rows, points in ((4, 48), (5, 36), (6, 24), (3, 72)):
        design = msgspec.structs.replace(base, hull_rows=rows)
        assert price(design, options).lines[1].points == points


def test_campaign_preset_builds_four_row_hulls_only() -> None:
    design = Design(
        name="Old",
        rules="continuum",
        mass=60,
        thrust=2,
        hull_boxes=18,
        hull_rows=5,
        fire_controls=1,
    )
    assert [p.path for p in price(design, PC).problems] == ["$.hull_rows"]


def test_hull_minimum_ten_percent() -> None:
    design = Design(name="F", rules="continuum", mass=60, thrust=2, hull_boxes=5, fire_controls=1)
    problems = price(design, PC).problems
    assert [p.path for p in problems] == ["$.hull_boxes"]
    assert "6 for mass 60" in problems[0].reason


def test_hull_boxes_or_strength_not_both() -> None:
    design = Design(
        name="F",
        rules="continuum",
        mass=60,
        thrust=2,
        hull_boxes=18,
        hull_strength="average",
        fire_controls=1,
    )
    assert [p.path for p in price(design, PC).problems] == ["$.hull_boxes"]


def test_fire_controls_must_be_given() -> None:
    design = Design(name="F", rules="continuum", mass=30, thrust=2, hull_strength="average")
    assert [p.path for p in price(design, PC).problems] == ["$.fire_controls"]


def test_beam_masses_by_arcs() -> None:
    # 000 L3763-3777.
    cases = [
        ("beam1", (), 1),
        ("beam2", ("F",), 2),
        ("beam2", ("FP", "F", "FS"), 2),
        ("beam2", ("FP", "F", "FS", "AS"), 3),
        ("beam2", ("FP", "AP"), 1),  # broadside
        ("beam2", ("FP", "F"), 2),  # two arcs but not a broadside pair
        ("beam3", ("F",), 4),
        ("beam3", ("FP", "F", "FS"), 6),
        ("beam4", ("FP", "F", "FS"), 12),
        ("beam5", ("F", "FS"), 20),
    ]
    for kind, arcs, mass in cases:
        design = Design(
            name="B",
            rules="continuum",
            mass=100,
            thrust=0,
            ftl=False,
            hull_boxes=10,
            fire_controls=0,
            systems=(Mount(kind=kind, arcs=arcs),),
        )
        line = price(design, PC).lines[-1]
        assert (line.mass, line.points) == (mass, 3 * mass), (kind, arcs)


def _ship(*mounts: Mount, mass: int = 100) -> Design:
    return Design(
        name="T",
        rules="continuum",
        mass=mass,
        thrust=2,
        hull_strength="average",
        fire_controls=2,
        systems=mounts,
    )


def _paths(design: Design) -> list[str]:
    return [p.path for p in price(design, PC).problems]


def test_arcs_checked() -> None:
    assert _paths(_ship(Mount(kind="beam3"))) == ["$.systems[0].arcs"]
    assert _paths(_ship(Mount(kind="beam3", arcs=("F", "X")))) == ["$.systems[0].arcs"]
    assert _paths(_ship(Mount(kind="pds", arcs=("F",)))) == ["$.systems[0].arcs"]
    too_many = Mount(kind="pulse_torpedo", arcs=("FP", "F", "FS", "AS"))
    assert _paths(_ship(too_many)) == ["$.systems[0].arcs"]


def test_magazines_and_launchers_go_together() -> None:
    assert _paths(_ship(Mount(kind="sml", arcs=("F",)))) == ["$.systems"]
    assert _paths(_ship(Mount(kind="magazine", loads=2))) == ["$.systems"]
    assert _paths(_ship(Mount(kind="sml", arcs=("F",)), Mount(kind="magazine"))) == [
        "$.systems[1].loads"
    ]
    assert _paths(_ship(Mount(kind="pds", loads=2))) == ["$.systems[0].loads"]


def test_fighters_ride_in_bays_and_are_priced_per_wing() -> None:
    design = _ship(Mount(kind="hangar_bay", fighters="attack", count=2), Mount(kind="launch_tube"))
    costing = price(design, PC)
    assert costing.problems == ()
    bay, wings, tube = costing.lines[-3:]
    assert (bay.mass, bay.points) == (12, 36)  # 000 L14852: 6 mass, 3 per mass
    assert wings.points == 48  # 000 L16868: attack fighters 24 per wing
    assert (tube.mass, tube.points) == (3, 9)  # 000 L14870
    ship = build(design, PC)
    assert [s.fighters for s in ship.systems if s.kind == "hangar_bay"] == ["attack", "attack"]
    assert _paths(_ship(Mount(kind="pds", fighters="standard"))) == ["$.systems[0].fighters"]
    assert _paths(_ship(Mount(kind="hangar_bay", fighters="dragon"))) == ["$.systems[0].fighters"]


def test_hangar_without_tube_is_a_warning() -> None:
    costing = price(_ship(Mount(kind="hangar_bay", fighters="standard")), PC)
    assert costing.problems == ()
    assert any("launch tube" in warning for warning in costing.warnings)


def test_nova_cannon_on_capitals_only() -> None:
    # 000 L8120-8122, L8218: 20 mass, 60 points, capital ships only (over mass 90).
    assert _paths(_ship(Mount(kind="nova_cannon"), mass=90)) == ["$.systems[0].kind"]
    costing = price(_ship(Mount(kind="nova_cannon"), mass=91), PC)
    assert costing.problems == ()
    assert (costing.lines[-1].mass, costing.lines[-1].points) == (20, 60)


def test_too_much_mass() -> None:
    design = _ship(Mount(kind="beam5", arcs=("F",), count=4), mass=60)
    problems = price(design, PC).problems
    assert [p.path for p in problems] == ["$.systems"]
    assert "hull allows 60" in problems[0].reason


def test_options_change_the_price() -> None:
    design = _ship(
        Mount(kind="hangar_bay", fighters="standard"),
        Mount(kind="launch_tube"),
        Mount(kind="adfc"),
        Mount(kind="afc"),
        Mount(kind="enhanced_sensors"),
    )
    plain = price(design, PC)
    options = msgspec.structs.replace(
        PC, hangar_critical_rule=True, adfc_massless_over_20=True, afc_points=8, sensor_costs="body"
    )
    varied = price(design, options)
    # Bay 18 -> 12 points (L14854-14856); ADFC 2 -> 0 mass (L7341); AFC 5 -> 8 (L15945);
    # enhanced sensors 2/8 -> 4/24 (13.13).
    assert plain.exact_points - varied.exact_points == 6 - 3 - 16
    assert varied.mass_used - plain.mass_used == -2 + 2


def test_screens_mass_and_backups() -> None:
    # 000 L6838-6844: 5% of mass per level, 3 points per mass; only 2 levels active.
    costing = price(_ship(), PC)
    base = costing.mass_used
    three = price(msgspec.structs.replace(_ship(), screens=3), PC)
    assert three.mass_used - base == 15
    assert any("backups" in warning for warning in three.warnings)
    small = Design(
        name="S", rules="continuum", mass=8, thrust=2, hull_boxes=2, fire_controls=1, screens=1
    )
    assert price(small, PC).lines[-1].mass == 1  # 0.4 rounds to 0, but never below 1
    no_floor = msgspec.structs.replace(PC, screen_min_mass=0)
    assert price(small, no_floor).lines[-1].mass == 0


def test_armour_and_crew() -> None:
    design = msgspec.structs.replace(_ship(), armour=5)
    line = price(design, PC).lines[-1]
    assert (line.mass, line.points) == (5, 10)  # 000 L7074-7084
    merchant = Design(
        name="M",
        rules="continuum",
        hull="merchant",
        mass=101,
        thrust=1,
        hull_boxes=11,
        hull_rows=4,
        fire_controls=1,
    )
    assert build(merchant, PC).crew_factor == 3  # 000 L11338-11342: 1 per 50 mass or part
    assert build(merchant, PC).hull_class == "merchant"


def test_unsupported_hulls_and_unknown_kinds() -> None:
    station = msgspec.structs.replace(_ship(), hull="military_installation")
    assert "$.hull" in _paths(station)
    assert _paths(_ship(Mount(kind="beam_a", arcs=("F",)))) == ["$.systems[0].kind"]


def test_advanced_drives_cost_more() -> None:
    design = msgspec.structs.replace(_ship(), advanced_drive=True, advanced_ftl=True)
    lines = price(design, PC).lines
    assert (lines[2].points, lines[3].points) == (30, 30)  # 10 mass each at 3 per mass
    assert _paths(msgspec.structs.replace(_ship(), thrust=0, advanced_drive=True)) == [
        "$.advanced_drive"
    ]


@pytest.mark.parametrize(
    ("mass", "klass"), [(44, "escort"), (45, "cruiser"), (90, "cruiser"), (91, "capital")]
)
def test_classes(mass: int, klass: str) -> None:
    assert pc_class(mass) == klass  # 000 L14341-14345


def test_weasel_emitters_follow_ft2_by_default() -> None:
    # Index E40: the campaign names "Full Thrust" weasels: 1 mass, 20/40 points (001 L963-967).
    design = _ship(Mount(kind="weasel_cruiser"), Mount(kind="weasel_capital"))
    lines = price(design, PC).lines[-2:]
    assert [(line.mass, line.points) for line in lines] == [(1, 20), (1, 40)]
    pc_costs = msgspec.structs.replace(PC, weasel_costs="continuum")
    lines = price(design, pc_costs).lines[-2:]
    assert [(line.mass, line.points) for line in lines] == [(2, 8), (4, 16)]  # 000 L16055-16057


def test_extra_crew_is_capped_by_crew_factor() -> None:
    # 000 L15112-15122: a mass-100 warship has 5 crew factors, so 5 extra DCPs and marines.
    fits = _ship(Mount(kind="dcp", count=3), Mount(kind="marines", count=2))
    assert price(fits, PC).problems == ()
    assert price(fits, PC).lines[-1].points == 10  # 5 points each, 0 mass (L15094, L15148)
    crowded = _ship(Mount(kind="dcp", count=3), Mount(kind="marines", count=3))
    problems = price(crowded, PC).problems
    assert [p.path for p in problems] == ["$.systems"]
    assert "crew factor, 5" in problems[0].reason
