"""`umpire host` (issue 18): a campaign run on its schedule, its players told by e-mail and
webhook, absent players handled, battles on a table waited for, a `kill -9` survived."""

from __future__ import annotations

import imaplib
import random
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign import signing
from campaign.errors import InvalidInputError
from campaign.events import (
    AbsentPlayer,
    Audience,
    BattleFought,
    DeadlineSet,
    HostActed,
    OrdersMarkedFinal,
    RecordedEvent,
    TurnEnded,
)
from campaign.host import Host, HostSettings, decide, reminders_due, set_schedule
from campaign.imapin import ImapSettings
from campaign.notify import (
    WEBHOOK_LIMIT,
    DeliveryError,
    SmtpSettings,
    message_id,
    post_webhook,
    send_email,
)
from campaign.outbox import Notification, Outbox
from campaign.players import PlayerSecrets
from campaign.projections import CampaignState
from campaign.schedule import next_deadline, parse_duration, parse_schedule
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import ShipResult
from cli import app
from tests.conftest import FixedClock, reset_postgres
from tests.host_harness import (
    TRIO_MAP,
    HostProcess,
    free_port,
    imap_server,
    self_signed,
    smtp_server,
    wait_for,
    webhook_server,
)

PLAYERS = ("red", "blue", "green")
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


# ---------------------------------------------------------------- schedules


def test_a_weekly_schedule_keeps_its_wall_clock_time_across_a_time_change() -> None:
    schedule = parse_schedule("sun 20:00", tz="Europe/Berlin")
    before = next_deadline(schedule, datetime(2026, 10, 12, tzinfo=UTC))  # 18 Oct: CEST
    after = next_deadline(schedule, before)  # 25 October: CET, UTC+1
    assert (before.hour, after.hour) == (18, 19)
    assert after - before == timedelta(days=7, hours=1)


def test_a_period_schedule_runs_from_the_time_asked() -> None:
    schedule = parse_schedule("every 3d")
    assert next_deadline(schedule, NOW) == NOW + timedelta(days=3)


@pytest.mark.parametrize(
    ("text", "tz", "problem"),
    [
        ("mon,thu 25:00", "UTC", "not a time of day"),
        ("funday 20:00", "UTC", "unknown day 'funday'"),
        ("whenever", "UTC", "`mon,thu 20:00`, or a period, `every 3d`"),
        ("every 0s", "UTC", "at least 1 s"),
        ("mon 20:00", "Mars/Olympus", "unknown time zone"),
    ],
)
def test_a_schedule_not_understood_is_refused_saying_what_is_accepted(
    text: str, tz: str, problem: str
) -> None:
    with pytest.raises(InvalidInputError, match=problem):
        parse_schedule(text, tz=tz)


def test_durations_read_as_the_umpire_writes_them() -> None:
    assert [parse_duration(t, "grace") for t in ("90", "45s", "10m", "2h", "3d")] == [
        90,
        45,
        600,
        7200,
        259200,
    ]
    with pytest.raises(InvalidInputError, match="not a duration"):
        parse_duration("soon", "grace")


# ---------------------------------------------------------------- the pure decision


def state(**fields: object) -> CampaignState:
    base: dict[str, object] = {"created": True, "players": PLAYERS, "turn": 2}
    return CampaignState(**{**base, **fields})  # type: ignore[arg-type]


SCHEDULE = parse_schedule("every 1d", grace_seconds=600, remind_seconds=3600, battles="table")


def test_the_host_sets_a_deadline_then_resolves_when_it_passes() -> None:
    opened = decide(state(), SCHEDULE, NOW, None)
    assert opened is not None
    assert (opened.action, opened.deadline) == ("deadline", NOW + timedelta(days=1))
    due = state(deadline=NOW + timedelta(hours=1))
    assert decide(due, SCHEDULE, NOW, None) is None
    passed = decide(due, SCHEDULE, NOW + timedelta(hours=1, seconds=1), None)
    assert passed is not None
    assert passed.action == "resolve"
    assert "deadline" in passed.reason


def test_every_player_final_resolves_early_after_the_grace_period() -> None:
    final = state(deadline=NOW + timedelta(days=1), final=PLAYERS)
    assert decide(final, SCHEDULE, NOW + timedelta(minutes=9), NOW) is None
    early = decide(final, SCHEDULE, NOW + timedelta(minutes=10), NOW)
    assert early is not None
    assert early.action == "resolve"
    assert "final" in early.reason


def test_a_held_turn_a_finished_or_unscheduled_campaign_is_left_alone() -> None:
    late = NOW + timedelta(days=2)
    due = {"deadline": NOW}
    assert decide(state(held="a ruling", **due), SCHEDULE, late, None) is None
    assert decide(state(turn=45, **due), SCHEDULE, late, None) is None
    assert decide(state(**due), None, late, None) is None
    assert decide(state(dice_mode="manual", **due), SCHEDULE, late, None) is None


def test_reminders_go_in_the_window_to_players_not_final() -> None:
    due = state(deadline=NOW + timedelta(minutes=30), final=("red",))
    assert reminders_due(due, SCHEDULE, NOW) == ("blue", "green")
    assert reminders_due(due, SCHEDULE, NOW - timedelta(hours=1)) == ()


def test_a_campaign_of_physical_dice_is_not_hosted(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    runner = CliRunner()
    base = ["--db", db]
    assert (
        runner.invoke(app, ["new", "m", "--players", "red", "--dice", "manual", *base]).exit_code
        == 0
    )
    refused = runner.invoke(app, ["schedule", "set", "every 1d", *base])
    assert refused.exit_code == 2
    assert "physical dice" in refused.output


def test_a_deadline_in_the_past_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    runner = CliRunner()
    base = ["--db", db]
    assert runner.invoke(app, ["new", "d", "--players", "red,blue", *base]).exit_code == 0
    refused = runner.invoke(app, ["turn", "deadline", "2000-01-01T00:00", *base])
    assert refused.exit_code == 2
    assert "has passed already" in refused.output
    assert "--past" in refused.output


# ---------------------------------------------------------------- the Done-when run


def ended(log: list[RecordedEvent]) -> Counter[int]:
    return Counter(e.event.turn for e in log if isinstance(e.event, TurnEnded))


class Trio:
    """The three players and the umpire of the hosted campaign, acting through the service."""

    def __init__(
        self, db: str, map_file: Path, seed: str = "hosted-0", clock: FixedClock | None = None
    ) -> None:
        self.service = (
            CampaignService.open(db, create=True)
            if clock is None
            else CampaignService.open(db, clock=clock, create=True)
        )
        plan = plan_campaign("trio", PLAYERS, seed=seed, map_spec=str(map_file), battle_rules="ft2")
        self.service.new_campaign(plan)
        self.lineage: Lineage = self.service.target("trio")

    @property
    def now(self) -> CampaignState:
        return self.service.load(self.lineage)

    def hand_in(self, player: str, final: bool, move: tuple[str, str] | None = None) -> None:
        text = self.service.orders_template(self.lineage, player)
        if move is not None:
            unit, to = move
            text = orders_with_move(text, unit, to)
        self.service.submit_orders(self.lineage, player, text)
        if final:
            self.service.mark_final(self.lineage, player)

    def log(self) -> list[RecordedEvent]:
        return self.service.log(self.lineage)


def orders_with_move(template: str, unit: str, to: str) -> str:
    """Return the template with `unit`'s move replaced by one to `to`, engaging there."""
    moved = f'moves]]\nunit = "{unit}"\nto = "{to}"\norder = "engage"\n'
    return "\n[[".join(
        moved if block.startswith("moves]]") and f'unit = "{unit}"' in block else block
        for block in template.split("\n[[")
    )


@dataclass
class HostedRun:
    """What a hosted campaign's run left: its log, what arrived where, and the outbox."""

    log: list[RecordedEvent]
    email_keys: list[str]
    hook_keys: list[str]
    battle: str
    deadline_2: datetime | None
    outbox: list[Notification]
    starts: int


def all_sent(outbox: Outbox, prefix: str) -> bool:
    """Whether the outbox holds notifications keyed `prefix...`, every one marked sent (so
    delivered: the mark follows the server's acceptance)."""
    queued = [n for n in outbox.all("trio") if n.key.startswith(prefix)]
    return bool(queued) and all(n.sent_at is not None for n in queued)


def run_hosted_campaign(tmp_path: Path) -> HostedRun:
    """Host the trio campaign for four turns, its players acting as the Done-when says."""
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    db = str(tmp_path / "hosted.db")
    trio = Trio(db, map_file)
    outbox = Outbox(trio.service.store)
    with smtp_server() as (mail, smtp_port), webhook_server() as (hooks, hook_port):
        hook = f"http://127.0.0.1:{hook_port}"
        outbox.set_contact("trio", "red", "red@trio.test", None)
        outbox.set_contact("trio", "blue", "blue@trio.test", f"{hook}/blue")
        outbox.set_contact("trio", "green", None, f"{hook}/green")
        outbox.set_contact("trio", "umpire", "umpire@trio.test", None)
        schedule = parse_schedule("every 12s", grace_seconds=1, remind_seconds=4, battles="table")
        set_schedule(trio.service, trio.lineage, schedule)
        host = HostProcess(db, smtp_port, tmp_path / "host.log")
        host.start()

        def turn_open(turn: int) -> bool:
            now = trio.now
            return now.turn == turn and now.deadline is not None

        try:
            # Turn 1: red and blue hand in orders but never mark them final; green is absent.
            wait_for("turn 1's deadline", lambda: turn_open(1), host=host)
            trio.hand_in("red", final=False)
            trio.hand_in("blue", final=False)
            wait_for("turn 2", lambda: turn_open(2), host=host)
            # Turn 2: everyone final at once: it resolves early, long before its deadline.
            deadline_2 = trio.now.deadline
            for player in PLAYERS:
                trio.hand_in(player, final=True)
            wait_for("turn 3", lambda: turn_open(3), host=host)
            # Turn 3: red and blue engage at Alpha; all final; the battle goes to the table.
            trio.hand_in("red", final=True, move=("red-W1", "0201"))
            trio.hand_in("blue", final=True, move=("blue-W1", "0201"))
            trio.hand_in("green", final=True)
            # Killed while the turn waits for the table, once the outbox has marked the
            # umpire's message sent: a kill between the server's acceptance and that mark may
            # send it again (the random-kill test below covers that window).
            wait_for("the umpire told of the battle", lambda: all_sent(outbox, "wait/"), host=host)
            host.kill_9()
            (battle,) = trio.now.pending_battles
            # Fought on the table: blue-W1 lost, so no battle is left at Alpha for turn 4.
            blue_lost = (ShipResult(unit="blue-W1", fate="destroyed"),)
            trio.service.record_battle(trio.lineage, battle, blue_lost)
            host.start()
            wait_for("turn 4", lambda: turn_open(4), host=host)
            wait_for(
                "turn 4's packages", lambda: all_sent(outbox, "package/trio/main/t4/"), host=host
            )
            host.kill_9()  # killed again, just after the packages went out
            host.start()
            # Turn 4: only red hands in orders, not final; blue and green are absent.
            trio.hand_in("red", final=False)
            wait_for("turn 5", lambda: turn_open(5), host=host)
            wait_for(
                "turn 5's packages",
                lambda: "package/trio/main/t5/green" in hooks.keys("/green"),
                host=host,
            )
            # The last turn's other messages may still be on their way: stopped before they
            # went, they would wait in the outbox for the next start (nothing lost), but this
            # run checks that every one went.
            wait_for("the outbox sent", lambda: all_sent(outbox, ""), host=host)
        finally:
            host.stop()
        run = HostedRun(
            log=trio.log(),
            email_keys=mail.keys(),
            hook_keys=hooks.part_keys(),
            battle=battle,
            deadline_2=deadline_2,
            outbox=outbox.all("trio"),
            starts=host.starts,
        )
    trio.service.close()
    return run


@pytest.mark.slow
def test_the_host_runs_four_turns_of_a_hosted_campaign(tmp_path: Path) -> None:
    """Issue 18, Done when: one turn at its deadline with green absent (held position), one
    early when all are final, one waits for a battle on the table; every player gets his
    package of every turn and one reminder a turn he was not final in; the host is killed
    (`kill -9`) twice and restarted, and nothing is lost or sent twice."""
    run = run_hosted_campaign(tmp_path)
    check_each_turn_resolved_once_for_its_reason(run)
    check_nothing_lost_or_sent_twice(run)


def check_each_turn_resolved_once_for_its_reason(run: HostedRun) -> None:
    log = run.log
    assert ended(log) == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}
    acts = [(e.event.turn, e.event.action) for e in log if isinstance(e.event, HostActed)]
    assert acts == [
        (1, "deadline"),
        (1, "resolve"),
        (2, "deadline"),
        (2, "resolve"),
        (3, "deadline"),
        (3, "resolve"),
        (3, "wait"),
        (3, "resolve"),
        (4, "deadline"),
        (4, "resolve"),
        (5, "deadline"),
    ]
    reasons = {
        (e.event.turn, e.event.action): e.event.reason
        for e in log
        if isinstance(e.event, HostActed)
    }
    assert "deadline" in reasons[(1, "resolve")]
    assert "final" in reasons[(2, "resolve")]
    assert "table" in reasons[(3, "wait")]
    turn_2_end = next(e for e in log if isinstance(e.event, TurnEnded) and e.event.turn == 2)
    assert run.deadline_2 is not None
    assert turn_2_end.recorded_at < run.deadline_2  # early: all were final
    # The absent players' policy (hold) applied: green in turn 1; blue and green in turn 4.
    absent = sorted(
        (e.event.turn, e.event.player, e.event.decision)
        for e in log
        if isinstance(e.event, AbsentPlayer)
    )
    assert absent == [
        (1, "green", "held position"),
        (4, "blue", "held position"),
        (4, "green", "held position"),
    ]
    assert sum(isinstance(e.event, OrdersMarkedFinal) for e in log) == 6


def check_nothing_lost_or_sent_twice(run: HostedRun) -> None:
    # Every key arrived once by e-mail and once by webhook at most.
    assert [k for k, n in Counter(run.email_keys).items() if n > 1] == []
    assert [k for k, n in Counter(run.hook_keys).items() if n > 1] == []
    by_mail = set(run.email_keys)
    by_hook = {k.partition("#")[0] for k in run.hook_keys}
    for turn in range(1, 6):
        assert f"package/trio/main/t{turn}/red" in by_mail
        assert f"package/trio/main/t{turn}/blue" in by_mail & by_hook
        assert f"package/trio/main/t{turn}/green" in by_hook
    reminders = sorted(k for k in by_mail | by_hook if k.startswith("reminder/"))
    assert reminders == sorted(
        f"reminder/trio/main/t{turn}/{player}" for turn in (1, 4) for player in PLAYERS
    )
    receipts = [k for k in by_mail | by_hook if k.startswith("receipt/")]
    assert len(receipts) == 2 + 3 + 3 + 1  # one per orders file handed in
    waits = [k for k in by_mail if k.startswith("wait/")]
    assert len(waits) == 1
    assert waits[0].startswith("wait/trio/main/t3/")
    # Nothing lost: every notification queued was delivered; the host was started 3 times.
    assert all(n.sent_at is not None for n in run.outbox)
    assert run.starts == 3


@pytest.mark.postgres
@pytest.mark.slow
def test_two_hosts_on_one_postgres_database_resolve_each_turn_once(
    pg_url: str, tmp_path: Path
) -> None:
    """Issue 18, Done when: two `umpire host` processes on one database, polling as fast as
    they can, resolve each turn exactly once and send each notification once."""
    reset_postgres(pg_url)
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    trio = Trio(pg_url, map_file)
    outbox = Outbox(trio.service.store)
    with smtp_server() as (mail, smtp_port):
        for player in PLAYERS:
            outbox.set_contact("trio", player, f"{player}@trio.test", None)
        set_schedule(trio.service, trio.lineage, parse_schedule("every 2s", remind_seconds=1))
        hosts = [
            HostProcess(pg_url, smtp_port, tmp_path / f"host{i}.log", poll=0.05) for i in (1, 2)
        ]
        for host in hosts:
            host.start()
        try:
            wait_for(
                "turn 5",
                lambda: trio.now.turn == 5 and trio.now.deadline is not None,
                host=hosts[0],
            )
            wait_for(
                "turn 5's packages",
                lambda: "package/trio/main/t5/green" in mail.keys("green@trio.test"),
                host=hosts[1],
            )
            assert all(host.alive() for host in hosts)
        finally:
            for host in hosts:
                host.stop()
        keys = mail.keys()
    log = trio.log()
    trio.service.close()
    assert ended(log) == {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}
    resolves = Counter(
        e.event.turn for e in log if isinstance(e.event, HostActed) and e.event.action == "resolve"
    )
    # Turn 5's 2-second deadline may pass before both hosts are stopped (under load): a host
    # may then begin resolving it, once. No turn is ever resolved twice.
    assert {turn: n for turn, n in resolves.items() if turn <= 4} == {1: 1, 2: 1, 3: 1, 4: 1}
    assert set(resolves.values()) == {1}
    deadlines = Counter(e.event.turn for e in log if isinstance(e.event, DeadlineSet))
    assert {turn: n for turn, n in deadlines.items() if turn <= 5} == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
    assert set(deadlines.values()) == {1}
    assert [k for k, n in Counter(keys).items() if n > 1] == []
    assert {f"package/trio/main/t{t}/{p}" for t in range(1, 6) for p in PLAYERS} <= set(keys)
    # Neither host stumbled: a lost race is no failure (it is skipped and seen next pass).
    assert not [
        line for host in hosts for line in host.log.read_text().splitlines() if "fail" in line
    ]


# ---------------------------------------------------------------- orders by e-mail


def mail_in(maildir: Path, name: str, sender: str, orders: bytes | None, body: str = "") -> None:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "orders@trio.test"
    message["Subject"] = "orders"
    message.set_content(body or "my orders, attached")
    if orders is not None:
        message.add_attachment(orders, maintype="text", subtype="plain", filename="orders.toml")
    (maildir / "new" / name).write_bytes(message.as_bytes())


def test_orders_by_email_are_recorded_and_each_sender_answered_once(tmp_path: Path) -> None:
    """Issue 18: the host reads a Maildir of signed orders files, records them as the inbox
    does, answers each sender with the verdict (once, however often it passes), and tells the
    umpire of a refused file."""
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    trio = Trio(str(tmp_path / "mail.db"), map_file)
    maildir = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    secret = PlayerSecrets(trio.service.store).issue("trio", "red")
    outbox = Outbox(trio.service.store)
    outbox.set_contact("trio", "umpire", "umpire@trio.test", None)
    template = trio.service.orders_template(trio.lineage, "red").encode()
    signed = signing.sign(template, secret, "trio", "red", 1)
    forged = signing.sign(template, "not-red's-secret", "trio", "red", 2)
    mail_in(maildir, "1.red", "Red <red@home.test>", signed)
    mail_in(maildir, "2.mallory", "mallory@evil.test", forged)
    mail_in(maildir, "3.nobody", "lost@home.test", None, body="hello, no orders here")
    with smtp_server() as (mail, smtp_port):
        smtp = SmtpSettings(host="127.0.0.1", port=smtp_port, security="none")
        host = Host(trio.service, HostSettings(smtp=smtp, maildir=maildir), log=lambda _: None)
        host.run_once()
        host.run_once()  # a second pass answers nobody again
        wait_for("the replies", lambda: len(mail.messages) >= 4)
        subjects = sorted((str(m["To"]), str(m["Subject"])) for m in mail.messages)
    submitted = trio.service.turn_status(trio.lineage).submitted
    assert submitted == ("red",)
    assert subjects == [
        ("lost@home.test", "Your orders: refused"),
        ("mallory@evil.test", "Your orders: refused"),
        ("red@home.test", "Your orders: accepted"),
        ("umpire@trio.test", "trio: an orders file by e-mail was refused"),
    ]
    assert sorted(p.name for p in (maildir / "cur").iterdir()) == [
        "1.red:2,S",
        "2.mallory:2,S",
        "3.nobody:2,S",
    ]
    assert list((maildir / "new").iterdir()) == []
    trio.service.close()


# ---------------------------------------------------------------- one pass at a time


def hosted_in_process(tmp_path: Path, seed: str) -> tuple[Trio, FixedClock, Host]:
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    clock = FixedClock()
    trio = Trio("sqlite://", map_file, seed=seed, clock=clock)
    return trio, clock, Host(trio.service, HostSettings(), log=lambda _: None)


def test_the_engine_fights_the_battles_and_the_turn_goes_on(tmp_path: Path) -> None:
    trio, _, host = hosted_in_process(tmp_path, "hosted")
    set_schedule(trio.service, trio.lineage, parse_schedule("every 1d", battles="engine"))
    host.run_once()
    trio.hand_in("red", final=True, move=("red-W1", "0201"))
    trio.hand_in("blue", final=True, move=("blue-W1", "0201"))
    trio.hand_in("green", final=True)
    acts = host.run_once()
    acted = [act for act in acts if ": sent " not in act and " not sent: " not in act]
    done = [act.split(": ")[1].split(" ")[0] for act in acted]
    assert done == ["resolved", "battles", "resolved", "deadline"]
    fought = [e.event for e in trio.log() if isinstance(e.event, BattleFought)]
    assert [ev.source for ev in fought] == ["engine"]
    assert trio.now.turn == 2
    fight = next(
        e for e in trio.log() if isinstance(e.event, HostActed) and e.event.action == "fight"
    )
    assert fight.audience.encode() == "umpire"  # a battle is its sides' news, not everyone's
    trio.service.close()


def test_a_held_turn_does_not_resolve_at_its_deadline(tmp_path: Path) -> None:
    trio, clock, host = hosted_in_process(tmp_path, "held")
    set_schedule(trio.service, trio.lineage, parse_schedule("every 1h"))
    host.run_once()
    trio.service.hold_turn(trio.lineage, "a ruling on red's move")
    clock.now += timedelta(hours=2)
    assert host.run_once() == []
    assert trio.now.turn == 1
    trio.service.release_turn(trio.lineage)
    assert any("resolved" in act for act in host.run_once())
    assert trio.now.turn == 2
    trio.service.close()


# ---------------------------------------------------------------- delivery


def note(key: str = "package/trio/main/t1/red") -> Notification:
    return Notification(
        id=1,
        campaign="trio",
        key=key,
        recipient="red",
        kind="package",
        subject="trio: turn 1",
        body="Orders for turn 1 are due by 2026-11-28 18:00 UTC.",
        attachments={"report.md": "# red", "map.svg": "<svg/>"},
    )


def test_email_goes_by_starttls_with_a_login(tmp_path: Path) -> None:
    tls, cert = self_signed(tmp_path)
    with smtp_server(tls=tls, logins={"umpire": "s3cret"}) as (mail, port):
        settings = SmtpSettings(
            host="127.0.0.1",
            port=port,
            security="starttls",
            user="umpire",
            password="s3cret",
            cafile=str(cert),
            sender="umpire@trio.test",
        )
        send_email(settings, "red@trio.test", note(), web_url="https://umpire.test/")
        untrusted = msgspec.structs.replace(settings, cafile=None)
        with pytest.raises(DeliveryError, match="CERTIFICATE_VERIFY_FAILED"):
            send_email(untrusted, "red@trio.test", note())
        (message,) = mail.messages
    assert message["X-Umpire-Key"] == "package/trio/main/t1/red"
    assert message["Message-ID"] == message_id("package/trio/main/t1/red")
    names = sorted(part.get_filename() for part in message.iter_attachments())
    assert names == ["map.svg", "report.md"]
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    assert "due by 2026-11-28 18:00 UTC" in body.get_content()
    assert "https://umpire.test/" in body.get_content()


def test_a_webhook_gets_discords_json_and_a_failure_is_retried(tmp_path: Path) -> None:
    with webhook_server() as (hooks, port):
        post_webhook(f"http://127.0.0.1:{port}/hook", note())
        ((path, key, body),) = hooks.posts
    assert (path, key) == ("/hook", "package/trio/main/t1/red")
    assert body["content"].startswith("**trio: turn 1**\nOrders for turn 1 are due by")
    assert len(body["content"]) <= 2000
    with pytest.raises(DeliveryError, match="webhook"):
        post_webhook(f"http://127.0.0.1:{free_port()}/gone", note())
    # Queued and failed: the row stays unsent and is claimed again once its lease runs out.
    clock = FixedClock()
    service = CampaignService.open("sqlite://", clock=clock, create=True)
    service.new_campaign(plan_campaign("trio", PLAYERS, seed="s"))
    outbox = Outbox(service.store)
    outbox.set_contact("trio", "red", None, f"http://127.0.0.1:{free_port()}/gone")
    assert outbox.enqueue("trio", "k/1", "red", "package", "s", "b")
    assert not outbox.enqueue("trio", "k/1", "red", "package", "s", "b")  # queued once
    host = Host(service, HostSettings(lease_seconds=60), log=lambda _: None)
    assert host.deliver() == []
    assert outbox.claim(timedelta(seconds=60)) == []  # within its lease: left alone
    clock.now += timedelta(seconds=61)
    (again,) = outbox.claim(timedelta(seconds=60))
    assert (again.key, again.attempts) == ("k/1", 2)
    assert again.last_error is not None
    assert "webhook" in again.last_error
    service.close()


def unfenced(contents: list[str]) -> str:
    """A notification's messages read back as one text: each message's first line (its
    subject and part) and the code fences around the template dropped."""
    lines = [line for content in contents for line in content.split("\n")[1:]]
    return "\n".join(line for line in lines if line not in ("```toml", "```"))


def test_a_package_by_webhook_is_the_report_and_the_template_whole(tmp_path: Path) -> None:
    """The 004 trial: red's webhook message was titled "your report and orders template" but
    held the report alone, cut at 2000 characters mid-Battles. A message that long goes as
    several, each within Discord's limit, numbered; the template goes in code blocks."""
    trio, _, host = hosted_in_process(tmp_path, "hook")
    outbox = Outbox(trio.service.store)
    with webhook_server() as (hooks, port):
        outbox.set_contact("trio", "red", None, f"http://127.0.0.1:{port}/red")
        set_schedule(trio.service, trio.lineage, parse_schedule("every 1d"))
        acts = host.run_once()
    key = "package/trio/main/t1/red"
    (package,) = [n for n in outbox.all("trio") if n.key == key]
    assert package.subject.endswith("your report and orders template")
    contents = hooks.contents(key)
    count = len(contents)
    assert count > 1
    assert all(len(content) <= WEBHOOK_LIMIT for content in contents)
    assert [c.split("\n")[0] for c in contents] == [
        f"**{package.subject}** ({n}/{count})" for n in range(1, count + 1)
    ]
    assert hooks.parts == [f"{n}/{count}" for n in range(1, count + 1)]
    whole = unfenced(contents)
    assert package.body in whole
    assert package.attachments["template.toml"] in whole
    assert whole.index(package.body) < whole.index(package.attachments["template.toml"])
    assert "map.svg" in contents[-1]  # named: a chat message cannot show it
    assert f"trio: sent {key} by webhook ({count} messages)" in acts
    trio.service.close()


def test_a_player_without_a_contact_is_named_with_how_to_give_him_one(tmp_path: Path) -> None:
    trio, _, host = hosted_in_process(tmp_path, "nobody")
    set_schedule(trio.service, trio.lineage, parse_schedule("every 1d"))
    acts = host.run_once()
    assert not [act for act in acts if "by nobody" in act]
    assert (
        "trio: package/trio/main/t1/green not sent: green has no contact; give him one with "
        "`umpire player contact green --email ADDRESS` (or --webhook URL)"
    ) in acts
    trio.service.close()


def test_a_receipts_key_counts_only_his_own_orders(tmp_path: Path) -> None:
    """A notification's key goes to its player (X-Umpire-Key): a receipt's named the branch's
    version, which counts every event hidden from him, a rival's orders among them."""
    trio, _, host = hosted_in_process(tmp_path, "keys")
    set_schedule(trio.service, trio.lineage, parse_schedule("every 1d"))
    host.run_once()
    trio.hand_in("red", final=False)
    trio.hand_in("blue", final=False)
    trio.hand_in("blue", final=False)
    trio.hand_in("red", final=False)
    host.run_once()
    keys = [n.key for n in Outbox(trio.service.store).all("trio") if n.kind == "receipt"]
    assert sorted(keys) == [
        "receipt/trio/main/t1/blue/1",
        "receipt/trio/main/t1/blue/2",
        "receipt/trio/main/t1/red/1",
        "receipt/trio/main/t1/red/2",
    ]
    trio.service.close()


def test_a_long_line_is_cut_and_a_busy_webhook_waited_for() -> None:
    """A line longer than a message is cut (nothing lost); Discord's 429 is waited out as its
    Retry-After says and the message sent again, not the whole notification failed."""
    long = msgspec.structs.replace(note(), body="x" * 4500)
    with webhook_server(busy=2) as (hooks, port):
        parts = post_webhook(f"http://127.0.0.1:{port}/hook", long)
    contents = hooks.contents(long.key)
    assert parts == len(contents) == 3
    assert hooks.refused == 2
    assert all(len(content) <= WEBHOOK_LIMIT for content in contents)
    assert "x" * 4500 in "".join(c.partition("\n")[2] for c in contents).replace("\n", "")


def test_a_host_killed_between_announcing_and_acting_acts_once_without_announcing_again(
    tmp_path: Path,
) -> None:
    """Issue 18: a `kill -9` after the `host_acted` and before the resolution: the next host
    finds the announcement at the head and resolves, once, under it."""
    trio, clock, host = hosted_in_process(tmp_path, "crash")
    set_schedule(trio.service, trio.lineage, parse_schedule("every 1h"))
    host.run_once()
    clock.now += timedelta(hours=2)
    state = trio.now
    decision = decide(state, parse_schedule("every 1h"), clock.now, None)
    assert decision is not None
    host._announce(trio.lineage, state, decision, Audience.everyone())  # then the crash
    restarted = Host(trio.service, HostSettings(), log=lambda _: None)
    assert any("resolved" in act for act in restarted.run_once())
    log = trio.log()
    assert ended(log) == {0: 1, 1: 1}
    resolves = [e for e in log if isinstance(e.event, HostActed) and e.event.action == "resolve"]
    assert len(resolves) == 1
    trio.service.close()


@pytest.mark.slow
def test_kill_9_at_any_moment_loses_nothing_and_resolves_each_turn_once(tmp_path: Path) -> None:
    """Issue 18: the host killed at random moments (seeded delays) through four turns of
    absent players: each turn resolves once, each deadline is set once, every notification
    queued is delivered, and a message goes twice only if a kill fell between the server's
    acceptance and the outbox's mark (at most one per kill, carrying the same key)."""
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    db = str(tmp_path / "killed.db")
    trio = Trio(db, map_file, seed="killed")
    outbox = Outbox(trio.service.store)
    delays = random.Random(18)
    kills = 0
    with smtp_server() as (mail, smtp_port):
        for player in PLAYERS:
            outbox.set_contact("trio", player, f"{player}@trio.test", None)
        set_schedule(trio.service, trio.lineage, parse_schedule("every 2s", remind_seconds=1))
        host = HostProcess(db, smtp_port, tmp_path / "host.log", poll=0.05)
        host.start()
        try:
            while kills < 6 and trio.now.turn < 5:
                time.sleep(delays.uniform(1.0, 2.5))  # the process takes about 1 s to start
                host.kill_9()
                kills += 1
                host.start()
            wait_for(
                "turn 5's packages",
                lambda: "package/trio/main/t5/green" in mail.keys("green@trio.test"),
                host=host,
            )
            wait_for(
                "every notification delivered",
                lambda: all(n.sent_at is not None for n in outbox.all("trio")),
                host=host,
            )
        finally:
            host.stop()
        keys = mail.keys()
    log = trio.log()
    trio.service.close()
    assert kills >= 3
    turns = ended(log)
    assert set(turns) >= {0, 1, 2, 3, 4}
    assert set(turns.values()) == {1}  # none twice
    deadlines = Counter(e.event.turn for e in log if isinstance(e.event, DeadlineSet))
    assert set(deadlines) >= {1, 2, 3, 4, 5}
    assert set(deadlines.values()) == {1}
    assert {f"package/trio/main/t{t}/{p}" for t in range(1, 6) for p in PLAYERS} <= set(keys)
    twice = sum(n - 1 for n in Counter(keys).values())
    assert twice <= kills


def test_the_last_turn_ends_with_each_players_final_report(tmp_path: Path) -> None:
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    clock = FixedClock()
    service = CampaignService.open("sqlite://", clock=clock, create=True)
    service.new_campaign(
        plan_campaign("trio", PLAYERS, seed="last", map_spec=str(map_file), max_turns=1)
    )
    lineage = service.target("trio")
    set_schedule(service, lineage, parse_schedule("every 1h"))
    host = Host(service, HostSettings(), log=lambda _: None)
    host.run_once()
    clock.now += timedelta(hours=2)
    host.run_once()
    assert service.load(lineage).finished
    assert host.run_once() == []  # nothing more to do
    finals = [n for n in Outbox(service.store).all("trio") if "final report" in n.subject]
    assert sorted(n.recipient for n in finals) == sorted(PLAYERS)
    assert all("template.toml" not in n.attachments for n in finals)
    service.close()


def test_orders_by_email_are_read_from_an_imap_mailbox(tmp_path: Path) -> None:
    """Issue 18: unseen messages of an IMAP mailbox (a real server, pymap) are spooled into
    the Maildir once each, flagged seen, and recorded as the inbox records them."""
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    trio = Trio(str(tmp_path / "imap.db"), map_file)
    secret = PlayerSecrets(trio.service.store).issue("trio", "red")
    template = trio.service.orders_template(trio.lineage, "red").encode()
    message = EmailMessage()
    message["From"] = "red@home.test"
    message["Subject"] = "orders"
    message.set_content("attached")
    signed = signing.sign(template, secret, "trio", "red", 1)
    message.add_attachment(signed, maintype="text", subtype="plain", filename="red.toml")
    maildir = tmp_path / "spool"
    with imap_server("umpire", "s3cret") as imap_port, smtp_server() as (mail, smtp_port):
        with imaplib.IMAP4("127.0.0.1", imap_port) as client:
            client.login("umpire", "s3cret")
            client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())
        imap = ImapSettings(
            host="127.0.0.1", port=imap_port, user="umpire", password="s3cret", security="none"
        )
        smtp = SmtpSettings(host="127.0.0.1", port=smtp_port, security="none")
        settings = HostSettings(smtp=smtp, maildir=maildir, imap=imap)
        host = Host(trio.service, settings, log=lambda _: None)
        first = host.run_once()
        assert host.run_once() == []  # seen: not fetched again
        # A host killed after spooling and before flagging: the message is unseen again, and
        # the next pass finds its name taken in the Maildir.
        with imaplib.IMAP4("127.0.0.1", imap_port) as client:
            client.login("umpire", "s3cret")
            client.select("INBOX")
            client.store("1", "-FLAGS", "(\\Seen)")
            assert client.search(None, "UNSEEN")[1] == [b"1"]
        assert host.run_once() == []
        wait_for("the reply", lambda: len(mail.messages) == 1)
        (reply,) = mail.messages
    assert sum("fetched by IMAP" in act for act in first) == 1
    assert trio.service.turn_status(trio.lineage).submitted == ("red",)
    assert (reply["To"], reply["Subject"]) == ("red@home.test", "Your orders: accepted")
    trio.service.close()
