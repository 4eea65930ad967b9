"""Events: golden JSON of every stored version, upcasting, canonical encoding, audiences."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.errors import EventDecodeError, InvalidInputError
from campaign.events import (
    EVENT_TYPES,
    UPCASTERS,
    Audience,
    UmpireNoted,
    decode_payload,
    encode_payload,
)

GOLDEN = Path(__file__).parent / "golden" / "events"
FIXTURES = sorted(GOLDEN.glob("*.json"))


def load(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_every_version_of_every_type_has_a_golden_fixture() -> None:
    stored = {(d["type"], d["schema_version"]) for d in map(load, FIXTURES)}
    needed = {
        (tag, version)
        for tag, cls in EVENT_TYPES.items()
        for version in range(1, cls.SCHEMA_VERSION + 1)
    }
    assert needed <= stored, f"add golden fixtures for {sorted(needed - stored)}"
    assert {(tag, v + 1) for tag, v in UPCASTERS} <= needed


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden_payload_decodes(path: Path) -> None:
    """A payload as once stored decodes, upcast if old, to today's event (`decoded`).

    The stored bytes never change; `decoded` changes when the event gains a defaulted field.
    """
    doc = load(path)
    tag, version, stored = str(doc["type"]), int(doc["schema_version"]), str(doc["stored"])  # type: ignore[call-overload]
    assert json.loads(stored) == doc["payload"]
    event = decode_payload(1, tag, version, stored)
    assert type(event) is EVENT_TYPES[tag]
    assert json.loads(encode_payload(event)) == doc["decoded"]
    # Today's encoding of the event decodes back to the same event.
    assert decode_payload(1, tag, EVENT_TYPES[tag].SCHEMA_VERSION, encode_payload(event)) == event


def test_payload_is_canonical_sorted_compact_json() -> None:
    assert encode_payload(UmpireNoted(text="hi")) == b'{"text":"hi"}'


def test_undecodable_payload_is_a_clear_error() -> None:
    with pytest.raises(EventDecodeError, match="event at position 7: umpire_noted v1 payload"):
        decode_payload(7, "umpire_noted", 1, b"{not json")
    with pytest.raises(EventDecodeError, match="Object missing required field `text`"):
        decode_payload(8, "umpire_noted", 1, b"{}")


def test_events_are_frozen() -> None:
    event = UmpireNoted(text="x")
    with pytest.raises(AttributeError):
        event.text = "y"  # type: ignore[misc]


names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True).filter(lambda n: n != "umpire")


@given(st.lists(names, min_size=1, max_size=5, unique=True), names)
def test_audience_round_trips_and_filters(players: list[str], outsider: str) -> None:
    audience = Audience.players_(players)
    assert Audience.decode(audience.encode()) == audience
    assert all(audience.may_see(p) for p in players)
    assert audience.may_see(outsider) == (outsider in players)
    assert audience.may_see("umpire")


def test_audience_parse() -> None:
    assert Audience.parse("all") == Audience.everyone()
    assert Audience.parse("umpire") == Audience.umpire_only()
    assert Audience.parse("red, blue").encode() == "|blue|red|"
    with pytest.raises(InvalidInputError, match="player name 'Red!'"):
        Audience.parse("Red!")
    assert not Audience.umpire_only().may_see("red")
    assert msgspec.json.decode(msgspec.json.encode(Audience.everyone()), type=Audience).public


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_a_fold_skips_only_what_evolve_ignores(path: Path) -> None:
    """Issue 19: a fold from stored rows does not even decode the `UNFOLDED` types, so each
    must leave any state exactly as it was (evolve's default case)."""
    from campaign.projections import UNFOLDED, CampaignState, evolve

    doc = load(path)
    tag = str(doc["type"])
    if tag not in UNFOLDED:
        return
    event = decode_payload(1, tag, int(doc["schema_version"]), str(doc["stored"]))  # type: ignore[call-overload]
    state = CampaignState(name="c", players=("red", "blue"), turn=3)
    assert evolve(state, event) is state


def test_a_fold_from_stored_rows_names_a_payload_that_does_not_decode() -> None:
    """Issue 19: the stored-rows fold decodes today's versions itself; a fault is still the
    named error of `decode_payload`, and an old version is still upcast."""
    from campaign.errors import EventDecodeError
    from campaign.projections import fold_stored

    with pytest.raises(EventDecodeError, match="position 7"):
        fold_stored([(7, 1, "umpire_noted", 1, '{"text": 3}')])
    noted = fold_stored([(1, 1, "umpire_noted", 1, '{"text":"hello"}')])
    assert (noted.notes, noted.version, noted.events) == (1, 1, 1)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_every_event_is_told_in_words(path: Path) -> None:
    """`describe` (the log, the news, the summaries) tells every kind of event in words, never
    by its class name (`OrdersMarkedFinal`), whatever the event."""
    from campaign.render import describe

    doc = load(path)
    tag, version, stored = str(doc["type"]), int(doc["schema_version"]), str(doc["stored"])  # type: ignore[call-overload]
    event = decode_payload(1, tag, version, stored)
    told = describe(event)
    assert told.strip()
    assert type(event).__name__ not in told, told
