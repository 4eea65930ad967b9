"""A player's report says where his entry is and when his starting IP are lost (a trial read
"entry: 1" without its hex, and "starting IP left: 25" on the turn they were lost unspent)."""

from __future__ import annotations

from pathlib import Path

from campaign import render
from campaign.rules.production import ProductionSettings
from campaign.service import CampaignService, plan_campaign
from campaign.strategic import Unit
from tests.conftest import FixedClock
from tests.test_battle_ids import PLAYERS, QUARTET_MAP


def facts_by_turn(tmp_path: Path, starting_ip: str) -> dict[int, dict[str, str]]:
    """Red's empire facts at each of turns 1-5, nobody giving orders."""
    map_file = tmp_path / "quartet.toml"
    map_file.write_text(QUARTET_MAP)
    service = CampaignService.open(f"sqlite:///{tmp_path}/q.db", clock=FixedClock(), create=True)
    production = ProductionSettings(starting_ip=starting_ip)  # type: ignore[arg-type]
    plan = plan_campaign("q", PLAYERS, seed="c", map_spec=str(map_file), production=production)
    service.new_campaign(plan)
    lineage = service.target("q")
    facts = {}
    for turn in range(1, 6):
        facts[turn] = dict(render.empire_facts(service.report(lineage, "red")))
        service.resolve_turn(lineage, expected_turn=turn)
    service.close()
    return facts


def test_the_report_names_the_entry_hex_and_when_the_starting_ip_go(tmp_path: Path) -> None:
    facts = facts_by_turn(tmp_path, "expire")
    assert facts[1]["entry"] == "1 (0101)"  # the quartet's entry 1 is hex 0101
    assert facts[1]["starting IP left"] == (
        "25 (lost at turn 4's production unless spent: [treasury] in your orders)"
    )
    assert facts[4]["starting IP left"] == (
        "25 (lost at this turn's production unless spent: [treasury] in your orders)"
    )
    assert facts[5]["starting IP left"] == "0"  # lost at turn 4's production (004 L267)


def test_kept_starting_ip_carry_no_warning(tmp_path: Path) -> None:
    facts = facts_by_turn(tmp_path, "keep")
    assert facts[5]["starting IP left"] == "25"


def test_a_plotted_unit_says_it_is_bound_and_until_when() -> None:
    """004 section 6: a ship whose captain plotted its move ahead takes no new orders until
    the plot runs out; the report's forces table says so (a trial missed it)."""
    ship = Unit(id="red-W1", owner="red", kind="warship", hex="0201", plot=("0301",), plot_until=2)
    assert render.force_row(ship, 1)[2] == (
        "stand-off (plotted to 0301: bound through turn 2, no new orders)"
    )
    assert (
        render.force_row(ship, 2)[2]
        == "stand-off (plotted to 0301: bound this turn, no new orders)"
    )
    assert render.force_row(ship, 3)[2] == "stand-off"
