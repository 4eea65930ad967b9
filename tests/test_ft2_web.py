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
