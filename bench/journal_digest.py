"""The SHA-256 of the journals of many seeded campaign battles: a speed change to the engine,
the side views or the commanders' scoring must leave every choice, so every journal, as it was.

Run it on two checkouts and compare the totals (or the lines, to find the first battle that
differs). ``--checkout`` digests another checkout's code with this one's environment:

    .venv/bin/python bench/journal_digest.py > new.txt
    .venv/bin/python bench/journal_digest.py --checkout /work/main > old.txt
    diff old.txt new.txt && echo same

The battles: the Continuum default fleets (and two heavy cruisers) under each order commander
against Engage, the closing commander and the baseline, vector and cinematic, ``--runs`` seeds
each; then mixed fleets (carriers, missile, torpedo and assault cruisers, a scout, a lancer)
in free space, an asteroid field, by a gas giant and a dense world, vector, cinematic and
spatial, a tenth as many seeds. A battle that stops with an error is digested as its error.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MIXED = (
    "fleet_carrier",
    "missile_cruiser",
    "torpedo_cruiser",
    "assault_cruiser",
    "scout",
    "light_carrier",
    "lancer",
    "heavy_cruiser",
)
PAIRS = (
    ("engage", "engage"),
    ("engage", "closing"),
    ("baseline", "engage"),
    ("stand-off", "engage"),
    ("ftl-move", "engage"),
)
MIXED_PAIRS = (("engage", "engage"), ("stand-off", "engage"), ("ftl-move", "closing"))
LOCATIONS = ("free-space", "asteroid-field", "gas-giant", "dense-world")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="seeds a match-up and movement")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the code to digest")
    parser.add_argument("--smoke", action="store_true", help="one battle of each kind")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    sys.path[:0] = [str(args.checkout), str(args.checkout / "bench")]

    import bench_commanders as bench  # the checkout's own request and commanders
    import msgspec

    from tactical.battle import encode_journal
    from tactical.campaign_battle import CampaignBattle, resolve_campaign_battle
    from tactical.dice import SeededDice

    total = hashlib.sha256()

    def digest(battle: CampaignBattle, red: str, blue: str, seed: str) -> None:
        chosen = {"red": bench.commander(red), "blue": bench.commander(blue)}
        try:
            outcome = resolve_campaign_battle(battle, SeededDice(seed), chosen, verify=False)
            line = hashlib.sha256(encode_journal(outcome.journal)).hexdigest()
        except Exception as error:  # an error is part of what is compared
            line = f"error {type(error).__name__}: {error}"
        total.update(line.encode())
        print(seed, line, flush=True)

    for movement in ("vector", "cinematic"):
        for red, blue in PAIRS:
            fleets = [("fleet", list(bench.FLEET))]
            if (red, blue) == ("engage", "engage"):
                fleets.append(("hc", ["heavy_cruiser"]))
            for name, designs in fleets:
                for run in range(runs):
                    battle = bench.request(red, blue, movement, designs)
                    digest(battle, red, blue, f"h/{red}-{blue}/{movement}/{name}/{run}")
    for movement in ("vector", "cinematic", "spatial"):
        for location in LOCATIONS:
            for red, blue in MIXED_PAIRS:
                for run in range(max(1, runs // 10)):
                    battle = bench.request(red, blue, movement, list(MIXED))
                    battle = msgspec.structs.replace(battle, location=location)
                    digest(battle, red, blue, f"m/{movement}/{location}/{red}-{blue}/{run}")
    print("total", total.hexdigest())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
