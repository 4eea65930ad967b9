"""A player's FT2 campaign report, only from what he may see (issue 20): his fleets, the
encounters he is in with the scans he was told of, his battles, and the result once judged.
Plain text lines; the web page escapes them into HTML."""

from __future__ import annotations

import html

from campaign.events import CampaignRulesChosen, RecordedEvent
from campaign.ft2.events import (
    CampaignJudged,
    DecisionCommitted,
    DecisionMade,
    DecisionWritten,
    DecoysSpent,
    DisengagementRolled,
    EncounterFound,
    EncounterResolved,
    FleetsMoved,
    ForcesDeployed,
    Ft2BattleFought,
    Ft2OrdersSubmitted,
    LongRangeScan,
    ReinforcementsArrived,
    ShipsRefitted,
)
from campaign.projections import CampaignState


def report_lines(view: CampaignState, told: list[RecordedEvent], player: str) -> list[str]:
    """Return `player`'s report from his own view and the events he was told of."""
    state = view.ft2
    if state is None:
        return []
    now = "The campaign is over." if view.finished else f"Turn {view.turn}: {state.phase}"
    lines = [now, "", "Your fleets:"]
    for fleet in sorted(state.fleets.values(), key=lambda f: f.id):
        ships = ", ".join(
            f"{s.id} {s.design}" + (" (damaged)" if s.record is not None else "")
            for s in fleet.ships
        )
        kind = " (System Defence)" if fleet.fixed else ""
        leave = " (must leave)" if fleet.must_leave else ""
        lines.append(f"  {fleet.id}{kind} at {fleet.hex}{leave}: {ships}; {fleet.drones} drones")
    for eid in sorted(state.encounters):
        encounter = state.encounters[eid]
        lines.append(f"Encounter {eid} at {encounter.system} ({encounter.hex}):")
        for side in encounter.sides:
            seen = state.scans.get(f"{eid}/{side.player}", ())
            shown = ", ".join(f"{c.count} {c.hull_class}" for c in seen) or "nothing"
            lines.append(f"  {side.player}'s long-range scan shows {shown}")
        mine = state.decisions.get(eid, {}).get(player)
        lines.append(f"  your decision: {mine or 'none yet (stand-off if none)'}")
    for recorded in told:
        ev = recorded.event
        if isinstance(ev, EncounterResolved):
            said = ", ".join(f"{p} {d}" for p, d in zip(ev.players, ev.decisions, strict=True))
            lines.append(f"Turn {recorded.turn}: encounter {ev.encounter}: {said}: {ev.outcome}")
        elif isinstance(ev, Ft2BattleFought):
            fates = ", ".join(f"{f.ship} {f.fate}" for f in ev.fates)
            lines.append(
                f"Turn {recorded.turn}: battle {ev.battle.id} at {ev.battle.system}: {fates}"
            )
        elif isinstance(ev, CampaignJudged):
            held = ", ".join(ev.held) or "none"
            lines.append(f"Result: {ev.result} ({ev.reason}; held: {held})")
    return lines


def report_html(lines: list[str]) -> str:
    """Return the report as HTML, every line escaped."""
    return "<h1>Your report</h1><pre>" + html.escape("\n".join(lines)) + "</pre>"


def describe(ev: object) -> str | None:
    """Return a one-line summary of an FT2 campaign event (None: not one of them)."""
    match ev:
        case CampaignRulesChosen():
            return f"campaign rules {ev.rules}: scenario {ev.scenario} at {ev.scale}% budgets"
        case ForcesDeployed():
            ships = sum(len(f.ships) for f in ev.fleets)
            return (
                f"{ev.player}'s {ev.side} forces deployed: {len(ev.fleets)} fleet(s), "
                f"{ships} ship(s), {ev.points} points"
            )
        case Ft2OrdersSubmitted():
            moves = len(ev.orders.moves)
            return (
                f"{ev.orders.player} handed in orders for turn {ev.orders.turn} ({moves} move(s))"
            )
        case FleetsMoved():
            where = ", ".join(f"{f.id} at {f.hex}" for f in ev.fleets)
            return f"{ev.player}'s fleets: {where}" + (
                f"; merged away {', '.join(ev.gone)}" if ev.gone else ""
            )
        case ReinforcementsArrived():
            return f"{ev.player}'s reinforcements arrived: " + ", ".join(
                f"{f.id} at {f.hex}" for f in ev.fleets
            )
        case EncounterFound():
            e = ev.encounter
            return f"encounter {e.id} at {e.system}: " + " against ".join(s.player for s in e.sides)
        case LongRangeScan():
            seen = ", ".join(f"{c.count} {c.hull_class}" for c in ev.contacts) or "nothing"
            return f"{ev.scanner}'s long-range scan of {ev.scanned} ({ev.encounter}): {seen}"
        case DecoysSpent():
            return f"{ev.player} released {ev.drones} decoy drone(s) from {ev.fleet}"
        case DecisionCommitted():
            return f"{ev.player} wrote down a decision for {ev.encounter} ({ev.sha256[:12]}…)"
        case DecisionWritten():
            return f"{ev.player} wrote down a decision for {ev.encounter}"
        case DecisionMade():
            return f"{ev.player} decided {ev.decision} for {ev.encounter}"
        case EncounterResolved():
            said = ", ".join(f"{p} {d}" for p, d in zip(ev.players, ev.decisions, strict=True))
            dice = f" (catch die {ev.rolls[0].value})" if ev.rolls else ""
            battle = f"; battle {ev.battle.id}" if ev.battle else ""
            return f"encounter {ev.encounter}: {said}: {ev.outcome}{dice}{battle}"
        case DisengagementRolled():
            faces = " v ".join(str(r.value) for r in ev.rolls)
            end = "away" if ev.succeeded else "caught"
            return f"{ev.side} rolled to disengage from {ev.battle}: {faces}, {end}"
        case Ft2BattleFought():
            lost = sum(f.fate == "destroyed" for f in ev.fates)
            where = f"battle {ev.battle.id} at {ev.battle.system} ({ev.source})"
            return f"{where}: {lost} ship(s) destroyed"
        case ShipsRefitted():
            return f"{ev.player}'s ships refitted: " + ", ".join(r.ship for r in ev.repairs)
        case CampaignJudged():
            return f"judged: {ev.result} ({ev.reason})"
        case _:
            return None
