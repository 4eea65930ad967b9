"""Orders by e-mail from an IMAP mailbox (issue 18): unseen messages spooled into the host's
Maildir, where `campaign/mailin.py` takes them.

Each unseen message is written to the Maildir under a name made of the mailbox's UIDVALIDITY
and the message's UID (through tmp/, then new/, as Maildir delivery goes), and only then
flagged \\Seen on the server. A host killed in between fetches it again at the next pass and
finds the name taken (in new/ or cur/): nothing is taken twice, nothing is lost.
"""

from __future__ import annotations

import contextlib
import imaplib
import ssl
from pathlib import Path

import msgspec

from campaign.errors import InvalidInputError

_MAX_MESSAGE = 4 * 1024 * 1024


class ImapSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Where the host reads orders by e-mail."""

    host: str
    port: int = 993
    user: str
    password: str = ""  # from the environment only
    mailbox: str = "INBOX"
    security: str = "tls"  # "tls", "starttls" or "none"
    cafile: str | None = None


def fetch_unseen(settings: ImapSettings, maildir: Path) -> list[str]:
    """Spool every unseen message of the mailbox into `maildir`/new; return their names.

    Raises:
        InvalidInputError: the server could not be reached, or refused the login or mailbox.
    """
    new, tmp, cur = maildir / "new", maildir / "tmp", maildir / "cur"
    for folder in (new, tmp, cur):
        folder.mkdir(parents=True, exist_ok=True)
    try:
        client = _connect(settings)
    except (OSError, imaplib.IMAP4.error) as exc:
        raise InvalidInputError(f"IMAP {settings.host}:{settings.port}: {exc}") from None
    spooled: list[str] = []
    try:
        client.login(settings.user, settings.password)
        typ, _ = client.select(settings.mailbox)
        if typ != "OK":
            raise InvalidInputError(f"IMAP mailbox {settings.mailbox!r} cannot be opened")
        validity = _uidvalidity(client)
        _, found = client.uid("SEARCH", "UNSEEN")
        for uid in (found[0] or b"").decode().split():
            name = f"imap-{validity}-{uid}"
            taken = (new / name).exists() or any(cur.glob(f"{name}:*")) or (cur / name).exists()
            if not taken:
                _, data = client.uid("FETCH", uid, "(BODY.PEEK[])")
                message = _body(data)
                if message is None:
                    continue
                (tmp / name).write_bytes(message[:_MAX_MESSAGE])
                (tmp / name).rename(new / name)
                spooled.append(name)
            client.uid("STORE", uid, "+FLAGS", "(\\Seen)")
    except imaplib.IMAP4.error as exc:
        raise InvalidInputError(f"IMAP {settings.host}: {exc}") from None
    finally:
        with contextlib.suppress(OSError, imaplib.IMAP4.error):
            client.logout()
    return spooled


def _connect(settings: ImapSettings) -> imaplib.IMAP4:
    context = ssl.create_default_context(cafile=settings.cafile)
    if settings.security == "tls":
        return imaplib.IMAP4_SSL(settings.host, settings.port, ssl_context=context, timeout=20)
    client = imaplib.IMAP4(settings.host, settings.port, timeout=20)
    if settings.security == "starttls":
        client.starttls(ssl_context=context)
    return client


def _uidvalidity(client: imaplib.IMAP4) -> str:
    """Return the selected mailbox's UIDVALIDITY (UIDs are unique only under it)."""
    _, data = client.response("UIDVALIDITY")
    value = data[0] if data else None
    return value.decode() if isinstance(value, bytes) and value.isdigit() else "0"


def _body(data: list[object]) -> bytes | None:
    for part in data:
        if isinstance(part, tuple) and len(part) == 2 and isinstance(part[1], bytes):
            return part[1]
    return None
