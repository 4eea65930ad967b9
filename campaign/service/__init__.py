"""The one service layer: load state, decide, append. Every front end calls only this.

Each command resolves its campaign and branch, folds the branch's events into state (from the
newest snapshot when there is one), asks a pure rule what happened, and appends the result
atomically after the version it decided on. A concurrent writer makes that append fail with
`ConcurrencyError`, and nothing is stored.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from campaign.dice import DiceSource, ManualDice, Roll, SeededDice, seed_commitment, seeded_value
from campaign.errors import (
    DiceError,
    EventDecodeError,
    IllegalCommandError,
    InvalidInputError,
    UmpireError,
)
from campaign.events import (
    UMPIRE,
    CampaignCreated,
    DiceRerollRuled,
    Event,
    OrdersCommitted,
    OrdersRevealed,
    RecordedEvent,
    SeedRevealed,
    StarChartPublished,
    decode_payload,
    rolls_of,
)
from campaign.ft2 import service as ft2
from campaign.hashing import GENESIS_HASH, chain_hash
from campaign.inputs import MAX_TURNS, check_range, printable, read_file
from campaign.projections import (
    PROJECTION_NAME,
    PROJECTION_VERSION,
    CampaignState,
    encode_state,
    evolve,
    evolve_all,
    fold,
)
from campaign.receipts import Receipt, ReceiptCheck
from campaign.receipts import decode as decode_receipt
from campaign.rules import core, orders, setup
from campaign.rules.production import DEFAULT_SETTINGS, ProductionSettings
from campaign.rules.setup import DEFAULT_FLEETS, FleetFile, FleetShip, catalogue_ship, check_fleet
from campaign.service.base import AskDie, Nonces, ServiceCore, battle_order, secret_nonce
from campaign.service.branching import EVERYONE, BranchCommands, BranchDiff, Standing, TurnDiff
from campaign.service.desks import PlayerDesks
from campaign.service.fighting import BattleCommands
from campaign.service.reports import PlayerReport, ReportQueries, Status, _as_told, _numbered
from campaign.service.rulings import RulingCommands
from campaign.service.submission import OrdersSubmission
from campaign.service.turns import TurnCommands, TurnStatus
from campaign.storetypes import MAIN_BRANCH, Lineage, StoredSnapshot
from campaign.strategic import ChartEntry, ChartStar
from maps import label, mapfile, tomlinput
from maps.builtin import resolve as resolve_map
from maps.starmap import MapError

if TYPE_CHECKING:  # the battle reports replay the engine's journals: imported when asked
    from campaign.ft2.rules import DecisionLedger

__all__ = [
    "EVERYONE",
    "UMPIRE",
    "AskDie",
    "BranchDiff",
    "CampaignService",
    "Nonces",
    "PlayerReport",
    "Standing",
    "Status",
    "TurnDiff",
    "TurnStatus",
    "VerifyReport",
    "_as_told",
    "_numbered",
    "battle_order",
    "plan_campaign",
    "plan_ft2_campaign",
    "secret_nonce",
]


class VerifyReport(msgspec.Struct, frozen=True):
    """What `umpire verify` found."""

    campaign: str
    branch: str
    events_checked: int
    head_hash: str
    ok: bool
    problem: str | None = None
    position: int | None = None
    version: int | None = None
    dice_checked: bool = False
    seeded_rolls: int = 0
    manual_rolls: int = 0
    dice_problems: tuple[str, ...] = ()
    orders_revealed: int = 0  # revealed orders checked against their public commitments
    orders_problems: tuple[str, ...] = ()
    snapshots_checked: int = 0  # snapshots compared with the log folded again (issue 13)
    store_problems: tuple[str, ...] = ()  # snapshots and the campaign row (issue 13)


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


class CampaignService(
    BranchCommands,
    ReportQueries,
    RulingCommands,
    BattleCommands,
    TurnCommands,
    OrdersSubmission,
    PlayerDesks,
    ServiceCore,
):
    """Campaign commands and queries over one event store."""

    # ------------------------------------------------------------ naming

    # ------------------------------------------------------------ commands

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
        self.store.create_campaign(plan.name, plan.seed, batch)  # atomic (issue 13)
        lineage = self.store.lineage(plan.name, MAIN_BRANCH)
        recorded = list(self.store.read(lineage))
        self._snapshot(lineage, fold(recorded))
        return recorded

    def new_ft2_campaign(self, plan: ft2.Ft2Plan) -> list[RecordedEvent]:
        """Create the campaign `plan_ft2_campaign` checked: FT2's own campaign rules playing
        a scenario (issue 20), each side's forces deployed secretly."""
        return ft2.new_campaign(self, plan)

    # ------------------------------------------------------------ queries

    def verify(self, lineage: Lineage, dice: bool = False) -> VerifyReport:
        """Check the hash chain, the campaign row and every snapshot the branch can serve.

        The chain: versions in order, each hash over its contents and the hash before it,
        positions rising with versions, the creation first. The campaign row: its seed is the
        one committed at creation (and revealed, if it was), its name the created one. The
        snapshots: the log is folded again from its start and each snapshot must be that
        state, bound to the chain hash at its version (issue 13). With `dice`, every seeded
        roll is recomputed from the revealed seed. Stops at the first event that does not
        match and names its position; other problems are listed.
        """
        expected_prev = GENESIS_HASH
        checked = 0
        last_position = 0
        ledger = _DiceLedger()
        commitments: dict[tuple[str, int], str] = {}
        orders_problems: list[str] = []
        store_problems: list[str] = []
        reveals = 0
        decisions = _decision_ledger()
        snapshots = self.store.snapshots_of(lineage)
        by_version: dict[int, list[StoredSnapshot]] = {}
        for snap in snapshots:
            by_version.setdefault(snap.version, []).append(snap)
        state = CampaignState()
        seed = self.store.campaign_seed(lineage.campaign)  # read first: the log streams below
        for row in self.store.read_stored(lineage):
            fail = _report_failure(lineage, checked, expected_prev)
            if row.version != checked + 1:
                return fail(row.position, row.version, f"version {row.version} follows {checked}")
            if row.position <= last_position:
                return fail(
                    row.position, row.version, f"position {row.position} follows {last_position}"
                )
            recomputed = chain_hash(
                expected_prev,
                row.version,
                row.type,
                row.schema_version,
                row.audience,
                row.actor,
                row.turn,
                row.payload,
            )
            if recomputed != row.hash:
                return fail(
                    row.position, row.version, "hash does not match its contents and the chain"
                )
            try:
                ev = decode_payload(row.position, row.type, row.schema_version, row.payload)
            except EventDecodeError as exc:
                return fail(row.position, row.version, exc.reason)
            if checked == 0:
                if not isinstance(ev, CampaignCreated):
                    return fail(
                        row.position, row.version, "a campaign's log starts with its creation"
                    )
                store_problems += _check_campaign_row(lineage, seed, ev)
            checked += 1
            last_position = row.position
            expected_prev = row.hash
            if isinstance(ev, OrdersCommitted):
                commitments[(ev.player, ev.turn)] = ev.sha256  # the last one counts
            elif isinstance(ev, OrdersRevealed):
                reveals += 1
                orders_problems += _check_reveal(row.position, ev, commitments)
            decisions.record(row.position, ev)  # the FT2 campaign's (issue 20)
            if isinstance(ev, SeedRevealed) and ev.seed != seed:
                store_problems.append(
                    "the campaign's stored seed is not the seed revealed in the log"
                )
            if dice:
                ledger.record(row.position, ev)
            state = evolve(state, ev)
            if row.version in by_version:
                state = msgspec.structs.replace(state, version=row.version, events=checked)
                store_problems += _check_snapshots(by_version.pop(row.version), row.hash, state)
        if checked == 0:
            return _report_failure(lineage, 0, expected_prev)(
                0, 0, "the branch holds no events: not even the campaign's creation"
            )
        store_problems += [
            f"snapshot at version {version} is past the branch's last event ({checked})"
            for version in sorted(by_version)
        ]
        if lineage.segments[-1].after != 0:
            store_problems.append("the branch's history does not start at the campaign's start")
        report = VerifyReport(
            campaign=lineage.campaign,
            branch=lineage.branch,
            events_checked=checked,
            head_hash=expected_prev,
            ok=not orders_problems and not decisions.problems and not store_problems,
            orders_revealed=reveals,
            orders_problems=(*orders_problems, *decisions.problems),
            snapshots_checked=len(snapshots),
            store_problems=tuple(store_problems),
        )
        if not dice:
            return report
        problems = ledger.check()
        return msgspec.structs.replace(
            report,
            ok=report.ok and not problems,
            dice_checked=True,
            seeded_rolls=len(ledger.seeded),
            manual_rolls=ledger.manual,
            dice_problems=tuple(problems),
        )

    def receipt(self, lineage: Lineage, player: str) -> Receipt:
        """Return `player`'s receipt for the branch as it stands (issue 13, `campaign/receipts`).

        It names the last event he may see and its chain hash, and counts the events he may
        see: nothing about the events hidden from him.
        """
        self._check_viewer(lineage, player)
        seen, head, turn_number = self.store.view_head(lineage, player)
        return Receipt(
            campaign=lineage.campaign,
            branch=lineage.branch,
            player=player,
            turn=turn_number,
            seen=seen,
            head=head,
            credentials=self.store.credentials_fingerprint(lineage.campaign, player),
        )

    def check_receipts(self, receipts: Sequence[tuple[str, bytes]]) -> list[ReceiptCheck]:
        """Check each receipt (named, as read) against the database's log (issue 13).

        A receipt holds when its branch verifies and the event it counts to still carries its
        hash. Each check also says whether the campaign's active branch holds it: a receipt
        of a branch since abandoned by a rewind does not.
        """
        verified: dict[tuple[str, str], str | None] = {}
        checks = []
        for name, data in receipts:
            try:
                receipt = decode_receipt(data)
            except InvalidInputError as exc:
                checks.append(ReceiptCheck(file=name, ok=False, problem=str(exc)))
                continue
            problem = self._receipt_problem(receipt, receipt.branch, verified)
            on_active = None
            if problem is None:
                active = self.store.active_branch(receipt.campaign)
                on_active = active == receipt.branch or (
                    self._receipt_problem(receipt, active, verified) is None
                )
            checks.append(
                ReceiptCheck(
                    file=name,
                    ok=problem is None,
                    receipt=receipt,
                    problem=problem,
                    on_active_branch=on_active,
                )
            )
        return self._check_credentials(checks)

    def _check_credentials(self, checks: list[ReceiptCheck]) -> list[ReceiptCheck]:
        """Compare each player's newest receipt's credentials with those on record now."""
        newest: dict[tuple[str, str], tuple[int, Receipt]] = {}
        for i, check in enumerate(checks):
            r = check.receipt
            if r is None or not check.ok:
                continue
            key = (r.campaign, r.player)
            if key not in newest or r.seen > newest[key][1].seen:
                newest[key] = (i, r)
        for (campaign, player), (i, r) in newest.items():
            changed = self.store.credentials_fingerprint(campaign, player) != r.credentials
            checks[i] = msgspec.structs.replace(checks[i], credentials_changed=changed)
        return checks

    def _receipt_problem(
        self, receipt: Receipt, branch: str, verified: dict[tuple[str, str], str | None]
    ) -> str | None:
        """Return why `receipt` does not hold on `branch` of its campaign (None: it holds)."""
        try:
            lineage = self.store.lineage(receipt.campaign, branch)
        except UmpireError as exc:
            return str(exc)
        if (receipt.campaign, branch) not in verified:
            report = self.verify(lineage)
            verified[(receipt.campaign, branch)] = (
                None
                if report.ok
                else f"branch {branch!r} does not verify: "
                + (report.problem or "; ".join(report.orders_problems + report.store_problems))
            )
        failed = verified[(receipt.campaign, branch)]
        if failed is not None:
            return failed
        found = self.store.visible_hash(lineage, receipt.player, receipt.seen)
        if found is None:
            seen = self.store.view_head(lineage, receipt.player)[0]
            return (
                f"{receipt.player} may see {seen} event(s) on branch {branch!r}, "
                f"not the {receipt.seen} the receipt counts: events he was shown are gone"
            )
        if found != receipt.head:
            return (
                f"the event {receipt.seen} of what {receipt.player} may see on branch "
                f"{branch!r} is not the one he was shown: the history before it was rewritten"
            )
        return None

    # ------------------------------------------------------------ internals


def _decision_ledger() -> DecisionLedger:
    """The FT2 decisions' ledger `verify` keeps (the FT2 rules: imported only to check)."""
    from campaign.ft2.rules import DecisionLedger

    return DecisionLedger()


def _check_campaign_row(lineage: Lineage, seed: str, created: CampaignCreated) -> list[str]:
    """Check the campaign row against its creation event: its name and its secret seed."""
    problems = []
    if created.name != lineage.campaign:
        problems.append(
            f"the campaign is stored as {lineage.campaign!r} but was created as {created.name!r}"
        )
    if seed_commitment(seed) != created.seed_commitment:
        problems.append("the campaign's stored seed is not the one committed at creation")
    return problems


def _check_snapshots(found: list[StoredSnapshot], chain: str, state: CampaignState) -> list[str]:
    """Compare the snapshots at one version with the state folded from the log (issue 13).

    Snapshots of an older projection version are never served, and not compared.
    """
    problems = []
    encoded: str | None = None
    for snap in found:
        where = f"snapshot at version {snap.version}"
        if snap.chain_hash != chain:
            problems.append(f"{where} is bound to another chain hash than the log's")
        elif not snap.intact():
            problems.append(f"{where} does not match its digest")
        elif snap.projection == PROJECTION_NAME and snap.projection_version == PROJECTION_VERSION:
            encoded = encoded if encoded is not None else encode_state(state)
            if snap.state != encoded or snap.turn != state.turn:
                problems.append(f"{where} is not the state the log folds to")
    return problems


def _check_reveal(
    position: int, ev: OrdersRevealed, commitments: dict[tuple[str, int], str]
) -> list[str]:
    """Open the public commitment made for revealed orders (issues 6 and 13).

    The reveal's nonce and orders must hash to the commitment everyone saw before the turn
    resolved; a nonce that is not hex fails like a wrong one.
    """
    try:
        digest = orders.commitment(ev.nonce, ev.payload.encode())
    except ValueError:
        digest = None
    committed = commitments.get((ev.player, ev.turn))
    if digest is None or digest != ev.sha256 or committed != digest:
        return [
            f"position {position}: {ev.player}'s orders for turn {ev.turn} do not match the "
            "commitment made when they were handed in"
        ]
    return []


class _DiceLedger:
    """Collects the seed, its commitment and every recorded roll while the log is verified."""

    def __init__(self) -> None:
        self.commitment: str | None = None
        self.revealed: str | None = None
        self.seeded: list[tuple[int, Roll]] = []
        self.manual = 0
        self.ruled: set[str] = set()  # the keys re-rolls were ruled for (issue 6)
        self.unruled: list[str] = []

    def record(self, position: int, ev: Event) -> None:
        if isinstance(ev, CampaignCreated):
            self.commitment = ev.seed_commitment
        elif isinstance(ev, SeedRevealed):
            self.revealed = ev.seed
        elif isinstance(ev, DiceRerollRuled):
            self.ruled.update(ev.keys)
        for roll in rolls_of(ev):
            if "#" in roll.key and roll.key not in self.ruled:
                self.unruled.append(
                    f"position {position}: roll {roll.key} is a re-roll no ruling ordered"
                )
            if roll.source == "seeded":
                self.seeded.append((position, roll))
            else:
                self.manual += 1  # physical dice: nothing to recompute

    def check(self) -> list[str]:
        """Recompute every seeded roll from the revealed seed; return what does not match."""
        if self.revealed is None:
            raise IllegalCommandError(
                "the dice seed has not been revealed yet: `umpire reveal-seed` publishes it"
            )
        problems = []
        if self.commitment is None or seed_commitment(self.revealed) != self.commitment:
            problems.append("the revealed seed does not match the commitment made at creation")
        problems += self.unruled
        for position, roll in self.seeded:
            value = seeded_value(self.revealed, roll.key, roll.sides)
            if value != roll.value:
                problems.append(
                    f"position {position}: roll {roll.key} shows {roll.value}, "
                    f"the seed gives {value}"
                )
        return problems


def _report_failure(
    lineage: Lineage, checked: int, head: str
) -> Callable[[int, int, str], VerifyReport]:
    def fail(position: int, version: int, problem: str) -> VerifyReport:
        return VerifyReport(
            campaign=lineage.campaign,
            branch=lineage.branch,
            events_checked=checked,
            head_hash=head,
            ok=False,
            problem=problem,
            position=position,
            version=version,
        )

    return fail
