"""The players' web page (`umpire serve`): sign in, read the turn package, send orders.

A small Starlette app over the same service layer as the CLI. A player signs in with his
campaign, his name and the secret `umpire player add` issued; the signed session cookie then
holds those names and a tag of the secret, so rotating a secret ends every session opened with
the old one. Every page is built only from the service's player-filtered queries (`report`,
`player_map`, `orders_template`, `log(viewer=...)`), and orders go through
`CampaignService.submit_orders`, exactly as `umpire orders submit` does. One server serves
every campaign in its database; the umpire uses the CLI.

Only this module and cli.py import the web framework (ruff's banned-api enforces it).
"""

from __future__ import annotations

import os
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable, Sequence
from html import escape as esc
from typing import Any, TypeVar

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from campaign.errors import IllegalCommandError, UmpireError
from campaign.players import PlayerSecrets
from campaign.render import describe, html_table, report_body_html
from campaign.rules.movement import OrdersError
from campaign.service import CampaignService, PlayerReport
from campaign.store import Lineage
from maps import parse_label
from maps.svg import Marker, to_svg

T = TypeVar("T")
Handler = Callable[[Request], Awaitable[Response]]

SECRET_ENV = "UMPIRE_WEB_SECRET"
MAX_BODY = 256 * 1024  # an orders file is a few kilobytes
MAX_FAILURES = 5  # failed sign-ins per client (and per player) ...
FAILURE_WINDOW = 300.0  # ... in this many seconds, before sign-ins are refused for a while
MAX_TRACKED = 10_000  # keys remembered before expired ones are dropped
SIGN_IN_REFUSED = "campaign, player or secret not recognised"  # never says which

# Pages are plain HTML and one inline style sheet: no scripts, nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
STYLE = (
    "body{font-family:sans-serif;max-width:62em;margin:1em auto;padding:0 1em;color:#1b1f2a}"
    "nav{display:flex;gap:1.2em;align-items:center;border-bottom:1px solid #ccd;"
    "padding-bottom:.5em}nav form{margin-left:auto}"
    "td,th{padding:.1em .7em;text-align:left}th{border-bottom:1px solid #ccd}"
    "textarea{width:100%;font-family:monospace;font-size:.9em}"
    ".problems{color:#a01010}.ok{color:#106010}img.map{max-width:100%;border:1px solid #ccd}"
    "label{display:block;margin:.4em 0}input{margin-left:.5em}"
)


class FailureLimiter:
    """Count failed sign-ins per key in a sliding window; refuse a key past the limit."""

    def __init__(
        self,
        limit: int = MAX_FAILURES,
        window: float = FAILURE_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: defaultdict[str, deque[float]] = defaultdict(deque)

    def blocked(self, keys: Sequence[str]) -> bool:
        """Return whether any of `keys` has failed `limit` times within the window."""
        now = self.clock()
        for key in keys:
            seen = self._failures.get(key)
            while seen and now - seen[0] > self.window:
                seen.popleft()
            if seen is not None and len(seen) >= self.limit:
                return True
        return False

    def fail(self, keys: Sequence[str]) -> None:
        """Record a failed sign-in against each key."""
        now = self.clock()
        if len(self._failures) > MAX_TRACKED:
            # Someone is spraying names: forget the keys whose failures have all expired.
            for key in [k for k, seen in self._failures.items() if now - seen[-1] > self.window]:
                del self._failures[key]
        for key in keys:
            self._failures[key].append(now)


def create_app(
    service: CampaignService,
    secret_key: str | None = None,
    limiter: FailureLimiter | None = None,
    https_only: bool = False,
) -> Starlette:
    """Return the players' web app over `service`.

    The session cookie is signed with `secret_key`, else UMPIRE_WEB_SECRET, else a key made
    for this server's lifetime (sessions then end when it restarts). `https_only` is for a
    hosted server: the cookie is marked Secure (browsers send it over HTTPS only) and every
    response tells browsers to keep to HTTPS (Strict-Transport-Security).
    """
    key = secret_key or os.environ.get(SECRET_ENV) or secrets.token_urlsafe(32)
    pages = _Pages(service, PlayerSecrets(service.store), limiter or FailureLimiter())
    routes = [
        Route("/", pages.sign_in_form, methods=["GET"]),
        Route("/sign-in", pages.sign_in, methods=["POST"]),
        Route("/sign-out", pages.sign_out, methods=["POST"]),
        Route("/report", pages.signed_in(pages.report), methods=["GET"]),
        Route("/map.svg", pages.signed_in(pages.map_svg), methods=["GET"]),
        Route("/orders", pages.signed_in(pages.orders_form), methods=["GET"]),
        Route("/orders", pages.signed_in(pages.submit_orders), methods=["POST"]),
        Route("/log", pages.signed_in(pages.log), methods=["GET"]),
    ]
    middleware = [
        Middleware(
            SessionMiddleware,
            secret_key=key,
            session_cookie="umpire_session",
            same_site="strict",  # no cross-site request carries the session (CSRF)
            max_age=12 * 3600,
            https_only=https_only,
        )
    ]
    if https_only:
        middleware.append(Middleware(_StrictTransport))
    return Starlette(routes=routes, middleware=middleware, max_body_size=MAX_BODY)


def serve(
    service: CampaignService,
    host: str = "127.0.0.1",
    port: int = 8000,
    https_only: bool = False,
    tls: tuple[str, str] | None = None,
) -> None:
    """Serve the players' web page until interrupted.

    `tls` (certificate file, key file) serves HTTPS itself, which implies `https_only`; behind
    a proxy that ends TLS, pass `https_only` alone.
    """
    certfile, keyfile = tls or (None, None)
    uvicorn.run(
        create_app(service, https_only=https_only or tls is not None),
        host=host,
        port=port,
        log_level="info",
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
    )


HSTS = "max-age=31536000"  # a year; no includeSubDomains: the host may share a domain


class _StrictTransport:
    """ASGI middleware: add Strict-Transport-Security to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_hsts(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"strict-transport-security", HSTS.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_hsts)


class _Player:
    """The signed-in player of a request."""

    def __init__(self, campaign: str, player: str, lineage: Lineage) -> None:
        self.campaign = campaign
        self.name = player
        self.lineage = lineage


PlayerHandler = Callable[[Request, _Player], Awaitable[Response]]


class _Pages:
    def __init__(
        self, service: CampaignService, secrets_: PlayerSecrets, limiter: FailureLimiter
    ) -> None:
        self.service = service
        self.secrets = secrets_
        self.limiter = limiter

    # ------------------------------------------------------------ signing in

    async def sign_in_form(self, request: Request) -> Response:
        if _session_player(request) is not None:
            return RedirectResponse("/report", status_code=303)
        return _page("Sign in", _sign_in_html())

    async def sign_in(self, request: Request) -> Response:
        form = await request.form()
        campaign = str(form.get("campaign", "")).strip()
        player = str(form.get("player", "")).strip()
        secret = str(form.get("secret", "")).strip()
        client = request.client.host if request.client else "unknown"
        keys = [f"client:{client}", f"player:{campaign}/{player}"]
        if self.limiter.blocked(keys):
            body = _sign_in_html(campaign, player, "too many failed sign-ins: wait a few minutes")
            return _page("Sign in", body, status_code=429)
        ok = await run_in_threadpool(self.secrets.verify, campaign, player, secret)
        if not ok:
            self.limiter.fail(keys)
            return _page("Sign in", _sign_in_html(campaign, player, SIGN_IN_REFUSED), 401)
        tag = await run_in_threadpool(self.secrets.session_tag, campaign, player)
        request.session.clear()
        request.session.update({"campaign": campaign, "player": player, "tag": tag})
        return RedirectResponse("/report", status_code=303)

    async def sign_out(self, request: Request) -> Response:
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    def signed_in(self, handler: PlayerHandler) -> Handler:
        """Wrap a page that needs a player: check the session against the current secret."""

        async def run(request: Request) -> Response:
            found = _session_player(request)
            if found is None:
                return RedirectResponse("/", status_code=303)
            campaign, player, tag = found
            current = await run_in_threadpool(self.secrets.session_tag, campaign, player)
            if current is None or not secrets.compare_digest(current, tag):
                request.session.clear()  # the secret was rotated: sign in again
                return RedirectResponse("/", status_code=303)
            try:
                lineage = await run_in_threadpool(self.service.target, campaign)
                return await handler(request, _Player(campaign, player, lineage))
            except UmpireError as exc:
                return _page("Problem", f"<p class='problems'>{esc(str(exc))}</p>", 400, player)

        return run

    # ------------------------------------------------------------ pages

    async def report(self, request: Request, who: _Player) -> Response:
        report = await self._call(self.service.report, who.lineage, who.name)
        has_map = await self._call(self._has_map, who)
        body = _report_html(report, has_map)
        title = f"{who.campaign}: turn {report.turn}"
        return _page(title, body, player=f"{who.name} of {who.campaign}")

    async def map_svg(self, request: Request, who: _Player) -> Response:
        starmap, explored = await self._call(self.service.player_map, who.lineage, who.name)
        report = await self._call(self.service.report, who.lineage, who.name)
        markers = _unit_markers(report)
        svg = to_svg(starmap, explored=explored, markers=markers)
        return Response(svg, media_type="image/svg+xml", headers=SECURITY_HEADERS)

    async def orders_form(self, request: Request, who: _Player) -> Response:
        text = await self._call(self.service.orders_template, who.lineage, who.name)
        return _page("Orders", _orders_html(text), player=f"{who.name} of {who.campaign}")

    async def submit_orders(self, request: Request, who: _Player) -> Response:
        form = await request.form()
        text = str(form.get("orders", ""))
        signed = f"{who.name} of {who.campaign}"
        try:
            recorded = await self._call(self.service.submit_orders, who.lineage, who.name, text)
        except OrdersError as exc:
            return _page("Orders", _orders_html(text, exc.problems), 422, signed)
        except UmpireError as exc:
            return _page("Orders", _orders_html(text, [str(exc)]), 422, signed)
        done = "".join(f"<li>{esc(describe(r.event))}</li>" for r in recorded)
        receipt = await self._call(self.service.receipt, who.lineage, who.name)
        body = (
            "<p class='ok'>Orders recorded. You may send new ones until the turn is resolved; "
            f"the last ones count.</p><ul>{done}</ul>"
            "<p>Your receipt (keep it: `umpire verify --receipts` proves what you were shown "
            f"is still the history): <code>{esc(receipt.encode())}</code></p>"
            f"{_orders_html(text)}"
        )
        return _page("Orders", body, player=signed)

    async def log(self, request: Request, who: _Player) -> Response:
        events = await self._call(self.service.log, who.lineage, viewer=who.name)
        rows = [[str(e.turn), e.type, describe(e.event)] for e in events]
        body = "<h1>What you have been told</h1>" + html_table(["turn", "type", "what"], rows)
        return _page("Log", body, player=f"{who.name} of {who.campaign}")

    # ------------------------------------------------------------ internals

    async def _call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking service call in the thread pool."""
        return await run_in_threadpool(function, *args, **kwargs)

    def _has_map(self, who: _Player) -> bool:
        try:
            self.service.player_map(who.lineage, who.name)
        except IllegalCommandError:
            return False
        return True


def _session_player(request: Request) -> tuple[str, str, str] | None:
    session = request.session
    values = (session.get("campaign"), session.get("player"), session.get("tag"))
    if not all(isinstance(v, str) and v for v in values):
        return None
    campaign, player, tag = (str(v) for v in values)
    return campaign, player, tag


def _unit_markers(report: PlayerReport) -> list[Marker]:
    """One tag per hex where the player's own units stand, giving how many."""
    counts: dict[str, int] = {}
    for unit in report.units:
        if unit.hex:
            counts[unit.hex] = counts.get(unit.hex, 0) + 1
    return [Marker(parse_label(h), str(n), "#ffd84a") for h, n in sorted(counts.items())]


def _page(title: str, body: str, status_code: int = 200, player: str | None = None) -> Response:
    nav = ""
    if player is not None:
        nav = (
            "<nav><a href='/report'>Report</a><a href='/orders'>Orders</a>"
            f"<a href='/log'>Log</a><span>{esc(player)}</span>"
            "<form method='post' action='/sign-out'><button>Sign out</button></form></nav>"
        )
    html = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)} - umpire</title><style>{STYLE}</style></head>"
        f"<body>{nav}<main>{body}</main></body></html>\n"
    )
    return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)


def _sign_in_html(campaign: str = "", player: str = "", problem: str | None = None) -> str:
    message = f"<p class='problems' role='alert'>{esc(problem)}</p>" if problem else ""
    return (
        "<h1>Sign in</h1>"
        f"{message}<form method='post' action='/sign-in'>"
        f"<label>Campaign<input name='campaign' required value='{esc(campaign)}'></label>"
        f"<label>Player<input name='player' required value='{esc(player)}'></label>"
        "<label>Secret<input name='secret' type='password' required "
        "autocomplete='current-password'></label>"
        "<button type='submit'>Sign in</button></form>"
    )


def _report_html(report: PlayerReport, has_map: bool) -> str:
    map_html = (
        "<h2>Your map</h2><img class='map' src='/map.svg' "
        "alt='The star map as you know it, with your units'>"
        if has_map
        else ""
    )
    return report_body_html(report, map_html=map_html, no_news="<li>nothing</li>")


def _orders_html(text: str, problems: Sequence[str] = ()) -> str:
    found = ""
    if problems:
        items = "".join(f"<li>{esc(p)}</li>" for p in problems)
        found = (
            f"<div class='problems' role='alert'><p>Nothing was recorded: "
            f"{len(problems)} problem(s).</p><ul>{items}</ul></div>"
        )
    return (
        "<h1>Orders</h1>"
        '<p>Give a unit <code>to = "CCRR"</code> to move it; every order is checked as '
        "<code>umpire orders submit</code> checks it, and nothing is stored while any is wrong."
        f"</p>{found}<form method='post' action='/orders'>"
        f"<textarea name='orders' rows='30' spellcheck='false'>{esc(text)}</textarea>"
        "<p><button type='submit'>Send orders</button></p></form>"
    )
