"""Orders handed in: a player's own (checked completely, sealed by a commitment, a signed file
never taken twice), the umpire's replacement by ruling, and the mark that they are final.
"""

from __future__ import annotations

import msgspec

from campaign.errors import IllegalCommandError
from campaign.events import UMPIRE, Audience, NewEvent, OrdersSubmitted, RecordedEvent, UmpireNoted
from campaign.ft2 import service as ft2
from campaign.inputs import MAX_ORDERS_BYTES, check_text_size
from campaign.package import check_deadline
from campaign.rules import orders
from campaign.rules.setup import campaign_catalogue
from campaign.service.base import _reason
from campaign.service.desks import PlayerDesks
from campaign.storetypes import Lineage


class OrdersSubmission(PlayerDesks):
    """Submit, replace and mark final a player's orders."""

    def submit_orders(
        self, lineage: Lineage, player: str, text: str, sequence: int = 0
    ) -> list[RecordedEvent]:
        """Check a player's orders file completely and record it (addressed to that player).

        `sequence` is a signed file's (`campaign/signing.py`): it must be larger than that of
        any signed file of his accepted for the turn, so an old file sent again is refused.

        Raises:
            InvalidInputError: the file does not decode, or any order breaks the rules; every
                problem is named and nothing is stored.
            IllegalCommandError: a signed file not newer than one accepted before (a replay).
        """
        return self._submit(lineage, player, text, ruling=None, sequence=sequence)

    def mark_final(self, lineage: Lineage, player: str, final: bool = True) -> list[RecordedEvent]:
        """Mark a player's orders of the turn final ("ready"), or take the mark back
        (`rules.orders.decide_mark_final`); the deadline binds it as it binds his orders.

        Raises:
            IllegalCommandError: past the deadline, the turn takes no orders, or (to mark
                them final) he has handed in none.
        """
        self._check_viewer(lineage, player)
        state = self.load(lineage)
        check_deadline(state, self.store.clock())
        batch = orders.decide_mark_final(state, player, final)
        return self.store.append(lineage, state.version, batch) if batch else []

    def replace_orders(
        self, lineage: Lineage, player: str, text: str, reason: str
    ) -> list[RecordedEvent]:
        """By ruling, hand in orders for a player (they replace his); he is told why.

        Checked like his own, against his own knowledge; the deadline does not bind the umpire.
        """
        return self._submit(lineage, player, text, ruling=_reason(reason))

    def _submit(
        self, lineage: Lineage, player: str, text: str, ruling: str | None, sequence: int = 0
    ) -> list[RecordedEvent]:
        check_text_size(text, "the orders", MAX_ORDERS_BYTES)
        self._check_viewer(lineage, player)
        state = self.load(lineage)
        if ruling is None:
            check_deadline(state, self.store.clock())
        if state.ft2 is not None:
            return ft2.submit_orders(self, lineage, player, text, state, ruling, sequence)
        document = orders.parse(text, player, state.turn)
        if sequence:
            latest = self._latest_sequence(lineage, player, state.turn)
            if sequence <= latest:
                raise IllegalCommandError(
                    f"signed orders number {sequence} are not newer than {player}'s orders "
                    f"number {latest} accepted for turn {state.turn}: an old file is not taken "
                    "again (sign the orders anew to replace them)"
                )
        view = self.load(lineage, viewer=player)
        known_map, _ = self.player_map(lineage, player)
        batch = orders.decide_submit(
            state,
            view,
            known_map,
            player,
            document,
            campaign_catalogue(state, player),
            nonce=self.nonces(),
            sequence=sequence,
        )
        if ruling is not None:
            batch = [msgspec.structs.replace(new, actor=UMPIRE) for new in batch]
            note = UmpireNoted(
                text=f"by ruling, your orders for turn {state.turn} were replaced: {ruling}"
            )
            batch.append(NewEvent(note, Audience.players_([player]), state.turn))
        return self.store.append(lineage, state.version, batch)

    def _latest_sequence(self, lineage: Lineage, player: str, turn_number: int) -> int:
        """Return the largest signed-file sequence accepted from `player` this turn (0: none).

        Every accepted submission counts, replaced or not: a replaced file stays refused.
        """
        submitted = self.store.read(lineage, turn=turn_number, types=[OrdersSubmitted.TYPE])
        return max(
            (
                e.event.sequence
                for e in submitted
                if isinstance(e.event, OrdersSubmitted) and e.event.player == player
            ),
            default=0,
        )
