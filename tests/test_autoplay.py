"""Random playouts: whole campaigns of random legal orders, checked after every turn (issue 5).

Each campaign is 2-3 players on a small generated map (or on `classic`), played by
`campaign.autoplay` with dice seeded from the example's seed. After every turn a referee checks
the invariants the issue names: populations within capacity, every unit in one place and owned
by a player, IP never carried from one production phase to the next, the log replaying to the
same state, the hash chain, and that no player's view, log or report holds a fact he could not
know. Seeds are not shrunk: a smaller seed is not a simpler campaign.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign.autoplay import AutoplayResult, autoplay, format_orders, random_document
from campaign.battlenames import INTERNAL_ID, renamed
from campaign.battletold import battle_seen_by
from campaign.events import (
    BattleFought,
    BattleRequested,
    ColonistsLanded,
    ColonyConquered,
    LandingFailed,
    MoveLapsed,
    OrdersSubmitted,
    ProductionResolved,
    RecordedEvent,
    ShipsSighted,
    UnitsSplit,
)
from campaign.players import PlayerSecrets
from campaign.projections import CampaignState
from campaign.rules import production
from campaign.rules.battles import carried_state, unit_sheet
from campaign.rules.colonies import command_post_hexes
from campaign.rules.orders import parse
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import BattleKnowledge, Colony, ShipResult
from cli import app
from maps import StarMap, generate, parse_label, save_map
from tests.conftest import CountingNonces, FixedClock

PLAYERS = ("red", "blue", "green")
TURNS = 10
# Playouts are whole campaigns: a few seeds each, never shrunk (see the module docstring).
PLAYOUTS = settings(max_examples=20, deadline=None, derandomize=True, phases=[Phase.generate])


@pytest.fixture(scope="module")
def map_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("maps")


def small_map(seed: int, players: int, folder: Path) -> str:
    """Write a small generated map (close quarters: contact, battles) and return its path."""
    path = folder / f"generated-{seed}-{players}.toml"
    if not path.exists():
        save_map(generate(seed, players=players, stars=6 + 3 * players), path)
    return str(path)


@pytest.fixture
def service() -> Iterator[CampaignService]:
    opened = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    yield opened
    opened.close()


def start(service: CampaignService, seed: int, map_spec: str, players: int) -> Lineage:
    plan = plan_campaign(
        f"auto{seed}", PLAYERS[:players], seed=f"dice-{seed}", max_turns=TURNS, map_spec=map_spec
    )
    service.new_campaign(plan)
    return service.target(f"auto{seed}")


# ---------------------------------------------------------------- the referee


# What a production phase notes when part of an empire's orders no longer held.
PARTIAL_NOTES = (
    "is under siege (004 5.4)",
    "its orders lapsed",
    "fighters were not bought",
    "decoy drones were not bought",
)


class Referee:
    """Checks every invariant after each turn; `autoplay` calls it as its progress hook."""

    def __init__(
        self,
        service: CampaignService,
        lineage: Lineage,
        web_secrets: dict[str, str] | None = None,
        seek_contact: bool = False,
    ) -> None:
        """`web_secrets` (player -> secret) also has every page of the players' web page
        checked, each player signed in with his own secret. `seek_contact`: the players'
        orders are drawn so (`random_document`)."""
        self.service = service
        self.seek_contact = seek_contact
        self.lineage = lineage
        self.web_secrets = web_secrets or {}
        self.clients: dict[str, Any] = {}  # player -> his signed-in web client
        self.starmap: StarMap = service.starmap(lineage)
        state = service.load(lineage)
        self.players = state.players
        self.gone: set[str] = set()  # units destroyed or used up: their ids never come back
        self.alive: set[str] = set(state.units)
        self.turns: list[int] = []
        self.battles_checked: set[tuple[str, str]] = set()  # (player, battle id)
        self.reports_read: set[tuple[str, str]] = set()  # (player, battle id as he knows it)

    def __call__(self, turn: int) -> None:
        self.turns.append(turn)
        state = self.service.load(self.lineage)
        log = self.service.log(self.lineage)
        views = {p: self.service.load(self.lineage, viewer=p) for p in self.players}
        logs = {p: self.service.log(self.lineage, viewer=p) for p in self.players}
        self.replay_and_chain(state)
        self.colonies_within_capacity(state)
        self.units_in_one_place(state, views)
        self.fighters_within_bays_and_holds(state)
        self.ip_never_saved(turn, log)
        self.campaign_rules_hold(state, log)
        for player in self.players:
            seen = logs[player]
            visible = [e.hash for e in log if e.audience.may_see(player)]
            assert [e.hash for e in seen] == visible  # the store filters by audience
            # ... and his view numbers his events only (issue 13: gaps would count others')
            assert [e.version for e in seen] == list(range(1, len(seen) + 1))
            # ... and names his battles as he knows them: no internal id, which counts the
            # turn's other battles (campaign.battlenames), in any event of any type (those
            # of the turns before were read at their turn's end).
            recent = [e.event for e in seen if e.turn >= turn - 1]
            named = INTERNAL_ID.search(msgspec.json.encode(recent).decode())
            assert named is None, (player, named)
            lost = {
                e.event.colony.id
                for e in seen
                if isinstance(e.event, ColonyConquered) and e.event.previous_owner == player
            }
            self.view_is_own(player, state, views[player], lost)
            met = self.log_holds_only_what_he_knows(player, seen)
            self.report_holds_only_what_he_knows(player, met, lost)
            self.battles_tell_only_what_his_side_knew(player, log, seen)
            self.orders_ignore_hidden_information(player, state, views[player])

    def replay_and_chain(self, state: CampaignState) -> None:
        assert self.service.load(self.lineage, use_snapshots=False) == state
        verified = self.service.verify(self.lineage)
        assert verified.ok, verified.problem

    def campaign_rules_hold(self, state: CampaignState, log: list[RecordedEvent]) -> None:
        """Issue 12's invariants: liberated colonies are free, holding binds nothing, splits
        and merges keep every ship, admirals wait in a reserve, lapses go to their owner."""
        for colony in state.colonies.values():
            assert colony.conquered_from != colony.owner, colony  # liberation frees it
        for unit in state.units.values():
            if unit.plotted(state.turn):  # a place for every turn it binds, never a bare hold
                assert unit.plot_until is not None
                assert len(unit.plot) == unit.plot_until - state.turn + 1, unit
        for player, reserve in state.reserve_admirals.items():
            assert reserve, player
            assert all(a.level in (1, 2, 3) for a in reserve), reserve
        before: dict[str, int] = {}
        for recorded in log:
            ev = recorded.event
            if isinstance(ev, UnitsSplit):
                for part in ev.parts:
                    assert part.new_unit not in before, part  # a fresh id, never reused
                    before[part.new_unit] = part.count
                    assert part.count >= 1, part
            if isinstance(ev, MoveLapsed | LandingFailed):
                owner = ev.unit.split("-", 1)[0]
                assert recorded.audience.players == (owner,), recorded
            if isinstance(ev, ShipsSighted):
                assert recorded.audience.players == (ev.player,), recorded
                for sighting in ev.sightings:
                    assert all(c.owner != ev.player for c in sighting.ships), sighting

    def colonies_within_capacity(self, state: CampaignState) -> None:
        for colony in state.colonies.values():
            assert 0 <= colony.population <= colony.capacity, colony  # 004 5.5, 5.7.1
            assert colony.owner in self.players, colony
            assert colony.id not in state.devastated, colony  # 004 5.4: never resettled

    def units_in_one_place(self, state: CampaignState, views: dict[str, CampaignState]) -> None:
        units = state.units
        for uid, unit in units.items():
            assert uid == unit.id
            assert unit.owner in self.players, unit
            assert uid.startswith(f"{unit.owner}-"), unit
            assert unit.count >= 1, unit
            assert unit.hex is None or self.starmap.contains(parse_label(unit.hex)), unit
        # One place each: every unit is in exactly its owner's view, where the umpire has it.
        holders: dict[str, list[str]] = {}
        for player, view in views.items():
            for uid, unit in view.units.items():
                holders.setdefault(uid, []).append(player)
                assert unit == units.get(uid), (player, unit, units.get(uid))
        assert {uid: [u.owner] for uid, u in units.items()} == holders
        now = set(units)
        assert not now & self.gone, f"units back from the dead: {sorted(now & self.gone)}"
        self.gone |= self.alive - now
        self.alive = now

    def fighters_within_bays_and_holds(self, state: CampaignState) -> None:
        """004 L197-201: a fleet tender's hold is its design's, and never holds more; a
        carrier's bays never hold more fighters than they take."""
        for unit in state.units.values():
            assert 0 <= unit.stores <= unit.hold, unit
            if unit.kind != "warship" or unit.design is None:
                assert unit.hold == 0, unit
                continue
            sheet = unit_sheet(unit)  # its design under the rules it was built to
            assert unit.hold == sheet.fighter_stores, unit
            records = [unit.record, carried_state(unit, state.turn)]
            for record in (r for r in records if r is not None):
                assert len(record.systems) == len(sheet.systems), unit
                for spec, system in zip(sheet.systems, record.systems, strict=True):
                    assert spec.id == system.id, (unit.id, spec, system)
                    if system.fighters is not None:
                        assert spec.bay_capacity is not None, (unit.id, system)
                        assert 0 <= system.fighters <= spec.bay_capacity, (unit.id, system)

    def ip_never_saved(self, turn: int, log: list[RecordedEvent]) -> None:
        """004 L267: what a production phase spends is what that phase produced, no more."""
        for recorded in log:
            ev = recorded.event
            if recorded.turn != turn or not isinstance(ev, ProductionResolved):
                continue
            before = self.service.load(self.lineage, upto_version=recorded.version - 1)
            owned = frozenset(before.empires[ev.player].techs)
            produced = sum(
                production.produce(_production_colony(c), ev.turn, owned).industrial_points
                for c in before.colonies.values()
                if c.owner == ev.player
            )
            assert ev.produced_ip == produced, (ev.player, ev.produced_ip, produced)
            assert 0 <= ev.lost_ip <= ev.produced_ip
            # Orders that fail spend nothing. A siege, a colony lost, fighters no longer with
            # room are not failures: the owner could not know of them, so only what they bar
            # goes unbought and the rest stands (campaign.rules.economy).
            if [p for p in ev.problems if not any(note in p for note in PARTIAL_NOTES)]:
                assert ev.lost_ip == ev.produced_ip
            # The empire's IP never grow from what a phase left over; the starting treasury
            # is lost at the first phase under the default setting (004 L267).
            expire = before.production_settings.starting_ip == "expire"
            assert ev.empire.ip == (0 if expire else before.empires[ev.player].ip)

    def view_is_own(
        self, player: str, state: CampaignState, view: CampaignState, lost: set[str]
    ) -> None:
        assert set(view.empires) == {player}
        assert view.empires[player] == state.empires[player]
        mine = {k: c for k, c in state.colonies.items() if c.owner == player}
        assert {k: c for k, c in view.colonies.items() if c.owner == player} == mine
        # Someone else's colony only as he last saw it: one he lost to a conquest (004 5.4).
        others = {k for k, c in view.colonies.items() if c.owner != player}
        assert others <= lost, (player, sorted(others - lost))
        for battle in view.pending_battles.values():
            assert player in {s.player for s in battle.sides}

    def log_holds_only_what_he_knows(self, player: str, seen: list[RecordedEvent]) -> set[str]:
        """Check a player's log; return the enemy warships he met in battle (their ids)."""
        foreign = _foreign_ids(player, self.players)
        met: set[str] = set()  # enemy warships he fought: their ids are on the table
        for recorded in seen:
            ev = recorded.event
            text = msgspec.json.encode(ev).decode()
            if isinstance(ev, BattleRequested | BattleFought):
                sides = {s.player: s.units for s in ev.battle.sides}
                assert player in sides, (player, recorded.type, ev.battle.id)
                met.update(u for p, units in sides.items() if p != player for u in units)
                assert set(foreign.findall(text)) <= met
                continue
            leaked = foreign.findall(text)
            assert not leaked, (player, recorded.version, recorded.type, leaked)
            if isinstance(ev, ColonistsLanded):
                assert ev.colony.owner == player, (player, ev)
            if isinstance(ev, ColonyConquered):
                assert player in (ev.colony.owner, ev.previous_owner)
            if isinstance(ev, ProductionResolved):
                assert ev.player == player
                assert all(c.owner == player for c in ev.colonies)
                assert all(u.owner == player for u in ev.units)
        return met

    def battles_tell_only_what_his_side_knew(
        self, player: str, log: list[RecordedEvent], seen: list[RecordedEvent]
    ) -> None:
        """Under closed record sheets (Continuum, 000 L1462-1466) a player learns of an enemy
        ship's damage only what his side's sensors knew at the battle's end (docs/rulings.md,
        "Campaign: what a side learns of an enemy ship's fate"): his `battle_fought` has no
        journal or dice, and of an enemy ship it did not know to the last detail
        (`known_level` below "everything") only the fate, its hull lost not told (None), in
        the event and in his report; of what each side knew, only his own side's."""
        whole = {e.hash: e.event for e in log if isinstance(e.event, BattleFought)}
        for recorded in seen:
            told = recorded.event
            if not isinstance(told, BattleFought):
                continue
            if (player, told.battle.id) in self.battles_checked:
                continue
            self.battles_checked.add((player, told.battle.id))
            # He knows the battle by its turn and hex (docs/rulings.md, "Campaign: a battle's id
            # as a player knows it"): the umpire's event named so is what he reads.
            truth = whole[recorded.hash]
            assert not INTERNAL_ID.search(msgspec.json.encode(told).decode()), told.battle.id
            assert told.battle.id.startswith(f"t{recorded.turn}-{truth.battle.hex}")
            fought = renamed(truth, {truth.battle.id: told.battle.id}.get)
            assert isinstance(fought, BattleFought)
            # An enemy admiral's level is his side's own ("Campaign: an enemy admiral's level"),
            # until a battle fought under open record sheets shows it with its journal.
            if told.journal is None:
                assert all(s.admiral is None for s in told.battle.sides if s.player != player)
                assert told.battle == battle_seen_by(fought.battle, player)
            else:
                assert told.battle == fought.battle
            fought = msgspec.structs.replace(fought, battle=told.battle)
            self.recorded_knowledge_tells_as_the_replay(player, fought, told)
            hidden = _damage_not_known(fought, player)
            if hidden is None:  # open books, or fought at the table: all of it told
                assert told == fought
                continue
            assert (told.journal, told.rolls) == (None, ()), (player, told.battle.id)
            assert told.knowledge is not None
            assert {k.side for k in told.knowledge.ships} == {player}, told.knowledge
            for result in told.results:
                if result.unit in hidden:
                    assert result == ShipResult(
                        unit=result.unit,
                        fate=result.fate,
                        to_hex=result.to_hex,
                        hull_lost=None,
                        bridge_failures=None,
                    ), (player, result)
            truth = {r.unit: r.fate for r in fought.results}
            assert {r.unit: r.fate for r in told.results} == truth  # fates seen by all
            report = self.service.battle_report(self.lineage, told.battle.id, player)
            for fate in report.fates:
                if fate.id in hidden:
                    unknown = (fate.hull_lost, fate.damaged, fate.destroyed, fate.fighters_lost)
                    assert unknown == (None, None, None, None), (player, fate)
            for force in report.forces:
                if force.id in hidden:
                    assert (force.hull_left, force.fighters) == (None, None), (player, force)

    @staticmethod
    def recorded_knowledge_tells_as_the_replay(
        player: str, fought: BattleFought, told: BattleFought
    ) -> None:
        """A battle the engine fought records what each side knew at its end; that record is
        what replaying its journal works out (`replayed_knowledge`, the telling of an event
        from before it was recorded), so the event is told the same with or without it."""
        from campaign.battleknowledge import replayed_knowledge
        from campaign.battletold import battle_as_told

        if fought.source != "engine":
            assert fought.knowledge is None  # recorded by hand: nothing hidden
            return
        assert fought.knowledge is not None, fought.battle.id
        old = msgspec.structs.replace(fought, knowledge=None)
        replayed = replayed_knowledge(old)
        no_battle = BattleKnowledge(closed=False)  # one side was gone: nothing to replay
        assert fought.knowledge == (no_battle if replayed is None else replayed), fought.battle.id
        assert battle_as_told(fought, player) == told
        # The same but for the record itself, which the old event lacks (told as it is).
        as_old = msgspec.structs.replace(battle_as_told(old, player), knowledge=None)
        assert as_old == msgspec.structs.replace(told, knowledge=None)
        if told.journal is None:  # cut: the record of his side's knowledge, either way
            assert battle_as_told(old, player) == told

    def report_holds_only_what_he_knows(self, player: str, met: set[str], lost: set[str]) -> None:
        report = self.service.report(self.lineage, player)
        assert report.empire is not None
        assert report.empire.player == player
        assert all(u.owner == player for u in report.units)
        assert all(c.owner == player or c.id in lost for c in report.colonies)
        assert all(e.audience.may_see(player) for e in report.news)
        text = msgspec.json.encode(report).decode()
        # His history too: the report of the turn before, as it was then (issue 6).
        if report.turn > 1:
            history = self.service.report(self.lineage, player, report.turn - 1)
            text += msgspec.json.encode(history).decode()
        if player in self.web_secrets:
            text += "".join(self.web_pages(player))
        # His battle reports and replays (issue 16): only his battles, only their table. A
        # report, once fought, is the same every turn after: each is read on the turn it is
        # new, when the fewest enemies are met, and the list of all his battles every turn.
        from campaign import render

        fought = self.service.fought_battles(self.lineage, player)
        text += " ".join(fought)
        for battle_id in fought:
            if (player, battle_id) in self.reports_read:
                continue
            self.reports_read.add((player, battle_id))
            battle = self.service.battle_report(self.lineage, battle_id, player)
            assert player in battle.sides
            text += msgspec.json.encode(battle).decode() + render.battle_replay_html(battle)
        leaked = set(_foreign_ids(player, self.players).findall(text)) - met
        assert not leaked, (player, sorted(leaked))

    def web_pages(self, player: str) -> list[str]:
        """Every page of the players' web page, as `player` signed in (once) sees them."""
        from starlette.testclient import TestClient

        from campaign.web import create_app
        from tests.test_web import sign_in

        if player not in self.clients:
            client = TestClient(create_app(self.service, secret_key="referee", https_only=False))
            sign_in(client, self.lineage.campaign, player, self.web_secrets[player])
            self.clients[player] = client
        client = self.clients[player]
        pages = [client.get(page) for page in ("/report", "/map.svg", "/map", "/orders", "/log")]
        assert all(page.status_code == 200 for page in pages), player
        return [page.text for page in pages]

    def close(self) -> None:
        """Close the web clients."""
        for client in self.clients.values():
            client.close()

    def orders_ignore_hidden_information(
        self, player: str, state: CampaignState, view: CampaignState
    ) -> None:
        """The driver's orders come out the same from the umpire's state and full map as
        from the player's view and his map (the public chart and what he explored)."""
        if view.finished:
            return
        if command_post_hexes(state, player) != command_post_hexes(view, player):
            # A siege of his colony he cannot see: his orders are planned with the command
            # post it would cost him (docs/rulings.md, sieges), the umpire's without it.
            return
        seed = f"{self.lineage.campaign}/{player}/{view.turn}"
        chart, _ = self.service.player_map(self.lineage, player)
        contact = self.seek_contact
        mine = random_document(view, chart, player, random.Random(seed), contact)
        umpire = random_document(state, self.starmap, player, random.Random(seed), contact)
        differ = {
            field: (
                set(getattr(mine, field)) - set(getattr(umpire, field)),
                set(getattr(umpire, field)) - set(getattr(mine, field)),
            )
            for field in mine.__struct_fields__
            if getattr(mine, field) != getattr(umpire, field)
        }
        assert not differ, (player, view.turn, differ)
        assert parse(format_orders(mine), player, view.turn) == mine  # the file round-trips


def _foreign_ids(player: str, players: tuple[str, ...]) -> re.Pattern[str]:
    others = "|".join(re.escape(p) for p in players if p != player)
    return re.compile(rf"\b(?:{others})-[WST]\d+\b")


def _production_colony(c: Colony) -> production.Colony:
    return production.Colony(
        name=c.id,
        planet_type=c.planet_type,
        population=c.population,
        capacity=c.capacity,
        factories=c.factories + c.robotic_factories,
        mineral_rich=c.mineral_rich,
        conquered=c.conquered_from is not None,
        conquered_on_turn=c.conquered_turn,
    )


def unforeseeable(result: AutoplayResult) -> None:
    """Every refused orders file was refused for a siege, which its player cannot see.

    004 5.4: a besieged colony builds no starships or transports, but nothing tells its owner
    that enemy warships sit in its system (see the report to the lead), so the driver cannot
    avoid these. Any other refusal is a driver bug.
    """
    for refusal in result.refusals:
        problems = refusal.problem.split(": ", 1)[1].split("; ")
        assert all("besieged colony" in p for p in problems), refusal


def _damage_not_known(fought: BattleFought, player: str) -> set[str] | None:
    """The enemy ships (campaign ids) whose damage `player`'s side had not learned when
    `fought` ended (`tactical.phases.knowledge.known_level` below "everything"); None when
    record sheets were open or there is no journal (a battle fought at the table)."""
    from campaign.rules.battles import engine_id
    from tactical.battle import BattleSetup, decode_journal, replay
    from tactical.phases.knowledge import known_level, sheets_closed
    from tactical.sensors import DAMAGE_KNOWN
    from tactical.setup import context

    if not fought.journal or not fought.journal.startswith('{"request"'):
        return None
    record = msgspec.json.decode(fought.journal)
    setup = msgspec.convert(record["setup"], BattleSetup)
    ctx = context(setup)
    if not sheets_closed(ctx):
        return None
    final = replay(setup, decode_journal(msgspec.json.encode(record["journal"])))
    names = {engine_id(r.unit): r.unit for r in fought.results}
    return {
        names.get(ship.id, ship.id)
        for ship in final.ships
        if ship.side != player and known_level(ctx, final, player, ship) < DAMAGE_KNOWN
    }


# ---------------------------------------------------------------- the properties


@PLAYOUTS
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_random_campaigns_keep_every_invariant(seed: int, map_dir: Path) -> None:
    """Battles recorded by hand (random outcomes): the whole campaign, checked every turn."""
    players = 2 + seed % 2
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    try:
        lineage = start(service, seed, small_map(seed, players, map_dir), players)
        keys = PlayerSecrets(service.store)
        web = {player: keys.issue(lineage.campaign, player) for player in PLAYERS[:players]}
        referee = Referee(service, lineage, web_secrets=web)  # his web page too, every turn
        result = autoplay(service, lineage, TURNS, seed, resolve_battles=False, progress=referee)
        referee.close()
        assert referee.turns == list(range(1, TURNS + 1)) == list(result.turns)
        assert result.finished
        unforeseeable(result)
    finally:
        service.close()


@pytest.mark.parametrize("seed", [9, 11, 15, 17])
def test_campaigns_with_battles_fought_by_the_engine(
    seed: int, map_dir: Path, service: CampaignService
) -> None:
    """The tactical engine fights every battle; seeds chosen for close contact and battles."""
    players = 2 + seed % 2
    lineage = start(service, seed, small_map(seed, players, map_dir), players)
    referee = Referee(service, lineage)
    result = autoplay(service, lineage, TURNS, seed, progress=referee)
    assert result.finished
    assert result.battles > 0
    fought = [e.event for e in service.log(lineage, types=["battle_fought"])]
    assert all(isinstance(ev, BattleFought) and ev.source == "engine" for ev in fought)
    unforeseeable(result)


def test_a_classic_campaign(service: CampaignService) -> None:
    """The built-in map: three empires, ten turns, two production phases."""
    lineage = start(service, 11, "classic", 3)
    referee = Referee(service, lineage)
    result = autoplay(service, lineage, TURNS, 11, progress=referee)
    assert result.finished
    unforeseeable(result)
    state = service.load(lineage)
    assert state.colonies  # the transports settled somewhere
    assert any(e.explored for e in state.empires.values())


def test_a_fleet_tender_built_with_replacement_fighters(
    service: CampaignService, map_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """004 L197-201: the first production phase builds a fleet tender and buys replacement
    fighters at its colony, which go into the new tender's hold. The driver is told to build
    tenders and buy fighters whenever it can, so the test does not hang on one seed's luck."""
    from campaign import random_orders

    monkeypatch.setattr(random_orders, "AUXILIARY_DESIGNS", ("fleet_tender",))
    monkeypatch.setattr(random_orders, "AUXILIARY_PERCENT", 100)
    monkeypatch.setattr(random_orders, "FIGHTERS_PERCENT", 100)
    lineage = _past_the_first_production(service, map_dir)
    orders = {
        (e.event.player, e.event.turn): e.event
        for e in service.log(lineage, types=["orders_submitted"])
        if isinstance(e.event, OrdersSubmitted)  # the last submission counts
    }
    resolved = [
        e.event
        for e in service.log(lineage, types=["production_resolved"])
        if isinstance(e.event, ProductionResolved)
    ]
    loaded = [u for ev in resolved for u in ev.units if u.stores > 0]
    assert loaded
    assert all(u.design == "fleet_tender" and u.hold == 24 for u in loaded), loaded
    for ev in resolved:
        bought = sum(o.fighters for o in orders[ev.player, ev.turn].production)
        assert not ev.rearmed  # no carrier lacks fighters yet, no tender was there before
        assert sum(u.stores for u in ev.units) == bought, ev


def _past_the_first_production(service: CampaignService, map_dir: Path) -> Lineage:
    """Four refereed turns of a two-player campaign whose first production phase buys ships
    (seed 102, the Continuum fleets of issue 15), every order and purchase accepted."""
    lineage = start(service, 102, small_map(102, 2, map_dir), 2)
    result = autoplay(service, lineage, 4, 102, progress=Referee(service, lineage))
    assert result.turns == (1, 2, 3, 4)
    assert not result.refusals
    assert not result.production_problems
    return lineage


def test_random_players_build_the_specialist_designs(
    service: CampaignService, map_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: the random players build, now and then, the Continuum designs that field ECM
    and area ECM, scatterguns and grapeshot, or heavy missiles; told here to build one at every
    colony that builds ships, the production phase builds them without a problem."""
    from campaign import random_orders

    monkeypatch.setattr(random_orders, "SPECIALIST_PERCENT", 100)
    lineage = _past_the_first_production(service, map_dir)
    assert service.load(lineage).battle_rules == "continuum"
    built = {
        u.design
        for e in service.log(lineage, types=["production_resolved"])
        if isinstance(e.event, ProductionResolved)
        for u in e.event.units
    }
    assert built & set(random_orders.SPECIALIST_DESIGNS["continuum"])


def test_players_who_seek_contact_meet_and_keep_every_invariant(tmp_path: Path) -> None:
    """Issue 19: on a map where the empires never meet in 24 turns, players who seek contact
    (`random_orders.CONTACT_TURN`: transports settle towards the others, warships make for the
    border) meet and fight, from what each knows alone, the same way from the same seed."""
    path = tmp_path / "wide.toml"
    save_map(generate(3, players=2, stars=60), path)
    battles = []
    chains = []
    for contact, refereed in ((False, False), (True, True), (True, False)):
        service = CampaignService.open(
            "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
        )
        plan = plan_campaign("wide", PLAYERS[:2], seed="dice-3", max_turns=24, map_spec=str(path))
        service.new_campaign(plan)
        lineage = service.target("wide")
        referee = Referee(service, lineage, seek_contact=contact) if refereed else None
        result = autoplay(
            service, lineage, 24, 3, resolve_battles=False, progress=referee, seek_contact=contact
        )
        assert result.finished
        unforeseeable(result)
        battles.append(result.battles)
        chains.append([e.hash for e in service.store.read(lineage)])
        service.close()
    assert battles[0] == 0
    assert battles[1] > 0
    assert chains[1] == chains[2]


def test_same_seed_same_campaign(map_dir: Path) -> None:
    chains = []
    for _ in range(2):
        service = CampaignService.open(
            "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
        )
        lineage = start(service, 7, small_map(7, 3, map_dir), 3)
        autoplay(service, lineage, 6, seed=42)
        chains.append([e.hash for e in service.store.read(lineage)])
        service.close()
    assert chains[0] == chains[1]
    assert len(chains[0]) > 50


def test_autoplay_stops_at_the_campaigns_end(service: CampaignService, map_dir: Path) -> None:
    lineage = start(service, 2, small_map(2, 2, map_dir), 2)
    seen: list[int] = []
    first = autoplay(service, lineage, 3, seed=1, progress=seen.append)
    assert (first.turns, first.turn, first.finished, seen) == ((1, 2, 3), 4, False, [1, 2, 3])
    assert "Played turns 1-3 of auto2 (main)" in first.summary()
    rest = autoplay(service, lineage, 99, seed=1)
    assert rest.turns == tuple(range(4, TURNS + 1))
    assert rest.finished
    assert "campaign over, winner" in rest.summary()
    assert autoplay(service, lineage, 5, seed=1).turns == ()


# ---------------------------------------------------------------- the command


def test_the_autoplay_command(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "auto.db")

    def umpire(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == code, result.output
        return result.output

    umpire("new", "g", "--players", "red,blue", "--map", "classic", "--seed", "1")
    output = umpire("autoplay", "--turns", "4", "--seed", "3")
    assert "Played turns 1-4 of g (main)" in output
    assert "now turn 5 of 44" in output
    assert "turn               5 of 44" in umpire("status")
    # Battles recorded by hand (random outcomes) instead of fought by the engine.
    assert "Played turn 5 of g (main)" in umpire("autoplay", "--turns", "1", "--record")
    assert "no campaign" in umpire("autoplay", "--campaign", "nope", code=2)
    missing = runner.invoke(app, ["autoplay", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2
    assert "no database at" in missing.output
    assert "Traceback" not in missing.output


@given(
    st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6)), min_size=1, max_size=20),
    st.lists(st.tuples(st.integers(-30, 30), st.integers(-30, 30)), min_size=1, max_size=40),
)
def test_a_scouts_nearest_cells_are_those_a_full_search_finds(
    cells: list[tuple[int, int]], targets: list[tuple[int, int]]
) -> None:
    """Issue 19: the scout's nearest-unexplored choice, which no longer measures every cell
    against every star, finds exactly the cells measuring all of them would."""
    from maps import Hex
    from maps.nearest import HexIndex, closest_to_any

    here = [Hex(q, r) for q, r in sorted(set(cells))]
    there = [Hex(q, r) for q, r in targets]
    nearest = {c: min(c.distance(t) for t in there) for c in here}
    best = min(nearest.values())
    assert closest_to_any(here, HexIndex(there)) == [c for c in here if nearest[c] == best]


def test_a_random_table_top_outcome_never_takes_a_survivors_last_hull_box() -> None:
    """`random_outcome` damages a surviving ship by 0-2 hull boxes: a ship with one box left
    that survives keeps it (`hull_boxes_left`), else `battles record` refuses the outcome
    (a 44-turn campaign of table-top results, tests/test_campaign_wars.py, met one)."""
    from campaign.autoplay import hull_boxes_left, random_outcome
    from tests.test_carry_over_campaign import fleets
    from tests.test_combat import DUEL
    from tests.test_core_systems_campaign import BATTLE

    state = fleets()
    worn = state.units["red-W2"]
    boxes = unit_sheet(worn).hull_boxes
    state = msgspec.structs.replace(
        state, units={**state.units, "red-W2": msgspec.structs.replace(worn, hull_lost=boxes - 1)}
    )
    left = hull_boxes_left(state, BATTLE)
    assert left["red-W2"] == 1

    def damage(boxes_left: dict[str, int] | None) -> set[int | None]:
        return {
            r.hull_lost
            for seed in range(60)
            for r in random_outcome(BATTLE, DUEL, random.Random(seed), boxes_left)
            if r.unit == "red-W2" and r.fate == "survived"
        }

    assert damage(None) - {0}  # unbounded, some draws would take its last box
    assert damage(left) == {0}
