"""Issue 19: `umpire COMMAND` builds only that command's parameters, and answers the same.

`cli.app_for` hands typer an app holding only the command the arguments name; anything else
(no command, a root option, a misspelt name, shell completion) gets the whole app.
"""

from __future__ import annotations

import pytest
from typer.main import get_command_name
from typer.testing import CliRunner

from cli import app, app_for

NAMES = sorted(
    [c.name or get_command_name(c.callback.__name__) for c in app.registered_commands]  # type: ignore[union-attr]
    + [g.name for g in app.registered_groups if g.name]
)


def test_every_command_and_group_is_narrowed_to_itself() -> None:
    assert len(NAMES) == len(set(NAMES)) > 20
    for name in NAMES:
        narrowed = app_for([name, "--help"])
        assert narrowed is not app
        held = [c.callback for c in narrowed.registered_commands]
        held += [g.typer_instance for g in narrowed.registered_groups]
        assert len(held) == 1, name
    assert len(app.registered_commands) > 10  # the whole app is untouched
    assert len(app.registered_groups) > 5


@pytest.mark.parametrize("argv", [[], ["--version"], ["statuz"], ["--help"]])
def test_anything_else_gets_the_whole_app(argv: list[str]) -> None:
    assert app_for(argv) is app


def test_completion_gets_the_whole_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_UMPIRE_COMPLETE", "complete_bash")
    assert app_for(["status"]) is app


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "--help"],
        ["orders", "template", "--help"],
        ["branches", "--help"],
        ["report", "--format", "pdf", "--player", "red"],
        ["log", "--limit", "0"],
        ["turn", "nothing"],
    ],
)
def test_a_narrowed_app_answers_as_the_whole_app(argv: list[str]) -> None:
    runner = CliRunner()
    whole = runner.invoke(app, argv, prog_name="umpire")
    narrowed = runner.invoke(app_for(argv), argv, prog_name="umpire")
    assert (narrowed.exit_code, narrowed.output) == (whole.exit_code, whole.output)
