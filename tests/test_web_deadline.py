"""The players' web page and the orders deadline (the 004 trial of remote play).

A sent order said "you may send new ones until the turn is resolved" with a deadline set; past
the deadline /orders still offered Send and Mark final, whose click came back 422 "were due by
09:12 UTC"; and a deadline of 09:12:30 read "09:12". Now the page says until when, closes
the orders at the deadline (saying why, offering neither button, also on a page left open
across it), and shows a deadline to the second whenever it has seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright
from starlette.testclient import TestClient

from campaign.web import create_app
from tests.conftest import FixedClock
from tests.test_strategic import orders
from tests.test_web import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    Game,
    server,  # noqa: F401 - the fixture `umpire serve`
    sign_in,
    with_token,
)

SENT = orders("red", 2, ("red-S1", "0302", "ftl-move"))


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    made = Game(f"sqlite:///{tmp_path / 'web.db'}", tmp_path)
    yield made
    made.close()


@pytest.fixture
def red(game: Game) -> Iterator[TestClient]:
    with TestClient(create_app(game.service, secret_key="k", https_only=False)) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        yield client


def clock(game: Game) -> FixedClock:
    ticking = game.service.store.clock
    assert isinstance(ticking, FixedClock)
    return ticking


def due_in(game: Game, delta: timedelta) -> datetime:
    """Set turn 2's deadline `delta` from the clock, at 30 seconds past its minute."""
    when = (clock(game).now + delta).replace(second=30, microsecond=0)
    game.service.set_deadline(game.lineage, when)
    return when


def test_a_sent_order_says_until_when_it_may_be_replaced(game: Game, red: TestClient) -> None:
    sent = red.post("/orders", data=with_token(red, {"orders": SENT}))
    assert "You may send new ones until the turn is resolved" in sent.text  # no deadline
    due_in(game, timedelta(hours=2))
    sent = red.post("/orders", data=with_token(red, {"orders": SENT}))
    assert sent.status_code == 200
    assert "until the turn is resolved" not in sent.text
    assert "You may send new ones until 2026-01-01 02:" in sent.text
    assert ":30 UTC, the deadline; the last ones count." in sent.text


def test_a_deadline_with_seconds_shows_them(game: Game, red: TestClient) -> None:
    when = due_in(game, timedelta(hours=2))
    shown = f"due by {when:%Y-%m-%d %H:%M:%S} UTC"
    assert shown in red.get("/orders").text
    assert shown in red.get("/report").text
    assert f"due by {when:%Y-%m-%d %H:%M} UTC" not in red.get("/orders").text


def test_past_the_deadline_orders_are_closed_and_not_offered(game: Game, red: TestClient) -> None:
    when = due_in(game, timedelta(hours=2))
    red.post("/orders", data=with_token(red, {"orders": SENT}))
    before = red.get("/orders").text
    assert "id='send'" in before
    assert "Mark final" in before
    clock(game).now = when + timedelta(seconds=1)
    page = red.get("/orders")
    assert page.status_code == 200
    assert f"Orders for turn 2 closed at {when:%Y-%m-%d %H:%M:%S} UTC, their deadline" in page.text
    assert "id='send'" not in page.text
    assert "Mark final" not in page.text
    assert "action='/orders'" not in page.text
    assert "<li>red-S1 moves to 0302, ftl-move</li>" in page.text  # what counts, still shown
    assert "they are the ones that count" in page.text
    assert "send again" not in page.text
    # A form kept from before is refused as before, the page saying why, offering nothing.
    late = red.post("/orders", data=with_token(red, {"orders": SENT}))
    assert late.status_code == 422
    assert f"were due by {when:%Y-%m-%d %H:%M:%S} UTC" in late.text
    assert "id='send'" not in late.text


def test_a_page_left_open_closes_its_orders_at_the_deadline(
    game: Game,
    server: str,  # noqa: F811 - the fixture imported above
) -> None:
    """In Chromium against `umpire serve` (its clock the real one): the page, open before the
    deadline, counts down to it, then disables Send and Mark final and says so."""
    game.service.submit_orders(game.lineage, "red", SENT)  # so Mark final is offered
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page()
            page.goto(server + "/")
            page.fill("input[name=campaign]", "g")
            page.fill("input[name=player]", "red")
            page.fill("input[name=secret]", game.secrets["g", "red"])
            page.click("button[type=submit]")
            page.wait_for_url(server + "/report")
            when = datetime.now(UTC) + timedelta(seconds=6)
            game.service.set_deadline(game.lineage, when)
            page.goto(server + "/orders")
            expect(page.locator("#send")).to_be_enabled()
            expect(page.locator("form.final button")).to_be_enabled()
            expect(page.locator("#deadline")).to_contain_text(" s left")
            closed = page.locator("#deadline")
            expect(closed).to_contain_text("orders are closed", timeout=20_000)
            expect(page.locator("#send")).to_be_disabled()
            expect(page.locator("form.final button")).to_be_disabled()
            while datetime.now(UTC) <= when:  # the server's clock past it too
                time.sleep(0.2)
            page.reload()
            expect(page.locator("main")).to_contain_text("Orders for turn 2 closed at")
            expect(page.locator("#send")).to_have_count(0)
        finally:
            browser.close()
