"""The FT2 campaign played to its end by random legal orders and decisions (issue 20): every
random player's orders are accepted, no view leaks, `umpire verify` passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.ft2.autoplay import play
from campaign.service import CampaignService, plan_ft2_campaign


@pytest.mark.parametrize("seed", [1, 3, 6, 11])  # 3, 6 and 11 bring battles
def test_random_lafayette_campaigns_play_to_a_judged_end(tmp_path: Path, seed: int) -> None:
    service = CampaignService.open(f"sqlite:///{tmp_path / 'a.db'}", create=True)
    try:
        plan = plan_ft2_campaign("laf", ["esu", "nac"], "lafayette", 10, seed=f"auto-{seed}")
        service.new_ft2_campaign(plan)
        lineage = service.target("laf")
        played = play(service, lineage, seed)
        assert played.result in ("ESU", "NAC", "draw")
        assert played.turns == 7
        assert seed == 1 or played.engine + played.table >= 1
        report = service.verify(lineage)
        assert report.ok, report
    finally:
        service.close()


def test_orders_files_round_trip() -> None:
    """parse(dumps(orders)) == orders."""
    from campaign.ft2.model import (
        DecoyOrder,
        DockOrder,
        Ft2Orders,
        MergeOrder,
        MoveOrder,
        SplitOrder,
    )
    from campaign.ft2.service import dumps_orders, parse_orders

    orders = Ft2Orders(
        player="nac",
        turn=3,
        moves=(MoveOrder(fleet="nac-F1", to="0909"),),
        splits=(SplitOrder(fleet="nac-F1", ships=("nac-S1", "nac-S2"), drones=1, to="Hudson"),),
        merges=(MergeOrder(into="nac-F2", fleets=("nac-F3",)),),
        docks=(DockOrder(ship="nac-S4", systems=("drive", "beam_a-1")),),
        decoys=(DecoyOrder(fleet="nac-F1", drones=2),),
    )
    assert parse_orders(dumps_orders(orders), "nac", 3) == orders
