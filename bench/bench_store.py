#!/usr/bin/env python
"""Benchmark our event store against the `eventsourcing` library on SQLite and PostgreSQL.

One seeded, campaign-sized workload (100,000 events by default) is appended in realistic
batches and then replayed, through our `campaign.store.EventStore` and through
`eventsourcing`'s application recorders, each on a fresh database, in the same run. The
script prints events/s for append and replay and our ratio to the library (target: >= 1.0).

What each side does inside the timed region (domain objects are built before it, for both):

append, ours: per batch, `EventStore.append(lineage, expected_version, batch)`: one write
    transaction (SQLite `BEGIN IMMEDIATE`, PostgreSQL `LOCK TABLE events`), the head lookup
    for the optimistic-concurrency check and the previous hash, canonical JSON of each payload
    (msgspec), the SHA-256 hash chain, the INSERT, the positions back.
append, eventsourcing: per batch, `Mapper.to_stored_event` for each event (its JSONTranscoder,
    with transcodings for Roll and Audience), then `recorder.insert_events(stored_events)`:
    one transaction (SQLite: an INSERT per event; PostgreSQL: LOCK TABLE, NOTIFY, one INSERT
    from `unnest` of a composite array, pipelined). Optimistic concurrency comes from its
    primary key; it keeps no hash chain.
replay, ours: `campaign.projections.fold(store.read(lineage))`: every row streamed, envelope
    and payload decoded into `RecordedEvent`s, folded into `CampaignState`.
replay, eventsourcing: `recorder.select_events(originator_id)` (fetches every row),
    `Mapper.to_domain_event` for each, folded into the same `CampaignState` by the same
    transitions. The two replays must end in equal states, or the run fails.

Run:  .venv/bin/python bench/bench_store.py [--events N] [--backends sqlite,postgres]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import math
import os
import random
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any, Literal

import msgspec
import psycopg
import sqlalchemy as sa
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import (
    ApplicationRecorder,
    DatetimeAsISO,
    DecimalAsStr,
    JSONTranscoder,
    Mapper,
    Transcoding,
    UUIDAsHex,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteDatastore,
)
from psycopg import sql

from campaign.dice import Roll
from campaign.events import (
    UMPIRE,
    Audience,
    CampaignCreated,
    DiceRolled,
    Event,
    NewEvent,
    TurnEnded,
    UmpireNoted,
)
from campaign.projections import CampaignState, fold, roll_subjects
from campaign.store import EventStore

Backend = Literal["sqlite", "postgres"]
Synchronous = Literal["normal", "full"]
BACKENDS: tuple[Backend, ...] = ("sqlite", "postgres")
STORES = ("umpire", "es")

PLAYERS = ("red", "blue", "green", "yellow")
PHASES = ("orders", "movement", "exploration", "combat", "production", "colonisation")
MAX_TURNS = 44
MAX_BATCH = 50
_NOTE_TEXT = """
    fleet scout warship colony transport star system planet hex jump range supply intercepted
    retreats holds advances reports sighting of enemy near the border with escorts damaged
    destroyed captured blockade industry population growth research ruling: under 004 section
    combat resolves before colonisation and the umpire notes that a lost die roll cannot be
    retaken while orders stand
"""
WORDS = tuple(_NOTE_TEXT.split())
REPLAY_CHUNK = 10_000


# ---------------------------------------------------------------- the workload


@dataclass(frozen=True)
class Workload:
    """The batches one campaign appends, in order: identical for both stores."""

    seed: int
    batches: tuple[tuple[NewEvent, ...], ...]
    events: int
    payload_bytes: int
    mix: dict[str, int]


def _audience(rng: random.Random) -> Audience:
    r = rng.random()
    if r < 0.5:
        return Audience.everyone()
    if r < 0.7:
        return Audience.umpire_only()
    return Audience.players_(rng.sample(PLAYERS, rng.randint(1, 2)))


def _actor(rng: random.Random) -> str:
    return UMPIRE if rng.random() < 0.7 else rng.choice(PLAYERS)


def _event(rng: random.Random, turn: int, phase: str) -> Event:
    subject = f"fleet-{rng.randint(1, 240)}"
    if rng.random() < 0.6:
        dice = rng.randint(1, 6)
        return DiceRolled(
            reason=f"{phase}: {subject} {' '.join(rng.choices(WORDS, k=rng.randint(2, 8)))}",
            expression=f"{dice}d6",
            rolls=tuple(
                Roll(key=f"{turn}/{phase}/{subject}/{i}", sides=6, value=rng.randint(1, 6))
                for i in range(dice)
            ),
        )
    return UmpireNoted(text=" ".join(rng.choices(WORDS, k=rng.randint(6, 60))))


def make_workload(events: int, seed: int) -> Workload:
    """Build a campaign of exactly `events` events over 44 turns, in phase-sized batches.

    Batch sizes are triangular over 1..50 with mode 4: most commands append a handful of
    events, a busy combat phase dozens. Each turn walks the phases and ends with `TurnEnded`.
    """
    rng = random.Random(seed)
    created = CampaignCreated(
        name="bench", players=PLAYERS, seed_commitment="5e" * 32, max_turns=MAX_TURNS
    )
    batches: list[tuple[NewEvent, ...]] = [
        (NewEvent(event=created, audience=Audience.everyone(), turn=0),)
    ]
    total = 1
    per_turn = max(2, math.ceil((events - 1) / MAX_TURNS))
    turn = 1
    while total < events:
        in_turn = 0
        while in_turn < per_turn - 1 and total < events:
            phase = PHASES[in_turn * len(PHASES) // per_turn]
            size = min(
                int(rng.triangular(1, MAX_BATCH + 1, 4)),
                MAX_BATCH,
                per_turn - 1 - in_turn,
                events - total,
            )
            batches.append(
                tuple(
                    NewEvent(
                        event=_event(rng, turn, phase),
                        audience=_audience(rng),
                        turn=turn,
                        actor=_actor(rng),
                    )
                    for _ in range(size)
                )
            )
            total += size
            in_turn += size
        if total < events:
            ended = NewEvent(event=TurnEnded(turn=turn), audience=Audience.everyone(), turn=turn)
            batches.append((ended,))
            total += 1
            turn += 1
    mix: dict[str, int] = {}
    payload_bytes = 0
    encoder = msgspec.json.Encoder()
    for batch in batches:
        for new in batch:
            mix[new.event.TYPE] = mix.get(new.event.TYPE, 0) + 1
            payload_bytes += len(encoder.encode(new.event))
    return Workload(seed, tuple(batches), total, payload_bytes, mix)


# ---------------------------------------------------------------- eventsourcing's side


class EsEvent(DomainEvent):
    """Our envelope (audience, actor, game turn) as event state: the library has no columns."""

    audience: Audience
    actor: str
    game_turn: int


class EsCampaignCreated(EsEvent):
    name: str
    players: tuple[str, ...]
    seed_commitment: str
    dice_mode: str
    max_turns: int


class EsTurnEnded(EsEvent):
    turn: int


class EsDiceRolled(EsEvent):
    reason: str
    expression: str
    rolls: tuple[Roll, ...]


class EsUmpireNoted(EsEvent):
    text: str


ES_CLASSES: dict[type[Event], type[EsEvent]] = {
    CampaignCreated: EsCampaignCreated,
    TurnEnded: EsTurnEnded,
    DiceRolled: EsDiceRolled,
    UmpireNoted: EsUmpireNoted,
}


class RollAsDict(Transcoding):
    """A die roll, the way eventsourcing's JSONTranscoder stores a custom type."""

    type = Roll
    name = "roll"

    def encode(self, obj: Roll) -> dict[str, Any]:
        return {"key": obj.key, "sides": obj.sides, "value": obj.value, "source": obj.source}

    def decode(self, data: dict[str, Any]) -> Roll:
        return Roll(**data)


class AudienceAsStr(Transcoding):
    """An audience in its stored form, decoded back to an `Audience` as ours is."""

    type = Audience
    name = "audience"

    def encode(self, obj: Audience) -> str:
        return obj.encode()

    def decode(self, data: str) -> Audience:
        return Audience.decode(data)


def es_mapper() -> Mapper[uuid.UUID]:
    """Return the mapper an eventsourcing `Application` builds, plus our two custom types."""
    transcoder = JSONTranscoder()
    for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO()):
        transcoder.register(transcoding)
    transcoder.register(RollAsDict())
    transcoder.register(AudienceAsStr())
    return Mapper(transcoder=transcoder)


def es_batches(
    workload: Workload, originator_id: uuid.UUID, timestamp: datetime
) -> list[list[EsEvent]]:
    """Turn the workload into eventsourcing domain events (before timing, as ours are)."""
    result: list[list[EsEvent]] = []
    version = 0
    for batch in workload.batches:
        converted: list[EsEvent] = []
        for new in batch:
            version += 1
            state: dict[str, Any] = {
                "originator_id": originator_id,
                "originator_version": version,
                "timestamp": timestamp,
                "audience": new.audience,
                "actor": new.actor,
                "game_turn": new.turn,
            }
            es_class = ES_CLASSES[type(new.event)]
            # The peer keeps the fields it folds: fields our events gain later (with their
            # defaults, STYLE.md point 5) do not break it.
            fields = {
                name: value
                for name, value in msgspec.structs.asdict(new.event).items()
                if name in es_class.__annotations__
            }
            converted.append(es_class(**state, **fields))
        result.append(converted)
    return result


def es_fold(events: Iterable[Any], state: CampaignState | None = None) -> CampaignState:
    """`campaign.projections.fold`, transition for transition, over eventsourcing's events."""
    replace = msgspec.structs.replace
    result = state if state is not None else CampaignState()
    for ev in events:
        match ev:
            case EsCampaignCreated():
                result = replace(
                    result,
                    name=ev.name,
                    created=True,
                    players=tuple(ev.players),
                    seed_commitment=ev.seed_commitment,
                    dice_mode=ev.dice_mode,
                    max_turns=ev.max_turns,
                )
            case EsTurnEnded():
                result = replace(result, turn=ev.turn + 1, roll_subjects=())
            case EsDiceRolled():
                result = replace(
                    result,
                    roll_subjects=result.roll_subjects + roll_subjects(ev.rolls),
                    dice_rolled=result.dice_rolled + len(ev.rolls),
                )
            case EsUmpireNoted():
                result = replace(result, notes=result.notes + 1)
        result = replace(result, version=ev.originator_version, events=result.events + 1)
    return result


class _SQLitePool(SQLiteConnectionPool):
    """eventsourcing's SQLite pool (which turns WAL on), at the `synchronous` level ours uses.

    The library sets no `synchronous` pragma, so on its own it runs at SQLite's FULL.
    """

    synchronous: Synchronous = "normal"

    def _create_connection(self) -> SQLiteConnection:
        conn = super()._create_connection()
        conn._sqlite_conn.execute(f"PRAGMA synchronous={self.synchronous.upper()}")
        return conn


def _es_recorder(
    target: Target, synchronous: Synchronous
) -> tuple[ApplicationRecorder, Callable[[], None], Callable[[str], str]]:
    """Return a fresh recorder with its tables, a closer, and a SQLite pragma reader."""
    if target.backend == "sqlite":
        datastore = SQLiteDatastore(target.url)
        datastore.pool.close()
        pool = _SQLitePool(db_name=target.url)
        pool.synchronous = synchronous
        datastore.pool = pool
        recorder = SQLiteApplicationRecorder(datastore)
        recorder.create_table()

        def pragma(name: str) -> str:
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(f"PRAGMA {name}")
                return str(cursor.fetchone()[0])

        return recorder, datastore.close, pragma
    info = psycopg.conninfo.conninfo_to_dict(target.url)
    pg_datastore = PostgresDatastore(
        dbname=target.dbname,
        host=str(info.get("host", "127.0.0.1")),
        port=str(info.get("port", 5432)),
        user=str(info.get("user", "postgres")),
        password=str(info.get("password", "")),
    )
    pg_recorder = PostgresApplicationRecorder(pg_datastore)
    pg_recorder.create_table()
    return pg_recorder, pg_datastore.close, lambda _name: ""


# ---------------------------------------------------------------- databases


@dataclass(frozen=True)
class Target:
    """A fresh, empty database for one store."""

    backend: Backend
    url: str  # a SQLite file path, or a PostgreSQL URL
    dbname: str = ""


class Databases:
    """Fresh SQLite files in a temporary folder; fresh PostgreSQL databases, dropped at close."""

    def __init__(self, pg_url: str) -> None:
        self.pg_url = pg_url
        self.tmp = tempfile.TemporaryDirectory(prefix="bench_store_")
        self.created: set[str] = set()
        self.counter = itertools.count(1)

    def fresh(self, backend: Backend, store: str) -> Target:
        """Return a new empty database for `store` ("umpire" or "es") on `backend`."""
        if backend == "sqlite":
            path = Path(self.tmp.name) / f"{store}_{next(self.counter)}.db"
            return Target("sqlite", str(path))
        dbname = f"bench_{store}_{os.getpid()}"
        self._drop(dbname)
        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        self.created.add(dbname)
        info = psycopg.conninfo.conninfo_to_dict(self.pg_url)
        user = info.get("user", "postgres")
        password = f":{info['password']}" if info.get("password") else ""
        host, port = info.get("host", "127.0.0.1"), info.get("port", 5432)
        return Target("postgres", f"postgresql://{user}{password}@{host}:{port}/{dbname}", dbname)

    def _drop(self, dbname: str) -> None:
        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname))
            )

    def close(self) -> None:
        """Drop every database made here and delete the SQLite files."""
        try:
            for dbname in sorted(self.created):
                self._drop(dbname)
        finally:
            self.tmp.cleanup()


# ---------------------------------------------------------------- progress


class Progress:
    """One updating line on stderr when it is a terminal; a line per phase otherwise.

    It redraws at most 50 times a phase, and never from a thread, so it costs both stores
    the same negligible time.
    """

    def __init__(self, label: str, total: int) -> None:
        self.label = label
        self.total = total
        self.tty = sys.stderr.isatty()
        self.step = max(1, total // 50)
        self.next = 0
        self.started = time.perf_counter()
        self.update(0)

    def update(self, done: int) -> None:
        """Report `done` events so far."""
        if done < self.next:
            return
        self.next = done + self.step
        if self.tty:
            sys.stderr.write(f"\r  {self.label:<28} {done:>9,}/{self.total:,}")
            sys.stderr.flush()
        elif done == 0:
            sys.stderr.write(f"  {self.label} ...\n")

    def done(self) -> None:
        """Report the phase finished."""
        elapsed = time.perf_counter() - self.started
        clear = "\x1b[K" if self.tty else ""
        sys.stderr.write(f"\r  {self.label:<28} {self.total:>9,} events, {elapsed:.2f}s{clear}\n")
        sys.stderr.flush()


def _chunks(events: Iterator[Any], progress: Progress) -> Iterator[Iterator[Any]]:
    """Split a replay into chunks (folded one after another) so progress can be shown."""
    done = 0
    for first in events:
        yield itertools.chain((first,), itertools.islice(events, REPLAY_CHUNK - 1))
        done += REPLAY_CHUNK
        progress.update(min(done, progress.total))


# ---------------------------------------------------------------- the two runs


@dataclass(frozen=True)
class Run:
    """One store's append and replay of the workload on one fresh database."""

    append: float  # seconds
    replay: float
    state: CampaignState
    settings: str  # the SQLite pragmas in force, as observed


def run_ours(target: Target, workload: Workload, synchronous: Synchronous, label: str) -> Run:
    """Append then replay the workload through our `EventStore`."""
    store = EventStore.open(target.url)
    try:
        if target.backend == "sqlite" and synchronous == "full":

            def full(dbapi_connection: sqlite3.Connection, _record: object) -> None:
                dbapi_connection.execute("PRAGMA synchronous=FULL")

            sa.event.listen(store.engine, "connect", full)
            store.engine.dispose()
        store.create_campaign("bench", seed="bench-seed")
        lineage = store.lineage("bench", "main")

        progress = Progress(f"{label} append", workload.events)
        gc.collect()
        version = 0
        started = time.perf_counter()
        for batch in workload.batches:
            store.append(lineage, version, batch)
            version += len(batch)
            progress.update(version)
        append = time.perf_counter() - started
        progress.done()

        progress = Progress(f"{label} replay", workload.events)
        gc.collect()
        started = time.perf_counter()
        state: CampaignState | None = None
        for chunk in _chunks(iter(store.read(lineage)), progress):
            state = fold(chunk, state)
        replay = time.perf_counter() - started
        progress.done()

        settings = ""
        if target.backend == "sqlite":
            with store.engine.connect() as conn:
                mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
                sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
            settings = _sqlite_settings(str(mode), str(sync))
        assert state is not None
        return Run(append, replay, state, settings)
    finally:
        store.close()


def run_es(target: Target, workload: Workload, synchronous: Synchronous, label: str) -> Run:
    """Append then replay the workload through eventsourcing's recorder and mapper."""
    recorder, close, pragma = _es_recorder(target, synchronous)
    try:
        mapper = es_mapper()
        originator_id = uuid.uuid4()
        batches = es_batches(workload, originator_id, datetime.now(UTC))

        progress = Progress(f"{label} append", workload.events)
        gc.collect()
        done = 0
        started = time.perf_counter()
        for batch in batches:
            recorder.insert_events([mapper.to_stored_event(ev) for ev in batch])
            done += len(batch)
            progress.update(done)
        append = time.perf_counter() - started
        progress.done()
        del batches

        progress = Progress(f"{label} replay", workload.events)
        gc.collect()
        started = time.perf_counter()
        stored = recorder.select_events(originator_id)
        state: CampaignState | None = None
        for chunk in _chunks((mapper.to_domain_event(s) for s in stored), progress):
            state = es_fold(chunk, state)
        replay = time.perf_counter() - started
        progress.done()
        del stored

        settings = ""
        if target.backend == "sqlite":
            settings = _sqlite_settings(pragma("journal_mode"), pragma("synchronous"))
        assert state is not None
        return Run(append, replay, state, settings)
    finally:
        close()


def _sqlite_settings(journal_mode: str, synchronous: str) -> str:
    level = {"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}.get(synchronous, synchronous)
    return f"journal_mode={journal_mode.upper()}, synchronous={level}"


RUNNERS: dict[str, Callable[[Target, Workload, Synchronous, str], Run]] = {
    "umpire": run_ours,
    "es": run_es,
}


# ---------------------------------------------------------------- report


@dataclass
class Timings:
    """Every run of one store on one backend."""

    append: list[float] = field(default_factory=list)
    replay: list[float] = field(default_factory=list)
    settings: set[str] = field(default_factory=set)


def print_header(args: argparse.Namespace, workload: Workload) -> None:
    """Say what is measured, and how."""
    batches = len(workload.batches)
    largest = max(len(b) for b in workload.batches)
    mix = ", ".join(f"{k} {v:,}" for k, v in sorted(workload.mix.items(), key=lambda kv: -kv[1]))
    lines = [
        f"workload  {workload.events:,} events in {batches:,} appends "
        f"(mean {workload.events / batches:.1f}, max {largest} per append), seed {workload.seed}",
        f"          {mix}",
        f"          mean payload {workload.payload_bytes / workload.events:.0f} B of JSON; "
        "audiences ~50% everyone, ~20% umpire, ~30% one or two players",
        "ours      campaign.store.EventStore: append() per batch; fold(read(lineage))",
        f"eventsrc  eventsourcing {package_version('eventsourcing')}: SQLite/Postgres"
        "ApplicationRecorder.insert_events() per batch;",
        "          select_events() + Mapper(JSONTranscoder).to_domain_event() + the same fold",
    ]
    if "sqlite" in args.backends:
        lines.append(
            f"sqlite    {sqlite3.sqlite_version}, a fresh file per store; both WAL, both "
            f"synchronous={args.sqlite_synchronous.upper()} (--sqlite-synchronous)"
        )
    if "postgres" in args.backends:
        lines.append(
            "postgres  one server, a fresh database per store (bench_umpire_<pid>, bench_es_<pid>)"
        )
    lines += [
        f"timing    wall clock, best of {args.repeat}; append includes encoding, replay "
        "includes decoding and folding",
    ]
    print("\n".join(lines))
    print()


def print_table(events: int, timings: dict[tuple[Backend, str], Timings]) -> list[str]:
    """Print the results as a Markdown table; return the targets missed."""
    es_name = f"eventsourcing {package_version('eventsourcing')}"
    rows = [("backend", "store", "append ev/s", "replay ev/s")]
    missed: list[str] = []
    for backend in BACKENDS:
        if (backend, "umpire") not in timings:
            continue
        ours, es = timings[(backend, "umpire")], timings[(backend, "es")]
        ours_append, ours_replay = events / min(ours.append), events / min(ours.replay)
        es_append, es_replay = events / min(es.append), events / min(es.replay)
        ratios = {"append": ours_append / es_append, "replay": ours_replay / es_replay}
        rows += [
            (backend, "stellar-umpire", f"{ours_append:,.0f}", f"{ours_replay:,.0f}"),
            (backend, es_name, f"{es_append:,.0f}", f"{es_replay:,.0f}"),
            (
                backend,
                "ratio ours/eventsourcing",
                f"{ratios['append']:.2f}",
                f"{ratios['replay']:.2f}",
            ),
        ]
        missed += [f"{backend} {k} {r:.2f}" for k, r in ratios.items() if r < 1.0]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for i, row in enumerate(rows):
        cells = [
            c.ljust(w) if j < 2 else c.rjust(w)
            for j, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("| " + " | ".join(cells) + " |")
        if i == 0:
            rules = ["-" * (w + 2) if j < 2 else "-" * (w + 1) + ":" for j, w in enumerate(widths)]
            print("|" + "|".join(rules) + "|")
    print()
    for (backend, store), t in sorted(timings.items()):
        if t.settings:
            name = "stellar-umpire" if store == "umpire" else "eventsourcing"
            print(f"{backend} settings observed, {name}: {'; '.join(sorted(t.settings))}")
    return missed


# ---------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        description="Append and replay a campaign on our store and on eventsourcing's."
    )
    parser.add_argument("--events", type=int, default=100_000, help="events in the campaign")
    parser.add_argument(
        "--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per store (best is shown)")
    parser.add_argument("--seed", type=int, default=44, help="the workload's random seed")
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("UMPIRE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="an admin connection; the benchmark's databases are created and dropped beside it",
    )
    parser.add_argument(
        "--sqlite-synchronous",
        choices=("normal", "full"),
        default="normal",
        help="SQLite's synchronous pragma for both stores (umpire runs NORMAL)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if any ratio is below 1.0")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a few hundred events on SQLite, once: proves the script runs (the tests do this)",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.events, args.backends, args.repeat = 300, "sqlite", 1
    chosen = {b.strip() for b in args.backends.split(",") if b.strip()}
    if not chosen or not chosen <= set(BACKENDS):
        parser.error(f"--backends takes sqlite and/or postgres, not {args.backends!r}")
    if args.events < 2 or args.repeat < 1:
        parser.error("--events must be at least 2 and --repeat at least 1")
    args.backends = [b for b in BACKENDS if b in chosen]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    args = parse_args(argv)
    workload = make_workload(args.events, args.seed)
    print_header(args, workload)
    databases = Databases(args.pg_url)
    timings: dict[tuple[Backend, str], Timings] = {}
    try:
        for backend in args.backends:
            for repeat in range(1, args.repeat + 1):
                states: dict[str, CampaignState] = {}
                for store in STORES:  # interleaved, so drift in the machine hits both
                    target = databases.fresh(backend, store)
                    label = f"{backend} {store} #{repeat}"
                    run = RUNNERS[store](target, workload, args.sqlite_synchronous, label)
                    t = timings.setdefault((backend, store), Timings())
                    t.append.append(run.append)
                    t.replay.append(run.replay)
                    if run.settings:
                        t.settings.add(run.settings)
                    states[store] = run.state
                if states["umpire"] != states["es"] or states["umpire"].events != args.events:
                    print(f"replayed states differ on {backend}: {states}", file=sys.stderr)
                    return 2
    finally:
        databases.close()
    print()
    missed = print_table(workload.events, timings)
    print()
    if missed:
        print("below target (ratio < 1.0): " + "; ".join(missed))
    else:
        print("target met: ours/eventsourcing >= 1.0 on append and replay, on every backend")
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
