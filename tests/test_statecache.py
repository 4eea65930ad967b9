"""Issue 19: the states a process keeps folded, so a load folds only the tail.

A kept state must always equal a fold from scratch (the umpire's and each player's, whose
kept view never holds another's events), follow events another process appends, never be
folded onto a history that changed under it, and never give a turn's decisive state a start
from a snapshot (issue 13).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from campaign.autoplay import autoplay
from campaign.projections import CampaignState, evolve, evolve_all, fold, fold_stored
from campaign.service import UMPIRE, CampaignService, plan_campaign
from campaign.statecache import FoldedStates
from tests.conftest import CountingNonces, FixedClock

PLAYERS = ("red", "blue")


def _campaign(url: str, turns: int = 3) -> CampaignService:
    service = CampaignService.open(url, clock=FixedClock(), create=True, nonces=CountingNonces())
    service.new_campaign(plan_campaign("kept", PLAYERS, seed="kept-19", map_spec="classic"))
    autoplay(service, service.target("kept"), turns, 19)
    return service


def _scratch(service: CampaignService, viewer: str) -> CampaignState:
    return fold(service.store.read(service.target("kept"), visible_to=viewer))


def test_a_kept_state_equals_a_fold_from_scratch_for_every_viewer(tmp_path: Path) -> None:
    service = _campaign(f"sqlite:///{tmp_path / 'kept.db'}")
    lineage = service.target("kept")
    for viewer in (UMPIRE, *PLAYERS):
        assert service.load(lineage, viewer=viewer) == _scratch(service, viewer)
    red, blue = (service.load(lineage, viewer=p) for p in PLAYERS)
    assert red != blue  # each his own: the kept views never share what one player saw
    assert service.load(lineage, use_snapshots=False) == service.load(lineage)
    service.close()


def test_a_kept_state_follows_what_another_process_appends(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'kept.db'}"
    first = _campaign(url, turns=1)
    lineage = first.target("kept")
    before = first.load(lineage, viewer="red")
    other = CampaignService.open(url, clock=FixedClock(), nonces=CountingNonces())
    autoplay(other, lineage, 2, 19)
    assert first.load(lineage, viewer="red") == _scratch(first, "red") != before
    assert first.load(lineage) == other.load(lineage, use_snapshots=False)
    other.close()
    first.close()


def test_a_kept_state_is_never_folded_onto_a_changed_history(tmp_path: Path) -> None:
    path = tmp_path / "kept.db"
    service = _campaign(f"sqlite:///{path}", turns=1)
    lineage = service.target("kept")
    kept = service.load(lineage)
    with sqlite3.connect(path) as db:  # the history up to the kept state's version changes
        db.execute("UPDATE events SET hash = 'edited' WHERE version = ?", (kept.version,))
    reread: list[int] = []
    replay = service.store.replay

    def spy(lineage: object, after_version: int = 0, unfolded: object = ()) -> object:
        reread.append(after_version)
        return replay(lineage, after_version, unfolded)  # type: ignore[arg-type]

    service.store.replay = spy  # type: ignore[method-assign,assignment]
    assert service.load(lineage, use_snapshots=False) == kept
    assert reread == [0]  # folded again from the start, not from the kept state
    service.close()


def test_a_decisive_load_never_starts_from_a_kept_snapshot(tmp_path: Path) -> None:
    service = _campaign(f"sqlite:///{tmp_path / 'kept.db'}", turns=1)
    lineage = service.target("kept")
    truth = service.load(lineage, use_snapshots=False)
    forged = msgspec.structs.replace(truth, players=("mallory",))
    states = FoldedStates()
    chain = service.store.head(lineage)[1]
    assert states.load(service.store, lineage, UMPIRE, lambda: (forged, chain)) == forged
    assert states.load(service.store, lineage, UMPIRE, None) == truth
    # ... and once folded from the log, that is what every load is given.
    assert states.load(service.store, lineage, UMPIRE, lambda: (forged, chain)) == truth
    service.close()


@pytest.mark.parametrize("capacity", [1, 2])
def test_the_states_kept_are_bounded(tmp_path: Path, capacity: int) -> None:
    service = _campaign(f"sqlite:///{tmp_path / 'kept.db'}", turns=1)
    lineage = service.target("kept")
    states = FoldedStates(capacity)
    for viewer in (UMPIRE, *PLAYERS):
        assert states.load(service.store, lineage, viewer, None) == _scratch(service, viewer)
    assert len(states._entries) == capacity
    service.close()


def test_the_fast_folds_agree_with_evolve_event_by_event(tmp_path: Path) -> None:
    """Issue 19: `fold_stored` (stored rows, a run of moves copied once) and `evolve_all` (the
    same for decoded events, as `verify` folds the log) give, at the end of every turn, every
    battle and every run of moves, the state `evolve` gives one event at a time: ships lost,
    task forces pruned, sightings, landings and splits among them."""
    crowded = Path(__file__).parent / "data" / "crowded.toml"  # they meet within a few turns
    service = CampaignService.open(f"sqlite:///{tmp_path / 'wars.db'}", create=True)
    players = ("red", "blue", "green", "white")
    service.new_campaign(plan_campaign("wars", players, seed="wars-19", map_spec=str(crowded)))
    lineage = service.target("wars")
    autoplay(service, lineage, 14, 19, resolve_battles=False)  # battles recorded by hand
    log = service.log(lineage)
    rows = [(r.position, r.version, r.type, r.schema_version, r.payload)
            for r in service.store.read_stored(lineage)]  # fmt: skip
    kinds = [r.type for r in log]
    # The end of every turn, of every battle and of every run of moves (the last one folded).
    ends = [
        i + 1
        for i, kind in enumerate(kinds)
        if kind in ("turn_ended", "battle_fought")
        or (kind == "unit_moved" and kinds[i + 1 : i + 2] != ["unit_moved"])
    ]
    assert any(r.type == "battle_fought" for r in log)  # the moves a battle ends are folded
    state = CampaignState()
    done = 0
    for end in ends:
        for recorded in log[done:end]:
            state = evolve(state, recorded.event)
        done = end
        assert evolve_all(CampaignState(), (r.event for r in log[:end])) == state
        stored = fold_stored(rows[:end])
        assert msgspec.structs.replace(stored, version=0, events=0) == state


def test_a_players_map_built_from_the_last_one_is_the_one_his_whole_log_gives(
    tmp_path: Path,
) -> None:
    """Issue 19: a player's map is built turn after turn from what was read for the one
    before (his star chart and explorations) plus his events since; it is the map a fresh
    service builds from his whole log, for each player after every turn, and the chart read
    before is never another player's."""
    url = f"sqlite:///{tmp_path / 'maps.db'}"
    service = _campaign(url, turns=0)
    lineage = service.target("kept")
    compared = 0

    def compare(turn: int) -> None:
        nonlocal compared
        fresh = CampaignService.open(url)
        try:
            for player in PLAYERS:
                built, explored = service.player_map(lineage, player)
                assert (built, explored) == fresh.player_map(fresh.target("kept"), player)
                compared += 1
        finally:
            fresh.close()

    autoplay(service, lineage, 6, 19, progress=compare)
    assert compared == 6 * len(PLAYERS)
    reds, blues = (service.player_map(lineage, p)[1] for p in PLAYERS)
    assert reds != blues
    service.close()
