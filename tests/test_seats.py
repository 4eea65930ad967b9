"""Absent players and substitutes (issue 18): a policy changed mid-campaign per player, seats
dropped after missed turns, holiday turns within the campaign's allowance, substitutes with a
new secret; missed turns counted and shown; addresses and policies in no other player's view."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.absence import set_absence_policy, substitute_seat, take_holiday
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import AbsentPlayer, PlayerDropped, SeatSubstituted
from campaign.host import Host, HostSettings, awaited, set_schedule
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
    Host(service, HostSettings(), log=lambda _: None).run_once()  # the umpire is told, once
    told = [n for n in Outbox(service.store).all("trio") if n.recipient == "umpire"]
    assert [n.subject for n in told] == ["trio: blue's seat is open"]
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


def test_the_umpire_runs_the_host_from_the_command_line(tmp_path: Path) -> None:
    """The CLI of issue 18: schedule, contacts, seats; bad input named, exit 2."""
    from typer.testing import CliRunner

    from cli import app

    map_file = tmp_path / "trio.toml"
    map_file.write_text(TRIO_MAP)
    base = ["--db", str(tmp_path / "cli.db")]
    runner = CliRunner()

    def umpire(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, *base])
        assert result.exit_code == code, result.output
        return " ".join(result.output.split())

    umpire("new", "trio", "--players", "red,blue,green", "--map", str(map_file))
    umpire("schedule", "set", "mon,thu 20:00", "--tz", "Europe/Berlin", "--holidays", "1")
    shown = umpire("schedule", "show")
    assert "mon,thu 20:00 (Europe/Berlin)" in shown
    assert "1 holiday turns each" in shown
    assert "is not understood" in umpire("schedule", "set", "someday", code=2)
    assert "not a duration" in umpire("schedule", "set", "every 1d", "--grace", "soon", code=2)
    assert "reached by e-mail" in umpire("player", "contact", "red", "--email", "r@x.org")
    assert "is not one" in umpire("player", "contact", "red", "--email", "nope", code=2)
    assert "not an http(s) URL" in umpire(
        "player", "contact", "red", "--webhook", "ftp://x", code=2
    )
    umpire("player", "policy", "green", "autoplay", "--drop-after", "3")
    umpire("player", "holiday", "red")
    assert "used 1 of the 1" in umpire("player", "holiday", "red", code=2)
    assert umpire("player", "substitute", "blue", "--to", "Jane Doe")  # the secret, once
    assert "on holiday red" in umpire("turn", "status")


def test_the_seats_events_are_told_in_words() -> None:
    from campaign.events import AbsencePolicySet, HolidayTaken, PlayerDropped, SeatSubstituted
    from campaign.render import describe

    assert describe(AbsencePolicySet(player="g", policy="autoplay", drop_after=3)) == (
        "g's absence policy: autoplay, his seat open after 3 missed"
    )
    assert describe(HolidayTaken(player="r", first_turn=5, turns=2)) == (
        "r is on holiday for turns 5-6"
    )
    assert describe(PlayerDropped(player="g", turn=7, missed=3)) == (
        "g missed 3 turns in a row: his seat is open"
    )
    assert describe(SeatSubstituted(player="g", substitute="Jane", turn=8)) == (
        "Jane takes g's seat from turn 8"
    )
