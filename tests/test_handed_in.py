"""How often a player handed in orders is his and the umpire's to know, nobody else's.

A trial of remote play found "Orders were handed in by red and red." in blue's report: every
submission left a public commitment, so each rival counted them (in the log, the report, the
package, the web page). Now each submission's commitment is addressed to its player, and the
others are told once, by `orders_handed_in`, that he handed in orders this turn. The check here
is the strongest one: everything blue is shown is the same whether red handed in once or thrice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from campaign.events import OrdersCommitted, OrdersHandedIn
from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_campaign, plan_ft2_campaign
from campaign.web import create_app
from cli import app
from tests.conftest import CountingNonces, FixedClock
from tests.test_ft2_battle_ids import FORCES, LAFAYETTE
from tests.test_ft2_battle_ids import orders as ft2_orders
from tests.test_ft2_campaign_cli import move
from tests.test_strategic import TINY_MAP, orders
from tests.test_web import sign_in

STAND = orders("red", 1, ("red-S1", "0102", "stand-off"))
MOVE = orders("red", 1, ("red-S1", "0102", "ftl-move"))


@pytest.fixture
def map_file(tmp_path: Path) -> str:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    return str(path)


def _campaign(map_file: str, sends: list[str]) -> Iterator[CampaignService]:
    service = CampaignService.open(
        "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file))
    lineage = service.target("g")
    for text in sends:
        service.submit_orders(lineage, "red", text)
    yield service
    service.resolve_turn(lineage)
    yield service
    service.close()


# Fields that differ between two runs and count nothing: the chain hashes (salted), and the
# digest of blue's credentials (his web secret is drawn anew for each look).
UNSEEN = ("hash", "head", "credentials")


def _as_blue_sees(service: CampaignService) -> dict[str, object]:
    """Everything blue is shown, less `UNSEEN`."""
    lineage = service.target("g")

    def plain(data: object) -> object:
        if isinstance(data, dict):
            return {k: plain(v) for k, v in data.items() if k not in UNSEEN}
        if isinstance(data, list | tuple):
            return [plain(v) for v in data]
        return data

    report = service.report(lineage, "blue")
    return {
        "log": plain(msgspec.to_builtins(service.log(lineage, viewer="blue"))),
        "report": plain(msgspec.to_builtins(report)),
        "package": {  # less his public signing key: his secret is drawn anew for each look
            name: re.sub(r'"signing_key": "[0-9a-f]+"', "", text)
            for name, text in service.player_package(lineage, "blue").items()
        },
        "receipt": plain(msgspec.to_builtins(service.receipt(lineage, "blue"))),
        "web": _web_pages(service),
    }


def _web_pages(service: CampaignService) -> dict[str, str]:
    """Blue's web pages, less each session's token, the receipt's chain hash and the time
    (the test clock ticks at each reading, so it counts the umpire's work, not red's)."""
    keys = PlayerSecrets(service.store)
    secret = keys.rotate("g", "blue") if keys.holds_secret("g", "blue") else keys.issue("g", "blue")
    with TestClient(create_app(service, secret_key="k", https_only=False)) as blue:
        sign_in(blue, "g", "blue", secret)
        pages = {path: blue.get(path).text for path in ("/report", "/orders", "/log", "/map")}
    unseen = r"name='csrf' value='[^']+'|\"head\":\"[0-9a-f]+\"|\"now\":\"[^\"]+\""
    return {path: re.sub(unseen, "", text) for path, text in pages.items()}


def test_what_blue_sees_does_not_count_reds_submissions(map_file: str) -> None:
    once = _campaign(map_file, [MOVE])
    thrice = _campaign(map_file, [STAND, MOVE, MOVE])
    # While the turn takes orders, then once it is resolved.
    for a, b in zip(once, thrice, strict=True):
        assert _as_blue_sees(a) == _as_blue_sees(b)


def test_each_name_is_told_once_and_the_player_keeps_his_commitments(map_file: str) -> None:
    campaign = _campaign(map_file, [STAND, MOVE, MOVE])
    service = next(campaign)
    lineage = service.target("g")
    told = [e.event for e in service.log(lineage, viewer="blue", types=[OrdersHandedIn.TYPE])]
    assert told == [OrdersHandedIn(player="red", turn=1)]
    assert service.log(lineage, viewer="blue", types=[OrdersCommitted.TYPE]) == []
    # Red sees each of his own commitments: he checks the reveal against the last one.
    assert len(service.log(lineage, viewer="red", types=[OrdersCommitted.TYPE])) == 3
    next(campaign)
    for player in ("red", "blue"):
        (orders_news,) = [s for s in service.report(lineage, player).stories if s.kind == "orders"]
        sentences = [s for s in orders_news.places[0].sentences if "handed in" in s]
        assert sentences == ["Orders were handed in by red."]
    report = service.verify(lineage)
    assert (report.ok, report.orders_revealed) == (True, 1)


def test_the_trials_repro_from_the_command_line(tmp_path: Path, map_file: str) -> None:
    """The trial's steps: red hands in the same file twice, the turn resolves, blue reads."""
    runner = CliRunner()
    db = ["--db", f"sqlite:///{tmp_path / 'u.db'}", "--campaign", "g"]

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, *db], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    runner.invoke(app, ["new", "g", "--players", "red,blue", "--map", map_file, "--db", db[1]])
    sent = tmp_path / "r1.toml"
    sent.write_text(MOVE)
    run("orders", "submit", str(sent), "--player", "red")
    run("orders", "submit", str(sent), "--player", "red")
    run("turn", "resolve", "--turn", "1")
    lines = [line for line in run("report", "--player", "blue").splitlines() if "handed in" in line]
    assert [line.strip() for line in lines] == ["Orders were handed in by red."]


Seen = list[tuple[int, str, dict[str, Any]]]


def _ft2_at_lafayette(sends: list[str]) -> tuple[Seen, Seen]:
    """An FT2 campaign whose turn 2 finds the ESU and the NAC at Rock and Lafayette: the NAC
    hands in `sends` (bodies of orders files) while the encounters wait, each file orders
    once more with its decisions. What the ESU is shown then, and after the turn resolves."""
    service = CampaignService.open(
        "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    plan = plan_ft2_campaign("w", ("esu", "nac"), "lafayette", 100, seed="ids", forces=FORCES)
    service.new_ft2_campaign(plan)
    lineage = service.target("w")
    ft2_orders(service, lineage, "esu", 1, move("esu-F1", "0404") + move("esu-F2", "0709"))
    ft2_orders(service, lineage, "nac", 1, "")
    service.resolve_turn(lineage)
    ft2_orders(service, lineage, "esu", 2, move("esu-F1", "Rock") + move("esu-F2", "Lafayette"))
    ft2_orders(service, lineage, "nac", 2, "")
    ft2_orders(service, lineage, "nac", 2, "")  # orders sent twice: told once
    service.resolve_turn(lineage)
    for body in sends:
        ft2_orders(service, lineage, "nac", 2, body)

    def seen() -> Seen:
        # The decisions' nonces, revealed, are the test's counter (random in play): left out.
        shown = [
            (e.position, e.type, msgspec.to_builtins(e.event))
            for e in service.log(lineage, viewer="esu")
        ]
        return [(n, t, {**ev, "nonces": None} if "nonces" in ev else ev) for n, t, ev in shown]

    waiting = seen()
    service.resolve_turn(lineage)
    resolved = seen()
    service.close()
    return waiting, resolved


def decisions(*pairs: tuple[str, str]) -> str:
    return "".join(
        f'[[decisions]]\nencounter = "E2-{hex_}"\ndecision = "{decision}"\n'
        for hex_, decision in pairs
    )


def test_the_esu_cannot_count_the_nacs_ft2_orders_or_changes_of_mind() -> None:
    """FT2 (issue 20): orders and encounter decisions likewise. The NAC decides for Lafayette
    once, or changes his mind three times (once twice in one file): the ESU is shown the same,
    `decision_written` once for each encounter decided, no commitment of the NAC's."""
    once = _ft2_at_lafayette([decisions((LAFAYETTE, "fight"))])
    changed = _ft2_at_lafayette(
        [
            decisions((LAFAYETTE, "withdraw"), (LAFAYETTE, "stand-off")),
            decisions((LAFAYETTE, "stand-off")),
            decisions((LAFAYETTE, "fight")),
        ]
    )
    assert once == changed
    waiting, _ = once
    told = [t for _, t, _ in waiting if t in ("decision_written", "decision_committed")]
    assert told == ["decision_written"]
    handed_in = [e for _, t, e in waiting if t == "orders_handed_in"]
    assert handed_in.count({"player": "nac", "turn": 2}) == 1
