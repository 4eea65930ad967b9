"""Issue 5's done-when under FT2's battle rules (issue 15: "the 44-turn campaign test passes
under both battle rule choices"): the campaign of tests/test_campaign_done_when.py, its
battles fought by the engine under FT2.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_campaign_done_when import play_44_turns_on_classic


def test_four_players_play_44_turns_on_classic_under_ft2_battle_rules(tmp_path: Path) -> None:
    play_44_turns_on_classic(tmp_path, "ft2")
