"""A player's orders for a turn: one TOML document, checked completely before it is stored.

player = "red"
turn = 1
battle_locations = ["asteroid-field", "free-space"]  # the first the system has (004 5.3)
scorch = ["Alpha/3"]  # your colonies whose factories go if they are assaulted (004 5.4)

[[moves]]
unit = "red-S1"      # every unit is listed; `to` absent means it stays
to = "0305"          # destination hex this turn (004 section 5.1)
order = "stand-off"  # engage | stand-off | ftl-move where it ends the turn (004 section 5.3);
                     # leaving its hex it is under FTL Move there (004 section 5.1); left
                     # out, the unit keeps the order it has

[[landings]]         # disembark colonists where the transports end the move (004 5.5)
unit = "red-T1"
planet = "Alpha/3"   # System/orbit, in a system red has explored
colonists = 10       # millions, one transport each

[[task_forces]]      # form (no id), reshape (id and units) or disband (id, no units)
units = ["red-W1", "red-W2"]   # the first is the flagship (004 5.1)

[[attacks]]          # after the battles, attack enemy colonies you know of (004 5.4)
system = "Beta"
mode = "conquer"     # or "bombard"

# After every fourth turn only (004 5.7): what each colony buys, and research.
[[production]]
colony = "Alpha/3"
colony_transports = 4  # and emigrants = 3: colonists loaded (004 5.7.4)
factories = 2          # also robotic_factories, scout_troops, pdus, advanced_pdbs,
                       # planet_shields; research = IP given to the research pool
ships = [{ design = "destroyer", count = 2 }, { design = "fleet_tender" }]
fighters = 12          # replacement fighters: aboard carriers here that lack them, then
                       # into fleet tenders' holds here, new ones included (004 L197-201)

[[research]]
tech = "speed-3"       # ip = N to invest part of a price where research accumulates

[treasury]             # the starting 25 IP, once (004 section 3)
research = 10
ships = [{ design = "frigate" }]
"""

from __future__ import annotations

import hashlib

import msgspec

from campaign.errors import IllegalCommandError
from campaign.events import (
    Audience,
    NewEvent,
    OrdersCommitted,
    OrdersRevealed,
    OrdersSubmitted,
    TaskForcesSet,
    canonical_json,
)
from campaign.projections import CampaignState, evolve
from campaign.rules.assault import check_attacks
from campaign.rules.colonies import check_landings
from campaign.rules.economy import Catalogue, check_production, is_production_turn
from campaign.rules.movement import OrdersError, Plan, plan_moves
from campaign.rules.taskforces import plan_task_forces
from campaign.rules.technology import ResearchOrder
from campaign.strategic import (
    Attack,
    Landing,
    Location,
    Move,
    ProductionOrder,
    TaskForceOrder,
    TreasuryOrder,
    Unit,
    unit_order,
)
from maps import StarMap


class OrdersDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The orders file as written by a player."""

    player: str
    turn: int
    moves: tuple[Move, ...] = ()
    landings: tuple[Landing, ...] = ()
    production: tuple[ProductionOrder, ...] = ()  # only after every fourth turn (004 5.7)
    research: tuple[ResearchOrder, ...] = ()
    battle_locations: tuple[Location, ...] = ()  # where to fight when you choose (004 5.3)
    attacks: tuple[Attack, ...] = ()  # enemy colonies to conquer or bombard (004 5.4)
    task_forces: tuple[TaskForceOrder, ...] = ()  # form, reshape or disband (004 5.1)
    treasury: TreasuryOrder | None = None  # the starting IP (004 section 3), at production
    scorch: tuple[str, ...] = ()  # your colonies whose factories go if assaulted (004 5.4)


def parse(text: str, player: str, turn: int) -> OrdersDocument:
    """Decode an orders file and check it is this player's, for this turn.

    Raises:
        OrdersError: the file does not decode (the message names the field), or it is for
            another player or turn.
    """
    try:
        document = msgspec.toml.decode(text, type=OrdersDocument)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise OrdersError(player, turn, [str(exc)]) from None
    problems = []
    if document.player != player:
        problems.append(f"the file is {document.player}'s orders, not {player}'s")
    if document.turn != turn:
        problems.append(f"the file is for turn {document.turn}; the turn in progress is {turn}")
    if problems:
        raise OrdersError(player, turn, problems)
    return document


def decide_submit(
    truth: CampaignState,
    view: CampaignState,
    starmap: StarMap,
    player: str,
    document: OrdersDocument,
    catalogue: Catalogue,
    *,
    nonce: str,
    sequence: int = 0,
) -> list[NewEvent]:
    """Record a player's orders once every move is legal; a later submission replaces it.

    `nonce` salts the public commitment (hex; the caller draws it from a secure source, it is
    not a game die); `sequence` is the signed file's, 0 for orders handed in otherwise.

    The orders are checked against `view`, the player's own knowledge, and `starmap`, the map
    as he knows it: a refusal must never tell him what he could not know (an enemy siege, a
    rival's colony, a planet he has not explored). Resolution checks them against the truth.
    """
    if truth.phase != "orders":
        raise IllegalCommandError(
            f"turn {truth.turn} is being resolved (battles under way): orders are closed"
        )
    state = view
    forces, problems = plan_task_forces(state, player, document.task_forces)
    if document.task_forces:
        # Ships join and leave task forces before anyone moves: plan the moves on that.
        state = evolve(state, TaskForcesSet(player=player, task_forces=tuple(forces)))
    try:
        paths = plan_moves(state, starmap, player, document.moves)
    except OrdersError as exc:
        problems += exc.problems
        paths = {}
    positions = {u.id: _end_of_turn(u, paths, state.turn) for u in state.units.values()}
    problems += check_landings(state, starmap, player, document.landings, positions)
    problems += check_attacks(state, starmap, player, document.attacks, positions)
    problems += [
        f"scorch {cid}: not a colony of {player}"
        for cid in document.scorch
        if (c := state.colonies.get(cid)) is None or c.owner != player
    ]
    problems += check_production(
        state, player, document.production, document.research, catalogue, document.treasury
    )
    if problems:
        raise OrdersError(player, state.turn, problems)
    submitted = OrdersSubmitted(
        player=player,
        turn=state.turn,
        moves=document.moves,
        landings=document.landings,
        production=document.production,
        research=document.research,
        battle_locations=document.battle_locations,
        attacks=document.attacks,
        task_forces=document.task_forces,
        treasury=document.treasury,
        scorch=document.scorch,
        nonce=nonce,
        sequence=sequence,
    )
    # Commit, then reveal (issue 6): the orders stay umpire-only until the turn resolves;
    # everyone sees the hash they will be checked against.
    committed = OrdersCommitted(player=player, turn=state.turn, sha256=orders_hash(submitted))
    actor = f"player:{player}"
    return [
        NewEvent(event=submitted, audience=Audience.umpire_only(), turn=state.turn, actor=actor),
        NewEvent(event=committed, audience=Audience.everyone(), turn=state.turn, actor=actor),
    ]


def orders_payload(submitted: OrdersSubmitted) -> bytes:
    """Return the canonical orders a commitment covers: the payload without its nonce.

    A sequence of 0 (orders not from a signed file) is left out as well, so a submission
    stored before either field existed gives the very bytes it was committed with.
    """
    fields = msgspec.structs.asdict(submitted)
    del fields["nonce"]
    if not submitted.sequence:
        del fields["sequence"]
    return canonical_json(fields)


def commitment(nonce: str, payload: bytes) -> str:
    """Return SHA-256(nonce || payload) in hex: the salted commitment (issue 13).

    >>> commitment("", b"{}") == hashlib.sha256(b"{}").hexdigest()  # before salting
    True
    """
    return hashlib.sha256(bytes.fromhex(nonce) + payload).hexdigest()


def orders_hash(submitted: OrdersSubmitted) -> str:
    """Return the commitment to a submission: its canonical orders, salted with its nonce."""
    return commitment(submitted.nonce, orders_payload(submitted))


def decide_reveal(state: CampaignState) -> list[NewEvent]:
    """Reveal each player's orders of the turn to him, as the turn resolves (issue 6)."""
    return [
        NewEvent(
            event=OrdersRevealed(
                player=player,
                turn=state.turn,
                sha256=orders_hash(submitted),
                payload=orders_payload(submitted).decode(),
                nonce=submitted.nonce,
            ),
            audience=Audience.players_([player]),
            turn=state.turn,
        )
        for player, submitted in sorted(state.submitted.items())
    ]


def _plotted_note(name: str, unit: Unit) -> str:
    final = unit.plot[-1] if unit.plot else unit.hex
    return (
        f"# {name} is plotted to {final} until turn {unit.plot_until} (004 section 6): "
        "it follows its plot and cannot be ordered"
    )


def _end_of_turn(unit: Unit, plans: dict[str, Plan], turn: int) -> str | None:
    """Where a unit will be when the turn's moves are done: new orders, or its plot."""
    if unit.id in plans and plans[unit.id].path:
        return plans[unit.id].path[-1]
    if unit.plotted(turn) and unit.plot:
        return unit.plot[0]
    return unit.hex


def template(state: CampaignState, player: str, entry_hex: str) -> str:
    """Return an orders file listing all of `player`'s units, each holding position."""
    lines = [
        f'# Orders of {player} for turn {state.turn}. Give a unit `to = "CCRR"` to move it;',
        "# order is engage, stand-off or ftl-move (004 section 5.3) where the unit ends the",
        "# turn; leaving a hex it is under FTL Move there (004 5.1). To land colonists where",
        "# transports end their move, add [[landings]] unit, planet (System/orbit), colonists.",
        f'player = "{player}"',
        f"turn = {state.turn}",
    ]
    for force in sorted(state.task_forces.values(), key=lambda tf: tf.id):
        if force.owner != player or not force.units:
            continue
        flagship = state.units.get(force.units[0])
        if flagship is not None and flagship.plotted(state.turn):
            lines += ["", _plotted_note(force.id, flagship)]
            continue
        where = f"at {flagship.hex}" if flagship is not None and flagship.hex else "entering"
        admiral = f"admiral level {force.admiral}" if force.admiral else "under a captain"
        lines += [
            "",
            "[[moves]]",
            f'unit = "{force.id}"  # task force of {len(force.units)}, {admiral}, {where}',
        ]
        lines.append(f'# to = "{flagship.hex if flagship and flagship.hex else entry_hex}"')
        lines.append(f'order = "{flagship.order if flagship else "stand-off"}"')
    for unit in sorted(state.units.values(), key=unit_order):
        if unit.owner != player or unit.task_force is not None:
            continue
        if unit.plotted(state.turn):
            lines += ["", _plotted_note(unit.id, unit)]
            continue
        where = f"at {unit.hex}" if unit.hex else f"entering through {entry_hex}"
        what = unit.design or f"{unit.count} {unit.kind}"
        lines += ["", "[[moves]]", f'unit = "{unit.id}"  # {what}, {where}']
        lines.append(f'# to = "{unit.hex or entry_hex}"')
        lines.append(f'order = "{unit.order}"')
    return "\n".join(lines + _production_lines(state, player)) + "\n"


def _production_lines(state: CampaignState, player: str) -> list[str]:
    """Commented `[[production]]` entries for each of the player's colonies, when the turn
    ends with a production phase (004 5.7); the full format is this module's docstring."""
    if not is_production_turn(state.turn):
        return []
    lines = [
        "",
        "# This turn ends with a production phase (004 5.7). Spend each colony's IP, e.g.:",
    ]
    for colony in sorted(state.colonies.values(), key=lambda c: c.id):
        if colony.owner != player:
            continue
        lines += [
            "# [[production]]",
            f'# colony = "{colony.id}"  # {colony.population}M, {colony.factories} factories',
            "# factories = 1",
            '# ships = [{ design = "destroyer", count = 1 }]',
            "# fighters = 6  # for carriers lacking them and fleet tenders in its hex",
        ]
    return lines


__all__ = ["OrdersDocument", "OrdersError", "decide_submit", "parse", "template"]
