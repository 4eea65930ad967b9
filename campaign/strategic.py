"""The strategic campaign's pieces: units, empires, and what each player has explored.

Pure data (frozen msgspec Structs) shared by the rules, the events and the projections.
Structs that travel inside events evolve like events: a new field gets a default, so payloads
stored before it existed still decode (the golden tests in tests/golden/events/ check it).
(Not `omit_defaults`: msgspec compares some defaults by identity, which would make the
canonical bytes depend on where a string object came from.)
Hexes are the printed map's labels (`0712`); a unit whose `hex` is None is still off the map
at its owner's initial command post, waiting to enter through the entry hex (004 section 5.1).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from campaign.rules.command import CommandLevel
from campaign.rules.production import PlanetType
from campaign.rules.technology import TechName
from tactical.ship import ShipState

UnitKind = Literal["warship", "scout-troop", "transports"]
CombatOrder = Literal["engage", "stand-off", "ftl-move"]
COMBAT_ORDERS: tuple[CombatOrder, ...] = ("engage", "stand-off", "ftl-move")

# 004 section 3: what each player starts with.
STARTING_SCOUT_TROOPS = 4
SCOUTS_PER_TROOP = 9
STARTING_WARSHIP_POINTS = 2000
STARTING_TRANSPORTS = 35  # each carrying 1 million colonists
STARTING_IP = 25
# 004 section 5.1: every ship starts with an FTL movement rate of 2 hexes per turn.
BASE_FTL_SPEED = 2
# 004 L16: a conquered colony is held by "an orbital garrison of at least one destroyer or
# larger". Ruling: a warship of the FT2 destroyer's mass (001 L1413) or more, whatever class
# the catalogue gives it (a frigate, mass 10, is an escort but no destroyer).
GARRISON_MIN_MASS = 14


# 004 L361-370, docs/rulings.md: an injured captain's ship is commanded meanwhile by a stand-in
# of this level.
STAND_IN_CAPTAIN: CommandLevel = 2


class CoreDamage(msgspec.Struct, frozen=True, kw_only=True):
    """The core systems a warship carries out of battle (004 L192-196), as the engine's record
    state holds them (`tactical.ship.ShipState`); kept until repaired at a friendly colony.
    """

    out_of_control: int = 0  # Command Bridge: battle turns left out of control; -1: a whole battle
    power_core: bool = False  # a damaged power core: may explode at the end of each battle turn
    life_support: int = 0  # failed life support: battle turns before it gives out

    @property
    def any(self) -> bool:
        """Return whether any core system is out."""
        return bool(self.out_of_control or self.power_core or self.life_support)


class RegisteredDesign(msgspec.Struct, frozen=True, kw_only=True):
    """A player's home-made design as the campaign holds it (004 L26-30; `rules.designs`)."""

    id: str
    owner: str
    text: str  # the design file, canonical TOML (`tactical.designs.format_design`)
    rules: str  # the rules it is built to, the campaign's battle rules (004 section 4)
    points: int
    public: bool = False  # shown to every player, not its owner alone


class Unit(msgspec.Struct, frozen=True, kw_only=True):
    """A warship, a scout troop, or a group of colony transports, moving as one counter."""

    id: str
    owner: str
    kind: UnitKind
    hex: str | None = None  # None: off the map at the initial command post
    design: str | None = None  # warships: the tactical catalogue's design id
    hull_class: str | None = None  # warships: escort / cruiser / capital (what reports show)
    points: int = 0  # warships: Full Thrust points
    mass: int = 0  # warships: hull mass (see `can_garrison`)
    ortillery: bool = False  # warships: a dedicated ortillery vessel (004 L221), by its design
    count: int = 1  # scouts in a troop, or transports (1 million colonists each)
    captain: CommandLevel | None = None  # warships: command level 1 (best) to 3 (004 s6)
    order: CombatOrder = "stand-off"
    cet: bool = False  # transports built with Controlled Environment Technology (004 5.5)
    hull_lost: int = 0  # warships: damage boxes carried from battle (004 5.3.6)
    task_force: str | None = None  # warships: the task force it moves with
    plot: tuple[str, ...] = ()  # where it must be at the end of each coming turn (004 s6)
    plot_until: int | None = None  # the last turn its plot binds: no new orders until then
    core: CoreDamage | None = None  # warships: core systems out, carried from battle (004 5.3.6)
    # Warships: the engine's record state at the end of its last battle (004 5.3.6), and the
    # turn of that battle. Within that turn it comes into a later battle as it is; from the
    # next turn its weapons, drives, systems and munitions are restored, and its hull, armour
    # and core stay until a repair; lost fighters stay lost (`rules.battles.carried_state`).
    # `hull_lost` and `core` stay the truth for hull boxes and core (an outcome entered by hand
    # changes only them).
    record: ShipState | None = None
    record_turn: int = 0
    captain_out_until: int | None = None  # an injured captain commands again from this turn
    # Transports: the original owner of the conquered population aboard (004 L216-219); a
    # colony it founds is a conquered population too.
    conquered_from: str | None = None
    # Warships: a fleet tender's hold, in replacement fighters carried as freight (its design's
    # `fighter_stores`), and the fighters in it now (004 L197-201; `rules.fighters`).
    hold: int = 0
    stores: int = 0
    # Warships: the rules its design is built to, the campaign's battle rules (004 section 4;
    # a unit stored before they were a setting is FT2), and for a home-made design (004
    # L26-30) the design file it was registered with, canonical TOML (`rules.designs`).
    rules: str = "ft2"
    design_text: str = ""
    # Warships: decoy drones aboard, 0 or 1 (`rules.decoys`): deployed as dummy bogeys in its
    # battles (004 L39; 001 L955-959). Its owner's to know, like the rest of the unit.
    decoys: int = 0

    def captain_at(self, turn: int) -> CommandLevel | None:
        """Return the level of the captain commanding on `turn`: a stand-in of
        `STAND_IN_CAPTAIN` while the ship's own captain is injured (docs/rulings.md)."""
        if self.captain is None:
            return None
        if self.captain_out_until is not None and turn < self.captain_out_until:
            return STAND_IN_CAPTAIN
        return self.captain

    @property
    def needs_repair(self) -> bool:
        """Return whether its hull, armour or core systems are damaged (004 L192-196)."""
        armour = self.record is not None and self.record.armour_lost > 0
        return bool(self.hull_lost) or armour or (self.core is not None and self.core.any)

    def plotted(self, turn: int) -> bool:
        """Return whether the unit's pre-plotted move still binds on `turn` (004 section 6)."""
        return self.plot_until is not None and turn <= self.plot_until

    @property
    def is_scout(self) -> bool:
        """Return whether command radius limits do not apply (004 section 5.1)."""
        return self.kind == "scout-troop"

    @property
    def is_warship(self) -> bool:
        """Return whether it is a warship in 004's sense: a starship of the navy, whose presence
        controls a system (004 L16-18), besieges a colony (L212) or holds it after an assault
        (L207-208). A merchant hull (a fleet tender, 001 L1154; a freighter) is a starship that
        fights in battles, but no warship (docs/rulings.md)."""
        return self.kind == "warship" and self.hull_class != "merchant"

    @property
    def can_garrison(self) -> bool:
        """Return whether it may garrison a conquered colony: "a destroyer or larger" (004 L16),
        a warship of `GARRISON_MIN_MASS` or more."""
        return self.is_warship and self.mass >= GARRISON_MIN_MASS


class Empire(msgspec.Struct, frozen=True, kw_only=True):
    """One player's empire: where it entered, its treasury, technology and knowledge."""

    player: str
    entry: str
    ip: int = STARTING_IP
    speed: int = BASE_FTL_SPEED
    techs: tuple[TechName, ...] = ()
    explored: tuple[str, ...] = ()  # star systems explored, sorted
    # Research IP invested per technology, kept between production phases only under the
    # `research_pooling = "accumulate"` setting (`campaign.rules.technology`).
    invested: dict[TechName, int] = msgspec.field(default_factory=dict)
    last_ids: dict[str, int] = msgspec.field(
        default_factory=dict
    )  # unit kind letter -> last number


def unit_order(unit: Unit) -> tuple[str, str, int]:
    """Sort units by owner, then kind letter, then number: `red-W2` before `red-W10`."""
    tag = unit.id.rpartition("-")[2]
    return (unit.owner, tag[:1], int(tag[1:]) if tag[1:].isdigit() else 0)


def unit_id(player: str, kind: UnitKind, number: int) -> str:
    """Return a stable unit id, e.g. `red-W3` (warship), `red-S1` (scouts), `red-T1`.

    >>> unit_id("red", "warship", 3)
    'red-W3'
    """
    letter = {"warship": "W", "scout-troop": "S", "transports": "T"}[kind]
    return f"{player}-{letter}{number}"


class Move(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One unit's order for a turn: where it moves (None: it stays) and its combat order.

    The combat order holds where the unit ends the turn; in the hex it leaves, it is under FTL
    Move (004 L72), and pursued there by enemies who Engage (`rules.combat.departures`).
    Without one (None) the unit keeps the order it had, a task force its flagship's, as a unit
    given no move at all does (docs/rulings.md, "Combat orders"). Moves stored before the
    default was None always carry their order, so they read as they always did.
    """

    unit: str
    to: str | None = None
    order: CombatOrder | None = None
    # Colony transports and scout troops: move only this many, as a new unit (`rules.regroup`).
    count: int | None = None
    # Waypoints: stops on the way to `to`, each the end of a turn's move, all within the
    # unit's horizon (004 section 6).
    via: tuple[str, ...] = ()


class SplitPart(msgspec.Struct, frozen=True, kw_only=True):
    """Part of a group of transports or a scout troop, split off as a new unit."""

    unit: str
    new_unit: str
    count: int


class MergeOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Merge groups of one kind in one hex into the first listed (004 L67, `rules.regroup`)."""

    units: tuple[str, ...]


class PlanetReport(msgspec.Struct, frozen=True):
    """What an exploration report says of a planet (004 section 5.2: planets and types)."""

    orbit: int
    type: str
    capacity: int
    mineral_rich: bool = False


class ShipCount(msgspec.Struct, frozen=True):
    """Enemy ships seen, as 004 section 5.2 reports them: numbers in each class only."""

    owner: str
    escorts: int = 0
    cruisers: int = 0
    capitals: int = 0
    scouts: int = 0
    transports: int = 0


class Sighting(msgspec.Struct, frozen=True, kw_only=True):
    """Enemy ships a player saw in a hex at the end of a turn (`rules.sightings`); none: he
    looked and the hex was empty of them."""

    hex: str
    system: str | None
    turn: int
    ships: tuple[ShipCount, ...] = ()
    colonies: tuple[str, ...] = ()  # enemy colonies there, as `owner: planet` (hidden ones too)


class Loss(msgspec.Struct, frozen=True):
    """Ships of a unit destroyed: a whole warship or troop, or some of a transport group."""

    unit: str
    count: int = 1


class Colony(msgspec.Struct, frozen=True, kw_only=True):
    """A settled planet: who holds it, how many millions live there, what it has built.

    Its id is `System/orbit`, e.g. `Alpha/3`. A colony is also a command post (004 5.1).
    """

    id: str
    owner: str
    system: str
    hex: str
    orbit: int
    planet_type: PlanetType
    capacity: int
    mineral_rich: bool = False
    population: int = 0  # millions
    factories: int = 0
    robotic_factories: int = 0
    pdus: int = 0
    advanced_pdbs: int = 0
    shield: bool = False
    conquered_from: str | None = None  # the original owner, if taken by force
    conquered_turn: int | None = None
    # Millions of this population killed by bombardment so far, over every turn: wiping out
    # a population of 10 million or more devastates the planet (004 L221-223).
    bombarded: int = 0
    # A command post is established here (004 L86-89): everyone detects the colony, and it
    # extends its owner's command range. Without one the colony is hidden, found only by
    # exploration and sightings, and no post (docs/rulings.md).
    command_post: bool = True


class Landing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An order to disembark colonists from a transport group onto a planet (004 5.5)."""

    unit: str
    planet: str  # `System/orbit`, e.g. `Alpha/3`
    colonists: int  # millions: one per transport
    # Founding a colony: establish a command post on it (everyone detects it, 004 L86-89);
    # false keeps the colony hidden, and no command post, until `posts` establishes one.
    post: bool = True


def planet_id(system: str, orbit: int) -> str:
    """Return a planet's id: `Alpha/3`."""
    return f"{system}/{orbit}"


class ShipOrder(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Starships to build: `count` of catalogue design `design` (63 FT points per IP)."""

    design: str
    count: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1  # refused at decoding otherwise


class TreasuryOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Spend the starting treasury (004 section 3: "25 Industrial Points which can be spent on
    Technological Research or more ships"): research joins the phase's pool; ships appear at
    the entry, off the map."""

    research: int = 0
    ships: tuple[ShipOrder, ...] = ()


class ProductionOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one colony buys in a production phase (004 5.7.3-5.7.5)."""

    colony: str  # `System/orbit`
    colony_transports: int = 0
    emigrants: int = 0
    factories: int = 0
    robotic_factories: int = 0
    scout_troops: int = 0
    pdus: int = 0
    advanced_pdbs: int = 0
    planet_shields: int = 0
    ships: tuple[ShipOrder, ...] = ()
    research: int = 0  # IP given to the empire's research pool
    # Fighters bought to make good carriers' losses (004 L197), put aboard the owner's
    # carriers in this colony's hex at once (`rules.economy.fighter_points` prices them).
    fighters: int = 0
    # Decoy drones bought (004 L39; 001 L955-959: 20 points each), one aboard each of the
    # owner's warships in this colony's hex that has none, then those built here
    # (`rules.decoys`).
    decoys: int = 0


BattleType = Literal["even", "pursuit"]
Location = Literal["free-space", "dense-world", "gas-giant", "asteroid-field"]
LOCATIONS: tuple[Location, ...] = ("free-space", "dense-world", "gas-giant", "asteroid-field")
ShipFate = Literal["survived", "destroyed", "disengaged", "jumped"]
WorldSetUp = Literal["between", "near"]


class BattleSite(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where a player would fight in one system when the choice is his (004 5.3): his
    preferences there, and the options of the location chosen (004 L154-155, L163-164)."""

    system: str
    prefer: tuple[Location, ...] = ()  # best first; left out: the orders' `battle_locations`
    # A dense world between the fleets, or the chooser's fleet within 10 MU of it (L154-155).
    world: WorldSetUp = "between"
    # A gas giant's gravity band, 2-12 MU (L163-164); left out, 2d6 is rolled.
    gravity: int | None = None


class BattleSide(msgspec.Struct, frozen=True):
    """One side of a battle: a player's warships under one combat order."""

    player: str
    order: CombatOrder
    units: tuple[str, ...]
    admiral: int | None = None  # the best admiral commanding these ships (004 section 6)


class Battle(msgspec.Struct, frozen=True, kw_only=True):
    """A battle the combat phase found (004 5.3), waiting for its outcome."""

    id: str  # e.g. `t3-b1`
    hex: str
    system: str | None
    type: BattleType
    pursued: str | None = None  # the FTL-moving player in a pursuit battle
    location: Location = "free-space"
    chosen_by: str | None = None  # who chose the location, or None for the rules' choice
    sides: tuple[BattleSide, BattleSide]
    colony: str | None = None  # an assault on this colony's planetary defences (004 5.4)
    # A pursuit of the `pursued` side's ships as they leave this hex under FTL Move (004
    # L72): they are already at their destinations, and go on there if they get away.
    departure: bool = False
    world: WorldSetUp = "between"  # at a dense world: as the chooser set it up (004 L154-155)
    gravity: int | None = None  # at a gas giant: the chooser's band; None: rolled (L163-164)
    # An assault the attacker calls off after this many turns of battle if the planetary
    # defences still stand (`Attack.call_off_after`, 004 L208-209); None: fought out.
    call_off_after: int | None = None
    # The name its dice are keyed by (`campaign.battlenames.dice_key`: `t3-0201.blue.red`):
    # its turn, hex and two players, all its sides know, never the count of the turn's
    # battles its id holds. Empty in a battle announced before dice keys were named so: its
    # dice are keyed by its id (`dice_name`), as they were.
    dice_key: str = ""

    @property
    def dice_name(self) -> str:
        """The name the battle's dice are keyed under: its dice key, or its id if it has none
        (announced before dice keys)."""
        return self.dice_key or self.id

    @property
    def leaving(self) -> frozenset[str]:
        """Return the ships leaving the hex: the pursued side of a departure battle."""
        if not self.departure:
            return frozenset()
        return frozenset(u for s in self.sides if s.player == self.pursued for u in s.units)


class ShipResult(msgspec.Struct, frozen=True, kw_only=True):
    """What became of one warship in a battle."""

    unit: str
    fate: ShipFate = "survived"
    # Where a jumping ship came out. A ship leaving the hex (a departure battle) may leave it
    # out: it jumped for where it was going; its owner alone learns where it came out.
    to_hex: str | None = None
    # Damage boxes carried out of the battle (004 5.3.6). None only in a `battle_fought` as a
    # side reads it that did not know the ship's damage (`KnownShip`): not told, not "none".
    hull_lost: int | None = 0
    # The threshold level of every check at which its Command Bridge failed (core systems,
    # 004 L44); each brings a casualty roll for the officers aboard (004 L361-370). None, like
    # `hull_lost`, only as told to a side that did not know the ship's damage: not "none".
    bridge_failures: tuple[int, ...] | None = ()
    # The core systems out when it left the battle (004 5.3.6: kept until repaired at a
    # friendly colony); None: not told (an outcome entered by hand), the ship keeps its own.
    core: CoreDamage | None = None
    # The engine's record state at the battle's end (boxes per row, armour, systems, drives,
    # munitions, fighters aboard); None from an outcome entered by hand, unless it lost
    # fighters (`fighters_lost`): then the ship as it came in, less those fighters.
    record: ShipState | None = None
    # An outcome entered by hand: the fighters a carrier lost, not to be made good until new
    # ones are bought (004 L197); the engine's outcomes give them in `record` instead.
    fighters_lost: int = 0


# What a side knew at a battle's end of an enemy ship whose record sheet was closed to it
# (closed record sheets, 000 L1462-1466; docs/rulings.md, "Campaign: what a side learns of an
# enemy ship's fate"): nothing but a contact (never identified); its class (identified,
# 000 L12517-12521); what an advanced scan disclosed, original values (000 L12648-12656): its
# mass, its mass, drive and screens, all its systems; or everything, damage included
# ("current damage status", L12658-12660).
EnemyKnown = Literal["unidentified", "class", "mass", "drive", "systems", "everything"]


class KnownShip(msgspec.Struct, frozen=True, kw_only=True):
    """What `side` knew at a battle's end of the enemy ship `unit`."""

    side: str
    unit: str
    known: EnemyKnown


class BattleKnowledge(msgspec.Struct, frozen=True, kw_only=True):
    """What each side of a battle the engine fought knew at its end of each enemy ship, as the
    `battle_fought` event records it (the final state's `side_view`, worked out once when the
    battle is fought): what a side is told of the battle follows it (`campaign.battletold`).

    ``closed``: enemy record sheets were closed to the sides (Continuum's sensors, 000
    L1462-1466), and ``ships`` says what each side knew of each enemy ship; False (``ships``
    empty) under open record sheets, where every side sees every ship's record, and when no
    battle was fought (one side was already gone: nothing was hidden, nothing happened).
    """

    closed: bool
    ships: tuple[KnownShip, ...] = ()

    def of_side(self, side: str) -> BattleKnowledge:
        """Only what `side` knew: another side's knowledge, of `side`'s own ships too, is not
        his to read."""
        return msgspec.structs.replace(self, ships=tuple(k for k in self.ships if k.side == side))

    def damage_unknown(self, side: str) -> frozenset[str]:
        """The enemy ships whose damage `side` did not know at the battle's end."""
        if not self.closed:
            return frozenset()
        return frozenset(k.unit for k in self.ships if k.side == side and k.known != "everything")


AttackMode = Literal["conquer", "bombard"]
# A planetary defence fights as a ship of this catalogue design (004 5.7.7: a PDU is
# "Equivalent to a Battledreadnought", an advanced PDU "to two SuperDreadnoughts").
DEFENCE_DESIGNS = {"pdu": "battledreadnought", "apdb": "superdreadnought"}


# The most turns the engine fights a campaign battle: a battle still going is left there.
BATTLE_TURNS = 12


class Attack(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An order to attack an enemy colony in a system (004 5.4): the one named (`colony`,
    `System/orbit`), or, with none named, every enemy colony there."""

    system: str
    mode: AttackMode = "conquer"
    colony: str | None = None
    # The attacker's standing order to call off the assault on the planetary defences (004
    # L208-209: "at any time") after this many turns of battle if they still stand.
    call_off_after: Annotated[int, msgspec.Meta(ge=1, le=BATTLE_TURNS)] | None = None

    def targets(self, colony: Colony) -> bool:
        """Return whether this attack is on `colony` (a colony in its system)."""
        return self.colony is None or self.colony == colony.id


def defence_id(colony: str, kind: str, number: int) -> str:
    """Return the battle id of a colony's planetary defence: `Alpha/3#pdu-1`."""
    return f"{colony}#{kind}-{number}"


def parse_defence_id(uid: str) -> tuple[str, str] | None:
    """Return (colony, kind) for a planetary defence's battle id, or None for a ship."""
    colony, sep, rest = uid.partition("#")
    if not sep:
        return None
    return colony, rest.rpartition("-")[0]


def engine_id(uid: str) -> str:
    """Return the id a campaign unit fights under in the engine: `Alpha/3#pdu-1` becomes
    `Alpha.3.pdu-1`."""
    return uid.replace("/", ".").replace("#", ".").replace(" ", "_").replace("'", "")


class TaskForce(msgspec.Struct, frozen=True, kw_only=True):
    """Warships moving and fighting together under an admiral (004 5.1, section 6).

    The first unit is the flagship. `admiral` is the admiral's command level, or None when the
    task force is under a captain (its admiral fell or is injured).
    """

    id: str  # e.g. `red-F1`
    owner: str
    units: tuple[str, ...]
    admiral: CommandLevel | None = None
    admiral_out_until: int | None = None  # an injured admiral commands again from this turn

    def admiral_at(self, turn: int) -> CommandLevel | None:
        """Return the admiral's level if he is in command on `turn` (None: under a captain)."""
        if self.admiral_out_until is not None and turn < self.admiral_out_until:
            return None
        return self.admiral


class Admiral(msgspec.Struct, frozen=True, kw_only=True):
    """An admiral without a command, in his empire's reserve (004 section 6: an officer who
    stays with his command; when it is disbanded he waits for the next one, docs/rulings.md)."""

    level: CommandLevel
    out_until: int | None = None  # injured: commands again from this turn

    @property
    def rank(self) -> tuple[int, int]:
        """Sort key: who takes the next command, fit before injured, then the best level."""
        return (0 if self.out_until is None else 1, self.level)


class TaskForceOrder(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Form a task force (no `id`), reshape one (`id` and its new `units`), or disband one
    (`id` and no units). The first unit listed is the flagship."""

    id: str | None = None
    units: tuple[str, ...] = ()


class ChartStar(msgspec.Struct, frozen=True):
    """A star as everyone's chart shows it: name, hex and colour (no planets)."""

    name: str
    hex: str
    colour: str


class ChartEntry(msgspec.Struct, frozen=True):
    """A player entry hex on the public chart."""

    name: str
    hex: str
