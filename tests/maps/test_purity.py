"""maps/ is pure: no project packages; only render.py may touch rich; typer and sqlalchemy never."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

MAPS = Path(__file__).parents[2] / "maps"
FORBIDDEN = {"typer", "rich", "sqlalchemy", "campaign", "tactical", "cli", "migrations"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", sorted(MAPS.glob("*.py")), ids=lambda p: p.name)
def test_maps_modules_import_nothing_forbidden(path: Path) -> None:
    allowed = {"rich"} if path.name == "render.py" else set()
    assert imported_roots(path) & (FORBIDDEN - allowed) == set()
