"""Golden text of what people see, at a fixed width. UPDATE_GOLDEN=1 rewrites the files."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from campaign import render
from campaign.events import Audience
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from tests.conftest import CountingNonces, FixedClock

GOLDEN = Path(__file__).parent / "golden" / "render"


def text_of(renderable: RenderableType) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None, theme=render.THEME)
    console.print(renderable)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(actual)
    assert path.exists(), f"missing golden file {path}: run with UPDATE_GOLDEN=1"
    assert actual == path.read_text()


@pytest.fixture
def played() -> Iterator[tuple[CampaignService, Lineage]]:
    # Fixed secrets as well as a fixed clock: the hashes shown depend on the chain key.
    service = CampaignService.open(
        "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    service.new_campaign(plan_campaign("demo", ["red", "blue"], seed="7"))
    lineage = service.target("demo")
    service.roll(lineage, "2d6", "storm at [Hudson]", Audience.players_(["red"]))
    service.note(lineage, "Welcome, admirals", Audience.everyone())
    service.end_turn(lineage)
    service.roll(lineage, "d6", "pirates", Audience.umpire_only(), results=[4])
    yield service, lineage
    service.close()


def test_log_golden(played: tuple[CampaignService, Lineage]) -> None:
    service, lineage = played
    check_golden("log", text_of(render.log_table(service.log(lineage), "demo [main]")))
    red = service.log(lineage, viewer="red")
    check_golden("log_as_red", text_of(render.log_table(red, "demo [main] as red")))


def test_status_and_state_golden(played: tuple[CampaignService, Lineage]) -> None:
    service, lineage = played
    status = service.status(lineage)
    check_golden("status", text_of(render.status_panel(status)).replace("sqlite://", "DB"))
    state = service.state_at(lineage, 0, viewer="blue")
    check_golden(
        "state_blue_turn0",
        text_of(render.state_panel(state, "demo", "main", "at the end of turn 0", "blue")),
    )


def test_verify_and_branches_golden(played: tuple[CampaignService, Lineage]) -> None:
    service, lineage = played
    service.reveal_seed(lineage, early=True)
    check_golden("verify_dice", text_of(render.verify_panel(service.verify(lineage, dice=True))))
    service.rewind(lineage, 0)
    name, active, branches = service.branches("demo")
    check_golden("branches", text_of(render.branches_table(name, active, branches)))


def test_a_battle_in_the_log_counts_its_ships_in_good_english() -> None:
    from campaign.events import BattleRequested
    from campaign.strategic import Battle, BattleSide

    battle = Battle(
        id="t4-b2",
        hex="0201",
        system="Alpha",
        type="even",
        sides=(
            BattleSide("red", "engage", ("red-W1",)),
            BattleSide("blue", "stand-off", ("blue-W1", "blue-W2")),
        ),
    )
    said = render.describe(BattleRequested(battle=battle))
    assert "red (engage, 1 ship) vs blue (stand-off, 2 ships)" in said
