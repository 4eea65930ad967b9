"""A player's offline package: his own view and his map, enough to check orders at home.

`umpire publish` writes, beside his report, `view.json` (his `CampaignState` view, folded only
from the events he may see, numbered by his own events) and `map.toml` (the public chart with
the planets of the systems he explored, the map his orders are checked against). `umpire orders
check FILE --package DIR` reads them back and runs the very checks `umpire orders submit` runs
(`check_orders`): the same verdict and the same messages, with no database.

Nothing else goes in: no other player's units, no planet he has not explored (the leak checks in
tests/test_package.py hold every file to that).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import msgspec

from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.inputs import MAX_ORDERS_BYTES, check_text_size, printable, read_file, read_text
from campaign.projections import CampaignState
from campaign.rules import orders
from campaign.rules.economy import Catalogue
from campaign.schedule import due_words
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


def package_files(
    campaign: str, branch: str, player: str, view: CampaignState, known_map: StarMap
) -> dict[str, str]:
    """Return the offline-check files of a player's package: his view and his map."""
    document = PlayerView(campaign=campaign, branch=branch, player=player, state=view)
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


def orders_closed(deadline: datetime | None, now: datetime) -> bool:
    """Whether the turn's orders are closed at `now`: its deadline, if set, has passed."""
    return deadline is not None and now > deadline


def check_deadline(state: CampaignState, now: datetime) -> None:
    """Refuse orders handed in after the turn's deadline (the umpire's rulings are not bound).

    Raises:
        IllegalCommandError: `now` is past the deadline.
    """
    if state.deadline is not None and orders_closed(state.deadline, now):
        raise IllegalCommandError(
            f"orders for turn {state.turn} were due by {due_words(state.deadline)}"
        )


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
