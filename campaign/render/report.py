"""A player's report drawn: the terminal view, Markdown, HTML and the player's package."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape as esc

import msgspec
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from campaign.events import (
    BattleFought,
)
from campaign.render.common import HTML_STYLE, html_table, md_cell, md_table, pairs_table
from campaign.schedule import due_words
from campaign.service import PlayerReport
from campaign.strategic import Colony, Sighting, Unit

SIGHTING_COLUMNS = [
    "where",
    "turn",
    "owner",
    "escorts",
    "cruisers",
    "capitals",
    "scouts",
    "transports",
]


def sighting_rows(sightings: Sequence[Sighting]) -> list[list[str]]:
    """The enemy ships a player last saw, a row per hex and owner."""
    return [
        [
            f"{s.system} ({s.hex})" if s.system else s.hex,
            str(s.turn),
            c.owner,
            *(str(n) for n in (c.escorts, c.cruisers, c.capitals, c.scouts, c.transports)),
        ]
        for s in sightings
        for c in s.ships
    ]


UNIT_COLUMNS = ["unit", "what", "hex", "order", "captain"]


FORCE_COLUMNS = ["where", "unit", "what", "order", "captain"]


WAITING = "Waiting to enter at your entry"


NO_NEWS = "Nothing happened that you know of."


def forces_by_place(report: PlayerReport) -> list[tuple[str, list[Unit]]]:
    """Return a report's units grouped by hex, by place name; those not entered yet last."""
    groups: dict[str | None, list[Unit]] = {}
    for unit in report.units:
        groups.setdefault(unit.hex, []).append(unit)
    placed = sorted(h for h in groups if h is not None)
    ordered = [(report.places.get(h, h), groups[h]) for h in placed]
    return ordered + ([(WAITING, groups[None])] if None in groups else [])


def force_row(unit: Unit, turn: int) -> list[str]:
    """Return a unit's cells in a report's forces-by-place table (the place aside); the order
    of a unit whose plotted move binds it this turn (004 section 6) says so and until when."""
    cells = unit_row(unit)
    order = cells[3]
    if unit.plotted(turn) and unit.plot_until is not None:
        until = "this turn" if unit.plot_until == turn else f"through turn {unit.plot_until}"
        path = f" to {', '.join(unit.plot)}" if unit.plot else ""
        order += f" (plotted{path}: bound {until}, no new orders)"
    return [cells[0], cells[1], order, cells[4]]


def missed_text(report: PlayerReport) -> str:
    """Return the line counting the turns he sent no orders for (issue 18)."""
    return f"Turns you sent no orders for: {report.missed_turns}."


def deadline_text(report: PlayerReport) -> str:
    """Return the line that says when the next orders are due ("" in a finished campaign)."""
    if report.finished:
        return ""
    if report.deadline is None:
        return f"Orders for turn {report.turn}: no deadline set."
    return f"Orders for turn {report.turn} are due by {due_words(report.deadline)}."


SIGHTINGS_TITLE = "Enemy ships seen (last sighting)"


COLONY_COLUMNS = ["planet", "hex", "type", "population", "factories"]


def unit_row(unit: Unit) -> list[str]:
    """Return a unit's cells in a report's forces table."""
    what = (
        f"{unit.design} ({unit.hull_class}, {unit.points} pts)"
        if unit.design
        else f"{unit.count} {unit.kind}"
    )
    if unit.hold:
        what += f", {unit.stores}/{unit.hold} fighters in its hold"
    if unit.decoys:
        what += ", a decoy drone aboard"
    captain = f"level {unit.captain}" if unit.captain else ""
    return [unit.id, what, unit.hex or "entering", unit.order, captain]


def colony_row(colony: Colony) -> list[str]:
    """Return a colony's cells in a report's colonies table."""
    kind = colony.planet_type + (" (mineral-rich)" if colony.mineral_rich else "")
    population = f"{colony.population}M of {colony.capacity}M"
    return [colony.id, colony.hex, kind, population, str(colony.factories)]


def empire_facts(report: PlayerReport) -> list[tuple[str, str]]:
    """Return the lines of a report's empire summary (none without an empire)."""
    empire = report.empire
    if empire is None:
        return []
    entry = empire.entry + (f" ({report.entry_hex})" if report.entry_hex else "")
    ip = str(empire.ip)
    lost = report.starting_ip_lost_after
    if lost is not None:
        when = "this turn's" if lost == report.turn else f"turn {lost}'s"
        ip += f" (lost at {when} production unless spent: [treasury] in your orders)"
    return [
        ("entry", entry),
        ("FTL speed", f"{empire.speed} hexes per turn"),
        ("starting IP left", ip),
        ("technology", ", ".join(empire.techs) or "none yet"),
        ("explored", ", ".join(empire.explored) or "nothing yet"),
    ]


CHANGES_TITLE = "Since the turn before"


def changes_html(changes: Sequence[str]) -> str:
    """Return the report's "since the turn before" section as HTML (empty if nothing changed)."""
    if not changes:
        return ""
    items = "".join(f"<li>{esc(change)}</li>" for change in changes)
    return f"<h2>{esc(CHANGES_TITLE)}</h2><ul>{items}</ul>"


def report_view(report: PlayerReport) -> RenderableType:
    """Return a player's turn package."""
    parts: list[RenderableType] = []
    if report.empire is not None:
        title = report.title
        parts.append(pairs_table(title, list(empire_facts(report))))
    deadline = deadline_text(report)
    if deadline:
        parts.append(Text(deadline, style="umpire.heading"))
    if report.missed_turns:
        parts.append(Text(missed_text(report)))
    units = Table(title="Forces, by place", title_justify="left")
    for column in FORCE_COLUMNS:
        units.add_column(column)
    for where, group in forces_by_place(report):
        for index, unit in enumerate(group):
            cells = [where if index == 0 else "", *force_row(unit, report.turn)]
            units.add_row(*(Text(cell) for cell in cells), end_section=index == len(group) - 1)
    parts.append(units)
    if report.colonies:
        colonies = Table(title="Colonies", title_justify="left")
        for column in COLONY_COLUMNS:
            colonies.add_column(column)
        for colony in report.colonies:
            colonies.add_row(*colony_row(colony))
        parts.append(colonies)
    if report.sightings:
        seen = Table(title=SIGHTINGS_TITLE, title_justify="left")
        for column in SIGHTING_COLUMNS:
            seen.add_column(column)
        for row in sighting_rows(report.sightings):
            seen.add_row(*(Text(cell) for cell in row))
        parts.append(seen)
    if report.changes:
        changed = Table(title=CHANGES_TITLE, title_justify="left", show_header=False)
        changed.add_column("change")
        for change in report.changes:
            changed.add_row(Text(change))
        parts.append(changed)
    parts.append(Text(f"News of turn {report.news_turn}", style="umpire.heading"))
    if not report.stories:
        parts.append(Text(NO_NEWS, style="umpire.dim"))
    for section in report.stories:
        parts.append(Text(section.title, style="umpire.key"))
        for place in section.places:
            indent = 2
            if place.where:
                parts.append(Padding(Text(place.where), (0, 0, 0, 2)))
                indent = 4
            for sentence in place.sentences:
                parts.append(Padding(Text(sentence), (0, 0, 0, indent)))
    return Group(*parts)


def report_markdown(report: PlayerReport) -> str:
    """Return a player's turn package as Markdown (for mail or a shared folder)."""
    lines = [f"# {report.title}", ""]
    if deadline_text(report):
        lines += [f"**{deadline_text(report)}**", ""]
    if report.missed_turns:
        lines += [missed_text(report), ""]
    if report.empire is not None:
        lines += [f"- {key}: {md_cell(value)}" for key, value in empire_facts(report)] + [""]
    lines += ["## Forces, by place"]
    for where, group in forces_by_place(report):
        rows = [force_row(u, report.turn) for u in group]
        lines += ["", f"### {md_cell(where)}", "", *md_table(FORCE_COLUMNS[1:], rows)]
    if report.colonies:
        rows = [colony_row(c) for c in report.colonies]
        lines += ["", "## Colonies", "", *md_table(COLONY_COLUMNS, rows)]
    if report.sightings:
        rows = sighting_rows(report.sightings)
        lines += ["", f"## {SIGHTINGS_TITLE}", "", *md_table(SIGHTING_COLUMNS, rows)]
    if report.changes:
        lines += ["", f"## {CHANGES_TITLE}", "", *(f"- {md_cell(c)}" for c in report.changes)]
    pages = battle_pages(report)
    if pages:
        lines += ["", "## Battle reports", ""]
        lines += [f"- [Battle {b}](battle-{b}.html)" for b in pages]
    lines += ["", f"## News of turn {report.news_turn}"]
    if not report.stories:
        lines += ["", NO_NEWS]
    for section in report.stories:
        lines += ["", f"### {section.title}", ""]
        for place in section.places:
            said = " ".join(md_cell(sentence) for sentence in place.sentences)
            lines.append(f"- **{md_cell(place.where)}**: {said}" if place.where else f"- {said}")
    return "\n".join(lines) + "\n"


def player_package(report: PlayerReport, map_svg: str) -> dict[str, str]:
    """Return a player's turn package as files: the report (Markdown, HTML with the map in
    it, JSON) and his map (`CampaignService.map_svg`)."""
    return {
        "report.md": report_markdown(report),
        "report.html": report_html(report, map_svg),
        "report.json": msgspec.json.format(msgspec.json.encode(report)).decode() + "\n",
        "map.svg": map_svg,
    }


def battle_pages(report: PlayerReport) -> list[str]:
    """The battles of the news turn the player fought: each has a page in his package
    (`battle-ID.html`, written by `umpire publish`)."""
    return [
        e.event.battle.id
        for e in report.news
        if isinstance(e.event, BattleFought)
        and report.player in {s.player for s in e.event.battle.sides}
    ]


def inline_svg(svg: str) -> str:
    """Return an SVG document without its XML declaration, to embed in an HTML page."""
    return svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg


def report_html(report: PlayerReport, map_svg: str = "") -> str:
    """Return a player's turn package as a self-contained HTML page (all text escaped), with
    links to the pages of his battles beside it; his map (SVG, built from escaped text) is
    embedded after his empire's facts."""
    title = esc(f"{report.campaign}: {report.player}, turn {report.turn}")
    links = "".join(
        f"<li><a href='battle-{esc(b)}.html'>Battle {esc(b)}</a>: the forces, the losses ship by "
        "ship and the table turn by turn</li>"
        for b in battle_pages(report)
    )
    battles = f"<h2>Battle reports</h2><ul>{links}</ul>" if links else ""
    map_html = f"<h2>Your map</h2><div class='map'>{inline_svg(map_svg)}</div>" if map_svg else ""
    body = report_body_html(report, map_html=map_html)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{HTML_STYLE}</style></head><body>{body}{battles}</body></html>\n"
    )


def report_body_html(report: PlayerReport, map_html: str = "", no_news: str = "") -> str:
    """Return a report's HTML body (all text escaped): the published page and the web page's.

    `map_html` goes after the empire's facts; `no_news` stands in an empty news list.
    """
    parts = [f"<h1>{esc(report.title, quote=False)}</h1>"]
    if deadline_text(report):
        parts.append(f"<p class='deadline'><strong>{esc(deadline_text(report))}</strong></p>")
    if report.missed_turns:
        parts.append(f"<p>{esc(missed_text(report))}</p>")
    if report.empire is not None:
        facts = "".join(f"<li>{esc(k)}: {esc(v)}</li>" for k, v in empire_facts(report))
        parts.append(f"<ul>{facts}</ul>")
    parts += [map_html, "<h2>Forces, by place</h2>"]
    for where, group in forces_by_place(report):
        parts.append(f"<h3>{esc(where)}</h3>")
        parts.append(html_table(FORCE_COLUMNS[1:], [force_row(u, report.turn) for u in group]))
    if report.colonies:
        rows = [colony_row(c) for c in report.colonies]
        parts += ["<h2>Colonies</h2>", html_table(COLONY_COLUMNS, rows)]
    if report.sightings:
        rows = sighting_rows(report.sightings)
        parts += [f"<h2>{SIGHTINGS_TITLE}</h2>", html_table(SIGHTING_COLUMNS, rows)]
    parts.append(changes_html(report.changes))
    parts.append(f"<h2>News of turn {report.news_turn}</h2>")
    if not report.stories:
        parts.append(f"<ul>{no_news}</ul>" if no_news else f"<p>{esc(NO_NEWS)}</p>")
    for section in report.stories:
        parts.append(f"<h3 class='news-{esc(section.kind)}'>{esc(section.title)}</h3><ul>")
        for place in section.places:
            said = " ".join(esc(sentence) for sentence in place.sentences)
            where = f"<strong>{esc(place.where)}</strong>: " if place.where else ""
            parts.append(f"<li>{where}{said}</li>")
        parts.append("</ul>")
    return "".join(parts)
