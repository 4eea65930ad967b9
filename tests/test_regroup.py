"""Issue 12: split and merge transports and scout troops (004 L27, L31, L67), land in the turn
of arrival (004 L56-63), and spend a colony's first output in the turn it is founded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from campaign.events import LandingFailed, ProductionResolved, UnitsMerged, UnitsSplit
from campaign.rules.movement import OrdersError
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP, sixes


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    plan = plan_campaign("g", ["red", "blue"], seed="s", dice_mode="manual", map_spec=str(path))
    service.new_campaign(plan, ask=sixes)
    yield service, service.target("g")
    service.close()


def head(turn: int) -> str:
    return f'player = "red"\nturn = {turn}\n'


def move(unit: str, to: str | None = None, count: int | None = None) -> str:
    text = f'[[moves]]\nunit = "{unit}"\n'
    text += f'to = "{to}"\n' if to else ""
    return text + (f"count = {count}\n" if count is not None else "")


def events_of(recorded: list[object], kind: type) -> list[object]:
    return [r.event for r in recorded if isinstance(r.event, kind)]  # type: ignore[attr-defined]


def test_part_of_the_transports_and_scouts_move_as_new_units(
    game: tuple[CampaignService, Lineage],
) -> None:
    """004 L67 and L31: 10 of the 35 transports go to Alpha; 3 of a troop's 9 scouts too. The
    parts take the next free numbers, in the order the moves are written."""
    service, lineage = game
    text = head(1) + move("red-T1", "0102", count=10) + move("red-S1", "0102", count=3)
    service.submit_orders(lineage, "red", text)
    recorded = service.resolve_turn(lineage, ask=sixes)
    (split,) = events_of(recorded, UnitsSplit)
    assert [(p.unit, p.new_unit, p.count) for p in split.parts] == [  # type: ignore[attr-defined]
        ("red-T1", "red-T2", 10),
        ("red-S1", "red-S5", 3),
    ]
    units = service.load(lineage).units
    assert (units["red-T1"].count, units["red-T1"].hex) == (25, None)
    assert (units["red-T2"].count, units["red-T2"].hex) == (10, "0102")
    assert (units["red-S1"].count, units["red-S5"].count, units["red-S5"].hex) == (6, 3, "0102")
    # Blue learns nothing of it: the split is red's alone.
    blue = service.log(lineage, turn=1, viewer="blue")
    assert "red-T2" not in msgspec.json.encode(blue).decode()


def test_groups_in_one_hex_merge_and_bad_splits_are_refused(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.submit_orders(lineage, "red", head(1) + move("red-T1", "0102", count=10))
    service.resolve_turn(lineage, ask=sixes)
    service.submit_orders(lineage, "red", head(2) + move("red-T1", "0102"))
    service.resolve_turn(lineage, ask=sixes)
    text = head(3) + '[[merges]]\nunits = ["red-T2", "red-T1"]\n'
    service.submit_orders(lineage, "red", text)
    recorded = service.resolve_turn(lineage, ask=sixes)
    (merged,) = events_of(recorded, UnitsMerged)
    assert (merged.unit, merged.merged) == ("red-T2", ("red-T1",))  # type: ignore[attr-defined]
    units = service.load(lineage).units
    assert units["red-T2"].count == 35
    assert "red-T1" not in units
    bad = (
        head(4)
        + move("red-T2", "0101", count=35)
        + move("red-W1", "0102", count=1)
        + '[[merges]]\nunits = ["red-S1", "red-T2"]\n'
    )
    before = len(service.log(lineage))
    with pytest.raises(OrdersError) as caught:
        service.submit_orders(lineage, "red", bad)
    assert caught.value.problems == [
        "merge red-S1, red-T2: only colony transports with transports, or scout troops with "
        "scout troops",
        "red-T2: a move of 35: a part must be 1 to 34 of its 35 (leave `count` out to move "
        "them all)",
        "red-W1: a move of 1: only colony transports and scout troops split; a warship moves whole",
    ]
    assert len(service.log(lineage)) == before  # nothing written


def test_colonists_land_in_the_turn_they_arrive_and_a_bad_guess_lapses(
    game: tuple[CampaignService, Lineage],
) -> None:
    """004 L56-63: explore, then disembark, in one turn. The planets are unknown when the
    orders are written: a landing on an empty orbit lapses with the reason."""
    service, lineage = game
    text = head(1) + move("red-T1", "0102") + move("red-S1", "0102")
    text += '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/3"\ncolonists = 10\n'
    text += '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/1"\ncolonists = 5\n'
    service.submit_orders(lineage, "red", text)
    recorded = service.resolve_turn(lineage, ask=sixes)
    state = service.load(lineage)
    assert state.colonies["Alpha/3"].population == 10
    assert state.units["red-T1"].count == 25
    (failed,) = events_of(recorded, LandingFailed)
    assert failed == LandingFailed(
        unit="red-T1",
        planet="Alpha/1",
        reason="Alpha/1 is no planet: exploring found no planet in that orbit",
    )


def test_a_colony_founded_in_a_production_turn_spends_its_first_output(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Issue 12: on turn 4 a colony landed that turn produces (004 5.5 before 5.7), and its
    owner may spend the IP in the same orders, not lose them."""
    service, lineage = game
    service.submit_orders(lineage, "red", head(1) + move("red-S1", "0102"))
    for turn in (1, 2, 3):  # turns 2 and 3 without orders: named, as a resolve must be
        service.resolve_turn(lineage, ask=sixes, expected_turn=turn)
    text = head(4) + move("red-T1", "0102")
    text += '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/3"\ncolonists = 10\n'
    text += '[[production]]\ncolony = "Alpha/3"\nscout_troops = 2\n'
    service.submit_orders(lineage, "red", text)
    recorded = service.resolve_turn(lineage, ask=sixes)
    (red,) = [e for e in events_of(recorded, ProductionResolved) if e.player == "red"]  # type: ignore[attr-defined]
    assert red.problems == ()  # type: ignore[attr-defined]
    assert [u.kind for u in red.units] == ["scout-troop", "scout-troop"]  # type: ignore[attr-defined]


def test_the_template_of_a_production_turn_lists_the_planets_his_transports_are_at(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Issue 12: a colony founded by landing on a production turn produces (004 5.5 before
    5.7); the template names the planets his transports could land on, from his map only."""
    service, lineage = game
    text = head(1) + move("red-S1", "0102") + move("red-T1", "0102")
    service.submit_orders(lineage, "red", text)
    assert "transports are at" not in service.orders_template(lineage, "red")  # turn 1
    for turn in (1, 2, 3):
        service.resolve_turn(lineage, ask=sixes, expected_turn=turn)
    template = service.orders_template(lineage, "red")
    assert "# transports are at:\n#   Alpha/3 (terran, room for 60M)" in template
    assert service.orders_template(lineage, "blue").count("Alpha/3") == 0  # not his to know


def test_the_umpire_splits_a_unit_by_ruling(
    game: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    """Issue 12: the umpire's `ruling` commands split as well; the owner reads why."""
    from typer.testing import CliRunner

    from cli import app

    service, lineage = game
    recorded = service.split_unit(lineage, "red-T1", 5, "the convoy scattered in the storm")
    (split,) = [r.event for r in recorded]
    assert isinstance(split, UnitsSplit)
    assert [(p.unit, p.new_unit, p.count) for p in split.parts] == [("red-T1", "red-T2", 5)]
    assert recorded[0].audience.players == ("red",)
    assert service.load(lineage).units["red-T2"].count == 5
    with pytest.raises(Exception, match="a part must be 1 to 29 of its 30"):
        service.split_unit(lineage, "red-T1", 30, "all of them")
    db = tmp_path / "cli.db"
    runner = CliRunner()
    made = runner.invoke(
        app, ["new", "c", "--players", "red,blue", "--map", "classic", "--db", str(db)]
    )
    assert made.exit_code == 0, made.output
    bad = runner.invoke(app, ["ruling", "split", "red-W1", "-n", "1", "-r", "x", "--db", str(db)])
    assert bad.exit_code == 2
    assert "a warship moves whole" in bad.output
    ok = runner.invoke(app, ["ruling", "split", "red-S1", "-n", "4", "-r", "x", "--db", str(db)])
    assert ok.exit_code == 0, ok.output
