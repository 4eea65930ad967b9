"""Orders by e-mail (issue 18): a Maildir of incoming signed orders files, taken as
`umpire orders inbox` takes a folder, each sender answered with the verdict.

`umpire host --maildir DIR` reads every message in DIR/new. The signed orders file is the
message's first `.toml` attachment, or its text body; the signature line names the campaign.
Each step can be repeated after a crash without doing anything twice:

1. the orders are staged as `DIR/.umpire/<campaign>/<key>.toml` (the key is the SHA-256 of
   the message), the sender's address beside it in `DIR/.umpire/senders/<key>.txt`, and the
   message moves to DIR/cur (seen);
2. `process_inbox` records the staged files and moves each to done/ or rejected/ with its
   reason, exactly as `umpire orders inbox` does;
3. every file in done/ or rejected/ gets one reply (outbox key `reply/<key>`) to its sender,
   and a refused one tells the umpire too (`refused/<key>`).

A message that names no campaign of this database, or carries no signature line, is answered
at once and not staged. Replies go only to the message's From address; a refusal says only
what the inbox would have said (it names nothing the sender did not send).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

from campaign import signing
from campaign.errors import InvalidInputError
from campaign.events import UMPIRE
from campaign.inbox import DONE, REASON_SUFFIX, REJECTED, process_inbox
from campaign.inputs import MAX_ORDERS_BYTES, printable
from campaign.outbox import Outbox
from campaign.service import CampaignService

STAGING = ".umpire"
SENDERS = "senders"
MAX_MESSAGE_BYTES = 4 * MAX_ORDERS_BYTES + 256 * 1024
MAILTO = "mailto:"


def read_maildir(service: CampaignService, outbox: Outbox, maildir: Path) -> list[str]:
    """Stage, record and answer every new message in `maildir`; return what was done.

    Raises:
        InvalidInputError: `maildir` is not a Maildir (no new/ and cur/).
    """
    new, cur = maildir / "new", maildir / "cur"
    if not new.is_dir() or not cur.is_dir():
        raise InvalidInputError(f"{maildir} is not a Maildir: it needs new/ and cur/ folders")
    staging = maildir / STAGING
    (staging / SENDERS).mkdir(parents=True, exist_ok=True)
    campaigns = {c.name for c in service.campaigns()}
    done: list[str] = []
    for path in sorted(p for p in new.iterdir() if p.is_file()):
        done.append(_stage(outbox, path, cur, staging, campaigns))
    for campaign in sorted(campaigns):
        folder = staging / campaign
        if folder.is_dir() and any(folder.glob("*.toml")):
            for result in process_inbox(service, service.target(campaign), folder):
                done.append(f"{campaign}: orders {result.file} {result.outcome}")
        if folder.is_dir():
            _answer(outbox, campaign, folder, staging / SENDERS)
    return done


def _stage(outbox: Outbox, path: Path, cur: Path, staging: Path, campaigns: set[str]) -> str:
    data = path.read_bytes()[:MAX_MESSAGE_BYTES]
    key = hashlib.sha256(data).hexdigest()[:32]
    message = email.message_from_bytes(data, policy=email.policy.default)
    sender = parseaddr(str(message.get("From", "")))[1]
    orders = _orders_of(message)
    seen = cur / f"{path.name}:2,S"
    try:
        signed = signing.read(orders)
        if signed.campaign not in campaigns:
            raise InvalidInputError(f"signed for campaign {signed.campaign!r}, not one hosted here")
    except InvalidInputError as exc:
        problems = getattr(exc, "problems", None) or [str(exc)]
        if sender and campaigns:
            _reply(
                outbox, sorted(campaigns)[0], key, sender, False, tuple(map(printable, problems))
            )
        path.rename(seen)
        return f"mail {path.name}: refused ({'; '.join(problems)})"
    folder = staging / signed.campaign
    folder.mkdir(exist_ok=True)
    target = folder / f"{key}.toml"
    if not any((folder / sub / target.name).exists() for sub in (DONE, REJECTED)):
        target.write_bytes(orders)
    (staging / SENDERS / f"{key}.txt").write_text(sender, encoding="utf-8")
    path.rename(seen)
    return f"mail {path.name}: orders of {signed.player} for {signed.campaign} staged"


def _orders_of(message: EmailMessage) -> bytes:
    """Return the message's first .toml attachment, else its plain-text body."""
    for part in message.iter_attachments():
        name = part.get_filename() or ""
        if name.endswith(".toml"):
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload[: MAX_ORDERS_BYTES + 1024]
    body = message.get_body(preferencelist=("plain",))
    if body is None:
        return b""
    text = body.get_content()
    return str(text).replace("\r\n", "\n").encode()[: MAX_ORDERS_BYTES + 1024]


def _answer(outbox: Outbox, campaign: str, folder: Path, senders: Path) -> None:
    """Queue one reply for every staged file the inbox has decided (each once)."""
    for accepted, sub in ((True, DONE), (False, REJECTED)):
        for path in sorted((folder / sub).glob("*.toml")) if (folder / sub).is_dir() else []:
            key = path.stem.split(".")[0]
            sender_file = senders / f"{key}.txt"
            sender = sender_file.read_text(encoding="utf-8") if sender_file.exists() else ""
            problems: tuple[str, ...] = ()
            reason = path.with_name(path.name + REASON_SUFFIX)
            if not accepted and reason.exists():
                problems = tuple(reason.read_text(encoding="utf-8").splitlines())
            if sender:
                _reply(outbox, campaign, key, sender, accepted, problems)
            if not accepted:
                outbox.enqueue(
                    campaign,
                    f"refused/{campaign}/{key}",
                    UMPIRE,
                    "umpire",
                    f"{campaign}: an orders file by e-mail was refused",
                    f"From {sender or 'an unknown sender'}:\n" + "\n".join(problems),
                )


def _reply(
    outbox: Outbox,
    campaign: str,
    key: str,
    sender: str,
    accepted: bool,
    problems: tuple[str, ...],
) -> None:
    verdict = "accepted" if accepted else "refused"
    body = (
        "Your orders were recorded. You may send new ones until the deadline; the last count."
        if accepted
        else "Your orders were not recorded:\n" + "\n".join(f"- {p}" for p in problems)
    )
    outbox.enqueue(
        campaign, f"reply/{key}", MAILTO + sender, "reply", f"Your orders: {verdict}", body
    )
