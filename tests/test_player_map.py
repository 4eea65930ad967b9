"""The player's map and the orders editor's data (issue 16): what his map shows, from his
view alone, and the orders text the editor writes (`rules.orders.dumps`) read back as it was.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from campaign.playermap import build_player_map, player_map_svg
from campaign.rules import orders
from campaign.rules.orders import OrdersDocument
from campaign.rules.technology import ResearchOrder
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import (
    Attack,
    Battle,
    BattleSide,
    BattleSite,
    Landing,
    MergeOrder,
    Move,
    ProductionOrder,
    ShipOrder,
    TaskForceOrder,
    TreasuryOrder,
)
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP
from tests.test_strategic import orders as orders_text

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[CampaignService, Lineage]]:
    """Red's scouts explore Alpha (0102) on turn 1, blue's go to 0604; red then orders
    red-S1 to Beta (0302) for turn 2."""
    map_file = tmp_path / "tiny.toml"
    map_file.write_text(TINY_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(map_file)))
    lineage = service.target("g")
    service.submit_orders(lineage, "red", orders_text("red", 1, ("red-S1", "0102", "stand-off")))
    service.submit_orders(lineage, "blue", orders_text("blue", 1, ("blue-S1", "0604", "stand-off")))
    service.resolve_turn(lineage)
    service.submit_orders(lineage, "red", orders_text("red", 2, ("red-S1", "0302", "stand-off")))
    yield service, lineage
    service.close()


def test_the_map_shows_his_units_destinations_reach_and_planets(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    picture = service.map_view(lineage, "red")
    units = {u.id: u for u in picture.units}
    scout = units["red-S1"]
    assert (scout.hex, scout.to, scout.kind) == ("0102", "0302", "scout-troop")
    # The reach is what `umpire map reach` says, and a destination in it is accepted.
    assert scout.reach == service.reach(lineage, "red-S1", viewer="red").hexes
    assert "0302" in scout.reach
    assert "0102" in scout.reach
    assert units["red-T1"].hex is None  # still waiting to enter at 0101
    assert set(units["red-T1"].reach) <= set(picture.command_range)
    assert "0604" in picture.command_range  # 8 hexes of the off-map post cover the tiny map
    assert picture.entry == "0101"
    explored = {s.name: s for s in picture.systems}
    assert explored["Alpha"].explored
    assert not explored["Beta"].explored
    assert [p.id for p in explored["Alpha"].planets] == ["Alpha/3"]
    assert explored["Beta"].planets == ()
    svg = service.map_svg(lineage, "red")
    root = ET.fromstring(svg.encode())
    keys = {g.get("data-key") for g in root.iter(f"{NS}g") if g.get("class") == "marker"}
    assert "red-S1" in keys
    planets = [g for g in root.iter(f"{NS}g") if g.get("class") == "planet"]
    assert [p.get("data-planet") for p in planets] == ["Alpha/3"]
    title = planets[0].find(f"{NS}title")
    assert title is not None
    assert "orbit 3, terran, capacity 60" in (title.text or "")
    arrows = [g for g in root.iter(f"{NS}g") if g.get("class") == "arrow"]
    assert [a.get("data-key") for a in arrows] == ["red-S1"]
    assert root.find(f".//{NS}g[@id='command-range']") is not None
    reach = root.find(f".//{NS}g[@id='reach']")
    assert reach is not None
    assert len(list(reach.iter(f"{NS}polygon"))) > 1
    assert "blue-" not in svg


def test_the_map_marks_last_turns_battles_and_known_enemy_colonies(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    view = service.load(lineage, viewer="red")
    starmap, explored = service.player_map(lineage, "red")
    battle = Battle(
        id="t1-b1",
        hex="0302",
        system="Beta",
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=("red-W1",)),
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
        ),
    )
    view = msgspec.structs.replace(view, known_colonies=(("blue", "Beta"),))
    picture = build_player_map(view, starmap, explored, "red", [battle])
    assert [(b.hex, b.text) for b in picture.battles] == [
        ("0302", "t1-b1: red against blue at Beta")
    ]
    assert [(c.owner, c.system, c.own) for c in picture.colonies] == [("blue", "Beta", False)]
    svg = player_map_svg(picture, starmap, explored)
    root = ET.fromstring(svg.encode())
    sites = root.find(f".//{NS}g[@id='battles']")
    assert sites is not None
    assert len(list(sites.iter(f"{NS}polygon"))) == 1
    assert 'stroke="#ff5a4a"' in svg  # the enemy colony's ring


def test_a_player_without_an_empire_has_no_map_view(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    view = service.load(lineage, viewer="red")
    starmap, explored = service.player_map(lineage, "red")
    with pytest.raises(Exception, match="nobody has no empire"):
        build_player_map(view, starmap, explored, "nobody")


FULL = OrdersDocument(
    player="red",
    turn=4,
    moves=(
        Move(unit="red-S1", to="0302", order="engage", via=("0202",)),
        Move(unit="red-T1", to="0102", count=10),
        Move(unit="red-W1"),
    ),
    landings=(Landing(unit="red-T2", planet="Alpha/3", colonists=10, post=False),),
    production=(
        ProductionOrder(
            colony="Alpha/3",
            colony_transports=2,
            emigrants=2,
            research=15,
            ships=(ShipOrder("frigate"), ShipOrder("destroyer", 2)),
        ),
    ),
    research=(ResearchOrder("speed-3"), ResearchOrder("speed-4", ip=5)),
    battle_locations=("asteroid-field", "free-space"),
    attacks=(Attack(system="Beta", mode="bombard", colony="Beta/2"),),
    task_forces=(TaskForceOrder(units=("red-W1", "red-W2")), TaskForceOrder(id="red-F1")),
    treasury=TreasuryOrder(research=10, ships=(ShipOrder("frigate"),)),
    scorch=("Alpha/3",),
    merges=(MergeOrder(units=("red-T3", "red-T4")),),
    battle_sites=(BattleSite(system="Beta", prefer=("dense-world",), world="near", gravity=6),),
    posts=('Gamma "1"\\',),
)


def test_the_editors_orders_text_reads_back_as_the_same_orders() -> None:
    text = orders.dumps(FULL)
    assert orders.parse(text, "red", 4) == FULL
    assert "[[moves]]" in text
    assert "[treasury]" in text
    assert 'ships = [{ design = "frigate" }, { design = "destroyer", count = 2 }]' in text
    empty = OrdersDocument(player="red", turn=1)
    assert orders.dumps(empty) == 'player = "red"\nturn = 1\n'


def test_the_template_reads_back_through_the_editors_text(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    template = service.orders_template(lineage, "red")
    document = orders.parse(template, "red", 2)
    assert orders.parse(orders.dumps(document), "red", 2) == document


def test_what_was_received_reads_as_sentences() -> None:
    lines = orders.summary(FULL)
    assert lines[0] == "red-S1 moves to 0302 by way of 0202, engage"
    assert "red-T1 (10 of them, as a new unit) moves to 0102" in lines
    assert "red-W1 holds position" in lines
    assert "red-T2 lands 10 million colonists on Alpha/3, no command post" in lines
    assert any(line.startswith("Alpha/3 buys: colony transports 2") for line in lines)
    assert "research speed-4 (5 IP)" in lines
    assert "form a task force of red-W1, red-W2" in lines
    assert "disband task force red-F1" in lines


def test_the_orders_desk_gives_received_orders_and_no_budget_off_season(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    desk = service.orders_desk(lineage, "red")
    assert desk.received == ("red-S1 moves to 0302, stand-off",)
    assert desk.document["moves"] == (
        {"unit": "red-S1", "to": "0302", "order": "stand-off", "count": None, "via": ()},
    )
    assert desk.production is False
    blue = service.orders_desk(lineage, "blue")
    assert blue.received == ()  # blue has sent nothing for turn 2: every unit holding
    assert {m["unit"] for m in blue.document["moves"]} >= {"blue-S1", "blue-T1"}  # type: ignore[union-attr]
    assert not re.search(r"\bred-", repr(blue))


def test_sightings_and_the_colonies_seen_show_as_classes_never_as_ids() -> None:
    """004 L102-104: his map shows enemy ships by class and count where he saw them, and the
    colonies seen there; from his view (the enemy's units themselves are not in it)."""
    from campaign.events import ShipsSighted
    from campaign.projections import evolve
    from tests.test_combat import DUEL, state_of, warship
    from tests.test_sightings import HOME, sightings_of

    besiegers = [warship("blue-W1", "stand-off"), warship("blue-W2", "stand-off")]
    truth = state_of(*besiegers, warship("red-W9", "stand-off", "0101"), colonies={HOME.id: HOME})
    seen = sightings_of(truth, "red")
    view = evolve(truth, ShipsSighted(player="red", sightings=seen))
    mine = {k: u for k, u in view.units.items() if u.owner == "red"}  # as his view folds
    view = msgspec.structs.replace(view, units=mine)
    picture = build_player_map(view, DUEL, {s.name for s in DUEL.systems}, "red")
    assert [(s.hex, s.text) for s in picture.sightings] == [("0201", "2 ships of blue")]
    assert [(c.id, c.own, c.population) for c in picture.colonies] == [("Alpha/1", True, 12)]
    assert picture.posts == ()  # besieged: no command post (004 L212-213)
    svg = player_map_svg(picture, DUEL, {s.name for s in DUEL.systems})
    assert "turn 3: 2 ships of blue" in svg
    assert "blue-W" not in svg


def test_last_turns_battle_is_on_both_maps_and_no_enemy_id_is(tmp_path: Path) -> None:
    """Red and blue fight at Alpha (0201) in turn 1: in turn 2 each player's map marks the
    site, though the battle's record names the other's ships."""
    from campaign.events import BattleFought
    from tests.test_combat import DUEL_MAP, duel_dice

    path = tmp_path / "duel.toml"
    path.write_text(DUEL_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("d", ["red", "blue"], seed="s", dice_mode="manual", map_spec=str(path))
        service.new_campaign(plan, ask=lambda key, sides: 6)
        lineage = service.target("d")
        service.submit_orders(lineage, "red", orders_text("red", 1, ("red-W1", "0201", "engage")))
        service.submit_orders(
            lineage, "blue", orders_text("blue", 1, ("blue-W1", "0201", "engage"))
        )
        service.resolve_turn(lineage, ask=duel_dice)
        (fought,) = service.resolve_battles(
            lineage, ask=lambda key, sides: 1 + len(str(key)) % sides
        )
        assert isinstance(fought.event, BattleFought)
        service.resolve_turn(lineage, ask=duel_dice)
        for player, other in (("red", "blue-"), ("blue", "red-")):
            picture = service.map_view(lineage, player)
            assert [(b.id, b.hex) for b in picture.battles] == [("t1-0201", "0201")]
            svg = service.map_svg(lineage, player)
            root = ET.fromstring(svg.encode())
            sites = root.find(f".//{NS}g[@id='battles']")
            assert sites is not None
            assert len(list(sites.iter(f"{NS}polygon"))) == 1
            assert other not in svg
            assert other not in msgspec.json.encode(service.orders_desk(lineage, player)).decode()
    finally:
        service.close()
