"""Plain-text lines that tell a battle journal's story, for the CLI and for bug reports.

>>> from tactical.battle import TurnEnded
>>> describe(TurnEnded(turn=3, over=True, winner="esu", reason="esu alone remains"))
['turn 3 ends: the battle is over, esu wins (esu alone remains)']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from tactical.battle import (
    AssaultOrdered,
    AsteroidMet,
    BattleContext,
    BattleSetup,
    BattleState,
    BoardingFight,
    BoardingFought,
    CoreSystemsRolled,
    Dropout,
    Event,
    FighterAttack,
    FightersResolved,
    FighterWeapon,
    FlightWritten,
    Hit,
    MineDetonated,
    MineEvent,
    MineLaid,
    MissilesResolved,
    Moved,
    NovaHit,
    OrdersWritten,
    PointDefenceDie,
    Rammed,
    Rearm,
    RepairsMade,
    SalvoAttack,
    Scramble,
    ShipFired,
    ShipsMoved,
    Threshold,
    TurnEnded,
    context,
    evolve,
    initial_state,
    side_view,
)
from tactical.boarding import BoardingSyntaxError, GuardRoll, parse_assaults
from tactical.fire import BRIDGE_FOR_GOOD
from tactical.missiles import SALVO_AIM
from tactical.movement import SCRAMBLE, Manoeuvre, OrderSyntaxError, format_mu, parse_order
from tactical.rules import Movement
from tactical.sensors import LEARNED, Sensed
from tactical.ship import HullClass
from tactical.spatial import format_motion

__all__ = [
    "TurnPlayed",
    "contact_report",
    "describe",
    "describe_contacts",
    "describe_journal",
    "describe_move",
    "turn_by_turn",
]

CLASSES: tuple[HullClass, ...] = ("capital", "cruiser", "escort", "merchant")


def contact_report(ctx: BattleContext, state: BattleState, side: str) -> dict[HullClass, int]:
    """Count what ``side`` sees of the enemy on the table by class, all it learns from long
    range (001 L939; 004's long-range scan): a bogey counts as the class its signature shows,
    a dummy as an escort, an identified ship as its own class. Only the side's view
    (:func:`~tactical.battle.side_view`) is read, so the counts tell nothing the side may not know.

    >>> from tactical.battle import BattleSetup, ShipSetup
    >>> setup = BattleSetup(sides=("red", "blue"), bogeys=True, ships=(
    ...     ShipSetup(id="r1", side="red", design="frigate", x=0, y=0, course=12),
    ...     ShipSetup(id="b1", side="blue", design="weasel_scout", x=0, y=50, course=6)))
    >>> ctx = context(setup)
    >>> contact_report(ctx, initial_state(ctx), "red")
    {'capital': 1}
    """
    seen_ctx, seen = side_view(ctx, state, side)
    counts: dict[HullClass, int] = {}
    for bogey in seen.bogeys:
        counts[bogey.shows] = counts.get(bogey.shows, 0) + 1
    for ship in seen.ships:
        if ship.side != side and ship.status == "active":
            shown = seen_ctx.sheets[ship.id].hull_class
            counts[shown] = counts.get(shown, 0) + 1
    return {c: counts[c] for c in CLASSES if c in counts}


def describe_contacts(ctx: BattleContext, state: BattleState, side: str) -> str:
    """Return one line: what ``side`` sees of the enemy, by class, and how much of it is
    unidentified (:func:`contact_report`)."""
    counts = contact_report(ctx, state, side)
    listed = ", ".join(f"{n} {shown}" for shown, n in counts.items()) or "nothing"
    bogeys = len(side_view(ctx, state, side)[1].bogeys)
    return f"{side} sees {listed} ({bogeys} unidentified)"


def _sensed(event: Sensed) -> str:
    if event.how == "self":
        return f"    {event.counter} gives itself away"
    what = "dummy bogey " if event.dummy else ""
    means = "passive sensors" if event.how == "passive" else "active scan"
    text = f"    {what}{event.counter} identified by {event.by}'s {means}"
    if event.learned is not None:  # advanced sensors (000 12.2)
        text += f", which learns {LEARNED[event.learned]}"
    return text + ", removed" if event.dummy else text


def _threshold(check: Threshold) -> str:
    lost = list(check.lost)
    if check.drive:
        lost.append("drive hit")
    if check.ftl:
        lost.append("FTL lost")
    if check.bridge is not None:
        turns = (
            "the rest of the battle"
            if check.bridge == BRIDGE_FOR_GOOD
            else f"{check.bridge} turn{'s' if check.bridge > 1 else ''}"
        )
        lost.append(f"bridge hit, out of control for {turns}")
    if check.power_core:
        lost.append("power core damaged")
    if check.life_support is not None:
        turns = f"{check.life_support} turn{'s' if check.life_support > 1 else ''}"
        lost.append(f"life support hit, gives out in {turns}")
    if check.struck:
        lost.append(f"the captain strikes the colours (rolls {check.colours})")
    for losses in check.boarders:
        killed = losses.marines + losses.parties
        lost.append(f"{killed} of {losses.side}'s boarders aboard killed {list(losses.faces)}")
    modifier = f" +{check.modifier}" if check.modifier else ""
    cause = ", boarding" if check.boarding else ""
    outcome = ", ".join(lost) if lost else "nothing lost"
    return f"    {check.ship} threshold check (row {check.row}{modifier}{cause}): {outcome}"


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


_GUARDED = {
    ("marine", "hull"): "a marine on the hull",
    ("marine", "marines"): "a marine engaging",
    ("party", "hull"): "a boarding party on the hull",
    ("party", "marines"): "a boarding party engaging",
}


def _guard(roll: GuardRoll) -> str:
    """Tell one guard's dice (000 L13061-13081).

    >>> from tactical.boarding import Guard
    >>> _guard(GuardRoll(guard=Guard("marine", "hull", dcps=3), dcp=5, killed="dcp"))
    '      3 DCPs on a marine on the hull roll 5: killed'
    """
    guard = roll.guard
    who = " and ".join(
        part
        for part in (
            _count(guard.dcps, "DCP") if guard.dcps else "",
            _count(guard.marines, "marine") if guard.marines else "",
        )
        if part
    )
    dice = [str(roll.dcp)] if roll.dcp is not None else []
    if roll.marines:
        dice.append(str(list(roll.marines)))
    outcome = "killed" if roll.killed else "missed"
    if roll.killed == "dcp" and roll.marines:
        outcome = "killed by the DCPs"
    target = _GUARDED[(guard.kind, guard.task)]
    return f"      {who} on {target} roll {' then '.join(dice)}: {outcome}"


def _boarding(fight: BoardingFight) -> list[str]:
    """Tell one round of boarding combat (000 L13043-13093)."""
    aboard = " and ".join(
        _count(n, word)
        for n, word in ((fight.marines, "marine"), (fight.parties, "boarding party"))
        if n
    ).replace("boarding partys", "boarding parties")
    engaging = fight.assault.marines + fight.assault.parties
    on_hull = fight.marines + fight.parties - engaging
    round_text = f", round {fight.round}" if fight.round else ""
    lines = [
        f"    {fight.ship} fights {fight.side}'s boarders ({aboard}{round_text}): "
        f"{engaging} {'engages' if engaging == 1 else 'engage'} its marines, "
        f"{on_hull} {'goes' if on_hull == 1 else 'go'} for the hull"
    ]
    lines.extend(_guard(roll) for roll in fight.melee.guards)
    if fight.melee.attack:
        lost = f": {', '.join(fight.marines_lost)}" if fight.marines_lost else ""
        lines.append(
            f"      the boarders engaging roll {list(fight.melee.attack)}: "
            f"{_count(fight.melee.hits, 'marine')} killed{lost}"
        )
    if fight.hit is not None:
        lines.append("  " + _hit(fight.hit))
    if fight.captured:
        lines.append(f"      {fight.ship} is captured by {fight.side}'s boarders")
    return lines


def _assaults(event: AssaultOrdered) -> list[str]:
    """Tell a side's assault allocations (000 L13049-13053).

    >>> _assaults(AssaultOrdered(turn=2, side="ikv", orders="wulkan:M2P0"))
    ['  ikv boarders aboard wulkan: 2 engage its marines, the rest go for the hull']
    """
    try:
        assaults = parse_assaults(event.orders)
    except BoardingSyntaxError:
        return [f"  {event.side} allots its boarders: {event.orders}"]
    if not assaults:
        return [f"  {event.side}'s boarders all go for the hull"]
    return [
        f"  {event.side} boarders aboard {ship}: {a.marines + a.parties} engage its marines, "
        "the rest go for the hull"
        for ship, a in assaults.items()
    ]


def _ending(event: TurnEnded | CoreSystemsRolled) -> list[str]:
    """Tell the sides that fleet morale sent home (000 L13214-13273) and the battle's end.

    >>> for line in _ending(TurnEnded(turn=4, withdrew=("esu",), over=True, winner="nac")):
    ...     print(line)
        esu has lost its share of its fleet and withdraws
    turn 4 ends: the battle is over, nac wins ()
    """
    lines = [f"    {side} has lost its share of its fleet and withdraws" for side in event.withdrew]
    if event.over:
        who = f"{event.winner} wins" if event.winner else "no winner"
        lines.append(f"turn {event.turn} ends: the battle is over, {who} ({event.reason})")
    return lines


def _hit(hit: Hit) -> str:
    text = f"    {hit.target} takes {hit.damage}"
    if hit.to_armour:
        text += f" ({hit.to_armour} to armour)"
    if hit.rows:
        text += f", row{'s' if len(hit.rows) > 1 else ''} {', '.join(map(str, hit.rows))} gone"
    if hit.destroyed:
        text += ", destroyed"
    return text


def _nova(hits: Sequence[NovaHit]) -> list[str]:
    lines: list[str] = []
    for nova in hits:
        lines.append(f"    {nova.ship}'s nova template (stage {nova.stage}) {list(nova.faces)}")
        lines.append(_hit(nova.hit))
    return lines


def _mine(event: MineEvent) -> list[str]:
    """Tell what one mine did during the move (001 L868-898)."""
    if isinstance(event, MineLaid):
        where = f"{format_mu(event.x)},{format_mu(event.y)}"
        return [f"    {event.ship} lays mine {event.mine} at {where}, active next turn"]
    if isinstance(event, MineDetonated):
        rerolls = f" re-rolls {list(event.rerolls)}" if event.rerolls else ""
        fires = f"fires on {event.ship} {list(event.faces)}{rerolls}"
        attack = f"mine {event.mine} {fires}"
        if event.sweep is not None:
            attack = (
                f"{event.ship} sweeps mine {event.mine}: rolls {event.sweep}, and the mine {fires}"
            )
        return [f"    {attack}", _hit(event.hit)]
    outcome = "cleared" if event.cleared else "the mine stays"
    return [f"    {event.ship} sweeps mine {event.mine}: rolls {event.face}, {outcome}"]


def _asteroid(event: AsteroidMet) -> str:
    """Tell how a ship fared crossing an asteroid (001 L1092-1108).

    >>> print(_asteroid(AsteroidMet(ship="c1", x=0, y=10, velocity=9, thrust=4, need=5, face=4,
    ...                             crashed=True)))
        c1 crosses the asteroid at 0,10: velocity 9 less thrust 4, needs 5, rolls 4: destroyed
    >>> print(_asteroid(AsteroidMet(ship="c1", x=0, y=10, velocity=3, thrust=4, need=-1)))
        c1 crosses the asteroid at 0,10: velocity 3 less thrust 4, needs -1: avoids it
    >>> print(_asteroid(AsteroidMet(ship="c1", x=2, y=5, velocity=3, thrust=4, need=-1,
    ...                             swept=True)))
        the asteroid drifting to 2,5 sweeps over c1: velocity 3 less thrust 4, needs -1: avoids it
    """
    where = f"{format_mu(event.x)},{format_mu(event.y)}"
    need = f"velocity {format_mu(event.velocity)} less thrust {event.thrust}, needs {event.need}"
    if event.face is not None:
        need += f", rolls {event.face}"
    outcome = "destroyed" if event.crashed else "avoids it"
    if event.swept:
        return f"    the asteroid drifting to {where} sweeps over {event.ship}: {need}: {outcome}"
    return f"    {event.ship} crosses the asteroid at {where}: {need}: {outcome}"


def _ram(event: Rammed) -> list[str]:
    """Tell how far one ram went (001 L977-995).

    >>> _ram(Rammed(ship="c1", target="hc", distance=3.5, reason="hc is 3.5 MU away, more than 2"))
    ['    c1 means to ram hc: hc is 3.5 MU away, more than 2']
    """
    if event.reason is not None or event.proceed is None:
        return [f"    {event.ship} means to ram {event.target}: {event.reason}"]
    where = f"    {event.ship} rams {event.target}"
    if event.distance is not None:
        where += f" at {format_mu(event.distance)} MU"
    if event.attack is None or event.evade is None:
        return [f"{where}: rolls {event.proceed}, needs {event.need}, and the attempt is off"]
    attack = f"{event.attack} + thrust {event.attack_thrust} = {event.attack + event.attack_thrust}"
    evade = f"{event.evade} + thrust {event.evade_thrust} = {event.evade + event.evade_thrust}"
    line = f"{where}: rolls {event.proceed} to go on, {attack} against {evade}"
    if not event.contact or event.impact is None or event.recoil is None:
        return [f"{line}: {event.target} evades"]
    return [
        f"{line}: contact",
        f"    {event.ship} strikes for {event.impact} x {event.ship_points} DP, {event.target} "
        f"for {event.recoil} x {event.target_points} DP",
        *(_hit(hit) for hit in event.hits),
    ]


def _core(event: CoreSystemsRolled) -> list[str]:
    """Tell the core systems' end of the turn (000 10.3).

    >>> for line in _core(CoreSystemsRolled(turn=2, abandoned=("b1",), control=("r1",))):
    ...     print(line)
    turn 2, core systems:
        b1's life support gives out: the crew abandons ship
        r1 is back under control
    """
    lines = [f"turn {event.turn}, core systems:"]
    for core in event.cores:
        outcome = "explodes, the ship is destroyed" if core.exploded else "holds"
        lines.append(f"    {core.ship}'s damaged power core rolls {core.face}: {outcome}")
    for breach in event.breaches:
        lines.append(f"    {breach.ship}'s reactor breach {list(breach.faces)}")
        lines.append(_hit(breach.hit))
    lines.extend(_threshold(check) for check in event.thresholds)
    lines.extend(
        f"    {ship}'s life support gives out: the crew abandons ship" for ship in event.abandoned
    )
    lines.extend(line for fight in event.boarding for line in _boarding(fight))
    lines.extend(f"    {ship} is back under control" for ship in event.control)
    lines.extend(_ending(event))
    return lines


def _fighters(event: FightersResolved) -> list[str]:
    lines = [f"turn {event.turn}: fighters fly"]
    for moved in event.moves:
        line = f"    {moved.group} {moved.order} to {format_mu(moved.x)},{format_mu(moved.y)}"
        if moved.secondary:
            line += " with a secondary move (1 endurance)"
        if moved.void:
            line += f" (order void: {moved.void})"
        if moved.recovered:
            line += ", lands"
        lines.append(line)
    lines.extend(_scramble(scramble) for scramble in event.scrambles)
    for fight in event.dogfights:
        a, b = fight.attacker_roll, fight.defender_roll
        spent = " (no endurance left: kills on 6s only)" if fight.exhausted else ""
        when = " after its attack run" if fight.late else ""
        lines.append(
            f"    dogfight{when} {fight.attacker} {list(a.faces + a.rerolls)} kills {a.kills}, "
            f"{fight.defender} {list(b.faces + b.rerolls)} kills {b.kills}{spent}"
        )
    for fire in event.defence:
        faces = list(fire.roll.faces + fire.roll.rerolls)
        lines.append(
            f"    {fire.ship} {fire.system} at {fire.group} {faces} kills {fire.roll.kills}"
        )
        if fire.backlash is not None:
            lines.append(f"  {_hit(fire.backlash)} from the scattergun's 1")
    for attack in event.attacks:
        if attack.weapon == "shuttles":
            lines.append(_landing(attack))
            continue
        rerolls = f" re-rolls {list(attack.rerolls)}" if attack.rerolls else ""
        damage = f" damage {list(attack.damage)}" if attack.damage else ""
        weapon = _FIGHTER_WEAPON_TEXT["torpedoes" if attack.torpedoes else attack.weapon]
        lines.append(
            f"    {attack.group} attacks {attack.target}{weapon} {list(attack.faces)}"
            f"{rerolls}{damage}"
        )
        lines.append(_hit(attack.hit))
    for launch in event.launches:
        lost = f", {launch.lost} fighters short" if launch.lost else ""
        lines.append(
            f"    {launch.group} launches salvo {launch.salvo} at {launch.target}, aimed at "
            f"{format_mu(launch.x)},{format_mu(launch.y)}{lost}"
        )
    for caught in event.interceptions:
        roll = caught.roll
        losses = f", loss dice {list(caught.losses)}" if caught.losses else ""
        cost = (
            f", {caught.lost} fighter{'s' if caught.lost != 1 else ''} lost" if caught.lost else ""
        )
        lines.append(
            f"    {caught.group} intercepts salvo {caught.salvo} {list(roll.faces + roll.rerolls)} "
            f"kills {roll.kills} missile{'s' if roll.kills != 1 else ''}{losses}{cost}"
        )
    lines.extend(_rearm(rearm) for rearm in event.rearms)
    lines.extend(_nova(event.nova))
    lines.extend(_threshold(check) for check in event.thresholds)
    lines.extend(f"    {group} is wiped out" for group in event.lost)
    lines.extend(_salvos(event.salvo_defence, event.salvos))
    return lines


def _scramble(scramble: Scramble) -> str:
    """Tell a carrier's scramble die (000 8.3).

    >>> _scramble(Scramble(ship="r1", face=1, mishap="hangar_bay-1"))
    '    r1 scrambles [1]: a mishap puts hangar_bay-1 and its fighters out of action'
    >>> _scramble(Scramble(ship="r1", face=4, groups=("r1.hangar_bay-1",), late=True))
    '    r1 scrambles [4]: r1.hangar_bay-1 gets away too late to stop the attack'
    """
    head = f"    {scramble.ship} scrambles [{scramble.face}]: "
    if scramble.mishap is not None:
        return f"{head}a mishap puts {scramble.mishap} and its fighters out of action"
    if not scramble.groups:
        return f"{head}no group gets away"
    names = " and ".join(scramble.groups)
    if scramble.late:
        return f"{head}{names} gets away too late to stop the attack"
    return f"{head}{names} {'get' if len(scramble.groups) > 1 else 'gets'} away in time"


def _rearm(rearm: Rearm) -> str:
    """Tell a landed group's re-arming die (000 8.16).

    >>> _rearm(Rearm(group="r1.hangar_bay-1", face=1, ready=None))
    '    r1.hangar_bay-1 re-arms [1]: it may not relaunch this battle'
    >>> _rearm(Rearm(group="r1.hangar_bay-1", face=6, ready=5))
    '    r1.hangar_bay-1 re-arms [6]: it may launch again from turn 5'
    """
    when = (
        "it may not relaunch this battle"
        if rearm.ready is None
        else f"it may launch again from turn {rearm.ready}"
    )
    return f"    {rearm.group} re-arms [{rearm.face}]: {when}"


def _landing(attack: FighterAttack) -> str:
    """Tell an assault shuttle group's landing run (000 L10020-10026).

    >>> from tactical.battle import Hit
    >>> hit = Hit(target="b2", damage=0, to_armour=0, to_hull=0)
    >>> _landing(FighterAttack(group="r1.hangar_bay-1", target="b2", faces=(3, 1, 5, 6, 2, 4),
    ...                        hit=hit, weapon="shuttles", landed=4))
    '    r1.hangar_bay-1 shuttles [3, 1, 5, 6, 2, 4]: 4 boarding parties board b2, 2 lost'
    """
    parties = f"{attack.landed} boarding part{'ies' if attack.landed != 1 else 'y'}"
    lost = len(attack.faces) - attack.landed
    return f"    {attack.group} shuttles {list(attack.faces)}: {parties} board {attack.target}" + (
        f", {lost} lost" if lost else ""
    )


_FIGHTER_WEAPON_TEXT: dict[FighterWeapon, str] = {
    "beams": "",
    "graser": " with grasers",
    "plasma": " with plasma cannon",
    "torpedoes": " with torpedoes",
    "mkps": " with MKPs",
    "shuttles": " with assault shuttles",
}
"""A fighter attack run's weapon in words (000 8.15); beams go unsaid."""

_SETTING_TEXT = {"O": " overloaded", "S": " (short range)", "L": " (long range)"}
"""A pulse torpedo's setting in words (000 L4669-4800)."""

_BURN_WORDS = {
    "TP": "rotates {} to port",
    "TS": "rotates {} to starboard",
    "PP": "pushes {} to port",
    "PS": "pushes {} to starboard",
    "PR": "pushes {} astern",
    "MD": "burns {}",
}


_SPATIAL_WORDS = {
    "F": "pivots to face {}",
    "FF": "pivots fore",
    "FA": "pivots aft",
    "FP": "pivots to port",
    "FS": "pivots to starboard",
    "V": "velocity {:+d}",
    "T": "turns with {} thrust",
    "TP": "turns to port with {} thrust",
    "TS": "turns to starboard with {} thrust",
    "PushP": "pushes 1 to port",
    "PushS": "pushes 1 to starboard",
    "Roll": "rolls",
    "Spin": "spins at {}",
}


def _vector_words(order_text: str) -> str:
    """Tell a vector or spatial order's manoeuvres in words, in their written sequence.

    >>> _vector_words("TP3.MD6.PS1")
    ' (rotates 3 to port, burns 6, pushes 1 to starboard)'
    >>> _vector_words("=")
    ' (drifts)'
    >>> _vector_words("FP.T3"), _vector_words("+2")  # spatial movement (003)
    (' (pivots to port, turns with 3 thrust)', ' (velocity +2)')
    """
    try:
        order = parse_order(order_text)
    except OrderSyntaxError:
        return ""
    words = [_BURN_WORDS[burn.kind].format(burn.amount) for burn in order.vector]
    steps = order.spatial or ((Manoeuvre("V", order.accel),) if order.accel else ())
    words += [_SPATIAL_WORDS[step.kind].format(step.amount) for step in steps]
    return f" ({', '.join(words) or 'drifts'})"


def _salvos(defence: Sequence[PointDefenceDie], attacks: Sequence[SalvoAttack]) -> list[str]:
    """Tell how the salvos in flight homed, met point defence and struck."""
    lines: list[str] = []
    for attack in attacks:
        if attack.target is None:
            lines.append(f"    salvo {attack.salvo} finds no target within reach and is wasted")
            continue
        lines.append(f"    salvo {attack.salvo} homes on {attack.target}")
        for fire in (d for d in defence if d.salvo == attack.salvo):
            faces = list(fire.roll.faces + fire.roll.rerolls)
            lines.append(
                f"      {fire.ship} {fire.system} point defence {faces} kills {fire.roll.kills}"
            )
            if fire.backlash is not None:
                lines.append(f"  {_hit(fire.backlash)} from the scattergun's 1")
        if attack.on_target is None:  # a heavy missile: one missile, no on-target die
            fate = "shot down" if attack.kills else f"hits {list(attack.faces)}"
            lines.append(f"      the heavy missile {fate}")
            if attack.hit is not None:
                lines.append(_hit(attack.hit))
            continue
        lost = f" less {attack.lost} for fighters lost" if attack.lost else ""
        lines.append(
            f"      {attack.on_target} missiles on target{lost}, {attack.kills} shot down, "
            f"{attack.hits} hit" + (f" {list(attack.faces)}" if attack.faces else "")
        )
        if attack.hit is not None:
            lines.append(_hit(attack.hit))
    return lines


def _fired(event: ShipFired) -> list[str]:
    """Tell a ship's firing turn: its shots, hits, boarders landed and thresholds."""
    if not event.shots:
        return [f"  {event.ship} holds fire"]
    shots = "; ".join(
        (
            f"flies {shot.weapon} on to {shot.aim}"
            if "." in shot.weapon  # a marker in flight, by its id (000 L6271-6277)
            else f"{shot.weapon} launches a salvo at {shot.aim}"
        )
        if shot.target == SALVO_AIM
        else f"{shot.weapon}{_SETTING_TEXT.get(shot.setting or '', '')} at {shot.target} "
        f"{list(shot.faces)}"
        + (f" re-rolls {list(shot.rerolls)}" if shot.rerolls else "")
        + (f" damage {list(shot.damage)}" if shot.damage else "")
        + (f" second die {list(shot.backfire)}" if shot.backfire else "")
        for shot in event.shots
    )
    lines = [f"  {event.ship} fires: {shots}"]
    lines.extend(_nova(event.nova))
    lines.extend(_hit(hit) for hit in event.hits)
    lines.extend(
        f"    {_count(landing.marines, 'marine')} of {landing.side} board {landing.ship}"
        for landing in event.landed
    )
    lines.extend(f"    the captured {ship} is destroyed" for ship in event.captured)
    lines.extend(_threshold(check) for check in event.thresholds)
    return lines


def describe_move(moved: Moved, movement: Movement = "cinematic", written: bool = True) -> str:
    """Tell one ship's move in a battle that moves by ``movement``; without its ``written``
    order, as the enemy sees it: where it went, its facing and motion, and whether it jumped or
    left the table, never the order it moved by (orders are secret, 001 L248), nor whether the
    order was void or stood ready to scramble fighters (000 8.3), nor where an unplanned jump
    took it or when a ship that left will be back (its side's dice, 004 L136-141).

    >>> print(describe_move(Moved(ship="b1", order="MD2", x=5, y=4, course=12, speed=4,
    ...                           vector=(0.0, 4.0)), "vector", written=False))
        b1 to 5,4 facing 12, course 0° speed 4
    """
    return _moved(moved, movement == "spatial", written)


def _moved(moved: Moved, spatial: bool = False, written: bool = True) -> str:
    """Tell one ship's move (``spatial``: the battle moves under 003's spatial movement;
    ``written``: with its order, see :func:`describe_move`)."""
    order = f" {moved.order}" if written else ""
    line = (
        f"    {moved.ship}{order} to {format_mu(moved.x)},{format_mu(moved.y)} "
        f"course {moved.course} speed {moved.speed}"
    )
    if moved.vector is not None:
        words = _vector_words(moved.order) if written else ""
        line = (
            f"    {moved.ship}{order}{words} to "
            f"{format_mu(moved.x)},{format_mu(moved.y)} facing {moved.course}, "
            + (
                f"motion {format_motion(moved.vector)}"
                if spatial
                else f"course {format_mu(moved.vector[0])}° speed {format_mu(moved.vector[1])}"
            )
        )
    if written and moved.void:
        line += f" (order void: {moved.void})"
    elif written and moved.order.endswith(f"/{SCRAMBLE}"):
        line += ", ready to scramble fighters"  # 000 8.3
    # Where an unplanned jump took it, and when a ship that left may return, are its own
    # side's dice (004 L136-141): the enemy sees it go.
    if moved.jumped and moved.displaced and written:
        parsecs, direction = moved.displaced
        line += f", jumps unplanned: {parsecs} parsecs off target in hex direction {direction}"
    elif moved.jumped:
        line += ", jumps out"
    if moved.left and moved.returns and written:
        line += f", leaves the table until turn {moved.returns}"
    elif moved.left and written:
        line += ", leaves the table for good"
    elif moved.left:
        line += ", leaves the table"
    return line


def _ftl(moved: Moved) -> list[str]:
    """Tell a table battle's FTL jump (001 L1027-1047): what lay within 6" and its D6."""
    ftl = moved.ftl
    assert ftl is not None
    if ftl.face is None:
        return []  # nothing within 6": the move's line tells the jump
    told = {
        "fails": "its FTL drive fails to engage, it stays in normal space",
        "jumps": 'it jumps into FTL, the distortion hurting everything within 6"',
        "explodes": "it explodes",
    }[ftl.outcome]
    lines = [
        f"    {moved.ship}'s FTL jump with {', '.join(ftl.near)} within 6\": D6 {ftl.face}, {told}"
    ]
    lines.extend(_hit(hit) for hit in ftl.hits)
    lines.extend(f"    {group} loses {_count(lost, 'fighter')}" for group, lost in ftl.fighters)
    return lines


def _dropout(dropout: Dropout) -> list[str]:
    """Tell a ship's FTL dropout (001 L1058-1070): its scatter and the damage within 6"."""
    scatter = f"D12 {dropout.direction}, D6 {dropout.distance}" + (
        f" x {dropout.extreme}" if dropout.extreme is not None else ""
    )
    aimed = f"{format_mu(dropout.aimed[0])},{format_mu(dropout.aimed[1])}"
    where = f"{format_mu(dropout.x)},{format_mu(dropout.y)}"
    if not dropout.entered:
        return [
            f"    {dropout.ship} drops out of FTL aimed at {aimed} ({scatter}): "
            f"off the table at {where}, it never enters"
        ]
    lines = [
        f"    {dropout.ship} drops out of FTL aimed at {aimed} ({scatter}), appears at {where}"
    ]
    for victim, face, second in dropout.faces:
        dice = f"{face} x {second}" if second is not None else f"{face}"
        lines.append(f'    {victim} within 6" of the dropout: D6 {dice}')
    lines.extend(_hit(hit) for hit in dropout.hits)
    lines.extend(f"    {group} loses {_count(lost, 'fighter')}" for group, lost in dropout.fighters)
    return lines


def describe(event: Event, movement: Movement = "cinematic") -> list[str]:
    """Return the lines that tell what one event did, in a battle that moves by ``movement``
    (the set-up's: a spatial ship's motion is told in its own notation, ``6@11``)."""
    if isinstance(event, OrdersWritten):
        return [f"turn {event.turn}: {event.side} writes orders"]
    if isinstance(event, ShipsMoved):
        lines = [f"turn {event.turn}: ships move"]
        lines.extend(line for dropout in event.dropouts for line in _dropout(dropout))
        lines.extend(_moved(moved, movement == "spatial") for moved in event.moves)
        lines.extend(line for moved in event.moves if moved.ftl for line in _ftl(moved))
        lines.extend(
            f"    dummy {moved.ship} {moved.order} to {format_mu(moved.x)},{format_mu(moved.y)}"
            + (f" (order void: {moved.void})" if moved.void else "")
            + (", leaves the table" if moved.left else "")
            for moved in event.decoys
        )
        lines.extend(_asteroid(met) for met in event.asteroids)
        lines.extend(line for mine in event.mines for line in _mine(mine))
        lines.extend(_sensed(sensed) for sensed in event.sensed)
        lines.extend(line for ram in event.rams for line in _ram(ram))
        if event.first:
            lines.append(f"    {event.first} fires first")
        lines.extend(_nova(event.nova))
        lines.extend(_threshold(check) for check in event.thresholds)
        return lines
    if isinstance(event, ShipFired):
        return _fired(event)
    if isinstance(event, FlightWritten):
        return [f"turn {event.turn}: {event.side} writes flight orders"]
    if isinstance(event, FightersResolved):
        return _fighters(event)
    if isinstance(event, RepairsMade):
        if not event.repairs:
            return [f"  {event.side} makes no repairs"]
        return [
            f"  {job.ship} repair {job.target} with {job.parties} DCP: rolls {job.face}, "
            + ("mended" if job.success else "fails")
            for job in event.repairs
        ]
    if isinstance(event, CoreSystemsRolled):
        return _core(event)
    if isinstance(event, AssaultOrdered):
        return _assaults(event)
    if isinstance(event, BoardingFought):
        lines = [f"turn {event.turn}: {event.side} fights the boarders aboard its ships"]
        lines.extend(line for fight in event.fights for line in _boarding(fight))
        lines.extend(_threshold(check) for check in event.thresholds)
        return lines
    if isinstance(event, MissilesResolved):
        lines = [f"turn {event.turn}: salvo missiles strike"]
        lines.extend(_salvos(event.defence, event.attacks))
        lines.extend(_threshold(check) for check in event.thresholds)
        return lines
    lines = [_threshold(check) for check in event.thresholds]
    lines.extend(line for fight in event.boarding for line in _boarding(fight))
    lines.extend(f"    {ship} is destroyed and removed" for ship in event.removed)
    lines.extend(f"    {ship} is ready to power up for a jump" for ship in event.ready)
    lines.extend(f"    {ship} is drawn off the table by the gas giant" for ship in event.fell)
    lines.extend(_ending(event))
    return lines


def describe_journal(journal: Iterable[Event], movement: Movement = "cinematic") -> list[str]:
    """Return the lines for a whole journal of a battle that moves by ``movement``."""
    return [line for event in journal for line in describe(event, movement)]


class TurnPlayed(NamedTuple):
    """One turn of a battle: its events, told in lines, and the state at its end."""

    turn: int
    lines: list[str]
    state: BattleState


def turn_by_turn(setup: BattleSetup, journal: Iterable[Event]) -> Iterator[TurnPlayed]:
    """Replay a journal and yield each turn as it ends (a last, unfinished turn too): after its
    damage control and core systems, the steps that follow ``turn_ended``.

    Raises:
        SetupError, IllegalActionError, DiceError: as :func:`tactical.battle.replay`.
    """
    ctx: BattleContext = context(setup)
    state = initial_state(ctx)
    lines: list[str] = []
    turn = state.turn
    for event in journal:
        if event.turn != turn and lines:
            yield TurnPlayed(turn, lines, state)
            lines = []
        turn = event.turn
        state = evolve(ctx, state, event)
        lines.extend(describe(event, ctx.rules.movement))
    if lines:
        yield TurnPlayed(turn, lines, state)
