"""The web page's map and orders editor in headless Chromium (issue 16), on a desktop and a
phone viewport, against `umpire serve`.

One campaign ("m") is for the map page. Two more are played alike from the same seed: in "e"
red gives every order through the editor alone (moves, a landing, production and research),
in "f" the same orders go in as files; each turn resolved in both must come out the same.
Every page and response the browser gets is checked for the other player's unit ids.

`UMPIRE_WEB_SCREENSHOTS=docs pytest tests/test_web_editor.py` retakes the README's pictures.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Response, expect, sync_playwright

from campaign.players import PlayerSecrets
from campaign.rules import orders as orders_rules
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP, orders
from tests.test_web import CHROMIUM, CHROMIUM_FLAGS, free_port

SHOTS_ENV = "UMPIRE_WEB_SCREENSHOTS"
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
SEED = "editor-16"


class Campaigns:
    """The map campaign, the editor's and the files', and the players' secrets."""

    def __init__(self, folder: Path) -> None:
        map_file = folder / "tiny.toml"
        map_file.write_text(TINY_MAP)
        self.url = f"sqlite:///{folder / 'editor.db'}"
        self.service = CampaignService.open(self.url, clock=FixedClock(), create=True)
        for name in ("m", "e", "f"):
            plan = plan_campaign(name, ["red", "blue"], seed=SEED, map_spec=str(map_file))
            self.service.new_campaign(plan)
        m = self.lineage("m")
        self.service.submit_orders(m, "red", orders("red", 1, ("red-S1", "0102", "stand-off")))
        self.service.submit_orders(m, "blue", orders("blue", 1, ("blue-S1", "0604", "stand-off")))
        self.service.resolve_turn(m)
        self.service.set_deadline(self.lineage("e"), datetime(2099, 12, 31, 18, 0, tzinfo=UTC))
        keys = PlayerSecrets(self.service.store)
        self.secrets = {(c, "red"): keys.issue(c, "red") for c in ("m", "e")}

    def lineage(self, campaign: str) -> Lineage:
        return self.service.target(campaign)


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaigns]:
    made = Campaigns(tmp_path_factory.mktemp("editor"))
    yield made
    made.service.close()


@pytest.fixture(scope="module")
def server(campaigns: Campaigns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`umpire serve` on a free loopback port over the campaigns' database."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("serve") / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", "from cli import main; main()", "serve", "--host",
             "127.0.0.1", "--port", str(port), "--db", campaigns.url],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=Path(__file__).parents[1],
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            import socket

            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        pytest.fail("umpire serve did not start:\n" + log_path.read_text())
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        opened = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield opened
        opened.close()


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Watched:
    """A browser context signed in as a player (red unless named), keeping every body it
    exchanged (leak checks)."""

    def __init__(
        self,
        browser: Browser,
        server: str,
        secret: str,
        campaign: str,
        phone: bool,
        player: str = "red",
    ):
        self.seen: list[str] = []
        options = {"viewport": PHONE, "has_touch": True, "is_mobile": True} if phone else {}
        self.context: BrowserContext = browser.new_context(**({"viewport": DESKTOP} | options))
        self.page: Page = self.context.new_page()
        self.page.on("response", self.keep)
        self.page.on("pageerror", lambda error: self.seen.append(f"PAGE ERROR {error}"))
        self.server = server
        page = self.page
        page.goto(server + "/")
        page.fill("input[name=campaign]", campaign)
        page.fill("input[name=player]", player)
        page.fill("input[name=secret]", secret)
        page.click("button[type=submit]")
        page.wait_for_url(server + "/report")

    def keep(self, response: Response) -> None:
        if response.request.post_data:
            self.seen.append(response.request.post_data)
        if not 300 <= response.status < 400:
            with contextlib.suppress(Exception):
                self.seen.append(response.text())

    def open(self, path: str) -> Page:
        self.page.goto(self.server + path)
        self.page.wait_for_selector("body[data-ready=yes]")
        return self.page

    def close(self) -> str:
        self.seen.append(self.page.content())
        self.context.close()
        everything = "\n".join(self.seen)
        assert "PAGE ERROR" not in everything
        return everything


def tap(page: Page, selector: str, phone: bool) -> None:
    if phone:
        page.locator(selector).first.tap(force=True)
    else:
        page.locator(selector).first.click(force=True)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_map_shows_details_reach_and_routes(
    campaigns: Campaigns, server: str, browser: Browser, tmp_path: Path, phone: bool
) -> None:
    """Hover or tap a system for its planets (orbit and type); choose a unit to see the hexes
    it can reach; tap a hex for its route, as `umpire map reach` gives it."""
    red = Watched(browser, server, campaigns.secrets["m", "red"], "m", phone)
    page = red.open("/map")
    details = page.locator("#details")
    if phone:
        tap(page, ".system[data-name='Alpha']", phone)
    else:
        page.hover(".system[data-name='Alpha']")
    expect(details).to_contain_text("Alpha (0102)")
    expect(details).to_contain_text("Alpha/3: orbit 3, terran, capacity 60, mineral-rich")
    reach = campaigns.service.reach(campaigns.lineage("m"), "red-S1", viewer="red")
    tap(page, "#units button[data-unit='red-S1']", phone)
    expect(page.locator("#selection polygon.reachable")).to_have_count(len(reach.hexes))
    expect(details).to_contain_text("can reach 9 hexes this turn")
    tap(page, ".system[data-name='Beta']", phone)
    route = campaigns.service.reach(campaigns.lineage("m"), "red-S1", viewer="red", to="0302")
    expect(details).to_contain_text(f"this turn by {' '.join(route.path)}")
    expect(page.locator("#selection polyline.route")).to_have_count(1)
    tap(page, "polygon.hex[data-hex='0604']", phone)  # beyond a turn's move
    expect(details).to_contain_text("cannot reach 0604")
    tap(page, ".system[data-name='Beta']", phone)
    expect(page.locator("#selection polyline.route")).to_have_count(1)
    name = "web-map-phone.png" if phone else "web-map.png"
    page.screenshot(path=str(shots(tmp_path) / name), full_page=True)
    everything = red.close()
    assert "red-S1" in everything
    assert "blue-" not in everything


def send(page: Page) -> None:
    page.click("#send")
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")


def test_orders_given_through_the_editor_alone_resolve_as_the_same_orders_by_file(  # noqa: PLR0915
    campaigns: Campaigns, server: str, browser: Browser, tmp_path: Path
) -> None:
    """Four turns: red moves (a destination from the list and one tapped on the map), lands
    colonists picking the planet, then spends his colony's IP (budget and what is left
    shown) and researches, all in the editor, desktop then phone. Campaign "f" gets the same
    orders as files; every resolved turn leaves both campaigns alike (004 5.7 worked example
    in tests/test_strategic.py: 24 IP, 2 left)."""
    service = campaigns.service
    e, f = campaigns.lineage("e"), campaigns.lineage("f")
    red = Watched(browser, server, campaigns.secrets["e", "red"], "e", phone=False)
    page = red.open("/orders")
    expect(page.locator("#deadline")).to_contain_text("due by 2099-12-31 18:00 UTC")
    expect(page.locator("#deadline")).to_contain_text("min left")
    expect(page.locator("#received")).to_contain_text("No orders received")
    # Turn 1: red-S1 to Alpha from its reachable hexes, red-T1 by tapping Alpha on the map.
    page.click("#units button[data-unit='red-S1']")
    page.select_option("#destination", "0102")
    expect(page.locator("#route")).to_contain_text("Route to 0102: this turn by 0101 0102")
    page.click("#units button[data-unit='red-T1']")
    page.click(".system[data-name='Alpha']")
    expect(page.locator("#destination")).to_have_value("0102")
    # Transports never engage (004 L112): the editor offers them no Engage order.
    expect(page.locator("#order option[value='engage']")).to_have_count(0)
    page.select_option("#order", "ftl-move")
    page.screenshot(path=str(shots(tmp_path) / "web-orders.png"), full_page=True)
    send(page)
    expect(page.locator("#received")).to_contain_text("red-T1 moves to 0102, ftl-move")
    file_orders = orders("red", 1, ("red-S1", "0102", "stand-off"), ("red-T1", "0102", "ftl-move"))
    resolve_both(service, e, f, file_orders)
    # Turn 2: land 10 million on Alpha/3, the planet picked with its orbit and type shown.
    page = red.open("/orders")
    page.click("#units button[data-unit='red-T1']")
    expect(page.locator("#landing-planet")).to_contain_text("Alpha/3: orbit 3, terran")
    page.select_option("#landing-planet", "Alpha/3")
    page.fill("#landing-colonists", "10")
    page.dispatch_event("#landing-colonists", "change")
    send(page)
    expect(page.locator("#received")).to_contain_text(
        "red-T1 lands 10 million colonists on Alpha/3"
    )
    landing = (
        orders("red", 2) + '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/3"\ncolonists = 10\n'
    )
    resolve_both(service, e, f, landing)
    assert "Alpha/3" in service.load(e).colonies
    resolve_both(service, e, f, None)  # turn 3: nobody sends orders
    red.close()
    # Turn 4, on a phone: spend Alpha/3's IP and research.
    red = Watched(browser, server, campaigns.secrets["e", "red"], "e", phone=True)
    page = red.open("/orders")
    colony = page.locator("fieldset[data-colony='Alpha/3']")
    expect(colony.locator("legend")).to_have_text("Alpha/3 (0102): 24 IP")
    for item, count in (("colony_transports", 2), ("emigrants", 2), ("scout_troops", 1)):
        colony.locator(f"input[name={item}]").fill(str(count))
    colony.locator("input[name=research]").fill("15")
    expect(colony.locator(".left")).to_have_text("Left: 4 IP (unspent IP are lost)")
    colony.locator("select.design").select_option("frigate")
    colony.locator("button.add-ship").tap()
    expect(colony.locator(".left")).to_have_text("Left: 2 IP (unspent IP are lost)")
    page.select_option("#tech", "speed-3")
    page.locator("#add-tech").tap()
    page.locator("input[data-field=scorch][value='Alpha/3']").tap()
    expect(page.locator("#research-pool")).to_contain_text("chosen cost 15 IP")
    page.screenshot(path=str(shots(tmp_path) / "web-orders-phone.png"), full_page=True)
    page.locator("#send").tap()
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")
    spend = orders("red", 4).replace("turn = 4\n", 'turn = 4\nscorch = ["Alpha/3"]\n') + (
        '[[production]]\ncolony = "Alpha/3"\ncolony_transports = 2\nemigrants = 2\n'
        'scout_troops = 1\nresearch = 15\nships = [{design = "frigate"}]\n'
        '[[research]]\ntech = "speed-3"\n'
    )
    resolve_both(service, e, f, spend)
    assert service.load(e).empires["red"].speed == 3
    everything = red.close()
    assert "red-T1" in everything
    assert not re.search(r"\bblue-[A-Z]\d", everything)


def resolve_both(service: CampaignService, e: Lineage, f: Lineage, text: str | None) -> None:
    """Hand the file's orders in for campaign "f", check the editor's were read the same
    (moves that only hold aside), resolve both turns and compare what they left."""
    turn = service.load(e).turn
    if text is not None:
        service.submit_orders(f, "red", text)
        edited = service.submitted_orders(e, "red")
        filed = orders_rules.parse(text, "red", turn)
        assert edited is not None
        assert [m for m in edited.moves if m.to or m.count] == list(filed.moves)
        assert (edited.landings, edited.production, edited.research, edited.scorch) == (
            filed.landings,
            filed.production,
            filed.research,
            filed.scorch,
        )
    for lineage in (e, f):
        service.resolve_turn(lineage, expected_turn=turn)
    one, other = service.load(e), service.load(f)
    assert one.turn == other.turn == turn + 1
    assert one.units == other.units
    assert one.colonies == other.colonies
    assert one.empires == other.empires


def test_groups_split_and_merge_a_task_force_forms_and_the_treasury_is_spent(
    campaigns: Campaigns, server: str, browser: Browser
) -> None:
    """Send 10 of red-T1's 35 transports to Alpha and land them: the editor lands the part
    under the id the turn will give it (red-T2); two scout troops merge; two warships form a
    task force, which moves
    under its new id (red-F1); 15 of the
    starting 25 IP go to research, for 3 Hex Speed. The orders are accepted as written."""
    red = Watched(browser, server, campaigns.secrets["m", "red"], "m", phone=False)
    page = red.open("/orders")
    # The orders text and the editor, both ways: text written by hand, read into the editor.
    page.click("text=Advanced: your orders as text")
    page.fill("textarea", orders("red", 2, ("red-S1", "0302", "ftl-move")))
    page.click("#from-text")
    expect(page.locator("#sync")).to_contain_text("The editor now holds the orders text.")
    expect(page.locator("#units button[data-unit='red-S1']")).to_contain_text("red-S1 to 0302")
    page.select_option("#add-location", "dense-world")  # where to fight, best first
    page.select_option("#add-location", "free-space")
    expect(page.locator("#locations")).to_contain_text("best first: dense-world, free-space")
    page.click("#units button[data-unit='red-S3']")  # scout troops in one hex merge
    page.select_option("#merge", "red-S4")
    expect(page.locator("#unit-editor")).to_contain_text("Takes in red-S4")
    page.click("#units button[data-unit='red-T1']")
    page.select_option("#destination", "0102")
    page.fill("#count", "10")
    page.dispatch_event("#count", "change")
    expect(page.locator("#sync")).to_contain_text("up to date")
    page.select_option("#landing-planet", "Alpha/3")
    expect(page.locator("#unit-editor")).to_contain_text("The part sent lands as red-T2.")
    page.click("#forming summary")
    page.check("#form-force input[value='red-W1']")
    page.check("#form-force input[value='red-W2']")
    page.click("#form-force-button")
    expect(page.locator("#forces")).to_contain_text("New task force red-F1: red-W1, red-W2")
    page.click("#units button[data-unit='red-F1']")  # it moves under the id it will have
    page.select_option("#destination", "0102")
    expect(page.locator("#route")).to_contain_text("Route to 0102: this turn by 0101 0102")
    treasury = page.locator("#treasury")  # the starting 25 IP, spent before anyone moves
    expect(treasury.locator("legend")).to_have_text("Starting treasury: 25 IP")
    treasury.locator("input[name=treasury-research]").fill("15")
    expect(treasury.locator(".left")).to_have_text("Left: 10 IP")
    page.select_option("#tech", "speed-3")
    page.click("#add-tech")
    expect(page.locator("#research-pool")).to_contain_text("15 IP given")
    expect(page.locator("#sync")).to_contain_text("up to date")
    page.click("#send")
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")
    recorded = campaigns.service.submitted_orders(campaigns.lineage("m"), "red")
    assert recorded is not None
    assert [(m.unit, m.to, m.count) for m in recorded.moves if m.to] == [
        ("red-S1", "0302", None),
        ("red-T1", "0102", 10),
        ("red-F1", "0102", None),
    ]
    assert [(x.unit, x.planet, x.colonists) for x in recorded.landings] == [
        ("red-T2", "Alpha/3", 10)
    ]
    assert [t.units for t in recorded.task_forces] == [("red-W1", "red-W2")]
    assert [m.units for m in recorded.merges] == [("red-S3", "red-S4")]
    assert recorded.battle_locations == ("dense-world", "free-space")
    assert recorded.treasury is not None
    assert (recorded.treasury.research, recorded.research[0].tech) == (15, "speed-3")
    assert "blue-" not in red.close()


def test_refused_orders_come_back_into_the_editor(
    campaigns: Campaigns, server: str, browser: Browser
) -> None:
    """Orders sent back with their problems are what the editor then holds, to mend; the
    courses given are drawn on the map."""
    red = Watched(browser, server, campaigns.secrets["m", "red"], "m", phone=False)
    page = red.open("/orders")
    page.click("text=Advanced: your orders as text")
    page.fill(
        "textarea", orders("red", 2, ("red-S1", "0302", "ftl-move"), ("red-S2", "9999", "ftl-move"))
    )
    page.click("#send")
    expect(page.locator("div.problems")).to_contain_text("red-S2: destination 9999 is off the map")
    page.wait_for_selector("body[data-ready=yes]")
    expect(page.locator("#units button[data-unit='red-S2']")).to_contain_text("red-S2 to 9999")
    expect(page.locator("#selection line.course")).to_have_count(1)  # 9999 is on no map
    page.click("#units button[data-unit='red-S2']")
    page.select_option("#destination", "")
    expect(page.locator("#sync")).to_contain_text("up to date")
    page.click("#send")
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")
    assert "blue-" not in red.close()
