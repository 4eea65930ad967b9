"""Issue 13 findings 4, 7 and 14 on the players' web page: sign-in that nobody else can lock,
a bounded number of secret checks, no believed X-Forwarded-For without a proxy, sign-out that
kills copied cookies, CSRF tokens and origin checks, Secure cookies by default, security
headers on every response, and order submissions that retry lost races and are rate-limited.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from campaign import web
from campaign.errors import ConcurrencyError
from campaign.players import PlayerSecrets
from campaign.service import CampaignService
from campaign.web import BUSY, FORM_EXPIRED, CheckGate, FailureLimiter, create_app, server_config
from tests.test_web import Game, sign_in, with_token

ELSEWHERE = ("203.0.113.7", 40000)  # another client address than TestClient's own


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    made = Game(f"sqlite:///{tmp_path / 'web.db'}", tmp_path)
    yield made
    made.close()


def plain(app: Any, client: tuple[str, int] = ("testclient", 50000)) -> TestClient:
    return TestClient(app, client=client)


def sign_in_form(game: Game, secret: str) -> dict[str, str]:
    return {"campaign": "g", "player": "red", "secret": secret}


def test_guesses_from_elsewhere_never_lock_a_player_out(game: Game) -> None:
    app = create_app(game.service, "k", FailureLimiter(limit=3), https_only=False)
    with plain(app) as attacker:
        for _ in range(5):
            data = with_token(attacker, sign_in_form(game, "guess"))
            assert attacker.post("/sign-in", data=data).status_code in (401, 429)
        right = with_token(attacker, sign_in_form(game, game.secrets["g", "red"]))
        assert attacker.post("/sign-in", data=right).status_code == 429  # he waits
    with plain(app, ELSEWHERE) as red:
        sign_in(red, "g", "red", game.secrets["g", "red"])  # red does not
        assert red.get("/report").status_code == 200


def test_one_address_cannot_spray_guesses_over_every_player(game: Game) -> None:
    app = create_app(game.service, "k", FailureLimiter(limit=2), https_only=False)
    with plain(app) as attacker:
        for player in ("red", "blue", "green", "white"):
            for _ in range(2):
                form = {"campaign": "g", "player": player, "secret": "guess"}
                attacker.post("/sign-in", data=with_token(attacker, form))
        form = {"campaign": "g", "player": "yellow", "secret": "guess"}
        assert attacker.post("/sign-in", data=with_token(attacker, form)).status_code == 429


def test_only_a_few_secrets_are_checked_at_once(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checks beyond the limit are refused before any hashing; the rest go on."""
    release = threading.Event()
    inside = threading.Semaphore(0)
    checking = [0]
    real = PlayerSecrets.verify

    def slow_verify(self: PlayerSecrets, campaign: str, player: str, secret: str) -> bool:
        checking[0] += 1
        inside.release()
        release.wait(timeout=60)
        return real(self, campaign, player, secret)

    monkeypatch.setattr(PlayerSecrets, "verify", slow_verify)
    app = create_app(game.service, "k", https_only=False, gate=CheckGate(limit=2))
    statuses: list[int] = []
    with plain(app) as client:
        data = with_token(client, sign_in_form(game, "guess"))

        def post() -> None:
            statuses.append(client.post("/sign-in", data=data).status_code)

        threads = [threading.Thread(target=post) for _ in range(6)]
        for thread in threads[:2]:
            thread.start()
        assert inside.acquire(timeout=60)
        assert inside.acquire(timeout=60)  # two checks are running, and hold
        for thread in threads[2:]:
            thread.start()
            thread.join(timeout=60)
        assert statuses == [503] * 4
        release.set()
        for thread in threads[:2]:
            thread.join(timeout=60)
    assert sorted(statuses) == [401, 401, 503, 503, 503, 503]
    assert checking[0] == 2


def test_a_busy_refusal_says_so(game: Game) -> None:
    app = create_app(game.service, "k", https_only=False, gate=CheckGate(limit=0))
    with plain(app) as client:
        response = client.post("/sign-in", data=with_token(client, sign_in_form(game, "x")))
    assert response.status_code == 503
    assert BUSY in response.text
    assert response.headers["retry-after"] == "1"


def test_x_forwarded_for_is_believed_only_behind_a_named_proxy(game: Game) -> None:
    default = server_config(game.service)
    assert default.proxy_headers is False
    behind = server_config(game.service, proxy="10.0.0.1")
    assert behind.proxy_headers is True
    assert behind.forwarded_allow_ips == "10.0.0.1"


def test_a_cookie_copied_before_sign_out_is_dead_after_it(game: Game) -> None:
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        copied = client.cookies["umpire_session"]
        client.post("/sign-out", data=with_token(client, {}))
    with plain(app, ELSEWHERE) as thief:
        thief.cookies.set("umpire_session", copied)
        response = thief.get("/report", follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (303, "/")


def test_a_copied_cookie_is_dead_after_sign_out_though_its_pages_are_kept(game: Game) -> None:
    """Issue 19: pages answered from memory (nothing in the database changed, and signing
    out changes nothing there) still end with the session: a copy of the cookie gets none."""
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        for _ in range(2):  # drawn, then answered from memory
            for page in ("/report", "/map.svg", "/map"):
                assert client.get(page).status_code == 200
        copied = client.cookies["umpire_session"]
        client.post("/sign-out", data=with_token(client, {}))
    with plain(app, ELSEWHERE) as thief:
        thief.cookies.set("umpire_session", copied)
        for page in ("/report", "/map.svg", "/map"):
            response = thief.get(page, follow_redirects=False)
            assert (response.status_code, response.headers["location"]) == (303, "/")


def test_posts_need_the_forms_token_and_this_sites_origin(game: Game) -> None:
    app = create_app(game.service, "k", https_only=False)
    right = sign_in_form(game, game.secrets["g", "red"])
    with plain(app) as client:
        no_token = client.post("/sign-in", data=right)
        assert no_token.status_code == 403
        assert FORM_EXPIRED in no_token.text
        cross = client.post(
            "/sign-in", data=with_token(client, right), headers={"origin": "https://evil.example"}
        )
        assert cross.status_code == 403
        fetched = client.post(
            "/sign-in", data=with_token(client, right), headers={"sec-fetch-site": "cross-site"}
        )
        assert fetched.status_code == 403
        sign_in(client, "g", "red", game.secrets["g", "red"])
        before = len(game.service.log(game.lineage))
        text = game.service.orders_template(game.lineage, "red")
        assert client.post("/orders", data={"orders": text}).status_code == 403
        assert client.post("/orders", data={"orders": text, "csrf": "forged"}).status_code == 403
        assert len(game.service.log(game.lineage)) == before
        assert client.post("/sign-out", data={}).status_code == 403
        assert client.get("/report").status_code == 200  # still signed in


def test_the_cookie_is_secure_unless_plain_http_on_loopback(game: Game) -> None:
    app = create_app(game.service, secret_key="k")  # the default
    with TestClient(app, base_url="https://testserver") as client:
        response = client.get("/")
        assert "secure" in response.headers["set-cookie"].lower().split("; ")
    assert web.cookie_secure("0.0.0.0", https_only=False, tls=False)
    assert web.cookie_secure("192.168.1.5", https_only=False, tls=False)
    assert not web.cookie_secure("127.0.0.1", https_only=False, tls=False)
    assert not web.cookie_secure("::1", https_only=False, tls=False)
    assert web.cookie_secure("127.0.0.1", https_only=False, tls=True)


def test_every_response_carries_the_security_headers(game: Game) -> None:
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        responses = [
            client.get("/no-such-page"),
            client.get("/report", follow_redirects=False),
            client.post("/sign-in", data={}),
        ]
        signed = client.post(
            "/sign-in",
            data=with_token(client, sign_in_form(game, game.secrets["g", "red"])),
            follow_redirects=False,
        )
        responses += [signed, client.get("/map.svg"), client.get("/map")]
        responses += [client.get("/reach.json?unit=red-S1"), client.get("/static/umpire.js")]
        responses.append(client.post("/orders/text", data={"document": "{}"}))  # no token
    assert [r.status_code for r in responses] == [404, 303, 403, 303, 200, 200, 200, 200, 403]
    for response in responses:
        assert "default-src 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers.get_list("content-security-policy") == [
            response.headers["content-security-policy"]
        ]


def test_a_lost_race_is_retried_by_the_server(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    real = CampaignService.submit_orders
    losses = [2]

    def racing(self: CampaignService, *args: Any) -> Any:
        if losses[0]:
            losses[0] -= 1
            raise ConcurrencyError("another writer appended first")
        return real(self, *args)

    monkeypatch.setattr(CampaignService, "submit_orders", racing)
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        text = game.service.orders_template(game.lineage, "red")
        response = client.post("/orders", data=with_token(client, {"orders": text}))
        assert response.status_code == 200
        assert "Orders recorded" in response.text
        losses[0] = 1000  # a campaign that stays busy: a clear answer, never a raw 422
        busy = client.post("/orders", data=with_token(client, {"orders": text}))
        assert busy.status_code == 503
        assert "the campaign is busy" in busy.text


def test_submissions_are_rate_limited(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "SUBMISSIONS", 3)
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        text = game.service.orders_template(game.lineage, "red")
        codes = [
            client.post("/orders", data=with_token(client, {"orders": text})).status_code
            for _ in range(4)
        ]
    assert codes == [200, 200, 200, 429]


def test_oversized_orders_are_refused(game: Game) -> None:
    app = create_app(game.service, "k", https_only=False)
    with plain(app) as client:
        sign_in(client, "g", "red", game.secrets["g", "red"])
        text = game.service.orders_template(game.lineage, "red") + "#" * (300 * 1024)
        response = client.post("/orders", data=with_token(client, {"orders": text}))
    assert response.status_code in (413, 422)


def test_concurrent_order_posts_all_land(game: Game) -> None:
    """Four players' browsers posting at once: each lost race is the server's to retry (a
    post can lose at most three times to the other three, within the five attempts)."""
    app = create_app(game.service, "k", https_only=False)
    clients = [plain(app, (f"198.51.100.{n}", 40000)) for n in range(4)]
    forms = []
    for n, client in enumerate(clients):
        player = ("red", "blue")[n % 2]
        client.__enter__()
        sign_in(client, "g", player, game.secrets["g", player])
        forms.append(
            with_token(client, {"orders": game.service.orders_template(game.lineage, player)})
        )
    start = threading.Barrier(len(clients))
    codes: list[int] = []

    def post(client: TestClient, form: dict[str, str]) -> None:
        start.wait(timeout=60)
        codes.append(client.post("/orders", data=form).status_code)

    threads = [
        threading.Thread(target=post, args=pair) for pair in zip(clients, forms, strict=True)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        for client in clients:
            client.__exit__(None, None, None)
    assert codes == [200] * 4
    assert set(game.service.load(game.lineage).orders) == {"red", "blue"}
