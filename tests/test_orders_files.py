"""Players' orders files as they arrive from remote play: a byte-order mark, line endings
changed in transit, a secret pasted with a space, names typed in another case, a package
folder that already knows the campaign, and mistakes told with their line and an example."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from campaign import signing
from campaign.players import DOES_NOT_VERIFY
from campaign.web import SIGN_IN_REFUSED, create_app
from cli import app
from tests.test_inbox import Umpire, inbox, runner
from tests.test_strategic import orders
from tests.test_web import Game, sign_in, with_token

BOM = "\ufeff"


@pytest.fixture
def umpire(tmp_path: Path) -> Umpire:
    """Campaign `g` (red, blue) on the tiny map; red holds a secret (`umpire.red`), and his
    package for turn 1 is in `umpire.package`."""
    u = Umpire(tmp_path, str(tmp_path / "u.db"))
    u.new("g")
    u.red = u.add("red")  # type: ignore[attr-defined]
    u.run("publish", "--out", str(tmp_path / "pub"), "--campaign", "g")
    u.package = tmp_path / "pub" / "red"  # type: ignore[attr-defined]
    return u


def red(u: Umpire) -> str:
    secret: str = u.red  # type: ignore[attr-defined]
    return secret


def package(u: Umpire) -> Path:
    folder: Path = u.package  # type: ignore[attr-defined]
    return folder


def one_error(output: str) -> str:
    """The one line a refusal prints (a usage box or a traceback fails the test)."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("umpire: error: "), output
    return lines[0].removeprefix("umpire: error: ")


# ---------------------------------------------------------------- 1: a byte-order mark


def test_a_file_with_a_byte_order_mark_is_checked_signed_submitted_and_taken(
    umpire: Umpire,
) -> None:
    body = BOM + orders("red", 1, ("red-S1", "0102", "stand-off"))
    path = package(umpire) / "bom.toml"
    path.write_text(body, encoding="utf-8")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    umpire.run("orders", "check", str(path), "--package", str(package(umpire)), db=False)
    umpire.run("orders", "submit", str(path), "--player", "red", secret=red(umpire))
    inboxed = umpire.inbox / "red.toml"
    inboxed.write_text(body, encoding="utf-8")
    sign = ("orders", "sign", str(inboxed), "--player", "red", "--campaign", "g")
    umpire.run(*sign, secret=red(umpire), db=False)
    assert inbox(umpire) == [("red.toml", "red", "accepted")]


# ---------------------------------------------------------------- 2: signatures in transit


def test_a_signed_file_whose_line_endings_changed_in_transit_is_taken(umpire: Umpire) -> None:
    body = orders("red", 1, ("red-S1", "0102", "stand-off"))
    path = umpire.signed("red.toml", body, "red", red(umpire))
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert inbox(umpire) == [("red.toml", "red", "accepted")]
    # Signed on Windows with CRLF and a BOM, arriving with LF and no BOM: the same orders.
    crlf = umpire.inbox / "blue-side.toml"
    crlf.write_bytes(BOM.encode() + body.replace("\n", "\r\n").encode())
    umpire.sequence += 1
    sign = ("orders", "sign", str(crlf), "-p", "red", "-c", "g", "--sequence", "99")
    umpire.run(*sign, secret=red(umpire), db=False)
    crlf.write_bytes(crlf.read_bytes().removeprefix(BOM.encode()).replace(b"\r\n", b"\n"))
    assert inbox(umpire) == [("blue-side.toml", "red", "accepted")]


def _old_v2(body: bytes, secret: str, sequence: int) -> bytes:
    """A file signed the way umpires signed before line endings were normalised: v2, over
    the body's bytes as they are."""
    message = b"stellar-umpire/orders/v2\n" + f"g\nred\n1\n{sequence}\n".encode() + body
    sig = base64.b64encode(signing.private_key(secret, "g", "red").sign(message)).decode()
    line = f"# umpire-signature: v2 campaign=g player=red turn=1 seq={sequence} sig={sig}\n"
    return body + line.encode()


def test_files_signed_the_old_way_are_still_taken_even_with_crlf(umpire: Umpire) -> None:
    body = orders("red", 1, ("red-S1", "0102", "stand-off")).encode()
    (umpire.inbox / "a.toml").write_bytes(_old_v2(body, red(umpire), 1))
    (umpire.inbox / "b.toml").write_bytes(_old_v2(body, red(umpire), 2).replace(b"\n", b"\r\n"))
    crlf = body.replace(b"\n", b"\r\n")
    (umpire.inbox / "c.toml").write_bytes(_old_v2(crlf, red(umpire), 3))
    assert inbox(umpire) == [
        ("a.toml", "red", "accepted"),
        ("b.toml", "red", "accepted"),
        ("c.toml", "red", "accepted"),
    ]
    # A real change is still caught, and a wrong secret still gets the one answer.
    tampered = _old_v2(body, red(umpire), 4).replace(b'to = "0102"', b'to = "0302"')
    (umpire.inbox / "d.toml").write_bytes(tampered)
    umpire.signed("e.toml", body.decode(), "red", red(umpire) + "x")
    assert [r[2] for r in inbox(umpire, code=1)] == ["rejected", "rejected"]
    assert umpire.reason("d.toml") == umpire.reason("e.toml") == DOES_NOT_VERIFY + "\n"


def test_the_normalised_signature_covers_what_is_submitted() -> None:
    body = b'player = "red"\r\nturn = 1\r\n'
    signed = signing.read(signing.sign(body, "s", "g", "red", 1))
    assert signed.text() == 'player = "red"\nturn = 1\n'
    key = signing.public_key("s", "g", "red")
    assert signing.verifies(signed, key)
    changed = signing.read(signing.sign(body, "s", "g", "red", 1).replace(b"turn = 1", b"turn=1"))
    assert not signing.verifies(changed, key)


def test_sign_checks_the_orders_against_the_package_first(umpire: Umpire) -> None:
    folder = package(umpire)
    path = folder / "o1.toml"
    good = orders("red", 1, ("red-S1", "0102", "stand-off"))
    cases = {
        "unit": (orders("red", 1, ("red-S9", "0102", "stand-off")), ()),
        "campaign": (good, ("--campaign", "scc")),
        "secret": (good, ("--secret", red(umpire) + "x")),
    }
    messages = {}
    for name, (text, extra) in cases.items():
        path.write_text(text)
        args = ("orders", "sign", str(path), "--player", "red", *extra)
        messages[name] = one_error(umpire.run(*args, code=2, secret=red(umpire), db=False))
        assert path.read_text() == text, "nothing written"
    assert "red-S9" in messages["unit"]
    assert "not signed" in messages["unit"]
    assert "scc" in messages["campaign"]
    assert "'g'" in messages["campaign"]
    assert "not red's secret for campaign g" in messages["secret"]
    path.write_text(good)
    out = umpire.run("orders", "sign", str(path), "--player", "red", secret=red(umpire), db=False)
    assert "checked against your package" in out
    shutil_copy = umpire.inbox / "o1.toml"
    shutil_copy.write_bytes(path.read_bytes())
    assert inbox(umpire) == [("o1.toml", "red", "accepted")]


def test_the_package_holds_the_public_signing_key_and_never_the_secret(umpire: Umpire) -> None:
    view = json.loads((package(umpire) / "view.json").read_text())
    assert view["signing_key"] == signing.public_key(red(umpire), "g", "red")
    for file in package(umpire).iterdir():
        assert red(umpire).encode() not in file.read_bytes()
    blue = json.loads((package(umpire).parent / "blue" / "view.json").read_text())
    assert blue.get("signing_key") is None  # blue holds no secret


# ---------------------------------------------------------------- 3: options the package knows


def test_check_and_sign_default_from_the_package_folder(
    umpire: Umpire, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = package(umpire)
    path = folder / "o1.toml"
    path.write_text(orders("red", 1))
    out = umpire.run("orders", "check", str(path), db=False)
    assert out.startswith("OK: the orders of red for turn 1 of g")
    out = umpire.run("orders", "sign", str(path), secret=red(umpire), db=False)
    assert f"Signed {path} for red of g" in out
    monkeypatch.chdir(folder)
    elsewhere = umpire.tmp_path / "o2.toml"
    elsewhere.write_text(orders("red", 1))
    assert umpire.run("orders", "check", str(elsewhere), db=False).startswith("OK:")
    help_text = umpire.run("orders", "check", "--help", db=False)
    assert "view.json" in help_text
    assert "folder" in help_text


def test_missing_package_or_campaign_is_one_line(umpire: Umpire) -> None:
    path = umpire.tmp_path / "o1.toml"
    path.write_text(orders("red", 1))
    message = one_error(umpire.run("orders", "check", str(path), code=2, db=False))
    assert "--package" in message
    assert "view.json" in message
    message = one_error(
        umpire.run("orders", "sign", str(path), "--player", "red", code=2, secret="s", db=False)
    )
    assert "--campaign" in message


# ---------------------------------------------------------------- 4: type errors told


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            'player = "red"\nturn = 1\n[treasury]\nships = ["frigate"]\n',
            ["line 4", "treasury", "'frigate'", 'ships = [{ design = "frigate" }'],
        ),
        (
            'player = "red"\nturn = 1\n[[moves]]\nunit = "red-S1"\nto = 102\n',
            ["line 5", "red-S1", "102", 'to = "0305"', "star's name"],
        ),
        (
            'player = "red"\nturn = "one"\n',
            ["line 2", "'one'", "turn = 1"],
        ),
    ],
)
def test_a_mistyped_value_names_its_line_what_was_given_and_an_example(
    umpire: Umpire, text: str, wanted: list[str]
) -> None:
    path = package(umpire) / "bad.toml"
    path.write_text(text)
    message = one_error(umpire.run("orders", "check", str(path), code=2, db=False))
    for part in wanted:
        assert part in message, message


def test_a_star_named_where_a_hex_is_wanted(umpire: Umpire) -> None:
    path = package(umpire) / "named.toml"
    path.write_text(orders("red", 1, ("red-S1", "Alpha", "stand-off")))
    umpire.run("orders", "check", str(path), db=False)
    umpire.run("orders", "submit", str(path), "--player", "red", secret=red(umpire))
    log = json.loads(umpire.run("log", "--json", "--campaign", "g"))
    moves = [e["event"]["moves"] for e in log if e["type"] == "orders_submitted"]
    assert moves[-1][0]["to"] == "0102"  # recorded as the hex it names
    path.write_text(orders("red", 1, ("red-S1", "Hamal", "stand-off")))
    message = one_error(umpire.run("orders", "check", str(path), code=2, db=False))
    assert "'Hamal'" in message
    assert "Alpha (0102)" in message


# ---------------------------------------------------------------- 5: secrets and names


def test_a_secret_with_white_space_around_it_is_the_secret(umpire: Umpire) -> None:
    path = umpire.tmp_path / "o.toml"
    path.write_text(orders("red", 1))
    submit = ("orders", "submit", str(path), "--player", "red", "--campaign", "g")
    umpire.run(*submit, "--secret", f" {red(umpire)} \n")
    inboxed = umpire.signed("red.toml", orders("red", 1), "red", f"{red(umpire)} ")
    assert inboxed.exists()
    assert inbox(umpire) == [("red.toml", "red", "accepted")]


@pytest.fixture
def web_game(tmp_path: Path) -> Iterator[Game]:
    made = Game(f"sqlite:///{tmp_path / 'web.db'}", tmp_path)
    yield made
    made.close()


def test_web_sign_in_takes_names_in_any_case(web_game: Game) -> None:
    with TestClient(create_app(web_game.service, secret_key="k", https_only=False)) as client:
        sign_in(client, " G ", "Red", f" {web_game.secrets[('g', 'red')]} ")
        assert "red" in client.get("/report").text


def test_web_misses_on_a_name_in_another_case_share_its_count(web_game: Game) -> None:
    with TestClient(create_app(web_game.service, secret_key="k", https_only=False)) as client:
        codes = []
        for name in ("Red", "red", "RED", "rEd", "Red", "red"):
            data = {"campaign": "g", "player": name, "secret": "wrong"}
            response = client.post("/sign-in", data=with_token(client, data))
            codes.append(response.status_code)
            if response.status_code == 401:
                assert SIGN_IN_REFUSED in response.text
        assert codes == [401] * 5 + [429]


def test_a_refused_sign_in_does_not_tell_which_names_exist(web_game: Game) -> None:
    """A refusal shows the names as typed: shown as the database spells them, "G" coming back
    as g would tell that campaign g exists where "NOPE" comes back as typed (review)."""
    pages = []
    with TestClient(create_app(web_game.service, secret_key="k", https_only=False)) as client:
        for campaign in ("G", "Q"):  # g exists, q does not
            data = {"campaign": campaign, "player": "RED", "secret": "wrong"}
            response = client.post("/sign-in", data=with_token(client, data))
            assert response.status_code == 401
            token = re.sub(r"name='csrf' value='[^']+'", "", response.text)
            pages.append(token.replace(f"value='{campaign}'", "value='C'"))
    assert pages[0] == pages[1]


def test_cli_sign_in_names_stay_exact(umpire: Umpire) -> None:
    path = umpire.tmp_path / "o.toml"
    path.write_text(orders("red", 1))
    result = runner.invoke(
        app,
        ["orders", "submit", str(path), "-p", "Red", "-c", "g", "--db", umpire.db],
        env={"UMPIRE_SECRET": red(umpire)},
    )
    assert result.exit_code != 0


def test_web_orders_pasted_with_a_byte_order_mark_and_crlf_are_recorded(web_game: Game) -> None:
    text = BOM + orders("red", 2, ("red-S1", "Beta", "stand-off")).replace("\n", "\r\n")
    with TestClient(create_app(web_game.service, secret_key="k", https_only=False)) as client:
        sign_in(client, "g", "red", web_game.secrets["g", "red"])
        response = client.post("/orders", data=with_token(client, {"orders": text}))
        assert response.status_code == 200, response.text
    recorded = web_game.service.load(web_game.lineage).orders["red"]
    assert [m.to for m in recorded] == ["0302"]


def test_reach_takes_a_stars_name_as_orders_do(umpire: Umpire) -> None:
    reach = ("map", "reach", "red-S1", "--player", "red", "--campaign", "g", "--json")
    named = json.loads(umpire.run(*reach, "--to", "alpha"))
    assert named == json.loads(umpire.run(*reach, "--to", "0102"))
    assert named["path"]
