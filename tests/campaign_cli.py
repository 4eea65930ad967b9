"""A whole campaign played through the command line, as its players and umpire would: the
driver of the 44-turn campaign tests.

Each player's orders are drawn at random from his own view (`campaign.autoplay`), written to a
file and handed in with `umpire orders submit` under his own secret; a refused file is
simplified and sent again, as a player would. The umpire resolves each turn and the battles it
brings (`Battles` says how). After every turn the autoplay referee checks the invariants and
that no report, log, view or web page holds anything its player could not know.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from typer.testing import CliRunner

from campaign.autoplay import format_orders, hull_boxes_left, random_document, random_outcome
from campaign.events import RecordedEvent
from campaign.projections import CampaignState
from campaign.rules.orders import OrdersDocument
from campaign.service import CampaignService
from campaign.store import Lineage
from cli import app
from tests.test_autoplay import Referee

runner = CliRunner()


@dataclass
class PlayedCampaign:
    """A campaign played to its end through the CLI, its database still open for checks."""

    db: str
    campaign: str
    service: CampaignService
    lineage: Lineage
    referee: Referee
    refused: int = 0  # orders files refused (a simpler one was sent)
    fought: int = 0  # battles the engine fought (`umpire battles resolve`)
    recorded: int = 0  # battles recorded by hand (`umpire battles record`)
    counts: dict[str, int] = field(default_factory=dict)

    def umpire(self, *args: str, code: int | None = 0) -> str:
        """Run an umpire command on this campaign; check its exit code; return its output."""
        return umpire(self.db, self.campaign, *args, code=code)

    @property
    def state(self) -> CampaignState:
        return self.service.load(self.lineage)

    def log(self) -> list[RecordedEvent]:
        return self.service.log(self.lineage)

    def close(self) -> None:
        self.referee.close()
        self.service.close()


# How the umpire settles the battles waiting at a turn: given the campaign and the waiting
# battles (`umpire battles list --json`), he resolves or records some (at least one).
Battles = Callable[[PlayedCampaign, list[dict[str, object]]], None]


def umpire(db: str, campaign: str, *args: str, code: int | None = 0) -> str:
    result = runner.invoke(app, [*args, "--db", db, "--campaign", campaign])
    if code is not None:
        assert result.exit_code == code, result.stdout + result.stderr
    return result.stdout + result.stderr


def alternate_engine_and_draws(played: PlayedCampaign, waiting: list[dict[str, object]]) -> None:
    """Fight all waiting battles with the engine, or record the first as a table-top draw,
    turn about."""
    if (played.recorded + played.fought) % 2:
        played.umpire("battles", "record", str(waiting[0]["id"]))  # nothing named: a draw
        played.recorded += 1
    else:
        played.fought += len(waiting)
        played.umpire("battles", "resolve")


def record_table_top_results(played: PlayedCampaign, waiting: list[dict[str, object]]) -> None:
    """Record each waiting battle by hand with a random table-top result (the autoplay's
    `random_outcome`: ships destroyed, disengaged, jumped out or damaged), given as the
    options of `umpire battles record`."""
    starmap = played.service.starmap(played.lineage)
    for entry in waiting:
        # Each as the battles recorded before it left it (004 5.3.6): the umpire's list shows
        # the ships still at its table.
        battles = {b.id: b for b in played.service.battles(played.lineage)}
        battle = battles[str(entry["id"])]
        left = hull_boxes_left(played.service.load(played.lineage), battle)
        outcome = random_outcome(battle, starmap, random.Random(f"table/{battle.id}"), left)
        options: list[str] = []
        for fate, option in (("destroyed", "--destroyed"), ("disengaged", "--disengaged")):
            if ships := [r.unit for r in outcome if r.fate == fate]:
                options += [option, ",".join(ships)]
        for result in outcome:
            if result.fate == "jumped":
                options += ["--jumped", f"{result.unit}={result.to_hex}"]
            elif result.fate == "survived" and result.hull_lost:
                options += ["--damage", f"{result.unit}={result.hull_lost}"]
        played.umpire("battles", "record", battle.id, *options)
        played.recorded += 1


def play_through_cli(
    tmp_path: Path,
    *,
    campaign: str,
    players: tuple[str, ...],
    map_name: str,
    seed: str,
    battles: Battles,
    options: tuple[str, ...] = (),
) -> PlayedCampaign:
    """Create a campaign with `umpire new` (and its `options`) and play it to its end through
    the CLI."""
    db = f"sqlite:///{tmp_path / f'{campaign}.db'}"
    new = ["new", campaign, "--players", ",".join(players), "--map", map_name, "--seed", seed]
    created = runner.invoke(app, [*new, *options, "--db", db])
    assert created.exit_code == 0, created.output
    service = CampaignService.open(db)
    lineage = service.target(campaign)
    # The referee reads every player's web page with his secret.
    secrets = {p: umpire(db, campaign, "player", "add", p).split()[0] for p in players}
    played = PlayedCampaign(db, campaign, service, lineage, Referee(service, lineage, secrets))
    try:
        while not played.state.finished:
            turn = played.state.turn
            for player in players:
                _hand_in(played, tmp_path, player, turn, secrets[player])
            while played.state.turn == turn:
                waiting = json.loads(played.umpire("battles", "list", "--json"))
                if waiting:
                    battles(played, waiting)
                else:
                    played.umpire("turn", "resolve")  # stops again if it brings battles
            played.referee(turn)
    except BaseException:
        played.close()
        raise
    return played


def _hand_in(played: PlayedCampaign, tmp_path: Path, player: str, turn: int, secret: str) -> None:
    """Hand in a player's random orders; on refusal, ever simpler ones."""
    view = played.service.load(played.lineage, viewer=player)
    chart = played.service.player_map(played.lineage, player)[0]
    document = random_document(view, chart, player, random.Random(f"{player}{turn}"))
    simpler = [
        document,
        msgspec.structs.replace(document, production=(), research=()),
        OrdersDocument(player=player, turn=turn, task_forces=document.task_forces),
    ]
    for number, attempt in enumerate(simpler):
        path = tmp_path / f"{played.campaign}-{player}-{turn}-{number}.toml"
        path.write_text(format_orders(attempt))
        argv = ["orders", "submit", str(path), "--player", player]
        argv += ["--db", played.db, "--campaign", played.campaign]
        if runner.invoke(app, argv, env={"UMPIRE_SECRET": secret}).exit_code == 0:
            return
        played.refused += 1
    raise AssertionError(f"{player} could not hand in orders on turn {turn}")
