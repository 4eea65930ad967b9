"""Receipts (issue 13): what a player was shown, fixed by the hash chain, for him to keep.

Every event's chain hash covers every event before it on its branch, hidden ones included.
A receipt names the last event a player may see and its chain hash, and how many events he
may see up to it:

    {"format": "umpire-receipt/v1", "campaign": "sc", "branch": "main", "player": "red",
     "turn": 5, "seen": 212, "head": "<chain hash of the 212th event red may see>"}

It tells him nothing he did not know (his own events, counted; a hash; the turn he is in; a
hash of his own credentials), never the branch's version, which counts the events hidden from
him (finding 11). The hash is salted with a secret per event (`campaign.hashing`), so he
cannot test a guess of a hidden event against it either (in campaigns made before migration
0007 he can). While the
receipt checks (`umpire verify --receipts DIR`), nothing before its head was changed, removed
or slipped in, by anyone, umpire included: the 212th event he may see still carries that hash,
and the chain up to it still verifies. A rewind onto a new branch keeps the old one, so the
check also says whether the branch in use still holds the receipt. His newest receipt also
shows whether his credentials on record (secret's digest, signing key) were replaced since it
was given. After the campaign, a copy of the log lets anyone run the same check.

Each turn package (`umpire publish`) and each reply to handed-in orders carries one.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from campaign.errors import InvalidInputError

FORMAT = "umpire-receipt/v1"
MAX_RECEIPT_BYTES = 4096  # a receipt is a few hundred bytes: anything larger is not one


class Receipt(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The last event a player may see on a branch, its chain hash, and how many he may see."""

    campaign: str
    branch: str
    player: str
    turn: int
    seen: int
    head: str
    format: str = FORMAT
    # A SHA-256 over his credentials on record when it was given ("" for none): his newest
    # receipt shows whether they were replaced since (`EventStore.credentials_fingerprint`).
    credentials: str = ""

    def encode(self) -> str:
        """Return the receipt as one line of JSON, as it is handed out and kept."""
        return msgspec.json.encode(self).decode()


class ReceiptCheck(msgspec.Struct, frozen=True):
    """What checking one receipt found; `on_active_branch` is None when it was not asked.

    `credentials_changed` is asked of each player's newest receipt only (older ones may
    predate a rotation he asked for): None for the others.
    """

    file: str
    ok: bool
    receipt: Receipt | None = None
    problem: str | None = None
    on_active_branch: bool | None = None
    credentials_changed: bool | None = None

    @property
    def holds(self) -> bool:
        """Whether the receipt holds on the branch in use, credentials unchanged."""
        return self.ok and self.on_active_branch is not False and not self.credentials_changed


def decode(data: bytes) -> Receipt:
    """Read a receipt.

    Raises:
        InvalidInputError: it is not a receipt of this format.
    """
    if len(data) > MAX_RECEIPT_BYTES:
        raise InvalidInputError(f"not a receipt: larger than {MAX_RECEIPT_BYTES} bytes")
    try:
        receipt = msgspec.json.decode(data, type=Receipt)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidInputError(f"not a receipt: {exc}") from None
    if receipt.format != FORMAT:
        raise InvalidInputError(f"unknown receipt format {receipt.format!r} (reads {FORMAT})")
    return receipt


def find(folder: Path) -> list[Path]:
    """Return the receipt files under `folder`: `receipt.json` and `*.receipt.json`, by path.

    Raises:
        InvalidInputError: `folder` is not a folder.
    """
    if not folder.is_dir():
        raise InvalidInputError(f"no receipts folder {folder}")
    found = {*folder.rglob("receipt.json"), *folder.rglob("*.receipt.json")}
    return sorted(p for p in found if p.is_file())


def read_all(folder: Path) -> list[tuple[str, bytes]]:
    """Return every receipt file under `folder`, named relative to it, as read (bounded).

    Raises:
        InvalidInputError: `folder` is not a folder, or a file cannot be read.
    """
    found = []
    for path in find(folder):
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_RECEIPT_BYTES + 1)
        except OSError as exc:
            raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
        found.append((path.relative_to(folder).as_posix(), data))
    return found
