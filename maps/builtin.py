"""Built-in maps shipped as data files in ``maps/data/``, and resolving ``--map NAME|FILE``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from maps import mapfile
from maps.starmap import MapError, StarMap

__all__ = ["BUILTIN_MAPS", "load_builtin", "resolve"]

# classic: a 4-player Stellar Conquest-sized map with 54 star hexes (issue 3).
# lafayette: the nine-system sector of the Lafayette Incident (001 L1538-1614), designed layout.
BUILTIN_MAPS: tuple[str, ...] = ("classic", "lafayette")


def load_builtin(name: str) -> StarMap:
    """Return a built-in map by name.

    Raises:
        MapError: if there is no built-in map of that name.
    """
    if name not in BUILTIN_MAPS:
        raise MapError([f"no built-in map {name!r} (built-in maps: {', '.join(BUILTIN_MAPS)})"])
    text = resources.files("maps").joinpath("data", f"{name}.toml").read_text(encoding="utf-8")
    return mapfile.loads(text, source=f"built-in map {name}")


def resolve(spec: str) -> StarMap:
    """Return the map named by ``--map``: a built-in name, else a TOML file path.

    Raises:
        MapError: if ``spec`` is neither a built-in map nor a readable, valid map file.
    """
    if spec in BUILTIN_MAPS:
        return load_builtin(spec)
    path = Path(spec)
    if not path.exists():
        raise MapError(
            [
                f"no built-in map or file {spec!r} (built-in maps: {', '.join(BUILTIN_MAPS)}; "
                "a file path must exist)"
            ]
        )
    return mapfile.load(path)
