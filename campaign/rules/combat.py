"""Combat (004 section 5.3): which battles a turn brings, where they are fought, and after.

When warships of two players end a move in the same hex, their orders decide (004 L115-122):

| intruder \\ defender | Engage  | Stand Off | FTL Move |
| Engage              | even    | even      | pursuit  |
| Stand Off           | even    | none      | none     |
| FTL Move            | pursuit | none      | none     |

The table is symmetric, so it is read for each pair of (player, order) groups in the hex.
Battles are fought Engage-vs-Engage first, then Engage-vs-Stand Off, then Engage-vs-FTL Move
(004 L125-131). The location: the system's owner chooses for Engage-vs-Engage, else the
initiative winner; the standing-off side chooses against Engage; FTL movers fight in free space.
A chooser takes the first location of his preference list (orders file) the system offers.

Ships leaving a hex are under FTL Move there (004 L72, "All ships instructed to move out from a
system must be given the order 'FTL Move'"), whatever order they carry for where they end the
turn: warships that leave a hex where enemy warships were at the start of the turn and stay
under Engage orders fight them there, in a pursuit battle (`departure`), among the other
Engage-vs-FTL Move battles. See docs/rulings.md.

Scouts and colony transports never fight on the table (004 L112-114: scouts are "Stand Off/FTL").
The Stellar Conquest engagement tables the rules cite are not in the seeds; see
docs/rulings.md for what happens to them (`decide_aftermath`).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import cast

import msgspec

from campaign.battlenames import DiceKeys
from campaign.dice import DiceKey, DiceSource, Roll
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    Audience,
    BattleFought,
    BattleRequested,
    CaptainCasualty,
    EnemyUnitsCaught,
    NewEvent,
    OfficerCasualty,
    UnitMoved,
    UnitsCaught,
)
from campaign.projections import CampaignState
from campaign.rules.battles import as_fought, unit_sheet
from campaign.rules.command import (
    CommandLevel,
    initiative_modifier,
    roll_captain,
    roll_casualty,
)
from campaign.rules.fighters import decide_stores_lost, fighter_loss_problems, with_fighters_lost
from campaign.strategic import (
    Battle,
    BattleKnowledge,
    BattleSide,
    BattleSite,
    BattleType,
    CombatOrder,
    Location,
    Loss,
    ShipResult,
    Unit,
)
from maps import StarMap, parse_label

# Precedence of the three kinds of battle (004 L125-131) and their types.
_KINDS: dict[frozenset[CombatOrder], tuple[int, BattleType]] = {
    frozenset({"engage"}): (0, "even"),
    frozenset({"engage", "stand-off"}): (1, "even"),
    frozenset({"engage", "ftl-move"}): (2, "pursuit"),
}
_PURSUIT: frozenset[CombatOrder] = frozenset({"engage", "ftl-move"})
# Ruling (docs/rulings.md): a scout troop caught by enemy warships with Engage orders is lost
# on this face of a d6; otherwise it withdraws before them (004 L112-113).
SCOUT_CAUGHT_ON = frozenset({1})


def find_battles(
    state: CampaignState,
    starmap: StarMap,
    dice: DiceSource,
    start: CampaignState | None = None,
) -> tuple[list[Battle], list[Roll]]:
    """Return the battles this turn's positions bring, in the order they are fought.

    `start` is the state at the start of the turn, before anyone moved: warships that have
    left a hex since are pursued there (`departures`). Without it, nobody left.
    """
    groups: dict[str, dict[tuple[str, CombatOrder], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.kind == "warship" and unit.hex is not None:
            groups[unit.hex][(unit.owner, unit.order)].append(unit.id)
    found: list[tuple[int, str, Battle]] = []
    rolls: list[Roll] = []
    for hex_label in sorted(groups):
        for a, b in combinations(sorted(groups[hex_label]), 2):
            if a[0] == b[0]:
                continue
            kind = _KINDS.get(frozenset({a[1], b[1]}))
            if kind is None:
                continue
            rank, battle_type = kind
            system = starmap.system_at(parse_label(hex_label))
            sides = (
                _side(state, a[0], a[1], groups[hex_label][a]),
                _side(state, b[0], b[1], groups[hex_label][b]),
            )
            battle = Battle(
                id="",
                hex=hex_label,
                system=system.name if system else None,
                type=battle_type,
                pursued=next((s.player for s in sides if s.order == "ftl-move"), None),
                sides=sides,
            )
            found.append((rank, hex_label, battle))
    if start is not None:
        found += [(_KINDS[_PURSUIT][0], b.hex, b) for b in departures(start, state, starmap)]
    # In a hex, the pursuits of ships staying under FTL Move come before those of the ships
    # leaving it (a tie 004 L125-131 leaves open).
    found.sort(
        key=lambda f: (f[0], f[1], f[2].departure, f[2].sides[0].player, f[2].sides[1].player)
    )
    battles = []
    keys = DiceKeys(state.turn)
    for n, (rank, _, battle) in enumerate(found, start=1):
        # Its dice are keyed by what both sides know, not by its id's count of the turn's
        # battles (docs/rulings.md, "Campaign: a battle's dice").
        key = keys.next(battle.hex, (battle.sides[0].player, battle.sides[1].player))
        chooser, location, initiative = _location(state, starmap, battle, rank, key, dice)
        rolls += initiative
        site = battle_site(state, chooser, battle.system) if chooser else None
        battles.append(
            msgspec.structs.replace(
                battle,
                id=f"t{state.turn}-b{n}",
                dice_key=key,
                location=location,
                chosen_by=chooser,
                # 004 L154-155, L163-164: the chooser's set-up of a dense world or gas giant.
                world=site.world if site is not None and location == "dense-world" else "between",
                gravity=site.gravity if site is not None and location == "gas-giant" else None,
            )
        )
    return battles, rolls


def departures(start: CampaignState, state: CampaignState, starmap: StarMap) -> list[Battle]:
    """Return the pursuits of warships leaving hexes held by enemies under Engage orders.

    004 L72: "All ships instructed to move out from a system must be given the order 'FTL
    Move'", so a ship leaving is under FTL Move in the hex it leaves, whatever order it
    carries for the hex where it ends the turn; 004 L119-122 makes Engage against FTL Move a
    pursuit battle. A warship has left a hex when it was there at the start of the turn
    (`start`) and is elsewhere after movement (`state`). Its pursuers are the enemy warships
    that were there at the start, are there still and have Engage orders this turn: ships
    arriving meanwhile come too late. One side is all of a player's warships leaving one hex.
    Scouts and transports are never pursued (004 L112, docs/rulings.md).
    """
    leaving: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    staying: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        before = start.units.get(unit.id)
        if unit.kind != "warship" or before is None or before.hex is None:
            continue
        if unit.hex != before.hex:
            leaving[before.hex][unit.owner].append(unit.id)
        elif unit.order == "engage":
            staying[unit.hex][unit.owner].append(unit.id)
    battles = []
    for hex_label in sorted(leaving):
        system = starmap.system_at(parse_label(hex_label))
        for quarry, ships in sorted(leaving[hex_label].items()):
            for hunter, pursuers in sorted(staying.get(hex_label, {}).items()):
                if hunter == quarry:
                    continue
                one = _side(state, quarry, "ftl-move", ships)
                other = _side(state, hunter, "engage", pursuers)
                battles.append(
                    Battle(
                        id="",
                        hex=hex_label,
                        system=system.name if system else None,
                        type="pursuit",
                        pursued=quarry,
                        sides=(one, other) if quarry < hunter else (other, one),
                        departure=True,
                    )
                )
    return battles


def _side(state: CampaignState, player: str, order: CombatOrder, units: list[str]) -> BattleSide:
    """A side in battle, under the best admiral among its task forces (1 is the best)."""
    levels = [
        level
        for tf in state.task_forces.values()
        if (level := tf.admiral_at(state.turn)) is not None and set(tf.units) & set(units)
    ]
    return BattleSide(
        player=player, order=order, units=tuple(units), admiral=min(levels) if levels else None
    )


def _location(
    state: CampaignState,
    starmap: StarMap,
    battle: Battle,
    rank: int,
    name: str,
    dice: DiceSource,
) -> tuple[str | None, Location, list[Roll]]:
    if rank == 2:
        return None, "free-space", []  # 004 L130-131: FTL movers must be in free space
    players = [s.player for s in battle.sides]
    rolls: list[Roll] = []
    if rank == 1:
        chooser = next(s.player for s in battle.sides if s.order == "stand-off")  # 004 L128-129
    else:
        owners = {c.owner for c in state.colonies.values() if c.hex == battle.hex} & set(players)
        if len(owners) == 1:
            chooser = owners.pop()  # 004 L126: the owner of the system chooses
        else:
            modifiers = [_initiative_modifier(state, side) for side in battle.sides]
            chooser, rolls = _initiative(players, modifiers, name, state.turn, dice)
    system = starmap.system_at(parse_label(battle.hex))
    offered = {"free-space", *(str(f) for f in (system.features if system else ()))}
    for wanted in preferences(state, chooser, battle.system):
        if wanted in offered:
            return chooser, wanted, rolls
    return chooser, "free-space", rolls


def preferences(state: CampaignState, player: str, system: str | None) -> tuple[Location, ...]:
    """A player's battle locations, best first: his list for this system, else his general
    `battle_locations` (004 L123-131)."""
    site = battle_site(state, player, system)
    if site is not None and site.prefer:
        return site.prefer
    return state.battle_locations.get(player, ())


def battle_site(state: CampaignState, player: str, system: str | None) -> BattleSite | None:
    """Return a player's orders for fighting in `system` this turn, if he gave any."""
    submitted = state.submitted.get(player)
    if submitted is None or system is None:
        return None
    return next((s for s in submitted.battle_sites if s.system == system), None)


def check_battle_sites(starmap: StarMap, sites: tuple[BattleSite, ...]) -> list[str]:
    """Return every problem with a player's `[[battle_sites]]`."""
    problems = []
    seen: set[str] = set()
    for site in sites:
        where = f"battle site {site.system}"
        try:
            starmap.system(site.system)
        except KeyError:
            problems.append(f"{where}: no such star system")
            continue
        if site.system in seen:
            problems.append(f"{where}: given twice")
        seen.add(site.system)
        if site.gravity is not None and not 2 <= site.gravity <= 12:
            problems.append(
                f"{where}: gravity band {site.gravity} MU is not one of 2-12 (004 L163-164)"
            )
    return problems


def _initiative_modifier(state: CampaignState, side: BattleSide) -> int:
    """A side's initiative modifier: its admiral's, else its senior captain's, the captain of
    its flagship (its first ship; docs/rulings.md) (004 L330-342)."""
    flagship = state.units.get(side.units[0]) if side.units else None
    captain = flagship.captain_at(state.turn) if flagship is not None else None
    admiral = cast("CommandLevel | None", side.admiral)  # rolled on the 1-3 table
    return initiative_modifier(admiral, captain)


def _initiative_subject(name: str, player: str) -> str:
    """The dice-key subject of a player's initiative dice in the battle of dice name `name`."""
    return f"{name}.{player}"


def _initiative(
    players: list[str], modifiers: list[int], name: str, turn: int, dice: DiceSource
) -> tuple[str, list[Roll]]:
    """Roll a d6 each, plus the side's command modifier, until one total is higher (004 L127:
    "roll Initiative"; L330-342: level-1 officers add one, level-3 officers take one away).
    `name` is the battle's dice key."""
    rolls: list[Roll] = []
    for attempt in range(20):
        totals = []
        for player, modifier in zip(players, modifiers, strict=True):
            subject = _initiative_subject(name, player)
            key = DiceKey(turn=turn, phase="initiative", subject=subject, index=attempt)
            roll = dice.roll(key)
            rolls.append(roll)
            totals.append(roll.value + modifier)
        if totals[0] != totals[1]:
            return players[totals.index(max(totals))], rolls
    return sorted(players)[0], rolls  # twenty ties running: practically never


def decide_battles(
    state: CampaignState,
    starmap: StarMap,
    dice: DiceSource,
    start: CampaignState | None = None,
) -> list[NewEvent]:
    """Announce each battle to both sides; the turn waits until every one has an outcome.

    `start` is the state at the start of the turn, to find the ships that left a hex.
    """
    battles, rolls = find_battles(state, starmap, dice, start)
    batch = []
    for battle in battles:
        subjects = {_initiative_subject(battle.dice_name, side.player) for side in battle.sides}
        mine = tuple(r for r in rolls if DiceKey.parse(r.key).subject in subjects)
        requested = BattleRequested(battle=battle, rolls=mine)
        audience = Audience.players_([s.player for s in battle.sides])
        batch.append(NewEvent(event=requested, audience=audience, turn=state.turn))
    return batch


def _hull_problems(unit: Unit | None, result: ShipResult, lost: int) -> list[str]:
    """What is wrong with `lost` hull boxes for a warship: no more than it had left, and a ship
    that came out of the battle (survived, withdrew, jumped) kept one at least: a ship whose
    last box goes is destroyed (001 L476; 004 5.3.6 carries the damage)."""
    if unit is None or unit.design is None:
        return []
    boxes = unit_sheet(unit).hull_boxes
    left = max(boxes - unit.hull_lost, 0)
    most = left if result.fate == "destroyed" else left - 1
    if lost <= most:
        return []
    came = "was destroyed" if result.fate == "destroyed" else f"{result.fate}, so kept one"
    return [
        f"{result.unit} had {left} of its {boxes} hull boxes left and {came}: "
        f"hull_lost may be at most {max(most, 0)}, not {lost}"
    ]


def _outcome_problems(
    state: CampaignState,
    starmap: StarMap,
    battle: Battle,
    fought: Battle,
    battle_id: str,
    results: tuple[ShipResult, ...],
) -> list[str]:
    """What is wrong with a battle's outcome as given, ship by ship (none: it may be recorded).

    `battle` is the battle as announced, `fought` as fought (`as_fought`): only the ships
    still at its table may have a result; one lost or gone in an earlier battle this turn took
    no part (004 5.3.6).
    """
    announced = {u for side in battle.sides for u in side.units}
    fighting = {u for side in fought.sides for u in side.units}
    leaving = battle.leaving
    problems: list[str] = []
    seen: set[str] = set()
    for result in results:
        if result.unit in announced and result.unit not in fighting:
            problems.append(
                f"{result.unit} was not at the table of {battle_id}: "
                + (
                    "no battle was fought there, a side having no ship left after an earlier "
                    "battle this turn"
                    if not fighting
                    else "it was destroyed or left the hex in an earlier battle this turn "
                    "(004 5.3.6)"
                )
            )
        elif result.unit not in fighting:
            problems.append(f"{result.unit} did not fight in {battle_id}")
        if result.unit in seen:
            problems.append(f"{result.unit} is given twice")
        seen.add(result.unit)
        if result.fate == "jumped":
            if result.to_hex is None:
                if result.unit not in leaving:
                    problems.append(f"{result.unit} jumped: say where it came out (to_hex)")
            else:
                try:
                    on_map = starmap.contains(parse_label(result.to_hex))
                except ValueError:
                    on_map = False
                if not on_map:
                    problems.append(
                        f"{result.unit} jumped to {result.to_hex}, which is not on the map"
                    )
        if result.hull_lost is None or result.hull_lost < 0:
            problems.append(f"{result.unit}: hull_lost must be 0 or more boxes")
        elif result.unit in fighting:
            problems += _hull_problems(state.units.get(result.unit), result, result.hull_lost)
        if result.bridge_failures is None or any(level < 1 for level in result.bridge_failures):
            problems.append(f"{result.unit}: bridge_failures are threshold levels, 1 or more")
        if result.fighters_lost and result.unit in fighting:
            problems += fighter_loss_problems(state.units.get(result.unit), result, state.turn)
    return problems


def decide_battle_result(
    state: CampaignState,
    starmap: StarMap,
    battle_id: str,
    results: tuple[ShipResult, ...],
    source: str,
    journal: str | None = None,
    rolls: tuple[Roll, ...] = (),
    dice: DiceSource | None = None,
    knowledge: BattleKnowledge | None = None,
) -> list[NewEvent]:
    """Record a battle's outcome, from the tactical engine (with what each side knew at the
    end of each enemy ship, `knowledge`) or a table-top game.

    The outcome is the battle's as fought (`rules.battles.as_fought`): its sides and results
    are the ships still at its table, those an earlier battle this turn destroyed or took
    away left out (004 5.3.6), so neither side is told of a ship it never met; a battle a side
    had no ship left for is not fought and names none.

    In a departure battle the ships leaving are at their destinations already; whatever
    becomes of them is told to both sides, but where a jump took one (`to_hex`; left out,
    where it was going) only to its owner, since that is near where it was going.

    Raises:
        IllegalCommandError: no such battle waits for an outcome.
        InvalidInputError: a result names a ship not at the battle's table, twice, or a bad
            hex.
    """
    announced = state.pending_battles.get(battle_id)
    if announced is None:
        waiting = ", ".join(sorted(state.pending_battles)) or "none"
        raise IllegalCommandError(f"no battle {battle_id!r} awaits an outcome (waiting: {waiting})")
    battle = as_fought(state, announced)
    problems = _outcome_problems(state, starmap, announced, battle, battle_id, results)
    if problems:
        raise InvalidInputError(f"outcome of {battle_id}: " + "; ".join(problems))
    leaving = battle.leaving
    given = {r.unit: r for r in results}
    complete = tuple(
        with_fighters_lost(state.units.get(u), given.get(u, ShipResult(unit=u)), state.turn)
        for side in battle.sides
        for u in side.units
    )
    told = tuple(
        msgspec.structs.replace(r, to_hex=None) if r.unit in leaving else r for r in complete
    )
    fought = BattleFought(
        battle=battle,
        results=told,
        source=source,
        journal=journal,
        rolls=rolls,
        knowledge=knowledge,
    )
    audience = Audience.players_([s.player for s in battle.sides])
    batch = [NewEvent(event=fought, audience=audience, turn=state.turn)]
    for result in complete:
        unit = state.units.get(result.unit)
        if result.unit not in leaving or result.to_hex is None or unit is None:
            continue
        if result.fate != "jumped" or result.to_hex == unit.hex:
            continue
        # 004 L139-141: an unplanned jump lands off "the desired target point"; its plot
        # stands, as for any ship a battle displaces (docs/rulings.md).
        moved = UnitMoved(
            unit=unit.id,
            path=(result.to_hex,),
            order=unit.order,
            plot=unit.plot,
            plot_until=unit.plot_until,
        )
        batch.append(
            NewEvent(event=moved, audience=Audience.players_([unit.owner]), turn=state.turn)
        )
    batch += decide_stores_lost(state, complete)
    if dice is not None:
        batch += decide_officer_casualties(state, announced.dice_name, complete, dice)
    return batch


def decide_officer_casualties(
    state: CampaignState, name: str, results: tuple[ShipResult, ...], dice: DiceSource
) -> list[NewEvent]:
    """Roll for each admiral whose flagship's Command Bridge failed a threshold check or
    which was destroyed (004 L361-370, section 6).

    One roll per cause: each bridge failure with its threshold level's modifier (-1 at level
    2, -2 at level 3), destruction with -4; the worst result stands (docs/rulings.md).
    Dead: the task force is under a captain. Injured: it is under a captain for the turns out.
    Unharmed: the admiral shifts his flag if the flagship was destroyed. The next surviving
    ship becomes the flagship. The dice are keyed under the battle's dice name, `name`
    (`Battle.dice_name`).
    """
    destroyed = {r.unit for r in results if r.fate == "destroyed"}
    bridges = {r.unit: r.bridge_failures or () for r in results}  # a stored result tells them
    batch = []
    for force in sorted(state.task_forces.values(), key=lambda tf: tf.id):
        level = force.admiral_at(state.turn)
        if not force.units or level is None:
            continue
        flagship = force.units[0]
        failures = bridges.get(flagship, ())
        if flagship not in destroyed and not failures:
            continue
        subject = f"{name}.{force.id}"
        rolled = [
            roll_casualty(
                dice,
                DiceKey(turn=state.turn, phase="casualty", subject=f"{subject}.bridge{index}"),
                level,
                threshold=threshold,
            )
            for index, threshold in enumerate(failures, start=1)
        ]
        if flagship in destroyed:
            key = DiceKey(turn=state.turn, phase="casualty", subject=subject)
            rolled.append(roll_casualty(dice, key, level, destroyed=True))
        hurt = max(
            (casualty for casualty, _roll in rolled),
            key=lambda c: (c.result == "dead", c.result == "injured", c.turns_out),
        )
        survivors = [u for u in force.units if u not in destroyed and u in state.units]
        event = OfficerCasualty(
            task_force=force.id,
            result=hurt.result,
            turns_out=hurt.turns_out,
            new_flagship=(survivors[0] if survivors else None) if flagship in destroyed else None,
            rolls=tuple(roll for _casualty, roll in rolled),
        )
        batch.append(
            NewEvent(event=event, audience=Audience.players_([force.owner]), turn=state.turn)
        )
    return batch + _captain_casualties(state, name, results, dice)


def _captain_casualties(
    state: CampaignState, name: str, results: tuple[ShipResult, ...], dice: DiceSource
) -> list[NewEvent]:
    """Roll for the captain of every surviving warship whose Command Bridge failed a threshold
    check (004 L361-370), one roll per failure, the worst standing; a dead captain's successor
    is diced for at once (004 L322-327).

    Not rolled (docs/rulings.md): the captain of a destroyed ship, who leaves the campaign
    with it whatever the die would say, and a stand-in commanding for an injured captain.
    """
    batch = []
    for result in results:
        ship = state.units.get(result.unit)
        if ship is None or result.fate == "destroyed" or not result.bridge_failures:
            continue
        if ship.captain is None or ship.captain_at(state.turn) != ship.captain:
            continue  # no captain of record, or a stand-in commands
        subject = f"{name}.{ship.id}"
        rolled = [
            roll_casualty(
                dice,
                DiceKey(turn=state.turn, phase="casualty", subject=f"{subject}.bridge{index}"),
                ship.captain,
                threshold=threshold,
            )
            for index, threshold in enumerate(result.bridge_failures, start=1)
        ]
        hurt = max(
            (casualty for casualty, _roll in rolled),
            key=lambda c: (c.result == "dead", c.result == "injured", c.turns_out),
        )
        rolls = [roll for _casualty, roll in rolled]
        successor = None
        if hurt.result == "dead":
            key = DiceKey(turn=state.turn, phase="casualty", subject=f"{subject}.successor")
            successor, roll = roll_captain(dice, key)
            rolls.append(roll)
        event = CaptainCasualty(
            unit=ship.id,
            result=hurt.result,
            turns_out=hurt.turns_out,
            new_captain=successor,
            rolls=tuple(rolls),
        )
        batch.append(
            NewEvent(event=event, audience=Audience.players_([ship.owner]), turn=state.turn)
        )
    return batch


def decide_aftermath(state: CampaignState, dice: DiceSource) -> list[NewEvent]:
    """Scouts and transports caught where an enemy Engages and no friendly warship remains.

    Ruling (the Stellar Conquest engagement tables are not in the seeds): each scout troop
    rolls a d6 and is lost on a 1, else it withdraws; unescorted colony transports are lost.
    Each hex's catch is told to the owner (`units_caught`: his losses, where, and whose
    warships caught them) and to each player whose warships engaging there caught them
    (`enemy_units_caught`: whose, where, and how many were lost, by number).
    """
    engaging: dict[str, set[str]] = defaultdict(set)
    warships: dict[str, set[str]] = defaultdict(set)
    for unit in state.units.values():
        if unit.kind == "warship" and unit.hex is not None:
            warships[unit.hex].add(unit.owner)
            if unit.order == "engage":
                engaging[unit.hex].add(unit.owner)
    caught: dict[tuple[str, str], list[tuple[Unit, int, Roll | None]]] = defaultdict(list)
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.kind == "warship" or unit.hex is None:
            continue
        enemies = engaging[unit.hex] - {unit.owner}
        if not enemies or unit.owner in warships[unit.hex]:
            continue
        if unit.kind == "scout-troop":
            key = DiceKey(turn=state.turn, phase="caught", subject=unit.id)
            roll = dice.roll(key)
            lost = unit.count if roll.value in SCOUT_CAUGHT_ON else 0
            caught[(unit.owner, unit.hex)].append((unit, lost, roll))
        else:
            caught[(unit.owner, unit.hex)].append((unit, unit.count, None))
    batch = []
    for (player, hex_label), entries in sorted(caught.items()):
        captors = tuple(sorted(engaging[hex_label] - {player}))
        event = UnitsCaught(
            player=player,
            losses=tuple(Loss(unit=u.id, count=n) for u, n, _ in entries if n),
            rolls=tuple(r for _, _, r in entries if r is not None),
            hex=hex_label,
            by=captors,
        )
        batch.append(NewEvent(event=event, audience=Audience.players_([player]), turn=state.turn))
        scouts = sum(n for u, n, _ in entries if u.kind == "scout-troop")
        transports = sum(n for u, n, _ in entries if u.kind != "scout-troop")
        for captor in captors:
            told = EnemyUnitsCaught(
                player=captor, owner=player, hex=hex_label, scouts=scouts, transports=transports
            )
            batch.append(
                NewEvent(event=told, audience=Audience.players_([captor]), turn=state.turn)
            )
    return batch
