"""Every refusal names its cause and what would be accepted (issue 16): the values of an
enumeration, the keys of a table, the line of an unknown key, the FT2 designs, the planets of
an explored system, a player's transport groups."""

from __future__ import annotations

import pytest

from campaign.rules.economy import no_design
from campaign.rules.movement import OrdersError
from campaign.rules.orders import parse


def refused(text: str) -> list[str]:
    with pytest.raises(OrdersError) as caught:
        parse(text, "red", 2)
    return caught.value.problems


def test_a_top_level_key_under_a_table_is_found_on_its_own_line() -> None:
    text = (
        'player = "red"\nturn = 2\n\n[[moves]]\nunit = "red-S1"\nto = "0201"\n\n'
        'battle_locations = ["free-space"]\n'
    )
    (problem,) = refused(text)
    assert problem.startswith(
        "Object contains unknown field `battle_locations` - at `$.moves[0]` (line 8); "
        "accepted there: unit, to, order, count, via; `battle_locations` goes at the top"
    )


def test_enumerations_list_their_values() -> None:
    (order,) = refused('player = "red"\nturn = 2\n[[moves]]\nunit = "a"\norder = "hold"\n')
    assert order.endswith("(line 5); accepted: engage, stand-off, ftl-move")
    (tech,) = refused('player = "red"\nturn = 2\n[[research]]\ntech = "warp"\n')
    assert "accepted: speed-3, speed-4" in tech
    assert "robotic-industry" in tech
    (where,) = refused('player = "red"\nturn = 2\nbattle_locations = ["moon"]\n')
    assert where.endswith("(line 3); accepted: free-space, dense-world, gas-giant, asteroid-field")


def test_an_unknown_design_names_the_close_one_and_the_catalogue() -> None:
    said = no_design("destroyr")
    assert said.startswith("no FT2 design 'destroyr' in the catalogue (did you mean 'destroyer'?)")
    assert "frigate" in said
    assert "`umpire ship list`" in said
    assert "did you mean" not in no_design("zzzz")
