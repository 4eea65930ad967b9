"""Three players in one hex: each battle there is fought by the ships still at its table.

004 5.3.6: a ship in "a subsequent combat during the current strategic turn" comes into it as
the battle before left it, so a ship destroyed in the turn's first battle takes no part in
the second, and a ship an unplanned jump took elsewhere is not there either. A battle's
outcome (`battle_fought`) names only the ships at its table, whether the engine fought it
or the umpire recorded it by hand; and each player's report tells only what his ships saw:
not that an enemy ship his side never met "came through" (docs/rulings.md, "Campaign: three
or more players in one hex").

A small map and three players: on turn 1 red (Engage) meets blue and green (both Stand Off)
in deep space at 0302, which brings two battles: t1-b1 (blue against red) and t1-b2 (green
against red).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from rich.console import Console
from typer.testing import CliRunner

from campaign import render
from campaign.errors import InvalidInputError
from campaign.events import BattleFought
from campaign.projections import evolve
from campaign.rules.assault import decide_attacks
from campaign.rules.battles import present, request_for
from campaign.rules.combat import decide_battle_result
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import Attack, ShipResult
from cli import app
from tests.conftest import FixedClock
from tests.test_assault import colony
from tests.test_combat import DUEL, state_of, warship
from tests.test_strategic import orders

TRIO_MAP = """
format = "stellar-umpire-map"
version = 1
name = "trio"
title = "Trio"
width = 5
height = 5

[[entries]]
name = "1"
hex = "0201"

[[entries]]
name = "2"
hex = "0301"

[[entries]]
name = "3"
hex = "0401"

[[systems]]
name = "Alpha"
hex = "0105"
colour = "yellow"
"""
PLAYERS = ("red", "blue", "green")
ORDER = {"red": "engage", "blue": "stand-off", "green": "stand-off"}
runner = CliRunner()


def _moved(tmp_path: Path) -> tuple[CampaignService, Lineage]:
    """Turn 1 moved and its two battles found at 0302, neither fought yet."""
    service = CampaignService.open(str(tmp_path / "trio.db"), clock=FixedClock(), create=True)
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    service.new_campaign(plan_campaign("trio", PLAYERS, seed="c", map_spec=str(map_file)))
    lineage = service.target("trio")
    for player in PLAYERS:
        moves = [(f"{player}-W{n}", "0302", ORDER[player]) for n in (1, 2)]
        service.submit_orders(lineage, player, orders(player, 1, *moves))
    service.resolve_turn(lineage)
    return service, lineage


@pytest.fixture
def trio(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    """Turn 1 moved and its two battles found at 0302, neither fought yet."""
    service, lineage = _moved(tmp_path)
    yield service, lineage
    service.close()


def _fought(service: CampaignService, lineage: Lineage, viewer: str = "umpire") -> list:
    return [
        e.event
        for e in service.log(lineage, types=["battle_fought"], viewer=viewer)
        if isinstance(e.event, BattleFought)
    ]


def _named(fought: BattleFought) -> set[str]:
    """Every ship a battle's outcome names, in its sides or its results."""
    return {u for s in fought.battle.sides for u in s.units} | {r.unit for r in fought.results}


def _first_battle_kills_red_w1(service: CampaignService, lineage: Lineage) -> None:
    battles = service.battles(lineage)
    assert [b.id for b in battles] == ["t1-b1", "t1-b2"]
    assert [[s.player for s in b.sides] for b in battles] == [["blue", "red"], ["green", "red"]]
    destroyed = (ShipResult(unit="red-W1", fate="destroyed"),)
    service.record_battle(lineage, "t1-b1", destroyed)


def _came_through(text: str) -> set[str]:
    """The ships a report's news says came through a battle."""
    return {
        ship
        for listed in re.findall(r"Came through: ([^.]*)\.", text)
        for ship in re.findall(r"\b\w+-W\d+\b", listed)
    }


def _report_text(service: CampaignService, lineage: Lineage, player: str) -> str:
    report = service.report(lineage, player)
    return render.report_markdown(report) + msgspec.json.encode(report.stories).decode()


def test_a_ship_destroyed_in_the_first_battle_is_not_at_the_engines_second(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    _first_battle_kills_red_w1(service, lineage)
    service.resolve_battles(lineage)  # t1-b2, by the engine
    second = _fought(service, lineage)[1]
    assert second.battle.id == "t1-b2"
    assert "red-W1" not in _named(second)
    assert [s.units for s in second.battle.sides] == [("green-W1", "green-W2"), ("red-W2",)]
    assert {r.unit for r in second.results} == {"green-W1", "green-W2", "red-W2"}


def test_a_ship_destroyed_in_the_first_battle_cannot_be_recorded_in_the_second(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    _first_battle_kills_red_w1(service, lineage)
    with pytest.raises(InvalidInputError, match=r"red-W1 .*earlier battle"):
        service.record_battle(lineage, "t1-b2", (ShipResult(unit="red-W1"),))
    service.record_battle(lineage, "t1-b2", (ShipResult(unit="red-W2", fate="destroyed"),))
    second = _fought(service, lineage)[1]
    assert "red-W1" not in _named(second)
    assert {r.unit: r.fate for r in second.results} == {
        "green-W1": "survived",
        "green-W2": "survived",
        "red-W2": "destroyed",
    }


def test_battles_record_refuses_a_ship_gone_before_its_battle(tmp_path: Path) -> None:
    """`umpire battles record` (the umpire's table-top outcome) says why."""
    service, _lineage = _moved(tmp_path)
    service.close()
    db = ["--db", str(tmp_path / "trio.db")]
    first = runner.invoke(app, ["battles", "record", "t1-b1", "--destroyed", "red-W1", *db])
    assert first.exit_code == 0, first.stdout + first.stderr
    second = runner.invoke(app, ["battles", "record", "t1-b2", "--damage", "red-W1=1", *db])
    assert second.exit_code != 0
    assert "red-W1" in second.stdout + second.stderr
    assert "earlier battle" in second.stdout + second.stderr


def test_no_ship_destroyed_earlier_comes_through_later(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """Over the turn's battles, by hand then by the engine: a ship destroyed in one is named
    by no later one, and the reports say no such ship came through."""
    service, lineage = trio
    _first_battle_kills_red_w1(service, lineage)
    service.resolve_battles(lineage)
    service.resolve_turn(lineage)
    gone: set[str] = set()
    for fought in _fought(service, lineage):
        assert not _named(fought) & gone, fought.battle.id
        gone |= {r.unit for r in fought.results if r.fate == "destroyed"}
    for player in PLAYERS:
        assert "red-W1" not in _came_through(_report_text(service, lineage, player)), player


def test_each_player_reads_only_the_enemy_ships_his_side_met(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """Green fought only t1-b2, which red-W1 never reached: the outcome green reads, his
    report's news and its battle page do not name it. Red's own report does not say it came
    through."""
    service, lineage = trio
    _first_battle_kills_red_w1(service, lineage)
    service.resolve_battles(lineage)
    service.resolve_turn(lineage)
    (green_battle,) = _fought(service, lineage, viewer="green")
    assert "red-W1" not in _named(green_battle)
    green = _report_text(service, lineage, "green")
    fought_news = re.findall(r"Battle t1-0302 was fought[^\n]*", green)
    assert fought_news
    assert all("red-W1" not in line for line in fought_news)
    page = service.battle_report(lineage, "t1-0302", viewer="green")
    assert "red-W1" not in msgspec.json.encode(page).decode()
    red = _report_text(service, lineage, "red")
    assert "red-W1" not in _came_through(red)
    assert re.search(r"Destroyed: red-W1\b", red)


def test_a_side_gone_before_its_battle_means_no_battle(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """Both red ships lost in t1-b1: t1-b2 is not fought, its outcome names no ship, and
    green is not told of red ships that never reached him, nor red of green's."""
    service, lineage = trio
    both = tuple(ShipResult(unit=f"red-W{n}", fate="destroyed") for n in (1, 2))
    service.record_battle(lineage, "t1-b1", both)
    service.resolve_battles(lineage)  # t1-b2: nothing to fight
    service.resolve_turn(lineage)
    second = _fought(service, lineage)[1]
    assert _named(second) == set()
    assert second.results == ()
    green = _report_text(service, lineage, "green")
    assert not re.search(r"red-W\d", green.split("Battle t1-0302 was")[1])
    assert "was not fought" in green
    red = _report_text(service, lineage, "red")
    assert "green-W" not in red


def test_a_ship_an_unplanned_jump_took_away_is_not_at_the_next_table(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """004 L139-141: red-W1 jumped out of t1-b1 and came out at 0501; t1-b2 at 0302 is
    fought without it."""
    service, lineage = trio
    jumped = (ShipResult(unit="red-W1", fate="jumped", to_hex="0501"),)
    service.record_battle(lineage, "t1-b1", jumped)
    assert service.load(lineage).units["red-W1"].hex == "0501"
    service.resolve_battles(lineage)
    second = _fought(service, lineage)[1]
    assert "red-W1" not in _named(second)


def test_a_second_assault_in_the_system_finds_the_attackers_the_first_left() -> None:
    """Two defended colonies at Alpha bring two assaults by the same warships (004 5.4); the
    second is fought by those the first left afloat, by hand or by the engine."""
    one = colony(pdus=1)
    two = colony(id="Alpha/2", orbit=2, pdus=1)
    red = (warship(f"red-W{n}", "engage") for n in (1, 2))
    red = (msgspec.structs.replace(ship, design="frigate") for ship in red)
    state = state_of(
        *red,
        colonies={one.id: one, two.id: two},
        attacks={"red": (Attack(system="Alpha"),)},
        known_colonies=(("blue", "Alpha"),),
    )
    for new in decide_attacks(state, DUEL):
        state = evolve(state, new.event)
    assert [b.sides[0].units for b in state.pending_battles.values()] == [
        ("red-W1", "red-W2"),
        ("red-W1", "red-W2"),
    ]
    lost = (ShipResult(unit="red-W1", fate="destroyed"),)
    for new in decide_battle_result(state, DUEL, "t3-a1", lost, source="umpire"):
        state = evolve(state, new.event)
    with pytest.raises(InvalidInputError, match=r"red-W1 .*earlier battle"):
        decide_battle_result(state, DUEL, "t3-a2", (ShipResult(unit="red-W1"),), source="umpire")
    (told, *_) = decide_battle_result(state, DUEL, "t3-a2", (), source="umpire")
    assert isinstance(told.event, BattleFought)
    assert told.event.battle.sides[0].units == ("red-W2",)
    assert {r.unit for r in told.event.results} == {"red-W2", "Alpha/2#pdu-1"}
    request = request_for(state, present(state, state.pending_battles["t3-a2"]))
    assert [s.id for s in request.sides[0].ships] == ["red-W2"]


def test_the_umpires_list_shows_the_ships_still_at_each_table(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """What an umpire records by hand (and autoplay's table-top outcomes) is drawn from his
    list of battles awaiting an outcome: each as the battles recorded before it left it. A
    player's list keeps the battle as it was announced to him."""
    service, lineage = trio
    _first_battle_kills_red_w1(service, lineage)
    (second,) = service.battles(lineage)
    assert [s.units for s in second.sides] == [("green-W1", "green-W2"), ("red-W2",)]
    (his,) = service.battles(lineage, "green")
    assert [s.units for s in his.sides] == [("green-W1", "green-W2"), ("red-W1", "red-W2")]


def test_the_umpires_list_says_a_battle_with_a_side_gone_will_not_be_fought(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    both = tuple(ShipResult(unit=f"red-W{n}", fate="destroyed") for n in (1, 2))
    service.record_battle(lineage, "t1-b1", both)
    (second,) = service.battles(lineage)
    assert [s.units for s in second.sides] == [(), ()]
    console = Console(file=io.StringIO(), width=300, color_system=None, theme=render.THEME)
    console.print(render.battles_table([second], {}))
    table = console.file.getvalue()  # type: ignore[attr-defined]
    assert table.count("none: a side has no ship left, no battle") == 2  # nobody at a table


def test_a_battle_not_fought_says_so_on_its_page(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    both = tuple(ShipResult(unit=f"red-W{n}", fate="destroyed") for n in (1, 2))
    service.record_battle(lineage, "t1-b1", both)
    service.resolve_battles(lineage)
    page = render.battle_replay_html(service.battle_report(lineage, "t1-0302", viewer="green"))
    assert "not fought, a side had no ship left there" in page
    assert "fought by the engine" not in page
