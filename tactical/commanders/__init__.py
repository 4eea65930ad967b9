"""Commanders that play legal actions: random (tests), closing (demo) and the campaign's
order commanders, which play a task force's campaign order (004 L105-112):

- Engage closes on the nearest enemy and fights: every gun that bears, focused on the targets
  nearest to destruction;
- Stand Off keeps the range outside the enemy's longest beam band when its own guns reach
  further, else just outside the enemy's reach, and fires whatever bears;
- FTL Move runs from the enemy and from the no-FTL zones, powers up as soon as its ship is
  ready and clear (004 L142-145), and makes an unplanned jump when badly hurt or out of time.

Fighters: Engage (and the closing commander) launch once an enemy is within
:data:`LAUNCH_RANGE_MU` and send the groups at the nearest enemy ship; Stand Off launches for
defence, dogfighting enemy groups in reach and otherwise covering the nearest friend; FTL
Move keeps its groups aboard and calls any in flight home. A group low on fighters or
endurance comes home, and its carrier holds course and speed so it can land (001 L761); one
still carrying one-shot weapons (torpedoes, MKPs, a salvo) stays out until it has fired them.
Under Stand Off a missile group launches its salvo at the nearest enemy ship in reach.
Point defence fires by itself at the groups attacking (tactical.phases.fighters).

Mines (:func:`with_mines`, every commander but the random one): a ship whose move would take it
within 3" of a known enemy mine turns aside if an order that misses every mine ends close to
where it meant to go; a minesweeper sweeps instead when it has no enemy in reach to shoot or
no way round; a minelayer drops its mines where an enemy is forecast to fly the next turn,
when they are active.

Asteroids (:func:`with_asteroids`, every commander but the random one): a ship whose move
would cross an asteroid's base at a velocity its thrust cannot make safe (001 L1092-1106), or
leave it too fast to slow next turn to a velocity that is always safe, takes instead the legal
order that does neither, ending nearest where it meant to go (failing any, the one that risks
no asteroid now, then the least likely to crash); a launch, a pivot or a nova shot keeps its
order.

Torpedo settings (:func:`with_torpedo_settings`, every commander but the random one,
outermost): once a ship's move is chosen, each overload-upgraded or variable pulse torpedo
takes the setting it may take that expects the most damage from where the move ends, the
enemies flown straight on (000 L4669-4800). An overloaded torpedo fires first, at any target
it reaches, and its ship before its friends: held, it is ejected. The random commander picks
random legal settings.

Boarding (000 12.7, 5.18): every commander allots its boarders and its defenders by the
worked example's doctrine (:func:`doctrine_assaults`, :func:`doctrine_repel`): boarders split
between the defending marines and the hull, DCPs three to a boarder on the hull first,
marines on the boarders that engage them. Engage and the closing commander fire boarding
torpedoes at the enemy within :data:`BOARDING_CLOSE_MU` that its boarders can best take: one
already boarded, else the fewest defenders for its hull left. None of them fires on a
captured ship (the campaign gains nothing from a prize); the random commander may.

Ramming (001 L977-995): the random commander now and then means to ram an enemy near it,
steering for where the enemy will be if it flies straight on (:func:`ram_course`), and
sometimes names a ship it may not ram, to exercise void orders; Engage rams only as a
desperate act, with a warship whose guns are all gone that can end its move within 2" of an
enemy's forecast place. The others never ram.

Dummy bogeys (:func:`with_decoys`, the order commanders and the closing one) copy the move of
the nearest real ship of their side, when a scoutship could fly it (001 L955-959).

Admirals (:func:`with_admiral`, the order commanders and the closing one): a Level 1 admiral
keeps his chosen ship, or gives the extra course point to the biggest; a Level 3 admiral puts
his meddling each turn on the smallest ship whose order a point less does not spoil (004
L338, L343).

The random commander's choices come from a ``random.Random`` the caller passes in; the order
commanders are deterministic. The dice stay the battle's.
"""

from __future__ import annotations

from tactical.commanders.admiral import with_admiral
from tactical.commanders.closing import closing_commander
from tactical.commanders.decoys import with_decoys
from tactical.commanders.engage import engage_commander
from tactical.commanders.ftl_move import ftl_move_commander
from tactical.commanders.random import random_commander
from tactical.commanders.scoring import (
    LAUNCH_RANGE_MU,
    Commander,
    doctrine_assaults,
    doctrine_repel,
    greedy_repairs,
    play,
    posture_flight,
)
from tactical.commanders.stand_off import stand_off_commander
from tactical.commanders.steering import (
    ram_course,
    with_asteroids,
    with_ecm,
    with_fighters,
    with_mines,
    with_scramble,
    with_sensors,
    with_torpedo_settings,
)

__all__ = [
    "LAUNCH_RANGE_MU",
    "Commander",
    "closing_commander",
    "doctrine_assaults",
    "doctrine_repel",
    "engage_commander",
    "ftl_move_commander",
    "greedy_repairs",
    "order_commander",
    "play",
    "posture_flight",
    "ram_course",
    "random_commander",
    "stand_off_commander",
    "with_asteroids",
    "with_ecm",
    "with_fighters",
    "with_mines",
    "with_scramble",
    "with_sensors",
    "with_torpedo_settings",
]


def order_commander(order: str) -> Commander:
    """Return the commander for a campaign order: ``engage``, ``stand-off`` or ``ftl-move``.

    Raises:
        ValueError: no such order.
    """
    makers = {
        "engage": engage_commander,
        "stand-off": stand_off_commander,
        "ftl-move": ftl_move_commander,
    }
    if order not in makers:
        raise ValueError(f"no campaign order {order!r}; orders are {', '.join(makers)}")
    commander = makers[order]()
    if order == "stand-off":
        # Engage and FTL Move carry the mine and asteroid doctrines themselves; Stand Off's
        # are added here, and its torpedo settings chosen again after them.
        commander.orders = with_torpedo_settings(with_asteroids(with_mines(commander.orders)))
    commander.orders = with_admiral(with_decoys(commander.orders))
    return commander


COMMANDER_NAMES = ("closing", "engage", "stand-off", "ftl-move")
"""The commanders a table battle can put on a side: the closing commander of the demo and the
campaign's three order commanders."""


def named_commander(name: str) -> Commander:
    """Return the commander called ``name``, one of :data:`COMMANDER_NAMES`.

    Raises:
        ValueError: no such commander; the message lists them.
    """
    if name == "closing":
        commander = closing_commander()
        commander.orders = with_admiral(with_decoys(commander.orders))
        return commander
    if name not in COMMANDER_NAMES:
        raise ValueError(f"no commander {name!r}; commanders are {', '.join(COMMANDER_NAMES)}")
    return order_commander(name)
