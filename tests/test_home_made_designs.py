"""Issue 15: the campaign's battle rules, its Continuum catalogue and home-made designs.

004 section 4 (L34-54) puts the Fleet Book rules in play (Project Continuum stands in for
them), 004 L26-30 and L37 let a player field "entirely home made" designs built by those design
rules, and 004 L51-54 bans the reflex shield, the cloaking field and the wave gun.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campaign.rules.battles import request_for
from campaign.rules.designs import design_problems
from campaign.service import CampaignService
from campaign.strategic import Battle, BattleSide
from cli import app
from tactical.campaign_battle import (
    CampaignBattle,
    CampaignShip,
    CampaignSide,
    resolve_campaign_battle,
)
from tactical.designs import decode_design
from tactical.dice import SeededDice
from tactical.ship import Design, Mount
from tests.test_strategic import TINY_MAP

runner = CliRunner()

RAIDER = """name = "Raider"
rules = "continuum"
mass = 20
thrust = 6
hull_strength = "average"
fire_controls = 1

[[systems]]
kind = "beam2"
arcs = ["FP", "F", "FS"]

[[systems]]
kind = "pds"
"""


def umpire(*args: str, db: Path, code: int = 0) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)])
    output = result.stdout + result.stderr
    assert result.exit_code == code, output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    return output


@pytest.fixture
def game(tmp_path: Path) -> Path:
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    db = tmp_path / "umpire.db"
    umpire("new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"), db=db)
    (tmp_path / "raider.toml").write_text(RAIDER)
    return db


def state_of(db: Path, viewer: str = "umpire"):  # type: ignore[no-untyped-def]
    service = CampaignService.open(str(db))
    try:
        return service.load(service.target(None), viewer=viewer)
    finally:
        service.close()


def test_new_campaigns_fight_under_continuum_and_ft2_stays_a_choice(tmp_path: Path) -> None:
    """004 section 4: the Fleet Book rules by default; `--battle-rules ft2` keeps FT2."""
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    tiny = str(tmp_path / "tiny.toml")
    db = tmp_path / "a.db"
    out = umpire("new", "g", "--players", "red,blue", "--battle-rules", "ft3", db=db, code=2)
    assert "battle-rules setting 'ft3' must be one of continuum, ft2" in out
    umpire("new", "g", "--players", "red,blue", "--map", tiny, db=db)
    state = state_of(db)
    assert state.battle_rules == "continuum"
    warships = [u for u in state.units.values() if u.kind == "warship"]
    assert {u.rules for u in warships} == {"continuum"}
    assert sum(u.points for u in warships if u.owner == "red") == 1954
    battle = Battle(
        id="b1",
        hex="0101",
        system=None,
        type="even",
        sides=(
            BattleSide(player="red", order="engage", units=("red-W1",)),
            BattleSide(player="blue", order="engage", units=("blue-W1",)),
        ),
    )
    assert request_for(state, battle).rules == "continuum"
    ft2 = tmp_path / "b.db"
    umpire("new", "g", "--players", "red,blue", "--map", tiny, "--battle-rules", "ft2", db=ft2)
    old = state_of(ft2)
    assert old.battle_rules == "ft2"
    assert sum(u.points for u in old.units.values() if u.owner == "red") == 1980
    assert request_for(old, battle).rules == "ft2"


def test_a_registered_design_is_its_owners_to_build_and_secret(game: Path) -> None:
    """004 L26-30: a home-made design, registered, bought with the starting IP at 63 points
    per IP (004 L23); secret by default: no other player's view holds it."""
    folder = game.parent
    out = umpire("ship", "register", str(folder / "raider.toml"), "--player", "red", db=game)
    assert "design_registered" in out
    listed = umpire("ship", "designs", "--as-player", "red", db=game)
    assert "raider" in listed
    assert "red's" in listed  # whose home-made design it is
    assert "battleship" in listed  # the campaign's rules' catalogue (continuum), not FT2's
    assert "ft2" not in listed
    assert "raider" not in umpire("ship", "designs", "--as-player", "blue", db=game)
    assert "raider" not in umpire("log", "--as-player", "blue", db=game).lower()
    assert state_of(game, "blue").designs == {}
    assert set(state_of(game, "red").designs) == {"raider"}
    red = folder / "red.toml"
    red.write_text('player = "red"\nturn = 1\n[treasury]\nships = [{ design = "raider" }]\n')
    umpire("orders", "submit", str(red), "--player", "red", db=game)
    blue = folder / "blue.toml"
    blue.write_text('player = "blue"\nturn = 1\n[treasury]\nships = [{ design = "raider" }]\n')
    out = umpire("orders", "submit", str(blue), "--player", "blue", db=game, code=2)
    assert "design 'raider' in the campaign's catalogue" in out
    umpire("turn", "resolve", "--turn", "1", db=game)
    state = state_of(game)
    built = [u for u in state.units.values() if u.design == "raider"]
    assert [u.owner for u in built] == ["red"]
    assert built[0].design_text.startswith('name = "Raider"')
    points = state.designs["raider"].points
    assert state.empires["red"].ip == 25 - -(-points // 63)


def test_production_buys_a_registered_design_through_the_cli(game: Path) -> None:
    """Issue 15: "production buys any registered design at 63 points per IP" (004 L23,
    L26-30), through `[[production]]` at a colony's production phase (004 5.7), not only
    with the starting treasury; another player's production naming it is refused."""
    folder = game.parent
    umpire("ship", "register", str(folder / "raider.toml"), "--player", "red", db=game)
    landing = (
        'player = "red"\nturn = 1\n'
        '[[moves]]\nunit = "red-S1"\nto = "0102"\norder = "stand-off"\n'
        '[[moves]]\nunit = "red-T1"\nto = "0102"\norder = "stand-off"\n'
        '[[landings]]\nunit = "red-T1"\nplanet = "Alpha/3"\ncolonists = 10\n'
    )
    for turn in (1, 2, 3):
        orders = folder / f"red{turn}.toml"
        orders.write_text(landing if turn == 1 else f'player = "red"\nturn = {turn}\n')
        umpire("orders", "submit", str(orders), "--player", "red", db=game)
        umpire("turn", "resolve", "--turn", str(turn), db=game)
    assert "Alpha/3" in state_of(game).colonies
    news = " ".join(umpire("report", "--player", "red", "--turn", "1", db=game).split())
    assert "The umpire registered your design raider: 61 points" in news
    buy = '[[production]]\ncolony = "Alpha/3"\nships = [{ design = "raider" }]\n'
    blue = folder / "blue4.toml"
    blue.write_text('player = "blue"\nturn = 4\n' + buy)
    out = umpire("orders", "submit", str(blue), "--player", "blue", db=game, code=2)
    assert "no continuum design 'raider' in the campaign's catalogue" in out
    red = folder / "red4.toml"
    red.write_text('player = "red"\nturn = 4\n' + buy)
    umpire("orders", "submit", str(red), "--player", "red", db=game)
    umpire("turn", "resolve", "--turn", "4", db=game)
    state = state_of(game)
    built = [u for u in state.units.values() if u.design == "raider"]
    assert [(u.owner, u.hex) for u in built] == [("red", "0102")]
    assert "Built: raider" in " ".join(umpire("report", "--player", "red", db=game).split())


def test_a_public_design_is_everyones_to_see_and_its_owners_to_build(tmp_path: Path) -> None:
    """Issue 15: "the design is public or secret per a setting" (004 L26-30):
    `umpire new --designs public` makes a registered design every player's news and catalogue
    entry, though only its owner builds it (docs/rulings.md)."""
    (tmp_path / "tiny.toml").write_text(TINY_MAP)
    (tmp_path / "raider.toml").write_text(RAIDER)
    db = tmp_path / "umpire.db"
    args = ("new", "g", "--players", "red,blue", "--map", str(tmp_path / "tiny.toml"))
    out = umpire(*args, "--designs", "open", db=db, code=2)
    assert "designs setting 'open' must be one of secret, public" in out
    umpire(*args, "--designs", "public", db=db)
    umpire("ship", "register", str(tmp_path / "raider.toml"), "--player", "red", db=db)
    assert "raider" in umpire("ship", "designs", "--as-player", "blue", db=db)
    shown = " ".join(umpire("log", "--as-player", "blue", db=db).replace("│", " ").split())
    assert "red's home-made design raider registered: 61 points, public" in shown
    assert set(state_of(db, "blue").designs) == {"raider"}
    blue = tmp_path / "blue.toml"
    blue.write_text('player = "blue"\nturn = 1\n[treasury]\nships = [{ design = "raider" }]\n')
    out = umpire("orders", "submit", str(blue), "--player", "blue", db=db, code=2)
    assert "design 'raider' in the campaign's catalogue" in out


def test_a_banned_system_is_refused_citing_the_campaign_rules(game: Path) -> None:
    folder = game.parent
    before = umpire("log", db=game)
    bad = folder / "cloaked.toml"
    bad.write_text(RAIDER.replace('kind = "pds"', 'kind = "cloaking_field"'))
    out = umpire("ship", "register", str(bad), "--player", "red", db=game, code=2)
    assert len(out.strip().splitlines()) == 1
    assert "the cloaking field ('cloaking_field') is banned by the campaign rules (004 L51-54)" in (
        out
    )
    assert umpire("log", db=game) == before


def test_every_problem_of_a_design_is_named(game: Path) -> None:
    folder = game.parent
    bad = folder / "bad.toml"
    text = RAIDER.replace("mass = 20", "mass = 5").replace('kind = "pds"', 'kind = "wave_gun"')
    bad.write_text(text)
    out = umpire("ship", "register", str(bad), "--player", "red", db=game, code=2)
    assert "the wave gun ('wave_gun') is banned" in out
    assert "systems need" in out  # the design rules' own problem, too
    ft2 = folder / "ft2.toml"
    ft2.write_text('name = "F"\nrules = "ft2"\nmass = 10\nthrust = 4\n')
    out = umpire("ship", "register", str(ft2), "--player", "red", db=game, code=2)
    assert "the campaign's ships are built to continuum, not ft2" in out
    out = umpire("ship", "register", str(folder / "raider.toml"), "--player", "red", "--id",
                 "frigate", db=game, code=2)  # fmt: skip
    assert "design id 'frigate' is taken" in out


def test_alien_systems_are_not_mixed_with_human_ones() -> None:
    """004 L30: "Fleet Book 2 alien systems may not be used with Human systems"."""
    design = decode_design(RAIDER)
    alien = msgspec.structs.replace(design, systems=(*design.systems, Mount(kind="scattergun")))
    problems = design_problems(alien, "continuum")
    assert any(
        "alien systems (scattergun) may not be used with human systems" in p for p in problems
    )
    assert not any("alien" in p for p in design_problems(design, "continuum"))


def test_a_home_made_design_fights_in_a_campaign_battle() -> None:
    design: Design = decode_design(RAIDER)
    request = CampaignBattle(
        sides=(
            CampaignSide(
                name="red", order="engage", ships=(CampaignShip(id="r", design="raider"),)
            ),
            CampaignSide(
                name="blue", order="engage", ships=(CampaignShip(id="b", design="frigate"),)
            ),
        ),
        rules="continuum",
        designs={"raider": design},
        turn_limit=2,
    )
    outcome = resolve_campaign_battle(request, SeededDice(1))
    assert outcome.setup.designs == {"raider": design}
    assert {s.design for s in outcome.ships} == {"raider", "frigate"}


def test_a_continuum_campaign_battle_rerolls_repairs_and_rolls_initiative() -> None:
    """Issue 15's done-when: the set-up says continuum, and the journal shows beam re-rolls
    (000 L2864-2968), damage control parties at work (000 10.4) and the FB2 initiative roll
    (000 L1053-1472, phase 2), where FT2 had none of them."""
    from tactical.phases.repair import RepairsMade

    def side(name: str) -> CampaignSide:
        designs = ("light_cruiser", "destroyer", "frigate")
        ships = tuple(CampaignShip(id=f"{name}-{i}", design=d) for i, d in enumerate(designs))
        return CampaignSide(name=name, order="engage", ships=ships)

    request = CampaignBattle(sides=(side("red"), side("blue")), rules="continuum")
    outcome = resolve_campaign_battle(request, SeededDice(0))
    assert outcome.setup.rules == "continuum"
    keys = [roll.key for event in outcome.journal for roll in getattr(event, "rolls", ())]
    assert any("/fire/" in key and "/r0" in key for key in keys)  # a 6 re-rolled
    assert any(key.startswith("t1/initiative/") for key in keys)
    assert any(isinstance(e, RepairsMade) and e.repairs for e in outcome.journal)
