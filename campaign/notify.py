"""Delivering the host's notifications (issue 18): e-mail by SMTP, and webhooks.

E-mail goes through `smtplib` with STARTTLS or TLS from the start, and a login when a user is
given; the package's files ride as attachments. A webhook gets a JSON POST in the form Discord
reads (`{"content": ...}`, at most 2000 characters), with the web page's link when the host
knows it. Both carry the notification's key (`Message-ID`, `X-Umpire-Key`), so a message sent
again after a crash can be recognised.

Nothing here decides what to send or to whom (`campaign/host.py` does); this module only
moves a queued notification to the addresses in the recipient's contact.
"""

from __future__ import annotations

import hashlib
import smtplib
import ssl
import urllib.error
import urllib.request
from email.message import EmailMessage
from email.utils import formatdate

import msgspec

from campaign.outbox import Contact, Notification

WEBHOOK_LIMIT = 2000  # Discord's limit on a message's content
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
        post_webhook(contact.webhook, notification, web_url)
        ways.append("webhook")
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


def post_webhook(url: str, notification: Notification, web_url: str | None = None) -> None:
    """POST a notification to a webhook as `{"content": ...}` (Discord's form).

    Raises:
        DeliveryError: the server could not be reached or answered an error.
    """
    content = f"**{notification.subject}**\n{notification.body}"
    if web_url:
        content += f"\n{web_url}"
    if len(content) > WEBHOOK_LIMIT:
        content = content[: WEBHOOK_LIMIT - 1] + "…"
    data = msgspec.json.encode({"content": content, "username": "umpire"})
    request = urllib.request.Request(
        url,
        data=data,
        headers={"Content-Type": "application/json", "X-Umpire-Key": notification.key},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            answer.read()
    except (OSError, urllib.error.URLError) as exc:
        raise DeliveryError(f"webhook {url} failed: {exc}") from None
