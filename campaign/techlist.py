"""The technology tree as `umpire tech list` shows it (004 5.7.6-5.7.7, L278-317).

The data and the rules stay in `campaign.rules.technology`; this only lays them out, with what
an empire owns and what each technology costs it now when one is named.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from campaign.rules.technology import (
    FIELD_TITLES,
    TECHNOLOGIES,
    TechName,
    prerequisite_problem,
    price,
)


class TechRow(msgspec.Struct, frozen=True, kw_only=True):
    """One technology: the schedule's row, and for an empire, where it stands on it."""

    name: TechName
    field: str
    level: int
    title: str
    development: str
    normal_cost: int
    predecessor: TechName | None = None
    cost_with_predecessor: int | None = None
    source: str = ""
    owned: bool | None = None  # None: no empire asked about
    price: int | None = None  # what it costs the empire now (None: owned, or no empire)
    blocked: str | None = None  # why the empire cannot buy it yet (004 L280-282)


def tech_rows(owned: Collection[TechName] | None = None) -> list[TechRow]:
    """Return every technology in schedule order; with `owned`, an empire's standing."""
    rows = []
    for name, spec in TECHNOLOGIES.items():
        row = TechRow(
            name=name,
            field=FIELD_TITLES[spec.field],
            level=spec.level,
            title=spec.title,
            development=spec.development,
            normal_cost=spec.normal_cost,
            predecessor=spec.predecessor,
            cost_with_predecessor=spec.cost_with_predecessor,
            source=spec.source,
        )
        if owned is not None:
            have = name in owned
            row = msgspec.structs.replace(
                row,
                owned=have,
                price=None if have else price(name, owned),
                blocked=None if have else prerequisite_problem(name, owned),
            )
        rows.append(row)
    return rows
