"""A battle report drawn: the terminal view, the table plot, and the replay as an animated
SVG and an HTML page."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape as esc
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # the engine: imported only when used
    from campaign.battlereport import BattleReport, Counter, ForceShip, ShipFate

from campaign.news import counted
from campaign.render.common import HTML_STYLE, html_table


def _fate_words(fate: ShipFate) -> str:
    if fate.fate == "jumped":
        return f"jumped out to {fate.to_hex}" if fate.to_hex else "jumped out"
    return {"survived": "came through", "disengaged": "withdrew"}.get(fate.fate, fate.fate)


def battle_heading(report: BattleReport) -> tuple[str, str]:
    """Return a battle report's title and the sentence under it."""
    who = "the umpire" if report.viewer == "umpire" else report.viewer
    title = f"Battle {report.id} at {report.where}, as {who} saw it"
    kind = f"a pursuit of {report.pursued}" if report.pursued else f"an {report.kind} battle"
    how = "fought by the engine" if report.source == "engine" else "fought at the table"
    sides = " against ".join(f"{side} ({order})" for side, order in report.orders)
    text = f"{kind.capitalize()} in {report.location.replace('-', ' ')}, {how}: {sides}."
    if not report.forces:  # a side had no ship left at its table (`rules.battles.as_fought`)
        return title, f"{kind.capitalize()}, {sides}: not fought, a side had no ship left there."
    if report.rules:  # the set-up the engine fought it under (004 section 4)
        text = text[:-1] + f", under {report.rules} rules with {report.movement} movement."
    if report.source == "engine":
        text += f" Won by {report.winner}." if report.winner else " Nobody won the field."
    return title, text


FORCE_START_COLUMNS = ["side", "ship", "design", "hull at start", "captain", "fighters", "ammo"]


FATE_COLUMNS = ["side", "ship", "what became of it", "hull lost", "hull left", "systems lost"]


def force_start_rows(report: BattleReport) -> list[list[str]]:
    """The forces at the start, a row a ship; `?` where the viewer does not know (an enemy
    ship whose record sheet his sensors did not open, docs/rulings.md)."""
    return [
        [
            f.side,
            f.id,
            f.design if f.design is not None else f"{f.seen_as or 'not known'}, design unknown",
            _hull_at_start(f),
            f"level {f.captain}" if f.captain else "",
            "?" if f.fighters is None else str(f.fighters) if f.fighters else "",
            str(f.missiles) if f.missiles else "",
        ]
        for f in report.forces
    ]


def _hull_at_start(force: ForceShip) -> str:
    if force.hull is None:
        return "?"
    left = "?" if force.hull_left is None else str(force.hull_left)
    return f"{left}/{force.hull}" if force.hull else ""


def fate_rows(report: BattleReport) -> list[list[str]]:
    """What became of each ship: its fate, damage, fighters lost and ammunition spent; `?`
    where the viewer's sensors did not learn its damage (docs/rulings.md)."""
    rows = []
    for f in report.fates:
        if f.damaged is None or f.destroyed is None:
            lost = ["?"]
        else:
            lost = [*f.destroyed, *(f"{s} (damaged)" for s in f.damaged)]
        if f.fighters_lost:
            lost.append(counted(f.fighters_lost, "fighter"))
        if f.missiles_spent:
            lost.append(f"{counted(f.missiles_spent, 'round')} fired")
        left = "" if f.fate == "destroyed" else _known_number(f.hull_left)
        rows.append(
            [
                f.side,
                f.id,
                _fate_words(f),
                _known_number(f.hull_lost),
                left,
                ", ".join(lost) or "none",
            ]
        )
    return rows


def _known_number(value: int | None) -> str:
    return "?" if value is None else str(value)


def battle_report_view(report: BattleReport, turns: bool = False) -> RenderableType:
    """Return a battle report: the forces, their fates, and (`turns`) the battle turn by turn."""
    title, text = battle_heading(report)
    parts: list[RenderableType] = [Text(title, style="umpire.heading"), Text(text)]
    for heading, columns, rows in (
        ("Forces at the start", FORCE_START_COLUMNS, force_start_rows(report)),
        ("What became of them", FATE_COLUMNS, fate_rows(report)),
    ):
        table = Table(title=escape(heading), title_justify="left")
        for column in columns:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        parts.append(table)
    if turns:
        for played in report.turns:
            parts.append(Text(f"Turn {played.turn}", style="umpire.key"))
            parts.extend(Text(line) for line in played.lines)
            parts.append(table_plot(played.table, report.sides))
    elif report.turns:
        parts.append(
            Text(
                f"{len(report.turns)} turns fought: --turns tells them, --replay FILE.html "
                "draws the table turn by turn.",
                style="umpire.dim",
            )
        )
    return Group(*parts)


def table_plot(
    table: Sequence[Counter], sides: Sequence[str], width: int = 60, height: int = 10
) -> Text:
    """Return the table at a turn's end as a rough plot, north up: a ship is its side's
    initial (`*` where both sides share a cell), a contact `?`, fighters `^`, a salvo `:`."""
    shown = [c for c in table if c.kind != "ship" or c.status == "active"]
    if not shown:
        return Text("nothing on the table", style="umpire.dim")
    xs = [c.x for c in shown]
    ys = [c.y for c in shown]
    scale = max((max(xs) - min(xs)) / (width - 1), (max(ys) - min(ys)) / (2 * (height - 1)), 0.25)
    left = (min(xs) + max(xs)) / 2 - scale * (width - 1) / 2
    bottom = (min(ys) + max(ys)) / 2 - scale * (height - 1)
    cells: dict[tuple[int, int], set[str]] = {}
    for c in shown:
        column = min(max(round((c.x - left) / scale), 0), width - 1)
        row = min(max(height - 1 - round((c.y - bottom) / (2 * scale)), 0), height - 1)
        mark = {"ship": c.side[:1], "contact": "?", "fighters": "^"}.get(c.kind, ":")
        cells.setdefault((row, column), set()).add(mark)
    styles = ("cyan", "red", "green", "magenta", "yellow", "blue")
    colour = {side[:1]: styles[i % len(styles)] for i, side in enumerate(sides)}
    text = Text()
    for row in range(height):
        for column in range(width):
            marks = cells.get((row, column))
            if not marks:
                text.append("·" if row % 3 == 0 and column % 10 == 0 else " ", "umpire.dim")
            elif len(marks) > 1:
                text.append("*", style="bold")
            else:
                (mark,) = marks
                text.append(mark, style=colour.get(mark, ""))
        text.append("\n")
    text.append(f"{round(scale * (width - 1))} MU across", style="umpire.dim")
    return text


_SIDE_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


_FRAME_SECONDS = 2


def battle_replay_svg(report: BattleReport, size: int = 600) -> str:
    """Return the table turn by turn as one looping SVG animation (no script), every text
    escaped: each frame shows the ships, contacts, fighters and salvos at a turn's end."""
    frames = [("Start", report.start)] + [(f"Turn {t.turn}", t.table) for t in report.turns]
    counters = [c for _, table in frames for c in table]
    if not counters:
        return ""
    xs = [c.x for c in counters]
    ys = [c.y for c in counters]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 12.0)
    margin = 40
    scale = (size - 2 * margin) / span
    cx = (min(xs) + max(xs)) / 2
    cy = (min(ys) + max(ys)) / 2
    colour = {side: _SIDE_COLOURS[i % len(_SIDE_COLOURS)] for i, side in enumerate(report.sides)}

    def at(x: float, y: float) -> tuple[float, float]:
        return (round(size / 2 + (x - cx) * scale, 1), round(size / 2 - (y - cy) * scale, 1))

    n = len(frames)
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='replay' viewBox='0 0 {size} {size}' "
        f"width='{size}' height='{size}' role='img' aria-label='{esc(report.id)} replay'>",
        f"<rect width='{size}' height='{size}' fill='#0b1020'/>",
    ]
    for index, (name, table) in enumerate(frames):
        parts.append(f"<g class='frame' data-frame='{index}'{_frame_timing(index, n)}>")
        parts.append(f"<text x='12' y='22' fill='#fff' font-size='16'>{esc(name)}</text>")
        for c in table:
            x, y = at(c.x, c.y)
            fill = colour.get(c.side, "#ccc")
            label = esc(c.label)
            if c.kind == "ship" and c.status == "active":
                parts.append(f"<circle cx='{x}' cy='{y}' r='6' fill='{fill}'/>")
                # Its facing, a clock course (12 is north, 000 movement).
                angle = math.radians(c.course * 30)
                tip = (round(x + 14 * math.sin(angle), 1), round(y - 14 * math.cos(angle), 1))
                parts.append(
                    f"<line x1='{x}' y1='{y}' x2='{tip[0]}' y2='{tip[1]}' stroke='{fill}'/>"
                )
                label += f" {esc(c.hull)}" if c.hull else ""
            elif c.kind == "ship":
                parts.append(f"<text x='{x}' y='{y}' fill='{fill}' font-size='12'>×</text>")
                label += f" ({esc(c.status)})"
            elif c.kind == "contact":
                parts.append(f"<text x='{x}' y='{y}' fill='{fill}' font-size='14'>?</text>")
            elif c.kind == "fighters":
                parts.append(
                    f"<polygon points='{x},{y - 5} {x - 4},{y + 4} {x + 4},{y + 4}' fill='{fill}'/>"
                )
            else:
                parts.append(f"<rect x='{x - 3}' y='{y - 3}' width='6' height='6' fill='{fill}'/>")
            parts.append(
                f"<text x='{x + 8}' y='{y + 4}' fill='{fill}' font-size='11'>{label}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _frame_timing(index: int, frames: int) -> str:
    """Show frame `index` of `frames` in its slot of a looping cycle (SVG animation)."""
    if frames == 1:
        return ""
    total = frames * _FRAME_SECONDS
    start = index / frames
    end = (index + 1) / frames
    if index == 0:
        values, times = "1;0", f"0;{end:.4f}"
    elif index == frames - 1:
        values, times = "0;1", f"0;{start:.4f}"
    else:
        values, times = "0;1;0", f"0;{start:.4f};{end:.4f}"
    return (
        f" opacity='{1 if index == 0 else 0}'><animate attributeName='opacity' "
        f"values='{values}' keyTimes='{times}' calcMode='discrete' dur='{total}s' "
        "repeatCount='indefinite'/"
    )


def battle_replay_html(report: BattleReport) -> str:
    """Return a self-contained HTML page of a battle: the report, the animated table, and
    every turn told (all text escaped; no script)."""
    title, text = battle_heading(report)
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{HTML_STYLE}svg.replay{{max-width:100%;height:auto}}</style></head><body>",
        f"<h1>{esc(title)}</h1><p>{esc(text)}</p>",
        "<h2>Forces at the start</h2>",
        html_table(FORCE_START_COLUMNS, force_start_rows(report)),
        "<h2>What became of them</h2>",
        html_table(FATE_COLUMNS, fate_rows(report)),
    ]
    svg = battle_replay_svg(report)
    if svg:
        parts += ["<h2>The table, turn by turn</h2>", svg]
    for played in report.turns:
        lines = "".join(f"<li>{esc(line.strip())}</li>" for line in played.lines)
        parts.append(f"<h3>Turn {played.turn}</h3><ul>{lines}</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)
