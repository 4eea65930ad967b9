"""The umpire's console (issue 16): write commands print a short summary (`--events` shows
the rows), `turn resolve` says what comes next, `umpire state` gives every empire at a glance.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from typer.testing import CliRunner

from campaign import render
from campaign.service import CampaignService
from cli import app
from tests.conftest import FixedClock
from tests.test_render import check_golden, text_of
from tests.test_reports import TRIO_MAP
from tests.test_strategic import orders

runner = CliRunner()


def umpire(db: str, *args: str, code: int = 0) -> str:
    result = runner.invoke(app, [*args, "--db", db])
    assert result.exit_code == code, result.stdout + result.stderr
    return result.stdout


def trio_orders_in(tmp_path: Path) -> str:
    """The trio campaign with turn 1's orders in (red and blue will meet at Alpha)."""
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    db = str(tmp_path / "console.db")
    umpire(db, "new", "trio", "--players", "red,blue,green", "--map", str(map_file), "--seed", "c")
    moves = {
        "red": [("red-W1", "0201", "engage"), ("red-W2", "0201", "engage")],
        "blue": [("blue-W1", "0201", "engage")],
        "green": [("green-S1", "0502", "stand-off")],
    }
    for player, given in moves.items():
        path = tmp_path / f"{player}.toml"
        path.write_text(orders(player, 1, *given))
        umpire(db, "orders", "submit", str(path), "--player", player)
    return db


def test_resolve_summarises_and_says_what_comes_next(tmp_path: Path) -> None:
    db = trio_orders_in(tmp_path)
    dry = umpire(db, "turn", "resolve", "--dry-run", "--events")
    assert "│ unit_moved" in dry  # --events: the rows
    assert "Next:" not in dry  # a dry run stores nothing, so nothing comes next
    summary = umpire(db, "turn", "resolve", "--dry-run")
    assert summary.startswith("Dry run: nothing was stored: 11 event(s) would be recorded")
    first = umpire(db, "turn", "resolve")
    assert first.startswith("Turn resolved: ")
    assert "│" not in first  # no log rows, a summary
    assert "(--events shows every event)" in first
    assert "battle t1-b1 at Alpha" in first  # a notable event: its line
    assert "Next: battles t1-b1 await their outcome" in first
    fought = umpire(db, "battles", "resolve")
    assert fought.startswith("Battles fought by the engine: 1 event(s) recorded")
    assert "Next: turn 1 goes on (combat): `umpire turn resolve`." in fought
    ended = umpire(db, "turn", "resolve")
    assert "turn 1 ended" in ended
    assert "Next: turn 2 is open for orders; waiting for red, blue, green." in ended
    assert "No deadline is set" in ended


def test_a_short_write_is_told_event_by_event(tmp_path: Path) -> None:
    db = trio_orders_in(tmp_path)
    noted = umpire(db, "note", "Welcome, admirals")
    assert noted.splitlines()[0] == "Noted: 1 event(s) recorded (version 18)."
    assert "note: Welcome, admirals" in noted
    assert "--events" not in noted  # every event was told
    rows = umpire(db, "note", "Again", "--events")
    assert "umpire_noted" in rows
    assert "│" in rows


def test_the_next_steps_render_as_their_golden_file() -> None:
    from datetime import UTC, datetime

    from campaign.service import TurnStatus

    base = TurnStatus(
        campaign="c",
        branch="main",
        turn=4,
        phase="orders",
        held=None,
        deadline=None,
        late=False,
        submitted=("red",),
        waiting_for=("blue",),
        battles=(),
        production=True,
    )
    battles = msgspec.structs.replace(
        base,
        phase="combat",
        battles=("t4-b1", "t4-b2"),
        deadline=datetime(2030, 1, 1, 12, tzinfo=UTC),
        late=True,
    )
    over = msgspec.structs.replace(base, finished=True)
    text = "".join(text_of(render.next_steps(s)) for s in (base, battles, over))
    check_golden("next_steps", text)


def test_state_gives_the_umpire_every_empire(tmp_path: Path) -> None:
    db = trio_orders_in(tmp_path)
    shown = umpire(db, "state")
    assert "Empires" in shown
    for player in ("red", "blue", "green"):
        assert any(line.startswith(f"{player} ") for line in shown.splitlines()), player
    mine = umpire(db, "state", "--as-player", "red")
    assert "Empires" not in mine  # a player's view: his state only
    service = CampaignService.open(db, clock=FixedClock())
    try:
        state = service.state_at(service.target("trio"))
    finally:
        service.close()
    check_golden("empires", text_of(render.empires_table(state)))
    rows = {row[0]: row for row in render.empire_rows(state)}
    assert rows["red"][-1] == "in"
    assert rows["blue"][6] == "10 (1954)"  # the Continuum default fleet


def test_branches_diff_shows_what_a_rerun_changed_per_player(tmp_path: Path) -> None:
    """Turn 1 played on main; rewound and played again with green's scouts sent elsewhere:
    the diff holds green's news and nothing of red's or blue's (their orders and dice are the
    same, only the commitments' salt differs)."""
    db = trio_orders_in(tmp_path)
    umpire(db, "turn", "resolve")
    umpire(db, "battles", "resolve")
    umpire(db, "turn", "resolve")
    umpire(db, "rewind", "--to-turn", "0", "--branch", "rerun")
    again = {
        "red": [("red-W1", "0201", "engage"), ("red-W2", "0201", "engage")],
        "blue": [("blue-W1", "0201", "engage")],
        "green": [("green-S1", "0601", "stand-off")],  # green holds this time
    }
    for player, given in again.items():
        path = tmp_path / f"{player}-again.toml"
        path.write_text(orders(player, 1, *given))
        umpire(db, "orders", "submit", str(path), "--player", player)
    umpire(db, "turn", "resolve")
    umpire(db, "battles", "resolve")
    umpire(db, "turn", "resolve")
    service = CampaignService.open(db, clock=FixedClock())
    try:
        diff = service.branch_diff("trio", "main", "rerun")
        seen = {p: service.branch_diff("trio", "main", "rerun", p) for p in ("red", "green")}
        green_events = sum(1 for e in service.log(service.target("trio", "main"), viewer="green"))
    finally:
        service.close()
    # As a player sees it: his news and the public news only, his standing, and the shared
    # history counted in his own events (the versions would count the others').
    assert [(t.turn, t.player) for t in seen["green"].turns] == [(1, "green")]
    assert seen["red"].turns == ()
    assert [s.player for s in seen["green"].standings] == ["green"]
    assert 0 < seen["green"].shared < diff.shared
    assert seen["green"].shared <= green_events
    assert [(t.turn, t.player) for t in diff.turns] == [(1, "green"), (1, "umpire")]
    green, secret = diff.turns
    # What only the umpire saw: green's orders as submitted, before they were revealed.
    assert [type(e).__name__ for e in secret.only_a + secret.only_b] == ["OrdersSubmitted"] * 2
    assert {getattr(e, "player", None) for e in secret.only_a + secret.only_b} == {"green"}
    assert any("0502" in render.describe(e) for e in green.only_a)
    assert any("green-S1" in render.describe(e) for e in green.only_b)
    # Both branches fought the same battle: each player stands where he stood.
    standings = {s.player: s for s in diff.standings}
    assert list(standings) == ["red", "blue", "green"]
    assert all(s.warships[0] == s.warships[1] for s in diff.standings)
    assert standings["red"].warships[0] < 14  # red lost ships at Alpha on both
    shown = umpire(db, "branches", "diff", "main", "rerun")
    assert "Where each player stands now" in shown
    assert "they share history up to version" in shown
    assert "only on rerun" in shown
    as_green = umpire(db, "branches", "diff", "main", "rerun", "--as-player", "green")
    assert "only on rerun" in as_green
    assert not {"red", "blue", "OrdersSubmitted"} & set(as_green.replace("│", " ").split())
    refused = runner.invoke(app, ["branches", "diff", "main", "main", "--db", db])
    assert refused.exit_code == 2
    assert "not 'main' with itself" in refused.stderr
    assert "rerun" in umpire(db, "branches")


def complete(words: str) -> list[str]:
    """Ask the command line's bash completion for the last of `words`."""
    env = {
        "_UMPIRE_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    result = runner.invoke(app, [], env=env, prog_name="umpire")
    return result.stdout.split()


def test_shell_completion_offers_commands_and_choices() -> None:
    assert "--install-completion" in runner.invoke(app, ["--help"]).stdout
    assert complete("umpire tu") == ["turn"]
    assert complete("umpire battles s") == ["show"]
    assert complete("umpire branches d") == ["diff"]
    assert complete("umpire report --format h") == ["html"]
    assert complete("umpire new x --dice ") == ["seeded", "manual"]


def test_choice_options_list_their_choices_in_help() -> None:
    wide = {"COLUMNS": "200"}
    new = runner.invoke(app, ["new", "--help"], env=wide).stdout
    for shown in ("<seeded|manual>", "<hold|repeat|autoplay>", "<nobody|shared>"):
        assert shown in new
    assert "<vector|cinematic|spatial>" in new
    assert "<jump|sweep>" in new
    assert "<expire|keep>" in new  # an enum option's own
    report = runner.invoke(app, ["report", "--help"], env=wide).stdout
    assert "<terminal|md|html|json>" in report
    refused = runner.invoke(app, ["report", "--player", "red", "--format", "pdf"])
    assert refused.exit_code == 2
    assert "--format 'pdf' must be terminal, md, html or json" in refused.stderr


def test_a_battle_not_yet_fought_is_told_waiting_to_its_sides_only(tmp_path: Path) -> None:
    db = trio_orders_in(tmp_path)
    umpire(db, "turn", "resolve")
    refused = runner.invoke(app, ["battles", "show", "t1-0201", "--as-player", "red", "--db", db])
    assert refused.exit_code != 0
    assert "battle t1-0201 has not been fought yet" in refused.stderr
    other = runner.invoke(app, ["battles", "show", "t1-0201", "--as-player", "green", "--db", db])
    assert other.exit_code == 2
    assert other.stderr.strip() == (
        "umpire: error: no battle 't1-0201' among the battles green fought in (none yet)"
    )
