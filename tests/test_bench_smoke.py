"""Issue 13 finding 15: every benchmark script runs, in a small smoke mode, so none can rot.

Each script in bench/ is run as a user runs it, as a subprocess, with `--smoke`: a few hundred
events, a turn or two, one battle. Nothing here measures a time; the scripts' own checks
(both stores reach the same state, the hash chain verifies) still run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPTS = sorted((ROOT / "bench").glob("bench_*.py"))


def test_every_bench_script_is_covered() -> None:
    assert {p.name for p in SCRIPTS} >= {
        "bench_campaign.py",
        "bench_cli.py",
        "bench_commanders.py",
        "bench_maps.py",
        "bench_mirror.py",
        "bench_store.py",
        "bench_tactical.py",
        "bench_web.py",
    }


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_the_script_runs_in_smoke_mode(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output


def test_the_mirror_runs_spatial_movement_in_smoke_mode() -> None:
    """The mirror bench takes each movement choice; spatial (003, issue 21) too."""
    result = subprocess.run(
        [sys.executable, "bench/bench_mirror.py", "--smoke", "--movement", "spatial"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "spatial movement" in output


def _run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output
    return result.stdout


def test_the_journal_digest_is_the_same_in_two_processes() -> None:
    """bench/journal_digest.py compares checkouts: of the same code, two runs (two processes,
    each its own hash seed) print the same digests, battle by battle."""
    first = _run("bench/journal_digest.py", "--smoke")
    assert first == _run("bench/journal_digest.py", "--smoke", "--checkout", str(ROOT))
    assert first.splitlines()[-1].startswith("total ")
    assert "error" not in first


def test_the_speed_comparison_runs_in_smoke_mode() -> None:
    output = _run("bench/commander_speed_ab.py", "--smoke", "--old", str(ROOT))
    assert "new/old:" in output
