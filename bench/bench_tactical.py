"""Benchmark: Full Thrust battles per second, and a 10,000-run odds calculation (issue 4).

The battle is a campaign's: each side brings the default starting fleet (1980 of its 2000 Full
Thrust points: a battledreadnought, 2 heavy and 2 light cruisers, 4 destroyers, 5 frigates,
004 section 3) under Engage orders, in free space, with the computer commanders on both sides.

- live: fight ``--battles`` battles with seeded dice (commanders, dice, rules, journal);
- replay, the peer measured in the same run: fold the same journals back into their final
  states, no commander and no dice; ``live / replay`` is what deciding and rolling cost;
- odds: ``tactical.odds`` over ``--odds-runs`` runs (10,000 by default) in ``--jobs`` worker
  processes, and the same odds in one process over a sample of the runs as its peer.

    .venv/bin/python bench/bench_tactical.py                     # about 10 minutes on 2 cores
    .venv/bin/python bench/bench_tactical.py --battles 10 --odds-runs 200

Prints a table; times are wall clock, so run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from campaign.rules.setup import FT2_DEFAULT_FLEET  # noqa: E402
from tactical.battle import replay  # noqa: E402
from tactical.campaign_battle import (  # noqa: E402
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.dice import SeededDice  # noqa: E402
from tactical.odds import RequestBattle, odds  # noqa: E402


def fleet_battle(
    movement: Literal["vector", "cinematic", "spatial"] = "vector",
) -> CampaignBattle:
    """Two FT2 campaigns' default starting fleets under Engage orders, in free space."""

    def side(name: str) -> CampaignSide:
        ships = tuple(
            CampaignShip(id=f"{name}-{line.design}-{number}", design=line.design)
            for line in FT2_DEFAULT_FLEET.ships
            for number in range(1, line.count + 1)
        )
        return CampaignSide(name=name, order="engage", ships=ships)

    return CampaignBattle(
        sides=(side("red"), side("blue")), key="bench", movement=movement, rules="ft2"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=40, help="battles fought live")
    parser.add_argument("--odds-runs", type=int, default=10_000, help="runs of the odds")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes for the odds"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--movement",
        choices=("vector", "cinematic", "spatial"),
        default="vector",
        help="vector, as the campaign fights (004 L43), cinematic or spatial (003)",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="1 battle, 2 odds runs: proves the script runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.battles, args.odds_runs, args.jobs, args.movement = 1, 2, 1, "cinematic"
    request = fleet_battle(args.movement)
    sides = tuple(side.name for side in request.sides)
    console = Console(stderr=True)

    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("live battles", total=args.battles)
        outcomes = []
        start = time.perf_counter()
        for run in range(args.battles):
            outcomes.append(resolve_campaign_battle(request, SeededDice(f"{args.seed}/{run}")))
            progress.advance(task)
        live = time.perf_counter() - start

        start = time.perf_counter()
        for outcome in outcomes:
            replay(outcome.setup, outcome.journal)
        folded = time.perf_counter() - start

        sample = max(1, min(args.odds_runs, args.battles))
        start = time.perf_counter()
        odds(RequestBattle(request), sides, sample, args.seed)
        one_process = (time.perf_counter() - start) / sample

        task = progress.add_task(f"odds, {args.jobs} jobs", total=args.odds_runs)
        start = time.perf_counter()
        figures = odds(
            RequestBattle(request),
            sides,
            args.odds_runs,
            args.seed,
            lambda: progress.advance(task),
            jobs=args.jobs,
        )
        many = (time.perf_counter() - start) / args.odds_runs

    events = sum(len(outcome.journal) for outcome in outcomes)
    turns = sum(outcome.turns for outcome in outcomes)
    table = Table(title=f"2 x 1980 points, Engage against Engage, {args.movement} movement")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("live battles", f"{args.battles / live:.2f} battles/s")
    table.add_row(
        "  per battle", f"{live / args.battles * 1000:.0f} ms, {turns / args.battles:.1f} turns"
    )
    table.add_row("  journal events", f"{events / live:.0f} events/s")
    table.add_row("replay of the same journals (peer)", f"{args.battles / folded:.2f} battles/s")
    table.add_row("ratio live / replay", f"{live / folded:.1f}x the time")
    table.add_row(
        f"odds, {args.odds_runs:,} runs, {args.jobs} jobs", f"{many * args.odds_runs:.0f} s"
    )
    table.add_row("  per run", f"{many * 1000:.0f} ms")
    table.add_row(f"odds, 1 process, {sample} runs (peer)", f"{one_process * 1000:.0f} ms per run")
    table.add_row("ratio 1 process / jobs", f"{one_process / many:.2f}x faster")
    red, blue = figures.sides
    table.add_row(
        "the odds",
        f"red {red.wins:.1%}, blue {blue.wins:.1%}, draws {figures.draws:.1%}",
    )
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
