"""Design files: decode TOML into :class:`~tactical.ship.Design`, write it back, find built-ins.

Built-in designs live in ``tactical/data/ships/<rules>/<id>.toml``. A design's id is its file
name without ``.toml``; the same id may exist under both rules (``heavy_cruiser`` is an FT2
standard class and the Continuum worked example).

:func:`format_design` writes the canonical TOML for a design, and
``decode_design(format_design(d)) == d`` for every design (tested with Hypothesis).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import msgspec

from maps import tomlinput
from tactical.points import Costing, build, price
from tactical.ship import DEFAULT_PRESET, PRESETS, Design, Mount, Preset, Problem, RulesName, Ship

__all__ = [
    "DesignFileError",
    "UnknownDesignError",
    "UnknownPresetError",
    "builtin_ids",
    "builtin_ships",
    "cost_design_file",
    "decode_design",
    "format_design",
    "load_builtin",
    "preset_named",
    "read_design_file",
    "show_builtin",
]

_DATA = "data/ships"


class DesignFileError(ValueError):
    """A design file could not be read or decoded; ``problems`` says where and why."""

    def __init__(self, source: str, problems: tuple[Problem, ...]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(str(p) for p in problems))


class UnknownDesignError(LookupError):
    """No built-in design has that id."""

    def __init__(self, name: str, rules: RulesName | None) -> None:
        self.name = name
        self.rules = rules
        where = f" under {rules} rules" if rules else ""
        super().__init__(f"no built-in design {name!r}{where}; `umpire ship list` shows them")


class UnknownPresetError(LookupError):
    """No preset has that name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no preset {name!r}; presets are {', '.join(sorted(PRESETS))}")


def preset_named(name: str) -> Preset:
    """Return the preset with this name.

    Raises:
        UnknownPresetError: there is none.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownPresetError(name) from None


def decode_design(text: str | bytes, source: str = "<design>") -> Design:
    """Decode one design from TOML text.

    Raises:
        DesignFileError: the text is not TOML, or a field is missing, unknown or mistyped;
            the problem names the field path, e.g. ``$.systems[1].count``.
    """
    try:
        return tomlinput.decode(text, type=Design)
    except msgspec.DecodeError as exc:
        raise DesignFileError(source, (Problem.from_decode_error(exc, Design),)) from None


def read_design_file(path: Path) -> Design:
    """Read and decode a design file.

    Raises:
        DesignFileError: the file is missing, unreadable or not a valid design.
    """
    try:
        data = tomlinput.read_limited(path)
    except OSError as exc:
        raise DesignFileError(
            str(path), (Problem(path="$", reason=f"cannot read: {exc.strerror}"),)
        ) from None
    except tomlinput.TooLargeError as exc:
        raise DesignFileError(str(path), (Problem(path="$", reason=str(exc)),)) from None
    return decode_design(data, str(path))


def _ships_root() -> Traversable:
    return resources.files("tactical").joinpath(_DATA)


def builtin_ids(rules: RulesName | None = None) -> list[tuple[RulesName, str]]:
    """Return ``(rules, id)`` for every built-in design, sorted."""
    found: list[tuple[RulesName, str]] = []
    families: tuple[RulesName, ...] = (rules,) if rules else ("continuum", "ft2")
    for family in families:
        folder = _ships_root().joinpath(family)
        if not folder.is_dir():
            continue
        found.extend(
            (family, entry.name.removesuffix(".toml"))
            for entry in folder.iterdir()
            if entry.name.endswith(".toml")
        )
    return sorted(found)


# What a built-in design's id looks like (its file's name): anything else is no design.
_DESIGN_ID = re.compile(r"[a-z0-9_]{1,64}")


def load_builtin(name: str, rules: RulesName | None = None) -> Design:
    """Load a built-in design by id.

    Without ``rules`` the campaign default (Continuum) is tried first, then FT2.

    Raises:
        UnknownDesignError: no built-in design has that id.
    """
    order: tuple[RulesName, ...]
    if rules is not None:
        order = (rules,)
    else:
        default = PRESETS[DEFAULT_PRESET].rules
        order = (default, "ft2" if default == "continuum" else "continuum")
    for family in order:
        if not _DESIGN_ID.fullmatch(name):
            break  # no built-in id looks like this: never a path to look up
        entry = _ships_root().joinpath(family, f"{name}.toml")
        if entry.is_file():
            return decode_design(entry.read_bytes(), f"{family}/{name}.toml")
    raise UnknownDesignError(name, rules)


# ---------------------------------------------------------------- writing TOML

_TOP_ORDER = (
    "name",
    "rules",
    "provenance",
    "hull",
    "mass",
    "thrust",
    "ftl",
    "advanced_drive",
    "advanced_ftl",
    "hull_boxes",
    "hull_strength",
    "hull_rows",
    "armour",
    "screens",
    "fire_controls",
    "ortillery",
    "fighter_stores",
    "notes",
)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON string escapes are valid TOML basic-string escapes; TOML also bars raw DEL.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def format_design(design: Design) -> str:
    """Return the canonical TOML text of a design: defaults left out, systems last.

    >>> gun = Mount(kind="beam_c", arcs=("P", "F", "S"))
    >>> d = Design(name="Courier", rules="ft2", mass=2, thrust=8, systems=(gun,))
    >>> print(format_design(d), end="")
    name = "Courier"
    rules = "ft2"
    mass = 2
    thrust = 8
    <BLANKLINE>
    [[systems]]
    kind = "beam_c"
    arcs = ["P", "F", "S"]
    """
    fields = msgspec.to_builtins(design)
    assert isinstance(fields, dict)
    lines = [f"{key} = {_toml_value(fields[key])}" for key in _TOP_ORDER if key in fields]
    mount_fields = Mount.__struct_fields__
    for mount in design.systems:
        encoded = msgspec.to_builtins(mount)
        assert isinstance(encoded, dict)
        lines.append("")
        lines.append("[[systems]]")
        lines.extend(
            f"{key} = {_toml_value(encoded[key])}" for key in mount_fields if key in encoded
        )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- services for the CLI


def show_builtin(name: str, preset_name: str | None = None) -> Ship:
    """Build the record sheet of a built-in design.

    With a preset, the design is looked up among that preset's rules; without one, Continuum
    (the campaign default) first, then FT2, and it is priced under its own rules' preset.

    Raises:
        UnknownPresetError: no such preset.
        UnknownDesignError: no such built-in design.
        DesignError: the built-in design breaks the preset's rules.
    """
    preset = preset_named(preset_name) if preset_name is not None else None
    design = load_builtin(name, preset.rules if preset else None)
    return build(design, preset or PRESETS[design.rules], ship_id=name)


def cost_design_file(path: Path, preset_name: str | None = None) -> Costing:
    """Read a design file and price it under a preset (by default its own rules' preset).

    Raises:
        UnknownPresetError: no such preset.
        DesignFileError: the file cannot be read or decoded.
    """
    preset = preset_named(preset_name) if preset_name is not None else None
    design = read_design_file(path)
    return price(design, preset or PRESETS[design.rules])


def builtin_ships(rules: RulesName | None = None) -> list[tuple[str, Ship]]:
    """Return every built-in design's id and record sheet, under its own rules' preset.

    Raises:
        DesignError: a built-in design is broken (a bug: the test suite builds them all).
    """
    return [
        (design_id, build(load_builtin(design_id, family), PRESETS[family], ship_id=design_id))
        for family, design_id in builtin_ids(rules)
    ]
