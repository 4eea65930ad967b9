"""Issue 12's done-when, through the command line: four empires at war on a crowded map for
44 turns, with splits, landings on arrival, sightings, a colony recaptured by its owner and a
planet bombarded to devastation, each in the players' reports; `umpire verify` passes, and the
autoplay referee checks after every turn that no player's view, log, report or web page
names anything he could not see.

The map is `classic` at half scale (`tests/data/crowded.toml`): the empires meet within a
few turns. From turn 10 each random player makes war (`campaign.random_orders`: strike forces
that conquer, liberate or bombard); the umpire records every battle by hand with a random
table-top result.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.events import (
    ColonistsLanded,
    ColonyBombarded,
    ColonyConquered,
    LandingFailed,
    RecordedEvent,
    ShipsSighted,
    SystemExplored,
    UnitsSplit,
)
from tests.campaign_cli import PlayedCampaign, play_through_cli, record_table_top_results

PLAYERS = ("red", "blue", "green", "white")
CROWDED = str(Path(__file__).parent / "data" / "crowded.toml")


@pytest.mark.parametrize(
    ("rules", "seed"),
    [
        # The Continuum seed moved on when the random players began to build the specialist
        # designs (issue 15): under wars-12 its war no longer devastates a planet.
        ("continuum", "wars-16"),
        ("ft2", "wars-12"),
    ],
)
def test_four_empires_at_war_for_44_turns_through_the_cli(
    tmp_path: Path, rules: str, seed: str
) -> None:
    """Under either battle rule choice (issue 15): the fleets, the catalogue and its prices
    are the rules' own."""
    played = play_through_cli(
        tmp_path,
        campaign="wars",
        players=PLAYERS,
        map_name=CROWDED,
        seed=seed,
        battles=record_table_top_results,
        options=("--battle-rules", rules),
    )
    try:
        log = played.log()
        news = issue_12_news(played, log)
        wars = war_news(played, log)
        verified = played.umpire("verify")
    finally:
        played.close()
    assert played.referee.turns == list(range(1, 45))
    assert played.recorded > 0
    assert news == {"units_split", "landed_on_arrival", "ships_sighted"}
    assert wars == {"recaptured", "devastated"}
    assert "ok" in verified.lower()


def war_news(played: PlayedCampaign, log: list[RecordedEvent]) -> set[str]:
    """Find a colony retaken by its owner and a planet devastated in the log; return those
    whose news is in the Markdown report of that turn of every player concerned."""
    found: dict[str, tuple[int, tuple[str, ...], tuple[str, ...]]] = {}
    for e in log:
        ev = e.event
        if isinstance(ev, ColonyConquered) and ev.colony.conquered_from is None:
            players = (ev.colony.owner, ev.previous_owner)
            found.setdefault("recaptured", (e.turn, players, (ev.colony.id, "liberated")))
        if isinstance(ev, ColonyBombarded) and ev.devastated:
            players = e.audience.players  # the bombarding empire and the colony's owner
            found.setdefault("devastated", (e.turn, players, (ev.colony, "is devastated")))
    shown = set()
    for kind, (turn, players, words) in found.items():
        reports = [
            played.umpire("report", "--player", p, "--turn", str(turn), "--format", "md")
            for p in players
        ]
        if all(all(w in report for w in words) for report in reports):
            shown.add(kind)
    return shown


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
