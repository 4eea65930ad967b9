"""Proof that a branch's history holds: the hash chain, the campaign row and every snapshot
checked against the log (with the dice, every seeded roll recomputed from the revealed
seed), and a player's receipts issued and checked (issue 13).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from campaign.dice import Roll, seed_commitment, seeded_value
from campaign.errors import EventDecodeError, IllegalCommandError, InvalidInputError, UmpireError
from campaign.events import (
    CampaignCreated,
    DiceRerollRuled,
    Event,
    OrdersCommitted,
    OrdersRevealed,
    SeedRevealed,
    decode_payload,
    rolls_of,
)
from campaign.hashing import GENESIS_HASH, chain_hasher
from campaign.projections import (
    PROJECTION_NAME,
    PROJECTION_VERSION,
    CampaignState,
    encode_state,
    evolve_all,
)
from campaign.receipts import Receipt, ReceiptCheck
from campaign.receipts import decode as decode_receipt
from campaign.rules import orders
from campaign.service.base import ServiceCore
from campaign.storetypes import Lineage, StoredSnapshot

if TYPE_CHECKING:  # the FT2 rules: imported only when a log is verified
    from campaign.ft2.rules import DecisionLedger


# The kinds of event `verify` checks against others (besides the FT2 decisions'
# `DecisionLedger.kinds`): the rest are only hashed, decoded and folded.
_AUDITED: tuple[type, ...] = (OrdersCommitted, OrdersRevealed, SeedRevealed)
# Most events decoded and held before they are folded (a snapshot folds them sooner).
_FOLD_BATCH = 2000


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
    orders_revealed: int = 0  # revealed orders checked against their commitments
    orders_problems: tuple[str, ...] = ()
    snapshots_checked: int = 0  # snapshots compared with the log folded again (issue 13)
    store_problems: tuple[str, ...] = ()  # snapshots and the campaign row (issue 13)


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
    """Open the commitment made for revealed orders (issues 6 and 13).

    The reveal's nonce and orders must hash to the commitment recorded before the turn
    resolved (its player's alone since `orders_handed_in`; everyone's before); a nonce that is
    not hex fails like a wrong one.
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


class _Audit:
    """What `verify` checks of events against others as it reads the log: revealed orders
    against their commitments, FT2 decisions against theirs, the revealed seed against the
    campaign row's. Most events are none of these: each class is asked once."""

    def __init__(self, seed: str) -> None:
        self.seed = seed  # the campaign row's
        self.commitments: dict[tuple[str, int], str] = {}
        self.reveals = 0
        self.orders_problems: list[str] = []
        self.store_problems: list[str] = []
        self.decisions = _decision_ledger()
        self._kinds = (*_AUDITED, *self.decisions.kinds)
        self._audited: dict[type, bool] = {}  # by class: is it one of the kinds checked?

    def record(self, position: int, ev: Event) -> None:
        cls = type(ev)
        if (audited := self._audited.get(cls)) is None:
            audited = self._audited[cls] = issubclass(cls, self._kinds)
        if not audited:
            return
        if isinstance(ev, OrdersCommitted):
            self.commitments[(ev.player, ev.turn)] = ev.sha256  # the last one counts
        elif isinstance(ev, OrdersRevealed):
            self.reveals += 1
            self.orders_problems += _check_reveal(position, ev, self.commitments)
        elif isinstance(ev, SeedRevealed) and ev.seed != self.seed:
            self.store_problems.append(
                "the campaign's stored seed is not the seed revealed in the log"
            )
        self.decisions.record(position, ev)  # the FT2 campaign's (issue 20)


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


class VerifyCommands(ServiceCore):
    """Verify a branch; issue and check a player's receipts."""

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
        snapshots = self.store.snapshots_of(lineage)
        by_version: dict[int, list[StoredSnapshot]] = {}
        for snap in snapshots:
            by_version.setdefault(snap.version, []).append(snap)
        state = CampaignState()
        folding: list[Event] = []  # decoded, to fold in one go before the next snapshot
        audit = _Audit(self.store.campaign_seed(lineage.campaign))  # before the log streams
        try:
            hasher = chain_hasher(self.store.chain_key(lineage.campaign))
        except ValueError:
            return _report_failure(lineage, 0, expected_prev)(
                0, 0, "the campaign's chain key is not 32 bytes in hex: the row was edited"
            )

        def fail(position: int, version: int, problem: str) -> VerifyReport:
            return _report_failure(lineage, checked, expected_prev)(position, version, problem)

        for row in self.store.read_chain(lineage):
            position, version, tag, schema, payload, audience, actor, turn, stored, stream = row
            if version != checked + 1:
                return fail(position, version, f"version {version} follows {checked}")
            if position <= last_position:
                return fail(position, version, f"position {position} follows {last_position}")
            recomputed = hasher(
                expected_prev, stream, version, tag, schema, audience, actor, turn, payload
            )
            if recomputed != stored:
                return fail(position, version, "hash does not match its contents and the chain")
            try:
                ev = decode_payload(position, tag, schema, payload)
            except EventDecodeError as exc:
                return fail(position, version, exc.reason)
            if checked == 0:
                if not isinstance(ev, CampaignCreated):
                    return fail(position, version, "a campaign's log starts with its creation")
                audit.store_problems += _check_campaign_row(lineage, audit.seed, ev)
            checked += 1
            last_position = position
            expected_prev = stored
            audit.record(position, ev)
            if dice:
                ledger.record(position, ev)
            folding.append(ev)
            if version in by_version or len(folding) >= _FOLD_BATCH:
                # The same state as evolving event by event (`evolve_all`), in fewer copies.
                state = evolve_all(state, folding)
                folding = []
            if version in by_version:
                state = msgspec.structs.replace(state, version=version, events=checked)
                audit.store_problems += _check_snapshots(by_version.pop(version), stored, state)
        if checked == 0:
            return _report_failure(lineage, 0, expected_prev)(
                0, 0, "the branch holds no events: not even the campaign's creation"
            )
        store_problems = audit.store_problems + [
            f"snapshot at version {version} is past the branch's last event ({checked})"
            for version in sorted(by_version)
        ]
        if lineage.segments[-1].after != 0:
            store_problems.append("the branch's history does not start at the campaign's start")
        orders_problems = audit.orders_problems + audit.decisions.problems
        report = VerifyReport(
            campaign=lineage.campaign,
            branch=lineage.branch,
            events_checked=checked,
            head_hash=expected_prev,
            ok=not orders_problems and not store_problems,
            orders_revealed=audit.reveals,
            orders_problems=tuple(orders_problems),
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
