"""Reports people want to read (issue 16): the news as sentences by kind and place, forces by
hex, the deadline; battle reports and replays, each player only his own battles.

Three players on a small map: red (two warships and a scout troop) and blue (one warship) meet
at Alpha on turn 1 and fight battle t1-b1 with the engine; green explores Beta, far away, and
is in no battle. The dice are seeded, so every report is the same each run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from campaign import render
from campaign.battlereport import battle_report
from campaign.errors import InvalidInputError
from campaign.events import (
    BattleFought,
    BattleRequested,
    DeadlineSet,
    SystemExplored,
    UnitMoved,
)
from campaign.news import news_of, place_name
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import BattleKnowledge, PlanetReport
from cli import app
from tests.conftest import FixedClock
from tests.test_render import check_golden, text_of
from tests.test_strategic import orders

TRIO_MAP = """
format = "stellar-umpire-map"
version = 1
name = "trio"
title = "Trio"
width = 6
height = 3

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "0301"

[[entries]]
name = "3"
hex = "0601"

[[systems]]
name = "Alpha"
hex = "0201"
colour = "yellow"

[[systems]]
name = "Beta"
hex = "0502"
colour = "red"
"""
PLAYERS = ("red", "blue", "green")
DEADLINE = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
runner = CliRunner()


def play_trio(db: str, folder: Path) -> None:
    """Turn 1 of the trio campaign, its battle fought by the engine, and turn 2's deadline."""
    map_file = folder / "trio.toml"
    map_file.write_text(TRIO_MAP)
    service = CampaignService.open(db, clock=FixedClock(), create=True)
    service.new_campaign(plan_campaign("trio", PLAYERS, seed="e", map_spec=str(map_file)))
    lineage = service.target("trio")
    red = orders(
        "red",
        1,
        ("red-W1", "0201", "engage"),
        ("red-W2", "0201", "engage"),
        ("red-S1", "0201", "stand-off"),
    )
    service.submit_orders(lineage, "red", red)
    service.submit_orders(lineage, "blue", orders("blue", 1, ("blue-W1", "0201", "engage")))
    service.submit_orders(lineage, "green", orders("green", 1, ("green-S1", "0502", "stand-off")))
    service.resolve_turn(lineage)
    service.resolve_battles(lineage)
    service.resolve_turn(lineage)
    service.set_deadline(lineage, DEADLINE)
    service.close()


class Trio:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = str(folder / "trio.db")
        play_trio(self.db, folder)

    def umpire(self, *args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", self.db])
        assert result.exit_code == code, result.stdout + result.stderr
        return result.stdout + result.stderr


@pytest.fixture(scope="module")
def trio(tmp_path_factory: pytest.TempPathFactory) -> Trio:
    return Trio(tmp_path_factory.mktemp("trio"))


@pytest.fixture
def service(trio: Trio) -> Iterator[tuple[CampaignService, Lineage]]:
    opened = CampaignService.open(trio.db, clock=FixedClock())
    yield opened, opened.target("trio")
    opened.close()


# ---------------------------------------------------------------- news as sentences


def test_news_is_told_by_kind_and_place() -> None:
    """Two units arriving together make one sentence at their place; kinds keep their order."""
    names = {"0201": "Alpha"}
    events = [
        SystemExplored(
            player="red",
            system="Alpha",
            hex="0201",
            planets=(PlanetReport(3, "terran", 40, True),),
        ),
        UnitMoved(unit="red-W1", path=("0101", "0201"), order="engage"),
        UnitMoved(unit="red-W2", path=("0101", "0201"), order="engage"),
        UnitMoved(unit="red-S1", path=(), order="stand-off"),
        DeadlineSet(turn=2, deadline=DEADLINE),
    ]
    sections = news_of("red", events, names)
    assert [s.kind for s in sections] == ["moves", "exploration", "umpire"]
    moves = sections[0]
    assert [p.where for p in moves.places] == ["Alpha (0201)", ""]
    assert moves.places[0].sentences == (
        "red-W1 and red-W2 arrived by way of 0101, under Engage orders.",
    )
    assert moves.places[1].sentences == ("red-S1 held position under Stand-off orders.",)
    assert sections[1].places[0].sentences == ("Explored: orbit 3 terran 40M (mineral-rich).",)
    assert sections[2].places[0].sentences == (
        "Orders for turn 2 are due by 2026-03-01 18:00 UTC.",
    )
    assert place_name("0404", names) == "deep space (0404)"


def test_reports_render_as_their_golden_files(service: tuple[CampaignService, Lineage]) -> None:
    opened, lineage = service
    red = opened.report(lineage, "red")
    check_golden("report_red", text_of(render.report_view(red)))
    check_golden("report_red_md", render.report_markdown(red))
    check_golden("report_red_html", render.report_html(red))
    green = opened.report(lineage, "green")
    check_golden("report_green_md", render.report_markdown(green))


def test_a_report_shows_the_deadline_forces_by_place_and_news_as_sentences(
    service: tuple[CampaignService, Lineage],
) -> None:
    opened, lineage = service
    red = opened.report(lineage, "red")
    markdown = render.report_markdown(red)
    assert "**Orders for turn 2 are due by 2026-03-01 18:00 UTC.**" in markdown
    assert "### Alpha (0201)\n\n| unit | what | order | captain |\n" in markdown
    assert "### Battles" in markdown
    assert "Battle t1-0201 was fought (by the engine)." in markdown
    assert "orders_committed" not in markdown  # no log rows
    # A report of a past turn has no deadline: the one shown is the turn in progress's.
    assert opened.report(lineage, "red", 1).deadline is None


@pytest.mark.parametrize("player", PLAYERS)
def test_the_news_holds_nothing_outside_a_players_view(
    service: tuple[CampaignService, Lineage], player: str
) -> None:
    """Every unit id and battle id in a report's news is one of his events' (can fail: the
    umpire's log holds the others')."""
    opened, lineage = service
    report = opened.report(lineage, player)
    seen = msgspec.json.encode([e.event for e in opened.player_view(lineage, player)]).decode()
    told = msgspec.json.encode(report.stories).decode() + render.report_markdown(report)
    named = r"\b(?:red|blue|green)-[A-Z]+\d+\b|\bt\d+-(?:b\d+|\d{4})\b"
    ids = set(re.findall(named, told))
    assert ids, player
    assert ids <= set(re.findall(named, seen))
    if player == "green":
        assert "t1-b1" not in told
        assert "t1-0201" not in told
        assert "Alpha" not in told
    whole = msgspec.json.encode([e.event for e in opened.log(lineage)]).decode()
    assert "t1-b1" in whole
    assert "blue-W1" in whole


def test_a_battle_requested_reads_as_a_sentence() -> None:
    from campaign.strategic import Battle, BattleSide

    battle = Battle(
        id="t4-b2",
        hex="0201",
        system="Alpha",
        type="pursuit",
        pursued="blue",
        sides=(BattleSide("red", "engage", ("red-W1",)), BattleSide("blue", "ftl-move", ("b",))),
    )
    (section,) = news_of("red", [BattleRequested(battle=battle)], {"0201": "Alpha"})
    assert section.places[0].sentences == (
        "Battle t4-b2, a pursuit of blue in free space: red (1 ship, Engage) against "
        "blue (1 ship, FTL Move).",
    )


# ---------------------------------------------------------------- battle reports


def test_a_battle_report_tells_each_ship_and_the_table_turn_by_turn(
    service: tuple[CampaignService, Lineage],
) -> None:
    opened, lineage = service
    red = opened.battle_report(lineage, "t1-0201", "red")
    assert red.where == "Alpha (0201)"
    assert [f.id for f in red.forces] == ["blue-W1", "red-W1", "red-W2"]
    fates = {f.id: f for f in red.fates}
    fought = [e.event for e in opened.log(lineage, types=["battle_fought"])]
    (truth,) = fought
    assert isinstance(truth, BattleFought)
    assert {r.unit: r.fate for r in truth.results} == {u: f.fate for u, f in fates.items()}
    umpire = opened.battle_report(lineage, "t1-b1")
    assert {r.unit: r.hull_lost for r in truth.results} == {f.id: f.hull_lost for f in umpire.fates}
    assert red.turns
    assert [t.turn for t in red.turns] == list(range(1, len(red.turns) + 1))
    # A campaign battle starts with bogeys (004 L39): red knows his own ships; blue's is a
    # contact to him until identified. What became of his own ships is the same for all.
    assert {c.label for c in red.start if c.kind == "ship"} == {"red-W1", "red-W2"}
    assert {c.side for c in red.start if c.kind == "contact"} <= {"blue"}
    assert [f for f in umpire.fates if f.side == "red"] == [f for f in red.fates if f.side == "red"]
    # The enemy's captain is his own: red sees his own captains' levels, not blue's.
    captains = {f.id: f.captain for f in red.forces}
    assert captains["blue-W1"] is None
    assert captains["red-W1"] is not None
    assert opened.battle_report(lineage, "t1-b1").forces[0].captain is not None
    check_golden("battle_red", text_of(render.battle_report_view(red, turns=True)))


def test_a_battle_replay_is_a_self_contained_animated_page(
    service: tuple[CampaignService, Lineage],
) -> None:
    opened, lineage = service
    red = opened.battle_report(lineage, "t1-0201", "red")
    page = render.battle_replay_html(red)
    assert page.startswith("<!doctype html>")
    assert "<script" not in page
    assert "src=" not in page  # nothing fetched from elsewhere
    frames = re.findall(r"<g class='frame' data-frame='(\d+)'", page)
    assert len(frames) == len(red.turns) + 1
    assert page.count("<animate attributeName='opacity'") == len(frames)
    for turn in red.turns:
        assert f"<h3>Turn {turn.turn}</h3>" in page


def test_a_player_never_sees_a_battle_he_was_not_in(
    trio: Trio, service: tuple[CampaignService, Lineage]
) -> None:
    """Green fought no battle: t1-b1 (real) and t7-b9 (made up) get the same refusal, which
    names only his own battles; the CLI prints nothing else and exits 2."""
    opened, lineage = service
    refusals = []
    for battle_id in ("t1-b1", "t1-0201", "t7-b9"):
        with pytest.raises(InvalidInputError) as refused:
            opened.battle_report(lineage, battle_id, "green")
        refusals.append(str(refused.value).replace(battle_id, "ID"))
    assert (
        refusals[0]
        == refusals[1]
        == refusals[2]
        == ("no battle 'ID' among the battles green fought in (none yet)")
    )
    result = runner.invoke(
        app, ["battles", "show", "t1-b1", "--as-player", "green", "--db", trio.db]
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "blue" not in result.stderr
    assert "red" not in result.stderr
    shown = trio.umpire("battles", "show", "t1-0201", "--as-player", "red", "--turns")
    assert "Battle t1-0201 at Alpha (0201), as red saw it" in shown
    assert opened.fought_battles(lineage, "green") == []
    assert opened.fought_battles(lineage, "red") == ["t1-0201"]


def test_the_web_page_shows_a_player_his_own_battles_only(
    service: tuple[CampaignService, Lineage],
) -> None:
    """The web page (issue 16): red's battle list links t1-0201 and its page is the battle as
    red saw it (the replay of `umpire battles show`); green, who fought none, gets the same
    404 for that battle as for a made-up one, naming nothing of it."""
    from starlette.testclient import TestClient

    from campaign.players import PlayerSecrets
    from campaign.web import create_app
    from tests.test_web import sign_in

    opened, _ = service
    keys = PlayerSecrets(opened.store)
    secrets = {p: keys.issue("trio", p) for p in ("red", "green")}
    with TestClient(create_app(opened, secret_key="k", https_only=False)) as red:
        sign_in(red, "trio", "red", secrets["red"])
        assert "href='/battles/t1-0201'" in red.get("/battles").text
        page = red.get("/battles/t1-0201")
        assert page.status_code == 200
        assert "Battle t1-0201 at Alpha (0201), as red saw it" in page.text
        assert "red-W1" in page.text
    with TestClient(create_app(opened, secret_key="k", https_only=False)) as green:
        sign_in(green, "trio", "green", secrets["green"])
        assert "no battle yet" in green.get("/battles").text
        answers = [green.get(f"/battles/{b}") for b in ("t1-b1", "t7-b9")]
        assert [a.status_code for a in answers] == [404, 404]
        texts = [a.text.replace(b, "ID") for a, b in zip(answers, ("t1-b1", "t7-b9"), strict=True)]
        assert texts[0] == texts[1]
        assert "red" not in texts[0].replace("green", "")
        assert "blue" not in texts[0]


def test_the_published_package_holds_a_players_own_battles_only(trio: Trio) -> None:
    out = trio.folder / "published"
    trio.umpire("publish", "--out", str(out), "--turn", "1")
    assert (out / "red" / "battle-t1-0201.html").exists()
    assert (out / "blue" / "battle-t1-0201.html").exists()
    green = "".join(p.read_text() for p in (out / "green").iterdir())
    assert not list((out / "green").glob("battle-*"))
    assert "t1-0201" not in green
    assert "blue-W1" not in green
    replay = (out / "red" / "battle-t1-0201.html").read_text()
    assert "as red saw it" in replay


def _the_battle(opened: CampaignService, lineage: Lineage) -> tuple[BattleFought, Any]:
    """The fixture campaign's one `battle_fought` event, and its journal record (request,
    set-up and the engine's journal) as JSON to vary."""
    (recorded,) = opened.log(lineage, types=["battle_fought"])
    fought = recorded.event
    assert isinstance(fought, BattleFought)
    assert fought.journal is not None
    return fought, json.loads(fought.journal)


def test_with_bogeys_a_side_sees_unidentified_enemies_only_as_contacts(
    service: tuple[CampaignService, Lineage],
) -> None:
    """The replay is drawn from `tactical.battle.view`: at the start of a battle with bogeys
    (001 L933-951), red sees blue's ship only as a labelled contact, never its id or place
    name; the umpire sees the ship."""
    opened, lineage = service
    fought, record = _the_battle(opened, lineage)
    record["setup"]["bogeys"] = True
    record["setup"]["movement"] = "cinematic"
    record["journal"] = []  # the set-up only: the table before anyone is identified
    hidden = msgspec.structs.replace(fought, journal=json.dumps(record))
    red = battle_report(hidden, "red", "Alpha (0201)")
    assert {c.label for c in red.start if c.kind == "ship"} == {"red-W1", "red-W2"}
    (contact,) = [c for c in red.start if c.kind == "contact"]
    assert contact.side == "blue"
    assert "blue-W1" not in render.battle_replay_svg(red)
    umpire = battle_report(hidden, "umpire", "Alpha (0201)")
    assert "blue-W1" in {c.label for c in umpire.start}
    with pytest.raises(ValueError, match="green was not in battle t1-b1"):
        battle_report(hidden, "green", "Alpha (0201)")


# ---------------------------------------------------------------- closed record sheets


def _row(text: str, ship: str, fate: str) -> str:
    """The line of a rendered fates table that tells `ship`'s fate."""
    (line,) = [ln for ln in text.splitlines() if f" {ship} " in ln and fate in ln]
    return line


def _fought_as_told(events: list[dict[str, object]]) -> dict[str, object]:
    (fought,) = [e["event"] for e in events if e["type"] == "battle_fought"]
    assert isinstance(fought, dict)
    return fought


def test_under_closed_record_sheets_a_side_learns_of_an_enemy_ship_its_fate_only(
    trio: Trio, service: tuple[CampaignService, Lineage]
) -> None:
    """t1-b1 is fought under Continuum rules, whose record sheets are closed (000 L1462-1466):
    neither side scanned the other (no advanced sensors: `BattleState.known` is empty), so each
    identified the enemy's ships, which shows their class, and saw their fates (docs/rulings.md,
    "Campaign: what a side learns of an enemy ship's fate"). Blue learns that red-W2 came
    through, not its design or the 13 hull boxes it lost; red that blue-W1 was destroyed, not
    the systems it lost. The umpire sees all of it, in every surface."""
    opened, lineage = service
    umpire = opened.battle_report(lineage, "t1-b1")
    truth = {f.id: f for f in umpire.fates}
    designs = {f.id: f.design for f in umpire.forces}
    # What is hidden below exists: the test means something.
    assert truth["red-W2"].hull_lost == 13
    assert designs["red-W2"] == "heavy_cruiser"
    assert truth["blue-W1"].destroyed == ("dcp-1",)
    blue = opened.battle_report(lineage, "t1-0201", "blue")
    red = opened.battle_report(lineage, "t1-0201", "red")
    seen = {f.id: f for f in blue.fates}
    assert seen["red-W2"].fate == "survived"
    assert seen["red-W2"].hull_lost is None
    assert seen["red-W2"].damaged is None
    assert seen["red-W2"].missiles_spent is None
    force = {f.id: f for f in blue.forces}["red-W2"]
    assert (force.design, force.hull, force.seen_as) == (None, None, "cruiser")
    gone = {f.id: f for f in red.fates}["blue-W1"]
    assert (gone.fate, gone.destroyed, gone.damaged, gone.hull_lost) == (
        "destroyed",
        None,
        None,
        None,
    )
    # His own ships he knows to the last detail.
    assert {f.id: f for f in blue.fates}["blue-W1"] == truth["blue-W1"]

    # `battles show` as a player: the table and its JSON; the umpire's shows it all.
    shown = trio.umpire("battles", "show", "t1-0201", "--as-player", "blue")
    assert [c.strip() for c in _row(shown, "red-W2", "came through").split("│")[4:7]] == ["?"] * 3
    assert "heavy_cruiser" not in _row(shown, "red-W2", "cruiser, design")
    as_umpire = trio.umpire("battles", "show", "t1-b1")
    assert "13" in _row(as_umpire, "red-W2", "came through")
    told = json.loads(trio.umpire("battles", "show", "t1-0201", "--as-player", "red", "--json"))
    (blue_w1,) = [f for f in told["fates"] if f["id"] == "blue-W1"]
    assert blue_w1["destroyed"] is None
    assert "dcp-1" not in json.dumps(told["fates"])

    # The `battle_fought` event he reads: his log and his report's news (report.json).
    for events in (
        json.loads(trio.umpire("log", "--as-player", "blue", "--json")),
        json.loads(trio.umpire("report", "--player", "blue", "--turn", "1", "--format", "json"))[
            "news"
        ],
    ):
        fought = _fought_as_told(events)
        assert fought["journal"] is None
        assert fought["rolls"] == []
        results = {r["unit"]: r for r in fought["results"]}  # type: ignore[union-attr]
        assert results["red-W2"] == {"unit": "red-W2", "fate": "survived"} | {
            k: v for k, v in results["red-W2"].items() if v in (None, 0, [])
        }
        assert results["red-W2"].get("record") is None
        assert results["red-W2"]["hull_lost"] is None  # not told, which 0 ("none") is not
        assert results["red-W2"]["bridge_failures"] is None  # not told, which [] is not
        assert results["blue-W1"]["hull_lost"] == 28  # his own
        # What his side knew of each enemy ship (identified: its class); not what red knew.
        assert fought["knowledge"] == {
            "closed": True,
            "ships": [
                {"side": "blue", "unit": "red-W1", "known": "class"},
                {"side": "blue", "unit": "red-W2", "known": "class"},
            ],
        }
        assert "orders_written" not in json.dumps(events)  # nothing of the journal
    whole = _fought_as_told(json.loads(trio.umpire("log", "--json")))
    assert "orders_written" in str(whole["journal"])

    # The published package and the web page.
    out = trio.folder / "closed"
    trio.umpire("publish", "--out", str(out), "--turn", "1")
    assert "orders_written" not in (out / "blue" / "report.json").read_text()
    page = (out / "blue" / "battle-t1-0201.html").read_text()
    assert "<td>red-W2</td><td>came through</td><td>?</td><td>?</td><td>?</td>" in page
    assert "<td>red-W2</td><td>cruiser, design unknown</td><td>?</td>" in page


def test_the_web_battle_page_tells_an_enemy_ships_fate_only(
    service: tuple[CampaignService, Lineage],
) -> None:
    """Red's web page of t1-0201 tells blue-W1 destroyed and nothing of its losses; his log
    page reads the event as he may."""
    from starlette.testclient import TestClient

    from campaign.players import PlayerSecrets
    from campaign.web import create_app
    from tests.test_web import sign_in

    opened, _ = service
    keys = PlayerSecrets(opened.store)
    # The web test above may have issued red's secret already (the campaign is the module's).
    held = keys.holds_secret("trio", "red")
    secret = keys.rotate("trio", "red") if held else keys.issue("trio", "red")
    with TestClient(create_app(opened, secret_key="k", https_only=False)) as red:
        sign_in(red, "trio", "red", secret)
        page = red.get("/battles/t1-0201").text
        assert "<td>blue-W1</td><td>destroyed</td><td>?</td><td></td><td>?</td>" in page
        assert "dcp-1" not in page
        assert "battle t1-0201 fought (engine): destroyed blue-W1" in red.get("/log").text


def test_under_open_record_sheets_a_side_sees_every_ships_fate(
    service: tuple[CampaignService, Lineage],
) -> None:
    """The same battle with the set-up's `enemy_sheets = "open"` (FT2's and FT Lite's
    books, 000 L1442-1458): red sees blue-W1's losses as the umpire does, and reads the
    event whole; so he does a battle recorded by hand (fought at an open table)."""
    from campaign.battletold import battle_as_told

    opened, lineage = service
    fought, record = _the_battle(opened, lineage)
    record["setup"]["enemy_sheets"] = "open"
    # As an event fought before the event recorded what each side knew: its replay tells.
    opened_books = msgspec.structs.replace(fought, journal=json.dumps(record), knowledge=None)
    red = battle_report(opened_books, "red", "Alpha (0201)")
    umpire = battle_report(opened_books, "umpire", "Alpha (0201)")
    assert red.fates == umpire.fates
    assert [f.design for f in red.forces] == [f.design for f in umpire.forces]
    assert battle_as_told(opened_books, "red") == opened_books
    recorded_open = msgspec.structs.replace(fought, knowledge=BattleKnowledge(closed=False))
    assert battle_as_told(recorded_open, "red") == recorded_open
    by_hand = msgspec.structs.replace(fought, journal=None, source="umpire", knowledge=None)
    assert battle_as_told(by_hand, "red") == by_hand
    assert battle_as_told(fought, "umpire") == fought
    closed = battle_as_told(fought, "red")
    assert closed.journal is None
    assert {r.unit: r.fate for r in closed.results} == {r.unit: r.fate for r in fought.results}


def test_a_battle_fought_before_its_sides_knowledge_was_recorded_is_told_the_same(
    service: tuple[CampaignService, Lineage], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine records in `battle_fought` what each side knew at the end of each enemy ship
    (`knowledge`), and telling the event reads that, replaying nothing. An event stored before
    (its payload has no `knowledge`) still decodes, and is told each side exactly the same by
    replaying its journal (`replayed_knowledge`)."""
    from campaign import battleknowledge
    from campaign.battletold import battle_as_told
    from campaign.events import decode_payload, encode_payload

    opened, lineage = service
    fought, _ = _the_battle(opened, lineage)
    payload = json.loads(encode_payload(fought))
    del payload["knowledge"]
    old = decode_payload(1, "battle_fought", 1, json.dumps(payload))
    assert old == msgspec.structs.replace(fought, knowledge=None)
    assert battleknowledge.replayed_knowledge(old) == fought.knowledge
    told = {p: battle_as_told(fought, p) for p in ("red", "blue")}
    assert told["red"] != told["blue"]
    for player in ("red", "blue"):
        assert battle_as_told(old, player) == told[player]

    def no_replay(fought: BattleFought) -> None:
        raise AssertionError(f"replayed {fought.battle.id}")

    monkeypatch.setattr(battleknowledge, "replayed_knowledge", no_replay)
    (mine,) = [e.event for e in opened.log(lineage, viewer="blue") if e.type == "battle_fought"]
    # His log names the battle as he knows it (campaign.battlenames).
    named = msgspec.structs.replace(fought.battle, id="t1-0201")
    assert mine == msgspec.structs.replace(told["blue"], battle=named)
    with pytest.raises(AssertionError, match="replayed t1-b1"):
        battle_as_told(old, "blue")


def test_a_players_log_tells_his_battles_without_loading_the_replay(trio: Trio) -> None:
    """`umpire log --as-player` run as `umpire` runs it: telling his recorded battle loads
    neither `campaign.battleknowledge` (the engine's replay) nor any of the engine's modules the
    service itself does not (issue 19: a read loads only what it needs). The same process
    telling the event without its record (an old event) does load the replay."""
    argv = ["log", "--as-player", "blue", "--json", "--db", trio.db]
    watched = ("tactical", "campaign.battleknowledge", "campaign.battlereport")
    probe = (
        "import sys, msgspec\n"
        "from cli import app_for\n"
        "from campaign.service import CampaignService, _as_told\n"
        "def loaded():\n"
        f"    return {{m for m in sys.modules if m.startswith({watched!r})}}\n"
        "before = loaded()\n"
        f"app_for({argv!r})({argv!r}, standalone_mode=False)\n"
        "print('LOG LOADED', sorted(loaded() - before))\n"
        f"service = CampaignService.open({trio.db!r})\n"
        "(fought,) = service.log(service.target('trio'), types=['battle_fought'])\n"
        "_as_told(msgspec.structs.replace(fought.event, knowledge=None), 'blue')\n"
        "print('OLD LOADED', 'campaign.battleknowledge' in sys.modules)\n"
    )
    root = Path(__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-2:] == ["LOG LOADED []", "OLD LOADED True"]
    assert '"knowledge"' in done.stdout  # the log did tell the battle


def test_what_a_side_learns_of_an_enemy_ship_grows_with_its_scans() -> None:
    """12.2's table (000 L12648-12660), as the battle report's forces and fates tell it: a
    ship never identified shows its fate only; identified, its class; a scan of 3 its mass,
    4 its thrust and screens, 5 its design and hull boxes, 6+ everything."""
    from campaign.battleknowledge import ShipKnowledge
    from campaign.battlereport import ForceShip, ShipFate, fate_as_known, force_as_known
    from tactical.sensors import DRIVE_KNOWN, MASS_KNOWN, SYSTEMS_KNOWN, Sighting

    force = ForceShip(
        id="blue-W1", side="blue", design="battleship", hull=37, hull_left=30, fighters=6
    )
    fate = ShipFate(
        id="blue-W1",
        side="blue",
        fate="disengaged",
        hull_lost=12,
        hull_left=18,
        damaged=("beam4-1",),
        destroyed=("pds-1",),
        fighters_lost=2,
        missiles_spent=0,
    )

    def seen(level: int) -> ShipKnowledge:
        sighting = Sighting(level=level, shows="capital", mass=124, thrust=4, screens=1)
        return ShipKnowledge(identified=True, sighting=sighting)

    never = ShipKnowledge(identified=False)
    rows = {
        "unidentified": (never, "never identified", None, None),
        "class": (seen(0), "capital", None, None),
        "mass": (seen(MASS_KNOWN), "capital, mass 124", None, None),
        "drive": (seen(DRIVE_KNOWN), "capital, mass 124, thrust 4, screens 1", None, None),
        "systems": (seen(SYSTEMS_KNOWN), None, "battleship", 37),
    }
    for name, (known, seen_as, design, hull) in rows.items():
        assert known.known == name  # as the `battle_fought` event records it
        told = force_as_known(force, known)
        assert (told.seen_as, told.design, told.hull) == (seen_as, design, hull), name
        assert (told.hull_left, told.fighters) == (None, None), name
        lost = fate_as_known(fate, known)
        assert lost.fate == "disengaged", name
        assert (lost.hull_lost, lost.hull_left, lost.damaged, lost.destroyed) == (None,) * 4
        assert (lost.fighters_lost, lost.missiles_spent) == (None, None), name
    everything = ShipKnowledge(identified=True)
    assert everything.known == "everything"
    assert force_as_known(force, everything) == force
    assert fate_as_known(fate, everything) == fate
    assert force_as_known(force, None) == force  # his own, the umpire's, open books
    gone = fate_as_known(msgspec.structs.replace(fate, fate="destroyed"), seen(0))
    assert (gone.fate, gone.hull_left) == ("destroyed", 0)  # everyone saw it go


REPLAY_SCREENSHOT_ENV = "UMPIRE_REPLAY_SCREENSHOT"  # e.g. docs/battle-replay.png


def test_the_replay_plays_turn_by_turn_in_headless_chromium(
    service: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    """The replay page, opened from disk in Chromium: the start frame shows first, then each
    turn's in its slot; the page fetches nothing."""
    from playwright.sync_api import sync_playwright

    from tests.test_web import CHROMIUM, CHROMIUM_FLAGS

    opened, lineage = service
    red = opened.battle_report(lineage, "t1-0201", "red")
    page_file = tmp_path / "replay.html"
    page_file.write_text(render.battle_replay_html(red))
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 900, "height": 1400})
            page.on("request", lambda request: requests.append(request.url))
            page.goto(page_file.as_uri())
            shown = (
                "() => [...document.querySelectorAll('g.frame')]"
                ".map(g => getComputedStyle(g).opacity)"
            )
            first = page.evaluate(shown)
            assert first[0] == "1"
            assert set(first[1:]) == {"0"}
            page.wait_for_timeout(2500)  # a frame lasts 2 s
            second = page.evaluate(shown)
            assert second.index("1") == 1
            assert second.count("1") == 1
            shot = os.environ.get(REPLAY_SCREENSHOT_ENV) or str(tmp_path / "replay.png")
            page.screenshot(path=shot, full_page=True)
        finally:
            browser.close()
    assert requests == [page_file.as_uri()]


def test_the_package_report_links_the_players_battle_pages(trio: Trio) -> None:
    out = trio.folder / "linked"
    trio.umpire("publish", "--out", str(out), "--turn", "1")
    for player in ("red", "blue"):
        page = (out / player / "report.html").read_text()
        assert "<a href='battle-t1-0201.html'>Battle t1-0201</a>" in page
        assert (out / player / "battle-t1-0201.html").exists()
        assert "[Battle t1-0201](battle-t1-0201.html)" in (out / player / "report.md").read_text()
    assert "battle-" not in (out / "green" / "report.html").read_text()


def test_landings_and_sightings_read_as_sentences() -> None:
    """The words `tests/test_campaign_done_when.py` finds in a report of that turn."""
    from campaign.events import ColonistsLanded, LandingFailed, ShipsSighted
    from campaign.strategic import Colony, ShipCount, Sighting

    colony = Colony(
        id="Alpha/3",
        owner="red",
        system="Alpha",
        hex="0201",
        orbit=3,
        planet_type="terran",
        capacity=60,
        population=10,
    )
    events = [
        ColonistsLanded(unit="red-T1", colony=colony, colonists=10),
        LandingFailed(
            unit="red-T2",
            planet="Alpha/5",
            reason="Alpha/5 is no planet: exploring found no planet in that orbit",
        ),
        ShipsSighted(
            player="red",
            sightings=(
                Sighting(hex="0201", system="Alpha", turn=3, ships=(ShipCount("blue", 2),)),
            ),
        ),
    ]
    sections = {s.kind: s for s in news_of("red", events, {"0201": "Alpha"})}
    landed, failed = sections["colonies"].places[0].sentences
    assert landed == ("red-T1 landed 10M colonists on Alpha/3 (terran); 10M of 60M live there now.")
    assert "exploring found no planet" in failed
    assert sections["sightings"].title == "Sightings"
    assert sections["sightings"].places[0].sentences == ("Seen there: blue with 2 escorts.",)
