"""SVG pictures of star maps, written by hand (escaped string building, no dependency).

The picture has flat-topped hexes in printed columns, hex labels, clouds, entry hexes, stars in
their colours with a name and a dot per planet, and optional markers (fleets) and control rings.
Hovering over a star in a browser shows its planets and features (an SVG ``<title>``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from maps.hexes import Hex, label, to_offset
from maps.model import Feature, PlanetType, StarColour, StarSystem
from maps.starmap import StarMap

__all__ = ["Arrow", "Marker", "Region", "to_svg"]

SIZE = 26.0  # hex radius (centre to corner) in px
MARGIN = 16.0
TOP = 34.0  # room for the title
LEGEND = 46.0  # room for the key
LEGEND_WIDTH = 640  # the legend's longest line, in px, with the margins
KEY_LINE = 16.0  # each further line of the legend's key
KEY_PER_LINE = 4  # (colour, meaning) pairs on one line of the key

STAR_FILL: dict[StarColour, str] = {
    StarColour.BLUE: "#7aa8ff",
    StarColour.WHITE: "#f2f4ff",
    StarColour.YELLOW: "#ffd84a",
    StarColour.ORANGE: "#ff9a3c",
    StarColour.RED: "#ff5a4a",
}

PLANET_FILL: dict[PlanetType, str] = {
    PlanetType.TERRAN: "#3fd16b",
    PlanetType.SUB_TERRAN: "#2fb3b3",
    PlanetType.MINIMAL_TERRAN: "#c9a46b",
    PlanetType.BARREN: "#8c8c8c",
}

FEATURE_MARK: dict[Feature, str] = {
    Feature.DENSE_WORLD: "D",
    Feature.GAS_GIANT: "G",
    Feature.ASTEROID_FIELD: "A",
}


@dataclass(frozen=True, slots=True)
class Marker:
    """Something to draw on a hex, e.g. a fleet: a short text on a coloured tag.

    ``title`` is its tooltip; ``key`` is written as its ``data-key`` attribute, for a page's
    script to find it (e.g. a unit id). Several markers on one hex stack downwards.
    """

    hex: Hex
    text: str
    colour: str = "#ffffff"
    title: str = ""
    key: str = ""


@dataclass(frozen=True, slots=True)
class Region:
    """A set of hexes drawn as one layer under the stars (e.g. a command range): each hex
    filled and outlined; ``name`` is the layer's id."""

    name: str
    hexes: frozenset[Hex]
    fill: str = "none"
    stroke: str = "none"
    opacity: float = 1.0
    title: str = ""


@dataclass(frozen=True, slots=True)
class Arrow:
    """A line from one hex to another (e.g. a unit's course), with an arrowhead."""

    start: Hex
    end: Hex
    colour: str = "#ffffff"
    key: str = ""
    title: str = ""


def _centre(cell: Hex) -> tuple[float, float]:
    col, row = to_offset(cell)
    x = MARGIN + SIZE + 1.5 * SIZE * col
    y = TOP + math.sqrt(3) * SIZE * (row + 0.5 + 0.5 * (col & 1))
    return x, y


def _corners(x: float, y: float, size: float = SIZE) -> str:
    points = []
    for k in range(6):
        angle = math.pi / 3 * k
        points.append(f"{x + size * math.cos(angle):.1f},{y + size * math.sin(angle):.1f}")
    return " ".join(points)


@functools.lru_cache(maxsize=16)
def _grid_svg(cells: tuple[Hex, ...], clouds: frozenset[Hex]) -> str:
    """The grid's hexes, clouds filled, and their labels: the same for every drawing of a map
    (a player's map is drawn for each of his pages), so drawn once per map."""
    out = ['<g id="grid" stroke="#2c3550" stroke-width="1">']
    for cell in cells:
        x, y = _centre(cell)
        fill = "#5b3f78" if cell in clouds else "none"
        out.append(
            f'<polygon class="hex" data-hex="{label(cell)}" points="{_corners(x, y)}" '
            f'fill="{fill}"/>'
        )
    out.append("</g>")
    out.append('<g id="labels" font-size="6.5" fill="#6f7a99" text-anchor="middle">')
    for cell in cells:
        x, y = _centre(cell)
        out.append(f'<text x="{x:.1f}" y="{y - SIZE * 0.58:.1f}">{label(cell)}</text>')
    out.append("</g>")
    return "\n".join(out)


def _attr(value: str) -> str:
    from xml.sax.saxutils import quoteattr  # imports urllib and http: only when drawing

    return quoteattr(value)


def _escape(text: str) -> str:
    """Escape `&`, `<` and `>` for an SVG text node (`xml.sax.saxutils.escape`)."""
    from xml.sax.saxutils import escape as sax_escape

    return sax_escape(text)


def to_svg(
    starmap: StarMap,
    *,
    explored: Collection[str] | None = None,
    markers: Sequence[Marker] = (),
    control: Mapping[str, str] | None = None,
    regions: Sequence[Region] = (),
    arrows: Sequence[Arrow] = (),
    key: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> str:
    """Return the map as a standalone SVG document.

    ``explored`` hides the planets of systems not named (``None`` shows all), as in
    `maps.render.render_map`. ``markers`` draws tags (fleets) on hexes; ``control`` maps a system
    name to a CSS colour drawn as a ring round the star. ``regions`` shade sets of hexes under
    the stars, ``arrows`` draw courses over them, and ``key`` adds (colour, meaning) pairs to
    the legend. Every hex of the grid carries its label as ``data-hex``.
    """
    # A small map is still as wide as its legend's longest line.
    width = max(2 * MARGIN + SIZE * (1.5 * starmap.width + 0.5), LEGEND_WIDTH)
    extra = KEY_LINE * (1 + (len(key) - 1) // KEY_PER_LINE) + 4 if key else 0.0
    height = TOP + math.sqrt(3) * SIZE * (starmap.height + 0.5) + MARGIN + LEGEND + extra
    heading = title or starmap.title or starmap.name
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif">',
        f"<title>{_escape(heading)}</title>",
        f'<rect x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#0b1020"/>',
        f'<text x="{MARGIN}" y="{TOP - 12}" font-size="15" fill="#e8e8f0" font-weight="bold">'
        f"{_escape(heading)}</text>",
    ]
    # Grid, clouds and labels first, so stars draw on top.
    out.append(_grid_svg(tuple(starmap.cells()), frozenset(starmap.clouds)))
    out.append('<g id="entries">')
    for entry in starmap.entries:
        x, y = _centre(entry.hex)
        out.append(
            f'<polygon points="{_corners(x, y, SIZE - 2)}" fill="none" stroke="#ffe066" '
            'stroke-width="2.5"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="10" fill="#ffe066" '
            f'text-anchor="middle" font-weight="bold">{_escape(entry.name[:6])}</text>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{y + 12:.1f}" font-size="6" fill="#ffe066" '
            'text-anchor="middle">entry</text>'
        )
    out.append("</g>")
    for region in regions:
        out += _region_svg(region)
    out.append('<g id="systems">')
    for system in starmap.systems:
        known = explored is None or system.name in explored
        ring_colour = control.get(system.name) if control else None
        out += _system_svg(system, known=known, ring_colour=ring_colour)
    out.append("</g>")
    if arrows:
        out += _arrows_svg(arrows)
    if markers:
        out.append('<g id="markers" font-size="7" text-anchor="middle">')
        stacked: dict[Hex, int] = {}
        for marker in markers:
            x, y = _centre(marker.hex)
            y += 9 * stacked.get(marker.hex, 0)
            stacked[marker.hex] = stacked.get(marker.hex, 0) + 1
            wide = max(18.0, 4 + 4.2 * len(marker.text))
            key_attr = f" data-key={_attr(marker.key)}" if marker.key else ""
            out.append(f'<g class="marker"{key_attr}>')
            if marker.title:
                out.append(f"<title>{_escape(marker.title)}</title>")
            out.append(
                f'<rect x="{x + 4:.1f}" y="{y - 20:.1f}" width="{wide:.1f}" height="9" rx="2" '
                f'fill={_attr(marker.colour)} stroke="#000" stroke-width="0.5"/>'
            )
            out.append(
                f'<text x="{x + 4 + wide / 2:.1f}" y="{y - 13:.1f}" fill="#000">'
                f"{_escape(marker.text)}</text>"
            )
            out.append("</g>")
        out.append("</g>")
    out += _legend(height - extra)
    if key:
        out += _key_svg(key, height - extra + 6)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _system_svg(system: StarSystem, *, known: bool, ring_colour: str | None) -> list[str]:
    """Return the SVG group of one star system (its tooltip lists what is known)."""
    out: list[str] = []
    x, y = _centre(system.hex)
    details = [f"{system.name} ({label(system.hex)}), {system.colour.value} star"]
    if known:
        details += [
            f"orbit {p.orbit}: {p.type.value}, capacity {p.capacity}"
            + (", mineral-rich" if p.mineral_rich else "")
            for p in system.planets
        ]
        details += [f.value for f in system.features]
        if system.settled:
            details.append("settled")
        details += [f"facility: {f.value}" for f in system.facilities]
    else:
        details.append("unexplored")
    out.append(f'<g class="system" data-name={_attr(system.name)}>')
    out.append(f"<title>{_escape(chr(10).join(details))}</title>")
    if ring_colour is not None:
        out.append(
            f'<circle cx="{x:.1f}" cy="{y - 3:.1f}" r="11" fill="none" '
            f'stroke={_attr(ring_colour)} stroke-width="2.5"/>'
        )
    out.append(
        f'<circle cx="{x:.1f}" cy="{y - 3:.1f}" r="7" fill="{STAR_FILL[system.colour]}" '
        'stroke="#000" stroke-width="0.8"/>'
    )
    if known:
        count = len(system.planets)
        for i, planet in enumerate(system.planets):
            px = x - 3.2 * (count - 1) + 6.4 * i
            ring = ' stroke="#ffffff" stroke-width="1"' if planet.mineral_rich else ""
            rich = ", mineral-rich" if planet.mineral_rich else ""
            out.append(
                f'<g class="planet" data-planet={_attr(f"{system.name}/{planet.orbit}")}>'
                f"<title>{_escape(system.name)}/{planet.orbit}: orbit {planet.orbit}, "
                f"{planet.type.value}, capacity {planet.capacity}{rich}</title>"
                f'<circle cx="{px:.1f}" cy="{y + 7.5:.1f}" r="2.1" '
                f'fill="{PLANET_FILL[planet.type]}"{ring}/>'
                f'<text x="{px:.1f}" y="{y + 14.5:.1f}" font-size="5" fill="#b8c0e0" '
                f'text-anchor="middle">{planet.orbit}</text></g>'
            )
        marks = "".join(FEATURE_MARK[f] for f in system.features)
        if marks:
            out.append(
                f'<text x="{x + 9:.1f}" y="{y - 6:.1f}" font-size="7" fill="#b8c0e0">'
                f"{_escape(marks)}</text>"
            )
    else:
        out.append(
            f'<text x="{x:.1f}" y="{y + 10:.1f}" font-size="7" fill="#8890a8" '
            'text-anchor="middle">?</text>'
        )
    below = 21 if known and system.planets else 18  # under the orbit numbers
    out.append(
        f'<text x="{x:.1f}" y="{y + below:.1f}" font-size="8" fill="#e8e8f0" '
        f'text-anchor="middle">{_escape(system.name)}</text>'
    )
    out.append("</g>")
    return out


def _region_svg(region: Region) -> list[str]:
    """Return a region's layer: one polygon a hex, under one tooltip."""
    out = [
        f"<g id={_attr(region.name)} fill={_attr(region.fill)} stroke={_attr(region.stroke)} "
        f'opacity="{region.opacity:g}" pointer-events="none">'
    ]
    if region.title:
        out.append(f"<title>{_escape(region.title)}</title>")
    for cell in sorted(region.hexes):
        x, y = _centre(cell)
        out.append(f'<polygon points="{_corners(x, y, SIZE - 1.5)}"/>')
    out.append("</g>")
    return out


def _arrows_svg(arrows: Sequence[Arrow]) -> list[str]:
    """Return the courses: a line from hex to hex, ending in an arrowhead."""
    out = ['<g id="arrows" stroke-width="1.6" fill="none">']
    for arrow in arrows:
        (x1, y1), (x2, y2) = _centre(arrow.start), _centre(arrow.end)
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        tip_x, tip_y = x2 - 9 * ux, y2 - 9 * uy  # stop short of the star
        left = (tip_x - 5 * ux - 3 * uy, tip_y - 5 * uy + 3 * ux)
        right = (tip_x - 5 * ux + 3 * uy, tip_y - 5 * uy - 3 * ux)
        key_attr = f" data-key={_attr(arrow.key)}" if arrow.key else ""
        out.append(f'<g class="arrow"{key_attr} stroke={_attr(arrow.colour)}>')
        if arrow.title:
            out.append(f"<title>{_escape(arrow.title)}</title>")
        out.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{tip_x:.1f}" y2="{tip_y:.1f}" '
            'stroke-dasharray="4 2"/>'
        )
        out.append(
            f'<polyline points="{left[0]:.1f},{left[1]:.1f} {tip_x:.1f},{tip_y:.1f} '
            f'{right[0]:.1f},{right[1]:.1f}"/>'
        )
        out.append("</g>")
    out.append("</g>")
    return out


def _key_svg(key: Sequence[tuple[str, str]], y: float) -> list[str]:
    """Return the legend's further lines: a swatch and a meaning each."""
    out = [f'<g id="key" font-size="9" fill="#c8cce0" transform="translate({MARGIN},{y:.1f})">']
    for i, (colour, meaning) in enumerate(key):
        row, col = divmod(i, KEY_PER_LINE)
        x, dy = col * 150.0, row * KEY_LINE
        out.append(
            f'<rect x="{x:.1f}" y="{dy - 5:.1f}" width="10" height="8" fill={_attr(colour)} '
            'stroke="#000" stroke-width="0.5"/>'
        )
        out.append(f'<text x="{x + 14:.1f}" y="{dy + 2:.1f}">{_escape(meaning)}</text>')
    out.append("</g>")
    return out


def _legend(height: float) -> list[str]:
    y = height - LEGEND + 14
    out = [f'<g id="legend" font-size="9" fill="#c8cce0" transform="translate({MARGIN},{y:.1f})">']
    x = 0.0
    for colour, fill in STAR_FILL.items():
        out.append(f'<circle cx="{x + 5:.1f}" cy="0" r="5" fill="{fill}"/>')
        out.append(f'<text x="{x + 13:.1f}" y="3">{colour.value}</text>')
        x += 22 + 5.5 * len(colour.value)
    x += 10
    for kind, fill in PLANET_FILL.items():
        out.append(f'<circle cx="{x + 3:.1f}" cy="0" r="3" fill="{fill}"/>')
        out.append(f'<text x="{x + 9:.1f}" y="3">{kind.value}</text>')
        x += 18 + 5.5 * len(kind.value)
    out.append(
        '<text x="0" y="20" xml:space="preserve">white ring on a planet: mineral-rich   '
        "G gas giant   A asteroid field   D dense world   "
        "purple hex: gas/dust cloud   gold hex: entry hex</text>"
    )
    out.append("</g>")
    return out
