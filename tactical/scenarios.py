"""Built-in battle set-ups.

``grendel`` is FT2's introductory scenario, the First Battle of Grendel, 2137 (001 L556-574):
each side has two light cruisers and three frigates, entering the table from opposite ends at
velocity 8, on a table of 4' x 6' (001 L234-242), 48 x 72 MU.
"""

from __future__ import annotations

from tactical.battle import BattleSetup, ShipSetup

__all__ = ["SCENARIOS", "grendel"]

GRENDEL_TABLE = (0.0, 0.0, 48.0, 72.0)  # 001 L234-242: about 4' x 6'
GRENDEL_SPEED = 8  # 001 L572: "all ships moving at an initial velocity of 8"
GRENDEL_FLEET = ("frigate", "light_cruiser", "frigate", "light_cruiser", "frigate")  # 001 L562-566


def grendel(turn_limit: int = 20) -> BattleSetup:
    """Return the First Battle of Grendel: NAC from the south edge, ESU from the north."""
    ships: list[ShipSetup] = []
    for index, design in enumerate(GRENDEL_FLEET):
        x = 8.0 + 8.0 * index
        ships.append(
            ShipSetup(
                id=f"nac{index + 1}",
                side="nac",
                design=design,
                x=x,
                y=0.0,
                course=12,
                speed=GRENDEL_SPEED,
            )
        )
        ships.append(
            ShipSetup(
                id=f"esu{index + 1}",
                side="esu",
                design=design,
                x=x,
                y=72.0,
                course=6,
                speed=GRENDEL_SPEED,
            )
        )
    return BattleSetup(
        name="First Battle of Grendel, 2137 (001 L556-574)",
        sides=("nac", "esu"),
        ships=tuple(ships),
        rules="ft2",
        turn_limit=turn_limit,
        table=GRENDEL_TABLE,
    )


SCENARIOS = {"grendel": grendel}
