"""SVG pictures of star maps, written by hand (escaped string building, no dependency).

The picture has flat-topped hexes in printed columns, hex labels, clouds, entry hexes, stars in
their colours with a name and a dot per planet, and optional markers (fleets) and control rings.
Hovering over a star in a browser shows its planets and features (an SVG ``<title>``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from maps.hexes import Hex, label, to_offset
from maps.model import Feature, PlanetType, StarColour, StarSystem
from maps.starmap import StarMap

__all__ = ["Marker", "to_svg"]

SIZE = 26.0  # hex radius (centre to corner) in px
MARGIN = 16.0
TOP = 34.0  # room for the title
LEGEND = 46.0  # room for the key
LEGEND_WIDTH = 640  # the legend's longest line, in px, with the margins

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
    """Something to draw on a hex, e.g. a fleet: a short text on a coloured tag."""

    hex: Hex
    text: str
    colour: str = "#ffffff"


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


def _attr(value: str) -> str:
    return quoteattr(value)


def to_svg(
    starmap: StarMap,
    *,
    explored: Collection[str] | None = None,
    markers: Sequence[Marker] = (),
    control: Mapping[str, str] | None = None,
) -> str:
    """Return the map as a standalone SVG document.

    ``explored`` hides the planets of systems not named (``None`` shows all), as in
    `maps.render.render_map`. ``markers`` draws tags (fleets) on hexes; ``control`` maps a system
    name to a CSS colour drawn as a ring round the star.
    """
    # A small map is still as wide as its legend's longest line.
    width = max(2 * MARGIN + SIZE * (1.5 * starmap.width + 0.5), LEGEND_WIDTH)
    height = TOP + math.sqrt(3) * SIZE * (starmap.height + 0.5) + MARGIN + LEGEND
    out: list[str] = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif">',
        f"<title>{escape(starmap.title or starmap.name)}</title>",
        f'<rect x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#0b1020"/>',
        f'<text x="{MARGIN}" y="{TOP - 12}" font-size="15" fill="#e8e8f0" font-weight="bold">'
        f"{escape(starmap.title or starmap.name)}</text>",
    ]
    # Grid, clouds and labels first, so stars draw on top.
    out.append('<g id="grid" stroke="#2c3550" stroke-width="1">')
    for cell in starmap.cells():
        x, y = _centre(cell)
        fill = "#5b3f78" if starmap.is_cloud(cell) else "none"
        out.append(f'<polygon points="{_corners(x, y)}" fill="{fill}"/>')
    out.append("</g>")
    out.append('<g id="labels" font-size="6.5" fill="#6f7a99" text-anchor="middle">')
    for cell in starmap.cells():
        x, y = _centre(cell)
        out.append(f'<text x="{x:.1f}" y="{y - SIZE * 0.58:.1f}">{label(cell)}</text>')
    out.append("</g>")
    out.append('<g id="entries">')
    for entry in starmap.entries:
        x, y = _centre(entry.hex)
        out.append(
            f'<polygon points="{_corners(x, y, SIZE - 2)}" fill="none" stroke="#ffe066" '
            'stroke-width="2.5"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="10" fill="#ffe066" '
            f'text-anchor="middle" font-weight="bold">{escape(entry.name[:6])}</text>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{y + 12:.1f}" font-size="6" fill="#ffe066" '
            'text-anchor="middle">entry</text>'
        )
    out.append("</g>")
    out.append('<g id="systems">')
    for system in starmap.systems:
        known = explored is None or system.name in explored
        ring_colour = control.get(system.name) if control else None
        out += _system_svg(system, known=known, ring_colour=ring_colour)
    out.append("</g>")
    if markers:
        out.append('<g id="markers" font-size="7" text-anchor="middle">')
        for marker in markers:
            x, y = _centre(marker.hex)
            out.append(
                f'<rect x="{x + 4:.1f}" y="{y - 20:.1f}" width="18" height="9" rx="2" '
                f'fill={_attr(marker.colour)} stroke="#000" stroke-width="0.5"/>'
            )
            out.append(
                f'<text x="{x + 13:.1f}" y="{y - 13:.1f}" fill="#000">{escape(marker.text)}</text>'
            )
        out.append("</g>")
    out += _legend(height)
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
    out.append(f"<title>{escape(chr(10).join(details))}</title>")
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
            px = x - 2.6 * (count - 1) + 5.2 * i
            ring = ' stroke="#ffffff" stroke-width="1"' if planet.mineral_rich else ""
            out.append(
                f'<circle cx="{px:.1f}" cy="{y + 7.5:.1f}" r="2.1" '
                f'fill="{PLANET_FILL[planet.type]}"{ring}/>'
            )
        marks = "".join(FEATURE_MARK[f] for f in system.features)
        if marks:
            out.append(
                f'<text x="{x + 9:.1f}" y="{y - 6:.1f}" font-size="7" fill="#b8c0e0">'
                f"{escape(marks)}</text>"
            )
    else:
        out.append(
            f'<text x="{x:.1f}" y="{y + 10:.1f}" font-size="7" fill="#8890a8" '
            'text-anchor="middle">?</text>'
        )
    out.append(
        f'<text x="{x:.1f}" y="{y + 18:.1f}" font-size="8" fill="#e8e8f0" '
        f'text-anchor="middle">{escape(system.name)}</text>'
    )
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
