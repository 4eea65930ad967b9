"""An encounter's battle fought by the engine (FT2 preset) or recorded from a table.

The engine gets the ships with the damage they carry (001 L1530: kept until repaired) and
each side's decision as its order commander: FIGHT engages, STAND OFF stands off, a caught
WITHDRAW flees under FTL Move (001 L1514). Its dice are the campaign's, keyed under the
battle, and stored in the `ft2_battle_fought` event with the journal that replays it.
"""

from __future__ import annotations

import msgspec

from campaign.dice import DiceKey, DiceSource
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import Audience, BattleFought, NewEvent
from campaign.ft2.events import DisengagementRolled, Ft2BattleFought
from campaign.ft2.forces import catalogue
from campaign.ft2.model import Ft2Battle, Ft2Ship, Ft2State, ShipFate
from campaign.rules.battles import RecordingDice
from campaign.strategic import Battle as StrategicBattle
from campaign.strategic import BattleSide as StrategicSide
from campaign.strategic import ShipFate as ShipFateWord
from campaign.strategic import ShipResult
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignOrder,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.ship import apply_damage, current_thrust, fresh_state, with_system_status

ORDERS: dict[str, CampaignOrder] = {
    "fight": "engage",
    "stand-off": "stand-off",
    "withdraw": "ftl-move",
}
ENGINE_FATES = {
    "destroyed": "destroyed",
    "lost": "destroyed",
    "captured": "destroyed",  # no prizes in the campaign (as in the 004 campaign)
    "fled": "disengaged",
    "jumped": "jumped",
    "present": "present",
}
TABLE_FATES = ("present", "disengaged", "jumped", "destroyed", "disabled")


def ships_of(state: Ft2State) -> dict[str, Ft2Ship]:
    """Every ship in the state, by id."""
    return {s.id: s for f in state.fleets.values() for s in f.ships}


def waiting(state: Ft2State, battle_id: str) -> Ft2Battle:
    """Return a battle awaiting its outcome.

    Raises:
        IllegalCommandError: none of that id waits.
    """
    battle = state.battles.get(battle_id)
    if battle is None:
        known = ", ".join(sorted(state.battles)) or "none"
        raise IllegalCommandError(f"no battle {battle_id!r} awaits an outcome (waiting: {known})")
    return battle


def request_for(state: Ft2State, battle: Ft2Battle) -> CampaignBattle:
    """Describe the battle to the engine under the FT2 rules (001, the preset `ft2`)."""
    ships = ships_of(state)
    sides = tuple(
        CampaignSide(
            name=side.player,
            order=ORDERS[side.decision],
            ships=tuple(
                CampaignShip(id=s, design=ships[s].design, state=ships[s].record)
                for s in side.ships
            ),
        )
        for side in battle.sides
    )
    fleeing = next((s.player for s in battle.sides if s.decision == "withdraw"), None)
    return CampaignBattle(
        sides=(sides[0], sides[1]),
        battle="pursuit" if fleeing else "even",
        pursued=fleeing,
        rules="ft2",
        movement="cinematic",  # 001's own movement
        key=battle.id,
        campaign="ft2",  # bogeys at first (001 L1512), none of 004's Fleet Book options
    )


def decide_engine_battle(
    state: Ft2State, turn: int, battle_id: str, dice: DiceSource
) -> list[NewEvent]:
    """Fight a waiting battle with the engine; its outcome as an event for both sides."""
    battle = waiting(state, battle_id)
    recorder = RecordingDice(dice, turn, battle.id)
    request = request_for(state, battle)
    outcome = resolve_campaign_battle(request, recorder)
    fates = tuple(
        ShipFate(
            ship=ship.id,
            fate=ENGINE_FATES[ship.fate],
            record=None if ENGINE_FATES[ship.fate] == "destroyed" else ship.record,
            hull_lost=ship.hull_lost,
        )
        for ship in outcome.ships
    )
    journal = msgspec.json.encode(
        {"request": request, "setup": outcome.setup, "journal": outcome.journal}
    ).decode()
    return [_fought(battle, fates, "engine", turn, journal=journal, rolls=tuple(recorder.rolls))]


def _fought(
    battle: Ft2Battle,
    fates: tuple[ShipFate, ...],
    source: str,
    turn: int,
    journal: str | None = None,
    rolls: tuple[object, ...] = (),
) -> NewEvent:
    disengaged = next(
        (
            side.player
            for side in battle.sides
            if any(f.fate == "disengaged" for f in fates if f.ship in side.ships)
        ),
        None,
    )
    event = Ft2BattleFought(
        battle=battle,
        fates=fates,
        source=source,
        disengaged=disengaged,
        journal=journal,
        rolls=rolls,  # type: ignore[arg-type]
    )
    return NewEvent(event, Audience.players_([s.player for s in battle.sides]), turn)


def parse_fates(texts: list[str]) -> dict[str, tuple[str, int]]:
    """Read `SHIP=FATE[:HULL]` lines of a table's result: FATE is one of present,
    disengaged, jumped, destroyed, disabled; HULL the damage points it took.

    Raises:
        InvalidInputError: a line that does not read.
    """
    fates: dict[str, tuple[str, int]] = {}
    for text in texts:
        ship, _, rest = text.partition("=")
        fate, _, hull = rest.partition(":")
        if not ship or fate not in TABLE_FATES or (hull and not hull.isdigit()):
            raise InvalidInputError(
                f"ship result {text!r} must read SHIP=FATE or SHIP=FATE:DAMAGE, FATE one of "
                f"{', '.join(TABLE_FATES)}"
            )
        fates[ship] = (fate, int(hull or 0))
    return fates


THRUST_BONUS = 2  # 001 L1210: "he adds 2 to his die roll"


def decide_disengagement(
    state: Ft2State,
    turn: int,
    battle_id: str,
    side: str,
    results: dict[str, tuple[str, int]],
    dice: DiceSource,
) -> list[NewEvent]:
    """Roll a table battle's abstract disengagement (001 L1204-1216) for `side`, whose ships
    have all left the table; on success the battle is recorded with them disengaged.

    Raises:
        InvalidInputError: `side` is not in the battle.
    """
    battle = waiting(state, battle_id)
    players = [s.player for s in battle.sides]
    if side not in players:
        raise InvalidInputError(f"{side!r} is not a side of {battle_id} ({', '.join(players)})")
    ships = ships_of(state)
    fastest = {
        s.player: max(
            (
                current_thrust(
                    catalogue(ships[i].design),
                    ships[i].record or fresh_state(catalogue(ships[i].design)),
                )
                for i in s.ships
                if results.get(i, ("present", 0))[0] != "destroyed"
            ),
            default=0,
        )
        for s in battle.sides
    }
    pursuer = players[1 - players.index(side)]
    bonus = (
        THRUST_BONUS if fastest[side] > fastest[pursuer] else 0,
        THRUST_BONUS if fastest[pursuer] > fastest[side] else 0,
    )
    tries = state.disengagements.get(battle_id, 0)
    subject = f"{battle_id}.disengage"
    fleeing = dice.roll(DiceKey(turn=turn, phase="battle", subject=subject, index=2 * tries), 6)
    chasing = dice.roll(DiceKey(turn=turn, phase="battle", subject=subject, index=2 * tries + 1), 6)
    succeeded = fleeing.value + bonus[0] >= chasing.value + bonus[1]  # 001 L1212: equal or higher
    rolled = DisengagementRolled(
        battle=battle_id, side=side, modifiers=bonus, succeeded=succeeded, rolls=(fleeing, chasing)
    )
    batch = [NewEvent(rolled, Audience.players_(players), turn)]
    if succeeded:
        side_ships = next(s.ships for s in battle.sides if s.player == side)
        gone = {
            sid: ("disengaged", results.get(sid, ("present", 0))[1])
            for sid in side_ships
            if results.get(sid, ("present", 0))[0] != "destroyed"
        }
        batch += decide_table_battle(state, turn, battle_id, {**results, **gone})
    return batch


def decide_table_battle(
    state: Ft2State, turn: int, battle_id: str, results: dict[str, tuple[str, int]]
) -> list[NewEvent]:
    """Record a battle fought on a real table (001 L1514, L1204-1216): each ship's fate and
    the damage it took; a ship not named came through unharmed. "disabled" crosses off its
    fire controls (A29: it can make no offensive attack until repaired).

    Raises:
        InvalidInputError: a ship named that was not in the battle.
    """
    battle = waiting(state, battle_id)
    ships = ships_of(state)
    fighting = [s for side in battle.sides for s in side.ships]
    unknown = sorted(set(results) - set(fighting))
    if unknown:
        raise InvalidInputError(
            f"{', '.join(unknown)} did not fight in {battle_id} (ships: {', '.join(fighting)})"
        )
    fates = []
    for sid in fighting:
        fate, damage = results.get(sid, ("present", 0))
        ship = ships[sid]
        sheet = catalogue(ship.design)
        record = ship.record or fresh_state(sheet)
        if damage:
            hit = apply_damage(sheet, record, damage)
            record = hit.state
            if hit.destroyed:
                fate = "destroyed"
        if fate == "disabled":
            for system in sheet.systems:
                if system.kind == "firecon":
                    record = with_system_status(record, system.id, "destroyed")
            fate = "present"
        fates.append(
            ShipFate(
                ship=sid,
                fate=fate,
                record=None if fate == "destroyed" else record,
                hull_lost=damage,
            )
        )
    return [_fought(battle, tuple(fates), "umpire", turn)]


# The engine's fates and a table's, as the battle report words them (`campaign.battlereport`).
REPORTED_FATES: dict[str, ShipFateWord] = {
    "present": "survived",
    "disengaged": "disengaged",
    "jumped": "jumped",
    "destroyed": "destroyed",
}


def as_battle_fought(fought: Ft2BattleFought) -> BattleFought:
    """Return an FT2 battle's outcome in the shape the 004 campaign's battle report reads,
    so both campaigns' players get the one report and replay (`umpire battles show`, the
    web page's battle page): each side's decision as its order, each ship's fate."""
    battle = fought.battle
    fleeing = next((s.player for s in battle.sides if s.decision == "withdraw"), None)
    sides = tuple(
        StrategicSide(player=s.player, order=ORDERS[s.decision], units=s.ships)
        for s in battle.sides
    )
    return BattleFought(
        battle=StrategicBattle(
            id=battle.id,
            hex=battle.hex,
            system=battle.system,
            type="pursuit" if fleeing else "even",
            pursued=fleeing,
            sides=(sides[0], sides[1]),
        ),
        results=tuple(
            ShipResult(
                unit=f.ship, fate=REPORTED_FATES.get(f.fate, "survived"), hull_lost=f.hull_lost
            )
            for f in fought.fates
        ),
        source=fought.source,
        journal=fought.journal,
        rolls=fought.rolls,
    )
