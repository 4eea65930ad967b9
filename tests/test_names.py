"""Issue 13 finding 6: whatever `map validate` accepts must play, whatever the stars are called.

A star's name reaches dice keys (exploration rolls), planet ids and every report. Keys escape
what they cannot hold, so `Proxima (b)`, `<`, `/` and `[` play; a control character is
refused when the map is read, with the field that holds it.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign.dice import DiceKey
from campaign.events import SystemExplored
from campaign.service import CampaignService, plan_campaign
from cli import app
from maps import MapError, loads_map
from tests.conftest import FixedClock
from tests.test_strategic import TINY_MAP, orders

runner = CliRunner()


def named(star: str) -> str:
    """The tiny map with its star Alpha (next to red's entry) called `star`."""
    return TINY_MAP.replace('name = "Alpha"', f"name = {json.dumps(star, ensure_ascii=False)}")


def refused(text: str) -> str | None:
    """Return why the map is refused, or None if it is accepted."""
    try:
        loads_map(text)
    except MapError as exc:
        return str(exc)
    return None


def play_a_turn(map_file: Path) -> list[SystemExplored]:
    """Create a campaign on the map, send red's scouts to the star, resolve; return what
    exploration recorded."""
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        service.new_campaign(plan_campaign("g", ["red", "blue"], seed="s", map_spec=str(map_file)))
        lineage = service.target("g")
        service.submit_orders(lineage, "red", orders("red", 1, ("red-S1", "0102", "stand-off")))
        recorded = service.resolve_turn(lineage)
        assert recorded[-1].type == "turn_ended"
        assert service.verify(lineage).ok
        return [r.event for r in recorded if isinstance(r.event, SystemExplored)]
    finally:
        service.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(star=st.text(min_size=1, max_size=24))
@example(star="Proxima (b)")
@example(star="<")
@example(star="/")
@example(star="[")
@example(star="Alpha%2F")
@example(star="Étoile du Nord")
@example(star="a\x1b]0;x\x07")
def test_every_star_name_the_map_accepts_plays(tmp_path: Path, star: str) -> None:
    text = named(star)
    refusal = refused(text)
    if refusal is not None:
        # At the name's field, or (a raw DEL, say) where TOML itself refuses the text.
        assert "systems[0].name" in refusal or "systems[1].name" in refusal or "TOML" in refusal
        assert not star.isprintable() or not star.strip() or star.casefold() == "beta"
        return
    path = tmp_path / "named.toml"
    path.write_text(text, encoding="utf-8")
    (explored,) = play_a_turn(path)
    assert explored.system == star
    for roll in explored.rolls:
        key = DiceKey.parse(roll.key)
        # Exploration always wrote spaces as _ and dropped apostrophes (its keys stay so).
        written = star.replace(" ", "_").replace("'", "")
        assert key.subject == f"red.{written}.red-S1"
        assert str(key) == roll.key


def test_map_validate_refuses_control_characters_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(named("Sol\x1b[2J"))
    result = runner.invoke(app, ["map", "validate", str(path)])
    assert result.exit_code == 2
    assert "systems[0].name" in result.output
    assert "control character" in result.output
    assert "\x1b" not in result.output
    assert result.output.count("\n") == 1


def test_a_star_called_proxima_b_plays_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "proxima.toml"
    path.write_text(named("Proxima (b)"))
    db = str(tmp_path / "p.db")
    assert runner.invoke(app, ["map", "validate", str(path)]).exit_code == 0
    new = ["new", "p", "--players", "red,blue", "--map", str(path), "--seed", "s", "--db", db]
    assert runner.invoke(app, new).exit_code == 0
    move = tmp_path / "red.toml"
    move.write_text(orders("red", 1, ("red-S1", "0102", "stand-off")))
    submit = runner.invoke(app, ["orders", "submit", str(move), "--player", "red", "--db", db])
    assert submit.exit_code == 0, submit.output
    resolved = runner.invoke(app, ["turn", "resolve", "--dice", "--db", db])
    assert resolved.exit_code == 0, resolved.output
    assert "red.Proxima_%28b%29.red-S1/0" in resolved.output
