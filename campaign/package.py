"""A player's offline package: his own view and his map, enough to check orders at home.

`umpire publish` writes, beside his report, `view.json` (his `CampaignState` view, folded only
from the events he may see, numbered by his own events) and `map.toml` (the public chart with
the planets of the systems he explored, the map his orders are checked against). `umpire orders
check FILE --package DIR` reads them back and runs the very checks `umpire orders submit` runs
(`check_orders`): the same verdict and the same messages, with no database.

`view.json` also carries the *public* half of his orders-signing key (None when he holds no
secret), so `umpire orders sign` can refuse a wrong secret at home (`check_for_signing`, which
also checks the campaign, the player and the orders before anything is signed): the inbox
checks with the same key, and a guess tested against it costs a 16 MiB scrypt (docs/security.md).

Both commands find the package by themselves when the orders file lies in it, or the player
works in it (`find_package`).

Nothing else goes in: no other player's units, no planet he has not explored (the leak checks in
tests/test_player_side.py hold every file to that).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import msgspec

from campaign import signing
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.inputs import (
    MAX_ORDERS_BYTES,
    check_text_size,
    printable,
    read_file,
    read_text,
    utf8,
)
from campaign.projections import CampaignState
from campaign.rules import orders
from campaign.rules.economy import Catalogue
from campaign.rules.setup import campaign_catalogue
from campaign.schedule import due_words, orders_closed
from maps import MapError, StarMap, dumps_map, loads_map

VIEW_FILE = "view.json"
MAP_FILE = "map.toml"
TEMPLATE_FILE = "template.toml"
PACKAGE_FORMAT = "stellar-umpire-player-view"
PACKAGE_VERSION = 1
# A view file is a player's state: generous next to any campaign, small next to a disk.
MAX_VIEW_BYTES = 16 * 1024 * 1024
# The commitment nonce an offline check hands the rules: nothing is recorded, so nothing binds.
_OFFLINE_NONCE = "0" * 32


class PlayerView(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The contents of `view.json`: whose view of which campaign, and the view itself."""

    format: str = PACKAGE_FORMAT
    version: int = PACKAGE_VERSION
    campaign: str
    branch: str
    player: str
    state: CampaignState
    # The public half of his orders-signing key (`campaign/signing.py`), None without a secret.
    signing_key: str | None = None


def package_files(
    campaign: str,
    branch: str,
    player: str,
    view: CampaignState,
    known_map: StarMap,
    signing_key: str | None = None,
) -> dict[str, str]:
    """Return the offline-check files of a player's package: his view and his map."""
    document = PlayerView(
        campaign=campaign, branch=branch, player=player, state=view, signing_key=signing_key
    )
    return {
        VIEW_FILE: msgspec.json.format(msgspec.json.encode(document)).decode() + "\n",
        MAP_FILE: dumps_map(known_map),
    }


def read_package(folder: Path) -> tuple[PlayerView, StarMap]:
    """Read a player's package folder back: his view and his map.

    Raises:
        InvalidInputError: a file is missing, unreadable or not an umpire package's.
    """
    where = printable(str(folder))
    if not folder.is_dir():
        raise InvalidInputError(
            f"package {where} is not a folder; give the player's folder `umpire publish` wrote"
        )
    for name in (VIEW_FILE, MAP_FILE):
        if not (folder / name).is_file():
            raise InvalidInputError(
                f"package {where} has no {name}; give a player's folder from `umpire publish`"
            )
    data = read_file(folder / VIEW_FILE, "view file", MAX_VIEW_BYTES)
    try:
        view = msgspec.json.decode(data, type=PlayerView)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidInputError(f"{where}/{VIEW_FILE} is not a player's view: {exc}") from None
    if view.format != PACKAGE_FORMAT or view.version != PACKAGE_VERSION:
        raise InvalidInputError(
            f"{where}/{VIEW_FILE} is a {view.format!r} version {view.version} file; this "
            f"umpire reads {PACKAGE_FORMAT!r} version {PACKAGE_VERSION}"
        )
    text = read_text(folder / MAP_FILE, "map file", MAX_VIEW_BYTES)
    try:
        known_map = loads_map(text)
    except MapError as exc:
        raise InvalidInputError(f"{where}/{MAP_FILE}: {exc}") from None
    return view, known_map


def check_deadline(state: CampaignState, now: datetime) -> None:
    """Refuse orders handed in after the turn's deadline (the umpire's rulings are not bound).

    Raises:
        IllegalCommandError: `now` is past the deadline.
    """
    deadline = state.deadline
    if deadline is not None and orders_closed(deadline, now):
        raise IllegalCommandError(f"orders for turn {state.turn} were due by {due_words(deadline)}")


def check_orders(
    view: PlayerView, known_map: StarMap, text: str, now: datetime, catalogue: Catalogue
) -> orders.OrdersDocument:
    """Check an orders file as `umpire orders submit` does, from the player's package alone.

    The same steps in the same order (size, deadline, decoding, then every rule against his
    own view and map); his view stands for the truth where submission asks it only the turn
    and its phase, which every player is told. Returns the document when it passes.

    Raises:
        InvalidInputError: as submission refuses the file (`OrdersError` names every problem).
        IllegalCommandError: past the deadline, or the turn is being resolved.
    """
    state = view.state
    check_text_size(text, "the orders", MAX_ORDERS_BYTES)
    check_deadline(state, now)
    document = orders.parse(text, view.player, state.turn)
    orders.decide_submit(
        state, state, known_map, view.player, document, catalogue, nonce=_OFFLINE_NONCE
    )
    return document


def find_package(file: Path, given: str | None) -> Path | None:
    """Return the package folder for the orders `file`: `given`, else the file's own folder,
    else the current folder, the first that holds a view file; None when neither does."""
    if given is not None:
        return Path(given)
    for folder in (file.parent, Path.cwd()):
        if (folder / VIEW_FILE).is_file():
            return folder
    return None


def no_package(file: Path) -> InvalidInputError:
    """The refusal when no package is given or found for `file`."""
    return InvalidInputError(
        f"no package: neither {printable(str(file.parent))} (the file's folder) nor the current "
        f"folder holds {VIEW_FILE}; give --package DIR, your folder from `umpire publish`"
    )


def signing_names(folder: Path | None, player: str | None, campaign: str | None) -> tuple[str, str]:
    """Return whose orders are signed for which campaign: as given, else the package's.

    Raises:
        InvalidInputError: one is neither given nor known from a package.
    """
    if folder is not None and (player is None or campaign is None):
        view, _ = read_package(folder)
        player = player if player is not None else view.player
        campaign = campaign if campaign is not None else view.campaign
    missing = [f"--{name}" for name, v in (("player", player), ("campaign", campaign)) if not v]
    if player is None or campaign is None:
        raise InvalidInputError(
            f"signing needs {' and '.join(missing)}: give it, or sign in your package folder "
            f"(or with --package DIR), whose {VIEW_FILE} names both"
        )
    return player, campaign


def check_for_signing(
    folder: Path, data: bytes, player: str, campaign: str, secret: str, now: datetime
) -> None:
    """Check what the inbox would refuse before an orders file is signed, from the player's
    package: the campaign and player are the package's, the secret's signing key is the one it
    holds, and the orders pass `check_orders` (an FT2 campaign's orders are not checked here).

    Raises:
        InvalidInputError: any of them is not so; the message says which and how to mend it.
    """
    view, known_map = read_package(folder)
    where = printable(str(folder))
    if campaign != view.campaign:
        raise InvalidInputError(
            f"not signed: --campaign {printable(campaign)!r}, but your package {where} is for "
            f"campaign {view.campaign!r}: leave --campaign out, or give that campaign's package"
        )
    if player != view.player:
        raise InvalidInputError(
            f"not signed: --player {printable(player)}, but your package {where} is "
            f"{view.player}'s: leave --player out, or give your own package"
        )
    if view.signing_key is not None and (
        signing.public_key(secret, campaign, player) != view.signing_key
    ):
        raise InvalidInputError(
            f"not signed: that is not {player}'s secret for campaign {campaign} (its signing key "
            f"is not the one in your package {where}; if the umpire rotated your secret since, "
            "use the newest package)"
        )
    if view.state.ft2 is not None:
        return
    text = utf8(signing.normalised(signing.unsigned(data)), "orders file")
    catalogue = campaign_catalogue(view.state, view.player)
    try:
        check_orders(view, known_map, text, now, catalogue)
    except (InvalidInputError, IllegalCommandError) as exc:
        raise InvalidInputError(
            f"not signed: {exc} (checked against your package {where}, as the inbox would)"
        ) from None
