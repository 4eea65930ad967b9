"""The `umpire` command as a user meets it: the done-when flow, and one-line errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign.strategic import Unit
from cli import app
from tests.conftest import reset_postgres

runner = CliRunner()


def umpire(*args: str, db: Path | str, code: int = 0) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def test_done_when_flow(tmp_path: Path) -> None:
    """`umpire new demo && umpire log && umpire verify && umpire rewind --to-turn 0`."""
    db = tmp_path / "umpire.db"
    assert "Campaign demo created" in umpire("new", "demo", "--players", "red,blue", db=db)
    assert "campaign_created" in umpire("log", db=db)
    assert "OK" in umpire("verify", db=db)
    assert "main-t0" in umpire("rewind", "--to-turn", "0", db=db)
    assert "* │ main-t0" in umpire("branches", db=db)
    assert "turn               0 of 44" in umpire("status", db=db)


def test_done_when_flow_on_postgresql(pg_url: str) -> None:
    reset_postgres(pg_url)
    assert "Campaign demo created" in umpire("new", "demo", "--players", "red,blue", db=pg_url)
    assert "campaign_created" in umpire("log", db=pg_url)
    assert "OK" in umpire("verify", db=pg_url)
    assert "main-t0" in umpire("rewind", "--to-turn", "0", db=pg_url)
    assert "version 1" in umpire("state", "--at-version", "1", db=pg_url)


def test_json_outputs_are_machine_readable(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "demo", "--players", "red,blue", "--seed", "7", db=db)
    umpire("roll", "2d6", "--reason", "storm", "--to", "red", db=db)
    umpire("turn", "end", db=db)
    log = json.loads(umpire("log", "--json", db=db))
    assert [e["type"] for e in log] == ["campaign_created", "dice_rolled", "turn_ended"]
    assert log[1]["audience"] == {"public": False, "players": ["red"]}
    blue = json.loads(umpire("log", "--json", "--as-player", "blue", db=db))
    assert [e["type"] for e in blue] == ["campaign_created", "turn_ended"]
    state = json.loads(umpire("state", "--json", "--at-turn", "0", db=db))
    assert (state["turn"], state["dice_rolled"]) == (1, 2)
    report = json.loads(umpire("verify", "--json", db=db))
    assert report["ok"] is True
    branches = json.loads(umpire("branches", "--json", db=db))
    assert branches["active"] == "main"


def test_editing_one_byte_makes_verify_fail_at_that_position(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "demo", "--players", "red,blue", db=db)
    umpire("note", "the fleet sails", db=db)
    umpire("note", "the fleet returns", db=db)
    raw = sqlite3.connect(db)
    raw.execute("UPDATE events SET payload = replace(payload, 'sails', 'sailz') WHERE position = 2")
    raw.commit()
    raw.close()
    output = umpire("verify", db=db, code=1)
    assert "FAILED at position 2 (version 2)" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["log"], "no database at"),
        (["status"], "no database at"),
        (["new", "bad name"], "name 'bad name' must be"),
        (["new", "demo", "--players", "red,Blue"], "player name 'Blue'"),
        # The names of audiences (`--to all`) are no player's: a note to all reaches everyone.
        (["new", "demo", "--players", "all,blue"], "not be 'umpire', 'all' or 'everyone'"),
        (["new", "demo", "--players", "red,everyone"], "player name 'everyone'"),
        # Events are renamed where they hold a battle's internal id: no player is named like one.
        (["new", "demo", "--players", "red,t1-b2"], "player name 't1-b2' reads like a battle"),
        (["new", "demo", "--players", ",".join(f"p{n}" for n in range(9))], "8 players at the"),
        (["new", "demo", "--dice", "loaded"], "dice mode 'loaded'"),
        (["new", "demo", "--map", "atlantis"], "no built-in map or file 'atlantis'"),
        (["new", "demo", "--map", "lafayette", "--players", "red,blue"], "1 entry hex(es)"),
    ],
)
def test_mistakes_give_one_line_and_write_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "umpire.db"
    result = runner.invoke(app, [*args, "--db", str(db)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert not db.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["log", "--as-player", "green"], "'green' is not a player"),
        (["log", "--type", "nope"], "unknown event type 'nope'"),
        (["state", "--at-turn", "5"], "turn 5 is not in branch 'main'"),
        (["rewind", "--to-turn", "3"], "cannot rewind to turn 3"),
        (["roll", "2x6", "--reason", "x"], "dice '2x6'"),
        (["roll", "d6", "--reason", "x", "--results", "9"], "not a face of a d6"),
        (["roll", "d6", "--reason", "x", "--results", "a"], "whole numbers"),
        (["roll", "d6", "--reason", "x", "--to", "green"], "not a player of this campaign"),
        (["reveal-seed"], "--early"),
        (["verify", "--dice"], "not been revealed"),
        (["new", "demo"], "already exists"),
        (["status", "--campaign", "other"], "no campaign named 'other'"),
        (["status", "--branch", "nope"], "has no branch 'nope'"),
        (["branches", "--use", "nope"], "has no branch 'nope'"),
    ],
)
def test_mistakes_on_a_campaign_write_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "demo", "--players", "red,blue", db=db)
    before = umpire("log", "--json", db=db)
    result = runner.invoke(app, [*args, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1, result.output
    assert message in result.output
    assert umpire("log", "--json", db=db) == before


def test_manual_dice_are_asked_at_a_prompt(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "table", "--dice", "manual", db=db)
    result = runner.invoke(
        app, ["roll", "2d6", "-r", "boarding", "--db", str(db)], input="7\n3\n5\n"
    )
    assert result.exit_code == 0, result.output
    assert "not a face of a d6; try again" in result.output
    (rolled,) = json.loads(umpire("log", "--json", "--type", "dice_rolled", db=db))
    assert [(r["value"], r["source"]) for r in rolled["event"]["rolls"]] == [
        (3, "manual"),
        (5, "manual"),
    ]


def test_several_campaigns_need_a_name(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "one", db=db)
    umpire("new", "two", db=db)
    result = runner.invoke(app, ["status", "--db", str(db)])
    assert result.exit_code == 2
    assert "choose one with --campaign" in result.output
    assert "Campaign two" in umpire("status", "--campaign", "two", db=db)
    assert "one" in umpire("campaigns", db=db)


def test_environment_chooses_database_and_campaign(tmp_path: Path) -> None:
    db = tmp_path / "env.db"
    env = {"UMPIRE_DB": str(db), "UMPIRE_CAMPAIGN": "two"}
    assert runner.invoke(app, ["new", "one"], env=env).exit_code == 0
    assert runner.invoke(app, ["new", "two"], env=env).exit_code == 0
    result = runner.invoke(app, ["status"], env=env)
    assert result.exit_code == 0
    assert "Campaign two" in result.output


def test_a_generated_map_file_is_used_by_new(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    map_file = tmp_path / "skirmish.toml"
    result = runner.invoke(
        app, ["map", "generate", "--seed", "5", "--players", "2", "--out", str(map_file)]
    )
    assert result.exit_code == 0, result.output
    umpire("new", "skirmish", "--players", "red,blue", "--map", str(map_file), db=db)
    events = json.loads(umpire("log", "--json", db=db))
    assert [e["type"] for e in events] == [
        "campaign_created",
        "map_chosen",
        "star_chart_published",
        "map_loaded",
        "empire_founded",
        "empire_founded",
        "turn_ended",
    ]
    assert events[3]["audience"] == {"public": False, "players": []}
    red = json.loads(umpire("log", "--json", "--as-player", "red", db=db))
    # The map's contents and blue's forces stay hidden from red.
    assert [e["type"] for e in red] == [
        "campaign_created",
        "map_chosen",
        "star_chart_published",
        "empire_founded",
        "turn_ended",
    ]
    state = json.loads(umpire("state", "--json", db=db))
    assert state["map_sha256"] == events[1]["event"]["sha256"]


def test_db_upgrade_and_status(tmp_path: Path) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "demo", db=db)
    assert "up to date" in umpire("db", "status", db=db)
    assert "nothing to do" in umpire("db", "upgrade", db=db)


def test_the_battle_movement_setting_is_checked_and_reaches_the_engine(tmp_path: Path) -> None:
    """`umpire new --battle-movement`: vector by default (004 L43), cinematic or spatial (003)
    on request; the
    engine is asked for the campaign's choice. A bad value is one line and writes nothing."""
    from campaign.rules.battles import request_for
    from campaign.service import CampaignService
    from tests.test_core_systems_campaign import BATTLE

    db = tmp_path / "umpire.db"
    out = umpire("new", "g", "--players", "red,blue", "--battle-movement", "warp", db=db, code=2)
    assert "battle-movement setting 'warp' must be one of vector, cinematic, spatial" in out
    assert not db.exists() or "g" not in umpire("campaigns", db=db)
    umpire(
        "new",
        "g",
        "--players",
        "red,blue",
        "--battle-movement",
        "cinematic",
        "--map",
        "classic",
        db=db,
    )
    service = CampaignService.open(str(db))
    try:
        state = service.load(service.target(None, None))
    finally:
        service.close()
    assert state.battle_movement == "cinematic"
    units = {
        uid: Unit(id=uid, owner=uid[:-3], kind="warship", hex="0201", design="frigate")
        for side in BATTLE.sides
        for uid in side.units
    }
    state = msgspec.structs.replace(state, units=units)
    assert request_for(state, BATTLE).movement == "cinematic"
    assert request_for(
        msgspec.structs.replace(state, battle_movement="vector"), BATTLE
    ).movement == ("vector")
    spatial = msgspec.structs.replace(state, battle_movement="spatial")  # 003
    assert request_for(spatial, BATTLE).movement == "spatial"
    umpire(
        "new",
        "s",
        "--players",
        "red,blue",
        "--battle-movement",
        "spatial",
        "--map",
        "classic",
        db=db,
    )


def test_the_asteroid_motion_setting_is_checked_and_reaches_the_engine(tmp_path: Path) -> None:
    """`umpire new --asteroid-motion`: jump by default, sweep on request (000 L18073-18101);
    an asteroid-field battle's theatre carries it. A bad value is one line and writes
    nothing."""
    from campaign.rules.battles import request_for
    from campaign.service import CampaignService
    from tactical.campaign_battle import resolve_campaign_battle
    from tactical.dice import SeededDice
    from tests.test_core_systems_campaign import BATTLE

    db = tmp_path / "umpire.db"
    out = umpire("new", "g", "--players", "red,blue", "--asteroid-motion", "roll", db=db, code=2)
    assert "asteroid-motion setting 'roll' must be one of jump, sweep" in out
    assert not db.exists() or "g" not in umpire("campaigns", db=db)
    umpire(
        "new", "g", "--players", "red,blue", "--asteroid-motion", "sweep", "--map", "classic", db=db
    )
    service = CampaignService.open(str(db))
    try:
        state = service.load(service.target(None, None))
    finally:
        service.close()
    assert state.asteroid_motion == "sweep"
    units = {
        uid: Unit(id=uid, owner=uid[:-3], kind="warship", hex="0201", design="frigate")
        for side in BATTLE.sides
        for uid in side.units
    }
    state = msgspec.structs.replace(state, units=units)
    field = msgspec.structs.replace(BATTLE, location="asteroid-field")
    request = request_for(state, field)
    assert request.asteroid_motion == "sweep"
    short = msgspec.structs.replace(request, turn_limit=1)
    setup = resolve_campaign_battle(short, SeededDice(1)).setup
    assert setup.theatre is not None
    assert setup.theatre.asteroid_motion == "sweep"
    default = msgspec.structs.replace(state, asteroid_motion="jump")
    assert request_for(default, field).asteroid_motion == "jump"


def test_the_morale_ties_setting_is_checked_and_reaches_the_engine(tmp_path: Path) -> None:
    """`umpire new --morale-ties`: worse by default (the side worse off withdraws when both
    reach their fleet morale share in one turn), both on request; a campaign stored before the
    setting plays both. A bad value is one line and writes nothing."""
    from campaign.projections import CampaignState
    from campaign.rules.battles import request_for
    from campaign.service import CampaignService
    from tactical.campaign_battle import setup_campaign_battle
    from tactical.dice import SeededDice
    from tests.test_core_systems_campaign import BATTLE

    db = tmp_path / "umpire.db"
    out = umpire("new", "g", "--players", "red,blue", "--morale-ties", "first", db=db, code=2)
    assert "morale-ties setting 'first' must be one of worse, both" in out
    assert not db.exists() or "g" not in umpire("campaigns", db=db)
    out = umpire("new", "n", "--players", "red,blue", "--morale-ties", "both", db=db, code=2)
    assert "--morale-ties both needs a map" in out
    for name, given, expected in (("w", (), "worse"), ("b", ("--morale-ties", "both"), "both")):
        umpire("new", name, "--players", "red,blue", "--map", "classic", *given, db=db)
        service = CampaignService.open(str(db))
        try:
            state = service.load(service.target(name, None))
        finally:
            service.close()
        assert state.morale_ties == expected
        units = {
            uid: Unit(id=uid, owner=uid[:-3], kind="warship", hex="0201", design="frigate")
            for side in BATTLE.sides
            for uid in side.units
        }
        request = request_for(msgspec.structs.replace(state, units=units), BATTLE)
        assert request.morale_ties == expected
        assert setup_campaign_battle(request, SeededDice(1)).morale_ties == expected
    assert CampaignState().morale_ties == "both"  # a campaign_created without the field
