"""A random-legal-orders driver: whole campaigns played by dice, for tests and benchmarks.

`autoplay` drives the service turn after turn: every player's orders (`random_orders`, from
his own view), the turn, any battles (the tactical engine, or random outcomes recorded by
hand), the turn's end, until the campaign ends.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

import msgspec

from campaign.events import ProductionResolved, RecordedEvent
from campaign.projections import CampaignState
from campaign.random_orders import format_orders, random_document, random_orders
from campaign.rules.movement import OrdersError
from campaign.rules.orders import OrdersDocument
from campaign.rules.victory import Score
from campaign.service import CampaignService
from campaign.service.base import battle_order
from campaign.store import Lineage
from campaign.strategic import (
    Battle,
    ShipResult,
    parse_defence_id,
)
from maps import StarMap, label, parse_label
from maps.stable_random import between, pick

# ---------------------------------------------------------------- whole campaigns


class Refusal(msgspec.Struct, frozen=True):
    """An autoplayed orders file the service refused, and why (a driver bug to fix)."""

    turn: int
    player: str
    problem: str


class AutoplayResult(msgspec.Struct, frozen=True):
    """What an `autoplay` run did."""

    campaign: str
    branch: str
    turns: tuple[int, ...]  # the turns resolved, in order
    battles: int  # battles fought (or recorded) on the way
    refusals: tuple[Refusal, ...]  # orders refused; a simpler file was sent instead
    production_problems: tuple[str, ...]  # production orders that failed at resolution
    turn: int  # the turn in progress now
    max_turns: int
    finished: bool
    scores: tuple[Score, ...] = ()  # the running tally, or the final one (004 section 1)

    def summary(self) -> str:
        """Say in one line what was played and where the campaign stands."""
        if self.turns:
            span = (
                f"turn {self.turns[0]}"
                if len(self.turns) == 1
                else (f"turns {self.turns[0]}-{self.turns[-1]}")
            )
            played = f"Played {span} of {self.campaign} ({self.branch})"
        else:
            played = f"Played no turns of {self.campaign} ({self.branch})"
        facts = [f"{self.battles} battle{'s' * (self.battles != 1)}"]
        refused = len(self.refusals)
        facts.append(f"{refused} orders file{'s' * (refused != 1)} refused")
        if self.scores:
            leader = self.scores[0]
            tally = f"{leader.player} {leader.points} point{'s' * (leader.points != 1)}"
        else:
            tally = "no scores"
        if self.finished:
            where = f"campaign over, winner {tally}"
        else:
            where = f"now turn {self.turn} of {self.max_turns}, leading {tally}"
        return f"{played}: {', '.join(facts)}; {where}."


def autoplay(
    service: CampaignService,
    lineage: Lineage,
    turns: int,
    seed: int | str,
    resolve_battles: bool = True,
    progress: Callable[[int], None] | None = None,
    seek_contact: bool = False,
) -> AutoplayResult:
    """Play up to `turns` turns with random legal orders for every player; stop at the end.

    Each player's orders come from `random_orders` on his own view and map, with dice seeded
    by (`seed`, player, turn). Battles are fought by the tactical engine (`resolve_battles`) or
    given a `random_outcome` recorded by hand, as for a table-top game. A refused orders file
    is counted and replaced by a simpler one (no production, then no landings, then holding
    position). `progress` is called with each turn resolved. With `seek_contact` the players
    expand towards each other (`campaign.random_orders.CONTACT_TURN`): on a map too large for
    the empires to meet otherwise, they meet and fight.
    """
    state = service.load(lineage)
    charts: dict[tuple[str, tuple[str, ...]], StarMap] = {}  # a player's map changes as he explores
    played: list[int] = []
    battles = 0
    refusals: list[Refusal] = []
    problems: list[str] = []
    for _ in range(max(0, turns)):
        if state.finished:
            break
        turn = state.turn
        if state.phase == "orders":
            for player in state.players:
                view = service.load(lineage, viewer=player)
                empire = view.empires.get(player)
                known = (player, empire.explored if empire is not None else ())
                if known not in charts:
                    charts[known] = service.player_map(lineage, player)[0]
                rng = random.Random(f"autoplay/{seed}/{player}/{turn}")
                refusals += _submit(
                    service, lineage, player, view, charts[known], rng, seek_contact
                )
        recorded = _finish_turn(service, lineage, resolve_battles, seed)
        battles += sum(1 for r in recorded if r.type == "battle_fought")
        problems += [
            f"turn {turn}, {r.event.player}: {p}"
            for r in recorded
            if isinstance(r.event, ProductionResolved)
            for p in r.event.problems
        ]
        played.append(turn)
        if progress is not None:
            progress(turn)
        state = service.load(lineage)
    status = service.status(lineage)
    return AutoplayResult(
        campaign=lineage.campaign,
        branch=lineage.branch,
        turns=tuple(played),
        battles=battles,
        refusals=tuple(refusals),
        production_problems=tuple(problems),
        turn=state.turn,
        max_turns=state.max_turns,
        finished=state.finished,
        scores=status.scores,
    )


def _submit(
    service: CampaignService,
    lineage: Lineage,
    player: str,
    view: CampaignState,
    starmap: StarMap,
    rng: random.Random,
    seek_contact: bool = False,
) -> list[Refusal]:
    """Submit a player's random orders; on refusal, ever simpler ones. Return the refusals."""
    document = random_document(view, starmap, player, rng, seek_contact)
    fallbacks = [
        document,
        msgspec.structs.replace(document, production=(), research=()),
        msgspec.structs.replace(document, production=(), research=(), landings=()),
        # Holding position: only what the task forces need (a broken one must be disbanded).
        OrdersDocument(player=player, turn=view.turn, task_forces=document.task_forces),
        OrdersDocument(player=player, turn=view.turn),
    ]
    refused: list[Refusal] = []
    for attempt in fallbacks:
        try:
            service.submit_orders(lineage, player, format_orders(attempt))
        except OrdersError as exc:
            refused.append(Refusal(turn=view.turn, player=player, problem=str(exc)))
            continue
        return refused
    raise AssertionError(f"even holding position was refused: {refused[-1].problem}")


def _finish_turn(
    service: CampaignService, lineage: Lineage, resolve_battles: bool, seed: int | str
) -> list[RecordedEvent]:
    """Resolve the turn in progress, fighting or recording any battles it brings."""
    recorded: list[RecordedEvent] = []
    turn_number = service.turn_status(lineage).turn
    while True:
        waiting = service.battles(lineage)
        if not waiting:
            batch = service.resolve_turn(lineage, expected_turn=turn_number)
            recorded += batch
            if any(r.type == "turn_ended" for r in batch):
                return recorded
        elif resolve_battles:
            recorded += service.resolve_battles(lineage)
        else:
            # One at a time, in the order they are fought, each as the ones before left it
            # (004 5.3.6): the umpire's list shows the ships still at its table.
            battle = min(waiting, key=lambda b: battle_order(b.id))
            rng = random.Random(f"autoplay/{seed}/{lineage.branch}/{battle.id}")
            left = hull_boxes_left(service.load(lineage), battle)
            outcome = random_outcome(battle, service.starmap(lineage), rng, left)
            recorded += service.record_battle(lineage, battle.id, outcome)


def random_outcome(
    battle: Battle,
    starmap: StarMap,
    rng: random.Random,
    boxes_left: Mapping[str, int] | None = None,
) -> tuple[ShipResult, ...]:
    """Return a random outcome for a battle, as an umpire might record a table-top game.

    Each warship is destroyed on a d6 roll of 1-2, else survives (carrying 0-2 hull boxes of
    damage, never its last: `boxes_left`, `hull_boxes_left`), disengages or jumps out to a
    hex up to 3 away. A planetary defence (004 5.4) is destroyed on 1-3 and otherwise stands.
    """
    left = boxes_left or {}
    results = []
    cell = parse_label(battle.hex)
    for unit in sorted(u for side in battle.sides for u in side.units):
        face = between(rng, 1, 6)
        if parse_defence_id(unit) is not None:
            if face <= 3:
                results.append(ShipResult(unit=unit, fate="destroyed"))
        elif face <= 2:
            results.append(ShipResult(unit=unit, fate="destroyed"))
        elif face == 3:
            results.append(ShipResult(unit=unit, fate="disengaged"))
        elif face == 4:
            near = sorted(c for c in starmap.reachable(cell, 3) if c != cell)
            to = label(pick(rng, near)) if near else battle.hex
            results.append(ShipResult(unit=unit, fate="jumped", to_hex=to))
        else:
            lost = between(rng, 0, 2)  # drawn whatever it had left: the same draws follow
            if unit in left:  # a survivor keeps one box at least
                lost = max(min(lost, left[unit] - 1), 0)
            results.append(ShipResult(unit=unit, hull_lost=lost))
    return tuple(results)


def hull_boxes_left(state: CampaignState, battle: Battle) -> dict[str, int]:
    """The hull boxes each warship of a battle has left (a ship that comes out of a battle
    keeps one at least: `random_outcome`)."""
    from campaign.rules.battles import unit_sheet  # the engine's catalogue: only here

    return {
        uid: unit_sheet(unit).hull_boxes - unit.hull_lost
        for side in battle.sides
        for uid in side.units
        if (unit := state.units.get(uid)) is not None and unit.design is not None
    }


__all__ = [
    "AutoplayResult",
    "Refusal",
    "autoplay",
    "format_orders",
    "hull_boxes_left",
    "random_document",
    "random_orders",
    "random_outcome",
]
