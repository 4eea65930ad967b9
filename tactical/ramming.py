"""Ramming (FT2, 001 L973-1001): the rule's numbers and the steps of one ram, pure.

Accidental collisions between ships never happen (001 L975). A deliberate ram is written in the
ship's movement orders for the turn (``R<ship id>``, :mod:`tactical.movement`). After every ship
has moved, the rammer must lie within 2" of its target (L981) and roll a 6 on a D6 to go on
(L979, lower under the set-up's special option); then each ship rolls a D6 and adds its thrust,
and the rammer makes contact only with the higher total (L993; a tie is the target's, digest
A16). On contact each ship deals a D6 times its own damage points left to the other (L995).
:func:`tactical.battle.resolve` carries it out; the choices the text leaves open are in
docs/rulings.md, "Tactical: ramming".

The worked example (001 L999): a corvette with 2 of its 3 damage points left rams an undamaged
heavy cruiser with 16.

>>> contact(attack=5, attack_thrust=8, evade=6, evade_thrust=4)  # the corvette's 13 to 10
True
>>> ram_damage(face=4, points=2), ram_damage(face=3, points=16)
(8, 48)
"""

from __future__ import annotations

__all__ = ["RAM_ON", "RAM_RANGE_MU", "contact", "in_reach", "proceeds", "ram_damage"]

RAM_RANGE_MU = 2.0  # 001 L981: the rammer ends its move within 2" of its target
RAM_ON = 6  # 001 L979: "only if he rolls a SIX may the ramming attempt proceed"


def in_reach(distance: float) -> bool:
    """Return whether a rammer this far from its target at the end of the move may try: within
    2", the bound included as for every range (001 L981; digest R).

    >>> in_reach(2.0), in_reach(2.001)
    (True, False)
    """
    return distance <= RAM_RANGE_MU


def proceeds(face: int, need: int = RAM_ON) -> bool:
    """Return whether the rammer's first D6 lets the attempt go on: ``need`` or more (001 L979).

    >>> proceeds(5), proceeds(6), proceeds(4, need=4)
    (False, True, True)
    """
    return face >= need


def contact(*, attack: int, attack_thrust: int, evade: int, evade_thrust: int) -> bool:
    """Return whether the ram makes contact: the rammer's D6 + thrust beats the target's
    (001 L993). On equal totals the target evades: the rammer must end up with "the
    highest total" (digest A16).

    >>> contact(attack=3, attack_thrust=4, evade=3, evade_thrust=4)
    False
    """
    return attack + attack_thrust > evade + evade_thrust


def ram_damage(*, face: int, points: int) -> int:
    """Return the damage one ship deals the other on contact: its D6 times its own damage
    points left (001 L995)."""
    return face * points
