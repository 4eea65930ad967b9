"""Bounded reading and decoding of the TOML files people hand the umpire.

Every user-written file (orders, maps, designs, fleets, battles) is read through here: at
most `MAX_BYTES` are read from disk, the bytes must be UTF-8 (a leading byte-order mark, which
Windows editors write, is dropped: TOML itself does not allow one), and tables and arrays may nest
at most `MAX_DEPTH` deep (checked by a scan before the recursive parser sees the text). Each
refusal is a `msgspec.DecodeError` whose message names the limit, so the decoders' existing
error paths report it in one line. It lives in `maps/`, the package that imports nothing of
ours, so that `tactical/` and `campaign/` can share it.

>>> decode(b'a = [[1]]')
{'a': [[1]]}
>>> decode(b'a = ' + b'[' * 100 + b']' * 100)
Traceback (most recent call last):
...
msgspec.DecodeError: nested 100 deep; at most 32 levels of tables and arrays
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeVar, overload

import msgspec

T = TypeVar("T")

MAX_BYTES = 1024 * 1024  # 1 MiB: the largest built-in map is 30 KiB, an orders file a few KiB
MAX_DEPTH = 32  # the deepest legitimate file nests 4 or 5 levels
BOM = "\ufeff"  # a UTF-8 byte-order mark, as text: Notepad starts a file with one


class TooLargeError(ValueError):
    """A file or text is larger than its limit."""


def read_limited(path: str | Path, limit: int = MAX_BYTES) -> bytes:
    """Return a file's bytes, reading at most `limit` + 1 of them (so /dev/zero ends).

    Raises:
        OSError: the file cannot be opened or read.
        TooLargeError: it holds more than `limit` bytes.
    """
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"larger than {limit:,} bytes, the most accepted")
    return data


def depth(text: str) -> int:
    """Return how deep the arrays and inline tables of a TOML text nest (0 for none).

    Strings and comments are skipped; a `[table]` header counts as one level for its line.

    >>> depth('a = [1, {b = "[[["}]  # ]]]')
    2
    """
    deepest = level = 0
    i, n = 0, len(text)
    while (found := _SIGNIFICANT.search(text, i)) is not None:  # leaps over plain text
        i = found.start()
        ch = text[i]
        if ch in "\"'":
            i = _string_end(text, i)
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level = max(0, level - 1)
        i += 1
    return deepest


# What `depth` looks at; and, by the kind of string open, what may end it (a backslash
# escapes the next character in a basic string, a one-line string ends at the line's end).
_SIGNIFICANT = re.compile(r"[\"'#\[\]{}]")
_STRING_STOPS = {
    '"': re.compile(r'[\\"\n]'),
    "'": re.compile(r"['\n]"),
    '"""': re.compile(r'\\|"""'),
    "'''": re.compile("'''"),
}


def _string_end(text: str, start: int) -> int:
    """Return the index just past the TOML string that opens at `start`."""
    quote = text[start]
    triple = text.startswith(quote * 3, start)
    closing = quote * 3 if triple else quote
    stops = _STRING_STOPS[closing]
    i = start + len(closing)
    while (found := stops.search(text, i)) is not None:
        i = found.start()
        if text[i] == "\\":
            i += 2
        elif text[i] == "\n":
            return i  # an unclosed one-line string: the parser will say so
        else:
            return i + len(closing)
    return len(text)


def check(data: str | bytes, limit: int = MAX_BYTES) -> str:
    """Return `data` as text once it is within the size, encoding and nesting limits, without
    a leading byte-order mark.

    >>> check(b"\\xef\\xbb\\xbfturn = 3")
    'turn = 3'

    Raises:
        msgspec.DecodeError: too large, not UTF-8, or nested too deep.
    """
    if len(data) > limit:
        raise msgspec.DecodeError(f"larger than {limit:,} bytes, the most accepted")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise msgspec.DecodeError(
                f"not UTF-8 text (byte {exc.start}); save the file as UTF-8"
            ) from None
    else:
        text = data
    text = text.removeprefix(BOM)
    nested = depth(text)
    if nested > MAX_DEPTH:
        raise msgspec.DecodeError(
            f"nested {nested} deep; at most {MAX_DEPTH} levels of tables and arrays"
        )
    return text


@overload
def decode(data: str | bytes, type: type[T], limit: int = MAX_BYTES) -> T: ...
@overload
def decode(data: str | bytes, type: Any = Any, limit: int = MAX_BYTES) -> Any: ...
def decode(data: str | bytes, type: Any = Any, limit: int = MAX_BYTES) -> Any:
    """Decode TOML into `type` (msgspec's typed decoding) within the limits of `check`.

    Raises:
        msgspec.DecodeError: the text breaks a limit or is not valid TOML.
        msgspec.ValidationError: a field is missing, unknown or mistyped (names its path).
    """
    text = check(data, limit)
    try:
        return msgspec.toml.decode(text, type=type)
    except RecursionError:  # a belt to the depth scan's braces
        raise msgspec.DecodeError("nested too deep") from None
