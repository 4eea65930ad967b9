"""Benchmark: the CLI commands that read a campaign, on a 44-turn campaign (issue 19).

Plays a campaign with the autoplay driver (`--players`, `--turns`, `--stars`) into a SQLite
file, then runs each read command as a user runs it, `umpire ... --db FILE` in a new process,
`--repeat` times, and prints the best and the median wall time of each, next to the time a
bare `python -c pass` takes on the same machine (the floor every command pays). Python's
bytecode is written to a temporary cache first (`PYTHONPYCACHEPREFIX`), as any installed
umpire has it after its first run.

    .venv/bin/python bench/bench_cli.py                     # 6 players, 44 turns, 600 stars
    .venv/bin/python bench/bench_cli.py --check             # exit 1 if a median is >= 0.3 s

Times are wall clock on whatever machine runs it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLAYERS = ["red", "blue", "green", "white", "black", "gold", "violet", "silver"]
TARGET_SECONDS = 0.3
COMMANDS = [
    ["campaigns"],
    ["status"],
    ["state"],
    ["log", "--limit", "20"],
    ["log", "--as-player", "red", "--limit", "20"],
    ["turn", "status"],
    ["report", "--player", "red"],
    ["report", "--player", "red", "--turn", "HALF"],  # a past turn: half way through
    ["orders", "template", "--player", "red"],
    ["battles", "list"],
    ["branches"],
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6, choices=range(2, 9), help="players")
    parser.add_argument("--turns", type=int, default=44, help="turns played before reading")
    parser.add_argument("--stars", type=int, default=600, help="stars on the generated map")
    parser.add_argument("--seed", type=int, default=2026, help="the map's and the dice's seed")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a command's median is 0.3 s or more"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="2 players, 2 turns, one run each: proves it runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.players, args.turns, args.stars, args.repeat = 2, 2, 30, 1
    with tempfile.TemporaryDirectory() as tmp:
        db = _campaign(args, Path(tmp))
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        umpire = [sys.executable, "-c", "from cli import main; main()"]
        _run([*umpire, "--help"], env)  # writes the bytecode cache
        floor = _times([sys.executable, "-c", "pass"], env, args.repeat)
        half = str(max(args.turns // 2, 1))
        commands = [[half if word == "HALF" else word for word in c] for c in COMMANDS]
        rows = [
            (" ".join(c), _times([*umpire, *c, "--db", db], env, args.repeat)) for c in commands
        ]
    print(
        f"umpire read commands, {args.players} players, {args.turns} turns, {args.stars} stars "
        f"(SQLite), best and median of {args.repeat}"
    )
    print(f"{'command':<40} {'best':>8} {'median':>8}")
    print(f"{'(python -c pass)':<40} {min(floor):>7.3f}s {statistics.median(floor):>7.3f}s")
    missed = []
    for name, taken in rows:
        median = statistics.median(taken)
        print(f"{'umpire ' + name:<40} {min(taken):>7.3f}s {median:>7.3f}s")
        if median >= TARGET_SECONDS:
            missed.append(f"{name} {median:.2f} s")
    print("targets (issue 19): " + ("; ".join(missed) + " MISSED" if missed else "all met"))
    return 1 if args.check and missed else 0


def _campaign(args: argparse.Namespace, folder: Path) -> str:
    """Play the campaign into a SQLite file; return its URL."""
    from campaign.autoplay import autoplay
    from campaign.service import CampaignService, plan_campaign
    from maps import generate, save_map

    map_path = folder / "bench.toml"
    save_map(generate(args.seed, players=args.players, stars=args.stars), map_path)
    url = f"sqlite:///{folder / 'cli.db'}"
    service = CampaignService.open(url, create=True)
    try:
        plan = plan_campaign(
            "bench",
            PLAYERS[: args.players],
            seed=str(args.seed),
            map_spec=str(map_path),
            max_turns=args.turns,
        )
        service.new_campaign(plan)
        autoplay(service, service.target("bench"), args.turns, args.seed)
    finally:
        service.close()
    return url


def _run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[3:])} failed:\n{done.stderr}")


def _times(command: list[str], env: dict[str, str], repeat: int) -> list[float]:
    taken = []
    for _ in range(repeat):
        began = time.perf_counter()
        _run(command, env)
        taken.append(time.perf_counter() - began)
    return taken


if __name__ == "__main__":
    raise SystemExit(main())
