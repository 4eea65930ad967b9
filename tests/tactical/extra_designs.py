"""Design files a test adds to the built-in catalogue, for weapons no built-in design carries."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

import tactical.designs
import tactical.setup as battle_module
from tactical.ship import Design


def design_of(designs: Mapping[str, str], name: str) -> Design:
    """Decode one of a test's design files (TOML text by design id)."""
    return tactical.designs.decode_design(designs[name], f"test/{name}.toml")


def install(monkeypatch: pytest.MonkeyPatch, designs: Mapping[str, str]) -> None:
    """Let battles load ``designs`` by id as if they were built in."""
    real = tactical.designs.load_builtin

    def load(name: str, rules: str | None = None) -> Design:
        if name in designs:
            return design_of(designs, name)
        return real(name, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(battle_module, "load_builtin", load)
