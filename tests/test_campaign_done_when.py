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

from campaign.events import BattleFought
from tests.campaign_cli import alternate_engine_and_draws, play_through_cli

PLAYERS = ("red", "blue", "green", "white")
CAMPAIGN = "classic4"
SEED = "done-when-5"


def test_four_players_play_44_turns_on_classic_through_the_cli(tmp_path: Path) -> None:
    """Under the campaign's default battle rules, Continuum's (issue 15);
    tests/test_campaign_done_when_ft2.py plays the same under FT2's."""
    play_44_turns_on_classic(tmp_path, "continuum")


def play_44_turns_on_classic(tmp_path: Path, rules: str) -> None:
    """Play the campaign through the CLI under `rules` (`umpire new --battle-rules`), the
    engine fighting every other turn's battles, and check what issue 5 asks of it. (The two
    rule choices are two test files, so the suite's two workers can take one each.)"""
    played = play_through_cli(
        tmp_path,
        campaign=CAMPAIGN,
        players=PLAYERS,
        map_name="classic",
        seed=SEED,
        battles=alternate_engine_and_draws,
        options=("--battle-rules", rules),
    )
    try:
        state = played.state
        log = played.log()
        records = [
            json.loads(r.event.journal)
            for r in log
            if isinstance(r.event, BattleFought) and r.event.journal is not None
        ]
        journals = [record for record in records if "setup" in record]  # battles fought
        production = sorted({r.turn for r in log if r.type == "production_resolved"})
        status = json.loads(played.umpire("status", "--json"))
        shown = played.umpire("status")
        reports = {
            player: json.loads(played.umpire("report", "--player", player, "--format", "json"))
            for player in PLAYERS
        }
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
    assert journals  # the engine's battles, each under the campaign's battle rules
    assert {journal["setup"]["rules"] for journal in journals} == {rules}
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
