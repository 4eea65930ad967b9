"""The player's side on the command line (issue 16): `orders check` from the published
package alone, `map reach`, `tech list`, `db backup`, `--version`, and what the package holds.

A campaign of three players is played three turns by random legal orders (`autoplay`) so the
units are out on the map, some systems explored and turn 4 (a production turn) in progress;
each player's published package is then checked against submission, file by file.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign import render
from campaign.autoplay import autoplay, format_orders, random_document
from campaign.errors import UmpireError
from campaign.package import MAP_FILE, TEMPLATE_FILE, VIEW_FILE, check_orders, read_package
from campaign.playermap import Reach
from campaign.rules.orders import OrdersDocument
from campaign.rules.setup import campaign_catalogue
from campaign.service import CampaignService, plan_campaign
from campaign.strategic import Move
from campaign.techlist import tech_rows
from cli import app
from tests.conftest import FixedClock
from tests.test_render import check_golden, text_of
from tests.test_strategic import TINY_MAP

PLAYERS = ("red", "blue", "green")
CAMPAIGN = "war"
SECRET_DESIGN = "nightjar"
SECRET_TEXT = (
    'name = "Nightjar Raider"\nrules = "continuum"\nmass = 20\nthrust = 6\n'
    'hull_strength = "average"\nfire_controls = 1\n\n[[systems]]\nkind = "beam2"\narcs = ["F"]\n'
)
runner = CliRunner()


class Played:
    """A campaign three turns in, in a SQLite file, and every player's published package."""

    def __init__(self, folder: Path) -> None:
        self.db = str(folder / "war.db")
        self.packages = folder / "packages"
        service = CampaignService.open(self.db, clock=FixedClock(), create=True)
        plan = plan_campaign(CAMPAIGN, PLAYERS, seed="dice-16", map_spec="classic")
        service.new_campaign(plan)
        # A secret home-made design of red's (004 L26-30): no other player may learn of it.
        (folder / f"{SECRET_DESIGN}.toml").write_text(SECRET_TEXT)
        service.register_design(
            service.target(CAMPAIGN), "red", str(folder / f"{SECRET_DESIGN}.toml")
        )
        autoplay(service, service.target(CAMPAIGN), 3, 16, resolve_battles=False)
        service.close()
        self.umpire("publish", "--out", str(self.packages))

    def umpire(self, *args: str, code: int | None = 0) -> tuple[int, str]:
        result = runner.invoke(app, [*args, "--db", self.db], catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, result.stdout + result.stderr
        return result.exit_code, result.stdout + result.stderr

    def service(self) -> CampaignService:
        return CampaignService.open(self.db, clock=FixedClock())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return Played(tmp_path_factory.mktemp("played"))


@pytest.fixture
def service(played: Played) -> Iterator[CampaignService]:
    opened = played.service()
    yield opened
    opened.close()


# ---------------------------------------------------------------- the corpus


def _foreign_unit(service: CampaignService, player: str) -> str:
    state = service.load(service.target(CAMPAIGN))
    return sorted(u.id for u in state.units.values() if u.owner != player)[0]


def corpus(service: CampaignService, player: str, seed: int) -> dict[str, str]:
    """Good and bad orders files for `player`: random legal ones, and each kind of mistake."""
    lineage = service.target(CAMPAIGN)
    view = service.load(lineage, viewer=player)
    chart = service.player_map(lineage, player)[0]
    document = random_document(view, chart, player, random.Random(f"{player}/{seed}"))
    good = format_orders(document)
    mine = sorted(u.id for u in view.units.values() if u.owner == player)
    far = Move(unit=mine[0], to="3024")
    replace = msgspec.structs.replace
    return {
        "random": good,
        "template": service.orders_template(lineage, player),
        "holding": format_orders(OrdersDocument(player=player, turn=view.turn)),
        "another player's": good.replace(f'player = "{player}"', 'player = "nobody"', 1),
        "another turn": good.replace(f"turn = {view.turn}", f"turn = {view.turn + 1}", 1),
        "unknown key": good + "\nspeed = 9\n",
        "unknown key in a move": format_orders(
            replace(document, moves=(Move(unit=mine[0]),), landings=())
        ).replace(f'unit = "{mine[0]}"', f'unit = "{mine[0]}"\ngo = "0101"', 1),
        "not TOML": good + "\n[[moves]\n",
        "far away": format_orders(replace(document, moves=(far,), landings=())),
        "not a hex": format_orders(
            replace(document, moves=(Move(unit=mine[0], to="zz"),), landings=())
        ),
        "a rival's unit": format_orders(
            replace(document, moves=(Move(unit=_foreign_unit(service, player), to="0101"),))
        ),
        "no such unit": format_orders(
            replace(document, moves=(Move(unit=f"{player}-W99", to="0101"),))
        ),
        "unknown technology": good + '\n[[research]]\ntech = "warp-drive"\n',
        "a colony not his": good + '\n[[production]]\ncolony = "Nowhere/9"\nfactories = 1\n',
        "scorch": good.replace(f"turn = {view.turn}", f'turn = {view.turn}\nscorch = ["X/1"]', 1),
        "landing nowhere": good + f'\n[[landings]]\nunit = "{mine[0]}"\nplanet = "Nowhere/3"\n'
        "colonists = 1\n",
    }


def online(service: CampaignService, player: str, text: str) -> str | None:
    """Submission's verdict: None when accepted, else its message."""
    try:
        service.submit_orders(service.target(CAMPAIGN), player, text)
    except UmpireError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def offline(folder: Path, text: str) -> str | None:
    """`orders check`'s verdict from the package alone: None when it passes, else the message."""
    view, known_map = read_package(folder)
    try:
        check_orders(
            view, known_map, text, datetime.now(UTC), campaign_catalogue(view.state, view.player)
        )
    except UmpireError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def test_the_corpus_has_good_and_bad_files(played: Played, service: CampaignService) -> None:
    """The comparison below means something: some files pass, most fail, for many reasons."""
    verdicts = {
        name: online(service, "red", text) for name, text in corpus(service, "red", 0).items()
    }
    assert verdicts["random"] is None
    assert verdicts["template"] is None
    refused = [name for name, verdict in verdicts.items() if verdict is not None]
    assert len(refused) >= 12, verdicts
    assert len({verdicts[name] for name in refused}) == len(refused)


@pytest.mark.parametrize("player", PLAYERS)
def test_orders_check_gives_submissions_verdict_offline(
    played: Played, player: str, tmp_path: Path
) -> None:
    """Each file of the corpus: `orders check --package` (no database) exits and prints as
    `orders submit` does; the same words, refused or accepted."""
    folder = played.packages / player
    with closing(played.service()) as service:
        files = corpus(service, player, 1)
    for name, text in files.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        checked = runner.invoke(app, ["orders", "check", str(path), "--package", str(folder)])
        submitted = runner.invoke(
            app,
            ["orders", "submit", str(path), "--player", player, "--db", played.db],
        )
        assert checked.exit_code == submitted.exit_code, (name, checked.stderr, submitted.stderr)
        assert checked.stderr == submitted.stderr, name
        if checked.exit_code == 0:
            assert "pass every check" in checked.stdout


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    player=st.sampled_from(PLAYERS),
    seed=st.integers(min_value=0, max_value=10_000),
    cut=st.integers(min_value=0, max_value=4000),
)
def test_any_file_gets_the_same_verdict_offline(
    played: Played, player: str, seed: int, cut: int
) -> None:
    """Random orders, whole or cut short anywhere (a file broken in any way): the package's
    check and submission agree, message for message."""
    with closing(played.service()) as service:
        lineage = service.target(CAMPAIGN)
        view = service.load(lineage, viewer=player)
        chart = service.player_map(lineage, player)[0]
        text = format_orders(random_document(view, chart, player, random.Random(seed)))
        text = text[: cut or len(text)]
        assert offline(played.packages / player, text) == online(service, player, text)


def test_a_late_file_is_refused_offline_as_online(tmp_path: Path) -> None:
    """The deadline the package knows binds the check as it binds submission."""
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    db = str(tmp_path / "u.db")
    base = ["--db", db]
    runner.invoke(
        app, ["new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"), *base]
    )
    assert (
        runner.invoke(app, ["turn", "deadline", "2000-01-01T00:00", "--past", *base]).exit_code == 0
    )
    assert runner.invoke(app, ["publish", "--out", str(tmp_path / "out"), *base]).exit_code == 0
    orders = tmp_path / "red.toml"
    orders.write_text((tmp_path / "out" / "red" / TEMPLATE_FILE).read_text())
    checked = runner.invoke(
        app, ["orders", "check", str(orders), "--package", str(tmp_path / "out" / "red")]
    )
    submitted = runner.invoke(app, ["orders", "submit", str(orders), "--player", "red", *base])
    assert checked.exit_code == submitted.exit_code != 0
    assert "were due by 2000-01-01 00:00 UTC" in checked.stderr
    assert checked.stderr == submitted.stderr


def test_orders_check_refuses_a_folder_that_is_no_package(played: Played, tmp_path: Path) -> None:
    orders = tmp_path / "orders.toml"
    orders.write_text((played.packages / "red" / TEMPLATE_FILE).read_text())
    cases = {
        str(tmp_path / "missing"): "is not a folder",
        str(tmp_path): "has no view.json",
    }
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / VIEW_FILE).write_text('{"format": "something else"}')
    (broken / MAP_FILE).write_text((played.packages / "red" / MAP_FILE).read_text())
    cases[str(broken)] = "is not a player's view"
    for folder, problem in cases.items():
        result = runner.invoke(app, ["orders", "check", str(orders), "--package", folder])
        assert result.exit_code == 2, result.stdout
        assert problem in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- hidden information


def _unit_ids(service: CampaignService) -> dict[str, set[str]]:
    """Every unit id each player ever had, from the whole log (the umpire's view)."""
    log = json.dumps([msgspec.to_builtins(r.event) for r in service.log(service.target(CAMPAIGN))])
    return {p: set(re.findall(rf"\b{p}-[A-Z]+\d+\b", log)) for p in PLAYERS}


@pytest.mark.parametrize("player", PLAYERS)
def test_the_package_holds_only_what_the_player_may_see(
    played: Played, service: CampaignService, player: str
) -> None:
    """view.json, map.toml, template.toml, map.svg and report.html: no other player's unit
    id, no planet of a system he has not explored; and they hold what the check needs (the
    test can fail)."""
    folder = played.packages / player
    owned = _unit_ids(service)
    foreign = {unit for other in PLAYERS if other != player for unit in owned[other]}
    for name in (VIEW_FILE, MAP_FILE, TEMPLATE_FILE, "map.svg", "report.html"):
        text = (folder / name).read_text()
        assert not {u for u in foreign if re.search(rf"\b{re.escape(u)}\b", text)}, name
    assert any(unit in (folder / VIEW_FILE).read_text() for unit in owned[player])
    # His map (issue 16) shows his units by id and planets only where he explored.
    svg = (folder / "map.svg").read_text()
    assert {f'data-key="{u}"' for u in owned[player]} & set(re.findall(r'data-key="[^"]+"', svg))
    drawn = {p.split("/")[0] for p in re.findall(r'data-planet="([^"]+)"', svg)}
    assert drawn
    assert drawn <= set(
        service.load(service.target(CAMPAIGN), viewer=player).empires[player].explored
    )
    assert "<svg" in (folder / "report.html").read_text()  # the report embeds it
    # The web page's data (his map and the orders editor's desk): nothing of anyone else's.
    lineage = service.target(CAMPAIGN)
    desk = msgspec.json.encode(service.orders_desk(lineage, player)).decode()
    assert not {u for u in foreign if re.search(rf"\b{re.escape(u)}\b", desk)}
    picture = service.map_view(lineage, player)
    assert {u.id for u in picture.units} <= owned[player]
    mine = service.load(lineage, viewer=player)
    known = {(c.owner, c.system) for c in mine.colonies.values()} | set(mine.known_colonies)
    assert {(c.owner, c.system) for c in picture.colonies} <= known
    assert {s.hex for s in picture.sightings} == set(mine.sightings.get(player, {}))
    assert {s.name for s in picture.systems if s.planets} <= set(mine.empires[player].explored)
    view, known_map = read_package(folder)
    assert view.player == player
    assert set(view.state.empires) == {player}
    assert {u.owner for u in view.state.units.values()} <= {player}
    explored = set(view.state.empires[player].explored)
    with_planets = {s.name for s in known_map.systems if s.planets}
    assert with_planets <= explored
    truth = service.starmap(service.target(CAMPAIGN))
    assert {s.name for s in truth.systems if s.planets} - explored  # there was something to hide
    assert known_map == service.player_map(service.target(CAMPAIGN), player)[0]
    # His view is numbered by his own events: the count of the others' stays hidden.
    assert view.state.version == view.state.events
    # Red's secret home-made design is in his package alone (004 L26-30; issue 15).
    files = "".join((folder / name).read_text() for name in (VIEW_FILE, MAP_FILE, TEMPLATE_FILE))
    for secret in (SECRET_DESIGN, "Nightjar"):
        assert (secret in files) == (player == "red"), secret


def test_a_players_map_is_built_once_for_what_he_knows(service: CampaignService) -> None:
    """Issue 19: the map never changes in a campaign; every orders check and page of a turn
    asks for the same player's map, so it is built once for what he knows and shared. Players
    who know different planets get different maps; the public chart is the same."""
    lineage = service.target(CAMPAIGN)
    red, explored = service.player_map(lineage, "red")
    assert service.player_map(lineage, "red")[0] is red  # shared, not built again
    blue, theirs = service.player_map(lineage, "blue")
    assert explored != theirs
    assert blue is not red
    assert [s.hex for s in blue.systems] == [s.hex for s in red.systems]


def test_reach_shows_a_player_nothing_of_anyone_else(
    played: Played, service: CampaignService
) -> None:
    owned = _unit_ids(service)
    view = service.load(service.target(CAMPAIGN), viewer="red")
    foreign = owned["blue"] | owned["green"]
    printed = ""
    for unit in sorted(view.units):
        asked = ("map", "reach", unit, "--player", "red", "--to", "1512")
        code, said = played.umpire(*asked, code=None)
        assert code == (0 if ": yes;" in said else 1), said  # 1: it cannot go there
        printed += said
    assert "red-" in printed
    assert not [u for u in foreign if re.search(rf"\b{re.escape(u)}\b", printed)]
    # Another's unit is refused in the same words whether it exists or not.
    rival = sorted(owned["blue"])[0]
    _, real = played.umpire("map", "reach", rival, "--player", "red", code=2)
    _, made_up = played.umpire("map", "reach", "blue-W999", "--player", "red", code=2)
    assert real.replace(rival, "ID") == made_up.replace("blue-W999", "ID")


# ---------------------------------------------------------------- map reach


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    player=st.sampled_from(PLAYERS),
    column=st.integers(1, 30),
    row=st.integers(1, 24),
    pick=st.integers(0, 99),
)
def test_reach_answers_as_submission_would(
    played: Played, player: str, column: int, row: int, pick: int
) -> None:
    """For any unit and destination: reach says yes exactly when a file moving it there is
    accepted, and its reason is the refusal's own words."""
    with closing(played.service()) as service:
        lineage = service.target(CAMPAIGN)
        view = service.load(lineage, viewer=player)
        units = sorted(view.units)
        unit = units[pick % len(units)]
        to = f"{column:02d}{row:02d}"
        answer = service.reach(lineage, unit, player, to)
        text = format_orders(
            OrdersDocument(player=player, turn=view.turn, moves=(Move(unit=unit, to=to),))
        )
        verdict = online(service, player, text)
        if answer.problem is None:
            assert verdict is None, verdict
            assert to in answer.hexes or answer.horizon > 1
        else:
            assert verdict is not None
            assert f"{unit}: {answer.problem}" in verdict


def test_reach_lists_the_hexes_and_refuses_bad_input(
    played: Played, service: CampaignService
) -> None:
    view = service.load(service.target(CAMPAIGN), viewer="red")
    unit = sorted(
        u.id for u in view.units.values() if u.hex is not None and not u.plotted(view.turn)
    )[0]
    listed = json.loads(played.umpire("map", "reach", unit, "--player", "red", "--json")[1])
    assert listed["unit"] == unit
    assert listed["hexes"]
    assert listed["problem"] is None
    for args, problem in (
        (("--to", "zz"), "is not a hex label like 0712"),
        (("--to", "9999"), "is off the map"),
    ):
        code, printed = played.umpire("map", "reach", unit, "--player", "red", *args, code=2)
        assert problem in printed
        assert len(printed.strip().splitlines()) == 1
    code, printed = played.umpire("map", "reach", "red-W1", "--player", "nobody", code=None)
    assert code != 0
    assert "nobody" in printed
    # The umpire's view: any unit, against the whole map.
    assert unit in played.umpire("map", "reach", unit)[1]


@pytest.mark.parametrize("player", PLAYERS)
def test_reach_from_the_package_is_reach_from_the_database(
    played: Played, service: CampaignService, player: str
) -> None:
    """At home, from his folder alone, a player gets the answer the umpire's database gives."""
    folder = str(played.packages / player)
    view = service.load(service.target(CAMPAIGN), viewer=player)
    for unit in sorted(view.units)[:6]:
        for to in ("0101", "1512"):
            asked = ("map", "reach", unit, "--to", to, "--json")
            at_home = runner.invoke(app, [*asked, "--package", folder])
            answer = json.loads(at_home.stdout)
            assert at_home.exit_code == (0 if answer["problem"] is None else 1), at_home.stderr
            online_ = played.umpire(*asked, "--player", player, code=at_home.exit_code)[1]
            assert answer == json.loads(online_)
    other = next(p for p in PLAYERS if p != player)
    refused = runner.invoke(app, ["map", "reach", "x", "--package", folder, "--player", other])
    assert refused.exit_code == 2
    assert f"the package is {player}'s" in refused.stderr


# ---------------------------------------------------------------- tech list


def test_tech_and_reach_render_as_their_golden_files() -> None:
    owned = frozenset({"speed-3", "industrial"})
    check_golden("tech_list", text_of(render.tech_table(tech_rows())))
    check_golden("tech_list_player", text_of(render.tech_table(tech_rows(owned), "red")))
    reach = Reach(
        unit="red-W1", owner="red", hex="0303", speed=3, horizon=2, hexes=("0302", "0304")
    )
    refused = msgspec.structs.replace(reach, to="0909", problem="cannot reach 0909: far")
    going = msgspec.structs.replace(reach, to="0304", path=("0304",), plot=("0305",))
    stuck = msgspec.structs.replace(reach, hexes=(), problem="plotted to 0305 until turn 3")
    views = [render.reach_view(r) for r in (reach, refused, going, stuck)]
    check_golden("map_reach", "".join(text_of(v) for v in views))


def test_tech_rows_price_each_technology_for_an_empire() -> None:
    """004 L286-290: speed-4 costs 40, or 30 with speed-3; speed-5 needs a level 1 speed."""
    rows = {r.name: r for r in tech_rows(frozenset({"speed-3"}))}
    assert rows["speed-3"].owned
    assert rows["speed-3"].price is None
    assert rows["speed-4"].price == 30
    assert rows["speed-4"].blocked is None
    assert rows["speed-5"].price == 55
    assert rows["speed-5"].blocked is None
    plain = {r.name: r for r in tech_rows(frozenset())}
    assert plain["speed-4"].price == 40
    assert plain["speed-5"].blocked is not None
    assert "level 1" in plain["speed-5"].blocked
    assert all(r.owned is None for r in tech_rows())


def test_tech_list_needs_no_database_and_shows_a_player_his_own(
    played: Played, service: CampaignService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["tech", "list", "--json"])
    assert result.exit_code == 0, result.stderr
    assert [r["name"] for r in json.loads(result.stdout)][:2] == ["speed-3", "speed-4"]
    assert not list(tmp_path.iterdir())  # no database made
    table = runner.invoke(app, ["tech", "list"])
    assert table.exit_code == 0
    assert "Technology (004 5.7.6-5.7.7)" in table.stdout
    owned = service.load(service.target(CAMPAIGN), viewer="red").empires["red"].techs
    mine = json.loads(played.umpire("tech", "list", "--player", "red", "--json")[1])
    assert {r["name"] for r in mine if r["owned"]} == set(owned)
    code, printed = played.umpire("tech", "list", "--player", "nobody", code=None)
    assert code != 0
    assert "nobody" in printed
    assert len(printed.strip().splitlines()) == 1


# ---------------------------------------------------------------- the umpire's console


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"umpire \d+\.\d+\.\d+\S*\n", result.stdout)


def test_db_backup_copies_a_live_database_and_refuses_safely(tmp_path: Path) -> None:
    """What a write-ahead log holds is in the copy; every refusal writes nothing."""
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    db = tmp_path / "u.db"
    runner.invoke(
        app,
        [
            "new",
            "g",
            "--players",
            "red,blue",
            "--map",
            str(tmp_path / "tiny.toml"),
            "--db",
            str(db),
        ],
    )
    live = sqlite3.connect(db)  # a write still in the log: a hand copy of u.db alone misses it
    live.execute("PRAGMA journal_mode=WAL")
    live.execute("PRAGMA wal_autocheckpoint=0")
    live.execute("CREATE TABLE extra (x)")
    live.execute("INSERT INTO extra VALUES (42)")
    live.commit()
    copy = tmp_path / "copy.db"
    result = runner.invoke(app, ["db", "backup", str(copy), "--db", str(db)])
    assert result.exit_code == 0, result.stderr
    live.close()
    assert sqlite3.connect(copy).execute("SELECT x FROM extra").fetchall() == [(42,)]
    assert copy.stat().st_mode & 0o777 == 0o600
    status = runner.invoke(app, ["status", "--db", str(copy)])
    assert status.exit_code == 0
    assert "g" in status.stdout
    before = copy.read_bytes()
    refusals = {
        (str(copy), str(db)): "exists already",
        (str(tmp_path / "new.db"), "postgresql://postgres@127.0.0.1/umpire"): "pg_dump",
        (str(tmp_path / "new.db"), str(tmp_path / "missing.db")): "no database at",
    }
    for (target, source), problem in refusals.items():
        result = runner.invoke(app, ["db", "backup", target, "--db", source])
        assert result.exit_code == 2, result.stdout
        assert problem in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert copy.read_bytes() == before
    assert not (tmp_path / "new.db").exists()
    assert not (tmp_path / "missing.db").exists()


def test_help_imports_no_database_or_engine() -> None:
    """`umpire --help` loads only the command line: the store, the engine and the rules are
    imported by the commands that need them, when they run."""
    code = (
        "import sys, cli\n"
        "heavy = [m for m in ('sqlalchemy', 'networkx', 'campaign.service', 'tactical') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


@pytest.mark.parametrize("player", PLAYERS)
def test_the_orders_editor_offers_the_campaigns_own_designs_at_its_prices(
    service: CampaignService, player: str
) -> None:
    """The web page's orders editor on a production turn lists what the player may build:
    the campaign's catalogue (its battle rules', here Continuum: 004 section 4) with an FTL
    drive and his own home-made designs (004 L26-30), each at the points production charges
    (004 L277); nothing of another catalogue, nor another player's secret design."""
    lineage = service.target(CAMPAIGN)
    view = service.load(lineage, viewer=player)
    desk = service.orders_desk(lineage, player)
    assert desk.production
    assert view.battle_rules == "continuum"
    price = campaign_catalogue(view, player)
    offered = {d.id: d.points for d in desk.designs}
    assert offered == {d: price(d).points for d in offered}  # as production prices them
    assert offered["destroyer"] == price("destroyer").points
    assert "ftl_tug" not in offered  # FT2's catalogue, not this campaign's
    assert all(price(d).ftl for d in offered)
    assert (SECRET_DESIGN in offered) == (player == "red")


def test_the_production_template_suggests_factories_only_to_whom_may_build_them(
    service: CampaignService,
) -> None:
    """On a production turn the template suggests `factories = 1` only to an empire with an
    industrial technology (004 5.7.7): uncommented, it would be refused to any other."""
    import msgspec

    from campaign.rules.orders import template
    from campaign.rules.technology import factory_allowance
    from campaign.strategic import Colony

    state = service.load(service.target(CAMPAIGN))
    assert state.turn == 4  # a production turn
    for player in PLAYERS:
        empire = state.empires[player]
        for techs in ((), ("industrial",)):
            given = msgspec.structs.replace(empire, techs=tuple(techs))
            colony = Colony(  # a colony to spend IP at (none is founded by turn 4)
                id="Home/3",
                owner=player,
                system="Home",
                hex=given.entry,
                orbit=3,
                planet_type="terran",
                capacity=60,
                population=20,
            )
            shown = msgspec.structs.replace(
                state,
                empires={**state.empires, player: given},
                colonies={**state.colonies, colony.id: colony},
            )
            text = template(shown, player, given.entry)
            may = factory_allowance(given.techs).tech is not None
            assert ("# factories = 1" in text) == may, (player, techs)
            assert ("factories need Industrial Technology" in text) != may


def test_an_earlier_turns_package_holds_that_turns_reports_only(
    played: Played, tmp_path: Path
) -> None:
    """`publish --turn N` for an earlier turn writes that turn's reports (and battles), not
    the turn in progress's files (template, view, map, receipt), which would mix two turns."""
    now, then = tmp_path / "now", tmp_path / "then"
    played.umpire("publish", "--out", str(now))
    played.umpire("publish", "--out", str(then), "--turn", "1")
    current = {"template.toml", VIEW_FILE, MAP_FILE, "receipt.json", "map.svg"}
    for player in PLAYERS:
        assert current <= {p.name for p in (now / player).iterdir()}
        written = {p.name for p in (then / player).iterdir()}
        assert {"report.md", "report.html", "report.json"} <= written
        assert not current & written, written
        assert json.loads((then / player / "report.json").read_text())["news_turn"] == 1
        assert json.loads((now / player / "report.json").read_text())["news_turn"] > 1
