"""Issue 20's Done-when: the Lafayette Incident (001 L1538-1614) played for its seven turns
through the command line under FT2's own campaign rules, with two players' hidden orders,
encounters decided in secret, a battle fought by the engine and one recorded from a table,
repairs at New Toledo, the result judged by 001 L1556-1558, `umpire verify` passing, and
neither player's view holding the other's fleets."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from campaign.events import encode_payload
from campaign.ft2.events import (
    CampaignJudged,
    DecisionMade,
    DecoysSpent,
    FleetsMoved,
    ForcesDeployed,
    Ft2BattleFought,
    Ft2OrdersSubmitted,
    ShipsRefitted,
)
from campaign.ft2.model import load_scenario
from campaign.ft2.weekend import judge
from campaign.service import CampaignService
from campaign.store import Lineage
from cli import app
from maps import label, line, load_builtin, parse_label

runner = CliRunner()
MAP = load_builtin("lafayette")
PLAYERS = ("esu", "nac")
SECRET_EVENTS = (
    ForcesDeployed,
    FleetsMoved,
    Ft2OrdersSubmitted,
    DecisionMade,
    DecoysSpent,
    ShipsRefitted,
)


def toward(start: str, goal: str) -> str:
    """The hex six steps along the line from `start` to `goal` (or `goal`, if nearer)."""
    a = parse_label(start) if start[0].isdigit() else MAP.system(start).hex
    b = MAP.system(goal).hex if not goal[0].isdigit() else parse_label(goal)
    cells = line(a, b)
    return label(cells[min(6, len(cells) - 1)])


class Table:
    """The umpire's terminal, and each player's, on one database."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.db = str(tmp_path / "laf.db")

    def run(self, *args: str, code: int = 0) -> str:
        result = runner.invoke(app, [*args, "--db", self.db])
        assert result.exit_code == code, result.stdout + result.stderr
        return result.stdout + result.stderr

    def orders(self, player: str, turn: int, body: str) -> None:
        """Hand in a player's orders file: the template's header and `body`."""
        path = self.tmp / f"{player}-{turn}.toml"
        path.write_text(f'player = "{player}"\nturn = {turn}\n{body}')
        self.run("orders", "submit", str(path), "--player", player)

    def fleets(self, player: str) -> dict[str, dict[str, object]]:
        found = json.loads(self.run("encounters", "fleets", "--as-player", player, "--json"))
        return {f["id"]: f for f in found}

    def encounters(self, player: str) -> list[dict[str, object]]:
        listed = json.loads(self.run("encounters", "list", "--as-player", player, "--json"))
        encounters: list[dict[str, object]] = listed["encounters"]
        return encounters

    def battles(self) -> list[str]:
        battles: list[str] = json.loads(self.run("encounters", "list", "--json"))["battles"]
        return battles

    def finished(self) -> bool:
        """Whether the campaign has ended (after its seventh turn, 001 L1538-1614)."""
        service = CampaignService.open(self.db)
        try:
            return service.load(service.target("laf")).finished
        finally:
            service.close()

    def settle(self, esu: str = "fight", nac: str | None = None) -> None:
        """Resolve the turn to its end: every encounter decided (`nac` None: the NAC writes
        nothing down and stands off), every battle fought by the engine."""
        self.run("turn", "resolve")
        while not self.finished() and (self.encounters("esu") or self.battles()):
            for met in self.encounters("esu"):
                self.run("encounters", "decide", str(met["id"]), esu, "--player", "esu")
                if nac is not None:
                    self.run("encounters", "decide", str(met["id"]), nac, "--player", "nac")
            if self.encounters("esu"):
                self.run("turn", "resolve")
            for battle in self.battles():
                self.run("encounters", "fight", battle)
            if not self.finished():  # both standing off on the last turn: no battle, its end
                self.run("turn", "resolve")


def move(fleet: str, to: str) -> str:
    return f'[[moves]]\nfleet = "{fleet}"\nto = "{to}"\n'


def play_to_the_first_battle(table: Table) -> None:
    """Turns 1-2: the ESU reaches Lafayette with decoys out; the engine fights there."""
    table.orders("esu", 1, move("esu-F1", toward("0109", "Lafayette")))
    table.orders("nac", 1, move("nac-F1", toward("New Toledo", "Hudson")))
    table.run("turn", "resolve")
    decoys = '[[decoys]]\nfleet = "esu-F1"\ndrones = 3\n'
    table.orders("esu", 2, move("esu-F1", "Lafayette") + decoys)
    table.orders("nac", 2, move("nac-F1", "Hudson"))
    table.run("turn", "resolve")
    (met,) = table.encounters("nac")
    assert met["system"] == "Lafayette"
    # The defender's scan shows 4 real ships and 3 drones: 1 capital, 1 cruiser, 5 escorts.
    seen = {c["hull_class"]: c["count"] for c in met["scans"]["nac"]}  # type: ignore[index]
    assert seen == {"capital": 1, "cruiser": 1, "escort": 5}
    table.run("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
    table.run("encounters", "decide", str(met["id"]), "stand-off", "--player", "nac")
    assert "esu decided" not in table.run("encounters", "list", "--as-player", "nac")
    table.run("turn", "resolve")  # revealed together: fight against stand-off is a battle
    (battle,) = table.battles()
    table.run("encounters", "fight", battle)
    table.run("turn", "resolve")  # the week's end


def play_the_table_battle(table: Table) -> None:
    """Turn 3: the destroyer goes for Hudson where the NAC waits; fought on a real table. At
    Lafayette the NAC's system defence ship, standing off, set up turned away from the ESU
    fleet (docs/rulings.md) and was run down in the first battle: the ESU holds Lafayette
    unopposed. (Set up facing the ESU, it outlasted that battle and was fought again.)"""
    table.orders("esu", 3, '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S3"]\nto = "Hudson"\n')
    table.orders("nac", 3, "")
    table.run("turn", "resolve")
    met_at = {m["system"]: m for m in table.encounters("esu")}
    assert set(met_at) == {"Hudson"}
    met = met_at["Hudson"]
    table.run("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
    # The NAC hands his decision in as an orders file, from the template.
    template = table.run("orders", "template", "--player", "nac")
    assert f'encounter = "{met["id"]}"' in template
    table.orders("nac", 3, f'[[decisions]]\nencounter = "{met["id"]}"\ndecision = "fight"\n')
    table.run("turn", "resolve")
    (battle,) = table.battles()
    # The ESU destroyer hurt and jumped out, the NAC destroyer hurt, Hudson's SDS disabled.
    table.run(
        "encounters", "record", battle, "--ship", "esu-S3=jumped:2",
        "--ship", "nac-S2=present:3", "--ship", "nac-S4=disabled",
    )  # fmt: skip
    table.run("turn", "resolve")


def play_to_the_end(table: Table) -> None:
    """Turns 4-7: the NAC goes home and docks its destroyer at New Toledo; the ESU takes
    Hudson and Kakisa while its battleship holds Lafayette."""
    back = next(f for f in table.fleets("esu") if f != "esu-F1")
    table.orders("esu", 4, f'[[merges]]\ninto = "esu-F1"\nfleets = ["{back}"]\n')
    table.orders("nac", 4, move("nac-F1", toward("Hudson", "New Toledo")))
    table.settle()
    kakisa = toward("Lafayette", "Kakisa")
    table.orders(
        "esu", 5,
        '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S3"]\nto = "Hudson"\n'
        f'[[splits]]\nfleet = "esu-F1"\nships = ["esu-S2"]\nto = "{kakisa}"\n',
    )  # fmt: skip
    table.orders("nac", 5, move("nac-F1", "New Toledo"))
    table.settle()  # at Hudson the NAC writes nothing: its SDS stands off (docs/rulings.md)
    cruiser = next(f for f, v in table.fleets("esu").items() if "esu-S2" in json.dumps(v))
    table.orders("esu", 6, move(cruiser, "Kakisa"))
    table.orders("nac", 6, '[[docks]]\nship = "nac-S2"\nsystems = []\n')
    table.settle()
    table.orders("esu", 7, "")
    table.orders("nac", 7, "")
    table.settle(esu="stand-off")


def test_the_lafayette_incident_plays_seven_turns_through_the_cli(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.run(
        "new", "laf", "--rules", "ft2", "--scenario", "lafayette", "--players", "esu,nac",
        "--scale", "10", "--seed", "lafayette-test",
    )  # fmt: skip
    esu, nac = table.fleets("esu"), table.fleets("nac")
    assert set(esu) == {"esu-F1"}
    assert esu["esu-F1"]["hex"] == "0109"  # X (001 L1554)
    assert {f["owner"] for f in nac.values()} == {"nac"}
    play_to_the_first_battle(table)
    play_the_table_battle(table)
    play_to_the_end(table)
    service = CampaignService.open(table.db)
    try:
        lineage = service.target("laf")
        assert service.load(lineage).finished
        log = service.log(lineage)
        sources = [e.event.source for e in log if isinstance(e.event, Ft2BattleFought)]
        fought = [e.event for e in log if isinstance(e.event, Ft2BattleFought)]
        assert sources.count("engine") >= 1
        assert sources.count("umpire") == 1
        refits = [e.event for e in log if isinstance(e.event, ShipsRefitted)]
        assert [r.ship for f in refits for r in f.repairs] == ["nac-S2"]  # at New Toledo
        (judged,) = [e.event for e in log if isinstance(e.event, CampaignJudged)]
        assert (judged.result, judged.reason) == judge(judged.held, load_scenario("lafayette"))
        assert "Lafayette" in judged.held  # the ESU battleship stayed there
        assert f"result: {judged.result}" in table.run("encounters", "result")
        for player in PLAYERS:
            assert_no_leak(service, lineage, player)
    finally:
        service.close()
    for player in PLAYERS:  # his report: his fleets, his encounters and battles, the result
        report = table.run("report", "--player", player)
        assert f"{player}-F1" in report
        assert "Result:" in report
        other = next(p for p in PLAYERS if p != player)
        assert f"{other}-F" not in report
        assert f"{other}-D" not in report
    table.run("publish", "--out", str(tmp_path / "published"))
    for player in PLAYERS:  # every file of his package: only what he knows
        other = next(p for p in PLAYERS if p != player)
        for path in (tmp_path / "published" / player).iterdir():
            text = path.read_text()
            assert f"{other}-F" not in text, path
            assert f"{other}-D" not in text, path
    for battle in fought:
        show_a_battle_to_each_side(table, battle, tmp_path)
    assert "problem" not in table.run("verify").lower()
    table.run("reveal-seed")  # every die of the campaign recomputed from the seed
    assert "problem" not in table.run("verify", "--dice").lower()


def show_a_battle_to_each_side(table: Table, fought: Ft2BattleFought, tmp_path: Path) -> None:
    """`umpire battles show` for an FT2 battle: the umpire's, each side's (turn by turn and
    as a replay page for an engine battle), and no fleet of the other side named."""
    battle = fought.battle.id
    assert f"Battle {battle} at {fought.battle.system}" in table.run("battles", "show", battle)
    for player in PLAYERS:
        other = next(p for p in PLAYERS if p != player)
        extra = ("--turns", "--replay", str(tmp_path / f"{battle}-{player}.html"))
        shown = table.run(
            "battles", "show", battle, "--as-player", player,
            *(extra if fought.source == "engine" else ()),
        )  # fmt: skip
        assert f"as {player} saw it" in shown
        assert f"{other}-F" not in shown
        if fought.source == "engine":
            page = (tmp_path / f"{battle}-{player}.html").read_text()
            assert f"{other}-F" not in page
        json.loads(table.run("battles", "show", battle, "--as-player", player, "--json"))
    refused = table.run("battles", "show", "B9-9", "--as-player", "esu", code=2)
    assert refused.count("\n") == 1
    assert "no battle 'B9-9'" in refused


def test_the_004_battle_and_reach_commands_point_an_ft2_umpire_to_his_own(tmp_path: Path) -> None:
    """`umpire battles list` would say "no battles" while an FT2 battle waits in the
    encounters, and `umpire map reach` that the player's own fleet is not his: both refuse
    in one line naming the command that does it, and write nothing."""
    table = Table(tmp_path)
    table.run("new", "laf", "--rules", "ft2", "--players", "esu,nac", "--scale", "10")
    listed = table.run("battles", "list", code=2)
    assert listed.count("\n") == 1
    assert "`umpire encounters list`" in listed
    reach = table.run("map", "reach", "esu-F1", "--player", "esu", code=2)
    assert reach.count("\n") == 1
    assert "umpire map reach belongs to the 004 campaign" in reach


def test_new_refuses_the_settings_of_the_other_campaign(tmp_path: Path) -> None:
    """A setting the campaign would ignore is one line naming it and what is taken, exit 2,
    nothing written: the 004 campaign's settings for an ft2 one, the ft2 scenario's for a
    004 one, a battle setting for a campaign without a map (it fights no battles)."""
    db = str(tmp_path / "x.db")
    ft2 = ["new", "laf", "--rules", "ft2", "--players", "esu,nac", "--db", db]
    cases = [
        ([*ft2, "--map", "classic"], "--map: not for an ft2 campaign"),
        ([*ft2, "--battle-movement", "spatial", "--turns", "9"], "--turns, --battle-movement:"),
        ([*ft2, "--morale-ties", "both"], "--morale-ties: not for an ft2 campaign"),
        (["new", "g", "--players", "a,b", "--map", "classic", "--scale", "50", "--db", db],
         "--scale belongs to an ft2 campaign (--rules ft2)"),
        (["new", "g", "--players", "a,b", "--battle-movement", "spatial", "--db", db],
         "--battle-movement spatial needs a map (--map classic, or a map file)"),
    ]  # fmt: skip
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert not Path(db).exists()
    assert "--scenario, --scale" in runner.invoke(app, cases[0][0]).stderr


def assert_no_leak(service: CampaignService, lineage: Lineage, player: str) -> None:
    """Neither player's view holds the other's fleets, nor his secret events; no event he
    was told names a fleet of the other's (001 L1475)."""
    view = service.load(lineage, viewer=player)
    assert view.ft2 is not None
    assert {f.owner for f in view.ft2.fleets.values()} == {player}
    other = next(p for p in PLAYERS if p != player)
    for recorded in service.player_view(lineage, player):
        ev = recorded.event
        payload = encode_payload(ev).decode()
        assert f'"{other}-F' not in payload, (player, ev)
        assert f'"{other}-D' not in payload, (player, ev)
        if not isinstance(ev, Ft2BattleFought):  # a battle shows the ships in it
            assert f'"{other}-S' not in payload, (player, ev)
        if isinstance(ev, Ft2OrdersSubmitted):
            assert ev.orders.player == player
        elif isinstance(ev, SECRET_EVENTS):
            assert getattr(ev, "player", None) == player, (player, ev)


def test_a_player_who_holds_a_secret_decides_an_encounter_with_it(tmp_path: Path) -> None:
    """`umpire encounters decide --player P` asks for P's secret as `orders submit` does: the
    umpire could otherwise decide in his name, unseen; without it (or wrong) one line, exit 2,
    nothing written; with it the decision is sealed."""
    table = Table(tmp_path)
    met = to_lafayette(table)
    added = runner.invoke(app, ["player", "add", "esu", "--db", table.db])
    secret = added.stdout.split()[-1]  # the secret alone on stdout, its notice on stderr
    decide = ("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
    before = table.run("log", "--json")
    refused = table.run(*decide, code=2)
    assert refused == (
        "umpire: error: esu holds a secret: orders in his name need it (the umpire hands "
        "orders in for him by ruling)\n"
    )
    assert "that is not esu's secret" in table.run(*decide, "--secret", "wrong", code=2)
    assert table.run("log", "--json") == before
    assert "written down (sealed)" in table.run(*decide, "--secret", secret)


def to_lafayette(table: Table) -> dict[str, object]:
    """A small Lafayette Incident in which the ESU reaches Lafayette on turn 2: its
    encounter with the system defence ships there."""
    table.run(
        "new", "laf", "--rules", "ft2", "--players", "esu,nac", "--scale", "10", "--seed", "s",
    )  # fmt: skip
    table.orders("esu", 1, move("esu-F1", "0609"))
    table.orders("nac", 1, "")
    table.run("turn", "resolve")
    table.orders("esu", 2, move("esu-F1", "Lafayette"))
    table.orders("nac", 2, "")
    table.run("turn", "resolve")
    (met,) = table.encounters("esu")
    return met


def test_a_waiting_ft2_battle_points_to_the_encounters_commands(tmp_path: Path) -> None:
    """After the turn resolves into a battle, "Next:" names `encounters fight` and
    `encounters record` (the 004 `battles resolve|record` refuse in an FT2 campaign), and so
    does `battles show` of the battle not fought yet."""
    table = Table(tmp_path)
    met = to_lafayette(table)
    for player in PLAYERS:
        table.run("encounters", "decide", str(met["id"]), "fight", "--player", player)
    resolved = " ".join(table.run("turn", "resolve").split())
    (battle,) = table.battles()
    assert f"Next: battles {battle} await their outcome: `umpire encounters fight ID`" in resolved
    assert "`umpire encounters record ID` enters one fought at the table" in resolved
    assert "battles resolve" not in resolved
    refused = table.run("battles", "show", battle, code=2)
    assert "`umpire encounters fight` or `encounters record` gives its outcome" in refused
