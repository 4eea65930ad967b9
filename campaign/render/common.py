"""What every campaign renderer shares: the theme (colours come from it, never inline) and
small table helpers for rich, Markdown and HTML."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape as esc

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

THEME = Theme(
    {
        "umpire.heading": "bold",
        "umpire.key": "cyan",
        "umpire.ok": "bold green",
        "umpire.bad": "bold red",
        "umpire.dim": "dim",
        "umpire.audience.public": "green",
        "umpire.audience.private": "yellow",
        "umpire.active": "bold",
        "umpire.error": "bold red",
    }
)


def pairs_table(title: str, rows: Sequence[tuple[str, str | Text]]) -> Table:
    """Return a titled two-column table of keys and their plain-text values."""
    table = Table(
        title=escape(title), title_justify="left", show_header=False, box=None, padding=(0, 2)
    )
    table.add_column(style="umpire.key")
    table.add_column()
    for key, value in rows:
        # Values are plain text (a player's `[treasury]`, a name with brackets), never markup.
        table.add_row(Text(key), Text(value) if isinstance(value, str) else value)
    return table


# The style of every HTML page the campaign writes (report, battle replay).
HTML_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:auto;padding:0 1em;line-height:1.4}"
    "table{border-collapse:collapse;margin-bottom:.5em}"
    "td,th{padding:.1em .6em;text-align:left;border-bottom:1px solid #ddd}"
    ".map svg{max-width:100%;height:auto}"
    "th{background:#f2f2f2}h3{margin-bottom:.2em}.deadline{color:#a00}"
    "@media print{body{max-width:none;font-size:10pt}h2{break-after:avoid}"
    "table,li{break-inside:avoid}}"
)


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """Return a Markdown table's lines, every cell escaped (`md_cell`)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(md_cell(cell) for cell in row) + " |" for row in rows]


def html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return an HTML table, every cell escaped."""
    cells = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def md_cell(text: str) -> str:
    """Escape the characters that would break a Markdown table cell."""
    return text.replace("|", "\\|")
