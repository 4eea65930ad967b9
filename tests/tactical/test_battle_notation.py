"""The battle position notation: examples, round trips and errors that quote the text."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.battle import BattleState, context, initial_state, sheet_for
from tactical.mines import Mine
from tactical.notation import NotationError, format_position, parse_position
from tactical.scenarios import grendel
from tactical.ship import apply_damage, hit_drive, with_system_status


def test_grendel_start() -> None:
    state = initial_state(context(grendel()))
    text = format_position("ft2", state)
    assert text.startswith(
        "ft2 1 orders - - nac:nac1:frigate@8,0>12v8/h0.0 esu:esu1:frigate@8,72>6v8/h0.0 "
    )
    assert parse_position(text) == ("ft2", state)


def test_damage_flags() -> None:
    text = (
        "continuum 4 fire:blue red - "
        "red:r1:heavy_cruiser@-3.25,10.5>11v0/h7.2.0.0/dh/jx/sbeam3-1=d/smagazine-1=o#1/F/r1 "
        "blue:b1:heavy_cruiser@0,0>6v12/h7.7.6.6/X "
        "w:red=r1:P2+1"
    )
    rules, state = parse_position(text)
    assert rules == "continuum"
    r1 = state.ship("r1")
    assert (r1.x, r1.y, r1.course, r1.speed) == (-3.25, 10.5, 11, 0)
    assert r1.record.hull_lost == (7, 2, 0, 0)
    assert r1.record.drive == "half"
    assert r1.record.ftl == "lost"
    assert r1.record.systems[3].status == "damaged"
    assert r1.fired
    assert r1.rows == (1,)
    assert state.ship("b1").status == "destroyed"
    assert state.written[0].orders == "r1:P2+1"
    assert (state.phase, state.to_fire, state.first) == ("fire", "blue", "red")
    assert format_position(rules, state) == text


@given(
    damage=st.integers(0, 40),
    drive_hits=st.integers(0, 2),
    lost=st.lists(st.integers(0, 7), max_size=4),
    x=st.integers(-(10**6), 10**6),
    y=st.integers(-(10**6), 10**6),
)
def test_round_trip(damage: int, drive_hits: int, lost: list[int], x: int, y: int) -> None:
    setup = grendel()
    state = initial_state(context(setup))
    ship = state.ships[3]  # esu2, a light cruiser
    sheet = sheet_for(ship.design, "ft2")
    record = apply_damage(sheet, ship.record, min(damage, sum(sheet.rows))).state
    for _ in range(drive_hits):
        record = hit_drive(record)
    for index in lost:
        record = with_system_status(record, sheet.systems[index].id, "destroyed")
    moved = msgspec.structs.replace(ship, record=record, x=x / 1000, y=y / 1000)
    changed: BattleState = msgspec.structs.replace(
        state, ships=(*state.ships[:3], moved, *state.ships[4:])
    )
    assert parse_position(format_position("ft2", changed)) == ("ft2", changed)


@given(
    mines=st.lists(
        st.builds(
            Mine,
            id=st.from_regex(r"[A-Za-z0-9_.\-]{1,12}", fullmatch=True),
            side=st.sampled_from(["nac", "esu"]),
            x=st.integers(-(10**6), 10**6).map(lambda n: n / 1000),
            y=st.integers(-(10**6), 10**6).map(lambda n: n / 1000),
            laid=st.integers(0, 40),
        ),
        max_size=5,
    ),
    sweeping=st.booleans(),
)
def test_mines_round_trip(mines: list[Mine], sweeping: bool) -> None:
    # Mines are counters of their own (001 L868-888); a sweeping ship carries /M (001 L898).
    state = initial_state(context(grendel()))
    ships = (msgspec.structs.replace(state.ships[0], sweeping=sweeping), *state.ships[1:])
    changed = msgspec.structs.replace(state, ships=ships, mines=tuple(mines))
    assert parse_position(format_position("ft2", changed)) == ("ft2", changed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ft2 1", "expected rules, turn, phase"),
        ("chess 1 orders - -", "no battle rules 'chess'"),
        ("ft2 x orders - -", "turn 'x'"),
        ("ft2 1 fire - -", "bad phase 'fire'"),
        ("ft2 1 orders - - red:r1:frigate", "expected side:id:design"),
        ("ft2 1 orders - - red:r1:frigate@0,0>12v8/h0", "2 hull rows"),
        ("ft2 1 orders - - red:r1:frigate@0,0>12v8/h0.0/q", "unknown field 'q'"),
        ("ft2 1 orders - - red:r1:frigate@0,0>12v8/h0.0/snope=x", "bad system field 'snope=x'"),
        ("ft2 1 orders - - red:r1:dreadnaught@0,0>12v8/h0.0", "dreadnaught"),
        ("ft2 1 orders - - w:red=r1:P", "written orders"),
    ],
)
def test_errors_quote_the_text(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_position(text)


def test_sides_that_fought_boarders_and_where_ships_stood_round_trip_together() -> None:
    # ``B:side`` (a side that fought the boarders aboard its ships this turn) and ``B:id@x,y``
    # (where a ship stood before this turn's move) share their prefix; each reads back as itself.
    state = initial_state(context(grendel()))
    state = msgspec.structs.replace(state, fought=("nac",), before=(("esu1", 8.0, 72.0),))
    text = format_position("ft2", state)
    assert " B:nac" in text
    assert " B:esu1@8,72" in text
    assert parse_position(text) == ("ft2", state)
