"""Cinematic movement and the order notation, with the rulebooks' worked examples."""

from __future__ import annotations

import math
import struct

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tactical.movement import (
    NO_ORDER,
    MoveStart,
    Order,
    OrderSyntaxError,
    course_after,
    format_mu,
    format_order,
    format_orders,
    heading_vector,
    move,
    order_problem,
    parse_order,
    parse_orders,
    round_mu,
)
from tactical.rules import BATTLE_RULES

FT2 = BATTLE_RULES["ft2"]
PC = BATTLE_RULES["continuum"]


def orders() -> st.SearchStrategy[Order]:
    """Every order the notation can write."""
    moves = st.builds(Order, turn=st.integers(-99, 99), accel=st.integers(-999, 999))
    pivots = st.builds(Order, pivot=st.integers(1, 12))
    launches = st.builds(Order, launch=st.integers(1, 9))  # L<n> (001 L757-759)
    specials = st.sampled_from([Order(jump=True), Order(nova=True)])  # J (004 L144), N (001 L908)
    # Any of them may lay mines along the move, sweep (001 L882-884, L894), make an active
    # sensor scan, naming the bogeys it scans or not (001 L949), and mean to ram a ship (001
    # L979): M<tenths>, W, A<labels>, R<ship id>.
    mines = st.lists(st.integers(0, 10), max_size=3).map(tuple)
    labels = st.integers(1, 999).map(lambda n: f"B{n}")
    scans = st.none() | st.lists(labels, unique=True, max_size=3).map(tuple)
    rams = st.none() | st.from_regex(r"[A-Za-z0-9_.\-]{1,8}", fullmatch=True)
    # And set Continuum pulse torpedoes for the turn (000 L4681-4685, L4786-4794):
    # /<weapon>=<O|S|L>, each weapon once.
    weapons = st.from_regex(r"[A-Za-z0-9_.\-]{1,12}", fullmatch=True)
    settings = st.lists(
        st.tuples(weapons, st.sampled_from("OSL")), max_size=3, unique_by=lambda ws: ws[0]
    ).map(tuple)
    # Then ECM switched on (000 L12832-12838), a carrier's standing order to scramble fighters
    # (000 8.3) and the admiral's choice of ship (004 L338, L343): /ecm/scramble/admiral.
    return st.builds(
        lambda order, laid, sweep, scan, ram, set_, flags: msgspec.structs.replace(
            order,
            mines=laid,
            sweep=sweep,
            scan=scan is not None,
            scan_for=scan or (),
            ram=ram,
            torpedoes=set_,
            ecm=flags[0],
            scramble=flags[1],
            admiral=flags[2],
        ),
        moves | pivots | launches | specials,
        mines,
        st.booleans(),
        scans,
        rams,
        settings,
        st.tuples(st.booleans(), st.booleans(), st.booleans()),
    )


@given(orders())
def test_order_round_trip(order: Order) -> None:
    assert parse_order(format_order(order)) == order


@given(st.dictionaries(st.from_regex(r"[A-Za-z0-9_.\-]{1,8}", fullmatch=True), orders()))
def test_orders_round_trip(written: dict[str, Order]) -> None:
    assert parse_orders(format_orders(written)) == written


def test_order_notation() -> None:
    # 001 L366: "P2 + 4 would indicate a two-point turn to Port (P), plus acceleration of 4".
    assert parse_order("P2+4") == Order(turn=-2, accel=4)
    assert parse_order("S1") == Order(turn=1)
    assert parse_order("-3") == Order(accel=-3)
    assert parse_order("=") == NO_ORDER
    assert parse_order("@7") == Order(pivot=7)
    assert parse_orders("lc1:P2+4 f1:=") == {"lc1": Order(turn=-2, accel=4), "f1": NO_ORDER}
    # 001 L882: "an 'M' in the order box"; here with where along the move, in tenths.
    assert parse_order("P1+2M0M10W") == Order(turn=-1, accel=2, mines=(0, 10), sweep=True)
    assert parse_order("M") == Order(mines=(10,))  # M alone: at the end of the move
    assert parse_order("W") == Order(sweep=True)
    assert format_order(Order(launch=1, mines=(5,))) == "L1M5"
    # 001 L979: the ram "noted in his Movement Orders", last, naming its target; the id may
    # hold an R of its own.
    assert parse_order("S1+2Rb1") == Order(turn=1, accel=2, ram="b1")
    assert parse_order("M5WARRb-2") == Order(mines=(5,), sweep=True, scan=True, ram="Rb-2")
    assert parse_order("Rb1") == Order(ram="b1")
    assert parse_orders("c1:NRhc") == {"c1": Order(nova=True, ram="hc")}
    # 001 L949: "The player chooses which of the enemy Bogeyes he will scan": their labels.
    assert parse_order("S1AB2B10") == Order(turn=1, scan=True, scan_for=("B2", "B10"))
    assert parse_order("AB3Rb1") == Order(scan=True, scan_for=("B3",), ram="b1")


@pytest.mark.parametrize(
    "text",
    [
        *("", "P", "P0", "+0", "X2", "P2+", "@13", "@0", "2+P", "p2"),
        *("M11", "=M5", "WM5", "WW", "P2W+1"),  # mines and sweep come last, once each
        *("R", "=Rb1", "Rb/1", "P2XRb1"),  # the ram comes last and names a ship
        *("AB", "AB0", "AB2B2", "AWB2", "B2"),  # a scan names bogey labels once each
    ],
)
def test_bad_orders_quote_the_text(text: str) -> None:
    with pytest.raises(OrderSyntaxError, match=repr(text).replace("+", r"\+")):
        parse_order(text)


def test_bad_order_sets() -> None:
    with pytest.raises(OrderSyntaxError, match="two orders"):
        parse_orders("a:P1 a:S1")
    with pytest.raises(OrderSyntaxError, match="not <ship id>:<order>"):
        parse_orders("P1")


def test_parsed_orders_are_the_callers_own() -> None:
    # parse_orders keeps what it parsed, by the text; each caller still gets a dict of its
    # own to change (the movement step adds to it), and a refusal is refused every time.
    for _ in range(3):
        orders = parse_orders("a:P1 b:=")
        assert set(orders) == {"a", "b"}
        orders["c"] = orders.pop("a")
    for _ in range(2):
        with pytest.raises(OrderSyntaxError, match="two orders"):
            parse_orders("a:P1 a:P1")


def _near_ties() -> st.SearchStrategy[float]:
    """Coordinates a few floats either side of a half thousandth, where rounding turns."""

    def nudged(whole: int, steps: int) -> float:
        value = (whole + 0.5) / 1000
        for _ in range(abs(steps)):
            value = math.nextafter(value, math.inf if steps > 0 else -math.inf)
        return value

    return st.builds(nudged, st.integers(-(10**9), 10**9), st.integers(-3, 3))


@given(st.one_of(st.floats(), _near_ties(), st.floats(-1000, 1000)))
def test_round_mu_is_round_to_thousandths(value: float) -> None:
    # round_mu finds the thousandths by arithmetic where that is exact: bit for bit what
    # round(value, 3) + 0.0 gives, ties, huge values, infinities and NaN included.
    expected = round(value, 3) + 0.0
    got = round_mu(value)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert struct.pack("<d", got) == struct.pack("<d", expected)


def test_course_changes() -> None:
    # 001 L334: from course 10, three points to port is 7, to starboard 1.
    assert course_after(10, -3) == 7
    assert course_after(10, 3) == 1
    assert course_after(12, 1) == 1
    assert course_after(1, -1) == 12


def test_headings() -> None:
    assert heading_vector(12) == (0.0, 1.0)
    x, y = heading_vector(3)
    assert math.isclose(x, 1.0)
    assert math.isclose(y, 0.0, abs_tol=1e-12)


def test_ft_lite_movement_example() -> None:
    # 002 L43-47: thrust 6, speed 10, direction 7; turn left 3 and accelerate 2: left 1,
    # six inches, left 2, six inches; ends at speed 12 in direction 4.
    order = Order(turn=-3, accel=2)
    assert order_problem(order, speed=10, course=7, thrust=6, rules=FT2) is None
    end = move(MoveStart(x=0.0, y=0.0, course=7, speed=10), order, "halves")
    assert (end.course, end.speed) == (4, 12)
    dx, dy = heading_vector(6)
    assert (end.mid_x, end.mid_y) == (round_mu(6 * dx), round_mu(6 * dy))
    dx2, dy2 = heading_vector(4)
    assert end.x == round_mu(end.mid_x + 6 * dx2)
    assert end.y == round_mu(end.mid_y + 6 * dy2)


def test_ft2_movement_example_a() -> None:
    # 001 L350: course 3, velocity 10, three points to port: course 2 for 5", then 12 for 5".
    end = move(MoveStart(x=0.0, y=0.0, course=3, speed=10), Order(turn=-3), "halves")
    dx, dy = heading_vector(2)
    assert (end.mid_x, end.mid_y) == (round_mu(5 * dx), round_mu(5 * dy))
    assert end.course == 12
    assert (end.x, end.y) == (end.mid_x, round_mu(end.mid_y + 5))


def test_ft2_movement_example_b() -> None:
    # 001 L354: course 8, velocity 14, one point to starboard: 7" on 8, turn to 9, 7" on 9.
    end = move(MoveStart(x=0.0, y=0.0, course=8, speed=14), Order(turn=1), "halves")
    dx, dy = heading_vector(8)
    assert (end.mid_x, end.mid_y) == (round_mu(7 * dx), round_mu(7 * dy))
    assert end.course == 9
    assert (end.x, end.y) == (round_mu(end.mid_x - 7), end.mid_y)


def test_continuum_movement_example() -> None:
    # 000 L1912-1928: course 7, velocity 6, accelerate 5 and turn 1 to starboard: 5 MU on
    # course 7 (half of 11 rounded down), turn to 8, the remaining 6 MU.
    end = move(MoveStart(x=0.0, y=0.0, course=7, speed=6), Order(turn=1, accel=5), "floor_first")
    dx, dy = heading_vector(7)
    assert (end.mid_x, end.mid_y) == (round_mu(5 * dx), round_mu(5 * dy))
    dx, dy = heading_vector(8)
    assert (end.x, end.y) == (round_mu(end.mid_x + 6 * dx), round_mu(end.mid_y + 6 * dy))
    assert (end.course, end.speed) == (8, 11)


def test_thrust_limits() -> None:
    # 001 L326-330: thrust 4 may turn 2 and change speed 2; thrust 5 may turn 3.
    assert order_problem(Order(turn=2, accel=2), speed=5, course=1, thrust=4, rules=FT2) is None
    assert order_problem(Order(turn=3), speed=5, course=1, thrust=4, rules=FT2) is not None
    assert order_problem(Order(turn=-3), speed=5, course=1, thrust=5, rules=FT2) is None
    # 000 L1605-1688: Continuum rounds the turning half down.
    assert order_problem(Order(turn=-3), speed=5, course=1, thrust=5, rules=PC) is not None
    problem = order_problem(Order(turn=2, accel=3), speed=5, course=1, thrust=4, rules=FT2)
    assert problem is not None
    assert "thrust" in problem


def test_negative_speed_and_pivots() -> None:
    # 001 L370: no negative velocity; 001 L372: a stationary ship pivots freely.
    assert order_problem(Order(accel=-3), speed=2, course=1, thrust=6, rules=FT2) is not None
    assert order_problem(Order(pivot=6), speed=0, course=12, thrust=2, rules=FT2) is None
    assert order_problem(Order(pivot=6), speed=1, course=12, thrust=2, rules=FT2) is not None
    assert order_problem(Order(pivot=6), speed=0, course=12, thrust=2, rules=PC) is not None
    end = move(MoveStart(x=1.0, y=2.0, course=12, speed=0), Order(pivot=6), "halves")
    assert (end.x, end.y, end.course, end.speed) == (1.0, 2.0, 6, 0)


@given(st.floats(-1e6, 1e6, allow_nan=False))
def test_coordinates_print_exactly(value: float) -> None:
    kept = round_mu(value)
    assert float(format_mu(kept)) == kept
