"""Bounds and hygiene for what users hand the umpire: files, text, numbers and names.

The one place the front ends (cli.py, campaign/web.py, campaign/inbox.py) and the service
check raw input before anything else sees it: files are read with a size limit and must be
UTF-8, numbers typed on the command line are kept to sensible ranges, and any text echoed
back to a terminal or a reason file goes through `printable`, so that a unit name carrying
`ESC ] 0 ; ... BEL` shows as `\\x1b]0;...\\x07` instead of retitling the umpire's terminal.
"""

from __future__ import annotations

from pathlib import Path

from campaign.errors import InvalidInputError
from campaign.events import UMPIRE
from maps import tomlinput

MAX_FILE_BYTES = tomlinput.MAX_BYTES  # maps, designs, fleets and battles: 1 MiB
MAX_ORDERS_BYTES = 256 * 1024  # an orders file is a few KiB; a large empire's some tens
MAX_TURNS = 1000  # a campaign's length (004 plays 44)
MAX_TURN_NUMBER = 1_000_000  # any turn number typed; above MAX_TURNS it simply finds nothing


def read_file(path: str | Path, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Return a user's file, read with a size limit.

    Raises:
        InvalidInputError: it cannot be read, or is larger than `limit`.
    """
    try:
        return tomlinput.read_limited(path, limit)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot read {what} {printable(str(path))}: {exc.strerror or exc}"
        ) from None
    except tomlinput.TooLargeError as exc:
        raise InvalidInputError(f"{what} {printable(str(path))} is {exc}") from None


def utf8(data: bytes, what: str) -> str:
    """Return `data` as text; a file that is not UTF-8 is refused with where it goes wrong.

    >>> utf8(b"ok", "orders file")
    'ok'
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{what} is not UTF-8 text (byte {exc.start}): save it as UTF-8"
        ) from None


def read_text(path: str | Path, what: str, limit: int = MAX_FILE_BYTES) -> str:
    """Return a user's UTF-8 text file, read with a size limit.

    Raises:
        InvalidInputError: it cannot be read, is too large or is not UTF-8.
    """
    return utf8(read_file(path, what, limit), f"{what} {printable(str(path))}")


def check_text_size(text: str, what: str, limit: int = MAX_ORDERS_BYTES) -> None:
    """Refuse text (orders sent over the web, say) larger than `limit` bytes as UTF-8."""
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise InvalidInputError(f"{what} is larger than {limit:,} bytes, the most accepted")


def check_range(value: int | None, option: str, low: int, high: int) -> None:
    """Refuse a number typed for `option` outside `low`..`high` (None: not given).

    >>> check_range(44, "--turns", 1, 1000)
    >>> check_range(0, "--turns", 1, 1000)
    Traceback (most recent call last):
    ...
    campaign.errors.InvalidInputError: --turns 0 must be between 1 and 1000
    """
    if value is not None and not low <= value <= high:
        raise InvalidInputError(f"{option} {value} must be between {low} and {high}")


def viewer_of(as_player: str | None) -> str:
    """Return whose view `--as-player` asks for: the umpire's when it is not given.

    `--as-player umpire` is refused: it would show the umpire's view under an option whose
    every other value narrows what is shown.

    >>> viewer_of(None)
    'umpire'
    """
    if as_player is None:
        return UMPIRE
    if as_player.strip().casefold() == UMPIRE:
        raise InvalidInputError(
            "--as-player takes a player's name; leave it out for the umpire's own view"
        )
    return as_player


def printable(text: str) -> str:
    """Return `text` with every control or invisible formatting character escaped.

    Terminal escapes, carriage returns, newlines and bidirectional overrides become
    `\\xNN` / `\\uNNNN`, so text from a file shows as one inert line.

    >>> printable("red-W1\\x1b]0;owned\\x07")
    'red-W1\\\\x1b]0;owned\\\\x07'
    >>> printable("Proxima (b) café")
    'Proxima (b) café'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
