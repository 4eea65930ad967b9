"""Issue 12's campaign-level repros, played through the CLI as an umpire would: a new task
force's move (bug 1), retaking a conquered colony (bugs 2 and 3), devastation over two turns
of bombardment (bug 4), re-forming a task force (bug 11), and each player's own fleet.

Physical dice (`--dice manual`), every die a 6: exploration never loses a ship, every captain
and admiral is level 3 (a 3-turn plot), no scout is caught.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from cli import app
from tests.test_strategic import TINY_MAP

SIXES = "6\n" * 400


class Umpire:
    """Runs `umpire` commands on one campaign database, every die a 6."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.db = str(folder / "umpire.db")
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True) -> Result:
        result = self.runner.invoke(app, [*args, "--db", self.db], input=SIXES)
        if ok:
            assert result.exit_code == 0, (args, result.output)
        return result

    def resolve(self) -> Result:
        """Resolve the turn in progress, naming it (issue 13: a resolve names its turn)."""
        return self("turn", "resolve", "--turn", str(self.state()["turn"]))

    def orders(self, player: str, turn: int, text: str, ok: bool = True) -> Result:
        path = self.folder / f"{player}-{turn}.toml"
        path.write_text(f'player = "{player}"\nturn = {turn}\n{text}')
        return self("orders", "submit", str(path), "--player", player, ok=ok)

    def state(self, player: str | None = None) -> Any:
        extra = ["--as-player", player] if player else []
        return json.loads(self("state", "--json", *extra).output)

    def log(self, kind: str, player: str | None = None) -> list[Any]:
        extra = ["--as-player", player] if player else []
        return json.loads(self("log", "--json", "--type", kind, *extra).output)


def new_campaign(tmp_path: Path) -> Umpire:
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    (tmp_path / "red.toml").write_text('[[ships]]\ndesign = "heavy_cruiser"\ncount = 2\n')
    (tmp_path / "blue.toml").write_text('[[ships]]\ndesign = "ortillery_monitor"\ncount = 9\n')
    umpire = Umpire(tmp_path)
    umpire(
        "new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"),
        "--dice", "manual", "--fleet", f"red={tmp_path / 'red.toml'}",
        "--fleet", f"blue={tmp_path / 'blue.toml'}", "--battle-rules", "ft2",
    )  # fmt: skip
    return umpire


def test_each_player_brings_his_own_fleet(tmp_path: Path) -> None:
    """004 L28-30: each player's 2000 points, his own designs, checked against the budget."""
    umpire = new_campaign(tmp_path)
    units = umpire.state()["units"]
    assert sorted(u["design"] for u in units.values() if u["owner"] == "red" and u["design"]) == [
        "heavy_cruiser",
        "heavy_cruiser",
    ]
    assert sum(1 for u in units.values() if u.get("design") == "ortillery_monitor") == 9
    (tmp_path / "big.toml").write_text('[[ships]]\ndesign = "battledreadnought"\ncount = 9\n')
    big = umpire.runner.invoke(
        app,
        ["new", "h", "--players", "red,blue", "--map", "classic",
         "--fleet", f"blue={tmp_path / 'big.toml'}", "--db", umpire.db],
    )  # fmt: skip
    assert big.exit_code == 2
    assert "blue's starting fleet: the fleet costs" in big.output
    assert "over the 2000 allowed" in big.output


def test_a_new_task_force_and_a_re_formed_one_through_the_cli(tmp_path: Path) -> None:
    """Bug 1: a new task force's destination beyond this turn is refused at submission with
    the reason, never dropped at resolution. Bug 11: disbanding and re-forming it in one
    orders file keeps its admiral: no second roll."""
    umpire = new_campaign(tmp_path)
    form = '[[task_forces]]\nunits = ["red-W1", "red-W2"]\n'
    far = umpire.orders("red", 1, form + '[[moves]]\nunit = "red-F1"\nto = "0302"\n', ok=False)
    assert far.exit_code == 2
    assert "red-F1: cannot reach 0302" in far.output
    umpire.orders("red", 1, form + '[[moves]]\nunit = "red-F1"\nto = "0102"\n')
    umpire.resolve()
    state = umpire.state()
    assert state["units"]["red-W1"]["hex"] == "0102"  # the move was made, not dropped
    (formed,) = umpire.log("task_forces_set", "red")
    assert len(formed["event"]["rolls"]) == 1  # the admiral, rolled once
    for _ in (2, 3):  # the level-3 admiral's plot binds to turn 3
        umpire.resolve()
    again = '[[task_forces]]\nid = "red-F1"\n' + form
    umpire.orders("red", 4, again)
    umpire.resolve()
    *_, reformed = umpire.log("task_forces_set", "red")
    assert reformed["event"]["rolls"] == []  # the same admiral, from the reserve
    forces = umpire.state("red")["task_forces"]
    assert [(f["id"], f["admiral"]) for f in forces.values()] == [("red-F2", 3)]


def test_recapture_and_devastation_through_the_cli(tmp_path: Path) -> None:
    """Bugs 2, 3 and 4: blue takes red's colony; red, who saw it fall, retakes it and it is
    free again; blue bombards it to nothing over two turns and the planet is devastated."""
    umpire = new_campaign(tmp_path)
    land = (
        '[[moves]]\nunit = "red-S1"\nto = "0102"\n'
        '[[moves]]\nunit = "red-T1"\nto = "0102"\ncount = 12\n'  # a split: red-T2
        '[[landings]]\nunit = "red-T2"\nplanet = "Alpha/3"\ncolonists = 12\n'  # on arrival
    )
    umpire.orders("red", 1, land)
    umpire.resolve()
    assert umpire.state()["colonies"]["Alpha/3"]["population"] == 12
    # The umpire brings two of blue's monitors to Alpha by ruling (what a long voyage would).
    for ship in ("blue-W1", "blue-W2"):
        umpire("ruling", "move", ship, "--to", "0102", "-r", "arrived from deep space")
    umpire.orders("blue", 2, '[[attacks]]\nsystem = "Alpha"\n')
    umpire.resolve()
    taken = umpire.state()["colonies"]["Alpha/3"]
    assert (taken["owner"], taken["conquered_from"]) == ("blue", "red")
    # Red saw it fall: he knows who holds it, and retakes it once blue's ships are gone.
    for ship in ("blue-W1", "blue-W2"):
        umpire("ruling", "move", ship, "--to", "0604", "-r", "recalled")
    umpire.orders(
        "red", 3, '[[moves]]\nunit = "red-W1"\nto = "0102"\n[[attacks]]\nsystem = "Alpha"\n'
    )
    umpire.resolve()
    freed = umpire.state()["colonies"]["Alpha/3"]
    assert (freed["owner"], freed["conquered_from"], freed["conquered_turn"]) == ("red", None, None)
    # Red's cruiser is called away; two monitors bombard (ortillery: 2 x 214 points x 3 =
    # 1,284 points, 5M a turn). Free again, the colony grew at turn 4's production phase
    # (12M + 2M, 004 L244): 14M, then 9M, then 4M, then none.
    umpire("ruling", "move", "red-W1", "--to", "0101", "-r", "called home")
    for ship in ("blue-W1", "blue-W2"):
        umpire("ruling", "move", ship, "--to", "0102", "-r", "back again")
    umpire.resolve()
    bomb = '[[attacks]]\nsystem = "Alpha"\nmode = "bombard"\ncolony = "Alpha/3"\n'
    populations = []
    for turn in (5, 6, 7):
        umpire.orders("blue", turn, bomb)
        umpire.resolve()
        colony = umpire.state()["colonies"].get("Alpha/3")
        populations.append(colony["population"] if colony else 0)
        if colony is None:
            break
    assert populations == [9, 4, 0]  # no single turn killed 10 million
    assert "Alpha/3" in umpire.state()["devastated"]
    # Red reads it in his report; verify holds.
    report = umpire("report", "--player", "red", "--format", "md").output
    assert "the planet is devastated" in report or "Alpha/3" in report
    assert umpire("verify").exit_code == 0


def test_a_player_s_first_news_tells_the_campaign_and_the_map_in_words(tmp_path: Path) -> None:
    """The set-up events read as news, not as their type names ("campaigncreated recorded.")."""
    umpire = new_campaign(tmp_path)
    report = " ".join(umpire("report", "--player", "red").output.split())
    assert "The campaign g began: red, blue, for 44 turns." in report
    assert "The map is " in report
    assert " recorded." not in report
