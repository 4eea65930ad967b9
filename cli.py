"""The `umpire` command: parse, call the service, render. Nothing else lives here.

Every command takes `--db` (or UMPIRE_DB), `--campaign` (or UMPIRE_CAMPAIGN) and
`--branch` (or UMPIRE_BRANCH), declared once: such a command has a parameter
`at: Where = HERE` and `campaign_command` puts the three options in its place. A user mistake
prints one line naming the problem and exits non-zero without writing anything;
`UmpireError.exit_code` says which code.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, ParamSpec, TypeVar, cast

import msgspec
import typer
from rich.console import Console

from campaign.errors import InvalidInputError, UmpireError
from campaign.rules.production import ProductionSettings, StartingIp
from campaign.rules.technology import ResearchPooling

# `umpire --help` loads only this file and typer (issue 16): the store, the rules, the maps and
# the engine are imported by the commands that need them, when they run.
if TYPE_CHECKING:
    from campaign import render
    from campaign.dice import DiceKey
    from campaign.service import CampaignService
    from campaign.store import Lineage
    from campaign.strategic import CoreDamage, ShipResult

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    name="umpire",
    help="Umpire a Stellar Conquest-style campaign with Full Thrust battles.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals can hold a database password
    add_completion=True,
)
turn_app = typer.Typer(help="Resolve, close and inspect game turns.", no_args_is_help=True)
orders_app = typer.Typer(
    help="Players' orders: templates, submission, signed files and the inbox.",
    no_args_is_help=True,
)
ruling_app = typer.Typer(
    help="The umpire's rulings and corrections: recorded with a reason, shown to the player.",
    no_args_is_help=True,
)
battle_campaign_app = typer.Typer(
    help="The campaign's battles (004 5.3): list them and record outcomes.", no_args_is_help=True
)
db_app = typer.Typer(help="The database schema: status and upgrades.", no_args_is_help=True)
app.add_typer(turn_app, name="turn")
app.add_typer(orders_app, name="orders")
app.add_typer(ruling_app, name="ruling")
app.add_typer(battle_campaign_app, name="battles")
app.add_typer(db_app, name="db")


class _OnFirstUse:
    """Stands for an object made when it is first used (a module, a console)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._made: Any = None

    def made(self) -> Any:
        """The object itself, made now if not yet."""
        if self._made is None:
            self._made = self._make()
        return self._made

    def __getattr__(self, name: str) -> Any:
        return getattr(self.made(), name)


if not TYPE_CHECKING:
    render = _OnFirstUse(lambda: importlib.import_module("campaign.render"))
out = cast(Console, _OnFirstUse(lambda: Console(theme=render.THEME, soft_wrap=False)))
err = cast(Console, _OnFirstUse(lambda: Console(stderr=True, theme=render.THEME, soft_wrap=True)))


def _whole(console: Console) -> Console:
    """The console behind `out` or `err` itself, for rich code that takes a whole console (a
    progress bar enters it as a context manager, which a stand-in cannot forward)."""
    return cast(Console, cast(_OnFirstUse, console).made())


DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="UMPIRE_DB",
        help="Database: a SQLite file (default umpire.db here) or postgresql+psycopg://user@host/db.",
    ),
]
CampaignOption = Annotated[
    str | None,
    typer.Option(
        "--campaign",
        "-c",
        envvar="UMPIRE_CAMPAIGN",
        help="Campaign to act on (default: the only one in the database).",
    ),
]
BranchOption = Annotated[
    str | None,
    typer.Option(
        "--branch",
        "-b",
        envvar="UMPIRE_BRANCH",
        help="Branch to act on (default: the campaign's active branch).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
OrdersPlayerOption = Annotated[str, typer.Option("--player", "-p", help="Whose orders.")]
BattleSeedOption = Annotated[
    int, typer.Option("--seed", help="Dice seed; the same seed, the same battle.")
]
PlayerOption = Annotated[
    str | None,
    typer.Option("--as-player", help="Show only what this player may see."),
]
DiceOption = Annotated[
    bool,
    typer.Option("--dice", help="List every die rolled, by key (for `umpire ruling reroll`)."),
]
AudienceOption = Annotated[
    str, typer.Option("--to", help="Who may see it: umpire, all, or players like red,blue.")
]
EventsOption = Annotated[
    bool, typer.Option("--events", help="Show every event recorded, not only the summary.")
]
OrdersFileArgument = Annotated[str, typer.Argument(help="The orders file (TOML).")]
NewSqliteFileArgument = Annotated[str, typer.Argument(help="The new SQLite file to write.")]
DEFAULT_DB = "umpire.db"


def _choices(*values: str) -> dict[str, Any]:
    """An option's fixed values, for `typer.Option(**_choices(...))`: listed in its help
    (the metavar) and offered by shell completion. The command still checks the value, so a
    wrong one gets the usual one-line refusal naming the values."""

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return {"metavar": "<" + "|".join(values) + ">", "autocompletion": complete}


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        sys.stdout.write(f"umpire {version('stellar-umpire')}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Umpire a Stellar Conquest-style campaign with Full Thrust battles."""


def _fail(lines: list[str], code: int = 2) -> typer.Exit:
    """Print each problem as one `umpire: error:` line on stderr; return the exit to raise.

    The one place user mistakes become output and exit codes, for every command group.
    """
    from campaign.inputs import printable

    for line in lines:
        err.print(
            f"umpire: error: {printable(line)}",
            style="umpire.error",
            markup=False,
            highlight=False,
        )
    return typer.Exit(code)


def user_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn an `UmpireError` into one line on stderr and its exit code; never a traceback."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except UmpireError as exc:
            raise _fail([str(exc)], exc.exit_code) from None

    return run


@contextmanager
def _service(db: str, create: bool = False, reads: bool = False) -> Iterator[CampaignService]:
    from campaign.service import CampaignService

    # A command that reads: no SQLAlchemy on a SQLite file at the schema head (issue 19).
    service = CampaignService.open_to_read(db) if reads else CampaignService.open(db, create=create)
    try:
        yield service
    finally:
        service.close()


class Where(NamedTuple):
    """Which database, campaign and branch a command acts on: its `--db`, `--campaign` and
    `--branch`, declared once by `campaign_command`."""

    db: str = DEFAULT_DB
    campaign: str | None = None
    branch: str | None = None

    @contextmanager
    def service(self) -> Iterator[CampaignService]:
        """The service on this database, closed when the block ends."""
        with _service(self.db) as service:
            yield service

    @contextmanager
    def reader(self) -> Iterator[CampaignService]:
        """The service for a command that reads, closed when the block ends."""
        with _service(self.db, reads=True) as service:
            yield service

    def lineage(self, service: CampaignService) -> Lineage:
        """The campaign (default: the only one) and branch (default: its active one)."""
        return service.target(self.campaign, self.branch)


# The default of a command's `at: Where` parameter says which options stand in its place; the
# two are told apart by identity (`is`), not by value.
HERE = Where()  # --db, --campaign and --branch
IN_CAMPAIGN = Where()  # --db and --campaign: a command that picks no branch by --branch
_CAMPAIGN_OPTIONS = (
    ("db", DbOption, DEFAULT_DB),
    ("campaign", CampaignOption, None),
)
_WHERE_OPTIONS = (
    (HERE, (*_CAMPAIGN_OPTIONS, ("branch", BranchOption, None))),
    (IN_CAMPAIGN, _CAMPAIGN_OPTIONS),
)


def campaign_command(command: Callable[..., R]) -> Callable[..., R]:
    """Give a command the `--db`, `--campaign` and `--branch` options (only the first two for
    `= IN_CAMPAIGN`) in place of its `at: Where = HERE` parameter, at the same place in
    `--help`, and hand it them as one `Where`."""
    signature = inspect.signature(command, eval_str=True)
    found = [
        (parameter, options)
        for parameter in signature.parameters.values()
        for sentinel, options in _WHERE_OPTIONS
        if parameter.default is sentinel
    ]
    if len(found) != 1:
        raise TypeError(f"{command.__name__} needs one parameter `at: Where = HERE`")
    [(at, options)] = found
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter is at:
            parameters.extend(
                inspect.Parameter(name, at.kind, default=default, annotation=annotation)
                for name, annotation, default in options
            )
        else:
            parameters.append(parameter)

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> R:
        where = Where(**{name: kwargs.pop(name, default) for name, _, default in options})
        return command(*args, **{at.name: where}, **kwargs)

    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters} | {
        "return": signature.return_annotation
    }
    return run


def _print_json(value: Any) -> None:
    sys.stdout.write(msgspec.json.format(msgspec.json.encode(value), indent=2).decode() + "\n")


def _csv(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _ints(text: str) -> list[int]:
    try:
        return [int(part) for part in _csv(text)]
    except ValueError:
        raise InvalidInputError(f"results {text!r} must be whole numbers like 4,2") from None


def _show_written(recorded: list[Any], events: bool, title: str, dry_run: bool = False) -> None:
    """Print what a write command recorded: a short summary, or (`--events`) every row."""
    if events:
        out.print(render.log_table(recorded, title))
    else:
        verb = "would be recorded" if dry_run else "recorded"
        out.print(render.written_summary(recorded, title, verb))


def _ask_die(key: DiceKey, sides: int) -> int:
    while True:
        value: int = typer.prompt(f"Roll a d{sides} for {key} and type the result", type=int)
        if 1 <= value <= sides:
            return value
        err.print(f"{value} is not a face of a d{sides}; try again", markup=False)


@app.command()
@user_errors
def new(
    name: Annotated[str, typer.Argument(help="Campaign name (letters, digits, _ and -).")],
    players: Annotated[
        str, typer.Option("--players", "-p", help="Comma-separated player names, e.g. red,blue.")
    ] = "",
    seed: Annotated[
        str | None,
        typer.Option(
            envvar="UMPIRE_SEED",
            show_default=False,
            help="Dice seed (default: a random secret; small seeds can be guessed). Prefer the "
            "UMPIRE_SEED variable or --seed - (asked at a prompt): an option shows in the "
            "process list.",
        ),
    ] = None,
    dice: Annotated[
        str,
        typer.Option(
            help="seeded (derived from the seed) or manual (physical dice).",
            **_choices("seeded", "manual"),
        ),
    ] = "seeded",
    turns: Annotated[int, typer.Option(help="Length of the campaign in turns (004: 44).")] = 44,
    map_spec: Annotated[
        str | None,
        typer.Option("--map", help="Star map: a built-in name (classic, lafayette) or a map file."),
    ] = None,
    fleet: Annotated[
        list[str] | None,
        typer.Option(
            help="Starting fleet (004 L28-30): FILE for every player, or PLAYER=FILE for one "
            "player's own (repeat the option); each is checked against the 2000 points. "
            "Default: the battle rules' standard fleet (continuum 1954 points, ft2 1980)."
        ),
    ] = None,
    absent: Annotated[
        str,
        typer.Option(
            help="A player who sends no orders: hold, repeat (last orders) or autoplay.",
            **_choices("hold", "repeat", "autoplay"),
        ),
    ] = "hold",
    contested_planets: Annotated[
        str,
        typer.Option(
            help="An uncolonised planet two players could claim (004 L17-19): "
            "nobody holds it, or shared (each scores it).",
            **_choices("nobody", "shared"),
        ),
    ] = "nobody",
    battle_movement: Annotated[
        str,
        typer.Option(
            help="How the engine's battles move: vector (004 L43), cinematic (quicker to "
            "fight at a table and about 10x quicker for the engine) or spatial (003: facing "
            "and course apart in clock points).",
            **_choices("vector", "cinematic", "spatial"),
        ),
    ] = "vector",
    asteroid_motion: Annotated[
        str,
        typer.Option(
            help="How drifting asteroids hit ships in battle: jump (the drift is a jump at "
            "the end of each turn; a ship risks the asteroids its move crosses) or sweep "
            "(Continuum's moving asteroids: the drift sweeping over a ship, or a move ending "
            "inside one).",
            **_choices("jump", "sweep"),
        ),
    ] = "jump",
    morale_ties: Annotated[
        str,
        typer.Option(
            help="When both sides of a battle lose their fleet morale share of their ships in "
            "the same turn (000 12.8 does not say who breaks first): worse (the side worse "
            "off, by share of mass lost, then by share of its mass in hull boxes lost, "
            "withdraws and the other holds the field; docs/rulings.md) or both (both "
            "withdraw, nobody wins).",
            **_choices("worse", "both"),
        ),
    ] = "worse",
    battle_rules: Annotated[
        str,
        typer.Option(
            help="The rules its battles are fought and its ships built under (004 section 4): "
            "continuum (Project Continuum, standing in for the Fleet Books) or ft2."
        ),
    ] = "continuum",
    designs: Annotated[
        str,
        typer.Option(
            help="Who sees a player's home-made design (004 L26-30, `umpire ship register`): "
            "secret (its owner alone) or public (every player)."
        ),
    ] = "secret",
    starting_ip: Annotated[
        StartingIp,
        typer.Option(
            help="The 25 starting IP (004 L32): spent from set-up on ([treasury] in any "
            "orders), and what is left lost at the first production phase (expire, 004 L267), "
            "or kept until spent (keep).",
        ),
    ] = "expire",
    research_pooling: Annotated[
        ResearchPooling,
        typer.Option(
            help="Research (004 5.7.4): a technology paid in full in one production phase "
            "(phase), or IP invested in it kept across phases until its price is reached "
            "(accumulate).",
        ),
    ] = "phase",
    besieged_may_emigrate: Annotated[
        bool,
        typer.Option(
            help="Whether a besieged colony may still build colony transports (004 L212-214 "
            "does not list them among what it may build)."
        ),
    ] = False,
    idle_factories_over_limit: Annotated[
        bool,
        typer.Option(
            help="Whether factories over the technology limit for a colony's population stand "
            "idle (by default the limit governs building only)."
        ),
    ] = False,
    rules: Annotated[
        str,
        typer.Option(
            help="The campaign rules: 004 (Stellar Conquest with Full Thrust battles) or ft2 "
            "(Full Thrust 2nd edition's own campaign, 001 L1459-1536, with --scenario).",
            **_choices("004", "ft2"),
        ),
    ] = "004",
    scenario: Annotated[
        str, typer.Option(help="The ft2 campaign's scenario: lafayette (001 L1538-1614).")
    ] = "lafayette",
    scale: Annotated[
        int, typer.Option(help="The ft2 scenario's budgets in percent (001 L1570 allows scaling).")
    ] = 100,
    end_early: Annotated[
        bool,
        typer.Option(
            "--end-early",
            help="The ft2 scenario ends at the first week's end the attacker holds every "
            "settled system (digest A27; by default it is judged after its last turn).",
        ),
    ] = False,
    db: DbOption = DEFAULT_DB,
    json: JsonOption = False,
) -> None:
    """Create a campaign; its dice seed is committed by a public hash and kept secret."""
    from campaign.service import plan_campaign

    if seed == "-":
        seed = typer.prompt("Dice seed", hide_input=True)
    if rules == "ft2":  # with --fleet PLAYER=FILE as each side's forces file
        _refuse_004_settings(
            {
                "--map": map_spec is not None,
                "--turns": turns != 44,
                "--battle-movement": battle_movement != "vector",
                "--asteroid-motion": asteroid_motion != "jump",
                "--morale-ties": morale_ties != "worse",
                "--battle-rules": battle_rules != "continuum",
                "--designs": designs != "secret",
                "--contested-planets": contested_planets != "nobody",
                "--starting-ip": starting_ip != "expire",
                "--research-pooling": research_pooling != "phase",
                "--besieged-may-emigrate": besieged_may_emigrate,
                "--idle-factories-over-limit": idle_factories_over_limit,
            }
        )
        _new_ft2(
            name,
            _csv(players),
            seed,
            dice,
            scenario,
            scale,
            fleet or [],
            absent,
            db,
            json,
            end_early,
        )
        return
    for option, given in {"--scale": scale != 100, "--end-early": end_early}.items():
        if given:
            raise InvalidInputError(f"{option} belongs to an ft2 campaign (--rules ft2)")
    fleet_for_all, fleets = _fleet_files(fleet or [])
    plan = plan_campaign(
        name,
        _csv(players),
        seed,
        dice,
        turns,
        map_spec,
        fleet_for_all,
        absent,
        contested_planets,
        battle_movement,
        asteroid_motion,
        ProductionSettings(
            research_pooling=research_pooling,
            besieged_may_emigrate=besieged_may_emigrate,
            idle_factories_over_limit=idle_factories_over_limit,
            starting_ip=starting_ip,
        ),
        fleets,
        battle_rules,
        designs,
        morale_ties,
    )
    with _service(db, create=True) as service:
        recorded = service.new_campaign(plan, ask=_ask_die)
    if json:
        _print_json(recorded)
        return
    out.print(render.log_table(recorded, f"Campaign {name} created"))
    commitment = recorded[0].event.seed_commitment  # type: ignore[attr-defined]
    out.print(f"Seed commitment: {commitment}", markup=False, soft_wrap=True)


def _refuse_004_settings(given: dict[str, bool]) -> None:
    """Refuse, in one line, the 004 campaign's settings given to an ft2 campaign, which
    would ignore them: its scenario brings its map, weeks and battle rules."""
    named = [option for option, was_given in given.items() if was_given]
    if named:
        raise InvalidInputError(
            f"{', '.join(named)}: not for an ft2 campaign (its scenario sets the map, turns and "
            "battle rules); it takes --scenario, --scale, --fleet PLAYER=FILE, --absent, "
            "--end-early, --dice and --seed"
        )


def _fleet_files(values: list[str]) -> tuple[str | None, dict[str, str]]:
    """Split `--fleet` values into the file for every player and each player's own."""
    common = [v for v in values if "=" not in v]
    if len(common) > 1:
        raise InvalidInputError(
            f"--fleet names {len(common)} files for every player; give one, or PLAYER=FILE"
        )
    own: dict[str, str] = {}
    for value in values:
        if "=" in value:
            player, _, path = value.partition("=")
            if player in own:
                raise InvalidInputError(f"--fleet gives {player} two fleets; give one")
            own[player] = path
    return (common[0] if common else None), own


@app.command()
@user_errors
def campaigns(db: DbOption = DEFAULT_DB, json: JsonOption = False) -> None:
    """List the campaigns in the database."""
    with _service(db, reads=True) as service:
        found = service.campaigns()
    if json:
        _print_json(found)
    else:
        out.print(render.campaigns_table(found))


@app.command()
@user_errors
@campaign_command
def status(
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show where the campaign stands."""
    with at.reader() as service:
        result = service.status(at.lineage(service))
    if json:
        _print_json(result)
    else:
        out.print(render.status_panel(result))


@app.command()
@user_errors
@campaign_command
def log(
    turn: Annotated[int | None, typer.Option(help="Only events of this game turn.")] = None,
    event_type: Annotated[
        list[str] | None, typer.Option("--type", help="Only events of this type (repeatable).")
    ] = None,
    as_player: PlayerOption = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the last N events.")] = None,
    dice: DiceOption = False,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show the event log (a player's view with --as-player)."""
    from campaign.inputs import viewer_of

    viewer = viewer_of(as_player)
    with at.reader() as service:
        lineage = at.lineage(service)
        events = service.log(lineage, turn, event_type or (), viewer, limit)
    if json:
        _print_json(events)
        return
    who = f"player {viewer}" if as_player else "umpire"
    title = f"{lineage.campaign} [{lineage.branch}] as the {who} sees it"
    out.print(
        render.dice_table(events, f"Dice of {title}") if dice else render.log_table(events, title)
    )


@app.command()
@user_errors
@campaign_command
def state(
    at_turn: Annotated[
        int | None, typer.Option("--at-turn", help="State at the end of this turn (default: now).")
    ] = None,
    at_version: Annotated[
        int | None, typer.Option("--at-version", help="State right after this branch version.")
    ] = None,
    as_player: PlayerOption = None,
    no_snapshots: Annotated[
        bool, typer.Option("--no-snapshots", help="Replay every event instead of using snapshots.")
    ] = False,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show the campaign state now or at the end of a turn."""
    from campaign.inputs import viewer_of

    viewer = viewer_of(as_player)
    with at.reader() as service:
        lineage = at.lineage(service)
        result = service.state_at(
            lineage, at_turn, viewer, use_snapshots=not no_snapshots, version=at_version
        )
    if json:
        _print_json(result)
        return
    when = "now"
    if at_turn is not None:
        when = f"at the end of turn {at_turn}"
    elif at_version is not None:
        when = f"at version {at_version}"
    out.print(render.state_panel(result, lineage.campaign, lineage.branch, when, viewer))


@app.command()
@user_errors
@campaign_command
def verify(
    dice: Annotated[
        bool,
        typer.Option("--dice", help="Also recompute every seeded roll from the revealed seed."),
    ] = False,
    receipts: Annotated[
        str | None,
        typer.Option(
            "--receipts",
            help="Also check every receipt (receipt.json, *.receipt.json) under this folder: "
            "each must still be on the chain, and on the active branch.",
        ),
    ] = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Check the hash chain, the snapshots and the campaign row; exit 1 on any mismatch.

    With --receipts, players' receipts prove that what they were shown is still the history.
    """
    from pathlib import Path

    from campaign.receipts import read_all

    found = read_all(Path(receipts)) if receipts is not None else None
    with at.reader() as service:
        report = service.verify(at.lineage(service), dice=dice)
        checks = service.check_receipts(found) if found is not None else []
    if json:
        _print_json({"verify": report, "receipts": checks} if found is not None else report)
    else:
        out.print(render.verify_panel(report))
        if receipts is not None:
            out.print(render.receipts_table(receipts, checks))
    if not report.ok or not all(c.holds for c in checks):
        raise typer.Exit(1)


@app.command("reveal-seed")
@user_errors
@campaign_command
def reveal_seed(
    early: Annotated[
        bool,
        typer.Option("--early", help="Reveal before the campaign ends (rolls become predictable)."),
    ] = False,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Publish the dice seed so anyone can check every roll with `umpire verify --dice`."""
    with at.service() as service:
        recorded = service.reveal_seed(at.lineage(service), early=early)
    _show_written(recorded, events, "Seed revealed")


@app.command()
@user_errors
@campaign_command
def rewind(
    to_turn: Annotated[
        int | None, typer.Option("--to-turn", help="Keep history up to the end of this turn.")
    ] = None,
    to_version: Annotated[
        int | None,
        typer.Option(
            "--to-version", help="Or up to this branch version (e.g. before a turn resolved)."
        ),
    ] = None,
    new_branch: Annotated[
        str | None,
        typer.Option("--branch", "-b", help="Name of the new branch (default: FROM-tN)."),
    ] = None,
    from_branch: Annotated[
        str | None,
        typer.Option("--from", envvar="UMPIRE_BRANCH", help="Branch to rewind (default: active)."),
    ] = None,
    at: Where = IN_CAMPAIGN,
) -> None:
    """Start a new branch from the end of a turn; the original branch stays as it was."""
    with at.service() as service:
        created = service.rewind(
            service.target(at.campaign, from_branch), to_turn, new_branch, to_version=to_version
        )
    where = f" (end of turn {to_turn})" if to_turn is not None else ""
    out.print(
        f"Branch [bold]{created.name}[/] starts from {created.parent} at version "
        f"{created.fork_version}{where} and is now the active branch."
    )


branches_app = typer.Typer(
    help="List the campaign's branches (* marks the active one); compare two with `diff`.",
    invoke_without_command=True,
)
app.add_typer(branches_app, name="branches")


@branches_app.callback()
@user_errors
@campaign_command
def branches(
    context: typer.Context,
    use: Annotated[
        str | None, typer.Option("--use", help="Make this branch the active one.")
    ] = None,
    at: Where = IN_CAMPAIGN,
    json: JsonOption = False,
) -> None:
    """List the campaign's branches (* marks the active one); compare two with `diff`."""
    if context.invoked_subcommand is not None:
        return
    with at.reader() as service:
        if use is not None:
            service.use_branch(at.campaign, use)
        name, active, found = service.branches(at.campaign)
    if json:
        _print_json({"campaign": name, "active": active, "branches": found})
    else:
        out.print(render.branches_table(name, active, found))


@branches_app.command("diff")
@user_errors
@campaign_command
def branches_diff(
    a: Annotated[str, typer.Argument(help="A branch, e.g. main.")],
    b: Annotated[str, typer.Argument(help="The branch to compare it with, e.g. main-t3.")],
    as_player: PlayerOption = None,
    at: Where = IN_CAMPAIGN,
    json: JsonOption = False,
) -> None:
    """What differs between two branches, turn by turn, player by player: the news each
    was told on one and not the other. The umpire's diff holds every player's private news
    and standing; show a player a re-run after a ruling with --as-player (his news and the
    public news only, his standing)."""
    from campaign.inputs import viewer_of

    with at.reader() as service:
        found = service.branch_diff(at.campaign, a, b, viewer_of(as_player))
    if json:
        _print_json(found)
    else:
        out.print(render.branch_diff_view(found))


@app.command()
@user_errors
@campaign_command
def roll(
    dice: Annotated[str, typer.Argument(help="What to roll, e.g. 2d6 or d20.")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="What the roll decides.")],
    to: AudienceOption = "umpire",
    results: Annotated[
        str | None,
        typer.Option(help="Physical dice: the faces rolled, e.g. 4,2 (else asked if manual)."),
    ] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Roll dice for a ruling; the result is recorded with its key and audience."""
    from campaign.events import Audience

    audience = Audience.parse(to)
    given = _ints(results) if results is not None else None
    with at.service() as service:
        recorded = service.roll(at.lineage(service), dice, reason, audience, given, ask=_ask_die)
    _show_written(recorded, events, "Rolled")


@app.command()
@user_errors
@campaign_command
def note(
    text: Annotated[str, typer.Argument(help="The note.")],
    to: AudienceOption = "all",
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Record a note, ruling or piece of news for an audience."""
    from campaign.events import Audience

    with at.service() as service:
        recorded = service.note(at.lineage(service), text, Audience.parse(to))
    _show_written(recorded, events, "Noted")


@turn_app.command("end")
@user_errors
@campaign_command
def turn_end(
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Close the turn in progress (a snapshot of the state is kept for fast rewinds)."""
    with at.service() as service:
        recorded = service.end_turn(at.lineage(service))
    _show_written(recorded, events, "Turn ended")


@turn_app.command("resolve")
@user_errors
@campaign_command
def turn_resolve(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would happen; store nothing.")
    ] = False,
    dice: DiceOption = False,
    turn: Annotated[
        int | None,
        typer.Option(
            "--turn",
            help="The turn to resolve: any other is refused, so a repeated command resolves "
            "nothing. Without it, a turn nobody sent orders for waits for its deadline.",
        ),
    ] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Resolve the turn from the orders in (004 section 5); it stops for battles."""
    with at.service() as service:
        lineage = at.lineage(service)
        recorded = service.resolve_turn(lineage, ask=_ask_die, dry_run=dry_run, expected_turn=turn)
        unrolled = (
            service.unrolled_rerolls(lineage, recorded[0].turn, recorded if dry_run else ())
            if recorded
            else ()
        )
        coming = None if dry_run else service.turn_status(lineage)
    title = "Dry run: nothing was stored" if dry_run else "Turn resolved"
    _show_written(recorded, events, title, dry_run)
    if dice:
        out.print(render.dice_table(recorded, "Dice rolled" + (" (dry run)" if dry_run else "")))
    ended = any(e.type == "turn_ended" for e in recorded)
    for key in unrolled:
        out.print(render.unrolled_reroll(key, ended))
    if coming is not None:
        out.print(render.next_steps(coming))


ReasonOption = Annotated[
    str, typer.Option("--reason", "-r", help="Why (the affected player reads it).")
]


@ruling_app.command("move")
@user_errors
@campaign_command
def ruling_move(
    unit: Annotated[str, typer.Argument(help="The unit, e.g. red-W3.")],
    reason: ReasonOption,
    to: Annotated[
        str | None, typer.Option("--to", help="The hex (leave out: back to the entry).")
    ] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Put a unit in another hex by ruling (its plot is void)."""
    with at.service() as service:
        recorded = service.relocate_unit(at.lineage(service), unit, to, reason)
    _show_written(recorded, events, "Ruling recorded")


@ruling_app.command("split")
@user_errors
@campaign_command
def ruling_split(
    unit: Annotated[
        str, typer.Argument(help="A group of transports or a scout troop, e.g. red-T1.")
    ],
    reason: ReasonOption,
    count: Annotated[int, typer.Option("--count", "-n", help="How many to split off.")],
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Split transports or scouts off a unit as a new unit by ruling (004 L67)."""
    with at.service() as service:
        recorded = service.split_unit(at.lineage(service), unit, count, reason)
    _show_written(recorded, events, "Ruling recorded")


@ruling_app.command("reroll")
@user_errors
@campaign_command
def ruling_reroll(
    keys: Annotated[
        list[str],
        typer.Argument(
            help="The dice by key, e.g. 3/exploration/Beta.red-S1/0 "
            "(`umpire turn resolve --dry-run --dice` lists them)."
        ),
    ],
    # Required, but checked by the service so that a missing reason is one line like the rest.
    reason: Annotated[
        str, typer.Option("--reason", "-r", help="Why (the players who read the dice see it).")
    ] = "",
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Roll dice of the turn in progress again by ruling, when the turn's next step rolls them."""
    with at.service() as service:
        recorded = service.reroll_dice(at.lineage(service), keys, reason)
    _show_written(recorded, events, "Ruling recorded")


@ruling_app.command("orders")
@user_errors
@campaign_command
def ruling_orders(
    file: Annotated[str, typer.Argument(help="The orders file (TOML) to hand in for him.")],
    player: OrdersPlayerOption,
    reason: ReasonOption,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Replace a player's orders by ruling (checked like his own; he is told why)."""
    from campaign.inputs import MAX_ORDERS_BYTES, read_text

    text = read_text(file, "orders file", MAX_ORDERS_BYTES)
    with at.service() as service:
        recorded = service.replace_orders(at.lineage(service), player, text, reason)
    _show_written(recorded, events, f"Orders of {player} replaced by ruling")


@ruling_app.command("colony")
@user_errors
@campaign_command
def ruling_colony(
    colony: Annotated[str, typer.Argument(help="The colony, e.g. Alpha/3.")],
    reason: ReasonOption,
    population: Annotated[int | None, typer.Option(help="Millions.")] = None,
    factories: Annotated[int | None, typer.Option()] = None,
    pdus: Annotated[int | None, typer.Option(help="Planetary defence units.")] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Set a colony's population or buildings by ruling."""
    with at.service() as service:
        recorded = service.adjust_colony(
            at.lineage(service),
            colony,
            reason,
            population=population,
            factories=factories,
            pdus=pdus,
        )
    _show_written(recorded, events, "Ruling recorded")


@turn_app.command("status")
@user_errors
@campaign_command
def turn_status(
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show the turn in progress: who has sent orders, who has not, what waits."""
    with at.reader() as service:
        result = service.turn_status(at.lineage(service))
    if json:
        _print_json(result)
    else:
        out.print(render.turn_status_panel(result))


@turn_app.command("deadline")
@user_errors
@campaign_command
def turn_deadline(
    when: Annotated[str, typer.Argument(help="When orders are due, UTC: 2026-11-28T18:00.")],
    past: Annotated[
        bool,
        typer.Option("--past", help="Accept a time already passed: the turn closes to orders now."),
    ] = False,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Set when orders for the turn are due; later orders are refused (the absent setting
    then decides for whoever is late). A time already passed is refused without --past."""
    from datetime import datetime

    try:
        deadline = datetime.fromisoformat(when)
    except ValueError:
        raise InvalidInputError(
            f"deadline {when!r} is not a date and time like 2026-11-28T18:00"
        ) from None
    with at.service() as service:
        recorded = service.set_deadline(at.lineage(service), deadline, allow_past=past)
    _show_written(recorded, events, "Deadline set")


@turn_app.command("hold")
@user_errors
@campaign_command
def turn_hold(
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (every player is told).")],
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Hold the turn: it will not resolve until released."""
    with at.service() as service:
        recorded = service.hold_turn(at.lineage(service), reason)
    _show_written(recorded, events, "Turn held")


@turn_app.command("release")
@user_errors
@campaign_command
def turn_release(
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Release a held turn."""
    with at.service() as service:
        recorded = service.release_turn(at.lineage(service))
    _show_written(recorded, events, "Turn released")


@orders_app.command("template")
@user_errors
@campaign_command
def orders_template(
    player: OrdersPlayerOption,
    out_file: Annotated[
        str | None, typer.Option("--out", help="Write to this file instead of the screen.")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the --out file if it exists.")
    ] = False,
    at: Where = HERE,
) -> None:
    """Write a filled-in orders file for a player: every unit, holding position."""
    with at.reader() as service:
        text = service.orders_template(at.lineage(service), player)
    if out_file is None:
        sys.stdout.write(text)
        return
    try:
        with open(out_file, "w" if force else "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise InvalidInputError(
            f"{out_file} exists already (it may hold orders written since): choose another "
            "--out, or --force to overwrite it"
        ) from None
    out.print(f"Wrote {out_file}", markup=False)


SecretOption = Annotated[
    str | None,
    typer.Option(
        envvar="UMPIRE_SECRET",
        help="The player's secret, if he holds one (prefer the UMPIRE_SECRET variable: "
        "an option shows in the process list). Asked for at a terminal.",
        show_default=False,
    ),
]


@orders_app.command("submit")
@user_errors
@campaign_command
def orders_submit(
    file: OrdersFileArgument,
    player: OrdersPlayerOption,
    secret: SecretOption = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Check a player's orders completely and record them; a resubmission replaces them.

    A player who holds a secret (`umpire player add`) must give it; the umpire hands orders in
    for him with `umpire ruling orders` instead, with a reason he is shown.
    """
    from campaign.inputs import MAX_ORDERS_BYTES, read_text

    text = read_text(file, "orders file", MAX_ORDERS_BYTES)
    with at.service() as service:
        lineage = at.lineage(service)
        _require_secret(service, lineage.campaign, player, secret)
        recorded = service.submit_orders(lineage, player, text)
        receipt = service.receipt(lineage, player)
    _show_written(recorded, events, f"Orders of {player} recorded")
    out.print(f"receipt: {receipt.encode()}", markup=False, highlight=False, soft_wrap=True)


def _require_secret(
    service: CampaignService, campaign: str, player: str, secret: str | None
) -> None:
    """A player who holds a secret (`umpire player add`) must give it: asked for at a
    terminal when not given."""
    from campaign.players import PlayerSecrets

    secrets_ = PlayerSecrets(service.store)
    if secret is None and sys.stdin.isatty() and secrets_.holds_secret(campaign, player):
        secret = typer.prompt(f"{player}'s secret", hide_input=True)
    secrets_.require(campaign, player, secret)


@orders_app.command("final")
@user_errors
@campaign_command
def orders_final(
    player: OrdersPlayerOption,
    undo: Annotated[
        bool, typer.Option("--undo", help="Take the mark back: the orders stay, not final.")
    ] = False,
    secret: SecretOption = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Mark a player's orders of the turn final ("ready"): he is done with them. New orders
    handed in take the mark back; so does --undo."""
    with at.service() as service:
        lineage = at.lineage(service)
        _require_secret(service, lineage.campaign, player, secret)
        recorded = service.mark_final(lineage, player, final=not undo)
        turn = service.turn_status(lineage).turn
    state = "not final" if undo else "final"
    if not recorded:
        out.print(f"{player}'s orders for turn {turn} were already {state}: nothing written")
        return
    _show_written(recorded, events, f"{player}'s orders for turn {turn} are {state}")


PackageOption = Annotated[
    str | None,
    typer.Option(
        "--package",
        help="Your folder from `umpire publish` (it holds view.json and map.toml); default: "
        "the orders file's folder, else the current folder, when it holds view.json.",
        show_default=False,
    ),
]


@orders_app.command("check")
@user_errors
def orders_check(file: OrdersFileArgument, package: PackageOption = None) -> None:
    """Check an orders file at home, from your published package alone (needs no database).

    The checks `umpire orders submit` makes, with the same messages, against your view as the
    package holds it (as it was published: a ruling made since is not in it); nothing is
    recorded. Exits 0 when the orders would be accepted. The package is found by itself when
    the file lies in it or you work in it.
    """
    from datetime import UTC, datetime
    from pathlib import Path

    from campaign.inputs import MAX_ORDERS_BYTES, printable, read_text
    from campaign.package import check_orders, find_package, no_package, read_package
    from campaign.rules.setup import campaign_catalogue

    text = read_text(file, "orders file", MAX_ORDERS_BYTES)
    folder = find_package(Path(file), package)
    if folder is None:
        raise no_package(Path(file))
    view, known_map = read_package(folder)
    catalogue = campaign_catalogue(view.state, view.player)
    document = check_orders(view, known_map, text, datetime.now(UTC), catalogue)
    out.print(
        printable(
            f"OK: the orders of {document.player} for turn {document.turn} of "
            f"{view.campaign} pass every check submission makes"
        ),
        markup=False,
        highlight=False,
    )


@orders_app.command("sign")
@user_errors
def orders_sign(
    file: Annotated[str, typer.Argument(help="The orders file (TOML) to sign.")],
    player: Annotated[
        str | None,
        typer.Option(
            "--player", "-p", help="Whose orders (yours; default: your package's player)."
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--campaign",
            "-c",
            envvar="UMPIRE_CAMPAIGN",
            help="The campaign they are for (default: your package's campaign).",
        ),
    ] = None,
    package: PackageOption = None,
    secret: SecretOption = None,
    out_file: Annotated[
        str | None, typer.Option("--out", help="Write the signed file here, not in place.")
    ] = None,
    sequence: Annotated[
        int | None,
        typer.Option(
            "--sequence",
            min=1,
            help="The file's number: larger than any you signed before for this turn "
            "(default: the time now, in microseconds). The inbox refuses an older one.",
        ),
    ] = None,
) -> None:
    """Sign an orders file with your secret for the umpire's inbox (needs no database).

    The signature is a last comment line covering the campaign, the player, the turn, a
    sequence number and the text above it (line endings and a byte-order mark aside, which
    mail and editors change on the way); signing again replaces it. With your package (found
    as `umpire orders check` finds it) the campaign, the player, the secret and the orders are
    checked first, and nothing is signed unless the inbox would take them; without one, a
    wrong secret signs all the same and the inbox refuses the file.
    """
    import time
    from datetime import UTC, datetime
    from pathlib import Path

    from campaign import signing
    from campaign.inputs import MAX_ORDERS_BYTES, printable, read_file
    from campaign.package import check_for_signing, find_package, signing_names

    source = Path(file)
    data = read_file(source, "orders file", MAX_ORDERS_BYTES)
    folder = find_package(source, package)
    player, campaign = signing_names(folder, player, campaign)
    signing.check_own(data, player)
    if secret is None and sys.stdin.isatty():
        secret = typer.prompt(f"{player}'s secret", hide_input=True)
    if not secret or not signing.typed_secret(secret):
        raise InvalidInputError(
            f"signing needs {player}'s secret: set UMPIRE_SECRET or give --secret"
        )
    if folder is not None:
        check_for_signing(folder, data, player, campaign, secret, datetime.now(UTC))
    number = sequence if sequence is not None else time.time_ns() // 1000
    signed = signing.sign(data, secret, campaign, player, number)
    target = Path(out_file) if out_file is not None else source
    try:
        target.write_bytes(signed)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {target}: {exc.strerror}") from None
    checked = (
        f" (checked against your package {folder} first)"
        if folder is not None
        else " (not checked: no package; `--package DIR` checks it first)"
    )
    message = printable(f"Signed {target} for {player} of {campaign}{checked}")
    out.print(message, markup=False, highlight=False, soft_wrap=True)


@orders_app.command("inbox")
@user_errors
@campaign_command
def orders_inbox(
    folder: Annotated[str, typer.Argument(help="The folder of signed orders files (*.toml).")],
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Record every signed orders file in a folder, in name order, each checked completely.

    Accepted files move to FOLDER/done/, refused ones to FOLDER/rejected/ beside NAME.reason.txt.
    Exits 0 when every file was accepted, 1 when any was refused, 3 when a concurrent write
    left one in the folder to retry.
    """
    from pathlib import Path

    from campaign.inbox import exit_code, process_inbox

    with at.service() as service:
        results = process_inbox(service, at.lineage(service), Path(folder))
    if json:
        _print_json(results)
    else:
        out.print(render.inbox_table(folder, results))
    code = exit_code(results)
    if code:
        raise typer.Exit(code)


@app.command()
@user_errors
@campaign_command
def report(
    player: Annotated[str, typer.Option("--player", "-p", help="Whose report.")],
    turn: Annotated[
        int | None, typer.Option(help="News of this turn (default: the last one resolved).")
    ] = None,
    output: Annotated[
        str,
        typer.Option(
            "--format",
            help="terminal, md (Markdown), html or json.",
            **_choices("terminal", "md", "html", "json"),
        ),
    ] = "terminal",
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show a player's turn package: empire, units and news, only what he may know."""
    if output not in ("terminal", "md", "html", "json"):
        raise InvalidInputError(f"--format {output!r} must be terminal, md, html or json")
    from campaign.ft2 import service as ft2

    with at.reader() as service:
        if ft2.is_ft2(service, at.lineage(service)):  # the FT2 campaign's report (issue 20)
            lines = ft2.report(service, at.lineage(service), player)
            _ft2_report(lines, "json" if json else output)
            return
        result = service.report(at.lineage(service), player, turn)
    if json or output == "json":
        _print_json(result)
    elif output == "md":
        sys.stdout.write(render.report_markdown(result))
    elif output == "html":
        sys.stdout.write(render.report_html(result))
    else:
        out.print(render.report_view(result))


def _ft2_report(lines: list[str], output: str) -> None:
    from campaign.ft2.report import report_html

    if output == "json":
        _print_json(lines)
    elif output == "html":
        sys.stdout.write(report_html(lines))
    else:
        out.print("\n".join(lines), markup=False, highlight=False)


@app.command()
@user_errors
@campaign_command
def publish(
    out_dir: Annotated[
        str, typer.Option("--out", help="Folder to write (one sub-folder a player).")
    ],
    turn: Annotated[
        int | None, typer.Option(help="The turn (default: the last one resolved).")
    ] = None,
    at: Where = HERE,
) -> None:
    """Write every player's turn package: report (md, html, json), his map (svg), his
    receipt (receipt.json: `umpire verify --receipts` proves it is still the history), and for
    the turn in progress his orders template (template.toml) and what `umpire orders check`
    needs at home: his own view (view.json) and his map as he knows it (map.toml); and for
    each battle he fought that turn, its report and replay (battle-ID.html). An earlier
    --turn writes that turn's reports and battles only: the rest belongs to the turn in
    progress."""
    from pathlib import Path

    from campaign.service.reports import last_resolved

    folder = Path(out_dir)
    written = 0
    with at.service() as service:
        lineage = at.lineage(service)
        state = service.load(lineage)
        for player in state.players:
            report_ = service.report(lineage, player, turn)
            now = report_.news_turn == last_resolved(state)
            # His map as he knows it today is not that turn's: an earlier report goes without.
            svg = service.map_svg(lineage, player) if now else ""
            package = render.player_package(report_, svg)
            if not now:
                del package["map.svg"]
            for fought in service.fought_battles(lineage, player, report_.news_turn):
                battle = service.battle_report(lineage, fought, player)
                package[f"battle-{fought}.html"] = render.battle_replay_html(battle)
            if now:
                package["receipt.json"] = service.receipt(lineage, player).encode() + "\n"
                package.update(service.player_package(lineage, player))
            target = folder / player
            try:
                target.mkdir(parents=True, exist_ok=True)
                for name, text in package.items():
                    (target / name).write_text(text, encoding="utf-8")
                    written += 1
            except OSError as exc:
                raise InvalidInputError(f"cannot write {target}: {exc.strerror}") from None
    out.print(f"Wrote {written} files under {folder}, one folder per player.", markup=False)


@db_app.command("upgrade")
@user_errors
def db_upgrade(db: DbOption = DEFAULT_DB) -> None:
    """Migrate the database schema to this version's; a SQLite file is backed up first."""
    from campaign.store import upgrade_database

    before, after, backup = upgrade_database(db)
    if before == after:
        out.print(f"Schema already at revision {after}; nothing to do.")
        return
    if backup is not None:
        out.print(f"Backed up to {backup}", markup=False)
    out.print(f"Schema upgraded from revision {before or 'none'} to {after}.")


@db_app.command("export")
@user_errors
def db_export(
    out_file: NewSqliteFileArgument,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Copy every campaign's log, without snapshots, for anyone to check receipts against.

    Made after the campaign (each seed revealed): `umpire verify --db FILE --receipts DIR`.
    """
    from pathlib import Path

    from campaign.store import export_log

    counts = export_log(db, Path(out_file))
    out.print(
        f"Exported {counts['events']} events of {counts['campaigns']} campaign(s) "
        f"({counts['streams']} branches) to {out_file}; no snapshots.",
        markup=False,
    )


@db_app.command("backup")
@user_errors
def db_backup(
    out_file: NewSqliteFileArgument,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Copy a SQLite database safely while it is in use (SQLite's online backup).

    Copying a live database file by hand can miss what its write-ahead log holds. For
    PostgreSQL use pg_dump.
    """
    from pathlib import Path

    from campaign.db import backup_database
    from campaign.inputs import printable

    backup_database(db, Path(out_file))
    out.print(printable(f"Backed up {db} to {out_file}."), markup=False, highlight=False)


@db_app.command("status")
@user_errors
def db_status(db: DbOption = DEFAULT_DB) -> None:
    """Show the database's schema revision and the one this umpire needs."""
    from campaign.store import database_revisions

    current, head = database_revisions(db)
    verdict = "up to date" if current == head else "run `umpire db upgrade`"
    out.print(
        f"Schema revision {current or 'none'}; this umpire needs {head}: {verdict}.", markup=False
    )


# ---- map commands (issue 3) begin ----
map_app = typer.Typer(help="Star maps: generate, show, export and validate.", no_args_is_help=True)
app.add_typer(map_app, name="map")

_MAP = typer.Option("--map", "-m", help="A built-in map (classic, lafayette) or a map file (TOML).")
MapOption = Annotated[str, _MAP]
MaybeMapOption = Annotated[str | None, _MAP]


def _map_fail(message: str) -> typer.Exit:
    """Report a map mistake through the CLI's one error path (code 2)."""
    return _fail([message])


def _map_console() -> Console:
    from maps.render import THEME as MAP_THEME

    return Console(theme=MAP_THEME, soft_wrap=True)


def _load_map(spec: str) -> Any:
    from maps import MapError, resolve_map

    try:
        return resolve_map(spec)
    except MapError as exc:
        raise _map_fail(str(exc)) from None


@map_app.command("generate")
def map_generate(
    seed: Annotated[int, typer.Option(help="Generator seed: the same seed gives the same map.")],
    out_file: Annotated[str, typer.Option("--out", "-o", help="Map file to write (TOML).")],
    players: Annotated[int, typer.Option(help="Players (2-8), one entry hex each.")] = 4,
    stars: Annotated[
        int | None, typer.Option(help="Star hexes (1-600; default by players, 54 for 4).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Map name (default generated-SEED).")] = None,
) -> None:
    """Generate a Stellar Conquest-style map and write it to a file."""
    from maps import generate, save_map

    try:
        starmap = generate(seed, players=players, stars=stars, name=name)
    except ValueError as exc:
        raise _map_fail(str(exc)) from None
    try:
        save_map(starmap, out_file)
    except OSError as exc:
        raise _map_fail(f"cannot write {out_file}: {exc.strerror or exc}") from None
    Console(soft_wrap=True).print(f"Wrote {starmap!r} to {out_file}", markup=False, highlight=False)


@map_app.command("show")
@user_errors
@campaign_command
def map_show(
    map_spec: MaybeMapOption = None,
    as_player: Annotated[
        str | None,
        typer.Option(
            "--as-player",
            help="A campaign's map as this player knows it: the public chart, and planets "
            "only where he explored (uses --db/--campaign/--branch).",
        ),
    ] = None,
    at: Where = HERE,
) -> None:
    """Draw a map in the terminal: the hex grid, a key and the star systems."""
    from maps.render import render_map

    console = _map_console()
    if as_player is None:
        console.print(render_map(_load_map(map_spec or "classic")))
        return
    if map_spec is not None:
        raise InvalidInputError("--as-player shows the campaign's own map: leave out --map")
    with at.reader() as service:
        starmap, explored = service.player_map(at.lineage(service), as_player)
    console.print(render_map(starmap, explored=explored))


@map_app.command("export")
def map_export(
    svg: Annotated[str, typer.Option("--svg", help="SVG file to write.")],
    map_spec: MapOption = "classic",
) -> None:
    """Export a map picture as SVG (opens in any browser)."""
    from maps import to_svg

    starmap = _load_map(map_spec)
    try:
        with open(svg, "w", encoding="utf-8") as handle:
            handle.write(to_svg(starmap))
    except OSError as exc:
        raise _map_fail(f"cannot write {svg}: {exc.strerror or exc}") from None
    Console(soft_wrap=True).print(f"Wrote {svg}", markup=False, highlight=False)


@map_app.command("validate")
def map_validate(
    file: Annotated[str, typer.Argument(help="Map file (TOML) or built-in map name.")],
) -> None:
    """Check a map file; print every problem with its field and line, exit 2 if any."""
    starmap = _load_map(file)
    Console(soft_wrap=True).print(f"OK: {starmap!r}", markup=False, highlight=False)


@map_app.command("reach")
@user_errors
@campaign_command
def map_reach(
    unit: Annotated[str, typer.Argument(help="A unit or task force id, e.g. red-W1.")],
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help="Ask as this player: his own units, his view and his map (default: the "
            "umpire, who sees everything).",
        ),
    ] = None,
    to: Annotated[
        str | None,
        typer.Option("--to", help="A destination hex (CCRR): how to get there, or why not."),
    ] = None,
    package: Annotated[
        str | None,
        typer.Option(
            "--package",
            help="Ask at home from your folder of `umpire publish` (no database): your view.",
        ),
    ] = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """List the hexes a unit can reach this turn, checked as `umpire orders submit` checks a
    move; with --to, the route there or the reason it cannot go (004 5.1, section 6), and
    exit 1 when it cannot."""
    from campaign.events import UMPIRE

    if package is not None:
        from pathlib import Path

        from campaign.package import read_package
        from campaign.playermap import unit_reach

        view, known_map = read_package(Path(package))
        if player is not None and player != view.player:
            raise InvalidInputError(
                f"the package is {view.player}'s: leave out --player or give {view.player}"
            )
        answer = unit_reach(view.state, known_map, unit, view.player, to)
    else:
        with at.reader() as service:
            viewer = player if player is not None else UMPIRE
            answer = service.reach(at.lineage(service), unit, viewer, to)
    if json:
        _print_json(answer)
    else:
        out.print(render.reach_view(answer))
    if to is not None and answer.problem is not None:
        raise typer.Exit(1)  # asked whether it can go there: no


# ---- map commands (issue 3) end ----

# ---- ship commands (issue 4) begin ----
ship_app = typer.Typer(
    help="Ship designs: list the built-ins, show a record sheet, price a design file.",
    no_args_is_help=True,
)
app.add_typer(ship_app, name="ship")

ShipPresetOption = Annotated[
    str | None,
    typer.Option(
        "--preset",
        "-p",
        help="Rule preset: ft2 or continuum (default: the design's own rules; "
        "NAME lookups try continuum, the campaign default, first).",
        **_choices("ft2", "continuum"),
    ),
]


def _ship_fail(lines: list[str]) -> typer.Exit:
    """Report ship-design problems through the CLI's one error path (code 2)."""
    return _fail(lines)


def _ship_console() -> Console:
    from tactical.render import THEME as SHIP_THEME

    return Console(theme=SHIP_THEME, soft_wrap=False)


@ship_app.command("list")
def ship_list(
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="Only the designs built to these rules: continuum (a campaign's default "
            "catalogue, 004 section 4) or ft2.",
        ),
    ] = None,
    json: JsonOption = False,
) -> None:
    """List the built-in ship designs with their class, mass, thrust and points."""
    from tactical.designs import builtin_ships
    from tactical.render import design_table

    if rules not in (None, "continuum", "ft2"):
        raise _ship_fail([f"--rules {rules!r} must be continuum or ft2"])
    ships = builtin_ships("ft2" if rules == "ft2" else "continuum" if rules else None)
    if json:
        _print_json([{"id": ship_id, "ship": ship} for ship_id, ship in ships])
        return
    _ship_console().print(design_table(ships))


@ship_app.command("show")
def ship_show(
    name: Annotated[str, typer.Argument(help="A built-in design id, e.g. frigate.")],
    preset: ShipPresetOption = None,
    json: JsonOption = False,
) -> None:
    """Print a built-in design's record sheet: damage track, systems and points."""
    from tactical.designs import UnknownDesignError, UnknownPresetError, show_builtin
    from tactical.render import record_sheet
    from tactical.ship import DesignError, fresh_state

    try:
        ship = show_builtin(name, preset)
    except (UnknownDesignError, UnknownPresetError) as exc:
        raise _ship_fail([str(exc)]) from None
    except DesignError as exc:
        raise _ship_fail([f"{name}: {problem}" for problem in exc.problems]) from None
    if json:
        _print_json({"ship": ship, "state": fresh_state(ship)})
        return
    _ship_console().print(record_sheet(ship))


@ship_app.command("cost")
def ship_cost(
    file: Annotated[str, typer.Argument(help="A design file (TOML).")],
    preset: ShipPresetOption = None,
    json: JsonOption = False,
) -> None:
    """Validate a design file and price it; print every problem with its field, exit 2 if any."""
    from pathlib import Path

    from tactical.designs import DesignFileError, UnknownPresetError, cost_design_file
    from tactical.render import cost_table

    try:
        costing = cost_design_file(Path(file), preset)
    except UnknownPresetError as exc:
        raise _ship_fail([str(exc)]) from None
    except DesignFileError as exc:
        raise _ship_fail([f"{file}: {problem}" for problem in exc.problems]) from None
    if costing.problems:
        raise _ship_fail([f"{file}: {problem}" for problem in costing.problems])
    if json:
        _print_json(costing)
        return
    _ship_console().print(cost_table(costing))


@ship_app.command("register")
@user_errors
@campaign_command
def ship_register(
    file: Annotated[str, typer.Argument(help="The player's design file (TOML).")],
    player: Annotated[str, typer.Option("--player", help="Whose design it is.")],
    design_id: Annotated[
        str | None,
        typer.Option("--id", help="What production orders call it (default: the file's name)."),
    ] = None,
    at: Where = HERE,
) -> None:
    """Register a player's home-made design (004 L26-30): checked completely by the design
    rules, every problem named; his production may then build it at 63 points per IP."""
    with at.service() as service:
        recorded = service.register_design(at.lineage(service), player, file, design_id)
    out.print(render.log_table(recorded, "Design registered"))


@ship_app.command("designs")
@user_errors
@campaign_command
def ship_designs(
    as_player: PlayerOption = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """List a campaign's ship catalogue: the standard designs of its battle rules and the
    home-made designs registered (a player's view: his own and the public ones)."""
    from campaign.inputs import viewer_of
    from campaign.rules.battles import home_made_sheet
    from campaign.rules.setup import catalogue_of
    from tactical.designs import builtin_ships
    from tactical.render import design_table

    viewer = viewer_of(as_player)
    with at.reader() as service:
        lineage = at.lineage(service)
        rules = service.load(lineage).battle_rules
        designs = service.designs(lineage, viewer)
    ships = builtin_ships(catalogue_of(rules))
    home = [(d.id, home_made_sheet(d.text, d.rules, d.id)) for d in designs]
    if json:
        _print_json([{"id": ship_id, "ship": ship} for ship_id, ship in [*ships, *home]])
        return
    fits = {d.id: f"{d.owner}'s" for d in designs}
    _ship_console().print(design_table([*ships, *home], fits))


# ---- ship commands (issue 4) end ----

# ---- battle commands (issue 4) begin ----
battle_app = typer.Typer(
    help="Battles: fight a built-in scenario with the tactical engine and seeded dice.",
    no_args_is_help=True,
)
app.add_typer(battle_app, name="battle")


SCENARIO_NAMES = (
    "grendel (001 L556-574), skirmish (Continuum rules), lite (FT Lite rules, 002) or spatial "
    "(spatial movement, 003)"
)
"""The built-in scenarios of `tactical.scenarios` for the help (not imported: the help is
quick); a test checks it names every one."""


@battle_app.command("demo")
def battle_demo(
    scenario: Annotated[
        str,
        typer.Argument(help=f"A built-in scenario: {SCENARIO_NAMES}."),
    ] = "grendel",
    seed: BattleSeedOption = 1,
    turns: Annotated[int, typer.Option("--turns", min=1, max=1000, help="Turn limit.")] = 20,
    json: JsonOption = False,
) -> None:
    """Fight a scenario with two closing commanders and print what happened, turn by turn."""
    from tactical.battle import Battle
    from tactical.commanders import closing_commander, play
    from tactical.dice import SeededDice
    from tactical.notation import format_position
    from tactical.scenarios import SCENARIOS
    from tactical.summary import describe_journal

    if scenario not in SCENARIOS:
        known = ", ".join(sorted(SCENARIOS))
        raise _ship_fail([f"no built-in scenario {scenario!r}; scenarios are {known}"])
    setup = SCENARIOS[scenario](turns)
    battle = play(
        Battle(setup), {side: closing_commander() for side in setup.sides}, SeededDice(seed)
    )
    final = format_position(setup.rules, battle.state)
    if json:
        _print_json({"setup": setup, "journal": battle.journal, "final": final})
        return
    console = Console(soft_wrap=True)
    for line in describe_journal(battle.journal, setup.movement):
        console.print(line, markup=False, highlight=False)
    console.print(f"final position: {final}", markup=False, highlight=False)


def _battle_file(name: str) -> Any:
    """A built-in scenario's set-up, or a battle file: a set-up or a campaign battle request.

    Exits 2 with one line per problem.
    """
    from campaign.inputs import read_file
    from tactical.battle import BattleSetup, SetupError, context
    from tactical.odds import decode_battle
    from tactical.scenarios import SCENARIOS

    if name in SCENARIOS:
        return SCENARIOS[name]()
    try:
        text = read_file(name, "battle file")
    except InvalidInputError as exc:
        known = ", ".join(sorted(SCENARIOS))
        raise _ship_fail([f"{exc}; scenarios are {known}"]) from None
    try:
        battle = decode_battle(text, name)
        if isinstance(battle, BattleSetup):
            context(battle, name)  # every problem of a set-up, before anything is fought
    except SetupError as exc:
        raise _ship_fail([f"{name}: {problem}" for problem in exc.problems]) from None
    return battle


def _side_commanders(sides: tuple[str, ...], given: list[str] | None) -> dict[str, str]:
    """Each side's commander from ``--commander NAME`` (every side) or ``SIDE=NAME``."""
    from tactical.commanders import COMMANDER_NAMES

    chosen = dict.fromkeys(sides, "closing")
    known = ", ".join(COMMANDER_NAMES)
    for value in given or []:
        side, _, name = value.rpartition("=")
        if name not in COMMANDER_NAMES:
            raise _ship_fail([f"--commander {value!r}: no commander {name!r}; use {known}"])
        if side and side not in sides:
            raise _ship_fail(
                [f"--commander {value!r}: no side {side!r}; sides are " + ", ".join(sides)]
            )
        for each in [side] if side else sides:
            chosen[each] = name
    return chosen


WATCH_QUIET = (" holds fire", " writes orders")
"""Journal lines --watch leaves out: the turn's table shows the same."""

CommanderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--commander",
        metavar="[SIDE=]NAME",
        help="Who commands: closing (close and fire; the default), engage (the campaign's "
        "Engage order: fighters, torpedoes, the nova cannon), stand-off or ftl-move. A bare "
        "name commands every side; SIDE=NAME one side. Repeat for several.",
        show_default=False,
    ),
]


@battle_app.command("fight")
def battle_fight(
    setup_name: Annotated[
        str,
        typer.Argument(
            metavar="SETUP", help=f"A set-up file (TOML) or a built-in scenario: {SCENARIO_NAMES}."
        ),
    ],
    seed: BattleSeedOption = 1,
    commander: CommanderOption = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Show every turn: what happened and where ships are.")
    ] = False,
    json: JsonOption = False,
) -> None:
    """Fight a set-up with a computer commander on each side and print the result.

    --watch shows the battle turn by turn; --json prints the set-up, the journal (which replays
    to the result) and the final position.
    """
    from tactical.battle import Battle, BattleSetup
    from tactical.commanders import named_commander, play
    from tactical.dice import SeededDice
    from tactical.notation import format_position

    setup = _battle_file(setup_name)
    if not isinstance(setup, BattleSetup):
        raise _ship_fail(
            [f"{setup_name}: a campaign battle request; fight it with `umpire battle campaign`"]
        )
    chosen = _side_commanders(setup.sides, commander)
    battle = play(
        Battle(setup),
        {side: named_commander(chosen[side]) for side in setup.sides},
        SeededDice(seed),
    )
    final = format_position(setup.rules, battle.state)
    if json:
        _print_json({"setup": setup, "journal": battle.journal, "final": final})
        return
    _show_battle(setup, battle.journal, battle.state, final, watch)


def _show_battle(setup: Any, journal: Sequence[Any], state: Any, final: str, watch: bool) -> None:
    """Print a fought battle: its result and ships, or with ``watch`` every turn."""
    from tactical.battle import CoreSystemsRolled, TurnEnded, context
    from tactical.render import THEME, battle_plot, battle_table
    from tactical.summary import describe_contacts, turn_by_turn

    console = Console(theme=THEME, soft_wrap=True)
    ctx = context(setup)
    if watch:
        for played in turn_by_turn(setup, journal):
            console.rule(f"turn {played.turn}", align="left")
            for line in played.lines:
                if not line.endswith(WATCH_QUIET):
                    console.print(line, markup=False, highlight=False)
            console.print(battle_plot(ctx, played.state))
            console.print(battle_table(ctx, played.state))
            if ctx.rules.bogeys:  # each side's long-range picture (001 L939)
                for side in setup.sides:
                    line = describe_contacts(ctx, played.state, side)
                    console.print(line, markup=False, highlight=False)
    who = f"{state.winner} wins" if state.winner else "no winner"
    reason = next(
        (
            e.reason
            for e in reversed(journal)
            if isinstance(e, TurnEnded | CoreSystemsRolled) and e.over
        ),
        "",
    )
    console.print(
        f"result after {state.turn} turns: {who}" + (f" ({reason})" if reason else ""),
        markup=False,
        highlight=False,
    )
    if not watch:
        console.print(battle_table(ctx, state))
    console.print(f"final position: {final}", markup=False, highlight=False)


@battle_app.command("replay")
def battle_replay(
    file: Annotated[
        str,
        typer.Argument(metavar="FILE", help="A battle written by `umpire battle fight --json`."),
    ],
    watch: Annotated[
        bool, typer.Option("--watch", help="Show every turn: what happened and where ships are.")
    ] = False,
) -> None:
    """Replay a fought battle from its journal and check it ends where it ended.

    FILE is what `umpire battle fight --json` printed: the set-up, the journal and the final
    position. Its result is shown as `battle fight` shows it; a journal that does not replay
    to the final position written beside it exits 1.
    """
    from campaign.inputs import read_file
    from tactical.battle import (
        BattleSetup,
        IllegalActionError,
        SetupError,
        decode_journal,
        replay,
    )
    from tactical.dice import DiceError
    from tactical.notation import format_position

    try:
        fought = msgspec.json.decode(read_file(file, "battle"))
        setup = msgspec.convert(fought["setup"], BattleSetup)
        journal = decode_journal(msgspec.json.encode(fought["journal"]))
        written = fought.get("final")
        state = replay(setup, journal)
    except InvalidInputError as exc:
        raise _fail([str(exc)]) from None
    except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError, AttributeError):
        raise _fail(
            [f"{file}: not a fought battle; give what `umpire battle fight --json` printed"]
        ) from None
    except SetupError as exc:
        raise _fail([f"{file}: {problem}" for problem in exc.problems]) from None
    except (IllegalActionError, DiceError) as exc:
        raise _fail([f"{file}: the journal does not replay: {exc}"], code=1) from None
    final = format_position(setup.rules, state)
    if written is not None and written != final:
        raise _fail([f"{file}: the journal replays to another final position"], code=1)
    _show_battle(setup, journal, state, final, watch)


def _campaign_request(file: str) -> Any:
    """Read a campaign battle request, or exit 2 with one line per problem."""
    from campaign.inputs import read_file
    from tactical.battle import SetupError
    from tactical.campaign_battle import decode_request

    try:
        text = read_file(file, "battle request")
    except InvalidInputError as exc:
        raise _ship_fail([str(exc)]) from None
    try:
        return decode_request(text, file)
    except SetupError as exc:
        raise _ship_fail([f"{file}: {problem}" for problem in exc.problems]) from None


@battle_app.command("campaign")
def battle_campaign(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A campaign battle request (TOML).")],
    seed: BattleSeedOption = 1,
    json: JsonOption = False,
) -> None:
    """Fight a campaign battle (004 5.3) with each side's order commander; print the outcome."""
    from tactical.battle import SetupError
    from tactical.campaign_battle import resolve_campaign_battle
    from tactical.dice import SeededDice
    from tactical.summary import describe_journal

    request = _campaign_request(file)
    try:
        outcome = resolve_campaign_battle(request, SeededDice(seed))
    except SetupError as exc:
        raise _ship_fail([f"{file}: {problem}" for problem in exc.problems]) from None
    if json:
        _print_json(outcome)
        return
    console = Console(soft_wrap=True)
    for line in describe_journal(outcome.journal, outcome.setup.movement):
        console.print(line, markup=False, highlight=False)
    console.print(
        f"result after {outcome.turns} turns: "
        + (f"{outcome.winner} wins" if outcome.winner else "no winner")
        + (f" ({outcome.reason})" if outcome.reason else ""),
        markup=False,
        highlight=False,
    )
    for ship in outcome.ships:
        extra = f", hull lost {ship.hull_lost}" if ship.hull_lost else ""
        if ship.systems_damaged or ship.systems_destroyed:
            extra += ", systems hit " + ", ".join(ship.systems_damaged + ship.systems_destroyed)
        if ship.displaced:
            extra += f", unplanned jump {ship.displaced[0]} parsecs direction {ship.displaced[1]}"
        console.print(
            f"  {ship.side} {ship.id} ({ship.design}): {ship.fate}{extra}",
            markup=False,
            highlight=False,
        )


@battle_app.command("odds")
def battle_odds(
    setup_name: Annotated[
        str,
        typer.Argument(
            metavar="SETUP",
            help="A set-up file, a campaign battle request (TOML) or a built-in scenario: "
            f"{SCENARIO_NAMES}.",
        ),
    ],
    runs: Annotated[
        int, typer.Option("--runs", min=1, max=1_000_000, help="Battles to fight.")
    ] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed; the same seed, the same odds.")] = 1,
    commander: CommanderOption = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", min=1, max=64, help="Worker processes; the figures do not depend on it."
        ),
    ] = 1,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            min=0.001,
            max=0.999,
            help="Stop early, at a hundred runs' step, once every side's 95% win interval is "
            "no wider than this (0.02: within about one point either way).",
        ),
    ] = None,
    json: JsonOption = False,
) -> None:
    """Fight a battle many times with seeded dice: each side's win rate and losses.

    Each win rate comes with its 95% confidence interval. Losses are ships and points
    destroyed, on average and their spread (standard deviation). A campaign request's sides
    fight under their campaign orders; a set-up's under --commander. Run i rolls from seed/i:
    the same seed and runs give the same figures.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from tactical.battle import BattleSetup
    from tactical.odds import Fight, RequestBattle, TableBattle, odds
    from tactical.render import THEME, odds_table

    battle = _battle_file(setup_name)
    if isinstance(battle, BattleSetup):
        sides = battle.sides
        fight: Fight = TableBattle(battle, _side_commanders(sides, commander))
    elif commander:
        raise _ship_fail(
            [f"{setup_name}: a campaign request's sides fight under their orders; drop --commander"]
        )
    else:
        sides = tuple(side.name for side in battle.sides)
        fight = RequestBattle(battle)
    show = runs >= 20 and not json  # a progress bar on long runs, on stderr
    columns = (
        *Progress.get_default_columns()[:1],
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(
        *columns, console=Console(stderr=True), disable=not show, transient=True
    ) as progress:
        task = progress.add_task("battles", total=runs)
        figures = odds(fight, sides, runs, seed, lambda: progress.advance(task), jobs, precision)
    if json:
        _print_json(figures)
        return
    Console(theme=THEME, soft_wrap=True).print(odds_table(figures))


# ---- battle commands (issue 4) end ----


# ---- players and web (issue 6) begin ----
player_app = typer.Typer(
    help="Players' secrets for remote play: issue, rotate, list.", no_args_is_help=True
)
app.add_typer(player_app, name="player")
PlayerName = Annotated[str, typer.Argument(help="A player of the campaign, e.g. red.")]


def _show_secret(campaign: str, player: str, secret: str, json: bool) -> None:
    if json:
        _print_json({"campaign": campaign, "player": player, "secret": secret})
        return
    err.print(
        f"Secret of {player} in {campaign}: shown this once and stored only as a hash; "
        "hand it over privately.",
        markup=False,
        highlight=False,
    )
    sys.stdout.write(secret + "\n")  # alone on stdout, for scripts


@player_app.command("add")
@user_errors
@campaign_command
def player_add(
    name: PlayerName,
    at: Where = IN_CAMPAIGN,
    json: JsonOption = False,
) -> None:
    """Issue a player's secret for the web page, signed orders files and `orders submit`
    (shown once; stored only as a hash)."""
    from campaign.players import PlayerSecrets

    with at.service() as service:
        chosen = service.store.resolve_campaign(at.campaign)
        secret = PlayerSecrets(service.store).issue(chosen, name)
    _show_secret(chosen, name, secret, json)


@player_app.command("rotate")
@user_errors
@campaign_command
def player_rotate(
    name: PlayerName,
    at: Where = IN_CAMPAIGN,
    json: JsonOption = False,
) -> None:
    """Replace a player's secret: the old one, and every session opened with it, stop working."""
    from campaign.players import PlayerSecrets

    with at.service() as service:
        chosen = service.store.resolve_campaign(at.campaign)
        secret = PlayerSecrets(service.store).rotate(chosen, name)
    _show_secret(chosen, name, secret, json)


@player_app.command("list")
@user_errors
@campaign_command
def player_list(
    at: Where = IN_CAMPAIGN,
    json: JsonOption = False,
) -> None:
    """List the campaign's players and whether each holds a secret (never the secrets)."""
    from campaign.playeraccess import player_access

    with at.reader() as service:
        chosen = service.store.resolve_campaign(at.campaign)
        access = player_access(service.store, chosen)
    if json:
        _print_json(access)
    else:
        out.print(render.players_table(chosen, access))


@app.command()
@user_errors
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    https_only: Annotated[
        bool,
        typer.Option(
            "--https-only",
            help="Behind a proxy that ends TLS: the session cookie is sent over HTTPS only, "
            "and browsers are told to keep to HTTPS.",
        ),
    ] = False,
    certfile: Annotated[
        str | None,
        typer.Option(
            "--certfile", help="Serve HTTPS with this certificate (PEM); needs --keyfile."
        ),
    ] = None,
    keyfile: Annotated[
        str | None, typer.Option("--keyfile", help="The certificate's private key (PEM).")
    ] = None,
    proxy: Annotated[
        str | None,
        typer.Option(
            "--proxy",
            help="The address of a reverse proxy in front (e.g. 127.0.0.1): only then is its "
            "X-Forwarded-For header believed, and only from that address.",
        ),
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Serve the players' web page: sign in with a secret, read the report, send orders.

    Sessions are signed with UMPIRE_WEB_SECRET, or a key made for this run; signing out or
    restarting the server ends them. A hosted server should serve HTTPS: --certfile/--keyfile,
    or --https-only behind a TLS proxy. The session cookie is Secure (HTTPS only) except for
    plain http on a loopback address (127.0.0.1, ::1, localhost).
    """
    from pathlib import Path

    from campaign.web import serve as run

    if (certfile is None) != (keyfile is None):
        raise InvalidInputError("--certfile and --keyfile go together")
    for path in (certfile, keyfile):
        if path is not None and not Path(path).is_file():
            raise InvalidInputError(f"no such file {path}")
    tls = (certfile, keyfile) if certfile and keyfile else None
    scheme = "https" if tls else "http"
    with _service(db) as service:
        err.print(f"Players' page on {scheme}://{host}:{port}/ (Ctrl-C stops)", markup=False)
        run(service, host, port, https_only=https_only, tls=tls, proxy=proxy)


# ---- players and web (issue 6) end ----


# ---- autoplay (issue 5) begin ----
@app.command()
@user_errors
@campaign_command
def autoplay(
    turns: Annotated[
        int, typer.Option(min=1, help="Turns to play (stops at the campaign's last turn).")
    ] = 44,
    seed: Annotated[
        str, typer.Option(help="Seed of the players' random orders (not the campaign's dice).")
    ] = "0",
    engine: Annotated[
        bool,
        typer.Option(
            "--engine/--record",
            help="Fight battles with the tactical engine, or record random outcomes by hand.",
        ),
    ] = True,
    at: Where = HERE,
) -> None:
    """Play turns with random legal orders for every player (for tests and benchmarks)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from campaign.autoplay import autoplay as play

    with at.service() as service:
        lineage = at.lineage(service)
        state = service.load(lineage)
        if state.ft2 is not None:  # the FT2 campaign's own random players (issue 20)
            from campaign.ft2.autoplay import play as play_ft2

            played = play_ft2(service, lineage, seed, turns, 0.0 if engine else 1.0)
            out.print(played.summary(), markup=False)
            return
        total = max(0, min(turns, state.max_turns - state.turn + 1))
        columns = (TextColumn("turn {task.fields[turn]}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=_whole(err), transient=True) as progress:
            task = progress.add_task("autoplay", total=total, turn=state.turn)
            result = play(
                service,
                lineage,
                turns,
                seed,
                resolve_battles=engine,
                progress=lambda turn: progress.update(task, advance=1, turn=turn + 1),
            )
    out.print(result.summary(), markup=False, highlight=False, soft_wrap=True)


# ---- autoplay (issue 5) end ----


# ---- campaign battle commands (issue 5) begin ----
def _decoys_lost(values: list[str] | None) -> dict[str, int]:
    """Read `--decoys-lost PLAYER=N`: the drones each side lost at the table."""
    lost = {}
    for player, count in _pairs_of(values, "drones").items():
        if not count.isdigit():
            raise InvalidInputError(
                f"decoy drones lost by {player} must be a whole number, not {count!r}"
            )
        lost[player] = int(count)
    return lost


def _pairs_of(values: list[str] | None, what: str) -> dict[str, str]:
    pairs = {}
    for value in values or []:
        unit, sep, rest = value.partition("=")
        if not sep or not unit or not rest:
            raise InvalidInputError(f"{what} {value!r} must look like UNIT={what.upper()}")
        pairs[unit.strip()] = rest.strip()
    return pairs


def _core_damage(unit: str, values: list[str]) -> CoreDamage:
    """Read the core systems a ship kept out from `bridge[:TURNS]`, `power_core`,
    `life_support:TURNS` or `none` (docs/rulings.md, "Core systems carry over")."""
    from campaign.strategic import CoreDamage
    from tactical.ship import FOR_THE_BATTLE

    core = CoreDamage()
    tokens = [v.strip() for joined in values for v in joined.split(",")]
    if tokens == ["none"]:
        return core
    for value in tokens:
        name, sep, turns = (part.strip() for part in value.partition(":"))
        if sep and (not turns.isdigit() or int(turns) < 1):
            raise InvalidInputError(f"core {unit}={value!r}: turns must be a number, 1 or more")
        if name == "bridge":  # no turns: out of control for the whole of its next battle
            turns_out = int(turns) if sep else FOR_THE_BATTLE
            core = msgspec.structs.replace(core, out_of_control=turns_out)
        elif name == "power_core" and not sep:
            core = msgspec.structs.replace(core, power_core=True)
        elif name == "life_support" and sep:
            core = msgspec.structs.replace(core, life_support=int(turns))
        else:
            raise InvalidInputError(
                f"core {unit}={value!r} must be bridge, bridge:TURNS, power_core, "
                "life_support:TURNS or none (alone)"
            )
    return core


def _battle_results(
    destroyed: str | None,
    disengaged: str | None,
    jumped: list[str] | None,
    damage: list[str] | None,
    bridge_failures: list[str] | None = None,
    core: list[str] | None = None,
    fighters_lost: list[str] | None = None,
) -> tuple[ShipResult, ...]:
    from campaign.strategic import ShipResult

    fates: dict[str, ShipResult] = {}
    for unit in _csv(destroyed):
        fates[unit] = ShipResult(unit=unit, fate="destroyed")
    for unit in _csv(disengaged):
        fates[unit] = ShipResult(unit=unit, fate="disengaged")
    for value in jumped or []:
        # UNIT=HEX: where it came out; a ship leaving the hex may be given as UNIT alone: it
        # jumped on to its destination (the service refuses that for any other ship).
        unit, sep, to_hex = (part.strip() for part in value.partition("="))
        if not unit or (sep and not to_hex):
            raise InvalidInputError(f"jumped {value!r} must look like UNIT or UNIT=HEX")
        fates[unit] = ShipResult(unit=unit, fate="jumped", to_hex=to_hex or None)
    for unit, boxes in _pairs_of(damage, "boxes").items():
        if not boxes.isdigit():
            raise InvalidInputError(f"damage for {unit} must be a number of boxes, not {boxes!r}")
        base = fates.get(unit, ShipResult(unit=unit))
        fates[unit] = msgspec.structs.replace(base, hull_lost=int(boxes))
    # UNIT=LEVEL, once per failure, in order: each is a casualty roll (004 L361-370).
    for value in bridge_failures or []:
        unit, sep, level = (part.strip() for part in value.partition("="))
        if not unit or not sep or not level.isdigit():
            raise InvalidInputError(f"bridge failure {value!r} must look like UNIT=LEVEL")
        base = fates.get(unit, ShipResult(unit=unit))
        failures = (*(base.bridge_failures or ()), int(level))
        fates[unit] = msgspec.structs.replace(base, bridge_failures=failures)
    for unit, count in _pairs_of(fighters_lost, "fighters").items():
        if not count.isdigit():
            raise InvalidInputError(f"fighters lost by {unit} must be a number, not {count!r}")
        base = fates.get(unit, ShipResult(unit=unit))
        fates[unit] = msgspec.structs.replace(base, fighters_lost=int(count))
    cores: dict[str, list[str]] = {}
    for value in core or []:
        unit, sep, systems = (part.strip() for part in value.partition("="))
        if not unit or not sep or not systems:
            raise InvalidInputError(f"core {value!r} must look like UNIT=SYSTEM")
        cores.setdefault(unit, []).append(systems)
    for unit, values in cores.items():
        base = fates.get(unit, ShipResult(unit=unit))
        if base.fate == "destroyed":
            raise InvalidInputError(f"core {unit}: a destroyed ship carries nothing out")
        fates[unit] = msgspec.structs.replace(base, core=_core_damage(unit, values))
    return tuple(fates[u] for u in sorted(fates))


@battle_campaign_app.command("list")
@user_errors
@campaign_command
def battle_list(
    as_player: PlayerOption = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """List the campaign's battles awaiting an outcome."""
    from campaign.inputs import viewer_of

    with at.reader() as service:
        lineage = at.lineage(service)
        found = service.battles(lineage, viewer_of(as_player))
        drones = service.battle_decoys(lineage, viewer_of(as_player))
    if json:
        _print_json(found)
    else:
        out.print(render.battles_table(found, drones))


@battle_campaign_app.command("show")
@user_errors
@campaign_command
def battle_show(
    battle_id: Annotated[
        str, typer.Argument(help="The battle, e.g. t3-b1; a player's as he knows it, t3-0403.")
    ],
    as_player: PlayerOption = None,
    turns: Annotated[
        bool, typer.Option("--turns", help="Tell the battle turn by turn, as its journal does.")
    ] = False,
    replay: Annotated[
        str | None,
        typer.Option(
            "--replay",
            help="Write the battle as a self-contained HTML page with the table animated "
            "turn by turn.",
        ),
    ] = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show a fought battle: the forces, what became of each ship, the table turn by turn.

    A player (--as-player) sees only a battle his ships fought, as he saw it; the umpire may
    name it by his id (t3-b1) or as that player knows it (t3-0403).
    """
    from pathlib import Path

    from campaign.inputs import viewer_of

    viewer = viewer_of(as_player)
    with at.reader() as service:
        lineage = at.lineage(service)
        # The umpire may name a battle by his id: shown as the player knows it.
        report = service.battle_report(
            lineage, service.battle_known_as(lineage, battle_id, viewer), viewer
        )
    if replay is not None:
        try:
            Path(replay).write_text(render.battle_replay_html(report), encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(f"cannot write {replay}: {exc.strerror}") from None
    if json:
        _print_json(report)
    else:
        out.print(render.battle_report_view(report, turns=turns))
        if replay is not None:
            out.print(f"Replay written to {replay}.", markup=False)


@battle_campaign_app.command("resolve")
@user_errors
@campaign_command
def battle_resolve(
    battle_id: Annotated[
        str | None, typer.Argument(help="The battle (default: every one waiting, in order).")
    ] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Fight waiting battles with the Full Thrust engine; each side plays its campaign order."""
    with at.service() as service:
        recorded = service.resolve_battles(at.lineage(service), battle_id, _ask_die)
        coming = service.turn_status(at.lineage(service))
    _show_written(recorded, events, "Battles fought by the engine")
    out.print(render.next_steps(coming))


@battle_campaign_app.command("record")
@user_errors
@campaign_command
def battle_record(
    battle_id: Annotated[
        str, typer.Argument(help="The battle, e.g. t3-b1 (`umpire battles list`).")
    ],
    destroyed: Annotated[str | None, typer.Option(help="Ships destroyed: red-W3,blue-W1.")] = None,
    disengaged: Annotated[
        str | None, typer.Option(help="Ships that left the table and did not return.")
    ] = None,
    jumped: Annotated[
        list[str] | None,
        typer.Option(
            help="A ship that jumped out, and where it came out: blue-W2=0507. A ship leaving "
            "the hex (a pursuit) may be given alone, blue-W2: it jumped on to its destination."
        ),
    ] = None,
    damage: Annotated[
        list[str] | None, typer.Option(help="Hull boxes a surviving ship lost: red-W1=3.")
    ] = None,
    bridge_failure: Annotated[
        list[str] | None,
        typer.Option(
            help="A threshold check at which a ship's Command Bridge failed, and its level: "
            "red-W1=2, once per failure. The officers aboard roll for casualties."
        ),
    ] = None,
    core: Annotated[
        list[str] | None,
        typer.Option(
            help="Core systems a ship still had out at the end: red-W1=bridge (its whole next "
            "battle), bridge:TURNS, power_core, life_support:TURNS, comma-separated or "
            "repeated; red-W1=none: none. Ships not named keep what they had."
        ),
    ] = None,
    fighters_lost: Annotated[
        list[str] | None,
        typer.Option(
            help="Fighters a surviving carrier lost: red-W1=8. They stay lost until new ones "
            "are bought (004 L197)."
        ),
    ] = None,
    decoys_lost: Annotated[
        list[str] | None,
        typer.Option(
            help="Decoy drones a side lost at the table (identified, or flown off): red=2. "
            "`battles list` shows how many each side deployed; drones not named go back aboard."
        ),
    ] = None,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Record a battle's outcome by hand; ships not named survived undamaged."""
    results = _battle_results(
        destroyed, disengaged, jumped, damage, bridge_failure, core, fighters_lost
    )
    drones = _decoys_lost(decoys_lost)
    with at.service() as service:
        recorded = service.record_battle(
            at.lineage(service), battle_id, results, ask=_ask_die, decoys_lost=drones
        )
        coming = service.turn_status(at.lineage(service))
    _show_written(recorded, events, f"Battle {battle_id} recorded")
    out.print(render.next_steps(coming))


# ---- campaign battle commands (issue 5) end ----


# ---- technology (issue 16) ----
tech_app = typer.Typer(help="The technology tree (004 5.7.6-5.7.7).", no_args_is_help=True)
app.add_typer(tech_app, name="tech")


@tech_app.command("list")
@user_errors
@campaign_command
def tech_list(
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help="Also show what this player owns and what each costs him now "
            "(uses --db/--campaign/--branch).",
        ),
    ] = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Show the technology tree: fields, levels, prices and prerequisites (004 L278-317)."""
    from campaign.techlist import tech_rows

    owned = None
    if player is not None:
        with at.reader() as service:
            owned = service.technologies(at.lineage(service), player)
    rows = tech_rows(owned)
    if json:
        _print_json(rows)
    else:
        out.print(render.tech_table(rows, player))


# ---------------------------------------------------------------- the host (issue 18)

schedule_app = typer.Typer(
    help="The campaign's schedule, by which `umpire host` runs it.", no_args_is_help=True
)
app.add_typer(schedule_app, name="schedule")


@schedule_app.command("set")
@user_errors
@campaign_command
def schedule_set(
    spec: Annotated[
        str,
        typer.Argument(help="Days and a time, 'mon,thu 20:00', or a period, 'every 3d' (s/m/h/d)."),
    ],
    tz: Annotated[str, typer.Option("--tz", help="Time zone of a weekly time (IANA).")] = "UTC",
    grace: Annotated[
        str, typer.Option(help="Resolve early this long after every player is final (10m).")
    ] = "0",
    remind: Annotated[
        str, typer.Option(help="Remind players not final this long before the deadline (1d).")
    ] = "0",
    battles: Annotated[
        str, typer.Option(help="Who fights the battles: engine, or table (the turn waits).")
    ] = "engine",
    holidays: Annotated[
        int, typer.Option(help="Holiday turns each player may take (umpire player holiday).")
    ] = 0,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Set the schedule (everyone is told); `umpire host` sets each deadline from it."""
    from campaign.host import set_schedule
    from campaign.schedule import parse_duration, parse_schedule

    schedule = parse_schedule(
        spec,
        tz=tz,
        grace_seconds=parse_duration(grace, "grace"),
        remind_seconds=parse_duration(remind, "reminder"),
        battles=battles,
        holidays=holidays,
    )
    with at.service() as service:
        recorded = set_schedule(service, at.lineage(service), schedule)
    _show_written(recorded, events, "Schedule set")


@schedule_app.command("show")
@user_errors
@campaign_command
def schedule_show(at: Where = HERE) -> None:
    """Show the campaign's schedule and the turn's deadline."""
    from campaign.schedule import current_schedule, describe

    with at.reader() as service:
        lineage = at.lineage(service)
        schedule = current_schedule(service.store, lineage)
        status = service.turn_status(lineage)
    text = describe(schedule) if schedule else "none: `umpire schedule set` makes one"
    due = f"{status.deadline:%Y-%m-%d %H:%M:%S} UTC" if status.deadline else "none set"
    out.print(f"Schedule: {text}\nTurn {status.turn} deadline: {due}", markup=False)


@player_app.command("contact")
@user_errors
@campaign_command
def player_contact(
    name: Annotated[str, typer.Argument(help="A player of the campaign, or umpire.")],
    email: Annotated[str | None, typer.Option(help="E-mail address for his notifications.")] = None,
    webhook: Annotated[
        str | None, typer.Option(help="Webhook URL (a Discord channel's, say) for them.")
    ] = None,
    at: Where = IN_CAMPAIGN,
) -> None:
    """Set how the host reaches a player (or the umpire); kept out of the log and of every
    other player's view. Neither option given: both are cleared."""
    from campaign.absence import check_seat
    from campaign.outbox import Outbox

    with at.service() as service:
        chosen = service.store.resolve_campaign(at.campaign)
        check_seat(service, service.target(chosen), name)
        Outbox(service.store).set_contact(chosen, name, email, webhook)
    ways = ", ".join(w for w in (email and "e-mail", webhook and "webhook") if w) or "nothing"
    out.print(f"{name} of {chosen} is reached by {ways}.", markup=False)


@player_app.command("policy")
@user_errors
@campaign_command
def player_policy(
    name: PlayerName,
    policy: Annotated[str, typer.Argument(help="hold, repeat or autoplay.")],
    drop_after: Annotated[
        int, typer.Option(help="Missed turns in a row before his seat is open (0: never).")
    ] = 0,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Change what happens when a player sends no orders, from this turn on."""
    from campaign.absence import set_absence_policy

    with at.service() as service:
        recorded = set_absence_policy(service, at.lineage(service), name, policy, drop_after)
    _show_written(recorded, events, "Absence policy set")


@player_app.command("holiday")
@user_errors
@campaign_command
def player_holiday(
    name: PlayerName,
    turns: Annotated[int, typer.Option(help="How many turns, from this one.")] = 1,
    events: EventsOption = False,
    at: Where = HERE,
) -> None:
    """Send a player on holiday: he holds position, is not waited for, misses nothing."""
    from campaign.absence import take_holiday

    with at.service() as service:
        recorded = take_holiday(service, at.lineage(service), name, turns)
    _show_written(recorded, events, "Holiday taken")


@player_app.command("substitute")
@user_errors
@campaign_command
def player_substitute(
    name: PlayerName,
    to: Annotated[str, typer.Option("--to", help="Who plays the seat now (everyone is told).")],
    email: Annotated[str | None, typer.Option(help="The substitute's e-mail address.")] = None,
    webhook: Annotated[str | None, typer.Option(help="The substitute's webhook URL.")] = None,
    at: Where = HERE,
    json: JsonOption = False,
) -> None:
    """Hand a seat to a substitute: a new secret (shown once), the old one revoked, the
    seat's history kept."""
    from campaign.absence import substitute_seat

    with at.service() as service:
        lineage = at.lineage(service)
        _, secret = substitute_seat(service, lineage, name, to, email, webhook)
    _show_secret(lineage.campaign, name, secret, json)


@app.command("host")
@user_errors
def host(
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit (for cron).")] = False,
    poll: Annotated[float, typer.Option(help="Seconds between passes.", min=0.01)] = 30.0,
    smtp_host: Annotated[
        str | None, typer.Option(envvar="UMPIRE_SMTP_HOST", help="SMTP server (none: no e-mail).")
    ] = None,
    smtp_port: Annotated[int, typer.Option(envvar="UMPIRE_SMTP_PORT", help="SMTP port.")] = 587,
    smtp_security: Annotated[
        str,
        typer.Option(envvar="UMPIRE_SMTP_SECURITY", help="none, starttls or tls."),
    ] = "starttls",
    smtp_user: Annotated[
        str | None,
        typer.Option(
            envvar="UMPIRE_SMTP_USER",
            help="SMTP login; its password is read from UMPIRE_SMTP_PASSWORD only.",
        ),
    ] = None,
    sender: Annotated[
        str, typer.Option(envvar="UMPIRE_SMTP_FROM", help="The From: address.")
    ] = "umpire@localhost",
    smtp_cafile: Annotated[
        str | None,
        typer.Option(help="CA bundle to trust for the SMTP server's certificate (self-signed)."),
    ] = None,
    web_url: Annotated[
        str | None, typer.Option(help="The players' web page, linked from notifications.")
    ] = None,
    lease: Annotated[
        float, typer.Option(help="Seconds before a delivery a dead host claimed is retried.")
    ] = 60.0,
    maildir: Annotated[
        str | None,
        typer.Option(help="A Maildir of signed orders files by e-mail; each sender is answered."),
    ] = None,
    imap_host: Annotated[
        str | None,
        typer.Option(
            envvar="UMPIRE_IMAP_HOST",
            help="IMAP server whose unseen mail is spooled into --maildir first.",
        ),
    ] = None,
    imap_port: Annotated[int, typer.Option(help="IMAP port.")] = 993,
    imap_user: Annotated[
        str | None,
        typer.Option(
            envvar="UMPIRE_IMAP_USER",
            help="IMAP login; its password is read from UMPIRE_IMAP_PASSWORD only.",
        ),
    ] = None,
    imap_security: Annotated[str, typer.Option(help="tls, starttls or none.")] = "tls",
    imap_mailbox: Annotated[str, typer.Option(help="The IMAP mailbox to read.")] = "INBOX",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Host every campaign in the database on its schedule: deadlines, resolutions, battles,
    reminders, packages and receipts, until stopped (every act is an event saying why)."""
    import os

    from campaign.host import Host, host_settings

    settings = host_settings(
        os.environ,
        smtp=(smtp_host, smtp_port, smtp_security, smtp_user, smtp_cafile, sender),
        imap=(imap_host, imap_port, imap_security, imap_user, imap_mailbox),
        maildir=maildir,
        web_url=web_url,
        lease=lease,
    )
    with _service(db) as service:
        Host(service, settings).run(poll, passes=1 if once else None)


# ---------------------------------------------------------------- the FT2 campaign (issue 20)


def _new_ft2(
    name: str,
    players: list[str],
    seed: str | None,
    dice: str,
    scenario: str,
    scale: int,
    fleet: list[str],
    absent: str,
    db: str,
    json: bool,
    end_early: bool = False,
) -> None:
    """Create an FT2 campaign (`umpire new --rules ft2`)."""
    from campaign.inputs import read_file
    from campaign.service import plan_ft2_campaign

    common, own = _fleet_files(fleet)
    if common is not None:
        raise InvalidInputError("an ft2 campaign takes each side's forces as --fleet PLAYER=FILE")
    texts = {
        p: read_file(path, "forces file").decode("utf-8", "replace") for p, path in own.items()
    }
    plan = plan_ft2_campaign(name, players, scenario, scale, seed, dice, texts, absent, end_early)
    with _service(db, create=True) as service:
        recorded = service.new_ft2_campaign(plan)
    if json:
        _print_json(recorded)
        return
    out.print(render.log_table(recorded, f"Campaign {name} created (ft2, {scenario})"))


encounters_app = typer.Typer(
    help="The ft2 campaign: fleets, encounters and their battles (001 L1489-1522).",
    no_args_is_help=True,
)
app.add_typer(encounters_app, name="encounters")


@encounters_app.command("fleets")
@user_errors
@campaign_command
def encounters_fleets(
    as_player: PlayerOption = None, at: Where = HERE, json: JsonOption = False
) -> None:
    """List the fleets you know: a player his own (001 L1475), the umpire every one."""
    from campaign.ft2 import service as ft2
    from campaign.inputs import viewer_of

    with at.reader() as service:
        found = ft2.fleets(service, at.lineage(service), viewer_of(as_player))
    if json:
        _print_json(found)
        return
    for fleet in found:
        ships = ", ".join(f"{s.id} {s.design}" for s in fleet.ships)
        out.print(f"{fleet.id} ({fleet.owner}) at {fleet.hex}: {ships}", markup=False)


@encounters_app.command("list")
@user_errors
@campaign_command
def encounters_list(
    as_player: PlayerOption = None, at: Where = HERE, json: JsonOption = False
) -> None:
    """List the encounters awaiting decisions, with the long-range scans, and the battles
    awaiting an outcome."""
    from campaign.ft2 import service as ft2
    from campaign.inputs import viewer_of

    viewer = viewer_of(as_player)
    with at.reader() as service:
        found = ft2.encounters(service, at.lineage(service), viewer)
        battles = ft2.battles_waiting(service, at.lineage(service), viewer)
    if json:
        _print_json({"encounters": found, "battles": battles})
        return
    for enc in found:
        out.print(
            f"{enc.id} at {enc.system} ({enc.hex}), {' against '.join(enc.players)}", markup=False
        )
        for scanner, contacts in enc.scans.items():
            seen = ", ".join(f"{c.count} {c.hull_class}" for c in contacts) or "nothing"
            out.print(f"  {scanner}'s long-range scan: {seen}", markup=False)
        for player, decision in sorted(enc.decided.items()):
            out.print(f"  {player} decided: {decision}", markup=False)
    for battle in battles:
        out.print(f"battle {battle} awaits an outcome", markup=False)


@encounters_app.command("decide")
@user_errors
@campaign_command
def encounters_decide(
    encounter: Annotated[str, typer.Argument(help="The encounter: turn and hex, e.g. E2-0909.")],
    decision: Annotated[str, typer.Argument(help="fight, withdraw or stand-off (001 L1512-1520).")],
    player: Annotated[str, typer.Option("--player", "-p", help="The player deciding.")],
    secret: SecretOption = None,
    at: Where = HERE,
) -> None:
    """Write down a secret decision; everyone sees only its commitment until all are
    revealed together by `umpire turn resolve`.

    A player who holds a secret (`umpire player add`) must give it, as for his orders; the
    umpire decides for him only by `umpire ruling orders` (a `[[decisions]]` file).
    """
    from campaign.ft2 import service as ft2

    with at.service() as service:
        lineage = at.lineage(service)
        _require_secret(service, lineage.campaign, player, secret)
        ft2.decide(service, lineage, player, encounter, decision)
    out.print(f"{player}'s decision for {encounter} written down (sealed).", markup=False)


@encounters_app.command("fight")
@user_errors
@campaign_command
def encounters_fight(
    battle_id: Annotated[str, typer.Argument(help="The battle: turn and hex, e.g. B2-0909.")],
    at: Where = HERE,
) -> None:
    """Fight a waiting battle with the engine (FT2 preset; each side's decision its order)."""
    from campaign.ft2 import service as ft2

    with at.service() as service:
        recorded = ft2.fight(service, at.lineage(service), battle_id, _ask_die)
    _show_written(recorded, False, f"Battle {battle_id} fought by the engine")


@encounters_app.command("record")
@user_errors
@campaign_command
def encounters_record(
    battle_id: Annotated[str, typer.Argument(help="The battle: turn and hex, e.g. B2-0909.")],
    ship: Annotated[
        list[str] | None,
        typer.Option(
            help="A ship's result: SHIP=FATE or SHIP=FATE:DAMAGE, FATE one of present, "
            "disengaged, jumped, destroyed, disabled (repeat; ships not named are unharmed)."
        ),
    ] = None,
    disengage: Annotated[
        str | None,
        typer.Option(
            help="The side whose ships all left the table: it rolls to disengage (001 "
            "L1204-1216); failing, nothing else is recorded and the stern chase goes on."
        ),
    ] = None,
    at: Where = HERE,
) -> None:
    """Record a battle fought on a real table (disengagement: 001 L1204-1216)."""
    from campaign.ft2 import service as ft2

    with at.service() as service:
        recorded = ft2.record(
            service, at.lineage(service), battle_id, ship or [], disengage, _ask_die
        )
    _show_written(recorded, False, f"Battle {battle_id} recorded")
    if len(recorded) == 1 and disengage is not None:
        out.print(f"{disengage} was caught: the stern chase goes on (001 L1214).", markup=False)


@encounters_app.command("result")
@user_errors
@campaign_command
def encounters_result(at: Where = HERE, json: JsonOption = False) -> None:
    """Show the scenario's result once judged (001 L1556-1558)."""
    from campaign.ft2 import service as ft2

    with at.reader() as service:
        result, held = ft2.result(service, at.lineage(service))
    if json:
        _print_json({"result": result, "held": held})
        return
    if result is None:
        out.print("not judged yet: the scenario's last turn has not ended", markup=False)
    else:
        out.print(f"result: {result}; systems held: {', '.join(held) or 'none'}", markup=False)


def _one_line_paragraphs(text: str) -> str:
    """A docstring with each paragraph on one line: typer's help prints the source's line
    breaks as they are, cutting its sentences at the docstring's margin."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def _reflow_help(commands: typer.Typer) -> None:
    """Give every command of ``commands`` (and of its groups) its docstring reflowed."""
    for info in commands.registered_commands:
        text = info.help or (info.callback.__doc__ if info.callback else None)
        if text:
            info.help = _one_line_paragraphs(text)
    for group in commands.registered_groups:
        if group.typer_instance is not None:
            _reflow_help(group.typer_instance)


_reflow_help(app)


def main() -> None:
    """Run the `umpire` command line."""
    app_for(sys.argv[1:])()


def app_for(argv: list[str]) -> typer.Typer:
    """The app with only the command `argv` names, or the whole app when it names none.

    Typer builds every command's parameters before it parses anything (some seventy of
    them); a command needs only its own (issue 19). The root's options (`--version`, the
    completion ones), a shell's completion, help and a misspelt name get the whole app.
    """
    if not argv or argv[0].startswith("-") or any(k.endswith("_COMPLETE") for k in os.environ):
        return app
    name = argv[0]
    commands = [
        c
        for c in app.registered_commands
        if (c.name or typer.main.get_command_name(getattr(c.callback, "__name__", ""))) == name
    ]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    narrowed = copy.copy(app)
    narrowed.registered_commands = commands
    narrowed.registered_groups = groups
    return narrowed


if __name__ == "__main__":
    main()
