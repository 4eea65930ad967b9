"""Issue 20's Done-when: the Lafayette Incident (001 L1538-1614) played for its seven turns
through the command line under FT2's own campaign rules, with two players' hidden orders,
encounters decided in secret, a battle fought by the engine and one recorded from a table,
repairs at New Toledo, the result judged by 001 L1556-1558, `umpire verify` passing, and
neither player's view holding the other's fleets."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

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
from campaign.ft2.rules import judge
from campaign.service import CampaignService
from cli import app
from maps import label, line, load_builtin, parse_label

runner = CliRunner()
MAP = load_builtin("lafayette")
PLAYERS = ("esu", "nac")
SECRET_EVENTS = (ForcesDeployed, FleetsMoved, Ft2OrdersSubmitted, DecisionMade, DecoysSpent, ShipsRefitted)


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


def move(fleet: str, to: str) -> str:
    return f'[[moves]]\nfleet = "{fleet}"\nto = "{to}"\n'


def test_the_lafayette_incident_plays_seven_turns_through_the_cli(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table.run(
        "new", "laf", "--rules", "ft2", "--scenario", "lafayette", "--players", "esu,nac",
        "--scale", "10", "--seed", "lafayette-test",
    )  # fmt: skip
    esu, nac = table.fleets("esu"), table.fleets("nac")
    assert set(esu) == {"esu-F1"} and esu["esu-F1"]["hex"] == "0109"  # X (001 L1554)
    assert {f["owner"] for f in nac.values()} == {"nac"}
    engine = recorded = 0

    # Turn 1: the ESU heads for Lafayette; the NAC's mobile force for Hudson.
    table.orders("esu", 1, move("esu-F1", toward("0109", "Lafayette")))
    table.orders("nac", 1, move("nac-F1", toward("New Toledo", "Hudson")))
    table.run("turn", "resolve")
    # Turn 2: the ESU drops out of FTL at Lafayette releasing decoys; the NAC reaches Hudson.
    table.orders("esu", 2, move("esu-F1", "Lafayette") + '[[decoys]]\nfleet = "esu-F1"\ndrones = 3\n')
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
    engine += 1
    table.run("turn", "resolve")  # the week's end

    # Turn 3: the destroyer goes for Hudson, where the NAC waits.
    table.orders("esu", 3, '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S3"]\nto = "Hudson"\n')
    table.orders("nac", 3, "")
    table.run("turn", "resolve")
    (met,) = table.encounters("esu")
    assert met["system"] == "Hudson"
    table.run("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
    table.run("encounters", "decide", str(met["id"]), "fight", "--player", "nac")
    table.run("turn", "resolve")
    (battle,) = table.battles()
    # Fought on a real table: the ESU destroyer hurt and jumped out, the NAC destroyer hurt
    # and the Hudson defence ship disabled.
    table.run(
        "encounters", "record", battle, "--ship", "esu-S3=jumped:2",
        "--ship", "nac-S2=present:3", "--ship", "nac-S4=disabled",
    )  # fmt: skip
    recorded += 1
    table.run("turn", "resolve")

    # Turn 4: the NAC goes home to New Toledo; the destroyer rejoins, then tries Hudson again.
    esu = table.fleets("esu")
    back = next(f for f in esu if f != "esu-F1")
    table.orders("esu", 4, f'[[merges]]\ninto = "esu-F1"\nfleets = ["{back}"]\n')
    table.orders("nac", 4, move("nac-F1", toward("Hudson", "New Toledo")))
    table.run("turn", "resolve")
    # Turn 5: the NAC reaches New Toledo; the destroyer goes to Hudson, the heavy cruiser
    # toward Kakisa.
    table.orders(
        "esu", 5,
        '[[splits]]\nfleet = "esu-F1"\nships = ["esu-S3"]\nto = "Hudson"\n'
        f'[[splits]]\nfleet = "esu-F1"\nships = ["esu-S2"]\nto = "{toward("Lafayette", "Kakisa")}"\n',
    )  # fmt: skip
    table.orders("nac", 5, move("nac-F1", "New Toledo"))
    table.run("turn", "resolve")
    for met in table.encounters("esu"):
        table.run("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
        # the NAC writes nothing down: it stands off (docs/rulings.md)
    table.run("turn", "resolve")
    for battle in table.battles():
        table.run("encounters", "fight", battle)
        engine += 1
    table.run("turn", "resolve")

    # Turn 6: the damaged destroyer docks at New Toledo; the cruiser reaches Kakisa.
    cruiser = next(f for f, v in table.fleets("esu").items() if "esu-S2" in json.dumps(v))
    table.orders("esu", 6, move(cruiser, "Kakisa"))
    table.orders("nac", 6, '[[docks]]\nship = "nac-S2"\nsystems = []\n')
    table.run("turn", "resolve")
    for met in table.encounters("esu"):
        table.run("encounters", "decide", str(met["id"]), "fight", "--player", "esu")
        table.run("turn", "resolve")
        for battle in table.battles():
            table.run("encounters", "fight", battle)
            engine += 1
        table.run("turn", "resolve")
    # Turn 7: everyone holds; the campaign is judged.
    table.orders("esu", 7, "")
    table.orders("nac", 7, "")
    table.run("turn", "resolve")
    while table.encounters("esu") or table.battles():
        for met in table.encounters("esu"):
            table.run("encounters", "decide", str(met["id"]), "stand-off", "--player", "esu")
        table.run("turn", "resolve")
        for battle in table.battles():
            table.run("encounters", "fight", battle)
            engine += 1
        table.run("turn", "resolve")

    service = CampaignService.open(table.db)
    try:
        lineage = service.target("laf")
        state = service.load(lineage)
        log = service.log(lineage)
        assert state.finished and state.ft2 is not None
        sources = [e.event.source for e in log if isinstance(e.event, Ft2BattleFought)]
        assert sources.count("engine") >= 1 and sources.count("umpire") == 1 == recorded
        refits = [e.event for e in log if isinstance(e.event, ShipsRefitted)]
        assert refits and refits[0].repairs[0].ship == "nac-S2"  # at New Toledo (001 L1530)
        (judged,) = [e.event for e in log if isinstance(e.event, CampaignJudged)]
        assert (judged.result, judged.reason) == judge(judged.held, load_scenario("lafayette"))
        assert "Lafayette" in judged.held  # the ESU battleship stayed there
        assert "result:" in table.run("encounters", "result")
        # Neither player's view holds the other's fleets, nor his secret events.
        for player in PLAYERS:
            view = service.load(lineage, viewer=player)
            assert view.ft2 is not None
            assert {f.owner for f in view.ft2.fleets.values()} == {player}
            for recorded_event in service.player_view(lineage, player):
                ev = recorded_event.event
                if isinstance(ev, SECRET_EVENTS):
                    owner = getattr(ev, "player", None) or ev.orders.player  # type: ignore[attr-defined]
                    assert owner == player, (player, ev)
    finally:
        service.close()
    assert "problem" not in table.run("verify").lower()
