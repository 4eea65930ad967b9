"""The service on every backend: verify, dice, rewind, state at a turn, player views."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from campaign.dice import Roll, seeded_value
from campaign.errors import DiceError, IllegalCommandError, InvalidInputError
from campaign.events import Audience, DiceRolled, NewEvent, UmpireNoted
from campaign.projections import fold
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage, events
from tests.conftest import CountingNonces, FixedClock

RED = Audience.players_(["red"])


def play(service: CampaignService, name: str = "demo", seed: str = "7") -> Lineage:
    """Create a campaign and play two turns of rolls and notes."""
    service.new_campaign(plan_campaign(name, ["red", "blue"], seed=seed))
    lineage = service.target(name)
    service.roll(lineage, "2d6", "storm at Hudson", RED)
    service.note(lineage, "for blue only", Audience.players_(["blue"]))
    service.note(lineage, "umpire's reminder", Audience.umpire_only())
    service.end_turn(lineage)
    service.roll(lineage, "d6", "pirates", Audience.everyone())
    service.roll(lineage, "d6", "pirates again", Audience.everyone(), results=[3])
    service.end_turn(lineage)
    service.note(lineage, "turn 2 begins", Audience.everyone())
    return lineage


def test_verify_passes_on_an_untouched_log(service: CampaignService) -> None:
    lineage = play(service)
    report = service.verify(lineage)
    assert report.ok
    assert report.events_checked == 9
    assert report.head_hash == service.store.head(lineage)[1]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("payload", None),  # one byte of the payload changed
        ("audience", "*"),
        ("turn", 5),
        ("actor", "player:red"),
        ("type", "seed_revealed"),
    ],
)
def test_tampering_fails_verify_at_that_position(
    service: CampaignService, column: str, value: object
) -> None:
    lineage = play(service)
    target = list(service.store.read(lineage))[2]  # the note to blue
    with service.store.engine.begin() as conn:
        if value is None:
            stored = conn.execute(
                sa.select(events.c.payload).where(events.c.position == target.position)
            ).scalar_one()
            value = stored.replace("blue", "blud")
        conn.execute(
            events.update().where(events.c.position == target.position).values(**{column: value})
        )
    report = service.verify(lineage)
    assert not report.ok
    assert report.position == target.position
    assert report.version == 3
    assert report.events_checked == 2


def test_a_deleted_event_breaks_the_chain(service: CampaignService) -> None:
    lineage = play(service)
    victim = list(service.store.read(lineage))[3]
    with service.store.engine.begin() as conn:
        conn.execute(events.delete().where(events.c.position == victim.position))
    report = service.verify(lineage)
    assert (report.ok, report.version, report.problem) == (False, 5, "version 5 follows 3")


def test_verify_dice_recomputes_seeded_rolls(service: CampaignService) -> None:
    lineage = play(service, seed="public-later")
    with pytest.raises(IllegalCommandError, match="not been revealed"):
        service.verify(lineage, dice=True)
    with pytest.raises(IllegalCommandError, match="--early"):
        service.reveal_seed(lineage)
    service.reveal_seed(lineage, early=True)
    report = service.verify(lineage, dice=True)
    assert (report.ok, report.seeded_rolls, report.manual_rolls) == (True, 3, 1)
    with pytest.raises(IllegalCommandError, match="already"):
        service.reveal_seed(lineage, early=True)


def test_verify_dice_catches_a_forged_roll(service: CampaignService) -> None:
    """A roll whose face the umpire chose fails against the seed, even with a valid chain."""
    service.new_campaign(plan_campaign("forge", ["red"], seed="s"))
    lineage = service.target("forge")
    key = "0/umpire/roll-9/0"
    wrong_face = seeded_value("s", key, 6) % 6 + 1
    forged = DiceRolled(
        reason="forged", expression="1d6", rolls=(Roll(key=key, sides=6, value=wrong_face),)
    )
    state = service.load(lineage)
    service.append(lineage, state.version, [NewEvent(forged, Audience.everyone(), 0)])
    service.reveal_seed(lineage, early=True)
    assert service.verify(lineage).ok  # the chain itself is intact ...
    report = service.verify(lineage, dice=True)
    assert not report.ok  # ... but the dice are not the seed's
    assert report.dice_problems == (
        f"position 2: roll {key} shows {wrong_face}, the seed gives {seeded_value('s', key, 6)}",
    )


def test_manual_dice_campaign_needs_results(service: CampaignService) -> None:
    service.new_campaign(plan_campaign("table", ["red"], seed="s", dice_mode="manual"))
    lineage = service.target("table")
    with pytest.raises(DiceError, match="--results"):
        service.roll(lineage, "2d6", "x", Audience.everyone())
    with pytest.raises(DiceError, match="more result"):
        service.roll(lineage, "2d6", "x", Audience.everyone(), results=[1, 2, 3])
    with pytest.raises(DiceError, match="not a face"):
        service.roll(lineage, "2d6", "x", Audience.everyone(), results=[1, 7])
    asked = service.roll(lineage, "2d6", "x", Audience.everyone(), ask=lambda key, sides: 4)
    assert [r.value for r in asked[0].event.rolls] == [4, 4]  # type: ignore[attr-defined]
    assert len(list(service.store.read(lineage))) == 2  # the failed rolls wrote nothing


def test_state_at_turn_and_snapshot_equals_full_replay(service: CampaignService) -> None:
    lineage = play(service)
    for turn in (0, 1, 2):
        with_snapshots = service.state_at(lineage, turn)
        replayed = service.state_at(lineage, turn, use_snapshots=False)
        by_hand = fold(e for e in service.store.read(lineage) if e.turn <= turn)
        assert with_snapshots == replayed == by_hand
    assert service.state_at(lineage, 0).turn == 1  # turn 0 ended
    assert service.state_at(lineage).turn == 2
    with pytest.raises(InvalidInputError, match="turns 0-2"):
        service.state_at(lineage, 3)
    for version in range(1, 10):
        assert service.state_at(lineage, version=version) == fold(
            e for e in service.store.read(lineage) if e.version <= version
        )
    with pytest.raises(InvalidInputError, match="versions 1-9"):
        service.state_at(lineage, version=10)


def test_rewind_branches_without_touching_the_original(service: CampaignService) -> None:
    lineage = play(service)
    before = list(service.store.read(lineage))
    branch = service.rewind(lineage, 0)
    assert (branch.name, branch.parent, branch.fork_version) == ("main-t0", "main", 5)
    alt = service.target("demo")  # the new branch is now active
    assert alt.branch == "main-t0"
    assert service.load(alt) == service.state_at(lineage, 0)
    # The same dice key on the new branch gives the same face: rewinding cannot fish for dice.
    redo = service.roll(alt, "d6", "pirates", Audience.everyone())
    original = next(e for e in before if e.turn == 1 and e.type == "dice_rolled")
    assert redo[0].event.rolls == original.event.rolls  # type: ignore[attr-defined]
    assert list(service.store.read(lineage)) == before
    assert service.verify(alt).ok
    assert service.rewind(lineage, 0).name == "main-t0-2"
    with pytest.raises(InvalidInputError, match="in turn 2"):
        service.rewind(lineage, 3)


def test_a_rewind_to_before_the_branch_s_own_fork_rewinds(service: CampaignService) -> None:
    """A branch rewound to a turn before the fork it was itself made at holds that turn's
    history and nothing after: its grandparent's events stop at the earliest fork below it."""
    lineage = play(service)
    at_zero = service.state_at(lineage, 0)
    first = service.store.lineage("demo", service.rewind(lineage, 0).name)
    for _ in range(4):
        service.end_turn(first)
    second = service.store.lineage("demo", service.rewind(first, 3).name)
    service.end_turn(second)
    third = service.store.lineage("demo", service.rewind(second, 1).name)
    fourth = service.store.lineage("demo", service.rewind(third, 0).name)
    for branch, turn in ((third, 1), (fourth, 0)):
        events = list(service.store.read(branch))
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        assert service.load(branch) == service.state_at(first, turn)
        assert service.verify(branch).ok
    assert service.load(fourth) == at_zero


def test_players_views_hold_only_their_events(service: CampaignService) -> None:
    lineage = play(service)
    red = service.log(lineage, viewer="red")
    blue = service.log(lineage, viewer="blue")
    assert all(e.audience.may_see("red") for e in red)
    assert "storm at Hudson" in [getattr(e.event, "reason", "") for e in red]
    assert "for blue only" not in [getattr(e.event, "text", "") for e in red]
    assert "umpire's reminder" not in [
        getattr(e.event, "text", "") for e in red + blue if isinstance(e.event, UmpireNoted)
    ]
    red_state = service.state_at(lineage, viewer="red")
    assert red_state.events == len(red) < len(service.log(lineage))
    with pytest.raises(InvalidInputError, match="not a player"):
        service.log(lineage, viewer="green")


def test_same_seed_same_commands_same_chain(backend_url: str, tmp_path: object) -> None:
    """Determinism: the hash chain is identical byte for byte, on any backend, given the
    same secrets (the chain key is one: `CountingNonces` repeats them)."""
    first = CampaignService.open(
        backend_url, clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    second = CampaignService.open(
        "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    try:
        a, b = play(first), play(second)
        assert [e.hash for e in first.store.read(a)] == [e.hash for e in second.store.read(b)]
        assert [e.event for e in first.store.read(a)] == [e.event for e in second.store.read(b)]
    finally:
        first.close()
        second.close()


def test_the_map_is_committed_publicly_and_kept_for_the_umpire(service: CampaignService) -> None:
    import hashlib

    from maps import mapfile
    from maps.builtin import load_builtin

    service.new_campaign(plan_campaign("sc", ["red", "blue"], seed="s", map_spec="classic"))
    lineage = service.target("sc")
    text = mapfile.dumps(load_builtin("classic"))
    state = service.load(lineage)
    assert (state.map_name, state.map_sha256) == (
        "classic",
        hashlib.sha256(text.encode()).hexdigest(),
    )
    loaded = service.log(lineage, types=["map_loaded"])
    assert [e.event.text for e in loaded] == [text]  # type: ignore[attr-defined]
    assert service.log(lineage, types=["map_loaded"], viewer="red") == []
    assert mapfile.loads(loaded[0].event.text).name == "classic"  # type: ignore[attr-defined]


def test_log_filters(service: CampaignService) -> None:
    lineage = play(service)
    assert {e.turn for e in service.log(lineage, turn=1)} == {1}
    assert {e.type for e in service.log(lineage, types=["turn_ended"])} == {"turn_ended"}
    assert len(service.log(lineage, limit=2)) == 2
    with pytest.raises(InvalidInputError, match="unknown event type 'nope'"):
        service.log(lineage, types=["nope"])


def test_campaign_ends_after_its_last_turn(service: CampaignService) -> None:
    service.new_campaign(plan_campaign("short", [], seed="s", max_turns=1))
    lineage = service.target("short")
    service.end_turn(lineage)
    service.end_turn(lineage)
    with pytest.raises(IllegalCommandError, match="ended after turn 1"):
        service.end_turn(lineage)
    service.reveal_seed(lineage)  # no --early needed once it is over
    assert service.verify(lineage, dice=True).ok


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "bad name"}, "name 'bad name'"),
        ({"players": ["red", "red"]}, "twice"),
        ({"players": ["Red"]}, "player name 'Red'"),
        ({"dice_mode": "loaded"}, "dice mode"),
        ({"max_turns": 0}, "at least one turn"),
    ],
)
def test_bad_campaign_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"name": "ok", "players": ["red"]}
    settings.update(kwargs)
    with pytest.raises(InvalidInputError, match=message):
        plan_campaign(**settings)  # type: ignore[arg-type]


def test_a_rolls_key_says_nothing_of_the_rolls_its_reader_was_not_shown(
    service: CampaignService,
) -> None:
    """An umpire's roll is keyed by its audience and its number among that audience's rolls:
    a key numbered across all rolls (`roll-3`) told red of the two rolls before it he was
    not shown (review)."""

    def keys_red_reads(name: str, others_first: bool) -> list[str]:
        service.new_campaign(plan_campaign(name, ["red", "blue"], seed="same"))
        lineage = service.target(name)
        if others_first:
            service.roll(lineage, "d6", "blue's mutiny", Audience.players_(["blue"]))
            service.roll(lineage, "d6", "hidden", Audience.umpire_only())
        service.roll(lineage, "d6", "storm", RED)
        service.roll(lineage, "d6", "pirates", Audience.everyone())
        service.roll(lineage, "d6", "storm again", RED)
        return [
            roll.key
            for recorded in service.store.read(lineage, visible_to="red")
            if isinstance(recorded.event, DiceRolled)
            for roll in recorded.event.rolls
        ]

    alone = keys_red_reads("alone", others_first=False)
    assert alone == [
        "0/umpire/roll-for-red-1/0",
        "0/umpire/roll-all-1/0",
        "0/umpire/roll-for-red-2/0",
    ]
    assert keys_red_reads("among", others_first=True) == alone
