"""A player's battle report tells the enemy only as his side saw it (docs/rulings.md,
"Campaign: a battle told turn by turn to a side").

The trio campaign's battle t1-b1 (tests/test_reports.py) is fought under Continuum rules:
bogeys (004 L39) and closed record sheets (000 L1462-1466). Blue's one ship, blue-W1, is a
contact to red through turn 1 and gives itself away (an active scan) in turn 2's movement,
after it moved. Until that line red knows it only as the contact his table shows, `?B1`: no
line told to him may name blue-W1, and no line, before or after, may tell the orders it moved
by (red sees where it went, not what blue wrote). Every surface he reads is checked: the
report itself, its JSON, `battles show --turns`, the HTML replay and the web page.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from campaign import render
from campaign.battleknowledge import Journal, ShipKnowledge, decode_journal
from campaign.battlereport import BattleReport, EnemySystems, battle_report, told_as_seen
from campaign.events import BattleFought
from campaign.service import CampaignService
from campaign.store import Lineage
from tactical.battle import (
    Battle,
    BattleSetup,
    DummySetup,
    Event,
    FightersResolved,
    Repair,
    RepairsMade,
    Scramble,
    ShipSetup,
    ShipsMoved,
    Shot,
    TurnEnded,
    context,
    evolve,
    initial_state,
    side_view,
)
from tactical.commanders import engage_commander, play
from tactical.dice import SeededDice
from tactical.movement import Order
from tactical.state import BattleContext, BattleState
from tactical.summary import describe
from tests.conftest import FixedClock
from tests.tactical import extra_designs
from tests.tactical.test_ecm import TEST_DESIGNS
from tests.test_render import check_golden
from tests.test_reports import Trio

ENEMY = "blue-W1"
# What red may read of an enemy ship's move: where it went, its facing and motion; no order.
SEEN_MOVE = re.compile(
    r"^\s*(?:blue-W1|\?B\d+) to -?[\d.]+,-?[\d.]+ facing \d+, course [\d.]+° speed [\d.]+$"
)


@pytest.fixture(scope="module")
def trio(tmp_path_factory: pytest.TempPathFactory) -> Trio:
    return Trio(tmp_path_factory.mktemp("fog"))


@pytest.fixture
def service(trio: Trio) -> Iterator[tuple[CampaignService, Lineage]]:
    opened = CampaignService.open(trio.db, clock=FixedClock())
    yield opened, opened.target("trio")
    opened.close()


def _fought(opened: CampaignService, lineage: Lineage) -> BattleFought:
    (recorded,) = opened.log(lineage, types=["battle_fought"])
    assert isinstance(recorded.event, BattleFought)
    return recorded.event


def _blue_orders(fought: BattleFought) -> list[str]:
    """The orders blue-W1 moved by, from the engine's journal (the umpire's)."""
    record = decode_journal(fought.journal)
    assert record is not None
    return [
        m.order
        for e in record.journal
        if isinstance(e, ShipsMoved)
        for m in e.moves
        if m.ship == ENEMY
    ]


def _label(report: BattleReport) -> str:
    """The contact red's table shows for blue's ship at the start, as the text tells it."""
    (contact,) = [c for c in report.start if c.kind == "contact"]
    return f"?{contact.label}"


def _check_told(lines: list[str], label: str, orders: list[str]) -> None:
    """`lines`, the turns as red reads them, name blue-W1 only from the line that identifies
    it, tell its moves before that as its contact's, and never tell an order it moved by."""
    found = [i for i, line in enumerate(lines) if ENEMY in line]
    assert found, "blue-W1 is identified in the battle: the test means something"
    first = found[0]
    assert label in lines[first], lines[first]
    assert "gives itself away" in lines[first], lines[first]
    assert all(ENEMY not in line for line in lines[:first])
    moves = [line for line in lines if re.match(rf"\s*(?:{ENEMY}|{re.escape(label)}) to ", line)]
    assert any(line.strip().startswith(f"{label} to ") for line in lines[:first])
    assert moves
    assert all(SEEN_MOVE.match(line) for line in moves), moves
    for order in orders:
        assert all(f"{ENEMY} {order} " not in line for line in lines)
        assert all(f"{label} {order} " not in line for line in lines)
    # Its design red never scanned: the weapons it fires go by labels, not ids (`beam4-1`).
    fires = [line for line in lines if line.strip().startswith(f"{ENEMY} fires: ")]
    assert fires
    assert all(" weapon " in line for line in fires)
    assert not any(re.search(r"\bbeam\d-\d\b", line) for line in fires), fires


def test_an_enemy_ship_is_told_as_its_contact_until_identified_and_its_orders_never(
    service: tuple[CampaignService, Lineage],
) -> None:
    opened, lineage = service
    fought = _fought(opened, lineage)
    orders = _blue_orders(fought)
    # What is hidden below is in the journal: the umpire reads blue-W1's orders in turn 1.
    umpire = opened.battle_report(lineage, "t1-b1")
    told_umpire = [line for t in umpire.turns for line in t.lines]
    assert any(line.strip().startswith(f"{ENEMY} {orders[0]} ") for line in told_umpire)
    red = opened.battle_report(lineage, "t1-0201", "red")
    _check_told([line for t in red.turns for line in t.lines], _label(red), orders)
    # The umpire's report is the journal told whole, line for line.
    record = decode_journal(fought.journal)
    assert record is not None
    assert told_umpire == [
        line for e in record.journal for line in describe(e, record.setup.movement)
    ]


def test_every_surface_red_reads_tells_the_enemy_as_he_saw_it(
    trio: Trio, service: tuple[CampaignService, Lineage], tmp_path: Path
) -> None:
    opened, lineage = service
    orders = _blue_orders(_fought(opened, lineage))
    red = opened.battle_report(lineage, "t1-0201", "red")
    label = _label(red)

    # `battles show --json`: the report as scripts read it.
    told = json.loads(
        trio.umpire("battles", "show", "t1-0201", "--as-player", "red", "--turns", "--json")
    )
    _check_told([line for t in told["turns"] for line in t["lines"]], label, orders)

    # `battles show --turns`: the text after the forces and fates tables.
    text = trio.umpire("battles", "show", "t1-0201", "--as-player", "red", "--turns")
    turns = text[text.index("\nTurn 1\n") :]
    _check_told(turns.splitlines(), label, orders)

    # The HTML replay, as `--replay` writes it and the package publishes it; pinned whole.
    check_golden("battle_red_replay", render.battle_replay_html(red))
    replay = tmp_path / "red.html"
    trio.umpire("battles", "show", "t1-0201", "--as-player", "red", "--replay", str(replay))
    for page in (replay.read_text(), render.battle_replay_html(red)):
        told_lines = re.findall(r"<li>(.*?)</li>", page[page.index("<h3>Turn 1</h3>") :])
        _check_told([line.replace("&#x27;", "'") for line in told_lines], label, orders)
    out = tmp_path / "published"
    trio.umpire("publish", "--out", str(out), "--turn", "1")
    published = (out / "red" / "battle-t1-0201.html").read_text()
    assert published == render.battle_replay_html(red)

    # The web battle page.
    from starlette.testclient import TestClient

    from campaign.players import PlayerSecrets
    from campaign.web import create_app
    from tests.test_web import sign_in

    keys = PlayerSecrets(opened.store)
    held = keys.holds_secret("trio", "red")
    secret = keys.rotate("trio", "red") if held else keys.issue("trio", "red")
    with TestClient(create_app(opened, secret_key="k", https_only=False)) as client:
        sign_in(client, "trio", "red", secret)
        page = client.get("/battles/t1-0201").text
    assert page == render.battle_replay_html(red)


def test_what_the_other_side_learnt_of_his_ships_is_not_told_to_him(
    service: tuple[CampaignService, Lineage],
) -> None:
    """An enemy's scan of his ship identifies it, which he sees (his counter turned over);
    what it learnt of the ship is the enemy's own knowledge (docs/rulings.md, "Campaign: what
    a side learns of an enemy ship's fate": the other side's secret)."""
    opened, lineage = service
    fought = _fought(opened, lineage)
    record = decode_journal(fought.journal)
    assert record is not None
    # Blue's scan of red-W1 learnt something: the umpire reads it.
    moved = next(e for e in record.journal if isinstance(e, ShipsMoved) and e.sensed)
    scan = msgspec.structs.replace(
        moved.sensed[0], counter="red-W1", how="active", by=ENEMY, learned=2
    )
    journal = json.loads(fought.journal or "")
    index = record.journal.index(moved)
    journal["journal"][index]["sensed"].append(msgspec.to_builtins(scan))
    scanned = msgspec.structs.replace(fought, journal=json.dumps(journal))
    umpire = battle_report(scanned, "umpire", "Alpha (0201)")
    assert any("which learns" in line for t in umpire.turns for line in t.lines)
    red = battle_report(scanned, "red", "Alpha (0201)")
    lines = [line for t in red.turns for line in t.lines]
    assert any("red-W1 identified by" in line for line in lines)
    assert not any("which learns" in line for line in lines)


# ---------------------------------------------------------------- contacts that fire, dummies


@pytest.fixture
def _ecm_designs(monkeypatch: pytest.MonkeyPatch) -> None:
    extra_designs.install(monkeypatch, TEST_DESIGNS)


def _ship(
    sid: str, side: str, design: str, x: float, y: float, course: int, speed: int = 0
) -> ShipSetup:
    return ShipSetup(id=sid, side=side, design=design, x=x, y=y, course=course, speed=speed)


def _fought_out(
    battle: Battle, orders: dict[str, dict[str, Order]], shots: dict[str, list[Shot]]
) -> None:
    """Write both sides' orders and play the turn to its end: each ship fires its `shots`, or
    holds fire; no repairs."""
    dice = SeededDice(1)
    for side, written in orders.items():
        battle.write_orders(side, written)
    while (step := battle.step()).phase not in ("orders", "over"):
        if step.phase == "fire":
            firer = next(
                s.id
                for s in battle.state.ships
                if s.side == step.side and s.status == "active" and not s.fired
            )
            battle.fire(firer, shots.get(firer, []), dice)
        elif step.phase == "repair":
            battle.repair(next(s for s in ("red", "blue") if _repairs_due(battle, s)), {}, dice)
        else:
            battle.resolve(dice)


def _repairs_due(battle: Battle, side: str) -> bool:
    return battle.step().phase == "repair" and side not in {
        e.side for e in battle.journal if isinstance(e, RepairsMade) and e.turn == battle.state.turn
    }


@pytest.mark.usefixtures("_ecm_designs")
def test_a_contact_that_fires_and_a_dummy_are_told_as_contacts_until_identified(
    service: tuple[CampaignService, Lineage],
) -> None:
    """b1, a jammer under its own ECM and b2's area ECM (000 L7703-7707, aggregate 3: red's
    passive sensors identify it at 18 MU), closes to 20 MU of red's r1: a contact in range of
    its Beam-2. Red's scan names blue's dummy d1 (001 L955-957), which it removes; b1 then
    fires at r1, which gives it away (docs/rulings.md). Red reads b1's, b2's and d1's moves
    alike, as contacts', without their orders; d1 as a dummy only when his scan finds it out;
    b1 by name only from the line telling it fired; b2, never identified, never by name, not
    even holding fire (which a dummy would not). The battle is told through the report of the
    trio's battle, its journal replaced by this one."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        bogeys=True,
        ships=(
            _ship("r1", "red", "plain", 0, 0, 12),
            _ship("b1", "blue", "jammer", 0, 37, 6, speed=17),
            _ship("b2", "blue", "ew_ship", 0, 42.5, 6, speed=17),
        ),
        dummies=(DummySetup(id="d1", side="blue", x=20, y=40, course=6),),
    )
    battle = Battle(setup)
    labels = {s.id: f"?{s.bogey}" for s in battle.state.ships} | {
        d.id: f"?{d.label}" for d in battle.state.dummies
    }
    _fought_out(
        battle,
        {
            "red": {"r1": Order(scan=True, scan_for=(labels["d1"][1:],))},
            "blue": {"b1": Order(ecm=True), "b2": Order(ecm=True), "d1": Order(accel=1)},
        },
        {"b1": [Shot("beam2-1", "r1")]},
    )
    opened, lineage = service
    fought = _fought(opened, lineage)
    record = decode_journal(fought.journal)
    assert record is not None
    journal = Journal(request=record.request, setup=setup, journal=tuple(battle.journal))
    replaced = msgspec.structs.replace(fought, journal=msgspec.json.encode(journal).decode())
    umpire = [line for t in battle_report(replaced, "umpire", "").turns for line in t.lines]
    red = [line for t in battle_report(replaced, "red", "").turns for line in t.lines]
    # What is hidden below happened: the dummy moved by its order, b1 fired from a contact.
    assert "    dummy d1 +1 to 20,39" in umpire
    assert "    b1 =/ecm to 0,20 course 6 speed 17" in umpire
    assert any(line.startswith("  b1 fires: ") for line in umpire)
    assert "  b2 holds fire" in umpire
    d1, b1, b2 = labels["d1"], labels["b1"], labels["b2"]
    # The contacts' moves, the dummy's as a ship's, in the order of their labels (the
    # journal's, by id and the dummies last, would tell which is which).
    moves = {
        b1: f"    {b1} to 0,20 course 6 speed 17",
        b2: f"    {b2} to 0,25.5 course 6 speed 17",
        d1: f"    {d1} to 20,39 course 6 speed 1",
    }
    assert [line for line in red if line in moves.values()] == [moves[k] for k in sorted(moves)]
    found_out = red.index(f"    dummy bogey {d1} identified by r1's active scan, removed")
    assert all("d1" not in line and "dummy" not in line for line in red[:found_out])
    fired = next(i for i, line in enumerate(red) if "b1" in line)
    assert red[fired] == f"  {b1} fires, giving itself away: it is b1"
    assert red[fired + 1].startswith("  b1 fires: weapon 1 at r1 ")  # its design unknown
    assert not any("/ecm" in line for line in red)
    assert all("b2" not in line for line in red)  # never identified
    assert not any(line.strip() == f"{b2} holds fire" for line in red)


def test_what_only_the_enemys_own_people_know_is_not_told() -> None:
    """The enemy's damage control (its parties and dice), its FTL Move ship's die readying the
    jump (004 L142-143), its carrier's scramble die and a mishap in its bays (000 8.3): none
    shows on the table; what does (the jump made, the groups that got away) is told when it
    happens. Red's own are told to him whole. The events are told as they stand, not played:
    the states only say who is whose and who is a contact (b1, `?B2`)."""
    setup = BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        bogeys=True,
        ships=(
            _ship("r1", "red", "frigate", 0, 0, 12),
            _ship("b1", "blue", "frigate", 0, 90, 6),
        ),
    )
    ctx = context(setup)
    state = initial_state(ctx)
    (label,) = [f"?{s.bogey}" for s in state.ships if s.id == "b1"]
    events: list[tuple[Event, list[str]]] = [
        (
            RepairsMade(
                turn=1,
                side="blue",
                repairs=(Repair(ship="b1", target="beam2-1", parties=1, face=6, success=True),),
            ),
            [],
        ),
        (RepairsMade(turn=1, side="blue"), []),
        (
            RepairsMade(
                turn=1,
                side="red",
                repairs=(Repair(ship="r1", target="beam2-1", parties=1, face=2, success=False),),
            ),
            ["  r1 repair beam2-1 with 1 DCP: rolls 2, fails"],
        ),
        (TurnEnded(turn=1, ready=("b1", "r1")), ["    r1 is ready to power up for a jump"]),
        (
            FightersResolved(
                turn=1,
                scrambles=(
                    Scramble(ship="b1", face=1, mishap="hangar_bay-1"),
                    Scramble(ship="b1", face=5, groups=("b1.hangar_bay-2",)),
                    Scramble(ship="r1", face=1, mishap="hangar_bay-1"),
                ),
            ),
            [
                "turn 1: fighters fly",
                f"    {label} scrambles: no group gets away",
                f"    {label} scrambles: {label} fighters 1 gets away in time",
                "    r1 scrambles [1]: a mishap puts hangar_bay-1 and its fighters out of action",
            ],
        ),
    ]
    for event, told in events:
        assert told_as_seen(ctx, state, state, event, "red") == told, event
    # Red's own repairs are told whole; of all the rest the umpire reads more.
    assert [describe(e) == told for e, told in events] == [False, False, True, False, False]


def _closed_setup(rng: random.Random, movement: str) -> BattleSetup:
    """Two to six Continuum ships, a side, half with a dummy, far enough apart to meet as
    contacts (closed record sheets): escorts, cruisers, carriers and missile ships, so that
    fighter groups, salvos and point defence fly."""
    designs = [
        "frigate",
        "destroyer",
        "light_cruiser",
        "heavy_cruiser",
        "light_carrier",
        "missile_cruiser",
        "flak_destroyer",
    ]
    ships = [
        _ship(
            f"{side}-W{i}",
            side,
            rng.choice(designs),
            rng.uniform(-30, 30),
            rng.uniform(0, 20) + (80 if side == "blue" else 0),
            6 if side == "blue" else 12,
            rng.randint(0, 6),
        )
        for side in ("red", "blue")
        for i in range(1, rng.randint(2, 4))
    ]
    dummies = [
        DummySetup(id=f"{s.side}-D{i}", side=s.side, x=s.x + 5, y=s.y, course=s.course, speed=0)
        for i, s in enumerate(ships)
        if rng.random() < 0.5
    ]
    return BattleSetup(
        sides=("red", "blue"),
        rules="continuum",
        movement=movement,  # type: ignore[arg-type]
        ships=tuple(ships),
        bogeys=True,
        dummies=tuple(dummies),
        turn_limit=8,
    )


@pytest.mark.parametrize("seed", range(8))
def test_no_seeded_battle_tells_a_contact_by_name_or_an_enemy_order(seed: int) -> None:
    """Seeded battles between Engage commanders, under vector and cinematic movement: for
    each side, every event told (`battle_report`'s turns are these lines) names an enemy
    ship only once his side has identified it, first in the line that does, never an enemy
    dummy, and never an order an enemy counter moved by; and never a system of an enemy ship
    whose design his side does not know (a contact's above all): no fighter group, salvo or
    mine by its id (`?B1.hangar_bay-1`), no weapon or point defence it fires (`beam3-2`),
    but labels numbered as he met them (`?B1 fighters 1`, `weapon 1`)."""
    rng = random.Random(seed)
    setup = _closed_setup(rng, "vector" if seed % 2 else "cinematic")
    battle = play(Battle(setup), {s: engage_commander() for s in setup.sides}, SeededDice(seed))
    ctx = context(setup)
    met = 0  # contacts identified during the battle, both sides: the test means something
    labelled = 0  # lines telling an enemy system by its label
    for side in setup.sides:
        state = initial_state(ctx)
        systems = EnemySystems()  # one account's labels, kept battle-long
        for event in battle.journal:
            after = evolve(ctx, state, event)
            lines = told_as_seen(ctx, state, after, event, side, systems)
            _check_no_enemy_system(ctx, state, event, side, lines)
            labelled += sum(bool(LABELLED.search(line)) for line in lines)
            contacts = {s.id: f"?{s.bogey}" for s in state.ships if s.side != side and s.bogey}
            still = {s.id for s in after.ships if s.bogey}
            for dummy in setup.dummies:
                if dummy.side != side:
                    assert not _names(lines, dummy.id), (side, event)
            for ship_id, label in contacts.items():
                named = _names(lines, ship_id)
                if ship_id in still:
                    assert not named, (side, lines)
                elif named:
                    met += 1
                    assert label in lines[named[0]], (side, lines)
                    assert f"identified as {ship_id}" in lines[named[0]] or (
                        f"it is {ship_id}" in lines[named[0]]
                    ), lines[named[0]]
            if isinstance(event, ShipsMoved):
                for moved in (*event.moves, *event.decoys):
                    if moved.ship.startswith(side):
                        continue
                    for name in (moved.ship, contacts.get(moved.ship, moved.ship)):
                        assert all(f"{name} {moved.order} " not in line for line in lines)
            state = after
    assert met, "no contact was identified: the test means nothing"
    assert labelled, "no enemy system was told: the test means nothing"


# A line telling an enemy's system by its label (`campaign.battlereport.EnemySystems`).
LABELLED = re.compile(r"\b(?:fighters|salvo|mine|weapon) \d+\b")


def _check_no_enemy_system(
    ctx: BattleContext, state: BattleState, event: Event, side: str, lines: list[str]
) -> None:
    """No line told to `side` of `event` names a system of an enemy ship whose design his
    side did not know before it (`state`): neither a child of the ship's (`b1.hangar_bay-1`,
    `b1.salvo_rack-1.t3`, by its id or its contact's label), nor one of its systems' ids in a
    line telling it fire or defend (`b1 fires: beam3-2 at r1`, `b1 pds-1 at r1.hangar_bay-1`),
    nor, in any line, an id of its systems that none of the viewer's own ships has (review)."""
    seen = {s.id: s.sighting for s in side_view(ctx, state, side)[1].ships}
    labels = {s.id: f"?{s.bogey}" for s in state.ships if s.bogey}
    ours = {y.id for s in state.ships if s.side == side for y in ctx.sheets[s.id].systems}
    for ship in state.ships:
        known = ShipKnowledge(identified=ship.id in seen, sighting=seen.get(ship.id))
        if ship.side == side or known.design_known:
            continue
        names = "|".join(re.escape(n) for n in (ship.id, labels.get(ship.id, ship.id)))
        # Its systems' ids that none of the viewer's ships has: in no line at all.
        theirs = {y.id for y in ctx.sheets[ship.id].systems} - ours
        for line in lines:
            assert not re.search(rf"(?<![\w.?-])(?:{names})\.", line), (side, event, line)
            told = set(re.findall(r"(?<![\w.-])[\w-]+(?![\w-])", line))
            assert not told & theirs, (side, event, line)
            if not re.match(rf"\s*(?:{names}) (?:fires: |\S+ (?:at|point))", line):
                continue
            own = {y.id for y in ctx.sheets[ship.id].systems}
            assert not told & own, (side, event, line)


def _names(lines: list[str], counter: str) -> list[int]:
    """The lines that name `counter` by its id (a fighter group by its carrier's)."""
    word = re.compile(rf"(?<![\w.?-]){re.escape(counter)}(?![\w-])")
    return [i for i, line in enumerate(lines) if word.search(line)]


def test_an_enemy_ship_leaving_is_seen_to_go_not_where_or_until_when() -> None:
    """Where an unplanned jump took a ship and when one that left the table will be back are
    its own side's dice (004 L136-141; the jump's hex is told only to its owner): the enemy
    sees it jump out or leave (review)."""
    from tactical.state import Moved
    from tactical.summary import describe_move

    jumped = Moved(ship="b1", order="MD2", x=5, y=4, course=12, speed=4, jumped=True,
                   displaced=(3, 2))  # fmt: skip
    left = Moved(ship="b1", order="MD2", x=5, y=4, course=12, speed=4, left=True, returns=7)
    gone = Moved(ship="b1", order="MD2", x=5, y=4, course=12, speed=4, left=True)
    seen = [describe_move(m, written=False) for m in (jumped, left, gone)]
    assert [line.split(", ", 1)[1] for line in seen] == [
        "jumps out",
        "leaves the table",
        "leaves the table",
    ]
    assert "3 parsecs" in describe_move(jumped)
    assert "until turn 7" in describe_move(left)


def test_an_enemy_systems_label_is_kept_and_counts_only_what_was_told() -> None:
    """`EnemySystems`: a group, salvo or mine of a ship whose design is unknown is labelled by
    its ship and its number among that ship's of its kind, in the order told, and keeps its
    label once the design is known; a colony's defences (ids with dots) likewise; ships
    whose design is known keep their ids."""
    systems = EnemySystems()
    kinds = {"b1.hangar_bay-2": "fighters", "b1.rack-1.t3": "salvo", "b1.layer-1.t2": "mine"}
    hidden = {"b1", "Alpha.3.apdb-1"}
    told = [
        systems.text(line, hidden, kinds)
        for line in (
            "    b1 scrambles: b1.hangar_bay-2 gets away in time",
            "    salvo b1.rack-1.t3 homes on r1",
            "    r1.hangar_bay-1 intercepts salvo b1.rack-1.t3 [6] kills 1 missile",
            "    b1 lays mine b1.layer-1.t2 at 3,4.5, active next turn",
            "    salvo Alpha.3.apdb-1.rack-1.t3 homes on r1",
        )
    ]
    assert told == [
        "    b1 scrambles: b1 fighters 1 gets away in time",
        "    b1 salvo 1 homes on r1",
        "    r1.hangar_bay-1 intercepts b1 salvo 1 [6] kills 1 missile",
        "    b1 lays b1 mine 1 at 3,4.5, active next turn",
        "    Alpha.3.apdb-1 salvo 1 homes on r1",
    ]
    # Scanned since: the label stays, a system first told now goes by its id.
    assert systems.text("    b1.hangar_bay-2 to 3,4", set(), kinds) == "    b1 fighters 1 to 3,4"
    assert systems.text("    b1.hangar_bay-3 to 3,4", set(), kinds) == "    b1.hangar_bay-3 to 3,4"
