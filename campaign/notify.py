"""Delivering the host's notifications (issue 18): e-mail by SMTP, and webhooks.

E-mail goes through `smtplib` with STARTTLS or TLS from the start, and a login when a user is
given; the package's files ride as attachments. A webhook gets JSON POSTs in the form Discord
reads (`{"content": ...}`, at most 2000 characters), with the web page's link when the host
knows it: the body, then each text file a player reads or fills in (the orders template) in a
code block, split into as many messages as that takes (`webhook_messages`), numbered "(2/3)";
files a chat cannot show (the map, battle pages) are named. Split rather than attached: a
JSON message is what every webhook reads (Discord's, Slack-like ones, the tests' listener),
where files need Discord's own multipart form; and the template stays readable in the chat.
Both carry the notification's key (`Message-ID`, `X-Umpire-Key`; a webhook message its part,
`X-Umpire-Part: 2/3`), so a message sent again after a crash can be recognised.

Nothing here decides what to send or to whom (`campaign/host.py` does); this module only
moves a queued notification to the addresses in the recipient's contact.
"""

from __future__ import annotations

import hashlib
import math
import smtplib
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formatdate

import msgspec

from campaign.outbox import Contact, Notification

WEBHOOK_LIMIT = 2000  # Discord's limit on a message's content
# The files a webhook message carries in code blocks: text a player reads or fills in.
CHAT_FILES = {".toml": "toml", ".txt": ""}
FENCE = "```"
# Discord answers 429 to a webhook posting too fast (a few messages a second): each message
# waits as its Retry-After says, at most this long, this many times, before it fails.
RETRY_AFTER_MAX = 30.0
RETRIES = 5
TIMEOUT = 20.0


class DeliveryError(Exception):
    """A notification could not be delivered (the host retries it later)."""


class SmtpSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Where and how the host sends e-mail."""

    host: str = "localhost"
    port: int = 25
    sender: str = "umpire@localhost"
    security: str = "none"  # "none", "starttls" or "tls" (TLS from the first byte)
    user: str | None = None
    password: str | None = None  # from the environment, never a command-line argument
    cafile: str | None = None  # a CA bundle to trust (a self-signed server's); None: the system's


def message_id(key: str) -> str:
    """Return the Message-ID a notification's key gives (the same on every attempt).

    >>> message_id("package/c/main/t1/red")
    '<4bd025bb5cfef0a655b618278072db8b@stellar-umpire>'
    """
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@stellar-umpire>"


def deliver(
    notification: Notification,
    contact: Contact | None,
    smtp: SmtpSettings | None,
    web_url: str | None = None,
) -> list[str]:
    """Send `notification` every way its recipient's contact gives; return the ways used.

    A recipient without a contact gets nothing (it is marked sent: there is nobody to tell).

    Raises:
        DeliveryError: a server refused or could not be reached.
    """
    ways: list[str] = []
    if contact is None:
        return ways
    if contact.email is not None:
        if smtp is None:
            raise DeliveryError("no SMTP server configured (umpire host --smtp-host)")
        send_email(smtp, contact.email, notification, web_url)
        ways.append("email")
    if contact.webhook is not None:
        count = post_webhook(contact.webhook, notification, web_url)
        ways.append("webhook" if count == 1 else f"webhook ({count} messages)")
    return ways


def send_email(
    settings: SmtpSettings, to: str, notification: Notification, web_url: str | None = None
) -> None:
    """Send one notification as an e-mail with its attachments.

    Raises:
        DeliveryError: the server could not be reached or refused the message.
    """
    message = EmailMessage()
    message["From"] = settings.sender
    message["To"] = to
    message["Subject"] = notification.subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = message_id(notification.key)
    message["X-Umpire-Key"] = notification.key
    message.set_content(notification.body + (f"\n\n{web_url}\n" if web_url else ""))
    for name, text in sorted(notification.attachments.items()):
        subtype = {"svg": "svg+xml", "html": "html", "json": "json"}.get(
            name.rpartition(".")[2], "plain"
        )
        maintype = "image" if subtype == "svg+xml" else "text"
        if maintype == "text":
            message.add_attachment(text, subtype=subtype, filename=name)
        else:
            message.add_attachment(text.encode(), maintype=maintype, subtype=subtype, filename=name)
    try:
        context = ssl.create_default_context(cafile=settings.cafile)
        if settings.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                settings.host, settings.port, timeout=TIMEOUT, context=context
            )
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=TIMEOUT)
        with client:
            if settings.security == "starttls":
                client.starttls(context=context)
            if settings.user:
                client.login(settings.user, settings.password or "")
            client.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        raise DeliveryError(f"e-mail to {to} failed: {exc}") from None


def webhook_messages(notification: Notification, web_url: str | None = None) -> list[str]:
    """Return a notification as webhook messages, each at most `WEBHOOK_LIMIT` characters.

    Its body, then each attached text file in `CHAT_FILES` (headed by its name, in a code
    block), then the names of the files a chat cannot show and the web page's link. Cut at
    line ends (a line longer than a message, anywhere), nothing left out; more than one
    message: each first line is the subject and "(part/count)".
    """
    head = f"**{notification.subject[:200]}**"  # a subject is a line, never a message
    lines: list[tuple[str, str | None]] = [(line, None) for line in notification.body.split("\n")]
    unshown = []
    # The body itself (report.md) and its other forms (report.html): shown, as the body.
    attached = notification.attachments.items()
    body_forms = {name.partition(".")[0] for name, text in attached if text == notification.body}
    for name, text in sorted(notification.attachments.items()):
        if name.partition(".")[0] in body_forms:
            continue
        language = CHAT_FILES.get(name[name.rfind(".") :]) if "." in name else None
        if language is None:
            unshown.append(name)
            continue
        lines += [("", None), (f"**{name}**", None)]
        lines += [(line, language) for line in text.rstrip("\n").split("\n")]
    if unshown:
        where = "on the web page" if web_url else "by e-mail, or ask the umpire"
        lines += [("", None), (f"Not shown here: {', '.join(unshown)} ({where}).", None)]
    if web_url:
        lines.append((web_url, None))
    single = _pack(lines, WEBHOOK_LIMIT - len(head) - 1)
    if len(single) == 1:
        return [f"{head}\n{single[0]}"]
    numbered = _pack(lines, WEBHOOK_LIMIT - len(head) - len(" (9999/9999)\n"))
    count = len(numbered)
    return [f"{head} ({n}/{count})\n{chunk}" for n, chunk in enumerate(numbered, 1)]


def _pack(lines: list[tuple[str, str | None]], budget: int) -> list[str]:
    """Pack lines (each with its code block's language, None outside one) into texts of at
    most `budget` characters, each block fenced anew in every text it runs into."""
    width = budget - len(FENCE) * 2 - max(map(len, CHAT_FILES.values())) - 2
    pieces = [
        (line[i : i + width], fence)
        for line, fence in lines
        for i in range(0, max(len(line), 1), width)
    ]
    texts: list[str] = []
    chunk: list[tuple[str, str | None]] = []
    for piece in pieces:
        if chunk and len(_fenced([*chunk, piece])) > budget:
            texts.append(_fenced(chunk))
            chunk = []
        chunk.append(piece)
    if chunk:
        texts.append(_fenced(chunk))
    return texts


def _fenced(chunk: list[tuple[str, str | None]]) -> str:
    """Join lines, a code block's fenced: "```toml" before, "```" after."""
    out: list[str] = []
    fence: str | None = None
    for line, language in chunk:
        if language != fence:
            if fence is not None:
                out.append(FENCE)
            if language is not None:
                out.append(FENCE + language)
            fence = language
        out.append(line)
    if fence is not None:
        out.append(FENCE)
    return "\n".join(out)


def post_webhook(
    url: str,
    notification: Notification,
    web_url: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """POST a notification to a webhook as `{"content": ...}` messages (Discord's form), one
    after the other (`webhook_messages`); return how many.

    Raises:
        DeliveryError: the server could not be reached, answered an error, or stayed busy.
    """
    messages = webhook_messages(notification, web_url)
    for part, content in enumerate(messages, 1):
        data = msgspec.json.encode({"content": content, "username": "umpire"})
        headers = {
            "Content-Type": "application/json",
            "X-Umpire-Key": notification.key,
            "X-Umpire-Part": f"{part}/{len(messages)}",
        }
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        _post(request, url, sleep)
    return len(messages)


def _post(request: urllib.request.Request, url: str, sleep: Callable[[float], None]) -> None:
    """Send one webhook message, waiting out a 429 as its Retry-After says."""
    for attempt in range(RETRIES + 1):
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                answer.read()
            return
        except urllib.error.HTTPError as exc:
            if exc.code != 429 or attempt == RETRIES:
                raise DeliveryError(f"webhook {url} failed: {exc}") from None
            sleep(_retry_after(exc.headers.get("Retry-After")))
        except (OSError, urllib.error.URLError) as exc:
            raise DeliveryError(f"webhook {url} failed: {exc}") from None


def _retry_after(header: str | None) -> float:
    """Seconds a 429's Retry-After asks for, within 0-`RETRY_AFTER_MAX` (1 if unreadable)."""
    try:
        seconds = float(header) if header is not None else 1.0
    except ValueError:
        seconds = 1.0
    if not math.isfinite(seconds):
        seconds = 1.0
    return min(max(seconds, 0.0), RETRY_AFTER_MAX)
