"""Random legal play of the FT2 campaign, from each player's own view (issue 20).

`random_orders` draws a player's orders from what he knows (his fleets, the public map);
`random_decision` draws his choice in an encounter; `play` drives a whole scenario through
the service, fighting battles by the engine or recording them as a table would, and checks
after every turn that no player's view holds another's fleets.
"""

from __future__ import annotations

import random

import msgspec

from campaign.events import UMPIRE
from campaign.ft2 import rules
from campaign.ft2 import service as ft2
from campaign.ft2.model import (
    DECISIONS,
    DecoyOrder,
    DockOrder,
    Fleet,
    Ft2Orders,
    Ft2State,
    MoveOrder,
    Scenario,
    SplitOrder,
    load_scenario,
)
from campaign.service import CampaignService
from campaign.store import Lineage
from maps import StarMap, label, line, parse_label

MOVE_CHANCE = 0.6
SPLIT_CHANCE = 0.15
TABLE_BATTLE_CHANCE = 0.4


def _can_move(fleet: Fleet) -> bool:
    return not fleet.fixed and rules.towing_problem(fleet) is None


def _destination(fleet: Fleet, starmap: StarMap, reach: int, rng: random.Random) -> str:
    """A star system, or the hex `reach` steps toward one."""
    goal = rng.choice(sorted(starmap.systems, key=lambda s: s.name)).hex
    cells = line(parse_label(fleet.hex), goal)
    target = label(cells[min(reach, len(cells) - 1)])
    if target == fleet.hex and fleet.must_leave:
        target = label(cells[1]) if len(cells) > 1 else _first_neighbour(fleet, starmap)
    return target


def _first_neighbour(fleet: Fleet, starmap: StarMap) -> str:
    cell = parse_label(fleet.hex)
    for other in starmap.systems:
        if other.hex != cell and cell.distance(other.hex) <= 6:
            return label(other.hex)
    return label(next(iter(starmap.cells())))


def random_orders(
    view: Ft2State,
    player: str,
    turn: int,
    starmap: StarMap,
    scenario: Scenario,
    rng: random.Random,
) -> Ft2Orders:
    """Draw legal orders for `player` from his own view."""
    moves: list[MoveOrder] = []
    splits: list[SplitOrder] = []
    docks: list[DockOrder] = []
    decoys: list[DecoyOrder] = []
    side = next(s for s in scenario.sides if s.name == view.sides.get(player))
    for fid in sorted(view.fleets):
        fleet = view.fleets[fid]
        if fleet.owner != player or not _can_move(fleet):
            continue
        system = rules.system_name(starmap, fleet.hex)
        facility = scenario.facility(system) if system else None
        hurt = [s for s in fleet.ships if s.record is not None]
        if facility and side.may_use_facilities and hurt and not fleet.must_leave:
            docks += [
                DockOrder(ship=s.id, systems=("drive",))
                for s in hurt
                if s.mass <= (facility.repair_mass_limit or s.mass)
            ]
            if docks:
                continue  # a fleet with ships in dock stays
        if len(fleet.ships) > 1 and rng.random() < SPLIT_CHANCE and not fleet.must_leave:
            part = tuple(s.id for s in fleet.ships[: len(fleet.ships) // 2])
            splits.append(
                SplitOrder(fleet=fid, ships=part, to=_destination(fleet, starmap, 6, rng))
            )
        if fleet.must_leave or rng.random() < MOVE_CHANCE:
            target = _destination(fleet, starmap, scenario.move_hexes, rng)
            if target != fleet.hex:
                moves.append(MoveOrder(fleet=fid, to=target))
                if fleet.drones and rng.random() < 0.5:
                    count = min(fleet.drones, len(fleet.ships))
                    decoys.append(DecoyOrder(fleet=fid, drones=count))
    return Ft2Orders(
        player=player,
        turn=turn,
        moves=tuple(moves),
        splits=tuple(splits),
        docks=tuple(docks),
        decoys=tuple(decoys),
    )


def random_decision(rng: random.Random) -> str:
    """Draw a decision for an encounter (001 L1512-1520)."""
    return rng.choice(DECISIONS)


def check_no_leak(service: CampaignService, lineage: Lineage, players: tuple[str, ...]) -> None:
    """Fail if a player's view holds a fleet of another's (001 L1475).

    Raises:
        AssertionError: a leak.
    """
    for player in players:
        view = service.load(lineage, viewer=player).ft2
        assert view is not None
        foreign = [f.id for f in view.fleets.values() if f.owner != player]
        if foreign:
            raise AssertionError(f"{player}'s view holds fleets of others: {foreign}")


class Played(msgspec.Struct, frozen=True):
    """What `play` did: turns played, battles by the engine and by a table, the result."""

    turns: int
    engine: int
    table: int
    result: str | None

    def summary(self) -> str:
        """One line for the umpire."""
        end = f"judged: {self.result}" if self.result else "not over yet"
        return (
            f"Played {self.turns} turn(s): {self.engine} battle(s) by the engine, "
            f"{self.table} recorded as from a table; {end}."
        )


def play(
    service: CampaignService,
    lineage: Lineage,
    seed: int | str,
    turns: int | None = None,
    table_chance: float = TABLE_BATTLE_CHANCE,
) -> Played:
    """Play `turns` turns (default: to the end) with random legal orders and decisions, each
    battle recorded as from a table with `table_chance`, else fought by the engine."""
    rng = random.Random(seed)
    state = service.load(lineage)
    scenario = load_scenario(state.ft2.scenario if state.ft2 else "")
    starmap = service.starmap(lineage)
    engine = table = played = 0
    while not service.load(lineage).finished and (turns is None or played < turns):
        played += 1
        state = service.load(lineage)
        for player in state.players:
            view = service.load(lineage, viewer=player).ft2
            assert view is not None
            orders = random_orders(view, player, state.turn, starmap, scenario, rng)
            text = ft2.dumps_orders(orders)
            service.submit_orders(lineage, player, text)
        while service.load(lineage).turn == state.turn:
            service.resolve_turn(lineage)
            for found in ft2.encounters(service, lineage, UMPIRE):
                for player in found.players:
                    ft2.decide(service, lineage, player, found.id, random_decision(rng))
            for battle in ft2.battles_waiting(service, lineage, UMPIRE):
                if rng.random() < table_chance:
                    ft2.record(
                        service, lineage, battle, _table_results(service, lineage, battle, rng)
                    )
                    table += 1
                else:
                    ft2.fight(service, lineage, battle)
                    engine += 1
        check_no_leak(service, lineage, state.players)
    result, _ = ft2.result(service, lineage)
    return Played(turns=played, engine=engine, table=table, result=result)


def _table_results(
    service: CampaignService, lineage: Lineage, battle_id: str, rng: random.Random
) -> list[str]:
    state = service.load(lineage).ft2
    assert state is not None
    battle = state.battles[battle_id]
    fates = ("present", "present", "disengaged", "destroyed", "disabled")
    return [
        f"{ship}={rng.choice(fates)}:{rng.randint(0, 3)}"
        for side in battle.sides
        for ship in side.ships
    ]
