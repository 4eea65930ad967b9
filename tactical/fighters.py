"""Fighters and point defence as pure functions: groups, flight orders, kill dice.

A fighter group is its own counter on the table (:class:`FighterGroup`): launched from a bay,
it flies by a written flight order each turn (:class:`FlightOrder`), and the battle
(:mod:`tactical.battle`) resolves dogfights, point defence and attack runs in one chance step
before ship fire. This module holds the rule tables and the dice; the battle decides when.

>>> kills_of(4), kills_of(6), kills_of(3)  # 001 L789: 4-5 kill one, 6 kills two
(1, 2, 0)
>>> format_flight(parse_flight("r1.fighter_group-1:A>b1 r1.fighter_group-2:R"))
'r1.fighter_group-1:A>b1 r1.fighter_group-2:R'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Literal

import msgspec
from msgspec import Struct

from tactical.dice import DiceSource
from tactical.fire import MAX_REROLLS
from tactical.ship import Ship, ShipState, SystemSpec, read_off

__all__ = [
    "AREA_DEFENCE",
    "AREA_FIRE_CONTROL",
    "ASSAULT_SHUTTLE",
    "DEFENDING_BEAM",
    "FIGHTER_BASES",
    "FIGHTER_MODS",
    "FIGHTER_RANGE_MU",
    "FIGHTER_TYPES",
    "GRAPESHOT",
    "GROUP_FIGHTERS",
    "HOLD",
    "INTERCEPT_LOSS_ON",
    "KILLS",
    "LIGHT_GROUP_FIGHTERS",
    "MISSILE_FIGHTER_RANGE_MU",
    "MISSILE_KILL_ON",
    "NEVER_RELAUNCH",
    "POINT_DEFENCE",
    "SCATTERGUN",
    "SECONDARY_MOVE_MU",
    "SHUTTLE_LANDS_ON",
    "STANDARD",
    "TORPEDO_HITS_ON",
    "DefenceSpec",
    "FighterGroup",
    "FighterNameError",
    "FighterType",
    "FighterWing",
    "FlightOrder",
    "FlightSyntaxError",
    "KillRoll",
    "bays",
    "defence_of",
    "defence_roll",
    "fighter_type",
    "format_flight",
    "format_flight_order",
    "group_id",
    "kills_of",
    "launch_limit",
    "parse_fighters",
    "parse_flight",
    "parse_flight_order",
    "relaunch_turn",
    "roll_kills",
    "roll_missile_kills",
]

FIGHTER_RANGE_MU = 6.0  # fighter weapons, ADAF cover and ADFC cover reach 6 (001 L777, L785;
# 000 L9099, L7323)
KILLS = (0, 0, 0, 1, 1, 2)  # fighters killed per face 1..6, AF and dogfight (001 L789-793;
# 000 L9142-9144, L9223-9224)
SCATTERGUN = "scattergun"  # one shot, 1D6 kills, its own FireCon and ADFC (000 7.14)
SCATTERGUN_RANGE_MU = 6.0  # "The range of a Scattergun is 6 MU" (000 L7518), aft too
DEFENDING_BEAM = "beam1"  # on point defence: 5-6 kills one, a 6 re-rolls (000 L5859-5861,
# L9146-9147); a heavy missile only on a 6 (L5901-5903)
GRAPESHOT = "grapeshot"  # one shot, four PDS dice (000 7.15, L7555-7559)
GRAPESHOT_DICE = 4
POINT_DEFENCE = frozenset({"pdaf", "pds", GRAPESHOT})  # self-defence only (001 L783; 000
# L9079-9081)
AREA_DEFENCE = frozenset({"adaf", "ads", SCATTERGUN})  # any group within 6, or attacking a friend
# within 6 (001 L785; 000 7.13)
AREA_FIRE_CONTROL = frozenset({"adfc"})  # lets PDS cover one ally within 6 (000 L9083-9086)

FlightKind = Literal["attack", "dogfight", "intercept", "recover", "cover", "hold"]
_LETTER: dict[FlightKind, str] = {
    "attack": "A",
    "dogfight": "D",
    "intercept": "I",
    "recover": "R",
    "cover": "C",
    "hold": "=",
}
_TARGETED: frozenset[FlightKind] = frozenset({"attack", "dogfight", "intercept", "cover"})


class FighterType(Struct, frozen=True, kw_only=True, gc=False):
    """How one Continuum fighter type differs from a standard group (000 8.15).

    ``ship_drm`` changes each attack-run die, ``fighter_drm`` each die the group rolls in a
    dogfight, ``hit_drm`` each point-defence or dogfight die rolled *at* the group; ``move``
    and ``endurance`` replace the rules' move and combat endurance when set; ``torpedoes``
    groups launch with one-shot pulse torpedoes, ``mkps`` groups with one-shot MKPs, ``salvo``
    groups with one salvo of missiles. ``ship_weapon`` is what an attack run at a ship fires
    (BD* beams, or the graser's or plasma cannon's dice), ``ship_cef`` and ``fighter_cef``
    the combat endurance an attack run and a dogfight round cost. ``intercepts``: the group
    may intercept salvos, ``fighter_drm`` on its dice (000 L9309-9312). ``robot`` groups take
    their secondary move before the ships move (000 L10070-10078). ``shuttles`` groups are
    assault shuttles: at a ship they land boarding parties instead of an attack run (000
    L9997-10032).
    """

    ship_drm: int = 0
    fighter_drm: int = 0
    hit_drm: int = 0
    move: int | None = None
    endurance: int | None = None
    torpedoes: bool = False
    ship_weapon: Literal["beams", "graser", "plasma"] = "beams"
    ship_cef: int = 1
    fighter_cef: int = 1
    mkps: bool = False
    salvo: bool = False
    intercepts: bool = True
    robot: bool = False
    shuttles: bool = False


STANDARD = FighterType()  # 000 L9416-9434: BD* at ships (a B1), BD* at fighters (a PDS)
FIGHTER_TYPES: dict[str, FighterType] = {
    "standard": STANDARD,
    # 000 L9489-9491: PD, other fighters included, at -1 against heavy fighters. A lone
    # "heavy" is the heavy standard fighter; on other types it is a mod (FIGHTER_MODS).
    "heavy": FighterType(hit_drm=-1),
    "fast": FighterType(move=36),  # 000 L9525-9527: base move 36 MU, not 24
    "long_range": FighterType(endurance=9),  # 000 L9557-9563: 9 CEF, not 6
    # 000 L9593-9597: BD* at -2 against ships, +1 against fighters and ordnance.
    "interceptor": FighterType(ship_drm=-2, fighter_drm=+1),
    # 000 L9619-9627: BD* at +1 against ships, -2 against fighters and ordnance.
    # Attack and torpedo fighters cannot intercept missiles (000 L9309-9312).
    "attack": FighterType(ship_drm=+1, fighter_drm=-2, intercepts=False),
    # 000 L9649-9680: beams at -2 against ships and fighters, and one-shot pulse torpedoes.
    "torpedo": FighterType(ship_drm=-2, fighter_drm=-2, torpedoes=True, intercepts=False),
    # 000 L9690-9716: the graser at ships, 2 CEF; secondary cannon BD* at -2 at fighters.
    "graser": FighterType(fighter_drm=-2, ship_weapon="graser", ship_cef=2),
    # 000 L9722-9756: plasma dice at ships, BD* at -2 at fighters; the cannon costs 2 CEF.
    "plasma": FighterType(fighter_drm=-2, ship_weapon="plasma", ship_cef=2, fighter_cef=2),
    # 000 L9762-9794: one-shot MKPs; secondary BD* at -2 at ships and fighters.
    "mkp": FighterType(ship_drm=-2, fighter_drm=-2, mkps=True),
    # 000 L9800-9861: one salvo, launched within 12 MU of an enemy ship; secondary BD* at -2.
    "missile": FighterType(ship_drm=-2, fighter_drm=-2, salvo=True),
    # 000 L9869-9887: configured as standard, interceptor or attack when rearmed; the design
    # does not say which, so it flies as a standard fighter (see docs/rulings.md).
    "multi_role": STANDARD,
    # 000 L9997-10032: one-use craft that land boarding parties on the ship they attack,
    # with "secondary weapons that have a -2 DRM to hit fighters" (L10000-10002).
    "assault_shuttle": FighterType(fighter_drm=-2, shuttles=True),
}
"""The fighter types the battle plays, by ``SystemSpec.fighters``; the rulings they need are in
docs/rulings.md ("Tactical: point defence and fighters")."""

MISSILE_KILL_ON = 5  # a fighter's die kills one salvo missile on 5-6, a 6 re-rolling (000
# L5859-5861, as 8.12 directs, L9307-9309)
INTERCEPT_LOSS_ON = 6  # for each missile a fighter kills a D6: on a 6 the fighter is lost too
# (000 L5913-5917)
EXHAUSTED_KILLS_ON = 6  # a group dogfighted at 0 CEF "only scores one kill on rolls of 6"
# (000 L9346-9350)
SHUTTLE_LANDS_ON = 3  # a surviving assault shuttle lands its boarding party on 3+, a failure a
# casualty (000 L10020-10026)
TORPEDO_HITS_ON = 4  # a fighter's pulse torpedo hits on 4+ for its face in damage (000 L9663-9667)
MISSILE_FIGHTER_RANGE_MU = 12.0  # a missile fighter launches within 12 MU of an enemy ship
# (000 L9810-9817)


NEVER_RELAUNCH = 0
"""The turn a bay's group may relaunch after its re-arming die showed a 1: never in this battle
(000 L10110-10114)."""
REARM_SCRAPPED = 1  # a 1: the group may not relaunch this game (000 L10110-10114)
REARM_CRASH = 6  # a 6: a crash turnaround, it may launch the very next turn (000 L10118-10121)


def relaunch_turn(face: int, recovered: int) -> int:
    """Return the turn from which a group recovered in turn ``recovered`` may launch again,
    by its re-arming die (000 8.16, L10104-10121): :data:`NEVER_RELAUNCH` on a 1, the second
    turn after on 2-5 (one full turn rearming), the next turn on a 6.

    >>> relaunch_turn(1, 4) == NEVER_RELAUNCH, relaunch_turn(2, 4), relaunch_turn(5, 4)
    (True, 6, 6)
    >>> relaunch_turn(6, 4)
    5
    """
    if face <= REARM_SCRAPPED:
        return NEVER_RELAUNCH
    return recovered + (1 if face >= REARM_CRASH else 2)


GROUP_FIGHTERS = 6  # a full wing (group) of 6 fighters (001 L747; 000 L9422-9424, L14846-14848)
LIGHT_GROUP_FIGHTERS = 8  # a light group has 8 (000 L9913-9915)

FIGHTER_BASES: tuple[str, ...] = (
    "standard",
    "interceptor",
    "attack",
    "torpedo",
    "graser",
    "plasma",
    "mkp",
    "missile",
    "multi_role",
    "assault_shuttle",
)
"""The base fighter types a bay may name, one per wing (000 8.15, 14.7 L16852-16884)."""

FIGHTER_MODS: dict[str, FighterType] = {
    # 000 L9913-9933: 8 a group, 4 CEF, and every attack at the group at +1.
    "light": FighterType(hit_drm=+1, endurance=4),
    "heavy": FIGHTER_TYPES["heavy"],
    "fast": FIGHTER_TYPES["fast"],
    "long_range": FIGHTER_TYPES["long_range"],
    # 000 L9981-9989: may start the battle deployed, 1 CEF spent (a set-up choice, not play).
    "ftl": STANDARD,
    # 000 L10070-10078: the secondary move at the end of phase 4, before the ships move.
    "robot": FighterType(robot=True),
}
"""The modifications a bay may add to its base type with ``+``, in the order a canonical name
writes them, and what each changes (000 8.15). ``fast`` and ``long_range`` alone are the fast
and long-range standard fighters, ``heavy`` alone the heavy standard fighter."""

LIGHT_BASES = frozenset({"standard", "interceptor", "attack", "missile"})  # 000 L9947-9953
LIGHT_REFUSED = frozenset({"heavy", "long_range", "torpedo"})  # 000 L9947-9951
ASSAULT_SHUTTLE = "assault_shuttle"  # 000 L9995-10044


class FighterNameError(ValueError):
    """A bay's ``fighters`` does not name a legal wing; the message says which part and why."""


class FighterWing(Struct, frozen=True, kw_only=True, gc=False):
    """A bay's fighters as named: one base type and its modifications (000 8.15).

    >>> wing = parse_fighters("attack+fast+light")
    >>> wing.name, wing.label, wing.fighters, wing.kind.move, wing.kind.endurance
    ('light+fast+attack', 'light fast attack', 8, 36, 4)
    """

    base: str = "standard"
    mods: tuple[str, ...] = ()
    """In :data:`FIGHTER_MODS` order."""

    @property
    def name(self) -> str:
        """The canonical ``fighters`` text: mods, then the base unless a standard with mods."""
        base = () if self.mods and self.base == "standard" else (self.base,)
        return "+".join((*self.mods, *base))

    @property
    def label(self) -> str:
        """The name in words, for the record sheet: ``light fast attack``, ``heavy FTL``."""
        words = self.name.replace("+", " ").replace("_", " ").split()
        return " ".join("FTL" if word == "ftl" else word for word in words)

    @property
    def light(self) -> bool:
        return "light" in self.mods

    @property
    def ftl(self) -> bool:
        """FTL fighters may begin the battle deployed (000 L9981-9989)."""
        return "ftl" in self.mods

    @property
    def fighters(self) -> int:
        """Fighters in a full group: 8 light (000 L9913-9915), else 6."""
        return LIGHT_GROUP_FIGHTERS if self.light else GROUP_FIGHTERS

    @property
    def kind(self) -> FighterType:
        """How the wing plays: its base type's, with each mod's die modifiers added and its
        move and endurance taking over."""
        kind = FIGHTER_TYPES.get(self.base, STANDARD)
        for mod in self.mods:
            change = FIGHTER_MODS[mod]
            kind = msgspec.structs.replace(
                kind,
                ship_drm=kind.ship_drm + change.ship_drm,
                fighter_drm=kind.fighter_drm + change.fighter_drm,
                hit_drm=kind.hit_drm + change.hit_drm,
                move=change.move or kind.move,
                endurance=change.endurance or kind.endurance,
                robot=kind.robot or change.robot,
            )
        return kind


@cache
def parse_fighters(text: str) -> FighterWing:
    """Parse a bay's ``fighters``: a base type and modifications joined by ``+`` in any order
    (``attack+fast``, ``light+interceptor``, ``standard+heavy+ftl``); a base left out is
    standard, so ``heavy`` alone is the heavy standard fighter.

    >>> parse_fighters("heavy") == parse_fighters("standard+heavy")
    True
    >>> parse_fighters("fast+attack") == parse_fighters("attack+fast")
    True

    Raises:
        FighterNameError: a part is unknown or repeated, two base types, or a combination the
            rules forbid.
    """
    parts = [part.strip() for part in text.split("+")]
    bases: list[str] = []
    mods: set[str] = set()
    for part in parts:
        if not part:
            raise FighterNameError(f"fighters {text!r} has an empty part between its '+'")
        if part not in FIGHTER_MODS and part not in FIGHTER_BASES:
            raise FighterNameError(
                f"unknown fighter type {part!r} in {text!r}; types: {', '.join(FIGHTER_BASES)}; "
                f"modifications (+): {', '.join(FIGHTER_MODS)}"
            )
        if part in mods or part in bases:
            raise FighterNameError(
                f"fighters {text!r} name {part!r} twice: a wing takes each part once (000 "
                "L9559-9561: long range 'can only be applied once')"
            )
        if part in FIGHTER_MODS:
            mods.add(part)
        else:
            bases.append(part)
    if len(bases) > 1:
        raise FighterNameError(
            f"fighters {text!r} name two types, {bases[0]!r} and {bases[1]!r}: a wing is one "
            f"type, with modifications ({', '.join(FIGHTER_MODS)})"
        )
    base = bases[0] if bases else "standard"
    if base == ASSAULT_SHUTTLE and mods:
        raise FighterNameError(
            f"assault shuttles take no modifications ({', '.join(sorted(mods))}): the text "
            "prices only the plain wing, 6 points (000 L10036)"
        )
    if "light" in mods:
        refused = sorted(LIGHT_REFUSED & (mods | {base}))
        if refused:
            raise FighterNameError(f"light fighters cannot be {refused[0]} (000 L9947-9951)")
        if base not in LIGHT_BASES:
            raise FighterNameError(
                f"light fighters may be standard, interceptor, attack or missile fighters "
                f"(000 L9947-9953), not {base}"
            )
    return FighterWing(base=base, mods=tuple(mod for mod in FIGHTER_MODS if mod in mods))


def fighter_type(kind: str | None) -> FighterType:
    """Return how a bay's fighters play (:func:`parse_fighters`); FT2 bays, unmodelled types
    and names no design may carry are standard.

    >>> fighter_type("attack").ship_drm, fighter_type(None) == STANDARD
    (1, True)
    >>> fighter_type("light+interceptor").hit_drm, fighter_type("light+interceptor").fighter_drm
    (1, 1)
    """
    if kind is None:
        return STANDARD
    try:
        return parse_fighters(kind).kind
    except FighterNameError:
        return STANDARD


class FlightSyntaxError(ValueError):
    """A flight order is not in the notation; the message quotes it."""


class FlightOrder(Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One fighter group's order for the turn.

    ``attack`` flies at an enemy ship and makes an attack run if it ends within 6 MU (001
    L777); ``dogfight`` flies into contact with an enemy group (001 L810); ``intercept`` flies
    at an enemy salvo marker and engages it if it ends within 6 MU (000 L9297-9307);
    ``recover`` flies home to land (001 L761); ``cover`` flies to a friendly ship; ``hold``
    stays put.
    """

    kind: FlightKind = "hold"
    target: str | None = None
    secondary: bool = False
    """Also make a secondary move, up to 12 MU more for 1 CEF (000 L8760-8786), written ``+``
    after the order: ``A>b1+``."""


HOLD = FlightOrder()
SECONDARY_MOVE_MU = 12.0  # a secondary move: up to 12 MU, whatever the group's type (000
# L8760-8770, L9525-9527)


class FighterGroup(Struct, frozen=True, kw_only=True, gc=False):
    """A fighter group in flight: its carrier and bay, where it is, fighters and endurance."""

    side: str
    carrier: str
    bay: str
    x: float
    y: float
    fighters: int
    endurance: int | None = None
    """Combat endurance left (Continuum CEF); ``None`` without an endurance rule."""
    torpedoes: bool = False
    """Torpedo fighters: the one-shot pulse torpedoes are still aboard (000 L9673-9680)."""
    mkps: bool = False
    """MKP fighters: the one-shot MKPs are still aboard (000 L9768-9774)."""
    salvo: bool = False
    """Missile fighters: the salvo is still aboard (000 L9837-9843)."""
    launching: bool = False
    """Launched this turn under the ``launch_half_move`` rule: it flies half its move (000
    L8526-8528)."""
    course: int | None = None
    """Under spatial movement: its course, which is its facing, a clock point (003
    L288-304); ``None`` under the other movements, where groups turn freely."""

    @property
    def id(self) -> str:
        """The group's id: its carrier and bay, ``carrier.bay``."""
        return group_id(self.carrier, self.bay)


def group_id(carrier: str, bay: str) -> str:
    """Return the id of the group that flies from this carrier's bay.

    >>> group_id("r1", "fighter_group-2")
    'r1.fighter_group-2'
    """
    return f"{carrier}.{bay}"


def bays(ship: Ship) -> tuple[SystemSpec, ...]:
    """Return the ship's fighter bays (systems that hold fighters), in record-sheet order
    (read off the sheet once: every ship is asked as the ships move)."""
    return read_off(ship, _bays)


def _bays(ship: Ship) -> tuple[SystemSpec, ...]:
    return tuple(spec for spec in ship.systems if spec.bay_capacity and spec.fighters)


def launch_limit(ship: Ship, carrier_bays: int) -> int:
    """Return how many groups a ship may launch in one turn: a carrier two, others one (001
    L759)."""
    return 2 if len(bays(ship)) >= carrier_bays else 1


class DefenceSpec(Struct, frozen=True, kw_only=True, gc=False):
    """A ship's working point defence: self-defence systems, area systems, area controls."""

    point: tuple[str, ...]
    area: tuple[str, ...]
    controls: int


def defence_of(ship: Ship, state: ShipState) -> DefenceSpec:
    """Return the ship's working anti-fighter systems by role."""
    point: list[str] = []
    area: list[str] = []
    controls = 0
    for spec, sys_state in zip(ship.systems, state.systems, strict=True):
        if sys_state.status != "ok" or sys_state.ammo == 0:  # a one-shot system fired
            continue
        if spec.kind in POINT_DEFENCE:
            point.append(spec.id)
        elif spec.kind in AREA_DEFENCE:
            area.append(spec.id)
        elif spec.kind in AREA_FIRE_CONTROL:
            controls += 1
    return DefenceSpec(point=tuple(point), area=tuple(area), controls=controls)


def kills_of(face: int, drm: int = 0) -> int:
    """Return the fighters one AF or dogfight die kills (001 L789-793), its face changed by a
    die roll modifier (000 8.15): a modified 1 or less kills none, 6 or more two.

    >>> kills_of(3, +1), kills_of(5, +1), kills_of(6, +1), kills_of(6, -2)  # 000 L9929-9933
    (1, 2, 2, 1)
    """
    return KILLS[min(max(face + drm, 1), 6) - 1]


class KillRoll(Struct, frozen=True, kw_only=True, gc=False):
    """Dice that kill fighters: the faces, any re-rolls and the kills."""

    faces: tuple[int, ...]
    rerolls: tuple[int, ...] = ()
    kills: int = 0


def defence_roll(
    dice: DiceSource,
    key: str,
    kind: str,
    *,
    reroll: bool,
    drm: int = 0,
    heavy: bool = False,
) -> KillRoll:
    """Roll one point defence system's dice at a fighter group or a salvo: a scattergun's D6
    is that many kills, a D3 against heavy fighters (000 L7518-7524); grapeshot rolls four PDS
    dice (L7555-7559); a Beam-1 on point defence one die, 5-6 a kill and a 6 a re-roll (000
    L5859-5861, L9146-9147, :func:`roll_missile_kills`); any other system one die on the kill
    table (:func:`roll_kills`).

    >>> from tactical.dice import ScriptedDice
    >>> defence_roll(ScriptedDice([5]), "k", "scattergun", reroll=False).kills
    5
    >>> defence_roll(ScriptedDice([5]), "k", "scattergun", reroll=False, heavy=True).kills
    3
    >>> defence_roll(ScriptedDice([4, 6, 1, 2]), "k", "grapeshot", reroll=False).kills
    3
    """
    if kind == SCATTERGUN:
        face = dice.roll(f"{key}/0", 6)
        return KillRoll(faces=(face,), kills=(face + 1) // 2 if heavy else face)
    if kind == DEFENDING_BEAM:
        return roll_missile_kills(dice, key, 1, drm=drm)
    count = GRAPESHOT_DICE if kind == GRAPESHOT else 1
    return roll_kills(dice, key, count, reroll=reroll, drm=drm)


def roll_kills(
    dice: DiceSource,
    key: str,
    count: int,
    *,
    reroll: bool,
    drm: int = 0,
    exhausted: bool = False,
) -> KillRoll:
    """Roll ``count`` kill dice (AF or dogfight); with ``reroll`` each natural 6 earns another
    die (000 L9142-9144, L9223-9224). ``drm`` changes every die, re-rolls too (fighter types,
    000 8.15; see docs/rulings.md). An ``exhausted`` group, dogfighted with no endurance left,
    kills one on each natural 6 and nothing else, no modifier, no re-roll (000 L9346-9350).
    Keys ``{key}/{i}``, re-rolls ``{key}/r{j}``.

    >>> from tactical.dice import ScriptedDice
    >>> roll_kills(ScriptedDice([2, 2, 6, 4, 1]), "k", 5, reroll=False).kills  # 001 L818
    3
    >>> roll_kills(ScriptedDice([3, 1, 5, 6]), "k", 4, reroll=True, exhausted=True).kills
    1
    """
    faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(count))
    if exhausted:
        return KillRoll(faces=faces, kills=sum(1 for face in faces if face == EXHAUSTED_KILLS_ON))
    kills = sum(kills_of(face, drm) for face in faces)
    rerolls: list[int] = []
    pending = sum(1 for face in faces if face == 6) if reroll else 0
    while pending and len(rerolls) < MAX_REROLLS:
        face = dice.roll(f"{key}/r{len(rerolls)}", 6)
        rerolls.append(face)
        kills += kills_of(face, drm)
        pending += (face == 6) - 1
    return KillRoll(faces=faces, rerolls=tuple(rerolls), kills=kills)


def roll_missile_kills(dice: DiceSource, key: str, count: int, *, drm: int = 0) -> KillRoll:
    """Roll ``count`` fighters' dice at a salvo (000 L5859-5861): each kills one missile on 5-6
    after ``drm`` (the type's modifier against "fighters, missiles and ordnance", 000
    L9593-9597), and each natural 6 earns another die, scored the same. Keys ``{key}/{i}``,
    re-rolls ``{key}/r{j}``.

    >>> from tactical.dice import ScriptedDice
    >>> roll_missile_kills(ScriptedDice([4, 5, 6, 2, 1]), "k", 4).kills  # the re-roll: 1
    2
    >>> roll_missile_kills(ScriptedDice([4, 3]), "k", 2, drm=+1).kills  # an interceptor's 4
    1
    """
    faces = tuple(dice.roll(f"{key}/{i}", 6) for i in range(count))
    rerolls: list[int] = []
    pending = sum(1 for face in faces if face == 6)
    while pending and len(rerolls) < MAX_REROLLS:
        face = dice.roll(f"{key}/r{len(rerolls)}", 6)
        rerolls.append(face)
        pending += (face == 6) - 1
    kills = sum(1 for face in (*faces, *rerolls) if face + drm >= MISSILE_KILL_ON)
    return KillRoll(faces=faces, rerolls=tuple(rerolls), kills=kills)


# ---------------------------------------------------------------- flight order notation

_TOKEN = re.compile(
    r"(?P<group>[A-Za-z0-9_.\-]+):(?P<letter>[ADIRC=])(?:>(?P<target>[A-Za-z0-9_.\-]+))?"
    r"(?P<secondary>\+)?"
)


def format_flight_order(order: FlightOrder) -> str:
    """Write one flight order: ``A>b1``, ``D>b1.fighter_group-1``, ``I>b1.sml-1.t3``,
    ``C>r2``, ``R`` or ``=``, with ``+`` after it for a secondary move (``A>b1+``, ``R+``)."""
    letter = _LETTER[order.kind]
    text = f"{letter}>{order.target}" if order.target is not None else letter
    return f"{text}+" if order.secondary else text


def parse_flight_order(text: str) -> FlightOrder:
    """Parse one flight order written by :func:`format_flight_order`.

    Raises:
        FlightSyntaxError: the text is not a flight order.
    """
    found = _TOKEN.fullmatch(f"g:{text}")
    if found is None:
        raise FlightSyntaxError(
            f"flight order {text!r} is not A>ship, D>group, I>salvo, C>ship, R (recover) or "
            "'=' (hold)"
        )
    kind = next(k for k, letter in _LETTER.items() if letter == found["letter"])
    target = found["target"]
    if (kind in _TARGETED) != (target is not None):
        raise FlightSyntaxError(f"flight order {text!r}: A, D, I and C take a target, R and = none")
    secondary = found["secondary"] is not None
    if secondary and kind == "hold":
        raise FlightSyntaxError(f"flight order {text!r}: a group that holds makes no second move")
    return FlightOrder(kind=kind, target=target, secondary=secondary)


def parse_flight(text: str) -> dict[str, FlightOrder]:
    """Parse a side's flight orders: ``group:order`` tokens separated by spaces.

    Raises:
        FlightSyntaxError: a token is malformed or a group has two orders.
    """
    orders: dict[str, FlightOrder] = {}
    for token in text.split():
        group, colon, order_text = token.partition(":")
        if not colon or not group:
            raise FlightSyntaxError(f"flight token {token!r} is not <group id>:<order>")
        if group in orders:
            raise FlightSyntaxError(f"flight orders {text!r} give {group!r} two orders")
        orders[group] = parse_flight_order(order_text)
    return orders


def format_flight(orders: Mapping[str, FlightOrder]) -> str:
    """Write a side's flight orders, groups sorted by id."""
    return " ".join(f"{g}:{format_flight_order(orders[g])}" for g in sorted(orders))
