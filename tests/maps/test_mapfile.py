"""Map files: exact round trips and errors that say where the problem is."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maps import mapfile
from maps.builtin import BUILTIN_MAPS, load_builtin
from maps.hexes import from_offset
from maps.model import Entry, Facility, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.starmap import MapError, StarMap

GOOD = """\
format = "stellar-umpire-map"
version = 1
name = "tiny"
width = 8
height = 6
clouds = ["0403", "0404"]

[[entries]]
name = "1"
hex = "0101"

[[systems]]
name = "Sol"
hex = "0503"
colour = "yellow"
features = ["gas-giant"]

[[systems.planets]]
orbit = 3
type = "terran"
capacity = 80

[[systems]]
name = "Vega"
hex = "0705"
colour = "blue"
"""

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
# Names are printable (issue 13: a control character in a name is refused); notes and titles
# may hold anything.
_PRINTABLE = st.characters(exclude_categories=["Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Zs"])
names = st.text(_PRINTABLE | st.just(" "), max_size=30).filter(lambda s: s.strip() != "")


@st.composite
def star_maps(draw: st.DrawFn) -> StarMap:
    width = draw(st.integers(2, 12))
    height = draw(st.integers(2, 12))
    cells = [from_offset(c, r) for c in range(width) for r in range(height)]
    chosen = draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)))
    n_systems = draw(st.integers(0, len(chosen)))
    system_cells, cloud_cells = chosen[:n_systems], chosen[n_systems:]
    system_names = draw(
        st.lists(names, min_size=n_systems, max_size=n_systems, unique_by=str.casefold)
    )
    systems = []
    for cell, name in zip(system_cells, system_names, strict=True):
        orbits = draw(st.lists(st.integers(1, 99), unique=True, max_size=4))
        planets = tuple(
            Planet(
                o,
                draw(st.sampled_from(PlanetType)),
                draw(st.integers(0, 200)),
                draw(st.booleans()),
            )
            for o in orbits
        )
        systems.append(
            StarSystem(
                name=name,
                hex=cell,
                colour=draw(st.sampled_from(StarColour)),
                planets=planets,
                features=tuple(draw(st.lists(st.sampled_from(Feature), unique=True))),
                settled=draw(st.booleans()),
                facilities=tuple(draw(st.lists(st.sampled_from(Facility), unique=True))),
                repair_mass_limit=draw(st.none() | st.integers(1, 300)),
                notes=draw(texts),
            )
        )
    edge = [c for c in cells if c not in chosen and any(n not in cells for n in c.neighbours())]
    entry_cells = draw(st.lists(st.sampled_from(edge), unique=True, max_size=3)) if edge else []
    entries = [Entry(draw(names) + f"#{i}", c) for i, c in enumerate(entry_cells)]
    return StarMap(
        name=draw(names),
        title=draw(texts),
        provenance=draw(texts),
        width=width,
        height=height,
        systems=systems,
        clouds=cloud_cells,
        entries=entries,
    )


@settings(max_examples=150, deadline=None)
@given(star_maps())
def test_save_then_load_gives_the_same_map_and_the_same_text(starmap: StarMap) -> None:
    text = mapfile.dumps(starmap)
    again = mapfile.loads(text)
    assert again == starmap
    assert mapfile.dumps(again) == text


@pytest.mark.parametrize("name", BUILTIN_MAPS)
def test_builtin_maps_round_trip(name: str, tmp_path: Path) -> None:
    starmap = load_builtin(name)
    path = tmp_path / f"{name}.toml"
    mapfile.save(starmap, path)
    assert mapfile.load(path) == starmap
    assert path.read_text(encoding="utf-8") == mapfile.dumps(starmap)


def test_a_hand_written_file_loads() -> None:
    m = mapfile.loads(GOOD)
    assert m.system("Sol").planets == (Planet(3, PlanetType.TERRAN, 80),)
    assert m.system("Sol").features == (Feature.GAS_GIANT,)
    assert m.is_cloud(from_offset(3, 3))
    assert m.entry("1").hex == from_offset(0, 0)


def test_strings_with_quotes_backslashes_and_newlines_survive() -> None:
    m = mapfile.loads(GOOD)
    odd = StarMap(
        name='say "hi"\\ \n\t\x7f\x01 é ☃',
        width=m.width,
        height=m.height,
        systems=m.systems,
    )
    assert mapfile.loads(mapfile.dumps(odd)) == odd


def _error(text: str) -> str:
    with pytest.raises(MapError) as caught:
        mapfile.loads(text, source="tiny.toml")
    return str(caught.value)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'colour = "blue"',
            'colour = "purple"',
            "tiny.toml: line 26: Invalid enum value 'purple' (expected one of: blue, white, "
            "yellow, orange, red) - at `$.systems[1].colour`",
        ),
        (
            "capacity = 80",
            "capacity = 80\nmineral = true",
            "line 22: Object contains unknown field `mineral` - at `$.systems[0].planets[0]`",
        ),
        (
            "capacity = 80",
            "capacity = -5",
            "line 21: Expected `int` >= 0 - at `$.systems[0].planets[0].capacity`",
        ),
        (
            'hex = "0705"',
            'hex = "0709"',
            "line 25: hex 0709 is off the map - at `$.systems[1].hex`",
        ),
        (
            'hex = "0705"',
            'hex = "0404"',
            "line 25: hex 0404 is a cloud - at `$.systems[1].hex`",
        ),
        (
            '"0404"]',
            '"44"]',
            "line 6: hex label '44' is not four digits",
        ),
        (
            'name = "Vega"',
            'name = "sol"',
            "line 24: 'sol' is already system 0 - at `$.systems[1].name`",
        ),
        (
            'hex = "0101"',
            'hex = "0202"',
            "line 10: hex 0202 is not on the map edge",
        ),
        (
            'features = ["gas-giant"]',
            'features = ["gas-giant", "nebula"]',
            "line 16: Invalid enum value 'nebula' (expected one of: dense-world, gas-giant, "
            "asteroid-field) - at `$.systems[0].features[1]`",
        ),
        ("version = 1", "version = 2", "line 2: Invalid enum value 2 - at `$.version`"),
        ("width = 8", "width = 8.5", "line 4: Expected `int`, got `float` - at `$.width`"),
        ('name = "tiny"\n', "", "Object missing required field `name`"),
        (
            "width = 8",
            "width = 8\nwidth = 9",
            "not valid TOML: Cannot overwrite a value (at line 5",
        ),
    ],
)
def test_errors_name_the_field_and_line(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    assert expected in _error(GOOD.replace(old, new, 1))


def test_all_problems_are_reported_together_in_file_order() -> None:
    text = (
        GOOD.replace('"0403"', '"x"')
        .replace('hex = "0705"', 'hex = "07"')
        .replace('hex = "0503"', 'hex = "0404"')
        .replace('hex = "0101"', 'hex = "0909"')
    )
    with pytest.raises(MapError) as caught:
        mapfile.loads(text, source="tiny.toml")
    assert [str(p) for p in caught.value.problems] == [
        "line 6: hex label 'x' is not four digits CCRR (column, row), e.g. '0712' - at "
        "`$.clouds[0]`",
        "line 10: hex 0909 is off the map - at `$.entries[0].hex`",
        "line 14: hex 0404 is a cloud - at `$.systems[0].hex`",
        "line 25: hex label '07' is not four digits CCRR (column, row), e.g. '0712' - at "
        "`$.systems[1].hex`",
    ]


def test_missing_file_is_a_map_error(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="cannot read map file"):
        mapfile.load(tmp_path / "nope.toml")
