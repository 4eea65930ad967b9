"""`umpire battle campaign` and `umpire battle odds`: a campaign battle request from TOML."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from typer.testing import CliRunner

from cli import app
from tactical.battle import BattleSetup, decode_journal
from tactical.campaign_battle import outcome_from_journal

runner = CliRunner()

REQUEST = """
battle = "pursuit"
pursued = "blue"
location = "dense-world"
chosen_by = "red"
key = "turn7/hex12"

[[sides]]
name = "red"
order = "engage"
admiral = 1
ships = [
  {id = "red-W1", design = "light_cruiser"},
  {id = "red-W2", design = "frigate", captain = 3},
]

[[sides]]
name = "blue"
order = "ftl-move"
ships = [{id = "blue-W1", design = "destroyer"}, {id = "blue-W2", design = "frigate"}]
"""


def write(tmp_path: Path, text: str = REQUEST) -> str:
    path = tmp_path / "battle.toml"
    path.write_text(text)
    return str(path)


def test_campaign_battle_prints_the_outcome(tmp_path: Path) -> None:
    file = write(tmp_path)
    result = runner.invoke(app, ["battle", "campaign", file, "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "result after" in result.stdout
    for ship in ("red-W1", "red-W2", "blue-W1", "blue-W2"):
        assert ship in result.stdout
    again = runner.invoke(app, ["battle", "campaign", file, "--seed", "3"])
    assert again.stdout == result.stdout


def test_campaign_battle_json_replays(tmp_path: Path) -> None:
    result = runner.invoke(app, ["battle", "campaign", write(tmp_path), "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    setup = msgspec.convert(data["setup"], BattleSetup)
    outcome = outcome_from_journal(setup, decode_journal(json.dumps(data["journal"])))
    assert [s.fate for s in outcome.ships] == [s["fate"] for s in data["ships"]]
    assert outcome.winner == data["winner"]


def test_campaign_battle_bad_file_exits_2(tmp_path: Path) -> None:
    file = write(tmp_path, REQUEST.replace('order = "ftl-move"', 'order = "flee"'))
    result = runner.invoke(app, ["battle", "campaign", file])
    assert result.exit_code == 2
    assert "$.sides[1].order" in result.stderr
    missing = runner.invoke(app, ["battle", "campaign", str(tmp_path / "none.toml")])
    assert missing.exit_code == 2


def test_campaign_battle_stand_off_against_stand_off_is_refused(tmp_path: Path) -> None:
    """004 L121: Stand Off against Stand Off is no battle; exit 2, nothing fought."""
    text = REQUEST.replace('order = "ftl-move"', 'order = "stand-off"').replace(
        'order = "engage"', 'order = "stand-off"'
    )
    result = runner.invoke(app, ["battle", "campaign", write(tmp_path, text)])
    assert result.exit_code == 2
    assert "stand-off against stand-off is no battle (004 L118-122" in result.stderr
    assert result.stdout == ""


def test_odds_are_stable(tmp_path: Path) -> None:
    file = write(tmp_path)
    args = ["battle", "odds", file, "--runs", "12", "--seed", "4", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["runs"] == 12
    assert [side["side"] for side in data["sides"]] == ["red", "blue"]
    assert abs(sum(side["wins"] for side in data["sides"]) + data["draws"] - 1.0) < 1e-9
    assert runner.invoke(app, args).stdout == first.stdout
    text = runner.invoke(
        app, ["battle", "odds", file, "--runs", "30", "--seed", "4"], env={"COLUMNS": "80"}
    )
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("30 battles from seed 4")
    assert "Points lost" in text.stdout
    assert "draws " in text.stdout


def test_odds_of_a_request_take_no_commander(tmp_path: Path) -> None:
    result = runner.invoke(app, ["battle", "odds", write(tmp_path), "--commander", "engage"])
    assert result.exit_code == 2
    assert "fight under their orders" in result.stderr
