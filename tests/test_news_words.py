"""A player's news and reports count in English: one turn, one hull box, one capital ship
(a trial read "injured for 1 turns", "1 hull boxes lost", "red: 1 capitals", "1 rounds
fired" and "the captain of green-W3 was dead")."""

from __future__ import annotations

import doctest

import msgspec

from campaign import news
from campaign.events import CaptainCasualty, OfficerCasualty
from campaign.news import counted, news_of
from campaign.render.events import describe, ship_count_text
from campaign.strategic import ShipCount


def told(*events: object) -> str:
    return msgspec.json.encode(news_of("red", events, {})).decode()  # type: ignore[arg-type]


def test_counted_says_one_in_the_singular() -> None:
    assert (counted(1, "turn"), counted(0, "turn"), counted(3, "turn")) == (
        "1 turn",
        "0 turns",
        "3 turns",
    )
    assert counted(1, "hull box", "hull boxes") == "1 hull box"
    assert doctest.testmod(news).failed == 0


def test_a_casualty_for_one_turn_and_a_captain_killed() -> None:
    injured = CaptainCasualty(unit="red-W2", result="injured", turns_out=1)
    killed = CaptainCasualty(unit="red-W3", result="dead", new_captain=2)
    admiral = OfficerCasualty(task_force="red-TF1", result="injured", turns_out=1)
    text = told(injured, killed, admiral)
    assert "The captain of red-W2 was injured for 1 turn." in text
    assert "The captain of red-W3 was killed; the new captain is level 2." in text
    assert "The admiral of red-TF1 was injured for 1 turn." in text
    assert "captain of red-W2: injured for 1 turn" in describe(injured)


def test_a_sighting_counts_one_ship_of_a_class() -> None:
    assert ship_count_text(ShipCount(owner="blue", capitals=1, escorts=2)) == (
        "blue: 2 escorts, 0 cruisers, 1 capital, 0 scouts, 0 transports"
    )
