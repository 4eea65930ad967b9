"""The umpire's and the players' tables and panels: status, turn, state, logs, verify,
branches, players, receipts, inbox, technology and reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from campaign.events import (
    RecordedEvent,
    rolls_of,
)
from campaign.inputs import printable
from campaign.playermap import Reach
from campaign.projections import CampaignState
from campaign.schedule import due_words
from campaign.service import BranchDiff, Status, TurnStatus, VerifyReport
from campaign.storetypes import BranchInfo, CampaignInfo
from campaign.strategic import Battle
from campaign.techlist import TechRow

if TYPE_CHECKING:  # the inbox and the keys' tables: imported only when used
    from campaign.inbox import InboxResult
    from campaign.playeraccess import PlayerAccess
    from campaign.receipts import ReceiptCheck

from campaign.render.common import pairs_table
from campaign.render.events import describe


def turn_status_panel(status: TurnStatus) -> RenderableType:
    """Return where the turn in progress stands."""
    waiting = Text(
        ", ".join(status.waiting_for) or "nobody",
        style="umpire.bad" if status.waiting_for else "umpire.ok",
    )
    rows: list[tuple[str, str | Text]] = [
        ("turn", f"{status.turn} ({status.phase})"),
        ("orders in", ", ".join(status.submitted) or "none yet"),
        ("marked final", ", ".join(status.final) or "none yet"),
        ("waiting for", waiting),
        ("battles waiting", ", ".join(status.battles) or "none"),
    ]
    if status.deadline is not None:
        due = due_words(status.deadline)
        rows.append(
            ("deadline", Text(f"{due} (passed)", style="umpire.bad") if status.late else due)
        )
    if status.held is not None:
        rows.append(("held", Text(status.held, style="umpire.bad")))
    rows += _seat_rows(status)
    return pairs_table(f"{status.campaign} [{status.branch}] turn {status.turn}", rows)


def _seat_rows(status: TurnStatus) -> list[tuple[str, str | Text]]:
    """Missed turns, holidays and open seats (issue 18), when there are any."""
    rows: list[tuple[str, str | Text]] = []
    if status.missed:
        rows.append(("missed turns", ", ".join(f"{p} {n}" for p, n in status.missed.items())))
    if status.on_holiday:
        rows.append(("on holiday", ", ".join(status.on_holiday)))
    if status.open_seats:
        rows.append(("open seats", Text(", ".join(status.open_seats), style="umpire.bad")))
    return rows


def next_steps(status: TurnStatus) -> RenderableType:
    """Return what the umpire does next: battles to fight, orders awaited, the deadline."""
    if status.finished:
        return Text("The campaign is over: `umpire status` shows the final score.", "umpire.ok")
    lines: list[str] = []
    if status.battles:
        waiting = ", ".join(status.battles)
        fight, record = (
            ("encounters fight ID", "encounters record ID")
            if status.rules == "ft2"
            else ("battles resolve", "battles record ID")
        )
        lines.append(
            f"Next: battles {waiting} await their outcome: `umpire {fight}` fights "
            f"{'it' if status.rules == 'ft2' else 'them'} with the engine, `umpire {record}` "
            "enters one fought at the table; then `umpire turn resolve` again."
        )
    elif status.phase != "orders":
        lines.append(f"Next: turn {status.turn} goes on ({status.phase}): `umpire turn resolve`.")
    else:
        waiting = ", ".join(status.waiting_for)
        lines.append(
            f"Next: turn {status.turn} is open for orders"
            + (f"; waiting for {waiting}." if waiting else "; every player's orders are in.")
        )
    if status.production:
        lines.append(f"Turn {status.turn} ends with a production phase (004 L65).")
    if status.deadline is not None:
        due = due_words(status.deadline)
        lines.append(f"Orders are due by {due}" + (" (passed)." if status.late else "."))
    elif not status.battles:
        lines.append("No deadline is set: `umpire turn deadline WHEN` sets one.")
    if status.held is not None:
        lines.append(f"The turn is held: {status.held}")
    return Group(*(Text(line) for line in lines))


# Events worth a line of their own in a write command's summary.
_NOTABLE = frozenset(
    {
        "battle_requested",
        "battle_fought",
        "turn_ended",
        "production_resolved",
        "colony_conquered",
        "colony_bombarded",
        "colonists_landed",
        "unit_lost",
        "units_caught",
        "absent_player",
        "seed_revealed",
        "campaign_created",
        "deadline_set",
        "turn_held",
        "turn_released",
        "treasury_spent",
    }
)


_SUMMARY_ALL = 6  # a batch this short is told event by event


def written_summary(
    recorded: Sequence[RecordedEvent], title: str, verb: str = "recorded"
) -> RenderableType:
    """Return a short summary of what a write command recorded (`verb`: "would be recorded"
    for a dry run): how many events of each kind and a line for each that matters (`--events`
    shows the rows)."""
    if not recorded:
        return Text(f"{title}: nothing {verb}.", style="umpire.dim")
    first, last = recorded[0].version, recorded[-1].version
    versions = f"version {first}" if first == last else f"versions {first}-{last}"
    counts: dict[str, int] = {}
    for r in recorded:
        counts[r.type] = counts.get(r.type, 0) + 1
    kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    parts: list[RenderableType] = [
        Text(printable(f"{title}: {len(recorded)} event(s) {verb} ({versions})."), "umpire.ok"),
        Text(f"  {kinds}", style="umpire.dim"),
    ]
    told = [r for r in recorded if len(recorded) <= _SUMMARY_ALL or r.type in _NOTABLE]
    parts.extend(Padding(Text(printable(describe(r.event))), (0, 0, 0, 2)) for r in told)
    if len(told) < len(recorded):
        parts.append(Text("  (--events shows every event)", style="umpire.dim"))
    return Group(*parts)


def battles_table(
    battles: Sequence[Battle], decoys: Mapping[str, Mapping[str, int]] | None = None
) -> RenderableType:
    """Return the battles awaiting an outcome, with the dummy bogeys each side may deploy
    (its decoy drones, `decoys`: by battle, the sides the viewer may know of)."""
    if not battles:
        return Text("no battles await an outcome", style="umpire.dim")
    table = Table(title="Battles awaiting an outcome", title_justify="left")
    for column in ("battle", "where", "type", "location", "sides"):
        table.add_column(column)
    for b in battles:
        drones = (decoys or {}).get(b.id, {})
        gone = "none: a side has no ship left, no battle"  # `rules.battles.as_fought`
        sides = "\n".join(
            f"{s.player} ({s.order}): {', '.join(s.units) or gone}"
            + (f"; {drones[s.player]} dummy bogeys" if drones.get(s.player) else "")
            for s in b.sides
        )
        kind = b.type + (f", {b.pursued} pursued" if b.pursued else "")
        kind += ", leaving" if b.departure else ""
        if b.colony is not None:  # an assault on planetary defences (004 5.4)
            kind += f", assault on {b.colony}"
            if b.call_off_after is not None:  # the attacker's standing order (004 L208-209)
                kind += f", called off after {b.call_off_after} turns if they stand"
        where = f"{b.system or 'deep space'} ({b.hex})"
        chooser = f" (chosen by {b.chosen_by})" if b.chosen_by else ""
        table.add_row(b.id, where, kind, b.location + chooser, Text(sides))
    return table


def _audience_text(recorded: RecordedEvent) -> Text:
    style = "umpire.audience.public" if recorded.audience.public else "umpire.audience.private"
    return Text(str(recorded.audience), style=style)


def log_table(events: Sequence[RecordedEvent], title: str) -> RenderableType:
    """Return the event log as a table."""
    table = Table(title=escape(printable(title)), title_justify="left", expand=False)
    table.add_column("pos", justify="right", style="umpire.dim")
    table.add_column("ver", justify="right")
    table.add_column("turn", justify="right")
    table.add_column("type", style="umpire.key")
    table.add_column("seen by")
    table.add_column("what happened", overflow="fold")  # a long key is shown whole
    for recorded in events:
        table.add_row(
            str(recorded.position),
            str(recorded.version),
            str(recorded.turn),
            recorded.type,
            _audience_text(recorded),
            Text(printable(describe(recorded.event))),  # user text: never markup, no escapes
        )
    if not events:
        return Group(table, Text("no events match", style="umpire.dim"))
    return table


def dice_table(events: Sequence[RecordedEvent], title: str) -> RenderableType:
    """Return every die the events recorded, one row each, with the key that names it."""
    table = Table(title=escape(title), title_justify="left", expand=False)
    table.add_column("ver", justify="right")
    table.add_column("seen by")
    table.add_column("die", style="umpire.key", overflow="fold")  # whole, to copy
    table.add_column("face", justify="right", no_wrap=True)
    for recorded in events:
        for roll in rolls_of(recorded.event):
            physical = " (physical)" if roll.source == "manual" else ""
            table.add_row(
                str(recorded.version),
                _audience_text(recorded),
                Text(roll.key),
                f"{roll.value} on d{roll.sides}{physical}",
            )
    if not table.row_count:
        return Group(table, Text("no dice rolled", style="umpire.dim"))
    return table


def unrolled_reroll(key: str, turn_ended: bool) -> Text:
    """Return the warning that a die the umpire ruled rolled again was not rolled."""
    if turn_ended:
        text = f"die {key} was ruled rolled again, but the turn ends without rolling it"
    else:
        text = f"die {key} was ruled rolled again, but this step does not roll it (a later may)"
    return Text(text, style="umpire.bad")


def _state_rows(state: CampaignState) -> list[tuple[str, str | Text]]:
    seed = state.revealed_seed if state.revealed_seed is not None else "secret"
    turn = f"{state.turn} of {state.max_turns}"
    if state.finished:
        turn = f"finished after turn {state.max_turns}"
    return [
        ("turn", turn),
        ("players", ", ".join(state.players) or "none"),
        ("map", state.map_name or "none chosen"),
        ("dice", f"{state.dice_mode}; {state.dice_rolled} rolled by the umpire's own `roll`"),
        ("seed commitment", state.seed_commitment),
        ("seed", seed),
        ("umpire notes", str(state.notes)),
        ("events folded", f"{state.events} (to version {state.version})"),
    ]


def status_panel(status: Status) -> RenderableType:
    """Return the overview of a campaign branch."""
    rows: list[tuple[str, str | Text]] = [
        ("campaign", status.campaign),
        ("branch", f"{status.branch} ({status.branches} in all)"),
        ("database", status.database),
        ("head", f"version {status.head_version}, hash {status.head_hash[:16]}…"),
    ]
    panel = pairs_table(f"Campaign {status.campaign}", rows + _state_rows(status.state))
    if not status.scores:
        return panel
    final = status.state.finished
    table = Table(
        title="Final score (004 section 1)" if final else "Running tally (004 section 1)",
        title_justify="left",
    )
    for column in ("player", "points", "planets controlled"):
        table.add_column(column)
    for score in status.scores:
        table.add_row(score.player, str(score.points), Text(", ".join(score.planets) or "none"))
    if final and status.scores and status.scores[0].points > 0:
        top = [s.player for s in status.scores if s.points == status.scores[0].points]
        winner = Text(f"Winner: {' and '.join(top)}", style="umpire.ok")
        return Group(panel, table, winner)
    return Group(panel, table)


def state_panel(
    state: CampaignState, campaign: str, branch: str, at: str, viewer: str
) -> RenderableType:
    """Return a campaign state, as `viewer` knows it."""
    title = f"{campaign} [{branch}] {at}, as the {viewer} sees it"
    if viewer != "umpire":
        title = f"{campaign} [{branch}] {at}, as player {viewer} sees it"
        return pairs_table(title, _state_rows(state))
    if not state.empires:
        return pairs_table(title, _state_rows(state))
    return Group(pairs_table(title, _state_rows(state)), empires_table(state))


EMPIRE_COLUMNS = [
    "player",
    "IP",
    "FTL",
    "tech",
    "colonies",
    "fact",
    "warships (pts)",
    "scouts",
    "transp",
    "expl",
    "orders",
]


def empire_rows(state: CampaignState) -> list[list[str]]:
    """The umpire's overview, a row an empire: treasury, technology, colonies, forces."""
    rows = []
    for player in state.players:
        empire = state.empires.get(player)
        if empire is None:
            continue
        colonies = [c for c in state.colonies.values() if c.owner == player]
        units = [u for u in state.units.values() if u.owner == player]
        warships = [u for u in units if u.kind == "warship"]
        scouts = sum(u.count for u in units if u.kind == "scout-troop")
        transports = sum(u.count for u in units if u.kind == "transports")
        settled = f"{len(colonies)} ({sum(c.population for c in colonies)}M)"
        orders = "in" if player in state.submitted else "waiting"
        rows.append(
            [
                player,
                str(empire.ip),
                str(empire.speed),
                ", ".join(empire.techs) or "none",
                settled,
                str(sum(c.factories for c in colonies)),
                f"{len(warships)} ({sum(u.points for u in warships)})",
                str(scouts),
                str(transports),
                str(len(empire.explored)),
                orders if not state.finished else "",
            ]
        )
    return rows


def empires_table(state: CampaignState) -> RenderableType:
    """Return every empire side by side (the umpire's `umpire state`)."""
    table = Table(
        title="Empires", title_justify="left", box=None, padding=(0, 1, 0, 0), header_style="bold"
    )
    for column in EMPIRE_COLUMNS:
        table.add_column(column, overflow="fold", no_wrap=column != "tech")
    for row in empire_rows(state):
        table.add_row(*(Text(cell) for cell in row))
    return table


def verify_panel(report: VerifyReport) -> RenderableType:
    """Return what verification found."""
    if not report.ok and report.problem is not None:
        verdict = Text(
            f"FAILED at position {report.position} (version {report.version}): {report.problem}",
            style="umpire.bad",
        )
    elif report.ok:
        verdict = Text("OK", style="umpire.ok")
    else:
        if report.store_problems:
            what = "the database does not match its log"
        elif report.orders_problems:
            what = "revealed orders do not match their commitments"
        else:
            what = "dice do not match the revealed seed"
        verdict = Text(f"FAILED: {what}", style="umpire.bad")
    rows: list[tuple[str, str | Text]] = [
        ("campaign", f"{report.campaign} [{report.branch}]"),
        ("hash chain", verdict),
        ("events checked", str(report.events_checked)),
        ("head hash", report.head_hash),
    ]
    if report.orders_revealed or report.orders_problems:
        rows.append(
            (
                "orders",
                f"{report.orders_revealed} revealed order file(s) checked against their "
                "commitments",
            )
        )
        rows.extend(("orders problem", Text(p, style="umpire.bad")) for p in report.orders_problems)
    if report.snapshots_checked or report.store_problems:
        rows.append(("snapshots", f"{report.snapshots_checked} compared with the log folded again"))
        rows.extend(
            ("database problem", Text(p, style="umpire.bad")) for p in report.store_problems
        )
    if report.dice_checked:
        rows.append(
            (
                "dice",
                f"{report.seeded_rolls} seeded roll(s) recomputed from the revealed seed; "
                f"{report.manual_rolls} physical roll(s) taken as recorded",
            )
        )
        rows.extend(("dice problem", Text(p, style="umpire.bad")) for p in report.dice_problems)
    return pairs_table("Verification", rows)


def branch_diff_view(diff: BranchDiff) -> RenderableType:
    """Return what differs between two branches, turn by turn and audience by audience."""
    head = (
        f"{diff.campaign}: {diff.a} (turn {diff.turn_a}) against {diff.b} (turn {diff.turn_b}); "
        f"they share history up to version {diff.shared}."
    )
    parts: list[RenderableType] = [Text(printable(head), style="umpire.heading")]
    if diff.standings:
        standing = Table(title="Where each player stands now", title_justify="left")
        for column in ("player", "points", "colonies", "warships"):
            standing.add_column(column, justify="left" if column == "player" else "right")
        for s in diff.standings:
            standing.add_row(
                s.player,
                *(f"{a} / {b}" for a, b in (s.points, s.colonies, s.warships)),
            )
        standing.caption = escape(printable(f"on {diff.a} / on {diff.b}"))
        standing.caption_justify = "left"
        parts.append(standing)
    if not diff.turns:
        parts.append(Text("Nobody was told anything different.", style="umpire.ok"))
        return Group(*parts)
    table = Table(title="What differs", title_justify="left")
    table.add_column("turn", justify="right")
    table.add_column("told to", style="umpire.key")
    table.add_column(f"only on {escape(printable(diff.a))}", overflow="fold")
    table.add_column(f"only on {escape(printable(diff.b))}", overflow="fold")
    for t in diff.turns:
        table.add_row(
            str(t.turn),
            t.player,
            Text("\n".join(printable(describe(e)) for e in t.only_a)),
            Text("\n".join(printable(describe(e)) for e in t.only_b)),
            end_section=True,
        )
    parts.append(table)
    return Group(*parts)


def branches_table(campaign: str, active: str, branches: Sequence[BranchInfo]) -> RenderableType:
    """Return a campaign's branches."""
    table = Table(title=escape(f"Branches of {campaign}"), title_justify="left")
    table.add_column("")
    table.add_column("branch", style="umpire.key")
    table.add_column("from")
    table.add_column("forked at", justify="right")
    table.add_column("events", justify="right")
    table.add_column("created (UTC)")
    for b in branches:
        marker = Text("*", style="umpire.active") if b.name == active else Text("")
        table.add_row(
            marker,
            b.name,
            b.parent or "",
            str(b.fork_version) if b.parent else "",
            str(b.head_version),
            b.created_at.strftime("%Y-%m-%d %H:%M"),
        )
    return table


def campaigns_table(campaigns: Sequence[CampaignInfo]) -> RenderableType:
    """Return the campaigns in a database."""
    table = Table(title="Campaigns", title_justify="left")
    table.add_column("campaign", style="umpire.key")
    table.add_column("active branch")
    table.add_column("created (UTC)")
    for c in campaigns:
        table.add_row(c.name, c.active_branch, c.created_at.strftime("%Y-%m-%d %H:%M"))
    if not campaigns:
        return Text("no campaigns yet: create one with `umpire new NAME`", style="umpire.dim")
    return table


def players_table(campaign: str, access: Sequence[PlayerAccess]) -> RenderableType:
    """Return a campaign's players and whether each holds a secret (never the secret)."""
    table = Table(title=escape(f"Players of {campaign}"), title_justify="left")
    table.add_column("player", style="umpire.key")
    table.add_column("secret")
    table.add_column("issued (UTC)")
    table.add_column("rotations", justify="right")
    table.add_column("signs orders")
    for a in access:
        issued = a.issued_at.strftime("%Y-%m-%d %H:%M") if a.issued_at else ""
        held = Text("issued", style="umpire.ok") if a.has_secret else Text("none", "umpire.dim")
        if a.signs_orders:
            signs = Text("yes", style="umpire.ok")
        else:  # a secret from before signing keys: rotating it makes one
            signs = Text("rotate for a key", "umpire.bad") if a.has_secret else Text("")
        table.add_row(a.player, held, issued, str(a.rotations) if a.has_secret else "", signs)
    if not access:
        return Text("this campaign has no players", style="umpire.dim")
    return table


def receipts_table(folder: str, checks: Sequence[ReceiptCheck]) -> RenderableType:
    """Return what checking each receipt found (issue 13)."""
    if not checks:
        return Text(
            f"no receipts (receipt.json, *.receipt.json) under {folder}", style="umpire.dim"
        )
    table = Table(title=escape(f"Receipts {folder}"), title_justify="left")
    table.add_column("file", style="umpire.key")
    table.add_column("player")
    table.add_column("branch")
    table.add_column("seen", justify="right")
    table.add_column("result")
    for c in checks:
        r = c.receipt
        if not c.ok:
            result = Text(f"FAILED: {c.problem}", style="umpire.bad")
        elif not c.on_active_branch:
            result = Text("on the chain, not on the active branch", style="umpire.bad")
        elif c.credentials_changed:
            result = Text(
                "on the chain; his credentials on record changed since", style="umpire.bad"
            )
        else:
            result = Text("on the chain", style="umpire.ok")
        table.add_row(
            Text(c.file),
            Text(r.player if r else ""),
            Text(r.branch if r else ""),
            Text(str(r.seen) if r else ""),
            result,
        )
    return table


def inbox_table(folder: str, results: Sequence[InboxResult]) -> RenderableType:
    """Return what the inbox did with each signed orders file, and why a file was refused."""
    if not results:
        return Text(f"no orders files (*.toml) in {printable(folder)}", style="umpire.dim")
    table = Table(title=escape(printable(f"Inbox {folder}")), title_justify="left")
    table.add_column("file", style="umpire.key")
    table.add_column("player")
    table.add_column("result")
    table.add_column("reason")
    from campaign.inbox import Outcome  # the inbox (signing, keys) only when it is shown

    styles = {
        Outcome.ACCEPTED: "umpire.ok",
        Outcome.REJECTED: "umpire.bad",
        Outcome.RETRY: "umpire.dim",
    }
    for r in results:
        renamed = r.moved_to.rpartition("/")[2] if r.moved_to else r.file
        result = f"{r.outcome} as {renamed}" if renamed != r.file else str(r.outcome)
        table.add_row(
            Text(printable(r.file)),
            Text(printable(r.player or "")),
            Text(printable(result), style=styles[r.outcome]),
            Text("\n".join(printable(p) for p in r.problems)),
        )
    return table


def tech_table(rows: Sequence[TechRow], player: str | None = None) -> RenderableType:
    """Return the technology tree (004 5.7.7): prices, prerequisites, and a player's standing."""
    title = "Technology (004 5.7.6-5.7.7)" + (f": {player}" if player else "")
    table = Table(title=escape(title), title_justify="left")
    for column in ("technology", "field", "level", "price", "what it does"):
        table.add_column(column)
    if player is not None:
        table.add_column(f"{player} now")
    for row in rows:
        cost = f"{row.normal_cost} IP"
        if row.predecessor is not None:
            cost += f", {row.cost_with_predecessor} with {row.predecessor}"
        cells = [
            f"{row.name} ({row.title})",
            row.field,
            str(row.level),
            cost,
            row.development,
        ]
        if player is not None:
            cells.append(_tech_standing(row))
        table.add_row(*(escape(c) for c in cells))
    return table


def _tech_standing(row: TechRow) -> str:
    if row.owned:
        return "owned"
    standing = f"costs {row.price} IP"
    if row.blocked is not None:
        standing += "; needs a level " + f"{row.level - 1} {row.field} technology first"
    return standing


def _route(reach: Reach) -> str:
    """How a unit gets to the hex asked: this turn's hexes, then where its plot puts it at
    the end of each coming turn (004 section 6)."""
    now = f"this turn it moves by {' '.join(reach.path)}" if reach.path else "it stays this turn"
    if not reach.plot:
        return now
    coming = ", ".join(
        f"{where} after {'the next turn' if n == 1 else f'{n} turns more'}"
        for n, where in enumerate(reach.plot, 1)
    )
    return f"{now}; its plot then holds it at {coming}"


def reach_view(reach: Reach) -> RenderableType:
    """Return where a unit can go this turn and, for a destination asked, how or why not."""
    where = f"at {reach.hex}" if reach.hex else f"not entered yet (enters at {reach.owner}'s entry)"
    plotted = "1 turn" if reach.horizon == 1 else f"{reach.horizon} turns"
    lines = [
        Text(
            f"{reach.unit} of {reach.owner}, {where}: speed {reach.speed}, "
            f"moves plotted {plotted} ahead"
        ),
    ]
    if reach.problem is not None and reach.to is None:
        lines.append(Text(f"it cannot be ordered this turn: {reach.problem}", style="umpire.bad"))
        return Group(*lines)
    if reach.to is not None:
        if reach.problem is not None:
            lines.append(Text(reach.problem, style="umpire.bad"))
        else:
            lines.append(Text(f"{reach.to}: yes; {_route(reach)}", style="umpire.ok"))
    hexes = " ".join(reach.hexes) or "none"
    lines.append(Text(f"it can reach ({len(reach.hexes)} hexes this turn): {hexes}"))
    return Group(*lines)
