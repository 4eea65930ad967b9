"""The production phase (004 5.7.1-5.7.5, with 5.4 on conquest and sieges)."""

from __future__ import annotations

import doctest
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import campaign.rules.production
from campaign.rules.production import (
    PLANET_TYPES,
    PRICES,
    Colony,
    ColonyOrders,
    PlanetType,
    ProductionOrderError,
    ProductionOutcome,
    ProductionSettings,
    bonus_limit,
    check_colony_orders,
    colony_cost,
    emigration_bonus,
    first_production_after,
    is_production_turn,
    population_growth,
    produce,
    resolve_production,
    starship_cost,
)
from campaign.rules.technology import TECHNOLOGIES, ResearchOrder, TechName, factory_allowance

INDUSTRIAL: frozenset[TechName] = frozenset({"industrial"})


def terran(name: str, population: int, capacity: int = 60, **fields: Any) -> Colony:
    return colony_on(name, "terran", population, capacity, **fields)


def colony_on(
    name: str, planet_type: PlanetType, population: int, capacity: int, **fields: Any
) -> Colony:
    return Colony(
        name=name, planet_type=planet_type, population=population, capacity=capacity, **fields
    )


def problems_of(excinfo: pytest.ExceptionInfo[ProductionOrderError]) -> tuple[str, ...]:
    return excinfo.value.problems


def test_doctests() -> None:
    result = doctest.testmod(campaign.rules.production)
    assert result.attempted > 0
    assert result.failed == 0


# ---------------------------------------------------------------- when (004 5.7)


def test_production_after_every_fourth_turn() -> None:
    # 004 L65, L235: production phases follow turns 4, 8, ..., 44.
    assert [t for t in range(0, 45) if is_production_turn(t)] == list(range(4, 45, 4))


def test_a_production_turn_is_required() -> None:
    with pytest.raises(ProductionOrderError, match="turn 5 is not followed by a production"):
        resolve_production(5, [terran("Sol-3", 10)], [])


# ---------------------------------------------------------------- 5.7.1 population growth


def test_terran_colony_of_17m_grows_by_3m() -> None:
    # 004 5.7.1: 1M for every 5M on a terran planet, whole multiples only (17 = 3 x 5 + 2).
    assert population_growth("terran", 17) == 3
    out = produce(terran("Sol-3", 17, capacity=40), turn=4)
    assert (out.growth, out.population, out.excess) == (3, 20, 0)


def test_small_terran_colony_does_not_grow() -> None:
    # 004 5.7.1: 4M is not a full 5M.
    assert population_growth("terran", 4) == 0


def test_sub_terran_colony_of_25m_grows_by_2m() -> None:
    # 004 5.7.1: 1M for every 10M on a sub-terran planet.
    assert population_growth("sub-terran", 25) == 2
    assert population_growth("sub-terran", 9) == 0


@pytest.mark.parametrize("planet_type", ["minimal-terran", "barren"])
def test_minimal_terran_and_barren_do_not_grow(planet_type: PlanetType) -> None:
    # 004 5.7.1: no population increase on minimal-terran or barren planets.
    out = produce(colony_on("Rock", planet_type, 12, 20), turn=4)
    assert out.growth == 0
    assert out.population == 12


def test_growth_is_capped_by_capacity_and_the_excess_reported() -> None:
    # 004 5.7.1: 18M on a terran planet of capacity 20 gain 3M; 1M is over capacity and must
    # emigrate or be lost.
    out = produce(terran("Sol-3", 18, capacity=20), turn=4)
    assert (out.growth, out.population, out.excess) == (3, 20, 1)


def test_conquered_populations_do_not_grow() -> None:
    # 004 5.4 (L218): conquered populations do not increase.
    out = produce(terran("Vega-2", 20, conquered=True), turn=8)
    assert out.growth == 0
    assert out.population == 20


def test_unordered_excess_is_lost() -> None:
    # 004 L247-248: the excess not emigrated is lost.
    outcome = resolve_production(4, [terran("Sol-3", 20, capacity=20)], [])
    (sol,) = outcome.colonies
    assert (sol.population, sol.excess_lost) == (20, 4)


# ---------------------------------------------------------------- 5.7.2 industrial output


def test_output_counts_population_with_growth_and_factories() -> None:
    # 004 5.7.2: 17M + 3M growth = 20 IP, plus 2 factories = 22 IP.
    out = produce(terran("Sol-3", 17, capacity=40, factories=2), turn=4)
    assert out.industrial_points == 22


def test_mineral_rich_planet_doubles_the_total() -> None:
    # 004 5.7.2: a sub-terran 10M grows 1M; (11 + 3 factories) x 2 = 28 IP.
    colony = colony_on("Ore", "sub-terran", 10, 20, factories=3, mineral_rich=True)
    assert produce(colony, turn=4).industrial_points == 28


def test_excess_over_capacity_produces_nothing() -> None:
    # Ruling: 20M at capacity 20 gain 4M that are not part of the colony: 20 IP, not 24.
    assert produce(terran("Sol-3", 20, capacity=20), turn=4).industrial_points == 20


def test_no_ip_in_the_first_production_after_conquest() -> None:
    # 004 5.4 (L215-216): conquered in turn 6, nothing at the end of turn 8; IP again after 12.
    colony = terran("Vega-2", 10, conquered=True, conquered_on_turn=6, factories=2)
    first = produce(colony, turn=8)
    assert first.industrial_points == 0
    assert "first production phase after conquest" in first.note
    assert produce(colony, turn=12).industrial_points == 12


def test_conquest_in_a_production_turn_skips_that_phase() -> None:
    # Ruling: a colony conquered in turn 8 meets its first production at the end of turn 8.
    assert first_production_after(8) == 8
    colony = terran("Vega-2", 10, conquered=True, conquered_on_turn=8)
    assert produce(colony, turn=8).industrial_points == 0
    assert produce(colony, turn=12).industrial_points == 10


def test_factories_over_the_limit_idle_only_with_the_setting() -> None:
    # Setting idle_factories_over_limit: 5 factories on 2M with Industrial Technology, 2 work.
    colony = colony_on("Old", "minimal-terran", 2, 5, factories=5)
    assert produce(colony, turn=4, owned=INDUSTRIAL).industrial_points == 7
    idle = ProductionSettings(idle_factories_over_limit=True)
    out = produce(colony, turn=4, owned=INDUSTRIAL, settings=idle)
    assert (out.working_factories, out.industrial_points) == (2, 4)


# ---------------------------------------------------------------- 5.7.3 emigration


def test_emigration_bonus_one_per_three() -> None:
    # 004 5.7.3: a terran 30M grows 6M (bonus limit 9M); 12M emigrating earn 4M bonus, which
    # need 4 more transports: 16 transports, 16 IP.
    assert bonus_limit(6) == 9
    assert emigration_bonus(12, growth=6) == 4
    outcome = resolve_production(
        4,
        [terran("Sol-3", 30)],
        [ColonyOrders(colony="Sol-3", colony_transports=16, emigrants=12)],
    )
    (sol,) = outcome.colonies
    assert sol.emigration.transports == 16
    assert (sol.emigration.colonists, sol.emigration.bonus) == (12, 4)
    assert sol.cost == 16
    assert sol.population == 36 - 12
    assert sol.lost_ip == 36 - 16


def test_emigration_bonus_stops_at_the_bonus_limit() -> None:
    # 004 L259-262: a minimal-terran colony does not grow, so its bonus limit is 3M; 12M
    # emigrating earn 4 x 1M but only 3M.
    assert emigration_bonus(12, growth=0) == 3


def test_bonus_colonists_need_transports_or_are_lost() -> None:
    # 004 L257-258: bonus colonists "must be emigrated to be retained".
    outcome = resolve_production(
        4, [terran("Sol-3", 30)], [ColonyOrders(colony="Sol-3", colony_transports=12, emigrants=12)]
    )
    (sol,) = outcome.colonies
    assert (sol.emigration.bonus, sol.emigration.bonus_lost) == (0, 4)


def test_bonus_transports_cannot_exceed_the_bonus() -> None:
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(
            4,
            [terran("Sol-3", 30)],
            [ColonyOrders(colony="Sol-3", colony_transports=17, emigrants=12)],
        )
    assert problems_of(caught) == (
        "colony 'Sol-3': 17 colony transports for 12M emigrants leave 5 for bonus colonists "
        "but the emigration earns only 4M (1M per 3M emigrating, at most growth + 3M, "
        "004 5.7.3)",
    )


def test_each_million_emigrating_needs_a_transport() -> None:
    # 004 L255-256: one colony transport, 1 IP, per 1M moved.
    with pytest.raises(ProductionOrderError, match="6M emigrants need 6 colony transports, not 4"):
        resolve_production(
            4,
            [terran("Sol-3", 30)],
            [ColonyOrders(colony="Sol-3", colony_transports=4, emigrants=6)],
        )


def test_cannot_emigrate_more_than_live_there() -> None:
    with pytest.raises(ProductionOrderError, match="12M emigrants but only 10M live there"):
        resolve_production(
            4,
            [colony_on("Rock", "minimal-terran", 10, 10)],
            [ColonyOrders(colony="Rock", colony_transports=12, emigrants=12)],
        )


def test_emigrants_come_from_the_excess_first() -> None:
    # 004 L247-248, L254: 20M at capacity 20 grow 4M over capacity; 6M emigrate, the excess
    # first, so 18M stay and nothing is lost. Bonus 2M (6 / 3), limit 4 + 3.
    outcome = resolve_production(
        4,
        [terran("Sol-3", 20, capacity=20)],
        [ColonyOrders(colony="Sol-3", colony_transports=8, emigrants=6)],
    )
    (sol,) = outcome.colonies
    assert (sol.population, sol.excess_lost, sol.emigration.bonus) == (18, 0, 2)


def test_a_colony_may_emigrate_entirely() -> None:
    # 004 L254: "Any or all" of a population may be moved.
    outcome = resolve_production(
        4,
        [colony_on("Rock", "minimal-terran", 6, 10)],
        [ColonyOrders(colony="Rock", colony_transports=6, emigrants=6)],
    )
    assert outcome.colonies[0].population == 0


def test_conquered_emigrants_earn_no_bonus_and_are_marked() -> None:
    # Ruling on 004 L217-218: conquered populations do not increase, so no bonus; their
    # transports are marked so they are never mixed with free colonists.
    assert emigration_bonus(9, growth=0, conquered=True) == 0
    outcome = resolve_production(
        8,
        [terran("Vega-2", 10, conquered=True, conquered_on_turn=1)],
        [ColonyOrders(colony="Vega-2", colony_transports=9, emigrants=9)],
    )
    emigration = outcome.colonies[0].emigration
    assert emigration.conquered
    assert emigration.bonus_available == 0


def test_transports_built_with_cet_bought_the_same_phase() -> None:
    # 004 L228-230: transports built "at the same time" as C.E.T. have it.
    outcome = resolve_production(
        4,
        [terran("Sol-3", 30)],
        [ColonyOrders(colony="Sol-3", colony_transports=3, emigrants=3, research=25)],
        [ResearchOrder("cet")],
    )
    assert outcome.colonies[0].emigration.cet
    assert outcome.owned == frozenset({"cet"})
    before = resolve_production(
        4, [terran("Sol-3", 30)], [ColonyOrders(colony="Sol-3", colony_transports=3, emigrants=3)]
    )
    assert not before.colonies[0].emigration.cet


# ---------------------------------------------------------------- 5.7.4 expenditures


def test_unspent_ip_are_lost_and_reported() -> None:
    # 004 L267: a terran 10M grows 2M and makes 12 IP; 1 factory (4) leaves 8 lost.
    outcome = resolve_production(
        4, [terran("Sol-3", 10)], [ColonyOrders(colony="Sol-3", factories=1)], owned=INDUSTRIAL
    )
    (sol,) = outcome.colonies
    assert (sol.cost, sol.lost_ip, sol.factories) == (4, 8, 1)
    assert outcome.produced_ip == 12
    assert outcome.lost_ip == 8


def test_a_colony_may_spend_exactly_its_output_but_not_one_ip_more() -> None:
    # 004 5.7.4: a terran 10M makes 12 IP: 3 factories (12) are fine, 12 IP and a transport
    # of emigrants (13) are not.
    colony = terran("Sol-3", 10)
    exact = resolve_production(
        4, [colony], [ColonyOrders(colony="Sol-3", factories=3)], owned=INDUSTRIAL
    )
    assert exact.colonies[0].lost_ip == 0
    with pytest.raises(ProductionOrderError, match="orders cost 13 IP but the colony produced 12"):
        resolve_production(
            4,
            [colony],
            [ColonyOrders(colony="Sol-3", factories=3, colony_transports=1, emigrants=1)],
            owned=INDUSTRIAL,
        )


def test_research_is_pooled_across_colonies() -> None:
    # 004 L266: 10 IP from one colony and 15 from another buy a 25 IP technology.
    outcome = resolve_production(
        4,
        [terran("Sol-3", 10), terran("Sol-4", 15)],
        [ColonyOrders(colony="Sol-3", research=10), ColonyOrders(colony="Sol-4", research=15)],
        [ResearchOrder("pdu")],
    )
    assert outcome.research.pool == 25
    assert outcome.research.acquired == ("pdu",)
    assert outcome.owned == frozenset({"pdu"})
    assert outcome.lost_ip == (12 - 10) + (18 - 15)


def test_only_research_pools() -> None:
    # 004 L266: a colony's equipment is paid from its own IP, whatever its neighbours have.
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(
            4,
            [colony_on("Poor", "minimal-terran", 5, 10), terran("Rich", 40)],
            [ColonyOrders(colony="Poor", pdus=2)],
            owned=frozenset({"pdu"}),
        )
    assert problems_of(caught) == (
        "colony 'Poor': orders cost 8 IP but the colony produced 5 IP (004 5.7.4)",
    )


def test_research_short_of_the_price_is_refused() -> None:
    # Ruling (research_pooling="phase"): a technology is paid in full in one phase.
    with pytest.raises(ProductionOrderError, match="orders spend 25 IP but the colonies pooled"):
        resolve_production(
            4,
            [terran("Sol-3", 10)],
            [ColonyOrders(colony="Sol-3", research=12)],
            [ResearchOrder("pdu")],
        )


def test_accumulated_research_setting() -> None:
    settings = ProductionSettings(research_pooling="accumulate")
    outcome = resolve_production(
        4,
        [terran("Sol-3", 10)],
        [ColonyOrders(colony="Sol-3", research=12)],
        [ResearchOrder("pdu", ip=12)],
        settings=settings,
    )
    assert outcome.research.invested == {"pdu": 12}
    assert outcome.owned == frozenset()


# ---------------------------------------------------------------- 5.7.5 prices


def test_price_schedule() -> None:
    # 004 L270-276.
    assert PRICES == {
        "colony_transports": 1,
        "factories": 4,
        "scout_troops": 3,
        "robotic_factories": 3,
        "pdus": 4,
        "advanced_pdbs": 10,
        "planet_shields": 30,
    }


def test_starships_cost_one_ip_per_63_points() -> None:
    # 004 L277: 126 FT points are 2 IP; 127 need a third.
    assert starship_cost(126) == 2
    assert starship_cost(127) == 3
    assert starship_cost(0) == 0


def test_a_full_order_is_priced_item_by_item() -> None:
    orders = ColonyOrders(
        colony="Sol-3",
        colony_transports=2,
        emigrants=2,
        factories=1,
        robotic_factories=1,
        scout_troops=1,
        pdus=1,
        advanced_pdbs=1,
        planet_shields=1,
        starship_points=63,
        research=5,
    )
    assert colony_cost(orders) == 2 + 4 + 3 + 3 + 4 + 10 + 30 + 1 + 5


def test_a_full_order_is_accepted_with_the_technology() -> None:
    everything = frozenset(TECHNOLOGIES)
    orders = ColonyOrders(
        colony="Sol-3",
        factories=1,
        robotic_factories=1,
        scout_troops=1,
        pdus=1,
        advanced_pdbs=1,
        planet_shields=1,
        starship_points=630,
    )
    outcome = resolve_production(4, [terran("Sol-3", 55, capacity=80)], [orders], owned=everything)
    (sol,) = outcome.colonies
    assert sol.cost == 4 + 3 + 3 + 4 + 10 + 30 + 10
    assert sol.lost_ip == 66 - sol.cost
    assert sol.planet_shield
    assert sol.factories == 2


# ---------------------------------------------------------------- 5.7.7 factories and defences


def test_factory_limit_with_industrial_technology() -> None:
    # 004 5.7.7: one factory per 1M with Industrial Technology.
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(
            4,
            [colony_on("Sol-3", "minimal-terran", 2, 10)],
            [ColonyOrders(colony="Sol-3", factories=3)],
            owned=INDUSTRIAL,
        )
    assert problems_of(caught) == (
        "colony 'Sol-3': 3 factories exceed the limit of 2 for 2M "
        "(1 per 1M with Industrial Technology, 004 5.7.7)",
        "colony 'Sol-3': orders cost 12 IP but the colony produced 2 IP (004 5.7.4)",
    )


def test_factory_limit_counts_standing_factories_and_emigration() -> None:
    # Ruling: the limit is for the population that stays; 5M less 2M emigrating leave 3M,
    # which may have 3 factories: 2 standing + 2 new is one too many.
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(
            4,
            [colony_on("Sol-3", "minimal-terran", 5, 10, factories=2)],
            [ColonyOrders(colony="Sol-3", factories=2, colony_transports=2, emigrants=2)],
            owned=INDUSTRIAL,
        )
    assert problems_of(caught)[0] == (
        "colony 'Sol-3': 4 factories (2 standing, 2 new) exceed the limit of 3 for 3M "
        "(1 per 1M with Industrial Technology, 004 5.7.7)"
    )


def test_no_factories_without_industrial_technology() -> None:
    with pytest.raises(ProductionOrderError, match="1 factory needs Industrial Technology"):
        resolve_production(4, [terran("Sol-3", 10)], [ColonyOrders(colony="Sol-3", factories=1)])


def test_improved_industrial_technology_allows_two_per_million() -> None:
    # 004 L314: 3M may have 6 factories with Improved Industrial Technology.
    owned: frozenset[TechName] = frozenset({"industrial", "improved-industrial"})
    colony = colony_on("Sol-3", "minimal-terran", 3, 10, factories=2, mineral_rich=True)
    outcome = resolve_production(
        4, [colony], [ColonyOrders(colony="Sol-3", factories=2)], owned=owned
    )
    assert outcome.colonies[0].factories == 4
    with pytest.raises(
        ProductionOrderError, match=r"7 factories \(2 standing, 5 new\) exceed the limit of 6"
    ):
        resolve_production(4, [colony], [ColonyOrders(colony="Sol-3", factories=5)], owned=owned)


def test_robotic_industry_allows_any_number_at_3_ip() -> None:
    # 004 L316-317: any number of factories at 3 IP each.
    owned: frozenset[TechName] = frozenset(
        {"industrial", "improved-industrial", "robotic-industry"}
    )
    colony = colony_on("Sol-3", "minimal-terran", 2, 10, factories=10, mineral_rich=True)
    outcome = resolve_production(
        4, [colony], [ColonyOrders(colony="Sol-3", robotic_factories=8)], owned=owned
    )
    (sol,) = outcome.colonies
    assert sol.output.industrial_points == 24
    assert sol.cost == 24
    assert sol.factories == 18


def test_robotic_factories_need_robotic_industry() -> None:
    with pytest.raises(ProductionOrderError, match="1 robotic factory needs Robotic Industry"):
        resolve_production(
            4,
            [terran("Sol-3", 10)],
            [ColonyOrders(colony="Sol-3", robotic_factories=1)],
            owned=INDUSTRIAL,
        )


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("pdus", "1 planetary defence unit needs the Planetary Defence Unit technology"),
        (
            "advanced_pdbs",
            "1 advanced planetary defence base needs the Advanced Planetary Defence Unit",
        ),
        ("planet_shields", "1 planet shield needs the Planet Shield technology"),
    ],
)
def test_defences_need_their_technology(field: str, message: str) -> None:
    # 004 5.7.7: PDUs, advanced PDBs and shields each need their weapons technology.
    orders = ColonyOrders(colony="Sol-3", **{field: 1})
    with pytest.raises(ProductionOrderError, match=message):
        resolve_production(4, [terran("Sol-3", 40)], [orders], owned=frozenset({"cet"}))


def test_defence_technology_bought_this_phase_counts() -> None:
    # Ruling (after 004 L229): research is settled first; the new PDU technology builds PDUs.
    outcome = resolve_production(
        4,
        [terran("Sol-3", 30)],
        [ColonyOrders(colony="Sol-3", research=25, pdus=2)],
        [ResearchOrder("pdu")],
    )
    assert outcome.colonies[0].cost == 33


def test_one_shield_per_planet() -> None:
    owned: frozenset[TechName] = frozenset({"pdu", "advanced-pdu", "planet-shield"})
    shielded = terran("Sol-3", 50, planet_shield=True)
    with pytest.raises(ProductionOrderError, match="only one and it has one already"):
        resolve_production(
            4, [shielded], [ColonyOrders(colony="Sol-3", planet_shields=1)], owned=owned
        )


# ---------------------------------------------------------------- 5.4 sieges


def test_besieged_colony_builds_no_starships() -> None:
    # 004 L212-214: no starships (scouts are ships) and, by ruling, no colony transports.
    colony = terran("Sol-3", 40, besieged=True)
    orders = ColonyOrders(
        colony="Sol-3", scout_troops=1, starship_points=63, colony_transports=3, emigrants=3
    )
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(4, [colony], [orders])
    assert problems_of(caught) == (
        "colony 'Sol-3': a besieged colony may not build colony transports "
        "(setting besieged_may_emigrate, 004 5.4)",
        "colony 'Sol-3': a besieged colony may not build scout troops (004 5.4)",
        "colony 'Sol-3': a besieged colony may not build starships (004 5.4)",
    )


def test_besieged_colony_builds_defences_factories_and_research() -> None:
    # 004 L213-214: planetary defences, factories and research are still allowed.
    colony = terran("Sol-3", 40, besieged=True)
    orders = ColonyOrders(colony="Sol-3", pdus=2, factories=3, research=20)
    owned: frozenset[TechName] = frozenset({"pdu", "industrial"})
    outcome = resolve_production(4, [colony], [orders], owned=owned)
    assert outcome.colonies[0].cost == 8 + 12 + 20
    assert outcome.research.lost == 20


def test_besieged_colony_may_emigrate_with_the_setting() -> None:
    settings = ProductionSettings(besieged_may_emigrate=True)
    outcome = resolve_production(
        4,
        [terran("Sol-3", 40, besieged=True)],
        [ColonyOrders(colony="Sol-3", colony_transports=3, emigrants=3)],
        settings=settings,
    )
    assert outcome.colonies[0].emigration.transports == 3


# ---------------------------------------------------------------- reporting


def test_every_problem_is_reported_together() -> None:
    with pytest.raises(ProductionOrderError) as caught:
        resolve_production(
            4,
            [terran("Sol-3", 10), terran("Sol-4", 10)],
            [
                ColonyOrders(colony="Sol-3", factories=-1),
                ColonyOrders(colony="Sol-4", pdus=1),
                ColonyOrders(colony="Sol-4"),
                ColonyOrders(colony="Atlantis"),
            ],
            [ResearchOrder("advanced-pdu")],
        )
    assert problems_of(caught) == (
        "colony 'Sol-4': has two sets of orders",
        "colony 'Atlantis': no such colony of this empire (its colonies: Sol-3, Sol-4)",
        "research order 1 (advanced-pdu): advanced-pdu (Advanced Planetary Defence Unit) is a "
        "level 2 technology and needs a level 1 weapons technology first (004 5.7.6)",
        "colony 'Sol-3': factories is -1, which is negative",
        "colony 'Sol-4': 1 planetary defence unit needs the Planetary Defence Unit "
        "technology (004 5.7.7)",
    )
    assert str(caught.value).startswith("5 problem(s) in the production orders: colony 'Sol-4'")


# ---------------------------------------------------------------- properties

colonies = st.builds(
    lambda planet_type, capacity, population, factories, mineral_rich, conquered: Colony(
        name="X",
        planet_type=planet_type,
        population=min(population, capacity),
        capacity=capacity,
        factories=factories,
        mineral_rich=mineral_rich,
        conquered=conquered,
    ),
    st.sampled_from(PLANET_TYPES),
    st.integers(min_value=1, max_value=120),
    st.integers(min_value=0, max_value=120),
    st.integers(min_value=0, max_value=40),
    st.booleans(),
    st.booleans(),
)
techs = st.frozensets(st.sampled_from(list(TECHNOLOGIES)))


@given(colony=colonies, turn=st.sampled_from([4, 8, 44]))
def test_population_never_exceeds_capacity(colony: Colony, turn: int) -> None:
    out = produce(colony, turn)
    assert out.population <= colony.capacity
    assert out.population + out.excess == colony.population + out.growth
    assert out.growth >= 0
    assert out.industrial_points >= 0


@given(
    colony=colonies,
    owned=st.one_of(st.just(frozenset(TECHNOLOGIES)), techs),
    counts=st.lists(st.sampled_from([0, 0, 0, 0, 1, 2, 5]), min_size=10, max_size=10),
    besieged=st.sampled_from([False, False, False, True]),
)
def test_an_accepted_plan_never_spends_more_than_produced(
    colony: Colony, owned: frozenset[TechName], counts: list[int], besieged: bool
) -> None:
    colony = colony_on(
        colony.name,
        colony.planet_type,
        colony.population,
        colony.capacity,
        factories=colony.factories,
        mineral_rich=colony.mineral_rich,
        conquered=colony.conquered,
        besieged=besieged,
    )
    bonus, emigrants, factories, robotic, scouts, pdus, advanced, shields, ships, research = counts
    transports = emigrants + (bonus == 5)  # mostly no bonus carried; sometimes one too many
    shields = min(shields, 1)
    orders = ColonyOrders(
        colony="X",
        colony_transports=transports,
        emigrants=emigrants,
        factories=factories,
        robotic_factories=robotic,
        scout_troops=scouts,
        pdus=pdus,
        advanced_pdbs=advanced,
        planet_shields=shields,
        starship_points=ships * 40,
        research=research,
    )
    output = produce(colony, 4)
    result, problems = check_colony_orders(colony, output, orders, owned)
    if result is None:
        assert problems
        return
    assert not problems
    assert result.cost <= output.industrial_points
    assert result.cost + result.lost_ip == output.industrial_points
    assert 0 <= result.population <= colony.capacity
    assert result.population + result.emigration.colonists + result.excess_lost == (
        output.population + output.excess
    )
    assert result.emigration.bonus <= bonus_limit(output.growth)
    assert result.emigration.transports == result.emigration.colonists + result.emigration.bonus
    if besieged:
        assert orders.scout_troops == orders.starship_points == orders.colony_transports == 0
    new = orders.factories + orders.robotic_factories
    limit = factory_allowance(owned).limit(result.population)
    if new and limit is not None:
        assert result.factories <= limit


@given(
    populations=st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=4),
    research=st.lists(st.sampled_from([0, 5, 15, 25, 40]), min_size=4, max_size=4),
    pdus=st.lists(st.sampled_from([0, 0, 1, 2]), min_size=4, max_size=4),
    wanted=st.lists(st.sampled_from(list(TECHNOLOGIES)), max_size=2),
    owned=techs,
)
def test_an_empire_never_spends_ip_it_did_not_produce(
    populations: list[int],
    research: list[int],
    pdus: list[int],
    wanted: list[TechName],
    owned: frozenset[TechName],
) -> None:
    empire = [terran(f"C{i}", p) for i, p in enumerate(populations)]
    orders = [
        ColonyOrders(colony=c.name, research=r, pdus=n)
        for c, r, n in zip(empire, research, pdus, strict=False)
    ]
    try:
        outcome = resolve_production(
            8, empire, orders, [ResearchOrder(t) for t in wanted], owned=owned
        )
    except ProductionOrderError as error:
        problems = error.problems
        assert problems
        return
    items = sum(c.cost - c.research for c in outcome.colonies)
    assert items + outcome.research.spent + outcome.lost_ip == outcome.produced_ip
    assert outcome.research.pool == sum(c.research for c in outcome.colonies)
    assert all(c.cost <= c.output.industrial_points for c in outcome.colonies)
    assert owned <= outcome.owned


def test_outcome_round_trips_through_json_for_events() -> None:
    outcome = resolve_production(
        4,
        [terran("Sol-3", 30)],
        [ColonyOrders(colony="Sol-3", colony_transports=13, emigrants=10, research=15)],
        [ResearchOrder("speed-3")],
    )
    encoded = msgspec.json.encode(outcome)
    assert msgspec.json.decode(encoded, type=ProductionOutcome) == outcome
