"""The examples in the tactical modules' docstrings run and pass."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import tactical.designs
import tactical.odds
import tactical.phases.knowledge
import tactical.points
import tactical.ship
import tactical.summary


@pytest.mark.parametrize(
    "module",
    [
        tactical.ship,
        tactical.points,
        tactical.designs,
        tactical.odds,
        tactical.summary,
        tactical.phases.knowledge,
    ],
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
