"""Benchmark the movement queries on a 500-star map, against plain networkx BFS in the same run.

Run: ``.venv/bin/python bench/bench_maps.py``. Prints per-query times and the ratio to the
peer. The peer ignores the cloud rules (plain breadth-first search on the same graph), so it
is a floor, not an equivalent: the ratio says what the rules cost over the simplest search.
Not part of the test suite; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import networkx as nx

from maps.generate import generate
from maps.starmap import COMMAND_RADIUS, StarMap

REPEATS = 5


def per_call(fn: Callable[[], object], calls: int) -> float:
    """Return the best-of-REPEATS time per call, in microseconds."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) / calls)
    return min(times) * 1e6


def row(name: str, ours: float, peer: float | None, peer_name: str = "") -> None:
    if peer is None:
        print(f"{name:<44} {ours:>10.1f} us")
    else:
        print(f"{name:<44} {ours:>10.1f} us   {peer_name:<34} {peer:>9.1f} us   x{ours / peer:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--smoke", action="store_true", help="60 stars, 40 queries: proves the script runs"
    )
    args = parser.parse_args()
    stars, queries = (60, 40) if args.smoke else (500, 200)
    m: StarMap = generate(2024, players=6, stars=stars, name="bench")
    graph = m.graph
    rng = random.Random(1)
    cells = sorted(m.cells())
    starts = [cells[int(rng.random() * len(cells))] for _ in range(queries)]
    goals = [cells[int(rng.random() * len(cells))] for _ in range(queries)]
    print(f"{m!r}: {graph.number_of_nodes()} cells, {graph.number_of_edges()} edges")
    print(
        f"{'query':<44} {'ours':>13}   {'peer (networkx, no cloud rules)':<34} {'peer':>12}   ratio"
    )

    for speed in (2, 4, 8):
        ours = per_call(lambda s=speed: [m.reachable(c, s) for c in starts], len(starts))
        peer = per_call(
            lambda s=speed: [
                nx.single_source_shortest_path_length(graph, c, cutoff=s) for c in starts
            ],
            len(starts),
        )
        row(
            f"reachable in one turn, speed {speed}",
            ours,
            peer,
            "single_source_shortest_path_length",
        )

    pairs = list(zip(starts[:50], goals[:50], strict=True))
    for speed in (2, 6):
        ours = per_call(lambda s=speed: [m.route(a, b, s) for a, b in pairs], len(pairs))
        peer = per_call(lambda: [nx.shortest_path(graph, a, b) for a, b in pairs], len(pairs))
        row(f"route across the map, speed {speed}", ours, peer, "shortest_path (BFS)")
    mean = statistics.mean(a.distance(b) for a, b in pairs)
    print(f"  (routes average {mean:.0f} hexes)")

    # 004 section 6: moves are plotted up to 3 turns ahead, so most routes are short.
    speed = 4
    near = [(a, b) for a in starts for b in goals if 2 * speed < a.distance(b) <= 3 * speed][:100]
    ours = per_call(lambda: [m.route(a, b, speed) for a, b in near], len(near))
    peer = per_call(lambda: [nx.shortest_path(graph, a, b) for a, b in near], len(near))
    row(f"route plotted 3 turns ahead, speed {speed}", ours, peer, "shortest_path (BFS)")

    posts = [m.initial_command_post(e.name) for e in m.entries] + [s.hex for s in m.systems[:20]]
    ours = per_call(lambda: m.command_range(posts), 1)
    peer = per_call(
        lambda: nx.multi_source_dijkstra_path_length(
            graph, [p for p in posts if m.contains(p)], cutoff=COMMAND_RADIUS
        ),
        1,
    )
    row(f"command range of {len(posts)} posts", ours, peer, "multi_source_dijkstra_path_length")

    # The engine's load: every fleet of every player, every turn. 6 players x 40 fleets.
    covered = m.command_range(posts)
    fleets = starts[:240]
    per_turn = per_call(lambda: [m.reachable(c, 4, allowed=covered) for c in fleets], 1)
    print(f"one game turn: 240 fleets, speed 4, within command range: {per_turn / 1000:.1f} ms")


if __name__ == "__main__":
    main()
