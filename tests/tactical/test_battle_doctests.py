"""The examples in the battle modules' docstrings run and pass."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import tactical.asteroids
import tactical.battle
import tactical.boarding
import tactical.campaign_battle
import tactical.dice
import tactical.fire
import tactical.ftl
import tactical.mines
import tactical.movement
import tactical.notation
import tactical.phases.end
import tactical.phases.fighters
import tactical.repair
import tactical.rules
import tactical.summary


@pytest.mark.parametrize(
    "module",
    [
        tactical.asteroids,
        tactical.battle,
        tactical.boarding,
        tactical.campaign_battle,
        tactical.dice,
        tactical.fire,
        tactical.ftl,
        tactical.mines,
        tactical.movement,
        tactical.notation,
        tactical.phases.end,
        tactical.phases.fighters,
        tactical.repair,
        tactical.rules,
        tactical.summary,
    ],
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
