"""The players' web page in an FT2 campaign (issue 20): his report and his orders as text,
and nothing of the other side's fleets."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from campaign.players import PlayerSecrets
from campaign.service import CampaignService, plan_ft2_campaign
from campaign.web import create_app
from tests.test_web import sign_in, with_token


def test_an_ft2_player_reads_his_report_and_sends_orders(tmp_path: Path) -> None:
    service = CampaignService.open(f"sqlite:///{tmp_path / 'w.db'}", create=True)
    try:
        service.new_ft2_campaign(plan_ft2_campaign("laf", ["esu", "nac"], "lafayette", 10, "w"))
        lineage = service.target("laf")
        secret = PlayerSecrets(service.store).issue("laf", "esu")
        with TestClient(create_app(service, secret_key="k", https_only=False)) as client:
            sign_in(client, "laf", "esu", secret)
            report = client.get("/report")
            assert report.status_code == 200
            assert "esu-F1" in report.text
            assert "nac-" not in report.text  # his rival's fleets are not his to see
            svg = client.get("/map.svg")
            assert 'data-key="esu-F1"' in svg.text  # his counter on his map
            assert "nac-" not in svg.text
            form = client.get("/orders")
            shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", form.text, re.DOTALL)
            assert shown is not None
            text = html.unescape(shown.group(1)).replace('to = "0109"', 'to = "0509"')
            sent = client.post("/orders", data=with_token(client, {"orders": text}))
            assert sent.status_code == 200, sent.text
            assert "Orders recorded" in sent.text
        state = service.load(lineage)
        assert state.ft2 is not None
        assert state.ft2.orders["esu"].moves[0].to == "0509"
        service.mark_final(lineage, "esu")  # "ready", as in the 004 campaign
        assert service.turn_status(lineage).final == ("esu",)
    finally:
        service.close()


def test_signed_replays_are_refused_and_rulings_noted(tmp_path: Path) -> None:
    """As in the 004 campaign: a signed file not newer than one accepted is refused (issue
    13); the umpire's replacement of a player's orders tells him why (issue 6)."""
    import pytest

    from campaign.errors import IllegalCommandError
    from campaign.events import UmpireNoted

    service = CampaignService.open(f"sqlite:///{tmp_path / 's.db'}", create=True)
    try:
        service.new_ft2_campaign(plan_ft2_campaign("laf", ["esu", "nac"], "lafayette", 10, "s"))
        lineage = service.target("laf")
        text = service.orders_template(lineage, "esu")
        service.submit_orders(lineage, "esu", text, sequence=2)
        with pytest.raises(IllegalCommandError, match="not newer than esu's orders number 2"):
            service.submit_orders(lineage, "esu", text, sequence=2)
        recorded = service.replace_orders(lineage, "esu", text, "his file was garbled")
        assert all(r.actor == "umpire" for r in recorded)
        (note,) = [r for r in recorded if isinstance(r.event, UmpireNoted)]
        assert note.audience.players == ("esu",)
    finally:
        service.close()
