"""Arrows never reverse: maps/ imports nothing of ours, tactical/ at most maps/, and so on."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Collection, Mapping
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
# outbox.py reads and writes player_contacts and notifications (SQLAlchemy; issue 18).
IO_ALLOWED = {"render.py", "store.py", "db.py", "players.py", "web.py", "outbox.py"}


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
        if path.is_relative_to(ROOT / "campaign" / "render"):  # the campaign's renderers
            continue
        io = imported_roots(path) & IO_LIBRARIES
        assert not io, f"{path.relative_to(ROOT)} imports {sorted(io)}"


# ---------------------------------------------------------------- the import graph


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    files = [ROOT / "cli.py"]
    for package in sorted(OURS - {"cli"}):
        files += sorted((ROOT / package).rglob("*.py"))
    return {module_name(path): path for path in files}


def module_level_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: not those inside functions."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [ast.parse(path.read_text(), filename=str(path))]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            elif not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                pending.append(child)
    return found


def every_import(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import a module may run, those inside functions (lazy ones) included."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def imported_modules(
    name: str, path: Path, modules: Collection[str], *, lazy: bool = False
) -> set[str]:
    """The project's modules that ``name`` (at ``path``) imports at module level (with
    ``lazy``, inside its functions too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in every_import(path) if lazy else module_level_imports(path):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = node.module or ""
            if node.level:
                source = f"{base}.{source}" if source else base
            # ``from package import module`` imports the module; any other name, the package
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        found |= {target for target in targets if target in modules}
    return found - {name}


def import_graph(*, lazy: bool = False) -> dict[str, set[str]]:
    modules = project_modules()
    return {
        name: imported_modules(name, path, modules, lazy=lazy) for name, path in modules.items()
    }


def find_cycle(graph: Mapping[str, Collection[str]]) -> list[str] | None:
    """Return one cycle of ``graph`` as a path that ends where it starts, or ``None``."""
    done: set[str] = set()

    def visit(path: list[str]) -> list[str] | None:
        for step in sorted(graph.get(path[-1], ())):
            if step in path:
                return [*path[path.index(step) :], step]
            if step not in done:
                cycle = visit([*path, step])
                if cycle is not None:
                    return cycle
        done.add(path[-1])
        return None

    for root in sorted(graph):
        cycle = None if root in done else visit([root])
        if cycle is not None:
            return cycle
    return None


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert "tactical.battle" in graph
    assert "cli" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


# ---------------------------------------------------------------- the battle turn's phases

PHASES_DIR = ROOT / "tactical" / "phases"
SHARED = {"tactical.state", "tactical.phases.damage"}
"""What every phase may import besides the rule families: the set-up and state types, and
the damage and threshold checks."""
ENGINE = {"tactical.battle", "tactical.setup", "tactical.state"} | {
    module_name(path) for path in PHASES_DIR.glob("*.py")
}
"""The battle engine; the other modules of ``tactical/`` are rule families (pure tables and
dice), the commanders and the renderers."""
ABOVE_THE_ENGINE = {
    "tactical.campaign_battle",
    "tactical.commanders",
    "tactical.notation",
    "tactical.odds",
    "tactical.render",
    "tactical.scenarios",
    "tactical.summary",
}


def phase_modules() -> list[str]:
    return sorted(
        module_name(path)
        for path in PHASES_DIR.glob("*.py")
        if path.name != "__init__.py" and module_name(path) not in SHARED
    )


def test_the_phases_are_there() -> None:
    assert {"orders", "movement", "fire", "boarding", "end", "repair", "core"} <= {
        name.rpartition(".")[2] for name in phase_modules()
    }


@pytest.mark.parametrize("phase", phase_modules())
def test_a_phase_imports_rule_families_types_and_other_phases_entry_points(phase: str) -> None:
    """A phase imports the rule families, the shared types and checks, and the public entry
    points of the phases it hands over to: never another phase's private names, never the
    battle facade or the modules above it."""
    modules = project_modules()
    path = modules[phase]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name not in ENGINE, f"{phase}: import {alias.name}: name what it uses"
        elif isinstance(node, ast.ImportFrom) and node.module:
            source = node.module
            assert node.level == 0, f"{phase}: relative import from {source}"
            above = ABOVE_THE_ENGINE | {"tactical.battle", "tactical.setup"}
            assert not any(source == m or source.startswith(f"{m}.") for m in above), (
                f"{phase} imports {source}, which is above the phases"
            )
            if source in ENGINE - SHARED - {phase}:
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{phase} imports {source}'s internals {private}"


@pytest.mark.parametrize(
    "module",
    sorted(
        module_name(path)
        for path in (ROOT / "tactical").glob("*.py")
        if module_name(path) not in ENGINE | ABOVE_THE_ENGINE | {"tactical"}
    ),
)
def test_a_rule_family_imports_no_phase(module: str) -> None:
    """The rule families stay pure tables and dice functions that the phases call."""
    path = project_modules()[module]
    assert not imported_roots_full(path) & (ENGINE | ABOVE_THE_ENGINE), module


def test_tactical_never_imports_campaign() -> None:
    for path in sorted((ROOT / "tactical").rglob("*.py")):
        assert "campaign" not in imported_roots(path), path.relative_to(ROOT)


def imported_roots_full(path: Path) -> set[str]:
    """Every module named by an import anywhere in ``path``, in full."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_cycle_hides_in_a_lazy_import() -> None:
    """Issue 14: a module that imports another inside a function (to start faster) still
    depends on it; counting those too, the graph has no cycle (autoplay and the service
    included)."""
    graph = import_graph(lazy=True)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_no_name_of_the_service_package_hides_one_of_its_modules() -> None:
    """`campaign/service/` holds the service's concerns, one module each. Importing a
    submodule binds its name in the package's namespace: a module named like a name that
    `campaign/service/__init__.py` binds (`core`, `battles`, `orders`...: the rules'
    modules) would silently replace that name there, or be replaced by it."""
    package = ROOT / "campaign" / "service"
    tree = ast.parse((package / "__init__.py").read_text())
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    modules = {path.stem for path in package.glob("*.py")} - {"__init__"}
    assert modules, "the service package has no modules"
    assert not modules & bound, sorted(modules & bound)


# ---------------------------------------------------------------- what a read command loads

# Issue 19: a command that only reads a campaign loads only what it needs. Never the battle
# engine (the rules fight a battle by importing it in the functions that fight: a read has
# none), nor SQLAlchemy or alembic on a SQLite file at the schema head (`campaign.sqlitereads`),
# nor pydantic.
READ_COMMANDS_NEVER_LOAD = (
    "tactical.battle",
    "tactical.campaign_battle",
    "tactical.commanders",
    "tactical.phases",
    "tactical.setup",
    "campaign.ft2.battle",
    "sqlalchemy",
    "alembic",
    "pydantic",  # typer 0.29 checks options with it: pyproject.toml keeps typer below 0.29
)


@pytest.fixture(scope="module")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A 2-player campaign of 2 turns on a SQLite file: its URL and one of red's units."""
    from campaign.autoplay import autoplay
    from campaign.service import CampaignService, plan_campaign

    url = f"sqlite:///{tmp_path_factory.mktemp('reads') / 'reads.db'}"
    service = CampaignService.open(url, create=True)
    try:
        service.new_campaign(plan_campaign("r", ("red", "blue"), seed="r19", map_spec="classic"))
        autoplay(service, service.target("r"), 2, 19)
        units = service.load(service.target("r")).units.values()
        unit = min(u.id for u in units if u.owner == "red")
    finally:
        service.close()
    return url, unit


def test_a_read_command_never_loads_the_battle_engine_sqlalchemy_nor_pydantic(
    played_db: tuple[str, str],
) -> None:
    """Every read command of bench/bench_cli.py, run as `umpire` runs it, in one process."""
    url, unit = played_db
    bench = (ROOT / "bench" / "bench_cli.py").read_text()
    commands = ast.literal_eval(bench.split("COMMANDS = ", 1)[1].split("\n]\n", 1)[0] + "\n]")
    words = {"HALF": "1", "UNIT": unit}
    argvs = [[words.get(w, w) for w in command] + ["--db", url] for command in commands]
    probe = (
        "import sys\n"
        "from cli import app_for\n"
        f"for argv in {argvs!r}:\n"
        "    app_for(argv)(argv, standalone_mode=False)\n"
        f"never = {READ_COMMANDS_NEVER_LOAD!r}\n"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith(never)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert len(argvs) >= 19
    assert done.stdout.strip().splitlines()[-1] == "LOADED []"
