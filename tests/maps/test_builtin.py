"""The built-in maps: classic and the Lafayette sector."""

from __future__ import annotations

from pathlib import Path

import pytest

from maps import mapfile
from maps.builtin import BUILTIN_MAPS, load_builtin, resolve
from maps.model import Facility, Feature
from maps.starmap import MapError


def test_classic_is_a_four_player_map_with_54_star_hexes() -> None:
    m = load_builtin("classic")
    assert len(m.systems) == 54
    assert len({s.hex for s in m.systems}) == 54
    assert [e.name for e in m.entries] == ["1", "2", "3", "4"]
    assert m.clouds


def test_lafayette_has_the_nine_systems_of_001() -> None:
    m = load_builtin("lafayette")
    assert {s.name for s in m.systems} == {
        "Lafayette",
        "New Toledo",
        "Hudson",
        "Merrill's",
        "Kakisa",
        "Baffin",
        "Rock",
        "VN-459",
        "HR-1306",
    }
    # 001 L1552: six settled systems; the other three hold small bases only.
    assert {s.name for s in m.systems if s.settled} == {
        "Lafayette",
        "Hudson",
        "Merrill's",
        "Kakisa",
        "New Toledo",
        "Baffin",
    }
    # 001 L1602 and L1614: the naval facilities.
    assert set(m.system("New Toledo").facilities) == {Facility.REPAIR, Facility.REPLENISH}
    assert m.system("New Toledo").repair_mass_limit is None
    assert m.system("VN-459").repair_mass_limit == 20
    # 001 L1604-1606: Merrill's asteroid belt, Kakisa's gas giant.
    assert Feature.ASTEROID_FIELD in m.system("Merrill's").features
    assert Feature.GAS_GIANT in m.system("Kakisa").features
    # 001 L1554: the ESU enters at X.
    assert [e.name for e in m.entries] == ["ESU"]
    # The original map was a picture: the file must say the layout is ours.
    assert m.provenance.startswith("designed layout")


def test_lafayette_layout_fits_the_scenario_clock() -> None:
    # 001 L1477: 6 hexes a turn; L1562: taking systems one after another in 7 turns is
    # "theoretically" possible. Lafayette within two turns of X, every settled system
    # within four turns of it.
    m = load_builtin("lafayette")
    x = m.entry("ESU").hex
    lafayette = m.system("Lafayette").hex
    assert x.distance(lafayette) <= 12
    assert all(lafayette.distance(s.hex) <= 24 for s in m.systems if s.settled)
    route = m.route_from_entry("ESU", lafayette, 6)
    assert route is not None
    assert route.turns == 2


def test_builtin_data_files_are_canonical_where_generated() -> None:
    # classic.toml is written by mapfile.dumps; keep it that way so diffs stay readable.
    m = load_builtin("classic")
    text = (Path(__file__).parents[2] / "maps" / "data" / "classic.toml").read_text("utf-8")
    assert mapfile.dumps(m) == text


def test_resolve_takes_a_name_or_a_path(tmp_path: Path) -> None:
    for name in BUILTIN_MAPS:
        assert resolve(name) == load_builtin(name)
    path = tmp_path / "mine.toml"
    mapfile.save(load_builtin("lafayette"), path)
    assert resolve(str(path)) == load_builtin("lafayette")


def test_unknown_names_are_one_clear_error() -> None:
    with pytest.raises(MapError, match=r"no built-in map or file 'atlantis'.*classic, lafayette"):
        resolve("atlantis")
    with pytest.raises(MapError, match="no built-in map 'atlantis'"):
        load_builtin("atlantis")
