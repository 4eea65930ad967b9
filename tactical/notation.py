"""A one-line text notation for a battle position, like FEN: ``parse(format(x)) == x``.

Fields, separated by spaces::

    ft2 3 fire:red blue - red:r1:light_cruiser@0,8.5>12v8/h3.1.0/dh/sbeam_b-2=x ...

1. the rules preset; 2. the turn; 3. the phase, with ``:side`` in the fire phase; 4. the side
that fires first this turn (``-`` none); 5. the winner (``-`` none); then one token per ship::

    side:id:design@x,y>course v speed /h<boxes lost per row, dot-separated>
        [/V<vector course in degrees>,<vector speed> under vector movement, where course is
        the facing and speed the velocity rounded; under spatial movement (003) the course of
        motion, a clock point times 30, and the velocity] [/Z<spin rate> spinning, 003]
        [/a<armour lost>] [/d<h|x|o>] [/j<x|o>] [/s<system>=<o|d|x>[#ammo][^fighters]]...
        [/cb<turns out of control, or x for the rest of the battle>] [/cpd power core damaged]
        [/cl<turns before the life support gives out, or x once it has>]
        [/X destroyed | /L left the table | /B away, /b<turn it returns> | /W jumped
        | /A abandoned | /C struck its colours | /P captured by boarders]
        [/F fired this turn] [/r<rows awaiting a check>] [/J<r|p|u> ready to jump, powering up
        for a planned or an unplanned jump] [/N nova cannon armed this turn]
        [/M minesweeper active this turn] [/S standing ready to scramble fighters this turn]
        [/E ECM switched on this turn] [/D Beam-1s on point defence this turn]
        [/K made an active scan this turn]
        [/U used thrust this turn, under FT Lite's aft-fire rule (002 L51)]
        [/I the admiral's ship, acting as if its captain
        were of his level (004 L338, L343)]
        [/?<label>=<class> a bogey to the enemy, the class
        its signature shows] [/t<weapon>=<O|S|L> a pulse torpedo's setting from this turn's
        orders: overloaded, or a variable torpedo's short or long range mode]
        [/f<weapon>@<turn> an overload-upgraded torpedo that fired, or was ejected, in that
        turn, this one or the last] [/g<bay>@<turn> a bay whose group landed and re-arms, the
        turn from which it may launch again, or @x never in this battle (000 8.16)]
        [/o<side>:<marines>.<parties>@<turn> enemy boarders aboard, one field per landing]
        [/rb<rows the boarders' damage completed this turn>] [/u<DCPs that fought boarders
        this turn>] [/k<level>=<class>[,m<mass>][,t<thrust>][,s<screens>] in one side's view
        with closed record sheets, an enemy ship it knows only to that level of the advanced
        sensors' table (000 L12648-12660): its design is then the side's estimate below
        level 3, its record the original values]

Drive, FTL and systems are written only where they differ from the fresh record sheet, so parsing
needs the design catalogue. Last come the orders sides have written this turn and not yet carried
out, as ``w:side=id:order,id:order``, the sides that have made their damage-control rolls this turn,
as ``R:side``, the sides that have fought the boarders aboard their ships this turn, as ``B:side``,
and a campaign battle's fixed table as ``T:x_min,y_min,x_max,y_max``; what a side's advanced
scans have learned of an enemy ship is ``K:side:ship=level``. Fighter groups in flight are
counters of their own,
``G:side:carrier:bay@x,y^fighters[/e<endurance>][/pt][/mkp][/sm][/n][/c<course>]`` (still
aboard: ``/pt`` a torpedo group's pulse torpedoes, ``/mkp`` an MKP group's MKPs, ``/sm`` a missile
group's salvo; ``/n`` launched this turn, flying half its move; ``/c`` its course under spatial
movement, 003), written after the ships; ships with
bays that held course and speed this turn (and may recover a group) are ``H:id,id``; while a robot
group flies under the secondary-move rule, where each ship stood before this turn's move is
``B:id@x,y``. A nova cannon template still burning is ``N:ship@x,y>course s<stage>`` (written
without the space), the ship that fired it, where its template lies, its line of flight and its next
stage. A mine on the table is ``M:side:id@x,y``, with ``/t<turn>`` for the turn a ship laid it in
(it is active from the turn after); set-up mines have none. A salvo missile marker in flight is
``S:side:id@x,y/t<turn>``, its aim point and the turn it was launched in, ``/er`` added for extended
range and ``/l<k>`` for a missile fighter group's salvo launched with ``k`` fighters lost;
a heavy missile (000 6.2) is such a marker with ``/hm``; a multi-stage missile (000 6.6) adds
``/ms<facing>``, then ``/w<turn>`` once it has stayed for its second stage and ``/f<turn>`` once
that stage has flown it on. With
sensors and bogeys, a dummy bogey is ``D:side:id:label@x,y>course v speed`` (written without the
space; under vector movement followed by ``/V<vector course>,<vector speed>`` as a ship),
and in one side's view an enemy contact it has not identified is
``?:side:label:class@x,y>course v speed``.

>>> from tactical.battle import BattleSetup, ShipSetup, context, initial_state
>>> setup = BattleSetup(sides=("red", "blue"), ships=(
...     ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12, speed=8),))
>>> format_position("ft2", initial_state(context(setup)))
'ft2 1 orders - - red:r1:frigate@0,0>12v8/h0.0'
"""

from __future__ import annotations

import re
from typing import get_args

import msgspec

from tactical.battle import (
    BattleState,
    JumpState,
    NovaBlast,
    Phase,
    ShipInPlay,
    ShipStatus,
    SideOrders,
    sheet_for,
)
from tactical.boarding import Boarders, BoardingSyntaxError, parse_assaults
from tactical.fighters import NEVER_RELAUNCH, FighterGroup, FlightSyntaxError, parse_flight
from tactical.mines import Mine
from tactical.missiles import Salvo
from tactical.movement import OrderSyntaxError, format_mu, parse_orders
from tactical.rules import rules_named
from tactical.sensors import Bogey, Dummy, Sighting
from tactical.ship import (
    FOR_THE_BATTLE,
    GIVEN_OUT,
    DriveState,
    FtlState,
    HullClass,
    ShipState,
    SystemState,
    fresh_state,
)

__all__ = ["NotationError", "format_position", "parse_position"]

_DRIVE: dict[DriveState, str] = {"ok": "o", "half": "h", "disabled": "x"}
_FTL: dict[FtlState, str] = {"ok": "o", "lost": "x"}
_STATUS = {"ok": "o", "damaged": "d", "destroyed": "x"}
_SHIP_STATUS: dict[ShipStatus, str] = {
    "destroyed": "X",
    "left": "L",
    "away": "B",
    "jumped": "W",
    "abandoned": "A",
    "struck": "C",
    "captured": "P",
}
_STATUS_OF: dict[str, ShipStatus] = {v: k for k, v in _SHIP_STATUS.items()}
_JUMP: dict[JumpState, str] = {"ready": "r", "powering": "p", "unplanned": "u"}
_PHASES: tuple[Phase, ...] = get_args(Phase)  # every step a position may stand at

_HEAD = re.compile(
    r"(?P<side>[\w.\-]+):(?P<id>[\w.\-]+):(?P<design>[\w.\-]+)"
    r"@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)>(?P<course>\d+)v(?P<speed>\d+)"
)
_GROUP = re.compile(
    r"G:(?P<side>[\w.\-]+):(?P<carrier>[\w.\-]+):(?P<bay>[\w.\-]+)"
    r"@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)\^(?P<fighters>\d+)(?:/e(?P<endurance>\d+))?"
    r"(?P<torpedoes>/pt)?(?P<mkps>/mkp)?(?P<salvo>/sm)?(?P<launching>/n)?"
    r"(?:/c(?P<course>1[0-2]|[1-9]))?"
)
_NOVA = re.compile(
    r"N:(?P<ship>[\w.\-]+)@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)"
    r">(?P<course>\d+)s(?P<stage>\d+)"
)
_MINE = re.compile(
    r"M:(?P<side>[\w.\-]+):(?P<id>[\w.\-]+)@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)"
    r"(?:/t(?P<laid>\d+))?"
)
_SALVO = re.compile(
    r"S:(?P<side>[\w.\-]+):(?P<id>[\w.\-]+)@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)"
    r"/t(?P<launched>\d+)(?P<er>/er)?(?:/l(?P<lost>\d+))?(?P<heavy>/hm)?"
    r"(?:/ms(?P<course>\d+)(?:/w(?P<waited>\d+))?(?:/f(?P<flown>\d+))?)?"
)
_BEFORE = re.compile(r"B:(?P<ship>[\w.\-]+)@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)")
_VECTOR = re.compile(r"V(?P<course>\d+(?:\.\d+)?),(?P<speed>\d+(?:\.\d+)?)")
_PLACE = r"@(?P<x>-?\d+(?:\.\d+)?),(?P<y>-?\d+(?:\.\d+)?)>(?P<course>\d+)v(?P<speed>\d+)"
_DUMMY = re.compile(
    r"D:(?P<side>[\w.\-]+):(?P<id>[\w.\-]+):(?P<label>[\w.\-]+)"
    + _PLACE
    + r"(?:/V(?P<vcourse>\d+(?:\.\d+)?),(?P<vspeed>\d+(?:\.\d+)?))?"
)
_BOGEY = re.compile(
    r"\?:(?P<side>[\w.\-]+):(?P<label>[\w.\-]+):(?P<shows>escort|cruiser|capital|merchant)" + _PLACE
)
_SHOWS: tuple[HullClass, ...] = ("escort", "cruiser", "capital", "merchant")
_SETTING = re.compile(r"t(?P<weapon>[\w.\-]+)=(?P<setting>[OSL])")
_TUBE = re.compile(r"f(?P<weapon>[\w.\-]+)@(?P<turn>\d+)")
_BOARDERS = re.compile(r"o(?P<side>[\w.\-]+):(?P<marines>\d+)\.(?P<parties>\d+)@(?P<landed>\d+)")
_REARM = re.compile(r"g(?P<bay>[\w.\-]+)@(?P<turn>\d+|x)")
_SIGHTING = re.compile(
    r"k(?P<level>[0-3])=(?P<shows>[a-z]+)(?:,m(?P<m>\d+))?(?:,t(?P<t>\d+))?(?:,s(?P<s>\d+))?"
)
_KNOWN = re.compile(r"K:(?P<side>[\w.\-]+):(?P<ship>[\w.\-]+)=(?P<level>[1-4])")
_SYSTEM = re.compile(
    r"s(?P<id>[\w.\-]+)=(?P<status>[odx])(?:#(?P<ammo>\d+))?(?:\^(?P<fighters>\d+))?"
)


class NotationError(ValueError):
    """A position text is malformed; the message quotes the part that is wrong."""


def _system_text(fresh: SystemState, now: SystemState) -> str | None:
    if fresh == now:
        return None
    text = f"s{now.id}={_STATUS[now.status]}"
    if now.ammo is not None:
        text += f"#{now.ammo}"
    if now.fighters is not None:
        text += f"^{now.fighters}"
    return text


_TURN_FLAGS = (
    ("N", "nova"),
    ("M", "sweeping"),
    ("S", "scramble"),
    ("E", "ecm"),
    ("D", "beam_defence"),
    ("K", "scanned"),
    ("U", "thrusted"),
    ("I", "inspired"),
)
"""A ship's flags for this turn as written, in order: the letter and the field it stands for."""
_TURN_FLAG_FIELDS = dict(_TURN_FLAGS)


def _motion_text(ship: ShipInPlay) -> list[str]:
    """A vector or spatial ship's motion, ``V<course>,<speed>``, and its spin, ``Z<rate>``."""
    parts: list[str] = []
    if ship.vector is not None:
        parts.append(f"V{format_mu(ship.vector[0])},{format_mu(ship.vector[1])}")
    if ship.spin:
        parts.append(f"Z{ship.spin}")
    return parts


def _ship_text(rules_name: str, ship: ShipInPlay) -> str:
    sheet = sheet_for(ship.design, rules_named(rules_name).ships)
    fresh = fresh_state(sheet)
    record = ship.record
    parts = [
        f"{ship.side}:{ship.id}:{ship.design}@{format_mu(ship.x)},{format_mu(ship.y)}"
        f">{ship.course}v{ship.speed}",
        "h" + ".".join(str(n) for n in record.hull_lost),
    ]
    parts.extend(_motion_text(ship))
    if record.armour_lost:
        parts.append(f"a{record.armour_lost}")
    if record.drive != fresh.drive:
        parts.append(f"d{_DRIVE[record.drive]}")
    if record.ftl != fresh.ftl:
        parts.append(f"j{_FTL[record.ftl]}")
    for fresh_system, system in zip(fresh.systems, record.systems, strict=True):
        text = _system_text(fresh_system, system)
        if text:
            parts.append(text)
    parts.extend(_core_text(record))
    if ship.status != "active":
        parts.append(_SHIP_STATUS[ship.status])
    if ship.returns is not None:
        parts.append(f"b{ship.returns}")
    if ship.fired:
        parts.append("F")
    if ship.rows:
        parts.append("r" + ".".join(str(n) for n in ship.rows))
    if ship.jump != "none":
        parts.append(f"J{_JUMP[ship.jump]}")
    parts.extend(letter for letter, field in _TURN_FLAGS if getattr(ship, field))
    if ship.bogey is not None:
        parts.append(f"?{ship.bogey}={ship.shows}")
    parts.extend(f"t{weapon}={setting}" for weapon, setting in ship.settings)
    parts.extend(f"f{weapon}@{turn}" for weapon, turn in ship.tubes)
    parts.extend(f"o{b.side}:{b.marines}.{b.parties}@{b.landed}" for b in ship.boarders)
    if ship.board_rows:
        parts.append("rb" + ".".join(str(n) for n in ship.board_rows))
    if ship.repelled:
        parts.append(f"u{ship.repelled}")
    parts.extend(f"g{bay}@{'x' if turn == NEVER_RELAUNCH else turn}" for bay, turn in ship.rearming)
    if ship.sighting is not None:
        parts.append(_sighting_text(ship.sighting))
    return "/".join(parts)


def _sighting_text(seen: Sighting) -> str:
    known = [("m", seen.mass), ("t", seen.thrust), ("s", seen.screens)]
    return f"k{seen.level}={seen.shows}" + "".join(f",{k}{v}" for k, v in known if v is not None)


def _parse_sighting(part: str, token: str) -> Sighting:
    """Read what a side knows of an enemy ship, ``k<level>=<class>[,m<mass>][,t<thrust>]
    [,s<screens>]``."""
    found = _SIGHTING.fullmatch(part)
    if found is None or found["shows"] not in _SHOWS:
        raise NotationError(f"ship {token!r}: bad sighting field {part!r}")
    known = {k: int(found[k]) if found[k] is not None else None for k in ("m", "t", "s")}
    return Sighting(
        level=int(found["level"]),
        shows=_SHOWS[_SHOWS.index(found["shows"])],
        mass=known["m"],
        thrust=known["t"],
        screens=known["s"],
    )


def _core_turns(turns: int, gone: int) -> str:
    return "x" if turns == gone else str(turns)


def _core_text(record: ShipState) -> list[str]:
    """The core systems out (000 10.3), as ``cb``, ``cpd`` and ``cl`` fields."""
    parts: list[str] = []
    if record.out_of_control:
        parts.append("cb" + _core_turns(record.out_of_control, FOR_THE_BATTLE))
    if record.power_core != "ok":
        parts.append("cpd")
    if record.life_support:
        parts.append("cl" + _core_turns(record.life_support, GIVEN_OUT))
    return parts


def _parse_core(record: ShipState, part: str, token: str) -> ShipState:
    """Read a core-system field (``cb3``, ``cbx``, ``cpd``, ``cl2``, ``clx``)."""
    if part == "cpd":
        return msgspec.structs.replace(record, power_core="damaged")
    what, turns = part[:2], part[2:]
    if what not in ("cb", "cl") or not turns:
        raise NotationError(f"ship {token!r}: bad core-system field {part!r}")
    if what == "cb":
        value = FOR_THE_BATTLE if turns == "x" else _int(turns, "turns out of control", token)
        return msgspec.structs.replace(record, out_of_control=value)
    value = GIVEN_OUT if turns == "x" else _int(turns, "life support turns", token)
    return msgspec.structs.replace(record, life_support=value)


def _place(x: float, y: float, course: int, speed: int) -> str:
    return f"@{format_mu(x)},{format_mu(y)}>{course}v{speed}"


def _parse_counter(token: str) -> Dummy | Bogey | None:
    """Read a dummy bogey or a view's enemy contact, or return ``None`` if the token is
    neither."""
    found = _DUMMY.fullmatch(token)
    if found is not None:
        return Dummy(
            id=found["id"],
            side=found["side"],
            label=found["label"],
            x=float(found["x"]),
            y=float(found["y"]),
            course=int(found["course"]),
            speed=int(found["speed"]),
            vector=(
                (float(found["vcourse"]), float(found["vspeed"]))
                if found["vcourse"] is not None
                else None
            ),
        )
    found = _BOGEY.fullmatch(token)
    if found is not None:
        return Bogey(
            label=found["label"],
            side=found["side"],
            shows=_SHOWS[_SHOWS.index(found["shows"])],
            x=float(found["x"]),
            y=float(found["y"]),
            course=int(found["course"]),
            speed=int(found["speed"]),
        )
    return None


def format_position(rules_name: str, state: BattleState) -> str:
    """Write a battle state in the notation; :func:`parse_position` reads it back."""
    phase = f"fire:{state.to_fire}" if state.phase == "fire" else state.phase
    fields = [
        rules_name,
        str(state.turn),
        phase,
        state.first or "-",
        state.winner or "-",
        *(_ship_text(rules_name, ship) for ship in state.ships),
        *(_group_text(group) for group in state.fighters),
        *(
            f"N:{b.ship}@{format_mu(b.x)},{format_mu(b.y)}>{b.course}s{b.stage}"
            for b in state.novas
        ),
        *(_mine_text(mine) for mine in state.mines),
        *(_salvo_text(salvo) for salvo in state.salvos),
        *(
            f"D:{d.side}:{d.id}:{d.label}{_place(d.x, d.y, d.course, d.speed)}"
            + (f"/V{format_mu(d.vector[0])},{format_mu(d.vector[1])}" if d.vector else "")
            for d in state.dummies
        ),
        *(
            f"?:{b.side}:{b.label}:{b.shows}{_place(b.x, b.y, b.course, b.speed)}"
            for b in state.bogeys
        ),
        *(f"w:{w.side}={w.orders.replace(' ', ',')}" for w in state.written),
        *(f"R:{side}" for side in state.repaired),
        *(f"B:{side}" for side in state.fought),
    ]
    if state.held:
        fields.append("H:" + ",".join(state.held))
    fields.extend(f"B:{ship}@{format_mu(x)},{format_mu(y)}" for ship, x, y in state.before)
    if state.table is not None:
        fields.append("T:" + ",".join(format_mu(v) for v in state.table))
    fields.extend(f"K:{side}:{ship}={level}" for side, ship, level in state.known)
    return " ".join(fields)


def _group_text(group: FighterGroup) -> str:
    text = (
        f"G:{group.side}:{group.carrier}:{group.bay}"
        f"@{format_mu(group.x)},{format_mu(group.y)}^{group.fighters}"
    )
    text = text if group.endurance is None else f"{text}/e{group.endurance}"
    text = f"{text}/pt" if group.torpedoes else text
    text = f"{text}/mkp" if group.mkps else text
    text = f"{text}/sm" if group.salvo else text
    text = f"{text}/n" if group.launching else text
    return text if group.course is None else f"{text}/c{group.course}"


def _mine_text(mine: Mine) -> str:
    text = f"M:{mine.side}:{mine.id}@{format_mu(mine.x)},{format_mu(mine.y)}"
    return f"{text}/t{mine.laid}" if mine.laid else text


def _salvo_text(salvo: Salvo) -> str:
    text = f"S:{salvo.side}:{salvo.id}@{format_mu(salvo.x)},{format_mu(salvo.y)}/t{salvo.launched}"
    text = f"{text}/er" if salvo.er else text
    text = f"{text}/l{salvo.lost}" if salvo.lost else text
    text = f"{text}/hm" if salvo.heavy else text
    if salvo.stages > 1:
        text = f"{text}/ms{salvo.course}"
        text = f"{text}/w{salvo.waited}" if salvo.waited else text
        text = f"{text}/f{salvo.flown}" if salvo.flown else text
    return text


def _parse_salvo(token: str) -> Salvo:
    found = _SALVO.fullmatch(token)
    if found is None:
        raise NotationError(
            f"salvo {token!r}: expected S:side:id@x,y/t<turn>[/er][/l<lost>][/hm]"
            "[/ms<facing>[/w<turn>][/f<turn>]]"
        )
    return Salvo(
        id=found["id"],
        side=found["side"],
        x=float(found["x"]),
        y=float(found["y"]),
        launched=int(found["launched"]),
        er=found["er"] is not None,
        lost=int(found["lost"]) if found["lost"] else 0,
        heavy=found["heavy"] is not None,
        stages=2 if found["course"] is not None else 1,
        course=int(found["course"] or 0),
        waited=int(found["waited"] or 0),
        flown=int(found["flown"] or 0),
    )


def _parse_before(token: str) -> tuple[str, float, float]:
    found = _BEFORE.fullmatch(token)
    if found is None:
        raise NotationError(f"start of move {token!r}: expected B:ship@x,y")
    return found["ship"], float(found["x"]), float(found["y"])


def _parse_nova(token: str) -> NovaBlast | None:
    """Read a burning nova template, or return ``None`` if the token is not one."""
    found = _NOVA.fullmatch(token)
    if found is None:
        return None
    return NovaBlast(
        ship=found["ship"],
        x=float(found["x"]),
        y=float(found["y"]),
        course=int(found["course"]),
        stage=int(found["stage"]),
    )


def _parse_mine(token: str) -> Mine | None:
    """Read a mine counter, or return ``None`` if the token is not one."""
    found = _MINE.fullmatch(token)
    if found is None:
        return None
    return Mine(
        id=found["id"],
        side=found["side"],
        x=float(found["x"]),
        y=float(found["y"]),
        laid=int(found["laid"] or 0),
    )


def _parse_group(token: str) -> FighterGroup:
    found = _GROUP.fullmatch(token)
    if found is None:
        raise NotationError(
            f"fighter group {token!r}: expected "
            "G:side:carrier:bay@x,y^n[/e<k>][/pt][/mkp][/sm][/n][/c<course>]"
        )
    return FighterGroup(
        side=found["side"],
        carrier=found["carrier"],
        bay=found["bay"],
        x=float(found["x"]),
        y=float(found["y"]),
        fighters=int(found["fighters"]),
        endurance=int(found["endurance"]) if found["endurance"] else None,
        torpedoes=found["torpedoes"] is not None,
        mkps=found["mkps"] is not None,
        salvo=found["salvo"] is not None,
        launching=found["launching"] is not None,
        course=int(found["course"]) if found["course"] else None,
    )


def _int(text: str, what: str, where: str) -> int:
    if not text.isdigit():
        raise NotationError(f"{where}: {what} {text!r} is not a whole number")
    return int(text)


def _spin(text: str, token: str) -> int:
    """Read a spatial ship's spin rate field (``Z6``, ``Z-4``; 003 L249-264)."""
    try:
        rate = int(text)
    except ValueError:
        raise NotationError(f"ship {token!r}: bad spin field Z{text!r}") from None
    if rate == 0 or text != str(rate):
        raise NotationError(f"ship {token!r}: bad spin field Z{text!r}")
    return rate


def _parse_ship(rules_name: str, token: str) -> ShipInPlay:  # noqa: PLR0915 - one field a branch
    parts = token.split("/")
    head = _HEAD.fullmatch(parts[0])
    if head is None:
        raise NotationError(f"ship {token!r}: expected side:id:design@x,y>course v speed")
    try:
        sheet = sheet_for(head["design"], rules_named(rules_name).ships)
    except LookupError as exc:
        raise NotationError(f"ship {token!r}: {exc}") from None
    fresh = msgspec.structs.replace(fresh_state(sheet), ship_id=head["id"])
    if len(parts) < 2 or not parts[1].startswith("h"):
        raise NotationError(f"ship {token!r}: the hull field h<row>.<row>... must come second")
    hull = tuple(_int(n, "boxes lost", token) for n in parts[1][1:].split("."))
    if len(hull) != len(sheet.rows):
        raise NotationError(f"ship {token!r}: {len(sheet.rows)} hull rows expected")
    record: ShipState = msgspec.structs.replace(fresh, hull_lost=hull)
    systems = {s.id: s for s in record.systems}
    status: ShipStatus = "active"
    returns: int | None = None
    flags: set[str] = set()  # F fired, and the letters of _TURN_FLAGS
    bogey: str | None = None
    shows: HullClass | None = None
    rows: tuple[int, ...] = ()
    jump: JumpState = "none"
    vector: tuple[float, float] | None = None
    spin = 0
    settings: list[tuple[str, str]] = []
    tubes: list[tuple[str, int]] = []
    boarders: list[Boarders] = []
    board_rows: tuple[int, ...] = ()
    repelled = 0
    rearming: list[tuple[str, int]] = []
    sighting: Sighting | None = None
    reverse_jump = {v: k for k, v in _JUMP.items()}
    reverse_drive = {v: k for k, v in _DRIVE.items()}
    reverse_ftl = {v: k for k, v in _FTL.items()}
    reverse_status = {v: k for k, v in _STATUS.items()}
    for part in parts[2:]:
        if part.startswith("a"):
            record = msgspec.structs.replace(record, armour_lost=_int(part[1:], "armour", token))
        elif part.startswith("d") and part[1:] in reverse_drive:
            record = msgspec.structs.replace(record, drive=reverse_drive[part[1:]])
        elif part.startswith("j") and part[1:] in reverse_ftl:
            record = msgspec.structs.replace(record, ftl=reverse_ftl[part[1:]])
        elif part.startswith("s"):
            found = _SYSTEM.fullmatch(part)
            if found is None or found["id"] not in systems:
                raise NotationError(f"ship {token!r}: bad system field {part!r}")
            systems[found["id"]] = SystemState(
                id=found["id"],
                status=reverse_status[found["status"]],  # type: ignore[arg-type]
                ammo=int(found["ammo"]) if found["ammo"] else None,
                fighters=int(found["fighters"]) if found["fighters"] else None,
            )
        elif part.startswith("c"):
            record = _parse_core(record, part, token)
        elif part.startswith("V"):
            found = _VECTOR.fullmatch(part)
            if found is None:
                raise NotationError(f"ship {token!r}: bad vector field {part!r}")
            vector = (float(found["course"]), float(found["speed"]))
        elif part.startswith("Z"):
            spin = _spin(part[1:], token)
        elif part in _STATUS_OF:
            status = _STATUS_OF[part]
        elif part.startswith("J") and part[1:] in reverse_jump:
            jump = reverse_jump[part[1:]]
        elif part.startswith("b"):
            returns = _int(part[1:], "return turn", token)
        elif part == "F" or part in _TURN_FLAG_FIELDS:
            flags.add(part)
        elif part.startswith("?"):
            label, equals, shown = part[1:].partition("=")
            if not equals or not label or shown not in _SHOWS:
                raise NotationError(f"ship {token!r}: bad bogey field {part!r}")
            bogey, shows = label, _SHOWS[_SHOWS.index(shown)]
        elif part.startswith("rb"):
            board_rows = tuple(_int(n, "row", token) for n in part[2:].split("."))
        elif part.startswith("r"):
            rows = tuple(_int(n, "row", token) for n in part[1:].split("."))
        elif part.startswith("g"):
            found = _REARM.fullmatch(part)
            if found is None or found["bay"] not in systems:
                raise NotationError(f"ship {token!r}: bad re-arming field {part!r}")
            ready = found["turn"]
            rearming.append((found["bay"], NEVER_RELAUNCH if ready == "x" else int(ready)))
        elif part.startswith(("t", "f")):
            setting, tube = _SETTING.fullmatch(part), _TUBE.fullmatch(part)
            if setting is not None and setting["weapon"] in systems:
                settings.append((setting["weapon"], setting["setting"]))
            elif tube is not None and tube["weapon"] in systems:
                tubes.append((tube["weapon"], int(tube["turn"])))
            else:
                raise NotationError(f"ship {token!r}: bad torpedo field {part!r}")
        elif part.startswith("o"):
            boarders.append(_parse_boarders(part, token))
        elif part.startswith("u"):
            repelled = _int(part[1:], "DCPs that fought boarders", token)
        elif part.startswith("k"):
            sighting = _parse_sighting(part, token)
        else:
            raise NotationError(f"ship {token!r}: unknown field {part!r}")
    record = msgspec.structs.replace(record, systems=tuple(systems.values()))
    return ShipInPlay(
        id=head["id"],
        side=head["side"],
        design=head["design"],
        x=float(head["x"]),
        y=float(head["y"]),
        course=int(head["course"]),
        speed=int(head["speed"]),
        record=record,
        status=status,
        returns=returns,
        fired="F" in flags,
        rows=rows,
        jump=jump,
        **{field: letter in flags for letter, field in _TURN_FLAGS},
        bogey=bogey,
        shows=shows,
        vector=vector,
        spin=spin,
        settings=tuple(settings),
        tubes=tuple(tubes),
        boarders=tuple(boarders),
        board_rows=board_rows,
        repelled=repelled,
        rearming=tuple(rearming),
        sighting=sighting,
    )


def _parse_boarders(part: str, token: str) -> Boarders:
    """Read a landing of boarders aboard, ``o<side>:<marines>.<parties>@<turn>``."""
    found = _BOARDERS.fullmatch(part)
    if found is None:
        raise NotationError(f"ship {token!r}: bad boarders field {part!r}")
    return Boarders(
        side=found["side"],
        landed=int(found["landed"]),
        marines=int(found["marines"]),
        parties=int(found["parties"]),
    )


def _parse_written(token: str, phase: str) -> SideOrders:
    """Read one side's written orders: flight orders in the flight and fighters steps, the
    boarders' assaults in the assault and repel steps."""
    side, equals, orders = token[2:].partition("=")
    if not equals:
        raise NotationError(f"written orders {token!r}: expected w:side=id:order,...")
    try:
        if phase in ("flight", "fighters"):
            parse_flight(orders.replace(",", " "))
        elif phase in ("assault", "repel"):
            parse_assaults(orders.replace(",", " "))
        else:
            parse_orders(orders.replace(",", " "))
    except (OrderSyntaxError, FlightSyntaxError, BoardingSyntaxError) as exc:
        raise NotationError(f"written orders {token!r}: {exc}") from None
    return SideOrders(side, orders.replace(",", " "))


def parse_position(text: str) -> tuple[str, BattleState]:  # noqa: PLR0915 - one counter a branch
    """Read a position written by :func:`format_position`: its rules preset and state.

    Raises:
        NotationError: the text is malformed; the message quotes the bad part.
    """
    fields = text.split()
    if len(fields) < 5:
        raise NotationError(f"position {text!r}: expected rules, turn, phase, first, winner")
    rules_name, turn_text, phase_text, first, winner = fields[:5]
    try:
        rules_named(rules_name)
    except KeyError as exc:
        raise NotationError(f"position {text!r}: {exc.args[0]}") from None
    phase, _, to_fire = phase_text.partition(":")
    if phase not in _PHASES or (phase == "fire") != bool(to_fire):
        raise NotationError(f"position {text!r}: bad phase {phase_text!r}")
    ships: list[ShipInPlay] = []
    written: list[SideOrders] = []
    repaired: list[str] = []
    fought: list[str] = []
    groups: list[FighterGroup] = []
    held: tuple[str, ...] = ()
    before: list[tuple[str, float, float]] = []
    table: tuple[float, float, float, float] | None = None
    novas: list[NovaBlast] = []
    mines: list[Mine] = []
    salvos: list[Salvo] = []
    dummies: list[Dummy] = []
    bogeys: list[Bogey] = []
    known: list[tuple[str, str, int]] = []
    for token in fields[5:]:
        blast = _parse_nova(token)
        mine = _parse_mine(token)
        counter = _parse_counter(token)
        if isinstance(counter, Dummy):
            dummies.append(counter)
        elif isinstance(counter, Bogey):
            bogeys.append(counter)
        elif token.startswith(("D:", "?:")):
            raise NotationError(f"counter {token!r}: expected D:side:id:label@x,y>cvs or ?:...")
        elif mine is not None:
            mines.append(mine)
        elif blast is not None:
            novas.append(blast)
        elif token.startswith("G:"):
            groups.append(_parse_group(token))
        elif token.startswith("S:"):
            salvos.append(_parse_salvo(token))
        elif token.startswith("H:"):
            held = tuple(token[2:].split(","))
        elif token.startswith("B:") and "@" in token:  # where a ship stood: B:id@x,y
            before.append(_parse_before(token))
        elif token.startswith("T:"):
            bounds = token[2:].split(",")
            try:
                x_min, y_min, x_max, y_max = (float(v) for v in bounds)
            except ValueError:
                raise NotationError(
                    f"table {token!r}: expected T:x_min,y_min,x_max,y_max"
                ) from None
            table = (x_min, y_min, x_max, y_max)
        elif token.startswith("K:"):
            known.append(_parse_known(token))
        elif token.startswith("R:"):
            repaired.append(token[2:])
        elif token.startswith("B:"):
            fought.append(token[2:])
        elif token.startswith("w:"):
            written.append(_parse_written(token, phase))
        else:
            ships.append(_parse_ship(rules_name, token))
    state = BattleState(
        turn=_int(turn_text, "turn", text),
        phase=phase,
        ships=tuple(ships),
        written=tuple(written),
        repaired=tuple(repaired),
        fought=tuple(fought),
        first=None if first == "-" else first,
        to_fire=to_fire or None,
        winner=None if winner == "-" else winner,
        table=table,
        fighters=tuple(groups),
        held=held,
        before=tuple(before),
        novas=tuple(novas),
        mines=tuple(mines),
        salvos=tuple(salvos),
        dummies=tuple(dummies),
        bogeys=tuple(bogeys),
        known=tuple(known),
    )
    return rules_name, state


def _parse_known(token: str) -> tuple[str, str, int]:
    """Read what a side's advanced scans learned of an enemy ship, ``K:side:ship=level``."""
    found = _KNOWN.fullmatch(token)
    if found is None:
        raise NotationError(f"knowledge {token!r}: expected K:side:ship=level, level 1 to 4")
    return found["side"], found["ship"], int(found["level"])
