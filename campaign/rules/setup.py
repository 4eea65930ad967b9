"""Setting the empires up (004 section 3): each player's starting forces at his entry hex."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated

import msgspec

from campaign.dice import DiceKey, DiceSource, Roll
from campaign.errors import InvalidInputError
from campaign.events import Audience, EmpireFounded, NewEvent
from campaign.rules.battles import home_made_sheet
from campaign.rules.command import roll_captain
from campaign.strategic import (
    SCOUTS_PER_TROOP,
    STARTING_SCOUT_TROOPS,
    STARTING_TRANSPORTS,
    STARTING_WARSHIP_POINTS,
    Empire,
    Unit,
    unit_id,
)
from tactical.designs import builtin_ships, show_builtin
from tactical.ship import RulesName, Ship

if TYPE_CHECKING:
    from campaign.projections import CampaignState


class FleetShip(msgspec.Struct, frozen=True):
    """A catalogue warship as the campaign needs it: design id, class, points, FTL."""

    design: str
    hull_class: str
    points: int
    ftl: bool
    mass: int = 0
    ortillery: bool = False  # a dedicated ortillery vessel (004 L221; the design's flag)
    fighter_stores: int = 0  # a fleet tender's hold, in fighters (004 L197-201)
    rules: str = "ft2"  # the rules it is built to: the campaign's battle rules (004 section 4)
    design_text: str = ""  # a home-made design (004 L26-30): its registered file, canonical


class FleetLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A line of a starting-fleet file: `count` ships of catalogue design `design`."""

    design: str
    count: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1


class FleetFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A starting-fleet file (TOML): `[[ships]] design = "destroyer"  count = 4`."""

    ships: tuple[FleetLine, ...]


# The default starting fleet of an FT2 campaign: FT2 standard classes whose fits the text gives
# (001 L667-707), 1980 points of the 2000 allowed (004 section 3).
FT2_DEFAULT_FLEET = FleetFile(
    ships=(
        FleetLine("battledreadnought", 1),
        FleetLine("heavy_cruiser", 2),
        FleetLine("light_cruiser", 2),
        FleetLine("destroyer", 4),
        FleetLine("frigate", 5),
    )
)
# The default starting fleet of a Continuum campaign (004 L28-30, under the Fleet Book rules of
# 004 section 4): the catalogue's standard designs, 1954 points of the 2000 allowed.
CONTINUUM_DEFAULT_FLEET = FleetFile(
    ships=(
        FleetLine("battleship", 1),
        FleetLine("heavy_cruiser", 2),
        FleetLine("light_cruiser", 2),
        FleetLine("destroyer", 3),
        FleetLine("frigate", 2),
    )
)
DEFAULT_FLEETS = {"ft2": FT2_DEFAULT_FLEET, "continuum": CONTINUUM_DEFAULT_FLEET}


def check_fleet(ships: list[FleetShip], budget: int = STARTING_WARSHIP_POINTS) -> None:
    """Refuse a starting fleet over the points budget or with ships that cannot jump."""
    problems = [f"{s.design} has no FTL drive" for s in ships if not s.ftl]
    total = sum(s.points for s in ships)
    if total > budget:
        problems.append(
            f"the fleet costs {total} points, over the {budget} allowed (004 section 3)"
        )
    if not ships:
        problems.append("the fleet has no warships")
    if problems:
        raise InvalidInputError("starting fleet: " + "; ".join(problems))


def decide_found_empires(
    players: tuple[str, ...],
    entries: tuple[str, ...],
    fleets: Mapping[str, list[FleetShip]],
    dice: DiceSource,
) -> list[NewEvent]:
    """Found each player's empire at the map's entries, in order, with 004 section 3's forces:
    his own starting fleet (004 L28-30: "2000 Full Thrust Points of Naval Ships").

    Every warship's captain is rolled (004 section 6); the rolls travel in the event.
    """
    if len(players) > len(entries):
        raise InvalidInputError(
            f"{len(players)} players but the map has {len(entries)} entry hexes"
        )
    for player in players:
        check_fleet(fleets[player])
    batch = []
    for player, entry in zip(players, entries, strict=False):
        fleet = fleets[player]
        rolls: list[Roll] = []
        units: list[Unit] = []
        for n, ship in enumerate(fleet, start=1):
            key = DiceKey(turn=0, phase="setup", subject=f"{player}.captain", index=n)
            level, roll = roll_captain(dice, key)  # 004 section 6
            rolls.append(roll)
            units.append(
                Unit(
                    id=unit_id(player, "warship", n),
                    owner=player,
                    kind="warship",
                    design=ship.design,
                    hull_class=ship.hull_class,
                    points=ship.points,
                    mass=ship.mass,
                    ortillery=ship.ortillery,
                    hold=ship.fighter_stores,
                    captain=level,
                    rules=ship.rules,
                    design_text=ship.design_text,
                )
            )
        units.extend(
            Unit(
                id=unit_id(player, "scout-troop", n),
                owner=player,
                kind="scout-troop",
                count=SCOUTS_PER_TROOP,
            )
            for n in range(1, STARTING_SCOUT_TROOPS + 1)
        )
        units.append(
            Unit(
                id=unit_id(player, "transports", 1),
                owner=player,
                kind="transports",
                count=STARTING_TRANSPORTS,
            )
        )
        last_ids = {"W": len(fleet), "S": STARTING_SCOUT_TROOPS, "T": 1}
        founded = EmpireFounded(
            empire=Empire(player=player, entry=entry, last_ids=last_ids),
            units=tuple(units),
            rolls=tuple(rolls),
        )
        batch.append(NewEvent(event=founded, audience=Audience.players_([player]), turn=0))
    return batch


@functools.lru_cache(maxsize=256)
def catalogue_ship(design: str, rules: str = "ft2") -> FleetShip:
    """Return a catalogue design under the campaign's battle rules (`ft2` or `continuum`, 004
    section 4) as the campaign needs it.

    Kept once built (a frozen value of the catalogue shipped with the umpire): a player's
    production orders ask it of every design they price, each a design file read and its
    record sheet built (issue 19).

    Raises:
        LookupError: no such design under those rules.
    """
    return _fleet_ship(design, show_builtin(design, rules), rules)


def campaign_catalogue(
    state: CampaignState, player: str | None = None
) -> Callable[[str], FleetShip]:
    """Return the ship catalogue of a campaign: its battle rules' standard designs (004
    section 4) and the home-made designs registered (004 L26-30), as production and the orders
    check price them. With `player`, only his own home-made designs: a player builds his own
    (docs/rulings.md).

    The lookup raises `LookupError` for a design the catalogue does not hold.
    """
    rules = state.battle_rules
    designs = {d.id: d for d in state.designs.values() if player is None or d.owner == player}

    def lookup(design: str) -> FleetShip:
        found = designs.get(design)
        if found is not None:
            return _home_made(found.id, found.text, found.rules)
        try:
            return catalogue_ship(design, rules)
        except LookupError:
            raise LookupError(no_design(design, rules)) from None

    return lookup


def catalogue_of(battle_rules: str) -> RulesName:
    """The built-in catalogue a campaign's ships are built from: its battle rules' (004
    section 4), Continuum's or FT2's."""
    return "continuum" if battle_rules == "continuum" else "ft2"


def buildable_ships(state: CampaignState, player: str) -> tuple[FleetShip, ...]:
    """Return the warships `player` may order built, as production prices them (004 L277):
    the designs with an FTL drive of the campaign's catalogue (`campaign_catalogue`: its battle
    rules' standard designs, 004 section 4) and of his own home-made designs (004 L26-30)."""
    lookup = campaign_catalogue(state, player)
    standard = [
        lookup(n) for n, ship in builtin_ships(catalogue_of(state.battle_rules)) if ship.ftl
    ]
    own = sorted(d.id for d in state.designs.values() if d.owner == player)
    return (*standard, *(ship for ship in map(lookup, own) if ship.ftl))


def no_design(design: str, rules: str = "ft2") -> str:
    """Say that a design is not in the `rules` catalogue, and which FTL designs are."""
    names = sorted(name for name, ship in builtin_ships(catalogue_of(rules)) if ship.ftl)
    close = difflib.get_close_matches(design, names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (
        f"no {rules} design {design!r} in the campaign's catalogue{hint}; designs with an FTL "
        f"drive: {', '.join(names)} (`umpire ship list --rules {rules}`)"
    )


def _home_made(design_id: str, text: str, rules: str) -> FleetShip:
    return _fleet_ship(design_id, home_made_sheet(text, rules, design_id), rules, text)


def _fleet_ship(design: str, ship: Ship, rules: str, text: str = "") -> FleetShip:
    """A design's record sheet as the campaign prices and fields it (`text`: a home-made
    design's canonical file, empty for a catalogue design)."""
    return FleetShip(
        design=design,
        hull_class=str(ship.hull_class),
        points=ship.points,
        ftl=ship.ftl,
        mass=ship.mass,
        ortillery=ship.ortillery,
        fighter_stores=ship.fighter_stores,
        rules=rules,
        design_text=text,
    )
