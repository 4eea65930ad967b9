"""Monte Carlo odds (`tactical.odds`, `umpire battle odds`): stable, consistent figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli import app
from tactical.battle import BattleSetup, SetupError, ShipSetup
from tactical.campaign_battle import CampaignBattle
from tactical.dice import DiceSource, SeededDice
from tactical.odds import Fought, TableBattle, decode_battle, odds, wilson
from tactical.scenarios import SCENARIOS

runner = CliRunner()


def scripted(results: list[Fought]) -> tuple[list[str], object]:
    """A fight that hands back ``results`` in turn and records the dice keys it was given."""
    seeds: list[str] = []
    queue = iter(results)

    def fight(dice: DiceSource) -> Fought:
        seeds.append(str(dice.roll("probe", 6)))
        return next(queue)

    return seeds, fight


def test_rates_means_and_spreads_are_counted_right() -> None:
    results = [
        Fought("red", {"red": 0, "blue": 2}, {"red": 0, "blue": 100}, 5),
        Fought("blue", {"red": 1, "blue": 0}, {"red": 40, "blue": 0}, 7),
        Fought(None, {"red": 1, "blue": 1}, {"red": 40, "blue": 50}, 20),
        Fought("red", {"red": 0, "blue": 1}, {"red": 0, "blue": 50}, 4),
    ]
    _, fight = scripted(results)
    figures = odds(fight, ("red", "blue"), runs=4, seed=3)  # type: ignore[arg-type]
    red, blue = figures.sides
    assert (red.wins, blue.wins, figures.draws) == (0.5, 0.25, 0.25)
    assert (red.ships_lost, blue.ships_lost) == (0.5, 1.0)
    assert red.ships_lost_sd == 0.5  # population sd of 0, 1, 1, 0
    assert blue.points_lost == 50.0
    assert blue.points_lost_sd == pytest.approx(math.sqrt(1250))  # 100, 0, 50, 50
    assert figures.turns == 9.0


def test_runs_must_be_positive() -> None:
    _, fight = scripted([])
    with pytest.raises(ValueError, match="at least 1"):
        odds(fight, ("red", "blue"), runs=0)  # type: ignore[arg-type]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), runs=st.integers(1, 3))
def test_same_seed_same_figures_and_the_shares_add_up(seed: int, runs: int) -> None:
    setup = SCENARIOS["grendel"]()
    commanders = {"nac": "engage", "esu": "closing"}
    first = odds(TableBattle(setup, commanders), setup.sides, runs, seed)
    assert first == odds(TableBattle(setup, commanders), setup.sides, runs, seed)
    assert math.isclose(sum(side.wins for side in first.sides) + first.draws, 1.0)
    for side in first.sides:
        assert 0 <= side.ships_lost <= 5
        assert min(side.ships_lost_sd, side.points_lost, side.points_lost_sd) >= 0


def test_each_run_rolls_its_own_dice() -> None:
    setup = SCENARIOS["grendel"]()
    closing = dict.fromkeys(setup.sides, "closing")
    one = odds(TableBattle(setup, closing), setup.sides, runs=1, seed=5)
    ten = odds(TableBattle(setup, closing), setup.sides, runs=10, seed=5)
    assert ten.turns > 0
    assert one != ten


def test_worker_processes_give_the_same_figures(tmp_path: Path) -> None:
    setup = SCENARIOS["grendel"]()
    fight = TableBattle(setup, {"nac": "engage", "esu": "stand-off"})
    alone = odds(fight, setup.sides, runs=9, seed=4)
    ticks: list[int] = []
    assert odds(fight, setup.sides, 9, 4, lambda: ticks.append(1), jobs=2) == alone
    assert len(ticks) == 9
    from tests.tactical.test_cli_campaign import write

    request = ["battle", "odds", write(tmp_path), "--runs", "4", "--json"]
    one = runner.invoke(app, request)
    two = runner.invoke(app, [*request, "--jobs", "2"])
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout


def test_stand_off_keeps_its_ships() -> None:
    """Stand Off keeps the range (004 L109-110): against the closing commander it loses far
    fewer points than in the closing mirror match (measured over 150 runs: about 40 against
    370), though it wins less often."""
    setup = SCENARIOS["grendel"]()
    mirror = odds(TableBattle(setup, dict.fromkeys(setup.sides, "closing")), setup.sides, 30)
    wary = odds(TableBattle(setup, {"nac": "stand-off", "esu": "closing"}), setup.sides, 30)
    assert wary.sides[0].points_lost < mirror.sides[0].points_lost / 3
    assert wary.sides[0].wins < mirror.sides[0].wins


def test_table_battle_checks_its_commanders() -> None:
    setup = SCENARIOS["grendel"]()
    with pytest.raises(ValueError, match="no commander for esu"):
        TableBattle(setup, {"nac": "engage"})
    with pytest.raises(ValueError, match="no commander 'timid'"):
        TableBattle(setup, {"nac": "engage", "esu": "timid"})
    broken = BattleSetup(
        sides=("a", "b"),
        ships=(ShipSetup(id="x", side="a", design="nonesuch", x=0, y=0, course=12),),
    )
    with pytest.raises(SetupError):
        TableBattle(broken, {"a": "closing", "b": "closing"})


def test_decode_battle_tells_a_setup_from_a_request() -> None:
    setup = decode_battle(
        'sides = ["red", "blue"]\n[[ships]]\nid = "r"\nside = "red"\ndesign = "frigate"\n'
        "x = 0.0\ny = 0.0\ncourse = 12\n"
    )
    assert isinstance(setup, BattleSetup)
    request = decode_battle(
        '[[sides]]\nname = "red"\norder = "engage"\nships = [{id = "r", design = "frigate"}]\n'
        '[[sides]]\nname = "blue"\norder = "engage"\nships = [{id = "b", design = "frigate"}]\n'
    )
    assert isinstance(request, CampaignBattle)
    with pytest.raises(SetupError, match="TOML"):
        decode_battle("sides = [")


def test_cli_odds_of_a_scenario_with_a_commander_per_side(tmp_path: Path) -> None:
    args = ["battle", "odds", "grendel", "--runs", "6", "--seed", "2", "--json"]
    result = runner.invoke(app, [*args, "--commander", "nac=engage"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["runs"], data["seed"]) == (6, 2)
    assert {
        "side",
        "wins",
        "wins_low",
        "wins_high",
        "ships_lost",
        "ships_lost_sd",
        "points_lost",
        "points_lost_sd",
    } == set(data["sides"][0])
    bad = runner.invoke(app, ["battle", "odds", str(tmp_path / "none.toml")])
    assert bad.exit_code == 2
    assert "cannot read" in bad.stderr


def test_cli_odds_table_is_golden() -> None:
    from tests.tactical.test_cli_battle import check_golden

    result = runner.invoke(
        app, ["battle", "odds", "grendel", "--runs", "20", "--seed", "1"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    check_golden("odds_grendel_20.txt", result.stdout)


def test_each_win_share_has_its_95_percent_interval() -> None:
    """Issue 17: Wilson's score interval, which stays inside 0-1 at the extremes."""
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == 1.0
    low, high = wilson(70, 100)
    assert (round(low, 3), round(high, 3)) == (0.604, 0.781)
    setup = SCENARIOS["grendel"]()
    figures = odds(TableBattle(setup, dict.fromkeys(setup.sides, "closing")), setup.sides, 12)
    for side in figures.sides:
        assert side.wins_low <= side.wins <= side.wins_high


def test_precision_stops_at_a_hundred_runs_step_the_same_for_any_jobs() -> None:
    """Issue 17: with --precision the runs stop at the first hundred whose intervals are all
    narrow enough; 0.999 is met at once, so 1,000 runs asked stop at 100, the same figures in
    one process or two."""
    setup = SCENARIOS["grendel"]()
    fight = TableBattle(setup, dict.fromkeys(setup.sides, "closing"))
    alone = odds(fight, setup.sides, runs=1000, seed=3, precision=0.999)
    assert alone.runs == 100
    assert alone.precision == 0.999
    assert odds(fight, setup.sides, runs=1000, seed=3, jobs=2, precision=0.999) == alone
    with pytest.raises(ValueError, match="precision"):
        odds(fight, setup.sides, runs=10, precision=1.5)


def test_campaign_odds_verify_a_sample_and_agree_with_verified_runs() -> None:
    """Issue 17: a campaign battle's odds run reads its outcome off the battle's own state;
    every hundredth run off a replay of its journal. Both give the same figures."""
    from tactical.odds import RequestBattle

    request = decode_battle(
        '[[sides]]\nname = "red"\norder = "engage"\nships = [{id = "r", design = "frigate"}]\n'
        '[[sides]]\nname = "blue"\norder = "engage"\nships = [{id = "b", design = "frigate"}]\n'
    )
    assert isinstance(request, CampaignBattle)
    fight = RequestBattle(request)
    for run in range(2):
        dice = SeededDice(f"5/{run}")
        assert fight(dice) == fight.verified(SeededDice(f"5/{run}"))


def test_cli_odds_stops_early_at_the_precision_asked() -> None:
    args = ["battle", "odds", "grendel", "--runs", "300", "--precision", "0.5", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["runs"], data["precision"]) == (100, 0.5)
    side = data["sides"][0]
    assert side["wins_low"] <= side["wins"] <= side["wins_high"]
    bad = runner.invoke(app, ["battle", "odds", "grendel", "--precision", "1.5"])
    assert bad.exit_code == 2
    assert "--precision" in bad.output
