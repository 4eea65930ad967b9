"""Home-made ship designs (004 L26-30, L37): registered by the umpire, checked completely.

A player may field ships "entirely home made" (004 L29), "designed in accordance with the Design
rules in Fleet Book 1 and Fleet Book 2" (004 L37), "internally consistent", with "Fleet Book 2
alien systems ... not used with Human systems" (004 L30), and never a reflex shield, cloaking
field or wave gun (004 L51-54). The umpire registers each design file (`DesignRegistered`);
its owner's production may then buy it at the campaign's 63 points per IP (004 L23, `rules.
production`). A design is shown to every player or to its owner alone, by the campaign's
`designs` setting: a secret design is in no other player's view.
"""

from __future__ import annotations

import re

import msgspec

from campaign.errors import InvalidInputError
from campaign.events import Audience, DesignRegistered, NewEvent
from campaign.projections import CampaignState
from tactical.designs import DesignFileError, builtin_ids, decode_design, format_design
from tactical.points import price
from tactical.ship import PRESETS, Design

# A registered design's id: what production orders and `umpire ship list` call it.
_DESIGN_ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# 004 L51-54: "Systems that will not be used: Reflex Shield, Cloaking Field, Wave Gun" (000
# 7.25, 7.21-7.22, 7.24); the design kinds a file would name them by.
BANNED_KINDS = {
    "reflex_shield": "the reflex shield",
    "reflex_field": "the reflex shield",
    "cloaking_field": "the cloaking field",
    "cloak": "the cloaking field",
    "tuffley_cloak": "the cloaking field",
    "wave_gun": "the wave gun",
}
BANNED_RULE = "banned by the campaign rules (004 L51-54)"
# Fleet Book 2's alien systems (project-continuum-index, "FB2 alien systems only in alien
# fleets"): Kra'Vak K-guns (000 5.16), multiple kinetic penetrators (5.17) and scatterguns
# (7.14), Phalon pulsers (5.21) and plasma bolt launchers (6.8). A kind starting so is alien.
ALIEN_PREFIXES = ("kgun", "k_gun", "mkp", "scattergun", "pulser", "plasma_bolt", "pbl")
# Systems every hull has, of no race: not "Human systems" in 004 L30's sense.
_NEUTRAL_KINDS = frozenset({"dcp", "marines", "cargo", "magazine", "magazine_er", "magazine_ms"})


def is_alien(kind: str) -> bool:
    """Return whether a system kind is one of Fleet Book 2's alien systems."""
    return kind.startswith(ALIEN_PREFIXES)


def design_problems(design: Design, rules: str) -> list[str]:
    """Return every problem of a home-made design in a campaign fought under `rules`: each
    names its field and why, the design rules' problems among them; [] when it may be built."""
    problems = []
    if design.rules != rules:
        problems.append(
            f"$.rules: the campaign's ships are built to {rules}, not {design.rules} "
            "(004 L37: the Fleet Book design rules)"
        )
    for index, mount in enumerate(design.systems):
        if mount.kind in BANNED_KINDS:
            problems.append(
                f"$.systems[{index}].kind: {BANNED_KINDS[mount.kind]} ({mount.kind!r}) is "
                f"{BANNED_RULE}"
            )
    kinds = [m.kind for m in design.systems if m.kind not in BANNED_KINDS]
    alien = sorted({k for k in kinds if is_alien(k)})
    human = sorted({k for k in kinds if not is_alien(k) and k not in _NEUTRAL_KINDS})
    if alien and human:
        problems.append(
            f"$.systems: Fleet Book 2 alien systems ({', '.join(alien)}) may not be used with "
            f"human systems ({', '.join(human)}) (004 L30)"
        )
    if design.rules == rules:  # the design rules' own problems, the banned systems left out
        allowed = tuple(m for m in design.systems if m.kind not in BANNED_KINDS)
        checked = msgspec.structs.replace(design, systems=allowed)
        problems.extend(str(p) for p in price(checked, PRESETS[rules]).problems)
    return problems


def decide_register(
    state: CampaignState, player: str, design_id: str, text: str, source: str
) -> list[NewEvent]:
    """Register `player`'s home-made design `text` (from `source`) as `design_id`.

    Raises:
        InvalidInputError: no such player, a bad or taken id, or the design is not sound
            (every problem named, one message).
    """
    if player not in state.players:
        raise InvalidInputError(
            f"{player!r} is not a player of this campaign (players: {', '.join(state.players)})"
        )
    if not _DESIGN_ID.match(design_id):
        raise InvalidInputError(
            f"design id {design_id!r} must be 1-40 lower-case letters, digits or '_', "
            "starting with a letter (rename the file or give --id)"
        )
    if design_id in state.designs or any(design_id == d for _, d in builtin_ids()):
        raise InvalidInputError(
            f"design id {design_id!r} is taken (a catalogue or registered design: "
            "`umpire ship list`); give another with --id"
        )
    try:
        design = decode_design(text, source)
    except DesignFileError as exc:
        raise InvalidInputError(str(exc)) from None
    problems = design_problems(design, state.battle_rules)
    if problems:
        raise InvalidInputError(f"{source}: " + "; ".join(problems))
    public = state.design_visibility == "public"
    registered = DesignRegistered(
        player=player,
        design=design_id,
        text=format_design(design),
        rules=state.battle_rules,
        points=price(design, PRESETS[state.battle_rules]).points,
        public=public,
    )
    audience = Audience.everyone() if public else Audience.players_([player])
    return [NewEvent(registered, audience, state.turn)]
