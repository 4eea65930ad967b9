"""`umpire battle demo`: a seeded battle told turn by turn; the same seed, the same battle."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app
from tactical.battle import decode_journal, replay
from tactical.notation import parse_position
from tactical.scenarios import grendel
from tactical.summary import describe

runner = CliRunner()


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
        "umpire: error: no built-in scenario 'nope'; scenarios are grendel"
    ]
