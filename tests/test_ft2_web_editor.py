"""The FT2 campaign's web page in headless Chromium (issue 20), against `umpire serve`: the
interactive map of the player's fleets and scans, the orders editor (moves, splits, drones,
the encounters' decisions) sending through the same service call as a file, and the
battle replay page. Every page and answer the browser gets is checked for the other side's
fleets (001 L1475: counters only their owner knows the contents of).

Five campaigns of the Lafayette Incident from one seed: "m" (turn 1) for the map and the
NAC's docking, "e" for the orders, "g" with two ESU fleets in one hex to merge, "d" with
an encounter waiting at Lafayette, "b" with its battle fought.
`UMPIRE_WEB_SCREENSHOTS=docs pytest tests/test_ft2_web_editor.py` retakes the README's
pictures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from campaign.errors import InvalidInputError
from campaign.events import UMPIRE
from campaign.ft2 import service as ft2
from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_ft2_campaign
from campaign.store import Lineage
from tests.conftest import FixedClock
from tests.host_harness import umpire_serve
from tests.test_ft2_campaign_cli import toward
from tests.test_ft2_web import fight_at_lafayette, ft2_orders, play_to_the_encounter
from tests.test_web import CHROMIUM, CHROMIUM_FLAGS
from tests.test_web_editor import Watched, shots, tap

SEED = "web-20"
RIVAL = {"esu": "nac", "nac": "esu"}


class Campaigns:
    """The five campaigns on one database, and the players' secrets."""

    def __init__(self, folder: Path) -> None:
        self.url = f"sqlite:///{folder / 'ft2.db'}"
        self.service = CampaignService.open(self.url, clock=FixedClock(), create=True)
        for name in ("m", "e", "g"):
            plan = plan_ft2_campaign(name, ["esu", "nac"], "lafayette", 10, SEED)
            self.service.new_ft2_campaign(plan)
        split = '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S4"]\n'  # it stays at X
        ft2_orders(self.service, self.lineage("g"), "esu", 1, split)
        self.service.resolve_turn(self.lineage("g"))
        play_to_the_encounter(self.service, "d")
        self.battle = fight_at_lafayette(self.service, play_to_the_encounter(self.service, "b"))
        keys = PlayerSecrets(self.service.store)
        self.secrets = {(name, "esu"): keys.issue(name, "esu") for name in "megdb"}
        self.secrets["m", "nac"] = keys.issue("m", "nac")

    def lineage(self, campaign: str) -> Lineage:
        return self.service.target(campaign)


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaigns]:
    made = Campaigns(tmp_path_factory.mktemp("ft2web"))
    yield made
    made.service.close()


@pytest.fixture(scope="module")
def server(campaigns: Campaigns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with umpire_serve(campaigns.url, tmp_path_factory.mktemp("serve") / "serve.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        opened = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield opened
        opened.close()


class Signed(Watched):
    """A browser context signed in as an FT2 player, keeping every body it exchanged."""

    def __init__(
        self,
        browser: Browser,
        server: str,
        campaigns: Campaigns,
        campaign: str,
        phone: bool,
        player: str = "esu",
    ):
        self.theirs = re.compile(rf"{RIVAL[player]}-[FDS]\d+")  # his rival's fleets, ships
        secret = campaigns.secrets[campaign, player]
        super().__init__(browser, server, secret, campaign, phone, player)

    def close(self, fought: frozenset[str] = frozenset()) -> str:
        """End the session; return everything it was shown: no fleet or ship of his rival's
        in it but the ships that `fought` him."""
        everything = super().close()
        assert set(self.theirs.findall(everything)) <= fought
        return everything


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_ft2_map_shows_his_fleets_their_reach_and_his_scans(
    campaigns: Campaigns, server: str, browser: Browser, tmp_path: Path, phone: bool
) -> None:
    """A system's details and facility; a fleet's ships, and the hexes it can move to this
    turn (6 hexes, 001 L1477: those submission accepts); an encounter's scans, his of the
    NAC (classes and numbers only, 001 L1491) and the NAC's of him, decoys counted."""
    esu = Signed(browser, server, campaigns, "m", phone)
    page = esu.open("/map")
    details = page.locator("#details")
    if phone:
        tap(page, ".system[data-name='New Toledo'] circle", phone)
    else:
        page.hover(".system[data-name='New Toledo'] circle")
    expect(details).to_contain_text("New Toledo (1910)")
    expect(details).to_contain_text("naval facility: repair, replenish, fighters")
    desk = ft2.desk(campaigns.service, campaigns.lineage("m"), "esu")
    (fleet,) = desk.fleets
    tap(page, "#units button[data-unit='esu-F1']", phone)
    expect(page.locator("#selection polygon.reachable")).to_have_count(len(fleet.reach))
    expect(details).to_contain_text(f"can reach {len(fleet.reach)} hexes this turn")
    expect(details).to_contain_text("esu-S1: battleship (capital, MASS")
    tap(page, "polygon.hex[data-hex='2215']", phone)  # far beyond a week's move
    expect(details).to_contain_text("esu-F1 cannot move here this turn")
    page.screenshot(path=str(shots(tmp_path) / f"web-ft2-map{'-phone' if phone else ''}.png"))
    esu.close()
    esu = Signed(browser, server, campaigns, "d", phone)
    page = esu.open("/map")
    tap(page, ".marker[data-key='scan E2-0909']", phone)
    details = page.locator("#details")
    expect(details).to_contain_text("your long-range scan shows 1 escort")
    expect(details).to_contain_text("nac's long-range scan shows 1 capital, 1 cruiser, 5 escort")
    esu.close()


def send(page: Page) -> None:
    page.click("#send")
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")


def test_the_ft2_editor_sends_moves_splits_and_drones_and_refuses_a_bad_move(
    campaigns: Campaigns, server: str, browser: Browser, tmp_path: Path
) -> None:
    """The fleet moves toward Lafayette (chosen from its reach), a frigate splits off to
    another hex, drones go out: recorded as the same orders as the file would be. Then a
    move of 21 hexes is refused with submission's one-line message, and nothing changes."""
    service, lineage = campaigns.service, campaigns.lineage("e")
    esu = Signed(browser, server, campaigns, "e", phone=False)
    page = esu.open("/orders")
    expect(page.locator("#received")).to_contain_text("No orders received")
    page.click("#units button[data-unit='esu-F1']")
    page.select_option("#destination", toward("0109", "Lafayette"))
    page.check("#split input[data-split-ship='esu-S4']")
    page.fill("#split-drones", "1")
    page.select_option("#split-to", "0509")
    page.click("#split-button")
    expect(page.locator("#unit-editor")).to_contain_text(
        "Splits off esu-S4 with 1 drone(s), to 0509"
    )
    page.fill("#decoys", "2")
    page.dispatch_event("#decoys", "change")
    expect(page.locator("#selection line.course")).to_have_count(2)
    page.screenshot(path=str(shots(tmp_path) / "web-ft2-orders.png"), full_page=True)
    send(page)
    received = page.locator("#received")
    expect(received).to_contain_text("esu-F1 moves to 0709")
    expect(received).to_contain_text("esu-S4 split off esu-F1 as a new fleet, which goes to 0509")
    expect(received).to_contain_text("esu-F1 releases 2 decoy drone(s)")
    as_file = (
        'player = "esu"\nturn = 1\n[[moves]]\nfleet = "esu-F1"\nto = "0709"\n'
        '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S4"]\ndrones = 1\nto = "0509"\n'
        '[[decoys]]\nfleet = "esu-F1"\ndrones = 2\n'
    )
    recorded = service.load(lineage).ft2
    assert recorded is not None
    assert recorded.orders["esu"] == ft2.parse_orders(as_file, "esu", 1)
    # A bad move: typed in, sent, refused with the message `umpire orders submit` gives.
    page = esu.open("/orders")
    page.click("#units button[data-unit='esu-F1']")
    page.fill("#destination-text", "2215")
    page.click("#destination-set")
    page.click("#send")
    problem = "move: esu-F1 from 0109 to 2215 is 21 hexes; a fleet moves up to 6 (001 L1477)"
    expect(page.locator("div.problems[role=alert] li")).to_have_text(problem)
    expect(page.locator("div.problems[role=alert]")).to_contain_text("Nothing was recorded")
    bad = as_file.replace('to = "0709"', 'to = "2215"')
    with pytest.raises(InvalidInputError) as refused:
        service.submit_orders(campaigns.lineage("m"), "esu", bad)
    assert str(refused.value) == problem  # the file's refusal, word for word
    still = service.load(lineage).ft2
    assert still is not None
    assert still.orders["esu"] == recorded.orders["esu"]
    esu.close()


def test_the_ft2_editor_takes_an_encounters_decision_on_a_phone(
    campaigns: Campaigns, server: str, browser: Browser
) -> None:
    """Once encounters are found the page asks for decisions (001 L1512): FIGHT chosen on
    a phone is written down secretly, as `umpire encounters decide` would."""
    lineage = campaigns.lineage("d")
    esu = Signed(browser, server, campaigns, "d", phone=True)
    page = esu.open("/orders")
    expect(page.locator("h1")).to_have_text("Decisions for turn 2")
    encounter = page.locator("#encounters [data-encounter='E2-0909']")
    expect(encounter).to_contain_text("E2-0909 at Lafayette (0909)")
    expect(encounter).to_contain_text("your long-range scan shows 1 escort")
    encounter.locator("select[data-decision='E2-0909']").select_option("fight")
    page.locator("#send").tap()
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")
    expect(page.locator("#received")).to_contain_text("E2-0909: fight")
    state = campaigns.service.load(lineage).ft2
    assert state is not None
    assert state.decisions["E2-0909"] == {"esu": "fight"}
    (seen,) = ft2.encounters(campaigns.service, lineage, "nac")
    assert seen.decided == {}  # still secret from the NAC
    esu.close()


def test_the_ft2_battle_is_replayed_on_its_page(
    campaigns: Campaigns, server: str, browser: Browser, tmp_path: Path
) -> None:
    """From his orders page's battle link to the replay: the forces, the fates and the table
    turn by turn, as the ESU saw it (the NAC's ships only those that fought him)."""
    esu = Signed(browser, server, campaigns, "b", phone=False)
    page = esu.open("/orders")
    page.click(f"#encounters a[href='/battles/{campaigns.battle}']")
    page.wait_for_url(f"{server}/battles/{campaigns.battle}")
    expect(page.locator("h1")).to_contain_text(campaigns.battle)
    expect(page.locator("body")).to_contain_text("The table, turn by turn")
    expect(page.locator("svg.replay")).to_have_count(1)
    page.screenshot(path=str(shots(tmp_path) / "web-ft2-battle.png"), full_page=True)
    fought = frozenset(
        s for side in ft2_battle_sides(campaigns) for s in side if s.startswith("nac-")
    )
    assert esu.theirs.search(page.content())
    esu.page.goto(server + "/report")
    esu.close(fought)


def ft2_battle_sides(campaigns: Campaigns) -> list[tuple[str, ...]]:
    """The ships of each side of campaign "b"'s battle, as the umpire knows them."""
    report = campaigns.service.battle_report(campaigns.lineage("b"), campaigns.battle, UMPIRE)
    return [tuple(f.id for f in report.forces if f.side == side) for side in report.sides]


def test_the_ft2_editor_merges_fleets_and_docks_ships(
    campaigns: Campaigns, server: str, browser: Browser
) -> None:
    """Two ESU fleets at X merge (the frigate split off last turn comes back); the NAC docks
    a ship at New Toledo's facility for repairs (001 L1530-1532): each recorded as the
    orders file gives it."""
    service = campaigns.service
    esu = Signed(browser, server, campaigns, "g", phone=False)
    page = esu.open("/orders")
    page.click("#units button[data-unit='esu-F1']")
    page.select_option("#merge", "esu-F2")
    expect(page.locator("#unit-editor")).to_contain_text("Takes in esu-F2")
    send(page)
    expect(page.locator("#received")).to_contain_text("esu-F2 merge into esu-F1")
    merged = 'player = "esu"\nturn = 2\n[[merges]]\ninto = "esu-F1"\nfleets = ["esu-F2"]\n'
    state = service.load(campaigns.lineage("g")).ft2
    assert state is not None
    assert state.orders["esu"] == ft2.parse_orders(merged, "esu", 2)
    esu.close()
    nac = Signed(browser, server, campaigns, "m", phone=False, player="nac")
    page = nac.open("/orders")
    page.click("#units button[data-unit='nac-F1']")
    expect(page.locator("#details")).to_contain_text("at a naval facility")
    page.fill("#docks input[data-dock-systems='nac-S1']", "firecon-1")
    page.check("#docks input[data-dock='nac-S1']")
    send(page)
    expect(page.locator("#received")).to_contain_text(
        "nac-S1 docks for repairs (repair rolls: firecon-1)"
    )
    docked = 'player = "nac"\nturn = 1\n[[docks]]\nship = "nac-S1"\nsystems = ["firecon-1"]\n'
    state = service.load(campaigns.lineage("m")).ft2
    assert state is not None
    assert state.orders["nac"] == ft2.parse_orders(docked, "nac", 1)
    nac.close()
