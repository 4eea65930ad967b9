"""Continuum's short and long range pulse torpedoes (000 5.14, L4612-4802): the same 1D6 SAP
hit past standard screens as the standard torpedo (L4626-4630), on the short range (4 MU
bands) or long range (9 MU bands) row of the Projectile Weapon Hit Probability Table (000
L20332-20436), priced at 3 per mass (L4640-4658)."""

from __future__ import annotations

import pytest

from tactical.battle import (
    Battle,
    BattleSetup,
    ShipFired,
    ShipSetup,
    Shot,
    ShotRoll,
    context,
    fire_options,
    initial_state,
    replay,
    sides_to_write,
)
from tactical.commanders import engage_commander
from tactical.designs import load_builtin
from tactical.dice import ScriptedDice
from tactical.fire import TORPEDO_BANDS_MU, TORPEDO_TO_HIT_CONTINUUM, torpedo_to_hit
from tactical.points import PC_SYSTEMS, price
from tactical.ship import PRESETS

LR = "pulse_torpedo_lr-1"
SR = "pulse_torpedo_sr-1"


def test_the_three_rows_of_the_projectile_table() -> None:
    # Normal target: standard 6 12 18 24 30 (000 L20362), long range 9 18 27 36 45 (L20397),
    # short range 4 8 12 16 20 (L20433), for 2+ / 3+ / 4+ / 5+ / 6 (L20340-20358).
    limits = {"pulse_torpedo": 6, "pulse_torpedo_lr": 9, "pulse_torpedo_sr": 4}
    for kind, step in limits.items():
        band = TORPEDO_BANDS_MU[kind]
        needs = [torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, step * n, band) for n in range(1, 6)]
        assert needs == [2, 3, 4, 5, 6]
        assert torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, step * 5 + 0.01, band) is None
        assert torpedo_to_hit(TORPEDO_TO_HIT_CONTINUUM, step + 0.01, band) == 3  # upper limit in


@pytest.mark.parametrize(
    ("kind", "masses"),
    [
        ("pulse_torpedo", (4, 5, 6)),  # 000 L4650-4652: 4, +1 per additional arc
        ("pulse_torpedo_lr", (8, 10, 12)),  # L4644-4646: 8, +2 per additional arc
        ("pulse_torpedo_sr", (2, 3, 3)),  # L4656-4658: 2, +1 for 2 additional arcs
    ],
)
def test_torpedo_masses_by_arcs(kind: str, masses: tuple[int, int, int]) -> None:
    system = PC_SYSTEMS[kind]
    assert tuple(system.mass(n) for n in (1, 2, 3)) == masses
    assert system.per_mass == 3  # "All Pulse Torpedoes cost 3 per mass" (L4638-4640)
    assert system.max_arcs == 3


def test_torpedo_cruiser_points() -> None:
    costing = price(load_builtin("torpedo_cruiser", "continuum"), PRESETS["continuum"])
    assert costing.points == 179
    assert not costing.problems


def _setup(*targets: tuple[str, float]) -> BattleSetup:
    ships = [ShipSetup(id="r1", side="red", design="torpedo_cruiser", x=0, y=0, course=12, speed=0)]
    ships += [
        ShipSetup(id=i, side="blue", design="heavy_cruiser", x=0, y=y, course=6, speed=0)
        for i, y in targets
    ]
    return BattleSetup(sides=("red", "blue"), ships=tuple(ships), rules="continuum")


def test_reach_short_and_long() -> None:
    setup = _setup(("b1", 20.0), ("b2", 20.5), ("b3", 45.0), ("b4", 45.5))
    ctx = context(setup)
    options = fire_options(ctx, initial_state(ctx), "r1")
    assert options[SR] == ("b1",)  # the short range row ends at 20 MU
    assert options[LR] == ("b1", "b2", "b3")  # the long range row at 45 MU


def _duel(distance: float) -> Battle:
    battle = Battle(_setup(("b1", distance)))
    for side in sides_to_write(battle.ctx, battle.state):
        battle.write_orders(side, {})
    battle.resolve(ScriptedDice([6, 1]))  # red wins the initiative
    if battle.step().side == "blue":
        battle.fire("b1", [], ScriptedDice([]))
    return battle


def test_short_range_torpedo_needs_its_row() -> None:
    # At 8.5 MU the short range row asks 4+ (third band, 8-12 MU), the long range row 2+.
    battle = _duel(8.5)
    shots = [Shot(SR, "b1"), Shot("pulse_torpedo_sr-2", "b1"), Shot(LR, "b1")]
    fired = battle.fire("r1", shots, ScriptedDice([3, 4, 5, 2, 6]))
    assert isinstance(fired, ShipFired)
    assert fired.shots == (
        ShotRoll(weapon=SR, target="b1", faces=(3,)),  # a miss rolls no damage die
        ShotRoll(weapon="pulse_torpedo_sr-2", target="b1", faces=(4,), damage=(5,)),
        ShotRoll(weapon=LR, target="b1", faces=(2,), damage=(6,)),
    )
    # 11 points past the heavy cruiser's screen (000 L4626-4628); it has no armour.
    assert fired.hits[0].damage == 11
    assert replay(battle.ctx.setup, battle.journal) == battle.state


def test_engage_fires_every_torpedo_first() -> None:
    battle = _duel(10.0)
    ship_id, shots = engage_commander().fire(battle.ctx, battle.state, "red")
    assert ship_id == "r1"
    assert shots[:3] == [Shot(LR, "b1"), Shot(SR, "b1"), Shot("pulse_torpedo_sr-2", "b1")]
    assert Shot("beam2-1", "b1") in shots  # the second FireCon directs the beam
