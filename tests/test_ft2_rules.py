"""FT2's campaign rules (001 L1459-1614), each from its text: scans, the decision table,
hidden moves, repairs, the class cap, forces and the Lafayette victory table."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign.dice import ScriptedDice
from campaign.errors import InvalidInputError
from campaign.ft2 import forces, rules, weekend
from campaign.ft2.events import DecisionWritten, EncounterResolved, ShipsRefitted
from campaign.ft2.model import (
    DECISIONS,
    DockOrder,
    Encounter,
    EncounterSide,
    Fleet,
    ForcesFile,
    Ft2Orders,
    Ft2Ship,
    Ft2State,
    MoveOrder,
    load_scenario,
)
from cli import app
from maps import load_builtin
from tactical.ship import fresh_state, with_system_status

LAFAYETTE = load_scenario("lafayette")
MAP = load_builtin("lafayette")
NEW_TOLEDO, VN459, LAF_HEX = "1910", "2015", "0909"


def ships(player: str, *designs: str) -> tuple[Ft2Ship, ...]:
    made = []
    for n, design in enumerate(designs, start=1):
        sheet = forces.catalogue(design)
        made.append(
            Ft2Ship(
                id=f"{player}-S{n}",
                design=design,
                hull_class=sheet.hull_class,
                mass=sheet.mass,
                ftl=sheet.ftl,
            )
        )
    return tuple(made)


def test_long_range_scan_worked_example() -> None:
    """001 L1497-1510: decoy drones and weasel boats fool the long-range scan."""
    newcomer = Fleet(
        id="a-F1",
        owner="a",
        hex=LAF_HEX,
        ships=ships("a", *["battleship"] * 2, *["escort_cruiser"] * 3, *["destroyer"] * 2),
        drones=4,
    )
    assert rules.scan([newcomer], drones=4) == (
        rules.Contact("capital", 2),
        rules.Contact("cruiser", 3),
        rules.Contact("escort", 6),
    )
    occupant = Fleet(
        id="b-F1",
        owner="b",
        hex=LAF_HEX,
        ships=ships(
            "b",
            *["frigate"] * 3,
            "corvette",
            "heavy_cruiser",
            "light_cruiser",
            "battledreadnought",
            *["weasel_scout"] * 2,
        ),
    )
    assert rules.scan([occupant], drones=0) == (
        rules.Contact("capital", 3),
        rules.Contact("cruiser", 2),
        rules.Contact("escort", 4),
    )


def test_class_cap_examples() -> None:
    """001 L1572: 10 capital + 16 cruiser + 25 escort is allowed; 8 + 12 + 40 is not."""
    assert (
        forces.class_cap_problem(["capital"] * 10 + ["cruiser"] * 16 + ["escort"] * 25, 50) is None
    )
    problem = forces.class_cap_problem(["capital"] * 8 + ["cruiser"] * 12 + ["escort"] * 40, 50)
    assert problem is not None
    assert "escort" in problem
    # A30: merchants are left out of the count.
    assert forces.class_cap_problem(["capital", "cruiser", "merchant", "merchant"], 50) is None


@pytest.mark.parametrize(
    ("held", "result"),
    [
        (("Lafayette", "Hudson", "Kakisa"), "ESU"),
        (("Lafayette", "Hudson"), "draw"),
        (("Hudson", "Kakisa", "Baffin"), "draw"),
        (("Lafayette",), "NAC"),
        (("Hudson", "Kakisa"), "NAC"),
        ((), "NAC"),
    ],
)
def test_lafayette_victory_table(held: tuple[str, ...], result: str) -> None:
    """001 L1556-1558."""
    assert weekend.judge(held, LAFAYETTE)[0] == result


def encounter_state(
    esu_ships: tuple[Ft2Ship, ...], nac_ships: tuple[Ft2Ship, ...], sds: bool = False
) -> Ft2State:
    fleets = {
        "esu-F1": Fleet(id="esu-F1", owner="esu", hex=LAF_HEX, ships=esu_ships, arrived=2),
        "nac-F1": Fleet(id="nac-F1", owner="nac", hex=LAF_HEX, ships=nac_ships),
    }
    sides = [EncounterSide(player="nac", fleets=("nac-F1",))]
    if sds:
        defence = Fleet(
            id="nac-D1",
            owner="nac",
            hex=LAF_HEX,
            ships=ships("nac-d", "system_defence_ship"),
            fixed=True,
        )
        fleets["nac-D1"] = defence
        sides = [EncounterSide(player="nac", fleets=("nac-D1", "nac-F1"))]
    encounter = Encounter(
        id="E2-0909",
        system="Lafayette",
        hex=LAF_HEX,
        occupant="nac",
        sides=(sides[0], EncounterSide(player="esu", fleets=("esu-F1",))),
    )
    return Ft2State(
        scenario="lafayette",
        sides={"esu": "ESU", "nac": "NAC"},
        fleets=fleets,
        phase="encounters",
        encounters={"E2-0909": encounter},
    )


def resolve(
    state: Ft2State, nac: str | None, esu: str | None, faces: list[int]
) -> EncounterResolved:
    decisions = {p: d for p, d in (("nac", nac), ("esu", esu)) if d is not None}
    state = msgspec.structs.replace(state, decisions={"E2-0909": decisions})
    *told, new = rules.decide_encounters(state, 2, ScriptedDice(faces))
    assert [t.audience.players for t in told] == [("nac",), ("esu",)]
    assert all(  # each player is told of his own fleets leaving only (001 L1475)
        f.startswith(t.audience.players[0])
        for t in told
        for f in t.event.leaving  # type: ignore[attr-defined]
    )
    assert new.audience == rules.Audience.umpire_only()
    assert isinstance(new.event, EncounterResolved)
    return new.event


@pytest.mark.parametrize(
    ("nac", "esu", "faces", "outcome", "battle", "leaving"),
    [
        ("fight", "fight", [], "battle", True, ()),
        ("stand-off", "fight", [], "battle", True, ()),
        ("stand-off", "stand-off", [], "stand-off", False, ()),
        ("withdraw", "withdraw", [], "both-withdraw", False, ("nac-F1", "esu-F1")),
        ("withdraw", "stand-off", [], "withdraw", False, ("nac-F1",)),
        ("withdraw", "fight", [5], "escaped", False, ("nac-F1",)),  # 001 L1514: 1-5
        ("withdraw", "fight", [6], "caught", True, ()),  # 001 L1514: a 6 catches
        (None, "fight", [], "battle", True, ()),  # nothing written down: stand-off (ruling)
    ],
)
def test_decision_table(
    nac: str | None,
    esu: str | None,
    faces: list[int],
    outcome: str,
    battle: bool,
    leaving: tuple[str, ...],
) -> None:
    """001 L1512-1522 and A25."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    resolved = resolve(state, nac, esu, faces)
    assert resolved.outcome == outcome
    assert (resolved.battle is not None) == battle
    assert set(resolved.leaving) == set(leaving)
    assert len(resolved.rolls) == len(faces)
    if outcome == "caught":
        assert resolved.battle is not None
        assert resolved.battle.sides[0].decision == "withdraw"  # it flees under FTL Move


def test_system_defences_cannot_withdraw() -> None:
    """A25: the non-FTL defences stand off while the FTL fleet withdraws; against FIGHT they
    are fought."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"), sds=True)
    resolved = resolve(state, "withdraw", "fight", [2])
    assert resolved.outcome == "escaped"
    assert resolved.leaving == ("nac-F1",)
    assert resolved.battle is not None
    assert resolved.battle.sides[0].ships == ("nac-d-S1",)
    caught = resolve(state, "withdraw", "fight", [6])  # caught: all of it fights, standing
    assert caught.battle is not None
    assert caught.battle.sides[0].decision == "stand-off"
    assert set(caught.battle.sides[0].ships) == {"nac-d-S1", "nac-S1"}


def test_moves_are_limited_to_six_hexes_and_defences_stay() -> None:
    """001 L1477 and L1550."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"), sds=True)
    orders = Ft2Orders(
        player="nac",
        turn=3,
        moves=(MoveOrder(fleet="nac-F1", to="New Toledo"), MoveOrder(fleet="nac-D1", to="0908")),
    )
    problems = rules.check_orders(state, MAP, LAFAYETTE, orders)
    assert any("10 hexes" in p for p in problems)
    assert any("cannot move" in p for p in problems)


def test_a_withdrawn_fleet_must_leave() -> None:
    """001 L1512: those who withdrew leave on the next move."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    fleet = msgspec.structs.replace(state.fleets["nac-F1"], must_leave=True)
    state = msgspec.structs.replace(state, fleets={**state.fleets, "nac-F1": fleet})
    problems = rules.check_orders(state, MAP, LAFAYETTE, Ft2Orders(player="nac", turn=3))
    assert any("must leave" in p for p in problems)


def docked_state(design: str, hex_: str, player: str = "nac", fought: bool = False) -> Ft2State:
    (ship,) = ships(player, design)
    sheet = forces.catalogue(design)
    record = fresh_state(sheet)
    record = msgspec.structs.replace(
        record, hull_lost=(sheet.rows[0], *(0 for _ in sheet.rows[1:])), drive="disabled"
    )
    record = with_system_status(record, sheet.systems[0].id, "destroyed")
    ship = msgspec.structs.replace(ship, record=record)
    fleet = Fleet(id=f"{player}-F1", owner=player, hex=hex_, ships=(ship,))
    orders = Ft2Orders(
        player=player,
        turn=4,
        docks=(DockOrder(ship=ship.id, systems=("drive", sheet.systems[0].id)),),
    )
    return Ft2State(
        scenario="lafayette",
        sides={player: "NAC" if player == "nac" else "ESU"},
        fleets={fleet.id: fleet},
        orders={player: orders},
        fought=(ship.id,) if fought else (),
    )


def test_base_repairs_at_new_toledo() -> None:
    """001 L1530-1534: 1D6 damage points a week; systems on 3+; a disabled drive comes
    back one step per success."""
    state = docked_state("destroyer", NEW_TOLEDO)
    (new,) = weekend.decide_refits(state, 4, MAP, LAFAYETTE, ScriptedDice([2, 3, 3]))
    assert isinstance(new.event, ShipsRefitted)
    (fleet,) = new.event.fleets
    record = fleet.ships[0].record
    assert record is not None
    sheet = forces.catalogue("destroyer")
    assert sum(record.hull_lost) == sheet.rows[0] - 2
    assert record.drive == "half"  # two successes needed from disabled (001 L1534)
    assert record.systems[0].status == "ok"
    assert [r.value for r in new.event.rolls] == [2, 3, 3]


def test_no_repairs_for_a_ship_that_fought_or_too_big_or_the_esu() -> None:
    """A26 (a docked ship that fought is not repaired; VN-459 repairs up to MASS 20) and
    A28 (the ESU has no facilities)."""
    assert (
        weekend.decide_refits(
            docked_state("destroyer", NEW_TOLEDO, fought=True), 4, MAP, LAFAYETTE, ScriptedDice([])
        )
        == []
    )
    assert (
        weekend.decide_refits(
            docked_state("battleship", VN459), 4, MAP, LAFAYETTE, ScriptedDice([])
        )
        == []
    )
    esu = docked_state("destroyer", NEW_TOLEDO, player="esu")
    assert weekend.decide_refits(esu, 4, MAP, LAFAYETTE, ScriptedDice([])) == []


def test_superiority_needs_every_defender_gone_or_disabled() -> None:
    """001 L1552 and A29: a disabled defender does not hold the system; a disengagement
    leaves nobody holding it (001 L1514)."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    assert weekend.held_systems(state, MAP, "esu", 7) == ()
    frigate = state.fleets["nac-F1"].ships[0]
    sheet = forces.catalogue("frigate")
    record = fresh_state(sheet)
    for system in sheet.systems:
        if system.kind == "firecon":
            record = with_system_status(record, system.id, "destroyed")
    disabled = msgspec.structs.replace(frigate, record=record)
    assert weekend.disabled(disabled)
    fleet = msgspec.structs.replace(state.fleets["nac-F1"], ships=(disabled,))
    state = msgspec.structs.replace(state, fleets={**state.fleets, "nac-F1": fleet})
    assert weekend.held_systems(state, MAP, "esu", 7) == ("Lafayette",)
    separated = msgspec.structs.replace(state, separated=(LAF_HEX,))
    assert weekend.held_systems(separated, MAP, "esu", 7) == ()


def test_a_defender_that_withdrew_is_driven_out() -> None:
    """001 L1552 ("drive out ALL defending warships") and A25."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    leaving = msgspec.structs.replace(state.fleets["nac-F1"], must_leave=True)
    state = msgspec.structs.replace(state, fleets={**state.fleets, "nac-F1": leaving})
    assert weekend.held_systems(state, MAP, "esu", 7) == ("Lafayette",)


def test_forces_are_checked_against_budget_cap_entry_and_ftl() -> None:
    """001 L1554, L1570-1572, L1584-1592."""
    esu, nac = LAFAYETTE.sides
    over = ForcesFile(
        fleets=(forces.FleetLine(ships=(forces.ShipLine(design="battleship", count=3),)),)
    )
    with pytest.raises(InvalidInputError, match="over the 1000 budget") as caught:
        forces.deploy(LAFAYETTE, esu, "esu", over, 10, MAP)
    assert "50%" in str(caught.value)
    elsewhere = ForcesFile(
        fleets=(forces.FleetLine(hex="Lafayette", ships=(forces.ShipLine(design="scout"),)),)
    )
    with pytest.raises(InvalidInputError, match="enters at X"):
        forces.deploy(LAFAYETTE, esu, "esu", elsewhere, 10, MAP)
    ftl_defence = ForcesFile(
        defences=(
            forces.DefenceLine(system="Lafayette", ships=(forces.ShipLine(design="frigate"),)),
        )
    )
    with pytest.raises(InvalidInputError, match="non-FTL"):
        forces.deploy(LAFAYETTE, nac, "nac", ftl_defence, 100, MAP)


def test_decision_commitments_open_with_the_revealed_nonce() -> None:
    """001 L1512: written in secret, revealed together; the commitment binds the umpire."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    made, committed, written = rules.decide_decision(state, 2, "esu", "E2-0909", "fight", "ab" * 32)
    # His commitment is his; nac is told only that he wrote a decision down (the 004 trial).
    assert committed.audience.players == ("esu",)
    assert written.audience.public
    assert written.event == DecisionWritten(player="esu", encounter="E2-0909")
    assert committed.event.sha256 == rules.decision_hash("ab" * 32, "E2-0909", "fight")  # type: ignore[attr-defined]
    assert made.audience.players == ("esu",)
    with pytest.raises(InvalidInputError, match="must be one of"):
        rules.decide_decision(state, 2, "esu", "E2-0909", "retreat", "ab" * 32)


runner = CliRunner()


def test_004_commands_refuse_in_an_ft2_campaign_and_back(tmp_path: Path) -> None:
    """Issue 20: commands that make no sense in the other campaign refuse with one line."""
    db = str(tmp_path / "x.db")
    made = runner.invoke(
        app,
        [
            "new",
            "laf",
            "--rules",
            "ft2",
            "--players",
            "esu,nac",
            "--scale",
            "10",
            "--seed",
            "s",
            "--db",
            db,
        ],
    )
    assert made.exit_code == 0, made.stdout
    unmeant = runner.invoke(app, ["turn", "resolve", "--db", db])  # issue 13: nobody's orders
    assert "nobody has sent orders for turn 1" in unmeant.stderr
    for command in (["battles", "resolve"], ["battles", "record", "t1-b1"], ["turn", "end"]):
        refused = runner.invoke(app, [*command, "--db", db])
        assert refused.exit_code != 0
        assert "plays FT2's campaign rules" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    runner.invoke(app, ["new", "old", "--players", "red", "--seed", "s", "--db", db])
    refused = runner.invoke(app, ["encounters", "list", "--campaign", "old", "--db", db])
    assert refused.exit_code != 0
    assert "004 rules" in refused.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "esu"], "name one player for each"),
        (["--players", "esu,nac", "--scale", "0"], "--scale 0"),
        (["--players", "esu,nac", "--scenario", "hoth"], "no scenario 'hoth'"),
    ],
)
def test_bad_ft2_campaigns_are_refused_with_nothing_written(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = str(tmp_path / "x.db")
    result = runner.invoke(app, ["new", "laf", "--rules", "ft2", "--seed", "s", *args, "--db", db])
    assert result.exit_code != 0
    assert message in result.stderr
    assert not Path(db).exists()  # nothing written


def test_verify_opens_every_decision_commitment() -> None:
    """A decision revealed must be the one committed before (001 L1512: "written down in
    secret"); a swapped one is named."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"))
    _, committed, _ = rules.decide_decision(state, 2, "esu", "E2-0909", "fight", "cd" * 32)
    honest = EncounterResolved(
        encounter="E2-0909",
        players=("nac", "esu"),
        decisions=("stand-off", "fight"),
        nonces=("", "cd" * 32),
        outcome="battle",
    )
    ledger = rules.DecisionLedger()
    ledger.record(1, committed.event)
    ledger.record(2, honest)
    assert ledger.problems == []
    assert ledger.opened == 1
    swapped = msgspec.structs.replace(honest, decisions=("stand-off", "withdraw"))
    ledger.record(3, swapped)
    assert ledger.problems == [
        "position 3: esu's decision for encounter E2-0909 does not match the commitment he made "
        "before it was revealed"
    ]


def battle_state() -> Ft2State:
    from campaign.ft2.model import BattleSide, Ft2Battle

    state = encounter_state(ships("esu", "battleship"), ships("nac", "frigate"))
    battle = Ft2Battle(
        id="B2-0909",
        encounter="E2-0909",
        system="Lafayette",
        hex=LAF_HEX,
        sides=(
            BattleSide(player="nac", decision="fight", ships=("nac-S1",)),
            BattleSide(player="esu", decision="fight", ships=("esu-S1",)),
        ),
    )
    return msgspec.structs.replace(
        state, encounters={}, battles={"B2-0909": battle}, phase="battles"
    )


def test_abstract_disengagement_from_a_table_battle() -> None:
    """001 L1204-1216: a D6 each, +2 for a ship faster than all the enemy's; equal or higher
    gets away, and the forces are separated (001 L1514)."""
    from campaign.ft2.battle import decide_disengagement
    from campaign.ft2.events import DisengagementRolled, Ft2BattleFought
    from campaign.ft2.state import evolve_ft2

    state = battle_state()
    away = decide_disengagement(state, 2, "B2-0909", "nac", {}, ScriptedDice([3, 5]))
    rolled, fought = (new.event for new in away)
    assert isinstance(rolled, DisengagementRolled)
    assert rolled.modifiers == (2, 0)  # the frigate (thrust 6) outruns the battleship (4)
    assert rolled.succeeded  # 3 + 2 >= 5
    assert isinstance(fought, Ft2BattleFought)
    assert fought.disengaged == "nac"
    after = evolve_ft2(evolve_ft2(state, rolled), fought)
    assert after.separated == (LAF_HEX,)
    assert weekend.held_systems(after, MAP, "esu", 7) == ()
    caught = decide_disengagement(state, 2, "B2-0909", "nac", {}, ScriptedDice([1, 6]))
    assert len(caught) == 1  # the stern chase goes on; the battle still waits
    assert not caught[0].event.succeeded  # type: ignore[attr-defined]
    again = evolve_ft2(state, caught[0].event)
    assert "B2-0909" in again.battles
    (first, second) = decide_disengagement(again, 2, "B2-0909", "nac", {}, ScriptedDice([6, 1]))[
        0
    ].event.rolls  # type: ignore[attr-defined]
    assert (first.key, second.key) == (
        "2/battle/B2-0909.disengage/2",
        "2/battle/B2-0909.disengage/3",
    )


@pytest.mark.parametrize(
    "decisions", [("fight", "fight"), ("withdraw", "fight"), ("stand-off", "fight")]
)
def test_the_engine_fights_each_kind_of_encounter_battle(decisions: tuple[str, str]) -> None:
    """The engine plays each side's decision as its order commander (engage, stand off, or
    flee under FTL Move when caught, 001 L1514); the ships' fates come back with the damage
    they carry (001 L1530)."""
    from campaign.dice import SeededDice
    from campaign.ft2.battle import decide_engine_battle
    from campaign.ft2.events import Ft2BattleFought
    from campaign.ft2.model import BattleSide

    state = battle_state()
    battle = state.battles["B2-0909"]
    sides = (
        BattleSide(player="nac", decision=decisions[0], ships=("nac-S1",)),
        BattleSide(player="esu", decision=decisions[1], ships=("esu-S1",)),
    )
    state = msgspec.structs.replace(
        state, battles={"B2-0909": msgspec.structs.replace(battle, sides=sides)}
    )
    (new,) = decide_engine_battle(state, 2, "B2-0909", SeededDice("engine"))
    assert isinstance(new.event, Ft2BattleFought)
    assert new.event.source == "engine"
    assert {f.ship for f in new.event.fates} == {"nac-S1", "esu-S1"}
    assert all(r.key.startswith("2/battle/B2-0909.") for r in new.event.rolls)
    assert new.event.journal


@given(
    st.sampled_from([*DECISIONS, None]),
    st.sampled_from([*DECISIONS, None]),
    st.integers(1, 6),
    st.booleans(),
)
def test_the_decision_table_holds_for_any_decisions(
    nac: str | None, esu: str | None, face: int, sds: bool
) -> None:
    """001 L1512-1522 as invariants: a battle only where someone fights; only withdrawers'
    FTL fleets leave; the catch die only for fight against withdraw."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"), sds=sds)
    resolved = resolve(state, nac, esu, [face])
    chosen = [nac or "stand-off", esu or "stand-off"]
    if resolved.battle is not None:
        assert "fight" in chosen
        assert all(side.ships for side in resolved.battle.sides)
    if "fight" not in chosen:
        assert resolved.battle is None
    withdrew = {"nac-F1"} if chosen[0] == "withdraw" else set()
    withdrew |= {"esu-F1"} if chosen[1] == "withdraw" else set()
    assert set(resolved.leaving) <= withdrew
    assert "nac-D1" not in resolved.leaving  # A25
    assert len(resolved.rolls) == (1 if sorted(chosen) == ["fight", "withdraw"] else 0)


def test_reinforcements_arrive_by_the_scenarios_schedule() -> None:
    """001 L1536: reinforcements planned by the scenario enter at the end of their turn's
    moves, told only to their owner; they meet who is there."""
    from campaign.ft2.events import EncounterFound, ReinforcementsArrived
    from campaign.ft2.model import Reinforcement, ShipLine

    scenario = msgspec.structs.replace(
        LAFAYETTE,
        reinforcements=(
            Reinforcement(side="NAC", turn=3, hex="Lafayette", ships=(ShipLine(design="frigate"),)),
        ),
    )
    state = encounter_state(ships("esu", "destroyer"), ())
    state = msgspec.structs.replace(
        state, fleets={"esu-F1": state.fleets["esu-F1"]}, encounters={}, phase="orders"
    )
    batch = rules.decide_movement(state, 3, ("esu", "nac"), MAP, scenario)
    (came,) = [n for n in batch if isinstance(n.event, ReinforcementsArrived)]
    assert came.audience.players == ("nac",)
    assert came.event.fleets[0].hex == LAF_HEX
    assert came.event.fleets[0].ships[0].design == "frigate"
    assert any(isinstance(n.event, EncounterFound) for n in batch)
    assert rules.decide_movement(state, 2, ("esu", "nac"), MAP, scenario)[-1:] == []


@pytest.mark.parametrize(
    "module", ["model", "events", "state", "forces", "rules", "battle", "report"]
)
def test_the_ft2_rules_are_pure(module: str) -> None:
    """The FT2 rules beside the 004 rules: no service, store, database or front end."""
    import ast

    path = Path(__file__).parents[1] / "campaign" / "ft2" / f"{module}.py"
    tree = ast.parse(path.read_text())
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    banned = {"campaign.service", "campaign.store", "campaign.db", "campaign.web", "cli"}
    found = {m for m in imported if m in banned or m.startswith("campaign.service.")}
    assert not found, found  # the service is a package: none of its modules either


FT2_TAGS = (
    "campaign_rules_chosen", "forces_deployed", "ft2_orders_submitted", "fleets_moved",
    "reinforcements_arrived", "encounter_found", "long_range_scan", "decoys_spent",
    "decision_committed", "decision_made", "encounter_resolved", "disengagement_rolled",
    "ft2_battle_fought", "ships_refitted", "campaign_judged",
)  # fmt: skip


@pytest.mark.parametrize("tag", FT2_TAGS)
def test_every_ft2_event_reads_as_a_sentence_in_the_log(tag: str) -> None:
    import json

    from campaign.events import decode_payload
    from campaign.render import describe

    golden = Path(__file__).parent / "golden" / "events" / f"{tag}.v1.json"
    event = decode_payload(1, tag, 1, json.loads(golden.read_text())["stored"])
    assert describe(event) != type(event).__name__


def test_a_docked_ship_does_not_fight() -> None:
    """001 L1532: a ship docked for repairs "is unable to fight during this time"."""
    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate", "corvette"))
    docked = Ft2Orders(player="nac", turn=2, docks=(DockOrder(ship="nac-S2"),))
    state = msgspec.structs.replace(state, orders={"nac": docked})
    resolved = resolve(state, "fight", "fight", [])
    assert resolved.battle is not None
    assert resolved.battle.sides[0].ships == ("nac-S1",)


@pytest.mark.parametrize(("hex_", "fighters"), [(NEW_TOLEDO, 6), (VN459, 0)])
def test_replenishment_restocks_magazines_and_fighters_where_supplied(
    hex_: str, fighters: int
) -> None:
    """001 L1536 and A26: a week docked at a replenishing facility restocks; fighters only at
    a facility large enough (New Toledo; VN-459 replenishes but has no fighters)."""
    (boat,) = ships("nac", "fast_missile_boat")
    sheet = forces.catalogue("fast_missile_boat")
    spent = fresh_state(sheet)
    spent = msgspec.structs.replace(
        spent, systems=tuple(msgspec.structs.replace(s, ammo=0) for s in spent.systems)
    )
    boat = msgspec.structs.replace(boat, record=spent)
    state = Ft2State(
        sides={"nac": "NAC"},
        fleets={"nac-F1": Fleet(id="nac-F1", owner="nac", hex=hex_, ships=(boat,))},
        orders={"nac": Ft2Orders(player="nac", turn=4, docks=(DockOrder(ship="nac-S1"),))},
    )
    (new,) = weekend.decide_refits(state, 4, MAP, LAFAYETTE, ScriptedDice([1]))
    (fleet,) = new.event.fleets  # type: ignore[attr-defined]
    assert fleet.ships[0].record is None  # restocked: as good as new
    carrier = forces.catalogue("light_carrier")
    empty = fresh_state(carrier)
    empty = msgspec.structs.replace(
        empty, systems=tuple(msgspec.structs.replace(s, fighters=0) for s in empty.systems)
    )
    assert (
        sum(s.fighters or 0 for s in weekend._replenish(empty, fresh_state(carrier), True).systems)
        > 0
    )
    assert (
        sum(s.fighters or 0 for s in weekend._replenish(empty, fresh_state(carrier), False).systems)
        == 0
    )
    facility = LAFAYETTE.facility(rules.system_name(MAP, hex_) or "")
    assert facility is not None
    assert facility.fighters == bool(fighters)


@given(st.integers(1, 100))
def test_default_forces_fit_their_scaled_budgets(scale: int) -> None:
    """001 L1570-1572: budgets scaled, the class cap kept; L1584-1592 the defences' points."""
    for side in LAFAYETTE.sides:
        chosen = forces.default_forces(LAFAYETTE, side, scale, MAP)
        player = side.name.lower()
        deployed = forces.deploy(LAFAYETTE, side, player, chosen, scale, MAP)
        points = deployed.event.points  # type: ignore[attr-defined]
        assert points <= forces.scaled(side.budget, scale)
        if scale >= 50:  # the budget is spent, bar the cheapest ship or so
            assert points >= forces.scaled(side.budget, scale) * 0.85, (side.name, points)


@pytest.mark.parametrize("module", ["forces", "model", "state", "weekend"])
def test_the_ft2_doctests_pass(module: str) -> None:
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(f"campaign.ft2.{module}"))
    assert tried > 0
    assert failures == 0


def test_tugs_carry_ships_without_ftl_up_to_their_own_mass() -> None:
    """001 L1152-1156: a tug or tender carries up to its own MASS in other ships through
    FTL; the catalogue's tug is the text's own MASS 50 example (L1154), whose FTL drive costs
    three times its mass, 150 points (L1158)."""
    tug = forces.catalogue("ftl_tug")
    assert (tug.hull, tug.mass) == ("tug", 50)
    assert any(line.item == "FTL drive" and line.points == 150 for line in tug.cost)
    (battleship,) = ships("nac", "battleship")
    lost = msgspec.structs.replace(fresh_state(forces.catalogue("battleship")), ftl="lost")
    crippled = msgspec.structs.replace(battleship, record=lost)
    alone = Fleet(id="nac-F1", owner="nac", hex=NEW_TOLEDO, ships=(crippled,))
    assert "MASS 48" in (rules.towing_problem(alone) or "")
    towed = msgspec.structs.replace(
        alone,
        ships=(crippled, Ft2Ship(id="nac-S9", design="ftl_tug", hull_class="merchant", mass=50)),
    )
    assert rules.towing_problem(towed) is None  # a MASS 50 tug recovers a battleship (48)
    two = msgspec.structs.replace(towed, ships=(*towed.ships, crippled))
    assert rules.towing_problem(two) is not None


def test_the_occupant_holds_the_inner_system_and_the_newcomer_the_fringe() -> None:
    """001 L1520: the original occupant is inner, the newcomer on the fringe; fixed defences
    were there first (A37: one side per player)."""
    from campaign.ft2.events import EncounterFound

    state = encounter_state(ships("esu", "destroyer"), ships("nac", "frigate"), sds=True)
    newcomer = msgspec.structs.replace(state.fleets["esu-F1"], hex="0709", arrived=0)
    state = msgspec.structs.replace(
        state, fleets={**state.fleets, "esu-F1": newcomer}, encounters={}, phase="orders"
    )
    orders = Ft2Orders(player="esu", turn=2, moves=(MoveOrder(fleet="esu-F1", to=LAF_HEX),))
    state = msgspec.structs.replace(state, orders={"esu": orders})
    batch = rules.decide_movement(state, 2, ("esu", "nac"), MAP, LAFAYETTE)
    (found,) = [
        n.event for n in batch if isinstance(n.event, EncounterFound) and not n.audience.players
    ]
    assert found.encounter.occupant == "nac"
    assert [s.player for s in found.encounter.sides] == ["nac", "esu"]
    assert found.encounter.sides[0].fleets == ("nac-D1", "nac-F1")


def test_ft2_battles_start_with_bogeys_and_without_the_fleet_book_options() -> None:
    """001 L1512: "using 'Bogey' markers at first"; core systems, fleet morale and fighter
    re-arming are the 004 campaign's Fleet Book options (004 L42-46), not FT2's."""
    from campaign.dice import SeededDice
    from campaign.ft2.battle import request_for
    from campaign.rules.battles import RecordingDice
    from tactical.campaign_battle import setup_campaign_battle

    state = battle_state()
    request = request_for(state, state.battles["B2-0909"])
    recorder = RecordingDice(SeededDice("bogeys"), 2, "B2-0909")
    setup = setup_campaign_battle(request, recorder)
    assert setup.rules == "ft2"
    assert setup.bogeys
    assert not setup.core_systems
    assert setup.morale is None
    assert setup.movement == "cinematic"


@pytest.mark.parametrize("end_early", [False, True])
def test_an_early_total_victory_ends_the_scenario_only_when_chosen(end_early: bool) -> None:
    """Digest A27: control is judged at the end of turn 7, "optionally end early if the ESU
    meets total victory at any end-of-turn" (`umpire new --end-early`): every settled
    system held at a week's end."""
    from campaign.ft2.events import CampaignJudged
    from maps import label

    settled = [label(s.hex) for s in MAP.systems if s.settled]
    fleets = {
        f"esu-F{n}": Fleet(id=f"esu-F{n}", owner="esu", hex=hex_, ships=ships("esu", "destroyer"))
        for n, hex_ in enumerate(settled, start=1)
    }
    everywhere = Ft2State(scenario="lafayette", end_early=end_early, fleets=fleets)
    batch = weekend.decide_week_end(everywhere, 3, "esu", MAP, LAFAYETTE, ScriptedDice([]))
    judged = [new.event for new in batch if isinstance(new.event, CampaignJudged)]
    if not end_early:
        assert judged == []  # judged after the last turn only (001 L1556)
        return
    (verdict,) = judged
    assert verdict.result == "ESU"
    assert "total victory after turn 3" in verdict.reason
    # Five of the six are no total victory: the week ends without a verdict.
    del fleets["esu-F1"]
    five = Ft2State(scenario="lafayette", end_early=True, fleets=fleets)
    batch = weekend.decide_week_end(five, 3, "esu", MAP, LAFAYETTE, ScriptedDice([]))
    assert not any(isinstance(new.event, CampaignJudged) for new in batch)


def test_the_early_end_is_chosen_at_creation_and_ends_the_campaign(tmp_path: Path) -> None:
    """`umpire new --rules ft2 --end-early` records digest A27's option in the creation's
    `campaign_rules_chosen`; a scenario judged early is a campaign that has ended."""
    from campaign.events import CampaignRulesChosen
    from campaign.projections import CampaignState
    from campaign.service import CampaignService

    db = str(tmp_path / "early.db")
    args = ["--players", "esu,nac", "--scale", "10", "--seed", "s", "--db", db]
    made = runner.invoke(app, ["new", "laf", "--rules", "ft2", "--end-early", *args])
    assert made.exit_code == 0, made.stdout
    service = CampaignService.open(db)
    try:
        lineage = service.target(None, None)
        (chosen,) = [e.event for e in service.log(lineage) if e.type == "campaign_rules_chosen"]
        assert isinstance(chosen, CampaignRulesChosen)
        assert chosen.end_early
        state = service.load(lineage)
        assert state.ft2 is not None
        assert state.ft2.end_early
    finally:
        service.close()
    judged = Ft2State(scenario="lafayette", result="ESU")
    assert CampaignState(turn=4, max_turns=7, ft2=judged).finished
    assert not CampaignState(turn=4, max_turns=7, ft2=Ft2State(scenario="lafayette")).finished
