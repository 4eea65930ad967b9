"""Issue 13's fuzz suite: orders, map, design and fleet files and CLI arguments.

Whatever is handed in, the answer is a result or a user-facing refusal (`UmpireError`,
`MapError`, `DesignFileError`, ...), never another exception; the command line exits with a
code it documents, prints no traceback and no raw control character, and a refused command
writes nothing. Documents are drawn from each schema's own field names, with values of every
kind, and from random edits of a valid file, so that decoding and the rules behind it are
both reached. Examples are few and bounded so that the suite stays fast.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign.errors import UmpireError
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from cli import app
from maps import MapError, loads_map
from tactical.designs import DesignFileError, cost_design_file
from tactical.ship import DesignError
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP

runner = CliRunner()
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# ---------------------------------------------------------------- TOML documents

ORDERS_KEYS = [
    "player", "turn", "moves", "unit", "to", "order", "landings", "planet", "colonists",
    "production", "colony", "factories", "ships", "design", "count", "research", "tech", "ip",
    "battle_locations", "attacks", "system", "mode", "task_forces", "units", "id", "treasury",
    "scorch", "fighters", "emigrants", "colony_transports",
]  # fmt: skip
MAP_KEYS = [
    "format", "version", "name", "title", "width", "height", "clouds", "entries", "hex",
    "systems", "colour", "planets", "orbit", "type", "capacity", "features", "settled",
    "facilities", "notes", "mineral_rich",
]  # fmt: skip
DESIGN_KEYS = [
    "name", "rules", "mass", "thrust", "hull_strength", "fire_controls", "systems", "kind",
    "arcs", "advanced_drive", "count", "armour", "screens", "ftl", "provenance",
]  # fmt: skip
FLEET_KEYS = ["ships", "design", "count"]
WORDS = [
    "red", "blue", "red-S1", "red-W1", "0102", "0302", "9999", "engage", "stand-off",
    "ftl-move", "Alpha", "Alpha/3", "frigate", "destroyer", "free-space", "conquer", "yellow",
    "terran", "continuum", "ft2", "beam1", "F", "FP", "average", "",
]  # fmt: skip

scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False),
)


def toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, but for DEL, written raw by JSON)."""
    return json.dumps(text).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def documents(keys: list[str]) -> st.SearchStrategy[str]:
    """TOML documents whose keys come from a schema, with values of any kind and shape."""
    values = st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(keys), inner, max_size=4)
        ),
        max_leaves=12,
    )
    top = st.dictionaries(st.sampled_from(keys), values, max_size=8)
    return top.map(
        lambda doc: "".join(f"{toml_string(k)} = {toml_value(v)}\n" for k, v in doc.items())
    )


@st.composite
def edited(draw: st.DrawFn, text: str) -> bytes:
    """A valid file with a few random edits: bytes cut, repeated or replaced."""
    data = bytearray(text.encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        match draw(st.sampled_from(["cut", "insert", "repeat"])):
            case "cut":
                del data[at : at + draw(st.integers(1, 20))]
            case "insert":
                data[at:at] = draw(st.binary(min_size=1, max_size=8))
            case "repeat":
                data[at:at] = data[at : at + draw(st.integers(1, 40))] * draw(st.integers(1, 50))
    return bytes(data)


# ---------------------------------------------------------------- a campaign to submit to


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CampaignService, Lineage]]:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "tiny.toml").write_text(TINY_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    service.new_campaign(
        plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(folder / "tiny.toml"))
    )
    yield service, service.target("g")
    service.close()


def submit(campaign: tuple[CampaignService, Lineage], text: str) -> None:
    """Submit orders; a refusal must be an UmpireError and must leave the log as it was."""
    service, lineage = campaign
    before = service.store.head(lineage)
    try:
        service.submit_orders(lineage, "red", text)
    except UmpireError:
        assert service.store.head(lineage) == before


@FUZZ
@given(text=documents(ORDERS_KEYS))
def test_fuzzed_orders_documents(campaign: tuple[CampaignService, Lineage], text: str) -> None:
    submit(campaign, text)


@FUZZ
@given(data=st.data())
def test_edited_orders_files(
    campaign: tuple[CampaignService, Lineage], data: st.DataObject
) -> None:
    service, lineage = campaign
    template = service.orders_template(lineage, "red")
    raw = data.draw(edited(template.replace('# to = "0101"', 'to = "0102"', 1)))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return  # the readers refuse it first (tests/test_hostile_input.py)
    submit(campaign, text)


# ---------------------------------------------------------------- maps, designs and fleets


def load_map(data: bytes) -> None:
    with contextlib.suppress(MapError):
        loads_map(data.decode("utf-8", "replace"))


@FUZZ
@given(text=documents(MAP_KEYS))
def test_fuzzed_map_documents(text: str) -> None:
    load_map(text.encode())


@FUZZ
@given(data=edited(TINY_MAP))
def test_edited_map_files(data: bytes) -> None:
    load_map(data)


LANCER = Path(__file__).parents[1] / "tactical/data/ships/continuum/lancer.toml"


def cost(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "design.toml"
    path.write_bytes(data)
    with contextlib.suppress(DesignFileError, DesignError):
        cost_design_file(path)


@FUZZ
@given(text=documents(DESIGN_KEYS))
def test_fuzzed_design_documents(tmp_path: Path, text: str) -> None:
    cost(tmp_path, text.encode())


@FUZZ
@given(data=edited(LANCER.read_text()))
def test_edited_design_files(tmp_path: Path, data: bytes) -> None:
    cost(tmp_path, data)


@settings(FUZZ, max_examples=25)
@given(
    text=documents(FLEET_KEYS)
    | edited('[[ships]]\ndesign = "frigate"\ncount = 4\n').map(
        lambda b: b.decode("utf-8", "replace")
    )
)
def test_fuzzed_fleet_files(tmp_path: Path, text: str) -> None:
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(text, encoding="utf-8")
    with contextlib.suppress(UmpireError):
        plan_campaign(
            "g",
            ["red", "blue"],
            seed="s",
            map_spec=str(tmp_path / "tiny.toml"),
            fleet_file=str(fleet),
        )


# ---------------------------------------------------------------- command-line arguments

COMMANDS = [
    ["log"], ["state"], ["status"], ["verify"], ["campaigns"], ["branches"], ["turn", "status"],
    ["battles", "list"], ["report"], ["orders", "template"], ["roll"], ["note"], ["rewind"],
    ["map", "show"], ["map", "validate"], ["ship", "show"], ["db", "status"], ["player", "list"],
]  # fmt: skip
OPTIONS = [
    "--turn", "--as-player", "--player", "--limit", "--type", "--at-turn", "--at-version",
    "--campaign", "--branch", "--reason", "--to", "--results", "--to-turn", "--to-version",
    "--json", "--dice", "--format", "--map", "--preset", "--use",
]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(
        ["red", "umpire", "0", "-1", "2d6", "all", "main", "x", "classic", "1", "\x1b]0;x\x07"]
    ),
    st.sampled_from(["100000000000000000000", "-100000000000000000000", "9223372036854775808"]),
    st.integers(-(2**70), 2**70).map(str),
    st.text(min_size=1, max_size=10).filter(lambda s: "\x00" not in s and not s.startswith("-")),
)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzzcli")
    (folder / "tiny.toml").write_text(TINY_MAP)
    db = folder / "g.db"
    new = ["new", "g", "--players", "red,blue", "--map", str(folder / "tiny.toml"), "--db", str(db)]
    assert runner.invoke(app, new).exit_code == 0
    return db


PAIRS = st.tuples(st.sampled_from(OPTIONS), VALUES).map(list)
WORDS_GIVEN = st.lists(PAIRS | VALUES.map(lambda v: [v]), max_size=4).map(
    lambda parts: [word for part in parts for word in part]
)


@settings(FUZZ, max_examples=80)
@given(command=st.sampled_from(COMMANDS), words=WORDS_GIVEN)
@example(command=["log"], words=["--turn", "100000000000000000000"])
@example(command=["state"], words=["--at-version", "100000000000000000000"])
@example(command=["roll"], words=["1d6", "--reason", "x", "--to", "\x1b]0;x\x07"])
def test_fuzzed_command_lines(database: Path, command: list[str], words: list[str]) -> None:
    log = ["log", "--json", "--db", str(database)]
    before = runner.invoke(app, log).stdout
    result = runner.invoke(app, [*command, *words, "--db", str(database)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    output = result.stdout + result.stderr
    assert result.exit_code in (0, 1, 2, 3), output
    assert "Traceback" not in output
    assert "\x1b" not in output  # user text is echoed inert
    if result.exit_code != 0:
        assert runner.invoke(app, log).stdout == before


def test_a_design_name_too_long_for_a_file_name_is_no_design() -> None:
    """Found by the fleet fuzzing above: a 300-letter design name raised OSError (file name
    too long) from the catalogue lookup; it is simply no design."""
    import pytest

    from campaign.rules.setup import catalogue_ship

    with pytest.raises(LookupError):
        catalogue_ship("frig" * 75)
    with pytest.raises(LookupError):
        catalogue_ship("../ft2/frigate")
