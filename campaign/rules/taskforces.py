"""Task forces (004 5.1 and section 6): warships that move and fight together under an admiral.

Ships join or leave task forces at the start of the movement phase (004 L68: "at any time
during the movement phase"; ruling: before anyone moves). A task force is formed from two or
more of a player's warships in one hex, the first of them its flagship; its admiral is rolled
when it forms (004 L320-327), unless one waits in the empire's reserve (`plan_commands`). A
move ordered for the task force moves every ship in it.
"""

from __future__ import annotations

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.events import Audience, NewEvent, TaskForcesSet
from campaign.projections import CampaignState
from campaign.rules.command import roll_admiral, roll_promotion
from campaign.strategic import Admiral, TaskForce, TaskForceOrder


class Commands(msgspec.Struct, frozen=True):
    """A player's task forces after his orders, his admirals left without a command, and
    every problem with the orders."""

    forces: list[TaskForce]
    reserve: tuple[Admiral, ...]
    problems: list[str]


def plan_task_forces(
    state: CampaignState, player: str, orders: tuple[TaskForceOrder, ...]
) -> tuple[list[TaskForce], list[str]]:
    """Return the player's task forces after `orders` and every problem (`plan_commands`)."""
    commands = plan_commands(state, player, orders)
    return commands.forces, commands.problems


def plan_commands(
    state: CampaignState, player: str, orders: tuple[TaskForceOrder, ...]
) -> Commands:
    """Return the player's task forces after `orders`, with his reserve of admirals.

    An admiral stays with his command (004 section 6): a disbanded task force's admiral
    joins the empire's reserve, and a new task force takes the best fit admiral from it; only
    with the reserve empty is it left without one (None), to be rolled as the turn resolves.
    Disbanding comes first, so re-forming the same ships in one orders file brings back the
    same admiral, never a new roll.
    """
    problems: list[str] = []
    forces = {
        # The lost have left their task forces.
        tf.id: msgspec.structs.replace(tf, units=tuple(u for u in tf.units if u in state.units))
        for tf in state.task_forces.values()
        if tf.owner == player
    }
    reserve = list(state.reserve_admirals.get(player, ()))
    serial = max(
        (int(i.rpartition("F")[2]) for i in forces if i.rpartition("F")[2].isdigit()), default=0
    )
    disbands_first = sorted(orders, key=lambda o: not (o.id is not None and not o.units))
    for order in disbands_first:
        if order.id is not None and order.id not in forces:
            problems.append(f"task force {order.id}: not a task force of {player}")
            continue
        touched = (*order.units, *(forces[order.id].units if order.id is not None else ()))
        bound = sorted(
            uid for uid in set(touched) if (u := state.units.get(uid)) and u.plotted(state.turn)
        )
        if bound:
            # Ruling: a ship bound by its plot (004 section 6) cannot change its command.
            problems.append(
                f"{order.id or 'new task force'}: {', '.join(bound)} still bound by a plot "
                "(004 section 6) cannot join or leave a task force"
            )
            continue
        if order.id is not None and not order.units:
            gone = forces.pop(order.id)  # disbanded: its admiral waits in the reserve
            if gone.admiral is not None:
                reserve.append(Admiral(level=gone.admiral, out_until=gone.admiral_out_until))
            continue
        label = order.id or "new task force"
        members = [state.units.get(uid) for uid in order.units]
        if len(order.units) < 2:
            problems.append(f"{label}: a task force needs at least two warships")
        if len(set(order.units)) != len(order.units):
            problems.append(f"{label}: a ship is listed twice")
        for uid, unit in zip(order.units, members, strict=True):
            if unit is None or unit.owner != player or unit.kind != "warship":
                problems.append(f"{label}: {uid} is not a warship of {player}")
        hexes = {u.hex for u in members if u is not None}
        if len(hexes) > 1:
            where = ", ".join(sorted(h or "entry" for h in hexes))
            problems.append(f"{label}: its ships are not in one hex ({where})")
        if order.id is None:
            serial += 1
            new = TaskForce(id=f"{player}-F{serial}", owner=player, units=order.units)
            if reserve:
                best = min(reserve, key=lambda a: a.rank)
                reserve.remove(best)
                new = msgspec.structs.replace(
                    new, admiral=best.level, admiral_out_until=best.out_until
                )
            forces[new.id] = new
        else:
            forces[order.id] = msgspec.structs.replace(forces[order.id], units=order.units)
    seen: dict[str, str] = {}
    for tf in forces.values():
        for uid in tf.units:
            if uid in seen:
                problems.append(f"{uid} would be in both {seen[uid]} and {tf.id}")
            seen[uid] = tf.id
    kept = [tf for tf in forces.values() if tf.units]
    return Commands(
        forces=sorted(kept, key=lambda tf: tf.id), reserve=tuple(reserve), problems=problems
    )


def decide_task_forces(state: CampaignState, dice: DiceSource) -> list[NewEvent]:
    """Form, reshape and disband task forces as ordered; a new one takes an admiral from the
    reserve or rolls one; promote a captain to command a task force whose admiral was killed
    (004 section 6, Promotion)."""
    batch = []
    owners = {*state.task_force_orders, *(tf.owner for tf in state.task_forces.values())}
    for player in sorted(owners):
        orders = state.task_force_orders.get(player, ())
        commands = plan_commands(state, player, orders)
        if commands.problems:
            # Checked at submission; ships since lost make it fail: keep the forces as they are.
            commands = plan_commands(state, player, ())
        rolls: list[Roll] = []
        commanded = []
        changed = bool(orders) and not commands.problems
        for tf in commands.forces:
            flagship = state.units.get(tf.units[0]) if tf.units else None
            if tf.id not in state.task_forces and tf.admiral is None:
                key = DiceKey(turn=state.turn, phase="admiral", subject=tf.id)
                level, roll = roll_admiral(dice, key)  # 004 section 6, "For Admirals"
            elif tf.id in state.task_forces and tf.admiral is None and flagship is not None:
                # The admiral was killed: the flagship's captain is promoted (004 L353-359).
                key = DiceKey(turn=state.turn, phase="promotion", subject=tf.id)
                level, roll = roll_promotion(dice, key, flagship.captain or 2)
                changed = True
            else:
                commanded.append(tf)
                continue
            rolls.append(roll)
            commanded.append(msgspec.structs.replace(tf, admiral=level))
        if not changed:
            continue
        event = TaskForcesSet(
            player=player,
            task_forces=tuple(commanded),
            rolls=tuple(rolls),
            reserve=commands.reserve,
        )
        batch.append(NewEvent(event=event, audience=Audience.players_([player]), turn=state.turn))
    return batch
