"""A player's orders for a turn: one TOML document, checked completely before it is stored.

player = "red"
turn = 1
battle_locations = ["asteroid-field", "free-space"]  # the first the system has (004 5.3)
scorch = ["Alpha/3"]  # your colonies whose factories go if they are assaulted (004 5.4)
posts = ["Gamma/1"]  # hidden colonies of yours to establish command posts on (004 L86-89)

[[moves]]
unit = "red-S1"      # every unit is listed; `to` absent means it holds (binding nothing)
to = "0305"          # destination hex (004 section 5.1), this turn or as many turns away as
                     # the unit's plot horizon (004 section 6): it then follows that plot
order = "stand-off"  # engage | stand-off | ftl-move where it ends the turn (004 section 5.3);
                     # leaving its hex it is under FTL Move there (004 section 5.1); left
                     # out, the unit keeps the order it has
via = ["0303"]       # waypoints: stops, each the end of a turn's move, within the horizon

[[moves]]
unit = "red-T1"      # 10 of red-T1's transports go as a new unit, the next free number of
to = "0102"          # its kind (red-T2 here), in the order the moves are written; the rest
count = 10           # stay. Scout troops split the same way (004 L27, L31, L67)

[[merges]]           # groups of one kind in one hex become the first listed (004 L67)
units = ["red-T3", "red-T4"]

[[landings]]         # disembark colonists where the transports end the move (004 5.5)
unit = "red-T2"      # a part split off this turn lands under its new id
planet = "Alpha/3"   # System/orbit; in a system the transports explore this very turn the
colonists = 10       # orbit is a guess, and the landing lapses, with a note, if the planet
                     # is not there or not suitable (004 L56-63); millions, one per transport
post = false         # founding a colony: no command post, so it stays hidden (default true:
                     # a post, which every player detects, 004 L86-89)

[[battle_sites]]     # where you would fight in one system, when the choice is yours (5.3)
system = "Beta"
prefer = ["dense-world", "free-space"]  # best first; elsewhere `battle_locations` holds
world = "near"       # at a dense world: "between" the fleets, or "near": your fleet within
                     # 10 MU of it (004 L154-155)
gravity = 6          # at a gas giant: the gravity band, 2-12 MU (004 L163-164); else 2d6

[[task_forces]]      # form (no id), reshape (id and units) or disband (id, no units)
units = ["red-W1", "red-W2"]   # the first is the flagship (004 5.1)

[[attacks]]          # after the battles, attack enemy colonies you know of (004 5.4)
system = "Beta"
mode = "conquer"     # or "bombard"; planetary defences are fought first either way
colony = "Beta/2"    # which colony; left out, every enemy colony in the system
call_off_after = 3   # the assault on its defences ends after 3 turns of battle if they
                     # still stand (004 L208-209); left out, it is fought out (12 turns)

# After every fourth turn only (004 5.7): what each colony buys, and research.
[[production]]
colony = "Alpha/3"
colony_transports = 4  # and emigrants = 3: colonists loaded (004 5.7.4)
factories = 2          # also robotic_factories, scout_troops, pdus, advanced_pdbs,
                       # planet_shields; research = IP given to the research pool
ships = [{ design = "destroyer", count = 2 }, { design = "fleet_tender" }]
fighters = 12          # replacement fighters: aboard carriers here that lack them, then
                       # into fleet tenders' holds here, new ones included (004 L197-201)
decoys = 2             # decoy drones, 20 points each: one aboard each warship here without
                       # one, new ones included; dummy bogeys in its battles (004 L39)

[[research]]
tech = "speed-3"       # ip = N to invest part of a price where research accumulates

[treasury]             # the starting 25 IP (004 L32): any turn until the first production
research = 10          # phase, before anyone moves (the research buys [[research]] at once,
ships = [{ design = "frigate" }]  # the ships enter at your entry hex); what is left is lost
                       # at the first production phase (unless `umpire new --starting-ip keep`)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Annotated

import msgspec
from msgspec import Meta

from campaign.errors import IllegalCommandError
from campaign.events import (
    Audience,
    NewEvent,
    OrdersCommitted,
    OrdersHandedIn,
    OrdersMarkedFinal,
    OrdersRevealed,
    OrdersSubmitted,
    TaskForcesSet,
    canonical_json,
)
from campaign.inputs import MAX_ORDERS_BYTES
from campaign.projections import CampaignState, evolve, evolve_all
from campaign.rules.assault import check_attacks
from campaign.rules.colonies import check_landings, decide_landings
from campaign.rules.combat import check_battle_sites
from campaign.rules.economy import (
    Catalogue,
    check_production,
    is_production_turn,
    treasury_open,
    with_treasury_research,
)
from campaign.rules.movement import OrdersError, Plan, plan_moves, with_star_hexes
from campaign.rules.regroup import plan_regroup, regroup_events
from campaign.rules.taskforces import plan_commands
from campaign.rules.technology import ResearchOrder, factory_allowance
from campaign.strategic import (
    LOCATIONS,
    Attack,
    BattleSite,
    Landing,
    Location,
    MergeOrder,
    Move,
    ProductionOrder,
    TaskForceOrder,
    TreasuryOrder,
    Unit,
    unit_order,
)
from maps import StarMap, tomlinput
from maps.explain import explain

# Input bounds (issue 13): a file is at most MAX_ORDERS_BYTES, and no list in it is longer
# than an empire could use, so a hostile file cannot fill the database.
_MANY = Meta(max_length=5000)


class OrdersDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The orders file as written by a player."""

    player: str
    turn: int
    moves: Annotated[tuple[Move, ...], _MANY] = ()
    landings: Annotated[tuple[Landing, ...], _MANY] = ()
    # only after every fourth turn (004 5.7)
    production: Annotated[tuple[ProductionOrder, ...], _MANY] = ()
    research: Annotated[tuple[ResearchOrder, ...], _MANY] = ()
    # where to fight when you choose (004 5.3): each location once at most
    battle_locations: Annotated[tuple[Location, ...], Meta(max_length=len(LOCATIONS))] = ()
    attacks: Annotated[tuple[Attack, ...], _MANY] = ()  # enemy colonies to attack (004 5.4)
    task_forces: Annotated[tuple[TaskForceOrder, ...], _MANY] = ()  # form, reshape (004 5.1)
    treasury: TreasuryOrder | None = None  # the starting IP (004 section 3), at production
    scorch: Annotated[tuple[str, ...], _MANY] = ()  # colonies to scorch if assaulted (004 5.4)
    merges: Annotated[tuple[MergeOrder, ...], _MANY] = ()  # groups merged (004 L67)
    # per system: where to fight, and how (004 5.3)
    battle_sites: Annotated[tuple[BattleSite, ...], _MANY] = ()
    posts: Annotated[tuple[str, ...], _MANY] = ()  # hidden colonies given command posts (5.1)


# What a refusal of a mistyped value shows as accepted there (`maps.explain`), by path: the
# file's own way of writing it, as the module docstring above has it.
_SHIPS = 'ships = [{ design = "frigate" }, { design = "destroyer", count = 2 }]'
_PLACES = 'to = "0305" (a hex label: column, row) or a star\'s name from your chart, to = "Alpha"'
EXAMPLES = {
    "player": 'player = "red"',
    "turn": "turn = 1",
    "moves": '[[moves]] tables, each with unit = "red-S1", to = "0305", order = "stand-off"',
    "moves[].unit": 'unit = "red-S1"',
    "moves[].to": _PLACES,
    "moves[].via": 'via = ["0303"]',
    "moves[].via[]": 'via = ["0303"]',
    "moves[].order": 'order = "stand-off"',
    "moves[].count": "count = 10",
    "landings[].unit": 'unit = "red-T2"',
    "landings[].planet": 'planet = "Alpha/3"',
    "landings[].colonists": "colonists = 10",
    "landings[].post": "post = false",
    "treasury": "[treasury] with research = 10 and " + _SHIPS,
    "treasury.research": "research = 10",
    "treasury.ships": _SHIPS,
    "treasury.ships[]": _SHIPS,
    "production[].colony": 'colony = "Alpha/3"',
    "production[].ships": _SHIPS,
    "production[].ships[]": _SHIPS,
    "research[].tech": 'tech = "speed-3"',
    "research[].ip": "ip = 10",
    "battle_locations": 'battle_locations = ["asteroid-field", "free-space"]',
    "scorch": 'scorch = ["Alpha/3"]',
    "scorch[]": 'scorch = ["Alpha/3"]',
    "posts": 'posts = ["Gamma/1"]',
    "posts[]": 'posts = ["Gamma/1"]',
    "merges[].units": 'units = ["red-T3", "red-T4"]',
    "task_forces[].units": 'units = ["red-W1", "red-W2"]',
    "attacks[].system": 'system = "Beta"',
    "attacks[].colony": 'colony = "Beta/2"',
    "attacks[].call_off_after": "call_off_after = 3",
    "battle_sites[].system": 'system = "Beta"',
    "battle_sites[].prefer": 'prefer = ["dense-world", "free-space"]',
    "battle_sites[].gravity": "gravity = 6",
}


def parse(text: str, player: str, turn: int) -> OrdersDocument:
    """Decode an orders file and check it is this player's, for this turn.

    Raises:
        OrdersError: the file does not decode (the message names the field), or it is for
            another player or turn.
    """
    try:
        document = tomlinput.decode(text, type=OrdersDocument, limit=MAX_ORDERS_BYTES)
    except msgspec.ValidationError as exc:
        # The line, and what would have been accepted there (issue 16).
        told = explain(str(exc), OrdersDocument, text, EXAMPLES)
        raise OrdersError(player, turn, [told]) from None
    except msgspec.DecodeError as exc:
        raise OrdersError(player, turn, [str(exc)]) from None
    if len(set(document.battle_locations)) < len(document.battle_locations):
        raise OrdersError(player, turn, ["battle_locations: each location at most once"])
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

    `nonce` salts the commitment (hex; the caller draws it from a secure source, it is
    not a game die); `sequence` is the signed file's, 0 for orders handed in otherwise.

    The orders are checked against `view`, the player's own knowledge, and `starmap`, the map
    as he knows it: a refusal must never tell him what he could not know (an enemy siege, a
    rival's colony, a planet he has not explored). Resolution checks them against the truth.
    """
    if truth.phase != "orders":
        raise IllegalCommandError(
            # The same words for every player: whose battles hold the turn up is not his to know.
            f"turn {truth.turn} is being resolved: orders are closed; try again later"
        )
    # A star named where a hex is wanted is the star's hex; the orders are recorded so.
    document = msgspec.structs.replace(document, moves=with_star_hexes(starmap, document.moves))
    # The starting treasury is spent before anyone moves (004 L32): move at the speed it buys.
    state = with_treasury_research(view, player, document.treasury, document.research)
    commands = plan_commands(state, player, document.task_forces)
    problems = list(commands.problems)
    if document.task_forces:
        # Ships join and leave task forces before anyone moves: plan the moves on that.
        formed = TaskForcesSet(
            player=player, task_forces=tuple(commands.forces), reserve=commands.reserve
        )
        state = evolve(state, formed)
    # A new task force's admiral, with none in reserve, is rolled as the turn resolves: its
    # horizon is unknown until then (`plan_moves`).
    unrolled = frozenset(
        tf.id for tf in commands.forces if tf.id not in view.task_forces and tf.admiral is None
    )
    # Merges, then splits: a move with `count` sends a part as a new unit (004 L67).
    regroup = plan_regroup(state, player, document.moves, document.merges)
    problems += regroup.problems
    moves = tuple(m for m in document.moves if m.count is None)
    if not regroup.problems:
        state = evolve_all(state, regroup_events(player, regroup))
        moves = regroup.moves
    try:
        paths = plan_moves(state, starmap, player, moves, new_forces=unrolled)
    except OrdersError as exc:
        problems += exc.problems
        paths = {}
    positions = {u.id: _end_of_turn(u, paths, state.turn) for u in state.units.values()}
    problems += check_landings(state, starmap, player, document.landings, positions)
    problems += check_attacks(state, starmap, player, document.attacks, positions)
    problems += check_battle_sites(starmap, document.battle_sites)
    problems += [
        f"post on {cid}: not a colony of {player}"
        for cid in document.posts
        if (c := state.colonies.get(cid)) is None or c.owner != player
    ]
    problems += [
        f"scorch {cid}: not a colony of {player}"
        for cid in document.scorch
        if (c := state.colonies.get(cid)) is None or c.owner != player
    ]
    producing = view
    if is_production_turn(view.turn):
        # The production phase comes after the landings: a colony founded this turn has its
        # first output to spend (004 5.5 before 5.7).
        producing = _after_landings(state, starmap, player, document.landings, positions)
    problems += check_production(
        producing, player, document.production, document.research, catalogue, document.treasury
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
        merges=document.merges,
        battle_sites=document.battle_sites,
        posts=document.posts,
        nonce=nonce,
        sequence=sequence,
    )
    # Commit, then reveal (issue 6): the orders stay umpire-only until the turn resolves;
    # he sees the hash they will be checked against. His rivals learn only that he handed
    # in orders this turn, once: never how many times (`handed_in`).
    committed = OrdersCommitted(player=player, turn=state.turn, sha256=orders_hash(submitted))
    actor = f"player:{player}"
    his = Audience.players_([player])
    return [
        NewEvent(event=submitted, audience=Audience.umpire_only(), turn=state.turn, actor=actor),
        NewEvent(event=committed, audience=his, turn=state.turn, actor=actor),
        *handed_in(player, state.turn, already=player in truth.submitted, actor=actor),
    ]


def handed_in(player: str, turn: int, *, already: bool, actor: str) -> list[NewEvent]:
    """Tell everyone that `player` handed in orders for `turn`: with his first orders of the
    turn only (`already`: he had handed in some), so nobody counts his new ones."""
    if already:
        return []
    told = OrdersHandedIn(player=player, turn=turn)
    return [NewEvent(event=told, audience=Audience.everyone(), turn=turn, actor=actor)]


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


def _after_landings(
    state: CampaignState,
    starmap: StarMap,
    player: str,
    landings: tuple[Landing, ...],
    positions: Mapping[str, str | None],
) -> CampaignState:
    """Return the player's look-ahead after his landings of this turn, his units where their
    moves end: the colonies he will found or grow, as `decide_landings` will."""
    if not landings:
        return state
    moved = {
        uid: msgspec.structs.replace(u, hex=positions.get(uid, u.hex))
        for uid, u in state.units.items()
        if u.owner == player
    }
    orders = OrdersSubmitted(player=player, turn=state.turn, moves=(), landings=landings)
    ahead = msgspec.structs.replace(state, units=moved, submitted={player: orders})
    return evolve_all(ahead, (new.event for new in decide_landings(ahead, starmap)))


def _end_of_turn(unit: Unit, plans: dict[str, Plan], turn: int) -> str | None:
    """Where a unit will be when the turn's moves are done: new orders, or its plot."""
    if unit.id in plans and plans[unit.id].path:
        return plans[unit.id].path[-1]
    if unit.plotted(turn) and unit.plot:
        return unit.plot[0]
    return unit.hex


def decide_mark_final(state: CampaignState, player: str, final: bool = True) -> list[NewEvent]:
    """Mark `player`'s orders of the turn final ("ready"), or take the mark back; nothing
    when it already stands so. Only orders handed in can be final, while the turn takes
    orders (the caller checks the deadline, as for the orders themselves).

    Raises:
        IllegalCommandError: the turn takes no orders now, or he has handed in none.
    """
    ft2 = state.ft2  # the FT2 campaign keeps its orders and phase apart (issue 20)
    if state.finished or (ft2.phase if ft2 is not None else state.phase) != "orders":
        raise IllegalCommandError(
            f"turn {state.turn} is being resolved: orders are closed; try again later"
        )
    handed_in = ft2.orders if ft2 is not None else state.submitted
    if final and player not in handed_in:  # the umpire's state: his sealed orders
        raise IllegalCommandError(
            f"{player} has handed in no orders for turn {state.turn}: submit them, then mark "
            "them final"
        )
    if (player in state.final) == final:
        return []
    marked = OrdersMarkedFinal(player=player, turn=state.turn, final=final)
    return [NewEvent(event=marked, audience=Audience.players_([player]), turn=state.turn)]


def template(
    state: CampaignState, player: str, entry_hex: str, landable: Sequence[str] = ()
) -> str:
    """Return an orders file listing all of `player`'s units, each holding position.

    `landable` describes the planets his transports could land on this turn (the service
    reads them off his map): on a production turn a colony founded by landing produces too.
    """
    lines = [
        f'# Orders of {player} for turn {state.turn}. Give a unit `to = "CCRR"` to move it;',
        "# order is engage, stand-off or ftl-move (004 section 5.3) where the unit ends the",
        "# turn; leaving a hex it is under FTL Move there (004 5.1). To land colonists where",
        "# transports end their move, add [[landings]] unit, planet (System/orbit), colonists.",
        "# A unit without `to` (or left out) holds position this turn: holding is no FTL move",
        "# and binds it to nothing. A destination may lie as many turns away as the unit's",
        "# plot horizon (004 section 6); it then follows that plot. A task force formed in",
        "# these orders must reach its destination this turn: its admiral (and so its",
        "# horizon) is known only when the turn resolves, unless one waits in your reserve.",
        "# `count = N` sends N of a transport group or scout troop as a new unit (the next",
        '# free number of its kind); `via = ["CCRR"]` adds stops on the way. The whole',
        "# format ([[merges]], [[attacks]], [[battle_sites]], posts, [treasury]) is in",
        "# the project's campaign/rules/orders.py.",
        *_treasury_note(state, player),
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
    return "\n".join(lines + _production_lines(state, player, landable)) + "\n"


def _treasury_note(state: CampaignState, player: str) -> list[str]:
    """Remind a player of his starting treasury while he may spend it (004 L32)."""
    empire = state.empires.get(player)
    if empire is None or not treasury_open(state, empire):
        return []
    expires = state.production_settings.starting_ip == "expire"
    lost = "; what is left at turn 4's production is lost" if expires else ""
    return [
        f"# Starting treasury: {empire.ip} IP, spent before anyone moves{lost} (004 L32):",
        '# [treasury] research = N (with [[research]] tech = "...") and ships, a list of',
        '# { design = "...", count = N }: ships = [{ design = "frigate" },',
        '# { design = "destroyer", count = 2 }].',
    ]


def _production_lines(state: CampaignState, player: str, landable: Sequence[str] = ()) -> list[str]:
    """Commented `[[production]]` entries for each of the player's colonies, and the planets
    he may found a colony on this turn, when the turn ends with a production phase (004 5.7);
    the full format is this module's docstring."""
    if not is_production_turn(state.turn):
        return []
    lines = [
        "",
        "# This turn ends with a production phase (004 5.7). Spend each colony's IP, e.g.:",
    ]
    empire = state.empires.get(player)
    # Factories only with an industrial technology (004 5.7.7): suggest what he may buy.
    factories = (
        "# factories = 1"
        if empire is not None and factory_allowance(empire.techs).tech is not None
        else "# (factories need Industrial Technology first, 004 5.7.7)"
    )
    for colony in sorted(state.colonies.values(), key=lambda c: c.id):
        if colony.owner != player:
            continue
        lines += [
            "# [[production]]",
            f'# colony = "{colony.id}"  # {colony.population}M, {colony.factories} factories',
            factories,
            '# ships = [{ design = "destroyer", count = 1 }]',
            "# fighters = 6  # for carriers lacking them and fleet tenders in its hex",
            "# decoys = 1  # decoy drones: one to each warship in its hex without one",
        ]
    if landable:
        lines += [
            "# A colony founded by a landing this turn produces in this phase too: give its",
            '# [[production]] under the planet\'s id (colony = "System/orbit"). Your',
            "# transports are at:",
            *(f"#   {planet}" for planet in landable),
        ]
    return lines


def submitted_document(submitted: OrdersSubmitted) -> OrdersDocument:
    """Return the orders document a submission recorded (to show it again, or edit it)."""
    fields = {f: getattr(submitted, f) for f in OrdersDocument.__struct_fields__}
    return OrdersDocument(**fields)


def _toml_value(value: object) -> str:
    """One TOML value: a string, number, boolean, list, or a struct as an inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string (TOML takes the same escapes) unless it
        # holds astral characters escaped as surrogate pairs: keep those as they are.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, msgspec.Struct):
        pairs = [f"{k} = {_toml_value(v)}" for k, v in _set_fields(value)]
        return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
    raise TypeError(f"no TOML for {value!r}")  # pragma: no cover - every field type is above


def _set_fields(struct: msgspec.Struct) -> list[tuple[str, object]]:
    """The fields of `struct` that differ from their defaults (None is never written)."""
    out = []
    for field in msgspec.structs.fields(struct):
        value = getattr(struct, field.name)
        if value is None:
            continue
        if field.default is not msgspec.NODEFAULT and value == field.default:
            continue
        if field.default_factory is not msgspec.NODEFAULT and value == field.default_factory():
            continue
        out.append((field.name, value))
    return out


def dumps(document: OrdersDocument) -> str:
    """Return an orders document as the TOML `parse` reads back to the same document.

    The web page's orders editor writes its orders with it, so they are an orders file like
    any other (issue 16). Fields at their defaults are left out.

    >>> doc = OrdersDocument(player="red", turn=2, moves=(Move(unit="red-S1", to="0302"),))
    >>> print(dumps(doc), end="")
    player = "red"
    turn = 2
    <BLANKLINE>
    [[moves]]
    unit = "red-S1"
    to = "0302"
    >>> parse(dumps(doc), "red", 2) == doc
    True
    """
    lines: list[str] = []
    tables: list[tuple[str, object]] = []
    for name, value in [("player", document.player), ("turn", document.turn)] + [
        (k, v) for k, v in _set_fields(document) if k not in ("player", "turn")
    ]:
        is_tables = isinstance(value, tuple) and value and isinstance(value[0], msgspec.Struct)
        if is_tables or isinstance(value, msgspec.Struct):
            tables.append((name, value))
        else:
            lines.append(f"{name} = {_toml_value(value)}")
    for name, value in tables:
        items = value if isinstance(value, tuple) else (value,)
        header = f"[[{name}]]" if isinstance(value, tuple) else f"[{name}]"
        for item in items:
            assert isinstance(item, msgspec.Struct)
            lines += ["", header]
            lines += [f"{k} = {_toml_value(v)}" for k, v in _set_fields(item)]
    return "\n".join(lines) + "\n"


def summary(document: OrdersDocument) -> list[str]:
    """Return an orders document in words, a line an order: what the page says it received."""
    lines = []
    for move in document.moves:
        if move.to is None:
            what = "holds position"
        else:
            via = f" by way of {', '.join(move.via)}" if move.via else ""
            what = f"moves to {move.to}{via}"
        part = f" ({move.count} of them, as a new unit)" if move.count else ""
        order = f", {move.order}" if move.order else ""
        lines.append(f"{move.unit}{part} {what}{order}")
    for force in document.task_forces:
        if force.id is None:
            lines.append(f"form a task force of {', '.join(force.units)}")
        elif force.units:
            lines.append(f"task force {force.id} is now {', '.join(force.units)}")
        else:
            lines.append(f"disband task force {force.id}")
    for merge in document.merges:
        lines.append(f"merge {', '.join(merge.units)}")
    for landing in document.landings:
        post = "" if landing.post else ", no command post"
        lines.append(
            f"{landing.unit} lands {landing.colonists} million colonists on {landing.planet}{post}"
        )
    for spend in document.production:
        bought = [
            f"{k.replace('_', ' ')} {_toml_value(v) if k == 'ships' else v}"
            for k, v in _set_fields(spend)
            if k != "colony"
        ]
        lines.append(f"{spend.colony} buys: {', '.join(bought) or 'nothing'}")
    for research in document.research:
        ip = f" ({research.ip} IP)" if research.ip is not None else ""
        lines.append(f"research {research.tech}{ip}")
    for attack in document.attacks:
        lines.append(f"{attack.mode} {attack.colony or 'every enemy colony'} in {attack.system}")
    if document.treasury is not None:
        lines.append(f"starting treasury: {_toml_value(document.treasury)}")
    if document.battle_locations:
        lines.append(f"battle locations: {', '.join(document.battle_locations)}")
    lines += [f"scorch {c} if assaulted" for c in document.scorch]
    lines += [f"establish a command post on {c}" for c in document.posts]
    lines += [f"battle site in {b.system}: {_toml_value(b)}" for b in document.battle_sites]
    return lines


__all__ = [
    "OrdersDocument",
    "OrdersError",
    "decide_submit",
    "dumps",
    "parse",
    "submitted_document",
    "summary",
    "template",
]
