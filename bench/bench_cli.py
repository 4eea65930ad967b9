"""Benchmark: the CLI commands that read a campaign, on a 44-turn campaign (issue 19).

Plays a campaign with the autoplay driver (`--players`, `--turns`, `--stars`; the players seek
contact and the engine fights their battles, as in `bench_campaign.py`, unless `--no-contact`)
into a SQLite file, then runs each command of cli.py that reads a campaign as a user runs it,
`umpire ... --db FILE` in a new process, `--repeat` rounds of every command in turn (so a burst
of other work on the machine falls on all of them alike), and prints the best and the median
wall time of each against the 0.3 s target (and the median CPU time the process used), next to
what a bare `python -c pass` and `umpire --help` (Python and the command line's own parsing:
the floor every command pays) take in the same rounds. Python's bytecode is written to a
temporary cache first (`PYTHONPYCACHEPREFIX`), as any installed umpire has it after its first
run. The load average before and after is printed: on a shared machine every figure is slower
than on a quiet one.

    .venv/bin/python bench/bench_cli.py                     # 6 players, 44 turns, 600 stars
    .venv/bin/python bench/bench_cli.py --check             # exit 1 if a median is >= 0.3 s

Times are wall clock on whatever machine runs it.
"""

from __future__ import annotations

import argparse
import os
import resource
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
# Every command of cli.py that only reads a campaign (`at.reader()`), as a player or the
# umpire asks it. HALF is a past turn, half way through; UNIT one of red's units.
COMMANDS = [
    ["campaigns"],
    ["status"],
    ["state"],
    ["state", "--as-player", "red"],
    ["log", "--limit", "20"],
    ["log", "--as-player", "red", "--limit", "20"],
    ["turn", "status"],
    ["report", "--player", "red"],
    ["report", "--player", "red", "--turn", "HALF"],
    ["orders", "template", "--player", "red"],
    ["map", "show", "--as-player", "red"],
    ["map", "reach", "UNIT", "--player", "red"],
    ["battles", "list"],
    ["branches"],
    ["tech", "list", "--player", "red"],
    ["ship", "designs"],
    ["player", "list"],
    ["schedule", "show"],
    ["verify"],  # the audit: every event's hash and every snapshot checked again
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6, choices=range(2, 9), help="players")
    parser.add_argument("--turns", type=int, default=44, help="turns played before reading")
    parser.add_argument("--stars", type=int, default=600, help="stars on the generated map")
    parser.add_argument("--seed", type=int, default=2026, help="the map's and the dice's seed")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    parser.add_argument(
        "--no-contact", action="store_true", help="players who do not seek contact (no battles)"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a command's median is 0.3 s or more"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="2 players, 2 turns, one run each: proves it runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.players, args.turns, args.stars, args.repeat = 2, 2, 30, 1
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        db, unit = _campaign(args, Path(tmp))
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        umpire = [sys.executable, "-c", "from cli import main; main()"]
        run_command([*umpire, "--help"], env)  # writes the bytecode cache
        words = {"HALF": str(max(args.turns // 2, 1)), "UNIT": unit}
        runs = {
            "(python -c pass)": [sys.executable, "-c", "pass"],
            "(umpire --help)": [*umpire, "--help"],
        }
        for command in COMMANDS:
            runs["umpire " + " ".join(words.get(w, w) for w in command)] = [
                *umpire,
                *(words.get(w, w) for w in command),
                "--db",
                db,
            ]
        taken = rounds(runs, env, args.repeat)
    load_after = os.getloadavg()
    print(
        f"umpire read commands, {args.players} players, {args.turns} turns, {args.stars} stars "
        f"(SQLite), {args.repeat} rounds, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, "
        f"{os.cpu_count()} cores"
    )
    print(f"{'command':<50} {'best':>7} {'median':>7} {'CPU':>7}  target {TARGET_SECONDS} s")
    missed = []
    for name, times in taken.items():
        walls = [wall for wall, _ in times]
        median = statistics.median(walls)
        cpu = statistics.median(cpu for _, cpu in times)
        verdict = "" if name.startswith("(") else ("met" if median < TARGET_SECONDS else "MISSED")
        print(f"{name:<50} {min(walls):>6.3f}s {median:>6.3f}s {cpu:>6.3f}s  {verdict}")
        if verdict == "MISSED":
            missed.append(f"{name.removeprefix('umpire ')} {median:.2f} s")
    print("targets (issue 19): " + ("; ".join(missed) + " MISSED" if missed else "all met"))
    return 1 if args.check and missed else 0


def _campaign(args: argparse.Namespace, folder: Path) -> tuple[str, str]:
    """Play the campaign into a SQLite file; return its URL and one of red's units."""
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
        played = autoplay(
            service,
            service.target("bench"),
            args.turns,
            args.seed,
            seek_contact=not args.no_contact,
        )
        print(f"campaign played: {len(service.log(service.target('bench')))} events, "
              f"{played.battles} battles fought by the engine")  # fmt: skip
        units = service.load(service.target("bench")).units.values()
        unit = min(u.id for u in units if u.owner == PLAYERS[0])
    finally:
        service.close()
    return url, unit


def run_command(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[3:])} failed:\n{done.stderr}")


def rounds(
    runs: dict[str, list[str]], env: dict[str, str], repeat: int
) -> dict[str, list[tuple[float, float]]]:
    """Run every command once a round, `repeat` rounds; return each one's wall and CPU times
    (user and system, from the children's resource usage: less swayed by other work)."""
    taken: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, command in runs.items():
            used = _children_cpu()
            began = time.perf_counter()
            run_command(command, env)
            taken[name].append((time.perf_counter() - began, _children_cpu() - used))
    return taken


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
