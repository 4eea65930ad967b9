"""Issue 6's done-when, end to end: three players play five turns of a campaign remotely.

Red sends signed files to the umpire's inbox, blue uses the web page, green the command line
with his secret. The umpire sets deadlines; green misses one and the campaign's absent setting
plays for him; the umpire makes a ruling; after every turn `umpire verify` checks each revealed
order against its commitment; every player's published package and web page hold nothing of
another player's units.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import msgspec
from starlette.testclient import TestClient

from campaign.autoplay import format_orders, random_document
from campaign.rules.orders import OrdersDocument
from campaign.service import CampaignService
from campaign.web import create_app
from cli import app
from tests.test_inbox import Umpire, runner
from tests.test_web import sign_in, with_token

PLAYERS = ("red", "blue", "green")
CAMPAIGN = "war"
TURNS = 5
LATE = ("green", 3)  # green misses the deadline of turn 3
RULING_TURN = 2


def moves_only(service: CampaignService, player: str, turn: int) -> tuple[str, str]:
    """A player's orders drawn at random from his own view (moves, task forces, landings),
    and the plain holding-position orders he falls back on if the first are refused."""
    lineage = service.target(CAMPAIGN)
    view = service.load(lineage, viewer=player)
    chart = service.player_map(lineage, player)[0]
    document = random_document(view, chart, player, random.Random(f"{player}/{turn}"))
    moves = msgspec.structs.replace(document, production=(), research=())
    holding = OrdersDocument(player=player, turn=turn, task_forces=document.task_forces)
    return format_orders(moves), format_orders(holding)


def attempt(u: Umpire, *args: str, secret: str | None = None) -> tuple[int, str]:
    """Run `umpire` as a player at home would: the exit code and everything printed."""
    env = {"UMPIRE_SECRET": secret} if secret is not None else {}
    result = runner.invoke(app, [*args, "--db", u.db], env=env, catch_exceptions=False)
    u.outputs.append(result.stdout + result.stderr)
    return result.exit_code, result.stdout + result.stderr


def unit_ids(service: CampaignService) -> dict[str, set[str]]:
    """Every unit id each player has ever had, from the umpire's view."""
    state = service.load(service.target(CAMPAIGN))
    owned: dict[str, set[str]] = {player: set() for player in PLAYERS}
    for unit in state.units.values():
        owned[unit.owner].add(unit.id)
    log = json.dumps([msgspec.to_builtins(r.event) for r in service.log(service.target(CAMPAIGN))])
    for player in PLAYERS:  # units lost in battle or exploration are gone from the state
        owned[player] |= set(re.findall(rf"\b{player}-[A-Z]+\d+\b", log))
    return owned


def others(owned: dict[str, set[str]], player: str) -> set[str]:
    return {unit for other, units in owned.items() if other != player for unit in units}


def test_three_players_play_five_turns_remotely(tmp_path: Path) -> None:  # noqa: PLR0915
    url = f"sqlite:///{tmp_path / 'war.db'}"
    u = Umpire(tmp_path, url)
    u.run("new", CAMPAIGN, "--players", ",".join(PLAYERS), "--map", "classic", "--absent", "hold")
    secrets = {player: u.add(player, CAMPAIGN) for player in PLAYERS}
    service = CampaignService.open(url)
    lineage = service.target(CAMPAIGN)
    web = TestClient(create_app(service, secret_key="k", https_only=False))
    sign_in(web, CAMPAIGN, "blue", secrets["blue"])
    sent = dict.fromkeys(PLAYERS, 0)

    def send(player: str, turn: int, text: str) -> bool:
        """Hand orders in by the player's own channel; True if they were recorded."""
        if player == "red":
            u.signed(f"red-t{turn}.toml", text, "red", secrets["red"], CAMPAIGN)
            args = ("orders", "inbox", str(u.inbox), "--campaign", CAMPAIGN, "--json")
            code, printed = attempt(u, *args)
            return code == 0 and json.loads(printed)[-1]["outcome"] == "accepted"
        if player == "blue":
            return web.post("/orders", data=with_token(web, {"orders": text})).status_code == 200
        path = tmp_path / f"green-t{turn}.toml"
        path.write_text(text)
        submit = ("orders", "submit", str(path), "--player", "green", "--campaign", CAMPAIGN)
        return attempt(u, *submit, secret=secrets["green"])[0] == 0

    try:
        for turn in range(1, TURNS + 1):
            for player in PLAYERS:
                if (player, turn) == LATE:
                    continue
                first, holding = moves_only(service, player, turn)
                assert send(player, turn, first) or send(player, turn, holding), (player, turn)
                sent[player] += 1
            # Due an hour ago: whoever has not sent orders is late, and is refused.
            u.run("turn", "deadline", "2000-01-01T00:00", "--past", "--campaign", CAMPAIGN)
            status = u.run("turn", "status", "--campaign", CAMPAIGN)
            if turn == LATE[1]:
                assert "green" in status
                late = tmp_path / "late.toml"
                late.write_text(moves_only(service, "green", turn)[1])
                refused = u.run(
                    "orders",
                    "submit",
                    str(late),
                    "--player",
                    "green",
                    "--campaign",
                    CAMPAIGN,
                    secret=secrets["green"],
                    code=2,
                )
                assert "were due by 2000-01-01 00:00 UTC" in refused
            if turn == RULING_TURN:
                scout = sorted(
                    unit.id
                    for unit in service.load(lineage).units.values()
                    if unit.owner == "red" and unit.kind == "scout-troop"
                )[0]
                u.run(
                    "ruling",
                    "move",
                    scout,
                    "--reason",
                    "lost in an ion storm: back to the entry",
                    "--campaign",
                    CAMPAIGN,
                )
            u.run("turn", "resolve", "--campaign", CAMPAIGN)
            while json.loads(u.run("battles", "list", "--campaign", CAMPAIGN, "--json")):
                u.run("battles", "resolve", "--campaign", CAMPAIGN)
                u.run("turn", "resolve", "--campaign", CAMPAIGN)
            assert service.load(lineage).turn == turn + 1
            assert "OK" in u.run("verify", "--campaign", CAMPAIGN)

        log = json.loads(u.run("log", "--json", "--campaign", CAMPAIGN))
        kinds = [entry["type"] for entry in log]
        assert kinds.count("orders_revealed") == sum(sent.values())
        absent = [e for e in log if e["type"] == "absent_player"]
        assert [(e["event"]["player"], e["turn"]) for e in absent] == [LATE]
        rulings = [e for e in log if e["type"] == "unit_relocated"]
        assert len(rulings) == 1
        assert rulings[0]["audience"]["players"] == ["red"]
        for player in PLAYERS:
            mine = json.loads(u.run("log", "--json", "--campaign", CAMPAIGN, "--as-player", player))
            has_ruling = any(e["type"] == "unit_relocated" for e in mine)
            assert has_ruling == (player == "red")

        owned = unit_ids(service)
        out = tmp_path / "packages"
        u.run("publish", "--out", str(out), "--campaign", CAMPAIGN)
        for player in PLAYERS:
            folder = out / player
            files = sorted(folder.iterdir())
            assert {f.suffix for f in files} >= {".md", ".html", ".json", ".svg"}
            text = "\n".join(f.read_text() for f in files)
            assert any(unit in text for unit in owned[player])  # the check can fail
            assert not [unit for unit in others(owned, player) if unit in text], player
        pages = [web.get(page).text for page in ("/report", "/map.svg", "/orders", "/log")]
        assert not [u_ for u_ in others(owned, "blue") if any(u_ in page for page in pages)]
        printed = "\n".join(u.outputs)  # everything shown but `player add` itself
        assert not [player for player, secret in secrets.items() if secret in printed]
    finally:
        web.close()
        service.close()
