"""The states this process has folded, kept so the next load folds only the tail (issue 19).

A campaign's state is a pure fold of its log: once folded to version v, the state at any later
version is that state with the events after v folded in. `FoldedStates` keeps the last state
folded for each branch and viewer (the umpire, or one player: a player's state is the fold of
only the events he may see, so his entry never holds anything of another's), with the chain
hash of the last event folded. A later load checks that hash is still the branch's at that
version, one small query, so a rewritten or restored log is never folded onto a stale state,
and then reads and folds only the events after it.

Each entry says whether it was folded from the log alone or started from a stored snapshot:
the decisive state a turn is resolved from never starts from a snapshot (issue 13), so it
takes only the former. Entries are frozen states shared by every caller: nothing may change
them (`evolve` never changes its argument).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from campaign.battletold import read_as_seen
from campaign.events import UMPIRE, RecordedEvent
from campaign.projections import UNFOLDED, CampaignState, apply, fold_stored
from campaign.storetypes import Lineage, Store

__all__ = ["FoldedStates"]

# Branches x viewers kept; a hosted server's campaigns each need 1 + players of them.
CAPACITY = 256


@dataclass(frozen=True, slots=True)
class _Folded:
    state: CampaignState
    chain_hash: str  # the hash of the last event folded into `state`
    from_log: bool  # folded from position 0, no snapshot on the way


class FoldedStates:
    """The last state folded for each (branch, viewer) in this process, thread-safe."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._entries: OrderedDict[tuple[Lineage, str], _Folded] = OrderedDict()
        self._lock = threading.Lock()
        self._capacity = capacity

    def load(
        self,
        store: Store,
        lineage: Lineage,
        viewer: str,
        start: Callable[[], tuple[CampaignState | None, str]] | None,
    ) -> CampaignState:
        """Return `viewer`'s state of the branch now: the last one folded plus the tail.

        `start` gives a state to start from when none is kept (a stored snapshot and its
        chain hash); None means fold from the log alone, and a kept state that started from
        a snapshot is then not used.
        """
        key = (lineage, viewer)
        with self._lock:
            kept = self._entries.get(key)
        if kept is not None and (start is None and not kept.from_log):
            kept = None
        if kept is not None and store.hash_at(lineage, kept.state.version) != kept.chain_hash:
            kept = None  # the history before it changed: fold again
        if kept is None:
            first, chain_hash = start() if start is not None else (None, "")
            kept = _Folded(first or CampaignState(), chain_hash, from_log=first is None)
        if viewer == UMPIRE:  # every event: straight from the stored rows
            rows = store.replay(lineage, kept.state.version, UNFOLDED)
            state = fold_stored(rows, kept.state)
            chain = store.hash_at(lineage, state.version) if state is not kept.state else None
            folded = kept if chain is None else _Folded(state, chain, kept.from_log)
        else:  # only his events, filtered in the database
            tail = read_as_seen(store, lineage, viewer, after_version=kept.state.version)
            folded = _fold(tail, kept)
        if folded.state.version:
            with self._lock:
                self._entries[key] = folded
                self._entries.move_to_end(key)
                while len(self._entries) > self._capacity:
                    self._entries.popitem(last=False)
        return folded.state

    def clear(self) -> None:
        """Forget every state kept."""
        with self._lock:
            self._entries.clear()


def _fold(events: Iterable[RecordedEvent], folded: _Folded) -> _Folded:
    state, chain_hash = folded.state, folded.chain_hash
    for recorded in events:
        state = apply(state, recorded)
        chain_hash = recorded.hash
    if state is folded.state:
        return folded
    return _Folded(state, chain_hash, folded.from_log)
