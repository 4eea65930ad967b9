"""Read and write map files: TOML an umpire can write by hand.

Reading uses the standard library's ``tomllib`` and a typed ``msgspec`` decoder that rejects
unknown fields, then the map rules of `maps.starmap.validate`; every error names the field
(``$.systems[3].hex``) and, where it can be found, the line. Writing uses a small emitter
here (the data is only strings, integers, booleans and arrays of tables), so there is no TOML
writer dependency. ``loads(dumps(m)) == m`` and ``dumps(loads(dumps(m))) == dumps(m)``.

An example::

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
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from maps import tomlinput
from maps.hexes import Hex, label, parse_label
from maps.model import Entry, Facility, Feature, Planet, PlanetType, StarColour, StarSystem
from maps.starmap import MapError, Problem, StarMap, validate

__all__ = ["FORMAT", "VERSION", "dumps", "load", "loads", "save"]

FORMAT = "stellar-umpire-map"
VERSION = 1


class _Doc(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of the file schema: unknown (probably misspelt) fields are errors."""


class PlanetDoc(_Doc, kw_only=True):
    """A ``[[systems.planets]]`` table."""

    orbit: Annotated[int, msgspec.Meta(ge=1, le=99)]
    type: PlanetType
    capacity: Annotated[int, msgspec.Meta(ge=0)]
    mineral_rich: bool = False


class SystemDoc(_Doc, kw_only=True):
    """A ``[[systems]]`` table; ``hex`` is a ``CCRR`` label."""

    name: Annotated[str, msgspec.Meta(min_length=1)]
    hex: str
    colour: StarColour
    planets: list[PlanetDoc] = []
    features: list[Feature] = []
    settled: bool = False
    facilities: list[Facility] = []
    repair_mass_limit: Annotated[int, msgspec.Meta(ge=1)] | None = None
    notes: str = ""


class EntryDoc(_Doc, kw_only=True):
    """An ``[[entries]]`` table: a player slot and its edge hex."""

    name: Annotated[str, msgspec.Meta(min_length=1)]
    hex: str


class MapDoc(_Doc, kw_only=True):
    """The whole file."""

    format: Literal["stellar-umpire-map"]
    version: Literal[1]
    name: Annotated[str, msgspec.Meta(min_length=1)]
    title: str = ""
    provenance: str = ""
    width: Annotated[int, msgspec.Meta(ge=1, le=99)]
    height: Annotated[int, msgspec.Meta(ge=1, le=99)]
    clouds: list[str] = []
    entries: list[EntryDoc] = []
    systems: list[SystemDoc] = []


# The allowed words of each enumerated field, for error messages.
_CHOICES: dict[str, list[str]] = {
    "colour": [c.value for c in StarColour],
    "type": [t.value for t in PlanetType],
    "features": [f.value for f in Feature],
    "facilities": [f.value for f in Facility],
}

_PATH_PART = re.compile(r"\.([A-Za-z_]+)|\[(\d+)\]")


def _parse_path(path: str) -> tuple[str | int, ...]:
    return tuple(
        int(index) if index else key for key, index in _PATH_PART.findall(path.removeprefix("$"))
    )


def _locate(text: str, where: tuple[str | int, ...]) -> int | None:
    """Return the 1-based line of the field at ``where`` in hand-written TOML, if found.

    Understands the layout `dumps` writes and people copy: ``[[systems]]`` /
    ``[[systems.planets]]`` array-of-tables headers and ``key = value`` lines.
    """
    lines = text.splitlines()
    start, stop = 0, len(lines)
    table = ""
    parts = list(where)
    while parts:
        part = parts.pop(0)
        index = parts[0] if parts else None
        if isinstance(part, str) and isinstance(index, int):
            parts.pop(0)
            table = f"{table}.{part}" if table else part
            header = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]")
            hits = [i for i in range(start, stop) if header.match(lines[i])]
            if index >= len(hits):
                # Not an array of tables (e.g. an inline list): fall back to the key line.
                key = re.compile(rf"^\s*{re.escape(part)}\s*=")
                found = next((i for i in range(start, stop) if key.match(lines[i])), None)
                return None if found is None else found + 1
            start = hits[index]
            following = [i for i in hits if i > start]
            stop = following[0] if following else stop
            # The table ends at the next header that is not one of its own sub-tables.
            other = re.compile(r"^\s*\[")
            own = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\.")
            for i in range(start + 1, stop):
                if other.match(lines[i]) and not own.match(lines[i]):
                    stop = i
                    break
        elif isinstance(part, str):
            key = re.compile(rf"^\s*{re.escape(part)}\s*=")
            sub = re.compile(r"^\s*\[")
            for i in range(start, stop):
                if i > start and sub.match(lines[i]) and table:
                    break
                if key.match(lines[i]):
                    return i + 1
            return start + 1 if table else None
    return start + 1 if table else None


def _order(problem: Problem) -> tuple[tuple[int, str], ...]:
    """Sort key: problems in the order their fields appear in the file."""
    sections = {"clouds": 0, "entries": 1, "systems": 2}
    return tuple(
        (part, "") if isinstance(part, int) else (sections.get(part, -1), part)
        for part in problem.where
    )


def _fail(problems: list[Problem], text: str, source: str) -> MapError:
    located: list[Problem | str] = []
    for p in problems:
        line = _locate(text, p.where)
        located.append(f"line {line}: {p}" if line is not None else str(p))
    return MapError(located, source=source)


def loads(text: str, *, source: str = "") -> StarMap:
    """Return the map written in a TOML string.

    Raises:
        MapError: listing every problem, each with its field path and line where known.
    """
    try:
        raw = tomllib.loads(tomlinput.check(text))
    except (tomllib.TOMLDecodeError, msgspec.DecodeError) as exc:
        raise MapError([f"not valid TOML: {exc}"], source=source) from None
    except RecursionError:  # dotted keys nest without brackets
        raise MapError(["not valid TOML: nested too deep"], source=source) from None
    try:
        doc = msgspec.convert(raw, type=MapDoc, strict=True)
    except msgspec.ValidationError as exc:
        message, _, path = str(exc).rpartition(" - at `")
        if not message:
            message, path = str(exc), "$`"
        where = _parse_path(path.rstrip("`"))
        field = next((part for part in reversed(where) if isinstance(part, str)), "")
        if message.startswith("Invalid enum value") and field in _CHOICES:
            message += f" (expected one of: {', '.join(_CHOICES[field])})"
        unknown = re.search(r"unknown field `([^`]+)`", message)
        line = _locate(text, (*where, unknown.group(1)) if unknown else where)
        problem = Problem(where, message)
        raise MapError(
            [f"line {line}: {problem}" if line is not None else str(problem)], source=source
        ) from None

    problems: list[Problem] = []

    def cell(value: str, where: tuple[str | int, ...]) -> Hex:
        try:
            return parse_label(value)
        except ValueError as exc:
            problems.append(Problem(where, str(exc)))
            return Hex(-999, -999)

    clouds = [cell(c, ("clouds", i)) for i, c in enumerate(doc.clouds)]
    entries = [
        Entry(name=e.name, hex=cell(e.hex, ("entries", i, "hex")))
        for i, e in enumerate(doc.entries)
    ]
    systems = [
        StarSystem(
            name=s.name,
            hex=cell(s.hex, ("systems", i, "hex")),
            colour=s.colour,
            planets=tuple(
                Planet(orbit=p.orbit, type=p.type, capacity=p.capacity, mineral_rich=p.mineral_rich)
                for p in s.planets
            ),
            features=tuple(s.features),
            settled=s.settled,
            facilities=tuple(s.facilities),
            repair_mass_limit=s.repair_mass_limit,
            notes=s.notes,
        )
        for i, s in enumerate(doc.systems)
    ]
    # Map rules too, so that one run reports everything; a bad label was already reported
    # at its place, so rule problems there (its stand-in hex is off the map) are dropped.
    bad_labels = {p.where for p in problems}
    problems += [
        p
        for p in validate(doc.width, doc.height, systems, clouds, entries)
        if p.where not in bad_labels
    ]
    if problems:
        raise _fail(sorted(problems, key=_order), text, source)
    try:
        return StarMap(
            name=doc.name,
            title=doc.title,
            provenance=doc.provenance,
            width=doc.width,
            height=doc.height,
            systems=systems,
            clouds=clouds,
            entries=entries,
        )
    except MapError as exc:
        found = [p for p in exc.problems if isinstance(p, Problem)]
        raise _fail(found, text, source) from None


def load(path: str | Path) -> StarMap:
    """Return the map in a TOML file.

    Raises:
        MapError: if the file cannot be read or is not a valid map.
    """
    path = Path(path)
    try:
        data = tomlinput.read_limited(path)
    except (OSError, tomlinput.TooLargeError) as exc:
        raise MapError([f"cannot read map file: {exc}"], source=str(path)) from None
    try:
        text = tomlinput.check(data)
    except msgspec.DecodeError as exc:
        raise MapError([f"cannot read map file: {exc}"], source=str(path)) from None
    return loads(text, source=str(path))


# ---------------------------------------------------------------------- writing

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _str(value: str) -> str:
    """Return a TOML basic string."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _list(values: list[str], per_line: int = 10) -> str:
    if len(values) <= per_line:
        return "[" + ", ".join(values) + "]"
    rows = [values[i : i + per_line] for i in range(0, len(values), per_line)]
    return "[\n" + "".join("    " + ", ".join(row) + ",\n" for row in rows) + "]"


def dumps(starmap: StarMap) -> str:
    """Return the map as canonical TOML text (systems in hex order, clouds sorted)."""
    out = [
        "# A stellar-umpire star map. Hexes are CCRR labels: column then row, from 01.",
        f"format = {_str(FORMAT)}",
        f"version = {VERSION}",
        f"name = {_str(starmap.name)}",
    ]
    if starmap.title:
        out.append(f"title = {_str(starmap.title)}")
    if starmap.provenance:
        out.append(f"provenance = {_str(starmap.provenance)}")
    out += [f"width = {starmap.width}", f"height = {starmap.height}"]
    if starmap.clouds:
        out.append(f"clouds = {_list([_str(label(c)) for c in sorted(starmap.clouds)])}")
    for entry in starmap.entries:
        out += ["", "[[entries]]", f"name = {_str(entry.name)}", f"hex = {_str(label(entry.hex))}"]
    for system in starmap.systems:
        out += [
            "",
            "[[systems]]",
            f"name = {_str(system.name)}",
            f"hex = {_str(label(system.hex))}",
            f"colour = {_str(system.colour.value)}",
        ]
        if system.features:
            out.append(f"features = {_list([_str(f.value) for f in system.features])}")
        if system.settled:
            out.append("settled = true")
        if system.facilities:
            out.append(f"facilities = {_list([_str(f.value) for f in system.facilities])}")
        if system.repair_mass_limit is not None:
            out.append(f"repair_mass_limit = {system.repair_mass_limit}")
        if system.notes:
            out.append(f"notes = {_str(system.notes)}")
        for planet in system.planets:
            out += [
                "",
                "[[systems.planets]]",
                f"orbit = {planet.orbit}",
                f"type = {_str(planet.type.value)}",
                f"capacity = {planet.capacity}",
            ]
            if planet.mineral_rich:
                out.append("mineral_rich = true")
    return "\n".join(out) + "\n"


def save(starmap: StarMap, path: str | Path) -> None:
    """Write the map to a TOML file (UTF-8)."""
    Path(path).write_text(dumps(starmap), encoding="utf-8")
