"""Issue 13, the trust core: salted commitments, tamper-evidence, replays, double resolves.

The threat model these tests stand for is `docs/security.md`.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from campaign.errors import ConcurrencyError, IllegalCommandError
from campaign.events import OrdersCommitted, OrdersSubmitted, encode_payload
from campaign.hashing import GENESIS_HASH, chain_hasher
from campaign.players import PlayerSecrets
from campaign.projections import PROJECTION_NAME, PROJECTION_VERSION
from campaign.rules import orders
from campaign.service import CampaignService, plan_campaign
from campaign.store import (
    Lineage,
    campaigns,
    events,
    player_secrets,
    snapshot_digest,
    snapshots,
)
from cli import app
from tests.conftest import FixedClock, reset_postgres
from tests.test_strategic import TINY_MAP

HEXES = [f"{c:02d}{r:02d}" for c in range(1, 7) for r in range(1, 5)]
COMBAT_ORDERS = ("engage", "stand-off", "ftl-move", None)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(path)))
    yield service, service.target("g")
    service.close()


def _as_submitted(document: orders.OrdersDocument) -> OrdersSubmitted:
    """What the store would hold for `document`, as an attacker rebuilds it (no nonce)."""
    fields = {f: getattr(document, f) for f in document.__struct_fields__}
    return OrdersSubmitted(**fields)


def _one_unit_moved(template: orders.OrdersDocument) -> Iterator[OrdersSubmitted]:
    """Every orders file that moves one unit of the template anywhere, with any order."""
    for i, move in enumerate(template.moves):
        for to, order in itertools.product([None, *HEXES], COMBAT_ORDERS):
            moved = msgspec.structs.replace(move, to=to, order=order)
            moves = (*template.moves[:i], moved, *template.moves[i + 1 :])
            yield _as_submitted(msgspec.structs.replace(template, moves=moves))


def test_a_commitment_cannot_be_brute_forced_from_the_players_template(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Finding 1: blue rebuilds red's orders (one unit moved) from red's template.

    Unit ids are public and the template is every unit holding position, so the guesses are
    few. The enumeration is complete (with red's nonce it finds his orders), yet without the
    nonce no guess hashes to red's commitment, salted or not. Blue no longer sees it (the 004
    trial: it is red's), but whoever holds a copy of the log after the campaign does.
    """
    service, lineage = game
    text = service.orders_template(lineage, "red")
    template = orders.parse(text, "red", 1)
    sent = text.replace('unit = "red-S1"', 'unit = "red-S1"\nto = "0102"', 1)
    assert sent != text
    service.submit_orders(lineage, "red", sent)
    assert service.log(lineage, viewer="blue", types=[OrdersCommitted.TYPE]) == []
    (public,) = [e.event for e in service.log(lineage, viewer="red", types=[OrdersCommitted.TYPE])]
    assert isinstance(public, OrdersCommitted)
    guesses = list(_one_unit_moved(template))
    assert len(guesses) > 1000
    found = [
        g
        for g in guesses
        if public.sha256 in (orders.orders_hash(g), hashlib.sha256(encode_payload(g)).hexdigest())
    ]
    assert found == []
    # The umpire's nonce opens the commitment on exactly the orders red sent: the attack
    # above looked in the right place.
    (stored,) = [e.event for e in service.log(lineage, types=[OrdersSubmitted.TYPE])]
    assert isinstance(stored, OrdersSubmitted)
    assert len(stored.nonce) == 64
    opened = [
        g
        for g in guesses
        if orders.commitment(stored.nonce, orders.orders_payload(g)) == public.sha256
    ]
    assert opened
    assert {msgspec.structs.replace(g, nonce=stored.nonce) for g in opened} == {stored}


def test_every_submission_draws_a_fresh_nonce(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    text = service.orders_template(lineage, "red")
    service.submit_orders(lineage, "red", text)
    service.submit_orders(lineage, "red", text)
    commits = [e.event for e in service.log(lineage, types=[OrdersCommitted.TYPE])]
    assert len({c.sha256 for c in commits if isinstance(c, OrdersCommitted)}) == 2


def test_an_unsalted_commitment_of_old_still_verifies() -> None:
    """Schema evolution: orders stored before salting open as SHA-256 of the orders alone."""
    fields = msgspec.json.decode(encode_payload(OrdersSubmitted(player="red", turn=1, moves=())))
    del fields["nonce"], fields["sequence"]
    stored = msgspec.json.encode(dict(sorted(fields.items())))  # as stored before salting
    old = msgspec.json.decode(stored, type=OrdersSubmitted)
    assert (old.nonce, old.sequence) == ("", 0)
    assert orders.orders_payload(old) == stored
    assert orders.orders_hash(old) == hashlib.sha256(stored).hexdigest()


def test_a_crash_while_creating_a_campaign_leaves_nothing(
    backend_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 12: the campaign row, its branch and its first events are one transaction."""
    service = CampaignService.open(backend_url, clock=FixedClock(), create=True)
    try:

        def crash(*args: object) -> str:
            raise RuntimeError("killed between the campaign row and its first event")

        with monkeypatch.context() as patch:
            patch.setattr("campaign.hashing.chain_hash", crash)
            with pytest.raises(RuntimeError, match="killed"):
                service.new_campaign(plan_campaign("orphan", ["red"], seed="s"))
        assert service.campaigns() == []
        service.new_campaign(plan_campaign("orphan", ["red"], seed="s"))  # the name is free
        assert service.verify(service.target("orphan")).ok
    finally:
        service.close()


def test_verify_refuses_a_campaign_without_its_creation(store_url: str) -> None:
    service = CampaignService.open(store_url, clock=FixedClock(), create=True)
    try:
        service.store.create_campaign("empty", seed="s")  # as an old umpire could leave it
        report = service.verify(service.target("empty"))
        assert not report.ok
        assert "no events" in str(report.problem)
    finally:
        service.close()


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'umpire.db'}"


@pytest.fixture(params=["sqlite-file", pytest.param("postgresql", marks=pytest.mark.postgres)])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database several connections can share: a SQLite file, or PostgreSQL."""
    if request.param == "sqlite-file":
        return f"sqlite:///{tmp_path / 'umpire.db'}"
    url: str = request.getfixturevalue("pg_url")  # fails, never skips, without a server
    reset_postgres(url)
    return url


def _tiny_campaign(url: str, tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    service = CampaignService.open(url, create=True)
    try:
        service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(path)))
        lineage = service.target("g")
        service.submit_orders(lineage, "red", service.orders_template(lineage, "red"))
    finally:
        service.close()


def test_a_repeated_resolve_resolves_nothing(game: tuple[CampaignService, Lineage]) -> None:
    """Finding 5: the second of two resolves, run one after the other, finds an empty turn."""
    service, lineage = game
    service.submit_orders(lineage, "red", service.orders_template(lineage, "red"))
    service.resolve_turn(lineage)
    with pytest.raises(IllegalCommandError, match="nobody has sent orders for turn 2"):
        service.resolve_turn(lineage)
    with pytest.raises(IllegalCommandError, match="turn 1 is not the turn in progress"):
        service.resolve_turn(lineage, expected_turn=1)
    assert service.load(lineage).turn == 2
    service.resolve_turn(lineage, expected_turn=2)  # named: resolved though empty
    assert service.load(lineage).turn == 3


@pytest.mark.parametrize("expected_turn", [None, 1])
def test_concurrent_resolves_resolve_one_turn(
    shared_url: str, tmp_path: Path, expected_turn: int | None
) -> None:
    """Finding 5: resolves started together, each on its own connection, resolve turn 1 once.

    Two start at once; two more start as soon as one of those has finished, like a retried
    or doubled command. Each loser either lost the race to append or found turn 2 and
    refused it; none resolved it.
    """
    _tiny_campaign(shared_url, tmp_path)
    start = threading.Barrier(2)
    first_done = threading.Event()
    outcomes: list[str] = []

    def resolve(wait: Callable[[], object]) -> None:
        service = CampaignService.open(shared_url)
        try:
            lineage = service.target("g")
            wait()
            try:
                service.resolve_turn(lineage, expected_turn=expected_turn)
            except (ConcurrencyError, IllegalCommandError) as exc:
                outcomes.append(type(exc).__name__)
            else:
                outcomes.append("resolved")
        finally:
            first_done.set()
            service.close()

    waves = [lambda: start.wait(timeout=60)] * 2 + [lambda: first_done.wait(timeout=60)] * 2
    threads = [threading.Thread(target=resolve, args=(wait,)) for wait in waves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(outcomes) == len(waves)
    assert outcomes.count("resolved") == 1, outcomes
    service = CampaignService.open(shared_url)
    try:
        lineage = service.target("g")
        assert service.load(lineage).turn == 2
        ended = service.log(lineage, types=["turn_ended"])
        assert [e.event.turn for e in ended] == [0, 1]  # type: ignore[attr-defined]
    finally:
        service.close()


def test_the_cli_resolves_only_the_turn_it_names(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'u.db'}"
    _tiny_campaign(db, tmp_path)
    runner = CliRunner()

    def umpire(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, [*args, "--db", db])
        return result.exit_code, result.output

    assert umpire("turn", "resolve", "--turn", "1")[0] == 0
    code, output = umpire("turn", "resolve", "--turn", "1")
    assert code != 0
    assert output.strip().splitlines() == [
        "umpire: error: turn 1 is not the turn in progress (turn 2): nothing was resolved"
    ]
    code, output = umpire("turn", "resolve")
    assert code != 0
    assert "name it (--turn 2)" in output


def _edit_snapshot(service: CampaignService, change: Callable[[str], str], forge: bool) -> int:
    """Edit the newest snapshot's state as someone with the file could; with `forge`, the
    digest is recomputed too. Return the snapshot's version."""
    with service.store.engine.begin() as conn:
        row = conn.execute(sa.select(snapshots).order_by(snapshots.c.version.desc())).first()
        assert row is not None
        state = change(row.state)
        assert state != row.state
        values: dict[str, object] = {"state": state}
        if forge:
            values["digest"] = snapshot_digest(
                row.chain_hash, row.projection, row.projection_version, row.version, row.turn, state
            )
        conn.execute(snapshots.update().where(snapshots.c.id == row.id).values(**values))
    return int(row.version)


def _rich(text: str) -> str:
    return text.replace('"ip":25', '"ip":5000')


def test_an_edited_snapshot_is_never_served(game: tuple[CampaignService, Lineage]) -> None:
    """Finding 2: a snapshot that no longer matches its digest is ignored; the log is folded."""
    service, lineage = game
    truth = service.load(lineage, use_snapshots=False)
    version = _edit_snapshot(service, _rich, forge=False)
    assert service.load(lineage) == truth
    assert service.load(lineage).empires["red"].ip == 25
    report = service.verify(lineage)
    assert not report.ok
    assert report.store_problems == (f"snapshot at version {version} does not match its digest",)


def test_a_forged_snapshot_is_caught_by_verify(game: tuple[CampaignService, Lineage]) -> None:
    """Finding 2, the attack: red's treasury edited to 5,000 IP with a matching digest.

    Only folding the log again shows it: verify does, and says which snapshot.
    """
    service, lineage = game
    assert service.verify(lineage).ok
    version = _edit_snapshot(service, _rich, forge=True)
    report = service.verify(lineage)
    assert not report.ok
    assert report.store_problems == (
        f"snapshot at version {version} is not the state the log folds to",
    )


def test_a_snapshot_of_another_history_is_never_served(
    game: tuple[CampaignService, Lineage],
) -> None:
    """A snapshot bound to a chain hash the branch no longer has (a rewritten log)."""
    service, lineage = game
    with service.store.engine.begin() as conn:
        conn.execute(snapshots.update().values(chain_hash="0" * 64))
    assert service.store.latest_snapshot(lineage, PROJECTION_NAME, PROJECTION_VERSION, None) is None
    assert service.load(lineage) == service.load(lineage, use_snapshots=False)
    assert "bound to another chain hash" in service.verify(lineage).store_problems[0]


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        ("UPDATE campaigns SET seed = 'guessed'", "not the one committed at creation"),
        ("UPDATE campaigns SET name = 'h'", "stored as 'h' but was created as 'g'"),
    ],
)
def test_verify_checks_the_campaign_row(
    game: tuple[CampaignService, Lineage], sql: str, problem: str
) -> None:
    service, _ = game
    with service.store.engine.begin() as conn:
        conn.exec_driver_sql(sql)
    report = service.verify(service.target(None))
    assert not report.ok
    assert problem in report.store_problems[0]


def test_verify_checks_the_revealed_seed_against_the_row(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.reveal_seed(lineage, early=True)
    assert service.verify(lineage).ok
    with service.store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE campaigns SET seed = 'other'")
    assert "not the seed revealed in the log" in service.verify(lineage).store_problems[-1]


# ---------------------------------------------------------------- receipts (finding 2)


def _played(service: CampaignService, lineage: Lineage) -> None:
    """Turn 1 with orders from both players, resolved."""
    for player in ("red", "blue"):
        service.submit_orders(lineage, player, service.orders_template(lineage, player))
    service.resolve_turn(lineage, expected_turn=1)


def _rechain(service: CampaignService, change: Callable[[sa.Row[Any]], str | None]) -> None:
    """Rewrite payloads `change` returns and every hash after them, dropping the snapshots,
    as someone holding the database could: `verify` alone finds nothing."""
    with service.store.engine.begin() as conn:
        conn.execute(snapshots.delete())
        previous = GENESIS_HASH
        (key,) = conn.execute(sa.select(campaigns.c.chain_key)).one()  # he holds the key
        hasher = chain_hasher(key)
        for row in conn.execute(sa.select(events).order_by(events.c.position)).all():
            payload = change(row) or row.payload
            digest = hasher(
                previous,
                row.stream_id,
                row.version,
                row.type,
                row.schema_version,
                row.audience,
                row.actor,
                row.turn,
                payload,
            )
            conn.execute(
                events.update()
                .where(events.c.position == row.position)
                .values(payload=payload, hash=digest)
            )
            previous = digest


def test_a_receipt_counts_only_the_players_own_view(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    _played(service, lineage)
    receipt = service.receipt(lineage, "red")
    mine = service.log(lineage, viewer="red")
    assert (receipt.seen, receipt.head, receipt.turn) == (len(mine), mine[-1].hash, mine[-1].turn)
    assert receipt.seen < service.store.head(lineage)[0]  # hidden events exist ...
    assert set(msgspec.json.decode(receipt.encode())) == {
        "credentials",
        "format",
        "campaign",
        "branch",
        "player",
        "turn",
        "seen",
        "head",
    }  # ... and the receipt names no version or position that would count them


def test_receipts_hold_until_history_is_rewritten(game: tuple[CampaignService, Lineage]) -> None:
    """Finding 2: a rewritten chain passes verify, but not the receipts players hold."""
    service, lineage = game
    _played(service, lineage)
    held = [("red.json", service.receipt(lineage, "red").encode().encode())]
    assert [c.ok for c in service.check_receipts(held)] == [True]

    def richer_blue(row: sa.Row[Any]) -> str | None:
        # An event red never sees: blue's own empire, in the set-up.
        if row.type == "empire_founded" and '"player":"blue"' in row.payload:
            return str(row.payload).replace('"ip":25', '"ip":5000')
        return None

    _rechain(service, richer_blue)
    assert service.verify(lineage).ok
    (check,) = service.check_receipts(held)
    assert not check.ok
    assert "the history before it was rewritten" in str(check.problem)


def test_receipts_catch_a_truncated_log(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    _played(service, lineage)
    held = [("red.json", service.receipt(lineage, "red").encode().encode())]
    last = service.log(lineage, viewer="red")[-1]
    with service.store.engine.begin() as conn:
        conn.execute(snapshots.delete())
        conn.execute(events.delete().where(events.c.position >= last.position))
    assert service.verify(lineage).ok  # what is left is a whole chain
    (check,) = service.check_receipts(held)
    assert not check.ok
    assert "events he was shown are gone" in str(check.problem)


def test_a_rewind_leaves_the_receipt_off_the_active_branch(
    game: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    service, lineage = game
    _played(service, lineage)
    held = [("red.json", service.receipt(lineage, "red").encode().encode())]
    service.rewind(lineage, to_turn=0)
    (check,) = service.check_receipts(held)
    assert (check.ok, check.on_active_branch) == (True, False)
    service.use_branch("g", "main")
    assert service.check_receipts(held)[0].on_active_branch is True


def test_bad_receipts_are_named(game: tuple[CampaignService, Lineage]) -> None:
    service, _ = game
    checks = service.check_receipts(
        [
            ("a.json", b"{}"),
            ("b.json", b"x" * 5000),
            (
                "c.json",
                b'{"campaign":"nope","branch":"main","player":"red","turn":1,"seen":1,"head":"00"}',
            ),
        ]
    )
    assert [c.ok for c in checks] == [False, False, False]
    assert "missing required field" in str(checks[0].problem)
    assert "larger than 4096 bytes" in str(checks[1].problem)
    assert "no campaign named 'nope'" in str(checks[2].problem)


def test_publish_and_submit_hand_out_receipts_verify_checks_them(tmp_path: Path) -> None:
    """Each turn package and each submission reply carries a receipt; `umpire verify
    --receipts DIR` proves them, and fails once the history they saw was rewritten."""
    db = f"sqlite:///{tmp_path / 'u.db'}"
    _tiny_campaign(db, tmp_path)
    runner = CliRunner()

    def umpire(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == code, result.output
        return result.output

    template = tmp_path / "blue.toml"
    umpire("orders", "template", "--player", "blue", "--out", str(template))
    reply = umpire("orders", "submit", str(template), "--player", "blue")
    line = next(x for x in reply.splitlines() if x.startswith("receipt: "))
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "blue-submitted.receipt.json").write_text(line.removeprefix("receipt: "))
    umpire("turn", "resolve", "--turn", "1")
    umpire("publish", "--out", str(tmp_path / "out"))
    for player in ("red", "blue"):
        receipt = (tmp_path / "out" / player / "receipt.json").read_text()
        (kept / player).mkdir()
        (kept / player / "receipt.json").write_text(receipt)
    table = umpire("verify", "--receipts", str(kept))
    assert table.count("on the chain") == 3
    service = CampaignService.open(db)
    try:
        _rechain(service, lambda row: None if row.version != 2 else row.payload + " ")
    finally:
        service.close()
    assert "rewritten" in umpire("verify", "--receipts", str(kept), code=1)


def test_an_export_after_the_campaign_lets_anyone_check_receipts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'u.db'}"
    _tiny_campaign(db, tmp_path)
    service = CampaignService.open(db)
    try:
        lineage = service.target("g")
        PlayerSecrets(service.store).issue("g", "red")
        service.resolve_turn(lineage, expected_turn=1)
        kept = tmp_path / "kept"
        kept.mkdir()
        (kept / "receipt.json").write_text(service.receipt(lineage, "red").encode())
    finally:
        service.close()
    runner = CliRunner()
    export = tmp_path / "public.db"
    refused = runner.invoke(app, ["db", "export", str(export), "--db", db])
    assert refused.exit_code == 2
    assert "has not revealed its dice seed" in refused.output
    assert not export.exists()
    assert runner.invoke(app, ["reveal-seed", "--early", "--db", db]).exit_code == 0
    done = runner.invoke(app, ["db", "export", str(export), "--db", db])
    assert done.exit_code == 0, done.output
    public = CampaignService.open(str(export))
    try:
        with public.store.engine.connect() as conn:
            assert (
                conn.execute(sa.select(sa.func.count()).select_from(player_secrets)).scalar() == 1
            )
            assert conn.execute(sa.select(sa.func.count()).select_from(snapshots)).scalar() == 0
        lineage = public.target("g")
        assert public.verify(lineage, dice=True).ok
    finally:
        public.close()
    checked = runner.invoke(app, ["verify", "--db", str(export), "--receipts", str(kept)])
    assert checked.exit_code == 0, checked.output
    assert "on the chain" in checked.output
    again = runner.invoke(app, ["db", "export", str(export), "--db", db])
    assert (again.exit_code, "exists already" in again.output) == (2, True)


def test_a_forged_snapshot_never_decides_a_turn(game: tuple[CampaignService, Lineage]) -> None:
    """Finding 2, the attack's second half: the forged 5,000 IP never reach a resolution,
    nor the snapshot saved after it."""
    service, lineage = game
    _edit_snapshot(service, _rich, forge=True)
    assert service.load(lineage).empires["red"].ip == 5000  # a view is misled until verify
    service.resolve_turn(lineage, expected_turn=1)
    truth = service.load(lineage, use_snapshots=False)
    assert truth.empires["red"].ip == 25
    assert service.load(lineage) == truth  # the new snapshot is the log's
    problems = service.verify(lineage).store_problems
    assert len(problems) == 1  # only the forged one
    assert "not the state the log folds to" in problems[0]


def test_the_newest_receipt_shows_replaced_credentials(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Finding 2: a signing key swapped in the database (to sign orders in red's name) is
    outside the chain, but red's newest receipt shows it; his older ones are not asked."""
    service, lineage = game
    PlayerSecrets(service.store).issue("g", "red")
    older = service.receipt(lineage, "red")
    service.submit_orders(lineage, "red", service.orders_template(lineage, "red"))
    newest = service.receipt(lineage, "red")
    held = [("old.json", older.encode().encode()), ("new.json", newest.encode().encode())]
    assert [(c.holds, c.credentials_changed) for c in service.check_receipts(held)] == [
        (True, None),
        (True, False),
    ]
    with service.store.engine.begin() as conn:
        conn.execute(player_secrets.update().values(signing_key="ab" * 32))
    old, new = service.check_receipts(held)
    assert (old.holds, new.holds, new.credentials_changed) == (True, False, True)
