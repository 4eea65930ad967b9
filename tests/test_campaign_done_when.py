"""Issue 5's done-when, through the command line: a 4-player campaign on `classic` runs its 44
turns with orders files, battles fought by the engine or recorded by hand, production every
4th turn and a winner by 004 section 1; every player's report shows only what he may know.

The campaign is played through the CLI by `tests.campaign_cli` (random orders from each
player's own view, handed in with `umpire orders submit`; the autoplay referee after every
turn).
"""

from __future__ import annotations

import json
from pathlib import Path

from campaign.events import (
    ColonistsLanded,
    LandingFailed,
    RecordedEvent,
    ShipsSighted,
    SystemExplored,
    UnitsSplit,
)
from tests.campaign_cli import PlayedCampaign, alternate_engine_and_draws, play_through_cli

PLAYERS = ("red", "blue", "green", "white")
CAMPAIGN = "classic4"
SEED = "done-when-5"


def test_four_players_play_44_turns_on_classic_through_the_cli(tmp_path: Path) -> None:
    played = play_through_cli(
        tmp_path,
        campaign=CAMPAIGN,
        players=PLAYERS,
        map_name="classic",
        seed=SEED,
        battles=alternate_engine_and_draws,
    )
    try:
        state = played.state
        log = played.log()
        production = sorted({r.turn for r in log if r.type == "production_resolved"})
        status = json.loads(played.umpire("status", "--json"))
        shown = played.umpire("status")
        reports = {
            player: json.loads(played.umpire("report", "--player", player, "--format", "json"))
            for player in PLAYERS
        }
        # Issue 12: splits, landings on arrival and sightings happened, and each is in its
        # player's report of that turn.
        seen_in_reports = issue_12_news(played, log)
        referee, fought, recorded_by_hand, refused = (
            played.referee,
            played.fought,
            played.recorded,
            played.refused,
        )
    finally:
        played.close()
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


def issue_12_news(played: PlayedCampaign, log: list[RecordedEvent]) -> set[str]:
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
        report = played.umpire("report", "--player", player, "--turn", str(turn), "--format", "md")
        if text in report:
            shown.add(kind)
    return shown
