"""A new campaign: its settings checked before anything is written (the map and the starting
fleets read and priced, a secret seed chosen), then created with its empires founded; or
an FT2 campaign playing a scenario (issue 20).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

import msgspec

from campaign.dice import DiceSource, ManualDice, SeededDice
from campaign.errors import DiceError, InvalidInputError
from campaign.events import RecordedEvent, StarChartPublished
from campaign.ft2 import service as ft2
from campaign.inputs import MAX_TURNS, check_range, printable, read_file
from campaign.projections import CampaignState, evolve_all, fold
from campaign.rules import core, setup
from campaign.rules.production import DEFAULT_SETTINGS, ProductionSettings
from campaign.rules.setup import DEFAULT_FLEETS, FleetFile, FleetShip, catalogue_ship, check_fleet
from campaign.service.base import AskDie, ServiceCore
from campaign.storetypes import MAIN_BRANCH
from campaign.strategic import ChartEntry, ChartStar
from maps import label, mapfile, tomlinput
from maps.builtin import resolve as resolve_map
from maps.starmap import MapError


def _refuse_battle_settings_without_map(plan: core.CreateCampaign) -> None:
    """Refuse a battle setting other than the default for a campaign without a map: it
    fights no battles, so the setting would be silently ignored.

    Raises:
        InvalidInputError: naming the first such setting.
    """
    if plan.map is not None:
        return
    given = (
        ("--battle-movement", plan.battle_movement, "vector"),
        ("--asteroid-motion", plan.asteroid_motion, "jump"),
        ("--morale-ties", plan.morale_ties, "worse"),
        ("--battle-rules", plan.battle_rules, "continuum"),
    )
    for option, value, default in given:
        if value != default:
            raise InvalidInputError(
                f"{option} {value} needs a map (--map classic, or a map file): a campaign "
                "without a map fights no battles"
            )


def plan_campaign(
    name: str,
    players: Sequence[str] = (),
    seed: str | None = None,
    dice_mode: str = "seeded",
    max_turns: int = 44,
    map_spec: str | None = None,
    fleet_file: str | None = None,
    absent: str = "hold",
    contested_planets: str = "nobody",
    battle_movement: str = "vector",
    asteroid_motion: str = "jump",
    production: ProductionSettings = DEFAULT_SETTINGS,
    fleet_files: Mapping[str, str] | None = None,
    battle_rules: str = "continuum",
    design_visibility: str = "secret",
    morale_ties: str = "worse",
) -> core.CreateCampaign:
    """Check a new campaign's settings before anything is written; choose a secret seed.

    `map_spec` is a built-in map name or a map file; it is read and validated here.
    `battle_rules` is the rules the campaign's battles are fought and its ships built under
    (004 section 4): `continuum` (the Fleet Books' stand-in) or `ft2`.
    """
    if battle_rules not in core.BATTLE_RULE_CHOICES:
        raise InvalidInputError(
            f"battle-rules setting {battle_rules!r} must be one of "
            f"{', '.join(core.BATTLE_RULE_CHOICES)}"
        )
    plan = core.CreateCampaign(
        name=name,
        players=tuple(players),
        seed=seed if seed is not None else secrets.token_hex(32),
        dice_mode=dice_mode,
        max_turns=max_turns,
        map=_load_map(map_spec) if map_spec is not None else None,
        fleet=(
            _load_fleet(fleet_file, None, battle_rules) if map_spec is not None and players else ()
        ),
        fleets={
            p: _load_fleet(path, p, battle_rules) for p, path in sorted((fleet_files or {}).items())
        },
        absent=absent,
        contested_planets=contested_planets,
        battle_movement=battle_movement,
        asteroid_motion=asteroid_motion,
        morale_ties=morale_ties,
        production=production,
        battle_rules=battle_rules,
        design_visibility=design_visibility,
    )
    if plan.map is None and (fleet_file is not None or fleet_files):
        raise InvalidInputError("a starting fleet needs a map to start on (--map)")
    core.decide_create(plan)  # raises on any bad setting
    _refuse_battle_settings_without_map(plan)
    check_range(max_turns, "--turns", 1, MAX_TURNS)  # and a campaign that could never end
    return plan


def plan_ft2_campaign(
    name: str,
    players: Sequence[str],
    scenario: str,
    scale: int = 100,
    seed: str | None = None,
    dice_mode: str = "seeded",
    forces: Mapping[str, str] | None = None,
    absent: str = "hold",
    end_early: bool = False,
) -> ft2.Ft2Plan:
    """Check a new FT2 campaign (issue 20) before anything is written: its scenario, scale,
    players and each side's forces (a forces file's text, or the scenario's default);
    `end_early` is digest A27's option of an early total victory."""
    return ft2.plan(
        name, players, scenario, scale, seed, dice_mode, forces or {}, _load_map, absent, end_early
    )


def _load_fleet(
    path: str | None, player: str | None = None, rules: str = "continuum"
) -> tuple[FleetShip, ...]:
    """Read a starting-fleet file (or take the rules' default) and price it from the ship
    catalogue of the campaign's battle `rules`, checked against the 2000-point budget (004
    L28); `player` names whose it is."""
    fleet = DEFAULT_FLEETS[rules]
    if path is not None:
        data = read_file(path, "fleet file")
        try:
            fleet = tomlinput.decode(data, type=FleetFile)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise InvalidInputError(f"fleet file {printable(path)}: {exc}") from None
    ships: list[FleetShip] = []
    for line in fleet.ships:
        try:
            ship = catalogue_ship(line.design, rules)
        except LookupError:
            raise InvalidInputError(
                f"starting fleet: no {rules} design {line.design!r} in the ship catalogue "
                "(`umpire ship list`)"
            ) from None
        ships.extend(ship for _ in range(line.count))
    try:
        check_fleet(ships)
    except InvalidInputError as exc:
        if player is None:
            raise
        raise InvalidInputError(f"{player}'s {exc}") from None
    return tuple(ships)


def _load_map(spec: str) -> core.CampaignMap:
    try:
        starmap = resolve_map(spec)
    except MapError as exc:
        raise InvalidInputError(f"map {spec!r}: {exc}") from None
    chart = StarChartPublished(
        name=starmap.name,
        title=starmap.title,
        width=starmap.width,
        height=starmap.height,
        stars=tuple(ChartStar(s.name, label(s.hex), str(s.colour)) for s in starmap.systems),
        clouds=tuple(sorted(label(c) for c in starmap.clouds)),
        entries=tuple(ChartEntry(e.name, label(e.hex)) for e in starmap.entries),
    )
    return core.CampaignMap(
        name=starmap.name,
        title=starmap.title,
        entries=len(starmap.entries),
        text=mapfile.dumps(starmap),
        chart=chart,
    )


class CampaignCreation(ServiceCore):
    """Create a campaign that `plan_campaign` or `plan_ft2_campaign` checked."""

    def new_campaign(
        self, plan: core.CreateCampaign, ask: AskDie | None = None
    ) -> list[RecordedEvent]:
        """Create the campaign `plan_campaign` checked; the seed stays secret, its hash public.

        With a map and players, each empire is founded at its entry hex (004 section 3).
        """
        batch = core.decide_create(plan)
        if plan.map is not None and plan.players:
            if plan.dice_mode == "manual":
                if ask is None:
                    raise DiceError("this campaign rolls physical dice: the captains need a prompt")
                dice: DiceSource = ManualDice(ask=ask)
            else:
                dice = SeededDice(plan.seed)
            entries = tuple(e.name for e in mapfile.loads(plan.map.text).entries)
            fleets = {p: list(plan.fleets.get(p, plan.fleet)) for p in plan.players}
            batch += setup.decide_found_empires(plan.players, entries, fleets, dice)
            # The set-up is turn 0; the campaign opens at turn 1, ready for orders.
            set_up = evolve_all(CampaignState(), (new.event for new in batch))
            batch += core.decide_end_turn(set_up, core.EndTurn())
        # Atomic (issue 13); the chain key is a secret like the orders' nonces, from the same
        # source (`secrets`; tests inject a fixed one for repeatable chains).
        self.store.create_campaign(plan.name, plan.seed, batch, chain_key=self.nonces())
        lineage = self.store.lineage(plan.name, MAIN_BRANCH)
        recorded = list(self.store.read(lineage))
        self._snapshot(lineage, fold(recorded))
        return recorded

    def new_ft2_campaign(self, plan: ft2.Ft2Plan) -> list[RecordedEvent]:
        """Create the campaign `plan_ft2_campaign` checked: FT2's own campaign rules playing
        a scenario (issue 20), each side's forces deployed secretly."""
        return ft2.new_campaign(self, plan)
