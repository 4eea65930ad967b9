"""Star maps: hex geometry, the campaign map on networkx, map files, generators and pictures.

Pure rules code: nothing here imports the project's other packages, typer, rich or sqlalchemy,
except `maps.render`, the one module that draws with rich (import it directly).
"""

from maps.builtin import BUILTIN_MAPS, load_builtin
from maps.builtin import resolve as resolve_map
from maps.generate import generate
from maps.hexes import Hex, from_offset, label, line, parse_label, ring, spiral, to_offset
from maps.mapfile import dumps as dumps_map
from maps.mapfile import load as load_map
from maps.mapfile import loads as loads_map
from maps.mapfile import save as save_map
from maps.model import Entry, Facility, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.starmap import COMMAND_RADIUS, MapError, Problem, Route, StarMap
from maps.svg import Marker, to_svg

__all__ = [
    "BUILTIN_MAPS",
    "COMMAND_RADIUS",
    "Entry",
    "Facility",
    "Feature",
    "Hex",
    "MapError",
    "Marker",
    "Planet",
    "PlanetType",
    "Problem",
    "Route",
    "StarColour",
    "StarMap",
    "StarSystem",
    "dumps_map",
    "from_offset",
    "generate",
    "label",
    "line",
    "load_builtin",
    "load_map",
    "loads_map",
    "parse_label",
    "resolve_map",
    "ring",
    "save_map",
    "spiral",
    "to_offset",
    "to_svg",
]
