"""The commander bench's speed section, old code against new, in one sitting: each checkout
times the same seeded battles in a child process of its own, the two in turn, several rounds,
and each keeps its best round (the machine may be shared; CPU time, ``time.process_time``, as
``bench_commanders.py`` measures it).

    .venv/bin/python bench/commander_speed_ab.py --old /work/main --new . --rounds 4

A round of a checkout: the ``--battles`` speed battles of ``bench_commanders.py`` (Engage
against Engage, the Continuum default fleets, vector) fought live with the verifying replay,
replayed from their journals, and fought again without it, each of these ``--passes`` times,
the best pass kept. Prints each round's figures and the best of each checkout, with new/old.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
sys.path[:0] = [{root!r}, {bench!r}]
import bench_commanders as bench
from tactical.battle import replay
from tactical.campaign_battle import resolve_campaign_battle
from tactical.dice import SeededDice

battle = bench.request("engage", "engage", "vector")
resolve_campaign_battle(battle, SeededDice("warm-up"))
seeds = [f"{seed}/speed/{{run}}" for run in range({battles})]
best = {{"live": 1e9, "replay": 1e9, "unverified": 1e9}}
for _ in range({passes}):
    start = time.process_time()
    outcomes = [resolve_campaign_battle(battle, SeededDice(s)) for s in seeds]
    best["live"] = min(best["live"], time.process_time() - start)
    start = time.process_time()
    for outcome in outcomes:
        replay(outcome.setup, outcome.journal)
    best["replay"] = min(best["replay"], time.process_time() - start)
    start = time.process_time()
    for s in seeds:
        resolve_campaign_battle(battle, SeededDice(s), verify=False)
    best["unverified"] = min(best["unverified"], time.process_time() - start)
print(json.dumps(best))
"""


def measure(checkout: Path, battles: int, passes: int, seed: int) -> dict[str, float]:
    """One round of a checkout, in a fresh child process: CPU seconds for the battles."""
    code = CHILD.format(
        root=str(checkout),
        bench=str(checkout / "bench"),
        battles=battles,
        passes=passes,
        seed=seed,
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=checkout
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def rates(seconds: dict[str, float], battles: int) -> dict[str, float]:
    """The bench's figures: battles a CPU second verified and not, the 10,000-run odds on 2
    cores in minutes, and live (unverified) over replay."""
    return {
        "verified/s": battles / seconds["live"],
        "unverified/s": battles / seconds["unverified"],
        "odds min": 10_000 * seconds["unverified"] / battles / 2 / 60,
        "live/replay": seconds["unverified"] / seconds["replay"],
    }


def show(label: str, figures: dict[str, float]) -> str:
    return f"{label:>10}: " + "  ".join(f"{k} {v:6.2f}" for k, v in figures.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--new", type=Path, default=ROOT, help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each, in turn")
    parser.add_argument("--battles", type=int, default=20, help="the bench's speed battles")
    parser.add_argument("--passes", type=int, default=2, help="passes a round, best kept")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--smoke", action="store_true", help="one battle, one round")
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.battles, args.passes = 1, 1, 1
    best: dict[str, dict[str, float]] = {}
    for round_ in range(1, args.rounds + 1):
        for label, checkout in (("old", args.old), ("new", args.new)):
            seconds = measure(checkout.resolve(), args.battles, args.passes, args.seed)
            print(show(f"{label} {round_}", rates(seconds, args.battles)), flush=True)
            kept = best.setdefault(label, seconds)
            for key, value in seconds.items():
                kept[key] = min(kept[key], value)
    old, new = rates(best["old"], args.battles), rates(best["new"], args.battles)
    print(show("old best", old))
    print(show("new best", new))
    print(
        f"new/old: verified {new['verified/s'] / old['verified/s']:.2f}x, unverified "
        f"{new['unverified/s'] / old['unverified/s']:.2f}x, replay "
        f"{best['old']['replay'] / best['new']['replay']:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
