"""Absent players and substitutes (issue 18): a policy changed mid-campaign per player, seats
dropped after missed turns, holiday turns within the campaign's allowance, substitutes with a
new secret; missed turns counted and shown; addresses and policies in no other player's view."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.absence import set_absence_policy, substitute_seat, take_holiday
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import AbsentPlayer, PlayerDropped, SeatSubstituted
from campaign.host import awaited, set_schedule
from campaign.outbox import Outbox
from campaign.players import PlayerSecrets
from campaign.render import report_markdown
from campaign.schedule import parse_schedule
from campaign.seats import ON_HOLIDAY, SEAT_OPEN
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from tests.host_harness import TRIO_MAP

PLAYERS = ("red", "blue", "green")


@pytest.fixture
def trio(tmp_path: Path) -> tuple[CampaignService, Lineage]:
    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    service = CampaignService.open("sqlite://", create=True)
    service.new_campaign(plan_campaign("trio", PLAYERS, seed="seats", map_spec=str(map_file)))
    lineage = service.target("trio")
    set_schedule(service, lineage, parse_schedule("every 1d", holidays=1))
    return service, lineage


def play_turn(service: CampaignService, lineage: Lineage, *present: str) -> list[AbsentPlayer]:
    """Resolve the turn with orders from `present` only; return the absences decided."""
    turn = service.load(lineage).turn
    for player in present:
        service.submit_orders(lineage, player, service.orders_template(lineage, player))
    recorded = service.resolve_turn(lineage, expected_turn=turn)
    return [e.event for e in recorded if isinstance(e.event, AbsentPlayer)]


def decisions(absences: list[AbsentPlayer]) -> dict[str, str]:
    return {a.player: a.decision for a in absences}


def test_a_players_policy_changes_mid_campaign(trio: tuple[CampaignService, Lineage]) -> None:
    service, lineage = trio
    assert decisions(play_turn(service, lineage, "red")) == {
        "blue": "held position",
        "green": "held position",
    }
    set_absence_policy(service, lineage, "green", "autoplay")
    assert decisions(play_turn(service, lineage, "red")) == {
        "blue": "held position",
        "green": "played by autoplay from his own view",
    }
    # Green's policy is his and the umpire's business: red's view holds no trace of it.
    assert "absence_policy_set" not in {e.type for e in service.log(lineage, viewer="red")}
    assert "absence_policy_set" in {e.type for e in service.log(lineage, viewer="green")}


def test_a_seat_is_dropped_after_its_missed_turns_and_a_substitute_takes_it(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    secrets = PlayerSecrets(service.store)
    old_secret = secrets.issue("trio", "blue")
    set_absence_policy(service, lineage, "blue", "hold", drop_after=2)
    play_turn(service, lineage, "red", "green")
    play_turn(service, lineage, "red", "green")
    log = service.log(lineage)
    (dropped,) = [e.event for e in log if isinstance(e.event, PlayerDropped)]
    assert (dropped.player, dropped.missed) == ("blue", 2)
    status = service.turn_status(lineage)
    assert status.missed == {"blue": 2}
    assert status.open_seats == ("blue",)
    state = service.load(lineage)
    assert awaited(state) == ("red", "green")  # the host does not wait for an open seat
    assert decisions(play_turn(service, lineage, "red", "green")) == {"blue": SEAT_OPEN}
    # The substitute: a new secret, the old one revoked, everyone told, the history kept.
    _, new_secret = substitute_seat(service, lineage, "blue", "Jane Doe", email="jane@x.org")
    assert secrets.verify("trio", "blue", new_secret)
    assert not secrets.verify("trio", "blue", old_secret)
    for viewer in PLAYERS:
        seen = [e.event for e in service.log(lineage, viewer=viewer)]
        assert any(isinstance(ev, SeatSubstituted) and ev.substitute == "Jane Doe" for ev in seen)
    assert service.turn_status(lineage).open_seats == ()
    assert service.turn_status(lineage).missed == {"blue": 3}  # counted, and kept
    assert "Turns you sent no orders for: 3." in report_markdown(service.report(lineage, "blue"))
    # His address is in no event anyone may read.
    assert Outbox(service.store).contacts("trio")["blue"].email == "jane@x.org"
    for viewer in ("umpire", *PLAYERS):
        assert "jane@x.org" not in str(service.log(lineage, viewer=viewer))


def test_holiday_turns_are_held_not_missed_and_limited(
    trio: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = trio
    take_holiday(service, lineage, "red", 1)
    assert awaited(service.load(lineage)) == ("blue", "green")
    assert service.turn_status(lineage).on_holiday == ("red",)
    assert decisions(play_turn(service, lineage, "blue", "green")) == {"red": ON_HOLIDAY}
    assert service.turn_status(lineage).missed == {}
    with pytest.raises(IllegalCommandError, match="used 1 of the 1 holiday turns"):
        take_holiday(service, lineage, "red", 1)


def test_bad_seat_commands_are_refused(trio: tuple[CampaignService, Lineage]) -> None:
    service, lineage = trio
    with pytest.raises(InvalidInputError, match="must be one of hold, repeat, autoplay"):
        set_absence_policy(service, lineage, "red", "vanish")
    with pytest.raises(InvalidInputError, match="not a player of 'trio'"):
        set_absence_policy(service, lineage, "mauve", "hold")
    with pytest.raises(InvalidInputError, match="name the substitute"):
        substitute_seat(service, lineage, "red", "  ")
