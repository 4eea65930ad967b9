"""Every refusal names its cause and what would be accepted (issue 16): the values of an
enumeration, the keys of a table, the line of an unknown key, the FT2 designs, the planets of
an explored system, a player's transport groups."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.rules.movement import OrdersError
from campaign.rules.orders import OrdersDocument, parse
from campaign.rules.setup import no_design
from maps import tomlinput
from maps.explain import explain


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
    said = no_design("destroyr", "continuum")
    assert said.startswith(
        "no continuum design 'destroyr' in the campaign's catalogue (did you mean 'destroyer'?)"
    )
    assert "frigate" in said
    assert "`umpire ship list --rules continuum`" in said
    assert "did you mean" not in no_design("zzzz")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_a_refusal_is_explained_or_left_as_it_was(text: str) -> None:
    """Any text refused as orders: the explanation keeps msgspec's words first and adds only
    a line and the accepted values (it never fails the refusal)."""
    message = _refusal(text)
    if message is not None:
        assert explain(message, OrdersDocument, text).startswith(message)


def _refusal(text: str) -> str | None:
    """msgspec's own words refusing `text` as orders (None: decoded, or not TOML at all)."""
    try:
        tomlinput.decode(text, type=OrdersDocument)
    except msgspec.ValidationError as exc:
        return str(exc)
    except msgspec.DecodeError:
        return None
    return None


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["order", "tech", "speed", "battle_locations", "x"]), st.text(max_size=8))
def test_a_misplaced_key_is_found_on_its_line(key: str, value: str) -> None:
    body = 'player = "red"\nturn = 2\n[[moves]]\nunit = "a"\n'
    text = body + f"{key} = {json.dumps(value)}\n"
    message = _refusal(text)
    if message is not None and "unknown field" in message:
        assert "(line 5)" in explain(message, OrdersDocument, text)
