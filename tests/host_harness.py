"""What the host's tests run against: a real SMTP server (aiosmtpd) and a webhook receiver on
localhost, an `umpire host` subprocess, and a three-player campaign on a small map."""

from __future__ import annotations

import email
import email.policy
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

TRIO_MAP = """
format = "stellar-umpire-map"
version = 1
name = "trio"
title = "Trio"
width = 5
height = 3

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "0301"

[[entries]]
name = "3"
hex = "0503"

[[systems]]
name = "Alpha"
hex = "0201"
colour = "yellow"
features = ["dense-world"]
"""

UMPIRE_BIN = str(Path(sys.executable).with_name("umpire"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class Mailbox:
    """aiosmtpd's handler: every message the server accepted, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)  # type: ignore[arg-type]
        return "250 OK"

    def keys(self, to: str | None = None) -> list[str]:
        with self.lock:
            return [str(m["X-Umpire-Key"]) for m in self.messages if to is None or m["To"] == to]


@contextmanager
def smtp_server(
    tls: ssl.SSLContext | None = None, logins: dict[str, str] | None = None
) -> Iterator[tuple[Mailbox, int]]:
    """A real SMTP server on localhost, for as long as the block runs; with `tls` it offers
    STARTTLS and requires it, with `logins` (user: password) it requires a login."""
    box = Mailbox()
    port = free_port()
    extra: dict[str, Any] = {}
    if tls is not None:
        extra.update(tls_context=tls, require_starttls=True)
    if logins is not None:

        def authenticator(
            server: object, session: object, envelope: object, mechanism: str, data: Any
        ) -> AuthResult:
            ok = isinstance(data, LoginPassword) and logins.get(data.login.decode()) == (
                data.password.decode()
            )
            return AuthResult(success=ok)

        extra.update(
            authenticator=authenticator, auth_required=True, auth_exclude_mechanism=["LOGIN"]
        )
    controller = Controller(box, hostname="127.0.0.1", port=port, **extra)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


class Hooks:
    """Every webhook POST received: (path, the X-Umpire-Key header, the JSON body), and each
    one's X-Umpire-Part header ("2/3": a notification longer than one message is several)."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, str, dict[str, Any]]] = []
        self.parts: list[str] = []
        self.refused = 0  # posts answered 429 (too many requests)
        self.lock = threading.Lock()

    def keys(self, path: str | None = None) -> list[str]:
        """The notifications received: each key once per sending (its first part)."""
        with self.lock:
            return [
                k
                for (p, k, _), part in zip(self.posts, self.parts, strict=True)
                if (path is None or p == path) and (part == "" or part.startswith("1/"))
            ]

    def part_keys(self) -> list[str]:
        """Every message received, as `key#part`: a part received twice shows twice."""
        with self.lock:
            return [f"{k}#{part}" for (_, k, _), part in zip(self.posts, self.parts, strict=True)]

    def contents(self, key: str) -> list[str]:
        """The `content` of each message of the notification `key`, in the order received."""
        with self.lock:
            return [body["content"] for _, k, body in self.posts if k == key]


@contextmanager
def webhook_server(busy: int = 0) -> Iterator[tuple[Hooks, int]]:
    """A local HTTP server that takes webhook POSTs as Discord would (204, no body), after
    answering the first `busy` of them as Discord's rate limit does (429, Retry-After)."""
    hooks = Hooks()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with hooks.lock:
                if hooks.refused < busy:
                    hooks.refused += 1
                    self.send_response(429)
                    self.send_header("Retry-After", "0.01")
                    self.end_headers()
                    return
                hooks.posts.append((self.path, self.headers.get("X-Umpire-Key", ""), body))
                hooks.parts.append(self.headers.get("X-Umpire-Part", ""))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hooks, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


class HostProcess:
    """`umpire host` as a subprocess; `kill_9` kills it without a chance to clean up."""

    def __init__(self, db: str, smtp_port: int, log: Path, poll: float = 0.2) -> None:
        self.args = [
            UMPIRE_BIN,
            "host",
            "--db",
            db,
            "--poll",
            str(poll),
            "--lease",
            "2",
            "--smtp-host",
            "127.0.0.1",
            "--smtp-port",
            str(smtp_port),
            "--smtp-security",
            "none",
            "--sender",
            "umpire@trio.test",
        ]
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.args, stdout=log, stderr=log, env={**os.environ, "UMPIRE_SMTP_PASSWORD": ""}
            )

    def kill_9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def wait_for(what: str, ready: Callable[[], bool], limit: float = 60.0, host: Any = None) -> None:
    """Poll until `ready()` holds; fail naming `what` if it never does (a hung host)."""
    end = time.monotonic() + limit
    while not ready():
        if host is not None and not host.alive():
            raise AssertionError(f"the host died while waiting for {what}: see {host.log}")
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.1)


def self_signed(folder: Path) -> tuple[ssl.SSLContext, Path]:
    """A server TLS context for 127.0.0.1 with a self-signed certificate, and the certificate
    file a client trusts it by."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return context, cert_file


@contextmanager
def imap_server(user: str, password: str) -> Iterator[int]:
    """A real IMAP server on localhost (pymap, its in-memory backend), its port."""
    port = free_port()
    args = [str(Path(sys.executable).with_name("pymap")), "--host", "127.0.0.1"]
    args += ["--port", str(port), "--no-tls", "dict"]
    args += ["--demo-user", user, "--demo-password", password]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:

        def listening() -> bool:
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        wait_for("the IMAP server", listening, limit=30)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def umpire_serve(url: str, log_path: Path) -> Iterator[str]:
    """Run `umpire serve` on a free loopback port over the database at `url`; yield its base
    URL, and stop it afterwards (its output in `log_path`)."""
    port = free_port()
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", "from cli import main; main()", "serve", "--host",
             "127.0.0.1", "--port", str(port), "--db", url],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=Path(__file__).parents[1],
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError as exc:
                    if process.poll() is not None or time.monotonic() > deadline:
                        said = log_path.read_text()
                        raise RuntimeError(f"umpire serve did not start:\n{said}") from exc
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=10)
