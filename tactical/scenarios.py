"""Built-in battle set-ups.

``grendel`` is FT2's introductory scenario, the First Battle of Grendel, 2137 (001 L556-574):
each side has two light cruisers and three frigates, entering the table from opposite ends at
velocity 8, on a table of 4' x 6' (001 L234-242), 48 x 72 MU.

``skirmish`` is a project scenario, not a book's: two equal Continuum squadrons (a strike
carrier with fast attack, interceptor and missile fighter wings, a heavy cruiser, a torpedo
cruiser and two advanced-drive lancers with overloadable torpedoes) close from the ends of a
6' x 8' table, to show the Continuum rules at work.

``lite`` is a project scenario for Full Thrust Lite (002): two equal squadrons of FT2-built
ships (destroyers, light cruisers and a heavy cruiser) close from the ends of a 4' x 6' table
under the ``lite`` rules, each line the other's image through the table's centre.

``spatial`` is a project scenario for spatial movement (003): the same two lines under FT2's
rules (``ft2``), moving by ``movement = "spatial"``, facing and course apart.
"""

from __future__ import annotations

from tactical.battle import BattleSetup, ShipSetup

__all__ = ["SCENARIOS", "grendel", "lite", "skirmish", "spatial"]

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


SKIRMISH_TABLE = (0.0, 0.0, 72.0, 96.0)  # 6' x 8'
LINE_SPEED = 6  # the project scenarios' lines start at this speed
SKIRMISH_FLEET = ("lancer", "heavy_cruiser", "strike_carrier", "torpedo_cruiser", "lancer")


def _facing_lines(
    fleet: tuple[str, ...],
    table: tuple[float, float, float, float],
    spacing: float,
    *,
    mirrored: bool,
) -> tuple[ShipSetup, ...]:
    """Two lines abreast at ``spacing`` intervals: red on the south edge heading north, blue
    on the north edge heading south; ``mirrored`` turns blue's line about the table's centre
    (its first ship on the east), else both lines start on the west."""
    ships: list[ShipSetup] = []
    for index, design in enumerate(fleet):
        x = spacing + spacing * index
        for side, y, course in (("red", 0.0, 12), ("blue", table[3], 6)):
            ships.append(
                ShipSetup(
                    id=f"{side[0]}{index + 1}",
                    side=side,
                    design=design,
                    x=table[2] - x if mirrored and side == "blue" else x,
                    y=y,
                    course=course,
                    speed=LINE_SPEED,
                )
            )
    return tuple(ships)


def skirmish(turn_limit: int = 20) -> BattleSetup:
    """Return the Continuum skirmish: red from the south edge, blue from the north."""
    return BattleSetup(
        name="A Continuum skirmish (project scenario)",
        sides=("red", "blue"),
        ships=_facing_lines(SKIRMISH_FLEET, SKIRMISH_TABLE, 12.0, mirrored=False),
        rules="continuum",
        turn_limit=turn_limit,
        table=SKIRMISH_TABLE,
    )


LITE_TABLE = (0.0, 0.0, 48.0, 72.0)  # 4' x 6', as Grendel's
LITE_FLEET = ("destroyer", "light_cruiser", "heavy_cruiser", "light_cruiser", "destroyer")
"""A line abreast that reads the same from either end, so that each side's ships are the
other's turned about the table's centre."""


def lite(turn_limit: int = 20) -> BattleSetup:
    """Return the FT Lite clash: red from the south edge, blue from the north."""
    return BattleSetup(
        name="A Full Thrust Lite clash (project scenario, 002)",
        sides=("red", "blue"),
        ships=_facing_lines(LITE_FLEET, LITE_TABLE, 8.0, mirrored=True),
        rules="lite",
        turn_limit=turn_limit,
        table=LITE_TABLE,
    )


def spatial(turn_limit: int = 20) -> BattleSetup:
    """Return the spatial-movement clash: the FT Lite clash's lines, FT2 rules, moving by
    spatial movement (003)."""
    return BattleSetup(
        name="A spatial movement clash (project scenario, 003)",
        sides=("red", "blue"),
        ships=_facing_lines(LITE_FLEET, LITE_TABLE, 8.0, mirrored=True),
        rules="ft2",
        turn_limit=turn_limit,
        table=LITE_TABLE,
        movement="spatial",
    )


SCENARIOS = {"grendel": grendel, "lite": lite, "skirmish": skirmish, "spatial": spatial}
