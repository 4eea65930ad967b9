"""A battle's id as a player reads it says nothing of the other battles of the turn.

The combat phase numbers every battle of a turn in hex order (`t1-b1`, `t1-b2`: the internal
id of the umpire's commands); a player in `t1-b2` would learn from it that another
battle was fought that turn, and roughly where. A player reads and gives a battle by its turn
and hex (`t1-0601`, docs/rulings.md "Campaign: a battle's id as a player knows it"), computed
from what he knows: every surface he sees (log, state, report and package, battle list and
report, replay, web page, refusals) is checked here for the internal numbering.

Four players on a small map: red and blue meet at Alpha (0201) and green and yellow at Beta
(0601) on turn 1: two battles, Alpha's numbered first. Green, in the second, must not be able
to tell there was a first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign import battlenames, render
from campaign.battletold import read_named
from campaign.errors import InvalidInputError
from campaign.events import BattleFought, Event
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from cli import app
from tests.conftest import FixedClock
from tests.test_strategic import orders

QUARTET_MAP = """
format = "stellar-umpire-map"
version = 1
name = "quartet"
title = "Quartet"
width = 7
height = 3

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "0301"

[[entries]]
name = "3"
hex = "0501"

[[entries]]
name = "4"
hex = "0701"

[[systems]]
name = "Alpha"
hex = "0201"
colour = "yellow"

[[systems]]
name = "Beta"
hex = "0601"
colour = "red"
"""
PLAYERS = ("red", "blue", "green", "yellow")
WHERE = {"red": "0201", "blue": "0201", "green": "0601", "yellow": "0601"}
# The internal numbering of the turn's battles, anywhere in a text (a JSON string included).
INTERNAL = re.compile(r"\bt\d+-[ab]\d+\b")
runner = CliRunner()


def play_quartet(db: str, folder: Path, rules: str, alpha: bool = True) -> None:
    """Turn 1: both battles (only Beta's without `alpha`) fought by the engine, turn 2 on."""
    service = CampaignService.open(db, clock=FixedClock(), create=True)
    try:
        play(service, folder, rules, alpha)
    finally:
        service.close()


def play(service: CampaignService, folder: Path, rules: str, alpha: bool = True) -> Lineage:
    map_file = folder / "quartet.toml"
    map_file.write_text(QUARTET_MAP)
    plan = plan_campaign("quartet", PLAYERS, seed="c", map_spec=str(map_file), battle_rules=rules)
    service.new_campaign(plan)
    lineage = service.target("quartet")
    for player in PLAYERS:
        to = WHERE[player] if alpha or player in ("green", "yellow") else None
        moves = [(f"{player}-W{n}", to, "engage") for n in (1, 2)]
        service.submit_orders(lineage, player, orders(player, 1, *moves))
    service.resolve_turn(lineage)
    service.resolve_battles(lineage)
    service.resolve_turn(lineage)
    return lineage


class Quartet:
    def __init__(self, folder: Path, rules: str) -> None:
        self.folder = folder
        self.db = str(folder / "quartet.db")
        play_quartet(self.db, folder, rules)

    def cli(self, *args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", self.db])
        assert result.exit_code == code, result.stdout + result.stderr
        return result.stdout + result.stderr


# Continuum's closed record sheets tell a player his battle without the engine's journal; FT2's
# open ones tell it whole, journal and dice and all.
@pytest.fixture(scope="module", params=["continuum", "ft2"])
def quartet(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Quartet:
    return Quartet(tmp_path_factory.mktemp(f"quartet-{request.param}"), request.param)


@pytest.fixture
def opened(quartet: Quartet) -> Iterator[tuple[CampaignService, Lineage]]:
    service = CampaignService.open(quartet.db)
    yield service, service.target("quartet")
    service.close()


def test_the_umpire_numbers_the_turns_battles(opened: tuple[CampaignService, Lineage]) -> None:
    service, lineage = opened
    assert service.fought_battles(lineage, "umpire") == ["t1-b1", "t1-b2"]
    assert service.fought_battles(lineage, "green") == ["t1-0601"]
    assert service.fought_battles(lineage, "red") == ["t1-0201"]


def test_listing_his_battles_renames_no_journal(
    opened: tuple[CampaignService, Lineage], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A battle's outcome holds its journal, which naming re-encodes whole: a player's battle
    list names each battle by its request, and his battle report names only its own battle.
    (Renaming every battle for every report made the 44-turn campaigns twice as slow.)"""
    service, lineage = opened
    renamed: list[str] = []
    rename = battlenames.renamed

    def counted(ev: Event, name: Callable[[str], str | None]) -> Event:
        renamed.append(ev.TYPE)
        return rename(ev, name)

    monkeypatch.setattr(battlenames, "renamed", counted)
    assert service.fought_battles(lineage, "green") == ["t1-0601"]
    assert BattleFought.TYPE not in renamed
    service.battle_report(lineage, "t1-0601", "green")
    assert renamed.count(BattleFought.TYPE) == 1


def test_nothing_green_reads_numbers_the_turns_battles(
    quartet: Quartet, opened: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    """His log, state, report, package, battle list and report and replay: each names his
    battle `t1-0601` and none holds an internal battle id."""
    service, lineage = opened
    seen = {
        "log": msgspec.json.encode(service.log(lineage, viewer="green")).decode(),
        "state": msgspec.json.encode(service.load(lineage, viewer="green")).decode(),
        "state t1": msgspec.json.encode(service.state_at(lineage, 1, "green")).decode(),
        "report": msgspec.json.encode(service.report(lineage, "green", 1)).decode(),
    }
    package = render.player_package(service.report(lineage, "green", 1), "")
    seen |= {f"package {name}": text for name, text in package.items()}
    battle = service.battle_report(lineage, "t1-0601", "green")
    seen["battle"] = msgspec.json.encode(battle).decode()
    seen["replay"] = render.battle_replay_html(battle)
    replay = tmp_path / "replay.html"
    seen["cli battles show"] = quartet.cli(
        "battles", "show", "t1-0601", "--as-player", "green", "--turns", "--replay", str(replay)
    )
    seen["cli replay file"] = replay.read_text()
    seen["cli battles show json"] = quartet.cli(
        "battles", "show", "t1-0601", "--as-player", "green", "--json"
    )
    seen["cli log"] = quartet.cli("log", "--as-player", "green", "--json")
    seen["cli log dice"] = quartet.cli("log", "--as-player", "green", "--dice")
    seen["cli state"] = quartet.cli("state", "--as-player", "green", "--json")
    seen["cli report"] = quartet.cli("report", "--player", "green", "--turn", "1", "--json")
    for where, text in seen.items():
        assert not INTERNAL.findall(text), where
    for where in ("log", "report", "battle", "cli battles show", "cli log"):
        assert "t1-0601" in seen[where], where


def test_the_published_package_numbers_nothing(quartet: Quartet, tmp_path: Path) -> None:
    quartet.cli("publish", "--out", str(tmp_path), "--turn", "1")
    files = sorted((tmp_path / "green").iterdir())
    assert "battle-t1-0601.html" in [f.name for f in files]
    for file in files:
        assert not INTERNAL.findall(file.read_text()), file.name


def test_a_battle_elsewhere_is_refused_like_a_made_up_one(
    quartet: Quartet, opened: tuple[CampaignService, Lineage]
) -> None:
    """Green asking for Alpha's battle, by either id, gets the refusal a made-up id gets,
    naming his own battle alone."""
    service, lineage = opened
    refusals = []
    for battle_id in ("t1-b1", "t1-b2", "t1-0201", "t7-0101"):
        with pytest.raises(InvalidInputError) as refused:
            service.battle_report(lineage, battle_id, "green")
        refusals.append(str(refused.value).replace(battle_id, "ID"))
    assert len(set(refusals)) == 1
    assert refusals[0] == "no battle 'ID' among the battles green fought in (t1-0601)"
    # The umpire showing the battle as green saw it may name it by his own id: Beta's battle
    # shows as green knows it, Alpha's is refused as green would be.
    shown = quartet.cli("battles", "show", "t1-b1", "--as-player", "green", code=2)
    assert shown.replace("t1-b1", "ID") == f"umpire: error: {refusals[0]}\n"
    assert quartet.cli("battles", "show", "t1-b2", "--as-player", "green", "--json") == (
        quartet.cli("battles", "show", "t1-0601", "--as-player", "green", "--json")
    )


def test_green_reads_the_same_ids_with_or_without_the_other_battle(
    quartet: Quartet, opened: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    """The same turn with red and blue staying home: green's battle ids are the same."""
    service, lineage = opened
    alone = str(tmp_path / "alone.db")
    play_quartet(alone, tmp_path, "continuum", alpha=False)
    other = CampaignService.open(alone)
    try:
        there = other.target("quartet")
        assert other.fought_battles(there, "umpire") == ["t1-b1"]
        assert other.fought_battles(there, "green") == service.fought_battles(lineage, "green")
        news = [e.event for e in other.log(there, 1, ["battle_requested"], "green")]
        assert [e.battle.id for e in news] == ["t1-0601"]  # type: ignore[attr-defined]
    finally:
        other.close()


def test_the_web_page_names_his_battle_by_its_hex(opened: tuple[CampaignService, Lineage]) -> None:
    from starlette.testclient import TestClient

    from campaign.players import PlayerSecrets
    from campaign.web import create_app
    from tests.test_web import sign_in

    service, _ = opened
    secret = PlayerSecrets(service.store).issue("quartet", "green")
    with TestClient(create_app(service, secret_key="k", https_only=False)) as green:
        sign_in(green, "quartet", "green", secret)
        pages = {
            p: green.get(p)
            for p in (
                "/report",
                "/map",
                "/map.svg",
                "/log",
                "/orders",
                "/battles",
                "/battles/t1-0601",
            )
        }
        assert "href='/battles/t1-0601'" in pages["/battles"].text
        assert pages["/battles/t1-0601"].status_code == 200
        for path, page in pages.items():
            assert not INTERNAL.findall(page.text), path
        answers = [green.get(f"/battles/{b}") for b in ("t1-b1", "t1-b2", "t1-0201")]
        assert [a.status_code for a in answers] == [404, 404, 404]


def test_every_store_names_his_battles_alike(backend_url: str, tmp_path: Path) -> None:
    """On SQLite (memory and file) and PostgreSQL: green's folds, read whole and by their
    tails (the process's kept state), his log and his battles read by type and turn name his
    battle alike, and hold no internal id."""
    service = CampaignService.open(backend_url, clock=FixedClock(), create=True)
    try:
        lineage = play(service, tmp_path, "continuum")
        kept = service.load(lineage, viewer="green")  # folded turn by turn as they came
        assert list(kept.pending_battles) == []
        assert service.fought_battles(lineage, "green", 1) == ["t1-0601"]
        assert service.map_view(lineage, "green").battles[0].id == "t1-0601"
        texts = [
            msgspec.json.encode(kept).decode(),
            msgspec.json.encode(service.log(lineage, viewer="green")).decode(),
            msgspec.json.encode(service.report(lineage, "green", 1)).decode(),
        ]
        for text in texts:
            assert not INTERNAL.findall(text)
        assert "t1-0601" in texts[1]
        assert "t1-0601" in texts[2]
        # A read starting after his battle was requested (a kept state's tail) names its
        # outcome from the requests of the turn before it (`BattleNames`).
        _, asked = service.log(lineage, 1, ["battle_requested"])  # Alpha's, then Beta's
        tail = read_named(service.store, lineage, "green", after_version=asked.version)
        fought = [e.event for e in tail if isinstance(e.event, BattleFought)]
        assert [f.battle.id for f in fought] == ["t1-0601"]
        if backend_url != "sqlite://":  # a second process folds it all from the log
            fresh = CampaignService.open(backend_url)
            try:
                assert fresh.load(fresh.target("quartet"), viewer="green") == kept
            finally:
                fresh.close()
    finally:
        service.close()
