"""A battle's id as a player knows it (docs/rulings.md, "Campaign: a battle's id as a player
knows it"; docs/security.md).

The combat phase numbers every battle of a turn, in hex order (`t18-b2`; assaults on planetary
defences `t18-a1`): that internal id keys the umpire's commands (the battle's dice are keyed
by what both sides know, `dice_key`). A
player in `t18-b2` would learn from it that another battle was fought that turn, and roughly
where; so every event he reads names his battles by turn and hex instead (`t18-0403`), and a
second battle of his in the same hex and turn by its place among his (`t18-0403-2`), in the
order he learnt of them: nothing he did not see counts. The names are given where a player's
events are read (`campaign.battletold.read_as_seen`), so his log, state, report, package,
battle reports and web page all tell, and take, the same names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

import msgspec

from campaign.events import (
    BattleFought,
    BattleRequested,
    CaptainCasualty,
    DecoysLost,
    DiceRerollRuled,
    Event,
    OfficerCasualty,
)
from campaign.strategic import Battle

# An internal battle id anywhere in an event's text: its rolls' keys, the engine's journal.
INTERNAL_ID = re.compile(r"\bt(\d+)-[ab]\d+\b")
# The events that can hold one: a battle's request and outcome, its casualties' dice (keyed
# by the battle), the drones lost in it, and dice of any of those rolled again by ruling.
# tests/test_autoplay.py reads every player's whole log for an internal id each turn.
NAMES_BATTLES = frozenset(
    {
        BattleRequested.TYPE,
        BattleFought.TYPE,
        CaptainCasualty.TYPE,
        DecoysLost.TYPE,
        DiceRerollRuled.TYPE,
        OfficerCasualty.TYPE,
    }
)


def internal_turn(battle_id: str) -> int | None:
    """The turn of an internal battle id, or None for any other name.

    >>> internal_turn("t18-b2"), internal_turn("t18-0403")
    (18, None)
    """
    found = INTERNAL_ID.fullmatch(battle_id)
    return int(found.group(1)) if found else None


def told_id(turn: int, hex_label: str, nth: int) -> str:
    """The id a player knows his `nth` battle in a hex on a turn by.

    >>> told_id(18, "0403", 1), told_id(18, "0403", 2)
    ('t18-0403', 't18-0403-2')
    """
    return f"t{turn}-{hex_label}" + (f"-{nth}" if nth > 1 else "")


def dice_key(
    turn: int, hex_label: str, players: tuple[str, str], nth: int, *, assault: bool = False
) -> str:
    """The name a 004 battle's dice are keyed under (docs/rulings.md, "Campaign: a battle's
    dice"): its turn and hex, its two players in name order, `.assault` for an assault on
    planetary defences, and `.N` for the `nth` (2 or more) such battle of the two in that hex
    and turn, in the order they are fought. Both sides know each part (both are told of every
    battle between them), and no part counts anyone else's battles. Player names hold no `.`
    and never start with a digit, so no two battles' names run together.

    >>> dice_key(18, "0403", ("red", "blue"), 1), dice_key(18, "0403", ("red", "blue"), 2)
    ('t18-0403.blue.red', 't18-0403.blue.red.2')
    >>> dice_key(18, "0403", ("red", "blue"), 1, assault=True)
    't18-0403.blue.red.assault'
    """
    first, second = sorted(players)
    name = f"t{turn}-{hex_label}.{first}.{second}" + (".assault" if assault else "")
    return name + (f".{nth}" if nth > 1 else "")


class DiceKeys:
    """The dice keys of one turn's battles (or assaults), handed out in the order they are
    fought: `dice_key`, each numbered among the battles of its two players in its hex."""

    def __init__(self, turn: int, *, assault: bool = False) -> None:
        self.turn = turn
        self.assault = assault
        self._fought: Counter[tuple[str, ...]] = Counter()

    def next(self, hex_label: str, players: tuple[str, str]) -> str:
        """The key of the next battle of `players` in `hex_label`."""
        pair = (hex_label, *sorted(players))
        self._fought[pair] += 1
        return dice_key(self.turn, hex_label, players, self._fought[pair], assault=self.assault)


class BattleNames:
    """The names one player knows his battles by, learnt from his `battle_requested` events in
    the order he read them; `earlier` gives those of a turn when they were not read (a read
    starting in the middle of the log, or only of some types), in the same order."""

    def __init__(self, earlier: Callable[[int], Iterable[Battle]]) -> None:
        self._earlier = earlier
        self._names: dict[str, str] = {}
        self._counts: dict[tuple[int, str], int] = {}
        self._turns: set[int] = set()

    def learn(self, battle: Battle) -> None:
        """Name a battle he learnt of (once: the first name stays)."""
        turn = internal_turn(battle.id)
        if turn is None or battle.id in self._names:
            return
        self._complete(turn)
        if battle.id in self._names:
            return
        nth = self._counts.get((turn, battle.hex), 0) + 1
        self._counts[(turn, battle.hex)] = nth
        self._names[battle.id] = told_id(turn, battle.hex, nth)

    def _complete(self, turn: int) -> None:
        """Learn the turn's battles told before, once per turn."""
        if turn in self._turns:
            return
        self._turns.add(turn)
        for battle in self._earlier(turn):
            self.learn(battle)

    def name(self, battle_id: str) -> str | None:
        """The name of an internal battle id he knows, or None."""
        turn = internal_turn(battle_id)
        if turn is None:
            return None
        if battle_id not in self._names:
            self._complete(turn)
        return self._names.get(battle_id)

    def told(self, ev: Event) -> Event:
        """The event with every internal battle id he knows in it replaced by its name
        (`renamed`); an id he does not know (none of his battles) is left as it is, the
        event's audience having let him read it."""
        if isinstance(ev, BattleRequested):
            self.learn(ev.battle)
        return renamed(ev, self.name)


def renamed(ev: Event, name: Callable[[str], str | None]) -> Event:
    """The event with every internal battle id in it that `name` names replaced by that name:
    the battle's own, its rolls' keys, the engine's journal (whose set-up key and dice keys
    stay consistent, so it replays the same). Only `NAMES_BATTLES` events can hold one."""
    if ev.TYPE not in NAMES_BATTLES:
        return ev
    text = msgspec.json.encode(ev).decode()
    new = INTERNAL_ID.sub(lambda m: name(m.group(0)) or m.group(0), text)
    return ev if new == text else msgspec.json.decode(new, type=type(ev))
