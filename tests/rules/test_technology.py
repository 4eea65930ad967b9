"""Technology (004 5.7.6-5.7.7): the schedule, prerequisites, prices and research."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

import campaign.rules.technology
from campaign.errors import IllegalCommandError
from campaign.rules.technology import (
    TECHNOLOGIES,
    FactoryAllowance,
    ResearchOrder,
    ResearchOrderError,
    TechName,
    check_research,
    factory_allowance,
    factory_limit_per_million,
    ftl_speed,
    has_cet,
    prerequisite_problem,
    prerequisites_met,
    price,
    resolve_research,
)

ALL_TECHS: list[TechName] = list(TECHNOLOGIES)


def test_doctests() -> None:
    result = doctest.testmod(campaign.rules.technology)
    assert result.attempted > 0
    assert result.failed == 0


# ---------------------------------------------------------------- the schedule (004 5.7.7)


@pytest.mark.parametrize(
    ("tech", "level", "with_predecessor", "normal"),
    [
        # 004 L286-296: the wrapped "NN IP |" lines are each row's normal cost.
        ("speed-3", 1, None, 15),
        ("speed-4", 1, ("speed-3", 30), 40),
        ("speed-5", 2, ("speed-4", 40), 55),
        ("speed-6", 2, ("speed-5", 50), 65),
        ("speed-7", 3, ("speed-6", 60), 75),
        ("speed-8", 3, ("speed-7", 70), 80),
        # 004 L299-306
        ("pdu", 1, None, 25),
        ("advanced-pdu", 2, ("pdu", 40), 55),
        ("planet-shield", 3, None, 130),
        # 004 L309-317
        ("cet", 1, None, 25),
        ("industrial", 1, None, 25),
        ("improved-industrial", 2, ("industrial", 40), 55),
        ("robotic-industry", 3, ("industrial", 85), 100),
    ],
)
def test_schedule_row(
    tech: TechName, level: int, with_predecessor: tuple[TechName, int] | None, normal: int
) -> None:
    spec = TECHNOLOGIES[tech]
    assert spec.level == level
    assert spec.normal_cost == normal
    if with_predecessor is None:
        assert spec.predecessor is None
        assert spec.cost_with_predecessor is None
    else:
        assert (spec.predecessor, spec.cost_with_predecessor) == with_predecessor
    assert spec.source.startswith("004 L")


def test_three_fields_of_thirteen_technologies() -> None:
    # 004 L279: ship speed, planetary defences (weapons) and pure technology.
    fields = {t.field for t in TECHNOLOGIES.values()}
    assert fields == {"ship-speed", "weapons", "technological"}
    assert len(TECHNOLOGIES) == 13
    assert all(name == spec.name for name, spec in TECHNOLOGIES.items())


# ---------------------------------------------------------------- prerequisites (004 5.7.6)


def test_level_two_needs_a_level_one_of_the_same_field() -> None:
    # 004 L280-281: no second level technology before a first level one in the same field.
    assert not prerequisites_met("advanced-pdu", frozenset())
    assert not prerequisites_met("advanced-pdu", frozenset({"speed-3", "cet"}))
    assert prerequisites_met("advanced-pdu", frozenset({"pdu"}))


def test_any_level_one_of_the_field_will_do() -> None:
    # 004 L280-281 "at least one of the first level technologies": 3 Hex opens 5 Hex, and
    # C.E.T. opens Improved Industrial Technology.
    assert prerequisites_met("speed-5", frozenset({"speed-3"}))
    assert prerequisites_met("improved-industrial", frozenset({"cet"}))


def test_level_three_needs_a_level_two() -> None:
    # 004 L281-282: a level 1 technology is not enough for level 3.
    assert not prerequisites_met("robotic-industry", frozenset({"industrial", "cet"}))
    assert prerequisites_met("robotic-industry", frozenset({"improved-industrial"}))
    assert not prerequisites_met("planet-shield", frozenset({"pdu"}))
    assert prerequisites_met("planet-shield", frozenset({"pdu", "advanced-pdu"}))


def test_prerequisite_problem_names_the_missing_level() -> None:
    assert prerequisite_problem("speed-7", frozenset({"speed-3"})) == (
        "speed-7 (7 Hex Speed) is a level 3 technology and needs a level 2 ship speed "
        "technology first"
    )
    assert prerequisite_problem("cet", frozenset()) is None


# ---------------------------------------------------------------- prices (004 5.7.7)


def test_predecessor_price() -> None:
    # 004 L288: 4 Hex Speed costs 30 with 3 Hex, 40 without.
    assert price("speed-4", frozenset({"speed-3"})) == 30
    assert price("speed-4", frozenset()) == 40


def test_five_hex_without_four_hex_pays_normal_cost() -> None:
    # 004 L289-290: the discount is for 4 Hex Speed; 3 Hex alone gives the normal 55.
    assert price("speed-5", frozenset({"speed-3"})) == 55
    assert price("speed-5", frozenset({"speed-3", "speed-4"})) == 40


def test_robotic_industry_discount_is_for_industrial_technology() -> None:
    # 004 L317 "85 with Industrial Technology", read literally (see rulings).
    assert price("robotic-industry", frozenset({"industrial", "improved-industrial"})) == 85
    assert price("robotic-industry", frozenset({"cet", "improved-industrial"})) == 100


def test_planet_shield_has_no_discount() -> None:
    # 004 L306 "- | 130 IP".
    assert price("planet-shield", frozenset({"pdu", "advanced-pdu"})) == 130


# ---------------------------------------------------------------- effects


def test_ftl_speed() -> None:
    # 004 L74-76: 2 hexes to begin with; the fastest speed technology owned.
    assert ftl_speed(frozenset()) == 2
    assert ftl_speed(frozenset({"speed-3"})) == 3
    assert ftl_speed(frozenset({"speed-3", "speed-5", "cet"})) == 5
    assert ftl_speed(frozenset(TECHNOLOGIES)) == 8


def test_has_cet() -> None:
    # 004 L228-230, L309-310.
    assert has_cet(frozenset({"cet"}))
    assert not has_cet(frozenset({"industrial"}))


@pytest.mark.parametrize(
    ("owned", "per_million", "limit_for_3m", "describe"),
    [
        ((), 0, 0, "no factories without Industrial Technology, 004 5.7.7"),
        (("industrial",), 1, 3, "1 per 1M with Industrial Technology, 004 5.7.7"),
        (
            ("industrial", "improved-industrial"),
            2,
            6,
            "2 per 1M with Improved Industrial Technology, 004 5.7.7",
        ),
        (("cet", "improved-industrial"), 2, 6, None),
        (
            ("industrial", "improved-industrial", "robotic-industry"),
            None,
            None,
            "any number with Robotic Industry, 004 5.7.7",
        ),
    ],
)
def test_factory_allowance(
    owned: tuple[TechName, ...],
    per_million: int | None,
    limit_for_3m: int | None,
    describe: str | None,
) -> None:
    # 004 L311-317: none without Industrial Technology, 1 per 1M, 2 per 1M, any number.
    allowance = factory_allowance(frozenset(owned))
    assert allowance.per_million == per_million
    assert allowance.limit(3) == limit_for_3m
    if describe is not None:
        assert allowance.describe() == describe


# ---------------------------------------------------------------- research (004 5.7.4)


def test_research_buys_in_order_and_loses_the_rest() -> None:
    # 004 L266-267: 50 pooled IP buy 3 Hex (15) then 4 Hex at the predecessor price (30);
    # the 5 IP left are lost.
    outcome = resolve_research(
        frozenset(), 50, [ResearchOrder("speed-3"), ResearchOrder("speed-4")]
    )
    assert outcome.acquired == ("speed-3", "speed-4")
    assert outcome.spent == 45
    assert outcome.lost == 5
    assert outcome.owned == frozenset({"speed-3", "speed-4"})
    assert [p.price for p in outcome.purchases] == [15, 30]


def test_research_needs_the_whole_price_in_one_phase() -> None:
    # Ruling: research IP cannot be saved (004 L267); 20 IP do not buy a 25 IP technology.
    with pytest.raises(ResearchOrderError) as caught:
        resolve_research(frozenset(), 20, [ResearchOrder("pdu")])
    assert caught.value.problems == (
        "research: orders spend 25 IP but the colonies pooled only 20 IP (004 5.7.4)",
    )
    assert isinstance(caught.value, IllegalCommandError)


def test_partial_payment_is_refused_per_phase() -> None:
    with pytest.raises(ResearchOrderError, match="costs 25 IP; a technology is paid in full"):
        resolve_research(frozenset(), 30, [ResearchOrder("pdu", ip=10)])


def test_research_reports_every_problem() -> None:
    _, problems = check_research(
        frozenset({"cet"}),
        10,
        [
            ResearchOrder("cet"),
            ResearchOrder("planet-shield"),
            ResearchOrder("pdu"),
            ResearchOrder("pdu"),
        ],
    )
    assert problems == [
        "research order 1 (cet): cet (Controlled Environment Technology) is already owned",
        "research order 2 (planet-shield): planet-shield (Planet Shield) is a level 3 "
        "technology and needs a level 2 weapons technology first (004 5.7.6)",
        "research order 4 (pdu): pdu (Planetary Defence Unit) is ordered twice",
        "research: orders spend 25 IP but the colonies pooled only 10 IP (004 5.7.4)",
    ]


def test_accumulated_research_carries_over() -> None:
    # Setting research_pooling="accumulate": 60 IP toward Planet Shield (130) stay invested,
    # and a later 70 completes it.
    owned: frozenset[TechName] = frozenset({"pdu", "advanced-pdu"})
    first = resolve_research(
        owned, 60, [ResearchOrder("planet-shield", ip=60)], pooling="accumulate"
    )
    assert first.acquired == ()
    assert first.invested == {"planet-shield": 60}
    assert first.lost == 0
    second = resolve_research(
        owned, 80, [ResearchOrder("planet-shield")], invested=first.invested, pooling="accumulate"
    )
    assert second.acquired == ("planet-shield",)
    assert second.spent == 70
    assert second.lost == 10
    assert second.invested == {}


def test_accumulated_research_cannot_overpay() -> None:
    with pytest.raises(ResearchOrderError, match="over its price of 25 IP"):
        resolve_research(frozenset(), 40, [ResearchOrder("pdu", ip=30)], pooling="accumulate")


def test_per_phase_research_refuses_old_investments() -> None:
    with pytest.raises(ResearchOrderError, match="cannot be used when research is paid"):
        resolve_research(frozenset(), 40, [], invested={"pdu": 10})


@given(
    owned=st.frozensets(st.sampled_from(ALL_TECHS)),
    pool=st.integers(min_value=0, max_value=400),
    orders=st.lists(st.sampled_from(ALL_TECHS), max_size=6),
)
def test_accepted_research_respects_prerequisites_and_the_pool(
    owned: frozenset[TechName], pool: int, orders: list[TechName]
) -> None:
    outcome, problems = check_research(owned, pool, [ResearchOrder(t) for t in orders])
    if problems:
        with pytest.raises(ResearchOrderError):
            resolve_research(owned, pool, [ResearchOrder(t) for t in orders])
        return
    assert outcome.spent <= pool
    assert outcome.spent + outcome.lost == pool
    have = set(owned)
    for purchase in outcome.purchases:
        assert prerequisites_met(purchase.tech, have)
        assert purchase.paid == price(purchase.tech, have)
        have.add(purchase.tech)
    assert outcome.owned == frozenset(have)


@given(owned=st.frozensets(st.sampled_from(ALL_TECHS)))
def test_prices_are_never_above_normal(owned: frozenset[TechName]) -> None:
    for tech, spec in TECHNOLOGIES.items():
        assert 0 < price(tech, owned) <= spec.normal_cost


def test_factory_allowance_unlimited_has_no_limit() -> None:
    assert FactoryAllowance(per_million=None, tech="robotic-industry").limit(10**6) is None


def test_accumulated_balance_over_a_lowered_price_completes_for_nothing() -> None:
    # 35 IP invested in 4 Hex Speed (40) before 3 Hex was bought: its price is now 30, so
    # ordering it again completes it without spending more.
    outcome = resolve_research(
        frozenset({"speed-3"}),
        10,
        [ResearchOrder("speed-4")],
        invested={"speed-4": 35},
        pooling="accumulate",
    )
    assert outcome.acquired == ("speed-4",)
    assert outcome.spent == 0
    assert outcome.lost == 10


def test_factory_limit_per_million() -> None:
    assert factory_limit_per_million(frozenset()) == 0
    assert factory_limit_per_million(frozenset({"industrial"})) == 1
    assert factory_limit_per_million(frozenset({"cet", "improved-industrial"})) == 2
    assert factory_limit_per_million(frozenset({"robotic-industry"})) is None
