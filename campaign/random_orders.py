"""Random legal orders for one player's turn, drawn from what he knows (for autoplay, the
absent-player setting, tests and benchmarks).

`random_orders` writes one player's orders file for the turn in progress from what that
player knows: his own view of the campaign (`CampaignService.load(lineage, viewer=player)`)
and the map as he knows it (`CampaignService.player_map`: the public star chart, with the
planets of the systems he explored). Planets are read only for systems he explored in any
case. Nothing of the umpire's state goes in, so an autoplayed player can never act on hidden
information; the property tests check that the orders come out the same from the umpire's
state and full map.

It plays plausibly rather than well: scouts head for unexplored systems (now and then part of
a troop elsewhere), warships roam within command range (often towards known enemy colonies,
now and then through a waypoint) under random combat orders until, from OFFENSIVE_TURN on,
they gather into strike forces that conquer, liberate or bombard an objective (its war aim),
colony transports settle known empty planets with room (sending only the colonists that land)
or land on arrival behind a scout troop, fleet tenders now and then bring their fighters to
carriers lacking them, and production phases spend each colony's Industrial Points on a
random affordable mix (now and then a carrier or a fleet tender, ortillery vessels for an
empire that bombards, and replacement fighters where its hex has room for them). With
`seek_contact` (the benchmarks' campaigns, on maps too large for the empires to meet
otherwise) the empires also expand towards each other from CONTACT_TURN on.

Every random choice comes from the `random.Random` passed in, through `Random.random()` only
(the one method Python keeps stable across versions), so a seed replays the same campaign.
"""

from __future__ import annotations

import random
from collections import defaultdict

import msgspec

from campaign.events import TaskForcesSet
from campaign.projections import CampaignState, evolve
from campaign.rules import production, technology
from campaign.rules.colonies import may_join
from campaign.rules.decoys import DECOY_POINTS, has_room
from campaign.rules.economy import fighter_points, is_production_turn, production_colony
from campaign.rules.fighters import missing_fighters, room_for_fighters
from campaign.rules.movement import CommandReach, horizon
from campaign.rules.orders import OrdersDocument
from campaign.rules.regroup import last_numbers, next_unit_id
from campaign.rules.setup import catalogue_ship
from campaign.rules.taskforces import plan_task_forces
from campaign.rules.technology import TECHNOLOGIES, ResearchOrder, TechName
from campaign.strategic import (
    LOCATIONS,
    Attack,
    AttackMode,
    Colony,
    CombatOrder,
    Empire,
    Landing,
    Move,
    ProductionOrder,
    ShipOrder,
    TaskForce,
    TaskForceOrder,
    Unit,
    planet_id,
    unit_order,
)
from maps import Hex, StarMap, label, line, parse_label
from maps.model import PlanetType, StarSystem
from maps.nearest import HexIndex, closest_to_any
from maps.stable_random import between, percent, pick, shuffled, weighted

# Warships the driver builds: the catalogue's small escorts, the same ids under either battle
# rules (004 L277: 63 points per IP).
SHIP_DESIGNS = ("frigate", "destroyer")
# Now and then (percent of the colonies that build ships) one carrier or fleet tender as well
# (004 L197-201): rarely, since every ship makes the battles the engine fights slower.
AUXILIARY_DESIGNS = ("light_carrier", "fleet_tender")
AUXILIARY_PERCENT = 25
# Under the battle rules whose catalogue has them, now and then (percent of the colonies that
# build ships) one specialist as well: the designs that field ECM and area ECM (000 7.18-7.19),
# scatterguns and grapeshot (7.14-7.15) and heavy missiles (6.2-6.6), which the standard
# classes carry none of. Drawn from a die of its own, so that the other draws stay as they were.
SPECIALIST_DESIGNS: dict[str, tuple[str, ...]] = {
    "continuum": ("ew_frigate", "flak_destroyer", "heavy_missile_cruiser"),
}
SPECIALIST_PERCENT = 20
# An empire bombarding (its war aim, see ATTACK_MODES) builds, this often, dedicated ortillery
# vessels: their points count three times over a planet (004 L221).
ORTILLERY_DESIGN = "ortillery_monitor"
ORTILLERY_PERCENT = 50
MOST_ORTILLERY = 3  # a colony's ortillery vessels in one production phase
# How often a colony buys replacement fighters when its hex has room for them (004 L197).
FIGHTERS_PERCENT = 60
# How often a colony spends what IP it has left on decoy drones for the warships in its hex
# (004 L39; `rules.decoys`), drawn from a die of its own so that nothing else changes.
DECOYS_PERCENT = 40
# How often a fleet tender with fighters aboard makes for its owner's carriers lacking them.
RESUPPLY_PERCENT = 60
# How often a scout troop sends part of its scouts elsewhere (004 L27, L67).
SPLIT_PERCENT = 20
# How often transports follow a scout troop into an unexplored system and land on arrival,
# on an orbit guessed from 1 to GUESSED_ORBITS (004 L56-63).
ARRIVAL_PERCENT = 50
GUESSED_ORBITS = 4
# Most factories a colony buys in one phase: a limit that keeps the random mix varied, not a
# rule (the technology's limit per million applies as well, 004 5.7.7).
MOST_FACTORIES = 6
# How warships' combat orders are drawn (004 5.3); scouts and transports always stand off.
WARSHIP_ORDERS: tuple[tuple[CombatOrder, int], ...] = (
    ("engage", 5),
    ("stand-off", 3),
    ("ftl-move", 2),
)


# An empire's war aim (004 5.4), drawn once for the campaign: to conquer enemy colonies, or to
# bombard them until they are gone, a planet of 10 million or more devastated (004 L220-223).
ATTACK_MODES: tuple[tuple[AttackMode, int], ...] = (("conquer", 1), ("bombard", 1))
# From OFFENSIVE_TURN on, while the scouts explore and the transports settle, an empire makes
# war on one objective within command range (004 L86): a colony of his an enemy holds, to
# liberate it (004 L207); else, to conquer, the enemy colony nearest his own, or to bombard,
# the enemy's heartland (the one nearest another empire's entry hex). His free warships make
# for the rally point (his colony nearest the objective) RALLY_PERCENT of the time; as soon as
# STRIKE_FORCE of them are there they form a strike force, a task force that makes for the
# objective to engage and attacks on arrival. Once one is out, the rest join it there. A
# bombardment waits for a strike force: a concentrated fleet, not ships piecemeal.
# How often an attack's assault on planetary defences is to be called off, after 1-6 turns.
CALL_OFF_PERCENT = 25
OFFENSIVE_TURN = 10
# With `seek_contact` (an option: the benchmarks' campaigns on maps too large for empires to
# meet otherwise), from CONTACT_TURN on his colony transports settle the planet within reach
# nearest the other empires (their entry hexes, public, and their colonies he knows of), and
# make for the one within his command range nearest them when none is within reach: his
# command range, and his warships with it, grows towards theirs.
CONTACT_TURN = 10
# ... and his free warships, while he has no objective (see OFFENSIVE_TURN), make this often
# for the border: the hex halfway between his colony and the enemy's nearest each other.
BORDER_PERCENT = 80
RALLY_PERCENT = 80
STRIKE_FORCE = 4


# ---------------------------------------------------------------- the orders file


def format_orders(document: OrdersDocument) -> str:
    """Write an orders document as the TOML file a player would submit.

    `campaign.rules.orders.parse` reads it back to the same document. Plain values come first
    (TOML puts them before any table); every list of orders is an array of tables.
    """
    lines: list[str] = []
    tables: list[str] = []
    for key, value in msgspec.structs.asdict(document).items():
        if value is None:
            continue
        if isinstance(value, msgspec.Struct):  # a single table, e.g. [treasury]
            tables += ["", f"[{key}]"]
            tables += [
                f"{name} = {_toml(msgspec.to_builtins(v))}"
                for name, v in msgspec.structs.asdict(value).items()
                if v is not None and v != ()
            ]
            continue
        items = value if isinstance(value, tuple) else ()
        if items and isinstance(items[0], msgspec.Struct):
            for item in items:
                tables += ["", f"[[{key}]]"]
                tables += [
                    f"{name} = {_toml(msgspec.to_builtins(v))}"
                    for name, v in msgspec.structs.asdict(item).items()
                    if v is not None and v != () and not (v == 0 and key == "production")
                ]
        elif value != ():
            lines.append(f"{key} = {_toml(msgspec.to_builtins(value))}")
    return "\n".join(lines + tables) + "\n"


def _toml(value: object) -> str:
    """Return a TOML value for the plain data an orders document holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return msgspec.json.encode(value).decode()  # JSON string escapes are TOML's too
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {value!r}")


# ---------------------------------------------------------------- one player's orders


def random_orders(
    view: CampaignState,
    starmap: StarMap,
    player: str,
    rng: random.Random,
    seek_contact: bool = False,
) -> str:
    """Return a legal orders file for `player`'s turn, drawn at random from his own view.

    `view` must be that player's view of the campaign (`load(lineage, viewer=player)`): the
    orders never depend on anything he could not know. With `seek_contact`, from
    CONTACT_TURN on his colony transports settle towards the other empires (see there).
    """
    return format_orders(random_document(view, starmap, player, rng, seek_contact))


def random_document(
    view: CampaignState,
    starmap: StarMap,
    player: str,
    rng: random.Random,
    seek_contact: bool = False,
) -> OrdersDocument:
    """Return `random_orders`' document before it is written out (see there)."""
    empire = view.empires.get(player)
    if empire is None:
        return OrdersDocument(player=player, turn=view.turn)
    planner = _Planner(view, starmap, empire, rng, seek_contact)
    task_forces = planner.task_force_orders()
    moves, landings = planner.moves_and_landings()
    orders: tuple[ProductionOrder, ...] = ()
    research: tuple[ResearchOrder, ...] = ()
    if is_production_turn(view.turn):
        orders, research = planner.production_orders()
    preferences = tuple(shuffled(rng, LOCATIONS))[: between(rng, 0, len(LOCATIONS))]
    return OrdersDocument(
        player=player,
        turn=view.turn,
        moves=moves,
        landings=landings,
        production=orders,
        research=research,
        battle_locations=preferences,
        attacks=planner.attacks(),
        task_forces=task_forces,
    )


class _Planner:
    """One player's orders for one turn, worked out from his view and the board."""

    def __init__(
        self,
        view: CampaignState,
        starmap: StarMap,
        empire: Empire,
        rng: random.Random,
        seek_contact: bool = False,
    ) -> None:
        self.view = view
        self.starmap = starmap
        self.empire = empire
        self.player = empire.player
        self.rng = rng
        self.units = self._own_units()
        self.colonies = sorted(
            (c for c in view.colonies.values() if c.owner == self.player), key=lambda c: c.id
        )
        self.command = CommandReach(view, starmap, self.player)
        self.numbers = last_numbers(view, self.player)  # the ids the splits will take
        self.explored = frozenset(empire.explored)
        self.unknown = HexIndex(s.hex for s in starmap.systems if s.name not in self.explored)
        # Systems where someone else has a colony: which planet is unknown, so none is landed on.
        self.foreign = frozenset(
            s for owner, s in view.known_colonies if owner != self.player and self._has_system(s)
        )
        self.targets = [starmap.system(s).hex for s in sorted(self.foreign)]
        # Where the other empires are, as everyone knows it: their entry hexes (004 section 3)
        # and the colonies of theirs he knows of. Settling towards them is seeking contact.
        self.front: list[Hex] = []
        if seek_contact and view.turn >= CONTACT_TURN:
            entry = starmap.entry(empire.entry).hex
            self.front = [e.hex for e in starmap.entries if e.hex != entry] + self.targets
        self.border = self._border() if self.front else None
        # His colonies an enemy took (not those the enemy settled with his people since).
        self.lost = sorted(
            c.id
            for c in view.colonies.values()
            if c.conquered_from == self.player
            and c.conquered_turn is not None
            and c.owner != self.player
        )
        # His war aim, the same all campaign (see ATTACK_MODES).
        self.aim = weighted(random.Random(f"war-aim/{self.player}"), ATTACK_MODES)
        self.objective = self._objective()
        self.rally = self._rally()
        self.striking = any(
            tf.owner == self.player and self._strikes(tf) for tf in view.task_forces.values()
        )
        self.siege = self.objective is not None and self.aim == "bombard" and not self.lost
        self.room: dict[str, int] = {}  # planet id -> millions more it takes this turn
        self.warships_end: set[str | None] = set()  # where this turn's warship moves end
        self.strikes_end: set[str | None] = set()  # where his strike forces' moves end
        self.staying: set[str] = set()  # warships ordered to hold their hex this turn
        self.fighter_room: dict[str, int] = {}  # hex -> replacement fighters it can take yet
        self.decoy_room: dict[str, int] = {}  # hex -> decoy drones its warships can take yet

    def _own_units(self) -> list[Unit]:
        mine = (u for u in self.view.units.values() if u.owner == self.player)
        return sorted(mine, key=unit_order)

    # ------------------------------------------------------------ task forces (004 5.1)

    def task_force_orders(self) -> tuple[TaskForceOrder, ...]:
        """Disband broken task forces, and now and then others; form new ones at random.

        A task force is broken when its flagship is lost, its ships are scattered or fewer than
        two are left. Ships join and leave before anyone moves (see rulings), so the rest of
        the orders are planned on the task forces these orders leave.
        """
        alive = {u.id: u for u in self.units}
        orders: list[TaskForceOrder] = []
        kept: set[str] = set()
        forces = sorted(
            (tf for tf in self.view.task_forces.values() if tf.owner == self.player),
            key=lambda tf: tf.id,
        )
        turn = self.view.turn
        for force in forces:
            members = [uid for uid in force.units if uid in alive]
            if any(alive[uid].plotted(turn) for uid in members):
                kept.update(members)  # bound by its plot: it stays as it is (004 section 6)
                continue
            scattered = len({alive[uid].hex for uid in members}) > 1
            if len(members) < 2 or scattered or force.units[0] not in alive:
                orders.append(TaskForceOrder(id=force.id))  # disband
            elif not self._strikes(force) and percent(self.rng, 10):
                orders.append(TaskForceOrder(id=force.id))
            else:
                kept.update(members)
        groups: dict[str | None, list[str]] = defaultdict(list)
        for unit in self.units:
            free = unit.id not in kept and not unit.plotted(turn)
            if unit.kind == "warship" and free:
                groups[unit.hex].append(unit.id)
        for where in sorted(groups, key=lambda h: h or ""):
            ships = groups[where]
            gathered = self.rally is not None and where == label(self.rally)
            if gathered and len(ships) >= STRIKE_FORCE:
                orders.append(TaskForceOrder(units=tuple(ships)))  # the strike force
            elif len(ships) >= 2 and percent(self.rng, 25):
                chosen = shuffled(self.rng, ships)[: between(self.rng, 2, len(ships))]
                orders.append(TaskForceOrder(units=tuple(chosen)))
        if not orders:
            return ()
        planned, problems = plan_task_forces(self.view, self.player, tuple(orders))
        if problems:
            return ()  # never expected: the orders above keep the rules of plan_task_forces
        formed = TaskForcesSet(player=self.player, task_forces=tuple(planned))
        self.view = evolve(self.view, formed)
        self.units = self._own_units()
        return tuple(orders)

    def _objective(self) -> Hex | None:
        """Where this empire's warships gather this turn (see OFFENSIVE_TURN), if anywhere."""
        if self.view.turn < OFFENSIVE_TURN:
            return None
        covered = self.command.covered()  # none of his warships may go further (004 L86)
        lost = [parse_label(self.view.colonies[c].hex) for c in self.lost]
        homes = [parse_label(c.hex) for c in self.colonies]
        if lost := [t for t in lost if t in covered]:
            return min(lost)
        targets = [t for t in self.targets if t in covered]
        if not targets or not homes:
            return None
        if self.aim == "bombard":
            # Devastation is for an enemy's heartland, his oldest and largest colonies: those
            # nearest an entry hex (public, 004 section 3) that is not his own.
            entry = self.starmap.entry(self.empire.entry).hex
            others = [e.hex for e in self.starmap.entries if e.hex != entry]
            if others:
                return min(targets, key=lambda t: (min(t.distance(e) for e in others), t))
        return min(targets, key=lambda t: (min(t.distance(h) for h in homes), t))

    def _border(self) -> Hex | None:
        """Seeking contact: the hex halfway between his colony and an enemy colony nearest each
        other, if within his command range. The enemy, whose colonies with command posts are
        as public as his (004 L86-89), finds the same hex from the same pair: both fleets
        make for it."""
        mine = {parse_label(c.hex) for c in self.colonies}
        if not mine or not self.targets:
            return None
        gap, a, b = min((m.distance(t), min(m, t), max(m, t)) for m in mine for t in self.targets)
        meet = line(a, b)[gap // 2]
        return meet if meet in self.command.covered() else None

    def _rally(self) -> Hex | None:
        """Where his warships gather for the strike on the objective: his nearest colony."""
        if self.objective is None or not self.colonies:
            return None
        objective = self.objective
        homes = sorted(parse_label(c.hex) for c in self.colonies)
        return min(homes, key=lambda h: h.distance(objective))

    def _strikes(self, force: TaskForce) -> bool:
        return self.objective is not None and len(force.units) >= STRIKE_FORCE

    def _has_system(self, name: str) -> bool:
        try:
            self.starmap.system(name)
        except KeyError:
            return False
        return True

    # ------------------------------------------------------------ movement and landings

    def moves_and_landings(self) -> tuple[tuple[Move, ...], tuple[Landing, ...]]:
        moves: list[Move] = []
        landings: list[Landing] = []
        heading: set[Hex] = set()  # systems a scout troop already makes for this turn
        forces = sorted(
            (tf for tf in self.view.task_forces.values() if tf.owner == self.player),
            key=lambda tf: tf.id,
        )
        turn = self.view.turn
        for force in forces:
            # A task force moves as its flagship does, every ship with it (004 5.1).
            flagship = self.view.units[force.units[0]]
            if flagship.plotted(turn):  # it follows its plot (004 section 6)
                end = flagship.plot[0] if flagship.plot else flagship.hex
                self.warships_end.add(end)
                if self._strikes(force):
                    self.strikes_end.add(end)
                continue
            reach = self._reach(flagship)
            if self._strikes(force) and reach and self.objective is not None:
                move = self._move(flagship, self._towards(self.objective, reach), "engage")
                self.strikes_end.add(move.to or flagship.hex)
            else:
                goal = self._warship_goal(flagship, reach)
                move = self._move(flagship, goal, weighted(self.rng, WARSHIP_ORDERS))
            moves.append(msgspec.structs.replace(move, unit=force.id))
            self.warships_end.add(move.to or flagship.hex)
            if move.to is None:
                self.staying.update(force.units)
        for unit in self.units:
            if unit.task_force is not None:
                continue  # ordered with its task force
            if unit.plotted(turn):  # it follows its plot (004 section 6)
                if unit.kind == "warship":
                    self.warships_end.add(unit.plot[0] if unit.plot else unit.hex)
                continue
            reach = self._reach(unit)
            if unit.kind == "scout-troop":
                moves += self._scout_moves(unit, reach, heading)
            elif unit.kind == "warship":
                goal = self._warship_goal(unit, reach)
                order = weighted(self.rng, WARSHIP_ORDERS)
                move = self._with_waypoint(unit, self._move(unit, goal, order))
                moves.append(move)
                # A waypoint is where it ends this turn (rules.movement).
                self.warships_end.add(move.via[0] if move.via else move.to or unit.hex)
                if move.to is None:
                    self.staying.add(unit.id)
            else:
                goal, landing = self._transport_plan(unit, reach, heading)
                if landing is not None and landing.colonists < unit.count and goal is not None:
                    # Only the colonists that land go (004 L31, L67): the rest wait.
                    split, new = self._split(unit, goal, landing.colonists)
                    moves.append(split)
                    landings.append(msgspec.structs.replace(landing, unit=new))
                    continue
                moves.append(self._move(unit, goal, "stand-off"))
                if landing is not None:
                    landings.append(landing)
        return tuple(moves), tuple(landings)

    def _scout_moves(self, unit: Unit, reach: dict[Hex, int], heading: set[Hex]) -> list[Move]:
        """A troop explores; now and then part of it explores elsewhere (004 L27, L67)."""
        moves = []
        if unit.count > 1 and percent(self.rng, SPLIT_PERCENT):
            part = between(self.rng, 1, unit.count - 1)
            goal = self._scout_goal(unit, reach, heading)
            if goal is not None:
                heading.add(goal)
                moves.append(self._split(unit, goal, part)[0])
        goal = self._scout_goal(unit, reach, heading)
        if goal is not None:
            heading.add(goal)
        return [*moves, self._move(unit, goal, "stand-off")]

    def _split(self, unit: Unit, goal: Hex, count: int) -> tuple[Move, str]:
        """A move of part of a unit, and the id the split will give that part: the next free
        number of its kind, in the order the moves are written (`rules.regroup`)."""
        new = next_unit_id(self.numbers, self.player, unit.kind)
        return Move(unit=unit.id, to=label(goal), order="stand-off", count=count), new

    def _with_waypoint(self, unit: Unit, move: Move) -> Move:
        """Now and then, plot a warship through a stop on this turn's way (004 section 6):
        the destination a turn beyond it, when its horizon allows two turns."""
        if move.to is None or horizon(self.view, unit) < 2 or not percent(self.rng, 25):
            return move
        stop = parse_label(move.to)
        beyond = self.starmap.reachable(stop, self.empire.speed, allowed=self.command.allowed(unit))
        systems = sorted(c for c in beyond if c != stop and self._system(c) is not None)
        if not systems:
            return move
        return msgspec.structs.replace(move, to=label(pick(self.rng, systems)), via=(move.to,))

    def attacks(self) -> tuple[Attack, ...]:
        """Attack known enemy colonies where warships end the move, now and then (004 5.4)."""
        found = []
        for name in sorted(self.foreign):
            where = label(self.starmap.system(name).hex)
            if where not in self.warships_end or not percent(self.rng, 80):
                continue
            lost = [cid for cid in self.lost if self.view.colonies[cid].system == name]
            if lost:  # his own colony, held by an enemy: liberate it (004 L207)
                found.append(Attack(system=name, mode="conquer", colony=lost[0]))
                continue
            mode = self.aim
            if mode == "bombard" and where not in self.strikes_end:
                continue  # a bombardment waits for the strike force and its guns (004 L220)
            found.append(Attack(system=name, mode=mode, colony=self._target_colony(name)))
        # Now and then an assault is to be called off after a few turns of battle if the
        # planetary defences still stand (004 L208-209).
        return tuple(
            msgspec.structs.replace(attack, call_off_after=between(self.rng, 1, 6))
            if percent(self.rng, CALL_OFF_PERCENT)
            else attack
            for attack in found
        )

    def _target_colony(self, name: str) -> str | None:
        """Now and then, the planet to attack in a system whose planets he knows (004 L204);
        otherwise every enemy colony there."""
        if name not in self.explored or not percent(self.rng, 50):
            return None
        planets = self.starmap.system(name).planets
        return planet_id(name, pick(self.rng, [p.orbit for p in planets])) if planets else None

    def _move(self, unit: Unit, goal: Hex | None, order: CombatOrder) -> Move:
        here = None if unit.hex is None else parse_label(unit.hex)
        to = None if goal is None or goal == here else label(goal)
        return Move(unit=unit.id, to=to, order=order)

    def _reach(self, unit: Unit) -> dict[Hex, int]:
        """Return the hexes the unit can end this turn's move in (004 5.1), with steps."""
        allowed = self.command.allowed(unit)
        speed = self.empire.speed
        if unit.hex is None:
            return self.starmap.reachable_from_entry(self.empire.entry, speed, allowed=allowed)
        return self.starmap.reachable(parse_label(unit.hex), speed, allowed=allowed)

    def _system(self, cell: Hex) -> StarSystem | None:
        return self.starmap.system_at(cell)

    def _unexplored(self, cell: Hex) -> bool:
        system = self._system(cell)
        return system is not None and system.name not in self.explored

    def _scout_goal(self, unit: Unit, reach: dict[Hex, int], heading: set[Hex]) -> Hex | None:
        if not reach:
            return None
        fresh = sorted(c for c in reach if self._unexplored(c) and c not in heading)
        if fresh:
            return pick(self.rng, fresh)
        # Nothing new within reach: close on the nearest unexplored system on the map.
        if not len(self.unknown) or percent(self.rng, 10):
            return pick(self.rng, sorted(reach))
        return pick(self.rng, closest_to_any(sorted(reach), self.unknown))

    def _warship_goal(self, unit: Unit, reach: dict[Hex, int]) -> Hex | None:
        if not reach:
            return None
        lacking = self._carriers_lacking(unit) if unit.stores > 0 else []
        if lacking and percent(self.rng, RESUPPLY_PERCENT):
            # A fleet tender brings its fighters to the nearest carriers lacking them: they
            # go aboard at the end of the turn, in the same hex (004 L198-201).
            here = None if unit.hex is None else parse_label(unit.hex)
            if here is not None:
                lacking.sort(key=lambda c: (c.distance(here), c))
            return self._towards(lacking[0], reach)
        if self.border is not None and self.rally is None and percent(self.rng, BORDER_PERCENT):
            return self._towards(self.border, reach)  # seeking contact (see `_border`)
        if self.rally is not None and percent(self.rng, RALLY_PERCENT):
            # To the rally point; once a strike force is out, on to join it at the objective.
            joining = self.objective if self.striking else None
            return self._towards(joining or self.rally, reach)
        if self.targets and percent(self.rng, 65):
            # Close on a known enemy colony (its command post is visible to all, 004 5.1).
            return self._towards(pick(self.rng, self.targets), reach)
        if unit.hex is not None and percent(self.rng, 35):
            return None  # hold position
        systems = sorted(c for c in reach if self._system(c) is not None)
        safe = [c for c in systems if not self._unexplored(c)]
        # Warships risk unexplored systems (004 5.2: lost on 1-2) only now and then.
        pool = safe or (systems if percent(self.rng, 30) else [])
        if pool and percent(self.rng, 70):
            return pick(self.rng, pool)
        return pick(self.rng, sorted(reach))

    def _towards(self, target: Hex, reach: dict[Hex, int]) -> Hex:
        """One of the reachable hexes nearest `target`."""
        best = min(c.distance(target) for c in reach)
        return pick(self.rng, sorted(c for c in reach if c.distance(target) == best))

    def _carriers_lacking(self, tender: Unit) -> list[Hex]:
        """Return the hexes of the player's other warships lacking fighters, in order."""
        return sorted(
            {
                parse_label(u.hex)
                for u in self.units
                if u.hex is not None and u.id != tender.id and missing_fighters(u)
            }
        )

    def _transport_plan(
        self, unit: Unit, reach: dict[Hex, int], scouted: set[Hex]
    ) -> tuple[Hex | None, Landing | None]:
        """Settle a known planet with room within reach, or make for one; explore only behind
        a scout troop (it rolls first and covers them, 004 L97-99), landing on arrival on a
        guessed orbit (004 L56-63)."""
        here = None if unit.hex is None else parse_label(unit.hex)
        frontier = self._frontier(unit) if self.front and reach else None
        if frontier is not None:  # seeking contact: the new colony nearest the others
            if frontier not in reach:
                safe = [c for c in reach if not self._unexplored(c)]
                goal = self._towards(frontier, dict.fromkeys(safe, 0)) if safe else None
                return (None if goal == here else goal), None
            pid, room = pick(self.rng, self._unsettled(self._landable(unit, frontier)))
            colonists = between(self.rng, 1, min(room, unit.count))
            self.room[pid] = room - colonists
            return frontier, Landing(unit=unit.id, planet=pid, colonists=colonists)
        settle = {c: p for c in reach if (p := self._landable(unit, c))}
        if settle:
            cell = pick(self.rng, sorted(settle))
            pid, room = pick(self.rng, settle[cell])
            colonists = between(self.rng, 1, min(room, unit.count))
            self.room[pid] = room - colonists
            return cell, Landing(unit=unit.id, planet=pid, colonists=colonists)
        behind = sorted(c for c in scouted if c in reach and self._unexplored(c))
        if behind and percent(self.rng, ARRIVAL_PERCENT):
            cell = pick(self.rng, behind)
            system = self._system(cell)
            assert system is not None
            orbit = between(self.rng, 1, GUESSED_ORBITS)
            colonists = between(self.rng, 1, min(unit.count, 10))
            return cell, Landing(
                unit=unit.id, planet=planet_id(system.name, orbit), colonists=colonists
            )
        if not reach or percent(self.rng, 20):
            return None, None
        # Move on, without ending in an unexplored system (transports roll there, 004 5.2).
        safe = sorted(c for c in reach if not self._unexplored(c))
        havens = [s.hex for s in self.starmap.systems if s.name in self.explored]
        if not safe:
            return None, None
        if havens:
            best = min(min(c.distance(h) for h in havens) for c in safe)
            near = [c for c in safe if min(c.distance(h) for h in havens) == best]
            if here is None or here not in near or percent(self.rng, 50):
                return pick(self.rng, near), None
            return None, None
        return (pick(self.rng, safe) if here is None else None), None

    def _frontmost(self, cells: list[Hex]) -> list[Hex]:
        """The cells nearest the other empires (`front`) when seeking contact, else all."""
        if not self.front:
            return cells
        far = {c: min(c.distance(f) for f in self.front) for c in cells}
        best = min(far.values())
        return [c for c in cells if far[c] == best]

    def _frontier(self, unit: Unit) -> Hex | None:
        """The system within his command range, explored, with a planet the transports could
        settle, that is nearest the other empires: where contact is sought (see `front`)."""
        covered = self.command.covered()
        found = [
            s.hex
            for s in self.starmap.systems
            if s.name in self.explored
            and s.hex in covered
            and self._unsettled(self._landable(unit, s.hex))
        ]
        return self._frontmost(sorted(found))[0] if found else None

    def _unsettled(self, planets: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """Those of `planets` (with their room) where no colony is: a new colony."""
        return [(pid, room) for pid, room in planets if pid not in self.view.colonies]

    def _landable(self, unit: Unit, cell: Hex) -> list[tuple[str, int]]:
        """Return the planets in `cell` the transports could land on now, with their room.

        004 5.5: an empty planet, or the player's own colony of the same kind of population
        (free or conquered, `may_join`), within capacity, in a system he explored; barren
        ones only with C.E.T. and transports built with it.
        """
        system = self._system(cell)
        if system is None or system.name not in self.explored or system.name in self.foreign:
            return []
        found = []
        for planet in system.planets:
            pid = planet_id(system.name, planet.orbit)
            if pid in self.view.devastated:
                continue  # 004 5.4: never resettled
            if planet.type == PlanetType.BARREN and not (
                technology.has_cet(self.empire.techs) and unit.cet
            ):
                continue
            colony = self.view.colonies.get(pid)
            if colony is not None and not may_join(colony, unit):
                continue  # not his, or a population these colonists may not mix with
            if pid not in self.room:
                present = colony.population if colony is not None else 0
                self.room[pid] = max(0, planet.capacity - present)
            if self.room[pid] > 0:
                found.append((pid, self.room[pid]))
        return found

    # ------------------------------------------------------------ production (004 5.7)

    def production_orders(self) -> tuple[tuple[ProductionOrder, ...], tuple[ResearchOrder, ...]]:
        """Spend each colony's IP on a random affordable mix; research first (see rulings)."""
        owned = frozenset(self.empire.techs)
        outputs = {c.id: production.produce(production_colony(self.view, c), self.view.turn, owned)
                   for c in self.colonies}  # fmt: skip
        budget = {cid: out.industrial_points for cid, out in outputs.items()}
        research, contributions, techs = self._research(owned, budget)
        orders = []
        for colony in self.colonies:
            order = self._spend(
                colony, outputs[colony.id], budget[colony.id], contributions[colony.id], techs
            )
            if order is not None:
                orders.append(order)
        return tuple(orders), research

    def _research(
        self, owned: frozenset[TechName], budget: dict[str, int]
    ) -> tuple[tuple[ResearchOrder, ...], dict[str, int], frozenset[TechName]]:
        """Choose technologies to buy in full this phase and which colonies pay for them."""
        contributions: dict[str, int] = defaultdict(int)
        total = sum(budget.values())
        if not total or not percent(self.rng, 50):
            return (), contributions, owned
        have = set(owned)
        bought: list[ResearchOrder] = []
        spend = 0
        for _ in range(2):
            options = sorted(
                t
                for t in TECHNOLOGIES
                if t not in have
                and technology.prerequisites_met(t, have)
                and spend + technology.price(t, have) <= total
            )
            if not options:
                break
            tech = pick(self.rng, options)
            spend += technology.price(tech, have)
            have.add(tech)
            bought.append(ResearchOrder(tech=tech))
            if not percent(self.rng, 30):
                break
        if not bought:
            return (), contributions, owned
        # Research is the one purchase pooled across colonies (004 L266): the richest pay.
        left = spend
        for cid in sorted(budget, key=lambda c: (-budget[c], c)):
            share = min(left, budget[cid])
            contributions[cid] = share
            budget[cid] -= share
            left -= share
        return tuple(bought), contributions, frozenset(have)

    def _spend(
        self,
        colony: Colony,
        output: production.ColonyOutput,
        ip: int,
        research: int,
        techs: frozenset[TechName],
    ) -> ProductionOrder | None:
        rng = self.rng
        available = output.population + output.excess
        emigrants = transports = 0
        # Emigrate the excess over capacity (lost otherwise, 004 L247-248), sometimes more.
        # A plausible player never empties a colony: at least 1M stays.
        if ip and available > 1 and (output.excess or percent(rng, 40)):
            most = min(available - 1, ip, max(output.excess, 1 + available // 4))
            emigrants = between(rng, min(output.excess, most) or 1, most)
            bonus = production.emigration_bonus(
                emigrants, output.growth, conquered=colony.conquered_from is not None
            )
            transports = emigrants + between(rng, 0, min(bonus, ip - emigrants))
            ip -= transports
        staying = output.population - max(0, emigrants - output.excess)
        factories = robotic = scouts = pdus = 0
        ships: list[ShipOrder] = []
        points = 0
        for item in shuffled(rng, ("factories", "scouts", "ships", "pdus")):
            if item == "factories":
                allowance = technology.factory_allowance(techs)
                if allowance.tech is None:
                    continue
                limit = allowance.limit(staying)
                standing = colony.factories + colony.robotic_factories
                room = MOST_FACTORIES if limit is None else min(MOST_FACTORIES, limit - standing)
                robot = "robotic-industry" in techs
                price = production.PRICES["robotic_factories" if robot else "factories"]
                count = between(rng, 0, max(0, min(room, ip // price)))
                ip -= count * price
                if robot:
                    robotic = count
                else:
                    factories = count
            elif item == "scouts" and percent(rng, 30):
                scouts = between(rng, 0, min(1, ip // production.PRICES["scout_troops"]))
                ip -= scouts * production.PRICES["scout_troops"]
            elif item == "pdus" and "pdu" in techs and percent(rng, 30):
                pdus = between(rng, 0, min(2, ip // production.PRICES["pdus"]))
                ip -= pdus * production.PRICES["pdus"]
            elif item == "ships" and percent(rng, 60):
                ships, points = self._ships(ip, colony.id)
                ip -= production.starship_cost(points)
        # Replacement fighters last, with what is left, into the tenders just ordered too.
        fighters = self._fighters(colony.hex, ships, points, ip)
        ip -= _extra_ip(points, fighter_points(fighters))
        points += fighter_points(fighters)
        decoys = self._decoys(colony.hex, ships, points, ip)
        order = ProductionOrder(
            colony=colony.id,
            colony_transports=transports,
            emigrants=emigrants,
            factories=factories,
            robotic_factories=robotic,
            scout_troops=scouts,
            pdus=pdus,
            ships=tuple(ships),
            research=research,
            fighters=fighters,
            decoys=decoys,
        )
        return None if order == ProductionOrder(colony=colony.id) else order

    def _ships(self, ip: int, colony: str) -> tuple[list[ShipOrder], int]:
        """Return the starships `colony` with `ip` to spend orders, and their FT points: a few
        escorts, now and then a carrier or a fleet tender (004 L197-201), or a specialist."""
        rng = self.rng
        ships: list[ShipOrder] = []
        points = 0
        design: str | None = None
        most = 1
        if self.siege and percent(rng, ORTILLERY_PERCENT):
            design, most = ORTILLERY_DESIGN, MOST_ORTILLERY  # to bombard the objective (004 L221)
        elif percent(rng, AUXILIARY_PERCENT):
            design = pick(rng, AUXILIARY_DESIGNS)
        if design is not None:  # first: the escorts make do with what is left
            cost = _design_points(design, self.view.battle_rules)
            count = 0
            while count < most and _extra_ip(points, cost) <= ip:
                ip -= _extra_ip(points, cost)
                points += cost
                count += 1
            if count:
                ships.append(ShipOrder(design=design, count=count))
        specialist = self._specialist(colony)
        if specialist is not None:
            cost = _design_points(specialist, self.view.battle_rules)
            if _extra_ip(points, cost) <= ip:
                ip -= _extra_ip(points, cost)
                points += cost
                ships.append(ShipOrder(design=specialist, count=1))
        for design in shuffled(rng, SHIP_DESIGNS):
            cost = _design_points(design, self.view.battle_rules)
            count = 0
            while percent(rng, 60) and _extra_ip(points, cost) <= ip:
                ip -= _extra_ip(points, cost)
                points += cost
                count += 1
            if count:
                ships.append(ShipOrder(design=design, count=count))
        return ships, points

    def _specialist(self, colony: str) -> str | None:
        """Return the specialist design (see SPECIALIST_DESIGNS) `colony` orders this turn, if
        any, from a die of its own."""
        designs = SPECIALIST_DESIGNS.get(self.view.battle_rules, ())
        rng = random.Random(f"specialists/{self.player}/{self.view.turn}/{colony}")
        if designs and percent(rng, SPECIALIST_PERCENT):
            return pick(rng, designs)
        return None

    def _fighters(self, hex_: str, ships: list[ShipOrder], points: int, ip: int) -> int:
        """Return the replacement fighters (004 L197-201) a colony in `hex_` buys with the `ip`
        it has left, its starships costing `points` so far (the fighters' points go on the
        same bill): no more than its hex's carriers lacking them and its fleet tenders' holds,
        those of the tenders in `ships` included, can take."""
        rules = self.view.battle_rules
        room = self._fighter_room(hex_) + sum(
            catalogue_ship(ship.design, rules).fighter_stores * ship.count for ship in ships
        )
        fighters = 0
        if room > 0 and percent(self.rng, FIGHTERS_PERCENT):
            most = room
            while most > 0 and _extra_ip(points, fighter_points(most)) > ip:
                most -= 1
            if most > 0:
                fighters = between(self.rng, 1, most)
        self.fighter_room[hex_] = room - fighters  # a system's colonies share its hex
        return fighters

    def _fighter_room(self, hex_: str) -> int:
        """Return the replacement fighters the player's warships holding `hex_` this turn can
        take yet, in their bays and holds: the production phase puts fighters aboard after
        the turn's moves, so a ship leaving takes its room with it."""
        if hex_ not in self.fighter_room:
            self.fighter_room[hex_] = sum(
                room_for_fighters(u) for u in self.units if u.hex == hex_ and u.id in self.staying
            )
        return self.fighter_room[hex_]

    def _decoys(self, hex_: str, ships: list[ShipOrder], points: int, ip: int) -> int:
        """Return the decoy drones (004 L39) a colony in `hex_` buys with the `ip` it has
        left, its starships and fighters costing `points` so far: no more than the warships
        staying in its hex without one, and those in `ships`, can take."""
        room = self._decoy_room(hex_) + sum(ship.count for ship in ships)
        rng = random.Random(f"decoys/{self.player}/{self.view.turn}/{hex_}")
        decoys = 0
        if room > 0 and percent(rng, DECOYS_PERCENT):
            most = room
            while most > 0 and _extra_ip(points, DECOY_POINTS * most) > ip:
                most -= 1
            if most > 0:
                decoys = between(rng, 1, most)
        self.decoy_room[hex_] = room - decoys  # a system's colonies share its hex
        return decoys

    def _decoy_room(self, hex_: str) -> int:
        """Return the decoy drones the player's warships holding `hex_` this turn can take."""
        if hex_ not in self.decoy_room:
            self.decoy_room[hex_] = sum(
                1 for u in self.units if u.hex == hex_ and u.id in self.staying and has_room(u)
            )
        return self.decoy_room[hex_]


def _design_points(design: str, rules: str) -> int:
    return catalogue_ship(design, rules).points  # as production prices it (004 L277)


def _extra_ip(points: int, more: int) -> int:
    """Return the IP that `more` Full Thrust points add to a colony's starship bill."""
    return production.starship_cost(points + more) - production.starship_cost(points)
