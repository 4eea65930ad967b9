"""Movement: orders in FT2 notation, their limits, and the two-leg curved cinematic move; and
Fleet Book 1's vector movement (000 12.12, L13411-13986).

Geometry: positions are ``(x, y)`` in MU on a continuous table; course 12 points along +y and
course ``c`` is ``30 * c`` degrees clockwise from it (001 L305-334). Every leg's end point is
rounded to 0.001 MU so that a position is exactly what its text notation says.

Order notation (001 L364-366): ``P2+4`` turns 2 points to port and accelerates 4; ``S1``,
``-3`` and ``S3-1`` likewise; ``=`` is "no order" (straight ahead at the same speed); ``@7``
pivots a stationary ship to course 7 (001 L372); ``J`` starts the final power-up for an FTL jump
in a campaign battle (004 L144-145: no thrust that turn). Any order may end with mines to lay,
``M<tenths>`` each (001 L882-884: ``M5`` drops one half way along the move, ``M`` alone at its
end), then ``W`` to sweep for mines (001 L894), then ``A`` for an active sensor scan (001 L949),
maybe naming the bogeys it scans by their labels (``AB2B3``; without them, the nearest):
``P1+2M0M10WA``, or ``M`` or ``A`` alone with no change of course or speed. Last of all,
``R<ship id>`` notes a ram intended on that ship (001 L979): ``S1+2Rb1``, or ``Rb1`` alone. After
the whole order, ``/<weapon>=<setting>`` notes a Continuum pulse torpedo's setting for the turn:
``O`` to fire it overloaded (000 L4681-4685), ``S`` or ``L`` for a variable torpedo's short or
long range mode (000 L4786-4794): ``P1+2/pulse_torpedo_variable-1=S`` or
``=/pulse_torpedo_overload-1=O``. Last of all, ``/scramble`` is a carrier's standing order to
scramble fighters if enemy fighters move in to attack it (000 8.3): ``=/scramble``,
``L1/scramble``; before it, ``/ecm`` switches the ship's ECM on for the turn (000
L12832-12838): ``=/ecm``, ``S1/ecm/scramble``. A set of orders is ``id:order`` tokens
separated by spaces, e.g. ``"lc1:P2+4 f1:="``.

Vector orders (000 L13411-13986) are manoeuvres in their written sequence, joined by ``.``:
``TP2`` / ``TS2`` rotate the facing 2 points to port / starboard, ``PP1`` / ``PS1`` / ``PR1``
push 1 MU to port / starboard / reverse, ``MD6`` burns the main drive 6 MU along the facing:
``TP2.MD6.PS1``; a launch may close it (``TS1.L1``), and mines, sweep, scan and ram follow as
for any order. ``=`` drifts on the vector.

Spatial orders (003, :mod:`tactical.spatial`) are manoeuvres in their written sequence,
joined by ``.``: ``F10`` pivots to face 10, ``FF`` / ``FA`` / ``FP`` / ``FS`` to face fore,
aft, port or starboard of the course; ``+2`` / ``-3`` change the velocity; ``T3`` turns with 3
thrust to the side the ship faces (``T3P`` / ``T3S`` name the side); ``PushP`` / ``PushS``
push 1 MU; ``Roll``; ``Spin6`` / ``Spin-4`` / ``Spin0`` set the spin: ``FP.T3``,
``+2.FS.PushP``. A launch may close it (``FA.L1``), and mines, sweep, scan and ram follow.

>>> parse_order("P2+4")  # doctest: +NORMALIZE_WHITESPACE
Order(turn=-2, accel=4, pivot=None, jump=False, launch=0, nova=False, mines=(), sweep=False,
      scan=False, scan_for=(), ram=None, vector=(), spatial=(), torpedoes=(), scramble=False,
      ecm=False, admiral=False, point_defence=False)
>>> parse_order("S1/pulse_torpedo_variable-1=L").torpedoes
(('pulse_torpedo_variable-1', 'L'),)
>>> parse_order("S1+2Rb1").ram
'b1'
>>> format_order(parse_order("S1M5M"))
'S1M5M10'
>>> format_orders(parse_orders("f1:= lc1:P2+4"))
'f1:= lc1:P2+4'
>>> m = move(MoveStart(x=0.0, y=0.0, course=7, speed=10), Order(turn=-3, accel=2), "halves")
>>> m.course, m.speed  # 002 L43-47: T6 at speed 10 on course 7, left 3 and +2
(4, 12)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Literal

import msgspec
from msgspec import Struct

from tactical.mines import MINE_TENTHS as MINE_END
from tactical.rules import BattleRules

__all__ = [
    "NO_ORDER",
    "SCRAMBLE",
    "Burn",
    "Manoeuvre",
    "MoveResult",
    "MoveStart",
    "Order",
    "OrderSyntaxError",
    "angle_vector",
    "course_after",
    "format_manoeuvre",
    "format_mu",
    "format_order",
    "format_orders",
    "heading_vector",
    "move",
    "order_problem",
    "parse_order",
    "parse_orders",
    "round_mu",
    "spatial_order",
    "spatial_steps",
    "spends_thrust",
    "thrust_used",
    "vector_move",
    "vector_points",
    "vector_problem",
]

COURSES = 12  # 001 L305-312: twelve courses on a clock face
DEGREES_PER_COURSE = 30
MU_DECIMALS = 3  # positions are kept to 0.001 MU so the text notation is exact


class OrderSyntaxError(ValueError):
    """An order or set of orders is not in the notation; the message quotes it."""


BurnKind = Literal["TP", "TS", "PP", "PS", "PR", "MD"]
ROTATIONS: tuple[BurnKind, ...] = ("TP", "TS")
PUSHES: tuple[BurnKind, ...] = ("PP", "PS", "PR")
PUSH_ANGLE = {"PP": -90.0, "PS": 90.0, "PR": 180.0}  # 000 L13411-13986: off the facing


class Burn(Struct, frozen=True, array_like=True, gc=False):
    """One written manoeuvre of a vector order (000 12.12, L13411-13986): ``TP n`` / ``TS n``
    rotate the facing n clock points to port or starboard; ``PP n`` / ``PS n`` / ``PR n`` push
    the ship n MU to port, starboard or reverse of its facing; ``MD k`` burns the main drive
    for k MU along the facing."""

    kind: BurnKind
    amount: int


SpatialKind = Literal[
    "F", "FF", "FA", "FP", "FS", "V", "T", "TP", "TS", "PushP", "PushS", "Roll", "Spin"
]
PIVOTS: tuple[SpatialKind, ...] = ("F", "FF", "FA", "FP", "FS")


class Manoeuvre(Struct, frozen=True, array_like=True, gc=False):
    """One written manoeuvre of a spatial order (003 1.3-1.7), carried out in sequence:
    ``F`` pivots to facing ``amount`` (``F10``); ``FF`` / ``FA`` / ``FP`` / ``FS`` pivot to
    face fore, aft, port or starboard of the course (003 L98-104); ``V`` changes the velocity
    by ``amount`` (``+2``, ``-3``, L136-141); ``T`` turns with ``amount`` thrust to the side
    the ship faces, ``TP`` / ``TS`` to the side named (``T3``, ``T3P``, L174-177); ``PushP`` /
    ``PushS`` push 1 MU to port or starboard (L222-226); ``Roll`` rolls the ship (L238-240);
    ``Spin`` sets the spin rate to ``amount`` clock points a turn, clockwise if positive
    (``Spin6``, ``Spin-4``, ``Spin0`` to stop, L249-264). ``amount`` is 0 where none is
    written."""

    kind: SpatialKind
    amount: int = 0


class Order(Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One ship's movement order for one turn.

    ``turn`` is course points, negative to port (anticlockwise) and positive to starboard;
    ``accel`` the velocity change; ``pivot`` the course a stationary ship pivots to; ``jump``
    starts the final power-up for an FTL jump (004 L144-145), which spends no thrust;
    ``launch`` launches that many fighter groups at the halfway point of a move without a
    course or velocity change (001 L757-759), written ``L1`` or ``L2``; ``nova`` arms the
    spinal nova cannon, written ``N``: the ship applies no thrust that turn (001 L908-919).
    ``mines`` drops one mine at each of these points of the move, in tenths from its start
    (001 L882-884), one for each working minelayer; ``sweep`` activates the minesweeper
    (001 L894); ``scan`` makes an active sensor scan, written ``A`` (001 L949), and
    ``scan_for`` names the bogeys it scans by label, in the order named (``AB2B3``: "the player
    chooses which of the enemy Bogeys he will scan", L949), only with ``scan``; without them
    it scans the nearest. All three go with any other order. ``ram`` names the enemy ship this
    ship means to ram at the end of its move, written ``R<ship id>`` after everything else
    (001 L979); it too goes with any order. ``vector`` is a vector-movement order's
    manoeuvres in their written sequence (000 12.12), written ``TP2.MD6.PS1``; it may end with
    a launch, ``TS1.L1``. ``torpedoes`` are the settings written for pulse torpedoes this
    turn, ``(weapon id, setting)`` in the order written: ``O`` overloads one (000 L4681-4685),
    ``S`` and ``L`` put a variable torpedo in short or long range mode (000 L4786-4794); written
    ``/<weapon>=<setting>`` after the rest of the order. Whether the ship has such a weapon is
    the battle's to judge. ``scramble`` is a carrier's standing order to scramble fighters if
    enemy fighters move in to attack it this turn (000 8.3), written ``/scramble`` last; it
    goes only with an order that applies no thrust (000 L8647-8649). ``ecm`` switches the
    ship's ECM and area ECM on for the turn, written ``/ecm`` before any ``/scramble`` (000
    L12832-12838: "otherwise it is assumed to be switched off"). ``admiral`` makes this the
    ship its side's Level 1 or Level 3 admiral chooses from this turn on, acting as if its
    captain were of his level (004 L338, L343), written ``/admiral`` last; it goes with any
    order, on one ship of a side. ``point_defence`` puts the ship's Beam-1s on point defence for
    the turn (000 L9105-9109), written ``/pd`` after any ``/ecm``; it goes with any order.
    """

    turn: int = 0
    accel: int = 0
    pivot: int | None = None
    jump: bool = False
    launch: int = 0
    nova: bool = False
    mines: tuple[int, ...] = ()
    sweep: bool = False
    scan: bool = False
    scan_for: tuple[str, ...] = ()
    ram: str | None = None
    vector: tuple[Burn, ...] = ()
    spatial: tuple[Manoeuvre, ...] = ()
    """A spatial-movement order's manoeuvres in their written sequence (003), written
    ``FP.T3`` or ``+2.FS.PushP``; a lone velocity change is the cinematic ``+2`` (see
    :func:`spatial_order`)."""
    torpedoes: tuple[tuple[str, str], ...] = ()
    scramble: bool = False
    ecm: bool = False
    admiral: bool = False
    point_defence: bool = False


NO_ORDER = Order()
"""Straight ahead at unchanged speed: what a missing or impossible order means (001 L364)."""

_ORDER = re.compile(r"(?:(?P<side>[PS])(?P<points>\d{1,2}))?(?:(?P<sign>[+-])(?P<dv>\d{1,3}))?")
_PIVOT = re.compile(r"@(?P<course>\d{1,2})")
_LAUNCH = re.compile(r"L(?P<groups>[1-9])")
# The A of a spatial pivot to face aft, FA, is no scan: A scans only after some other step.
_FLAGS = re.compile(
    r"(?P<mines>(?:M\d{0,2})*)(?P<sweep>W?)(?P<scan>(?:(?<!^F)(?<!\.F)A(?:B[1-9]\d*)*)?)$"
)
_LABEL = re.compile(r"B[1-9]\d*")  # a bogey's label (tactical.sensors.bogey_labels)
_MINE = re.compile(r"M(\d{0,2})")
_SHIP_ID = re.compile(r"[A-Za-z0-9_.\-]+")
_BURN = re.compile(r"(?P<kind>TP|TS|PP|PS|PR|MD)(?P<amount>\d{1,2})")
# A vector push to reverse, PR<n>, and a spatial Roll are no ram; the R after PushP is.
_RAM = re.compile(r"(?<!^P)(?<!\.P)R(?!oll)")
_SPATIAL = re.compile(
    r"(?P<pivot>F(?:[FAPS]|1[0-2]|[1-9]))|(?P<velocity>[+-]\d{1,2})"
    r"|T(?P<thrust>\d{1,2})(?P<side>[PS]?)|(?P<push>Push[PS])|(?P<roll>Roll)|Spin(?P<spin>-?\d{1,2})"
)
SCRAMBLE = "scramble"  # the standing order to scramble fighters (000 8.3), ``/scramble``
ECM_ON = "ecm"  # ECM switched on for the turn (000 L12832-12838), ``/ecm``
ADMIRAL = "admiral"  # the admiral's chosen ship from this turn on (004 L338, L343)
POINT_DEFENCE = "pd"  # its Beam-1s on point defence this turn (000 L9105-9109), ``/pd``
_SETTING = re.compile(r"(?P<weapon>[A-Za-z0-9_.\-]+)=(?P<setting>[OSL])")


def parse_order(text: str) -> Order:
    """Parse one order: ``P2+4``, ``S1``, ``-3``, ``=``, ``@7``, ``J``, ``L2`` or ``N``, and
    mines to lay, a sweep, a scan and a ram after it: ``P2+4M5WARb1``.

    Raises:
        OrderSyntaxError: the text is not an order.
    """
    if "/" in text:
        return _parse_settings(text)
    found_ram = _RAM.search(text)  # no other part of an order has an R but PR<n>
    if found_ram:
        head, target = text[: found_ram.start()], text[found_ram.end() :]
        if not _SHIP_ID.fullmatch(target):
            raise OrderSyntaxError(f"order {text!r}: R names the ship to ram, R<ship id>")
        if head == "=":
            raise OrderSyntaxError(f"order {text!r}: write the ram without '='")
        try:
            order = parse_order(head) if head else NO_ORDER
        except OrderSyntaxError:
            raise OrderSyntaxError(
                f"order {text!r}: {head!r} is not an order; the ram (R<ship id>) comes last"
            ) from None
        return msgspec.structs.replace(order, ram=target)
    flags = _FLAGS.search(text)
    assert flags is not None  # every text ends in a (maybe empty) run of flags
    if not flags.group(0):
        return _parse_base(text)
    base = text[: flags.start()]
    mines = tuple(int(n or MINE_END) for n in _MINE.findall(flags["mines"]))
    if any(tenth > MINE_END for tenth in mines):
        raise OrderSyntaxError(
            f"order {text!r}: a mine is laid 0 to {MINE_END} tenths along the move"
        )
    if base == "=":
        raise OrderSyntaxError(f"order {text!r}: write the mines, sweep or scan without '='")
    try:
        order = _parse_base(base) if base else NO_ORDER
    except OrderSyntaxError:
        raise OrderSyntaxError(
            f"order {text!r}: {base!r} is not an order; mines (M<tenths>), W and A come last"
        ) from None
    labels = tuple(_LABEL.findall(flags["scan"]))
    if len(set(labels)) < len(labels):
        raise OrderSyntaxError(f"order {text!r}: the scan names a bogey twice")
    return msgspec.structs.replace(
        order,
        mines=mines,
        sweep=bool(flags["sweep"]),
        scan=bool(flags["scan"]),
        scan_for=labels,
    )


def _parse_settings(text: str) -> Order:
    """Parse an order followed by torpedo settings, then maybe ECM switched on, then maybe
    Beam-1s on point defence, then maybe a scramble, then maybe the admiral's choice:
    ``S1/pulse_torpedo_overload-1=O``, ``=/ecm/pd/scramble/admiral``."""
    head, *parts = text.split("/")
    admiral = parts[-1] == ADMIRAL
    if admiral:
        parts = parts[:-1]
    scramble = bool(parts) and parts[-1] == SCRAMBLE
    if scramble:
        parts = parts[:-1]
    point_defence = bool(parts) and parts[-1] == POINT_DEFENCE
    if point_defence:
        parts = parts[:-1]
    ecm = bool(parts) and parts[-1] == ECM_ON
    if ecm:
        parts = parts[:-1]
    settings: list[tuple[str, str]] = []
    for part in parts:
        found = _SETTING.fullmatch(part)
        if found is None:
            raise OrderSyntaxError(
                f"order {text!r}: {part!r} is not a torpedo setting <weapon>=<O|S|L> "
                "(O overloaded, S or L a variable torpedo's short or long range mode); "
                "after the settings come /ecm, /pd, /scramble and /admiral, in that order"
            )
        if any(weapon == found["weapon"] for weapon, _ in settings):
            raise OrderSyntaxError(f"order {text!r}: {found['weapon']!r} is set twice")
        settings.append((found["weapon"], found["setting"]))
    if not head:
        raise OrderSyntaxError(f"order {text!r}: write '=' before the torpedo settings")
    return msgspec.structs.replace(
        parse_order(head),
        torpedoes=tuple(settings),
        scramble=scramble,
        ecm=ecm,
        admiral=admiral,
        point_defence=point_defence,
    )


def _parse_base(text: str) -> Order:
    """Parse an order without its mines and sweep."""
    if text == "=":
        return NO_ORDER
    if text == "J":
        return Order(jump=True)
    if text == "N":
        return Order(nova=True)
    launch = _LAUNCH.fullmatch(text)
    if launch:
        return Order(launch=int(launch["groups"]))
    if _is_spatial(text):
        return _parse_spatial(text)
    if _BURN.match(text):
        return _parse_vector(text)
    pivot = _PIVOT.fullmatch(text)
    if pivot:
        course = int(pivot["course"])
        if not 1 <= course <= COURSES:
            raise OrderSyntaxError(f"order {text!r}: a course is 1 to 12")
        return Order(pivot=course)
    found = _ORDER.fullmatch(text)
    if not text or found is None:
        raise OrderSyntaxError(
            f"order {text!r} is not P<n>, S<n>, +<n>, -<n>, a turn then a speed change "
            "like P2+4, '=' for no change, @<course> to pivot, J to power up for a jump, "
            "N to arm a nova cannon, each maybe followed by M<tenths> mines, W to sweep, A to "
            "scan, R<ship id> to ram"
        )
    turn = int(found["points"] or 0) * (-1 if found["side"] == "P" else 1)
    accel = int(found["dv"] or 0) * (-1 if found["sign"] == "-" else 1)
    if found["side"] and turn == 0:
        raise OrderSyntaxError(f"order {text!r}: write no turn rather than a turn of 0")
    if found["sign"] and accel == 0:
        raise OrderSyntaxError(
            f"order {text!r}: write no speed change rather than {found['sign']}0"
        )
    return Order(turn=turn, accel=accel)


def _parse_vector(text: str) -> Order:
    """Parse a vector order's manoeuvres, dot-separated in their written sequence, maybe
    ending with a launch: ``TP2.MD6.PS1``, ``TS1.L1``."""
    steps = text.split(".")
    launch = _LAUNCH.fullmatch(steps[-1]) if len(steps) > 1 else None
    if launch:
        steps = steps[:-1]
    burns: list[Burn] = []
    for step in steps:
        found = _BURN.fullmatch(step)
        if found is None:
            raise OrderSyntaxError(
                f"order {text!r}: {step!r} is not a vector manoeuvre: TP<n> or TS<n> to rotate, "
                "PP<n>, PS<n> or PR<n> to push, MD<n> to burn the main drive, joined by '.'"
            )
        amount = int(found["amount"])
        if amount == 0:
            raise OrderSyntaxError(f"order {text!r}: write no {found['kind']} rather than 0")
        burns.append(Burn(found["kind"], amount))  # type: ignore[arg-type]  # the regex's kinds
    return Order(vector=tuple(burns), launch=int(launch["groups"]) if launch else 0)


def _is_spatial(text: str) -> bool:
    """Whether the text is a spatial order: manoeuvres joined by ``.``, not one velocity
    change alone (that is the cinematic ``+2``, which spatial movement reads the same)."""
    steps = text.split(".")
    if len(steps) > 1 and _LAUNCH.fullmatch(steps[-1]):
        steps = steps[:-1]
    found = _SPATIAL.fullmatch(steps[0])
    return found is not None and (len(text.split(".")) > 1 or found["velocity"] is None)


def _spatial_step(text: str, step: str) -> Manoeuvre:
    """Read one manoeuvre of a spatial order."""
    found = _SPATIAL.fullmatch(step)
    if found is None:
        raise OrderSyntaxError(
            f"order {text!r}: {step!r} is not a spatial manoeuvre: F<facing>, FF, FA, FP or FS "
            "to pivot, +<n> or -<n> to change velocity, T<n> (T<n>P, T<n>S) to turn, PushP "
            "or PushS, Roll, Spin<rate>, joined by '.'"
        )
    if found["pivot"]:
        pivot = found["pivot"]
        return Manoeuvre("F", int(pivot[1:])) if pivot[1:].isdigit() else Manoeuvre(pivot)  # type: ignore[arg-type]
    if found["velocity"]:
        change = int(found["velocity"])
        if change == 0:
            raise OrderSyntaxError(f"order {text!r}: write no velocity change rather than 0")
        return Manoeuvre("V", change)
    if found["thrust"]:
        thrust = int(found["thrust"])
        if thrust == 0:
            raise OrderSyntaxError(f"order {text!r}: a turn spends at least 1 thrust")
        return Manoeuvre(f"T{found['side']}", thrust)  # type: ignore[arg-type]
    if found["spin"]:
        return Manoeuvre("Spin", int(found["spin"]))
    return Manoeuvre(found["push"] or "Roll")  # type: ignore[arg-type]


def _parse_spatial(text: str) -> Order:
    """Parse a spatial order's manoeuvres, dot-separated in their written sequence, maybe
    ending with a launch: ``FP.T3``, ``+2.FS.L1``."""
    steps = text.split(".")
    launch = _LAUNCH.fullmatch(steps[-1]) if len(steps) > 1 else None
    if launch:
        steps = steps[:-1]
    return spatial_order(
        tuple(_spatial_step(text, step) for step in steps),
        launch=int(launch["groups"]) if launch else 0,
    )


def spatial_order(steps: tuple[Manoeuvre, ...], *, launch: int = 0) -> Order:
    """Return the order of these spatial manoeuvres, in the one form its text reads back as:
    a lone velocity change is the cinematic order ``+2`` (003 L136-137: "writing +V or -V").

    >>> format_order(spatial_order((Manoeuvre("V", 2),))), spatial_order((Manoeuvre("V", 2),)).accel
    ('+2', 2)
    >>> format_order(spatial_order((Manoeuvre("FP"), Manoeuvre("T", 3))))
    'FP.T3'
    """
    if len(steps) == 1 and steps[0].kind == "V" and not launch:
        return Order(accel=steps[0].amount)
    return Order(spatial=steps, launch=launch)


def spatial_steps(order: Order) -> tuple[Manoeuvre, ...] | None:
    """Return the spatial manoeuvres an order stands for, or ``None`` if it is a cinematic turn
    or pivot or a vector order: a cinematic velocity change alone is the spatial one."""
    if order.turn or order.pivot is not None or order.vector:
        return None
    if order.accel:
        return (Manoeuvre("V", order.accel),)
    return order.spatial


def format_manoeuvre(step: Manoeuvre) -> str:
    """Write one spatial manoeuvre: ``F10``, ``FP``, ``+2``, ``T3P``, ``PushS``, ``Spin-4``."""
    if step.kind == "F":
        return f"F{step.amount}"
    if step.kind == "V":
        return f"{step.amount:+d}"
    if step.kind in ("T", "TP", "TS"):
        return f"T{step.amount}{step.kind[1:]}"
    if step.kind == "Spin":
        return f"Spin{step.amount}"
    return step.kind


def format_order(order: Order) -> str:
    """Write an order in the notation; :func:`parse_order` reads it back unchanged.

    >>> format_order(Order(turn=2, accel=-1)), format_order(NO_ORDER), format_order(Order(pivot=3))
    ('S2-1', '=', '@3')
    >>> format_order(Order(mines=(0, 10), sweep=True))
    'M0M10W'
    >>> format_order(Order(turn=-1, ram="b2")), format_order(Order(ram="b2"))
    ('P1Rb2', 'Rb2')
    >>> format_order(Order(torpedoes=(("pulse_torpedo_overload-1", "O"),)))
    '=/pulse_torpedo_overload-1=O'
    >>> format_order(Order(launch=1, scramble=True))
    'L1/scramble'
    >>> format_order(Order(turn=1, ecm=True, scramble=True))
    'S1/ecm/scramble'
    >>> format_order(Order(ecm=True, admiral=True))
    '=/ecm/admiral'
    >>> format_order(Order(turn=1, ecm=True, point_defence=True, scramble=True))
    'S1/ecm/pd/scramble'
    """
    known = _FORMATTED.get(order)
    if known is None:
        known = _format_order(order)
        if len(_FORMATTED) >= _FORMATTED_KEPT:
            _FORMATTED.clear()
        _FORMATTED[order] = known
    return known


_FORMATTED: dict[Order, str] = {}
""":func:`format_order` by the order (a frozen value): the commanders write an order's text
to break ties, the battle as it records orders and moves."""

_FORMATTED_KEPT = 4096
"""How many orders :data:`_FORMATTED` keeps before it starts again (a memory bound only)."""


def _format_order(order: Order) -> str:
    if order.admiral:
        return format_order(msgspec.structs.replace(order, admiral=False)) + f"/{ADMIRAL}"
    if order.scramble:
        return format_order(msgspec.structs.replace(order, scramble=False)) + f"/{SCRAMBLE}"
    if order.point_defence:
        written = format_order(msgspec.structs.replace(order, point_defence=False))
        return f"{written}/{POINT_DEFENCE}"
    if order.ecm:
        return format_order(msgspec.structs.replace(order, ecm=False)) + f"/{ECM_ON}"
    if order.torpedoes:
        base = format_order(msgspec.structs.replace(order, torpedoes=()))
        return base + "".join(f"/{weapon}={setting}" for weapon, setting in order.torpedoes)
    if order.ram is not None:
        base = format_order(msgspec.structs.replace(order, ram=None))
        return ("" if base == "=" else base) + f"R{order.ram}"
    flags = "".join(f"M{tenth}" for tenth in order.mines) + ("W" if order.sweep else "")
    flags += "A" + "".join(order.scan_for) if order.scan else ""
    if flags:
        base = format_order(
            msgspec.structs.replace(order, mines=(), sweep=False, scan=False, scan_for=())
        )
        return flags if base == "=" else base + flags
    if order.jump:
        return "J"
    if order.nova:
        return "N"
    if order.vector:
        steps = [f"{burn.kind}{burn.amount}" for burn in order.vector]
        return ".".join(steps + ([f"L{order.launch}"] if order.launch else []))
    if order.spatial:
        steps = [format_manoeuvre(step) for step in order.spatial]
        return ".".join(steps + ([f"L{order.launch}"] if order.launch else []))
    if order.launch:
        return f"L{order.launch}"
    if order.pivot is not None:
        return f"@{order.pivot}"
    text = ""
    if order.turn:
        text += f"{'P' if order.turn < 0 else 'S'}{abs(order.turn)}"
    if order.accel:
        text += f"{'+' if order.accel > 0 else '-'}{abs(order.accel)}"
    return text or "="


def parse_orders(text: str) -> dict[str, Order]:
    """Parse a set of orders: ``id:order`` tokens separated by spaces.

    Raises:
        OrderSyntaxError: a token is malformed or a ship is given two orders.
    """
    known = _PARSED.get(text)
    if known is not None:
        return dict(known)  # a copy: the caller may change it
    orders = _parse_orders(text)
    if len(_PARSED) >= _PARSED_KEPT:
        _PARSED.clear()
    _PARSED[text] = dict(orders)
    return orders


_PARSED: dict[str, dict[str, Order]] = {}
""":func:`parse_orders` by the text: a side's orders are parsed as they are written, as the
journal folds them in and as the ships move (orders are frozen, so they are shared)."""

_PARSED_KEPT = 4096
"""How many texts :data:`_PARSED` keeps before it starts again (a memory bound only)."""


def _parse_orders(text: str) -> dict[str, Order]:
    orders: dict[str, Order] = {}
    for token in text.split():
        ship_id, colon, order_text = token.partition(":")
        if not colon or not _SHIP_ID.fullmatch(ship_id):
            raise OrderSyntaxError(f"orders token {token!r} is not <ship id>:<order>")
        if ship_id in orders:
            raise OrderSyntaxError(f"orders {text!r} give {ship_id!r} two orders")
        orders[ship_id] = parse_order(order_text)
    return orders


def format_orders(orders: Mapping[str, Order]) -> str:
    """Write a set of orders, ships sorted by id."""
    return " ".join(f"{ship_id}:{format_order(orders[ship_id])}" for ship_id in sorted(orders))


def thrust_used(order: Order) -> int:
    """Return the thrust an order spends: one point per course point and per MU of speed change
    (001 L318-330)."""
    return abs(order.turn) + abs(order.accel)


def spends_thrust(order: Order) -> bool:
    """Return whether an order uses any thrust: a course or speed change, a pivot or a vector
    manoeuvre (002 L37-39, L51: "if it used any thrust this turn").

    >>> spends_thrust(parse_order("=")), spends_thrust(parse_order("P1"))
    (False, True)
    >>> spends_thrust(Order(accel=-1)), spends_thrust(Order(jump=True))
    (True, False)
    """
    return (
        thrust_used(order) > 0
        or order.pivot is not None
        or bool(order.vector)
        or any(step.kind != "Spin" for step in order.spatial)
    )


def order_problem(
    order: Order,
    *,
    speed: int,
    course: int,
    thrust: int,
    rules: BattleRules,
    limit: int | None = None,
) -> str | None:
    """Return why a ship cannot carry out this order, or ``None`` if it can.

    An order it cannot carry out is not an error of the game: the ship goes straight ahead at
    the same speed (001 L364). ``limit`` overrides the rules' course-change limit (a campaign
    captain's command level, 004 L329-335). A ``J`` order spends no thrust; whether the ship
    may power up is the battle's to judge.
    """
    if rules.movement == "vector":
        return vector_problem(order, thrust=thrust, points=thrust // 2 if limit is None else limit)
    if order.vector:
        return "a vector order (TP, TS, PP, PS, PR, MD) and these rules move cinematically"
    if order.spatial:
        return "a spatial order (F, T, Push, Roll, Spin, 003) and these rules move cinematically"
    if order.jump or order.nova:
        return None  # no thrust spent; whether the ship may is the battle's to judge
    if order.pivot is not None:
        if not rules.pivot_any_course:
            return "these rules have no free pivot; turn with P or S (000 L1934-2037)"
        if speed != 0:
            return f"only a stationary ship may pivot, and this one moves at {speed} (001 L372)"
        return None
    if speed + order.accel < 0:
        return f"speed {speed}{order.accel:+d} would be negative (001 L370)"
    if thrust_used(order) > thrust:
        return f"needs {thrust_used(order)} thrust and the drive gives {thrust} (001 L364)"
    if limit is None:
        limit = rules.turn_limit(thrust)
    if abs(order.turn) > limit:
        return f"turns {abs(order.turn)} points and thrust {thrust} allows {limit} (001 L326-330)"
    return None


def vector_points(order: Order) -> int:
    """Return the manoeuvre points a vector order spends: 1 for its rotation, whatever the
    amount, and 1 per MU pushed (000 L13411-13986).

    >>> vector_points(parse_order("TP3.MD6.PS2"))
    3
    """
    return sum(
        1 if burn.kind in ROTATIONS else burn.amount for burn in order.vector if burn.kind != "MD"
    )


def vector_problem(order: Order, *, thrust: int, points: int) -> str | None:
    """Return why a ship under vector movement cannot carry out this order, or ``None``.

    ``points`` is its manoeuvre thrusters' budget: floor(thrust / 2), a campaign captain's
    level applied (000 L13411-13986, 004 L329-335). At most one rotation, one push and one main
    drive burn a turn, all written in sequence; the main drive gives at most the thrust, the
    thrusters at most ``points``; a launch bars the main drive and pushes (001 L757-759).
    """
    if order.turn or order.accel or order.pivot is not None:
        return "a cinematic order (P, S, +, -, @) and these rules move by vector (000 12.12)"
    if order.spatial:
        return "a spatial order (F, T, Push, Roll, Spin, 003) and these rules move by vector"
    kinds = [burn.kind for burn in order.vector]
    if sum(kind in ROTATIONS for kind in kinds) > 1 or sum(k in PUSHES for k in kinds) > 1:
        return "at most one rotation and one push a turn (000 L13411-13986)"
    if kinds.count("MD") > 1:
        return "one main drive burn a turn (see docs/rulings.md)"
    burned = sum(burn.amount for burn in order.vector if burn.kind == "MD")
    if burned > thrust:
        return f"burns MD{burned} and the drive gives {thrust} (000 L13411-13986)"
    if vector_points(order) > points:
        return (
            f"needs {vector_points(order)} manoeuvre points and the thrusters give {points} "
            "(000 L13411-13986)"
        )
    if order.launch and any(kind == "MD" or kind in PUSHES for kind in kinds):
        return "a ship launching fighters may neither burn its main drive nor push (001 L757)"
    return None


def course_after(course: int, points: int) -> int:
    """Return the course after turning ``points`` (negative to port), on the 1-12 clock.

    >>> course_after(10, -3), course_after(10, 3)  # 001 L334
    (7, 1)
    """
    return (course - 1 + points) % COURSES + 1


def heading_vector(course: int) -> tuple[float, float]:
    """Return the unit vector of a course: 12 is +y, 3 is +x."""
    angle = math.radians(course % COURSES * DEGREES_PER_COURSE)
    return math.sin(angle), math.cos(angle)


def round_mu(value: float) -> float:
    """Round a coordinate to 0.001 MU (and never keep a negative zero): exactly
    ``round(value, 3) + 0.0``, which rounds the float's exact value half to even.

    Python's ``round`` to decimals goes through a decimal string; the rules round every
    coordinate of every move, so the nearest whole number of thousandths is found by
    arithmetic where that is exact: below 10^6 MU the thousandths ``value * 1000`` are off
    the exact product by under 2^-22, so when their fraction lies more than 10^-6 from a half
    they round the same way, and that whole number over 1000 is the float nearest it, as
    ``round`` gives. A fraction that near a half, a tie, a huge value, an infinity or a NaN
    goes to ``round`` itself.

    >>> round_mu(0.0625), round_mu(-0.0004), round_mu(12.3456), round_mu(2.0005)
    (0.062, 0.0, 12.346, 2.001)
    """
    scaled = value * _PER_MU
    if -1e9 < scaled < 1e9:
        whole = math.floor(scaled)
        part = scaled - whole  # exact: the float's bits below the units
        if abs(part - 0.5) > 1e-6:
            return (whole + (part > 0.5)) / _PER_MU + 0.0
    return round(value, MU_DECIMALS) + 0.0


_PER_MU = 10.0**MU_DECIMALS
"""Thousandths of an MU in an MU (:func:`round_mu`)."""


def format_mu(value: float) -> str:
    """Write a coordinate with at most three decimals; ``float`` reads it back exactly.

    >>> format_mu(12.5), format_mu(-3.0), format_mu(0.125)
    ('12.5', '-3', '0.125')
    """
    text = f"{value:.{MU_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


class MoveStart(Struct, frozen=True, kw_only=True, gc=False):
    """Where a ship starts its move. Under vector movement ``course`` is the facing and
    ``vector`` the velocity: its course in degrees clockwise from +y, and its speed."""

    x: float
    y: float
    course: int
    speed: int
    vector: tuple[float, float] | None = None
    spin: int = 0
    """Under spatial movement (003 L249-264): its spin rate, clock points a turn."""


class MoveResult(Struct, frozen=True, kw_only=True, gc=False):
    """Where a ship ends its move, and the mid-move point (for drawing the curved path)."""

    x: float
    y: float
    course: int
    speed: int
    mid_x: float
    mid_y: float
    vector: tuple[float, float] | None = None
    """Under vector movement: the new velocity's course (degrees) and speed."""
    spin: int = 0
    """Under spatial movement: the spin rate it goes on with (003 L257-261)."""


def move(start: MoveStart, order: Order, split: str, *, whole: bool = True) -> MoveResult:
    """Carry out a legal order: half the turn (rounded down), half the move, the rest of the
    turn, the rest of the move (001 L346-358; 002 L41-47; 000 L1842-1932).

    The velocity moved is this turn's new velocity (001 L366; 002 L43). ``split`` is
    ``"halves"`` (v/2 each leg) or ``"floor_first"`` (floor(v/2) then the rest).

    A start with a ``vector`` moves by vector instead (:func:`vector_move`); ``whole`` rounds
    its new velocity to whole MU.
    """
    if start.vector is not None:
        return vector_move(start, order, whole=whole)
    if order.jump:  # powering up: no thrust, straight ahead at the same speed (004 L144-145)
        return move(start, NO_ORDER, split)
    if order.pivot is not None:
        return MoveResult(
            x=start.x,
            y=start.y,
            course=order.pivot,
            speed=start.speed,
            mid_x=start.x,
            mid_y=start.y,
        )
    speed = start.speed + order.accel
    sign = -1 if order.turn < 0 else 1
    first_points = abs(order.turn) // 2
    first_course = course_after(start.course, sign * first_points)
    final_course = course_after(start.course, order.turn)
    first_leg = speed / 2 if split == "halves" else float(speed // 2)
    second_leg = speed - first_leg
    dx, dy = heading_vector(first_course)
    mid_x, mid_y = round_mu(start.x + dx * first_leg), round_mu(start.y + dy * first_leg)
    dx, dy = heading_vector(final_course)
    return MoveResult(
        x=round_mu(mid_x + dx * second_leg),
        y=round_mu(mid_y + dy * second_leg),
        course=final_course,
        speed=speed,
        mid_x=mid_x,
        mid_y=mid_y,
    )


def angle_vector(degrees: float) -> tuple[float, float]:
    """Return the unit vector of an angle in degrees clockwise from +y."""
    angle = math.radians(degrees)
    return math.sin(angle), math.cos(angle)


def _angle_of(dx: float, dy: float) -> float:
    """The angle of a displacement, degrees clockwise from +y in [0, 360), to 0.001."""
    angle = round_mu(math.degrees(math.atan2(dx, dy)) % 360.0)
    return 0.0 if angle >= 360.0 else angle


def vector_move(start: MoveStart, order: Order, *, whole: bool = True) -> MoveResult:
    """Carry out a legal vector order (000 12.12, L13411-13986).

    The ship drifts on its starting vector, then each written manoeuvre moves or turns it in
    sequence: ``MD k`` k MU along the facing, a push n MU off it (port, starboard, reverse), a
    rotation turns the facing. The new velocity is the whole displacement: its course the
    displacement's direction, its speed the length, rounded to the nearest whole MU (half up)
    when ``whole`` (FB1), else kept to 0.001. ``mid_x``, ``mid_y`` lie half way along the
    straight line from start to end, the path terrain and mines meet (index 12.12).

    >>> m = vector_move(MoveStart(x=0, y=0, course=12, speed=10, vector=(0.0, 10.0)),
    ...                 parse_order("TP3.MD6"))
    >>> m.x, m.y, m.course, m.vector  # 000 L13411-13986: sqrt(136) = 11.66 -> 12
    (-6.0, 10.0, 9, (329.036, 12.0))
    """
    assert start.vector is not None
    course, speed = start.vector
    dx, dy = angle_vector(course)
    x, y = start.x + dx * speed, start.y + dy * speed
    facing = start.course
    for burn in order.vector:
        if burn.kind == "TP":
            facing = course_after(facing, -burn.amount)
        elif burn.kind == "TS":
            facing = course_after(facing, burn.amount)
        else:
            angle = facing % COURSES * DEGREES_PER_COURSE + PUSH_ANGLE.get(burn.kind, 0.0)
            dx, dy = angle_vector(angle)
            x, y = x + dx * burn.amount, y + dy * burn.amount
    x, y = round_mu(x), round_mu(y)
    dx, dy = x - start.x, y - start.y
    length = math.hypot(dx, dy)
    new_course = course if length == 0 else _angle_of(dx, dy)
    new_speed = float(math.floor(length + 0.5)) if whole else round_mu(length)
    return MoveResult(
        x=x,
        y=y,
        course=facing,
        speed=math.floor(new_speed + 0.5),
        mid_x=round_mu(start.x + dx / 2),
        mid_y=round_mu(start.y + dy / 2),
        vector=(new_course, new_speed),
    )
