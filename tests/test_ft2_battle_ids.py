"""An FT2 encounter's and battle's id says nothing of the turn's other encounters.

The FT2 campaign numbered a turn's encounters, and the battles they brought, across the
whole turn in hex order (`E2-2`, `B2-2`): the id of one encounter hung on the others, and so
did the dice keyed by it and the name of a fleet jumping out of its battle (the turn's
battles counted). An encounter is known by its turn and hex (`E2-0909`, its battle
`B2-0909`; docs/rulings.md "FT2 campaign: an encounter's id"), which is all its players need
to tell it apart, one star system's hex holding one encounter a turn (001 L1489).

The ESU's two fleets leave X on turn 1; on turn 2 one meets the NAC at Rock (0504) and the
other at Lafayette (0909), the second in hex order; or, in the other world, the first stays
out in deep space and only Lafayette is met. Every player reads of Lafayette, byte for byte,
the same in both worlds: while it waits, its entry in his encounters list, orders template
and map desk; then its events, its battle's report and replay, its lines in his report, his
fleets that were there, and its battle on the command line and the web page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import msgspec
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from campaign import render
from campaign.errors import IllegalCommandError
from campaign.events import UMPIRE, RecordedEvent
from campaign.ft2 import service as ft2
from campaign.ft2.events import (
    DecisionCommitted,
    DecisionMade,
    DisengagementRolled,
    EncounterFound,
    EncounterResolved,
    Ft2BattleFought,
    LongRangeScan,
)
from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_ft2_campaign
from campaign.store import Lineage
from campaign.web import create_app
from cli import app
from tests.conftest import FixedClock
from tests.test_ft2_campaign_cli import move
from tests.test_web import sign_in

PLAYERS = ("esu", "nac")
ROCK, LAFAYETTE = "0504", "0909"
# Two fleets of a frigate and a light cruiser a side (no class over half, 001 L1572): the
# ESU's at X (001 L1554), the NAC's in Rock and Lafayette, without System Defence.
FORCES = {
    "esu": """
[[fleets]]
ships = [{design = "frigate"}, {design = "light_cruiser"}]
[[fleets]]
ships = [{design = "frigate"}, {design = "light_cruiser"}]
""",
    "nac": """
[[fleets]]
hex = "Rock"
ships = [{design = "frigate"}, {design = "light_cruiser"}]
[[fleets]]
hex = "Lafayette"
ships = [{design = "frigate"}, {design = "light_cruiser"}]
""",
}
# A rank-numbered encounter or battle id (`E2-1`, `B2-2`), anywhere in a text.
NUMBERED = re.compile(r"\b[EB]\d+-\d{1,3}\b")
runner = CliRunner()


def orders(service: CampaignService, lineage: Lineage, player: str, turn: int, body: str) -> None:
    service.submit_orders(lineage, player, f'player = "{player}"\nturn = {turn}\n{body}')


class Played(NamedTuple):
    lineage: Lineage
    waiting: dict[str, str]  # what each player read of Lafayette while it awaited decisions


def play(service: CampaignService, name: str, rock: bool, lafayette_by: str) -> Played:
    """Turns 1-2: the ESU's first fleet goes to Rock (or, without `rock`, stays in deep space
    at 0404), its second to Lafayette; both sides fight both encounters. Rock's battle is
    recorded first, from a table; Lafayette's is fought `lafayette_by` the engine, or
    recorded from a table with the ESU frigate jumping out."""
    plan = plan_ft2_campaign(name, PLAYERS, "lafayette", 100, seed="ids", forces=FORCES)
    service.new_ft2_campaign(plan)
    lineage = service.target(name)
    orders(service, lineage, "esu", 1, move("esu-F1", "0404") + move("esu-F2", "0709"))
    orders(service, lineage, "nac", 1, "")
    service.resolve_turn(lineage)
    first = move("esu-F1", "Rock") if rock else ""
    orders(service, lineage, "esu", 2, first + move("esu-F2", "Lafayette"))
    orders(service, lineage, "nac", 2, "")
    service.resolve_turn(lineage)  # the moves, the encounters and their scans
    met = {e.hex: e.id for e in ft2.encounters(service, lineage, UMPIRE)}
    assert sorted(met) == ([ROCK, LAFAYETTE] if rock else [LAFAYETTE])
    waiting = {player: waiting_at_lafayette(service, lineage, player) for player in PLAYERS}
    for hex_ in sorted(met, reverse=True):  # Lafayette's first: the same nonces either way
        for player in PLAYERS:
            ft2.decide(service, lineage, player, met[hex_], "fight")
    service.resolve_turn(lineage)  # revealed together: battles
    umpire = service.load(lineage).ft2
    assert umpire is not None
    fought_at = {b.hex: b.id for b in umpire.battles.values()}
    if rock:
        ft2.record(service, lineage, fought_at[ROCK], ["esu-S1=destroyed", "nac-S1=present:1"])
    if lafayette_by == "engine":
        ft2.fight(service, lineage, fought_at[LAFAYETTE])
    else:
        ft2.record(service, lineage, fought_at[LAFAYETTE], ["esu-S3=jumped:1", "nac-S3=present:2"])
    service.resolve_turn(lineage)  # the week's end
    return Played(lineage, waiting)


def waiting_at_lafayette(service: CampaignService, lineage: Lineage, player: str) -> str:
    """Lafayette's encounter as `player` reads it awaiting decisions: in his encounters list,
    his orders template and his map desk."""
    (listed,) = [e for e in ft2.encounters(service, lineage, player) if e.hex == LAFAYETTE]
    (desk,) = [e for e in ft2.desk(service, lineage, player).encounters if e.hex == LAFAYETTE]
    template = service.orders_template(lineage, player)
    at = template.index(f"# {listed.id}: encounter at Lafayette")
    entry = template[at : template.index("\n\n", at)]
    return msgspec.json.encode([listed, desk, entry]).decode()


def lafayette_as_seen(service: CampaignService, lineage: Lineage, player: str) -> dict[str, str]:
    """Everything `player` reads of Lafayette's encounter and battle, as text."""
    log = service.log(lineage, viewer=player)
    (encounter,) = [
        e.event.encounter.id
        for e in log
        if isinstance(e.event, EncounterFound) and e.event.encounter.hex == LAFAYETTE
    ]
    (battle,) = [
        e.event.battle.id
        for e in log
        if isinstance(e.event, Ft2BattleFought) and e.event.battle.hex == LAFAYETTE
    ]
    events = [e.event for e in log if _about(e, encounter, battle)]
    report = service.battle_report(lineage, battle, player)
    # His second fleet went to Lafayette (the NAC's was there), with any fleet jumping out.
    there = [f for f in ft2.fleets(service, lineage, player) if f.id.startswith(f"{player}-F2")]
    lines = [
        line
        for line in ft2.report(service, lineage, player)
        if any(told in line for told in (encounter, battle, "Lafayette", LAFAYETTE))
    ]
    return {
        "ids": f"{encounter} {battle}",
        "events": msgspec.json.encode(events).decode(),
        "battle report": msgspec.json.encode(report).decode(),
        "replay": render.battle_replay_html(report),
        "fleets there": msgspec.json.encode(there).decode(),
        "report lines": "\n".join(lines),
        "battles": " ".join(b for b in service.fought_battles(lineage, player) if b == battle),
    }


def _about(recorded: RecordedEvent, encounter: str, battle: str) -> bool:
    ev = recorded.event
    if isinstance(ev, EncounterFound):
        return ev.encounter.id == encounter
    if isinstance(ev, LongRangeScan | DecisionCommitted | DecisionMade | EncounterResolved):
        return ev.encounter == encounter
    if isinstance(ev, Ft2BattleFought):
        return ev.battle.id == battle
    if isinstance(ev, DisengagementRolled):
        return ev.battle == battle
    return False


def same_nonce() -> str:
    """Every secret the same (chain key, orders' and decisions' salts): the two worlds draw
    them in different numbers."""
    return "ab" * 32


@pytest.mark.parametrize("lafayette_by", ["engine", "table"])
def test_lafayette_reads_the_same_with_or_without_rock(backend_url: str, lafayette_by: str) -> None:
    """On SQLite (memory and file) and PostgreSQL, both players read Lafayette's encounter
    and battle the same whether or not Rock's came before it in the turn: while it waits,
    then its ids, events, battle report and replay, his report's lines of it and his fleets
    that fought there (the ESU frigate jumping out of a table battle makes a fleet named by
    the turn, not by the battles before it)."""
    service = CampaignService.open(backend_url, clock=FixedClock(), create=True, nonces=same_nonce)
    try:
        both, waited = play(service, "both", rock=True, lafayette_by=lafayette_by)
        alone, waited_alone = play(service, "alone", rock=False, lafayette_by=lafayette_by)
        for player in PLAYERS:
            with_rock = {"waiting": waited[player], **lafayette_as_seen(service, both, player)}
            without = {"waiting": waited_alone[player], **lafayette_as_seen(service, alone, player)}
            for what, text in with_rock.items():
                assert text == without[what], (player, what)
                assert not NUMBERED.findall(text), (player, what)
            assert with_rock["ids"] == f"E2-{LAFAYETTE} B2-{LAFAYETTE}"
            if lafayette_by == "table" and player == "esu":
                assert "esu-F2J2" in with_rock["fleets there"]
        # The umpire knows them by the same names: there is no other.
        umpire = service.log(both, types=[EncounterFound.TYPE])
        ids = {e.event.encounter.id for e in umpire}  # type: ignore[attr-defined]
        assert ids == {f"E2-{ROCK}", f"E2-{LAFAYETTE}"}
        assert service.fought_battles(both, UMPIRE) == [f"B2-{ROCK}", f"B2-{LAFAYETTE}"]
    finally:
        service.close()


# ---------------------------------------------------------------- every surface, in a file


class Worlds:
    """The two worlds on one SQLite file, Lafayette's battle fought by the engine."""

    def __init__(self, folder: Path) -> None:
        self.db = str(folder / "ids.db")
        service = CampaignService.open(self.db, clock=FixedClock(), create=True, nonces=same_nonce)
        try:
            play(service, "both", rock=True, lafayette_by="engine")
            play(service, "alone", rock=False, lafayette_by="engine")
        finally:
            service.close()

    def cli(self, *args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", self.db])
        assert result.exit_code == code, result.stdout + result.stderr
        return result.stdout + result.stderr


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Worlds:
    return Worlds(tmp_path_factory.mktemp("ft2-ids"))


@pytest.fixture
def opened(worlds: Worlds) -> Iterator[CampaignService]:
    service = CampaignService.open(worlds.db)
    yield service
    service.close()


def test_no_surface_numbers_the_turns_encounters(
    worlds: Worlds, opened: CampaignService, tmp_path: Path
) -> None:
    """His log, state, report, package, encounters and fleets, orders template, battle
    report and replay, on the command line and in the published package: none holds a
    rank-numbered id, and Lafayette's battle shows the same in both worlds."""
    shown: dict[str, dict[str, str]] = {}
    for campaign in ("both", "alone"):
        for player in PLAYERS:
            at = ["--campaign", campaign]
            replay = tmp_path / f"{campaign}-{player}.html"
            show = ("battles", "show", f"B2-{LAFAYETTE}", "--as-player", player, *at)
            seen = {
                "battles show": worlds.cli(*show, "--turns", "--replay", str(replay)),
                "battles show json": worlds.cli(*show, "--json"),
            }
            # Up to the line naming the replay's file, whose path (which differs) may wrap.
            shown_text, written, _path = seen["battles show"].partition("Replay written to ")
            assert written, seen["battles show"]
            seen["battles show"] = shown_text
            seen["replay file"] = replay.read_text()
            everywhere = {
                "log": worlds.cli("log", "--as-player", player, "--json", *at),
                "state": worlds.cli("state", "--as-player", player, "--json", *at),
                "report": worlds.cli("report", "--player", player, "--json", *at),
                "fleets": worlds.cli("encounters", "fleets", "--as-player", player, *at),
                "template": worlds.cli("orders", "template", "--player", player, *at),
                "encounters": worlds.cli("encounters", "list", "--as-player", player, *at),
            }
            for where, text in {**seen, **everywhere}.items():
                assert not NUMBERED.findall(text), (campaign, player, where)
            assert f"B2-{LAFAYETTE}" in everywhere["log"]
            shown[f"{campaign} {player}"] = seen
    for player in PLAYERS:
        for where, text in shown[f"both {player}"].items():
            assert text == shown[f"alone {player}"][where], (player, where)
    out = tmp_path / "package"
    worlds.cli("publish", "--out", str(out), "--turn", "2", "--campaign", "both")
    for player in PLAYERS:
        for file in sorted((out / player).iterdir()):
            assert not NUMBERED.findall(file.read_text()), file.name


def test_the_decisions_take_the_names_and_refuse_the_numbers(opened: CampaignService) -> None:
    """While encounters wait: the list, template and desk name them by turn and hex; a
    decision names one so, sealed as written; a rank-numbered id is refused as a made-up
    one is, naming his encounters."""
    service = opened
    plan = plan_ft2_campaign("waiting", PLAYERS, "lafayette", 100, seed="ids", forces=FORCES)
    service.new_ft2_campaign(plan)
    lineage = service.target("waiting")
    orders(service, lineage, "esu", 1, move("esu-F1", "0404") + move("esu-F2", "0709"))
    orders(service, lineage, "nac", 1, "")
    service.resolve_turn(lineage)
    orders(service, lineage, "esu", 2, move("esu-F1", "Rock") + move("esu-F2", "Lafayette"))
    orders(service, lineage, "nac", 2, "")
    service.resolve_turn(lineage)
    names = [f"E2-{ROCK}", f"E2-{LAFAYETTE}"]
    for player in PLAYERS:
        assert [e.id for e in ft2.encounters(service, lineage, player)] == names
        template = service.orders_template(lineage, player)
        assert f'encounter = "E2-{LAFAYETTE}"' in template
        assert not NUMBERED.findall(template)
        desk = ft2.desk(service, lineage, player)
        assert [e.id for e in desk.encounters] == names
    refusals = []
    for made_up in ("E2-2", "E2-1", "E9-0909", "nonsense"):
        with pytest.raises(IllegalCommandError) as refused:
            ft2.decide(service, lineage, "nac", made_up, "fight")
        refusals.append(str(refused.value).replace(repr(made_up), "ID"))
    assert set(refusals) == {
        f"no encounter ID of nac's awaits a decision (waiting: {', '.join(names)})"
    }
    orders(
        service, lineage, "nac", 2,
        f'[[decisions]]\nencounter = "E2-{LAFAYETTE}"\ndecision = "fight"\n',
    )  # fmt: skip
    (committed,) = service.log(lineage, 2, [DecisionCommitted.TYPE], "nac")
    assert committed.event.encounter == f"E2-{LAFAYETTE}"  # type: ignore[attr-defined]
    assert service.verify(lineage).ok


def test_the_web_pages_name_them_by_turn_and_hex(worlds: Worlds, opened: CampaignService) -> None:
    service = opened
    pages: dict[str, dict[str, str]] = {}
    for campaign in ("both", "alone"):
        secret = PlayerSecrets(service.store).issue(campaign, "nac")
        with TestClient(create_app(service, secret_key="k", https_only=False)) as nac:
            sign_in(nac, campaign, "nac", secret)
            paths = ("/report", "/map", "/map.svg", "/log", "/orders", "/battles")
            pages[campaign] = {p: nac.get(p).text for p in paths}
            battle = nac.get(f"/battles/B2-{LAFAYETTE}")
            assert battle.status_code == 200
            pages[campaign]["battle"] = battle.text
            assert nac.get("/battles/B2-2").status_code == 404
    for campaign, shown in pages.items():
        assert f"href='/battles/B2-{LAFAYETTE}'" in shown["/battles"]
        for path, text in shown.items():
            assert not NUMBERED.findall(text), (campaign, path)
    assert pages["both"]["battle"] == pages["alone"]["battle"]
