"""Mirror battles of the campaign's Continuum catalogue: does either side win more often?

Each mirror puts the same ships on both sides, Engage against Engage in free space, under the
campaign's battle rules (004 section 4: `continuum`, vector movement, as `campaign.rules.
battles.request_for` asks for them), and fights it `--runs` times from seeded dice with
`tactical.odds`. A fair engine gives each side about half the decisive battles; `--check`
exits 1 when a side's share of them falls outside 45-55% (issue 15).

    .venv/bin/python bench/bench_mirror.py                       # 400 runs of each mirror
    .venv/bin/python bench/bench_mirror.py --mirrors fleet --runs 400 --jobs 2 --check
    .venv/bin/python bench/bench_mirror.py --mirrors fleet --movement spatial --runs 400 --jobs 1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from campaign.rules.setup import CONTINUUM_DEFAULT_FLEET  # noqa: E402
from tactical.campaign_battle import CampaignBattle, CampaignShip, CampaignSide  # noqa: E402
from tactical.designs import builtin_ids  # noqa: E402
from tactical.odds import RequestBattle, odds  # noqa: E402
from tactical.rules import MoraleTies  # noqa: E402

FAIR = (0.45, 0.55)  # issue 15: each side's share of the decisive mirrors


def mirror(
    name: str,
    designs: list[str],
    movement: Literal["vector", "cinematic", "spatial"],
    morale_ties: MoraleTies = "worse",
) -> CampaignBattle:
    """The same ships on both sides, Engage against Engage, in free space."""

    def side(player: str) -> CampaignSide:
        ships = tuple(
            CampaignShip(id=f"{player}-{n}-{design}", design=design)
            for n, design in enumerate(designs, start=1)
        )
        return CampaignSide(name=player, order="engage", ships=ships)

    return CampaignBattle(
        sides=(side("red"), side("blue")),
        key=f"mirror-{name}",
        rules="continuum",
        movement=movement,
        morale_ties=morale_ties,
    )


def mirrors(which: str) -> dict[str, list[str]]:
    """The mirrors asked for: the default starting fleet, each catalogue design one against
    one, or both."""
    fleet = [line.design for line in CONTINUUM_DEFAULT_FLEET.ships for _ in range(line.count)]
    chosen: dict[str, list[str]] = {}
    if which in ("fleet", "all"):
        chosen["default fleet"] = fleet
    if which in ("designs", "all"):
        for _, design in builtin_ids("continuum"):
            chosen[design] = [design]
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="seeded runs of each mirror")
    parser.add_argument("--mirrors", choices=("fleet", "designs", "all"), default="all")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes for the odds"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--movement",
        choices=("vector", "cinematic", "spatial"),
        default="vector",
        help="004 L43: vector; spatial is 003's",
    )
    parser.add_argument(
        "--morale-ties",
        choices=("worse", "both"),
        default="worse",
        help="both sides at their fleet morale share in one turn: the side worse off "
        "withdraws (the campaign's default) or both do (a draw)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 on an uneven mirror")
    parser.add_argument(
        "--smoke", action="store_true", help="one frigate mirror, 2 runs: proves the script runs"
    )
    args = parser.parse_args()
    chosen = mirrors(args.mirrors)
    if args.smoke:
        args.runs, args.jobs, args.check = 2, 1, False
        chosen = {"frigate": ["frigate"]}
    table = Table(
        title=f"Continuum mirrors, {args.runs} runs each, {args.movement} movement, "
        f"morale ties: {args.morale_ties}"
    )
    for column in ("mirror", "red wins", "blue wins", "draws", "red share of decisive", "s"):
        table.add_column(column, justify="left" if column == "mirror" else "right")
    uneven = []
    for name, designs in chosen.items():
        request = mirror(name, designs, args.movement, args.morale_ties)
        start = time.perf_counter()
        fight = RequestBattle(request)
        figures = odds(fight, ("red", "blue"), args.runs, args.seed, jobs=args.jobs)
        took = time.perf_counter() - start
        red, blue = figures.sides
        decisive = red.wins + blue.wins
        share = red.wins / decisive if decisive else 0.5
        if not FAIR[0] <= share <= FAIR[1]:
            uneven.append(name)
        table.add_row(
            name,
            f"{red.wins:.1%}",
            f"{blue.wins:.1%}",
            f"{figures.draws:.1%}",
            f"{share:.1%}",
            f"{took:.0f}",
        )
    Console().print(table)
    if uneven:
        Console(stderr=True).print(f"outside {FAIR[0]:.0%}-{FAIR[1]:.0%}: {', '.join(uneven)}")
    return 1 if args.check and uneven else 0


if __name__ == "__main__":
    raise SystemExit(main())
