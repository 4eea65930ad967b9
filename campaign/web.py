"""The players' web page (`umpire serve`): sign in, read the turn package, send orders.

A small Starlette app over the same service layer as the CLI. A player signs in with his
campaign, his name and the secret `umpire player add` issued; the signed session cookie then
holds those names, a tag of the secret (rotating a secret ends every session opened with the
old one) and a session id the server keeps while the session lives (signing out, or
restarting the server, ends it for good: a copied cookie is worth nothing after).

Issue 13 hardened it: failed sign-ins are counted per client address and per (address,
player), so nobody elsewhere can lock a player out; at most `MAX_CHECKS` secrets are checked
at once (each check is a 16 MiB scrypt), the rest are told to retry; the client address is
the socket's unless `umpire serve --proxy ADDRESS` names a proxy whose X-Forwarded-For may be
believed; every form carries a CSRF token and every POST must come from the page's own origin;
every response, redirects and 404s included, carries the security headers; a lost race
with another writer is retried here, and each player's submissions are rate-limited.

Every page is built only from the service's player-filtered queries (`report`,
`player_map`, `orders_template`, `log(viewer=...)`), and orders go through
`CampaignService.submit_orders`, exactly as `umpire orders submit` does. One server serves
every campaign in its database; the umpire uses the CLI.

Only this module and cli.py import the web framework (ruff's banned-api enforces it).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from functools import partial
from html import escape as esc
from importlib import resources
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from campaign import db
from campaign.errors import ConcurrencyError, IllegalCommandError, InvalidInputError, UmpireError
from campaign.events import RecordedEvent
from campaign.ft2 import service as ft2
from campaign.ft2.desk import Ft2Desk
from campaign.ft2.model import Ft2Orders
from campaign.ft2.report import report_html
from campaign.inputs import MAX_ORDERS_BYTES, check_text_size
from campaign.playermap import OrdersDesk
from campaign.players import PlayerSecrets
from campaign.render import (
    battle_replay_html,
    describe,
    html_table,
    inline_svg,
    report_body_html,
)
from campaign.rules import orders as orders_rules
from campaign.rules.movement import OrdersError
from campaign.rules.orders import OrdersDocument
from campaign.schedule import due_words, orders_closed
from campaign.service import CampaignService, PlayerReport
from campaign.sqlitereads import SqliteReads
from campaign.store import EventStore, Lineage
from campaign.storetypes import Store

T = TypeVar("T")
V = TypeVar("V")
Handler = Callable[[Request], Awaitable[Response]]

SECRET_ENV = "UMPIRE_WEB_SECRET"
MAX_BODY = 256 * 1024  # an orders file is a few kilobytes
MAX_FAILURES = 5  # failed sign-ins for one player from one address ...
CLIENT_FAILURES = 4 * MAX_FAILURES  # ... or for anyone from one address ...
FAILURE_WINDOW = 300.0  # ... in this many seconds, before sign-ins are refused for a while
MAX_TRACKED = 10_000  # keys remembered before expired ones are dropped
MAX_CHECKS = 4  # secrets checked at once (16 MiB of scrypt each); more are told to retry
SESSION_SECONDS = 12 * 3600
MAX_SESSIONS = 10_000  # live sessions kept; the oldest ends first beyond that
MAX_SEEN = 4096  # players whose look-ups are remembered (`Freshness`) before all are dropped
SUBMISSIONS = 30  # order submissions a player may send ...
SUBMISSION_WINDOW = 600.0  # ... in this many seconds
RACE_RETRIES = 5  # attempts at a submission that keeps losing races with other writers
SIGN_IN_REFUSED = "campaign, player or secret not recognised"  # never says which
BUSY = "the server is busy checking other sign-ins: try again in a moment"
FORM_EXPIRED = "this form has expired or came from another site: reload the page and try again"
LOOPBACK = ("127.0.0.1", "::1", "localhost")

# Pages are plain HTML, one inline style sheet and one script the server itself serves
# (`/static/umpire.js`, the map and the orders editor): nothing inline runs, nothing comes
# from elsewhere, and the script talks to this server only.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # browsers then send Origin on our own POSTs
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
    "body.wide{max-width:90em}.app{display:grid;grid-template-columns:minmax(0,3fr) "
    "minmax(17em,2fr);gap:1em;align-items:start}.mapbox svg{width:100%;height:auto;"
    "touch-action:manipulation}.mapbox .hex{pointer-events:all;cursor:pointer}#labels,#entries,"
    "#key,#legend{pointer-events:none}"
    ".mapbox .system,.mapbox .marker{cursor:pointer}#arrows{pointer-events:none}"
    ".panel section{border:1px solid #ccd;border-radius:4px;padding:.5em;margin-bottom:.7em}"
    ".panel h2,.panel h3{margin:.2em 0 .4em;font-size:1.05em}.units{list-style:none;"
    "padding:0;margin:0;max-height:22em;overflow:auto}.units button{width:100%;"
    "text-align:left;margin:1px 0;padding:.35em .4em;font:inherit;background:#f3f4f8;"
    "border:1px solid #ccd;border-radius:3px}.units button.sel{background:#ffe9a8}"
    ".units button.given{border-left:4px solid #3a7}.units small{color:#555}"
    "select,input[type=number]{font:inherit;max-width:100%}input[type=number]{width:5em}"
    "fieldset{min-width:0;margin:.5em 0}#production{max-width:40em}"
    ".left{font-weight:bold}.left.over{color:#a01010}.deadline{background:#eef3ff;"
    "padding:.4em .6em;border-radius:4px}.hint{color:#555;font-size:.9em}"
    ".editor label{margin:.5em 0}.editor button{font:inherit;margin:.2em .2em .2em 0}"
    ".route{font-family:monospace}@media (max-width:760px){.app{display:block}"
    "nav{flex-wrap:wrap;gap:.8em}nav form{margin-left:0}.units{max-height:14em}}"
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

    def blocked(self, keys: Sequence[str], limits: Sequence[int] = ()) -> bool:
        """Return whether any of `keys` has failed its limit's times within the window.

        `limits` gives each key's limit, in order; keys beyond it have `limit`.
        """
        now = self.clock()
        for i, key in enumerate(keys):
            seen = self._failures.get(key)
            while seen and now - seen[0] > self.window:
                seen.popleft()
            limit = limits[i] if i < len(limits) else self.limit
            if seen is not None and len(seen) >= limit:
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


class _Sessions:
    """The live sessions: a cookie is good only while its id is here.

    Signing out drops the id, so a cookie copied before it names nobody afterwards; the
    server keeps them in memory, so restarting it signs everyone out.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._live: dict[str, tuple[str, str, float]] = {}

    def open(self, campaign: str, player: str) -> str:
        """Start a session for `player` of `campaign`; return its id."""
        while len(self._live) >= MAX_SESSIONS:
            del self._live[next(iter(self._live))]
        sid = secrets.token_urlsafe(24)
        self._live[sid] = (campaign, player, self.clock())
        return sid

    def holds(self, sid: str, campaign: str, player: str) -> bool:
        """Return whether `sid` is a live session of `player` of `campaign`."""
        found = self._live.get(sid)
        if found is None:
            return False
        if self.clock() - found[2] > SESSION_SECONDS:
            del self._live[sid]
            return False
        return found[:2] == (campaign, player)

    def close(self, sid: object) -> None:
        """End a session (nothing happens for an id that is not live)."""
        if isinstance(sid, str):
            self._live.pop(sid, None)


class CheckGate:
    """Let at most `limit` secret checks run at once; refuse the rest before hashing."""

    def __init__(self, limit: int = MAX_CHECKS) -> None:
        self.limit = limit
        self.running = 0

    async def run(self, function: Callable[..., T], *args: Any) -> T | None:
        """Run `function` in the thread pool, or return None at once if the gate is full."""
        if self.running >= self.limit:
            return None
        self.running += 1
        try:
            return await run_in_threadpool(function, *args)
        finally:
            self.running -= 1


def create_app(
    service: CampaignService,
    secret_key: str | None = None,
    limiter: FailureLimiter | None = None,
    https_only: bool = True,
    gate: CheckGate | None = None,
) -> Starlette:
    """Return the players' web app over `service`.

    The session cookie is signed with `secret_key`, else UMPIRE_WEB_SECRET, else a key made
    for this server's lifetime. `https_only` (the default) marks the cookie Secure (browsers
    send it over HTTPS only) and tells browsers to keep to HTTPS (Strict-Transport-Security);
    only a server on plain http at a loopback address turns it off (`cookie_secure`).
    """
    key = secret_key or os.environ.get(SECRET_ENV) or secrets.token_urlsafe(32)
    pages = _Pages(
        service, PlayerSecrets(service.store), limiter or FailureLimiter(), gate or CheckGate()
    )
    routes = [
        Route("/", pages.sign_in_form, methods=["GET"]),
        Route("/sign-in", pages.sign_in, methods=["POST"]),
        Route("/sign-out", pages.sign_out, methods=["POST"]),
        Route("/report", pages.kept("report", pages.draw_report), methods=["GET"]),
        Route("/report/{turn:int}", pages.signed_in(pages.past_report), methods=["GET"]),
        Route("/map.svg", pages.kept("map.svg", pages.draw_svg), methods=["GET"]),
        Route("/map", pages.kept("map", pages.draw_map), methods=["GET"]),
        Route("/reach.json", pages.signed_in(pages.reach), methods=["GET"]),
        Route("/orders", pages.signed_in(pages.orders_form), methods=["GET"]),
        Route("/orders", pages.signed_in(pages.submit_orders), methods=["POST"]),
        Route("/orders/final", pages.signed_in(pages.mark_final), methods=["POST"]),
        Route("/orders/text", pages.signed_in(pages.orders_text), methods=["POST"]),
        Route("/orders/read", pages.signed_in(pages.orders_read), methods=["POST"]),
        Route("/static/umpire.js", _script, methods=["GET"]),
        Route("/log", pages.signed_in(pages.log), methods=["GET"]),
        Route("/battles", pages.signed_in(pages.battles), methods=["GET"]),
        Route("/battles/{battle}", pages.signed_in(pages.battle), methods=["GET"]),
    ]
    middleware = [
        Middleware(
            SessionMiddleware,
            secret_key=key,
            session_cookie="umpire_session",
            same_site="strict",  # no cross-site request carries the session (CSRF)
            max_age=SESSION_SECONDS,
            https_only=https_only,
        ),
        Middleware(_SecurityHeaders, https_only=https_only),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        pages.fresh.close()

    return Starlette(
        routes=routes, middleware=middleware, max_body_size=MAX_BODY, lifespan=lifespan
    )


def cookie_secure(host: str, https_only: bool, tls: bool) -> bool:
    """Return whether the session cookie is marked Secure: always, except for plain http
    served on a loopback address (a player at the umpire's own machine, or an SSH tunnel).

    >>> cookie_secure("127.0.0.1", https_only=False, tls=False)
    False
    >>> cookie_secure("0.0.0.0", https_only=False, tls=False)
    True
    """
    return https_only or tls or host not in LOOPBACK


def server_config(
    service: CampaignService,
    host: str = "127.0.0.1",
    port: int = 8000,
    https_only: bool = False,
    tls: tuple[str, str] | None = None,
    proxy: str | None = None,
) -> uvicorn.Config:
    """Return the server's configuration (see `serve`)."""
    certfile, keyfile = tls or (None, None)
    return uvicorn.Config(
        create_app(service, https_only=cookie_secure(host, https_only, tls is not None)),
        host=host,
        port=port,
        log_level="info",
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        # X-Forwarded-For names the client only when the umpire says a proxy is in front,
        # and only from that proxy's address: otherwise anyone picks the address we count.
        proxy_headers=proxy is not None,
        forwarded_allow_ips=proxy or "",
    )


def serve(
    service: CampaignService,
    host: str = "127.0.0.1",
    port: int = 8000,
    https_only: bool = False,
    tls: tuple[str, str] | None = None,
    proxy: str | None = None,
) -> None:
    """Serve the players' web page until interrupted.

    `tls` (certificate file, key file) serves HTTPS itself, which implies `https_only`; behind
    a proxy that ends TLS, pass `https_only` alone. `proxy` is the address of a reverse proxy
    whose X-Forwarded-For header is believed. Plain http on an address other than loopback
    still marks the cookie Secure: browsers will only sign in over HTTPS.
    """
    uvicorn.Server(server_config(service, host, port, https_only, tls, proxy)).run()


HSTS = "max-age=31536000"  # a year; no includeSubDomains: the host may share a domain


class _SecurityHeaders:
    """ASGI middleware: the security headers on every response, redirects and 404s included,
    and Strict-Transport-Security when the server is for HTTPS."""

    def __init__(self, app: Any, https_only: bool) -> None:
        self.app = app
        extra = {"Strict-Transport-Security": HSTS} if https_only else {}
        self.headers = [
            (name.lower().encode(), value.encode())
            for name, value in {**SECURITY_HEADERS, **extra}.items()
        ]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(n, v) for n, v in self.headers if n not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _Player:
    """The signed-in player of a request, and his branch's head when it was looked up."""

    def __init__(
        self, campaign: str, player: str, lineage: Lineage, head: tuple[int, str] | None = None
    ) -> None:
        self.campaign = campaign
        self.name = player
        self.lineage = lineage
        self.head = head
        self.signed = f"{player} of {campaign}"


class Seen(NamedTuple):
    """What a request of a player needs from the database: his secret's session tag, and
    his campaign's active branch and its head."""

    tag: str
    lineage: Lineage
    head: tuple[int, str]


def look_up(
    service: CampaignService, secrets_: PlayerSecrets, campaign: str, player: str
) -> Seen | None:
    """Read `Seen` for `player` of `campaign` from the database (four small queries: his
    secret's row, the campaign's active branch, its streams, the head), or None when he
    holds no secret."""
    tag = secrets_.session_tag(campaign, player)
    if tag is None:
        return None
    lineage = service.target(campaign)
    return Seen(tag, lineage, service.head(lineage))


Look = int | str  # a database's mark at a look: the same mark, nothing committed between


class Freshness:
    """Whether anything in the database changed since a look, and what was read after a look
    that still holds (issue 19).

    A player's `Seen`, read after a look, holds while looks give the same mark: a request
    that finds it so reads nothing else. This base class never tells (`look` is None, as for
    a database in memory): every request reads what it needs. `Freshness.of` gives the
    looks of a SQLite file and of PostgreSQL.
    """

    quick = False  # whether a look may run on the event loop (it never waits)

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], tuple[Look, Seen]] = {}

    @classmethod
    def of(cls, store: Store) -> Freshness:
        """The `Freshness` of `store`'s database."""
        if isinstance(store, SqliteReads):
            return _SqliteLooks(store.path)
        if isinstance(store, EventStore):
            path = db.sqlite_path(store.engine.url)
            if path is not None and path.is_file():  # never a file made by looking
                return _SqliteLooks(path)
            if store.backend == "postgresql":
                return _PostgresLooks(store)
        return cls()

    def look(self) -> Look | None:
        """Return the database's mark now, or None when it cannot be told."""
        return None

    def recall(self, campaign: str, player: str, look: Look | None) -> Seen | None:
        """Return `Seen` as remembered at `look`, or None when not remembered at that look."""
        if look is None:
            return None
        found = self._seen.get((campaign, player))
        if found is None or found[0] != look:
            return None
        return found[1]

    def remember(self, campaign: str, player: str, look: Look | None, seen: Seen) -> None:
        """Remember `seen`, read from the database after the look that gave `look`."""
        if look is None:
            return
        if len(self._seen) >= MAX_SEEN:
            self._seen.clear()
        self._seen[(campaign, player)] = (look, seen)

    def close(self) -> None:
        """Release what the looks hold (every look after is None)."""


class _SqliteLooks(Freshness):
    """A SQLite file's looks: `PRAGMA data_version` on a connection of its own.

    The number moves whenever any other connection, of this server or of another process,
    commits a change to the file (an append, a rotated secret, a switched branch), and only
    then. A look takes microseconds and never waits: in WAL mode it takes no lock a writer
    holds, and its connection has no busy timeout, so a look that would wait gives None and
    the request reads the database as before. So it runs on the event loop: a kept page is
    answered with no query and no thread.
    """

    quick = True

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._conn = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()

    def look(self) -> Look | None:
        try:
            with self._lock:
                row = self._conn.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:  # busy, or closed: the request reads the database
            return None
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _PostgresLooks(Freshness):
    """PostgreSQL's looks: the server's current snapshot (`db.current_snapshot`), which any
    transaction committing between two looks changes (in this database or another of the
    server: a look is cautious, never wrong). A look is one query on the network, so it runs
    in the thread pool: one query in place of the four reads of `look_up`.
    """

    def __init__(self, store: EventStore) -> None:
        super().__init__()
        self._store = store

    def look(self) -> Look | None:
        return db.current_snapshot(self._store.engine)


PlayerHandler = Callable[[Request, _Player], Awaitable[Response]]


class DrawnPages(Generic[V]):
    """The pages a player reads, drawn once for each version of his branch (issue 19).

    A page is a function of the branch's events as the player may see them, so the one drawn
    at the branch's head is his page until the head moves (the caller reads the head, or
    knows it unchanged: `Freshness`). Kept by (page, branch, player, session): one player's
    page is never handed to another, and a page holding a session's parts (his name, the
    form token) only to that session. The server keeps two: the pages as sent (`_Sent`,
    gzipped once for the browsers that take it), by session, and the part of each HTML page
    drawn from the branch (`_Body`), once for all of a player's sessions. Bounded.
    """

    def __init__(self, capacity: int = 512) -> None:
        self._pages: OrderedDict[tuple[str, Lineage, str, str], tuple[object, V]]
        self._pages = OrderedDict()
        self._drawing: dict[tuple[str, Lineage, str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self._capacity = capacity

    def kept(
        self, page: str, lineage: Lineage, player: str, session: str, head: tuple[int, str]
    ) -> V | None:
        """Return `page` as kept for `player` of `lineage` in `session` from a drawing at
        `head`, or None (never drawn there: `get` draws it)."""
        found = self._pages.get((page, lineage, player, session))
        return found[1] if found is not None and found[0] == head else None

    def get(
        self,
        who: _Player,
        page: str,
        session: str,
        head: tuple[int, str],
        draw: Callable[[], V],
    ) -> V:
        """Return `page` for `who` in `session` as `draw` makes it, drawn now or kept from a
        drawing at the same branch `head`."""
        key = (page, who.lineage, who.name, session)
        with self._lock:
            kept = self._pages.get(key)
            drawing = self._drawing.setdefault(key, threading.Lock())
        if kept is not None and kept[0] == head:
            return kept[1]
        with drawing:  # readers of a page not drawn yet wait for one drawing, not draw it all
            with self._lock:
                kept = self._pages.get(key)
            if kept is not None and kept[0] == head:
                return kept[1]
            sent = draw()
            with self._lock:
                self._pages[key] = (head, sent)
                self._pages.move_to_end(key)
                while len(self._pages) > self._capacity:
                    gone, _ = self._pages.popitem(last=False)
                    self._drawing.pop(gone, None)
        return sent


class _Sent:
    """A page as sent: its bytes, gzipped, and its media type."""

    def __init__(self, body: bytes, media_type: str) -> None:
        self.body = body
        self.gzipped = gzip.compress(body, compresslevel=6, mtime=0)
        self.media_type = media_type

    def response(self, request: Request) -> Response:
        """The page for this request: gzipped when the browser takes gzip."""
        vary = {"Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("accept-encoding", ""):
            headers = {**vary, "Content-Encoding": "gzip"}
            return Response(self.gzipped, media_type=self.media_type, headers=headers)
        return Response(self.body, media_type=self.media_type, headers=vary)


class _Body(NamedTuple):
    """The part of an HTML page drawn from his branch: the same in all his sessions."""

    title: str
    body: str
    wide: bool = False

    def sent(self, who: _Player, csrf: str) -> _Sent:
        """The page for one session of his: the body in the frame with his name and token."""
        return _Sent(
            _html(self.title, self.body, who.signed, csrf, self.wide).encode(), "text/html"
        )


class _Pages:
    def __init__(
        self,
        service: CampaignService,
        secrets_: PlayerSecrets,
        limiter: FailureLimiter,
        gate: CheckGate,
    ) -> None:
        self.service = service
        self.secrets = secrets_
        self.limiter = limiter
        self.gate = gate
        self.sessions = _Sessions()
        self.submissions = FailureLimiter(SUBMISSIONS, SUBMISSION_WINDOW)
        self.drawn: DrawnPages[_Sent] = DrawnPages()
        self.bodies: DrawnPages[_Body] = DrawnPages()
        self.fresh = Freshness.of(service.store)

    # ------------------------------------------------------------ signing in

    async def sign_in_form(self, request: Request) -> Response:
        if _session_player(request) is not None:
            return RedirectResponse("/report", status_code=303)
        return _page("Sign in", _sign_in_html(_csrf(request)))

    async def sign_in(self, request: Request) -> Response:
        form = await request.form()
        typed = str(form.get("campaign", "")), str(form.get("player", ""))
        secret = str(form.get("secret", ""))  # `verify` drops white space around it
        if not _same_site_post(request, form):
            return _page("Sign in", _sign_in_html(_csrf(request), problem=FORM_EXPIRED), 403)
        # Names in any case, as the database spells them: "Blue" of "Tiny" is blue of tiny,
        # and misses on either spelling count against the one name. A refusal shows the names
        # as typed: shown as the database spells them, they would tell which exist.
        campaign, player = await run_in_threadpool(self.secrets.names_typed, *typed)
        client = request.client.host if request.client else "unknown"
        # Counted per address, and per (address, player): guesses from elsewhere never lock
        # a player out, and one address cannot spray guesses over every player.
        keys = [f"pair:{client}|{campaign}/{player}", f"client:{client}"]
        limits = [self.limiter.limit, CLIENT_FAILURES * self.limiter.limit // MAX_FAILURES]
        if self.limiter.blocked(keys, limits):
            problem = "too many failed sign-ins: wait a few minutes"
            body = _sign_in_html(_csrf(request), *typed, problem)
            return _page("Sign in", body, status_code=429)
        ok = await self.gate.run(self.secrets.verify, campaign, player, secret)
        if ok is None:  # too many checks running: refused before hashing
            body = _sign_in_html(_csrf(request), *typed, BUSY)
            return _page("Sign in", body, 503, headers={"Retry-After": "1"})
        if not ok:
            self.limiter.fail(keys)
            body = _sign_in_html(_csrf(request), *typed, SIGN_IN_REFUSED)
            return _page("Sign in", body, 401)
        tag = await run_in_threadpool(self.secrets.session_tag, campaign, player)
        self.sessions.close(request.session.get("sid"))
        request.session.clear()
        request.session.update(
            {
                "campaign": campaign,
                "player": player,
                "tag": tag,
                "sid": self.sessions.open(campaign, player),
                "csrf": secrets.token_urlsafe(24),
            }
        )
        return RedirectResponse("/report", status_code=303)

    async def sign_out(self, request: Request) -> Response:
        form = await request.form()
        if not _same_site_post(request, form):
            return _page("Sign out", f"<p class='problems'>{esc(FORM_EXPIRED)}</p>", 403)
        self.sessions.close(request.session.get("sid"))  # a copy of the cookie dies too
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    def signed_in(self, handler: PlayerHandler) -> Handler:
        """Wrap a page that needs a player: a live session whose secret is still current,
        and for a POST, a form from this site."""

        async def run(request: Request) -> Response:
            found = _session_player(request)
            if found is None:
                return RedirectResponse("/", status_code=303)
            campaign, player, tag, sid = found
            if not self.sessions.holds(sid, campaign, player):
                request.session.clear()  # signed out, or the server restarted
                return RedirectResponse("/", status_code=303)
            try:
                seen = await self._seen(campaign, player)
            except UmpireError as exc:
                body = f"<p class='problems'>{esc(str(exc))}</p>"
                return _page("Problem", body, 400, player, _csrf(request))
            if seen is None or not _same_tag(seen, tag):
                self.sessions.close(sid)
                request.session.clear()  # the secret was rotated: sign in again
                return RedirectResponse("/", status_code=303)
            if request.method == "POST" and not _same_site_post(request, await request.form()):
                body = f"<p class='problems'>{esc(FORM_EXPIRED)}</p>"
                return _page("Problem", body, 403, player, _csrf(request))
            try:
                return await handler(request, _Player(campaign, player, seen.lineage))
            except UmpireError as exc:
                body = f"<p class='problems'>{esc(str(exc))}</p>"
                return _page("Problem", body, 400, player, _csrf(request))

        return run

    def kept(self, page: str, draw: Callable[[_Player, str], _Sent]) -> Handler:
        """Wrap a page a player reads (a GET), kept as drawn until his branch moves on
        (`DrawnPages`), with the checks of `signed_in` (issue 19). When nothing in the
        database changed since his last request (`Freshness`: SQLite) and the page is kept,
        it is answered from memory at once; otherwise the checks and the page take one trip
        to the thread pool (on PostgreSQL, one query there when nothing changed).
        `draw(who, csrf)` gives its bytes and media type; the map picture holds nothing of
        the session, so all his sessions share it."""
        shared = page == "map.svg"

        async def run(request: Request) -> Response:
            found = _session_player(request)
            if found is None:
                return RedirectResponse("/", status_code=303)
            campaign, player, tag, sid = found
            if not self.sessions.holds(sid, campaign, player):
                request.session.clear()  # signed out, or the server restarted
                return RedirectResponse("/", status_code=303)
            csrf = _csrf(request)
            session = "" if shared else csrf
            look = self._quick_look()
            seen = self.fresh.recall(campaign, player, look)
            if seen is not None and _same_tag(seen, tag):
                sent = self.drawn.kept(page, seen.lineage, player, session, seen.head)
                if sent is not None:  # nothing changed since it was drawn: no query, no thread
                    return sent.response(request)
            try:
                sent = await run_in_threadpool(
                    self._kept, campaign, player, tag, page, session, draw, look
                )
            except UmpireError as exc:
                body = f"<p class='problems'>{esc(str(exc))}</p>"
                return _page("Problem", body, 400, f"{player} of {campaign}", csrf)
            if sent is None:
                self.sessions.close(sid)
                request.session.clear()  # the secret was rotated: sign in again
                return RedirectResponse("/", status_code=303)
            return sent.response(request)

        return run

    def _kept(
        self,
        campaign: str,
        player: str,
        tag: str,
        page: str,
        session: str,
        draw: Callable[[_Player, str], _Sent],
        look: Look | None,
    ) -> _Sent | None:
        """The page, or None when the session's secret is no longer the player's. `look` is
        the database's mark taken on the event loop, if any (`Freshness`)."""
        seen = self._seen_now(campaign, player, look)
        if seen is None or not _same_tag(seen, tag):
            return None
        who = _Player(campaign, player, seen.lineage, seen.head)
        return self.drawn.get(who, page, session, seen.head, partial(draw, who, session))

    async def _seen(self, campaign: str, player: str) -> Seen | None:
        """`Seen` for the player (None: no secret): remembered when nothing changed since,
        else read."""
        look = self._quick_look()
        seen = self.fresh.recall(campaign, player, look)
        if seen is None:
            seen = await run_in_threadpool(self._seen_now, campaign, player, look)
        return seen

    def _quick_look(self) -> Look | None:
        """The database's mark, when a look may run on the event loop (SQLite), else None."""
        return self.fresh.look() if self.fresh.quick else None

    def _seen_now(self, campaign: str, player: str, look: Look | None) -> Seen | None:
        """`Seen` (in the thread pool): read after `look`, the event loop's; without one, as
        remembered at a look taken here (PostgreSQL's), else read."""
        if look is None:
            look = self.fresh.look()
            seen = self.fresh.recall(campaign, player, look)
            if seen is not None:
                return seen
        return self._look_up(campaign, player, look)

    def _look_up(self, campaign: str, player: str, look: Look | None) -> Seen | None:
        """Read `Seen` from the database and remember it at `look` (taken before reading)."""
        seen = look_up(self.service, self.secrets, campaign, player)
        if seen is not None:
            self.fresh.remember(campaign, player, look, seen)
        return seen

    # ------------------------------------------------------------ pages

    def draw_report(self, who: _Player, csrf: str) -> _Sent:
        """His report in one session: its body drawn once for all his sessions."""
        head = who.head or self.service.head(who.lineage)
        return self.bodies.get(who, "report", "", head, partial(self._report, who)).sent(who, csrf)

    def _report(self, who: _Player) -> _Body:
        if ft2.is_ft2(self.service, who.lineage):  # issue 20: FT2's own report, his map
            lines = ft2.report(self.service, who.lineage, who.name)
            return _Body(who.campaign, report_html(lines) + _MAP_IMAGE)
        report = self.service.report(who.lineage, who.name)
        body = _report_html(report, self._has_map(who)) + _earlier_reports(report.news_turn)
        return _Body(f"{who.campaign}: turn {report.turn}", body)

    async def past_report(self, request: Request, who: _Player) -> Response:
        """His report of an earlier turn (`umpire report --turn N`): the news of that turn and
        his forces as they stood at its end, from his own events only. No map: his map is
        today's."""
        turn = request.path_params["turn"]
        if ft2.is_ft2(self.service, who.lineage):
            raise InvalidInputError("an FT2 campaign's report is its current one: see /report")
        report = await self._call(self.service.report, who.lineage, who.name, turn)
        body = _report_html(report, has_map=False) + _earlier_reports(report.news_turn)
        title = f"{who.campaign}: turn {turn}"
        return _page(title, body, player=who.signed, csrf=_csrf(request))

    async def battles(self, request: Request, who: _Player) -> Response:
        """The battles his ships fought, newest first, each a link to its report."""
        fought = await self._call(self.service.fought_battles, who.lineage, who.name)
        items = "".join(
            f"<li><a href='/battles/{esc(b)}'>Battle {esc(b)}</a></li>" for b in reversed(fought)
        )
        body = "<h1>Your battles</h1>" + (
            f"<ul>{items}</ul>" if items else "<p>Your ships have fought no battle yet.</p>"
        )
        return _page("Battles", body, player=who.signed, csrf=_csrf(request))

    async def battle(self, request: Request, who: _Player) -> Response:
        """A battle his ships fought, as he saw it, with its replay (`umpire battles show`);
        any other id, another's battle or none, gets the same answer (docs/rulings.md)."""
        battle_id = request.path_params["battle"]
        try:
            report = await self._call(self.service.battle_report, who.lineage, battle_id, who.name)
        except (InvalidInputError, IllegalCommandError) as exc:
            body = f"<h1>No such battle</h1><p>{esc(str(exc))}</p>"
            return _page("Battles", body, 404, player=who.signed, csrf=_csrf(request))
        return HTMLResponse(battle_replay_html(report))

    def draw_svg(self, who: _Player, csrf: str) -> _Sent:
        return _Sent(self.service.map_svg(who.lineage, who.name).encode(), "image/svg+xml")

    def draw_map(self, who: _Player, csrf: str) -> _Sent:
        """His map page in one session: its body drawn once for all his sessions."""
        head = who.head or self.service.head(who.lineage)
        return self.bodies.get(who, "map", "", head, partial(self._map, who, head)).sent(who, csrf)

    def _map(self, who: _Player, head: tuple[int, str]) -> _Body:
        # The desk's `now` is the drawing's: only the orders page (never kept) shows it.
        svg = self.drawn.get(who, "map.svg", "", head, partial(self.draw_svg, who, ""))
        if ft2.is_ft2(self.service, who.lineage):  # issue 20: his fleets and scans
            ft2_desk = ft2.desk(self.service, who.lineage, who.name)
            body = (
                f"<h1>{esc(ft2_desk.title)}</h1>"
                "<p class='hint'>Hover or tap a system or a fleet for its details. Choose a "
                "fleet (on the map or in the list) to see where it can go this turn.</p>"
                f"{_map_app(ft2_desk, svg.body.decode(), editor=False)}"
            )
            return _Body("Map", body, wide=True)
        desk = self.service.orders_desk(who.lineage, who.name)
        body = (
            f"<h1>{esc(desk.map.title)}</h1>"
            "<p class='hint'>Hover or tap a system or a unit for its details. Choose a unit "
            "(on the map or in the list) to see where it can go this turn; then tap a hex "
            "to see its route.</p>"
            f"{_map_app(desk, svg.body.decode(), editor=False)}"
        )
        return _Body("Map", body, wide=True)

    async def reach(self, request: Request, who: _Player) -> Response:
        unit = request.query_params.get("unit", "")
        to = request.query_params.get("to") or None
        try:
            answer = await self._call(self.service.reach, who.lineage, unit, who.name, to)
        except (InvalidInputError, IllegalCommandError) as exc:  # an FT2 fleet has no 004 reach
            return _json({"problem": str(exc)}, 400)
        return _json(msgspec.to_builtins(answer))

    async def orders_form(self, request: Request, who: _Player) -> Response:
        csrf = _csrf(request)
        body = await self._orders_body(who, csrf)
        return _page("Orders", body, player=who.signed, csrf=csrf, wide=True)

    async def orders_text(self, request: Request, who: _Player) -> Response:
        """The editor's orders (JSON, an orders document's fields) as the orders text."""
        form = await request.form()
        if await self._call(ft2.is_ft2, self.service, who.lineage):  # issue 20
            try:
                orders = msgspec.json.decode(str(form.get("document", "")), type=Ft2Orders)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                return _json({"problems": [str(exc)]}, 422)
            return _json({"text": ft2.dumps_orders(orders), "splits": [], "forces": []})
        try:
            document = msgspec.json.decode(str(form.get("document", "")), type=OrdersDocument)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            return _json({"problems": [str(exc)]}, 422)
        splits, formed = await self._call(self.service.new_names, who.lineage, who.name, document)
        parts = [msgspec.to_builtins(part) for part in splits]
        forces = [{"id": tf.id, "units": tf.units} for tf in formed]
        return _json({"text": orders_rules.dumps(document), "splits": parts, "forces": forces})

    async def orders_read(self, request: Request, who: _Player) -> Response:
        """Orders text read into the editor's form (JSON), or what is wrong with it."""
        form = await request.form()
        text = str(form.get("orders", ""))
        try:
            check_text_size(text, "the orders", MAX_ORDERS_BYTES)
            turn = await self._call(self._turn, who)
            if await self._call(ft2.is_ft2, self.service, who.lineage):  # issue 20
                read = ft2.parse_orders(text, who.name, turn)
                return _json({"document": msgspec.to_builtins(read)})
            document = orders_rules.parse(text, who.name, turn)
        except OrdersError as exc:
            return _json({"problems": exc.problems}, 422)
        except InvalidInputError as exc:
            return _json({"problems": [str(exc)]}, 422)
        return _json({"document": msgspec.to_builtins(document)})

    async def _orders_body(
        self, who: _Player, csrf: str, text: str | None = None, problems: Sequence[str] = ()
    ) -> str:
        """The orders page: the map and the editor over the orders text (the advanced view);
        past the deadline, what was received and why nothing more is taken, no form."""
        if await self._call(ft2.is_ft2, self.service, who.lineage):  # issue 20
            ft2_desk = await self._call(ft2.desk, self.service, who.lineage, who.name)
            ft2_svg = await self._call(self.service.map_svg, who.lineage, who.name)
            closed = _closed_at(ft2_desk.deadline, ft2_desk.now)
            if closed is not None:
                return _ft2_orders_page_html(ft2_desk, ft2_svg, csrf, "", problems, closed)
            if text is None:
                text = await self._call(self._ft2_text, who, ft2_desk)
            final = await self._call(self._final_form, who, csrf)
            return final + _ft2_orders_page_html(ft2_desk, ft2_svg, csrf, text, problems)
        desk = await self._call(self.service.orders_desk, who.lineage, who.name)
        svg = await self._call(self.service.map_svg, who.lineage, who.name)
        closed = _closed_at(desk.deadline, desk.now)
        if closed is not None:
            return _orders_page_html(desk, svg, csrf, "", problems, closed)
        if text is None:
            mine = await self._call(self.service.submitted_orders, who.lineage, who.name)
            if mine is not None:
                text = orders_rules.dumps(mine)
            else:
                text = await self._call(self.service.orders_template, who.lineage, who.name)
        final = await self._call(self._final_form, who, csrf)
        return final + _orders_page_html(desk, svg, csrf, text, problems)

    def _ft2_text(self, who: _Player, desk: Ft2Desk) -> str:
        """His FT2 orders as text: those he sent (or his decisions), else the template."""
        if desk.received:
            return ft2.dumps_orders(msgspec.convert(desk.document, Ft2Orders))
        return self.service.orders_template(who.lineage, who.name)

    def _final_form(self, who: _Player, csrf: str) -> str:
        """Whether his orders of the turn are marked final, and the button that changes it."""
        view = self.service.load(who.lineage, viewer=who.name)
        if view.ft2 is not None:  # FT2: his sealed orders are in his own view
            sent = view.ft2.phase == "orders" and who.name in view.ft2.orders
        else:
            sent = view.phase == "orders" and (
                self.service.submitted_orders(who.lineage, who.name) is not None
            )
        if not sent:
            return ""
        final = who.name in view.final
        said = (
            "Your orders for this turn are marked final: you are done with them."
            if final
            else "Done with your orders? Mark them final, so the umpire knows."
        )
        return (
            f"<form method='post' action='/orders/final' class='final'>{_token_input(csrf)}"
            f"<input type='hidden' name='final' value='{'0' if final else '1'}'>"
            f"<p role='status'>{esc(said)} "
            f"<button>{'Not final after all' if final else 'Mark final'}</button></p></form>"
        )

    async def mark_final(self, request: Request, who: _Player) -> Response:
        """Mark his orders of the turn final ("ready"), or take the mark back."""
        form = await request.form()
        final = str(form.get("final", "1")) != "0"
        csrf = _csrf(request)
        try:
            await self._call(self.service.mark_final, who.lineage, who.name, final)
        except UmpireError as exc:
            body = await self._orders_body(who, csrf, problems=[str(exc)])
            return _page("Orders", body, 422, who.signed, csrf, wide=True)
        body = await self._orders_body(who, csrf)
        return _page("Orders", body, player=who.signed, csrf=csrf, wide=True)

    def _turn(self, who: _Player) -> int:
        return self.service.load(who.lineage, viewer=who.name).turn

    async def submit_orders(self, request: Request, who: _Player) -> Response:
        form = await request.form()
        text = str(form.get("orders", ""))
        csrf = _csrf(request)
        key = [f"{who.campaign}/{who.name}"]
        if self.submissions.blocked(key):
            problem = "too many submissions: wait a few minutes, then send your last orders"
            return _page("Orders", _orders_html(csrf, text, [problem]), 429, who.signed, csrf)
        self.submissions.fail(key)  # counts every submission, good or bad
        try:
            recorded = await self._submit(who, text)
        except OrdersError as exc:
            body = await self._orders_body(who, csrf, text, exc.problems)
            return _page("Orders", body, 422, who.signed, csrf, wide=True)
        except ConcurrencyError:
            problem = "the campaign is busy: send your orders again in a moment"
            body = await self._orders_body(who, csrf, text, [problem])
            return _page("Orders", body, 503, who.signed, csrf, wide=True)
        except UmpireError as exc:
            body = await self._orders_body(who, csrf, text, [str(exc)])
            return _page("Orders", body, 422, who.signed, csrf, wide=True)
        done = "".join(f"<li>{esc(describe(r.event))}</li>" for r in recorded)
        receipt = await self._call(self.service.receipt, who.lineage, who.name)
        view = await self._call(self.service.load, who.lineage, viewer=who.name)
        until = (
            f"{due_words(view.deadline)}, the deadline"
            if view.deadline is not None
            else "the turn is resolved"
        )
        body = (
            f"<p class='ok' role='status'>Orders recorded. You may send new ones until {until}; "
            f"the last ones count.</p><ul>{done}</ul>"
            "<p>Your receipt (keep it: `umpire verify --receipts` proves what you were shown "
            f"is still the history): <code>{esc(receipt.encode())}</code></p>"
            f"{await self._orders_body(who, csrf, text)}"
        )
        return _page("Orders", body, player=who.signed, csrf=csrf, wide=True)

    async def log(self, request: Request, who: _Player) -> Response:
        events = await self._call(self.service.log, who.lineage, viewer=who.name)
        rows = [[str(e.turn), e.type, describe(e.event)] for e in events]
        body = "<h1>What you have been told</h1>" + html_table(["turn", "type", "what"], rows)
        return _page("Log", body, player=who.signed, csrf=_csrf(request))

    # ------------------------------------------------------------ internals

    async def _submit(self, who: _Player, text: str) -> list[RecordedEvent]:
        """Submit orders, deciding again when another writer appended first (a lost race is
        the server's to retry, not the player's)."""
        for attempt in range(RACE_RETRIES):
            try:
                return await self._call(self.service.submit_orders, who.lineage, who.name, text)
            except ConcurrencyError:
                if attempt == RACE_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def _call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking service call in the thread pool."""
        return await run_in_threadpool(function, *args, **kwargs)

    def _has_map(self, who: _Player) -> bool:
        try:
            self.service.player_map(who.lineage, who.name)
        except IllegalCommandError:
            return False
        return True


def _same_tag(seen: Seen, tag: str) -> bool:
    """Return whether a session's tag is still its player's (his secret was not rotated)."""
    return secrets.compare_digest(seen.tag, tag)


def _session_player(request: Request) -> tuple[str, str, str, str] | None:
    session = request.session
    values = (
        session.get("campaign"),
        session.get("player"),
        session.get("tag"),
        session.get("sid"),
    )
    if not all(isinstance(v, str) and v for v in values):
        return None
    campaign, player, tag, sid = (str(v) for v in values)
    return campaign, player, tag, sid


def _csrf(request: Request) -> str:
    """Return the session's CSRF token, making one for a new session (the sign-in form's)."""
    token = request.session.get("csrf")
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(24)
        request.session["csrf"] = token
    return token


def _same_site_post(request: Request, form: Any) -> bool:
    """Return whether a POST came from this site's own form: its Origin (when the browser
    sends one) is this server's, and it carries the session's CSRF token."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return False
    if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return False
    token = request.session.get("csrf")
    sent = form.get("csrf")
    return (
        isinstance(token, str)
        and isinstance(sent, str)
        and bool(token)
        and secrets.compare_digest(token.encode(), sent.encode())
    )


def _page(
    title: str,
    body: str,
    status_code: int = 200,
    player: str | None = None,
    csrf: str = "",
    headers: dict[str, str] | None = None,
    wide: bool = False,
) -> Response:
    html = _html(title, body, player, csrf, wide)
    return HTMLResponse(html, status_code=status_code, headers=headers)


def _html(title: str, body: str, player: str | None, csrf: str, wide: bool = False) -> str:
    nav = ""
    if player is not None:
        nav = (
            "<nav><a href='/report'>Report</a><a href='/map'>Map</a>"
            "<a href='/orders'>Orders</a><a href='/battles'>Battles</a>"
            f"<a href='/log'>Log</a><span>{esc(player)}</span>"
            f"<form method='post' action='/sign-out'>{_token_input(csrf)}"
            "<button>Sign out</button></form></nav>"
        )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)} - umpire</title><style>{STYLE}</style></head>"
        f"<body{' class=wide' if wide else ''}>{nav}<main>{body}</main></body></html>\n"
    )


def _token_input(csrf: str) -> str:
    return f"<input type='hidden' name='csrf' value='{esc(csrf)}'>"


def _sign_in_html(
    csrf: str, campaign: str = "", player: str = "", problem: str | None = None
) -> str:
    message = f"<p class='problems' role='alert'>{esc(problem)}</p>" if problem else ""
    return (
        "<h1>Sign in</h1>"
        f"{message}<form method='post' action='/sign-in'>{_token_input(csrf)}"
        f"<label>Campaign<input name='campaign' required value='{esc(campaign)}'></label>"
        f"<label>Player<input name='player' required value='{esc(player)}'></label>"
        "<label>Secret<input name='secret' type='password' required "
        "autocomplete='current-password'></label>"
        "<button type='submit'>Sign in</button></form>"
    )


_MAP_IMAGE = (
    "<h2>Your map</h2><img class='map' src='/map.svg' "
    "alt='The star map as you know it, with your units'>"
)


def _report_html(report: PlayerReport, has_map: bool) -> str:
    map_html = _MAP_IMAGE if has_map else ""
    return report_body_html(report, map_html=map_html, no_news="<li>nothing</li>")


def _earlier_reports(news_turn: int) -> str:
    """Links to his reports of the turns before `news_turn` (`/report/N`), newest first."""
    if news_turn <= 0:
        return ""
    links = " ".join(
        f"<a href='/report/{turn}'>turn {turn}</a>" for turn in range(news_turn - 1, -1, -1)
    )
    return f"<h2>Earlier reports</h2><p>{links}</p>"


def _problems_html(problems: Sequence[str]) -> str:
    """Why nothing was recorded, every problem named ("" for none)."""
    if not problems:
        return ""
    items = "".join(f"<li>{esc(p)}</li>" for p in problems)
    return (
        f"<div class='problems' role='alert'><p>Nothing was recorded: "
        f"{len(problems)} problem(s).</p><ul>{items}</ul></div>"
    )


def _orders_html(csrf: str, text: str, problems: Sequence[str] = ()) -> str:
    """The orders text form: the whole page without a script, the editor's advanced view."""
    found = _problems_html(problems)
    return (
        f"{found}<form method='post' action='/orders' id='orders-form'>{_token_input(csrf)}"
        f"<details id='advanced'{' open' if problems else ''}>"
        "<summary>Advanced: your orders as text (TOML)</summary>"
        '<p class="hint">Give a unit <code>to = "CCRR"</code> to move it; every order is '
        "checked as <code>umpire orders submit</code> checks it, and nothing is stored while "
        "any is wrong. <button type='button' id='from-text' hidden>Use this text in the "
        "editor</button></p>"
        f"<textarea name='orders' rows='24' spellcheck='false'>{esc(text)}</textarea>"
        "</details><p><button type='submit' id='send'>Send orders</button> "
        "<span id='sync' class='hint' role='status'></span></p></form>"
    )


def _data_script(desk: OrdersDesk | Ft2Desk) -> str:
    """The page's data for its script: JSON in a non-executing script element (every `<`
    escaped, so no text in it can end the element)."""
    data = msgspec.json.encode(desk).replace(b"<", b"\\u003c").decode()
    return f"<script type='application/json' id='umpire-data'>{data}</script>"


def _map_app(desk: OrdersDesk | Ft2Desk, svg: str, editor: bool) -> str:
    """The interactive map (the player's `map.svg` inline) beside its panel; with `editor`,
    the orders editor's panel. An FT2 campaign's desk lists his fleets, and its editor
    takes the encounters' decisions too."""
    units = "fleets" if isinstance(desk, Ft2Desk) else "units"
    panel = (
        f"<section><h2>Your {units}</h2><ul class='units' id='units'></ul></section>"
        "<section id='details' aria-live='polite'><h2>Details</h2><p class='hint'>Hover or "
        f"tap a system or {units[:-1]}.</p></section>"
    )
    if editor and isinstance(desk, Ft2Desk):
        panel += (
            "<section id='encounters' class='editor'></section>"
            "<section id='unit-editor' class='editor'><h2>Orders for a fleet</h2>"
            "<p class='hint'>Choose a fleet to give it orders.</p></section>"
        )
    elif editor:
        panel += (
            "<section id='unit-editor' class='editor'><h2>Orders for a unit</h2>"
            "<p class='hint'>Choose a unit to give it orders.</p></section>"
            "<section id='forces' class='editor'></section>"
            "<section id='standing' class='editor'></section>"
        )
    return (
        f"{_data_script(desk)}<div class='app'><div class='mapbox'>{inline_svg(svg)}</div>"
        f"<div class='panel'>{panel}</div></div>"
        "<script src='/static/umpire.js' defer></script>"
    )


def _deadline_html(turn: int, deadline: str | None, now: str) -> str:
    """When the turn's orders are due, to the second when it has seconds (`due_words`); the
    script counts down to it and, once it passes, offers no more sending (`deadline()`)."""
    if deadline:
        return (
            f"<p class='deadline' id='deadline' data-deadline='{esc(deadline)}' "
            f"data-now='{esc(now)}'>Orders for turn {turn} are due by "
            f"{esc(due_words(datetime.fromisoformat(deadline)))}.</p>"
        )
    return f"<p class='deadline' id='deadline'>Orders for turn {turn}: no deadline set.</p>"


def _closed_html(turn: int, deadline: datetime) -> str:
    """The turn's orders are closed: when, and why nothing is offered."""
    return (
        f"<p class='deadline closed' id='deadline' role='status'>Orders for turn {turn} closed "
        f"at {esc(due_words(deadline))}, their deadline: nothing more can be sent, changed or "
        "marked final for this turn. The umpire resolves it next; what was received below is "
        "what counts.</p>"
    )


# What the page says of a player who sent nothing, once the deadline has passed.
NONE_BY_THE_DEADLINE = (
    "none came by the deadline: the campaign's setting for absent players decides for you."
)


def _received_html(received: Sequence[str], none_yet: str, closed: bool = False) -> str:
    if received:
        items = "".join(f"<li>{esc(line)}</li>" for line in received)
        how = (
            "they are the ones that count"
            if closed
            else "the editor below holds them: change them and send again; the last ones count"
        )
        return (
            "<section id='received'><h2>Received</h2><p>Your orders recorded for this turn "
            f"({how}):</p><ul>{items}</ul></section>"
        )
    return (
        "<section id='received'><h2>Received</h2><p>No orders received from you for this "
        f"turn yet: {esc(none_yet)}</p></section>"
    )


def _closed_at(deadline: str | None, now: str) -> datetime | None:
    """A desk's deadline (ISO 8601) if it had passed when the desk was drawn (`now`): his
    orders are closed (as the server's own refusal says, `check_deadline`); None while they
    are taken."""
    if deadline is None:
        return None
    due = datetime.fromisoformat(deadline)
    return due if orders_closed(due, datetime.fromisoformat(now)) else None


def _ft2_orders_page_html(
    desk: Ft2Desk,
    svg: str,
    csrf: str,
    text: str,
    problems: Sequence[str] = (),
    closed: datetime | None = None,
) -> str:
    """The FT2 orders page (issue 20): his fleets' moves, splits, merges, docking and drones
    on the orders phase, the encounters' decisions once encounters are found; `closed` (the
    deadline passed): what was received, no form."""
    if desk.finished:
        return f"<h1>{esc(desk.title)}</h1><p>The campaign is over: no more orders.</p>"
    if desk.phase == "encounters":
        heading = f"<h1>Decisions for turn {desk.turn}</h1>"
        none_yet = "stand-off, unless you decide otherwise (001 L1512)."
    elif desk.phase == "orders":
        heading = f"<h1>Orders for turn {desk.turn}</h1>"
        none_yet = "every fleet stays where it is unless you send some."
    else:
        heading = f"<h1>Turn {desk.turn}: {esc(desk.phase)}</h1>"
        none_yet = "the umpire is resolving the turn's battles; wait for the next turn."
    if closed is not None:
        return (
            f"{heading}{_closed_html(desk.turn, closed)}{_problems_html(problems)}"
            f"{_received_html(desk.received, NONE_BY_THE_DEADLINE, closed=True)}"
            f"{_map_app(desk, svg, editor=False)}"
        )
    return (
        f"{heading}{_deadline_html(desk.turn, desk.deadline, desk.now)}"
        f"{_received_html(desk.received, none_yet)}"
        f"{_map_app(desk, svg, editor=True)}{_orders_html(csrf, text, problems)}"
    )


def _orders_page_html(
    desk: OrdersDesk,
    svg: str,
    csrf: str,
    text: str,
    problems: Sequence[str] = (),
    closed: datetime | None = None,
) -> str:
    """The orders page: the deadline, what was received, the map with the editor and the
    orders text; `closed` (the deadline passed): what was received, the map, no form."""
    turn = desk.map.turn
    if closed is not None:
        return (
            f"<h1>Orders for turn {turn}</h1>{_closed_html(turn, closed)}"
            f"{_problems_html(problems)}"
            f"{_received_html(desk.received, NONE_BY_THE_DEADLINE, closed=True)}"
            f"{_map_app(desk, svg, editor=False)}"
        )
    deadline = _deadline_html(turn, desk.deadline, desk.now)
    received = _received_html(desk.received, "every unit holds position unless you send some.")
    production = ""
    if desk.production or desk.budgets or desk.techs:
        production = "<section id='production' class='editor'></section>"
    return (
        f"<h1>Orders for turn {turn}</h1>{deadline}{received}"
        f"{_map_app(desk, svg, editor=True)}{production}{_orders_html(csrf, text, problems)}"
    )


def _json(data: object, status_code: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code, media_type="application/json")


async def _script(request: Request) -> Response:
    """The page's one script (no sign-in: it holds nothing of any campaign)."""
    return Response(_SCRIPT, media_type="text/javascript")


_SCRIPT = (resources.files("campaign") / "static" / "umpire.js").read_bytes()
