"""The "since the turn before" part of a player's report (issue 6: turn packages)."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.autoplay import autoplay
from campaign.changes import changes_since
from campaign.projections import CampaignState
from campaign.service import CampaignService, plan_campaign
from campaign.strategic import Colony, Empire, Unit
from tests.conftest import FixedClock

RED_EMPIRE = Empire(player="red", entry="0101", ip=25, explored=("Alpha",))
SCOUT = Unit(id="red-S1", owner="red", kind="scout-troop", hex="0101", count=4)
WARSHIP = Unit(
    id="red-W2", owner="red", kind="warship", hex="0102", design="destroyer", hull_class="escort"
)
COLONY = Colony(
    id="Alpha/3",
    owner="red",
    system="Alpha",
    hex="0101",
    orbit=3,
    planet_type="terran",
    capacity=80,
    population=10,
)


def view(**fields: object) -> CampaignState:
    base = CampaignState(
        players=("red", "blue"),
        empires={"red": RED_EMPIRE},
        units={SCOUT.id: SCOUT, WARSHIP.id: WARSHIP},
        colonies={COLONY.id: COLONY},
    )
    return msgspec.structs.replace(base, **fields)


def test_a_turn_of_growth_and_losses_reads_as_plain_sentences() -> None:
    after = view(
        empires={
            "red": msgspec.structs.replace(
                RED_EMPIRE, ip=31, speed=3, techs=("speed-3",), explored=("Alpha", "Beta")
            )
        },
        units={
            SCOUT.id: msgspec.structs.replace(SCOUT, hex="0203", count=3),
            "red-W3": msgspec.structs.replace(WARSHIP, id="red-W3", hex="0101"),
        },
        colonies={COLONY.id: msgspec.structs.replace(COLONY, population=12, factories=1)},
    )
    assert changes_since(view(), after, "red") == (
        "Treasury 25 -> 31 IP (+6).",
        "FTL speed 2 -> 3 hexes a turn.",
        "New technology: speed-3.",
        "Explored: Beta.",
        "New: red-W3 (destroyer, escort) at 0101.",
        "Lost: red-W2 (destroyer, escort).",
        "red-S1 moved 0101 -> 0203.",
        "red-S1: 4 -> 3 scouts.",
        "Colony Alpha/3: population 10 -> 12.",
        "Colony Alpha/3: factories 0 -> 1.",
    )


def test_a_colony_taken_and_an_enemy_colony_seen() -> None:
    taken = msgspec.structs.replace(COLONY, owner="blue", conquered_from="red")
    seen = msgspec.structs.replace(COLONY, id="Beta/1", owner="blue", system="Beta", population=5)
    after = view(colonies={taken.id: taken, seen.id: seen})
    assert changes_since(view(), after, "red") == (
        "New colony Beta/1: blue's, population 5.",
        "Colony Alpha/3 passed from red to blue.",
    )


def test_units_sort_by_number_not_by_text() -> None:
    tenth = msgspec.structs.replace(WARSHIP, id="red-W10", hex=None)
    before = view(units={tenth.id: tenth, WARSHIP.id: msgspec.structs.replace(WARSHIP, hex=None)})
    assert changes_since(before, view(units={tenth.id: tenth, WARSHIP.id: WARSHIP}), "red") == (
        "red-W2 entered the map at 0102.",
    )


def test_other_players_units_are_never_described() -> None:
    enemy = Unit(id="blue-W1", owner="blue", kind="warship", hex="0505")
    assert changes_since(view(), view(units={**view().units, enemy.id: enemy}), "red") == ()


@given(
    ip=st.integers(0, 500), population=st.integers(0, 80), hex_=st.sampled_from(["0101", "0909"])
)
def test_nothing_changed_says_nothing(ip: int, population: int, hex_: str) -> None:
    state = view(
        empires={"red": msgspec.structs.replace(RED_EMPIRE, ip=ip)},
        units={SCOUT.id: msgspec.structs.replace(SCOUT, hex=hex_)},
        colonies={COLONY.id: msgspec.structs.replace(COLONY, population=population)},
    )
    assert changes_since(state, state, "red") == ()


@pytest.fixture
def service() -> Iterator[CampaignService]:
    opened = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    yield opened
    opened.close()


def test_reports_say_what_changed_from_the_players_own_views(service: CampaignService) -> None:
    plan = plan_campaign(
        "since", ("red", "blue"), seed="dice-since", max_turns=6, map_spec="classic"
    )
    service.new_campaign(plan)
    lineage = service.target("since")
    autoplay(service, lineage, turns=3, seed="since")
    first = service.report(lineage, "red", 1)
    assert any("entered the map at" in change for change in first.changes)
    for turn in (1, 2, 3):
        report = service.report(lineage, "red", turn)
        expected = changes_since(
            service.state_at(lineage, turn - 1, "red"),
            service.state_at(lineage, turn, "red"),
            "red",
        )
        assert report.changes == expected
        assert not any("blue-" in change for change in report.changes)
    assert service.report(lineage, "red", 0).changes == ()
