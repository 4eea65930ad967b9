"""A refused TOML value names its line and what would have been accepted (issue 16)."""

from __future__ import annotations

import enum
from typing import Literal

import msgspec
import pytest

from maps import tomlinput
from maps.explain import explain


class Speed(enum.StrEnum):
    SLOW = "slow"
    FAST = "fast"


class Move(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    unit: str
    order: Literal["engage", "stand-off"] = "engage"
    speed: Speed | None = None


class Orders(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    turn: int
    places: tuple[Literal["free-space", "gas-giant"], ...] = ()
    moves: tuple[Move, ...] = ()


def refusal(text: str) -> str:
    with pytest.raises(msgspec.ValidationError) as refused:
        tomlinput.decode(text, type=Orders)
    return explain(str(refused.value), Orders, text)


def test_an_enum_names_its_line_and_values() -> None:
    text = 'turn = 1\n\n[[moves]]\nunit = "a"\n\n[[moves]]\nunit = "b"\norder = "attack"\n'
    assert refusal(text) == (
        "Invalid enum value 'attack' - at `$.moves[1].order` (line 8); accepted: engage, stand-off"
    )
    text = 'turn = 1\n[[moves]]\nunit = "a"\nspeed = "warp"\n'
    assert refusal(text).endswith("(line 4); accepted: slow, fast")
    assert refusal('turn = 1\nplaces = ["moon"]\n') == (
        "Invalid enum value 'moon' - at `$.places[0]` (line 2); accepted: free-space, gas-giant"
    )


def test_an_unknown_key_is_reported_where_it_is() -> None:
    """A top-level key written under a [[moves]] header belongs to that move in TOML: the
    refusal gives its own line, not the table's, and says where it goes."""
    text = 'turn = 1\n[[moves]]\nunit = "a"\n\nplaces = ["free-space"]\n'
    assert refusal(text) == (
        "Object contains unknown field `places` - at `$.moves[0]` (line 5); accepted there: "
        "unit, order, speed; `places` goes at the top of the file, above the first [table]: "
        "written below a table header it belongs to that table"
    )
    text = 'turn = 1\nspeed = 3\n[[moves]]\nunit = "a"\n'
    assert refusal(text) == (
        "Object contains unknown field `speed` - at `$` (line 2); accepted there: "
        "turn, places, moves"
    )
    text = 'turn = 1\n[[moves]]\nunit = "a"\n[moves.extra]\nx = 1\n'
    assert "`extra` - at `$.moves[0]` (line 4)" in refusal(text)


def test_an_explanation_never_fails_a_refusal() -> None:
    assert explain("Expected `int`, got `str` - at `$.turn`", Orders, "turn = 'x'") == (
        "Expected `int`, got `str` - at `$.turn` (line 1): given 'x'; for example turn = 1"
    )
    assert explain("Expected `int`, got `str` - at `$.turn`", Orders, "turn = [") == (
        "Expected `int`, got `str` - at `$.turn` (line 1)"
    )
    assert explain("Invalid enum value 'x' - at `$.nowhere[3].deep`", Orders, "") == (
        "Invalid enum value 'x' - at `$.nowhere[3].deep`"
    )
    assert explain("no path here", object(), "") == "no path here"


def test_a_mistyped_value_names_its_item_the_value_and_an_example() -> None:
    """Without the caller's examples, one is made from the type wanted; the item is named by
    its `unit`; msgspec's `object` is called a table, as TOML calls it."""
    text = 'turn = 1\n[[moves]]\nunit = "a"\n\n[[moves]]\nunit = "b"\norder = 3\n'
    assert refusal(text) == (
        "Expected `str`, got `int` - at `$.moves[1].order` (line 7), in the [[moves]] "
        'with unit = "b": given 3; for example order = "engage"'
    )
    assert refusal('turn = 1\nmoves = ["a"]\n') == (
        "Expected `table`, got `str` - at `$.moves[0]` (line 2): given 'a'; for example "
        "moves = [{ unit = ... }]"
    )
    told = explain(
        "Expected `int`, got `str` - at `$.turn`", Orders, "turn = 'x'", {"turn": "turn = 7"}
    )
    assert told.endswith("given 'x'; for example turn = 7")
