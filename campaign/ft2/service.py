"""The FT2 campaign's commands over the one service: load, decide (`campaign.ft2`), append.

`CampaignService` dispatches here when a campaign was created with `--rules ft2`; the
store, dice, audiences, commitments, snapshots and `umpire verify` are the 004 campaign's.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import msgspec

from campaign.dice import DiceKey, DiceSource
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import UMPIRE, Audience, NewEvent, RecordedEvent, TurnEnded, UmpireNoted
from campaign.ft2.events import DecisionMade, Ft2BattleFought, Ft2OrdersSubmitted
from campaign.ft2.model import (
    Contact,
    Encounter,
    Fleet,
    Ft2Orders,
    Ft2State,
    Scenario,
    load_scenario,
)
from campaign.ft2.report import report_lines
from campaign.ft2.state import evolve_ft2
from campaign.inputs import MAX_ORDERS_BYTES, check_text_size
from campaign.projections import CampaignState, evolve_all, fold
from campaign.rules import core
from campaign.storetypes import MAIN_BRANCH, Lineage, Store
from maps import mapfile, tomlinput
from maps.starmap import StarMap

if TYPE_CHECKING:
    from campaign.ft2.desk import Ft2Desk

RULES_CHOICES = ("004", "ft2")
AskDie = Callable[[DiceKey, int], int]


class CampaignService(Protocol):
    """What these commands use of `campaign.service.CampaignService` (which calls them)."""

    store: Store

    def nonces(self) -> str: ...
    def load(
        self,
        lineage: Lineage,
        upto_version: int | None = None,
        viewer: str = UMPIRE,
        use_snapshots: bool = True,
    ) -> CampaignState: ...
    def starmap(self, lineage: Lineage) -> StarMap: ...
    def _dice(
        self,
        lineage: Lineage,
        state: CampaignState,
        results: Sequence[int] | None,
        ask: AskDie | None,
    ) -> DiceSource: ...
    def _snapshot(self, lineage: Lineage, state: CampaignState) -> None: ...
    def _check_viewer(self, lineage: Lineage, viewer: str) -> None: ...


class EncounterView(msgspec.Struct, frozen=True):
    """An encounter as a player (or the umpire) sees it: where, who, the scans he was told
    of, and his own decision so far."""

    id: str
    system: str
    hex: str
    occupant: str
    players: tuple[str, ...]
    scans: dict[str, tuple[Contact, ...]]  # scanner -> what he saw
    decided: dict[str, str]  # the viewer's own decision (the umpire: everyone's)


def scenario_of(state: CampaignState) -> Scenario:
    """Return the campaign's scenario."""
    assert state.ft2 is not None
    return load_scenario(state.ft2.scenario)


def require_ft2(state: CampaignState) -> Ft2State:
    """Return the FT2 state, or refuse a command only the FT2 campaign has.

    Raises:
        IllegalCommandError: the campaign plays the 004 rules.
    """
    if state.ft2 is None:
        raise IllegalCommandError(
            "this campaign plays the 004 rules: encounters belong to a campaign created with "
            "--rules ft2"
        )
    return state.ft2


def refuse_in_ft2(state: CampaignState, what: str) -> None:
    """Refuse, in one line, a 004 command that makes no sense in the FT2 campaign.

    Raises:
        IllegalCommandError: the campaign plays the FT2 rules.
    """
    if state.ft2 is not None:
        raise IllegalCommandError(
            f"{what} belongs to the 004 campaign; this one plays FT2's campaign rules "
            "(see `umpire encounters --help`)"
        )


class Ft2Plan(msgspec.Struct, frozen=True):
    """A new FT2 campaign checked and decided, not yet stored."""

    command: core.CreateCampaign
    batch: list[NewEvent]


def turn_in_progress(state: CampaignState) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """Return who handed in orders this turn, its phase and the battles waiting, for either
    campaign's `umpire turn status`."""
    if state.ft2 is None:
        return tuple(sorted(state.submitted)), state.phase, tuple(sorted(state.pending_battles))
    return tuple(sorted(state.ft2.orders)), state.ft2.phase, tuple(sorted(state.ft2.battles))


def plan(
    name: str,
    players: Sequence[str],
    scenario_name: str,
    scale: int,
    seed: str | None,
    dice_mode: str,
    forces_texts: Mapping[str, str],
    load_map: Callable[[str], core.CampaignMap],
    absent: str = "hold",
    end_early: bool = False,
) -> Ft2Plan:
    """Check a new FT2 campaign and its forces before anything is written; `load_map`
    reads the scenario's map as the 004 campaign records one.

    Raises:
        InvalidInputError: a bad scenario, scale, player list or forces file.
    """
    from campaign.ft2 import forces  # the engine's catalogue: only to set up

    try:
        scenario = load_scenario(scenario_name)
    except LookupError as exc:
        raise InvalidInputError(str(exc)) from None
    if not 1 <= scale <= 1000:
        raise InvalidInputError(f"--scale {scale} must be a percentage from 1 to 1000 (001 L1570)")
    if len(players) != len(scenario.sides):
        raise InvalidInputError(
            f"scenario {scenario.name} has {len(scenario.sides)} sides "
            f"({', '.join(s.name for s in scenario.sides)}): name one player for each, "
            "in that order"
        )
    unknown = sorted(set(forces_texts) - set(players))
    if unknown:
        raise InvalidInputError(f"forces given for {', '.join(unknown)}, who is not a player")
    command = core.CreateCampaign(
        name=name,
        players=tuple(players),
        seed=seed if seed is not None else secrets.token_hex(32),
        dice_mode=dice_mode,
        max_turns=scenario.turns,
        map=load_map(scenario.map),
        absent=absent,
        battle_rules="ft2",
        rules="ft2",
        scenario=scenario.name,
        scale=scale,
        end_early=end_early,
    )
    batch = core.decide_create(command)
    assert command.map is not None
    starmap = mapfile.loads(command.map.text)
    for player, side in zip(players, scenario.sides, strict=True):
        text = forces_texts.get(player)
        chosen = (
            forces.decode_forces(text, f"for {player}")
            if text is not None
            else forces.default_forces(scenario, side, scale, starmap)
        )
        batch.append(forces.deploy(scenario, side, player, chosen, scale, starmap))
    set_up = evolve_all(CampaignState(), (new.event for new in batch))
    batch += core.decide_end_turn(set_up, core.EndTurn())  # the campaign opens at turn 1
    return Ft2Plan(command, batch)


def new_campaign(service: CampaignService, planned: Ft2Plan) -> list[RecordedEvent]:
    """Store the campaign `plan` checked, atomically, and snapshot it."""
    command = planned.command
    service.store.create_campaign(
        command.name, command.seed, planned.batch, chain_key=service.nonces()
    )
    lineage = service.store.lineage(planned.command.name, MAIN_BRANCH)
    recorded = list(service.store.read(lineage))
    service._snapshot(lineage, fold(recorded))
    return recorded


def fleets(service: CampaignService, lineage: Lineage, viewer: str) -> list[Fleet]:
    """Return the fleets `viewer` knows of: a player his own (001 L1475), the umpire all."""
    service._check_viewer(lineage, viewer)
    state = require_ft2(service.load(lineage, viewer=viewer))
    return sorted(state.fleets.values(), key=lambda f: f.id)


def orders_template(service: CampaignService, lineage: Lineage, player: str) -> str:
    """Return an orders file for `player`: every fleet of his, staying where it is."""
    service._check_viewer(lineage, player)
    full = service.load(lineage)
    view = require_ft2(service.load(lineage, viewer=player))
    scenario = scenario_of(full)
    lines = [
        f"# {player}'s orders for turn {full.turn} of {scenario.title} (FT2 campaign rules).",
        f"# A fleet moves up to {scenario.move_hexes} hexes (001 L1477): to a hex or system.",
        "# [[splits]] fleet, ships = [...], to = ...; [[merges]] into, fleets = [...];",
        "# [[docks]] ship, systems = [...] (repairs at a facility); [[decoys]] fleet, drones.",
        f'player = "{player}"',
        f"turn = {full.turn}",
        "",
    ]
    for eid in sorted(view.encounters):
        lines += [
            f"# {eid}: encounter at {view.encounters[eid].system}: fight, withdraw or stand-off",
            "[[decisions]]",
            f'encounter = "{eid}"',
            'decision = "stand-off"',
            "",
        ]
    for fleet in sorted(view.fleets.values(), key=lambda f: f.id):
        if fleet.owner != player or view.phase == "encounters":
            continue
        ships = ", ".join(f"{s.id} {s.design}" for s in fleet.ships)
        lines.append(f"# {fleet.id} at {fleet.hex}: {ships}; {fleet.drones} drones")
        if fleet.fixed:
            lines.append("#   non-FTL System Defence: it stays (001 L1550)")
            continue
        lines += ["[[moves]]", f'fleet = "{fleet.id}"', f'to = "{fleet.hex}"', ""]
    return "\n".join(lines) + "\n"


def dumps_orders(orders: Ft2Orders) -> str:
    """Write orders as the orders file `parse_orders` reads back to the same orders."""
    lines = [f"player = {_toml(orders.player)}", f"turn = {orders.turn}"]
    for table, items in (
        ("moves", orders.moves),
        ("splits", orders.splits),
        ("merges", orders.merges),
        ("docks", orders.docks),
        ("decoys", orders.decoys),
        ("decisions", orders.decisions),
    ):
        for item in items:
            lines.append(f"\n[[{table}]]")
            for key, value in msgspec.structs.asdict(item).items():
                if value is not None:
                    lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string of printable text is a TOML basic string
    return str(value)


def parse_orders(text: str, player: str, turn: int) -> Ft2Orders:
    """Decode an FT2 orders file and check it is this player's, for this turn.

    Raises:
        InvalidInputError: it does not decode, or is another player's.
    """
    check_text_size(text, "the orders", MAX_ORDERS_BYTES)
    try:
        orders = tomlinput.decode(text, type=Ft2Orders, limit=MAX_ORDERS_BYTES)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidInputError(f"{player}'s orders for turn {turn}: {exc}") from None
    if orders.player != player:
        raise InvalidInputError(f"the file is {orders.player}'s orders, not {player}'s")
    # A move to where the fleet is is no move (the template's default).
    return orders


def submit_orders(
    service: CampaignService,
    lineage: Lineage,
    player: str,
    text: str,
    state: CampaignState,
    ruling: str | None = None,
    sequence: int = 0,
) -> list[RecordedEvent]:
    """Check a player's orders against his own view and record them, committed; by the
    umpire's `ruling`, in his place (he is told why); a signed file's `sequence` must be
    newer than any of his accepted this turn, as in the 004 campaign.

    Raises:
        InvalidInputError: a problem with the orders.
        IllegalCommandError: a signed file not newer than one accepted before (a replay).
    """
    ft2 = require_ft2(state)
    orders = parse_orders(text, player, state.turn)
    if sequence:
        latest = _latest_sequence(service, lineage, player, state.turn)
        if sequence <= latest:
            raise IllegalCommandError(
                f"signed orders number {sequence} are not newer than {player}'s orders "
                f"number {latest} accepted for turn {state.turn}: an old file is not taken "
                "again (sign the orders anew to replace them)"
            )
    batch = _orders_batch(service, lineage, player, state, ft2, orders, sequence)
    if ruling is not None:
        batch = [msgspec.structs.replace(new, actor=UMPIRE) for new in batch]
        note = UmpireNoted(
            text=f"by ruling, your orders for turn {state.turn} were replaced: {ruling}"
        )
        batch.append(NewEvent(note, Audience.players_([player]), state.turn))
    return service.store.append(lineage, state.version, batch)


def _latest_sequence(service: CampaignService, lineage: Lineage, player: str, turn: int) -> int:
    told = service.store.read(
        lineage, turn=turn, types=[Ft2OrdersSubmitted.TYPE, DecisionMade.TYPE]
    )
    return max(
        (
            e.event.sequence
            for e in told
            if (isinstance(e.event, Ft2OrdersSubmitted) and e.event.orders.player == player)
            or (isinstance(e.event, DecisionMade) and e.event.player == player)
        ),
        default=0,
    )


def _orders_batch(
    service: CampaignService,
    lineage: Lineage,
    player: str,
    state: CampaignState,
    ft2: Ft2State,
    orders: Ft2Orders,
    sequence: int,
) -> list[NewEvent]:
    """Decide a submission: decisions once encounters are found, else the plotted moves."""
    from campaign.ft2 import rules  # the FT2 rules: only to decide

    if ft2.phase == "encounters" and orders.decisions:  # decisions by orders file
        if orders != Ft2Orders(player=player, turn=state.turn, decisions=orders.decisions):
            raise InvalidInputError(
                "once encounters are found, an orders file holds only [[decisions]]"
            )
        batch: list[NewEvent] = []
        for order in orders.decisions:
            decided = rules.decide_decision(
                ft2,
                state.turn,
                player,
                order.encounter,
                order.decision,
                service.nonces(),
                sequence,
            )
            batch += decided
            # One file naming an encounter twice is told to his rival once, as two files are.
            for new in decided:
                ft2 = evolve_ft2(ft2, new.event)
        return batch
    if orders.decisions:
        raise InvalidInputError(
            "[[decisions]] are handed in once the turn's encounters are found "
            "(`umpire encounters list`)"
        )
    view = require_ft2(service.load(lineage, viewer=player))
    orders = _without_stays(orders, view)
    return rules.decide_submit(
        ft2,
        state.turn,
        view,
        service.starmap(lineage),
        scenario_of(state),
        orders,
        service.nonces(),
        sequence,
    )


def _without_stays(orders: Ft2Orders, view: Ft2State) -> Ft2Orders:
    """Drop the moves that leave a fleet where it is (the template writes them)."""
    moves = tuple(
        m for m in orders.moves if m.fleet not in view.fleets or view.fleets[m.fleet].hex != m.to
    )
    return msgspec.structs.replace(orders, moves=moves)


def resolve_turn(
    service: CampaignService,
    lineage: Lineage,
    state: CampaignState,
    ask: AskDie | None = None,
    expected_turn: int | None = None,
    now: datetime | None = None,
) -> list[RecordedEvent]:
    """Resolve the turn's next step: movement and encounters, then the encounters'
    decisions; with battles waiting, nothing; with none, the week's end. As in the 004
    campaign (issue 13), a turn nobody sent orders for is moved only when named
    (`expected_turn`) or past its deadline.

    Raises:
        IllegalCommandError: battles wait for an outcome, the campaign is over, another turn
            is named, or nobody sent orders.
    """
    from campaign.ft2 import rules, weekend

    core.require_running(state)
    ft2 = require_ft2(state)
    if expected_turn is not None and expected_turn != state.turn:
        raise IllegalCommandError(
            f"turn {expected_turn} is not the turn in progress (turn {state.turn}): "
            "nothing was resolved"
        )
    due = state.deadline is not None and now is not None and now > state.deadline
    if expected_turn is None and ft2.phase == "orders" and not ft2.orders and not due:
        raise IllegalCommandError(
            f"nobody has sent orders for turn {state.turn} and it is not past its deadline: "
            f"to resolve it all the same, name it (--turn {state.turn})"
        )
    starmap = service.starmap(lineage)
    scenario = scenario_of(state)
    dice = service._dice(lineage, state, None, ask)
    if ft2.battles:
        raise IllegalCommandError(
            f"battles wait for an outcome: {', '.join(sorted(ft2.battles))} "
            "(umpire encounters fight|record)"
        )
    batch: list[NewEvent] = []
    if ft2.phase == "orders":
        batch = rules.decide_movement(ft2, state.turn, state.players, starmap, scenario)
    elif ft2.encounters:
        batch = rules.decide_encounters(ft2, state.turn, dice)
    after = evolve_all(state, (new.event for new in batch))
    assert after.ft2 is not None
    if not after.ft2.encounters and not after.ft2.battles:
        batch += weekend.decide_week_end(
            after.ft2, state.turn, state.players[0], starmap, scenario, dice
        )
    recorded = service.store.append(lineage, state.version, batch)
    if any(isinstance(new.event, TurnEnded) for new in batch):
        service._snapshot(lineage, fold(recorded, state))
    return recorded


def decide(
    service: CampaignService, lineage: Lineage, player: str, encounter: str, decision: str
) -> list[RecordedEvent]:
    """Write down a player's secret decision for an encounter (001 L1512)."""
    from campaign.ft2 import rules

    service._check_viewer(lineage, player)
    if player == UMPIRE:
        raise InvalidInputError("a decision is a player's: name him with --as-player")
    state = service.load(lineage)
    ft2 = require_ft2(state)
    batch = rules.decide_decision(ft2, state.turn, player, encounter, decision, service.nonces())
    return service.store.append(lineage, state.version, batch)


def encounters(service: CampaignService, lineage: Lineage, viewer: str) -> list[EncounterView]:
    """Return the encounters awaiting decisions that `viewer` is in (the umpire: all)."""
    service._check_viewer(lineage, viewer)
    state = require_ft2(service.load(lineage, viewer=viewer))
    found: list[EncounterView] = []
    for eid in sorted(state.encounters):
        encounter: Encounter = state.encounters[eid]
        players = tuple(s.player for s in encounter.sides)
        found.append(
            EncounterView(
                id=eid,
                system=encounter.system,
                hex=encounter.hex,
                occupant=encounter.occupant,
                players=players,
                scans={p: state.scans.get(f"{eid}/{p}", ()) for p in players},
                decided=dict(state.decisions.get(eid, {})),
            )
        )
    return found


def fight(
    service: CampaignService, lineage: Lineage, battle_id: str, ask: AskDie | None = None
) -> list[RecordedEvent]:
    """Fight a waiting battle with the engine (FT2 preset, its order commanders)."""
    from campaign.ft2 import battle as battles  # the engine: only for a battle

    state = service.load(lineage, use_snapshots=False)
    ft2 = require_ft2(state)
    dice = service._dice(lineage, state, None, ask)
    batch = battles.decide_engine_battle(ft2, state.turn, battle_id, dice)
    return service.store.append(lineage, state.version, batch)


def record(
    service: CampaignService,
    lineage: Lineage,
    battle_id: str,
    results: list[str],
    disengaging: str | None = None,
    ask: AskDie | None = None,
) -> list[RecordedEvent]:
    """Record a battle fought on a real table: `SHIP=FATE[:DAMAGE]` for each ship hurt; with
    `disengaging`, that side left the table and rolls to get away (001 L1204-1216)."""
    from campaign.ft2 import battle as battles

    state = service.load(lineage, use_snapshots=False)
    ft2 = require_ft2(state)
    fates = battles.parse_fates(results)
    if disengaging is None:
        batch = battles.decide_table_battle(ft2, state.turn, battle_id, fates)
    else:
        dice = service._dice(lineage, state, None, ask)
        batch = battles.decide_disengagement(ft2, state.turn, battle_id, disengaging, fates, dice)
    return service.store.append(lineage, state.version, batch)


def battles_waiting(service: CampaignService, lineage: Lineage, viewer: str) -> list[str]:
    """Return the ids of the battles awaiting an outcome that `viewer` is in."""
    service._check_viewer(lineage, viewer)
    state = require_ft2(service.load(lineage, viewer=viewer))
    return sorted(state.battles)


def report(service: CampaignService, lineage: Lineage, player: str) -> list[str]:
    """Return `player`'s report (`campaign.ft2.report`), from what he may see only."""
    service._check_viewer(lineage, player)
    view = service.load(lineage, viewer=player)
    require_ft2(view)
    told = list(service.store.read(lineage, visible_to=player))
    return report_lines(view, told, player)


class MapService(CampaignService, Protocol):
    """What the player's desk uses besides: his map (`CampaignService.player_map`)."""

    def player_map(self, lineage: Lineage, player: str) -> tuple[StarMap, tuple[str, ...]]: ...


def desk(service: MapService, lineage: Lineage, player: str) -> Ft2Desk:
    """Return `player`'s FT2 map and orders desk (`campaign.ft2.desk`), from the events he
    may see only: his view, the chart he knows, the battles he was told of."""
    from campaign.ft2.desk import build_desk  # the rules' reach: only for the web desk

    service._check_viewer(lineage, player)
    view = service.load(lineage, viewer=player)
    state = require_ft2(view)
    starmap, _ = service.player_map(lineage, player)
    battles = [
        recorded.event.battle.id
        for recorded in service.store.read(lineage, types=[Ft2BattleFought.TYPE], visible_to=player)
        if isinstance(recorded.event, Ft2BattleFought)
    ]
    built = build_desk(state, view.turn, view.finished, starmap, scenario_of(view), player, battles)
    return msgspec.structs.replace(
        built,
        deadline=view.deadline.isoformat() if view.deadline else None,
        now=service.store.clock().isoformat(),
    )


def map_svg(service: MapService, lineage: Lineage, player: str) -> str:
    """Return `player`'s FT2 map as SVG (`campaign.ft2.desk.desk_svg`)."""
    from campaign.ft2.desk import desk_svg

    return desk_svg(desk(service, lineage, player), service.player_map(lineage, player)[0])


def is_ft2(service: CampaignService, lineage: Lineage) -> bool:
    """Return whether the campaign plays the FT2 campaign rules."""
    return service.load(lineage).ft2 is not None


def result(service: CampaignService, lineage: Lineage) -> tuple[str | None, tuple[str, ...]]:
    """Return the judged result (None before the end) and the systems held."""
    state = require_ft2(service.load(lineage))
    return state.result, state.held
