"""The FT2 campaign's week's end (001 L1530-1558): repairs and replenishment at facilities,
space superiority in the settled systems, and the scenario's victory judged after its last
turn. Pure, like `campaign.ft2.rules`."""

from __future__ import annotations

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.events import Audience, NewEvent, TurnEnded
from campaign.ft2.events import CampaignJudged, ShipsRefitted
from campaign.ft2.forces import catalogue
from campaign.ft2.model import Fleet, Ft2Ship, Ft2State, Repair, Scenario
from campaign.ft2.rules import MAX_REPAIR_ROLLS, system_name
from maps import StarMap, label
from tactical.ship import DriveState, ShipState, fresh_state

REPAIR_TARGET = 3  # 001 L1532: "on a D6 roll of 3 or more"
OFFENSIVE = ("beam", "pulse_torpedo", "needle", "submunition", "nova_cannon", "fighter_group")


def disabled(ship: Ft2Ship) -> bool:
    """Return whether a ship can make no offensive attack (A29): no working fire control or
    no working weapon (fighter bays with fighters aboard count)."""
    if ship.record is None:
        return False
    sheet = catalogue(ship.design)
    states = {s.id: s for s in ship.record.systems}
    working = [s for s in sheet.systems if s.id not in states or states[s.id].status == "ok"]
    control = any(s.kind == "firecon" for s in working)
    weapons = any(
        s.kind.startswith(OFFENSIVE)
        and (s.kind != "fighter_group" or (states[s.id].fighters if s.id in states else 1))
        for s in working
    )
    return not (control and weapons)


def decide_refits(
    state: Ft2State, turn: int, starmap: StarMap, scenario: Scenario, dice: DiceSource
) -> list[NewEvent]:
    """Repair and replenish the ships docked at facilities this week that did not fight
    (001 L1530-1536, A26): 1D6 damage points, up to three system rolls at 3+, a disabled
    drive two steps, magazines and (where the facility supplies them) fighters."""
    batch: list[NewEvent] = []
    for player in sorted(state.orders):
        side = next((s for s in scenario.sides if s.name == state.sides.get(player)), None)
        if side is None or not side.may_use_facilities:
            continue  # A28: no repairs for a side without facilities of its own
        repairs: list[Repair] = []
        rolls: list[Roll] = []
        fleets: dict[str, Fleet] = {}
        for dock in state.orders[player].docks:
            fid = _fleet_of(state, dock.ship)
            fleet = None if fid is None else fleets.get(fid, state.fleets[fid])
            if fleet is None or dock.ship in state.fought:
                continue
            system = system_name(starmap, fleet.hex)
            facility = scenario.facility(system) if system else None
            ship = next(s for s in fleet.ships if s.id == dock.ship)
            if facility is None or (facility.repair_mass_limit or ship.mass) < ship.mass:
                continue
            sheet = catalogue(ship.design)
            fresh = fresh_state(sheet)
            record = ship.record or fresh
            subject = f"{dock.ship}"
            if facility.repair:
                hull = dice.roll(DiceKey(turn=turn, phase="repair", subject=subject), 6)
                rolls.append(hull)
                record = _mend_hull(record, hull.value)
                for index, system_id in enumerate(dock.systems[:MAX_REPAIR_ROLLS], start=1):
                    die = dice.roll(
                        DiceKey(turn=turn, phase="repair", subject=subject, index=index), 6
                    )
                    rolls.append(die)
                    if die.value >= REPAIR_TARGET:
                        record = _mend_system(record, system_id)
            if facility.replenish:
                record = _replenish(record, fresh, facility.fighters)
            mended = msgspec.structs.replace(ship, record=None if record == fresh else record)
            fleet = msgspec.structs.replace(
                fleet, ships=tuple(mended if s.id == ship.id else s for s in fleet.ships)
            )
            fleets[fleet.id] = fleet
            repairs.append(dock_repair(dock.ship, dock.systems))
        if repairs:
            refit = ShipsRefitted(
                player=player,
                repairs=tuple(repairs),
                fleets=tuple(fleets.values()),
                rolls=tuple(rolls),
            )
            batch.append(NewEvent(refit, Audience.players_([player]), turn))
    return batch


def dock_repair(ship: str, systems: tuple[str, ...]) -> Repair:
    """Return the record of a ship's week in dock."""
    return Repair(ship=ship, systems=systems[:MAX_REPAIR_ROLLS])


def _fleet_of(state: Ft2State, ship: str) -> str | None:
    return next((f.id for f in state.fleets.values() for s in f.ships if s.id == ship), None)


def _mend_hull(record: ShipState, points: int) -> ShipState:
    """Give back `points` hull boxes, the last rows lost first (001 L1530)."""
    lost = list(record.hull_lost)
    for row in reversed(range(len(lost))):
        back = min(points, lost[row])
        lost[row] -= back
        points -= back
    return msgspec.structs.replace(record, hull_lost=tuple(lost))


def _mend_system(record: ShipState, system_id: str) -> ShipState:
    """Repair one system; a disabled drive comes back to half first (001 L1532-1534)."""
    if system_id == "drive":
        step: DriveState = "half" if record.drive == "disabled" else "ok"
        return msgspec.structs.replace(record, drive=step)
    if system_id == "ftl":
        return msgspec.structs.replace(record, ftl="ok")
    systems = tuple(
        msgspec.structs.replace(s, status="ok") if s.id == system_id else s for s in record.systems
    )
    return msgspec.structs.replace(record, systems=systems)


def _replenish(record: ShipState, fresh: ShipState, fighters: bool) -> ShipState:
    """Restock magazines, and fighters where the facility supplies them (001 L1536)."""
    full = {s.id: s for s in fresh.systems}
    systems = tuple(
        msgspec.structs.replace(
            s,
            ammo=full[s.id].ammo if s.id in full else s.ammo,
            fighters=full[s.id].fighters if fighters and s.id in full else s.fighters,
        )
        for s in record.systems
    )
    return msgspec.structs.replace(record, systems=systems)


def held_systems(state: Ft2State, starmap: StarMap, attacker: str, turn: int) -> tuple[str, ...]:
    """The settled systems where the attacker has space superiority (001 L1552): a working
    warship of his there, no defending warship that is not destroyed, disabled or driven out
    (a fleet that withdrew and must leave is, A25), and no battle this turn ended in
    disengagement there (001 L1514)."""
    docked = {d.ship for o in state.orders.values() for d in o.docks}

    def operational(owner_is_attacker: bool, hex_: str) -> bool:
        return any(
            (f.owner == attacker) == owner_is_attacker
            and not f.must_leave  # A25: it withdrew, so it is driven out
            and s.hull_class != "merchant"
            and s.id not in docked
            and not disabled(s)
            for f in state.fleets.values()
            if f.hex == hex_
            for s in f.ships
        )

    held = []
    for system in starmap.systems:
        hex_ = label(system.hex)
        if not system.settled or hex_ in state.separated:
            continue
        if operational(True, hex_) and not operational(False, hex_):
            held.append(system.name)
    return tuple(sorted(held))


def judge(held: tuple[str, ...], scenario: Scenario) -> tuple[str, str]:
    """The Lafayette victory table (001 L1556-1558): (result, reason). `result` is the
    first side's name, "draw", or the second side's name.

    >>> from campaign.ft2.model import load_scenario
    >>> laf = load_scenario("lafayette")
    >>> judge(("Hudson", "Lafayette", "Merrill's"), laf)[0], judge(("Hudson", "Lafayette"), laf)[0]
    ('ESU', 'draw')
    >>> judge(("Baffin", "Hudson", "Kakisa"), laf)[0], judge(("Lafayette",), laf)[0]
    ('draw', 'NAC')
    """
    attacker, defender = scenario.sides[0].name, scenario.sides[1].name
    key = scenario.key_system in held
    count = len(held)
    if key and count >= scenario.win_systems:
        return attacker, f"{attacker} holds {count} settled systems including {scenario.key_system}"
    if (key and count >= scenario.draw_with_key) or (not key and count >= scenario.win_systems):
        return (
            "draw",
            f"{attacker} holds {count} settled systems, {scenario.key_system} "
            + ("among them" if key else "not among them"),
        )
    return defender, f"{attacker} holds {count} settled system(s): not enough"


def decide_week_end(
    state: Ft2State,
    turn: int,
    attacker: str,
    starmap: StarMap,
    scenario: Scenario,
    dice: DiceSource,
) -> list[NewEvent]:
    """End the week: refits, the victory judged after the last turn, the turn closed. With
    the `end_early` option (digest A27) an attacker holding every settled system at a week's
    end has his total victory then, and the campaign ends."""
    batch = decide_refits(state, turn, starmap, scenario, dice)
    last = turn >= scenario.turns
    held = held_systems(state, starmap, attacker, turn) if last or state.end_early else ()
    settled = sorted(s.name for s in starmap.systems if s.settled)
    total = state.end_early and not last and list(held) == settled
    if last or total:
        result, reason = judge(held, scenario)
        if total:
            reason = f"total victory after turn {turn}: {reason} (every settled system; A27)"
        batch.append(
            NewEvent(
                CampaignJudged(result=result, held=held, reason=reason), Audience.everyone(), turn
            )
        )
    batch.append(NewEvent(TurnEnded(turn=turn), Audience.everyone(), turn))
    return batch
