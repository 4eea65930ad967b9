"""A separate OS process appending to one campaign, for tests/test_concurrency.py.

Run from the repository root as `python -m tests._append_worker MODE ...`:

race URL CAMPAIGN WORKER BATCHES
    Print `ready`, wait for a line on stdin (the start signal), then append BATCHES small
    batches (sizes from `batch_size`), each at the head just read, after a short random pause
    that makes other writers overtake it. Retry every `ConcurrencyError`; finally print one
    JSON line: the worker, its conflicts, and the versions the store reported for each batch.

kill URL CAMPAIGN RUN SIZE PAD
    Append batches of SIZE events (texts padded with PAD characters) forever, printing
    `start K` before and `done K` after each append, until the test kills the process.
"""

from __future__ import annotations

import json
import random
import sys
import time

from campaign.errors import ConcurrencyError
from campaign.events import Audience, NewEvent, UmpireNoted
from campaign.store import EventStore

MAX_PAUSE = 0.004  # seconds between reading the head and appending at it


def batch_size(worker: int, batch: int) -> int:
    """Return how many events (1-5) batch `batch` of race worker `worker` holds."""
    return random.Random(f"{worker}:{batch}").randint(1, 5)


def race_text(worker: int, batch: int, index: int) -> str:
    """Return the text of event `index` of a race batch."""
    return f"worker-{worker} batch-{batch} event-{index}"


def kill_text(run: int, batch: int, index: int, pad: int) -> str:
    """Return the text of event `index` of a kill batch (its batch id is `r{run}-b{batch}`)."""
    return f"kill r{run}-b{batch} event-{index} " + "x" * pad


def _new(text: str) -> NewEvent:
    return NewEvent(event=UmpireNoted(text=text), audience=Audience.everyone(), turn=0)


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def race(url: str, campaign: str, worker: int, batches: int) -> None:
    """Append `batches` batches in competition with other workers."""
    rng = random.Random()
    store = EventStore.open(url, create=False)
    try:
        lineage = store.lineage(campaign, "main")
        _say("ready")
        sys.stdin.readline()  # the start signal
        conflicts = 0
        appended = []
        for b in range(batches):
            batch = [_new(race_text(worker, b, e)) for e in range(batch_size(worker, b))]
            while True:
                head = store.head(lineage)[0]
                time.sleep(rng.uniform(0, MAX_PAUSE))  # think time: others may overtake
                try:
                    recorded = store.append(lineage, head, batch)
                except ConcurrencyError:
                    conflicts += 1
                    continue
                appended.append([b, [r.version for r in recorded]])
                break
        _say(json.dumps({"worker": worker, "conflicts": conflicts, "appended": appended}))
    finally:
        store.close()


def kill(url: str, campaign: str, run: int, size: int, pad: int) -> None:
    """Append big batches until killed."""
    store = EventStore.open(url, create=False)
    try:
        lineage = store.lineage(campaign, "main")
        k = 0
        while True:
            batch = [_new(kill_text(run, k, e, pad)) for e in range(size)]
            _say(f"start {k}")
            store.append(lineage, store.head(lineage)[0], batch)
            _say(f"done {k}")
            k += 1
    finally:
        store.close()


def main(argv: list[str]) -> None:
    """Dispatch on the mode named first."""
    mode, url, campaign, *rest = argv
    if mode == "race":
        race(url, campaign, int(rest[0]), int(rest[1]))
    elif mode == "kill":
        kill(url, campaign, int(rest[0]), int(rest[1]), int(rest[2]))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
