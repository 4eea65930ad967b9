"""A campaign's schedule (issue 18): when each turn's orders are due, as a pure function.

Two kinds, as play-by-e-mail hosts run them:

- weekly: `mon,thu 20:00` in a time zone (`Europe/Berlin`): the next deadline is the first
  of those days and that wall-clock time strictly after the turn opened;
- a fixed period: `every 3d` (or `12h`, `30m`, `45s`): the next deadline is that long after
  the turn opened.

`parse_schedule` checks the umpire's text and says what is accepted; `next_deadline` is the
only place a deadline is computed from a schedule. Times are aware datetimes, returned in UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import ScheduleSet
from campaign.storetypes import Lineage, Store

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
BATTLE_MODES = ("engine", "table")
_PERIOD = re.compile(r"^(?:every\s+)?(\d{1,6})\s*([smhd])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_WEEKLY = re.compile(r"^([a-z,]+)\s+(\d{1,2}):(\d{2})$")
ACCEPTED = (
    "a schedule is days and a time, `mon,thu 20:00`, or a period, `every 3d` "
    "(s, m, h or d: `every 12h`, `every 90s`)"
)


class Schedule(msgspec.Struct, frozen=True, kw_only=True):
    """A campaign's schedule and the host's settings that go with it (`schedule_set`)."""

    spec: str  # normalised: `mon,thu 20:00` or `every 259200s`
    tz: str = "UTC"
    grace_seconds: int = 0  # after every player marked final, before resolving early
    remind_seconds: int = 0  # the reminder goes this long before the deadline (0: none)
    battles: str = "engine"  # who fights a turn's battles: the engine, or a table (the umpire)
    holidays: int = 0  # holiday turns each player may take

    @property
    def period(self) -> timedelta | None:
        """Return a fixed period's length (None for a weekly schedule)."""
        match = _PERIOD.match(self.spec)
        return timedelta(seconds=int(match[1]) * _UNIT_SECONDS[match[2]]) if match else None


def schedule_of(ev: ScheduleSet) -> Schedule:
    """Return the schedule a `schedule_set` event set."""
    return Schedule(
        spec=ev.spec,
        tz=ev.tz,
        grace_seconds=ev.grace_seconds,
        remind_seconds=ev.remind_seconds,
        battles=ev.battles,
        holidays=ev.holidays,
    )


def parse_schedule(
    text: str,
    tz: str = "UTC",
    grace_seconds: int = 0,
    remind_seconds: int = 0,
    battles: str = "engine",
    holidays: int = 0,
) -> Schedule:
    """Check a schedule as the umpire writes it and return it normalised.

    >>> parse_schedule("Thu,MON 20:00", tz="Europe/Berlin").spec
    'mon,thu 20:00'
    >>> parse_schedule("every 3d").spec
    'every 259200s'

    Raises:
        InvalidInputError: the text, time zone, delays or battle mode are not accepted.
    """
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # only where a zone is used

    spec = " ".join(text.lower().split())
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInputError(
            f"unknown time zone {tz!r}: give an IANA name such as Europe/Berlin or UTC"
        ) from None
    if battles not in BATTLE_MODES:
        raise InvalidInputError(f"battles {battles!r} must be one of {', '.join(BATTLE_MODES)}")
    for name, value in (("grace", grace_seconds), ("reminder", remind_seconds)):
        if not 0 <= value <= 30 * 86400:
            raise InvalidInputError(f"the {name} delay must be 0 to 30 days, not {value} s")
    if not 0 <= holidays <= 99:
        raise InvalidInputError(f"--holidays must be 0 to 99 turns, not {holidays}")
    period = _PERIOD.match(spec)
    if period:
        seconds = int(period[1]) * _UNIT_SECONDS[period[2]]
        if seconds < 1:
            raise InvalidInputError(f"a period must be at least 1 s, not {text!r}: {ACCEPTED}")
        spec = f"every {seconds}s"
    else:
        weekly = _WEEKLY.match(spec)
        if not weekly:
            raise InvalidInputError(f"schedule {text!r} is not understood: {ACCEPTED}")
        days = weekly[1].split(",")
        unknown = [d for d in days if d not in DAYS]
        if unknown or not days:
            raise InvalidInputError(
                f"unknown day {unknown[0] if unknown else ''!r} in {text!r}: days are "
                f"{', '.join(DAYS)}"
            )
        hour, minute = int(weekly[2]), int(weekly[3])
        if hour > 23 or minute > 59:
            raise InvalidInputError(
                f"time {weekly[2]}:{weekly[3]} is not a time of day (00:00-23:59)"
            )
        ordered = sorted(set(days), key=DAYS.index)
        spec = f"{','.join(ordered)} {hour:02d}:{minute:02d}"
    return Schedule(
        spec=spec,
        tz=tz,
        grace_seconds=grace_seconds,
        remind_seconds=remind_seconds,
        battles=battles,
        holidays=holidays,
    )


def next_deadline(schedule: Schedule, after: datetime) -> datetime:
    """Return the schedule's first deadline strictly after `after`, in UTC.

    A weekly time that does not exist on a day (a spring-forward gap) is taken as zoneinfo
    reads it (the wall-clock time with the offset before the change).

    >>> s = parse_schedule("mon,thu 20:00", tz="Europe/Berlin")
    >>> next_deadline(s, datetime(2026, 11, 26, 12, 0, tzinfo=UTC)).isoformat()
    '2026-11-26T19:00:00+00:00'
    >>> next_deadline(s, datetime(2026, 11, 26, 19, 0, tzinfo=UTC)).isoformat()
    '2026-11-30T19:00:00+00:00'
    """
    period = schedule.period
    if period is not None:
        return (after + period).astimezone(UTC)
    days_text, clock = schedule.spec.split(" ")
    days = {DAYS.index(d) for d in days_text.split(",")}
    hour, minute = (int(part) for part in clock.split(":"))
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(schedule.tz)
    local: date = after.astimezone(zone).date()
    for offset in range(8):
        day = local + timedelta(days=offset)
        if day.weekday() not in days:
            continue
        candidate = datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)
        if candidate > after:
            return candidate
    raise AssertionError("a weekly schedule always has a day within eight days")  # pragma: no cover


def describe(schedule: Schedule) -> str:
    """Return the schedule in words, for status and notifications.

    >>> describe(parse_schedule("every 2d", grace_seconds=600))
    'every 2 days (UTC); early 10 min after all orders are final; battles by the engine'
    """
    period = schedule.period
    if period is not None:
        when = f"every {_duration(int(period.total_seconds()))}"
    else:
        when = schedule.spec
    parts = [f"{when} ({schedule.tz})"]
    if schedule.grace_seconds:
        parts.append(f"early {_duration(schedule.grace_seconds)} after all orders are final")
    if schedule.remind_seconds:
        parts.append(f"reminder {_duration(schedule.remind_seconds)} before the deadline")
    parts.append("battles by the engine" if schedule.battles == "engine" else "battles on a table")
    if schedule.holidays:
        parts.append(f"{schedule.holidays} holiday turns each")
    return "; ".join(parts)


def due_words(deadline: datetime) -> str:
    """Say a deadline as every page and message does: to the second when it has seconds.

    A deadline set by `every 1d` from when the schedule was set falls at any second, and
    "09:12" for 09:12:30 misled near it (the 004 trial): read "by 09:12" as the minute's
    end, a player sending at 09:12:45 was refused. Rounding down would have been safe but
    still not the time the umpire enforces; so the time is told exactly, its seconds when it
    has any, and a deadline on the minute reads as it always did. A fraction of a second is
    dropped (told a little early, never late).

    >>> due_words(datetime(2026, 11, 28, 9, 12, 30, 500, tzinfo=UTC))
    '2026-11-28 09:12:30 UTC'
    >>> due_words(datetime(2026, 11, 28, 18, 0, tzinfo=UTC))
    '2026-11-28 18:00 UTC'
    """
    when = deadline.astimezone(UTC)
    shown = "%Y-%m-%d %H:%M:%S" if when.second or when.microsecond else "%Y-%m-%d %H:%M"
    return f"{when:{shown}} UTC"


def check_future(deadline: datetime, now: datetime) -> None:
    """Refuse a deadline that has passed already.

    Raises:
        InvalidInputError: `deadline` is not after `now`.
    """
    if deadline <= now:
        raise InvalidInputError(
            f"the deadline {due_words(deadline)} has passed already (it is now "
            f"{due_words(now)}): give a time to come, or --past to close the turn "
            "to orders at once"
        )


def parse_duration(text: str, what: str) -> int:
    """Read `10m`, `2h`, `3d`, `45s` or plain seconds; return seconds.

    >>> parse_duration("10m", "grace")
    600

    Raises:
        InvalidInputError: not a duration.
    """
    spec = text.strip().lower()
    if spec.isdigit():
        return int(spec)
    match = _PERIOD.match(spec)
    if not match:
        raise InvalidInputError(
            f"the {what} {text!r} is not a duration: give 45s, 10m, 2h or 3d (or seconds)"
        )
    return int(match[1]) * _UNIT_SECONDS[match[2]]


def _duration(seconds: int) -> str:
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if unit == 'day' and count > 1 else ''}"
    return f"{seconds} s"


def current_schedule(store: Store, lineage: Lineage) -> Schedule | None:
    """Return the campaign's schedule, the last one set (None: not hosted)."""
    found = None
    for recorded in store.read(lineage, types=[ScheduleSet.TYPE]):
        ev = recorded.event
        if isinstance(ev, ScheduleSet):
            found = schedule_of(ev)
    return found


def orders_closed(deadline: datetime | None, now: datetime) -> bool:
    """Whether the turn's orders are closed at `now`: its deadline, if set, has passed."""
    return deadline is not None and now > deadline
