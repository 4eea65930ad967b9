"""Hypothesis strategies for designs."""

from __future__ import annotations

from hypothesis import strategies as st

from tactical.points import FT2_SYSTEMS, PC_SYSTEMS
from tactical.ship import CONTINUUM_ARCS, FT2_ARCS, Design, Mount

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)


def mounts(kinds: list[str], arcs: tuple[str, ...]) -> st.SearchStrategy[Mount]:
    """Mounts of any listed kind, with any arcs: legal or not, they must round-trip."""
    return st.builds(
        Mount,
        kind=st.sampled_from(kinds),
        count=st.integers(1, 6),
        arcs=st.lists(st.sampled_from(arcs), unique=True, max_size=len(arcs)).map(tuple),
        loads=st.none() | st.integers(1, 9),
        fighters=st.none() | st.sampled_from(["standard", "attack"]),
        label=st.none() | text,
    )


def designs() -> st.SearchStrategy[Design]:
    """Designs under either rules, legal or not."""
    ft2 = st.builds(
        Design,
        name=text,
        rules=st.just("ft2"),
        mass=st.integers(1, 300),
        thrust=st.integers(0, 10),
        hull=st.sampled_from(
            [
                "warship",
                "merchant",
                "q_ship",
                "tug",
                "military_installation",
                "civilian_installation",
            ]
        ),
        ftl=st.booleans(),
        screens=st.integers(0, 4),
        fire_controls=st.none() | st.integers(0, 5),
        hull_rows=st.none() | st.integers(1, 6),
        systems=st.lists(mounts(sorted(FT2_SYSTEMS), FT2_ARCS), max_size=6).map(tuple),
        provenance=text,
        ortillery=st.booleans(),
        notes=text,
    )
    continuum = st.builds(
        Design,
        name=text,
        rules=st.just("continuum"),
        mass=st.integers(1, 300),
        thrust=st.integers(0, 10),
        hull=st.sampled_from(["warship", "merchant"]),
        ftl=st.booleans(),
        screens=st.integers(0, 3),
        fire_controls=st.none() | st.integers(0, 5),
        hull_rows=st.none() | st.integers(3, 6),
        hull_boxes=st.none() | st.integers(1, 100),
        hull_strength=st.none()
        | st.sampled_from(["fragile", "weak", "average", "strong", "super"]),
        armour=st.integers(0, 20),
        advanced_drive=st.booleans(),
        advanced_ftl=st.booleans(),
        systems=st.lists(mounts(sorted(PC_SYSTEMS), CONTINUUM_ARCS), max_size=6).map(tuple),
        provenance=text,
        ortillery=st.booleans(),
    )
    return ft2 | continuum
