"""Attacks on colonies (004 section 5.4): shields, surrender, assault, conquest, bombardment."""

from __future__ import annotations

import msgspec
import pytest

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
from campaign.rules.assault import check_attacks, decide_attacks, decide_conquests
from campaign.rules.battles import fight
from campaign.strategic import Attack, Colony, ShipResult, Unit
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
    results, rolls, _ = fight(evolve(state, requested), DUEL, requested.battle, SeededDice("a"))  # type: ignore[arg-type]
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
