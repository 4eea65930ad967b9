"""Issue 5's done-when, through the command line: a 4-player campaign on `classic` runs its 44
turns with orders files, battles fought by the engine or recorded by hand, production every
4th turn and a winner by 004 section 1; every player's report shows only what he may know.

Each player's orders are drawn at random from his own view (`campaign.autoplay`), written to a
file and handed in with `umpire orders submit`; a refused file is simplified and sent again,
as a player would. After every turn the autoplay referee checks the invariants and that no
report, log or view holds anything its player could not know.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
from typer.testing import CliRunner

from campaign.autoplay import format_orders, random_document
from campaign.events import (
    ColonistsLanded,
    LandingFailed,
    RecordedEvent,
    ShipsSighted,
    SystemExplored,
    UnitsSplit,
)
from campaign.rules.orders import OrdersDocument
from campaign.service import CampaignService
from cli import app
from tests.test_autoplay import Referee

runner = CliRunner()
PLAYERS = ("red", "blue", "green", "white")
CAMPAIGN = "classic4"
SEED = "done-when-5"


def umpire(db: str, *args: str, code: int | None = 0) -> str:
    result = runner.invoke(app, [*args, "--db", db, "--campaign", CAMPAIGN])
    if code is not None:
        assert result.exit_code == code, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_four_players_play_44_turns_on_classic_through_the_cli(tmp_path: Path) -> None:  # noqa: PLR0915
    db = f"sqlite:///{tmp_path / 'classic.db'}"
    created = runner.invoke(
        app,
        [
            "new",
            CAMPAIGN,
            "--players",
            ",".join(PLAYERS),
            "--map",
            "classic",
            "--seed",
            SEED,
            "--db",
            db,
        ],
    )
    assert created.exit_code == 0, created.output
    service = CampaignService.open(db)
    lineage = service.target(CAMPAIGN)
    secrets = {
        player: umpire(db, "player", "add", player).split()[0] for player in PLAYERS
    }  # the referee reads every player's web page with his secret
    referee = Referee(service, lineage, web_secrets=secrets)
    recorded_by_hand = fought = refused = 0
    try:
        while not service.load(lineage).finished:
            turn = service.load(lineage).turn
            for player in PLAYERS:
                view = service.load(lineage, viewer=player)
                chart = service.player_map(lineage, player)[0]
                document = random_document(view, chart, player, random.Random(f"{player}{turn}"))
                simpler = [
                    document,
                    msgspec.structs.replace(document, production=(), research=()),
                    OrdersDocument(player=player, turn=turn, task_forces=document.task_forces),
                ]
                for number, attempt in enumerate(simpler):
                    path = tmp_path / f"{player}-{turn}-{number}.toml"
                    path.write_text(format_orders(attempt))
                    args = ("orders", "submit", str(path), "--player", player)
                    env = {"UMPIRE_SECRET": secrets[player]}
                    argv = [*args, "--db", db, "--campaign", CAMPAIGN]
                    if runner.invoke(app, argv, env=env).exit_code:
                        refused += 1
                        continue
                    break
                else:
                    raise AssertionError(f"{player} could not hand in orders on turn {turn}")
            while service.load(lineage).turn == turn:
                waiting = json.loads(umpire(db, "battles", "list", "--json"))
                if not waiting:
                    umpire(db, "turn", "resolve")  # stops again if it brings battles
                elif (recorded_by_hand + fought) % 2:
                    umpire(db, "battles", "record", waiting[0]["id"])  # a table-top draw
                    recorded_by_hand += 1
                else:
                    fought += len(waiting)
                    umpire(db, "battles", "resolve")
            referee(turn)
        state = service.load(lineage)
        log = service.log(lineage)
        production = sorted({r.turn for r in log if r.type == "production_resolved"})
        status = json.loads(umpire(db, "status", "--json"))
        shown = umpire(db, "status")
        reports = {
            player: json.loads(umpire(db, "report", "--player", player, "--format", "json"))
            for player in PLAYERS
        }
        # Issue 12: splits, landings on arrival and sightings happened, and each is in its
        # player's report of that turn.
        seen_in_reports = issue_12_news(db, log)
    finally:
        referee.close()
        service.close()
    assert state.max_turns == 44
    assert state.turn == 45  # the turn after the last: none is left to play
    assert referee.turns == list(range(1, 45))
    assert production == list(range(4, 45, 4))  # after every 4th turn (004 5.7)
    assert fought > 0
    assert recorded_by_hand > 0
    assert status["state"]["turn"] > status["state"]["max_turns"]  # finished
    scores = {entry["player"]: entry["points"] for entry in status["scores"]}
    assert set(scores) == set(PLAYERS)
    best = max(scores.values())
    assert best > 0
    winners = sorted(p for p, points in scores.items() if points == best)
    assert f"Winner: {' and '.join(winners)}" in " ".join(shown.split())
    for player, report in reports.items():
        assert report["player"] == player
    assert refused < len(PLAYERS) * 44  # most random orders pass as drawn
    assert seen_in_reports == {"units_split", "landed_on_arrival", "ships_sighted"}


def issue_12_news(db: str, log: list[RecordedEvent]) -> set[str]:
    """Find a split, a landing on arrival and a sighting in the log; return those its player's
    Markdown report of that turn shows."""
    explored = {
        (e.event.player, e.event.system, e.turn)
        for e in log
        if isinstance(e.event, SystemExplored) and e.event.explored
    }
    found: dict[str, tuple[str, int, str]] = {}
    for e in log:
        ev = e.event
        if isinstance(ev, UnitsSplit) and "units_split" not in found:
            found["units_split"] = (ev.player, e.turn, f"as {ev.parts[0].new_unit}")
        if isinstance(ev, ShipsSighted) and "ships_sighted" not in found:
            found["ships_sighted"] = (ev.player, e.turn, "### Sightings")
        # A landing on arrival (004 L56-63): made in a system its player explored that very
        # turn, or, the orbit guessed wrong, lapsed with the reason.
        arrived = isinstance(ev, ColonistsLanded) and (
            (ev.colony.owner, ev.colony.system, e.turn) in explored
        )
        if arrived and isinstance(ev, ColonistsLanded):
            found["landed_on_arrival"] = (
                ev.colony.owner,
                e.turn,
                f"colonists on {ev.colony.id}",
            )
        guessed = isinstance(ev, LandingFailed) and "exploring found no planet" in ev.reason
        if guessed and isinstance(ev, LandingFailed):
            owner = ev.unit.split("-", 1)[0]
            found.setdefault("landed_on_arrival", (owner, e.turn, "exploring found no planet"))
    shown = set()
    for kind, (player, turn, text) in found.items():
        report = umpire(db, "report", "--player", player, "--turn", str(turn), "--format", "md")
        if text in report:
            shown.add(kind)
    return shown
