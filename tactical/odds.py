"""Monte Carlo odds: fight one battle many times with seeded dice and count what happened.

An umpire sanity-checks a battle with this (issue 4): each side's win rate, the draws, and the
ships and points each side loses on average with their spread (the population standard
deviation over the runs). Run ``i`` rolls every die from ``SeededDice(f"{seed}/{i}")``, so the
same seed and the same number of runs give the same figures, on any machine.

A battle is anything that can be fought with a dice source and gives back a :class:`Fought`:
:class:`TableBattle` fights a set-up with a named commander on each side,
:class:`RequestBattle` a campaign request with each side's order commander. Both pickle, so
``jobs`` worker processes can share the runs; the figures do not depend on how many.

>>> from tactical.scenarios import SCENARIOS
>>> setup = SCENARIOS["grendel"]()
>>> closing = dict.fromkeys(setup.sides, "closing")
>>> figures = odds(TableBattle(setup, closing), setup.sides, runs=4, seed=7)
>>> figures.runs, [side.side for side in figures.sides]
(4, ['nac', 'esu'])
>>> figures == odds(TableBattle(setup, closing), setup.sides, runs=4, seed=7)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from typing import NamedTuple, Protocol

import msgspec
from msgspec import Struct

from maps import tomlinput
from tactical.battle import LOST, Battle, BattleSetup, decode_setup, sheet_for
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignBattleOutcome,
    decode_request,
    resolve_campaign_battle,
)
from tactical.commanders import named_commander, play
from tactical.dice import DiceSource, SeededDice
from tactical.rules import rules_named

LOST_FATES = frozenset({"destroyed", "lost", "captured"})
"""Campaign fates that count as a ship lost (fled, jumped and present ships survive)."""


class Fought(NamedTuple):
    """One battle's result, as the odds count it."""

    winner: str | None
    ships_lost: Mapping[str, int]
    """Ships destroyed per side."""
    points_lost: Mapping[str, int]
    """Full Thrust points of the ships destroyed, per side."""
    turns: int


Fight = Callable[[DiceSource], Fought]
"""Fight the battle once with these dice."""


class SideOdds(Struct, frozen=True, kw_only=True, gc=False):
    """One side's figures over all the runs."""

    side: str
    wins: float
    """The share of runs this side won."""
    wins_low: float = 0.0
    wins_high: float = 1.0
    """The 95% confidence interval of that share (Wilson's score interval)."""
    ships_lost: float
    ships_lost_sd: float
    points_lost: float
    points_lost_sd: float


class Odds(Struct, frozen=True, kw_only=True, gc=False):
    """The figures of ``runs`` battles fought from ``seed``."""

    runs: int
    seed: int
    sides: tuple[SideOdds, ...]
    draws: float
    """The share of runs nobody won (a turn limit, or every ship gone)."""
    turns: float
    """The mean number of turns a battle lasted."""
    precision: float | None = None
    """The interval width asked for: the runs stopped once every side's was narrower."""


Z_95 = 1.959964  # the normal quantile of a 95% two-sided interval


def wilson(successes: int, runs: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson's score interval for a share of ``successes`` in ``runs``.

    >>> low, high = wilson(50, 100)
    >>> round(low, 3), round(high, 3)
    (0.404, 0.596)
    """
    if runs == 0:
        return 0.0, 1.0
    if successes in (0, runs):  # the closed form, free of rounding at the extremes
        bound = runs / (runs + z * z)
        return (0.0, 1 - bound) if successes == 0 else (bound, 1.0)
    share = successes / runs
    factor = z * z / runs
    centre = (share + factor / 2) / (1 + factor)
    half = z * math.sqrt(share * (1 - share) / runs + factor / (4 * runs)) / (1 + factor)
    return max(0.0, centre - half), min(1.0, centre + half)


PRECISION_EVERY = 100
"""With a precision asked, the intervals are looked at every this many runs (always the same
runs, so the figures do not depend on the worker processes), from the first hundred."""


VERIFY_EVERY = 100
"""Every this many runs (the first, the 101st, ...) a campaign battle's outcome is read off a
replay of its journal, proving it replays; the others skip that replay."""


def odds(
    fight: Fight,
    sides: Sequence[str],
    runs: int,
    seed: int = 1,
    on_run: Callable[[], None] | None = None,
    jobs: int = 1,
    precision: float | None = None,
) -> Odds:
    """Fight ``runs`` battles from ``seed`` and return the figures.

    ``on_run`` is called after each battle (a progress bar). ``jobs`` above 1 fights them in
    that many worker processes (``fight`` must then pickle: :class:`TableBattle` and
    :class:`RequestBattle` do); the figures are the same for any number of jobs, as run ``i``
    always rolls from ``seed/i`` and the results are counted in run order. With
    ``precision``, the runs stop at the first multiple of :data:`PRECISION_EVERY` at which
    every side's 95% interval is no wider than it.
    """
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if precision is not None and not 0 < precision < 1:
        raise ValueError(f"precision must lie between 0 and 1, not {precision}")
    results: list[Fought] = []

    def counted(result: Fought) -> bool:
        """Count a run; whether the intervals are now narrow enough to stop."""
        results.append(result)
        if on_run is not None:
            on_run()
        done = len(results)
        if precision is None or done % PRECISION_EVERY:
            return False
        return all(_width(results, side) <= precision for side in sides)

    dice = ((run, f"{seed}/{run}") for run in range(runs))
    if jobs == 1:
        for run, key in dice:
            if counted(_fight_once(fight, key, run)):
                break
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            chunk = max(1, min(64, runs // (jobs * 8)))
            keys = (key for _run, key in dice)
            for result in pool.map(_fight_once, repeat(fight), keys, range(runs), chunksize=chunk):
                if counted(result):
                    pool.shutdown(wait=False, cancel_futures=True)
                    break
    runs = len(results)
    return Odds(
        runs=runs,
        seed=seed,
        sides=tuple(
            SideOdds(
                side=side,
                wins=sum(r.winner == side for r in results) / runs,
                wins_low=wilson(sum(r.winner == side for r in results), runs)[0],
                wins_high=wilson(sum(r.winner == side for r in results), runs)[1],
                ships_lost=_mean([r.ships_lost[side] for r in results]),
                ships_lost_sd=_spread([r.ships_lost[side] for r in results]),
                points_lost=_mean([r.points_lost[side] for r in results]),
                points_lost_sd=_spread([r.points_lost[side] for r in results]),
            )
            for side in sides
        ),
        draws=sum(r.winner is None for r in results) / runs,
        turns=_mean([r.turns for r in results]),
        precision=precision,
    )


def _width(results: Sequence[Fought], side: str) -> float:
    low, high = wilson(sum(r.winner == side for r in results), len(results))
    return high - low


def _fight_once(fight: Fight, key: str, run: int = 0) -> Fought:
    """One run (in a worker process, or not): every :data:`VERIFY_EVERY` th proves its journal
    replays, where the battle can (:class:`RequestBattle`)."""
    if isinstance(fight, RequestBattle) and run % VERIFY_EVERY == 0:
        return fight.verified(SeededDice(key))
    return fight(SeededDice(key))


class TableBattle:
    """Fight a set-up with the named commander on each side (see
    :data:`tactical.commanders.COMMANDER_NAMES`); it pickles, for worker processes."""

    def __init__(self, setup: BattleSetup, commanders: Mapping[str, str]) -> None:
        """Check the set-up and the commanders once, before the first run.

        Raises:
            SetupError: the set-up does not fit the rules or the catalogue.
            ValueError: a side without a commander, or a commander with no such name.
        """
        Battle(setup)
        missing = [side for side in setup.sides if side not in commanders]
        if missing:
            raise ValueError(f"no commander for {', '.join(missing)}")
        for name in commanders.values():
            named_commander(name)
        self.setup = setup
        self.commanders = dict(commanders)
        ships = rules_named(setup.rules).ships
        self.points = {ship.id: sheet_for(ship.design, ships).points for ship in setup.ships}

    def __call__(self, dice: DiceSource) -> Fought:
        """Fight it once."""
        setup = self.setup
        commanders = {side: named_commander(self.commanders[side]) for side in setup.sides}
        battle = play(Battle(setup), commanders, dice)
        lost = [ship for ship in battle.state.ships if ship.status in LOST]
        return _fought(setup.sides, battle.state.winner, lost, self.points, battle.state.turn)


class RequestBattle:
    """Fight a campaign battle request with each side's order commander (004 5.3); it
    pickles, for worker processes."""

    def __init__(self, request: CampaignBattle) -> None:
        """Keep the request (:func:`tactical.campaign_battle.decode_request` checked it)."""
        self.request = request

    def __call__(self, dice: DiceSource) -> Fought:
        """Fight it once, reading the outcome off the battle's final state."""
        return self._fought(resolve_campaign_battle(self.request, dice, verify=False))

    def verified(self, dice: DiceSource) -> Fought:
        """Fight it once, reading the outcome off a replay of its journal (a check that it
        replays: the same figures)."""
        return self._fought(resolve_campaign_battle(self.request, dice))

    def _fought(self, outcome: CampaignBattleOutcome) -> Fought:
        ships = rules_named(outcome.setup.rules).ships
        points = {ship.id: sheet_for(ship.design, ships).points for ship in outcome.setup.ships}
        lost = [ship for ship in outcome.ships if ship.fate in LOST_FATES]
        sides = tuple(side.name for side in self.request.sides)
        return _fought(sides, outcome.winner, lost, points, outcome.turns)


class _Ship(Protocol):
    """A ship as the odds count it: a battle's ship in play or a campaign ship outcome."""

    @property
    def id(self) -> str: ...

    @property
    def side(self) -> str: ...


def _fought(
    sides: Sequence[str],
    winner: str | None,
    lost: Sequence[_Ship],
    points: Mapping[str, int],
    turns: int,
) -> Fought:
    ships_lost = dict.fromkeys(sides, 0)
    points_lost = dict.fromkeys(sides, 0)
    for ship in lost:
        ships_lost[ship.side] += 1
        points_lost[ship.side] += points[ship.id]
    return Fought(winner, ships_lost, points_lost, turns)


def _mean(values: Sequence[int]) -> float:
    return math.fsum(values) / len(values)


def _spread(values: Sequence[int]) -> float:
    """The population standard deviation."""
    mean = _mean(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))


def decode_battle(text: str | bytes, source: str = "<battle>") -> BattleSetup | CampaignBattle:
    """Decode a battle file: a set-up (``sides`` names the sides) or a campaign battle request
    (``[[sides]]`` tables with their orders and ships).

    Raises:
        SetupError: not TOML, or a field missing, unknown or mistyped (with its path), or a
            campaign request that does not hold together.
    """
    try:
        raw = tomlinput.decode(text)
    except msgspec.DecodeError:
        raw = None  # decode_setup reports it
    sides = raw.get("sides") if isinstance(raw, dict) else None
    if isinstance(sides, list) and sides and isinstance(sides[0], dict):
        return decode_request(text, source)
    return decode_setup(text, source)
