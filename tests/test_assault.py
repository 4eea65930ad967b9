"""Attacks on colonies (004 section 5.4): shields, surrender, assault, conquest, bombardment."""

from __future__ import annotations

import msgspec
import pytest
from rich.console import Console

from campaign.dice import DiceKey, SeededDice
from campaign.events import (
    AttackFailed,
    BattleFought,
    BattleRequested,
    ColonyBombarded,
    ColonyConquered,
    FactoriesDestroyed,
)
from campaign.projections import evolve
from campaign.render import battles_table
from campaign.rules.assault import check_attacks, decide_attacks, decide_conquests
from campaign.rules.battles import fight, request_for
from campaign.strategic import BATTLE_TURNS, Attack, Colony, ShipResult, Unit
from tests.test_combat import DUEL, state_of, warship


def colony(**changes: object) -> Colony:
    base = Colony(
        id="Alpha/1",
        owner="blue",
        system="Alpha",
        hex="0201",
        orbit=1,
        planet_type="terran",
        capacity=40,
        population=12,
    )
    return msgspec.structs.replace(base, **changes)


def attacked(*units: Unit, target: Colony | None = None, mode: str = "conquer") -> object:
    target = target or colony()
    return state_of(
        *units,
        colonies={target.id: target},
        attacks={"red": (Attack(system="Alpha", mode=mode),)},  # type: ignore[arg-type]
        known_colonies=(("blue", "Alpha"),),
    )


def only_event(state: object) -> object:
    (new,) = decide_attacks(state, DUEL)  # type: ignore[arg-type]
    return new.event


def test_an_undefended_colony_surrenders() -> None:
    """004 L206: no planetary defences, the colony surrenders immediately."""
    ev = only_event(attacked(warship("red-W1", "engage")))
    assert isinstance(ev, ColonyConquered)
    assert (ev.colony.owner, ev.colony.conquered_from, ev.colony.conquered_turn) == (
        "red",
        "blue",
        3,
    )
    assert ev.previous_owner == "blue"


def test_a_planet_shield_blocks_every_attack() -> None:
    """004 L224: colonies protected by planetary shields may not be attacked at all."""
    for mode in ("conquer", "bombard"):
        ev = only_event(
            attacked(warship("red-W1", "engage"), target=colony(shield=True), mode=mode)
        )
        assert isinstance(ev, AttackFailed)
        assert ev.reason == "Alpha/1 is under a planet shield"


def test_no_attack_while_enemy_warships_remain() -> None:
    """004 L204: only once all enemy ships are destroyed or driven from the system."""
    ev = only_event(attacked(warship("red-W1", "engage"), warship("blue-W1", "stand-off")))
    assert isinstance(ev, AttackFailed)
    assert "enemy warships (blue) remain" in ev.reason


def test_bombardment_kills_a_million_per_250_points_and_can_devastate() -> None:
    """004 L220-222: 250 points kill 1 million a turn; 10 million or more wiped out devastates."""
    fleet = [msgspec.structs.replace(warship(f"red-W{i}", "engage"), points=300) for i in (1, 2)]
    ev = only_event(attacked(*fleet, mode="bombard"))
    assert isinstance(ev, ColonyBombarded)
    assert (ev.killed, ev.population, ev.devastated) == (2, 10, False)  # 600 points: 2 million
    big = [msgspec.structs.replace(warship(f"red-W{i}", "engage"), points=1000) for i in (1, 2, 3)]
    wiped = only_event(attacked(*big, target=colony(population=10), mode="bombard"))
    assert isinstance(wiped, ColonyBombarded)
    assert (wiped.killed, wiped.population, wiped.devastated) == (10, 0, True)
    state = evolve(attacked(*big, target=colony(population=10)), wiped)  # type: ignore[arg-type]
    assert state.colonies == {}
    assert state.devastated == ("Alpha/1",)


def test_planetary_defences_bring_an_assault_battle_then_conquest() -> None:
    """004 5.4 and 5.7.7: a PDU fights as a battledreadnought, an advanced PDU as two
    superdreadnoughts; when all are destroyed and an attacker remains, the colony falls."""
    state = attacked(warship("red-W1", "engage"), target=colony(pdus=1, advanced_pdbs=1))
    requested = only_event(state)
    assert isinstance(requested, BattleRequested)
    battle = requested.battle
    assert (battle.id, battle.colony) == ("t3-a1", "Alpha/1")
    assert battle.sides[1].units == ("Alpha/1#pdu-1", "Alpha/1#apdb-1", "Alpha/1#apdb-2")
    state = evolve(state, requested)  # type: ignore[arg-type]
    assert (state.phase, state.assaults) == ("assault", {"Alpha/1": "red"})
    half = BattleFought(
        battle=battle,
        results=(
            ShipResult(unit="Alpha/1#pdu-1", fate="destroyed"),
            ShipResult(unit="Alpha/1#apdb-1", fate="destroyed"),
        ),
        source="umpire",
    )
    after = evolve(state, half)
    assert (after.colonies["Alpha/1"].pdus, after.colonies["Alpha/1"].advanced_pdbs) == (0, 1)
    assert decide_conquests(after) == []  # a superdreadnought still stands
    full = msgspec.structs.replace(
        half, results=(*half.results, ShipResult(unit="Alpha/1#apdb-2", fate="destroyed"))
    )
    (conquest,) = decide_conquests(evolve(state, full))
    assert isinstance(conquest.event, ColonyConquered)
    assert conquest.event.colony.owner == "red"


def test_the_engine_fights_planetary_defences() -> None:
    red = msgspec.structs.replace(warship("red-W1", "engage"), design="heavy_cruiser")
    state = attacked(red, target=colony(pdus=1))
    requested = only_event(state)
    assert isinstance(requested, BattleRequested)
    fought = fight(evolve(state, requested), DUEL, requested.battle, SeededDice("a"))  # type: ignore[arg-type]
    results, rolls = fought.results, fought.rolls
    assert {r.unit for r in results} == {"red-W1", "Alpha/1#pdu-1"}
    assert rolls
    assert all(DiceKey.parse(r.key).phase == "battle" for r in rolls)


@pytest.mark.parametrize(
    ("attack", "positions", "message"),
    [
        (Attack(system="Nowhere"), {"red-W1": "0201"}, "no such star system"),
        (Attack(system="Alpha"), {"red-W1": "0101"}, "no warship of red will be there"),
    ],
)
def test_attack_orders_are_checked(attack: Attack, positions: dict[str, str], message: str) -> None:
    state = attacked(warship("red-W1", "engage"))
    problems = check_attacks(state, DUEL, "red", (attack,), positions)  # type: ignore[arg-type]
    assert any(message in p for p in problems), problems


def test_an_attack_needs_a_known_enemy_colony() -> None:
    state = msgspec.structs.replace(attacked(warship("red-W1", "engage")), known_colonies=())  # type: ignore[type-var]
    problems = check_attacks(state, DUEL, "red", (Attack(system="Alpha"),), {"red-W1": "0201"})
    assert problems == ["attack on Alpha: red knows of no enemy colony there"]


def test_a_devastated_planet_cannot_be_resettled_or_scored() -> None:
    """004 L222-223: devastated: may not be resettled, no victory points."""
    from campaign.rules.colonies import check_landings
    from campaign.rules.victory import scores
    from maps import loads_map
    from tests.test_strategic import TINY_MAP

    tiny = loads_map(TINY_MAP)
    transports = Unit(id="red-T1", owner="red", kind="transports", hex="0102", count=5)
    guard = msgspec.structs.replace(warship("red-W1", "engage", "0102"), mass=14)
    state = msgspec.structs.replace(state_of(transports, guard), devastated=("Alpha/3",))
    red = msgspec.structs.replace(state.empires["red"], explored=("Alpha",))
    state = msgspec.structs.replace(state, empires={"red": red})
    from campaign.strategic import Landing

    problems = check_landings(
        state,
        tiny,
        "red",
        (Landing(unit="red-T1", planet="Alpha/3", colonists=1),),
        {"red-T1": "0102"},
    )
    assert problems == [
        "red-T1 to Alpha/3: the planet is devastated and may not be resettled (004 5.4)"
    ]
    assert [(s.player, s.points) for s in scores(state, tiny)] == [("red", 0)]
    alive = msgspec.structs.replace(state, devastated=())
    assert [(s.player, s.points) for s in scores(alive, tiny)] == [("red", 3)]  # warships hold it


def test_the_defender_scorches_his_factories_before_the_colony_falls() -> None:
    """004 L210-211: "The defender has the option of destroying any or all factories present
    on the planet after each round of combat while the colony remains unconquered"."""
    target = colony(pdus=1, factories=3)
    state = state_of(
        warship("red-W1", "engage"),
        colonies={target.id: target},
        attacks={"red": (Attack(system="Alpha"),)},
        scorch={"blue": ("Alpha/1",)},
        known_colonies=(("blue", "Alpha"),),
    )
    requested = only_event(state)
    assert isinstance(requested, BattleRequested)
    state = evolve(state, requested)
    fought = BattleFought(
        battle=requested.battle,
        results=(ShipResult(unit="Alpha/1#pdu-1", fate="destroyed"),),
        source="umpire",
    )
    razed, conquest = decide_conquests(evolve(state, fought))
    assert razed.event == FactoriesDestroyed(colony="Alpha/1", factories=3)
    assert isinstance(conquest.event, ColonyConquered)
    assert (conquest.event.colony.owner, conquest.event.colony.factories) == ("red", 0)


# ---------------------------------------------------------------- issue 12: the rules as 004 says


def _after(state: object, *events: object) -> object:
    for ev in events:
        state = evolve(state, ev)  # type: ignore[arg-type]
    return state


def test_the_dispossessed_owner_knows_who_holds_his_colony_and_may_attack_it() -> None:
    """004 5.4: blue saw red take Alpha/1; he knows an enemy colony is there to retake."""
    ev = only_event(attacked(warship("red-W1", "engage")))
    assert isinstance(ev, ColonyConquered)
    # Blue's view: his own colony, then its conquest (he saw it); no detection of red there.
    blue_view = state_of(warship("blue-W1", "engage"), colonies={"Alpha/1": colony()})
    blue_view = _after(blue_view, ev)
    problems = check_attacks(
        blue_view, DUEL, "blue", (Attack(system="Alpha"),), {"blue-W1": "0201"}
    )  # type: ignore[arg-type]
    assert problems == []


def test_a_liberated_colony_is_free_again() -> None:
    """004 L215-219 govern conquered populations; one retaken by its own owner is free:
    it grows, produces and needs no garrison (docs/rulings.md)."""
    held = colony(owner="red", conquered_from="blue", conquered_turn=2)
    state = state_of(
        warship("blue-W1", "engage"),
        colonies={held.id: held},
        attacks={"blue": (Attack(system="Alpha"),)},
        known_colonies=(("red", "Alpha"),),
    )
    (new,) = decide_attacks(state, DUEL)  # type: ignore[arg-type]
    assert isinstance(new.event, ColonyConquered)
    freed = new.event.colony
    assert (freed.owner, freed.conquered_from, freed.conquered_turn) == ("blue", None, None)


def test_a_conquered_colony_taken_by_a_third_player_keeps_its_original_owner() -> None:
    held = colony(owner="red", conquered_from="blue", conquered_turn=2)
    state = state_of(
        warship("green-W1", "engage"),
        colonies={held.id: held},
        attacks={"green": (Attack(system="Alpha"),)},
        known_colonies=(("red", "Alpha"),),
    )
    (new,) = decide_attacks(state, DUEL)  # type: ignore[arg-type]
    assert isinstance(new.event, ColonyConquered)
    assert (new.event.colony.owner, new.event.colony.conquered_from) == ("green", "blue")


def test_devastation_counts_every_turn_of_bombardment() -> None:
    """004 L221-223: "If a population of at least 10 million is completely destroyed", over
    however many turns: 12M killed as 7M then 5M devastates the planet."""
    ships = [msgspec.structs.replace(warship(f"red-W{i}", "engage"), points=875) for i in (1, 2)]
    state = attacked(*ships, mode="bombard")  # 12M, 1,750 points: 7M a turn
    first = only_event(state)
    assert isinstance(first, ColonyBombarded)
    assert (first.killed, first.population, first.devastated) == (7, 5, False)
    state = _after(state, first)
    second = only_event(state)
    assert isinstance(second, ColonyBombarded)
    assert (second.killed, second.population, second.devastated) == (5, 0, True)
    assert _after(state, second).devastated == ("Alpha/1",)  # type: ignore[attr-defined]


def test_a_small_population_wiped_out_does_not_devastate() -> None:
    ships = [msgspec.structs.replace(warship("red-W1", "engage"), points=2500)]
    wiped = only_event(attacked(*ships, target=colony(population=9), mode="bombard"))
    assert isinstance(wiped, ColonyBombarded)
    assert (wiped.population, wiped.devastated) == (0, False)


def _assaulted(target: Colony, mode: str = "conquer", **orders: object) -> object:
    state = state_of(
        warship("red-W1", "engage"),
        colonies={target.id: target},
        attacks={"red": (Attack(system="Alpha", mode=mode),)},  # type: ignore[arg-type]
        known_colonies=(("blue", "Alpha"),),
        **orders,
    )
    requested = only_event(state)
    assert isinstance(requested, BattleRequested)
    return evolve(state, requested)  # type: ignore[arg-type]


def test_factories_stand_when_the_defences_hold() -> None:
    """004 L210-211: factories go "while the colony remains unconquered", as it falls; the
    defences winning, the colony is not falling and keeps them."""
    state = _assaulted(colony(pdus=1, factories=3), scorch={"blue": ("Alpha/1",)})
    held = BattleFought(
        battle=state.pending_battles["t3-a1"],  # type: ignore[attr-defined]
        results=(ShipResult(unit="red-W1", fate="destroyed"),),
        source="umpire",
    )
    assert decide_conquests(evolve(state, held)) == []  # type: ignore[arg-type]


def test_bombardment_fights_the_planetary_defences_first() -> None:
    """004 5.4 (L204-209): the defences are revealed and must be destroyed before the colony
    can be attacked; a bombardment too. Then the bombardment falls (no conquest, no scorch)."""
    state = _assaulted(colony(pdus=3, factories=2), mode="bombard", scorch={"blue": ("Alpha/1",)})
    battle = state.pending_battles["t3-a1"]  # type: ignore[attr-defined]
    assert battle.sides[1].units == tuple(f"Alpha/1#pdu-{i}" for i in (1, 2, 3))
    won = BattleFought(
        battle=battle,
        results=tuple(ShipResult(unit=u, fate="destroyed") for u in battle.sides[1].units),
        source="umpire",
    )
    (bombed,) = decide_conquests(evolve(state, won))  # type: ignore[arg-type]
    assert isinstance(bombed.event, ColonyBombarded)


def test_an_attack_may_name_its_colony() -> None:
    """004 L204-205: "a player may attack any enemy colonies present": he picks which."""
    one, two = colony(), colony(id="Alpha/2", orbit=2)
    state = state_of(
        warship("red-W1", "engage"),
        colonies={one.id: one, two.id: two},
        attacks={"red": (Attack(system="Alpha", colony="Alpha/2"),)},
        known_colonies=(("blue", "Alpha"),),
    )
    (new,) = decide_attacks(state, DUEL)  # type: ignore[arg-type]
    assert isinstance(new.event, ColonyConquered)
    assert new.event.colony.id == "Alpha/2"
    problems = check_attacks(
        state, DUEL, "red", (Attack(system="Alpha", colony="Alpha/9"),), {"red-W1": "0201"}
    )
    assert problems == ["attack on Alpha/9: no such planet in Alpha (its planets: none)"]


def test_a_fleet_tender_is_no_warship_for_control_siege_or_assault() -> None:
    """004 L17-18 and L212: warships hold systems and besiege colonies; a fleet tender is a
    merchant hull (001 L1154)."""
    from campaign.rules.colonies import command_post_hexes
    from campaign.rules.victory import scores
    from maps import loads_map
    from tests.test_strategic import TINY_MAP

    tender = msgspec.structs.replace(
        warship("red-W1", "stand-off", "0102"), hull_class="merchant", mass=40
    )
    state = state_of(tender)
    assert [(s.player, s.points) for s in scores(state, loads_map(TINY_MAP))] == [("red", 0)]
    mine = colony(hex="0102")
    blue = msgspec.structs.replace(state_of(tender), colonies={mine.id: mine})
    assert command_post_hexes(blue, "blue") == ["0102"]  # not besieged by a tender
    problems = check_attacks(
        state_of(tender, known_colonies=(("blue", "Alpha"),)),
        DUEL,
        "red",
        (Attack(system="Alpha"),),
        {"red-W1": "0201"},
    )
    assert problems == ["attack on Alpha: no warship of red will be there"]


def test_the_attacker_may_call_the_assault_off() -> None:
    """004 L208-209: "The attacker may call off the planetary assault at any time": his
    standing order ends the engine's assault after so many turns; the defences that still
    stand keep the colony, and the siege goes on."""
    red = msgspec.structs.replace(warship("red-W1", "engage"), design="heavy_cruiser")
    state = state_of(
        red,
        colonies={"Alpha/1": colony(pdus=3)},
        attacks={"red": (Attack(system="Alpha", call_off_after=1),)},
        known_colonies=(("blue", "Alpha"),),
    )
    requested = only_event(state)
    assert isinstance(requested, BattleRequested)
    assert requested.battle.call_off_after == 1
    shown = Console(width=200, record=True)
    shown.print(battles_table([requested.battle]))  # the umpire at a table reads it too
    assert "assault on Alpha/1, called off after 1 turns if they stand" in shown.export_text()
    state = evolve(state, requested)  # type: ignore[arg-type]
    assert request_for(state, requested.battle).turn_limit == 1  # type: ignore[arg-type]
    fought_out = msgspec.structs.replace(requested.battle, call_off_after=None)
    assert request_for(state, fought_out).turn_limit == BATTLE_TURNS  # type: ignore[arg-type]
    results = fight(state, DUEL, requested.battle, SeededDice("a")).results  # type: ignore[arg-type]
    standing = [r for r in results if r.unit.startswith("Alpha/1#") and r.fate != "destroyed"]
    assert standing  # one turn of fire does not silence three battledreadnought batteries
    held = BattleFought(battle=requested.battle, results=results, source="engine")
    assert decide_conquests(evolve(state, held)) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("turns", [0, 13])
def test_an_assault_is_called_off_after_1_to_12_turns(turns: int) -> None:
    with pytest.raises(msgspec.ValidationError, match="call_off_after"):
        msgspec.convert({"system": "Alpha", "call_off_after": turns}, Attack)
