"""The Continuum catalogue's specialist designs (issue 15) in battle: the EW frigate's ECM and
area ECM (000 7.18-7.19), the flak destroyer's scatterguns and grapeshot (7.14-7.15) and the
heavy missile cruiser's heavy missiles (6.2-6.6), each used by the campaign's commanders."""

from __future__ import annotations

from tactical.battle import Battle, BattleSetup, ShipSetup
from tactical.commanders import order_commander, play
from tactical.dice import SeededDice
from tactical.summary import describe_journal


def _fought(seed: int) -> Battle:
    """Red's three specialists against a missile cruiser, a light carrier and a heavy
    cruiser, 60 MU apart and closing, both sides under the campaign's Engage order."""
    designs = {
        "r1": "ew_frigate",
        "r2": "flak_destroyer",
        "r3": "heavy_missile_cruiser",
        "b1": "missile_cruiser",
        "b2": "light_carrier",
        "b3": "heavy_cruiser",
    }
    ships = tuple(
        ShipSetup(
            id=ship_id,
            side="red" if ship_id[0] == "r" else "blue",
            design=design,
            x=-6.0 + 6.0 * (int(ship_id[1]) - 1),
            y=0.0 if ship_id[0] == "r" else 60.0,
            course=12 if ship_id[0] == "r" else 6,
            speed=4,
        )
        for ship_id, design in designs.items()
    )
    setup = BattleSetup(sides=("red", "blue"), ships=ships, rules="continuum", turn_limit=8)
    battle = Battle(setup)
    engage = {"red": order_commander("engage"), "blue": order_commander("engage")}
    return play(battle, engage, SeededDice(seed))


def test_the_specialists_use_their_systems() -> None:
    battle = _fought(1)
    lines = describe_journal(battle.journal)
    # ECM switched on in the orders (000 L12832-12838).
    assert any(line.strip().startswith("r1 ") and "/ecm" in line for line in lines)
    # Scatterguns and grapeshot at the carrier's fighters (000 7.14-7.15).
    for weapon in ("scattergun-1", "scattergun-2", "grapeshot-1", "grapeshot-2"):
        assert any(f"r2 {weapon} at " in line for line in lines), weapon
    # The heavy missiles launched (000 L5743-5757).
    for rack in range(1, 5):
        assert any(f"heavy_missile-{rack} launches a salvo" in line for line in lines)
    spent = {
        spec.kind: now.ammo
        for spec, now in zip(
            battle.ctx.sheets["r2"].systems, battle.state.ship("r2").record.systems, strict=True
        )
        if now.ammo is not None
    }
    assert spent == {"scattergun": 0, "grapeshot": 0}
