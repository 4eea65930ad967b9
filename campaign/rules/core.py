"""The core's commands as pure decisions: `decide(state, command, dice) -> events`.

These cover what every campaign needs before the strategic rules of 004 arrive: setting a
campaign up, the umpire's own dice rolls and notes, ending a turn, and revealing the seed.
A command that is not allowed raises `IllegalCommandError`; nothing is written.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

import msgspec

from campaign.battlenames import INTERNAL_ID
from campaign.dice import DiceKey, DiceSource, parse_dice_expression, seed_commitment
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    MAX_PLAYERS,
    Audience,
    CampaignCreated,
    CampaignRulesChosen,
    DiceRolled,
    MapChosen,
    MapLoaded,
    NewEvent,
    SeedRevealed,
    StarChartPublished,
    TurnEnded,
    UmpireNoted,
    check_player_name,
)
from campaign.projections import CampaignState
from campaign.rules.production import DEFAULT_SETTINGS, ProductionSettings
from campaign.rules.setup import FleetShip

_CAMPAIGN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
DICE_MODES = ("seeded", "manual")
ABSENT_POLICIES = ("hold", "repeat", "autoplay")
# Who controls an uncolonised planet that two or more players could claim (004 L17-19):
# nobody (the default), or each of them (docs/rulings.md, "Campaign: victory").
CONTESTED_PLANETS = ("nobody", "shared")
# 004 L43 puts vector movement in play; cinematic and spatial (003) are the umpire's choice.
BATTLE_MOVEMENTS = ("vector", "cinematic", "spatial")
# Drifting asteroids (004 L180-181): a jump at each turn's end, or Continuum's moving
# asteroids that sweep (000 L18073-18101); see docs/rulings.md.
ASTEROID_MOTIONS = ("jump", "sweep")
# When both sides of a battle reach their fleet morale share in the same turn (000
# L13214-13273 does not say who breaks first): the side worse off withdraws, or both do.
MORALE_TIES = ("worse", "both")
# Who sees a player's home-made design (004 L26-30): its owner alone, or every player.
DESIGN_VISIBILITY = ("secret", "public")
# The rules a campaign's battles are fought and its ships built under: Project Continuum, the
# text that stands in for the Fleet Books 004 section 4 names (the default), or FT2.
BATTLE_RULE_CHOICES = ("continuum", "ft2")


def check_campaign_name(name: str) -> str:
    """Return `name` if it can name a campaign or branch, else raise `InvalidInputError`."""
    if not _CAMPAIGN_NAME.match(name):
        raise InvalidInputError(
            f"name {name!r} must be 1-64 letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )
    return name


class CreateCampaign(msgspec.Struct, frozen=True):
    """Set up a new campaign."""

    name: str
    players: tuple[str, ...]
    seed: str
    dice_mode: str = "seeded"
    max_turns: int = 44  # 004 L12
    map: CampaignMap | None = None
    absent: str = "hold"
    fleet: tuple[FleetShip, ...] = ()
    # A player's own starting fleet (004 L28-30), instead of `fleet`, by player.
    fleets: dict[str, tuple[FleetShip, ...]] = msgspec.field(default_factory=dict)
    contested_planets: str = "nobody"
    battle_movement: str = "vector"
    asteroid_motion: str = "jump"
    morale_ties: str = "worse"
    production: ProductionSettings = DEFAULT_SETTINGS
    battle_rules: str = "continuum"  # 004 section 4: the Fleet Book rules
    design_visibility: str = "secret"  # who sees a home-made design (rules.designs)
    # The campaign rules (issue 20): "004", or "ft2" playing `scenario` at `scale` percent.
    rules: str = "004"
    scenario: str = ""
    scale: int = 100
    end_early: bool = False  # the ft2 scenario's optional early end (digest A27)


class CampaignMap(msgspec.Struct, frozen=True):
    """A star map as the campaign records it: its name, title, entry count, canonical text,
    and the public chart everyone sees."""

    name: str
    title: str
    entries: int
    text: str
    chart: StarChartPublished | None = None


class RollDice(msgspec.Struct, frozen=True):
    """Roll dice for the umpire, outside any rule (a ruling, a random event)."""

    expression: str
    reason: str
    audience: Audience


class WriteNote(msgspec.Struct, frozen=True):
    """Write a note to an audience."""

    text: str
    audience: Audience


class EndTurn(msgspec.Struct, frozen=True):
    """Close the turn in progress."""


class RevealSeed(msgspec.Struct, frozen=True):
    """Publish the campaign's dice seed."""

    seed: str
    early: bool = False  # reveal before the last turn ends (players can then predict rolls)


def decide_create(command: CreateCampaign) -> list[NewEvent]:
    """Set a campaign up: players and the public commitment to its dice seed."""
    check_campaign_name(command.name)
    players = tuple(check_player_name(p) for p in command.players)
    for player in players:
        if INTERNAL_ID.search(player):
            # Events a player reads are renamed where they hold a battle's internal id
            # (campaign/battlenames.py): a player named like one would be renamed too.
            raise InvalidInputError(
                f"player name {player!r} reads like a battle's id (t<turn>-b<n>, "
                "t<turn>-a<n>): choose another"
            )
    if len(set(players)) != len(players):
        raise InvalidInputError(f"players {', '.join(players)} name someone twice")
    if len(players) > MAX_PLAYERS:
        raise InvalidInputError(
            f"{len(players)} players: a campaign is for {MAX_PLAYERS} players at the most"
        )
    if command.dice_mode not in DICE_MODES:
        raise InvalidInputError(
            f"dice mode {command.dice_mode!r} must be one of {', '.join(DICE_MODES)}"
        )
    if command.absent not in ABSENT_POLICIES:
        raise InvalidInputError(
            f"absent-player setting {command.absent!r} must be one of {', '.join(ABSENT_POLICIES)}"
        )
    if command.contested_planets not in CONTESTED_PLANETS:
        raise InvalidInputError(
            f"contested-planets setting {command.contested_planets!r} must be one of "
            f"{', '.join(CONTESTED_PLANETS)}"
        )
    if command.battle_movement not in BATTLE_MOVEMENTS:
        raise InvalidInputError(
            f"battle-movement setting {command.battle_movement!r} must be one of "
            f"{', '.join(BATTLE_MOVEMENTS)}"
        )
    if command.asteroid_motion not in ASTEROID_MOTIONS:
        raise InvalidInputError(
            f"asteroid-motion setting {command.asteroid_motion!r} must be one of "
            f"{', '.join(ASTEROID_MOTIONS)}"
        )
    if command.battle_rules not in BATTLE_RULE_CHOICES:
        raise InvalidInputError(
            f"battle-rules setting {command.battle_rules!r} must be one of "
            f"{', '.join(BATTLE_RULE_CHOICES)}"
        )
    if command.morale_ties not in MORALE_TIES:
        raise InvalidInputError(
            f"morale-ties setting {command.morale_ties!r} must be one of {', '.join(MORALE_TIES)}"
        )
    if command.design_visibility not in DESIGN_VISIBILITY:
        raise InvalidInputError(
            f"designs setting {command.design_visibility!r} must be one of "
            f"{', '.join(DESIGN_VISIBILITY)}"
        )
    settings = command.production
    try:
        msgspec.convert(msgspec.to_builtins(settings), ProductionSettings)
    except msgspec.ValidationError as exc:
        raise InvalidInputError(f"production settings: {exc}") from None
    unknown = sorted(set(command.fleets) - set(players))
    if unknown:
        raise InvalidInputError(
            f"a fleet is given for {', '.join(unknown)}, who is not a player "
            f"(players: {', '.join(players)})"
        )
    if command.max_turns < 1:
        raise InvalidInputError(f"a campaign needs at least one turn, not {command.max_turns}")
    created = CampaignCreated(
        name=command.name,
        players=players,
        seed_commitment=seed_commitment(command.seed),
        dice_mode=command.dice_mode,
        max_turns=command.max_turns,
        absent=command.absent,
        contested_planets=command.contested_planets,
        battle_movement=command.battle_movement,
        asteroid_motion=command.asteroid_motion,
        morale_ties=command.morale_ties,
        battle_rules=command.battle_rules,
        design_visibility=command.design_visibility,
        production=command.production,
    )
    batch = [NewEvent(event=created, audience=Audience.everyone(), turn=0)]
    if command.rules != "004":
        chosen_rules = CampaignRulesChosen(
            rules=command.rules,
            scenario=command.scenario,
            scale=command.scale,
            end_early=command.end_early,
        )
        batch.append(NewEvent(event=chosen_rules, audience=Audience.everyone(), turn=0))
    if command.map is not None:
        starmap = command.map
        if len(players) > starmap.entries and command.rules == "004":
            raise InvalidInputError(
                f"map {starmap.name!r} has {starmap.entries} entry hex(es) "
                f"but {len(players)} players are named"
            )
        chosen = MapChosen(
            name=starmap.name,
            title=starmap.title,
            entries=starmap.entries,
            sha256=hashlib.sha256(starmap.text.encode()).hexdigest(),
        )
        batch.append(NewEvent(event=chosen, audience=Audience.everyone(), turn=0))
        if starmap.chart is not None:
            batch.append(NewEvent(event=starmap.chart, audience=Audience.everyone(), turn=0))
        batch.append(
            NewEvent(event=MapLoaded(text=starmap.text), audience=Audience.umpire_only(), turn=0)
        )
    return batch


def roll_subject(audience: Audience, taken: Iterable[str]) -> str:
    """The dice-key subject of an umpire's roll: its audience and its number among that
    audience's rolls this turn, so that the key tells a player nothing of the rolls he was
    not shown (a count over all audiences would; docs/security.md). A roll shown to players
    names them: each of them is told the roll, and so who else is.

    >>> roll_subject(Audience.players_(["red", "blue"]), ["roll-all-1", "roll-for-blue+red-1"])
    'roll-for-blue+red-2'
    >>> roll_subject(Audience.everyone(), ["roll-7"]), roll_subject(Audience.umpire_only(), [])
    ('roll-all-1', 'roll-umpire-1')
    """
    if audience.public:
        named = "all"
    elif not audience.players:
        named = "umpire"
    else:
        named = "for-" + "+".join(audience.players)
    stem = f"roll-{named}-"
    return f"{stem}{sum(subject.startswith(stem) for subject in taken) + 1}"


def decide_roll(state: CampaignState, command: RollDice, dice: DiceSource) -> list[NewEvent]:
    """Roll the umpire's dice; each die is keyed by turn, the roll's audience and number
    (`roll_subject`) and its index."""
    require_running(state)
    count, sides = parse_dice_expression(command.expression)
    if not command.reason.strip():
        raise InvalidInputError("say what the roll is for (--reason)")
    _check_audience(state, command.audience)
    subject = roll_subject(command.audience, state.roll_subjects)
    rolls = tuple(
        dice.roll(DiceKey(turn=state.turn, phase="umpire", subject=subject, index=i), sides)
        for i in range(count)
    )
    rolled = DiceRolled(reason=command.reason.strip(), expression=f"{count}d{sides}", rolls=rolls)
    return [NewEvent(event=rolled, audience=command.audience, turn=state.turn)]


def decide_note(state: CampaignState, command: WriteNote) -> list[NewEvent]:
    """Record an umpire's note for its audience."""
    _require_created(state)
    if not command.text.strip():
        raise InvalidInputError("a note needs some text")
    _check_audience(state, command.audience)
    return [
        NewEvent(
            event=UmpireNoted(text=command.text.strip()), audience=command.audience, turn=state.turn
        )
    ]


def decide_end_turn(state: CampaignState, _command: EndTurn) -> list[NewEvent]:
    """Close the turn in progress."""
    require_running(state)
    return [
        NewEvent(event=TurnEnded(turn=state.turn), audience=Audience.everyone(), turn=state.turn)
    ]


def decide_reveal_seed(state: CampaignState, command: RevealSeed) -> list[NewEvent]:
    """Publish the seed, after checking it is the one committed at creation."""
    _require_created(state)
    if state.revealed_seed is not None:
        raise IllegalCommandError("the seed has been revealed already")
    if seed_commitment(command.seed) != state.seed_commitment:
        raise IllegalCommandError("that seed does not match the campaign's commitment")
    if not state.finished and not command.early:
        raise IllegalCommandError(
            f"the campaign is in turn {state.turn} of {state.max_turns}: revealing the seed now "
            "lets anyone predict every later roll (pass --early to reveal anyway)"
        )
    return [
        NewEvent(
            event=SeedRevealed(seed=command.seed), audience=Audience.everyone(), turn=state.turn
        )
    ]


def _require_created(state: CampaignState) -> None:
    if not state.created:
        raise IllegalCommandError("the campaign has not been set up")


def require_running(state: CampaignState) -> None:
    _require_created(state)
    if state.finished:
        raise IllegalCommandError(f"the campaign ended after turn {state.turn - 1}")


def _check_audience(state: CampaignState, audience: Audience) -> None:
    unknown = [p for p in audience.players if p not in state.players]
    if unknown:
        raise InvalidInputError(
            f"not a player of this campaign: {', '.join(unknown)} "
            f"(players: {', '.join(state.players) or 'none'})"
        )
