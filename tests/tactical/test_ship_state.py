"""Record state: damage to armour and rows, systems, drives, bays; and points properties."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.designs import builtin_ids, load_builtin
from tactical.points import FT2_SYSTEMS, PC_SYSTEMS, build, price, track_rows
from tactical.ship import (
    PRESETS,
    Mount,
    RulesName,
    Ship,
    apply_damage,
    current_thrust,
    fighters_aboard,
    fresh_state,
    hit_drive,
    hull_remaining,
    is_destroyed,
    screen_level,
    with_system_status,
)


def _ship(design_id: str, rules: RulesName = "ft2") -> Ship:
    return build(load_builtin(design_id, rules), PRESETS[rules])


def test_fresh_state() -> None:
    ship = _ship("battledreadnought")
    state = fresh_state(ship)
    assert state.hull_lost == (0, 0, 0, 0)
    assert state.drive == "ok"
    assert state.ftl == "ok"
    assert fighters_aboard(state) == 6
    assert screen_level(ship, state) == 2
    assert current_thrust(ship, state) == 2
    sds = _ship("system_defence_ship")
    assert fresh_state(sds).ftl == "lost"  # non-FTL: the symbol is crossed out (001 L546)


def test_destroyer_damage_example() -> None:
    # 001 L550: 7 damage points in rows of 3 and 4; the threshold comes after 3 damage.
    ship = _ship("destroyer")
    state = fresh_state(ship)
    first = apply_damage(ship, state, 2)
    assert first.rows_completed == ()
    assert first.state.hull_lost == (2, 0)
    second = apply_damage(ship, first.state, 1)
    assert second.rows_completed == (1,)
    last = apply_damage(ship, second.state, 10)
    assert last.to_hull == 4
    assert last.destroyed
    assert last.rows_completed == ()
    assert hull_remaining(ship, last.state) == 0


def test_one_attack_can_cross_several_rows() -> None:
    ship = _ship("battleship")  # rows 6/6/6/6
    result = apply_damage(ship, fresh_state(ship), 13)
    assert result.rows_completed == (1, 2)
    assert result.state.hull_lost == (6, 6, 1, 0)


def test_armour_absorbs_first_unless_bypassed() -> None:
    design = msgspec.structs.replace(
        load_builtin("heavy_cruiser", "continuum"), armour=4, hull_strength=None, hull_boxes=22
    )
    ship = build(design, PRESETS["continuum"])
    state = fresh_state(ship)
    result = apply_damage(ship, state, 6)
    assert (result.to_armour, result.to_hull) == (4, 2)
    assert result.state.armour_lost == 4
    assert result.state.hull_lost == (2, 0, 0, 0)
    reroll = apply_damage(ship, state, 3, armour_first=False)  # 000 L2864-2967
    assert (reroll.to_armour, reroll.to_hull) == (0, 3)
    with pytest.raises(ValueError, match="damage must be >= 0"):
        apply_damage(ship, state, -1)


def test_system_status_and_bays() -> None:
    ship = _ship("light_carrier")
    state = fresh_state(ship)
    assert fighters_aboard(state) == 24
    state = with_system_status(state, "fighter_group-2", "destroyed")
    assert fighters_aboard(state) == 18  # fighters aboard a lost bay are lost (001 L532-534)
    state = with_system_status(state, "screen-1", "damaged")
    assert screen_level(ship, state) == 1
    with pytest.raises(KeyError, match="no system 'warp-1'"):
        with_system_status(state, "warp-1", "destroyed")
    assert ship.system("beam_a-1").arcs == ("P", "F", "S")
    with pytest.raises(KeyError):
        ship.system("warp-1")


def test_drive_halves_then_fails() -> None:
    # 001 L528: the first hit halves the original thrust, the second disables the drive.
    ship = _ship("frigate")
    state = hit_drive(fresh_state(ship))
    assert state.drive == "half"
    assert current_thrust(ship, state) == 3
    state = hit_drive(state)
    assert state.drive == "disabled"
    assert current_thrust(ship, state) == 0
    assert hit_drive(state).drive == "disabled"


def test_half_thrust_rounding() -> None:
    # FT2 floor with a minimum of 1 (digest A9); Continuum floor, thrust 1 fails outright.
    ft2 = msgspec.structs.replace(_ship("frigate"), thrust=1)
    assert current_thrust(ft2, hit_drive(fresh_state(ft2))) == 1
    pc = _ship("heavy_cruiser", "continuum")
    assert current_thrust(pc, hit_drive(fresh_state(pc))) == 2
    slow = msgspec.structs.replace(pc, thrust=1)
    assert current_thrust(slow, hit_drive(fresh_state(slow))) == 0


@given(
    st.sampled_from(builtin_ids()),
    st.lists(st.integers(0, 12), max_size=12),
)
def test_damage_never_overflows(entry: tuple[RulesName, str], hits: list[int]) -> None:
    family, design_id = entry
    ship = build(load_builtin(design_id, family), PRESETS[family])
    state = fresh_state(ship)
    crossed: list[int] = []
    for hit in hits:
        result = apply_damage(ship, state, hit)
        state = result.state
        crossed.extend(result.rows_completed)
        assert all(0 <= lost <= size for lost, size in zip(state.hull_lost, ship.rows, strict=True))
        assert 0 <= state.armour_lost <= ship.armour
        assert result.destroyed == is_destroyed(ship, state)
    # Rows are completed in order, once each, and never the last one.
    assert crossed == sorted(set(crossed))
    assert all(1 <= row < len(ship.rows) for row in crossed)
    total = sum(hits)
    assert sum(state.hull_lost) + state.armour_lost == min(total, ship.hull_boxes + ship.armour)


@given(st.integers(0, 500), st.integers(1, 6), st.booleans())
def test_track_rows_are_even(boxes: int, rows: int, extra_on_top: bool) -> None:
    layout = track_rows(boxes, rows, extra_on_top=extra_on_top)
    assert len(layout) == rows
    assert sum(layout) == boxes
    assert max(layout) - min(layout) <= 1
    assert list(layout) == sorted(layout, reverse=extra_on_top)


@given(
    st.sampled_from(builtin_ids()),
    st.data(),
)
def test_points_grow_with_every_system_added(
    entry: tuple[RulesName, str], data: st.DataObject
) -> None:
    family, design_id = entry
    design = load_builtin(design_id, family)
    preset = PRESETS[family]
    kinds = sorted(FT2_SYSTEMS) if family == "ft2" else sorted(set(PC_SYSTEMS) - {"cargo"})
    kind = data.draw(st.sampled_from(kinds))
    mount = Mount(
        kind=kind,
        count=data.draw(st.integers(1, 3)),
        arcs=("F",),
        loads=data.draw(st.integers(1, 4)) if "magazine" in kind else None,
    )
    before = price(design, preset)
    after = price(msgspec.structs.replace(design, systems=(*design.systems, mount)), preset)
    assert after.exact_points > before.exact_points
    assert after.mass_used >= before.mass_used


@given(st.sampled_from(builtin_ids()), st.integers(1, 3))
def test_points_grow_with_thrust_and_screens(entry: tuple[RulesName, str], more: int) -> None:
    family, design_id = entry
    design = load_builtin(design_id, family)
    preset = PRESETS[family]
    before = price(design, preset).exact_points
    screened = msgspec.structs.replace(design, screens=design.screens + more)
    assert price(screened, preset).exact_points > before
    if design.hull.endswith("installation"):
        return
    faster = msgspec.structs.replace(design, thrust=design.thrust + more)
    assert price(faster, preset).exact_points > before
