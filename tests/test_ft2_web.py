"""The players' web page in an FT2 campaign (issue 20): his report, his map and orders, his
battles' replays, and nothing of the other side's fleets but what he scanned."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from campaign.events import UMPIRE
from campaign.ft2 import rules
from campaign.ft2 import service as ft2
from campaign.ft2.desk import reach
from campaign.ft2.model import Ft2Orders, MoveOrder, load_scenario
from campaign.players import PlayerSecrets
from campaign.projections import CampaignState, evolve_all
from campaign.service import CampaignService, plan_ft2_campaign
from campaign.store import Lineage
from campaign.web import create_app
from maps import label, load_builtin
from tests.test_ft2_campaign_cli import move, toward
from tests.test_web import sign_in, with_token


def test_an_ft2_player_reads_his_report_and_sends_orders(tmp_path: Path) -> None:
    service = CampaignService.open(f"sqlite:///{tmp_path / 'w.db'}", create=True)
    try:
        service.new_ft2_campaign(plan_ft2_campaign("laf", ["esu", "nac"], "lafayette", 10, "w"))
        lineage = service.target("laf")
        secret = PlayerSecrets(service.store).issue("laf", "esu")
        with TestClient(create_app(service, secret_key="k", https_only=False)) as client:
            sign_in(client, "laf", "esu", secret)
            report = client.get("/report")
            assert report.status_code == 200
            assert "esu-F1" in report.text
            assert "nac-" not in report.text  # his rival's fleets are not his to see
            assert "<img class='map' src='/map.svg'" in report.text  # his map, as in 004
            svg = client.get("/map.svg")
            assert 'data-key="esu-F1"' in svg.text  # his counter on his map
            assert "nac-" not in svg.text
            form = client.get("/orders")
            shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", form.text, re.DOTALL)
            assert shown is not None
            text = html.unescape(shown.group(1)).replace('to = "0109"', 'to = "0509"')
            sent = client.post("/orders", data=with_token(client, {"orders": text}))
            assert sent.status_code == 200, sent.text
            assert "Orders recorded" in sent.text
        state = service.load(lineage)
        assert state.ft2 is not None
        assert state.ft2.orders["esu"].moves[0].to == "0509"
        service.mark_final(lineage, "esu")  # "ready", as in the 004 campaign
        assert service.turn_status(lineage).final == ("esu",)
    finally:
        service.close()


def test_signed_replays_are_refused_and_rulings_noted(tmp_path: Path) -> None:
    """As in the 004 campaign: a signed file not newer than one accepted is refused (issue
    13); the umpire's replacement of a player's orders tells him why (issue 6)."""
    import pytest

    from campaign.errors import IllegalCommandError
    from campaign.events import UmpireNoted

    service = CampaignService.open(f"sqlite:///{tmp_path / 's.db'}", create=True)
    try:
        service.new_ft2_campaign(plan_ft2_campaign("laf", ["esu", "nac"], "lafayette", 10, "s"))
        lineage = service.target("laf")
        text = service.orders_template(lineage, "esu")
        service.submit_orders(lineage, "esu", text, sequence=2)
        with pytest.raises(IllegalCommandError, match="not newer than esu's orders number 2"):
            service.submit_orders(lineage, "esu", text, sequence=2)
        recorded = service.replace_orders(lineage, "esu", text, "his file was garbled")
        assert all(r.actor == "umpire" for r in recorded)
        (note,) = [r for r in recorded if isinstance(r.event, UmpireNoted)]
        assert note.audience.players == ("esu",)
    finally:
        service.close()


# ---------------------------------------------------------------- a campaign played on


def ft2_orders(
    service: CampaignService, lineage: Lineage, player: str, turn: int, body: str
) -> None:
    service.submit_orders(lineage, player, f'player = "{player}"\nturn = {turn}\n{body}')


def play_to_the_encounter(service: CampaignService, name: str) -> Lineage:
    """Turns 1-2 of tests/test_ft2_campaign_cli.py: the ESU reaches Lafayette with three
    decoy drones out, where the NAC's System Defence waits; the encounter awaits decisions."""
    service.new_ft2_campaign(plan_ft2_campaign(name, ["esu", "nac"], "lafayette", 10, "web-20"))
    lineage = service.target(name)
    ft2_orders(service, lineage, "esu", 1, move("esu-F1", toward("0109", "Lafayette")))
    ft2_orders(service, lineage, "nac", 1, move("nac-F1", toward("New Toledo", "Hudson")))
    service.resolve_turn(lineage)
    decoys = '[[decoys]]\nfleet = "esu-F1"\ndrones = 3\n'
    ft2_orders(service, lineage, "esu", 2, move("esu-F1", "Lafayette") + decoys)
    ft2_orders(service, lineage, "nac", 2, move("nac-F1", "Hudson"))
    service.resolve_turn(lineage)
    return lineage


def fight_at_lafayette(service: CampaignService, lineage: Lineage) -> str:
    """Fight against stand-off is a battle (001 L1518): fought by the engine; its id."""
    ft2.decide(service, lineage, "esu", "E2-0909", "fight")
    ft2.decide(service, lineage, "nac", "E2-0909", "stand-off")
    service.resolve_turn(lineage)
    (battle,) = ft2.battles_waiting(service, lineage, UMPIRE)
    ft2.fight(service, lineage, battle)
    return battle


NAC_ONLY = ("nac-F", "nac-D", "weasel_scout", "system_defence")  # his fleets, and designs


def test_an_ft2_players_pages_hold_the_other_sides_fleets_only_as_scanned(
    tmp_path: Path,
) -> None:
    """Hidden information (001 L1475): every page and answer the ESU player gets, before and
    after a battle, names no NAC fleet and no design of the NAC's; before it the NAC's
    forces appear only as the scans' classes and numbers, after it only the NAC ships that
    fought him (on the battle's page, and their fates in his report)."""
    service = CampaignService.open(f"sqlite:///{tmp_path / 'l.db'}", create=True)
    try:
        lineage = play_to_the_encounter(service, "laf")
        secret = PlayerSecrets(service.store).issue("laf", "esu")
        truth = " ".join(f.id for f in ft2.fleets(service, lineage, UMPIRE))
        assert "nac-F1" in truth
        assert "nac-D1" in truth
        with TestClient(create_app(service, secret_key="k", https_only=False)) as client:
            sign_in(client, "laf", "esu", secret)
            before = everything_shown(client)
            assert "1 capital, 1 cruiser" in before  # the NAC's scan of him, 001 L1499
            assert "escort" in before  # his scan of the NAC: classes and numbers only
            battle = fight_at_lafayette(service, lineage)
            after = everything_shown(client)
            page = client.get(f"/battles/{battle}").text
        fought = set(re.findall(r"nac-S\d+", page))  # the ships that fought him
        assert fought
        assert "nac-S" not in before
        assert set(re.findall(r"nac-S\d+", after)) <= fought  # his report tells their fates
        for shown in (before, after):
            assert not [s for s in NAC_ONLY if s in shown]
        assert not [s for s in ("nac-F", "nac-D", "weasel_scout") if s in page]
    finally:
        service.close()


def everything_shown(client: TestClient) -> str:
    """Every page and JSON answer of a signed-in player's session (no battle page)."""
    texts = [client.get(path).text for path in ("/report", "/map", "/map.svg", "/orders")]
    texts += [client.get(path).text for path in ("/log", "/battles")]
    orders_page = texts[3]
    shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", orders_page, re.DOTALL)
    assert shown is not None
    read = client.post(
        "/orders/read", data=with_token(client, {"orders": html.unescape(shown.group(1))})
    )
    document = read.json()["document"]
    written = client.post(
        "/orders/text", data=with_token(client, {"document": json.dumps(document)})
    )
    texts += [read.text, written.text]
    return "\n".join(texts)


def test_an_ft2_battle_is_replayed_on_its_page_as_the_player_saw_it(tmp_path: Path) -> None:
    """The battle page of the 004 campaign, for an FT2 battle fought by the engine: the
    forces, the fates and the table turn by turn, with the enemy's captains and magazines
    his own (as in the 004 campaign); another id gets "no such battle"."""
    service = CampaignService.open(f"sqlite:///{tmp_path / 'b.db'}", create=True)
    try:
        lineage = play_to_the_encounter(service, "laf")
        battle = fight_at_lafayette(service, lineage)
        secret = PlayerSecrets(service.store).issue("laf", "esu")
        seen = service.battle_report(lineage, battle, "esu")
        assert seen.turns
        assert seen.source == "engine"
        assert all(f.captain is None for f in seen.forces if f.side == "nac")
        with TestClient(create_app(service, secret_key="k", https_only=False)) as client:
            sign_in(client, "laf", "esu", secret)
            listed = client.get("/battles")
            assert f"href='/battles/{battle}'" in listed.text
            page = client.get(f"/battles/{battle}")
            assert page.status_code == 200
            assert "The table, turn by turn" in page.text
            assert "esu-S1" in page.text
            assert client.get("/battles/B9-9").status_code == 404
    finally:
        service.close()


_PLANNED = plan_ft2_campaign("p", ["esu", "nac"], "lafayette", 10, "reach")
_STATE = evolve_all(CampaignState(), (new.event for new in _PLANNED.batch))
_MAP = load_builtin("lafayette")
_CELLS = [label(cell) for cell in _MAP.cells()]


@given(
    fleet=st.sampled_from(["esu-F1", "nac-F1", "nac-D1"]),
    to=st.sampled_from(_CELLS),
    must_leave=st.booleans(),
)
@example(fleet="esu-F1", to="0109", must_leave=False)  # staying: the page's "stay" choice
@example(fleet="esu-F1", to="0109", must_leave=True)
@example(fleet="esu-F1", to="0709", must_leave=False)  # 6 hexes
@example(fleet="esu-F1", to="0809", must_leave=False)  # 7 hexes
def test_a_hex_is_shown_reachable_exactly_when_a_move_there_is_accepted(
    fleet: str, to: str, must_leave: bool
) -> None:
    """The page's reach is submission's check (001 L1477: up to 6 hexes; a System Defence
    never moves, 001 L1550; a fleet that withdrew must leave, 001 L1512): a hex is shown
    reachable if and only if an orders file moving the fleet there has no problem (its own
    hex aside: staying is the editor's "stay where it is")."""
    assert _STATE.ft2 is not None
    state = _STATE.ft2
    moved = msgspec.structs.replace(state.fleets[fleet], must_leave=must_leave)
    view = msgspec.structs.replace(state, fleets={**state.fleets, fleet: moved})
    scenario = load_scenario("lafayette")
    owner = moved.owner
    orders = Ft2Orders(player=owner, turn=1, moves=(MoveOrder(fleet=fleet, to=to),))
    accepted = not rules.check_orders(view, _MAP, scenario, orders)
    assert (to in reach(moved, _MAP, scenario)) == (accepted and to != moved.hex)


def test_a_battle_recorded_from_the_table_has_its_page_too(tmp_path: Path) -> None:
    """A table's outcome (001 L1514) has no journal to replay: its page gives the sides,
    their decisions as orders, and each ship's fate as recorded; the ship that jumped out
    reads "jumped"."""
    service = CampaignService.open(f"sqlite:///{tmp_path / 't.db'}", create=True)
    try:
        lineage = play_to_the_encounter(service, "laf")
        ft2.decide(service, lineage, "esu", "E2-0909", "fight")
        ft2.decide(service, lineage, "nac", "E2-0909", "fight")
        service.resolve_turn(lineage)
        (battle,) = ft2.battles_waiting(service, lineage, UMPIRE)
        ft2.record(service, lineage, battle, ["esu-S3=jumped:2"])
        seen = service.battle_report(lineage, battle, "esu")
        assert seen.source == "umpire"
        assert seen.orders == (("nac", "engage"), ("esu", "engage"))
        assert {f.id: f.fate for f in seen.fates}["esu-S3"] == "jumped"
        assert service.fought_battles(lineage, "nac") == [battle]
        secret = PlayerSecrets(service.store).issue("laf", "esu")
        with TestClient(create_app(service, secret_key="k", https_only=False)) as client:
            sign_in(client, "laf", "esu", secret)
            page = client.get(f"/battles/{battle}").text
        assert "fought at the table: nac (engage) against esu (engage)" in page
        assert "The table, turn by turn" not in page
    finally:
        service.close()


def test_his_ft2_map_draws_his_fleets_scans_facilities_encounters_and_courses(
    tmp_path: Path,
) -> None:
    """His `map.svg` (the page's map, the package's): his counter, his scan's contacts where
    the encounter is (ringed), the two naval facilities, and the course of each move he
    sent; the NAC's map holds his own counters and nothing of the ESU's."""
    service = CampaignService.open(f"sqlite:///{tmp_path / 's.db'}", create=True)
    try:
        service.new_ft2_campaign(plan_ft2_campaign("c", ["esu", "nac"], "lafayette", 10, "c"))
        fresh = service.target("c")
        ft2_orders(service, fresh, "esu", 1, move("esu-F1", "0509"))
        svg = service.map_svg(fresh, "esu")
        assert re.search(r'<g id="arrows".*data-key="esu-F1"', svg, re.DOTALL)
        lineage = play_to_the_encounter(service, "laf")
        svg = service.map_svg(lineage, "esu")
        assert 'class="marker" data-key="esu-F1"' in svg
        assert 'data-key="scan E2-0909"' in svg
        assert "E2-0909: your long-range scan shows 1 escort" in svg
        facilities = re.search(r'<g id="facility-hexes".*?</g>', svg, re.DOTALL)
        assert facilities is not None
        assert facilities.group(0).count("<polygon") == 2  # New Toledo, VN-459
        encounters = re.search(r'<g id="encounter-hexes".*?</g>', svg, re.DOTALL)
        assert encounters is not None
        assert encounters.group(0).count("<polygon") == 1  # Lafayette
        assert "nac-" not in svg
        theirs = service.map_svg(lineage, "nac")
        assert 'data-key="nac-D1"' in theirs
        assert "esu-" not in theirs
    finally:
        service.close()
