"""What a player sees to write his orders: the map he knows, his orders so far, the orders
template and the web page's orders desk, his offline package, a unit's reach. Each is
computed only from the events he may see.
"""

from __future__ import annotations

from functools import lru_cache

import msgspec

from campaign.battletold import read_named
from campaign.errors import IllegalCommandError
from campaign.events import (
    UMPIRE,
    BattleFought,
    BattleRequested,
    OrdersSubmitted,
    StarChartPublished,
    SystemExplored,
)
from campaign.ft2 import service as ft2
from campaign.package import TEMPLATE_FILE, package_files
from campaign.playermap import (
    Budget,
    Design,
    OrdersDesk,
    PlayerMap,
    Reach,
    Tech,
    build_player_map,
    player_map_svg,
    unit_reach,
)
from campaign.rules import decoys, economy, orders
from campaign.rules import production as production_rules
from campaign.rules import regroup as regroup_rules
from campaign.rules import taskforces as taskforce_rules
from campaign.rules.colonies import planets_to_land
from campaign.rules.setup import buildable_ships
from campaign.rules.technology import TechName
from campaign.service.base import PlayerChart, ServiceCore
from campaign.storetypes import Lineage
from campaign.strategic import Battle, SplitPart, TaskForce
from campaign.techlist import tech_rows
from maps import Entry, Planet, PlanetType, StarColour, StarMap, StarSystem, label, parse_label
from maps.svg import to_svg


@lru_cache(maxsize=64)
def _known_map(
    chart: StarChartPublished, explored: tuple[tuple[str, tuple[Planet, ...]], ...]
) -> StarMap:
    """The map as a player knows it: the public chart, with the planets of the systems he
    explored. A view over the chart's map, built once for each such knowledge and shared (a
    StarMap is never changed once built): every orders check and page of a turn asks for the
    same one (issue 19)."""
    return _chart_map(chart).with_planets(dict(explored))


@lru_cache(maxsize=16)
def _chart_map(chart: StarChartPublished) -> StarMap:
    """The public chart as a map (no planets): built once per campaign and process; the
    players' maps are views over it (issue 19)."""
    return StarMap(
        name=chart.name,
        title=chart.title,
        width=chart.width,
        height=chart.height,
        systems=[StarSystem(s.name, parse_label(s.hex), StarColour(s.colour)) for s in chart.stars],
        clouds=[parse_label(c) for c in chart.clouds],
        entries=[Entry(e.name, parse_label(e.hex)) for e in chart.entries],
    )


class PlayerDesks(ServiceCore):
    """A player's map, orders template and desk: the views he writes his orders from."""

    def player_map(self, lineage: Lineage, player: str) -> tuple[StarMap, tuple[str, ...]]:
        """Return the map as `player` knows it, and the systems he explored.

        Built only from his events: the public chart, and his exploration reports' planets;
        kept until he sees a new event (issue 19).
        """
        self._check_viewer(lineage, player)
        seen = self.load(lineage, viewer=player).version
        key = (lineage, player, seen, self.store.hash_at(lineage, seen))
        kept = self._player_maps.get(key)
        if kept is None:
            kept = self._player_maps[key] = self._build_player_map(lineage, player, seen, key[3])
            if len(self._player_maps) > 256:  # a hosted server's campaigns: keep the newest
                self._player_maps = {key: kept}
        return kept

    def _build_player_map(
        self, lineage: Lineage, player: str, seen: int, seen_hash: str | None
    ) -> tuple[StarMap, tuple[str, ...]]:
        """Build his map from his events up to version `seen`: those read for the map built
        before, while his history up to them is unchanged, and the ones after them (issue
        19: a map a turn, each read from the start, read his star chart again each time)."""
        chart = None
        planets: dict[str, tuple[Planet, ...]] = {}
        after = 0
        before = self._player_charts.get((lineage, player))
        if (
            before is not None
            and before.version <= seen
            and self.store.hash_at(lineage, before.version) == before.hash
        ):
            chart, planets, after = before.chart, dict(before.planets), before.version
        kinds = [StarChartPublished.TYPE, SystemExplored.TYPE]
        read = self.store.read(
            lineage, after_version=after, upto_version=seen, types=kinds, visible_to=player
        )
        for recorded in read:
            ev = recorded.event
            if isinstance(ev, StarChartPublished):
                chart = ev
            elif isinstance(ev, SystemExplored) and ev.explored:
                planets[ev.system] = tuple(
                    Planet(p.orbit, PlanetType(p.type), p.capacity, p.mineral_rich)
                    for p in ev.planets
                )
        if chart is None:
            raise IllegalCommandError("this campaign has no star chart (create it with --map)")
        self._player_charts[(lineage, player)] = PlayerChart(seen, seen_hash, chart, planets)
        if len(self._player_charts) > 256:  # a hosted server's campaigns: keep the newest
            self._player_charts = {(lineage, player): self._player_charts[(lineage, player)]}
        return _known_map(chart, tuple(sorted(planets.items()))), tuple(sorted(planets))

    def map_view(self, lineage: Lineage, player: str) -> PlayerMap:
        """Return what `player`'s map shows now (issue 16): his units, their destinations and
        reach, his colonies and posts, his command range, the enemies he knows of, his
        explored systems and last turn's battles. Computed only from the events he may see.
        """
        self._check_viewer(lineage, player)
        view = self.load(lineage, viewer=player)
        starmap, explored = self.player_map(lineage, player)
        kinds = [BattleRequested.TYPE, BattleFought.TYPE]
        told: dict[str, Battle] = {}
        last = max(view.turn - 1, 0)
        for recorded in read_named(self.store, lineage, player, turn=last, types=kinds):
            if isinstance(recorded.event, BattleRequested | BattleFought):
                told[recorded.event.battle.id] = recorded.event.battle
        battles = list(told.values())  # in the order he learnt of them
        mine = self.submitted_orders(lineage, player)
        moves = mine.moves if mine is not None else ()
        return build_player_map(view, starmap, explored, player, battles, moves)

    def submitted_orders(self, lineage: Lineage, player: str) -> orders.OrdersDocument | None:
        """Return `player`'s own orders recorded for the turn in progress (the last he sent,
        or those an umpire's ruling handed in for him), or None before he sent any.

        The submission is sealed from everyone else until the turn resolves; its author sees
        what he wrote (never its nonce, which keeps the commitment hiding).
        """
        self._check_viewer(lineage, player)
        state_turn = self.load(lineage, viewer=player).turn
        found = None
        for recorded in self.store.read(lineage, turn=state_turn, types=[OrdersSubmitted.TYPE]):
            if isinstance(recorded.event, OrdersSubmitted) and recorded.event.player == player:
                found = recorded.event
        return orders.submitted_document(found) if found is not None else None

    def orders_desk(self, lineage: Lineage, player: str) -> OrdersDesk:
        """Return what the web page's orders editor needs for `player` (issue 16): his map,
        his orders so far, the deadline, and on a production turn his colonies' IP, the
        prices, the designs and the technologies he may buy. Only from his own view.
        """
        self._check_viewer(lineage, player)
        view = self.load(lineage, viewer=player)
        empire = view.empires.get(player)
        if empire is None:
            raise IllegalCommandError(f"{player} has no empire in this campaign (no map?)")
        mine = self.submitted_orders(lineage, player)
        if mine is not None:
            document = mine
        else:
            document = orders.parse(self.orders_template(lineage, player), player, view.turn)
        desk = OrdersDesk(
            map=self.map_view(lineage, player),
            document=msgspec.to_builtins(document),
            received=tuple(orders.summary(document)) if mine is not None else (),
            deadline=view.deadline.isoformat() if view.deadline else None,
            now=self.store.clock().isoformat(),
            phase=view.phase,
        )
        owned = frozenset(empire.techs)
        if not economy.is_production_turn(view.turn) and not economy.treasury_open(view, empire):
            return desk
        budgets = []
        for colony in sorted(view.colonies.values(), key=lambda c: c.id):
            if colony.owner != player:
                continue
            output = production_rules.produce(
                economy.production_colony(view, colony),
                view.turn,
                owned,
                view.production_settings,
            )
            budgets.append(
                Budget(
                    colony=colony.id,
                    hex=colony.hex,
                    population=colony.population,
                    factories=colony.factories + colony.robotic_factories,
                    ip=output.industrial_points,
                    note=output.note,
                )
            )
        techs = [
            Tech(name=row.name, title=row.title, price=row.price)
            for row in tech_rows(owned)
            if row.price is not None and row.blocked is None
        ]
        return msgspec.structs.replace(
            desk,
            production=economy.is_production_turn(view.turn),
            budgets=tuple(budgets),
            prices=dict(production_rules.PRICES),
            ft_points_per_ip=production_rules.FT_POINTS_PER_IP,
            designs=tuple(
                Design(id=ship.design, hull_class=ship.hull_class, points=ship.points)
                for ship in buildable_ships(view, player)
            ),
            techs=tuple(techs),
            treasury=empire.ip if economy.treasury_open(view, empire) else 0,
            fighters_per_group=economy.FIGHTER_GROUP.bay or 6,
            fighter_group_points=economy.FIGHTER_GROUP.points,
            decoy_points=decoys.DECOY_POINTS,
        )

    def new_names(
        self, lineage: Lineage, player: str, document: orders.OrdersDocument
    ) -> tuple[tuple[SplitPart, ...], tuple[TaskForce, ...]]:
        """Return the new units the split moves of `player`'s orders would make and the task
        forces they would form, named as the turn will name them (`rules.regroup`: the next
        free numbers, in the moves' order; `rules.taskforces`): the orders editor lands a
        part, and moves a new task force, under its new id. From his own view."""
        self._check_viewer(lineage, player)
        view = self.load(lineage, viewer=player)
        splits = regroup_rules.plan_regroup(view, player, document.moves, document.merges).splits
        commands = taskforce_rules.plan_commands(view, player, document.task_forces)
        formed = tuple(tf for tf in commands.forces if tf.id not in view.task_forces)
        return splits, formed

    def map_svg(self, lineage: Lineage, player: str) -> str:
        """Return `player`'s map as SVG (`map_view` drawn): the published `map.svg`, the HTML
        report's map and the web page's. A player without an empire gets the chart he knows."""
        starmap, explored = self.player_map(lineage, player)
        view = self.load(lineage, viewer=player)
        if view.ft2 is not None:  # his fleets, scans and orders on the map (issue 20)
            return ft2.map_svg(self, lineage, player)
        if player not in view.empires:
            return to_svg(starmap, explored=explored)
        return player_map_svg(self.map_view(lineage, player), starmap, explored)

    def player_package(self, lineage: Lineage, player: str) -> dict[str, str]:
        """Return the files a player needs at home for the turn in progress (offline).

        `view.json` (his view, numbered by his own events), `map.toml` (the map as he knows
        it) and `template.toml` (his orders template): `umpire orders check` reads the first
        two. Computed only from the events he may see, and his own public signing key (for
        `umpire orders sign` to check a secret against).
        """
        view = self.state_at(lineage, viewer=player)
        known_map, _ = self.player_map(lineage, player)
        credentials = self.store.credentials(lineage.campaign, player)
        key = credentials.signing_key if credentials is not None else None
        files = package_files(lineage.campaign, lineage.branch, player, view, known_map, key)
        if not view.finished and (player in view.empires or view.ft2 is not None):
            files[TEMPLATE_FILE] = self.orders_template(lineage, player)
        if view.ft2 is not None:  # the FT2 campaign's report (issue 20)
            files["report.txt"] = "\n".join(ft2.report(self, lineage, player)) + "\n"
        return files

    def reach(
        self, lineage: Lineage, unit: str, viewer: str = UMPIRE, to: str | None = None
    ) -> Reach:
        """Return where `unit` can go this turn, checked as submission checks a move.

        A player asks against his own view and map (another's unit is not his to ask about,
        whether it exists or not); the umpire against the truth and the whole map.

        Raises:
            InvalidInputError: no such unit (for a player: none of his), or `to` is not a hex
                label on the map.
        """
        self._check_viewer(lineage, viewer)
        state = self.load(lineage, viewer=viewer)
        ft2.refuse_in_ft2(state, "umpire map reach")  # a fleet's reach: its orders template
        starmap = self.starmap(lineage) if viewer == UMPIRE else self.player_map(lineage, viewer)[0]
        return unit_reach(state, starmap, unit, viewer, to)

    def technologies(self, lineage: Lineage, player: str) -> tuple[TechName, ...]:
        """Return the technologies `player` owns, from his own view."""
        self._check_viewer(lineage, player)
        empire = self.load(lineage, viewer=player).empires.get(player)
        if empire is None:
            raise IllegalCommandError(f"{player} has no empire in this campaign (no map?)")
        return empire.techs

    def orders_template(self, lineage: Lineage, player: str) -> str:
        """Return a filled-in orders file for `player`: every unit, staying where it is."""
        self._check_viewer(lineage, player)
        state = self.load(lineage, viewer=player)
        if state.ft2 is not None:
            return ft2.orders_template(self, lineage, player)
        empire = state.empires.get(player)
        if empire is None:
            raise IllegalCommandError(f"{player} has no empire in this campaign (no map?)")
        known_map, _ = self.player_map(lineage, player)
        # His entry hex is on the public chart: the umpire's map file need not be read.
        entry_hex = label(known_map.entry(empire.entry).hex)
        return orders.template(state, player, entry_hex, planets_to_land(state, known_map, player))
