"""Asteroids blocking fire (001 L1082-1088; Continuum 17.1, 000 L17775-17812): a line between
two ships' centres that crosses an asteroid's base is blocked, and no weapon fires along it;
no salvo is launched across one either (000 L5757-5759)."""

from __future__ import annotations

import msgspec
import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    IllegalActionError,
    ShipFired,
    ShipSetup,
    Shot,
    Theatre,
    context,
    evolve,
    fire_options,
    initial_state,
    launch_problem,
)
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.dice import SeededDice
from tactical.fire import ASTEROID_RADIUS_MU, line_blocked
from tactical.missiles import SALVO_AIM

# The worked case: a firer at (0, 0), its target 20 MU up the y axis, and one asteroid with a
# base 2 MU across (radius 1 MU, 001 L1084) half way, at (dx, 10). The line is the y axis, so
# the base's nearest point to it is |dx| - 1 MU off it.
FIRER = (0.0, 0.0)
TARGET = (0.0, 20.0)


def test_the_base_is_two_mu_across() -> None:
    assert ASTEROID_RADIUS_MU == 1.0  # 001 L1084 "1" or 2""; 000 L17794 "1 to 6 MU"


@pytest.mark.parametrize(
    ("asteroid", "blocked"),
    [
        ((0.0, 10.0), True),  # square across the line
        ((0.5, 10.0), True),  # the line cuts the base half a MU from its centre
        ((0.999, 10.0), True),  # a thousandth of a MU inside the rim
        ((1.0, 10.0), False),  # grazing: the line only touches the rim
        ((-1.0, 10.0), False),  # grazing on the other side
        ((3.0, 10.0), False),  # clear by 2 MU
        ((0.0, 21.5), False),  # beyond the target: the line ends 1.5 MU short of it
        ((0.0, 20.5), True),  # the target sits on the base's edge: the line enters it
        ((0.6, -0.6), True),  # the firer inside the base (no collisions): every line crosses it
    ],
)
def test_line_blocked_worked_case(asteroid: tuple[float, float], blocked: bool) -> None:
    assert line_blocked(FIRER, TARGET, [asteroid]) is blocked
    assert line_blocked(TARGET, FIRER, [asteroid]) is blocked  # both ways (001 L1088)


def test_a_slanted_line() -> None:
    # From (0, 0) to (30, 40), 50 MU long: a point (x, y) lies |4x - 3y| / 5 MU off the line,
    # and (12, 16) is on it. At (12.4, 16) the base's centre is 0.32 MU off: blocked; at
    # (13.25, 16) exactly 1 MU: grazing, clear; at (13.5, 16) 1.2 MU: clear.
    line = ((0.0, 0.0), (30.0, 40.0))
    assert line_blocked(*line, [(12.4, 16.0)])
    assert not line_blocked(*line, [(13.25, 16.0)])
    assert not line_blocked(*line, [(13.5, 16.0)])
    assert line_blocked(*line, [(13.5, 16.0), (12.0, 16.0)])  # any one asteroid blocks


def _duel(asteroid: tuple[float, float], rules: str = "ft2") -> BattleSetup:
    design = "light_cruiser" if rules == "ft2" else "heavy_cruiser"
    return BattleSetup(
        sides=("red", "blue"),
        rules=rules,
        ships=(
            ShipSetup(id="r1", side="red", design=design, x=0, y=0, course=12, speed=0),
            ShipSetup(id="b1", side="blue", design=design, x=0, y=20, course=6, speed=0),
        ),
        theatre=Theatre(asteroids=(asteroid,)),
    )


def _fire_step(setup: BattleSetup) -> Battle:
    battle = Battle(setup)
    battle.write_orders("red", {})
    battle.write_orders("blue", {})
    battle.resolve(SeededDice(1))
    assert battle.step().phase == "fire"
    return battle


@pytest.mark.parametrize(
    ("asteroid", "open_fire"),
    [((0.5, 10.0), False), ((1.0, 10.0), True), ((3.0, 10.0), True)],
)
def test_fire_options_follow_the_line(asteroid: tuple[float, float], open_fire: bool) -> None:
    battle = _fire_step(_duel(asteroid))
    for ship, enemy in (("r1", "b1"), ("b1", "r1")):
        options = fire_options(battle.ctx, battle.state, ship)
        reachable = {t for targets in options.values() for t in targets}
        assert (enemy in reachable) is open_fire


def test_a_shot_through_an_asteroid_is_refused() -> None:
    battle = _fire_step(_duel((0.0, 10.0)))
    side = battle.step().side
    ship = "r1" if side == "red" else "b1"
    enemy = "b1" if ship == "r1" else "r1"
    with pytest.raises(IllegalActionError, match="an asteroid blocks the line of fire"):
        battle.fire(ship, [Shot("beam_b-1", enemy)], SeededDice(1))


def test_the_asteroid_drifts_out_of_the_way() -> None:
    # Blocked in turn 1; the field drifts 4 MU along +x at the end of each turn (004 L180-181),
    # so in turn 2 the asteroid lies at (4, 10), 3 MU clear of the line.
    setup = _duel((0.0, 10.0))
    theatre = msgspec.structs.replace(
        setup.theatre or Theatre(), field=(-60.0, -30.0, 60.0, 90.0), drift=(4.0, 0.0)
    )
    ctx = context(msgspec.structs.replace(setup, theatre=theatre))
    state = initial_state(ctx)
    assert fire_options(ctx, msgspec.structs.replace(state, phase="fire"), "r1") == {}
    later = msgspec.structs.replace(state, phase="fire", turn=2)
    assert any("b1" in targets for targets in fire_options(ctx, later, "r1").values())


def test_no_salvo_across_an_asteroid() -> None:
    battle = _fire_step(_duel((0.0, 10.0), rules="continuum"))
    launcher = next(
        s.id for s in battle.ctx.sheets["r1"].systems if s.kind in ("sml", "smr", "smr_er")
    )
    blocked = launch_problem(battle.ctx, battle.state, "r1", launcher, "0,18")
    assert blocked is not None
    assert "asteroid" in blocked
    assert launch_problem(battle.ctx, battle.state, "r1", launcher, "4,18") is None


def _request(seed: int) -> CampaignBattle:
    orders = [("engage", "engage"), ("engage", "stand-off"), ("stand-off", "engage")][seed % 3]
    designs = ("heavy_cruiser", "heavy_cruiser") if seed % 2 else ("light_cruiser", "frigate")
    sides = tuple(
        CampaignSide(
            name=name,
            order=order,  # type: ignore[arg-type]
            ships=tuple(CampaignShip(id=f"{name}-{i}", design=d) for i, d in enumerate(designs)),
        )
        for name, order in zip(("red", "blue"), orders, strict=True)
    )
    return CampaignBattle(sides=sides, location="asteroid-field", key=f"rocks-{seed}")  # type: ignore[arg-type]


def test_commanders_never_fire_through_asteroids() -> None:
    """Campaign battles in asteroid fields, Engage and Stand Off: every shot the commanders
    fire has a clear line, and the asteroids do stop fire that would otherwise be open."""
    stopped = 0
    for seed in range(24):  # with today's commanders, 2 of these 24 fields block a shot
        outcome = resolve_campaign_battle(_request(seed), SeededDice(seed))
        setup = outcome.setup
        assert setup.theatre is not None
        ctx = context(setup)
        bare = msgspec.structs.replace(setup.theatre, asteroids=())
        open_ctx = context(msgspec.structs.replace(setup, theatre=bare))
        state = initial_state(ctx)
        for event in outcome.journal:
            if isinstance(event, ShipFired) and state.phase == "fire":
                options = fire_options(ctx, state, event.ship)
                for weapon, targets in fire_options(open_ctx, state, event.ship).items():
                    stopped += len(set(targets) - set(options.get(weapon, ())))
                for shot in event.shots:
                    if shot.target != SALVO_AIM:
                        assert shot.target in options[shot.weapon]
            state = evolve(ctx, state, event)
    assert stopped > 0
