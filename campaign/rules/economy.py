"""The production phase in the turn (004 section 5.7): orders, checks, and what it builds.

`campaign.rules.production` and `campaign.rules.technology` hold the arithmetic; this module
turns a player's production orders into their inputs, and their outcome into the campaign's
events: colonies grown and built up, technology bought, and new units at the colonies
(004 L268: "Newly built starships appear in the colony's star system").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.events import Audience, NewEvent, ProductionResolved, TreasurySpent
from campaign.projections import CampaignState
from campaign.rules import decoys, production, technology
from campaign.rules.command import roll_captain
from campaign.rules.fighters import carriers_first, load, room_for_fighters
from campaign.rules.production import ColonyOrders, ProductionOrderError
from campaign.rules.setup import FleetShip
from campaign.rules.technology import ResearchOrder, ResearchOrderError
from campaign.strategic import (
    SCOUTS_PER_TROOP,
    Colony,
    Empire,
    ProductionOrder,
    ShipOrder,
    TreasuryOrder,
    Unit,
    UnitKind,
    unit_id,
)
from tactical.points import FT2_SYSTEMS

# Looks a catalogue design up: (design id) -> the ship as the campaign needs it.
Catalogue = Callable[[str], FleetShip]

# 001 L1339: FT2 prices fighters only with their bay, a "Fighter group including bay" of 6 at
# 20 points; a replacement fighter is a sixth of that (docs/rulings.md).
FIGHTER_GROUP = FT2_SYSTEMS["fighter_group"]


def fighter_points(fighters: int) -> int:
    """Return the Full Thrust points of `fighters` replacement fighters: 20 per 6, rounded up.

    >>> fighter_points(6), fighter_points(1), fighter_points(0)
    (20, 4, 0)
    """
    group = FIGHTER_GROUP.bay or 6
    return -(-fighters * FIGHTER_GROUP.points // group) if fighters > 0 else 0


def _fighter_problems(
    state: CampaignState,
    player: str,
    orders: tuple[ProductionOrder, ...],
    catalogue: Catalogue,
) -> list[str]:
    """Check that the fighters bought fit aboard the carriers and tenders at each colony's hex,
    those built there this phase included (004 L197-201)."""
    problems = []
    wanted: dict[str, int] = {}
    new_holds: dict[str, int] = {}
    for order in orders:
        colony = state.colonies.get(order.colony)
        if order.fighters < 0:
            problems.append(f"colony {order.colony!r}: fighters is {order.fighters}, negative")
        elif colony is not None:
            wanted[colony.hex] = wanted.get(colony.hex, 0) + order.fighters
            new_holds[colony.hex] = new_holds.get(colony.hex, 0) + _holds_built(order, catalogue)
    for hex_, fighters in sorted(wanted.items()):
        if not fighters:
            continue
        room = _room_at(state, player, hex_) + new_holds[hex_]
        if fighters > room:
            problems.append(
                f"{fighters} fighters bought at {hex_} but its carriers and fleet tenders have "
                f"room for only {room} (004 L197-201: replacements go aboard at the producing "
                "world)"
            )
    return problems


def _room_at(state: CampaignState, player: str, hex_: str) -> int:
    """Return the fighters a player's carriers and tenders in a hex can take now."""
    here = (u for u in state.units.values() if u.owner == player and u.hex == hex_)
    return sum(room_for_fighters(u) for u in here)


def _holds_built(order: ProductionOrder, catalogue: Catalogue) -> int:
    """Return the fighters the fleet tenders a colony builds can carry."""
    room = 0
    for ship in order.ships:
        try:
            room += catalogue(ship.design).fighter_stores * ship.count
        except LookupError:
            continue  # reported with the ship
    return room


def _rearmed(
    state: CampaignState,
    player: str,
    orders: tuple[ProductionOrder, ...],
    built: tuple[Unit, ...],
) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """Put the fighters bought aboard the carriers at each colony's hex, then into the holds
    of the tenders there and of those just built (004 L197-201); and the decoy drones bought,
    one to a warship there without one, then to those just built (`rules.decoys`).

    Returns the units already in play that took fighters or drones and every unit built,
    each as it stands afterwards.
    """
    current = {u.id: u for u in state.units.values() if u.owner == player}
    new = {u.id: u for u in built}
    for order in orders:
        colony = state.colonies.get(order.colony)
        if colony is None or (order.fighters <= 0 and order.decoys <= 0):
            continue
        here = sorted((u for u in current.values() if u.hex == colony.hex), key=lambda u: u.id)
        fresh = sorted((u for u in new.values() if u.hex == colony.hex), key=lambda u: u.id)
        changed, _left = load([*carriers_first(here), *fresh], max(order.fighters, 0))
        for unit in changed:
            (new if unit.id in new else current)[unit.id] = unit
        here = sorted((u for u in current.values() if u.hex == colony.hex), key=lambda u: u.id)
        fresh = sorted((u for u in new.values() if u.hex == colony.hex), key=lambda u: u.id)
        for unit in decoys.load_decoys([*here, *fresh], order.decoys):
            (new if unit.id in new else current)[unit.id] = unit
    rearmed = tuple(
        current[u.id]
        for u in sorted(state.units.values(), key=lambda u: u.id)
        if u.id in current and current[u.id] != u
    )
    return rearmed, tuple(new[u.id] for u in built)


def is_production_turn(turn: int) -> bool:
    """Return whether the turn ends with a production phase (004 L65: every fourth turn)."""
    return production.is_production_turn(turn)


def _besieged(state: CampaignState, colony: Colony) -> bool:
    # 004 L212: besieged "if at least one enemy warship remains in its system".
    return any(
        u.is_warship and u.owner != colony.owner and u.hex == colony.hex
        for u in state.units.values()
    )


def production_colony(state: CampaignState, colony: Colony) -> production.Colony:
    """The colony as the production rules see it.

    From a player's own view a siege he cannot see does not show (no enemy units in it).
    """
    return production.Colony(
        name=colony.id,
        planet_type=colony.planet_type,
        population=colony.population,
        capacity=colony.capacity,
        factories=colony.factories + colony.robotic_factories,
        mineral_rich=colony.mineral_rich,
        conquered=colony.conquered_from is not None,
        conquered_on_turn=colony.conquered_turn,
        besieged=_besieged(state, colony),
        planet_shield=colony.shield,
    )


def _inputs(
    state: CampaignState,
    player: str,
    orders: tuple[ProductionOrder, ...],
    catalogue: Catalogue,
) -> tuple[list[production.Colony], list[ColonyOrders], list[str]]:
    problems: list[str] = []
    colonies = [
        production_colony(state, c)
        for c in sorted(state.colonies.values(), key=lambda c: c.id)
        if c.owner == player
    ]
    colony_orders = []
    for order in orders:
        points = 0
        for ship in order.ships:
            try:
                built = catalogue(ship.design)
            except LookupError as unknown:  # it says which designs there are
                problems.append(f"colony {order.colony!r}: {unknown}")
                continue
            if not built.ftl:
                problems.append(f"colony {order.colony!r}: {ship.design} has no FTL drive")
            points += built.points * ship.count
        points += fighter_points(order.fighters) + decoys.DECOY_POINTS * max(order.decoys, 0)
        colony_orders.append(
            ColonyOrders(
                colony=order.colony,
                colony_transports=order.colony_transports,
                emigrants=order.emigrants,
                factories=order.factories,
                robotic_factories=order.robotic_factories,
                scout_troops=order.scout_troops,
                pdus=order.pdus,
                advanced_pdbs=order.advanced_pdbs,
                planet_shields=order.planet_shields,
                starship_points=points,
                research=order.research,
            )
        )
    problems += _fighter_problems(state, player, orders, catalogue)
    problems += decoys.decoy_problems(state, player, orders, _warships_built(state, orders))
    return colonies, colony_orders, problems


def _warships_built(state: CampaignState, orders: tuple[ProductionOrder, ...]) -> dict[str, int]:
    """Return the warships each hex's colonies build in these orders."""
    built: dict[str, int] = {}
    for order in orders:
        colony = state.colonies.get(order.colony)
        if colony is not None:
            built[colony.hex] = built.get(colony.hex, 0) + _warships_built_by(order)
    return built


def check_production(
    state: CampaignState,
    player: str,
    orders: tuple[ProductionOrder, ...],
    research: tuple[ResearchOrder, ...],
    catalogue: Catalogue,
    treasury: TreasuryOrder | None = None,
) -> list[str]:
    """Return every problem with a player's production and research orders (a dry run).

    Outside a production phase only the starting treasury may be spent, while it lasts
    (`treasury_open`): research bought with it and ships (004 L32).
    """
    if not orders and not research and treasury is None:
        return []
    empire = state.empires[player]
    settings = state.production_settings
    if not is_production_turn(state.turn):
        if orders or treasury is None or not treasury_open(state, empire):
            return [
                f"turn {state.turn} has no production phase (004 5.7: after every fourth turn)"
                + _treasury_hint(state, empire)
            ]
        problems = _treasury_problems(empire, treasury, catalogue)
        _, research_problems = technology.check_research(
            frozenset(empire.techs),
            treasury.research,
            research,
            empire.invested,
            settings.research_pooling,
        )
        return problems + [f"treasury {p}" for p in research_problems]
    colonies, colony_orders, problems = _inputs(state, player, orders, catalogue)
    problems += _treasury_problems(empire, treasury, catalogue)
    try:
        production.resolve_production(
            state.turn,
            colonies,
            colony_orders,
            research,
            frozenset(empire.techs),
            invested=empire.invested,
            settings=settings,
            treasury_research=treasury.research if treasury else 0,
        )
    except (ProductionOrderError, ResearchOrderError) as exc:
        problems += exc.problems
    return problems


FIRST_PRODUCTION_TURN = 4  # 004 L235: "At the end of every fourth turn"


def treasury_open(state: CampaignState, empire: Empire) -> bool:
    """Return whether the starting treasury may be spent this turn: while IP are left of it,
    and, under the "expire" setting, up to the first production phase (004 L32, L267)."""
    if empire.ip <= 0:
        return False
    return state.production_settings.starting_ip == "keep" or state.turn <= FIRST_PRODUCTION_TURN


def _treasury_hint(state: CampaignState, empire: Empire) -> str:
    if treasury_open(state, empire):
        return (
            f"; until then only the starting treasury ({empire.ip} IP) may be spent, with "
            "[treasury] research and ships"
        )
    return ""


def _treasury_cost(treasury: TreasuryOrder, catalogue: Catalogue) -> int:
    points = sum(catalogue(s.design).points * s.count for s in treasury.ships)
    return treasury.research + production.starship_cost(points)


def _treasury_problems(
    empire: Empire, treasury: TreasuryOrder | None, catalogue: Catalogue
) -> list[str]:
    if treasury is None:
        return []
    problems = []
    for ship in treasury.ships:
        try:
            if not catalogue(ship.design).ftl:
                problems.append(f"treasury: {ship.design} has no FTL drive")
        except LookupError as unknown:
            problems.append(f"treasury: {unknown}")
    if treasury.research < 0:
        problems.append("treasury: research cannot be negative")
    if problems:
        return problems
    cost = _treasury_cost(treasury, catalogue)
    if cost > empire.ip:
        problems.append(
            f"treasury: spending {cost} IP but {empire.ip} are left of the starting "
            "25 (004 section 3)"
        )
    return problems


def decide_production(
    state: CampaignState,
    orders: Mapping[str, tuple[ProductionOrder, ...]],
    research: Mapping[str, tuple[ResearchOrder, ...]],
    catalogue: Catalogue,
    dice: DiceSource,
    treasury: Mapping[str, TreasuryOrder] | None = None,
) -> list[NewEvent]:
    """Run every empire's production phase; an empire whose orders no longer hold spends nothing.

    Orders checked at submission can fail by resolution (a colony lost, a siege begun): then
    that empire's colonies still grow and produce, spend nothing, and the problems are reported.
    """
    batch = []
    settings = state.production_settings
    for player in sorted(state.empires):
        empire = state.empires[player]
        mine, notes = _lift_sieged(state, orders.get(player, ()), settings)
        mine, lapsed = _still_standing(state, player, mine, catalogue)
        notes += lapsed
        wanted = research.get(player, ())
        spend = (treasury or {}).get(player)
        colonies, colony_orders, problems = _inputs(state, player, mine, catalogue)
        problems += _treasury_problems(empire, spend, catalogue)
        owned = frozenset(empire.techs)
        try:
            if problems:
                raise ProductionOrderError(problems)
            outcome = production.resolve_production(
                state.turn,
                colonies,
                colony_orders,
                wanted,
                owned,
                invested=empire.invested,
                settings=settings,
                treasury_research=spend.research if spend else 0,
            )
        except (ProductionOrderError, ResearchOrderError) as exc:
            problems = list(exc.problems)
            outcome = production.resolve_production(
                state.turn, colonies, (), (), owned, invested=empire.invested, settings=settings
            )
            mine, spend = (), None
        units, rolls, last_ids = _new_units(state, empire, mine, outcome, catalogue, dice, spend)
        rearmed, units = _rearmed(state, player, mine, units)
        left = empire.ip - (_treasury_cost(spend, catalogue) if spend else 0)
        # 004 L267: "Industrial Points cannot be saved and any not used are lost".
        expired = left if settings.starting_ip == "expire" else 0
        left -= expired
        colony_states = tuple(
            _grown(state.colonies[result.colony], result, mine) for result in outcome.colonies
        )
        techs = tuple(sorted(outcome.owned))
        resolved = ProductionResolved(
            player=player,
            turn=state.turn,
            produced_ip=outcome.produced_ip,
            lost_ip=outcome.lost_ip,
            acquired=outcome.research.acquired,
            empire=msgspec.structs.replace(
                empire,
                techs=techs,
                speed=technology.ftl_speed(techs),
                last_ids=last_ids,
                ip=left,
                invested=dict(outcome.research.invested),
            ),
            colonies=colony_states,
            units=units,
            rolls=rolls,
            problems=tuple(notes + problems),
            rearmed=rearmed,
            treasury_lost=expired,
        )
        batch.append(
            NewEvent(event=resolved, audience=Audience.players_([player]), turn=state.turn)
        )
    return batch


def _still_standing(
    state: CampaignState,
    player: str,
    orders: tuple[ProductionOrder, ...],
    catalogue: Catalogue,
) -> tuple[tuple[ProductionOrder, ...], list[str]]:
    """Drop what the turn made impossible since the orders were checked, and say so: the
    orders of a colony lost, and fighters there is no longer room for (a carrier or tender
    counted on moved away or was lost); the rest of the production goes ahead."""
    kept: list[ProductionOrder] = []
    notes: list[str] = []
    room: dict[str, int] = {}
    decoy_room: dict[str, int] = {}
    for order in orders:
        colony = state.colonies.get(order.colony)
        if colony is None or colony.owner != player:
            notes.append(f"{order.colony} is no longer a colony of {player}: its orders lapsed")
            continue
        if order.fighters > 0:
            order = _fighters_that_fit(state, player, order, colony.hex, room, catalogue, notes)  # noqa: PLW2901 - cut to fit
        if order.decoys > 0:
            order = _decoys_that_fit(state, player, order, colony.hex, decoy_room, notes)  # noqa: PLW2901 - cut to fit
        kept.append(order)
    return tuple(kept), notes


def _taken(room: dict[str, int], hex_: str, now: Callable[[], int], built: int, wanted: int) -> int:
    """Return how much of `wanted` a hex still has room for, and take it from `room` (by hex,
    kept across the colonies of one hex): the room there `now` when the hex is first met,
    plus what this colony `built` that adds to it."""
    if hex_ not in room:
        room[hex_] = now()
    room[hex_] += built
    taken = min(wanted, room[hex_])
    room[hex_] -= taken
    return taken


def _warships_built_by(order: ProductionOrder) -> int:
    """Return the warships a colony's orders build (each can take a decoy drone)."""
    return sum(ship.count for ship in order.ships)


def _decoys_that_fit(
    state: CampaignState,
    player: str,
    order: ProductionOrder,
    hex_: str,
    room: dict[str, int],
    notes: list[str],
) -> ProductionOrder:
    """Cut a colony's decoy drones to the warships its hex has left to take them (`room`, by
    hex, kept up to date across the colonies of one hex) and note any cut."""
    bought = _taken(
        room,
        hex_,
        lambda: decoys.room_at(state, player, hex_),
        _warships_built_by(order),
        order.decoys,
    )
    if bought == order.decoys:
        return order
    notes.append(
        f"{order.colony}: {order.decoys - bought} of its {order.decoys} decoy drones were not "
        f"bought: only {bought} warships at {hex_} could take one by the production phase"
    )
    return msgspec.structs.replace(order, decoys=bought)


def _fighters_that_fit(
    state: CampaignState,
    player: str,
    order: ProductionOrder,
    hex_: str,
    room: dict[str, int],
    catalogue: Catalogue,
    notes: list[str],
) -> ProductionOrder:
    """Cut a colony's fighters to the room its hex has left (`room`, by hex, is kept up to
    date across the colonies of one hex) and note any cut."""
    bought = _taken(
        room,
        hex_,
        lambda: _room_at(state, player, hex_),
        _holds_built(order, catalogue),
        order.fighters,
    )
    if bought == order.fighters:
        return order
    notes.append(
        f"{order.colony}: {order.fighters - bought} of its {order.fighters} fighters were not "
        f"bought: its carriers and fleet tenders at {hex_} had room for only {bought} by the "
        "production phase"
    )
    return msgspec.structs.replace(order, fighters=bought)


def _lift_sieged(
    state: CampaignState,
    orders: tuple[ProductionOrder, ...],
    settings: production.ProductionSettings,
) -> tuple[tuple[ProductionOrder, ...], list[str]]:
    """Drop what a besieged colony may not build (004 L212-214): starships and scout troops,
    and colony transports unless the `besieged_may_emigrate` setting allows them. Its owner
    could not know of the siege when ordering, so the rest of his production goes ahead; the
    IP meant for them are simply not spent."""
    kept: list[ProductionOrder] = []
    notes: list[str] = []
    emigrate = settings.besieged_may_emigrate
    for order in orders:
        colony = state.colonies.get(order.colony)
        if colony is not None and _besieged(state, colony):
            transports = bool(order.colony_transports) and not emigrate
            if order.ships or order.scout_troops or transports or order.fighters or order.decoys:
                barred = "its starships, scout troops" + (
                    " and colony transports" if not emigrate else ""
                )
                notes.append(
                    f"{order.colony} is under siege (004 5.4): {barred} were not built"
                    + (", nor its fighters" if order.fighters else "")
                    + (", nor its decoy drones" if order.decoys else "")
                )
            lifted = msgspec.structs.replace(order, ships=(), scout_troops=0, fighters=0, decoys=0)
            if not emigrate:
                lifted = msgspec.structs.replace(lifted, colony_transports=0, emigrants=0)
            kept.append(lifted)
            continue
        kept.append(order)
    return tuple(kept), notes


def _grown(
    colony: Colony, result: production.ColonyProduction, orders: tuple[ProductionOrder, ...]
) -> Colony:
    order = next((o for o in orders if o.colony == colony.id), ProductionOrder(colony=colony.id))
    return msgspec.structs.replace(
        colony,
        population=result.population,
        factories=colony.factories + order.factories,
        robotic_factories=colony.robotic_factories + order.robotic_factories,
        pdus=colony.pdus + order.pdus,
        advanced_pdbs=colony.advanced_pdbs + order.advanced_pdbs,
        shield=colony.shield or result.planet_shield,
    )


def _new_units(
    state: CampaignState,
    empire: Empire,
    orders: tuple[ProductionOrder, ...],
    outcome: production.ProductionOutcome,
    catalogue: Catalogue,
    dice: DiceSource,
    treasury: TreasuryOrder | None = None,
) -> tuple[tuple[Unit, ...], tuple[Roll, ...], dict[str, int]]:
    player = empire.player
    last = dict(empire.last_ids)
    for unit in state.units.values():
        if unit.owner == player:
            tag = unit.id.rpartition("-")[2]
            if tag[1:].isdigit():
                last[tag[:1]] = max(last.get(tag[:1], 0), int(tag[1:]))

    def next_id(kind: UnitKind) -> str:
        letter = unit_id(player, kind, 0).rpartition("-")[2][:1]
        last[letter] = last.get(letter, 0) + 1
        return unit_id(player, kind, last[letter])

    units: list[Unit] = []
    rolls: list[Roll] = []

    def build(ships: tuple[ShipOrder, ...], where: str | None) -> None:
        """Starships appear where they were built (004 L268); `None`: at the entry."""
        for ship in ships:
            built = catalogue(ship.design)
            for _ in range(ship.count):
                uid = next_id("warship")
                key = DiceKey(turn=state.turn, phase="production", subject=f"{uid}.captain")
                level, roll = roll_captain(dice, key)  # 004 section 6
                rolls.append(roll)
                units.append(
                    Unit(
                        id=uid,
                        owner=player,
                        kind="warship",
                        hex=where,
                        design=built.design,
                        hull_class=built.hull_class,
                        points=built.points,
                        mass=built.mass,
                        ortillery=built.ortillery,
                        hold=built.fighter_stores,
                        captain=level,
                        rules=built.rules,
                        design_text=built.design_text,
                    )
                )

    results = {r.colony: r for r in outcome.colonies}
    for order in orders:
        colony = state.colonies[order.colony]
        emigration = results[order.colony].emigration
        if emigration.transports:
            units.append(
                Unit(
                    id=next_id("transports"),
                    owner=player,
                    kind="transports",
                    hex=colony.hex,
                    count=emigration.transports,  # 1 million colonists each
                    cet=emigration.cet,
                    # 004 L216-219: a conquered population stays one wherever it goes.
                    conquered_from=colony.conquered_from if emigration.conquered else None,
                )
            )
        for _ in range(order.scout_troops):
            units.append(
                Unit(
                    id=next_id("scout-troop"),
                    owner=player,
                    kind="scout-troop",
                    hex=colony.hex,
                    count=SCOUTS_PER_TROOP,
                )
            )
        build(order.ships, colony.hex)
    if treasury is not None:
        build(treasury.ships, None)  # bought with the starting IP: they enter at the entry
    return tuple(units), tuple(rolls), last


def decide_treasury(state: CampaignState, catalogue: Catalogue, dice: DiceSource) -> list[NewEvent]:
    """Spend the starting treasury outside a production phase, before anyone moves (004 L32:
    the 25 IP "can be spent on Technological Research or more ships"): research bought with
    it is owned at once, ships enter at the player's entry hex like the starting fleet.

    Orders checked at submission hold here (nothing they depend on changes before movement);
    one that no longer does spends nothing, with the reason.
    """
    if is_production_turn(state.turn):
        return []  # spent with the production phase (`decide_production`)
    batch = []
    settings = state.production_settings
    for player, spend in sorted(state.treasury_orders.items()):
        empire = state.empires[player]
        wanted = state.research.get(player, ())
        owned = frozenset(empire.techs)
        outcome, problems = technology.check_research(
            owned, spend.research, wanted, empire.invested, settings.research_pooling
        )
        problems += _treasury_problems(empire, spend, catalogue)
        if not treasury_open(state, empire):
            problems.append(f"the starting treasury cannot be spent on turn {state.turn}")
        if problems:
            lapsed = TreasurySpent(
                player=player, turn=state.turn, empire=empire, problems=tuple(problems)
            )
            batch.append(
                NewEvent(event=lapsed, audience=Audience.players_([player]), turn=state.turn)
            )
            continue
        empty = production.ProductionOutcome(
            turn=state.turn,
            colonies=(),
            research=outcome,
            owned=outcome.owned,
            produced_ip=0,
            lost_ip=outcome.lost,
        )
        units, rolls, last_ids = _new_units(state, empire, (), empty, catalogue, dice, spend)
        techs = tuple(sorted(outcome.owned))
        spent = TreasurySpent(
            player=player,
            turn=state.turn,
            empire=msgspec.structs.replace(
                empire,
                techs=techs,
                speed=technology.ftl_speed(techs),
                last_ids=last_ids,
                ip=empire.ip - _treasury_cost(spend, catalogue),
                invested=dict(outcome.invested),
            ),
            acquired=outcome.acquired,
            research_lost=outcome.lost,
            units=units,
            rolls=rolls,
        )
        batch.append(NewEvent(event=spent, audience=Audience.players_([player]), turn=state.turn))
    return batch


def with_treasury_research(
    state: CampaignState,
    player: str,
    treasury: TreasuryOrder | None,
    research: tuple[ResearchOrder, ...],
) -> CampaignState:
    """Return `state` with the technologies the player's treasury buys before this turn's
    moves (`decide_treasury`), so that his moves are checked at the speed he will have. A
    look-ahead for checking orders; unchanged when the spending would not hold."""
    empire = state.empires.get(player)
    if treasury is None or empire is None or is_production_turn(state.turn):
        return state
    if not research or not treasury_open(state, empire):
        return state
    outcome, problems = technology.check_research(
        frozenset(empire.techs),
        treasury.research,
        research,
        empire.invested,
        state.production_settings.research_pooling,
    )
    if problems:
        return state
    techs = tuple(sorted(outcome.owned))
    ahead = msgspec.structs.replace(empire, techs=techs, speed=technology.ftl_speed(techs))
    return msgspec.structs.replace(state, empires={**state.empires, player: ahead})
