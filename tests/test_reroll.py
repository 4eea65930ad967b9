"""Re-rolls by ruling (issue 6): a die's next generation, attributed, checkable, addressed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from campaign import render
from campaign.dice import DiceKey, RerolledDice, Roll, SeededDice, seeded_value
from campaign.errors import IllegalCommandError, InvalidInputError, UmpireError
from campaign.events import (
    Audience,
    BattleFought,
    DiceRerollRuled,
    NewEvent,
    RecordedEvent,
    SystemExplored,
    UnitsCaught,
    rolls_of,
)
from campaign.hashing import GENESIS_HASH, chain_hasher
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage, campaigns, events, snapshots
from cli import app
from tests.conftest import CountingNonces, FixedClock
from tests.test_combat import DUEL_MAP
from tests.test_dice import GOLDEN_FACES
from tests.test_strategic import TINY_MAP, orders

# Under seed "s" red's scout troop S1 explores Alpha on turn 1 with one hazard die: 5, and
# re-rolled, 4. Neither loses the troop, so the re-roll changes that die's face and nothing
# else.
SCOUT_DIE = "1/exploration/red.Alpha.red-S1/0"
RED_SCOUTS = orders("red", 1, ("red-S1", "0102", "stand-off"))


@pytest.fixture
def map_file(tmp_path: Path) -> str:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_MAP)
    return str(path)


def tiny(map_file: str, dice_mode: str = "seeded") -> CampaignService:
    service = CampaignService.open(
        "sqlite://", clock=FixedClock(), create=True, nonces=CountingNonces()
    )
    plan = plan_campaign("g", ["red", "blue"], seed="s", map_spec=map_file, dice_mode=dice_mode)
    service.new_campaign(plan, ask=lambda key, sides: 3)
    return service


@pytest.fixture
def game(map_file: str) -> Iterator[tuple[CampaignService, Lineage]]:
    """Turn 1 of campaign `g` on the tiny map; red has sent his scouts to Alpha."""
    service = tiny(map_file)
    lineage = service.target("g")
    service.submit_orders(lineage, "red", RED_SCOUTS)
    yield service, lineage
    service.close()


def dice_of(recorded: list[RecordedEvent]) -> list[Roll]:
    return [roll for e in recorded for roll in rolls_of(e.event)]


def stored(service: CampaignService, lineage: Lineage) -> list[tuple[object, ...]]:
    return [
        (r.version, r.type, r.audience, r.actor, r.turn, r.payload, r.hash)
        for r in service.store.read_stored(lineage)
    ]


# ------------------------------------------------------------------ the dice


def test_first_keys_derive_as_before_and_a_generation_derives_anew() -> None:
    first = DiceKey(turn=1, phase="exploration", subject="fleet-0")
    assert str(first) == "1/exploration/fleet-0/0"  # no suffix: stored keys are unchanged
    faces = [
        SeededDice("golden-seed").roll(DiceKey(1, "exploration", f"fleet-{i}")).value
        for i in range(10)
    ]
    assert faces == GOLDEN_FACES
    again = DiceKey(turn=1, phase="exploration", subject="fleet-0", generation=2)
    assert str(again) == "1/exploration/fleet-0/0#2"
    assert DiceKey.parse(str(again)) == again
    assert again.first == first
    assert SeededDice("s").roll(again) == Roll(
        key="1/exploration/fleet-0/0#2", sides=6, value=seeded_value("s", str(again), 6)
    )
    for bad in ("1/exploration/fleet-0/0#1", "1/exploration/fleet-0/0#0", "1/x/y/0#", "1/x"):
        with pytest.raises(InvalidInputError, match="not of the form"):
            DiceKey.parse(bad)


def test_rerolled_dice_change_only_the_named_die() -> None:
    plain = SeededDice("s")
    ruled = RerolledDice(plain, {"1/exploration/fleet-7/0": 3})
    named = DiceKey(turn=1, phase="exploration", subject="fleet-7")
    other = DiceKey(turn=1, phase="exploration", subject="fleet-7", index=1)
    assert ruled.roll(named).key == "1/exploration/fleet-7/0#3"
    assert ruled.roll(named).value == seeded_value("s", "1/exploration/fleet-7/0#3", 6)
    assert ruled.roll(other) == plain.roll(other)


# ------------------------------------------------------------------ the ruling


def test_a_reroll_changes_exactly_the_named_die(game: tuple[CampaignService, Lineage]) -> None:
    service, lineage = game
    before = service.resolve_turn(lineage, dry_run=True)
    assert [(r.key, r.value) for r in dice_of(before)] == [(SCOUT_DIE, 5)]
    (ruling,) = service.reroll_dice(lineage, [SCOUT_DIE], " the report was lost in a storm ")
    assert ruling.event == DiceRerollRuled(
        turn=1, keys=(f"{SCOUT_DIE}#2",), reason="the report was lost in a storm"
    )
    assert (ruling.actor, str(ruling.audience), ruling.turn) == ("umpire", "red", 1)
    after = service.resolve_turn(lineage)
    assert [(r.key, r.value) for r in dice_of(after)] == [(f"{SCOUT_DIE}#2", 4)]
    assert seeded_value("s", f"{SCOUT_DIE}#2", 6) == 4
    # Every event is as the dry run before the ruling showed it, but for the one die.
    rerolled = Roll(key=f"{SCOUT_DIE}#2", sides=6, value=4)
    expected = [
        msgspec.structs.replace(e.event, rolls=(rerolled,))
        if isinstance(e.event, SystemExplored)
        else e.event
        for e in before
    ]
    assert [e.event for e in after] == expected
    assert [e.audience for e in after] == [e.audience for e in before]
    assert service.unrolled_rerolls(lineage, 1) == ()


def test_a_die_ruled_again_takes_the_next_generation(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.reroll_dice(lineage, [SCOUT_DIE], "first")
    with pytest.raises(InvalidInputError, match=r"not the die's latest roll \(.*#2\)"):
        service.reroll_dice(lineage, [f"{SCOUT_DIE}#3"], "stale")
    (again,) = service.reroll_dice(lineage, [f"{SCOUT_DIE}#2"], "second")
    assert again.event.keys == (f"{SCOUT_DIE}#3",)  # type: ignore[attr-defined]
    assert [r.key for r in dice_of(service.resolve_turn(lineage))] == [f"{SCOUT_DIE}#3"]


def test_same_seed_and_rulings_give_the_same_log_byte_for_byte(map_file: str) -> None:
    logs = []
    for _ in range(2):
        service = tiny(map_file)
        lineage = service.target("g")
        service.submit_orders(lineage, "red", RED_SCOUTS)
        service.reroll_dice(lineage, [SCOUT_DIE], "storm")
        service.resolve_turn(lineage)
        logs.append(stored(service, lineage))
        service.close()
    assert logs[0] == logs[1]
    assert any(b'#2"' in str(row[5]).encode() for row in logs[0])


def rechain(service: CampaignService, position: int, change: Callable[[str], str]) -> None:
    """Rewrite one stored payload and every hash after it, as an umpire with the database
    could: the chain stays whole, so only the dice can tell. The snapshots, bound to the old
    chain, would give the edit away (issue 13): such an umpire drops them too."""
    with service.store.engine.begin() as conn:
        conn.execute(snapshots.delete())
        previous = GENESIS_HASH
        (key,) = conn.execute(sa.select(campaigns.c.chain_key)).one()  # he holds the key
        hasher = chain_hasher(key)
        for row in conn.execute(sa.select(events).order_by(events.c.position)).all():
            payload = change(row.payload) if row.position == position else row.payload
            digest = hasher(
                previous,
                row.stream_id,
                row.version,
                row.type,
                row.schema_version,
                row.audience,
                row.actor,
                row.turn,
                payload,
            )
            conn.execute(
                events.update()
                .where(events.c.position == row.position)
                .values(payload=payload, hash=digest)
            )
            previous = digest


def test_verify_dice_recomputes_a_reroll_and_catches_a_forged_one(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.reroll_dice(lineage, [SCOUT_DIE], "storm")
    explored = next(e for e in service.resolve_turn(lineage) if e.type == "system_explored")
    service.reveal_seed(lineage, early=True)
    report = service.verify(lineage, dice=True)
    assert (report.ok, report.dice_problems) == (True, ())
    # 20 captains at the set-up (two Continuum default fleets of 10), and the re-rolled die
    assert report.seeded_rolls == 21
    rechain(service, explored.position, lambda p: p.replace('"value":4', '"value":5'))
    assert service.verify(lineage).ok  # the chain is whole ...
    forged = service.verify(lineage, dice=True)
    assert not forged.ok  # ... but the re-rolled die is not the seed's
    assert forged.dice_problems == (
        f"position {explored.position}: roll {SCOUT_DIE}#2 shows 5, the seed gives 4",
    )


def test_verify_dice_names_a_reroll_no_ruling_ordered(map_file: str) -> None:
    service = tiny(map_file)
    lineage = service.target("g")
    key = "1/caught/red-S1/0#2"
    roll = Roll(key=key, sides=6, value=seeded_value("s", key, 6))  # the seed's own face
    caught = UnitsCaught(player="red", losses=(), rolls=(roll,))
    state = service.load(lineage)
    (recorded,) = service.append(lineage, state.version, [NewEvent(caught, Audience.everyone(), 1)])
    service.reveal_seed(lineage, early=True)
    assert service.verify(lineage, dice=True).dice_problems == (
        f"position {recorded.position}: roll {key} is a re-roll no ruling ordered",
    )


@pytest.mark.parametrize(
    ("keys", "reason", "error", "message"),
    [
        (["1/exploration"], "x", InvalidInputError, "is not of the form turn/phase/subject"),
        (["2/exploration/red.Alpha.red-S1/0"], "x", InvalidInputError, "is of turn 2, not"),
        ([SCOUT_DIE], "  ", InvalidInputError, "a ruling needs its reason"),
        ([], "x", InvalidInputError, "name the dice"),
        ([SCOUT_DIE, SCOUT_DIE], "x", InvalidInputError, "is named twice"),
        ([f"{SCOUT_DIE}#2"], "x", InvalidInputError, "not the die's latest roll"),
        (["1/exploration/red.Alpha.red-S2/0"], "x", IllegalCommandError, "does not roll die"),
    ],
)
def test_bad_rulings_name_the_problem_and_write_nothing(
    game: tuple[CampaignService, Lineage],
    keys: list[str],
    reason: str,
    error: type[UmpireError],
    message: str,
) -> None:
    service, lineage = game
    before = stored(service, lineage)
    with pytest.raises(error, match=message):
        service.reroll_dice(lineage, keys, reason)
    assert stored(service, lineage) == before


def test_physical_dice_are_rolled_again_at_the_table(map_file: str) -> None:
    service = tiny(map_file, dice_mode="manual")
    with pytest.raises(IllegalCommandError, match="rolls physical dice"):
        service.reroll_dice(service.target("g"), [SCOUT_DIE], "storm")


def test_only_the_players_who_read_the_die_are_told(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.reroll_dice(lineage, [SCOUT_DIE], "the report was lost in a storm")
    service.resolve_turn(lineage)
    assert service.log(lineage, viewer="blue", types=["dice_reroll_ruled"]) == []
    blue = service.report(lineage, "blue")
    assert "red-S1" not in json.dumps([render.describe(e.event) for e in blue.news])
    red = service.report(lineage, "red")
    told = [render.describe(e.event) for e in red.news if isinstance(e.event, DiceRerollRuled)]
    assert told == [
        f"by the umpire's ruling, die {SCOUT_DIE}#2 will be rolled again as turn 1 "
        "resolves: the report was lost in a storm"
    ]


def duel(tmp_path: Path) -> tuple[CampaignService, Lineage]:
    """Red's and blue's W1 meet at Alpha on turn 1, both Engaging: initiative is rolled."""
    path = tmp_path / "duel.toml"
    path.write_text(DUEL_MAP)
    service = CampaignService.open("sqlite://", clock=FixedClock(), create=True)
    service.new_campaign(plan_campaign("d", ["red", "blue"], seed="duel", map_spec=str(path)))
    lineage = service.target("d")
    service.submit_orders(lineage, "red", orders("red", 1, ("red-W1", "0201", "engage")))
    service.submit_orders(lineage, "blue", orders("blue", 1, ("blue-W1", "0201", "engage")))
    return service, lineage


def test_dice_read_by_both_sides_tell_both_and_battle_dice_can_be_ruled(
    tmp_path: Path,
) -> None:
    service, main = duel(tmp_path)
    initiative, explored = "1/initiative/t1-0201.blue.red.red/0", "1/exploration/red.Alpha.red-W1/0"
    both, red = service.reroll_dice(main, [initiative, explored], "a gravity wave")
    assert (str(both.audience), both.event.keys) == ("blue,red", (f"{initiative}#2",))  # type: ignore[attr-defined]
    assert (str(red.audience), red.event.keys) == ("red", (f"{explored}#2",))  # type: ignore[attr-defined]
    assert [e.event for e in service.log(main, viewer="blue", types=["dice_reroll_ruled"])] == [
        both.event
    ]
    step = dice_of(service.resolve_turn(main))
    assert {f"{initiative}#2", f"{explored}#2"} <= {r.key for r in step}
    assert not {initiative, explored} & {r.key for r in step}
    # The battle waits: the next step is fighting it, so its dice can be ruled too.
    waiting = service.store.head(main)[0]
    fought = service.resolve_battles(main)
    assert isinstance(fought[0].event, BattleFought)
    battle_die = fought[0].event.rolls[0].key
    with pytest.raises(IllegalCommandError, match=r"rolled already this turn \(position"):
        service.reroll_dice(main, [battle_die], "too late")
    again = service.target("d", service.rewind(main, None, to_version=waiting).name)
    (ruled,) = service.reroll_dice(again, [battle_die], "a die fell off the table")
    assert str(ruled.audience) == "blue,red"
    keys = [r.key for r in dice_of(service.resolve_battles(again))]
    assert f"{battle_die}#2" in keys
    assert battle_die not in keys
    service.close()


def test_rewinding_to_a_version_keeps_the_turns_orders(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, main = game
    handed_in = service.store.head(main)[0]
    service.resolve_turn(main)
    branch = service.rewind(main, None, to_version=handed_in)
    assert (branch.name, branch.fork_version) == (f"main-v{handed_in}", handed_in)
    again = service.target("g", branch.name)
    assert set(service.load(again).submitted) == {"red"}  # the orders stay; turn 1 is open
    for turn, version, message in [
        (0, handed_in, "one of them"),
        (None, None, "one of them"),
        (None, 999, "has versions 1-"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            service.rewind(main, turn, to_version=version)


def test_a_ruled_die_not_rolled_after_all_is_reported(
    game: tuple[CampaignService, Lineage],
) -> None:
    service, lineage = game
    service.reroll_dice(lineage, [SCOUT_DIE], "storm")
    service.submit_orders(lineage, "red", orders("red", 1))  # the scouts stay at home after all
    preview = service.resolve_turn(lineage, dry_run=True)
    assert service.unrolled_rerolls(lineage, 1, preview) == (f"{SCOUT_DIE}#2",)
    service.resolve_turn(lineage)
    assert service.unrolled_rerolls(lineage, 1) == (f"{SCOUT_DIE}#2",)


# ------------------------------------------------------------------ the command line

runner = CliRunner()


def umpire(*args: str, db: Path, code: int = 0) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def test_dry_run_then_reroll_then_resolve_on_a_rewound_branch(
    tmp_path: Path, map_file: str
) -> None:
    """The umpire's workflow for a turn already resolved: rewind to just before it resolved,
    see its dice, rule, resolve. The original branch keeps its roll."""
    db = tmp_path / "umpire.db"
    umpire("new", "g", "--players", "red,blue", "--seed", "s", "--map", map_file, db=db)
    (tmp_path / "red.toml").write_text(RED_SCOUTS)
    umpire("orders", "submit", str(tmp_path / "red.toml"), "--player", "red", db=db)
    umpire("turn", "resolve", db=db)
    turn_1 = json.loads(umpire("log", "--turn", "1", "--json", db=db))
    resolved = next(e["version"] for e in turn_1 if e["type"] == "absent_player")
    assert f"{SCOUT_DIE} │ 5 on d6" in umpire("log", "--turn", "1", "--dice", db=db)
    assert "main-v" in umpire("rewind", "--to-version", str(resolved - 1), db=db)
    dry = umpire("turn", "resolve", "--dry-run", "--dice", db=db)
    assert f"{SCOUT_DIE} │ 5 on d6" in dry
    ruled = umpire("ruling", "reroll", SCOUT_DIE, "-r", "the report was lost", db=db)
    assert "dice_reroll_ruled" in ruled
    out = umpire("turn", "resolve", "--dice", db=db)
    assert f"{SCOUT_DIE}#2 │ 4 on d6" in out
    assert "ruled rolled again" not in out  # it was rolled
    red = json.loads(
        umpire("log", "--as-player", "red", "--type", "dice_reroll_ruled", "--json", db=db)
    )
    assert [e["event"]["reason"] for e in red] == ["the report was lost"]
    umpire("reveal-seed", "--early", db=db)
    assert "OK" in umpire("verify", "--dice", db=db)
    main = json.loads(umpire("log", "--turn", "1", "--branch", "main", "--json", db=db))
    assert main == turn_1  # the original branch is untouched


def test_a_die_ruled_but_not_rolled_is_named_when_the_turn_resolves(
    tmp_path: Path, map_file: str
) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "g", "--players", "red,blue", "--seed", "s", "--map", map_file, db=db)
    (tmp_path / "red.toml").write_text(RED_SCOUTS)
    umpire("orders", "submit", str(tmp_path / "red.toml"), "--player", "red", db=db)
    umpire("ruling", "reroll", SCOUT_DIE, "--reason", "storm", db=db)
    (tmp_path / "red.toml").write_text(orders("red", 1))
    umpire("orders", "submit", str(tmp_path / "red.toml"), "--player", "red", db=db)
    dry = " ".join(umpire("turn", "resolve", "--dry-run", db=db).split())
    assert f"die {SCOUT_DIE}#2 was ruled rolled again, but the turn ends without rolling" in dry


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1/exploration", "-r", "x"], "dice key '1/exploration' is not of the form"),
        (["2/exploration/red.Alpha.red-S1/0", "-r", "x"], "is of turn 2, not"),
        ([SCOUT_DIE], "a ruling needs its reason (--reason)"),
        ([SCOUT_DIE, "-r", " "], "a ruling needs its reason (--reason)"),
    ],
)
def test_cli_refusals_are_one_line_and_write_nothing(
    tmp_path: Path, map_file: str, args: list[str], message: str
) -> None:
    db = tmp_path / "umpire.db"
    umpire("new", "g", "--players", "red,blue", "--seed", "s", "--map", map_file, db=db)
    before = umpire("log", "--json", db=db)
    result = runner.invoke(app, ["ruling", "reroll", *args, "--db", str(db)])
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith("umpire: error: ")
    assert message in line
    assert umpire("log", "--json", db=db) == before
