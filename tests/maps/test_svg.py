"""SVG export: well-formed, every system present, text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from maps.builtin import BUILTIN_MAPS, load_builtin
from maps.hexes import parse_label
from maps.model import StarColour, StarSystem
from maps.starmap import StarMap
from maps.svg import Marker, to_svg

NS = "{http://www.w3.org/2000/svg}"


def systems_in(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg.encode("utf-8"))
    return {g.attrib["data-name"]: g for g in root.iter(f"{NS}g") if g.get("class") == "system"}


@pytest.mark.parametrize("name", BUILTIN_MAPS)
def test_svg_is_well_formed_and_has_every_system(name: str) -> None:
    m = load_builtin(name)
    svg = to_svg(m)
    found = systems_in(svg)
    assert set(found) == {s.name for s in m.systems}
    for system in m.systems:
        texts = [t.text for t in found[system.name].iter(f"{NS}text")]
        assert system.name in texts
    root = ET.fromstring(svg.encode("utf-8"))
    polygons = list(root.iter(f"{NS}polygon"))
    assert len(polygons) == m.width * m.height + len(m.entries)


def test_names_are_escaped() -> None:
    m = StarMap(
        name="<&>",
        width=4,
        height=4,
        systems=[StarSystem('A&B <"x">', parse_label("0202"), StarColour.RED)],
    )
    svg = to_svg(m, markers=[Marker(parse_label("0303"), "<1>", '"red"')])
    assert 'A&B <"x">' in systems_in(svg)


def test_fog_markers_and_control() -> None:
    m = load_builtin("lafayette")
    svg = to_svg(
        m,
        explored={"Lafayette"},
        markers=[Marker(parse_label("0909"), "F1", "#44aaff")],
        control={"Lafayette": "#3366ff"},
    )
    found = systems_in(svg)
    hudson = found["Hudson"].find(f"{NS}title")
    lafayette = found["Lafayette"].find(f"{NS}title")
    assert hudson is not None
    assert "unexplored" in (hudson.text or "")
    assert lafayette is not None
    assert "terran, capacity 100" in (lafayette.text or "")
    assert 'stroke="#3366ff"' in svg
    assert ">F1</text>" in svg
