"""Fighting a campaign battle with the tactical engine, and reading back what happened.

The campaign's `Battle` becomes a `tactical.campaign_battle.CampaignBattle` (ships with the
damage they carry, captains, orders, location); the engine fights it with the order
commanders; its outcome becomes the campaign's `ShipResult`s. Every die the engine rolls is a
campaign die keyed under the battle, recorded in the `battle_fought` event, and the engine's
set-up and journal are stored with it so the battle can be replayed exactly.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Literal

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.projections import CampaignState
from campaign.rules import decoys
from campaign.strategic import (
    BATTLE_TURNS,
    DEFENCE_DESIGNS,
    STAND_IN_CAPTAIN,
    Battle,
    BattleKnowledge,
    CoreDamage,
    ShipResult,
    Unit,
    engine_id,
    parse_defence_id,
)
from maps import Hex, StarMap, label, parse_label
from tactical.designs import decode_design
from tactical.points import build
from tactical.ship import PRESETS, Design, Ship, ShipState, apply_damage, fresh_state

# The engine that fights (`tactical.campaign_battle`, `tactical.setup`) is imported by the
# functions that fight a battle, not here: a command that only reads a campaign never loads it.
if TYPE_CHECKING:
    from tactical.campaign_battle import CampaignBattle, CampaignBattleOutcome, ShipOutcome

# The six hex directions, numbered 1-6 as a d6 reads them (ruling: clockwise from "north").
_DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
# How the engine's battles move, by the campaign's setting (004 L43: vector; docs/rulings.md).
_BATTLE_MOVEMENT: dict[str, Literal["vector", "cinematic", "spatial"]] = {
    "vector": "vector",
    "cinematic": "cinematic",
    "spatial": "spatial",
}


class RecordingDice:
    """The tactical engine's dice, drawn from the campaign's and remembered; `name` is the
    battle's dice name (a 004 battle's `Battle.dice_name`, an FT2 battle's id)."""

    def __init__(self, source: DiceSource, turn: int, name: str) -> None:
        self.source = source
        self.turn = turn
        self.name = name
        self.rolls: list[Roll] = []

    def roll(self, key: str, sides: int) -> int:
        """Roll the engine's die `key` as campaign die `turn/battle/<name>.<key>/0`."""
        subject = f"{self.name}.{key}".replace("/", ".")
        roll = self.source.roll(DiceKey(turn=self.turn, phase="battle", subject=subject), sides)
        self.rolls.append(roll)
        return roll.value


def present(state: CampaignState, battle: Battle) -> Battle:
    """Return the battle with each side's ships still at its table.

    004 5.3.6 (L186-191): a ship in "a subsequent combat during the current strategic turn"
    comes into it as the battle before left it, so a battle of the turn's later ones takes the
    hex as the earlier ones left it. A ship destroyed in one is not at the next table, nor one
    an unplanned jump took out of the hex (L139-141); a ship leaving the hex (a departure
    battle) is where it was going, and comes if it is still afloat. Planetary defences stay
    until fought.
    """
    leaving = battle.leaving
    sides = tuple(
        msgspec.structs.replace(
            side,
            units=tuple(u for u in side.units if _at_table(state, battle.hex, u, u in leaving)),
        )
        for side in battle.sides
    )
    return msgspec.structs.replace(battle, sides=(sides[0], sides[1]))


def as_fought(state: CampaignState, battle: Battle) -> Battle:
    """Return the battle as its outcome tells it: the ships `present` at its table; a side
    with none left means no battle (docs/rulings.md, "Campaign: three or more players in one
    hex"), and then it names no ship of either side: nobody met anybody there."""
    battle = present(state, battle)
    if all(side.units for side in battle.sides):
        return battle
    first, second = (msgspec.structs.replace(side, units=()) for side in battle.sides)
    return msgspec.structs.replace(battle, sides=(first, second))


def _at_table(state: CampaignState, hex_label: str, uid: str, leaving: bool) -> bool:
    """Whether a ship of a battle's announced side is still there to fight it."""
    if parse_defence_id(uid) is not None:
        return True  # a colony's defences: taken only by an assault on them
    unit = state.units.get(uid)
    return unit is not None and (leaving or unit.hex == hex_label)


def unit_sheet(unit: Unit) -> Ship:
    """Return a warship's record sheet: its catalogue design under the rules it was built to,
    or the home-made design it was registered with (004 L26-30)."""
    from tactical.setup import sheet_for  # the engine's catalogue (cached): only in a battle

    assert unit.design is not None
    if unit.design_text:
        return home_made_sheet(unit.design_text, unit.rules, unit.design)
    return sheet_for(unit.design, unit.rules)


@cache
def home_made_sheet(text: str, rules: str, design: str) -> Ship:
    """Return the record sheet of a registered home-made design (its canonical `text`) under
    the rules it was registered for, as ship `design` (cached)."""
    return build(decode_design(text), PRESETS[rules], ship_id=design)


def request_for(
    state: CampaignState, battle: Battle, turn_limit: int = BATTLE_TURNS
) -> CampaignBattle:
    """Describe a campaign battle to the tactical engine. An assault the attacker calls off
    after some turns (004 L208-209) ends there.

    The battle is fought under the campaign's battle rules (004 section 4: `continuum`, the
    Fleet Books' stand-in, or `ft2`), which its warships are built to, and the damage they
    carry is crossed off their own record sheets.
    """
    from tactical.campaign_battle import CampaignBattle, CampaignShip, CampaignSide

    sides = []
    designs: dict[str, Design] = {}
    for side in battle.sides:
        ships = []
        for uid in side.units:
            defence = parse_defence_id(uid)
            if defence is not None:
                # 004 5.4: planetary defences fight as the ships 5.7.7 names (ids stay legal).
                ships.append(CampaignShip(id=engine_id(uid), design=DEFENCE_DESIGNS[defence[1]]))
                continue
            unit = state.units[uid]
            assert unit.design is not None
            carried = carried_state(unit, state.turn)
            captain = unit.captain_at(state.turn) or STAND_IN_CAPTAIN
            ships.append(CampaignShip(id=uid, design=unit.design, state=carried, captain=captain))
            if unit.design_text:  # a home-made design (004 L26-30) travels with the request
                designs[unit.design] = decode_design(unit.design_text)
        sides.append(
            CampaignSide(
                name=side.player,
                order=side.order,
                ships=tuple(ships),
                admiral=side.admiral,
                # Its decoy drones fly as dummy bogeys (004 L39; `rules.decoys`).
                dummies=len(decoys.carriers(state, side.units)),
            )
        )
    return CampaignBattle(
        sides=(sides[0], sides[1]),
        battle=battle.type,
        pursued=battle.pursued,
        location=battle.location,
        chosen_by=battle.chosen_by,
        world=battle.world,
        gravity=battle.gravity,
        turn_limit=min(turn_limit, battle.call_off_after or turn_limit),
        # The engine's own prefix: the campaign's dice key each die under the battle's
        # (`RecordingDice`), so the engine's says nothing more; a battle announced before
        # dice keys (none) keeps its id, and so rolls what it always would have.
        key="battle" if battle.dice_key else battle.id,
        rules=state.battle_rules,
        designs=designs,
        movement=_BATTLE_MOVEMENT.get(state.battle_movement, "vector"),
        asteroid_motion="sweep" if state.asteroid_motion == "sweep" else "jump",
        morale_ties="worse" if state.morale_ties == "worse" else "both",
    )


def carried_state(unit: Unit, turn: int) -> ShipState | None:
    """Return the record state a warship brings into a battle on `turn` (None: undamaged).

    004 5.3.6: within the turn of its last battle it comes in as that battle left it, munitions
    spent and systems damaged (L186-191). From the next turn (the turn boundary, `turn_ended`)
    its weapons, drives, fire controls, PDS and other systems are repaired and its magazines
    full again; hull boxes, armour and core systems stay until a repair at a friendly colony
    (L192-196), and fighters lost stay lost (L197). `unit.hull_lost` and `unit.core` hold the
    hull and core (an outcome entered by hand changes only them), so the hull boxes they add
    to the record's are crossed off, top row first, and the core is theirs.
    """
    assert unit.design is not None
    if unit.record is None and not unit.needs_repair:
        return None  # never fought, or fought only on a table without damage
    ship = unit_sheet(unit)
    fresh = fresh_state(ship)
    record = unit.record if unit.record is not None and _fits(ship, unit.record) else None
    carried = fresh
    if record is not None and unit.record_turn == turn:
        carried = record
    elif record is not None:
        kept = {s.id: s.fighters for s in record.systems}
        carried = msgspec.structs.replace(
            fresh,
            hull_lost=record.hull_lost,
            armour_lost=record.armour_lost,
            systems=tuple(
                s if s.fighters is None else msgspec.structs.replace(s, fighters=kept[s.id])
                for s in fresh.systems
            ),
        )
    more = min(unit.hull_lost, ship.hull_boxes - 1) - sum(carried.hull_lost)  # came out afloat
    if more > 0:
        carried = apply_damage(ship, carried, more, armour_first=False).state
    core = unit.core or CoreDamage()  # 004 L192-196: core damage waits for a colony
    carried = msgspec.structs.replace(
        carried,
        out_of_control=core.out_of_control,
        power_core="damaged" if core.power_core else "ok",
        life_support=core.life_support,
    )
    return None if msgspec.structs.replace(carried, ship_id=fresh.ship_id) == fresh else carried


def _fits(ship: Ship, record: ShipState) -> bool:
    """Return whether a stored record state still fits the design's record sheet (a design
    file changed since is read as undamaged systems, the hull from `Unit.hull_lost`)."""
    systems = tuple(s.id for s in record.systems)
    return len(record.hull_lost) == len(ship.rows) and systems == tuple(s.id for s in ship.systems)


class Fought(msgspec.Struct, frozen=True, kw_only=True):
    """A battle the engine fought: each ship's result, the dice, the journal (JSON), what each
    side knew at the end of each enemy ship (`campaign.battleknowledge.battle_knowledge`), and
    the dummy bogeys still unidentified on the table at the end (`rules.decoys`);
    ``decoys_kept`` is None when there was no battle."""

    results: tuple[ShipResult, ...]
    rolls: tuple[Roll, ...]
    journal: str
    knowledge: BattleKnowledge
    decoys_kept: tuple[str, ...] | None


def fight(state: CampaignState, starmap: StarMap, battle: Battle, dice: DiceSource) -> Fought:
    """Fight `battle` with the engine.

    Only the ships still at its table fight it (`as_fought`). A side with none left (lost or
    gone in an earlier battle this turn) means no battle: no ship has a result, and nothing
    is rolled.
    """
    from tactical.campaign_battle import fight_campaign_battle

    battle = as_fought(state, battle)
    if not any(side.units for side in battle.sides):
        return Fought(
            results=(),
            rolls=(),
            journal='{"no battle": "one side was already gone"}',
            knowledge=BattleKnowledge(closed=False),  # nothing fought, nothing hidden
            decoys_kept=None,
        )
    # What each side knew at the end: worked out once, here, from the state the engine left,
    # so telling the battle to a side replays nothing (`campaign.battletold`).
    from campaign.battleknowledge import battle_knowledge
    from tactical.setup import context

    recorder = RecordingDice(dice, state.turn, battle.dice_name)
    request = request_for(state, battle)
    outcome, final = fight_campaign_battle(request, recorder)
    names = {engine_id(u): u for side in battle.sides for u in side.units}
    # Ships leaving the hex (a departure battle) are bound for where they are now.
    bound = {u: state.units[u].hex for u in battle.leaving}
    results = tuple(
        msgspec.structs.replace(
            _result(starmap, battle, ship, bound.get(names[ship.id])), unit=names[ship.id]
        )
        for ship in outcome.ships
    )
    return Fought(
        results=results,
        rolls=tuple(recorder.rolls),
        journal=_journal(request, outcome),
        knowledge=battle_knowledge(context(outcome.setup), final, names),
        decoys_kept=outcome.decoys_kept,
    )


def _result(
    starmap: StarMap, battle: Battle, ship: ShipOutcome, bound_for: str | None
) -> ShipResult:
    """Read one ship's fate; `bound_for` is the destination of a ship leaving the hex."""
    bridge = ship.bridge_failures  # each brings an officer's casualty roll (004 L361-370)
    # A ship that struck its colours and was taken is lost to its owner: the campaign has no
    # prizes (docs/rulings.md, "Tactical: fleet morale and striking the colours").
    if ship.fate in ("destroyed", "lost", "captured"):
        return ShipResult(
            unit=ship.id, fate="destroyed", hull_lost=ship.hull_lost, bridge_failures=bridge
        )
    record = ship.record
    core = CoreDamage(  # 004 L192-196: kept until repaired at a friendly colony
        out_of_control=record.out_of_control,
        power_core=record.power_core == "damaged",
        life_support=record.life_support,
    )
    if ship.fate == "fled":
        return ShipResult(
            unit=ship.id,
            fate="disengaged",
            hull_lost=ship.hull_lost,
            bridge_failures=bridge,
            core=core,
            record=record,
        )
    if ship.fate == "jumped":
        if bound_for is None:
            to_hex: str | None = _landing(starmap, battle.hex, ship.displaced)
        elif ship.displaced is None:
            to_hex = None  # a planned jump takes a ship leaving to where it was going
        else:  # 004 L140-141: "d6 parsecs in a random direction from the desired target"
            to_hex = _landing(starmap, bound_for, ship.displaced)
        return ShipResult(
            unit=ship.id,
            fate="jumped",
            to_hex=to_hex,
            hull_lost=ship.hull_lost,
            bridge_failures=bridge,
            core=core,
            record=record,
        )
    return ShipResult(
        unit=ship.id,
        hull_lost=ship.hull_lost,
        bridge_failures=bridge,
        core=core,
        record=record,
    )


def _landing(starmap: StarMap, origin: str, displaced: tuple[int, int] | None) -> str:
    """Where a jumping ship comes out: where it was, or an unplanned jump's d6 hexes off.

    004 L140-141: an unplanned jump lands "d6 parsecs in a random direction"; a ship pushed
    off the map stops at its edge (ruling).
    """
    if displaced is None:
        return origin
    distance, direction = displaced
    dq, dr = _DIRECTIONS[(direction - 1) % 6]
    cell = parse_label(origin)
    for _ in range(distance):
        step = Hex(cell.q + dq, cell.r + dr)
        if not starmap.contains(step):
            break
        cell = step
    return label(cell)


def _journal(request: CampaignBattle, outcome: CampaignBattleOutcome) -> str:
    record = {"request": request, "setup": outcome.setup, "journal": outcome.journal}
    return msgspec.json.encode(record).decode()
