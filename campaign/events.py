"""Events: frozen, tagged, past-tense facts, with who may see them.

Each event type has a stable tag (stored in the `type` column, never a class path) and a
schema version. A payload is stored as canonical JSON (sorted keys, no white space): that
exact text is what the hash chain covers. Old payloads are turned into the current shape by
upcasters when read; golden fixtures of every stored version live in `tests/golden/events/`.

Evolution rule: a new field gets a default and keeps the version; any other change bumps the
type's `SCHEMA_VERSION` and registers an upcaster from the old version.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, TypeVar

import msgspec

from campaign.dice import Roll
from campaign.errors import EventDecodeError, InvalidInputError
from campaign.rules.production import ProductionSettings
from campaign.rules.technology import ResearchOrder, TechName
from campaign.strategic import (
    Admiral,
    Attack,
    Battle,
    BattleKnowledge,
    BattleSite,
    ChartEntry,
    ChartStar,
    Colony,
    CombatOrder,
    Empire,
    Landing,
    Location,
    Loss,
    MergeOrder,
    Move,
    PlanetReport,
    ProductionOrder,
    ShipCount,
    ShipResult,
    Sighting,
    SplitPart,
    TaskForce,
    TaskForceOrder,
    TreasuryOrder,
    Unit,
)

_PLAYER_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
UMPIRE = "umpire"
EVERYONE = ("all", "everyone")  # what `--to` reads as every player (`Audience.parse`)
MAX_PLAYERS = 8  # the most players a campaign is for (README)


def check_player_name(name: str) -> str:
    """Return `name` if it is a valid player name, else raise `InvalidInputError`. The names
    of audiences are not players' names: a note `--to all` must reach everyone, never one
    player of that name, and `--to umpire` the umpire alone."""
    if not _PLAYER_NAME.match(name) or name == UMPIRE or name in EVERYONE:
        raise InvalidInputError(
            f"player name {name!r} must be 1-32 lower-case letters, digits or '-', "
            "start with a letter, and not be 'umpire', 'all' or 'everyone'"
        )
    return name


class Audience(msgspec.Struct, frozen=True):
    """Who may see an event: everyone, the umpire only, or the umpire and named players.

    The stored form is one short string the store can filter on:

    >>> Audience.everyone().encode(), Audience.umpire_only().encode()
    ('*', 'umpire')
    >>> Audience.players_(["red", "blue"]).encode()
    '|blue|red|'
    >>> Audience.decode("|blue|red|").may_see("red")
    True
    """

    public: bool = False
    players: tuple[str, ...] = ()

    @classmethod
    def everyone(cls) -> Audience:
        """Return the audience of a public event."""
        return cls(public=True)

    @classmethod
    def umpire_only(cls) -> Audience:
        """Return the audience of an event only the umpire may see."""
        return cls()

    @classmethod
    def players_(cls, names: list[str] | tuple[str, ...]) -> Audience:
        """Return the audience of an event the umpire and the named players may see."""
        return cls(players=tuple(sorted({check_player_name(n) for n in names})))

    @classmethod
    def parse(cls, text: str) -> Audience:
        """Read a user's `all`, `umpire` or `red,blue`."""
        text = text.strip()
        if text in (*EVERYONE, "*"):
            return cls.everyone()
        if text in ("umpire", ""):
            return cls.umpire_only()
        return cls.players_([n.strip() for n in text.split(",") if n.strip()])

    def encode(self) -> str:
        """Return the stored form."""
        if self.public:
            return "*"
        if not self.players:
            return UMPIRE
        return "|" + "|".join(self.players) + "|"

    @classmethod
    def decode(cls, text: str) -> Audience:
        """Read the stored form."""
        if text == "*":
            return cls.everyone()
        if text == UMPIRE:
            return cls.umpire_only()
        return cls(players=tuple(p for p in text.split("|") if p))

    def may_see(self, player: str) -> bool:
        """Return whether `player` may see the event (the umpire sees everything)."""
        return player == UMPIRE or self.public or player in self.players

    def __str__(self) -> str:
        if self.public:
            return "all"
        if not self.players:
            return UMPIRE
        return ",".join(self.players)


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """The base of every event; subclasses register with `@event(tag, version)`."""

    TYPE: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int]


E = TypeVar("E", bound=type[Event])
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

EVENT_TYPES: dict[str, type[Event]] = {}
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {}
_ENCODER = msgspec.json.Encoder(order="sorted")


def event(tag: str, version: int = 1) -> Callable[[E], E]:
    """Register an event class under a stable `tag` at schema `version`."""

    def register(cls: E) -> E:
        if tag in EVENT_TYPES:
            raise ValueError(f"event tag {tag!r} registered twice")
        cls.TYPE = tag
        cls.SCHEMA_VERSION = version
        EVENT_TYPES[tag] = cls
        _DECODERS[tag] = msgspec.json.Decoder(cls)
        return cls

    return register


def upcaster(tag: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function that turns a `tag` payload of `from_version` into the next one."""

    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(tag, from_version)] = fn
        return fn

    return register


def encode_payload(ev: Event) -> bytes:
    """Return the canonical JSON of an event's payload (sorted keys, no white space)."""
    return _ENCODER.encode(ev)


def canonical_json(value: object) -> bytes:
    """Return any value (a dict of an event's fields, say) as payloads are encoded.

    >>> canonical_json({"turn": 1, "player": "red"})
    b'{"player":"red","turn":1}'
    """
    return _ENCODER.encode(value)


def decode_payload(position: int, tag: str, schema_version: int, payload: bytes | str) -> Event:
    """Turn a stored payload back into its event, upcasting old versions.

    Raises:
        EventDecodeError: the tag is unknown, the version is newer than this code, or the
            payload does not decode; the message names the position.
    """
    cls = EVENT_TYPES.get(tag)
    if cls is None:
        raise EventDecodeError(position, f"unknown event type {tag!r}")
    try:
        if schema_version == cls.SCHEMA_VERSION:
            return _DECODERS[tag].decode(payload)  # type: ignore[no-any-return]
        if schema_version > cls.SCHEMA_VERSION or schema_version < 1:
            raise EventDecodeError(
                position,
                f"{tag} schema version {schema_version} is not known to this umpire "
                f"(it reads up to {cls.SCHEMA_VERSION})",
            )
        data = msgspec.json.decode(payload)
        for version in range(schema_version, cls.SCHEMA_VERSION):
            data = UPCASTERS[(tag, version)](data)
        return msgspec.convert(data, cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise EventDecodeError(
            position, f"{tag} v{schema_version} payload does not decode: {exc}"
        ) from None


class NewEvent(msgspec.Struct, frozen=True):
    """An event about to be appended, with its audience, actor and game turn."""

    event: Event
    audience: Audience
    turn: int
    actor: str = UMPIRE


class RecordedEvent(msgspec.Struct, frozen=True):
    """An event as stored: its place in the log, its envelope, and the decoded fact."""

    position: int
    version: int
    type: str
    schema_version: int
    audience: Audience
    actor: str
    turn: int
    recorded_at: datetime
    hash: str
    event: Event


# ---------------------------------------------------------------- the core's events


@event("campaign_created", version=1)
class CampaignCreated(Event, frozen=True, kw_only=True):
    """A campaign was set up; its dice seed is committed by hash, not revealed."""

    name: str
    players: tuple[str, ...]
    seed_commitment: str
    dice_mode: str = "seeded"
    max_turns: int = 44  # 004 L12 (section 1): "At turn 44, players tally..."
    absent: str = "hold"  # what happens to a player who sends no orders: hold, repeat, autoplay
    # Uncolonised planets two players could claim (004 L17-19): "nobody" or "shared".
    contested_planets: str = "nobody"
    # How its battles move (004 L43: vector; "cinematic" is quicker to fight and to compute;
    # "spatial" is 003's spatial movement).
    battle_movement: str = "vector"
    # How drifting asteroids collide in its battles: "jump" or "sweep" (000 L18073-18101).
    asteroid_motion: str = "jump"
    # When both sides of its battles reach their fleet morale share in the same turn: "worse"
    # (the side worse off withdraws, the other holds the field) or "both" (both withdraw, no
    # winner); a campaign stored before this was recorded played "both".
    morale_ties: str = "both"
    # The rules its battles are fought under (004 section 4): "continuum" (Project Continuum
    # for the Fleet Books) or "ft2"; a campaign stored before this was recorded fought "ft2".
    battle_rules: str = "ft2"
    # Who sees a player's home-made design (004 L26-30): "secret" (its owner alone) or "public".
    design_visibility: str = "secret"
    # The production rules where umpires differ; None: stored before they were recorded
    # (`LEGACY_SETTINGS`).
    production: ProductionSettings | None = None


@event("campaign_rules_chosen", version=1)
class CampaignRulesChosen(Event, frozen=True, kw_only=True):
    """The campaign plays other rules than 004's (issue 20): "ft2", Full Thrust 2nd edition's
    own campaign (001 L1459-1614), playing `scenario` with its budgets scaled to `scale`
    percent (001 L1570). Part of the creation's batch, right after `campaign_created`; a
    campaign without it plays the 004 rules (so a 004 campaign's log is as it always was)."""

    rules: str
    scenario: str = ""
    scale: int = 100
    # Digest A27's option: the scenario ends early when the attacker holds every settled
    # system at a week's end ("total victory"); by default it is judged after its last turn.
    end_early: bool = False


@event("seed_revealed", version=1)
class SeedRevealed(Event, frozen=True, kw_only=True):
    """The umpire revealed the campaign's dice seed; every seeded roll can now be checked."""

    seed: str


@event("turn_ended", version=1)
class TurnEnded(Event, frozen=True, kw_only=True):
    """A game turn was closed; the next one began."""

    turn: int


@event("dice_rolled", version=2)
class DiceRolled(Event, frozen=True, kw_only=True):
    """The umpire rolled dice outside any rule, for a stated reason."""

    reason: str
    expression: str
    rolls: tuple[Roll, ...]


@upcaster("dice_rolled", from_version=1)
def _dice_rolled_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # v1 (pre-release) stored one key and bare faces: {"reason", "dice": "2d6", "key",
    # "results": [4, 2]}. v2 stores a Roll per die, each with its own key and source.
    count_text, _, sides_text = data["dice"].lower().partition("d")
    sides = int(sides_text)
    del count_text  # the count is len(results)
    base = data["key"].rsplit("/", 1)[0]
    rolls = [
        {"key": f"{base}/{i}", "sides": sides, "value": value, "source": "seeded"}
        for i, value in enumerate(data["results"])
    ]
    return {"reason": data["reason"], "expression": data["dice"], "rolls": rolls}


@event("map_chosen", version=1)
class MapChosen(Event, frozen=True, kw_only=True):
    """The campaign's star map was chosen; its full text is committed by hash, not shown.

    Players learn the map's name and the hash now; what they see of its contents comes from
    exploration. When the map is revealed, anyone can check it against `sha256`.
    """

    name: str
    title: str
    entries: int
    sha256: str


@event("star_chart_published", version=1)
class StarChartPublished(Event, frozen=True, kw_only=True):
    """The public star chart: where the stars are and their colours, the clouds and the entry
    hexes, as Stellar Conquest's board shows everyone. Planets are learnt by exploring."""

    name: str
    title: str
    width: int
    height: int
    stars: tuple[ChartStar, ...]
    clouds: tuple[str, ...]
    entries: tuple[ChartEntry, ...]


@event("map_loaded", version=1)
class MapLoaded(Event, frozen=True, kw_only=True):
    """The umpire's copy of the star map: the canonical map-file text (umpire only)."""

    text: str


@event("umpire_noted", version=1)
class UmpireNoted(Event, frozen=True, kw_only=True):
    """The umpire wrote a note to its audience (a ruling, news, a reminder)."""

    text: str


# ---------------------------------------------------------------- the strategic campaign


@event("empire_founded", version=1)
class EmpireFounded(Event, frozen=True, kw_only=True):
    """A player's empire was set up at its entry hex with its starting forces (004 section 3).

    Addressed to that player: nobody else knows what forces a rival brought. The captains'
    command levels were rolled (004 section 6) and the rolls are kept here.
    """

    empire: Empire
    units: tuple[Unit, ...]
    rolls: tuple[Roll, ...] = ()


@event("orders_submitted", version=1)
class OrdersSubmitted(Event, frozen=True, kw_only=True):
    """A player handed in his orders for a turn; the last submission before resolving counts."""

    player: str
    turn: int
    moves: tuple[Move, ...]
    landings: tuple[Landing, ...] = ()
    production: tuple[ProductionOrder, ...] = ()
    research: tuple[ResearchOrder, ...] = ()
    battle_locations: tuple[Location, ...] = ()  # preference, best first (004 5.3)
    attacks: tuple[Attack, ...] = ()
    task_forces: tuple[TaskForceOrder, ...] = ()
    treasury: TreasuryOrder | None = None
    scorch: tuple[str, ...] = ()  # colonies whose factories go if they are assaulted (004 5.4)
    merges: tuple[MergeOrder, ...] = ()  # transports or scout troops merged (`rules.regroup`)
    battle_sites: tuple[BattleSite, ...] = ()  # per system: where to fight, and how (5.3)
    posts: tuple[str, ...] = ()  # hidden colonies to establish command posts on (004 L86-89)
    # The commitment's secret salt, 32 random bytes in hex (issue 13): it stays umpire-only
    # until `orders_revealed` opens the commitment. "" in submissions made before salting.
    nonce: str = ""
    # A signed file's sequence (`campaign/signing.py`): the inbox refuses one not newer than
    # the latest it accepted from that player this turn. 0: not from a signed file.
    sequence: int = 0


@event("units_merged", version=1)
class UnitsMerged(Event, frozen=True, kw_only=True):
    """Groups of transports or scout troops in one hex became one: `unit` took in `merged`."""

    player: str
    unit: str
    merged: tuple[str, ...]


@event("units_split", version=1)
class UnitsSplit(Event, frozen=True, kw_only=True):
    """Parts of groups of transports or scout troops became units of their own (004 L67)."""

    player: str
    parts: tuple[SplitPart, ...]
    reason: str = ""  # an umpire's ruling says why; a player's split is his orders


@event("task_forces_set", version=1)
class TaskForcesSet(Event, frozen=True, kw_only=True):
    """A player's task forces as they stand after this turn's changes (004 5.1).

    New task forces' admirals came from the empire's reserve, or, with none there, were
    rolled (004 section 6); the rolls are kept here. `reserve` is the player's admirals
    without a command afterwards (None: unchanged, as in events stored before it existed).
    """

    player: str
    task_forces: tuple[TaskForce, ...]
    rolls: tuple[Roll, ...] = ()
    reserve: tuple[Admiral, ...] | None = None


@event("orders_committed", version=1)
class OrdersCommitted(Event, frozen=True, kw_only=True):
    """A player handed in orders: he sees the commitment, nobody the orders (issue 6).

    Addressed to him (and the umpire) since the 004 trial of remote play: a commitment for
    each submission, seen by all, let every rival count his submissions. The others are told
    once a turn, by `orders_handed_in`, that he handed in orders. Commitments stored before
    then are public.

    `sha256` is SHA-256(nonce || canonical orders): the `orders_submitted` payload without
    its nonce, salted with that secret random nonce (issue 13), so nobody can rebuild the
    orders by hashing guesses. When the turn resolves, `orders_revealed` opens it: the player
    gets the nonce and the orders, and anyone entitled can check the hash. Commitments made
    before salting have no nonce: SHA-256 of the orders alone.
    """

    player: str
    turn: int
    sha256: str


@event("orders_handed_in", version=1)
class OrdersHandedIn(Event, frozen=True, kw_only=True):
    """A player handed in orders for the turn: public, once a turn, with his first orders.

    It says neither which orders nor how many times he sent new ones: those commitments are
    his (`orders_committed`). Everything his rivals are shown is the same whether he handed in
    once or ten times (tests/test_handed_in.py).
    """

    player: str
    turn: int


@event("orders_marked_final", version=1)
class OrdersMarkedFinal(Event, frozen=True, kw_only=True):
    """A player marked his orders for the turn final ("ready"), or took the mark back
    (`final` false). Orders handed in after it take it back too (docs/rulings.md). He and
    the umpire see it."""

    player: str
    turn: int
    final: bool = True


@event("orders_revealed", version=1)
class OrdersRevealed(Event, frozen=True, kw_only=True):
    """The orders a player's commitment stood for, revealed as the turn resolved."""

    player: str
    turn: int
    sha256: str
    payload: str  # the canonical orders: the `orders_submitted` payload without its nonce
    nonce: str = ""  # the commitment's salt (hex); "" for a commitment made before salting


@event("unit_relocated", version=1)
class UnitRelocated(Event, frozen=True, kw_only=True):
    """By the umpire's ruling, a unit was put in another hex (its plot is void)."""

    unit: str
    hex: str | None  # None: back off the map at the entry
    reason: str


@event("colony_adjusted", version=1)
class ColonyAdjusted(Event, frozen=True, kw_only=True):
    """By the umpire's ruling, a colony's population or buildings were set."""

    colony: Colony  # as it stands after the ruling
    reason: str


@event("dice_reroll_ruled", version=1)
class DiceRerollRuled(Event, frozen=True, kw_only=True):
    """By the umpire's ruling, dice of the turn in progress will be rolled again (issue 6).

    Each key names a die at its new generation (`3/exploration/Beta.red-S1/0#2`): the turn's
    resolution rolls that key instead of the earlier one, so the new face is a pure function
    of the seed and the key, recorded like any roll and checked by `verify --dice`. Addressed
    to whoever reads the die in his news, so it names nothing he would not see there.
    """

    turn: int
    keys: tuple[str, ...]
    reason: str


@event("absent_player", version=1)
class AbsentPlayer(Event, frozen=True, kw_only=True):
    """A player sent no orders for the turn; the campaign's setting decided for him."""

    player: str
    turn: int
    decision: str  # held position, repeated last turn's orders, or played by autoplay


@event("deadline_set", version=1)
class DeadlineSet(Event, frozen=True, kw_only=True):
    """The umpire set the time by which orders for a turn must be in (UTC)."""

    turn: int
    deadline: datetime


@event("turn_held", version=1)
class TurnHeld(Event, frozen=True, kw_only=True):
    """The umpire held the turn: it will not resolve until released (issue 6)."""

    turn: int
    reason: str


@event("turn_released", version=1)
class TurnReleased(Event, frozen=True, kw_only=True):
    """The umpire released a held turn."""

    turn: int


@event("unit_moved", version=1)
class UnitMoved(Event, frozen=True, kw_only=True):
    """A unit made its FTL move (004 section 5.1); only its owner (and the umpire) learn it."""

    unit: str
    path: tuple[str, ...]  # the hexes entered, in order; the last is where it stopped
    order: CombatOrder
    plot: tuple[str, ...] = ()  # where it must be at the end of each coming turn
    plot_until: int | None = None  # the last turn the plot binds (004 section 6)


@event("move_lapsed", version=1)
class MoveLapsed(Event, frozen=True, kw_only=True):
    """A move accepted at submission no longer held when the turn resolved (the player's
    orders are checked against what he knows; the truth may differ): the unit held position.
    Its owner alone is told, with the reason."""

    unit: str
    to: str | None
    reason: str


@event("system_explored", version=1)
class SystemExplored(Event, frozen=True, kw_only=True):
    """A player's ships explored a star system and reported what is there (004 section 5.2)."""

    player: str
    system: str
    hex: str
    planets: tuple[PlanetReport, ...]
    enemy_colonies: tuple[str, ...] = ()  # colonies seen, as `owner: planet`
    enemy_ships: tuple[ShipCount, ...] = ()  # per owner: counts by class only
    rolls: tuple[Roll, ...] = ()
    losses: tuple[Loss, ...] = ()  # ships lost to unknown hazards while exploring
    explored: bool = True  # False: every ship that tried was lost, so no report


@event("ships_sighted", version=1)
class ShipsSighted(Event, frozen=True, kw_only=True):
    """What a player saw of enemy ships at the end of a turn where he has ships or colonies
    (004 L92-104): counts by class per owner, and hexes seen empty again."""

    player: str
    sightings: tuple[Sighting, ...]


@event("colonists_landed", version=1)
class ColonistsLanded(Event, frozen=True, kw_only=True):
    """Colonists disembarked onto a planet, founding or growing a colony (004 section 5.5)."""

    unit: str
    colony: Colony  # the colony as it stands after the landing
    colonists: int


@event("landing_failed", version=1)
class LandingFailed(Event, frozen=True, kw_only=True):
    """Ordered colonists could not land (004 5.5); they stay aboard. Only their owner is told."""

    unit: str
    planet: str
    reason: str


@event("command_post_established", version=1)
class CommandPostEstablished(Event, frozen=True, kw_only=True):
    """A player established a command post on a hidden colony of his (004 L86-89); everyone
    detects it from now on (`colony_detected`)."""

    colony: str


@event("colony_detected", version=1)
class ColonyDetected(Event, frozen=True, kw_only=True):
    """Everyone learns where a new colony is: its command post's traffic shows (004 5.1)."""

    owner: str
    system: str
    hex: str


@event("production_resolved", version=1)
class ProductionResolved(Event, frozen=True, kw_only=True):
    """An empire's production phase (004 5.7): growth, output, purchases and research.

    Carries the empire, its colonies and its new units as they stand afterwards; `problems`
    says why orders that no longer held were not carried out (nothing was spent then).
    """

    player: str
    turn: int
    produced_ip: int
    lost_ip: int
    acquired: tuple[TechName, ...]
    empire: Empire
    colonies: tuple[Colony, ...]
    units: tuple[Unit, ...]
    rolls: tuple[Roll, ...] = ()
    problems: tuple[str, ...] = ()
    # Carriers given the fighters bought (004 L197), as they stand afterwards.
    rearmed: tuple[Unit, ...] = ()
    # Starting IP left unspent and lost at this phase (004 L267; setting `starting_ip`).
    treasury_lost: int = 0


@event("treasury_spent", version=1)
class TreasurySpent(Event, frozen=True, kw_only=True):
    """A player spent starting IP outside a production phase, before the turn's moves (004
    L32): technologies bought and ships built (they enter at his entry hex). `empire` is his
    empire afterwards; with `problems`, the spending lapsed and nothing was spent."""

    player: str
    turn: int
    empire: Empire
    acquired: tuple[TechName, ...] = ()
    research_lost: int = 0  # research IP given but not spent: lost (004 L267)
    units: tuple[Unit, ...] = ()
    rolls: tuple[Roll, ...] = ()
    problems: tuple[str, ...] = ()


@event("battle_requested", version=1)
class BattleRequested(Event, frozen=True, kw_only=True):
    """The combat phase found a battle (004 5.3); both sides learn of it and its location."""

    battle: Battle
    rolls: tuple[Roll, ...] = ()  # initiative, when it chose the location


@event("battle_fought", version=1)
class BattleFought(Event, frozen=True, kw_only=True):
    """A battle's outcome: what became of every warship in it.

    `source` is "engine" (the tactical engine fought it; `journal` replays it) or "umpire"
    (recorded by hand, e.g. from a battle fought on a real table).

    `knowledge`: what each side knew at the end of each enemy ship, which decides what it is
    told of them (`campaign.battletold`); recorded when the engine fights a battle. None: a
    battle recorded by hand (both sides saw everything), or one fought before it was recorded,
    whose journal is replayed to work it out.
    """

    battle: Battle
    results: tuple[ShipResult, ...]
    source: str
    journal: str | None = None
    rolls: tuple[Roll, ...] = ()  # every die the engine rolled
    knowledge: BattleKnowledge | None = None


@event("officer_casualty", version=1)
class OfficerCasualty(Event, frozen=True, kw_only=True):
    """A task force's admiral was aboard a flagship lost in battle, or whose Command Bridge
    failed a threshold check (004 section 6); ``result`` is the worst of his rolls."""

    task_force: str
    result: str  # dead / injured / unharmed
    turns_out: int = 0
    new_flagship: str | None = None
    rolls: tuple[Roll, ...] = ()


@event("captain_casualty", version=1)
class CaptainCasualty(Event, frozen=True, kw_only=True):
    """A warship's Command Bridge failed a threshold check and its captain rolled on the Death
    and Injury table (004 L361-370); ``result`` is the worst of his rolls. Injured: a stand-in
    commands for ``turns_out`` turns after this one. Dead: ``new_captain`` is the level diced
    for his successor at once (004 L322-327), whose die is the last of ``rolls``."""

    unit: str
    result: str  # dead / injured / unharmed
    turns_out: int = 0
    new_captain: int | None = None
    rolls: tuple[Roll, ...] = ()


@event("units_caught", version=1)
class UnitsCaught(Event, frozen=True, kw_only=True):
    """Scouts and transports caught by enemy warships with no warships of their own there,
    told to their owner: where, and whose warships caught them (docs/rulings.md). An event of
    before those two fields tells the turn's catches in all hexes at once, `hex` None."""

    player: str
    losses: tuple[Loss, ...]
    rolls: tuple[Roll, ...] = ()
    hex: str | None = None
    by: tuple[str, ...] = ()  # the players whose warships engaging there caught them


@event("enemy_units_caught", version=1)
class EnemyUnitsCaught(Event, frozen=True, kw_only=True):
    """Another player's unescorted scouts and transports caught by `player`'s warships under
    Engage orders, told to him: whose, where, and how many scouts and transports were lost,
    by number as a sighting counts them (004 L102-103): no unit ids (docs/rulings.md)."""

    player: str
    owner: str
    hex: str
    scouts: int = 0  # scout ships lost (a troop counts its ships)
    transports: int = 0  # colony transports lost


@event("colony_conquered", version=1)
class ColonyConquered(Event, frozen=True, kw_only=True):
    """A colony surrendered or lost its last defences and changed hands (004 5.4)."""

    colony: Colony  # as it stands after the conquest
    previous_owner: str


@event("colony_bombarded", version=1)
class ColonyBombarded(Event, frozen=True, kw_only=True):
    """Warships bombarded a colony from space (004 5.4: 250 points kill 1 million a turn)."""

    colony: str
    attacker: str
    killed: int
    population: int  # what is left
    devastated: bool = False  # 10 million or more wiped out: never resettled, no points


@event("factories_destroyed", version=1)
class FactoriesDestroyed(Event, frozen=True, kw_only=True):
    """The defender of an assaulted colony destroyed its factories (004 5.4)."""

    colony: str
    factories: int


@event("attack_failed", version=1)
class AttackFailed(Event, frozen=True, kw_only=True):
    """An attack on a system's colonies could not be made, and why (004 5.4)."""

    player: str
    system: str
    reason: str


@event("ships_repaired", version=1)
class ShipsRepaired(Event, frozen=True, kw_only=True):
    """Warships at a friendly colony had their hull, armour and core systems repaired
    (004 5.3.6)."""

    player: str
    units: tuple[str, ...]


@event("fighters_resupplied", version=1)
class FightersResupplied(Event, frozen=True, kw_only=True):
    """Fleet tenders gave the fighters in their holds to carriers in their hex that lacked
    them (004 L198-201); the tenders and carriers as they stand afterwards."""

    player: str
    units: tuple[Unit, ...]


@event("stores_lost", version=1)
class StoresLost(Event, frozen=True, kw_only=True):
    """A fleet tender's holds lost freight to hull damage in battle (001 L1005-1007)."""

    unit: str
    lost: int  # fighters lost
    stores: int  # fighters left in its hold


@event("decoys_lost", version=1)
class DecoysLost(Event, frozen=True, kw_only=True):
    """The decoy drones these ships carried into a battle were lost: identified by the enemy's
    sensors (001 L957), flown off the table, or left behind by their ship (`rules.decoys`)."""

    battle: str
    player: str
    units: tuple[str, ...]


@event("unit_lost", version=1)
class UnitLost(Event, frozen=True, kw_only=True):
    """A unit was destroyed, with the cause."""

    unit: str
    cause: str


@event("system_scouted", version=1)
class SystemScouted(Event, frozen=True, kw_only=True):
    """A colony owner learns that enemy ships scouted his system (004 section 5.2)."""

    system: str
    turn: int


@event("design_registered", version=1)
class DesignRegistered(Event, frozen=True, kw_only=True):
    """The umpire registered a player's home-made ship design (004 L26-30, L37), checked by
    the design rules; his production may build it. Public designs are everyone's news."""

    player: str
    design: str  # its id
    text: str  # the design file, canonical TOML
    rules: str  # the rules it is built to: the campaign's battle rules
    points: int
    public: bool = False


# ---------------------------------------------------------------- the host's (issue 18)


@event("schedule_set", version=1)
class ScheduleSet(Event, frozen=True, kw_only=True):
    """The umpire set the campaign's schedule (`campaign/schedule.py`): when turns are due,
    how long after every player is final a turn resolves early, when reminders go, and who
    fights the battles. Everyone sees it; `umpire host` runs the campaign by it."""

    spec: str  # `mon,thu 20:00` or `every 259200s`
    tz: str = "UTC"
    grace_seconds: int = 0
    remind_seconds: int = 0
    battles: str = "engine"  # "engine" or "table"
    holidays: int = 0  # holiday turns each player may take (`holiday_taken`)


@event("host_acted", version=1)
class HostActed(Event, frozen=True, kw_only=True):
    """`umpire host` did something, as if the umpire had typed it, and says why.

    `action` is one of: `deadline` (set the turn's deadline from the schedule), `resolve`
    (resolved the turn), `fight` (the engine fights the waiting battles), `wait` (battles wait
    for a table). It is recorded just before the act it announces, so the log says why each
    act of the host happened.
    """

    turn: int
    action: str
    reason: str


@event("absence_policy_set", version=1)
class AbsencePolicySet(Event, frozen=True, kw_only=True):
    """The umpire changed what happens when a player sends no orders (issue 18): `hold`,
    `repeat` or `autoplay`, and after how many missed turns in a row his seat is declared
    open (`drop_after`, 0: never). He and the umpire see it."""

    player: str
    policy: str
    drop_after: int = 0


@event("holiday_taken", version=1)
class HolidayTaken(Event, frozen=True, kw_only=True):
    """A player goes on holiday for turns `first_turn` to `first_turn + turns - 1`: he holds
    position, is not waited for nor reminded, and the turns are not counted missed."""

    player: str
    first_turn: int
    turns: int


@event("player_dropped", version=1)
class PlayerDropped(Event, frozen=True, kw_only=True):
    """A player missed `missed` turns in a row, his policy's limit: his seat is open (his
    empire holds position, is not waited for) until the umpire hands it to a substitute."""

    player: str
    turn: int
    missed: int


@event("seat_substituted", version=1)
class SeatSubstituted(Event, frozen=True, kw_only=True):
    """The umpire handed a player's seat to a substitute: the seat (and its history) stays
    `player`'s name; the old secret is revoked and a new one issued. Everyone sees it."""

    player: str
    substitute: str  # who plays the seat now, as the umpire names him
    turn: int


def rolls_of(ev: Event) -> tuple[Roll, ...]:
    """Return every die an event recorded (events with dice carry a `rolls` field)."""
    rolls = getattr(ev, "rolls", ())
    return tuple(rolls)
