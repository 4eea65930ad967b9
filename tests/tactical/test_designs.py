"""Design files: decoding with field paths, the canonical TOML writer, built-ins."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from tactical.designs import (
    DesignFileError,
    UnknownDesignError,
    UnknownPresetError,
    builtin_ids,
    builtin_ships,
    cost_design_file,
    decode_design,
    format_design,
    load_builtin,
    preset_named,
    read_design_file,
    show_builtin,
)
from tactical.ship import Design, Mount

from .strategies import designs

MINIMAL = 'name = "X"\nrules = "ft2"\nmass = 10\nthrust = 6\n'


def _problem(text: str) -> tuple[str, str]:
    with pytest.raises(DesignFileError) as caught:
        decode_design(text, "x.toml")
    (problem,) = caught.value.problems
    return problem.path, problem.reason


def test_minimal_design_and_defaults() -> None:
    design = decode_design(MINIMAL)
    assert design == Design(name="X", rules="ft2", mass=10, thrust=6)
    assert design.ftl is True
    assert design.hull == "warship"
    assert design.systems == ()


def test_unknown_field_is_named() -> None:
    assert _problem(MINIMAL + "armor = 2\n") == ("$", "Object contains unknown field `armor`")
    text = MINIMAL + '[[systems]]\nkind = "pdaf"\narc = ["F"]\n'
    assert _problem(text) == ("$.systems[0]", "Object contains unknown field `arc`")


def test_wrong_type_and_range_are_named() -> None:
    text = MINIMAL + '[[systems]]\nkind = "pdaf"\n\n[[systems]]\nkind = "pdaf"\ncount = "two"\n'
    assert _problem(text) == ("$.systems[1].count", "Expected `int`, got `str`")
    assert _problem(MINIMAL.replace("mass = 10", "mass = 0")) == ("$.mass", "Expected `int` >= 1")
    path, reason = _problem(MINIMAL.replace('"ft2"', '"ft3"'))
    assert path == "$.rules"
    assert "ft3" in reason


def test_missing_field_and_bad_toml() -> None:
    assert _problem(MINIMAL.replace("thrust = 6\n", "")) == (
        "$",
        "Object missing required field `thrust`",
    )
    path, reason = _problem('name = "X\n')
    assert path == "$"
    assert reason.startswith("not valid TOML")


def test_read_design_file(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(MINIMAL, encoding="utf-8")
    assert read_design_file(good).name == "X"
    with pytest.raises(DesignFileError) as caught:
        read_design_file(tmp_path / "missing.toml")
    assert "cannot read" in caught.value.problems[0].reason
    assert "missing.toml" in str(caught.value)


def test_format_writes_readable_toml() -> None:
    design = Design(
        name='The "Best" Ship',
        rules="ft2",
        mass=10,
        thrust=6,
        ftl=False,
        systems=(Mount(kind="beam_b", arcs=("P", "F", "S")), Mount(kind="pdaf", count=2)),
    )
    assert format_design(design) == (
        'name = "The \\"Best\\" Ship"\n'
        'rules = "ft2"\n'
        "mass = 10\n"
        "thrust = 6\n"
        "ftl = false\n"
        "\n"
        "[[systems]]\n"
        'kind = "beam_b"\n'
        'arcs = ["P", "F", "S"]\n'
        "\n"
        "[[systems]]\n"
        'kind = "pdaf"\n'
        "count = 2\n"
    )


@given(designs())
def test_format_round_trips(design: Design) -> None:
    assert decode_design(format_design(design)) == design


def test_builtin_files_are_canonical() -> None:
    # Every shipped file is exactly what format_design writes, so files stay uniform.
    for family, design_id in builtin_ids():
        design = load_builtin(design_id, family)
        path = (
            Path(__file__).parents[2] / "tactical" / "data" / "ships" / family / f"{design_id}.toml"
        )
        assert path.read_text(encoding="utf-8") == format_design(design), path


def test_builtin_lookup_prefers_the_campaign_default() -> None:
    assert load_builtin("heavy_cruiser").rules == "continuum"
    assert load_builtin("heavy_cruiser", "ft2").rules == "ft2"
    assert load_builtin("frigate").rules == "continuum"  # the campaign's catalogue (issue 15)
    assert load_builtin("courier").rules == "ft2"  # falls back to FT2
    with pytest.raises(UnknownDesignError, match="no built-in design 'courier' under continuum"):
        load_builtin("courier", "continuum")
    with pytest.raises(UnknownDesignError, match="umpire ship list"):
        load_builtin("nonesuch")


def test_services() -> None:
    assert show_builtin("frigate").points == 75
    assert show_builtin("frigate", "ft2").points == 65
    assert show_builtin("heavy_cruiser").points == 294
    assert show_builtin("heavy_cruiser", "ft2").points == 238
    with pytest.raises(UnknownPresetError, match="presets are continuum, ft2"):
        preset_named("ft3")
    ships = dict(builtin_ships("ft2"))
    assert ships["battleship"].points == 447
    assert "heavy_cruiser" in dict(builtin_ships("continuum"))


def test_cost_design_file(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    path.write_text(format_design(load_builtin("frigate", "ft2")), encoding="utf-8")
    assert cost_design_file(path).points == 65
    assert cost_design_file(path, "continuum").problems[0].path == "$.rules"
