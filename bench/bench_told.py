"""Benchmark: a player's log telling his battles, recorded knowledge against the replay.

Under closed record sheets (Continuum) each `battle_fought` a player reads is cut to what his
side knew of the enemy's ships at the battle's end (`campaign.battletold`). The engine records
that knowledge in the event when it fights the battle; an event stored before it did is told
by replaying its journal with the tactical engine (`campaign.battleknowledge.replayed_knowledge`).

Plays a campaign with the autoplay driver, the engine fighting every battle (`--players` on
`classic`, `--turns`), into a SQLite file, and copies it with every `battle_fought` payload
rewritten without `knowledge` (as a campaign from before it: the copy's hash chain no longer
verifies, which `log` does not check). Then, for the player who fought most battles:

- in this process, the CPU time of telling all his events (`campaign.service._numbered`, what
  `umpire log --as-player`, his report's news and the web page's log do) from each file;
- `umpire log --as-player P --limit 20 --db FILE` as a user runs it, in a new process,
  `--repeat` rounds of both files in turn: the median wall and CPU time of each.

    .venv/bin/python bench/bench_told.py                 # 4 players, 44 turns
    .venv/bin/python bench/bench_told.py --smoke         # 2 players, 4 turns: proves it runs

Times are wall clock and CPU on whatever machine runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_cli import rounds, run_command  # noqa: E402  (timed the same way as bench_cli)

PLAYERS = ("red", "blue", "green", "white", "black", "gold")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 7), help="players")
    parser.add_argument("--turns", type=int, default=44, help="turns played before reading")
    parser.add_argument("--seed", type=int, default=2026, help="the dice's seed")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command")
    parser.add_argument("--smoke", action="store_true", help="2 players, 4 turns, one run each")
    args = parser.parse_args()
    if args.smoke:
        args.players, args.turns, args.repeat = 2, 4, 1
    with tempfile.TemporaryDirectory() as tmp:
        recorded = Path(tmp) / "recorded.db"
        battles, seconds = _campaign(args, recorded)
        old = Path(tmp) / "old.db"
        shutil.copy(recorded, old)
        stripped = _strip_knowledge(old)
        player, fought = _most_battles(recorded)
        print(
            f"{args.players} players on classic, {args.turns} turns, {battles} battles fought by "
            f"the engine ({seconds:.0f} s to play); {stripped} battle_fought rewritten without "
            f"knowledge in the copy; {player} fought {fought}"
        )
        for name, path in (("recorded", recorded), ("old events (replay)", old)):
            print(f"telling all {player}'s events in one process, {name}: {_tell(path, player)}")
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        umpire = [sys.executable, "-c", "from cli import main; main()"]
        command = ["log", "--as-player", player, "--limit", "20", "--campaign", "bench"]
        runs = {
            f"umpire {' '.join(command)} ({name})": [*umpire, *command, "--db", f"sqlite:///{path}"]
            for name, path in (("recorded", recorded), ("old events", old))
        }
        run_command(next(iter(runs.values())), env)  # writes the bytecode cache
        load = os.getloadavg()[0]
        taken = rounds(runs, env, args.repeat)
    print(f"{args.repeat} rounds, load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{'command':<72} {'median':>7} {'CPU':>7}")
    for name, times in taken.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        print(f"{name:<72} {wall:>6.3f}s {cpu:>6.3f}s")
    return 0


def _campaign(args: argparse.Namespace, path: Path) -> tuple[int, float]:
    from campaign.autoplay import autoplay
    from campaign.service import CampaignService, plan_campaign

    began = time.perf_counter()
    service = CampaignService.open(f"sqlite:///{path}", create=True)
    try:
        players = PLAYERS[: args.players]
        plan = plan_campaign(
            "bench", players, seed=str(args.seed), map_spec="classic", max_turns=args.turns
        )
        service.new_campaign(plan)
        result = autoplay(service, service.target("bench"), args.turns, args.seed)
    finally:
        service.close()
    return result.battles, time.perf_counter() - began


def _strip_knowledge(path: Path) -> int:
    """Rewrite every `battle_fought` payload without `knowledge`; return how many."""
    import msgspec

    from campaign.events import canonical_json

    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT position, payload FROM events WHERE type = 'battle_fought'"
        ).fetchall()
        for position, payload in rows:
            data = msgspec.json.decode(payload)
            data.pop("knowledge", None)
            db.execute(
                "UPDATE events SET payload = ? WHERE position = ?",
                (canonical_json(data).decode(), position),
            )
    return len(rows)


def _most_battles(path: Path) -> tuple[str, int]:
    """The player who fought most battles (his name is in the audience), and how many."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT audience FROM events WHERE type = 'battle_fought'").fetchall()
    fought = {p: sum(f"|{p}|" in a for (a,) in rows) for p in PLAYERS}
    player = max(fought, key=lambda p: fought[p])
    return player, fought[player]


def _tell(path: Path, player: str) -> str:
    """CPU time of `_numbered` over the player's events, read from `path` (a new service)."""
    from campaign.battleknowledge import replayed_knowledge
    from campaign.service import CampaignService, _numbered

    service = CampaignService.open(f"sqlite:///{path}")
    try:
        mine = list(service.store.read(service.target("bench"), visible_to=player))
        replayed_knowledge.cache_clear()
        began = time.process_time()
        _numbered(mine, player)
        return f"{time.process_time() - began:.3f} s CPU ({len(mine)} events)"
    finally:
        service.close()


if __name__ == "__main__":
    raise SystemExit(main())
