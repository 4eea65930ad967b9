"""`umpire host` (issue 18): every campaign of a database run on its schedule, unattended.

One pass (`host_pass`) looks at each campaign's active branch and does at most what the
umpire would do next, through the same service calls he would type:

- the turn in progress has no deadline: set it from the schedule (`next_deadline`);
- the deadline has passed, or every player marked his orders final and the grace period
  since the last mark is over: resolve the turn (absent players get their policy there);
- battles wait: with `battles = engine` the engine fights them; with `table` the umpire is
  told once and the turn waits for `umpire battles record`; once every battle has its
  outcome the turn goes on;
- a held turn, a finished campaign, a campaign without schedule or with physical dice: nothing.

The decision (`decide`) is a pure function of the umpire's state, the schedule and the clock.
Each act is announced by a `host_acted` event saying why, appended just before the act; a host
killed between the two finds its announcement at the head and does the act without announcing
it again. The act itself appends after the version it decided on, so of two hosts (or a host
restarted mid-act) exactly one resolves a turn: the other gets `ConcurrencyError`.

Notifications are queued in the outbox under keys naming what they are (`campaign/outbox.py`),
decided from the log each pass (a package for each turn opened, a reminder, a receipt for each
orders file recorded), so a crash between an act and its notification loses nothing, and a
second decision of the same one queues nothing. Delivery follows (`campaign/notify.py`).
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path

import msgspec

from campaign import render
from campaign.errors import ConcurrencyError, IllegalCommandError, InvalidInputError, UmpireError
from campaign.events import (
    UMPIRE,
    Audience,
    DeadlineSet,
    HostActed,
    NewEvent,
    OrdersMarkedFinal,
    OrdersSubmitted,
    RecordedEvent,
    ScheduleSet,
)
from campaign.imapin import ImapSettings, fetch_unseen
from campaign.mailin import MAILTO, read_maildir
from campaign.notify import DeliveryError, SmtpSettings, deliver
from campaign.outbox import Contact, Outbox
from campaign.package import TEMPLATE_FILE
from campaign.projections import CampaignState
from campaign.rules import core
from campaign.schedule import Schedule, current_schedule, describe, due_words, next_deadline
from campaign.service import CampaignService
from campaign.store import Lineage

Log = Callable[[str], None]
SECURITY_MODES = ("none", "starttls", "tls")


class Decision(msgspec.Struct, frozen=True):
    """What the host does next in a campaign, and why (None when nothing is due)."""

    action: str  # "deadline", "resolve", "fight" or "wait"
    reason: str
    deadline: datetime | None = None  # for "deadline"


class HostSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How `umpire host` runs."""

    smtp: SmtpSettings | None = None
    web_url: str | None = None  # the players' web page, linked from every notification
    lease_seconds: float = 60.0  # a delivery claimed longer ago than this is tried again
    maildir: Path | None = None  # orders by e-mail (`campaign/mailin.py`)
    imap: ImapSettings | None = None  # spooled into `maildir` first (`campaign/imapin.py`)


def host_settings(
    environ: Mapping[str, str],
    smtp: tuple[str | None, int, str, str | None, str | None, str],
    imap: tuple[str | None, int, str, str | None, str],
    maildir: str | None,
    web_url: str | None,
    lease: float,
) -> HostSettings:
    """Check `umpire host`'s options and build its settings; passwords come from `environ`.

    `smtp` is (host, port, security, user, cafile, sender); `imap` (host, port, security,
    user, mailbox). No host: no e-mail of that kind.

    Raises:
        InvalidInputError: a security mode not known, or IMAP without a Maildir or user.
    """
    smtp_host, smtp_port, smtp_security, smtp_user, smtp_cafile, sender = smtp
    imap_host, imap_port, imap_security, imap_user, imap_mailbox = imap
    for name, mode in (("--smtp-security", smtp_security), ("--imap-security", imap_security)):
        if mode not in SECURITY_MODES:
            raise InvalidInputError(f"{name} {mode!r}: give {', '.join(SECURITY_MODES)}")
    mail_out = None
    if smtp_host is not None:
        mail_out = SmtpSettings(
            host=smtp_host,
            port=smtp_port,
            sender=sender,
            security=smtp_security,
            user=smtp_user,
            password=environ.get("UMPIRE_SMTP_PASSWORD"),
            cafile=smtp_cafile,
        )
    mail_in = None
    if imap_host is not None:
        if maildir is None or imap_user is None:
            raise InvalidInputError("--imap-host needs --maildir (its spool) and --imap-user")
        mail_in = ImapSettings(
            host=imap_host,
            port=imap_port,
            user=imap_user,
            password=environ.get("UMPIRE_IMAP_PASSWORD", ""),
            mailbox=imap_mailbox,
            security=imap_security,
        )
    return HostSettings(
        smtp=mail_out,
        web_url=web_url,
        lease_seconds=lease,
        maildir=Path(maildir) if maildir is not None else None,
        imap=mail_in,
    )


# ---------------------------------------------------------------- the pure decision


def decide(
    state: CampaignState,
    schedule: Schedule | None,
    now: datetime,
    final_since: datetime | None,
) -> Decision | None:
    """Return what the host does next in a campaign, or None.

    `final_since` is when the last player marked his orders final (None: not all are).
    """
    if schedule is None or not state.created or state.finished or state.held is not None:
        return None
    if state.dice_mode == "manual":
        return None  # physical dice need the umpire at the table
    if state.pending_battles:
        ids = ", ".join(sorted(state.pending_battles))
        if schedule.battles == "engine":
            return Decision("fight", f"battles {ids} are fought by the engine (the schedule)")
        return Decision(
            "wait", f"battles {ids} are to be fought on a table: `umpire battles record`"
        )
    if state.phase != "orders":
        return Decision("resolve", f"the battles of turn {state.turn} have their outcomes")
    if state.deadline is None:
        due = next_deadline(schedule, now)
        return Decision(
            "deadline",
            f"the schedule ({describe(schedule)}) sets turn {state.turn}'s deadline",
            due,
        )
    if now > state.deadline:
        return Decision(
            "resolve",
            f"turn {state.turn}'s deadline, {state.deadline:%Y-%m-%d %H:%M:%S} UTC, passed",
        )
    if final_since is not None and now >= final_since + timedelta(seconds=schedule.grace_seconds):
        return Decision(
            "resolve",
            f"every player marked his orders for turn {state.turn} final and the grace period "
            f"({schedule.grace_seconds} s) is over",
        )
    return None


def seated(state: CampaignState) -> tuple[str, ...]:
    """Return the players who hand in orders: those with an empire (all, without a map)."""
    if not state.empires:
        return state.players
    return tuple(p for p in state.players if p in state.empires)


def awaited(state: CampaignState) -> tuple[str, ...]:
    """Return the players the host waits for and reminds: seated, not on holiday, not
    dropped (issue 18)."""
    return tuple(p for p in seated(state) if not state.seats.excused(p, state.turn))


def reminders_due(
    state: CampaignState, schedule: Schedule | None, now: datetime
) -> tuple[str, ...]:
    """Return the players to remind now: not final, in the schedule's reminder window."""
    if schedule is None or not schedule.remind_seconds or state.deadline is None:
        return ()
    if state.phase != "orders" or state.held is not None or state.finished:
        return ()
    if not state.deadline - timedelta(seconds=schedule.remind_seconds) <= now <= state.deadline:
        return ()
    return tuple(p for p in awaited(state) if p not in state.final)


# ---------------------------------------------------------------- the umpire's commands


def set_schedule(
    service: CampaignService, lineage: Lineage, schedule: Schedule
) -> list[RecordedEvent]:
    """Set the campaign's schedule (everyone is told); `umpire host` runs the campaign by it.

    Raises:
        IllegalCommandError: the campaign rolls physical dice (nobody would be at the prompt).
    """
    state = service.load(lineage)
    core.require_running(state)
    if state.dice_mode == "manual":
        raise IllegalCommandError(
            "this campaign rolls physical dice: the host cannot roll them, so it cannot host it"
        )
    event = ScheduleSet(
        spec=schedule.spec,
        tz=schedule.tz,
        grace_seconds=schedule.grace_seconds,
        remind_seconds=schedule.remind_seconds,
        battles=schedule.battles,
        holidays=schedule.holidays,
    )
    return service.append(
        lineage, state.version, [NewEvent(event, Audience.everyone(), state.turn)]
    )


# ---------------------------------------------------------------- the host


class Host:
    """Runs every campaign of one database; `run_once` is one pass, `run` loops."""

    def __init__(self, service: CampaignService, settings: HostSettings, log: Log | None = None):
        self.service = service
        self.outbox = Outbox(service.store)
        self.settings = settings
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))

    def run(self, poll: float, passes: int | None = None) -> None:
        """Pass over every campaign every `poll` seconds (forever, or `passes` times)."""
        done = 0
        while passes is None or done < passes:
            try:
                self.run_once()
            except Exception as exc:  # the database away, say: try again at the next pass
                self.log(f"the pass failed ({type(exc).__name__}: {exc}); trying again")
            done += 1
            if passes is None or done < passes:
                time.sleep(poll)

    def run_once(self) -> list[str]:
        """Do what is due in every campaign, then deliver what is queued; return what was done."""
        acts: list[str] = []
        if self.settings.maildir is not None:
            try:
                if self.settings.imap is not None:
                    fetched = fetch_unseen(self.settings.imap, self.settings.maildir)
                    acts += [f"mail {name}: fetched by IMAP" for name in fetched]
                acts += read_maildir(self.service, self.outbox, self.settings.maildir)
            except (UmpireError, OSError) as exc:
                self.log(f"the maildir could not be read: {exc}")
        for info in self.service.campaigns():
            with self.outbox.campaign_lock(info.name) as got:
                if not got:
                    continue  # another host works on it right now
                try:
                    acts += self._campaign(info.name)
                except ConcurrencyError:
                    continue  # another writer got there first: the next pass sees its result
                except UmpireError as exc:
                    self._trouble(info.name, f"the host could not go on: {exc}")
                except Exception as exc:  # one campaign's fault stops no other (told the umpire)
                    self._trouble(info.name, f"the host failed: {type(exc).__name__}: {exc}")
        acts += self.deliver()
        for act in acts:
            self.log(act)
        return acts

    # ------------------------------------------------------------ one campaign

    def _campaign(self, campaign: str) -> list[str]:
        lineage = self.service.target(campaign)
        acts: list[str] = []
        for _ in range(8):  # a turn may resolve, stop for battles, have them fought, go on
            state = self.service.load(lineage)
            schedule = current_schedule(self.service.store, lineage)
            if schedule is None:
                return acts
            self._notifications(lineage, state, schedule)
            now = self.service.store.clock()
            decision = decide(state, schedule, now, self._final_since(lineage, state))
            if decision is None:
                return acts
            if decision.action == "wait":
                self._announce(lineage, state, decision, Audience.umpire_only())
                waiting = "+".join(sorted(state.pending_battles))  # a key for this set of battles
                digest = hashlib.sha256(waiting.encode()).hexdigest()[:16]
                key = f"wait/{campaign}/{lineage.branch}/t{state.turn}/{digest}"
                self.outbox.enqueue(
                    campaign,
                    key,
                    UMPIRE,
                    "umpire",
                    f"{campaign}: turn {state.turn} waits for a battle on the table",
                    f"{decision.reason}.\nThe turn goes on when every battle has its outcome.",
                )
                return acts
            acts.append(self._act(lineage, state, decision))
        return acts

    def _act(self, lineage: Lineage, state: CampaignState, decision: Decision) -> str:
        where = f"{lineage.campaign} turn {state.turn}"
        if decision.action == "deadline":
            assert decision.deadline is not None
            acted = HostActed(turn=state.turn, action="deadline", reason=decision.reason)
            set_ = DeadlineSet(turn=state.turn, deadline=decision.deadline)
            self.service.append(
                lineage,
                state.version,
                [
                    NewEvent(acted, Audience.everyone(), state.turn),
                    NewEvent(set_, Audience.everyone(), state.turn),
                ],
            )
            return (
                f"{where}: deadline {decision.deadline:%Y-%m-%d %H:%M:%S} UTC ({decision.reason})"
            )
        audience = Audience.umpire_only() if decision.action == "fight" else Audience.everyone()
        self._announce(lineage, state, decision, audience)
        if decision.action == "fight":
            self.service.resolve_battles(lineage)
            return f"{where}: battles fought ({decision.reason})"
        self.service.resolve_turn(lineage, expected_turn=state.turn)
        return f"{where}: resolved ({decision.reason})"

    def _announce(
        self, lineage: Lineage, state: CampaignState, decision: Decision, audience: Audience
    ) -> None:
        """Append the `host_acted` that says why, unless the head says it already (a host
        killed between announcing and acting, or a second host that announced it)."""
        acted = HostActed(turn=state.turn, action=decision.action, reason=decision.reason)
        head = list(self.service.store.read(lineage, after_version=max(state.version - 1, 0)))
        if head and head[-1].event == acted:
            return
        self.service.append(lineage, state.version, [NewEvent(acted, audience, state.turn)])

    def _final_since(self, lineage: Lineage, state: CampaignState) -> datetime | None:
        """Return when the last player marked his orders final, if every player has."""
        players = awaited(state)
        if not players or any(p not in state.final for p in players):
            return None
        marks = self.service.store.read(lineage, turn=state.turn, types=[OrdersMarkedFinal.TYPE])
        times = [m.recorded_at for m in marks if isinstance(m.event, OrdersMarkedFinal)]
        return max(times, default=None)

    # ------------------------------------------------------------ notifications

    def _notifications(self, lineage: Lineage, state: CampaignState, schedule: Schedule) -> None:
        """Queue what the log says is due: packages, reminders, receipts (each once)."""
        campaign, branch = lineage.campaign, lineage.branch
        base = f"{campaign}/{branch}/t{state.turn}"
        # A turn's package once its deadline is set; the final report once the campaign is over.
        if (state.phase == "orders" and state.deadline is not None) or state.finished:
            for player in seated(state):
                key = f"package/{base}/{player}"
                if not self.outbox.queued(key):
                    subject, body, files = self._package(lineage, player, state)
                    self.outbox.enqueue(campaign, key, player, "package", subject, body, files)
        now = self.service.store.clock()
        for player in reminders_due(state, schedule, now):
            assert state.deadline is not None
            self.outbox.enqueue(
                campaign,
                f"reminder/{base}/{player}",
                player,
                "reminder",
                f"{campaign}: your orders for turn {state.turn} are due",
                f"Your orders for turn {state.turn} of {campaign} are due by "
                f"{due_words(state.deadline)} and are not marked final yet.",
            )
        for player in state.seats.dropped:
            missed = state.seats.streak.get(player, 0)
            self.outbox.enqueue(
                campaign,
                f"dropped/{campaign}/{branch}/{player}/{state.seats.missed.get(player, 0)}",
                UMPIRE,
                "umpire",
                f"{campaign}: {player}'s seat is open",
                f"{player} missed {missed} turns in a row: his seat is open and his empire "
                f"holds position. `umpire player substitute {player} --to NAME` hands it on.",
            )
        submitted = list(  # read whole before writing: one SQLite connection may serve both
            self.service.store.read(lineage, turn=state.turn, types=[OrdersSubmitted.TYPE])
        )
        handed_in: Counter[str] = Counter()  # each player's orders of the turn, so far
        for recorded in submitted:
            ev = recorded.event
            if not isinstance(ev, OrdersSubmitted):
                continue
            handed_in[ev.player] += 1
            if recorded.actor == f"player:{ev.player}":
                # Keyed by his own count, which he knows: the key goes to him (X-Umpire-Key),
                # and the branch's version would count the events hidden from him.
                self.outbox.enqueue(
                    campaign,
                    f"receipt/{base}/{ev.player}/{handed_in[ev.player]}",
                    ev.player,
                    "receipt",
                    f"{campaign}: your orders for turn {ev.turn} were received",
                    f"Your orders for turn {ev.turn} of {campaign} were recorded at "
                    f"{recorded.recorded_at:%Y-%m-%d %H:%M:%S} UTC. You may send new ones until "
                    "the deadline; the last ones count.",
                )

    def _package(
        self, lineage: Lineage, player: str, state: CampaignState
    ) -> tuple[str, str, dict[str, str]]:
        """Return a player's package as a notification: subject, body and files."""
        report = self.service.report(lineage, player)
        files = render.player_package(report, self.service.map_svg(lineage, player))
        files.pop("report.json", None)
        if state.finished:
            return (
                f"{lineage.campaign}: the campaign is over, your final report",
                files["report.md"],
                files,
            )
        with contextlib.suppress(IllegalCommandError):  # no empire (yet): no template
            files[TEMPLATE_FILE] = self.service.orders_template(lineage, player)
        subject = f"{lineage.campaign}: turn {state.turn}, your report and orders template"
        return subject, files["report.md"], files

    def _trouble(self, campaign: str, problem: str) -> None:
        """Tell the umpire something needs him (once per distinct problem)."""
        digest = hashlib.sha256(problem.encode()).hexdigest()[:16]
        self.outbox.enqueue(
            campaign,
            f"error/{campaign}/{digest}",
            UMPIRE,
            "umpire",
            f"{campaign}: the host needs you",
            problem,
        )
        self.log(f"{campaign}: {problem}")

    # ------------------------------------------------------------ delivery

    def deliver(self) -> list[str]:
        """Send every queued notification it can claim; return what was sent."""
        sent: list[str] = []
        lease = timedelta(seconds=self.settings.lease_seconds)
        contacts: dict[str, dict[str, Contact]] = {}
        for item in self.outbox.claim(lease):
            book = contacts.setdefault(item.campaign, self.outbox.contacts(item.campaign))
            contact = book.get(item.recipient)
            if item.recipient.startswith(MAILTO):  # a reply to whoever mailed orders in
                contact = Contact(player=item.recipient, email=item.recipient[len(MAILTO) :])
            try:
                ways = deliver(item, contact, self.settings.smtp, self.settings.web_url)
            except DeliveryError as exc:
                self.outbox.mark_failed(item.id, str(exc))
                self.log(f"{item.campaign}: {item.key} not delivered: {exc}")
                continue
            self.outbox.mark_sent(item.id)
            if ways:
                sent.append(f"{item.campaign}: sent {item.key} by {', '.join(ways)}")
            else:  # nobody to tell: kept as done, and the umpire told how to reach him
                sent.append(
                    f"{item.campaign}: {item.key} not sent: {item.recipient} has no contact; "
                    f"give him one with `umpire player contact {item.recipient} --email "
                    "ADDRESS` (or --webhook URL)"
                )
        return sent
