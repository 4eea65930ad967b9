"""`umpire map ...`: thin commands, one-line errors, exit code 2 for user mistakes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from cli import app
from maps import mapfile
from maps.builtin import load_builtin

runner = CliRunner()


def test_show_draws_lafayette_and_classic() -> None:
    for name, system in (("lafayette", "New Toledo"), ("classic", "Deneb")):
        result = runner.invoke(app, ["map", "show", "--map", name])
        assert result.exit_code == 0, result.output
        assert system in result.stdout
        assert "Star systems" in result.stdout


def test_show_as_player_takes_the_campaigns_map_not_a_map_option() -> None:
    result = runner.invoke(
        app, ["map", "show", "--map", "lafayette", "--as-player", "red", "--db", "nowhere.db"]
    )
    assert result.exit_code == 2
    assert "leave out --map" in result.stderr


def test_unknown_map_is_one_line_on_stderr_and_exit_2() -> None:
    result = runner.invoke(app, ["map", "show", "--map", "atlantis"])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("umpire: error: no built-in map or file 'atlantis'")
    assert "Traceback" not in result.output


def test_generate_is_reproducible_and_loads(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    for out in (a, b):
        result = runner.invoke(
            app, ["map", "generate", "--seed", "42", "--players", "3", "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
    assert a.read_bytes() == b.read_bytes()
    m = mapfile.load(a)
    assert len(m.entries) == 3
    assert len(m.systems) == 42
    result = runner.invoke(app, ["map", "show", "--map", str(a)])
    assert result.exit_code == 0


def test_generate_refuses_bad_options_in_one_line(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["map", "generate", "--seed", "1", "--players", "9", "--out", str(tmp_path / "x")]
    )
    assert result.exit_code == 2
    assert result.stderr.strip() == "umpire: error: players must be 2..8, got 9"


def test_export_svg(tmp_path: Path) -> None:
    out = tmp_path / "laf.svg"
    result = runner.invoke(app, ["map", "export", "--svg", str(out), "--map", "lafayette"])
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_bytes())
    assert root.tag.endswith("svg")


def test_validate_reports_field_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    text = mapfile.dumps(load_builtin("lafayette"))
    bad.write_text(text.replace('colour = "white"', 'colour = "green"'), encoding="utf-8")
    result = runner.invoke(app, ["map", "validate", str(bad)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "Invalid enum value 'green'" in lines[0]
    assert "line " in lines[0]
    assert "$.systems[" in lines[0]
    good = tmp_path / "good.toml"
    good.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["map", "validate", str(good)])
    assert result.exit_code == 0
    assert result.stdout.startswith("OK: <StarMap 'lafayette'")
