"""Say what a typed TOML decoder would have accepted where it refused (issue 16).

msgspec names the path of a bad value (`$.moves[0].order`) but neither the values that would
do nor, for a key it does not know, the line the key is on. `explain` adds both: the values
of an enumeration (a `Literal` or an `Enum`), the keys a table accepts, and, for an unknown
key, its line in the file, with a hint when the key is one the top of the file takes (in TOML
a key written after a table header belongs to that table, so a top-level key written below
`[[moves]]` is "unknown" to the move, where the player did not mean to put it). For a value of
the wrong type (`Expected `object`, got `str``) it adds the line, the item it belongs to (the
`unit` of a `[[moves]]` entry, say), the value given and an example of what is accepted there:
the caller's own (`examples`, by path: `moves[].to`, `treasury.ships[]`) or one made from the
type wanted.

`tests/maps/test_explain.py` shows it at work.
"""

from __future__ import annotations

import enum
import json
import re
import types
import typing
from typing import Any

import msgspec

from maps import tomlinput

_ENUM = re.compile(r"^Invalid enum value .+ - at `(?P<path>\$[^`]*)`$")
_MISTYPED = re.compile(r"^Expected `[^`]+`, got `[^`]+` - at `\$[^`]*`$")
# The keys that name an item of an array of tables, so a refusal can say which item it is.
_ITEM_NAMES = ("unit", "colony", "system", "tech", "planet", "name")
_MAX_SHOWN = 40
_UNKNOWN = re.compile(
    r"^Object contains unknown field `(?P<key>[^`]+)`(?: - at `(?P<path>\$[^`]*)`)?$"
)
_AT = re.compile(r" - at `(?P<path>\$[^`]*)`$")
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(r"^\s*(?:\"([^\"]+)\"|'([^']+)'|([A-Za-z0-9_-]+))\s*=")
_MAX_LISTED = 40


def explain(message: str, root: Any, text: str, examples: dict[str, str] | None = None) -> str:
    """Return `message` (a msgspec validation error for `root` decoded from `text`) with the
    line of the value and what would have been accepted there, when they can be told; the
    message as it was when they cannot (an explanation never fails a refusal). `examples`
    gives, by path (`moves[].to`), what to show as accepted for a mistyped value."""
    try:
        return _explained(message, root, text, examples or {})
    except Exception:
        return message


def _explained(message: str, root: Any, text: str, examples: dict[str, str]) -> str:
    unknown = _UNKNOWN.match(message)
    at = _AT.search(message)
    if at is None and unknown is None:
        return message
    steps = _steps(at["path"] if at is not None else "$")
    if unknown is not None:
        key = unknown["key"]
        line = _line_of(text, [*steps, key])
        where = f" (line {line})" if line else ""
        keys = _keys(_type_at(root, steps))
        told = f"{message}{where}" if at is not None else f"{message} - at `$`{where}"
        if keys:
            told += f"; accepted there: {', '.join(keys)}"
        if steps and key in _keys(root):
            told += (
                f"; `{key}` goes at the top of the file, above the first [table]: written "
                "below a table header it belongs to that table"
            )
        return told
    line = _line_of(text, steps)
    told = f"{message} (line {line})" if line else message
    if _MISTYPED.match(message):
        return _mistyped(told, root, text, steps, examples)
    if _ENUM.match(message):
        values = _values(_type_at(root, steps))
        if values:
            listed = ", ".join(values[:_MAX_LISTED]) + (
                ", ..." if len(values) > _MAX_LISTED else ""
            )
            told += f"; accepted: {listed}"
    return told


def _mistyped(
    told: str, root: Any, text: str, steps: list[str | int], examples: dict[str, str]
) -> str:
    """Add to a mistyped value's refusal the item it is in, the value given and an example.
    msgspec's `object` is TOML's table."""
    told = told.replace("`object`", "`table`")
    try:
        document = tomlinput.decode(text)  # the mark dropped, the limits kept
    except msgspec.DecodeError:
        return told
    item = _item_name(document, steps)
    if item:
        told += f", in the {item}"
    given = _value_at(document, steps)
    if given is not _MISSING:
        told += f": given {_shown(given)}"
    key = "".join(f".{s}" if isinstance(s, str) else "[]" for s in steps).lstrip(".")
    example = examples.get(key) or _example(_type_at(root, steps), steps)
    if example:
        told += f"; for example {example}"
    return told


_MISSING = object()


def _value_at(document: Any, steps: list[str | int]) -> Any:
    value = document
    for step in steps:
        in_list = isinstance(step, int) and isinstance(value, list) and step < len(value)
        in_table = isinstance(step, str) and isinstance(value, dict) and step in value
        if not (in_list or in_table):
            return _MISSING
        value = value[step]
    return value


def _item_name(document: Any, steps: list[str | int]) -> str | None:
    """Return which array-of-tables item the path is in, by the key that names it:
    `[[moves]] with unit = "red-S1"` (the innermost item that has such a key)."""
    for end in range(len(steps), 1, -1):
        table = steps[end - 2]
        if not isinstance(steps[end - 1], int) or not isinstance(table, str):
            continue
        item = _value_at(document, steps[:end])
        if isinstance(item, dict):
            for key in _ITEM_NAMES:
                if isinstance(item.get(key), str) and key not in steps[end:]:
                    return f"[[{table}]] with {key} = {json.dumps(item[key])}"
    return None


def _shown(value: Any) -> str:
    """A value as a refusal shows it: text in quotes, cut short if long."""
    if isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, dict):
        shown = "a table {" + ", ".join(value)[:_MAX_SHOWN] + "}"
    else:
        shown = repr(value)
    return shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 3] + "..."


def _example(tp: Any, steps: list[str | int]) -> str | None:
    """An example of a value of type `tp`, written as `key = value` when the key is known."""
    value = _example_value(tp)
    if value is None:
        return None
    names = [s for s in steps if isinstance(s, str)]
    if not names:
        return value
    if steps and isinstance(steps[-1], int):
        return f"{names[-1]} = [{value}]"
    return f"{names[-1]} = {value}"


def _example_value(tp: Any) -> str | None:
    tp = _unwrap(tp) if tp is not None else None
    if tp is None:
        return None
    origin = typing.get_origin(tp) or tp
    if typing.get_origin(tp) is typing.Literal:
        return json.dumps(typing.get_args(tp)[0])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return json.dumps(next(iter(tp)).value)
    simple = {bool: "true", int: "1", float: "1.5", str: '"..."'}
    if origin in simple:
        return simple[origin]
    if origin in (tuple, list, set, frozenset):
        return "[...]"
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        wanted = [f"{f.encode_name} = ..." for f in msgspec.structs.fields(tp) if f.required]
        return "{ " + ", ".join(wanted) + " }" if wanted else "{ }"
    return None


def _steps(path: str) -> list[str | int]:
    return [m[1] if m[1] is not None else int(m[2]) for m in _STEP.finditer(path[1:])]


def _unwrap(tp: Any) -> Any:
    """Strip Annotated and None from a type; keep one Struct, sequence or mapping member."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        literal = [a for a in members if typing.get_origin(a) is typing.Literal]
        if len(literal) == len(members):
            return typing.Literal[tuple(v for a in literal for v in typing.get_args(a))]
        rich = [a for a in members if _is_container(a)]
        tp = _unwrap(rich[0] if rich else members[0])
    return tp


def _is_container(tp: Any) -> bool:
    tp = _unwrap(tp) if typing.get_origin(tp) is typing.Annotated else tp
    origin = typing.get_origin(tp) or tp
    return isinstance(origin, type) and (
        issubclass(origin, msgspec.Struct) or origin in (tuple, list, dict, frozenset, set)
    )


def _type_at(root: Any, steps: list[str | int]) -> Any:
    tp = _unwrap(root)
    for step in steps:
        origin = typing.get_origin(tp)
        if isinstance(step, int):
            if origin in (tuple, list, set, frozenset):
                args = [a for a in typing.get_args(tp) if a is not Ellipsis]
                tp = (
                    args[min(step, len(args) - 1)] if origin is tuple and len(args) > 1 else args[0]
                )
            else:
                return None
        elif isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            fields = {f.encode_name: f.type for f in msgspec.structs.fields(tp)}
            if step not in fields:
                return None
            tp = fields[step]
        elif origin is dict:
            tp = typing.get_args(tp)[1]
        else:
            return None
        tp = _unwrap(tp)
    return tp


def _keys(tp: Any) -> list[str]:
    tp = _unwrap(tp) if tp is not None else None
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return [f.encode_name for f in msgspec.structs.fields(tp)]
    return []


def _values(tp: Any) -> list[str]:
    if tp is None:
        return []
    if typing.get_origin(tp) is typing.Literal:
        return [str(v) for v in typing.get_args(tp)]
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return [str(m.value) for m in tp]
    return []


def _line_of(text: str, steps: list[str | int]) -> int | None:
    """Return the line (1-based) of the key at `steps` in a TOML text written with table
    headers (`[treasury]`, `[[moves]]`), or None when it cannot be found that way."""
    if len(steps) > 2 and isinstance(steps[-1], int):
        return _line_of(text, steps[:-1])  # an item of an inline array: the key's line
    if len(steps) == 2 and isinstance(steps[0], str) and isinstance(steps[1], int):
        # An item of an array: the `index`-th [[name]] header, or the line of `name = [...]`.
        headers = [
            number
            for number, line in enumerate(text.splitlines(), 1)
            if (found := _HEADER.match(line)) is not None
            and found[1] == "[["
            and found[2].strip() == steps[0]
        ]
        if headers:
            return headers[steps[1]] if steps[1] < len(headers) else None
        return _line_of(text, steps[:1])
    if not steps or not isinstance(steps[-1], str):
        return None
    *table, key = steps
    names = [s for s in table if isinstance(s, str)]
    if len(names) > 1 or (table and not isinstance(table[-1], int) and len(table) > 1):
        return None
    index = next((s for s in table if isinstance(s, int)), 0)
    wanted = names[0] if names else None
    seen = -1
    inside = wanted is None
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            name = header[2].strip()
            if inside and wanted is not None and name == f"{wanted}.{key}":
                return number  # a sub-table under the table: `[moves.extra]`
            if wanted is None:
                return None  # a top-level key comes before the first table header
            if name == wanted:
                seen += 1
                inside = seen == index
            else:
                inside = False
            continue
        found = _KEY.match(line)
        if inside and found is not None and key in (found[1], found[2], found[3]):
            return number
    return None
