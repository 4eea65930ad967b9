"""`umpire battle demo` and `umpire battle fight`: the same seed gives the same battle."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cli import app
from tactical.battle import decode_journal, replay
from tactical.notation import parse_position
from tactical.scenarios import grendel
from tactical.summary import describe

runner = CliRunner()
GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    """Compare with a golden file; UPDATE_GOLDEN=1 rewrites it (review the diff)."""
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}: run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def test_battle_demo_tells_the_battle() -> None:
    result = runner.invoke(app, ["battle", "demo", "--seed", "3"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "turn 1: nac writes orders"
    assert "the battle is over" in result.stdout
    assert lines[-1].startswith("final position: ft2 ")
    again = runner.invoke(app, ["battle", "demo", "--seed", "3"])
    assert again.stdout == result.stdout


def test_battle_demo_json_replays() -> None:
    result = runner.invoke(app, ["battle", "demo", "--seed", "5", "--turns", "6", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    journal = decode_journal(json.dumps(data["journal"]))
    state = replay(grendel(6), journal)
    assert parse_position(data["final"]) == ("ft2", state)
    assert all(isinstance(line, str) for event in journal for line in describe(event))


def test_battle_demo_unknown_scenario_is_one_line() -> None:
    result = runner.invoke(app, ["battle", "demo", "nope"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "umpire: error: no built-in scenario 'nope'; scenarios are grendel, lite, skirmish, spatial"
    ]


def test_battle_fight_a_setup_file(tmp_path: Path) -> None:
    path = tmp_path / "duel.toml"
    path.write_text(
        'sides = ["red", "blue"]\nturn_limit = 6\n\n'
        '[[ships]]\nid = "r1"\nside = "red"\ndesign = "destroyer"\nx = 0.0\ny = 0.0\n'
        "course = 12\nspeed = 4\n\n"
        '[[ships]]\nid = "b1"\nside = "blue"\ndesign = "frigate"\nx = 0.0\ny = 30.0\n'
        "course = 6\nspeed = 4\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["battle", "fight", str(path), "--seed", "9"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("result after ")
    assert "the battle is over" not in result.stdout  # the journal only with --watch
    watched = runner.invoke(app, ["battle", "fight", str(path), "--seed", "9", "--watch"])
    assert watched.exit_code == 0, watched.output
    assert "the battle is over" in watched.stdout
    assert watched.stdout.count("turn 1 ─") == 1


def test_battle_fight_grendel_reaches_a_result() -> None:
    result = runner.invoke(app, ["battle", "fight", "grendel", "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["journal"][-1]["type"] == "turn_ended"
    assert data["journal"][-1]["over"]


def test_battle_fight_reports_every_setup_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        'sides = ["a", "a"]\n[[ships]]\nid = "x"\nside = "b"\ndesign = "nonesuch"\n'
        "x = 0.0\ny = 0.0\ncourse = 1\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["battle", "fight", str(path)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0] == f"umpire: error: {path}: $.sides: the two sides ('a', 'a') must differ"
    assert lines[1] == f"umpire: error: {path}: $.ships[0].side: 'b' is not one of ('a', 'a')"
    assert lines[2].startswith(f"umpire: error: {path}: $.ships[0].design: no built-in design")
    missing = runner.invoke(app, ["battle", "fight", str(tmp_path / "none.toml")])
    assert missing.exit_code == 2
    assert "cannot read" in missing.stderr


def test_battle_fight_with_engage_commanders_fires_the_nova_cannon(tmp_path: Path) -> None:
    """The closing commander never arms a nova cannon (001 L908); Engage does."""
    path = tmp_path / "nova.toml"
    path.write_text(
        'sides = ["red", "blue"]\nturn_limit = 2\nrules = "ft2"\n\n'
        '[[ships]]\nid = "n1"\nside = "red"\ndesign = "nova_dreadnought"\nx = 0.0\ny = 0.0\n'
        "course = 12\nspeed = 0\n\n"
        '[[ships]]\nid = "b1"\nside = "blue"\ndesign = "battleship"\nx = 0.0\ny = 16.0\n'
        "course = 6\nspeed = 0\n",
        encoding="utf-8",
    )
    fights = {
        commander: runner.invoke(
            app,
            ["battle", "fight", str(path), "--seed", "4", "--commander", commander, "--watch"],
        )
        for commander in ("closing", "engage")
    }
    assert all(result.exit_code == 0 for result in fights.values())
    assert "n1's nova template (stage 1)" in fights["engage"].stdout
    assert "nova template" not in fights["closing"].stdout
    unknown = runner.invoke(app, ["battle", "fight", str(path), "--commander", "timid"])
    assert unknown.exit_code == 2
    assert unknown.stderr.strip() == (
        "umpire: error: --commander 'timid': no commander 'timid'; "
        "use closing, engage, stand-off, ftl-move"
    )
    no_side = runner.invoke(app, ["battle", "fight", str(path), "--commander", "green=engage"])
    assert no_side.exit_code == 2
    assert no_side.stderr.strip() == (
        "umpire: error: --commander 'green=engage': no side 'green'; sides are red, blue"
    )


def test_battle_fight_watch_shows_a_ram(tmp_path: Path) -> None:
    """Engage rams with a frigate whose beams are gone (001 L977-995); --watch tells it."""
    path = tmp_path / "ram.toml"
    systems = ", ".join(
        f'{{id = "{name}", status = "{"destroyed" if name.startswith("beam") else "ok"}"}}'
        for name in ("firecon-1", "beam_b-1", "beam_c-1", "pdaf-1", "pdaf-2")
    )
    path.write_text(
        'sides = ["red", "blue"]\nturn_limit = 1\nram_on = {red = 1}\n\n'
        '[[ships]]\nid = "r1"\nside = "red"\ndesign = "frigate"\nx = 0.0\ny = 0.0\n'
        f'course = 12\nspeed = 4\nstate = {{ship_id = "r1", hull_lost = [0, 0], '
        f"systems = [{systems}]}}\n\n"
        '[[ships]]\nid = "b1"\nside = "blue"\ndesign = "destroyer"\nx = 0.0\ny = 10.0\n'
        "course = 6\nspeed = 4\n",
        encoding="utf-8",
    )
    args = ["battle", "fight", str(path), "--seed", "1", "--commander", "engage", "--watch"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "    r1 +2Rb1 to " in result.stdout  # its order: speed up and ram
    assert "    r1 rams b1 at " in result.stdout


def test_battle_fight_one_commander_per_side(tmp_path: Path) -> None:
    """SIDE=NAME puts a commander on one side: Engage fires the nova cannon for red only."""
    args = ["battle", "fight", "grendel", "--seed", "3", "--json"]
    mixed = runner.invoke(app, [*args, "--commander", "nac=engage", "--commander", "esu=stand-off"])
    both = runner.invoke(app, [*args, "--commander", "engage"])
    assert (mixed.exit_code, both.exit_code) == (0, 0), mixed.output + both.output
    assert json.loads(mixed.stdout)["journal"] != json.loads(both.stdout)["journal"]


def test_battle_fight_output_is_golden() -> None:
    """The result table and the turn-by-turn view of grendel, seed 2 (80 columns)."""
    for args, name in (([], "fight_grendel_2.txt"), (["--watch"], "fight_grendel_2_watch.txt")):
        result = runner.invoke(
            app, ["battle", "fight", "grendel", "--seed", "2", *args], env={"COLUMNS": "80"}
        )
        assert result.exit_code == 0, result.output
        check_golden(name, result.stdout)


def test_the_battle_help_names_every_built_in_scenario() -> None:
    """`umpire battle fight|odds|demo --help` list the scenarios a player may fight."""
    import cli
    from tactical.scenarios import SCENARIOS

    for name in SCENARIOS:
        assert re.search(rf"\b{name}\b", cli.SCENARIO_NAMES), name


def test_every_commands_help_keeps_its_sentences_whole() -> None:
    """A command's help never breaks a sentence where its docstring's source line ended:
    typer prints a docstring's line breaks as they are."""
    import typer

    def commands(command: Any) -> list[Any]:
        found = [command]
        for sub in getattr(command, "commands", {}).values():  # a group's
            found += commands(sub)
        return found

    every = commands(typer.main.get_command(app))
    assert len(every) > 50
    for command in every:
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (command.name, paragraph)
    result = runner.invoke(app, ["encounters", "--help"], env={"COLUMNS": "200"})
    assert "with the long-range scans, and the battles awaiting an outcome." in result.stdout


def test_a_fought_battle_replays_from_its_json_as_it_was_fought(tmp_path: Path) -> None:
    """`umpire battle replay` reads what `battle fight --json` printed and shows the battle
    exactly as `battle fight` did (with --watch too); a journal that does not end at its
    written final position is one line and exit 1; a file that is not a battle exit 2."""
    for scenario in ("spatial", "lite"):
        fought = runner.invoke(app, ["battle", "fight", scenario, "--seed", "3", "--json"])
        path = tmp_path / f"{scenario}.json"
        path.write_text(fought.stdout)
        for watch in ([], ["--watch"]):
            shown = runner.invoke(app, ["battle", "fight", scenario, "--seed", "3", *watch])
            replayed = runner.invoke(app, ["battle", "replay", str(path), *watch])
            assert replayed.exit_code == 0, replayed.output
            assert replayed.stdout == shown.stdout
    data = json.loads((tmp_path / "spatial.json").read_text())
    data["final"] = data["final"].replace(" over ", " orders ")
    (tmp_path / "moved.json").write_text(json.dumps(data))
    moved = runner.invoke(app, ["battle", "replay", str(tmp_path / "moved.json")])
    assert moved.exit_code == 1
    assert moved.stderr == (
        f"umpire: error: {tmp_path / 'moved.json'}: the journal replays to another final position\n"
    )
    (tmp_path / "setup.json").write_text("{}")
    wrong = runner.invoke(app, ["battle", "replay", str(tmp_path / "setup.json")])
    assert wrong.exit_code == 2
    assert "not a fought battle; give what `umpire battle fight --json` printed" in wrong.stderr


def test_a_battle_files_value_off_its_choices_names_them(tmp_path: Path) -> None:
    """A set-up's or a campaign request's value not among a field's choices is one line with
    its path and the values that would do, exit 2."""
    setup = tmp_path / "setup.toml"
    setup.write_text('sides = ["red", "blue"]\nmovement = "warp"\n')
    request = tmp_path / "request.toml"
    request.write_text(
        '[[sides]]\nname = "red"\norder = "charge"\nships = [{id = "r1", design = "frigate"}]\n'
        '[[sides]]\nname = "blue"\norder = "engage"\nships = [{id = "b1", design = "frigate"}]\n'
    )
    for command, path, told in (
        ("fight", setup, "$.movement: Invalid enum value 'warp'; choose cinematic, spatial "
         "or vector"),
        ("campaign", request, "$.sides[0].order: Invalid enum value 'charge'; choose engage, "
         "ftl-move or stand-off"),
    ):  # fmt: skip
        result = runner.invoke(app, ["battle", command, str(path)], env={"COLUMNS": "300"})
        assert result.exit_code == 2
        assert result.stderr == f"umpire: error: {path}: {told}\n"
