"""Advanced sensors' aft fire for every weapon that fires at a ship, not beams alone (000 13.13,
L15249-15267 enhanced, L15339-15351 superior): "Any weapons fired through the Aft arc are
limited to a range of 24 MU and will only cause a hit on a die roll of 6", or with superior
sensors "limited to a range of 36 MU and are at -1 to hit". The beams' own tests are in
test_ecm.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    ShipSetup,
    Shot,
    context,
    fire_options,
    initial_state,
    side_view,
)
from tactical.commanders import COMMANDER_NAMES, named_commander
from tactical.dice import ScriptedDice
from tactical.fire import ENHANCED_AFT, SUPERIOR_AFT, die_hits
from tactical.phases.fire import ShipFired, launch_problem
from tests.tactical import extra_designs

SENSORS = {"none": "", "enhanced": "enhanced_sensors", "superior": "superior_sensors"}

# One weapon through the aft arc alone, and the sensors named: (kind, arcs, extra TOML).
WEAPONS: dict[str, tuple[str, list[str], str]] = {
    "torpedo": ("pulse_torpedo", ["A"], ""),
    "torpedo_lr": ("pulse_torpedo_lr", ["A"], ""),
    "needle": ("needle", ["A"], ""),
    "needle2": ("needle2", ["A"], ""),
    "submunition": ("submunition", ["A"], ""),
    "boarding": (
        "boarding_torpedo",
        ["A"],
        '\n[[systems]]\nkind = "boarding_magazine"\nloads = 2\n',
    ),
    "missiles": ("heavy_missile", ["AP", "A", "AS"], ""),
}


def _design(weapon: str, sensors: str) -> str:
    kind, arcs, extra = WEAPONS[weapon]
    sensor = f'\n[[systems]]\nkind = "{SENSORS[sensors]}"\n' if SENSORS[sensors] else ""
    return f"""
name = "Aft {weapon} {sensors}"
rules = "continuum"
provenance = "test design: one {kind} through the aft arc, sensors: {sensors}"
mass = 60
thrust = 2
hull_strength = "average"
fire_controls = 1
{sensor}
[[systems]]
kind = "{kind}"
arcs = {arcs!r}
{extra}""".replace("'", '"')


TEST_DESIGNS = {
    f"aft_{weapon}_{sensors}": _design(weapon, sensors) for weapon in WEAPONS for sensors in SENSORS
}
TEST_DESIGNS["aft_target"] = """
name = "Aft Target"
rules = "continuum"
provenance = "test design: a hull to shoot at, no armour, no screens"
mass = 60
thrust = 2
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "pds"
"""


@pytest.fixture(autouse=True)
def _test_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _setup(firer: str, distance: float) -> BattleSetup:
    """``r1`` at the origin, course 12, and the target ``b1`` dead astern at ``distance``."""
    ships = (
        ShipSetup(id="r1", side="red", design=firer, x=0, y=0, course=12, speed=0),
        ShipSetup(id="b1", side="blue", design="aft_target", x=0, y=-distance, course=12, speed=0),
    )
    return BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum")


def _reaches(firer: str, distance: float) -> bool:
    ctx = context(_setup(firer, distance))
    return any("b1" in targets for targets in fire_options(ctx, initial_state(ctx), "r1").values())


@pytest.mark.parametrize(
    ("weapon", "distance"),
    [("torpedo", 20), ("needle", 9), ("needle2", 20), ("submunition", 10), ("boarding", 20)],
)
def test_every_weapon_fires_aft_only_with_advanced_sensors(weapon: str, distance: float) -> None:
    # 000 L2591-2601: "No ship may fire offensive weaponry through its aft arc ... Advanced
    # Sensors may mitigate this"; L15257-15259: "Any weapons fired through the Aft arc are
    # limited to a range of 24 MU" with enhanced sensors, L15347-15349 36 MU with superior.
    assert not _reaches(f"aft_{weapon}_none", distance)
    assert _reaches(f"aft_{weapon}_enhanced", distance)
    assert _reaches(f"aft_{weapon}_superior", distance)


def test_aft_reach_is_the_sensors_not_the_weapons() -> None:
    # A standard torpedo reaches 30 MU (000 L20336-20362), aft with enhanced sensors 24 MU
    # only (L15257-15259); a long range torpedo 45 MU (L20368-20397), aft with superior sensors
    # 36 MU (L15347-15349).
    assert _reaches("aft_torpedo_enhanced", 24)
    assert not _reaches("aft_torpedo_enhanced", 25)
    assert _reaches("aft_torpedo_lr_superior", 36)
    assert not _reaches("aft_torpedo_lr_superior", 37)


def _fire(firer: str, distance: float, faces: list[int], aim: str | None = None) -> ShipFired:
    battle = Battle(_setup(firer, distance))
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    sheet = battle.ctx.sheets["r1"]
    kinds = {kind for kind, _arcs, _extra in WEAPONS.values()}
    weapon = next(s.id for s in sheet.systems if s.kind in kinds)
    battle.fire("r1", [Shot(weapon, "b1", aim)], ScriptedDice([*faces, *[1] * 20]))
    event = battle.journal[-1]
    assert isinstance(event, ShipFired)
    return event


def _damage(event: ShipFired) -> int:
    return sum(hit.damage for hit in event.hits)


def test_enhanced_sensors_torpedo_hits_only_on_a_6() -> None:
    # 000 L15259-15261: aft, "will only cause a hit on a die roll of 6". At 10 MU a torpedo
    # needs 3+ (the standard row, 000 L20336-20362): a 5 misses, a 6 hits for its damage die.
    assert _fire("aft_torpedo_enhanced", 10, [5]).shots[0].damage == ()
    hit = _fire("aft_torpedo_enhanced", 10, [6, 4])
    assert hit.shots[0].damage == (4,)
    assert _damage(hit) == 4


def test_superior_sensors_torpedo_is_at_minus_1_to_hit() -> None:
    # 000 L15347-15349: aft, "at -1 to hit". A long range torpedo at 10 MU needs 3+ (its row
    # of 9 MU bands, 000 L20368-20397): a 3 reads 2 and misses, a 4 reads 3 and hits.
    assert _fire("aft_torpedo_lr_superior", 10, [3]).shots[0].damage == ()
    assert _fire("aft_torpedo_lr_superior", 10, [4, 5]).shots[0].damage == (5,)
    # At 36 MU it needs 5+: a 5 reads 4 and misses, a 6 reads 5 and hits.
    assert _fire("aft_torpedo_lr_superior", 36, [5]).shots[0].damage == ()
    assert _fire("aft_torpedo_lr_superior", 36, [6, 2]).shots[0].damage == (2,)
    # A standard torpedo at 30 MU needs a 6 (000 L20336-20362): aft at -1 even a 6 misses, as
    # "A DRM can result in automatic hits or misses" (000 L501-513).
    assert _fire("aft_torpedo_superior", 30, [6]).shots[0].damage == ()


def test_class_n_needle_aft_hits_as_the_sensors_allow() -> None:
    # An NB-2 scores a point on 4+ and kills its aim on a natural 6 (000 L4574-4580). Aft with
    # enhanced sensors only the 6 hits (L15259-15261): 4 and 6 score 1 and kill the PDS.
    event = _fire("aft_needle2_enhanced", 10, [4, 6], aim="pds-1")
    assert _damage(event) == 1
    # With superior sensors at -1 (L15349): 4 reads 3, 5 reads 4: one point, and no natural 6.
    assert _damage(_fire("aft_needle2_superior", 10, [4, 5], aim="pds-1")) == 1


def test_needle_aft_grazes_only_on_a_hit() -> None:
    # The NB-1 (FB1's needle) does a point on 5+ under ``needle_hull`` and kills on a 6 (index
    # 5.13). Aft with enhanced sensors a 5 is no hit (000 L15259-15261).
    assert _damage(_fire("aft_needle_enhanced", 9, [5], aim="pds-1")) == 0
    assert _damage(_fire("aft_needle_enhanced", 9, [6], aim="pds-1")) == 1


def test_submunition_pack_aft_is_penetrating_like_a_beam() -> None:
    # 000 L4820-4824: 3 BD* to 6 MU, re-rolling 6s. Aft with enhanced sensors "Weapons that
    # are penetrating will re-roll their hits but will only inflict one point of damage on a 5
    # and two points on a 6 (with another re-roll)" (L15261-15265): 4, 5, 6 score 0 + 1 + 2,
    # the 6's re-roll a 5 for 1 more.
    assert _damage(_fire("aft_submunition_enhanced", 5, [4, 5, 6, 5])) == 4


def test_boarding_torpedo_aft_hits_only_on_a_6() -> None:
    # The boarding torpedo rolls on the projectile table's standard row (000 L5118-5122):
    # aft with enhanced sensors, a 6 only (L15259-15261).
    assert _fire("aft_boarding_enhanced", 10, [5]).landed == ()
    assert _fire("aft_boarding_enhanced", 10, [6]).landed != ()


def test_missiles_are_not_launched_aft_even_with_sensors() -> None:
    # 000 L5743-5757: a missile is launched at a point "within the boundaries of the fire
    # arcs"; the sensors' "hit on a die roll of 6" has no die to read in a missile attack, and
    # the aft launch stays barred (docs/rulings.md, "Tactical: ECM and advanced sensors").
    ctx = context(_setup("aft_missiles_superior", 20))
    state = initial_state(ctx)
    launcher = next(s.id for s in ctx.sheets["r1"].systems if s.kind == "heavy_missile")
    assert launch_problem(ctx, state, "r1", launcher, "0,-10") is not None
    assert launch_problem(ctx, state, "r1", launcher, "8,-6") is None  # the AS arc


def test_a_refused_aft_shot_says_why() -> None:
    battle = Battle(_setup("aft_torpedo_enhanced", 25))
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    with pytest.raises(IllegalActionError, match=r"aft arc.*24 MU"):
        battle.fire("r1", [Shot("pulse_torpedo-1", "b1")], ScriptedDice([6]))


@pytest.mark.parametrize("name", COMMANDER_NAMES)
def test_commanders_fire_aft_where_the_sensors_allow(name: str) -> None:
    # The commanders choose among the fire step's options (docs/rulings.md, "Tactical: ECM and
    # advanced sensors"): an enemy astern within the sensors' reach draws the aft torpedo.
    battle = Battle(_setup("aft_torpedo_enhanced", 10))
    for side in ("red", "blue"):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))
    ship_id, shots = named_commander(name).fire(*side_view(battle.ctx, battle.state, "red"), "red")
    assert (ship_id, shots) == ("r1", [Shot("pulse_torpedo-1", "b1")])


@given(face=st.integers(1, 6), need=st.integers(2, 6))
def test_the_sensors_never_hit_better_aft_than_forward(face: int, need: int) -> None:
    # 000 L15249-15253: the sensors let a ship fire aft "to some degree": with either sensors
    # a die that hits aft hits forward too, and a 6 that hits forward hits aft with enhanced.
    for sight in (ENHANCED_AFT, SUPERIOR_AFT):
        assert not die_hits(face, need, sight) or die_hits(face, need)
    assert die_hits(6, need, ENHANCED_AFT)
