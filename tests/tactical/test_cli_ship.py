"""`umpire ship list|show|cost`: thin commands, one line per user error, exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli import app
from tactical.designs import format_design, load_builtin

runner = CliRunner()


def test_ship_show_prints_the_record_sheet() -> None:
    result = runner.invoke(app, ["ship", "show", "frigate"])
    assert result.exit_code == 0, result.output
    assert "Frigate" in result.stdout
    assert "75 points" in result.stdout  # the Continuum frigate, the campaign default
    assert "row 2" in result.stdout


def test_ship_show_preset_picks_the_rules() -> None:
    ft2 = runner.invoke(app, ["ship", "show", "heavy_cruiser", "--preset", "ft2", "--json"])
    assert ft2.exit_code == 0, ft2.output
    data = json.loads(ft2.stdout)
    assert data["ship"]["points"] == 238
    assert data["ship"]["rules"] == "ft2"
    assert data["state"]["hull_lost"] == [0, 0, 0]
    default = json.loads(runner.invoke(app, ["ship", "show", "heavy_cruiser", "--json"]).stdout)
    assert default["ship"]["points"] == 294


def test_ship_show_unknown_name_is_one_line() -> None:
    result = runner.invoke(app, ["ship", "show", "nonesuch"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "umpire: error: no built-in design 'nonesuch'; `umpire ship list` shows them"
    ]
    assert "Traceback" not in result.output


def test_ship_show_unknown_preset() -> None:
    result = runner.invoke(app, ["ship", "show", "frigate", "--preset", "ft3"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "umpire: error: no preset 'ft3'; presets are continuum, ft2"


def test_ship_list() -> None:
    result = runner.invoke(app, ["ship", "list", "--json"])
    assert result.exit_code == 0, result.output
    listed = {
        (row["ship"]["rules"], row["id"]): row["ship"]["points"]
        for row in json.loads(result.stdout)
    }
    assert listed[("ft2", "battleship")] == 447
    assert listed[("continuum", "heavy_cruiser")] == 294
    assert "superdreadnought" in runner.invoke(app, ["ship", "list"]).stdout


def test_ship_cost_prices_a_file(tmp_path: Path) -> None:
    path = tmp_path / "destroyer.toml"
    path.write_text(format_design(load_builtin("destroyer", "ft2")), encoding="utf-8")
    result = runner.invoke(app, ["ship", "cost", str(path)])
    assert result.exit_code == 0, result.output
    assert "92 points" in result.stdout
    as_json = json.loads(runner.invoke(app, ["ship", "cost", str(path), "--json"]).stdout)
    assert as_json["points"] == 92
    assert as_json["problems"] == []


def test_ship_cost_reports_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        'name = "Bad"\nrules = "ft2"\nmass = 10\nthrust = 9\nscreens = 4\n'
        '[[systems]]\nkind = "beam_b"\narcs = ["P", "S"]\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["ship", "cost", str(path)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert [line.split(": ")[3] for line in lines] == [
        "$.thrust",
        "$.screens",
        "$.systems[0].arcs",
        "$.systems",
    ]
    assert all(line.startswith(f"umpire: error: {path}: ") for line in lines)
    assert "001 L1288" in lines[0]
    assert result.stdout == ""


def test_ship_cost_decode_error_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "typo.toml"
    path.write_text(
        'name = "T"\nrules = "ft2"\nmass = 10\nthrust = 6\narmor = 1\n', encoding="utf-8"
    )
    result = runner.invoke(app, ["ship", "cost", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"umpire: error: {path}: $: Object contains unknown field `armor`"
    )


def test_ship_cost_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ship", "cost", str(tmp_path / "none.toml")])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr
    assert "Traceback" not in result.output


def test_ship_list_shows_one_rules_catalogue() -> None:
    """Issue 15: the campaign's Continuum catalogue, escorts to superdreadnoughts."""
    result = runner.invoke(app, ["ship", "list", "--rules", "continuum"])
    assert result.exit_code == 0, result.output
    assert "superdreadnought" in result.stdout
    assert "fleet_tender" in result.stdout
    assert " ft2 " not in result.stdout
    bad = runner.invoke(app, ["ship", "list", "--rules", "ft3"])
    assert bad.exit_code == 2
    assert "--rules 'ft3' must be continuum or ft2" in bad.stderr
