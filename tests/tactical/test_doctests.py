"""The examples in the tactical modules' docstrings run and pass."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import tactical.designs
import tactical.points
import tactical.ship


@pytest.mark.parametrize("module", [tactical.ship, tactical.points, tactical.designs])
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
