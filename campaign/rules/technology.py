"""Technology: the three research trees of 004 5.7.6-5.7.7, prices, prerequisites, research.

The schedule (004 L283-317) is partly scrambled by line wrapping; `TECHNOLOGIES` is the
reconstruction, and every judgement call made in it is listed in `docs/rulings.md`
("Campaign: production, technology and command"). Everything here is pure: an empire's
technology is a set of `TechName`s, and research is a function of that set, the IP pooled for
research this production phase and the player's research orders.

>>> owned = frozenset({"speed-3"})
>>> price("speed-4", owned), price("speed-4", frozenset())
(30, 40)
>>> ftl_speed(owned)
3
>>> prerequisite_problem("speed-5", frozenset())
'speed-5 (5 Hex Speed) is a level 2 technology and needs a level 1 ship speed technology first'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import msgspec

from campaign.errors import IllegalCommandError

TechField = Literal["ship-speed", "weapons", "technological"]
TechName = Literal[
    "speed-3",
    "speed-4",
    "speed-5",
    "speed-6",
    "speed-7",
    "speed-8",
    "pdu",
    "advanced-pdu",
    "planet-shield",
    "cet",
    "industrial",
    "improved-industrial",
    "robotic-industry",
]
ResearchPooling = Literal["phase", "accumulate"]
"""How research IP may be pooled (004 L266-267; see the ruling on research investment).

`"phase"` (the default): a technology is paid for in full, in one production phase, from the
research IP the colonies pooled in that phase; whatever the pool does not spend is lost.
`"accumulate"`: IP invested in a named technology stay invested across production phases until
its price is reached (a house rule for campaigns whose colonies are too small to pay for the
level 3 technologies in one phase).
"""

FIELD_TITLES: Mapping[TechField, str] = {
    "ship-speed": "ship speed",  # 004 L284 "Ship Speed Research"
    "weapons": "weapons",  # 004 L297 "Weapons Research" (planetary defences, 004 L279)
    "technological": "technological",  # 004 L307 "Technological Research"
}
BASE_FTL_SPEED = 2  # 004 L74: "an FTL movement rate of 2 hexes ... per movement phase"


class Technology(msgspec.Struct, frozen=True):
    """One row of the technology schedule (004 5.7.7)."""

    name: TechName
    field: TechField
    level: int
    title: str
    development: str
    normal_cost: int
    predecessor: TechName | None = None
    cost_with_predecessor: int | None = None
    source: str = ""


def _tech(
    name: TechName,
    field: TechField,
    level: int,
    title: str,
    development: str,
    normal_cost: int,
    *,
    source: str,
    predecessor: TechName | None = None,
    cost_with_predecessor: int | None = None,
) -> tuple[TechName, Technology]:
    return name, Technology(
        name=name,
        field=field,
        level=level,
        title=title,
        development=development,
        normal_cost=normal_cost,
        predecessor=predecessor,
        cost_with_predecessor=cost_with_predecessor,
        source=source,
    )


# 004 L283-317. A row's "Normal Cost" often wrapped onto the next line ("| 30 with 3 Hex |"
# then "40 IP |"): each wrapped figure belongs to the row above it.
TECHNOLOGIES: Mapping[TechName, Technology] = dict(
    [
        _tech("speed-3", "ship-speed", 1, "3 Hex Speed",
              "Every ship may move up to 3 Hexes per turn", 15,
              source="004 L286"),
        _tech("speed-4", "ship-speed", 1, "4 Hex Speed",
              "Every ship may move up to 4 Hexes per turn", 40,
              predecessor="speed-3", cost_with_predecessor=30, source="004 L287-288"),
        _tech("speed-5", "ship-speed", 2, "5 Hex Speed",
              "Every ship may move up to 5 Hexes per turn", 55,
              predecessor="speed-4", cost_with_predecessor=40, source="004 L289-290"),
        _tech("speed-6", "ship-speed", 2, "6 Hex Speed",
              "Every ship may move up to 6 Hexes per turn", 65,
              predecessor="speed-5", cost_with_predecessor=50, source="004 L291-292"),
        _tech("speed-7", "ship-speed", 3, "7 Hex Speed",
              "Every ship may move up to 7 Hexes per turn", 75,
              predecessor="speed-6", cost_with_predecessor=60, source="004 L293-294"),
        _tech("speed-8", "ship-speed", 3, "8 Hex Speed",
              "Every ship may move up to 8 Hexes per turn", 80,
              predecessor="speed-7", cost_with_predecessor=70, source="004 L295-296"),
        _tech("pdu", "weapons", 1, "Planetary Defence Unit",
              "Weapons platform equivalent to a Battledreadnought, 4 IP per unit", 25,
              source="004 L299-301"),
        _tech("advanced-pdu", "weapons", 2, "Advanced Planetary Defence Unit",
              "Weapons platform equivalent to two SuperDreadnoughts, 10 IP per unit", 55,
              predecessor="pdu", cost_with_predecessor=40, source="004 L302-304"),
        _tech("planet-shield", "weapons", 3, "Planet Shield",
              "A shield protects a planet from all warship attacks, 30 IP", 130,
              source="004 L305-306"),
        _tech("cet", "technological", 1, "Controlled Environment Technology",
              "Permits the colonisation of Barren Planets as if they were minimal terran", 25,
              source="004 L309-310"),
        _tech("industrial", "technological", 1, "Industrial Technology",
              "Factories at 4 IP each, one per 1 million population", 25,
              source="004 L311-313"),
        _tech("improved-industrial", "technological", 2, "Improved Industrial Technology",
              "Two factories per 1 million population", 55,
              predecessor="industrial", cost_with_predecessor=40, source="004 L314-315"),
        # "85 with Industrial Technology" (L317) is taken literally: the discount is for
        # owning Industrial Technology, not Improved Industrial Technology (see rulings).
        _tech("robotic-industry", "technological", 3, "Robotic Industry",
              "Any number of factories on a planet, at 3 IP per factory", 100,
              predecessor="industrial", cost_with_predecessor=85, source="004 L316-317"),
    ]
)  # fmt: skip

SPEED_TECHS: Mapping[TechName, int] = {
    "speed-3": 3,  # 004 L286
    "speed-4": 4,  # 004 L287
    "speed-5": 5,  # 004 L289
    "speed-6": 6,  # 004 L291
    "speed-7": 7,  # 004 L293
    "speed-8": 8,  # 004 L295
}


class FactoryAllowance(msgspec.Struct, frozen=True):
    """How many factories an empire's technology lets a colony have per 1M population.

    `per_million` is None for "any number" (Robotic Industry); `tech` is the technology that
    grants the allowance (None: no factory technology at all).
    """

    per_million: int | None
    tech: TechName | None

    def limit(self, population: int) -> int | None:
        """Return the most factories a colony of `population` million may have (None: any)."""
        if self.per_million is None:
            return None
        return self.per_million * population

    def describe(self) -> str:
        """Say where the allowance comes from, citing the schedule."""
        if self.tech is None:
            return "no factories without Industrial Technology, 004 5.7.7"
        title = TECHNOLOGIES[self.tech].title
        if self.per_million is None:
            return f"any number with {title}, 004 5.7.7"
        return f"{self.per_million} per 1M with {title}, 004 5.7.7"


class ResearchOrder(msgspec.Struct, frozen=True):
    """Buy (or, when research accumulates, invest in) one technology.

    `ip` None means "pay whatever completes it": the full price when research is paid per
    phase, the rest of the price when it accumulates.
    """

    tech: TechName
    ip: int | None = None


class TechPurchase(msgspec.Struct, frozen=True):
    """IP that went into one technology this phase, and whether it was acquired."""

    tech: TechName
    paid: int
    price: int
    acquired: bool


class ResearchOutcome(msgspec.Struct, frozen=True):
    """What a production phase's research bought, and what the pool lost."""

    pool: int
    spent: int
    lost: int
    purchases: tuple[TechPurchase, ...]
    acquired: tuple[TechName, ...]
    owned: frozenset[TechName]
    invested: dict[TechName, int] = {}  # balances still invested ("accumulate" only)


class ResearchOrderError(IllegalCommandError):
    """Research orders that break 004 5.7.6-5.7.7; `problems` lists every one of them."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            f"{len(self.problems)} problem(s) in the research orders: " + "; ".join(self.problems)
        )


def _label(tech: TechName) -> str:
    return f"{tech} ({TECHNOLOGIES[tech].title})"


def prerequisite_problem(tech: TechName, owned: Iterable[TechName]) -> str | None:
    """Say why `tech` cannot be bought with `owned`, or return None if it can (004 L280-282).

    A level N technology (N > 1) needs at least one level N-1 technology of the same field.
    """
    spec = TECHNOLOGIES[tech]
    if spec.level == 1:
        return None
    below = spec.level - 1
    if any(TECHNOLOGIES[t].field == spec.field and TECHNOLOGIES[t].level == below for t in owned):
        return None
    return (
        f"{_label(tech)} is a level {spec.level} technology and needs a level {below} "
        f"{FIELD_TITLES[spec.field]} technology first"
    )


def prerequisites_met(tech: TechName, owned: Iterable[TechName]) -> bool:
    """Return whether `owned` lets the empire buy `tech` (004 5.7.6)."""
    return prerequisite_problem(tech, owned) is None


def price(tech: TechName, owned: Iterable[TechName]) -> int:
    """Return what `tech` costs an empire that owns `owned` (004 5.7.7).

    The "cost with predecessor" applies when the empire owns the named predecessor; otherwise
    the "normal cost".
    """
    spec = TECHNOLOGIES[tech]
    if spec.predecessor is not None and spec.predecessor in set(owned):
        assert spec.cost_with_predecessor is not None
        return spec.cost_with_predecessor
    return spec.normal_cost


def ftl_speed(owned: Iterable[TechName]) -> int:
    """Return the empire's FTL speed in hexes per turn: 2, or its fastest speed tech (004 5.1)."""
    return max([BASE_FTL_SPEED, *(SPEED_TECHS[t] for t in owned if t in SPEED_TECHS)])


def has_cet(owned: Iterable[TechName]) -> bool:
    """Return whether the empire has Controlled Environment Technology (004 5.5, 5.7.7)."""
    return "cet" in set(owned)


def factory_allowance(owned: Iterable[TechName]) -> FactoryAllowance:
    """Return the factory allowance the empire's best industrial technology gives (004 5.7.7).

    None without a factory technology; 1 per 1M with Industrial Technology; 2 per 1M with
    Improved Industrial Technology (on its own too: see rulings); any number with Robotic
    Industry.
    """
    have = set(owned)
    if "robotic-industry" in have:
        return FactoryAllowance(per_million=None, tech="robotic-industry")
    if "improved-industrial" in have:
        return FactoryAllowance(per_million=2, tech="improved-industrial")
    if "industrial" in have:
        return FactoryAllowance(per_million=1, tech="industrial")
    return FactoryAllowance(per_million=0, tech=None)


def factory_limit_per_million(owned: Iterable[TechName]) -> int | None:
    """Return the factories allowed per 1M population: 0, 1, 2 or None for any number."""
    return factory_allowance(owned).per_million


def check_research(
    owned: frozenset[TechName],
    pool: int,
    orders: Sequence[ResearchOrder],
    invested: Mapping[TechName, int] | None = None,
    pooling: ResearchPooling = "phase",
) -> tuple[ResearchOutcome, list[str]]:
    """Check research orders against the rules; return the outcome and every problem.

    Orders are carried out in the order given: a technology bought earlier in the list counts
    for the prerequisites and predecessor prices of later ones (see rulings). When there are
    problems the outcome is what the orders without a problem would do (so that later checks,
    such as a colony's purchases, can go on and report their own problems too); it is only
    valid when the problem list is empty.
    """
    problems: list[str] = []
    if pool < 0:
        problems.append(f"research pool: {pool} IP is negative")
    have = set(owned)
    balances: dict[TechName, int] = dict(invested or {})
    if pooling == "phase" and any(balances.values()):
        problems.append(
            "research: IP invested in earlier phases cannot be used when research is paid "
            "per phase (the campaign's --research-pooling is phase, 004 5.7.4)"
        )
    purchases: list[TechPurchase] = []
    acquired: list[TechName] = []
    seen: set[TechName] = set()
    spent = 0
    for i, order in enumerate(orders):
        where = f"research order {i + 1} ({order.tech})"
        if order.tech in seen:
            problems.append(f"{where}: {_label(order.tech)} is ordered twice")
            continue
        seen.add(order.tech)
        if order.tech in have:
            problems.append(f"{where}: {_label(order.tech)} is already owned")
            continue
        missing = prerequisite_problem(order.tech, have)
        if missing is not None:
            problems.append(f"{where}: {missing} (004 5.7.6)")
            continue
        cost = price(order.tech, have)
        balance = balances.get(order.tech, 0)
        if order.ip is not None and order.ip <= 0:
            problems.append(f"{where}: {order.ip} IP is not a positive investment")
            continue
        if pooling == "phase":
            paid = cost if order.ip is None else order.ip
            if paid != cost:
                problems.append(
                    f"{where}: {paid} IP offered but {_label(order.tech)} costs {cost} IP; "
                    "a technology is paid in full in one production phase "
                    "(the campaign's --research-pooling is phase, 004 5.7.4)"
                )
                continue
        else:
            # A predecessor bought since the investment began can leave the balance over
            # the (lower) price: the technology is then completed for nothing more.
            paid = max(0, cost - balance) if order.ip is None else order.ip
            if order.ip is not None and balance + paid > cost:
                problems.append(
                    f"{where}: {paid} IP would take {_label(order.tech)} to "
                    f"{balance + paid} IP, over its price of {cost} IP"
                )
                continue
        spent += paid
        done = balance + paid >= cost
        purchases.append(TechPurchase(tech=order.tech, paid=paid, price=cost, acquired=done))
        if done:
            have.add(order.tech)
            acquired.append(order.tech)
            balances.pop(order.tech, None)
        else:
            balances[order.tech] = balance + paid
    if spent > pool:
        problems.append(
            f"research: orders spend {spent} IP but the colonies pooled only {pool} IP (004 5.7.4)"
        )
    return (
        ResearchOutcome(
            pool=pool,
            spent=spent,
            lost=max(0, pool - spent),
            purchases=tuple(purchases),
            acquired=tuple(acquired),
            owned=frozenset(have),
            invested={t: b for t, b in sorted(balances.items()) if b},
        ),
        problems,
    )


def resolve_research(
    owned: frozenset[TechName],
    pool: int,
    orders: Sequence[ResearchOrder],
    invested: Mapping[TechName, int] | None = None,
    pooling: ResearchPooling = "phase",
) -> ResearchOutcome:
    """Buy technologies with a production phase's pooled research IP (004 5.7.4, 5.7.6-5.7.7).

    Unspent research IP are lost (`ResearchOutcome.lost`). Under `pooling="accumulate"`,
    `invested` holds the IP already invested per technology and the outcome's `invested` the
    balances after this phase.

    Raises:
        ResearchOrderError: listing every order that breaks a rule.
    """
    outcome, problems = check_research(owned, pool, orders, invested, pooling)
    if problems:
        raise ResearchOrderError(problems)
    return outcome
