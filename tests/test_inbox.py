"""Signed orders files and the inbox (issue 6): signed at home, checked and recorded here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from campaign import render, signing
from campaign.inbox import InboxResult, Outcome, exit_code
from campaign.players import DOES_NOT_VERIFY, NO_SIGNING_KEY
from campaign.signing import SIGNATURE_PREFIX, SignatureError
from campaign.store import EventStore, player_secrets
from cli import app
from tests.conftest import reset_postgres
from tests.test_render import check_golden, text_of
from tests.test_strategic import TINY_MAP, orders

runner = CliRunner()


class Umpire:
    """The `umpire` command on one database, as the umpire and as players at home."""

    def __init__(self, tmp_path: Path, db: str) -> None:
        self.tmp_path = tmp_path
        self.db = db
        self.inbox = tmp_path / "inbox"
        self.inbox.mkdir()
        self.outputs: list[str] = []  # all but `player add|rotate`, to check no secret leaks
        self.sequence = 0  # each file signed is numbered after the one before
        (tmp_path / "tiny.toml").write_text(TINY_MAP)

    def run(self, *args: str, code: int = 0, secret: str | None = None, db: bool = True) -> str:
        env = {"UMPIRE_SECRET": secret} if secret is not None else {}
        argv = [*args, "--db", self.db] if db else list(args)
        result = runner.invoke(app, argv, env=env, catch_exceptions=False)
        output = result.stdout + result.stderr
        if args[:2] not in (("player", "add"), ("player", "rotate")):
            self.outputs.append(output)
        assert result.exit_code == code, output
        return output

    def new(self, campaign: str, players: str = "red,blue") -> None:
        self.run("new", campaign, "--players", players, "--map", str(self.tmp_path / "tiny.toml"))

    def add(self, player: str, campaign: str = "g") -> str:
        return self.run("player", "add", player, "--campaign", campaign).split()[0]

    def signed(self, name: str, text: str, player: str, secret: str, campaign: str = "g") -> Path:
        """Write an orders file into the inbox and sign it there, as the player would."""
        path = self.inbox / name
        path.write_text(text)
        self.sequence += 1
        sign = (
            *("orders", "sign", str(path), "--player", player, "--campaign", campaign),
            *("--sequence", str(self.sequence)),
        )
        assert f"Signed {path}" in self.run(*sign, secret=secret, db=False)
        return path

    def forged(self, name: str, text: str, player: str, secret: str) -> Path:
        """Write into the inbox an orders file signed as `player` by a script of his own,
        which `orders sign` would refuse to make (someone else's orders)."""
        self.sequence += 1
        path = self.inbox / name
        path.write_bytes(signing.sign(text.encode(), secret, "g", player, self.sequence))
        return path

    def commitments(self, campaign: str = "g") -> list[str]:
        log = json.loads(self.run("log", "--json", "--campaign", campaign))
        return [e["event"]["player"] for e in log if e["type"] == "orders_committed"]

    def reason(self, name: str) -> str:
        return (self.inbox / "rejected" / f"{name}.reason.txt").read_text()


@pytest.fixture
def umpire(tmp_path: Path) -> Umpire:
    """Campaign `g` (red, blue) on the tiny map, in a SQLite file."""
    u = Umpire(tmp_path, str(tmp_path / "u.db"))
    u.new("g")
    return u


def inbox(u: Umpire, code: int = 0, campaign: str = "g") -> list[tuple[str, str, str]]:
    """Run the inbox with --json; return (file, player, outcome) of each file, in order."""
    args = ("orders", "inbox", str(u.inbox), "--campaign", campaign, "--json")
    results = json.loads(u.run(*args, code=code))
    return [(r["file"], r["player"] or "", r["outcome"]) for r in results]


def test_sign_then_inbox_records_the_orders_and_files_them(umpire: Umpire) -> None:
    red, blue = umpire.add("red"), umpire.add("blue")
    body = orders("red", 1, ("red-S1", "0102", "stand-off"))
    path = umpire.signed("red.toml", body, "red", red)
    signed = path.read_bytes()
    assert signed.startswith(body.encode())
    last = signed.decode().splitlines()[-1]
    assert last.startswith(f"{SIGNATURE_PREFIX} v3 campaign=g player=red turn=1 seq=1 sig=")
    again = ("orders", "sign", str(path), "-p", "red", "-c", "g", "--sequence", "1")
    umpire.run(*again, secret=red, db=False)
    assert path.read_bytes() == signed  # signing again replaces the line with the same one
    umpire.signed("blue.toml", orders("blue", 1), "blue", blue)

    table = umpire.run("orders", "inbox", str(umpire.inbox))
    assert "blue.toml │ blue   │ accepted" in table
    assert "red.toml  │ red    │ accepted" in table
    assert sorted(p.name for p in (umpire.inbox / "done").iterdir()) == [
        "blue.toml",
        "blue.toml.receipt.json",
        "red.toml",
        "red.toml.receipt.json",
    ]
    assert (umpire.inbox / "done" / "red.toml").read_bytes() == signed
    assert not list(umpire.inbox.glob("*.toml"))
    assert umpire.commitments() == ["blue", "red"]  # name order: blue.toml first
    assert umpire.run("orders", "inbox", str(umpire.inbox)).startswith("no orders files")

    # A resubmission replaces the orders; its file does not overwrite the first one in done/.
    umpire.signed("red.toml", orders("red", 1), "red", red)
    assert inbox(umpire) == [("red.toml", "red", "accepted")]
    assert (umpire.inbox / "done" / "red.2.toml").exists()
    assert umpire.commitments() == ["blue", "red", "red"]
    for secret in (red, blue):
        assert not any(secret in output for output in umpire.outputs), "a secret leaked"
        files = [p for p in umpire.inbox.rglob("*") if p.is_file()]
        assert not any(secret.encode() in p.read_bytes() for p in files), "a secret leaked"


def test_a_tampered_file_is_refused_and_nothing_is_stored(umpire: Umpire) -> None:
    red = umpire.add("red")
    path = umpire.signed("red.toml", orders("red", 1, ("red-S1", "0102", "stand-off")), "red", red)
    path.write_bytes(path.read_bytes().replace(b'to = "0102"', b'to = "0302"'))
    assert inbox(umpire, code=1) == [("red.toml", "red", "rejected")]
    assert umpire.reason("red.toml") == DOES_NOT_VERIFY + "\n"
    assert (umpire.inbox / "rejected" / "red.toml").exists()
    assert not (umpire.inbox / "red.toml").exists()
    assert umpire.commitments() == []


def test_unsigned_and_malformed_files_are_refused(umpire: Umpire) -> None:
    red = umpire.add("red")
    (umpire.inbox / "a-plain.toml").write_text(orders("red", 1))
    path = umpire.signed("b-mangled.toml", orders("red", 1), "red", red)
    path.write_text(path.read_text().replace("player=red", "who=red").replace("sig=", "sig=!"))
    (umpire.inbox / "notes.txt").write_text("not an orders file: left alone")
    assert inbox(umpire, code=1) == [
        ("a-plain.toml", "", "rejected"),
        ("b-mangled.toml", "", "rejected"),
    ]
    assert umpire.reason("a-plain.toml").startswith("not signed")
    assert umpire.reason("b-mangled.toml").splitlines() == [
        "malformed signature line: unexpected 'who=red'",
        "malformed signature line: no player=",
        "malformed signature line: sig is not base64",
    ]
    assert (umpire.inbox / "notes.txt").exists()
    assert umpire.commitments() == []


def test_a_player_can_never_act_for_another_player(umpire: Umpire) -> None:
    red = umpire.add("red")
    umpire.add("blue")
    # Red signs as blue with his own secret; and edits his own line to name blue.
    umpire.signed("a.toml", orders("blue", 1), "blue", red)
    path = umpire.forged("b.toml", orders("blue", 1), "red", red)
    path.write_text(path.read_text().replace("player=red", "player=blue"))
    # Red's own signature over blue's orders (`orders sign` refuses to make it), and over a
    # move of blue's ships.
    umpire.forged("c.toml", orders("blue", 1), "red", red)
    umpire.signed("d.toml", orders("red", 1, ("blue-W1", None, "engage")), "red", red)
    assert inbox(umpire, code=1) == [
        ("a.toml", "blue", "rejected"),
        ("b.toml", "blue", "rejected"),
        ("c.toml", "red", "rejected"),
        ("d.toml", "red", "rejected"),
    ]
    assert umpire.reason("a.toml") == umpire.reason("b.toml") == DOES_NOT_VERIFY + "\n"
    assert umpire.reason("c.toml") == "the file is blue's orders, not red's\n"
    assert "blue-W1: not a unit of red" in umpire.reason("d.toml")
    assert umpire.commitments() == []


def test_unknown_players_and_bad_signatures_get_one_answer(umpire: Umpire) -> None:
    red = umpire.add("red")
    umpire.signed("blue.toml", orders("blue", 1), "blue", red)  # blue holds no secret
    umpire.signed("green.toml", orders("green", 1), "green", red)  # no such player
    umpire.signed("red.toml", orders("red", 1), "red", red + "x")  # a wrong secret
    assert [r[2] for r in inbox(umpire, code=1)] == ["rejected"] * 3
    for name in ("blue.toml", "green.toml", "red.toml"):
        assert umpire.reason(name) == DOES_NOT_VERIFY + "\n"


def test_a_signature_for_one_campaign_is_refused_in_another(umpire: Umpire) -> None:
    umpire.new("h", "red,green")
    red_g, red_h = umpire.add("red", "g"), umpire.add("red", "h")
    path = umpire.signed("red.toml", orders("red", 1), "red", red_g, campaign="g")
    signed_for_g = path.read_text()
    assert inbox(umpire, code=1, campaign="h") == [("red.toml", "red", "rejected")]
    assert umpire.reason("red.toml") == "signed for campaign 'g', not 'h'\n"
    # Claiming campaign h on the line does not help: the signature covers the campaign.
    path.write_text(signed_for_g.replace("campaign=g", "campaign=h"))
    assert inbox(umpire, code=1, campaign="h") == [("red.toml", "red", "rejected")]
    assert umpire.reason("red.2.toml") == DOES_NOT_VERIFY + "\n"
    assert umpire.commitments("h") == []
    # Red's own key for h is another key: the same body signs differently.
    again = umpire.signed("red.toml", orders("red", 1), "red", red_h, campaign="h")
    assert again.read_text() != signed_for_g.replace("campaign=g", "campaign=h")
    assert inbox(umpire, campaign="h") == [("red.toml", "red", "accepted")]
    assert umpire.commitments("h") == ["red"]
    assert umpire.commitments("g") == []


def test_a_secret_from_before_signing_keys_must_be_rotated(umpire: Umpire) -> None:
    old = umpire.add("red")
    store = EventStore.open(umpire.db, create=False)
    try:  # as migration 0004 leaves a secret issued before it
        with store.engine.begin() as conn:
            conn.execute(player_secrets.update().values(signing_key=None))
    finally:
        store.close()
    assert "rotate for a key" in umpire.run("player", "list")
    umpire.signed("red.toml", orders("red", 1), "red", old)
    assert inbox(umpire, code=1) == [("red.toml", "red", "rejected")]
    assert umpire.reason("red.toml") == NO_SIGNING_KEY + "\n"
    assert NO_SIGNING_KEY == "no signing key on record: rotate the player's secret"
    new = umpire.run("player", "rotate", "red").split()[0]
    umpire.signed("red.toml", orders("red", 1), "red", new)
    assert inbox(umpire) == [("red.toml", "red", "accepted")]
    assert umpire.commitments() == ["red"]


def test_orders_that_break_the_rules_are_refused_with_every_problem(umpire: Umpire) -> None:
    red = umpire.add("red")
    bad = orders("red", 1, ("red-S9", None, "engage"), ("red-W99", None, "engage"))
    umpire.signed("red.toml", bad, "red", red)
    before = len(json.loads(umpire.run("log", "--json")))
    assert inbox(umpire, code=1) == [("red.toml", "red", "rejected")]
    problems = umpire.reason("red.toml").splitlines()
    assert len(problems) == 2
    assert any(p.startswith("red-S9") for p in problems)
    assert any(p.startswith("red-W99") for p in problems)
    table = umpire.run("orders", "inbox", str(umpire.inbox))  # nothing left: an empty table
    assert "no orders files" in table
    assert len(json.loads(umpire.run("log", "--json"))) == before
    # The same orders through `orders submit` fail with the same messages.
    submitted = umpire.run(
        "orders",
        "submit",
        str(umpire.inbox / "rejected" / "red.toml"),
        "-p",
        "red",
        code=2,
        secret=red,
    )
    assert all(p in submitted.replace("\n", " ") for p in problems)
    assert red not in umpire.reason("red.toml")


def test_signatures_are_deterministic_and_bound_to_everything() -> None:
    body = orders("red", 1).encode()
    once = signing.sign(body, "s3cret", "g", "red", 7)
    assert signing.sign(body, "s3cret", "g", "red", 7) == once
    assert signing.sign(once, "s3cret", "g", "red", 7) == once  # re-signing replaces the line
    assert signing.unsigned(once) == body
    assert signing.sign(body.rstrip(b"\n"), "s3cret", "g", "red", 7) == once  # newline added
    key = signing.public_key("s3cret", "g", "red")
    assert key == signing.public_key("s3cret", "g", "red")
    read = signing.read(once)
    assert (read.campaign, read.player, read.turn, read.sequence, read.body) == (
        "g",
        "red",
        1,
        7,
        body,
    )
    assert signing.verifies(read, key)
    assert not signing.verifies(read, None)
    others = {
        signing.sign(body, "other", "g", "red", 7),
        signing.sign(body, "s3cret", "h", "red", 7),
        signing.sign(body, "s3cret", "g", "blue", 7),
        signing.sign(body, "s3cret", "g", "red", 8),
        signing.sign(body.replace(b"turn = 1", b"turn = 2"), "s3cret", "g", "red", 7),
        signing.sign(body + b"# a comment\n", "s3cret", "g", "red", 7),
    }
    sigs = {line.splitlines()[-1].rpartition(b"sig=")[2] for line in (once, *others)}
    assert len(sigs) == 7
    # The turn and the sequence are signed: changing either in the line breaks the signature.
    renumbered = once.replace(b"seq=7", b"seq=9")
    moved = once.replace(b"turn = 1", b"turn = 2").replace(b"turn=1", b"turn=2")
    for tampered in (renumbered, moved):
        assert not signing.verifies(signing.read(tampered), key)
    for other in ("other", "s3cret"):
        for campaign, player in (("g", "blue"), ("h", "red")):
            assert not signing.verifies(read, signing.public_key(other, campaign, player))
    assert b"s3cret" not in once


def test_a_file_edited_after_signing_says_so_and_signs_again_with_the_edit() -> None:
    body = orders("red", 1).encode()
    signed = signing.sign(body, "s3cret", "g", "red", 7)
    edited = signed + b"# hold at Mizar after all\n"
    with pytest.raises(SignatureError, match="changed after it was signed"):
        signing.read(edited)
    again = signing.sign(edited, "s3cret", "g", "red", 8)
    assert again.count(SIGNATURE_PREFIX.encode()) == 1  # the stale line is gone
    read = signing.read(again)
    assert read.body == body + b"# hold at Mizar after all\n"  # the edit is what is signed
    assert signing.verifies(read, signing.public_key("s3cret", "g", "red"))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b"player = 'red'\n", "not signed"),
        (b"# umpire-signature: v9 campaign=g player=red sig=AA==\n", "unknown signature format"),
        (b"# umpire-signature: v1 campaign=g player=red sig=AA==\n", "v1 carries no turn"),
        (b"x\n# umpire-signature: v2 campaign=g player=Red sig=AA==\n", "player name 'Red'"),
        (b"# umpire-signature: v2 campaign=g campaign=h player=red sig=AA==", "campaign given"),
        (b"# umpire-signature: v2 campaign=g player=red turn=1 seq=1 sig=AA==\n", "1 bytes"),
        (b"# umpire-signature: v2 campaign=g player=red sig=AA==\n", "no turn="),
        (b"# umpire-signature: v2 campaign=g player=red turn=x seq=0 sig=AA==", "turn is not"),
        (b"# umpire-signature: v2 campaign=g player=red turn=1 seq=0 sig=AA==", "seq starts"),
        (b"turn = 2\n# umpire-signature: v2 campaign=g player=red turn=1 seq=1", "for turn 1"),
        (b"# umpire-signature: v2 campaign=g player=red sig=AA==\nturn = 1\n", "changed after"),
    ],
)
def test_malformed_signature_lines(text: bytes, problem: str) -> None:
    with pytest.raises(SignatureError, match=problem):
        signing.read(text)


def test_sign_refuses_without_a_secret_and_needs_no_database(tmp_path: Path) -> None:
    path = tmp_path / "red.toml"
    path.write_text(orders("red", 1))
    sign = ["orders", "sign", str(path), "-p", "red", "-c", "g"]
    result = runner.invoke(app, sign, env={"UMPIRE_SECRET": ""})
    assert result.exit_code == 2
    assert "signing needs red's secret: set UMPIRE_SECRET or give --secret" in result.stderr
    result = runner.invoke(app, [*sign[:-1], "bad name", "--secret", "s"])
    assert result.exit_code == 2
    assert "name 'bad name' must be" in result.stderr
    out = tmp_path / "signed.toml"
    result = runner.invoke(app, [*sign, "--out", str(out)], env={"UMPIRE_SECRET": "s"})
    assert result.exit_code == 0, result.output
    assert path.read_text() == orders("red", 1)  # --out leaves the original alone
    assert signing.read(out.read_bytes()).player == "red"
    assert not list(tmp_path.glob("*.db"))
    # Blue's orders are not red's to sign: refused, and the file left as it was.
    path.write_text(orders("blue", 1))
    result = runner.invoke(app, [*sign, "--secret", "s"])
    assert result.exit_code == 2
    assert "the file holds blue's orders (player = 'blue'), not red's" in result.stderr
    assert path.read_text() == orders("blue", 1)


def test_inbox_exit_codes_and_table_golden() -> None:
    results = [
        InboxResult("blue.toml", "blue", Outcome.ACCEPTED, (), "done/blue.toml"),
        InboxResult(
            "red.toml", "red", Outcome.REJECTED, ("red-S1: no route", "red-W9: no such unit")
        ),
        InboxResult("x.toml", None, Outcome.REJECTED, ("not signed",), "rejected/x.2.toml"),
        InboxResult("y.toml", "red", Outcome.RETRY, ("another writer came first",)),
    ]
    check_golden("inbox", text_of(render.inbox_table("inbox", results)))
    assert exit_code(results) == 1
    assert exit_code(results[3:]) == 3
    assert exit_code(results[:1]) == 0


def test_sign_and_inbox_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    reset_postgres(pg_url)
    umpire = Umpire(tmp_path, pg_url)
    umpire.new("g")
    red = umpire.add("red")
    umpire.signed("red.toml", orders("red", 1), "red", red)
    umpire.signed("zz-forged.toml", orders("blue", 1), "blue", red)
    assert inbox(umpire, code=1) == [
        ("red.toml", "red", "accepted"),
        ("zz-forged.toml", "blue", "rejected"),
    ]
    assert umpire.commitments() == ["red"]
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as conn:
            keys = conn.execute(sa.select(player_secrets.c.signing_key)).scalars().all()
    finally:
        engine.dispose()
    assert keys == [signing.public_key(red, "g", "red")]


def test_an_older_signed_file_dropped_back_is_refused(umpire: Umpire) -> None:
    """Issue 13, finding 3: a replayed file never replaces newer orders, and never resolves."""
    red = umpire.add("red")
    old = umpire.signed("a.toml", orders("red", 1, ("red-S1", "0102", "stand-off")), "red", red)
    first = old.read_bytes()
    assert inbox(umpire) == [("a.toml", "red", "accepted")]
    umpire.signed("b.toml", orders("red", 1, ("red-S1", None, "stand-off")), "red", red)
    assert inbox(umpire) == [("b.toml", "red", "accepted")]
    newest = (umpire.inbox / "done" / "b.toml").read_bytes()
    for name, data in (("c.toml", first), ("d.toml", newest)):
        (umpire.inbox / name).write_bytes(data)
    assert inbox(umpire, code=1) == [("c.toml", "red", "rejected"), ("d.toml", "red", "rejected")]
    assert "signed orders number 1 are not newer than red's orders number 2" in umpire.reason(
        "c.toml"
    )
    assert "number 2 are not newer" in umpire.reason("d.toml")
    umpire.run("turn", "resolve", "--turn", "1")
    log = json.loads(umpire.run("log", "--json", "--type", "orders_revealed"))
    (revealed,) = [json.loads(e["event"]["payload"]) for e in log]
    assert revealed["sequence"] == 2
    assert revealed["moves"] == [
        {"count": None, "order": "stand-off", "to": None, "unit": "red-S1", "via": []}
    ]
