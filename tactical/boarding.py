"""Boarding actions as pure functions (Project Continuum 12.7, 000 L12944-13213; boarding
torpedoes 5.18, L5074-5137): the boarders aboard, the two sides' allocations and their
notation, the three steps of a round of boarding combat, and the default doctrine.

Boarders are marines and boarding parties (DCPs acting as boarders, 000 L12958-12968) of one
side aboard a ship of the other, counted per landing (:class:`Boarders`). In phase 12 the
boarders' side says how many of them engage the defending marines, the rest going for the
hull (:class:`Assault`); then the defender puts its DCPs and marines on particular boarders
(:class:`Guard`), and :func:`melee` rolls the round (000 L13043-13093). The battle
(:mod:`tactical.battle`) decides when, applies the outcome and checks thresholds.

>>> dcp_kills(4, 3), dcp_kills(5, 2), dcp_kills(5, 1)  # 000 L12997-13003
(True, True, False)
>>> format_guards(parse_guards("Mh3.Mh3.Mm+1.Mm+1"))
'Mh3.Mh3.Mm+1.Mm+1'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from msgspec import Struct

from tactical.dice import DiceSource
from tactical.missiles import magazine_feeds
from tactical.ship import Ship, ShipState, read_off

__all__ = [
    "BOARDING_MAGAZINE",
    "BOARDING_TORPEDO",
    "CREW_KINDS",
    "DCP_MOST",
    "MARINE_KILLS_ON",
    "MAX_ROUNDS",
    "TORPEDO_HULL",
    "TORPEDO_MARINES",
    "Assault",
    "BoarderKind",
    "BoarderLosses",
    "Boarders",
    "BoardingSyntaxError",
    "Guard",
    "GuardRoll",
    "Melee",
    "Task",
    "assault_doctrine",
    "assault_problem",
    "dcp_kills",
    "defending_marines",
    "format_assaults",
    "format_guards",
    "format_repel",
    "guard_doctrine",
    "guard_problem",
    "melee",
    "parse_assaults",
    "parse_guards",
    "parse_repel",
    "torpedo_feeds",
    "torpedo_ready",
    "with_losses",
]

BoarderKind = Literal["marine", "party"]
"""A marine, or a boarding party: a DCP acting as a boarder (000 L12958-12968)."""
Task = Literal["marines", "hull"]
"""What a boarder does this round: engage the defending marines, or wreck the hull (000
L13049-13053)."""

DCP_MOST = 3  # three DCPs on one boarder kill it on 4+, the table's last line (000 L12997-13003)
MARINE_KILLS_ON = 4  # a marine kills a boarder, or a defending marine, on 4+ (000 L13025-13035)
TORPEDO_MARINES = 2  # a boarding torpedo's hit puts two marines aboard (000 L5122-5128)
TORPEDO_HULL = 1  # ... and does one point to the hull, past armour (000 L5122-5124)
BOARDING_TORPEDO = "boarding_torpedo"  # the launcher (000 L5134)
BOARDING_MAGAZINE = "boarding_magazine"  # its magazine, one torpedo a load (000 L5136)
CREW_KINDS = frozenset({"marines", "dcp"})
"""The record sheet's systems that are people: a threshold check caused by boarding combat
does not kill them (000 L13097-13099)."""
MAX_ROUNDS = 100
"""A stop for a boarding action fought out after its ship left the battle (see
docs/rulings.md): after this many rounds the boarders left are lost."""

_KIND_LETTER: dict[BoarderKind, str] = {"marine": "M", "party": "P"}
_TASK_LETTER: dict[Task, str] = {"marines": "m", "hull": "h"}
_GUARD = re.compile(r"(?P<kind>[MP])(?P<task>[mh])(?P<dcps>\d+)?(?:\+(?P<marines>\d+))?")
_ASSAULT = re.compile(r"M(?P<marines>\d+)P(?P<parties>\d+)")


class BoardingSyntaxError(ValueError):
    """A boarding allocation is not in the notation; the message quotes it."""


class Boarders(Struct, frozen=True, kw_only=True, gc=False):
    """One side's marines and boarding parties aboard an enemy ship that came aboard in the
    turn ``landed``: they cannot be lost to threshold checks of that turn (000 L13105-13109)."""

    side: str
    landed: int
    marines: int = 0
    parties: int = 0

    @property
    def count(self) -> int:
        """The boarders in this landing."""
        return self.marines + self.parties


class Assault(Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """The boarders' allocation aboard one ship: the marines and the boarding parties that
    engage the defending marines; the rest try to damage the hull (000 L13049-13053).

    >>> format_assaults({"wulkan": Assault(marines=2)})
    'wulkan:M2P0'
    """

    marines: int = 0
    parties: int = 0


class Guard(Struct, frozen=True, array_like=True, gc=False):
    """The defenders the ship puts on one particular boarder (000 L13053-13057): a boarder of
    ``kind`` doing ``task``, with ``dcps`` DCPs (up to :data:`DCP_MOST`) and ``marines``
    defending marines on it. Guards on the same kind and task take its boarders in turn."""

    kind: BoarderKind
    task: Task
    dcps: int = 0
    marines: int = 0


class GuardRoll(Struct, frozen=True, kw_only=True, gc=False):
    """One guard's dice: the DCPs' damage-control roll, the defending marines' dice, and what
    killed the boarder if it died: ``dcp`` in step 1 or ``marines`` in step 2."""

    guard: Guard
    dcp: int | None = None
    marines: tuple[int, ...] = ()
    killed: Literal["dcp", "marines"] | None = None


class Melee(Struct, frozen=True, kw_only=True, gc=False):
    """One round of boarding combat aboard one ship (000 L13043-13093).

    ``guards`` are the defender's rolls, in the defender's order; ``attack`` the dice of the
    boarders that engaged the defending marines and lived through step 1, marines first;
    ``hits`` the defending marines they killed; ``hull`` the boarders on the hull that lived
    through steps 1 and 2, each a point of hull damage.
    """

    guards: tuple[GuardRoll, ...] = ()
    attack: tuple[int, ...] = ()
    hits: int = 0
    marines_killed: int = 0
    parties_killed: int = 0
    hull: int = 0


class BoarderLosses(Struct, frozen=True, kw_only=True, gc=False):
    """What a threshold check caused by weapons fire did to one landing of boarders aboard:
    one die per boarder, marines first, each killed on the systems' target (000
    L13099-13109)."""

    side: str
    landed: int
    faces: tuple[int, ...]
    marines: int = 0
    parties: int = 0


def dcp_kills(face: int, dcps: int) -> bool:
    """Return whether ``dcps`` DCPs on one boarder kill it with this damage-control roll: one
    on a 6, two on 5+, three on 4+ (000 L12997-13003)."""
    return dcps > 0 and face >= 7 - min(dcps, DCP_MOST)


def defending_marines(ship: Ship, state: ShipState) -> tuple[str, ...]:
    """Return the ship's marines still fighting, by system id, in record-sheet order: marines
    are a system on the record sheet (000 L15100-15108)."""
    return tuple(
        spec.id
        for spec, now in zip(ship.systems, state.systems, strict=True)
        if spec.kind == "marines" and now.status == "ok"
    )


def torpedo_feeds(ship: Ship) -> dict[str, str]:
    """Return the magazine that feeds each boarding torpedo launcher, by system id: the n-th
    launcher the n-th magazine and the launchers beyond the last magazine the last one, as
    for salvo missiles (000 L5106-5114; see docs/rulings.md)."""
    return dict(read_off(ship, _torpedo_feeds))  # a copy: the reading is kept


def _torpedo_feeds(ship: Ship) -> dict[str, str]:
    return magazine_feeds(ship, {BOARDING_MAGAZINE}, {BOARDING_TORPEDO})


def torpedo_ready(ship: Ship, state: ShipState, launcher: str) -> bool:
    """Whether a boarding torpedo launcher may fire: it and its magazine work, and the
    magazine holds a torpedo (000 L5090-5114)."""
    magazine = torpedo_feeds(ship).get(launcher)
    statuses = {s.id: s for s in state.systems}
    if magazine is None or statuses[launcher].status != "ok":
        return False
    return statuses[magazine].status == "ok" and (statuses[magazine].ammo or 0) > 0


def with_losses(boarders: Sequence[Boarders], marines: int, parties: int) -> tuple[Boarders, ...]:
    """Take ``marines`` and ``parties`` off the landings, the earliest first; empty landings
    go (see docs/rulings.md)."""
    left: list[Boarders] = []
    for landing in boarders:
        lost_m, lost_p = min(marines, landing.marines), min(parties, landing.parties)
        marines, parties = marines - lost_m, parties - lost_p
        after = Boarders(
            side=landing.side,
            landed=landing.landed,
            marines=landing.marines - lost_m,
            parties=landing.parties - lost_p,
        )
        if after.count:
            left.append(after)
    return tuple(left)


# ---------------------------------------------------------------- allocations


def assault_problem(assault: Assault, marines: int, parties: int, defenders: int) -> str | None:
    """Return why the boarders aboard (``marines`` and ``parties``) may not make this
    allocation against ``defenders`` defending marines, or ``None``."""
    if assault.marines > marines or assault.parties > parties:
        return (
            f"{assault.marines} marines and {assault.parties} parties engage, but {marines} "
            f"marines and {parties} parties are aboard"
        )
    if (assault.marines or assault.parties) and not defenders:
        return "the ship has no marines left to engage (000 L13031-13035)"
    return None


def guard_problem(
    guards: Sequence[Guard],
    marines: int,
    parties: int,
    assault: Assault,
    dcps: int,
    defenders: int,
) -> str | None:
    """Return why the defender may not make this allocation, or ``None``.

    Each guard is one boarder of its kind and task, so there are no more guards on a kind and
    task than boarders doing it; one to :data:`DCP_MOST` DCPs or some marines each (000
    L12989-13003, L13053-13057); no more DCPs than the ship has free, nor marines than it has.
    """
    aboard = {
        ("marine", "marines"): assault.marines,
        ("marine", "hull"): marines - assault.marines,
        ("party", "marines"): assault.parties,
        ("party", "hull"): parties - assault.parties,
    }
    taken: dict[tuple[BoarderKind, Task], int] = {}
    for guard in guards:
        if not 0 <= guard.dcps <= DCP_MOST or guard.marines < 0:
            return f"0 to {DCP_MOST} DCPs on one boarder (000 L12997-13003)"
        if not guard.dcps and not guard.marines:
            return "a guard puts DCPs or marines on its boarder"
        key = (guard.kind, guard.task)
        taken[key] = taken.get(key, 0) + 1
        if taken[key] > aboard[key]:
            return f"{aboard[key]} {guard.kind}s aboard are on the {guard.task}, not {taken[key]}"
    used = sum(g.dcps for g in guards)
    if used > dcps:
        return f"{used} DCPs, but the ship has {dcps} free (000 L11415-11425)"
    fighting = sum(g.marines for g in guards)
    if fighting > defenders:
        return f"{fighting} marines, but the ship has {defenders}"
    return None


def assault_doctrine(marines: int, parties: int, defenders: int) -> Assault:
    """The computer's allocation, the worked example's (000 L13178-13182): as many boarders
    as there are defending marines, up to half of them rounded up, engage the marines,
    marines first; the rest go for the hull. With no defending marines all go for the hull.

    >>> assault_doctrine(4, 0, 2)
    Assault(marines=2, parties=0)
    """
    if not defenders:
        return Assault()
    engage = min(defenders, (marines + parties + 1) // 2)
    taken = min(marines, engage)
    return Assault(marines=taken, parties=min(parties, engage - taken))


def guard_doctrine(
    marines: int, parties: int, assault: Assault, dcps: int, defenders: int
) -> tuple[Guard, ...]:
    """The computer's defence, the worked example's (000 L13184-13190): the DCPs three to a
    boarder, those on the hull first; the marines one to a boarder, those engaging them first,
    then the hull's with fewest DCPs on them, and round again if there are more marines.

    >>> format_guards(guard_doctrine(4, 0, Assault(marines=2), 6, 2))
    'Mh3.Mh3.Mm+1.Mm+1'
    """
    units: list[tuple[BoarderKind, Task]] = [
        *(("marine", "hull") for _ in range(marines - assault.marines)),
        *(("party", "hull") for _ in range(parties - assault.parties)),
        *(("marine", "marines") for _ in range(assault.marines)),
        *(("party", "marines") for _ in range(assault.parties)),
    ]
    on = [[0, 0] for _ in units]  # DCPs and marines on each boarder
    left = dcps
    for entry in on:
        entry[0] = min(DCP_MOST, left)
        left -= entry[0]
    engaged = [i for i, unit in enumerate(units) if unit[1] == "marines"]
    hull = sorted((i for i, unit in enumerate(units) if unit[1] == "hull"), key=lambda i: on[i][0])
    order = engaged + hull
    for n in range(defenders if order else 0):
        on[order[n % len(order)]][1] += 1
    return tuple(
        Guard(kind, task, dcps=entry[0], marines=entry[1])
        for (kind, task), entry in zip(units, on, strict=True)
        if entry[0] or entry[1]
    )


# ---------------------------------------------------------------- combat


def melee(
    dice: DiceSource,
    key: str,
    boarders: tuple[int, int],
    assault: Assault,
    guards: Sequence[Guard],
    defenders: int,
    party_on: int = MARINE_KILLS_ON,
) -> Melee:
    """Roll one round of boarding combat aboard a ship (000 L13043-13093).

    ``boarders`` are the marines and parties aboard, ``assault`` and ``guards`` the two
    allocations (checked), ``defenders`` the defending marines. Step 1: each guard's DCPs make
    a damage-control roll, ``{key}/dcp/<guard>``, and the boarders they kill are removed. Step
    2, simultaneous: each guard's marines roll ``{key}/marine/<guard>/<n>``, killing their
    boarder, if still alive, on any 4+; each boarder engaging the marines that lived through
    step 1 rolls ``{key}/attack/<n>``, marines first: a marine kills a defending marine on 4+,
    a boarding party on ``party_on`` (see docs/rulings.md). Step 3: the boarders on the hull
    still alive each do a point of damage, which the caller applies.
    """
    counts = {
        ("marine", "marines"): assault.marines,
        ("marine", "hull"): boarders[0] - assault.marines,
        ("party", "marines"): assault.parties,
        ("party", "hull"): boarders[1] - assault.parties,
    }
    targets: list[tuple[BoarderKind, Task, int]] = []
    seen: dict[tuple[BoarderKind, Task], int] = {}
    for guard in guards:
        index = seen.get((guard.kind, guard.task), 0)
        seen[(guard.kind, guard.task)] = index + 1
        targets.append((guard.kind, guard.task, index))
    dcp_faces: dict[int, int] = {}
    dead: dict[tuple[BoarderKind, Task, int], Literal["dcp", "marines"]] = {}
    for n, guard in enumerate(guards):  # step 1: DCPs (000 L13061-13069)
        if guard.dcps:
            dcp_faces[n] = dice.roll(f"{key}/dcp/{n}", 6)
            if dcp_kills(dcp_faces[n], guard.dcps):
                dead[targets[n]] = "dcp"
    marine_faces: dict[int, tuple[int, ...]] = {}
    struck: set[tuple[BoarderKind, Task, int]] = set()
    for n, guard in enumerate(guards):  # step 2: the defending marines (000 L13073-13081)
        marine_faces[n] = tuple(dice.roll(f"{key}/marine/{n}/{i}", 6) for i in range(guard.marines))
        if targets[n] not in dead and any(f >= MARINE_KILLS_ON for f in marine_faces[n]):
            struck.add(targets[n])
    engaging = [
        (kind, i)
        for kind in ("marine", "party")
        for i in range(counts[(kind, "marines")])
        if (kind, "marines", i) not in dead
    ]
    attack = tuple(dice.roll(f"{key}/attack/{n}", 6) for n in range(len(engaging)))
    hits = sum(
        1
        for (kind, _i), face in zip(engaging, attack, strict=True)
        if face >= (MARINE_KILLS_ON if kind == "marine" else party_on)
    )
    for unit in struck:
        dead[unit] = "marines"
    hull = sum(
        1
        for kind in ("marine", "party")
        for i in range(counts[(kind, "hull")])
        if (kind, "hull", i) not in dead
    )
    return Melee(
        guards=tuple(
            GuardRoll(
                guard=guard,
                dcp=dcp_faces.get(n),
                marines=marine_faces[n],
                killed=dead.get(targets[n]),
            )
            for n, guard in enumerate(guards)
        ),
        attack=attack,
        hits=min(hits, defenders),
        marines_killed=sum(1 for kind, _t, _i in dead if kind == "marine"),
        parties_killed=sum(1 for kind, _t, _i in dead if kind == "party"),
        hull=hull,
    )


# ---------------------------------------------------------------- notation


def format_assaults(assaults: Mapping[str, Assault]) -> str:
    """Write a side's assault allocations, ``ship:M<marines>P<parties>`` per boarded ship
    (the boarders that engage the defending marines), ships sorted."""
    return " ".join(f"{s}:M{assaults[s].marines}P{assaults[s].parties}" for s in sorted(assaults))


def parse_assaults(text: str) -> dict[str, Assault]:
    """Read a side's assault allocations written by :func:`format_assaults`.

    Raises:
        BoardingSyntaxError: a token is malformed or names a ship twice.
    """
    assaults: dict[str, Assault] = {}
    for token in text.split():
        ship, colon, rest = token.partition(":")
        found = _ASSAULT.fullmatch(rest)
        if not colon or not ship or found is None:
            raise BoardingSyntaxError(f"assault {token!r} is not <ship>:M<marines>P<parties>")
        if ship in assaults:
            raise BoardingSyntaxError(f"assaults {text!r} name {ship!r} twice")
        assaults[ship] = Assault(marines=int(found["marines"]), parties=int(found["parties"]))
    return assaults


def _guard_text(guard: Guard) -> str:
    text = f"{_KIND_LETTER[guard.kind]}{_TASK_LETTER[guard.task]}"
    if guard.dcps:
        text += str(guard.dcps)
    return f"{text}+{guard.marines}" if guard.marines else text


def format_guards(guards: Sequence[Guard]) -> str:
    """Write one ship's guards, dot-separated: ``Mh3`` is three DCPs on a marine on the hull,
    ``Pm2+1`` two DCPs and a marine on a boarding party engaging the marines; ``-`` none."""
    return ".".join(_guard_text(g) for g in guards) or "-"


def parse_guards(text: str) -> tuple[Guard, ...]:
    """Read one ship's guards written by :func:`format_guards`.

    Raises:
        BoardingSyntaxError: a guard is malformed.
    """
    if text == "-":
        return ()
    guards: list[Guard] = []
    kinds = {v: k for k, v in _KIND_LETTER.items()}
    tasks = {v: k for k, v in _TASK_LETTER.items()}
    for part in text.split("."):
        found = _GUARD.fullmatch(part)
        if found is None:
            raise BoardingSyntaxError(
                f"guard {part!r} is not <M|P><m|h>[DCPs][+marines], e.g. Mh3 or Pm+1"
            )
        guards.append(
            Guard(
                kinds[found["kind"]],
                tasks[found["task"]],
                dcps=int(found["dcps"] or 0),
                marines=int(found["marines"] or 0),
            )
        )
    return tuple(guards)


def format_repel(guards: Mapping[str, Sequence[Guard]]) -> str:
    """Write a side's guards, ``ship:guards`` per boarded ship, ships sorted."""
    return " ".join(f"{s}:{format_guards(guards[s])}" for s in sorted(guards))


def parse_repel(text: str) -> dict[str, tuple[Guard, ...]]:
    """Read a side's guards written by :func:`format_repel`.

    Raises:
        BoardingSyntaxError: a token is malformed or names a ship twice.
    """
    repel: dict[str, tuple[Guard, ...]] = {}
    for token in text.split():
        ship, colon, rest = token.partition(":")
        if not colon or not ship:
            raise BoardingSyntaxError(f"repel token {token!r} is not <ship>:<guards>")
        if ship in repel:
            raise BoardingSyntaxError(f"repel {text!r} names {ship!r} twice")
        repel[ship] = parse_guards(rest)
    return repel
