"""Orders marked final ("ready", issue 16): a player says he is done with his orders of the
turn, by the command line or the web page; new orders take the mark back. He and the umpire
see the mark, no other player does (docs/rulings.md, "Orders marked final")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from campaign.errors import IllegalCommandError
from campaign.events import OrdersMarkedFinal
from campaign.web import create_app
from cli import app
from tests.test_strategic import orders
from tests.test_web import Game, sign_in, with_token

RED = orders("red", 2, ("red-S1", None, "stand-off"))


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    made = Game(f"sqlite:///{tmp_path / 'final.db'}", tmp_path)
    yield made
    made.close()


def test_orders_are_marked_final_until_new_ones_come(game: Game) -> None:
    service, lineage = game.service, game.lineage
    with pytest.raises(IllegalCommandError, match="red has handed in no orders for turn 2"):
        service.mark_final(lineage, "red")
    service.submit_orders(lineage, "red", RED)
    (marked,) = service.mark_final(lineage, "red")
    assert marked.event == OrdersMarkedFinal(player="red", turn=2)
    assert marked.audience.players == ("red",)  # blue does not learn it
    assert service.turn_status(lineage).final == ("red",)
    assert service.load(lineage, viewer="blue").final == ()
    assert service.mark_final(lineage, "red") == []  # already final: nothing written
    assert service.load(lineage, viewer="red").final == ("red",)
    service.submit_orders(lineage, "red", RED)  # new orders: not final any more
    assert service.turn_status(lineage).final == ()
    assert service.load(lineage, viewer="red").final == ()  # his view knows it too
    service.mark_final(lineage, "red")
    (undone,) = service.mark_final(lineage, "red", final=False)
    assert undone.event == OrdersMarkedFinal(player="red", turn=2, final=False)
    assert service.turn_status(lineage).final == ()
    service.mark_final(lineage, "red")
    service.resolve_turn(lineage, expected_turn=2)
    assert service.turn_status(lineage).final == ()  # a new turn: nothing final yet


def test_a_player_marks_his_orders_final_from_the_command_line(game: Game) -> None:
    runner = CliRunner()
    where = ["--db", game.url, "--campaign", "g"]
    secret = {"UMPIRE_SECRET": game.secrets["g", "red"]}
    early = runner.invoke(app, ["orders", "final", "--player", "red", *where], env=secret)
    assert early.exit_code == 2
    assert "submit them, then mark them final" in early.output
    game.service.submit_orders(game.lineage, "red", RED)
    wrong = runner.invoke(
        app, ["orders", "final", "--player", "red", *where], env={"UMPIRE_SECRET": "nope"}
    )
    assert wrong.exit_code != 0
    assert game.service.turn_status(game.lineage).final == ()
    done = runner.invoke(app, ["orders", "final", "--player", "red", *where], env=secret)
    assert done.exit_code == 0, done.output
    assert "red's orders for turn 2 are final" in done.output
    again = runner.invoke(app, ["orders", "final", "--player", "red", *where], env=secret)
    assert "already final: nothing written" in again.output
    status = runner.invoke(app, ["turn", "status", *where])
    assert "marked final" in status.output
    assert "red" in status.output.split("marked final", 1)[1].splitlines()[0]
    undo = runner.invoke(app, ["orders", "final", "--undo", "--player", "red", *where], env=secret)
    assert undo.exit_code == 0, undo.output
    assert game.service.turn_status(game.lineage).final == ()


def test_a_player_marks_his_orders_final_on_the_web_page(game: Game) -> None:
    with TestClient(create_app(game.service, secret_key="k", https_only=False)) as red:
        sign_in(red, "g", "red", game.secrets["g", "red"])
        assert "Mark final" not in red.get("/orders").text  # no orders yet
        red.post("/orders", data=with_token(red, {"orders": RED}))
        assert "Mark final" in red.get("/orders").text
        page = red.post("/orders/final", data=with_token(red, {"final": "1"}))
        assert page.status_code == 200
        assert "Your orders for this turn are marked final" in page.text
        assert game.service.turn_status(game.lineage).final == ("red",)
        back = red.post("/orders/final", data=with_token(red, {"final": "0"}))
        assert "Mark final" in back.text
        assert game.service.turn_status(game.lineage).final == ()
    with TestClient(create_app(game.service, secret_key="k", https_only=False)) as blue:
        sign_in(blue, "g", "blue", game.secrets["g", "blue"])
        refused = blue.post("/orders/final", data=with_token(blue, {"final": "1"}))
        assert refused.status_code == 422
        assert "blue has handed in no orders" in refused.text
