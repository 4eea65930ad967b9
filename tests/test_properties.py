"""Store, projections and replay checked against each other by a Hypothesis state machine."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from campaign.events import Audience
from campaign.projections import fold
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from tests.conftest import FixedClock

PLAYERS = ["red", "blue", "green"]
audiences = st.one_of(
    st.just(Audience.everyone()),
    st.just(Audience.umpire_only()),
    st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=3, unique=True).map(Audience.players_),
)


class CampaignMachine(RuleBasedStateMachine):
    """Random umpire sessions: rolls, notes, turn ends, rewinds and branch switches."""

    def __init__(self) -> None:
        super().__init__()
        self.service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
        self.service.new_campaign(plan_campaign("prop", PLAYERS, seed="p", max_turns=6))
        self.branches = ["main"]

    def teardown(self) -> None:
        self.service.close()

    @property
    def lineage(self) -> Lineage:
        return self.service.target("prop")

    def running(self) -> bool:
        return not self.service.load(self.lineage).finished

    @precondition(running)
    @rule(dice=st.sampled_from(["d6", "2d6", "3d10"]), audience=audiences)
    def roll(self, dice: str, audience: Audience) -> None:
        self.service.roll(self.lineage, dice, "property", audience)

    @rule(text=st.text(min_size=1, max_size=20).filter(str.strip), audience=audiences)
    def note(self, text: str, audience: Audience) -> None:
        self.service.note(self.lineage, text, audience)

    @precondition(running)
    @rule()
    def end_turn(self) -> None:
        self.service.end_turn(self.lineage)

    @rule(data=st.data())
    def rewind(self, data: st.DataObject) -> None:
        turn = data.draw(st.integers(0, self.service.load(self.lineage).turn))
        self.branches.append(self.service.rewind(self.lineage, turn).name)

    @rule(data=st.data())
    def switch(self, data: st.DataObject) -> None:
        self.service.use_branch("prop", data.draw(st.sampled_from(self.branches)))

    @invariant()
    def snapshots_equal_full_replay(self) -> None:
        lineage = self.lineage
        full = fold(self.service.store.read(lineage))
        assert self.service.load(lineage) == full
        assert self.service.load(lineage, use_snapshots=False) == full
        for turn in range(full.turn + 1):
            assert self.service.state_at(lineage, turn) == self.service.state_at(
                lineage, turn, use_snapshots=False
            )

    @invariant()
    def players_see_exactly_their_audience(self) -> None:
        lineage = self.lineage
        everything = list(self.service.store.read(lineage))
        for player in PLAYERS:
            seen = self.service.log(lineage, viewer=player)
            visible = [e for e in everything if e.audience.may_see(player)]
            assert [(e.hash, e.event) for e in seen] == [(e.hash, e.event) for e in visible]
            # His view numbers his own events only (issue 13): no gap counts another's.
            assert [(e.position, e.version) for e in seen] == [
                (n, n) for n in range(1, len(seen) + 1)
            ]
            assert self.service.state_at(lineage, viewer=player) == fold(seen)

    @invariant()
    def chain_verifies_and_versions_are_contiguous(self) -> None:
        lineage = self.lineage
        versions = [e.version for e in self.service.store.read(lineage)]
        assert versions == list(range(1, len(versions) + 1))
        assert self.service.verify(lineage).ok


CampaignMachine.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestCampaignMachine = CampaignMachine.TestCase
