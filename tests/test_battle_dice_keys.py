"""A 004 battle's dice are keyed by what both its sides know, and by nothing else.

Every die of a battle (initiative, the engine's, officers' and captains' casualties) is keyed
under the battle's dice key: its turn and hex, its two players in name order, and, for a
second battle of the same two in that hex and turn, its place among theirs (`.2`), for an
assault `.assault` (docs/rulings.md, "Campaign: a battle's dice"). Before, the key was the
internal id, `t1-b2`, which counts the turn's battles; a player read it renamed (`t1-0601`),
so once `umpire reveal-seed` published the seed his rolls did not recompute from it, and
trying `t1-b1`, `t1-b2`... told him how many battles others fought before his.

Checked here, after the seed is revealed: every seeded roll each player reads (his log, his
report, his battle reports, his package) recomputes from the seed by the documented recipe
(docs/rulings.md, "Dice faces"); green's battle rolls the same dice whether or not red and
blue fought elsewhere that turn; the two sides of one battle read the same keys though they
name the battle differently (`t1-0302-2` and `t1-0302`); two battles of the same players in
one hex are keyed apart; and a battle announced before the keys changed keeps its old key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from campaign import render
from campaign.battlenames import dice_key
from campaign.dice import DiceKey, SeededDice, seeded_value
from campaign.events import BattleFought, BattleRequested, SeedRevealed
from campaign.rules.battles import fight
from campaign.service import CampaignService, plan_campaign
from campaign.store import Lineage
from campaign.strategic import Battle
from tests.conftest import FixedClock
from tests.test_battle_ids import play
from tests.test_carry_over_campaign import fleets
from tests.test_combat import DUEL
from tests.test_core_systems_campaign import BATTLE
from tests.test_strategic import orders
from tests.test_three_way import PLAYERS as TRIO_PLAYERS
from tests.test_three_way import TRIO_MAP


def _rolls(value: object) -> Iterator[dict[str, object]]:
    """Every roll (a `{key, sides, value, source}` object) anywhere in decoded JSON."""
    if isinstance(value, dict):
        if {"key", "sides", "value", "source"} <= set(value):
            yield value
        for inner in value.values():
            yield from _rolls(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _rolls(inner)


def _revealed(service: CampaignService, lineage: Lineage, player: str) -> str:
    """The seed as the player reads it in his own log once the umpire revealed it."""
    read = service.log(lineage, viewer=player)
    (seed,) = [e.event.seed for e in read if isinstance(e.event, SeedRevealed)]
    return seed


def _what_he_reads(service: CampaignService, lineage: Lineage, player: str) -> dict[str, str]:
    """His log, report, package files and battle reports, as JSON or text."""
    read = {
        "log": msgspec.json.encode(service.log(lineage, viewer=player)).decode(),
        "report": msgspec.json.encode(service.report(lineage, player, 1)).decode(),
    }
    package = render.player_package(service.report(lineage, player, 1), "")
    read |= {f"package {name}": text for name, text in package.items()}
    for battle in service.fought_battles(lineage, player):
        report = service.battle_report(lineage, battle, player)
        read[f"battle {battle}"] = msgspec.json.encode(report).decode()
    return read


def _checked(service: CampaignService, lineage: Lineage, player: str) -> list[dict[str, object]]:
    """Recompute every seeded roll he reads from the revealed seed (the recipe: the face of
    a d`sides` keyed `key` is `seeded_value(seed, key, sides)`); return them all."""
    seed = _revealed(service, lineage, player)
    found: list[dict[str, object]] = []
    for where, text in _what_he_reads(service, lineage, player).items():
        if not text.lstrip().startswith(("{", "[")):
            continue
        for roll in _rolls(json.loads(text)):
            if roll["source"] != "seeded":
                continue
            key, sides = str(roll["key"]), int(roll["sides"])  # type: ignore[call-overload]
            assert seeded_value(seed, key, sides) == roll["value"], (player, where, key)
            found.append(roll)
    return found


@pytest.fixture(scope="module", params=["continuum", "ft2"])
def quartet(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[CampaignService, Lineage, Path]]:
    """Red and blue at Alpha, green and yellow at Beta (tests/test_battle_ids.py), the seed
    revealed after the turn."""
    folder = tmp_path_factory.mktemp(f"dice-{request.param}")
    service = CampaignService.open(str(folder / "q.db"), clock=FixedClock(), create=True)
    lineage = play(service, folder, request.param)
    service.reveal_seed(lineage, early=True)
    yield service, lineage, folder
    service.close()


def test_every_roll_a_player_reads_recomputes_from_the_revealed_seed(
    quartet: tuple[CampaignService, Lineage, Path],
) -> None:
    service, lineage, _ = quartet
    for player in ("red", "blue", "green", "yellow"):
        rolls = _checked(service, lineage, player)
        keys = [str(r["key"]) for r in rolls]
        assert [k for k in keys if "/initiative/" in k or "/battle/" in k], player


def test_his_battles_dice_are_the_same_whatever_else_was_fought(
    quartet: tuple[CampaignService, Lineage, Path], tmp_path: Path
) -> None:
    """The same turn with red and blue staying home: green's battle is the turn's first, not
    its second, and he reads the same dice, the same outcome and the same battle report."""
    service, lineage, folder = quartet
    rules = "ft2" if "ft2" in folder.name else "continuum"
    alone = CampaignService.open(str(tmp_path / "alone.db"), clock=FixedClock(), create=True)
    try:
        there = play(alone, tmp_path, rules, alpha=False)
        assert alone.fought_battles(there, "umpire") == ["t1-b1"]
        assert service.fought_battles(lineage, "umpire") == ["t1-b1", "t1-b2"]

        def battle_events(s: CampaignService, at: Lineage) -> list[str]:
            return [
                msgspec.json.encode(e.event).decode()
                for e in s.log(at, viewer="green")
                if isinstance(e.event, BattleRequested | BattleFought)
            ]

        assert battle_events(alone, there) == battle_events(service, lineage)
        mine = msgspec.json.encode(alone.battle_report(there, "t1-0601", "green"))
        assert mine == msgspec.json.encode(service.battle_report(lineage, "t1-0601", "green"))
    finally:
        alone.close()


@pytest.fixture(scope="module")
def trio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CampaignService, Lineage]]:
    """Three players in one hex (tests/test_three_way.py), under open record sheets, so that
    each side reads every die of his battles: red fights blue, then green."""
    folder = tmp_path_factory.mktemp("trio-dice")
    service = CampaignService.open(str(folder / "trio.db"), clock=FixedClock(), create=True)
    map_file = folder / "trio.toml"
    map_file.write_text(TRIO_MAP)
    plan = plan_campaign("trio", TRIO_PLAYERS, seed="c", map_spec=str(map_file), battle_rules="ft2")
    service.new_campaign(plan)
    lineage = service.target("trio")
    order = {"red": "engage", "blue": "stand-off", "green": "stand-off"}
    for player in TRIO_PLAYERS:
        moves = [(f"{player}-W{n}", "0302", order[player]) for n in (1, 2)]
        service.submit_orders(lineage, player, orders(player, 1, *moves))
    service.resolve_turn(lineage)
    service.resolve_battles(lineage)
    service.resolve_turn(lineage)
    service.reveal_seed(lineage, early=True)
    yield service, lineage
    service.close()


def test_both_sides_read_one_battles_keys_whatever_each_calls_it(
    trio: tuple[CampaignService, Lineage],
) -> None:
    """Red's second battle at 0302 is green's first: red reads it as `t1-0302-2`, green as
    `t1-0302`; both read the same dice under the same keys, which recompute from the seed,
    and hold neither name's number nor the turn's count of battles."""
    service, lineage = trio
    assert service.fought_battles(lineage, "red") == ["t1-0302", "t1-0302-2"]
    assert service.fought_battles(lineage, "green") == ["t1-0302"]
    fought = {
        player: [
            e.event
            for e in service.log(lineage, viewer=player)
            if isinstance(e.event, BattleFought) and e.event.battle.id == named
        ]
        for player, named in (("red", "t1-0302-2"), ("green", "t1-0302"))
    }
    (red,), (green,) = fought["red"], fought["green"]
    assert [s.player for s in red.battle.sides] == [s.player for s in green.battle.sides]
    keys = {player: [r.key for r in f.rolls] for player, f in (("red", red), ("green", green))}
    assert keys["red"]
    assert keys["red"] == keys["green"]
    assert red.rolls == green.rolls
    for player in TRIO_PLAYERS:
        _checked(service, lineage, player)
    subjects = {k.split("/")[2].split(".battle.")[0] for k in keys["green"] if "/battle/" in k}
    assert subjects == {"t1-0302.green.red"}


def test_two_battles_of_the_same_players_in_one_hex_are_keyed_apart(tmp_path: Path) -> None:
    """Red Engages with one ship and Stands Off with the other, blue Engages: two battles of
    red and blue at 0302 (Engage against Engage first, 004 L125-131). The second is keyed
    `.2`, by its place among their battles there, which both of them read."""
    service = CampaignService.open(str(tmp_path / "pair.db"), clock=FixedClock(), create=True)
    try:
        map_file = tmp_path / "trio.toml"
        map_file.write_text(TRIO_MAP)
        plan = plan_campaign("pair", ("red", "blue"), seed="c", map_spec=str(map_file))
        service.new_campaign(plan)
        lineage = service.target("pair")
        red = [("red-W1", "0302", "engage"), ("red-W2", "0302", "stand-off")]
        service.submit_orders(lineage, "red", orders("red", 1, *red))
        blue = [(f"blue-W{n}", "0302", "engage") for n in (1, 2)]
        service.submit_orders(lineage, "blue", orders("blue", 1, *blue))
        service.resolve_turn(lineage)
        battles = service.battles(lineage)
        assert [b.id for b in battles] == ["t1-b1", "t1-b2"]
        assert [b.dice_key for b in battles] == ["t1-0302.blue.red", "t1-0302.blue.red.2"]
        for player in ("red", "blue"):
            seen = [
                e.event.battle.dice_key
                for e in service.log(lineage, viewer=player)
                if isinstance(e.event, BattleRequested)
            ]
            assert seen == ["t1-0302.blue.red", "t1-0302.blue.red.2"]
    finally:
        service.close()


def test_the_dice_key_is_turn_hex_and_players() -> None:
    assert dice_key(3, "0201", ("red", "blue"), 1) == "t3-0201.blue.red"
    assert dice_key(3, "0201", ("red", "blue"), 2) == "t3-0201.blue.red.2"
    assert dice_key(3, "0201", ("red", "blue"), 1, assault=True) == "t3-0201.blue.red.assault"


def test_a_battle_announced_before_the_keys_changed_keeps_its_old_key() -> None:
    """A campaign upgraded while a battle waits: its request, stored without a dice key,
    decodes with none, and the engine fights it under its id as it always did
    (`1/battle/t3-b1.t3-b1.t1.initiative.blue.0/0`), rolling the dice it would have."""
    payload = json.loads(msgspec.json.encode(BATTLE))
    del payload["dice_key"]
    stored = msgspec.json.decode(json.dumps(payload), type=Battle)
    assert stored.dice_key == ""
    assert stored.dice_name == "t3-b1"
    fought = fight(fleets(), DUEL, stored, SeededDice("s"))
    assert fought.rolls
    assert all(DiceKey.parse(r.key).subject.startswith("t3-b1.t3-b1.") for r in fought.rolls)
