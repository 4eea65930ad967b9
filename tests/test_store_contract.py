"""The event store's contract: the same tests on SQLite memory, SQLite file and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from campaign.errors import (
    BranchExistsError,
    BranchNotFoundError,
    CampaignExistsError,
    CampaignNotFoundError,
    ConcurrencyError,
    EventDecodeError,
    IllegalCommandError,
)
from campaign.events import Audience, NewEvent, TurnEnded, UmpireNoted, decode_payload
from campaign.hashing import GENESIS_HASH
from campaign.store import EventStore, Lineage, events


def note(text: str, turn: int = 0, audience: Audience | None = None) -> NewEvent:
    return NewEvent(
        event=UmpireNoted(text=text), audience=audience or Audience.everyone(), turn=turn
    )


def texts(store: EventStore, lineage: Lineage, **kwargs: object) -> list[str]:
    return [e.event.text for e in store.read(lineage, **kwargs)]  # type: ignore[attr-defined, arg-type]


@pytest.fixture
def main(store: EventStore) -> Lineage:
    store.create_campaign("alpha", seed="s")
    return store.lineage("alpha", "main")


def test_append_then_read_round_trips(store: EventStore, main: Lineage) -> None:
    recorded = store.append(main, 0, [note("a"), note("b"), note("c")])
    assert [r.version for r in recorded] == [1, 2, 3]
    assert recorded[0].position < recorded[1].position < recorded[2].position
    read = list(store.read(main))
    assert read == recorded
    assert store.head(main) == (3, recorded[-1].hash)


def test_empty_branch_has_genesis_head(store: EventStore, main: Lineage) -> None:
    assert store.head(main) == (0, GENESIS_HASH)
    assert list(store.read(main)) == []
    assert store.append(main, 0, []) == []


def test_stale_expected_version_stores_nothing(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("first")])
    with pytest.raises(ConcurrencyError, match="at version 1, not 0"):
        store.append(main, 0, [note("lost-1"), note("lost-2")])
    with pytest.raises(ConcurrencyError):
        store.append(main, 5, [note("ahead")])
    assert texts(store, main) == ["first"]


def test_unique_constraint_is_translated_to_concurrency_error(
    store: EventStore, main: Lineage
) -> None:
    """A writer that slipped past the head check still loses on UNIQUE(stream, version)."""
    store.append(main, 0, [note("first")])
    real_head = store._raw_head
    store._raw_head = lambda cursor, lineage: (0, GENESIS_HASH)  # type: ignore[method-assign]
    try:
        with pytest.raises(ConcurrencyError, match="moved past version 0"):
            store.append(main, 0, [note("racer-1"), note("racer-2")])
    finally:
        store._raw_head = real_head  # type: ignore[method-assign]
    assert texts(store, main) == ["first"]


def test_campaign_names_are_unique_and_resolved(store: EventStore) -> None:
    with pytest.raises(CampaignNotFoundError, match="umpire new"):
        store.resolve_campaign(None)
    store.create_campaign("alpha")
    assert store.resolve_campaign(None) == "alpha"
    with pytest.raises(CampaignExistsError):
        store.create_campaign("alpha")
    store.create_campaign("beta")
    with pytest.raises(CampaignNotFoundError, match="--campaign"):
        store.resolve_campaign(None)
    assert store.resolve_campaign("beta") == "beta"
    with pytest.raises(CampaignNotFoundError, match="alpha, beta"):
        store.resolve_campaign("gamma")
    assert [c.name for c in store.campaigns()] == ["alpha", "beta"]


def test_campaigns_do_not_see_each_other(store: EventStore) -> None:
    store.create_campaign("alpha")
    store.create_campaign("beta")
    a, b = store.lineage("alpha", "main"), store.lineage("beta", "main")
    store.append(a, 0, [note("a1")])
    store.append(b, 0, [note("b1"), note("b2")])
    assert texts(store, a) == ["a1"]
    assert texts(store, b) == ["b1", "b2"]


def test_seed_is_kept_per_campaign(store: EventStore) -> None:
    store.create_campaign("alpha", seed="chosen")
    generated = store.create_campaign("beta")
    assert store.campaign_seed("alpha") == "chosen"
    assert store.campaign_seed("beta") == generated
    assert len(generated) == 64


def test_branch_shares_history_up_to_its_fork(store: EventStore, main: Lineage) -> None:
    recorded = store.append(main, 0, [note("t0-a"), note("t0-b"), note("t1-a", turn=1)])
    store.create_branch("alpha", "alt", "main", 2)
    alt = store.lineage("alpha", "alt")
    assert store.head(alt) == (2, recorded[1].hash)
    store.append(alt, 2, [note("alt-1", turn=1)])
    store.append(main, 3, [note("main-late", turn=1)])
    assert texts(store, alt) == ["t0-a", "t0-b", "alt-1"]
    assert texts(store, main) == ["t0-a", "t0-b", "t1-a", "main-late"]
    # A branch of a branch sees its grandparent's history through both forks.
    store.create_branch("alpha", "alt2", "alt", 3)
    alt2 = store.lineage("alpha", "alt2")
    store.append(alt2, 3, [note("alt2-1", turn=1)])
    assert texts(store, alt2) == ["t0-a", "t0-b", "alt-1", "alt2-1"]
    assert [v.version for v in store.read(alt2)] == [1, 2, 3, 4]
    # The fold's raw rows (issue 19) are the same events, through both forks.
    for lineage in (main, alt, alt2):
        for after in (0, 2):
            read = [
                (e.position, e.version, e.type, e.schema_version, e.event)
                for e in store.read(lineage, after_version=after)
            ]
            rows = store.replay(lineage, after)
            assert [(p, v, t, s, decode_payload(p, t, s, x)) for p, v, t, s, x in rows] == read
            counted = store.replay(lineage, after, {"umpire_noted"})  # only counted: no payload
            assert [(p, v, t, s, "") for p, v, t, s, _ in rows] == counted
    names = {b.name: b for b in store.branches("alpha")}
    assert (names["alt2"].parent, names["alt2"].fork_version, names["alt2"].head_version) == (
        "alt",
        3,
        4,
    )


def test_branch_errors(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("x")])
    with pytest.raises(IllegalCommandError):
        store.create_branch("alpha", "alt", "main", 2)
    store.create_branch("alpha", "alt", "main", 1)
    with pytest.raises(BranchExistsError):
        store.create_branch("alpha", "alt", "main", 0)
    with pytest.raises(BranchNotFoundError, match="main, alt"):
        store.lineage("alpha", "nope")


def test_stale_fork_head_is_a_concurrency_error(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("a"), note("b")])
    store.create_branch("alpha", "alt", "main", 1)
    alt = store.lineage("alpha", "alt")
    with pytest.raises(ConcurrencyError):
        store.append(alt, 2, [note("c")])
    store.append(alt, 1, [note("c")])
    assert texts(store, alt) == ["a", "c"]


def test_active_branch(store: EventStore, main: Lineage) -> None:
    assert store.active_branch("alpha") == "main"
    store.create_branch("alpha", "alt", "main", 0)
    store.set_active_branch("alpha", "alt")
    assert store.active_branch("alpha") == "alt"
    with pytest.raises(BranchNotFoundError):
        store.set_active_branch("alpha", "nope")


def test_players_read_only_their_audience(store: EventStore, main: Lineage) -> None:
    store.append(
        main,
        0,
        [
            note("public"),
            note("umpire-only", audience=Audience.umpire_only()),
            note("red", audience=Audience.players_(["red"])),
            note("red-2", audience=Audience.players_(["red-2"])),
            note("red+blue", audience=Audience.players_(["red", "blue"])),
        ],
    )
    assert texts(store, main, visible_to="red") == ["public", "red", "red+blue"]
    assert texts(store, main, visible_to="blue") == ["public", "red+blue"]
    assert texts(store, main, visible_to="red-2") == ["public", "red-2"]
    assert len(texts(store, main)) == 5


def test_read_filters(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("a"), NewEvent(TurnEnded(turn=0), Audience.everyone(), 0)])
    store.append(main, 2, [note("b", turn=1), note("c", turn=1)])
    assert [e.version for e in store.read(main, turn=1)] == [3, 4]
    assert [e.version for e in store.read(main, upto_turn=0)] == [1, 2]
    assert [e.version for e in store.read(main, after_version=1, upto_version=3)] == [2, 3]
    assert [e.type for e in store.read(main, types=["turn_ended"])] == ["turn_ended"]
    assert store.last_version_of_turn(main, 0) == 2
    assert store.last_version_of_turn(main, 5) == 4


def test_snapshots_follow_the_lineage(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note(str(i)) for i in range(6)])
    store.save_snapshot(main, "p", 1, 2, 0, "at-2")
    store.save_snapshot(main, "p", 1, 5, 0, "at-5")
    store.save_snapshot(main, "p", 1, 5, 0, "at-5")  # idempotent
    store.create_branch("alpha", "alt", "main", 3)
    alt = store.lineage("alpha", "alt")
    found = store.latest_snapshot(alt, "p", 1, None)
    assert found is not None
    assert found.state == "at-2"
    assert store.latest_snapshot(main, "p", 1, None).state == "at-5"  # type: ignore[union-attr]
    assert store.latest_snapshot(main, "p", 1, 4).state == "at-2"  # type: ignore[union-attr]
    assert store.latest_snapshot(main, "p", 2, None) is None  # another projection version
    assert store.latest_snapshot(main, "p", 1, 1) is None


def _corrupt(store: EventStore, version: int, **values: object) -> int:
    with store.engine.begin() as conn:
        position = conn.execute(
            sa.select(events.c.position).where(events.c.version == version)
        ).scalar_one()
        conn.execute(events.update().where(events.c.position == position).values(**values))
    return int(position)


def test_undecodable_payload_names_its_position(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("a"), note("b")])
    position = _corrupt(store, 2, payload='{"text": 42}')
    with pytest.raises(EventDecodeError, match=f"event at position {position}: umpire_noted v1"):
        list(store.read(main))


def test_unknown_event_type_names_its_position(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("a")])
    position = _corrupt(store, 1, type="fleet_teleported")
    with pytest.raises(
        EventDecodeError, match=f"position {position}: unknown event type 'fleet_teleported'"
    ):
        list(store.read(main))


def test_future_schema_version_is_refused(store: EventStore, main: Lineage) -> None:
    store.append(main, 0, [note("a")])
    _corrupt(store, 1, schema_version=9)
    with pytest.raises(EventDecodeError, match="schema version 9 is not known"):
        list(store.read(main))


def test_stored_times_are_utc(store: EventStore, main: Lineage) -> None:
    recorded = store.append(main, 0, [note("a")])
    (read,) = store.read(main)
    assert read.recorded_at == recorded[0].recorded_at
    assert read.recorded_at.utcoffset() is not None
