"""The orders inbox (issue 6): a folder of signed orders files, recorded in name order.

`umpire orders inbox DIR` takes every `*.toml` file directly in DIR, sorted by name. A file is
recorded only when its signature line (`campaign/signing.py`) names this campaign and verifies
with the player's public signing key, and its sequence is larger than any accepted from that
player for the turn (an older file dropped back in is refused: issue 13); then it goes
through `CampaignService.submit_orders`, exactly as `umpire orders submit` does, which checks
the orders completely. Only the signed body is submitted, never the signature line.

An accepted file moves to DIR/done/, beside `<name>.receipt.json`, the player's receipt
(`campaign/receipts.py`) to send back with the news; a rejected one to DIR/rejected/, beside
a `<name>.reason.txt` naming every problem, one a line. A file that lost a race with another
writer (`ConcurrencyError`) stays in DIR for the next run. A name already taken in done/ or
rejected/ gets a number: `red.2.toml`. Nothing here ever sees a secret.

A reason can go back to whoever sent the file. Until the signature verifies it tells nothing
the sender did not know (a bad signature and an unknown player get one answer); after that,
the orders' problems are checked against the player's own view. They are still his, like his
orders in done/: players who can read the inbox folder should each have their own.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import msgspec

from campaign import signing
from campaign.errors import ConcurrencyError, IllegalCommandError, InvalidInputError
from campaign.inputs import MAX_ORDERS_BYTES, printable, read_file
from campaign.players import PlayerSecrets
from campaign.service import CampaignService
from campaign.signing import SignatureError
from campaign.store import Lineage

DONE = "done"
REJECTED = "rejected"
REASON_SUFFIX = ".reason.txt"
RECEIPT_SUFFIX = ".receipt.json"


class Outcome(StrEnum):
    """What became of an inbox file."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    RETRY = "left to retry"


class InboxResult(msgspec.Struct, frozen=True):
    """One inbox file: whose it says it is, what became of it, why, and where it went.

    `player` is the one its signature line names (None when there is none), proven his only
    when the file was accepted. `moved_to` is relative to the inbox (None: still there).
    """

    file: str
    player: str | None
    outcome: Outcome
    problems: tuple[str, ...] = ()
    moved_to: str | None = None


def process_inbox(service: CampaignService, lineage: Lineage, folder: Path) -> list[InboxResult]:
    """Record every signed orders file in `folder`, in name order; move each to done/ or rejected/.

    Raises:
        InvalidInputError: `folder` is not a folder, or a file cannot be read or moved.
    """
    if not folder.is_dir():
        raise InvalidInputError(f"no inbox folder {folder}")
    keys = PlayerSecrets(service.store)
    files = sorted((p for p in folder.glob("*.toml") if p.is_file()), key=lambda p: p.name)
    return [_take(service, keys, lineage, path) for path in files]


def exit_code(results: list[InboxResult]) -> int:
    """Return the inbox's exit code: 1 if any file was rejected, else 3 if any is left, else 0.

    >>> exit_code([])
    0
    """
    outcomes = {r.outcome for r in results}
    if Outcome.REJECTED in outcomes:
        return 1
    return ConcurrencyError.exit_code if Outcome.RETRY in outcomes else 0


def _take(
    service: CampaignService, keys: PlayerSecrets, lineage: Lineage, path: Path
) -> InboxResult:
    player = None
    try:
        data = read_file(path, "orders file", MAX_ORDERS_BYTES + 1024)  # and its signature
        signed = signing.read(data)
        player = signed.player
        if signed.campaign != lineage.campaign:
            raise SignatureError(
                [f"signed for campaign {signed.campaign!r}, not {lineage.campaign!r}"]
            )
        keys.check_signature(signed)
        service.submit_orders(lineage, signed.player, signed.text(), signed.sequence)
    except ConcurrencyError as exc:
        return InboxResult(path.name, player, Outcome.RETRY, (printable(str(exc)),))
    except (InvalidInputError, IllegalCommandError) as exc:
        # Echoed to the umpire's terminal and into a file the sender may read: inert text only.
        problems = tuple(printable(p) for p in getattr(exc, "problems", None) or [str(exc)])
        moved = _move(path, path.parent / REJECTED)
        reason = moved.with_name(moved.name + REASON_SUFFIX)
        _write(reason, "".join(f"{problem}\n" for problem in problems))
        return InboxResult(path.name, player, Outcome.REJECTED, problems, _relative(moved, path))
    moved = _move(path, path.parent / DONE)
    # His receipt (issue 13), beside the file, for the reply: what he was shown is now fixed.
    receipt = service.receipt(lineage, signed.player)
    _write(moved.with_name(moved.name + RECEIPT_SUFFIX), receipt.encode() + "\n")
    return InboxResult(path.name, player, Outcome.ACCEPTED, (), _relative(moved, path))


def _move(path: Path, folder: Path) -> Path:
    """Move `path` into `folder` under a name not taken there (by a file or its reason)."""
    target = folder / path.name
    number = 2
    while target.exists() or target.with_name(target.name + REASON_SUFFIX).exists():
        target = folder / f"{path.stem}.{number}{path.suffix}"
        number += 1
    try:
        folder.mkdir(exist_ok=True)
        return path.rename(target)
    except OSError as exc:
        raise InvalidInputError(f"cannot move {path} to {folder}: {exc.strerror}") from None


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot write {path}: {exc.strerror}") from None


def _relative(moved: Path, original: Path) -> str:
    return moved.relative_to(original.parent).as_posix()
