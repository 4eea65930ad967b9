"""The players' web page (issue 6): in-process with Starlette's TestClient, and end to end in
headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) against `umpire serve`.

Every page and response a player gets is checked for the other player's unit ids.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from itsdangerous import TimestampSigner
from playwright.sync_api import Page, Response, expect, sync_playwright
from starlette.testclient import TestClient

from campaign import web
from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.web import SIGN_IN_REFUSED, FailureLimiter, create_app
from tests.conftest import FixedClock, reset_postgres
from tests.test_strategic import TINY_MAP, orders

CHROMIUM = "/usr/bin/chromium"
# As the machine notes say: without the background-networking flags Chromium keeps trying
# to reach Google's hosts, which this closed network refuses.
CHROMIUM_FLAGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOT_ENV = "UMPIRE_WEB_SCREENSHOT"  # e.g. docs/web-report.png to refresh the docs' picture


class Game:
    """A two-player campaign on the tiny map after one resolved turn, with both secrets."""

    def __init__(self, url: str, folder: Path) -> None:
        map_file = folder / "tiny.toml"
        map_file.write_text(TINY_MAP)
        self.url = url
        self.service = CampaignService.open(self.url, clock=FixedClock(), create=True)
        self.service.new_campaign(
            plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(map_file))
        )
        self.service.new_campaign(
            plan_campaign("h", ["red", "green"], seed="t", map_spec=str(map_file))
        )
        self.lineage: Lineage = self.service.target("g")
        # Turn 1: both players move and explore, so the umpire's log names both sides' units.
        self.service.submit_orders(
            self.lineage, "red", orders("red", 1, ("red-S1", "0102", "stand-off"))
        )
        self.service.submit_orders(
            self.lineage, "blue", orders("blue", 1, ("blue-S1", "0604", "stand-off"))
        )
        self.service.resolve_turn(self.lineage)
        keys = PlayerSecrets(self.service.store)
        self.secrets = {
            ("g", "red"): keys.issue("g", "red"),
            ("g", "blue"): keys.issue("g", "blue"),
            ("h", "red"): keys.issue("h", "red"),
        }

    def close(self) -> None:
        self.service.close()


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    made = Game(f"sqlite:///{tmp_path / 'web.db'}", tmp_path)
    yield made
    made.close()


@pytest.fixture
def client(game: Game) -> Iterator[TestClient]:
    with TestClient(create_app(game.service, secret_key="test-key", https_only=False)) as opened:
        yield opened


def with_token(client: TestClient, data: dict[str, str]) -> dict[str, str]:
    """The form's fields and the CSRF token of the client's session, as the page gives it."""
    page = client.get("/")
    found = re.search(r"name='csrf' value='([^']+)'", page.text)
    assert found is not None, page.text
    return {**data, "csrf": found.group(1)}


def sign_in(client: TestClient, campaign: str, player: str, secret: str) -> None:
    response = client.post(
        "/sign-in",
        data=with_token(client, {"campaign": campaign, "player": player, "secret": secret}),
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    assert response.headers["location"] == "/report"


PAGES = ["/", "/report", "/map.svg", "/map", "/orders", "/log", "/battles"]


def test_the_umpire_log_names_both_sides(game: Game) -> None:
    """The leak checks below mean something: the data they look for exists."""
    text = " ".join(str(e.event) for e in game.service.log(game.lineage))
    assert "red-S1" in text
    assert "blue-S1" in text


def test_signing_in_shows_the_players_report_and_map(game: Game, client: TestClient) -> None:
    assert client.get("/report", follow_redirects=False).headers["location"] == "/"
    sign_in(client, "g", "red", game.secrets["g", "red"])
    report = client.get("/report")
    assert report.status_code == 200
    assert "g: red's report, turn 2" in report.text
    assert "red-S1" in report.text
    assert "<img class='map' src='/map.svg'" in report.text
    assert "<strong>Alpha (0102)</strong>: Explored:" in report.text  # the news of turn 1
    assert report.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in report.headers["content-security-policy"]
    svg = client.get("/map.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<?xml")
    assert "Alpha" in svg.text
    log = client.get("/log")
    assert "explored Alpha" in log.text
    assert client.get("/", follow_redirects=False).headers["location"] == "/report"


def test_wrong_secrets_are_refused_without_saying_why(game: Game, client: TestClient) -> None:
    right = game.secrets["g", "red"]
    answers = []
    for campaign, player, secret in [
        ("g", "red", right[:-1] + ("x" if right[-1] != "x" else "y")),  # wrong secret
        ("g", "red", ""),  # no secret
        ("g", "green", right),  # no such player
        ("nope", "red", right),  # no such campaign
        ("h", "red", right),  # red's secret of another campaign
    ]:
        response = client.post(
            "/sign-in",
            data=with_token(client, {"campaign": campaign, "player": player, "secret": secret}),
        )
        assert response.status_code == 401
        assert SIGN_IN_REFUSED in response.text
        assert secret == "" or secret not in response.text
        alert = re.search(r"<p class='problems'[^>]*>(.*?)</p>", response.text)
        assert alert is not None
        answers.append(alert.group(1))
    assert len(set(answers)) == 1  # one answer, whoever asked
    for page in PAGES[1:]:
        response = client.get(page, follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (303, "/")


def test_failed_sign_ins_are_rate_limited(game: Game) -> None:
    now = [0.0]
    limiter = FailureLimiter(limit=3, window=60, clock=lambda: now[0])
    right = game.secrets["g", "red"]
    with TestClient(create_app(game.service, "k", limiter, https_only=False)) as client:
        for _ in range(3):
            response = client.post(
                "/sign-in",
                data=with_token(client, {"campaign": "g", "player": "red", "secret": "guess"}),
            )
            assert response.status_code == 401
        form = {"campaign": "g", "player": "red", "secret": right}
        response = client.post("/sign-in", data=with_token(client, form))
        assert response.status_code == 429  # even the right secret waits
        now[0] = 61.0
        response = client.post("/sign-in", data=with_token(client, form), follow_redirects=False)
        assert response.status_code == 303


def test_the_order_form_sends_the_template(game: Game, client: TestClient) -> None:
    sign_in(client, "g", "red", game.secrets["g", "red"])
    form = client.get("/orders")
    assert form.status_code == 200
    expected = game.service.orders_template(game.lineage, "red")
    shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", form.text, re.DOTALL)
    assert shown is not None
    text = shown.group(1).replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")
    assert text == expected
    response = client.post("/orders", data=with_token(client, {"orders": text}))
    assert response.status_code == 200
    assert "Orders recorded" in response.text
    assert "red&#x27;s orders for turn 2: 15 unit(s)" in response.text
    # 10 warships (the Continuum default fleet), 4 scout troops, the transports
    assert len(game.service.load(game.lineage).orders["red"]) == 15
    receipt = game.service.receipt(game.lineage, "red").encode()  # issue 13: the reply's
    assert html.escape(receipt) in response.text


def test_bad_orders_show_every_problem_and_store_nothing(game: Game, client: TestClient) -> None:
    sign_in(client, "g", "red", game.secrets["g", "red"])
    before = len(game.service.log(game.lineage))
    text = orders("red", 2, ("red-S2", "9999", "stand-off"), ("red-S3", "0604", "ftl-move"))
    response = client.post("/orders", data=with_token(client, {"orders": text}))
    assert response.status_code == 422
    assert "Nothing was recorded: 2 problem(s)" in response.text
    assert "<li>red-S2: destination 9999 is off the map (hexes 0101 to 0604" in response.text
    assert "<li>red-S3: cannot reach 0604: " in response.text
    assert "9999" in response.text.split("<textarea")[1]  # the player's text comes back
    broken = client.post(
        "/orders", data=with_token(client, {"orders": 'player = "red"\nturn = "two"\n'})
    )
    assert broken.status_code == 422
    assert "Expected `int`, got `str` - at `$.turn`" in broken.text
    assert len(game.service.log(game.lineage)) == before
    assert "red" not in game.service.load(game.lineage).orders


def test_no_page_names_another_players_units(game: Game) -> None:
    for player, other in (("red", "blue-"), ("blue", "red-")):
        with TestClient(create_app(game.service, secret_key="k", https_only=False)) as client:
            sign_in(client, "g", player, game.secrets["g", player])
            client.post(
                "/orders", data=with_token(client, {"orders": client_template(game, player)})
            )
            for page in [*PAGES, f"/reach.json?unit={player}-S1"]:
                body = client.get(page).text
                assert f"{player}-" in body or page in ("/", "/battles")  # none fought
                assert other not in body, f"{page} of {player} names {other}"
            # Another's unit is not his to ask about, and the answer does not say it exists.
            theirs = client.get(f"/reach.json?unit={other}S1").json()
            nobody = client.get(f"/reach.json?unit={other}S99").json()
            assert theirs["problem"] == nobody["problem"].replace("S99", "S1")


def client_template(game: Game, player: str) -> str:
    return game.service.orders_template(game.lineage, player)


def test_rotating_a_secret_ends_its_sessions(game: Game, client: TestClient) -> None:
    sign_in(client, "g", "red", game.secrets["g", "red"])
    assert client.get("/report").status_code == 200
    PlayerSecrets(game.service.store).rotate("g", "red")
    response = client.get("/report", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/")
    assert client.get("/orders", follow_redirects=False).status_code == 303


def test_one_server_serves_several_campaigns(game: Game, client: TestClient) -> None:
    sign_in(client, "h", "red", game.secrets["h", "red"])
    report = client.get("/report")
    assert "h: red's report, turn 1" in report.text
    assert "explored Alpha" not in report.text  # that was red's turn in campaign g
    client.post("/sign-out", data=with_token(client, {}))
    assert client.get("/report", follow_redirects=False).status_code == 303


def test_the_page_works_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    reset_postgres(pg_url)
    hosted = Game(pg_url, tmp_path)
    try:
        with TestClient(create_app(hosted.service, secret_key="k", https_only=False)) as client:
            sign_in(client, "g", "blue", hosted.secrets["g", "blue"])
            assert "blue-S1" in client.get("/report").text
            text = hosted.service.orders_template(hosted.lineage, "blue")
            response = client.post("/orders", data=with_token(client, {"orders": text}))
            assert "Orders recorded" in response.text
            for page in PAGES:
                assert "red-" not in client.get(page).text
        assert len(hosted.service.load(hosted.lineage).orders["blue"]) == 15
    finally:
        hosted.close()


def test_a_forged_session_is_ignored(game: Game, client: TestClient) -> None:
    """A cookie not signed with the server's key names nobody, whatever it claims."""
    tag = PlayerSecrets(game.service.store).session_tag("g", "blue")
    payload = base64.b64encode(json.dumps({"campaign": "g", "player": "blue", "tag": tag}).encode())
    forged = TimestampSigner("not-the-key").sign(payload).decode()
    client.cookies.set("umpire_session", forged)
    response = client.get("/report", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/")


def test_sign_out_ends_the_session(game: Game, client: TestClient) -> None:
    sign_in(client, "g", "red", game.secrets["g", "red"])
    response = client.post("/sign-out", data=with_token(client, {}), follow_redirects=False)
    assert response.headers["location"] == "/"
    assert client.get("/report", follow_redirects=False).status_code == 303


# ---------------------------------------------------------------- end to end, in Chromium


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def server(game: Game, tmp_path: Path) -> Iterator[str]:
    """Run `umpire serve` on a free loopback port over the game's database."""
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cli import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            game.url,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=Path(__file__).parents[1],
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.close()
                    pytest.fail(
                        "umpire serve did not start:\n" + (tmp_path / "serve.log").read_text()
                    )
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
    served = (tmp_path / "serve.log").read_text()
    for secret in game.secrets.values():
        assert secret not in served  # no secret in the server's log


def test_end_to_end_in_headless_chromium(game: Game, server: str, tmp_path: Path) -> None:
    """Sign in, read the report and map, send bad then good orders; blue appears nowhere."""
    seen: list[str] = []  # every response body and request body the browser exchanged

    def keep(response: Response) -> None:
        if response.request.post_data:
            seen.append(response.request.post_data)
        if not 300 <= response.status < 400:  # redirects have no body to read
            seen.append(response.text())

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("response", keep)
            browse_as_red(page, server, game, Path(os.environ.get(SCREENSHOT_ENV) or tmp_path))
            seen.append(page.content())
        finally:
            browser.close()
    recorded = game.service.load(game.lineage).orders["red"]
    assert len(recorded) == 15
    assert any(move.to == "0302" for move in recorded)
    assert len(seen) >= 8
    everything = "\n".join(seen)
    assert "red-S1" in everything
    assert "blue-" not in everything


def browse_as_red(page: Page, server: str, game: Game, shots: Path) -> None:
    """Sign in (once wrongly), read the report and map, send bad orders, then good ones."""
    page.goto(server + "/")
    page.fill("input[name=campaign]", "g")
    page.fill("input[name=player]", "red")
    page.fill("input[name=secret]", "wrong")
    page.click("button[type=submit]")
    expect(page.locator(".problems")).to_have_text(SIGN_IN_REFUSED)
    page.fill("input[name=secret]", game.secrets["g", "red"])
    page.click("button[type=submit]")
    page.wait_for_url(server + "/report")
    expect(page.locator("h1")).to_have_text("g: red's report, turn 2")
    page.wait_for_function("document.querySelector('img.map').naturalWidth > 0")
    shot = shots / "web-report.png" if shots.is_dir() else shots
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes().startswith(b"\x89PNG")

    page.click("nav >> text=Orders")
    page.wait_for_url(server + "/orders")
    page.click("text=Advanced: your orders as text")  # the editor's advanced view
    template = page.input_value("textarea")
    assert template == game.service.orders_template(game.lineage, "red")
    page.fill("textarea", orders("red", 2, ("red-S2", "9999", "stand-off")))
    page.click("text=Send orders")
    expect(page.locator(".problems")).to_contain_text("red-S2: destination 9999 is off the map")
    page.fill("textarea", template.replace('# to = "0102"', 'to = "0302"', 1))
    page.click("text=Send orders")
    expect(page.locator("p.ok")).to_contain_text("Orders recorded")
    page.click("text=Log")
    page.wait_for_url(server + "/log")
    expect(page.locator("main")).to_contain_text("explored Alpha")


def test_https_only_marks_the_cookie_secure_and_asks_for_https(game: Game) -> None:
    """A hosted server (`umpire serve --https-only` or --certfile): the session cookie goes
    over HTTPS only, and browsers are told to keep to HTTPS."""
    app = create_app(game.service, secret_key="k", https_only=True)
    with TestClient(app, base_url="https://testserver") as client:
        response = client.post(
            "/sign-in",
            data=with_token(
                client, {"campaign": "g", "player": "red", "secret": game.secrets["g", "red"]}
            ),
            follow_redirects=False,
        )
        cookie = response.headers["set-cookie"].lower()
        assert "secure" in cookie.split("; ")
        assert response.headers["strict-transport-security"] == "max-age=31536000"
        assert client.get("/report").status_code == 200
    with TestClient(create_app(game.service, secret_key="k", https_only=False)) as plain:
        response = plain.post(
            "/sign-in",
            data=with_token(
                plain, {"campaign": "g", "player": "red", "secret": game.secrets["g", "red"]}
            ),
            follow_redirects=False,
        )
        assert "secure" not in response.headers["set-cookie"].lower().split("; ")
        assert "strict-transport-security" not in response.headers


def test_serve_refuses_half_a_certificate(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli import app

    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'none.db'}"
    half = runner.invoke(app, ["serve", "--certfile", str(tmp_path / "c.pem"), "--db", db])
    assert half.exit_code == 2
    assert "--certfile and --keyfile go together" in half.stderr
    (tmp_path / "c.pem").write_text("x")
    missing = runner.invoke(
        app,
        ["serve", "--certfile", str(tmp_path / "c.pem"), "--keyfile", "k.pem", "--db", db],
    )
    assert missing.exit_code == 2
    assert "no such file k.pem" in missing.stderr


def test_the_map_page_and_the_editor_give_the_players_own_data(
    game: Game, client: TestClient
) -> None:
    """Issue 16: the map and orders pages carry his map and orders as data for the page's one
    script, served by the app; the policy lets that script run and nothing else."""
    sign_in(client, "g", "red", game.secrets["g", "red"])
    for page in ("/map", "/orders"):
        body = client.get(page).text
        scripts = re.findall(r"<script[^>]*>", body)
        assert scripts == [
            "<script type='application/json' id='umpire-data'>",
            "<script src='/static/umpire.js' defer>",
        ]
        data = json.loads(body.split("id='umpire-data'>")[1].split("</script>")[0])
        assert {u["id"] for u in data["map"]["units"]} >= {"red-S1", "red-T1"}
        assert "<svg" in body
    script = client.get("/static/umpire.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "umpire-data" in script.text
    policy = script.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    reach = client.get("/reach.json?unit=red-S1&to=0302").json()
    assert reach == json.loads(
        json.dumps(msgspec.to_builtins(game.service.reach(game.lineage, "red-S1", "red", "0302")))
    )
    assert reach["path"] == ["0202", "0302"]
    bad = client.get("/reach.json?unit=red-S1&to=9x")
    assert bad.status_code == 400
    assert "is not a hex label like 0712" in bad.json()["problem"]


def test_the_editor_writes_and_reads_the_orders_text(game: Game, client: TestClient) -> None:
    """The editor's orders become the orders text and back again (`rules.orders.dumps`);
    what is wrong is said; a post without the session's token is refused."""
    sign_in(client, "g", "red", game.secrets["g", "red"])
    document = {"player": "red", "turn": 2, "moves": [{"unit": "red-S1", "to": "0302"}]}
    written = client.post(
        "/orders/text", data=with_token(client, {"document": json.dumps(document)})
    ).json()
    assert (
        written["text"] == 'player = "red"\nturn = 2\n\n[[moves]]\nunit = "red-S1"\nto = "0302"\n'
    )
    read = client.post("/orders/read", data=with_token(client, {"orders": written["text"]}))
    assert read.json()["document"]["moves"] == [
        {"unit": "red-S1", "to": "0302", "order": None, "count": None, "via": []}
    ]
    wrong = client.post(
        "/orders/text", data=with_token(client, {"document": '{"player": "red", "turn": "x"}'})
    )
    assert wrong.status_code == 422
    assert "Expected `int`, got `str` - at `$.turn`" in wrong.json()["problems"][0]
    other = client.post(
        "/orders/read", data=with_token(client, {"orders": 'player = "blue"\nturn = 2\n'})
    )
    assert other.json()["problems"] == ["the file is blue's orders, not red's"]
    # The new units and task forces the orders make, named as the turn will name them.
    regrouped = {
        "player": "red",
        "turn": 2,
        "moves": [{"unit": "red-T1", "to": "0102", "count": 10}],
        "task_forces": [{"units": ["red-W1", "red-W2"]}],
    }
    named = client.post(
        "/orders/text", data=with_token(client, {"document": json.dumps(regrouped)})
    ).json()
    assert named["splits"] == [{"unit": "red-T1", "new_unit": "red-T2", "count": 10}]
    assert named["forces"] == [{"id": "red-F1", "units": ["red-W1", "red-W2"]}]
    forged = client.post("/orders/text", data={"document": json.dumps(document)})
    assert forged.status_code == 403
    assert "red" not in game.service.load(game.lineage).orders  # nothing was submitted


def test_the_orders_page_shows_what_was_received_and_reloads_it(
    game: Game, client: TestClient
) -> None:
    sign_in(client, "g", "red", game.secrets["g", "red"])
    assert "No orders received from you for this turn yet" in client.get("/orders").text
    text = orders("red", 2, ("red-S1", "0302", "ftl-move"))
    client.post("/orders", data=with_token(client, {"orders": text}))
    page = client.get("/orders").text
    assert "<li>red-S1 moves to 0302, ftl-move</li>" in page
    shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.DOTALL)
    assert shown is not None
    assert html.unescape(shown.group(1)) == (
        'player = "red"\nturn = 2\n\n[[moves]]\nunit = "red-S1"\nto = "0302"\norder = "ftl-move"\n'
    )


def test_the_pages_data_cannot_end_its_script_element(game: Game) -> None:
    """A name holding `</script>` stays data: every `<` of the page's JSON is escaped."""
    from campaign.web import _data_script

    desk = game.service.orders_desk(game.lineage, "red")
    hostile = msgspec.structs.replace(desk.map, title="</script><script>alert(1)</script>")
    html_text = _data_script(msgspec.structs.replace(desk, map=hostile))
    assert html_text.count("</script>") == 1
    assert html_text.endswith("</script>")
    data = json.loads(html_text.split(">", 1)[1].removesuffix("</script>"))
    assert data["map"]["title"] == "</script><script>alert(1)</script>"


def test_a_kept_page_is_drawn_again_when_the_branch_moves_on_and_is_only_its_players(
    game: Game,
) -> None:
    """Issue 19: a player's pages are kept as drawn until his branch's head moves; two
    players reading at once each get their own, and news recorded since shows at once."""
    app = create_app(game.service, secret_key="test-key", https_only=False)
    with TestClient(app) as red, TestClient(app) as blue:
        sign_in(red, "g", "red", game.secrets["g", "red"])
        sign_in(blue, "g", "blue", game.secrets["g", "blue"])
        for _ in range(2):  # the second reading is the kept drawing
            for page in ("/report", "/map.svg", "/map"):
                mine, theirs = red.get(page).text, blue.get(page).text
                assert "red-S1" in mine
                assert "red-S1" not in theirs
                assert "blue-S1" in theirs
                assert "blue-S1" not in mine
        zipped = red.get("/report", headers={"Accept-Encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip"
        assert "red-S1" in zipped.text  # the client unzips it
        before = red.get("/report").text
        game.service.resolve_turn(game.lineage, expected_turn=2)
        after = red.get("/report").text
        assert after != before
        assert "turn 3" in after


def test_a_kept_page_read_again_costs_no_query_until_the_database_changes(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: while nothing in the database changed (`Freshness`: SQLite's data_version),
    a kept page is answered from memory, without a query; a turn resolved or a secret rotated
    on another connection (as another process would) shows on the very next request."""
    looked: list[tuple[str, str]] = []
    real = web.look_up

    def counted(service: CampaignService, keys: PlayerSecrets, campaign: str, player: str) -> Any:
        looked.append((campaign, player))
        return real(service, keys, campaign, player)

    monkeypatch.setattr(web, "look_up", counted)
    with TestClient(create_app(game.service, secret_key="k", https_only=False)) as red:
        sign_in(red, "g", "red", game.secrets["g", "red"])
        for _ in range(2):  # drawn, then kept
            for page in ("/report", "/map.svg", "/map"):
                assert red.get(page).status_code == 200
        before = len(looked)
        for _ in range(2):
            for page in ("/report", "/map.svg", "/map"):
                assert "red-S1" in red.get(page).text
        assert len(looked) == before  # nothing changed: nothing read
        other = CampaignService.open(game.url)
        try:
            other.resolve_turn(game.lineage, expected_turn=2)
            assert "turn 3" in red.get("/report").text
            assert looked[before:] == [("g", "red")]
            PlayerSecrets(other.store).rotate("g", "red")
        finally:
            other.close()
        for page in ("/map.svg", "/report"):
            response = red.get(page, follow_redirects=False)
            assert (response.status_code, response.headers["location"]) == (303, "/")


def test_what_the_server_remembers_is_each_campaigns_and_players_own(game: Game) -> None:
    """Issue 19: red of campaign g and red of campaign h, reading in turn while nothing
    changes, each get their own campaign's pages from what the server keeps, and blue only
    his (what it remembers is keyed by campaign and player, and checked against the
    session's tag and the branch's head)."""
    app = create_app(game.service, secret_key="k", https_only=False)
    with TestClient(app) as g_red, TestClient(app) as h_red, TestClient(app) as g_blue:
        sign_in(g_red, "g", "red", game.secrets["g", "red"])
        sign_in(h_red, "h", "red", game.secrets["h", "red"])
        sign_in(g_blue, "g", "blue", game.secrets["g", "blue"])
        for _ in range(3):
            mine, theirs, blue = (c.get("/report").text for c in (g_red, h_red, g_blue))
            assert "g: red's report, turn 2" in mine
            assert "h: red's report, turn 1" in theirs
            assert "Alpha (0102)" in mine
            assert "Alpha (0102)" not in theirs
            assert "red-S1" not in blue
            maps = [c.get("/map.svg").text for c in (g_red, h_red, g_blue)]
            assert len(set(maps)) == 3
            assert "red-S1" not in maps[2]


def test_freshness_moves_with_every_commit_on_another_connection(tmp_path: Path) -> None:
    """`Freshness.look` changes when any other connection commits, and only then; it is None
    where it cannot tell (a database in memory, or once closed)."""
    game = Game(f"sqlite:///{tmp_path / 'f.db'}", tmp_path)
    try:
        fresh = web.Freshness.of(game.service.store)
        first = fresh.look()
        assert first is not None
        assert fresh.look() == first
        game.service.target("g")  # a read changes nothing
        assert fresh.look() == first
        PlayerSecrets(game.service.store).rotate("g", "blue")
        second = fresh.look()
        assert second not in (None, first)
        game.service.resolve_turn(game.lineage, expected_turn=2)
        assert fresh.look() not in (None, second)
        fresh.close()
        assert fresh.look() is None
    finally:
        game.close()
    memory = CampaignService.open("sqlite://", create=True)
    try:
        assert web.Freshness.of(memory.store).look() is None
    finally:
        memory.close()


def test_on_postgresql_a_kept_page_follows_every_change_at_once(
    pg_url: str, tmp_path: Path
) -> None:
    """Issue 19: on PostgreSQL the server remembers what it read at a look (the server's
    snapshot, which any commit moves): a turn resolved and a secret rotated on another
    connection still show on the very next request."""
    reset_postgres(pg_url)
    hosted = Game(pg_url, tmp_path)
    other = CampaignService.open(pg_url)
    try:
        first = web.Freshness.of(hosted.service.store).look()
        assert isinstance(first, str)
        with TestClient(create_app(hosted.service, secret_key="k", https_only=False)) as red:
            sign_in(red, "g", "red", hosted.secrets["g", "red"])
            for _ in range(3):  # drawn, then kept
                assert "g: red's report, turn 2" in red.get("/report").text
                assert "red-S1" in red.get("/map.svg").text
            other.resolve_turn(hosted.lineage, expected_turn=2)
            assert web.Freshness.of(hosted.service.store).look() != first
            assert "g: red's report, turn 3" in red.get("/report").text
            PlayerSecrets(other.store).rotate("g", "red")
            for page in ("/map.svg", "/report", "/orders"):
                response = red.get(page, follow_redirects=False)
                assert (response.status_code, response.headers["location"]) == (303, "/")
    finally:
        other.close()
        hosted.close()


def test_a_players_page_is_drawn_once_for_all_his_sessions_each_with_its_own_token(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: two sessions of red (two browsers) get the report and map drawn once, each
    page framed with its own session's form token, never the other's."""
    drawn: list[str] = []
    real = CampaignService.report

    def counted(self: CampaignService, *args: Any, **kwargs: Any) -> Any:
        drawn.append("report")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CampaignService, "report", counted)
    app = create_app(game.service, secret_key="k", https_only=False)
    with TestClient(app) as one, TestClient(app) as two:
        sign_in(one, "g", "red", game.secrets["g", "red"])
        sign_in(two, "g", "red", game.secrets["g", "red"])
        tokens = [with_token(client, {})["csrf"] for client in (one, two)]
        assert tokens[0] != tokens[1]
        for _ in range(2):
            for client, mine, theirs in ((one, *tokens), (two, *reversed(tokens))):
                for page in ("/report", "/map"):
                    text = client.get(page).text
                    assert "red-S1" in text
                    assert f"value='{mine}'" in text
                    assert theirs not in text
        assert drawn == ["report"]


def test_a_player_reads_his_earlier_reports(game: Game, client: TestClient) -> None:
    """His report links his earlier turns' reports (`/report/N`, as `umpire report --turn N`):
    each from his own events; a turn not in the campaign is one line naming the turns."""
    sign_in(client, "g", "red", game.secrets["g", "red"])
    assert "<a href='/report/0'>turn 0</a>" in client.get("/report").text
    earlier = client.get("/report/0")
    assert earlier.status_code == 200
    assert "g: red's report, turn 1" in earlier.text
    assert "Explored:" not in earlier.text  # turn 1's news is not turn 0's
    assert earlier.headers["cache-control"] == "no-store"
    assert "blue-" not in earlier.text
    refused = client.get("/report/9")
    assert refused.status_code == 400
    assert "turn 9 is not in this campaign (0-2)" in refused.text
    assert client.get("/report/x").status_code == 404
    client.post("/sign-out", data=with_token(client, {}))
    assert client.get("/report/0", follow_redirects=False).headers["location"] == "/"
