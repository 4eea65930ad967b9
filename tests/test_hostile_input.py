"""Issue 13: what an attacker hands the umpire is bounded, refused in one line, and inert.

Findings 7 (input limits), 8 (no tracebacks), 9 (wrong acceptances), 10 (terminal escapes),
11 (side channels in a player's view) and 13 (secrets at rest).
"""

from __future__ import annotations

import doctest
import json
import stat
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from campaign import dice, inputs, web
from campaign.db import backup_sqlite
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import Audience
from campaign.inputs import printable
from campaign.projections import CampaignState
from campaign.rules import orders as orders_rules
from campaign.service import CampaignService
from cli import app
from maps import StarMap, tomlinput
from tests.test_strategic import TINY_MAP, orders

runner = CliRunner()
ESCAPE = "\\u001b]0;owned\\u0007"  # as TOML writes ESC ] 0 ; owned BEL in a string


def run(*args: str, code: int | None = 0, env: dict[str, str] | None = None) -> str:
    result = runner.invoke(app, list(args), env=env, catch_exceptions=False)
    output = result.stdout + result.stderr
    if code is not None:
        assert result.exit_code == code, output
    return output


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """Campaign `g` (red, blue) on the tiny map in a SQLite file; returns the database."""
    db = tmp_path / "g.db"
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    run("new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"), "--db", str(db))
    return db


def log_of(db: Path) -> str:
    return run("log", "--json", "--db", str(db))


def refused(db: Path | None, *args: str) -> str:
    """Run a command that must fail: one line, non-zero, no traceback, nothing written."""
    before = log_of(db) if db is not None else None
    result = runner.invoke(app, [*args, *(["--db", str(db)] if db else [])])
    output = result.stdout + result.stderr
    assert result.exit_code != 0, output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in output
    assert output.count("\n") == 1, output
    assert "\x1b" not in output
    if db is not None:
        assert log_of(db) == before
    return output


# ---------------------------------------------------------------- finding 8: no tracebacks


DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"
NOT_UTF8 = b'player = "red"\nturn = 1\n# \xff\xfe\n'
UTF16 = 'player = "red"\nturn = 1\n'.encode("utf-16")


@pytest.mark.parametrize(
    ("content", "message"),
    [(NOT_UTF8, "not UTF-8"), (UTF16, "not UTF-8"), (DEEP.encode(), "nested 5000 deep")],
)
def test_bad_orders_files_are_one_line_refusals(
    game: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "orders.toml"
    path.write_bytes(content)
    assert message in refused(game, "orders", "submit", str(path), "--player", "red")
    reason = ("--reason", "x", "--player", "red")
    assert message in refused(game, "ruling", "orders", str(path), *reason)


@pytest.mark.parametrize(
    ("command", "content", "message"),
    [
        (("ship", "cost"), NOT_UTF8, "not UTF-8"),
        (("ship", "cost"), DEEP.encode(), "nested 5000 deep"),
        (("map", "validate"), NOT_UTF8, "not UTF-8"),
        (("map", "validate"), DEEP.encode(), "nested 5000 deep"),
        (("battle", "fight"), DEEP.encode(), "nested 5000 deep"),
        (("battle", "campaign"), UTF16, "not UTF-8"),
    ],
)
def test_bad_design_map_and_battle_files_are_one_line_refusals(
    tmp_path: Path, command: tuple[str, ...], content: bytes, message: str
) -> None:
    path = tmp_path / "file.toml"
    path.write_bytes(content)
    assert message in refused(None, *command, str(path))


def test_a_bad_fleet_file_is_a_one_line_refusal(tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    for content in (NOT_UTF8, DEEP.encode()):
        fleet = tmp_path / "fleet.toml"
        fleet.write_bytes(content)
        db = tmp_path / "new.db"
        args = ("new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"))
        refused(None, *args, "--fleet", str(fleet), "--db", str(db))
        assert not db.exists()


def test_huge_numbers_and_foreign_files_are_one_line_refusals(game: Path, tmp_path: Path) -> None:
    assert "between 0 and" in refused(game, "log", "--turn", "100000000000000000000")
    not_a_db = tmp_path / "passwd"
    not_a_db.write_text("root:x:0:0:root:/root:/bin/bash\n" * 50)
    for command in (("status",), ("log",), ("db", "status"), ("db", "upgrade")):
        output = refused(None, *command, "--db", str(not_a_db))
        assert "not a database" in output
    assert not_a_db.read_text().startswith("root:x")


# ---------------------------------------------------------------- finding 7: input limits


def test_an_endless_orders_file_is_refused_after_a_bounded_read(game: Path) -> None:
    output = refused(game, "orders", "submit", "/dev/zero", "--player", "red")
    assert "larger than 262,144 bytes" in output


def test_a_large_orders_file_is_refused_unread(game: Path, tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(orders("red", 1) + "# padding\n" * 40_000)
    assert "larger than" in refused(game, "orders", "submit", str(path), "--player", "red")


def test_long_lists_in_orders_are_refused(game: Path, tmp_path: Path) -> None:
    path = tmp_path / "many.toml"
    many = ", ".join(['"free-space"'] * 700)
    path.write_text(orders("red", 1) + f"battle_locations = [{many}]\n")
    output = refused(game, "orders", "submit", str(path), "--player", "red")
    assert "battle_locations" in output
    twice = tmp_path / "twice.toml"
    twice.write_text(orders("red", 1) + 'battle_locations = ["free-space", "free-space"]\n')
    output = refused(game, "orders", "submit", str(twice), "--player", "red")
    assert "each location at most once" in output


def test_orders_text_sent_over_the_web_is_bounded(game: Path) -> None:
    service = CampaignService.open(str(game))
    try:
        lineage = service.target(None)
        with pytest.raises(InvalidInputError, match="larger than 262,144 bytes"):
            service.submit_orders(lineage, "red", orders("red", 1) + "#" * 300_000)
    finally:
        service.close()


# ---------------------------------------------------------------- finding 9: wrong acceptances


@pytest.mark.parametrize("count", [-5, 0])
def test_treasury_ships_count_must_be_positive(game: Path, tmp_path: Path, count: int) -> None:
    path = tmp_path / "treasury.toml"
    path.write_text(
        orders("red", 1) + f'[treasury]\nships = [{{ design = "frigate", count = {count} }}]\n'
    )
    output = refused(game, "orders", "submit", str(path), "--player", "red")
    assert "count" in output


def test_a_starting_fleet_count_must_be_positive(tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('[[ships]]\ndesign = "frigate"\ncount = 0\n')
    db = tmp_path / "new.db"
    args = ("new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"))
    assert "count" in refused(None, *args, "--fleet", str(fleet), "--db", str(db))


def test_as_player_umpire_and_endless_campaigns_are_refused(game: Path, tmp_path: Path) -> None:
    assert "--as-player" in refused(game, "log", "--as-player", "umpire")
    assert "--as-player" in refused(game, "state", "--as-player", "umpire")
    db = tmp_path / "long.db"
    output = refused(None, "new", "long", "--turns", "1000000000000", "--db", str(db))
    assert "between 1 and 1000" in output
    assert not db.exists()


# ---------------------------------------------------------------- finding 10: terminal escapes


def test_escapes_in_orders_are_never_echoed_raw(game: Path, tmp_path: Path) -> None:
    path = tmp_path / "evil.toml"
    path.write_text(orders("red", 1, (f"red-W1{ESCAPE}", "0102", "engage")))
    output = refused(game, "orders", "submit", str(path), "--player", "red")
    assert "\\x1b]0;owned\\x07" in output


def test_escapes_in_the_inbox_are_inert_in_its_table_and_reasons(
    game: Path, tmp_path: Path
) -> None:
    secret = runner.invoke(app, ["player", "add", "red", "--db", str(game)]).stdout.strip()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    path = inbox / "red.toml"
    path.write_text(orders("red", 1, (f"red-W1{ESCAPE}", "0102", "engage")))
    sign = ("orders", "sign", str(path), "--player", "red", "--campaign", "g")
    run(*sign, env={"UMPIRE_SECRET": secret})
    table = run("orders", "inbox", str(inbox), "--db", str(game), code=1)
    assert "\x1b]" not in table
    assert "\x07" not in table
    reason = (inbox / "rejected" / "red.toml.reason.txt").read_text()
    assert "\x1b" not in reason
    assert "\\x1b]0;owned\\x07" in reason


def test_printable_escapes_every_control_character() -> None:
    for code in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x202E]:
        assert printable(f"a{chr(code)}b").isprintable()
    assert printable("Proxima (b) / [x] <y>") == "Proxima (b) / [x] <y>"


# ---------------------------------------------------------------- finding 11: side channels


def test_a_players_view_numbers_only_his_own_events(game: Path) -> None:
    # Private rolls to blue make gaps in red's view of the global numbering.
    for _ in range(3):
        run("roll", "d6", "--reason", "blue's secret", "--to", "blue", "--db", str(game))
        run("note", "to all", "--to", "all", "--db", str(game))
    red = json.loads(run("log", "--json", "--as-player", "red", "--db", str(game)))
    numbers = list(range(1, len(red) + 1))
    assert [e["position"] for e in red] == numbers
    assert [e["version"] for e in red] == numbers
    assert all(e["recorded_at"].endswith(":00Z") for e in red), red[-1]["recorded_at"]
    this_turn = json.loads(
        run("log", "--json", "--as-player", "red", "--turn", "1", "--db", str(game))
    )
    assert [e["position"] for e in this_turn] == [e["position"] for e in red if e["turn"] == 1]
    state = json.loads(run("state", "--json", "--as-player", "red", "--db", str(game)))
    assert state["version"] == state["events"] == len(red)
    report = run("report", "--json", "--player", "red", "--turn", "1", "--db", str(game))
    news = json.loads(report)["news"]
    assert [e["position"] for e in news] == [e["position"] for e in this_turn]


def test_closed_orders_say_nothing_of_whose_battles() -> None:
    truth = CampaignState(turn=26, phase="combat")
    with pytest.raises(IllegalCommandError) as refusal:
        orders_rules.decide_submit(
            truth,
            truth,
            StarMap(name="x", width=1, height=1),
            "red",
            orders_rules.OrdersDocument(player="red", turn=26),
            lambda _: None,  # type: ignore[arg-type,return-value]
            nonce="00",
        )
    assert "battle" not in str(refusal.value)
    assert str(refusal.value) == "turn 26 is being resolved: orders are closed; try again later"


# ---------------------------------------------------------------- finding 13: secrets at rest


def test_database_files_and_backups_are_private(game: Path, tmp_path: Path) -> None:
    service = CampaignService.open(str(game))
    try:  # while it is open, SQLite keeps its -wal and -shm files beside it
        service.note(service.target(None), "a note", Audience.everyone())
        files = [game, *game.parent.glob("g.db-*")]
        assert len(files) == 3, files
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    finally:
        service.close()
    backup = backup_sqlite(game, "head")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_the_seed_can_come_from_the_environment_or_a_prompt(tmp_path: Path) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    run("new", "a", "--db", str(first), env={"UMPIRE_SEED": "from-the-environment"})
    result = runner.invoke(app, ["new", "a", "--seed", "-", "--db", str(second)], input="x\n")
    assert result.exit_code == 0, result.output
    for db, seed in ((first, "from-the-environment"), (second, "x")):
        run("reveal-seed", "--early", "--db", str(db))
        assert seed in run("log", "--db", str(db))
    help_text = run("new", "--help")
    assert "UMPIRE_SEED" in help_text


@pytest.mark.parametrize("module", [inputs, tomlinput, dice, web])
def test_the_input_modules_doctests_pass(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0
    assert failures == 0
