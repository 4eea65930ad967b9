"""Players' secrets (issue 6): issued once, stored only as a hash, rotated, never shared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from typer.testing import CliRunner

from campaign.errors import (
    CampaignNotFoundError,
    IllegalCommandError,
    InvalidInputError,
    SchemaError,
)
from campaign.players import PlayerSecrets, player_secrets
from campaign.service import CampaignService, plan_campaign
from campaign.store import EventStore, upgrade_database
from campaign.web import create_app
from cli import app
from tests.conftest import FixedClock
from tests.test_migrations import old_postgres, old_sqlite
from tests.test_strategic import TINY_MAP, orders
from tests.test_web import sign_in, with_token


@pytest.fixture
def map_file(tmp_path: Path) -> str:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    return str(path)


@pytest.fixture
def game(backend_url: str, map_file: str) -> Iterator[CampaignService]:
    """Campaign `g` (red, blue) on the tiny map, on each backend."""
    service = CampaignService.open(backend_url, clock=FixedClock(), create=True)
    service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file))
    yield service
    service.close()


def stored_rows(store: EventStore) -> list[tuple[object, ...]]:
    with store.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.select(player_secrets)).all()]


def test_a_secret_is_issued_once_and_only_its_hash_is_stored(game: CampaignService) -> None:
    keys = PlayerSecrets(game.store)
    secret = keys.issue("g", "red")
    assert len(secret) >= 32
    assert keys.verify("g", "red", secret)
    assert not keys.verify("g", "red", secret[:-1])
    assert not keys.verify("g", "red", "")
    with pytest.raises(IllegalCommandError, match="holds a secret already: `umpire player rotate"):
        keys.issue("g", "red")
    assert keys.verify("g", "red", secret)  # the refused issue changed nothing
    rows = stored_rows(game.store)
    assert len(rows) == 1
    dump = repr(rows)
    for form in (secret, secret.encode().hex(), secret.lower(), secret[:16]):
        assert form not in dump
    kdf, salt, digest = rows[0][3:6]
    assert kdf == "scrypt:n=16384,r=8,p=1"
    assert len(str(salt)) == 32
    assert len(str(digest)) == 64


def test_every_secret_has_its_own_salt(game: CampaignService) -> None:
    keys = PlayerSecrets(game.store)
    keys.issue("g", "red")
    keys.issue("g", "blue")
    salts = {row[4] for row in stored_rows(game.store)}
    assert len(salts) == 2


def test_rotation_invalidates_the_old_secret(game: CampaignService) -> None:
    keys = PlayerSecrets(game.store)
    old = keys.issue("g", "red")
    old_tag = keys.session_tag("g", "red")
    new = keys.rotate("g", "red")
    assert new != old
    assert not keys.verify("g", "red", old)
    assert keys.verify("g", "red", new)
    assert keys.session_tag("g", "red") not in (None, old_tag)
    assert [(a.player, a.has_secret, a.rotations) for a in keys.access("g")] == [
        ("red", True, 1),
        ("blue", False, 0),
    ]


def test_only_players_of_the_campaign_hold_secrets(game: CampaignService) -> None:
    keys = PlayerSecrets(game.store)
    with pytest.raises(InvalidInputError, match=r"'green' is not a player of 'g' \(players: red"):
        keys.issue("g", "green")
    with pytest.raises(InvalidInputError, match="player name 'umpire'"):
        keys.issue("g", "umpire")
    with pytest.raises(IllegalCommandError, match="holds no secret yet: `umpire player add blue`"):
        keys.rotate("g", "blue")
    with pytest.raises(CampaignNotFoundError):
        keys.issue("nope", "red")
    assert stored_rows(game.store) == []


def test_unknown_players_and_campaigns_are_refused_alike(game: CampaignService) -> None:
    keys = PlayerSecrets(game.store)
    secret = keys.issue("g", "red")
    assert not keys.verify("g", "blue", secret)  # blue holds no secret
    assert not keys.verify("g", "green", secret)  # no such player
    assert not keys.verify("nope", "red", secret)  # no such campaign
    assert keys.session_tag("g", "blue") is None


def test_secrets_belong_to_one_campaign(game: CampaignService, map_file: str) -> None:
    game.new_campaign(plan_campaign("h", ["red", "green"], seed="t", map_spec=map_file))
    keys = PlayerSecrets(game.store)
    in_g = keys.issue("g", "red")
    in_h = keys.issue("h", "red")
    assert keys.verify("g", "red", in_g)
    assert keys.verify("h", "red", in_h)
    assert not keys.verify("h", "red", in_g)
    assert not keys.verify("g", "red", in_h)


def test_a_player_can_never_act_for_another_players_fleets_via_the_web(
    game: CampaignService,
) -> None:
    keys = PlayerSecrets(game.store)
    red = keys.issue("g", "red")
    keys.issue("g", "blue")
    lineage = game.target("g")
    before = len(game.log(lineage))
    with TestClient(create_app(game, secret_key="k", https_only=False)) as client:
        sign_in(client, "g", "red", red)
        attempts = {
            # blue's own file, as red: the file names its player
            orders("blue", 1, ("blue-W1", None, "engage")): "the file is blue&#x27;s orders",
            # red's file moving blue's ships
            orders("red", 1, ("blue-W1", None, "engage")): "blue-W1: not a unit of red",
        }
        for text, problem in attempts.items():
            response = client.post("/orders", data=with_token(client, {"orders": text}))
            assert response.status_code == 422
            assert "Nothing was recorded" in response.text
            assert problem in response.text
        # A form field cannot name another player: the session decides whose orders these are.
        response = client.post(
            "/orders",
            data=with_token(
                client, {"orders": orders("blue", 1), "player": "blue", "campaign": "g"}
            ),
        )
        assert response.status_code == 422
    assert len(game.log(lineage)) == before
    assert "blue" not in game.load(lineage).orders


def test_the_cli_issues_rotates_and_lists_secrets(tmp_path: Path, map_file: str) -> None:
    path = tmp_path / "u.db"
    runner = CliRunner()

    def umpire(*args: str, code: int = 0) -> tuple[str, str]:
        result = runner.invoke(app, [*args, "--db", str(path)], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.stdout, result.stderr

    umpire("new", "g", "--players", "red,blue", "--map", map_file)
    secret, note = umpire("player", "add", "red")
    secret = secret.strip()
    assert "shown this once and stored only as a hash" in note
    _, problem = umpire("player", "add", "red", code=2)
    assert problem.startswith("umpire: error: red of 'g' holds a secret already")
    assert secret not in problem
    rotated = json.loads(umpire("player", "rotate", "red", "--json")[0])
    assert rotated["player"] == "red"
    assert rotated["secret"] != secret
    listing, _ = umpire("player", "list")
    assert "red" in listing
    assert "issued" in listing
    assert secret not in listing
    assert rotated["secret"] not in listing
    access = json.loads(umpire("player", "list", "--json")[0])
    assert [(a["player"], a["has_secret"], a["rotations"]) for a in access] == [
        ("red", True, 1),
        ("blue", False, 0),
    ]
    _, problem = umpire("player", "rotate", "green", code=2)
    assert "'green' is not a player of 'g'" in problem
    store = EventStore.open(str(path), create=False)
    try:
        keys = PlayerSecrets(store)
        assert keys.verify("g", "red", rotated["secret"])
        assert not keys.verify("g", "red", secret)
    finally:
        store.close()


def test_a_0002_database_is_refused_and_upgraded_to_head(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_sqlite(path, "0002")
    with pytest.raises(
        SchemaError, match=r"revision 0002 but this umpire needs 0007: run `umpire db upgrade`"
    ):
        EventStore.open(str(path))
    before, after, backup = upgrade_database(str(path))
    assert (before, after) == ("0002", "0007")
    assert backup is not None
    assert backup.name.startswith("old.db.0002.")
    store = EventStore.open(str(path))
    try:
        assert stored_rows(store) == []
        assert [c.name for c in store.campaigns()] == ["old"]
    finally:
        store.close()


def test_postgres_upgrade_from_0002(pg_url: str) -> None:
    old_postgres(pg_url, "0002")
    with pytest.raises(SchemaError, match="revision 0002 but this umpire needs 0007"):
        EventStore.open(pg_url)
    assert upgrade_database(pg_url) == ("0002", "0007", None)
    EventStore.open(pg_url).close()


def test_cli_orders_in_a_players_name_need_his_secret(tmp_path: Path, map_file: str) -> None:
    """Issue 6: orders need the player's secret; nobody can act for another player's fleets."""
    path = tmp_path / "u.db"
    runner = CliRunner()

    def umpire(*args: str, code: int = 0, secret: str | None = None) -> str:
        env = {"UMPIRE_SECRET": secret} if secret is not None else {}
        result = runner.invoke(app, [*args, "--db", str(path)], env=env, catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.stdout + result.stderr

    def log_length() -> int:
        return len(json.loads(umpire("log", "--json")))

    umpire("new", "g", "--players", "red,blue", "--map", map_file)
    red = umpire("player", "add", "red").split()[0]
    blue = umpire("player", "add", "blue").split()[0]
    red_orders = tmp_path / "red.toml"
    red_orders.write_text(orders("red", 1))
    submit = ("orders", "submit", str(red_orders), "--player", "red")
    before = log_length()
    assert "red holds a secret: orders in his name need it" in umpire(*submit, code=2)
    assert "that is not red's secret" in umpire(*submit, code=2, secret=blue)
    assert "that is not red's secret" in umpire(*submit, "--secret", red + "x", code=2)
    assert log_length() == before
    assert "Orders of red recorded" in umpire(*submit, secret=red)
    assert log_length() > before
    blue_orders = tmp_path / "blue.toml"
    blue_orders.write_text(orders("blue", 1))
    refused = umpire("orders", "submit", str(blue_orders), "--player", "blue", code=2, secret=red)
    assert "that is not blue's secret" in refused
    umpire("orders", "submit", str(blue_orders), "--player", "blue", "--secret", blue)
