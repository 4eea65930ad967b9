"""Arrows never reverse: maps/ imports nothing of ours, tactical/ at most maps/, and so on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
OURS = {"campaign", "tactical", "maps", "migrations", "cli"}
ALLOWED = {
    "maps": set(),
    "tactical": {"maps"},
    "campaign": {"maps", "tactical", "migrations"},
    "migrations": set(),
}
IO_LIBRARIES = {"typer", "rich", "sqlalchemy", "starlette", "uvicorn"}
# players.py reads and writes player_secrets (SQLAlchemy); web.py is the players' web page.
IO_ALLOWED = {"render.py", "store.py", "db.py", "players.py", "web.py"}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_downstream(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no modules in {package}/"
    for path in files:
        ours = (imported_roots(path) & OURS) - {package}
        assert ours <= ALLOWED[package], f"{path.relative_to(ROOT)} imports {sorted(ours)}"


@pytest.mark.parametrize("package", ["maps", "tactical", "campaign"])
def test_rules_code_is_pure(package: str) -> None:
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.name in IO_ALLOWED and not path.is_relative_to(ROOT / "campaign" / "rules"):
            continue
        io = imported_roots(path) & IO_LIBRARIES
        assert not io, f"{path.relative_to(ROOT)} imports {sorted(io)}"
