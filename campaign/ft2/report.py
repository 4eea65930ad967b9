"""A player's FT2 campaign report, only from what he may see (issue 20): his fleets, the
encounters he is in with the scans he was told of, his battles, and the result once judged.
Plain text lines; the web page escapes them into HTML."""

from __future__ import annotations

import html

from campaign.events import RecordedEvent
from campaign.ft2.events import CampaignJudged, EncounterResolved, Ft2BattleFought
from campaign.projections import CampaignState


def report_lines(view: CampaignState, told: list[RecordedEvent], player: str) -> list[str]:
    """Return `player`'s report from his own view and the events he was told of."""
    state = view.ft2
    if state is None:
        return []
    lines = [f"Turn {view.turn}: {state.phase}", "", "Your fleets:"]
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
