"""The production phase (004 5.7): growth, industrial output, emigration and spending.

Production comes at the end of every fourth turn (004 L65, L235) and runs in the order of
004 L238-242: population growth, industrial output, colony transports for emigration, then
spending on equipment and research. Everything here is pure: the turn engine passes each
colony's figures (`Colony`), the owner's orders (`ColonyOrders`, `ResearchOrder`) and the
empire's technology, and gets back what every colony produced, built and lost.

>>> sol = Colony(name="Sol-3", planet_type="terran", population=17, capacity=40, factories=2)
>>> out = produce(sol, turn=4)
>>> out.growth, out.population, out.industrial_points
(3, 20, 22)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from campaign.errors import IllegalCommandError
from campaign.rules.technology import (
    FactoryAllowance,
    ResearchOrder,
    ResearchOutcome,
    ResearchPooling,
    TechName,
    check_research,
    factory_allowance,
    has_cet,
)

PlanetType = Literal["terran", "sub-terran", "minimal-terran", "barren"]
PLANET_TYPES: tuple[PlanetType, ...] = ("terran", "sub-terran", "minimal-terran", "barren")

PRODUCTION_INTERVAL = 4  # 004 L65, L235: "At the end of every fourth turn"
GROWTH_DIVISOR: Mapping[PlanetType, int | None] = {
    "terran": 5,  # 004 L244: 1M gained for every 5M present
    "sub-terran": 10,  # 004 L245: 1M gained for every 10M present
    "minimal-terran": None,  # 004 L246: no increase
    "barren": None,  # 004 L246: no increase
}
BONUS_LIMIT_BASE = 3  # 004 L259-260: bonus limit = population growth + 3M
EMIGRANTS_PER_BONUS = 3  # 004 L261: 1M bonus for every 3M placed in colony transports
FT_POINTS_PER_IP = 63  # 004 L23, L277: 1 Industrial Point = 63 Full Thrust points
SCOUTS_PER_TROOP = 9  # 004 L27: a bought Scout Troop is a troop of 9 scouts, as at set-up

Purchase = Literal[
    "colony_transports",
    "factories",
    "scout_troops",
    "robotic_factories",
    "pdus",
    "advanced_pdbs",
    "planet_shields",
]
PRICES: Mapping[Purchase, int] = {
    "colony_transports": 1,  # 004 L270 (and L255: 1 IP per 1M emigrating)
    "factories": 4,  # 004 L271
    "scout_troops": 3,  # 004 L272
    "robotic_factories": 3,  # 004 L273
    "pdus": 4,  # 004 L274 "Planetary Defense Unit"
    "advanced_pdbs": 10,  # 004 L275 "Advanced Planetary Defense Base"
    "planet_shields": 30,  # 004 L276
}  # starships: 004 L277, FT_POINTS_PER_IP; research: 1 IP per IP, pooled (004 L266)
NOUNS: Mapping[str, tuple[str, str]] = {
    "colony_transports": ("colony transport", "colony transports"),
    "factories": ("factory", "factories"),
    "scout_troops": ("scout troop", "scout troops"),
    "robotic_factories": ("robotic factory", "robotic factories"),
    "pdus": ("planetary defence unit", "planetary defence units"),
    "advanced_pdbs": ("advanced planetary defence base", "advanced planetary defence bases"),
    "planet_shields": ("planet shield", "planet shields"),
}
REQUIRED_TECH: Mapping[Purchase, tuple[TechName, str]] = {
    "robotic_factories": ("robotic-industry", "Robotic Industry (004 5.7.7)"),
    "pdus": ("pdu", "the Planetary Defence Unit technology (004 5.7.7)"),
    "advanced_pdbs": ("advanced-pdu", "the Advanced Planetary Defence Unit technology (004 5.7.7)"),
    "planet_shields": ("planet-shield", "the Planet Shield technology (004 5.7.7)"),
}


ORDER_COUNTS = (
    "colony_transports",
    "emigrants",
    "factories",
    "robotic_factories",
    "scout_troops",
    "pdus",
    "advanced_pdbs",
    "planet_shields",
    "starship_points",
    "research",
)


StartingIp = Literal["expire", "keep"]
STARTING_IP_CHOICES: tuple[StartingIp, ...] = ("expire", "keep")


class ProductionSettings(msgspec.Struct, frozen=True):
    """Campaign settings for the production rules where reasonable umpires differ.

    - `research_pooling`: see `campaign.rules.technology.ResearchPooling` (default "phase").
    - `besieged_may_emigrate`: whether a besieged colony may build colony transports
      (default False: 004 L212-214 lists what it may still build, and transports are not in it).
    - `idle_factories_over_limit`: whether factories above the owner's technology limit for
      the present population stand idle (default False: the limit governs building only).
    - `starting_ip`: the 25 starting IP (004 L32): "expire" (the default), spent from set-up on
      and lost at the first production phase like any unspent IP (004 L267); "keep", kept
      until spent (section 3 gives them without a time).
    """

    research_pooling: ResearchPooling = "phase"
    besieged_may_emigrate: bool = False
    idle_factories_over_limit: bool = False
    starting_ip: StartingIp = "expire"


DEFAULT_SETTINGS = ProductionSettings()
# What a campaign stored before these settings were recorded plays by.
LEGACY_SETTINGS = ProductionSettings(starting_ip="keep")


class Colony(msgspec.Struct, frozen=True):
    """A colony as production sees it; populations and capacities in millions.

    `conquered` marks a conquered population (004 L217-218: it does not increase), whether on
    the conquered planet itself or on a colony it founded; `conquered_on_turn` is the turn this
    colony was taken (004 L215: no IP for the first production phase after it).
    """

    name: str
    planet_type: PlanetType
    population: int
    capacity: int
    factories: int = 0
    mineral_rich: bool = False
    conquered: bool = False
    conquered_on_turn: int | None = None
    besieged: bool = False
    planet_shield: bool = False


class ColonyOutput(msgspec.Struct, frozen=True):
    """Growth and industrial output of one colony in one production phase (004 5.7.1-5.7.2).

    `population` is after growth, capped by capacity; `excess` is the growth over capacity,
    which must emigrate this phase or is lost (004 L247-248).
    """

    colony: str
    growth: int
    population: int
    excess: int
    working_factories: int
    industrial_points: int
    note: str = ""


class ColonyOrders(msgspec.Struct, frozen=True):
    """What one colony's owner buys with its IP in a production phase (004 5.7.3-5.7.5).

    `emigrants` are millions of the colony's own population (growth and excess included) put
    in colony transports; every transport carries 1M, and transports beyond `emigrants` carry
    emigration bonus colonists. `starship_points` are the Full Thrust points of the starships
    built here. `research` is the IP the colony adds to the empire's research pool.
    """

    colony: str
    colony_transports: int = 0
    emigrants: int = 0
    factories: int = 0
    robotic_factories: int = 0
    scout_troops: int = 0
    pdus: int = 0
    advanced_pdbs: int = 0
    planet_shields: int = 0
    starship_points: int = 0
    research: int = 0


class Emigration(msgspec.Struct, frozen=True):
    """Colony transports filled at a colony (004 5.7.3).

    `cet`: the transports were built with Controlled Environment Technology and may settle
    barren planets (004 L228-230). `conquered`: they carry a conquered population, which may not
    be mixed with free ones (004 L216-217).
    """

    transports: int
    colonists: int
    bonus: int
    bonus_available: int
    bonus_lost: int
    cet: bool
    conquered: bool


class ColonyProduction(msgspec.Struct, frozen=True):
    """Everything one colony did in a production phase."""

    output: ColonyOutput
    orders: ColonyOrders
    emigration: Emigration
    cost: int
    research: int
    lost_ip: int
    population: int
    excess_lost: int
    factories: int
    planet_shield: bool

    @property
    def colony(self) -> str:
        """The colony's name."""
        return self.output.colony


class ProductionOutcome(msgspec.Struct, frozen=True):
    """A whole empire's production phase: colonies, research and the IP that were lost."""

    turn: int
    colonies: tuple[ColonyProduction, ...]
    research: ResearchOutcome
    owned: frozenset[TechName]
    produced_ip: int
    lost_ip: int


class ProductionOrderError(IllegalCommandError):
    """Production orders that break 004 5.7; `problems` lists every one of them."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            f"{len(self.problems)} problem(s) in the production orders: " + "; ".join(self.problems)
        )


def _count(field: str, n: int) -> str:
    """Say `n` of the item `field` names in words: "1 factory needs", "3 factories need"."""
    singular, plural = NOUNS[field]
    return f"1 {singular} needs" if n == 1 else f"{n} {plural} need"


def is_production_turn(turn: int) -> bool:
    """Return whether a production phase follows turn `turn` (004 L65, L235).

    >>> [t for t in range(1, 13) if is_production_turn(t)]
    [4, 8, 12]
    """
    return turn >= 1 and turn % PRODUCTION_INTERVAL == 0


def first_production_after(turn: int) -> int:
    """Return the production turn of the first production phase at or after turn `turn`.

    A colony conquered in turn 8 meets its first production phase at the end of turn 8.

    >>> first_production_after(5), first_production_after(8)
    (8, 8)
    """
    turn = max(turn, 1)
    return -(-turn // PRODUCTION_INTERVAL) * PRODUCTION_INTERVAL


def population_growth(planet_type: PlanetType, population: int, *, conquered: bool = False) -> int:
    """Return the millions gained in a production phase, before the capacity cap (004 5.7.1).

    Growth counts whole multiples: 1M per complete 5M on a terran planet, per complete 10M on
    a sub-terran one, none on minimal-terran or barren planets or for conquered populations.
    """
    divisor = GROWTH_DIVISOR[planet_type]
    if conquered or divisor is None or population <= 0:
        return 0
    return population // divisor


def produce(
    colony: Colony,
    turn: int,
    owned: frozenset[TechName] = frozenset(),
    settings: ProductionSettings = DEFAULT_SETTINGS,
) -> ColonyOutput:
    """Grow a colony and count its Industrial Points for the production phase of `turn`.

    Output is 1 IP per 1M of the population after growth and capping, plus 1 per factory,
    doubled on a mineral-rich planet (004 5.7.2); nothing at all in the first production phase
    after the colony was conquered (004 L215-216). The excess over capacity produces nothing.
    `owned` matters only with `settings.idle_factories_over_limit`.
    """
    growth = population_growth(colony.planet_type, colony.population, conquered=colony.conquered)
    gross = colony.population + growth
    population = min(gross, colony.capacity)
    excess = max(0, gross - colony.capacity)
    working = colony.factories
    if settings.idle_factories_over_limit:
        limit = factory_allowance(owned).limit(population)
        if limit is not None:
            working = min(working, limit)
    if (
        colony.conquered_on_turn is not None
        and first_production_after(colony.conquered_on_turn) == turn
    ):
        return ColonyOutput(
            colony=colony.name,
            growth=growth,
            population=population,
            excess=excess,
            working_factories=working,
            industrial_points=0,
            note=f"conquered in turn {colony.conquered_on_turn}: no IP in the first production "
            "phase after conquest (004 5.4)",
        )
    points = population + working
    if colony.mineral_rich:
        points *= 2
    return ColonyOutput(
        colony=colony.name,
        growth=growth,
        population=population,
        excess=excess,
        working_factories=working,
        industrial_points=points,
    )


def bonus_limit(growth: int) -> int:
    """Return a colony's emigration bonus limit: its growth plus 3M (004 L259-260)."""
    return growth + BONUS_LIMIT_BASE


def emigration_bonus(emigrants: int, growth: int, *, conquered: bool = False) -> int:
    """Return the bonus colonists `emigrants` million leaving a colony generate (004 L257-262).

    1M per complete 3M placed in colony transports, at most the bonus limit. A conquered
    population gets no bonus (004 L218: conquered populations do not increase).
    """
    if conquered or emigrants <= 0:
        return 0
    return min(emigrants // EMIGRANTS_PER_BONUS, bonus_limit(growth))


def starship_cost(points: int) -> int:
    """Return the IP that `points` Full Thrust points of starships cost: 63 per IP, rounded up."""
    return -(-points // FT_POINTS_PER_IP) if points > 0 else 0


def colony_cost(orders: ColonyOrders) -> int:
    """Return the IP a colony's orders cost, research contribution included (004 5.7.5)."""
    items: int = sum(PRICES[item] * int(getattr(orders, item)) for item in PRICES)
    return items + starship_cost(orders.starship_points) + orders.research


def check_colony_orders(
    colony: Colony,
    output: ColonyOutput,
    orders: ColonyOrders,
    techs: frozenset[TechName],
    settings: ProductionSettings = DEFAULT_SETTINGS,
) -> tuple[ColonyProduction | None, list[str]]:
    """Check one colony's orders against 004 5.4 and 5.7.3-5.7.7; return the result or problems.

    `techs` are the technologies the empire owns for this phase's purchases, those its
    research buys this phase included (see rulings).
    """
    where = f"colony {colony.name!r}"
    problems: list[str] = []
    counts: dict[str, int] = {field: getattr(orders, field) for field in ORDER_COUNTS}
    for field, value in counts.items():
        if value < 0:
            problems.append(f"{where}: {field} is {value}, which is negative")
    if problems:
        return None, problems

    # Emigration (004 5.7.3): emigrants come from the excess first, then the population.
    available = output.population + output.excess
    if orders.emigrants > available:
        problems.append(
            f"{where}: {orders.emigrants}M emigrants but only {available}M live there after "
            "growth (004 5.7.3)"
        )
    if orders.colony_transports < orders.emigrants:
        problems.append(
            f"{where}: {orders.emigrants}M emigrants need {orders.emigrants} colony transports, "
            f"not {orders.colony_transports} (1 per 1M, 004 5.7.3)"
        )
    bonus_available = emigration_bonus(
        min(orders.emigrants, available), output.growth, conquered=colony.conquered
    )
    bonus = max(0, orders.colony_transports - orders.emigrants)
    if bonus > bonus_available:
        problems.append(
            f"{where}: {orders.colony_transports} colony transports for {orders.emigrants}M "
            f"emigrants leave {bonus} for bonus colonists but the emigration earns only "
            f"{bonus_available}M (1M per 3M emigrating, at most growth + 3M, 004 5.7.3)"
        )
    if colony.besieged and orders.colony_transports and not settings.besieged_may_emigrate:
        problems.append(
            f"{where}: a besieged colony may not build colony transports "
            "(setting besieged_may_emigrate, 004 5.4)"
        )

    # Starships (004 5.4: not while besieged).
    if colony.besieged:
        for field, noun in (("scout_troops", "scout troops"), ("starship_points", "starships")):
            if counts[field]:
                problems.append(f"{where}: a besieged colony may not build {noun} (004 5.4)")

    # Technology (004 5.7.7).
    allowance: FactoryAllowance = factory_allowance(techs)
    if orders.factories and allowance.tech is None:
        problems.append(
            f"{where}: {_count('factories', orders.factories)} Industrial Technology (004 5.7.7)"
        )
    for field, (tech, title) in REQUIRED_TECH.items():
        if counts[field] and tech not in techs:
            problems.append(f"{where}: {_count(field, counts[field])} {title}")
    staying = output.population - max(0, min(orders.emigrants, available) - output.excess)
    new_factories = orders.factories + orders.robotic_factories
    limit = allowance.limit(staying)
    total = colony.factories + new_factories
    if new_factories and allowance.tech is not None and limit is not None and total > limit:
        standing = (
            f" ({colony.factories} standing, {new_factories} new)" if colony.factories else ""
        )
        problems.append(
            f"{where}: {total} factories{standing} exceed the limit of {limit} for "
            f"{staying}M ({allowance.describe()})"
        )
    if orders.planet_shields > 1 or (orders.planet_shields and colony.planet_shield):
        already = " and it has one already" if colony.planet_shield else ""
        problems.append(
            f"{where}: {orders.planet_shields} planet shield(s) ordered but a planet takes "
            f"only one{already}"
        )

    # Money (004 5.7.4).
    cost = colony_cost(orders)
    if cost > output.industrial_points:
        problems.append(
            f"{where}: orders cost {cost} IP but the colony produced "
            f"{output.industrial_points} IP (004 5.7.4)"
        )
    if problems:
        return None, problems

    colonists = orders.emigrants
    from_excess = min(colonists, output.excess)
    emigration = Emigration(
        transports=orders.colony_transports,
        colonists=colonists,
        bonus=bonus,
        bonus_available=bonus_available,
        bonus_lost=bonus_available - bonus,
        cet=has_cet(techs),
        conquered=colony.conquered,
    )
    return (
        ColonyProduction(
            output=output,
            orders=orders,
            emigration=emigration,
            cost=cost,
            research=orders.research,
            lost_ip=output.industrial_points - cost,
            population=staying,
            excess_lost=output.excess - from_excess,
            factories=total,
            planet_shield=colony.planet_shield or orders.planet_shields > 0,
        ),
        [],
    )


def resolve_production(
    turn: int,
    colonies: Sequence[Colony],
    orders: Sequence[ColonyOrders],
    research_orders: Sequence[ResearchOrder] = (),
    owned: frozenset[TechName] = frozenset(),
    invested: Mapping[TechName, int] | None = None,
    settings: ProductionSettings = DEFAULT_SETTINGS,
    treasury_research: int = 0,
) -> ProductionOutcome:
    """Run one empire's production phase after turn `turn` (004 5.7).

    `treasury_research` adds IP from the empire's starting treasury (004 section 3) to the
    research pool.

    Colonies grow and produce; the research IP they contribute are pooled and spent on
    `research_orders` first, so that a technology bought now counts for this phase's purchases
    (004 L229: transports "built at the same time" as C.E.T. have it); then each colony's
    orders are checked and carried out. A colony without orders spends nothing. Unspent IP are
    lost and reported (004 L267).

    Raises:
        ProductionOrderError: listing every problem in every colony's and the research orders.
    """
    problems: list[str] = []
    if not is_production_turn(turn):
        problems.append(f"turn {turn} is not followed by a production phase (004 5.7)")
    names = [c.name for c in colonies]
    if len(set(names)) != len(names):
        problems.append(f"colonies are named twice: {', '.join(sorted(names))}")
    by_colony: dict[str, ColonyOrders] = {}
    for order in orders:
        if order.colony not in names:
            problems.append(
                f"colony {order.colony!r}: no such colony of this empire "
                f"(its colonies: {', '.join(sorted(names)) or 'none'})"
            )
        elif order.colony in by_colony:
            problems.append(f"colony {order.colony!r}: has two sets of orders")
        else:
            by_colony[order.colony] = order

    pool = sum(max(0, o.research) for o in by_colony.values()) + max(0, treasury_research)
    research, research_issues = check_research(
        owned, pool, research_orders, invested, settings.research_pooling
    )
    problems.extend(research_issues)
    techs = research.owned

    results: list[ColonyProduction] = []
    for colony in colonies:
        output = produce(colony, turn, owned, settings)
        order = by_colony.get(colony.name, ColonyOrders(colony=colony.name))
        result, issues = check_colony_orders(colony, output, order, techs, settings)
        problems.extend(issues)
        if result is not None:
            results.append(result)
    if problems:
        raise ProductionOrderError(problems)
    produced = sum(r.output.industrial_points for r in results)
    return ProductionOutcome(
        turn=turn,
        colonies=tuple(results),
        research=research,
        owned=research.owned,
        produced_ip=produced,
        lost_ip=sum(r.lost_ip for r in results) + research.lost,
    )
