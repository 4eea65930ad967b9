"""Players' contacts and the outbox of notifications (issue 18): the host's two tables.

Neither is an event. A player's e-mail address and webhook URL live in `player_contacts`
(like `player_secrets`, one row per player of a campaign; `umpire` is the umpire's row), so
they never enter the log and no player's view can hold another's address.

A notification is decided by the host and queued under a unique key that names what it is
(`package/<campaign>/<branch>/t3/red`): a host restarted after `kill -9`, or a second host on
the same database, decides the same notification again and the insert is a no-op. Delivery
claims a row (a conditional update: one claimant wins), sends it, then marks it sent; a claim
older than the lease (a host killed while sending) is taken again. The one window left is a
host killed after the server accepted a message and before the row was marked: that message
is sent again, carrying the same key (`Message-ID`, the webhook's `X-Umpire-Key`), so the
receiving side can tell.

The campaign lock (`campaign_lock`) keeps two hosts from working on one campaign at once on
PostgreSQL (a session advisory lock); on SQLite the database's single writer and the event
store's expected-version append are the guard. Either way the append is what makes a turn
resolve exactly once: a host that lost a race gets `ConcurrencyError` and stored nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from campaign.errors import InvalidInputError
from campaign.events import UMPIRE, check_player_name
from campaign.store import campaigns, notifications, player_contacts
from campaign.storetypes import Store

_EMAIL = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$")
_WEBHOOK = re.compile(r"^https?://[^\s]+$")
MAX_ADDRESS = 500


class Contact(msgspec.Struct, frozen=True):
    """How to reach a player (or the umpire): an e-mail address, a webhook URL, or both."""

    player: str
    email: str | None = None
    webhook: str | None = None


class Notification(msgspec.Struct, frozen=True):
    """A queued notification, as the sender reads it."""

    id: int
    campaign: str
    key: str
    recipient: str
    kind: str
    subject: str
    body: str
    attachments: dict[str, str]
    attempts: int = 0
    sent_at: datetime | None = None
    last_error: str | None = None


def check_contact(email: str | None, webhook: str | None) -> None:
    """Check an e-mail address and a webhook URL as the umpire gives them.

    Raises:
        InvalidInputError: either is not accepted (says what is).
    """
    if email is not None and (len(email) > MAX_ADDRESS or not _EMAIL.match(email)):
        raise InvalidInputError(f"e-mail address {email[:80]!r} is not one: give name@example.org")
    if webhook is not None and (len(webhook) > MAX_ADDRESS or not _WEBHOOK.match(webhook)):
        raise InvalidInputError(
            f"webhook {webhook[:80]!r} is not an http(s) URL: give https://host/path"
        )


class Outbox:
    """Contacts and queued notifications in an event store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------ contacts

    def set_contact(
        self, campaign: str, player: str, email: str | None, webhook: str | None
    ) -> Contact:
        """Set how to reach `player` of `campaign` (or the umpire); None clears a way.

        Raises:
            InvalidInputError: not a player of the campaign, or an address not accepted.
        """
        if player != UMPIRE:
            check_player_name(player)
        check_contact(email, webhook)
        campaign_id = self._campaign_id(campaign)
        values = {"email": email, "webhook": webhook, "updated_at": self.store.clock()}
        with self.store.engine.begin() as conn:
            updated = conn.execute(
                player_contacts.update()
                .where(
                    player_contacts.c.campaign_id == campaign_id,
                    player_contacts.c.player == player,
                )
                .values(**values)
            ).rowcount
            if not updated:
                conn.execute(
                    player_contacts.insert(),
                    {**values, "campaign_id": campaign_id, "player": player},
                )
        return Contact(player=player, email=email, webhook=webhook)

    def contacts(self, campaign: str) -> dict[str, Contact]:
        """Return every contact of `campaign`, by player (the umpire's under `umpire`)."""
        campaign_id = self._campaign_id(campaign)
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                sa.select(player_contacts).where(player_contacts.c.campaign_id == campaign_id)
            ).all()
        return {r.player: Contact(player=r.player, email=r.email, webhook=r.webhook) for r in rows}

    # ------------------------------------------------------------ the outbox

    def enqueue(
        self,
        campaign: str,
        key: str,
        recipient: str,
        kind: str,
        subject: str,
        body: str,
        attachments: dict[str, str] | None = None,
    ) -> bool:
        """Queue a notification under `key`; return False when that key is queued already.

        Looked up first, so a pass that decides it again costs a read, not a failed insert
        (which PostgreSQL would log); the unique key still settles a race.
        """
        if self.queued(key):
            return False
        row = {
            "campaign_id": self._campaign_id(campaign),
            "key": key,
            "recipient": recipient,
            "kind": kind,
            "subject": subject,
            "body": body,
            "attachments": msgspec.json.encode(attachments or {}).decode(),
            "created_at": self.store.clock(),
            "attempts": 0,
        }
        try:
            with self.store.engine.begin() as conn:
                conn.execute(notifications.insert(), row)
        except IntegrityError:
            return False
        return True

    def queued(self, key: str) -> bool:
        """Return whether a notification is queued (or sent) under `key`."""
        with self.store.engine.connect() as conn:
            found = conn.execute(
                sa.select(notifications.c.id).where(notifications.c.key == key)
            ).first()
        return found is not None

    def claim(self, lease: timedelta, limit: int = 50) -> list[Notification]:
        """Claim unsent notifications (none claimed, or claimed longer ago than `lease`).

        Each claim is a conditional update, so of two hosts only one gets a given row.
        """
        now = self.store.clock()
        stale = now - lease
        query = (
            sa.select(notifications, campaigns.c.name.label("campaign"))
            .join(campaigns, campaigns.c.id == notifications.c.campaign_id)
            .where(
                notifications.c.sent_at.is_(None),
                sa.or_(notifications.c.claimed_at.is_(None), notifications.c.claimed_at < stale),
            )
            .order_by(notifications.c.id)
            .limit(limit)
        )
        claimed: list[Notification] = []
        with self.store.engine.connect() as conn:
            rows = conn.execute(query).all()
        for row in rows:
            condition = (
                notifications.c.claimed_at.is_(None)
                if row.claimed_at is None
                else notifications.c.claimed_at == row.claimed_at
            )
            with self.store.engine.begin() as conn:
                won = conn.execute(
                    notifications.update()
                    .where(notifications.c.id == row.id, notifications.c.sent_at.is_(None))
                    .where(condition)
                    .values(claimed_at=now, attempts=notifications.c.attempts + 1)
                ).rowcount
            if won == 1:
                claimed.append(
                    msgspec.structs.replace(_notification(row), attempts=row.attempts + 1)
                )
        return claimed

    def mark_sent(self, notification_id: int) -> None:
        """Record that a notification was delivered."""
        with self.store.engine.begin() as conn:
            conn.execute(
                notifications.update()
                .where(notifications.c.id == notification_id)
                .values(sent_at=self.store.clock(), last_error=None)
            )

    def mark_failed(self, notification_id: int, error: str) -> None:
        """Record a failed delivery; the row is claimed again once its lease has run out."""
        with self.store.engine.begin() as conn:
            conn.execute(
                notifications.update()
                .where(notifications.c.id == notification_id)
                .values(last_error=error[:1000], claimed_at=self.store.clock())
            )

    def all(self, campaign: str | None = None) -> list[Notification]:
        """Return every notification (of one campaign), oldest first."""
        query = (
            sa.select(notifications, campaigns.c.name.label("campaign"))
            .join(campaigns, campaigns.c.id == notifications.c.campaign_id)
            .order_by(notifications.c.id)
        )
        if campaign is not None:
            query = query.where(campaigns.c.name == campaign)
        with self.store.engine.connect() as conn:
            return [_notification(r) for r in conn.execute(query).all()]

    # ------------------------------------------------------------ the campaign lock

    @contextmanager
    def campaign_lock(self, campaign: str) -> Iterator[bool]:
        """Hold the host's lock on `campaign` while the block runs; yield whether it was got.

        PostgreSQL: a session advisory lock, tried without waiting (another host has it:
        False). SQLite: always True; its single writer and the expected-version append guard.
        """
        if self.store.backend != "postgresql":
            yield True
            return
        digest = hashlib.sha256(f"stellar-umpire-host/{campaign}".encode()).digest()
        key = int.from_bytes(digest[:8], "big", signed=True)
        with self.store.engine.connect() as conn:
            got = bool(conn.execute(sa.select(sa.func.pg_try_advisory_lock(key))).scalar_one())
            conn.commit()
            try:
                yield got
            finally:
                if got:
                    conn.execute(sa.select(sa.func.pg_advisory_unlock(key)))
                    conn.commit()

    def _campaign_id(self, campaign: str) -> int:
        with self.store.engine.connect() as conn:
            found = conn.execute(
                sa.select(campaigns.c.id).where(campaigns.c.name == campaign)
            ).scalar_one_or_none()
        if found is None:
            raise InvalidInputError(f"no campaign {campaign!r} in this database")
        return int(found)


def _notification(row: sa.Row[object]) -> Notification:
    m = row._mapping
    sent = m["sent_at"]
    return Notification(
        id=m["id"],
        campaign=m["campaign"],
        key=m["key"],
        recipient=m["recipient"],
        kind=m["kind"],
        subject=m["subject"],
        body=m["body"],
        attachments=msgspec.json.decode(m["attachments"], type=dict[str, str]),
        attempts=m["attempts"],
        sent_at=(sent if sent is None or sent.tzinfo else sent.replace(tzinfo=UTC)),
        last_error=m["last_error"],
    )
