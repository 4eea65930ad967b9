"""The chain hashes a player holds reveal nothing of the events hidden from him.

A player's log, package (`report.json`), state and receipts carry the chain hash of each of
his events, and each hash covers the one before it. With one small hidden event between two
of his, he knows the hash before it and the one after: he can guess the hidden event (a
unit, a hex and an order; a die) and hash each guess. These tests are that attack, run on
what he holds, as `tests/test_security.py` runs the attack on orders commitments. Before
campaigns had a chain key (migration 0007) the attack found red's move and red's die; each
test shows it still would, given the key, so the guesses are complete.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from campaign.dice import seed_commitment
from campaign.events import (
    Audience,
    DiceRolled,
    Event,
    NewEvent,
    RecordedEvent,
    UmpireNoted,
    UnitMoved,
    encode_payload,
)
from campaign.hashing import GENESIS_HASH, ChainHasher, chain_hash, chain_hasher
from campaign.rules import orders
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage, campaigns, events, snapshots
from cli import app
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP

HEXES = [f"{c:02d}{r:02d}" for c in range(1, 7) for r in range(1, 5)]
COMBAT_ORDERS = ("engage", "stand-off", "ftl-move")
VERSIONS = range(1, 30)  # the real versions: his view numbers his events 1, 2, 3 ...
SEED = "s"
RED_HOME = "0101"  # red's entry on the tiny map


def _open(url: str, tmp_path: Path) -> tuple[CampaignService, Lineage]:
    service = CampaignService.open(url, clock=FixedClock(), create=True)
    return service, _start(service, tmp_path)


def _start(service: CampaignService, tmp_path: Path) -> Lineage:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    service.new_campaign(plan_campaign("g", ["red", "blue"], seed=SEED, map_spec=str(path)))
    return service.target("g")


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    service, lineage = _open("sqlite://", tmp_path)
    yield service, lineage
    service.close()


def _attackers_chains() -> list[ChainHasher]:
    """Every chain blue can compute: the plain one, and a keyed one under each key he could
    know, the dice seed included (`reveal-seed` may publish it early)."""
    keys = [hashlib.sha256(SEED.encode()).hexdigest(), seed_commitment(SEED)]
    return [chain_hasher(None), *(chain_hasher(key) for key in keys)]


def _guess_the_gap(
    before: str, after: RecordedEvent, guesses: Iterable[Event], chain: ChainHasher
) -> list[Event]:
    """The attack: every guess of the one event hidden from blue between two of his (only
    red and the umpire see it) that chains from the hash he holds before it to the hash he
    holds after it, at any version of the main branch (stream 1)."""
    found = []
    payload = encode_payload(after.event).decode()
    audience = after.audience.encode()
    written = [(guess, encode_payload(guess).decode()) for guess in guesses]
    for (guess, text), version in itertools.product(written, VERSIONS):
        hidden = chain(
            before, 1, version, guess.TYPE, guess.SCHEMA_VERSION, "|red|", "umpire", 1, text
        )
        following = chain(
            hidden,
            1,
            version + 1,
            after.type,
            after.schema_version,
            audience,
            after.actor,
            after.turn,
            payload,
        )
        if following == after.hash:
            found.append(guess)
    return found


def _red_moves(service: CampaignService, lineage: Lineage) -> list[UnitMoved]:
    """Every move of any of red's units from red's home hex to any hex with any order: blue
    knows red's unit ids (they are public), the map and its entries."""
    template = orders.parse(service.orders_template(lineage, "red"), "red", 1)
    units = [m.unit for m in template.moves]
    return [
        UnitMoved(unit=unit, path=(RED_HOME, end), order=order)
        for unit, end, order in itertools.product(units, HEXES, COMBAT_ORDERS)
        if end != RED_HOME
    ]


MOVED = UnitMoved(unit="red-S1", path=("0101", "0102"), order="stand-off")


def _hide_between_notes(service: CampaignService, lineage: Lineage, hidden: Event) -> None:
    """A public note, one event only red may see, a public note: the gap blue sees."""
    service.note(lineage, "the turn goes on", Audience.everyone())
    version = service.store.head(lineage)[0]
    service.store.append(lineage, version, [NewEvent(hidden, Audience.players_(["red"]), 1)])
    service.note(lineage, "and on", Audience.everyone())


def _umpires_chain(service: CampaignService, lineage: Lineage) -> ChainHasher:
    return chain_hasher(service.store.chain_key(lineage.campaign))


def test_a_hidden_move_cannot_be_guessed_from_the_hashes_in_a_players_log(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Red's secret move lies between two of blue's events: blue hashes every move of every
    unit of red's (unit x hex x hex x order) at every version from the hash before it."""
    service, lineage = game
    service.reveal_seed(lineage, early=True)  # the seed is no secret of the chain's
    _hide_between_notes(service, lineage, MOVED)
    *_, before, after = service.log(lineage, viewer="blue")  # as his log and package show
    guesses = _red_moves(service, lineage)
    assert len(guesses) > 100
    for chain in _attackers_chains():
        assert _guess_the_gap(before.hash, after, guesses, chain) == []
    # With the campaign's key the same guesses find the move: they were complete.
    assert _guess_the_gap(before.hash, after, guesses, _umpires_chain(service, lineage)) == [MOVED]


def _d6_faces(rolled: DiceRolled) -> list[Event]:
    """The die as blue guesses it: he knows how the umpire's dice are keyed and written,
    so only the face is unknown."""
    return [
        msgspec.structs.replace(
            rolled, rolls=tuple(msgspec.structs.replace(r, value=face) for r in rolled.rolls)
        )
        for face in range(1, 7)
    ]


def test_a_hidden_die_cannot_be_guessed_from_a_players_receipts(
    game: tuple[CampaignService, Lineage],
) -> None:
    """A die only red sees lies between two receipts blue was given: blue knows the event
    after it (his own, from his package) and the receipts' heads."""
    service, lineage = game
    service.note(lineage, "before the die", Audience.everyone())
    first = service.receipt(lineage, "blue")
    service.roll(lineage, "d6", "units_caught", Audience.players_(["red"]))
    service.note(lineage, "after the die", Audience.everyone())
    second = service.receipt(lineage, "blue")
    assert second.seen == first.seen + 1
    after = service.log(lineage, viewer="blue")[-1]
    assert after.hash == second.head
    (rolled,) = [e.event for e in service.log(lineage, types=[DiceRolled.TYPE])]
    assert isinstance(rolled, DiceRolled)
    guesses = _d6_faces(rolled)
    for chain in _attackers_chains():
        assert _guess_the_gap(first.head, after, guesses, chain) == []
    assert _guess_the_gap(first.head, after, guesses, _umpires_chain(service, lineage)) == [rolled]


def test_a_rewind_does_not_show_whether_a_hidden_event_changed(
    service: CampaignService, tmp_path: Path
) -> None:
    """The same hidden move and the same note of blue's after a rewind hash differently:
    equal hashes would tell blue that what he cannot see is what it was. On every backend:
    the salt names the stream, and both branches verify."""
    lineage = _start(service, tmp_path)
    service.note(lineage, "the turn goes on", Audience.everyone())
    fork = service.store.head(lineage)[0]
    _hide_between_notes(service, lineage, MOVED)
    service.store.create_branch("g", "again", "main", fork)
    again = service.store.lineage("g", "again")
    _hide_between_notes(service, again, MOVED)
    mine = service.log(lineage, viewer="blue")
    theirs = service.log(again, viewer="blue")
    assert [e.event for e in mine[-2:]] == [e.event for e in theirs[-2:]]
    assert mine[-1].hash != theirs[-1].hash
    assert service.verify(again).ok
    assert service.verify(lineage).ok


def as_before_0007(engine: sa.Engine) -> None:
    """Make the campaign one made before chain keys: no key, every hash plain."""
    with engine.begin() as conn:
        conn.execute(snapshots.delete())  # bound to the keyed hashes
        conn.execute(campaigns.update().values(chain_key=None))
        previous = GENESIS_HASH
        for row in conn.execute(sa.select(events).order_by(events.c.version)).all():
            previous = chain_hash(
                previous,
                row.version,
                row.type,
                row.schema_version,
                row.audience,
                row.actor,
                row.turn,
                row.payload,
            )
            conn.execute(
                events.update().where(events.c.position == row.position).values(hash=previous)
            )


def test_a_campaign_from_before_chain_keys_keeps_its_plain_chain(tmp_path: Path) -> None:
    """Old campaigns still verify, append, and hand out receipts that check, on their plain
    hashes; the attack works on them, as docs/security.md says."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    service, lineage = _open(url, tmp_path)
    service.close()
    engine = sa.create_engine(url)
    as_before_0007(engine)
    engine.dispose()
    service = CampaignService.open(url, clock=FixedClock())
    try:
        assert service.store.chain_key("g") is None
        assert service.verify(lineage).ok
        _hide_between_notes(service, lineage, MOVED)
        held = [("blue.json", service.receipt(lineage, "blue").encode().encode())]
        assert service.verify(lineage).ok
        assert [c.ok for c in service.check_receipts(held)] == [True]
        *_, before, after = service.log(lineage, viewer="blue")
        found = _guess_the_gap(before.hash, after, _red_moves(service, lineage), chain_hasher(None))
        assert found == [MOVED]
    finally:
        service.close()


def test_verify_catches_a_changed_chain_key(service: CampaignService, tmp_path: Path) -> None:
    """The key is in no event, but every hash depends on it: changed, removed (a keyed
    campaign passed off as an old one) or garbled, the chain no longer verifies."""
    lineage = _start(service, tmp_path)
    assert service.verify(lineage).ok
    for key in (None, "5a" * 32, "not hex"):
        with service.store.engine.begin() as conn:
            conn.execute(campaigns.update().values(chain_key=key))
        report = service.verify(lineage)
        assert not report.ok
        assert report.problem is not None


def test_a_hidden_die_cannot_be_guessed_from_a_players_package(tmp_path: Path) -> None:
    """The trial's case: a d6 only red sees between two events of blue's, read off blue's
    turn package (`report.json`) and `umpire log --json --as-player blue`."""
    url = f"sqlite:///{tmp_path / 'u.db'}"
    service, lineage = _open(url, tmp_path)
    try:
        service.note(lineage, "before the die", Audience.everyone())
        service.roll(lineage, "d6", "units_caught", Audience.players_(["red"]))
        service.note(lineage, "after the die", Audience.everyone())
        service.end_turn(lineage)  # the package shows the turn just ended
        notes = service.log(lineage, viewer="blue", types=[UmpireNoted.TYPE])
        (rolled,) = [e.event for e in service.log(lineage, types=[DiceRolled.TYPE])]
        assert isinstance(rolled, DiceRolled)
        umpires = _umpires_chain(service, lineage)
    finally:
        service.close()
    runner = CliRunner()
    published = runner.invoke(app, ["publish", "--out", str(tmp_path / "out"), "--db", url])
    assert published.exit_code == 0, published.output
    package = json.loads((tmp_path / "out" / "blue" / "report.json").read_text())
    logged = runner.invoke(app, ["log", "--json", "--as-player", "blue", "--db", url])
    assert logged.exit_code == 0, logged.output
    for shown in (package["news"], json.loads(logged.output)):
        before, after = (e["hash"] for e in shown if e["type"] == UmpireNoted.TYPE)
        assert (before, after) == (notes[0].hash, notes[1].hash)
        for chain in _attackers_chains():
            assert _guess_the_gap(before, notes[1], _d6_faces(rolled), chain) == []
        assert _guess_the_gap(before, notes[1], _d6_faces(rolled), umpires) == [rolled]


def test_a_rewind_of_a_rewind_verifies(service: CampaignService) -> None:
    """The salt is that of the stream the event is stored in, as `verify` reads it: a branch
    rewound to before its parent's own fork draws its history from several streams (found
    by tests/test_properties.py), and still verifies."""
    service.new_campaign(plan_campaign("prop", ["red", "blue"], seed=SEED))
    lineage = service.target("prop")
    service.end_turn(lineage)
    lineage = service.store.lineage("prop", service.rewind(lineage, 0).name)
    for _ in range(6):
        service.end_turn(lineage)
    lineage = service.store.lineage("prop", service.rewind(lineage, 4).name)
    lineage = service.store.lineage("prop", service.rewind(lineage, 0).name)
    assert len(lineage.segments) == 4
    assert service.verify(lineage).ok
    service.end_turn(lineage)
    assert service.verify(lineage).ok
