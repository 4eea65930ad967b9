"""The strategic turn, first slice: set-up (004 s3), FTL movement (5.1), exploration (5.2)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign.dice import DiceKey, ScriptedDice
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import Audience, EmpireFounded, ProductionResolved, SystemExplored
from campaign.projections import CampaignState
from campaign.rules.exploration import decide_exploration
from campaign.rules.movement import OrdersError
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import Empire, Unit
from cli import app
from maps import loads_map
from tests.conftest import CountingNonces, FixedClock

# A 6x4 sector: red enters at 0101, blue at 0604. Alpha (0102) is next to red's entry hex;
# Beta (0302) is two hexes from it; a cloud sits at 0201.
TINY_MAP = """
format = "stellar-umpire-map"
version = 1
name = "tiny"
title = "Tiny test sector"
width = 6
height = 4
clouds = ["0201"]

[[entries]]
name = "1"
hex = "0101"

[[entries]]
name = "2"
hex = "0604"

[[systems]]
name = "Alpha"
hex = "0102"
colour = "yellow"

[[systems.planets]]
orbit = 3
type = "terran"
capacity = 60
mineral_rich = true

[[systems]]
name = "Beta"
hex = "0302"
colour = "red"
"""


@pytest.fixture
def map_file(tmp_path: Path) -> str:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    return str(path)


@pytest.fixture
def game(map_file: str) -> Iterator[tuple[CampaignService, Lineage]]:
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    # FT2 ships, whose default fleet these tests count (the economy is the same under either).
    plan = plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file, battle_rules="ft2")
    service.new_campaign(plan)
    yield service, service.target("g")
    service.close()


def orders(player: str, turn: int, *moves: tuple[str, str | None, str]) -> str:
    lines = [f'player = "{player}"', f"turn = {turn}"]
    for unit, to, order in moves:
        lines += ["[[moves]]", f'unit = "{unit}"', f'order = "{order}"']
        if to is not None:
            lines.append(f'to = "{to}"')
    return "\n".join(lines) + "\n"


def test_setup_gives_each_player_the_starting_forces(
    game: tuple[CampaignService, Lineage],
) -> None:
    """004 section 3: 4 scout troops of 9, 2000 points of warships, 35 transports, 25 IP."""
    service, lineage = game
    state = service.load(lineage)
    assert state.turn == 1  # turn 0 was the set-up
    for player, entry in (("red", "1"), ("blue", "2")):
        units = [u for u in state.units.values() if u.owner == player]
        scouts = [u for u in units if u.kind == "scout-troop"]
        warships = [u for u in units if u.kind == "warship"]
        transports = [u for u in units if u.kind == "transports"]
        assert [s.count for s in scouts] == [9, 9, 9, 9]
        assert sum(w.points for w in warships) == 1980  # within the 2000 allowed
        assert all(w.captain in (1, 2, 3) for w in warships)
        assert [t.count for t in transports] == [35]
        assert all(u.hex is None for u in units)  # waiting off the map at the entry
        assert state.empires[player] == Empire(
            player=player, entry=entry, last_ids={"W": 14, "S": 4, "T": 1}
        )
    founded = service.log(lineage, types=["empire_founded"])
    assert [str(e.audience) for e in founded] == ["red", "blue"]
    rolls = [r for e in founded for r in e.event.rolls]  # type: ignore[attr-defined]
    assert len(rolls) == 28  # one captain roll per warship (004 section 6)


def test_nobody_sees_a_rivals_forces(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    red = service.state_at(lineage, viewer="red")
    assert {u.owner for u in red.units.values()} == {"red"}
    assert set(red.empires) == {"red"}
    report = service.report(lineage, "red")
    assert "blue-" not in msgspec.json.encode(report).decode()


def test_template_orders_are_accepted_unchanged(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    text = service.orders_template(lineage, "red")
    assert 'unit = "red-W2"' in text.split('unit = "red-W10"')[0]  # natural order
    service.submit_orders(lineage, "red", text)
    assert len(service.load(lineage).orders["red"]) == 19


def test_bad_orders_name_every_problem_and_store_nothing(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    before = len(service.log(lineage))
    text = orders(
        "red",
        1,
        ("blue-W1", None, "engage"),
        ("red-S1", "0302", "stand-off"),  # two hexes past the entry hex: too far on turn 1
        ("red-S2", "9999", "stand-off"),
        ("red-S3", "0102", "stand-off"),
        ("red-S3", "0102", "stand-off"),
        ("red-S4", "0201", "stand-off"),  # the cloud next to the entry: not on turn 1
        ("red-T1", "0102", "engage"),  # transports and scouts never engage (004 L112)
    )
    with pytest.raises(OrdersError) as caught:
        service.submit_orders(lineage, "red", text)
    assert caught.value.problems == [
        "blue-W1: not a unit of red (his units: red-S1, red-S2, red-S3, red-S4, red-T1, "
        + ", ".join(f"red-W{n}" for n in range(1, 15))
        + ")",
        "red-S1: cannot reach 0302: 0302 is 3 hexes away; at speed 2 it moves 2 hexes a "
        "turn, 2 this turn (004 L74-76); it can reach 0101, 0102 this turn",
        "red-S2: destination 9999 is off the map (hexes 0101 to 0604: column, row)",
        "red-S3: ordered twice",
        "red-S4: cannot reach 0201: gas/dust clouds bar the way to 0201 this turn: a cloud "
        "is entered only from next to it and crossed 1 hex a turn (004 L83-85); it can "
        "reach 0101, 0102 this turn",
        "red-T1: only warships take Engage orders; scout troops and transports stand off or "
        "move by FTL (004 L112)",
    ]
    for wrong, message in [
        (orders("blue", 1), "the file is blue's orders, not red's"),
        (orders("red", 2), "the file is for turn 2; the turn in progress is 1"),
        ('player = "red"\nturn = 1\ncolour = "x"\n', "Object contains unknown field `colour`"),
        ('player = "red"\nturn = "one"\n', "Expected `int`, got `str` - at `$.turn`"),
    ]:
        with pytest.raises(InvalidInputError, match=message.replace("$", r"\$")):
            service.submit_orders(lineage, "red", wrong)
    assert len(service.log(lineage)) == before


def test_a_turn_moves_units_and_explores(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    service.submit_orders(
        lineage,
        "red",
        orders("red", 1, ("red-S1", "0102", "stand-off"), ("red-W1", "0102", "engage")),
    )
    recorded = service.resolve_turn(lineage)
    types = [e.type for e in recorded]
    assert types == [
        "absent_player",  # blue sent nothing: he holds position (the campaign's setting)
        "orders_revealed",
        "unit_moved",
        "unit_moved",
        "system_explored",
        "turn_ended",
    ]
    state = service.load(lineage)
    assert (state.turn, state.units["red-S1"].hex, state.units["red-W1"].order) == (
        2,
        "0102",
        "engage",
    )
    explored = recorded[4].event
    assert isinstance(explored, SystemExplored)
    assert str(recorded[4].audience) == "red"
    if explored.explored:
        assert state.empires["red"].explored == ("Alpha",)
        assert explored.planets[0].type == "terran"
    # Blue sent no orders: his units hold position, and he learns nothing of red's moves.
    assert all(u.hex is None for u in state.units.values() if u.owner == "blue")
    blue_saw = [e.type for e in service.log(lineage, turn=1, viewer="blue")]
    # That red sent orders (not which), and that blue, sending none, held position.
    assert blue_saw == ["orders_handed_in", "absent_player", "turn_ended"]


def _state(units: list[Unit], explored: tuple[str, ...] = ()) -> CampaignState:
    return CampaignState(
        created=True,
        turn=3,
        empires={"red": Empire(player="red", entry="1", explored=explored)},
        units={u.id: u for u in units},
    )


SCOUTS = Unit(id="red-S1", owner="red", kind="scout-troop", hex="0102", count=9)
WARSHIP = Unit(id="red-W1", owner="red", kind="warship", hex="0102", hull_class="cruiser")
TRANSPORTS = Unit(id="red-T1", owner="red", kind="transports", hex="0102", count=3)
TINY = loads_map(TINY_MAP)


def test_a_surviving_scout_troop_covers_the_ships_with_it() -> None:
    """004 5.2: the troop rolls first; if it survives, the others need not roll."""
    (new,) = decide_exploration(_state([SCOUTS, WARSHIP, TRANSPORTS]), TINY, ScriptedDice([2]))
    ev = new.event
    assert isinstance(ev, SystemExplored)
    assert ([r.value for r in ev.rolls], ev.losses, ev.explored) == ([2], (), True)


def test_a_lost_scout_troop_leaves_each_ship_to_roll() -> None:
    """004 5.2: scouts lost on a 1; warships and each transport lost on 1-2."""
    dice = ScriptedDice([1, 2, 6, 1, 3])  # the troop; then by id: three transports, the warship
    (new,) = decide_exploration(_state([SCOUTS, WARSHIP, TRANSPORTS]), TINY, dice)
    ev = new.event
    assert isinstance(ev, SystemExplored)
    assert [(loss.unit, loss.count) for loss in ev.losses] == [("red-S1", 9), ("red-T1", 2)]
    assert ev.explored
    assert ev.planets[0].capacity == 60


def test_nothing_is_learnt_when_every_ship_is_lost() -> None:
    (new,) = decide_exploration(_state([WARSHIP]), TINY, ScriptedDice([2]))
    ev = new.event
    assert isinstance(ev, SystemExplored)
    assert (ev.explored, ev.planets, ev.losses[0].unit) == (False, (), "red-W1")


def test_explored_systems_are_safe_forever() -> None:
    assert decide_exploration(_state([WARSHIP], ("Alpha",)), TINY, ScriptedDice([])) == []


def test_reports_count_enemy_ships_by_class_only() -> None:
    enemy = [
        Unit(id="blue-W1", owner="blue", kind="warship", hex="0102", hull_class="escort"),
        Unit(id="blue-W2", owner="blue", kind="warship", hex="0102", hull_class="capital"),
        Unit(id="blue-S1", owner="blue", kind="scout-troop", hex="0102", count=9),
    ]
    (new,) = decide_exploration(_state([SCOUTS, *enemy]), TINY, ScriptedDice([5]))
    ev = new.event
    assert isinstance(ev, SystemExplored)
    counts = list(msgspec.to_builtins(ev.enemy_ships))
    assert counts == [
        {"owner": "blue", "escorts": 1, "cruisers": 0, "capitals": 1, "scouts": 9, "transports": 0}
    ]
    assert "blue-W1" not in msgspec.json.encode(ev).decode()  # no names, no designs


def test_fleet_files_are_checked(tmp_path: Path, map_file: str) -> None:
    big = tmp_path / "big.toml"
    big.write_text('[[ships]]\ndesign = "battleship"\ncount = 5\n')
    with pytest.raises(InvalidInputError, match="costs 2130 points, over the 2000 allowed"):
        plan_campaign("g", ["red"], map_spec=map_file, fleet_file=str(big))  # Continuum's
    with pytest.raises(InvalidInputError, match="costs 2235 points, over the 2000 allowed"):
        plan_campaign("g", ["red"], map_spec=map_file, fleet_file=str(big), battle_rules="ft2")
    odd = tmp_path / "odd.toml"
    odd.write_text('[[ships]]\ndesign = "starbase"\n')
    with pytest.raises(InvalidInputError, match="no continuum design 'starbase'"):
        plan_campaign("g", ["red"], map_spec=map_file, fleet_file=str(odd))
    with pytest.raises(InvalidInputError, match="needs a map"):
        plan_campaign("g", ["red"], fleet_file=str(odd))


def test_the_cli_plays_a_turn_from_orders_files(tmp_path: Path, map_file: str) -> None:
    runner = CliRunner()
    db = str(tmp_path / "u.db")

    def umpire(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == code, result.output
        return result.output

    umpire("new", "g", "--players", "red,blue", "--map", map_file, "--seed", "1")
    template = tmp_path / "red.toml"
    umpire("orders", "template", "--player", "red", "--out", str(template))
    template.write_text("edited\n")
    assert "--force" in umpire(
        "orders", "template", "--player", "red", "--out", str(template), code=2
    )
    assert template.read_text() == "edited\n"  # refused: nothing written
    umpire("orders", "template", "--player", "red", "--out", str(template), "--force")
    text = template.read_text().replace(
        'unit = "red-S1"  # 9 scout-troop, entering through 0101\n# to = "0101"',
        'unit = "red-S1"\nto = "0102"',
    )
    template.write_text(text)
    umpire("orders", "submit", str(template), "--player", "red")
    umpire("turn", "resolve")
    report = json.loads(umpire("report", "--player", "red", "--json"))
    assert report["turn"] == 2
    assert [u["hex"] for u in report["units"] if u["id"] == "red-S1"] in (["0102"], [])
    assert {e["type"] for e in report["news"]} >= {"unit_moved", "turn_ended"}
    assert "blue" not in json.dumps(report["units"])
    assert "red-S1" not in umpire("report", "--player", "blue")


def test_same_seed_same_orders_same_campaign(map_file: str) -> None:
    chains = []
    for _ in range(2):
        service = CampaignService.open(
            "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
        )
        service.new_campaign(plan_campaign("g", ["red", "blue"], seed="x", map_spec=map_file))
        lineage = service.target("g")
        service.submit_orders(lineage, "red", orders("red", 1, ("red-S1", "0102", "stand-off")))
        service.resolve_turn(lineage)
        chains.append([e.hash for e in service.store.read(lineage)])
        service.close()
    assert chains[0] == chains[1]


def test_empire_founded_golden_shape() -> None:
    ev = EmpireFounded(empire=Empire(player="red", entry="1"), units=(WARSHIP,))
    assert json.loads(msgspec.json.encode(ev))["empire"] == {
        "player": "red",
        "entry": "1",
        "ip": 25,
        "speed": 2,
        "techs": [],
        "explored": [],
        "last_ids": {},
        "invested": {},
    }


def sixes(key: object, sides: int) -> int:
    return 6


@pytest.fixture
def settled(map_file: str) -> Iterator[tuple[CampaignService, Lineage]]:
    """Red's scouts and transports reach Alpha on turn 1 and survive (physical dice, all 6)."""
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    plan = plan_campaign(
        "g", ["red", "blue"], seed="s", dice_mode="manual", map_spec=map_file, battle_rules="ft2"
    )  # FT2: the worked example below buys an FT2 frigate
    service.new_campaign(plan, ask=sixes)
    lineage = service.target("g")
    moves = orders("red", 1, ("red-S1", "0102", "stand-off"), ("red-T1", "0102", "stand-off"))
    service.submit_orders(lineage, "red", moves)
    service.resolve_turn(lineage, ask=sixes)
    yield service, lineage
    service.close()


def landing_orders(*landings: tuple[str, str, int]) -> str:
    text = orders("red", 2)
    for unit, planet, colonists in landings:
        text += f'[[landings]]\nunit = "{unit}"\nplanet = "{planet}"\ncolonists = {colonists}\n'
    return text


def test_colonists_land_and_everyone_detects_the_colony(
    settled: tuple[CampaignService, Lineage],
) -> None:
    """004 5.5: colonists land on an empty planet; 5.1: the new command post is detectable."""
    service, lineage = settled
    assert service.load(lineage).empires["red"].explored == ("Alpha",)
    service.submit_orders(lineage, "red", landing_orders(("red-T1", "Alpha/3", 10)))
    recorded = service.resolve_turn(lineage, ask=sixes)
    assert [e.type for e in recorded] == [
        "absent_player",
        "orders_revealed",
        "colonists_landed",
        "colony_detected",
        "turn_ended",
    ]
    state = service.load(lineage)
    colony = state.colonies["Alpha/3"]
    assert (colony.owner, colony.population, colony.capacity, colony.mineral_rich) == (
        "red",
        10,
        60,
        True,
    )
    assert state.units["red-T1"].count == 25
    blue = service.state_at(lineage, viewer="blue")
    assert blue.known_colonies == (("red", "Alpha"),)
    assert blue.colonies == {}  # blue knows where, not how many
    report = service.report(lineage, "red")
    assert [c.id for c in report.colonies] == ["Alpha/3"]
    # 004 section 1: a colony on a terran planet is worth 3 points.
    status = service.status(lineage)
    assert [(s.player, s.points, s.planets) for s in status.scores] == [
        ("red", 3, ("Alpha/3",)),
        ("blue", 0, ()),
    ]


def test_a_detected_command_post_shows_alike_in_the_report_and_on_the_map(
    settled: tuple[CampaignService, Lineage],
) -> None:
    """Blue's report says red's new colony at Alpha shows by its command post (004 5.1); his
    map (the published `map.svg`, the web page's `/map` data) marks that post. A colony his
    ships saw without one (`known_colonies` from a sighting) is marked without."""
    from starlette.testclient import TestClient

    from campaign.players import PlayerSecrets
    from campaign.web import create_app
    from tests.test_web import sign_in

    service, lineage = settled
    service.submit_orders(lineage, "red", landing_orders(("red-T1", "Alpha/3", 10)))
    service.resolve_turn(lineage, ask=sixes)
    report = service.report(lineage, "blue")
    told = [
        (place.where, sentence)
        for section in report.stories
        for place in section.places
        for sentence in place.sentences
        if "command post" in sentence
    ]
    assert told == [("Alpha (0102)", "red has a colony here: its command post shows.")]
    (alpha,) = [c for c in service.map_view(lineage, "blue").colonies if c.owner == "red"]
    assert (alpha.system, alpha.hex, alpha.command_post) == ("Alpha", "0102", True)
    assert service.load(lineage, viewer="blue").detected_posts == (("red", "Alpha"),)
    secret = PlayerSecrets(service.store).issue("g", "blue")
    with TestClient(create_app(service, secret_key="k", https_only=False)) as blue:
        sign_in(blue, "g", "blue", secret)
        page = blue.get("/map").text
    shown = re.findall(r'\{[^{}]*"system":\s*"Alpha"[^{}]*\}', page)
    assert shown, page
    assert all('"command_post":true' in s.replace(" ", "") for s in shown), shown


def test_bad_landings_are_refused_with_every_problem(
    settled: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = settled
    before = len(service.log(lineage))
    with pytest.raises(OrdersError) as caught:
        service.submit_orders(
            lineage,
            "red",
            landing_orders(
                ("red-T1", "Alpha/3", 61),
                ("red-S1", "Alpha/3", 1),
                ("red-T1", "Beta/1", 1),
                ("red-T1", "Alpha/9", 1),
            ),
        )
    assert caught.value.problems == [
        "red-T1 to Alpha/3: red-T1 carries 35 million colonists in all",
        "red-T1 to Alpha/3: 61 million would exceed the planet's capacity of 60 million",
        "red-S1 to Alpha/3: not a transport group of red (his transport groups: red-T1)",
        # Beta is unexplored: a landing on arrival, if the transports were going there.
        "red-T1 to Beta/1: the transports will not be in Beta this turn",
        # Alpha is explored: the refusal names its planets (issue 16).
        "red-T1 to Alpha/9: no planet in that orbit; Alpha's planets: Alpha/3 (terran, 60M)",
    ]
    assert len(service.log(lineage)) == before


def test_landing_needs_the_transports_there_and_an_orbit_by_number(map_file: str) -> None:
    """A landing in a system explored on arrival (004 L56-63) is accepted unseen; the planet
    must still be named by its orbit, and the transports must be going there."""
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        service.new_campaign(plan_campaign("g", ["red"], seed="s", map_spec=map_file))
        lineage = service.target("g")
        text = orders("red", 1, ("red-T1", "0101", "stand-off"))
        text += '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/third"\ncolonists = 5\n'
        with pytest.raises(OrdersError) as caught:
            service.submit_orders(lineage, "red", text)
        assert caught.value.problems == [
            "red-T1 to Alpha/third: name the planet by its orbit, a number like Alpha/3",
            "red-T1 to Alpha/third: the transports will not be in Alpha this turn",
        ]
        text = orders("red", 1, ("red-T1", "0102", "stand-off"))
        text += '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/3"\ncolonists = 5\n'
        service.submit_orders(lineage, "red", text)
    finally:
        service.close()


def test_production_after_the_fourth_turn(settled: tuple[CampaignService, Lineage]) -> None:
    """004 5.7 worked example: a 10M terran mineral-rich colony, founded on turn 2.

    Turn 4's production phase: growth +2M (1 per 5M, 5.7.1) gives 12M; output 12 IP doubled
    for mineral-rich (5.7.2) gives 24 IP. Spent: 2 transports of emigrants (2 IP), a scout
    troop (3 IP), a frigate (65 points = 2 IP at 63 points per IP, rounded up) and 15 IP of
    research buying 3 Hex Speed (5.7.7); the 2 IP left are lost (5.7.4).
    """
    service, lineage = settled
    service.submit_orders(lineage, "red", landing_orders(("red-T1", "Alpha/3", 10)))
    service.resolve_turn(lineage, ask=sixes)
    service.resolve_turn(lineage, ask=sixes, expected_turn=3)  # turn 3: nobody sends orders
    spend = orders("red", 4) + (
        '[[production]]\ncolony = "Alpha/3"\ncolony_transports = 2\nemigrants = 2\n'
        'scout_troops = 1\nresearch = 15\nships = [{design = "frigate"}]\n'
        '[[research]]\ntech = "speed-3"\n'
    )
    service.submit_orders(lineage, "red", spend)
    recorded = service.resolve_turn(lineage, ask=sixes)
    phases = {e.event.player: e.event for e in recorded if isinstance(e.event, ProductionResolved)}
    assert phases["blue"].produced_ip == 0  # blue has no colonies yet
    resolved = phases["red"]
    assert (resolved.produced_ip, resolved.lost_ip, resolved.acquired) == (24, 2, ("speed-3",))
    assert resolved.problems == ()
    state = service.load(lineage)
    assert state.empires["red"].speed == 3
    assert state.colonies["Alpha/3"].population == 10  # 12M less 2M emigrants
    new = {u.id: u for u in resolved.units}
    assert (new["red-T2"].count, new["red-T2"].hex) == (2, "0102")
    assert new["red-S5"].count == 9
    assert (new["red-W15"].design, new["red-W15"].captain) == ("frigate", 3)  # a 6: level 3
    blue_news = service.log(lineage, turn=4, viewer="blue")
    # Blue is told that red handed in orders: not which, nor how often (his commitment is his).
    assert [e.type for e in blue_news] == [
        "orders_handed_in",
        "absent_player",  # blue's own: he sent no orders
        "production_resolved",
        "turn_ended",
    ]
    text = msgspec.json.encode(blue_news).decode()
    assert "red-" not in text
    assert "Alpha" not in text


def test_production_orders_out_of_season_or_too_dear_are_refused(
    settled: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = settled
    text = orders("red", 2) + '[[research]]\ntech = "speed-3"\n'
    with pytest.raises(OrdersError, match="turn 2 has no production phase"):
        service.submit_orders(lineage, "red", text)


def test_reports_render_as_markdown_and_html(settled: tuple[CampaignService, Lineage]) -> None:
    from campaign import render

    service, lineage = settled
    report = service.report(lineage, "red")
    markdown = render.report_markdown(report)
    assert markdown.startswith("# g: red's report, turn 2\n")
    assert "### Alpha (0102)\n\n| unit | what | order | captain |\n" in markdown
    assert "| red-S1 | 9 scout-troop | stand-off |  |" in markdown
    assert "- explored: Alpha" in markdown
    page = render.report_html(report)
    assert page.startswith("<!doctype html>")
    assert "<td>red-W1</td>" in page
    assert "blue-" not in markdown + page
    runner = CliRunner()
    result = runner.invoke(app, ["report", "--player", "red", "--format", "pdf", "--db", "x.db"])
    assert result.exit_code == 2
    assert "--format 'pdf' must be terminal, md, html or json" in result.output


def tf_orders(turn: int, *forces: tuple[str | None, tuple[str, ...]], moves: str = "") -> str:
    text = orders("red", turn)
    for tf_id, units in forces:
        text += "[[task_forces]]\n" + (f'id = "{tf_id}"\n' if tf_id else "")
        text += "units = [" + ", ".join(f'"{u}"' for u in units) + "]\n"
    return text + moves


def test_task_forces_form_move_together_and_get_an_admiral(map_file: str) -> None:
    """004 5.1: ships move singly or as task forces; section 6: the admiral is diced for."""
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("g", ["red", "blue"], seed="s", dice_mode="manual", map_spec=map_file)
        service.new_campaign(plan, ask=sixes)
        lineage = service.target("g")
        move = '[[moves]]\nunit = "red-F1"\nto = "0102"\norder = "engage"\n'
        service.submit_orders(
            lineage, "red", tf_orders(1, (None, ("red-W2", "red-W1")), moves=move)
        )

        def dice(key: DiceKey, sides: int) -> int:
            return 1 if key.phase == "admiral" else 6  # the admiral rolls a 1; all else 6

        recorded = service.resolve_turn(lineage, ask=dice)
        assert [e.type for e in recorded][:5] == [
            "absent_player",
            "orders_revealed",
            "task_forces_set",
            "unit_moved",
            "unit_moved",
        ]
        state = service.load(lineage)
        force = state.task_forces["red-F1"]
        assert (force.units, force.admiral) == (("red-W2", "red-W1"), 1)  # a 1: level 1 admiral
        for uid in ("red-W1", "red-W2"):
            unit = state.units[uid]
            assert (unit.hex, unit.order, unit.task_force) == ("0102", "engage", "red-F1")
        template = service.orders_template(lineage, "red")
        assert 'unit = "red-F1"  # task force of 2, admiral level 1, at 0102' in template
        assert 'unit = "red-W1"' not in template
        with pytest.raises(OrdersError, match="red-W1: moves with task force red-F1"):
            service.submit_orders(lineage, "red", orders("red", 2, ("red-W1", "0102", "engage")))
        # Disbanding frees the ships.
        service.submit_orders(lineage, "red", tf_orders(2, ("red-F1", ())))
        service.resolve_turn(lineage, ask=sixes)
        after = service.load(lineage)
        assert after.task_forces == {}
        assert after.units["red-W1"].task_force is None
    finally:
        service.close()


def test_bad_task_force_orders_are_refused(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    with pytest.raises(OrdersError) as caught:
        service.submit_orders(
            lineage,
            "red",
            tf_orders(
                1,
                (None, ("red-W1",)),
                (None, ("red-W2", "blue-W1")),
                (None, ("red-W3", "red-S1")),
                ("red-F9", ("red-W4", "red-W5")),
                (None, ("red-W6", "red-W7")),
                (None, ("red-W7", "red-W8")),
            ),
        )
    assert caught.value.problems == [
        "new task force: a task force needs at least two warships",
        "new task force: blue-W1 is not a warship of red",
        "new task force: red-S1 is not a warship of red",
        "task force red-F9: not a task force of red",
        "red-W7 would be in both red-F4 and red-F5",
    ]


def test_two_players_landing_on_one_empty_planet() -> None:
    """Both orders were legal when given; the first (by name) settles, the other stays aboard,
    and nothing of the first colony reaches the second player."""
    from campaign.rules.colonies import decide_landings
    from campaign.strategic import Landing
    from tests.test_combat import state_of

    blue = Unit(id="blue-T1", owner="blue", kind="transports", hex="0102", count=5)
    red = Unit(id="red-T1", owner="red", kind="transports", hex="0102", count=5)
    state = state_of(
        blue,
        red,
        turn=2,
        landings={
            "blue": (Landing(unit="blue-T1", planet="Alpha/3", colonists=5),),
            "red": (Landing(unit="red-T1", planet="Alpha/3", colonists=5),),
        },
    )
    events = decide_landings(state, TINY)
    assert [type(e.event).__name__ for e in events] == [
        "ColonistsLanded",
        "ColonyDetected",
        "LandingFailed",  # red's colonists stay aboard, and he is told why
    ]
    assert [str(e.audience) for e in events] == ["blue", "all", "red"]
    assert "blue" not in msgspec.json.encode(events[2].event).decode()


def test_a_players_map_shows_planets_only_where_he_explored(
    settled: tuple[CampaignService, Lineage],
) -> None:
    """Fog of war: the chart (stars, colours, clouds, entries) is public; planets are learnt
    by exploring, and the map is built only from the player's own events."""
    service, lineage = settled
    red_map, red_explored = service.player_map(lineage, "red")
    assert red_explored == ("Alpha",)
    assert red_map.system("Alpha").planets[0].capacity == 60
    assert red_map.system("Beta").planets == ()
    assert all(red_map.is_cloud(c) for c in TINY.clouds)
    blue_map, blue_explored = service.player_map(lineage, "blue")
    assert (blue_explored, blue_map.system("Alpha").planets) == ((), ())
    assert [e.type for e in service.log(lineage, viewer="blue", types=["star_chart_published"])]
    runner = CliRunner()
    assert (
        runner.invoke(app, ["map", "show", "--as-player", "red", "--db", "missing.db"]).exit_code
        == 2
    )


def test_moves_are_pre_plotted_by_command_level(map_file: str) -> None:
    """004 section 6: a level 3 captain plots 3 turns ahead; the plot cannot be changed
    inside its horizon. Scout troops plot 1 turn."""
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("g", ["red", "blue"], seed="s", dice_mode="manual", map_spec=map_file)
        service.new_campaign(plan, ask=sixes)  # every captain rolls a 6: level 3
        lineage = service.target("g")
        assert service.load(lineage).units["red-W1"].captain == 3
        first = orders("red", 1, ("red-W1", "0302", "engage"), ("red-S1", "0102", "stand-off"))
        service.submit_orders(lineage, "red", first)
        service.resolve_turn(lineage, ask=sixes)
        ship = service.load(lineage).units["red-W1"]
        assert (ship.hex, ship.plot, ship.plot_until) == ("0102", ("0302", "0302"), 3)
        scout = service.load(lineage).units["red-S1"]
        assert (scout.plot, scout.plot_until) == ((), None)  # scouts plot one turn
        with pytest.raises(OrdersError, match=r"red-W1: plotted to 0302 until turn 3"):
            service.submit_orders(lineage, "red", orders("red", 2, ("red-W1", "0101", "engage")))
        # Asked whether it can go anywhere, it reaches nothing: it cannot be ordered at all.
        for to in (None, "0101", "0302"):
            reach = service.reach(lineage, "red-W1", "red", to)
            assert (reach.hexes, reach.problem) == (
                (),
                "plotted to 0302 until turn 3 (004 section 6): leave it out of the orders",
            ), to
        template = service.orders_template(lineage, "red")
        assert "# red-W1 is plotted to 0302 until turn 3 (004 section 6)" in template
        service.submit_orders(lineage, "red", template)  # the template is always acceptable
        service.resolve_turn(lineage, ask=sixes)  # turn 2: no orders; the plot moves it on
        ship = service.load(lineage).units["red-W1"]
        assert (ship.hex, ship.plot, ship.order) == ("0302", ("0302",), "engage")
        service.resolve_turn(lineage, ask=sixes, expected_turn=3)  # turn 3: it waits at Beta
        assert service.load(lineage).units["red-W1"].hex == "0302"
        # Turn 4: the plot has run out; it may be ordered again.
        service.submit_orders(lineage, "red", orders("red", 4, ("red-W1", None, "stand-off")))
        service.resolve_turn(lineage, ask=sixes)  # holding is no FTL move: it binds nothing
        assert service.load(lineage).units["red-W1"].plot_until is None
        later = orders("red", 5, ("red-W1", "0301", "engage"))
        service.submit_orders(lineage, "red", later)  # free to move again at once
        service.resolve_turn(lineage, ask=sixes)
        ship = service.load(lineage).units["red-W1"]
        assert (ship.hex, ship.plot_until) == ("0301", 7)
        later = orders("red", 6) + '[[task_forces]]\nunits = ["red-W1", "red-W2"]\n'
        with pytest.raises(OrdersError, match="red-W1 still bound by a plot"):
            service.submit_orders(lineage, "red", later)
    finally:
        service.close()


def test_explorers_see_enemy_colonies_and_owners_learn_they_were_scouted() -> None:
    """004 5.2: the report lists enemy colonies; their owner learns the system was scouted."""
    from campaign.events import SystemScouted
    from campaign.strategic import Colony

    blue_colony = Colony(
        id="Alpha/3",
        owner="blue",
        system="Alpha",
        hex="0102",
        orbit=3,
        planet_type="terran",
        capacity=60,
        population=4,
    )
    state = msgspec.structs.replace(_state([SCOUTS]), colonies={"Alpha/3": blue_colony})
    report, notice = decide_exploration(state, TINY, ScriptedDice([4]))
    assert isinstance(report.event, SystemExplored)
    assert report.event.enemy_colonies == ("blue: Alpha/3",)
    assert notice.event == SystemScouted(system="Alpha", turn=3)
    assert str(notice.audience) == "blue"


def test_a_move_that_no_longer_holds_at_resolution_holds_position() -> None:
    """Orders are checked against the player's knowledge; at resolution a move that meets what
    he could not see lapses (the unit holds) instead of stopping the turn, and its owner is
    told why (issue 12: never silently)."""
    from campaign.events import MoveLapsed
    from campaign.rules.movement import decide_movement
    from campaign.strategic import Move

    ship = Unit(id="red-W1", owner="red", kind="warship", hex="0102", captain=1)
    state = _state([ship])
    moves = (Move(unit="red-W1", to="9999"), Move(unit="red-S9", to="0102"))
    lapsed = [new.event for new in decide_movement(state, TINY, {"red": moves})]
    assert lapsed == [
        MoveLapsed(unit="red-W1", to="9999", reason="destination 9999 is off the map"),
        MoveLapsed(unit="red-S9", to="0102", reason="not a unit of red"),
    ]


def test_a_besieged_colony_is_no_command_post() -> None:
    """004 L212-213: a besieged colony "may not ... be used as a command post"."""
    from campaign.rules.colonies import command_post_hexes
    from campaign.strategic import Colony

    colony = Colony(
        id="Alpha/3",
        owner="red",
        system="Alpha",
        hex="0102",
        orbit=3,
        planet_type="terran",
        capacity=60,
        population=4,
    )
    free = msgspec.structs.replace(_state([]), colonies={"Alpha/3": colony})
    assert command_post_hexes(free, "red") == ["0102"]
    enemy = Unit(id="blue-W1", owner="blue", kind="warship", hex="0102")
    besieged = msgspec.structs.replace(free, units={"blue-W1": enemy})
    assert command_post_hexes(besieged, "red") == []


def test_the_starting_treasury_buys_research_and_ships(
    settled: tuple[CampaignService, Lineage],
) -> None:
    """004 section 3: 25 IP "which can be spent on Technological Research or more ships (at 63
    Full Thrust Points per Industrial Point)"; L267: what the first production phase leaves
    unspent is lost (the default setting, `--starting-ip expire`)."""
    service, lineage = settled
    service.resolve_turn(lineage, ask=sixes, expected_turn=2)
    service.resolve_turn(lineage, ask=sixes, expected_turn=3)
    too_early = orders("red", 4) + "[treasury]\nresearch = 30\n"
    with pytest.raises(OrdersError, match="spending 30 IP but 25 are left"):
        service.submit_orders(lineage, "red", too_early)
    spend = orders("red", 4) + (
        '[[research]]\ntech = "speed-3"\n'
        '[treasury]\nresearch = 15\nships = [{design = "frigate"}]\n'
    )
    service.submit_orders(lineage, "red", spend)
    recorded = service.resolve_turn(lineage, ask=sixes)
    (red,) = [
        e.event
        for e in recorded
        if isinstance(e.event, ProductionResolved) and e.event.player == "red"
    ]
    assert red.acquired == ("speed-3",)
    assert red.empire.ip == 0  # 25 - 15 research - 2 (a 65-point frigate), 8 left: lost
    assert red.treasury_lost == 8
    (frigate,) = red.units
    assert (frigate.design, frigate.hex) == ("frigate", None)  # it enters at the entry
    assert service.load(lineage).empires["red"].speed == 3
    with pytest.raises(OrdersError, match="turn 5 has no production phase"):
        service.submit_orders(lineage, "red", orders("red", 5) + "[treasury]\nresearch = 1\n")


def test_orders_are_committed_then_revealed(game: tuple[CampaignService, Lineage]) -> None:
    """Issue 6: on submission only a hash is recorded, his; the orders are umpire-only until
    the turn resolves, then revealed to their player, and the reveal can be checked. His
    rivals are told once that he handed in orders (the 004 trial: not how often)."""
    from campaign.events import NewEvent, OrdersCommitted, OrdersRevealed

    service, lineage = game
    text = orders("red", 1, ("red-S1", "0102", "stand-off"))
    service.submit_orders(lineage, "red", text)
    service.submit_orders(lineage, "red", text.replace("stand-off", "ftl-move"))  # the last counts
    commits = [e.event for e in service.log(lineage, viewer="red", types=["orders_committed"])]
    assert [c.player for c in commits if isinstance(c, OrdersCommitted)] == ["red", "red"]
    assert service.log(lineage, viewer="blue", types=["orders_committed"]) == []
    assert service.log(lineage, viewer="red", types=["orders_submitted"]) == []  # umpire only
    service.resolve_turn(lineage)
    (reveal,) = [e.event for e in service.log(lineage, viewer="red", types=["orders_revealed"])]
    assert isinstance(reveal, OrdersRevealed)
    last = commits[-1]
    assert isinstance(last, OrdersCommitted)
    salted = hashlib.sha256(bytes.fromhex(reveal.nonce) + reveal.payload.encode()).hexdigest()
    assert reveal.sha256 == last.sha256 == salted
    assert len(reveal.nonce) == 64
    assert '"nonce"' not in reveal.payload
    assert '"order":"ftl-move"' in reveal.payload
    assert service.log(lineage, viewer="blue", types=["orders_revealed"]) == []
    report = service.verify(lineage)
    assert (report.ok, report.orders_revealed) == (True, 1)
    # A reveal that is not what was committed fails verification, even with a valid chain.
    forged = OrdersRevealed(player="red", turn=1, sha256=reveal.sha256, payload="{}")
    state = service.load(lineage)
    service.append(lineage, state.version, [NewEvent(forged, Audience.players_(["red"]), 2)])
    bad = service.verify(lineage)
    assert not bad.ok
    assert "red's orders for turn 1 do not match the commitment" in bad.orders_problems[0]


def test_the_umpires_pipeline_status_hold_release_and_dry_run(
    game: tuple[CampaignService, Lineage],
) -> None:
    """Issue 6: who has sent orders; a held turn does not resolve; a dry run stores nothing
    and shows what the real resolution then does."""
    service, lineage = game
    status = service.turn_status(lineage)
    assert (status.turn, status.submitted, status.waiting_for) == (1, (), ("red", "blue"))
    service.submit_orders(lineage, "red", orders("red", 1, ("red-S1", "0102", "stand-off")))
    assert service.turn_status(lineage).waiting_for == ("blue",)
    service.hold_turn(lineage, "waiting for blue's orders")
    with pytest.raises(IllegalCommandError, match=r"held \(waiting for blue's orders\)"):
        service.resolve_turn(lineage)
    blue = service.log(lineage, viewer="blue", types=["turn_held"])
    assert [e.event.reason for e in blue] == ["waiting for blue's orders"]  # type: ignore[attr-defined]
    service.release_turn(lineage)
    before = len(service.log(lineage))
    preview = service.resolve_turn(lineage, dry_run=True)
    assert len(service.log(lineage)) == before  # nothing stored
    real = service.resolve_turn(lineage)
    assert [(e.type, e.event) for e in preview] == [(e.type, e.event) for e in real]
    with pytest.raises(IllegalCommandError, match="is not held"):
        service.release_turn(lineage)


def test_rulings_are_attributed_events_with_a_reason(
    settled: tuple[CampaignService, Lineage],
) -> None:
    """Issue 6: corrections are events with a reason, seen by the affected player only;
    nothing is edited in place."""
    service, lineage = settled
    service.relocate_unit(lineage, "red-S1", "0302", "blown off course by the ion storm")
    assert service.load(lineage).units["red-S1"].hex == "0302"
    (ruling,) = service.log(lineage, viewer="red", types=["unit_relocated"])
    assert ruling.actor == "umpire"
    assert service.log(lineage, viewer="blue", types=["unit_relocated"]) == []
    for bad, message in [
        (("red-S1", "9999", "x"), "not on the map"),
        (("red-Z9", "0302", "x"), "no unit"),
        (("red-S1", "0302", " "), "needs its reason"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            service.relocate_unit(lineage, *bad)
    service.submit_orders(lineage, "red", landing_orders(("red-T1", "Alpha/3", 10)))
    service.resolve_turn(lineage, ask=sixes)
    service.adjust_colony(lineage, "Alpha/3", "plague", population=7, factories=1)
    colony = service.load(lineage).colonies["Alpha/3"]
    assert (colony.population, colony.factories) == (7, 1)
    with pytest.raises(InvalidInputError, match="at most 60 million"):
        service.adjust_colony(lineage, "Alpha/3", "boom", population=61)
    runner = CliRunner()
    result = runner.invoke(app, ["ruling", "move", "red-S1", "--reason", "x", "--db", "missing.db"])
    assert result.exit_code == 2


def test_players_read_their_history_and_packages_are_published(
    settled: tuple[CampaignService, Lineage], tmp_path: Path, map_file: str
) -> None:
    """Issue 6: every past turn's report from the player's own events; one folder each."""
    service, lineage = settled
    service.submit_orders(lineage, "red", landing_orders(("red-T1", "Alpha/3", 10)))
    service.resolve_turn(lineage, ask=sixes)  # turn 2: the colony is founded
    then = service.report(lineage, "red", 1)
    now = service.report(lineage, "red")
    assert (then.news_turn, then.colonies) == (1, ())  # at the end of turn 1: no colony yet
    assert [c.id for c in now.colonies] == ["Alpha/3"]
    with pytest.raises(InvalidInputError, match="turn 9 is not in this campaign"):
        service.report(lineage, "red", 9)
    db = tmp_path / "pub.db"
    runner = CliRunner()
    # Publish from the CLI on a file database holding the same campaign.
    file_service = CampaignService.open(str(db), clock=FixedClock(), create=True)
    try:
        file_service.new_campaign(plan_campaign("p", ["red", "blue"], seed="s", map_spec=map_file))
    finally:
        file_service.close()
    result = runner.invoke(app, ["publish", "--out", str(tmp_path / "out"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    for player, other in (("red", "blue"), ("blue", "red")):
        names = sorted(p.name for p in (tmp_path / "out" / player).iterdir())
        assert names == [
            "map.svg",
            "map.toml",
            "receipt.json",
            "report.html",
            "report.json",
            "report.md",
            "template.toml",
            "view.json",
        ]
        text = "".join(p.read_text() for p in (tmp_path / "out" / player).iterdir())
        assert f"{other}-W" not in text


@pytest.mark.parametrize(
    ("absent", "decision"),
    [
        ("hold", "held position"),
        ("repeat", "repeated last turn's standing orders"),
        ("autoplay", "played by autoplay from his own view"),
    ],
)
def test_a_player_who_sends_no_orders(map_file: str, absent: str, decision: str) -> None:
    """Issue 6: the campaign's setting decides for an absent player, and says so in an event
    for him; repeated or autoplayed orders are committed and revealed like any others."""
    from campaign.events import AbsentPlayer

    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file, absent=absent)
        service.new_campaign(plan)
        lineage = service.target("g")
        for player in ("red", "blue"):
            service.submit_orders(lineage, player, orders(player, 1))
        service.resolve_turn(lineage)  # turn 1: both hand in (empty) orders
        service.submit_orders(lineage, "red", orders("red", 2))
        recorded = service.resolve_turn(lineage)  # turn 2: blue sends nothing
        (absence,) = [e for e in recorded if isinstance(e.event, AbsentPlayer)]
        assert absence.event == AbsentPlayer(player="blue", turn=2, decision=decision)
        assert str(absence.audience) == "blue"
        committed = [e.event.player for e in recorded if e.type == "orders_committed"]  # type: ignore[attr-defined]
        assert committed == ([] if absent == "hold" else ["blue"])
        assert service.verify(lineage).ok
    finally:
        service.close()


def test_an_unknown_absent_setting_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="absent-player setting 'vanish'"):
        plan_campaign("g", ["red"], absent="vanish")


def test_the_last_report_is_the_final_one(map_file: str) -> None:
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        plan = plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file, max_turns=1)
        service.new_campaign(plan)
        lineage = service.target("g")
        assert service.report(lineage, "red").title == "g: red's report, turn 1"
        service.resolve_turn(lineage, expected_turn=1)
        assert service.report(lineage, "red").title == "g: red's final report"
    finally:
        service.close()


def test_orders_after_the_deadline_are_refused(map_file: str) -> None:
    """Issue 6: a player may resubmit until the deadline; the status says who is late."""
    from datetime import UTC, datetime

    clock = FixedClock()  # 2026-01-01 00:00:01 and one second more at every reading
    service = CampaignService.open("sqlite://", clock=clock, create=True)
    try:
        service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file))
        lineage = service.target("g")
        service.set_deadline(lineage, datetime(2026, 1, 2, 18, 0))  # naive: taken as UTC
        service.submit_orders(lineage, "red", orders("red", 1))
        status = service.turn_status(lineage)
        assert (status.deadline, status.late) == (datetime(2026, 1, 2, 18, 0, tzinfo=UTC), False)
        clock.now = datetime(2026, 1, 3, tzinfo=UTC)
        with pytest.raises(IllegalCommandError, match="were due by 2026-01-02 18:00 UTC"):
            service.submit_orders(lineage, "blue", orders("blue", 1))
        assert service.turn_status(lineage).late
        assert service.turn_status(lineage).waiting_for == ("blue",)
        recorded = service.resolve_turn(lineage)  # blue is decided for by the absent setting
        assert "absent_player" in [e.type for e in recorded]
        assert service.turn_status(lineage).deadline is None  # a new turn, no deadline yet
    finally:
        service.close()


def test_the_umpire_replaces_a_players_orders_by_ruling(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.submit_orders(lineage, "red", orders("red", 1, ("red-S1", "0102", "stand-off")))
    recorded = service.replace_orders(
        lineage, "red", orders("red", 1), "the scouts were grounded by a mutiny"
    )
    assert all(e.actor == "umpire" for e in recorded)
    notes = [e.event.text for e in service.log(lineage, viewer="red", types=["umpire_noted"])]  # type: ignore[attr-defined]
    assert notes == [
        "by ruling, your orders for turn 1 were replaced: the scouts were grounded by a mutiny"
    ]
    assert service.load(lineage).submitted["red"].moves == ()
    assert service.log(lineage, viewer="blue", types=["umpire_noted"]) == []


def _treasury_game(map_file: str, starting_ip: str) -> tuple[CampaignService, Lineage]:
    from campaign.rules.production import ProductionSettings

    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    plan = plan_campaign(
        "g",
        ["red", "blue"],
        seed="s",
        dice_mode="manual",
        map_spec=map_file,
        production=ProductionSettings(starting_ip=starting_ip),  # type: ignore[arg-type]
    )
    service.new_campaign(plan, ask=sixes)
    return service, service.target("g")


def test_the_starting_treasury_is_spent_before_the_first_move(map_file: str) -> None:
    """Issue 12, bug 9 (004 L32): the 25 IP buy research or ships at set-up, before anyone
    moves: speed-3 bought with the turn 1 orders moves the ships 3 hexes that same turn."""
    from campaign.events import TreasurySpent

    service, lineage = _treasury_game(map_file, "expire")
    try:
        first = orders("red", 1, ("red-S1", "0202", "stand-off")) + (
            '[[research]]\ntech = "speed-3"\n[treasury]\nresearch = 15\n'
        )
        service.submit_orders(lineage, "red", first)
        recorded = service.resolve_turn(lineage, ask=sixes)
        (spent,) = [e.event for e in recorded if isinstance(e.event, TreasurySpent)]
        assert (spent.acquired, spent.empire.ip, spent.empire.speed) == (("speed-3",), 10, 3)
        state = service.load(lineage)
        assert state.units["red-S1"].hex == "0202"  # 3 hexes on turn 1, the entry counted
        from campaign.render import describe

        news = [describe(e.event) for e in service.report(lineage, "red").news]
        assert any("red spent starting IP on speed-3" in line for line in news), news
        # What is left is lost at the first production phase (004 L267).
        for turn in (2, 3, 4):
            service.resolve_turn(lineage, ask=sixes, expected_turn=turn)
        assert service.load(lineage).empires["red"].ip == 0
        with pytest.raises(OrdersError, match="turn 5 has no production phase"):
            service.submit_orders(lineage, "red", orders("red", 5) + "[treasury]\nresearch = 1\n")
    finally:
        service.close()


def test_the_starting_treasury_may_be_kept_by_setting(map_file: str) -> None:
    """`umpire new --starting-ip keep`: the treasury lasts until spent (docs/rulings.md)."""
    service, lineage = _treasury_game(map_file, "keep")
    try:
        for turn in (1, 2, 3, 4):
            service.resolve_turn(lineage, ask=sixes, expected_turn=turn)
        assert service.load(lineage).empires["red"].ip == 25
        late = orders("red", 5) + '[treasury]\nships = [{design = "frigate"}]\n'
        service.submit_orders(lineage, "red", late)
        service.resolve_turn(lineage, ask=sixes)
        assert service.load(lineage).empires["red"].ip == 23
    finally:
        service.close()


def test_the_production_settings_are_set_by_umpire_new(tmp_path: Path, map_file: str) -> None:
    """Issue 12, bug 10: the documented production settings can be set, and bad values are
    refused with the choices, storing nothing."""
    from typer.testing import CliRunner

    from cli import app

    db = str(tmp_path / "u.db")
    runner = CliRunner()
    new = ["new", "s", "--players", "red,blue", "--map", map_file, "--db", db]
    bad = runner.invoke(app, [*new, "--research-pooling", "always"])
    assert bad.exit_code == 2
    assert "'always' is not one of" in " ".join(bad.output.replace("│", " ").split())
    assert not Path(db).exists() or "s" not in runner.invoke(app, ["campaigns", "--db", db]).output
    settings = [
        "--research-pooling",
        "accumulate",
        "--besieged-may-emigrate",
        "--idle-factories-over-limit",
        "--starting-ip",
        "keep",
    ]
    made = runner.invoke(app, [*new, *settings])
    assert made.exit_code == 0, made.output
    shown = runner.invoke(app, ["state", "--json", "--db", db])
    assert json.loads(shown.output)["production_settings"] == {
        "research_pooling": "accumulate",
        "besieged_may_emigrate": True,
        "idle_factories_over_limit": True,
        "starting_ip": "keep",
    }
