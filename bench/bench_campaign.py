"""Benchmark: resolving turns and replaying a whole campaign (issue 5).

Plays a 44-turn, 6-player campaign on a large generated map with the autoplay driver (random
legal orders from each player's own knowledge; battles fought by the Full Thrust engine or
recorded by hand), timing every `turn resolve`, then replays the finished campaign:

- full replay: every event decoded and folded from position 0;
- snapshot replay: the newest snapshot plus the tail (the peer measured in the same run);
- a player's view: only his events, folded.

    .venv/bin/python bench/bench_campaign.py                      # SQLite file, engine battles
    .venv/bin/python bench/bench_campaign.py --players 4 --turns 20 --record

Prints a table; times are wall clock on whatever machine runs it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from campaign.autoplay import autoplay  # noqa: E402
from campaign.service import CampaignService, plan_campaign  # noqa: E402
from maps import generate, save_map  # noqa: E402

PLAYERS = ["red", "blue", "green", "white", "black", "gold"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6, choices=range(2, 7))
    parser.add_argument("--turns", type=int, default=44)
    parser.add_argument("--stars", type=int, default=200, help="stars on the generated map")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--db", help="database URL (default: a SQLite file in a temp folder)")
    parser.add_argument(
        "--record", action="store_true", help="record battles instead of fighting them"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="2 players, 2 turns: proves the script runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.players, args.turns, args.stars = 2, 2, 30
    console = Console(stderr=True)
    with tempfile.TemporaryDirectory() as tmp:
        map_path = Path(tmp) / "bench.toml"
        save_map(generate(args.seed, players=args.players, stars=args.stars), map_path)
        url = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
        service = CampaignService.open(url, create=True)
        try:
            players = PLAYERS[: args.players]
            plan = plan_campaign(
                "bench", players, seed=str(args.seed), map_spec=str(map_path), max_turns=args.turns
            )
            service.new_campaign(plan)
            lineage = service.target("bench")
            turn_times: list[float] = []
            last = [time.perf_counter()]

            with Progress(console=console, transient=True) as progress:
                task = progress.add_task("autoplay", total=args.turns)

                def tick(turn: int) -> None:
                    now = time.perf_counter()
                    turn_times.append(now - last[0])
                    last[0] = now
                    progress.update(task, completed=turn)

                started = time.perf_counter()
                result = autoplay(
                    service,
                    lineage,
                    args.turns,
                    args.seed,
                    resolve_battles=not args.record,
                    progress=tick,
                )
                played = time.perf_counter() - started
            events = len(service.log(lineage))
            full = _timed(lambda: service.load(lineage, use_snapshots=False))
            snap = _timed(lambda: service.load(lineage))
            view = _timed(lambda: service.load(lineage, viewer=players[0]))
            assert service.load(lineage, use_snapshots=False) == service.load(lineage)
            verified = service.verify(lineage).ok
        finally:
            service.close()

    _print(args, turn_times, events, played, result.battles, (full, snap, view), players[0])
    Console().print(f"hash chain verifies: {'yes' if verified else 'NO'}")
    return 0 if verified else 1


def _print(
    args: argparse.Namespace,
    turn_times: list[float],
    events: int,
    played: float,
    battles: int,
    replays: tuple[float, float, float],
    player: str,
) -> None:
    full, snap, view = replays
    title = f"{args.players} players, {len(turn_times)} turns, {args.stars} stars, {events} events"
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    median = statistics.median(turn_times) * 1000
    table.add_row("whole campaign, autoplay incl. orders and battles", f"{played:.1f} s")
    table.add_row("battles", str(battles))
    table.add_row("per turn (orders + resolve + battles), median", f"{median:.0f} ms")
    table.add_row("per turn, slowest", f"{max(turn_times) * 1000:.0f} ms")
    rate = f"{full * 1000:.0f} ms ({events / full:,.0f} events/s)"
    table.add_row("full replay of the umpire's state", rate)
    table.add_row("snapshot + tail (peer)", f"{snap * 1000:.0f} ms")
    table.add_row("ratio full replay / snapshot", f"{full / snap:.1f}x")
    table.add_row(f"{player}'s view (his events only)", f"{view * 1000:.0f} ms")
    Console().print(table)


def _timed(fn: object) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    raise SystemExit(main())
