"""Seed citations (`004 L361-370`, `000 L12648`, `001 L957, L959`) point at real lines.

Every `NNN LX[-Y]` in the repository's .py and .md files, and the `, LZ[-W]` ranges that
follow it, must name a seed that exists (`NNN_*.txt` in the seeds folder), lines within that
seed's length, and a range in order (X <= Y). This cannot tell whether a line says what the
code claims (that takes reading), but it catches a typo, a swapped range or a seed renumbered.
"""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The rules texts beside the checkout (../shared/seeds), else where this machine keeps them.
_BESIDE = ROOT.parent / "shared" / "seeds"
SEEDS = Path(os.environ.get("UMPIRE_SEEDS", _BESIDE if _BESIDE.is_dir() else "/work/shared/seeds"))

_RANGE = r"L(\d+)(?:-L?(\d+))?"
# A seed number, its first range, then ranges joined by ", ", "; " or " and ".
CITATION = re.compile(rf"\b(\d{{3}}) {_RANGE}((?:(?:, |; |,? and )L\d+(?:-L?\d+)?)*)")
_MORE = re.compile(_RANGE)


def citations(text: str) -> list[tuple[str, int, int]]:
    """Return every (seed, first line, last line) cited in `text`."""
    found = []
    for m in CITATION.finditer(text):
        seed = m.group(1)
        found.append((seed, int(m.group(2)), int(m.group(3) or m.group(2))))
        for more in _MORE.finditer(m.group(4)):
            found.append((seed, int(more.group(1)), int(more.group(2) or more.group(1))))
    return found


def _files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed]


# Each seed's length in lines, as read from the seeds folder (`_seed_lengths`): the check runs
# on any checkout, and where the seeds are at hand they are checked to be these.
SEED_LENGTHS = {"000": 20580, "001": 2034, "002": 67, "003": 324, "004": 381}


def _seed_lengths() -> dict[str, int]:
    lengths = {}
    for path in SEEDS.glob("[0-9][0-9][0-9]_*.txt"):
        with path.open(encoding="utf-8") as f:
            lengths[path.name[:3]] = sum(1 for _ in f)
    return lengths


def test_citation_parser_reads_ranges_and_continuations() -> None:
    text = 'x (004 L361-370), 000 L12648-L12656; "001 L957, L959-961 and L12" 2000 L5'
    assert citations(text) == [
        ("004", 361, 370),
        ("000", 12648, 12656),
        ("001", 957, 957),
        ("001", 959, 961),
        ("001", 12, 12),
    ]


def test_every_citation_points_at_lines_of_an_existing_seed() -> None:
    if SEEDS.is_dir():  # the recorded lengths are the texts' own, where they are at hand
        assert _seed_lengths() == SEED_LENGTHS
    lengths = SEED_LENGTHS
    bad = []
    count = 0
    for path in _files():
        text = path.read_text(encoding="utf-8")
        for seed, first, last in citations(text):
            count += 1
            where = f"{path.relative_to(ROOT)}: {seed} L{first}-{last}"
            if seed not in lengths:
                bad.append(f"{where}: no seed {seed}")
            elif not 1 <= first <= last <= lengths[seed]:
                bad.append(f"{where}: not 1 <= {first} <= {last} <= {lengths[seed]}")
    assert count > 1000  # the parser still finds the citations
    assert not bad, "\n".join(bad)
