"""The umpire's rulings: a unit relocated or split, a colony adjusted, a home-made design
registered, dice of the turn's next step rolled again. Each ruling tells whom it concerns
why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

import msgspec

from campaign.dice import DiceKey
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import (
    UMPIRE,
    Audience,
    ColonyAdjusted,
    DiceRerollRuled,
    Event,
    NewEvent,
    RecordedEvent,
    UnitRelocated,
    UnitsSplit,
    rolls_of,
)
from campaign.inputs import printable, read_text
from campaign.projections import CampaignState, evolve_all
from campaign.rules import core
from campaign.rules import designs as design_rules
from campaign.rules import regroup as regroup_rules
from campaign.service.base import _reason, battle_order
from campaign.service.fighting import _fight
from campaign.service.turns import TurnCommands
from campaign.storetypes import Lineage
from campaign.strategic import Move, RegisteredDesign
from maps import parse_label


class RulingCommands(TurnCommands):
    """Rule on units, colonies, designs and dice; list the registered designs."""

    def relocate_unit(
        self, lineage: Lineage, unit_id: str, hex_label: str | None, reason: str
    ) -> list[RecordedEvent]:
        """By ruling, put a unit in another hex (or back at the entry); its owner is told why."""
        state = self.load(lineage)
        unit = state.units.get(unit_id)
        if unit is None:
            raise InvalidInputError(f"no unit {unit_id!r} in this campaign")
        if hex_label is not None:
            try:
                on_map = self.starmap(lineage).contains(parse_label(hex_label))
            except ValueError:
                on_map = False
            if not on_map:
                raise InvalidInputError(f"hex {hex_label!r} is not on the map")
        event = UnitRelocated(unit=unit_id, hex=hex_label, reason=_reason(reason))
        return self._ruling(lineage, state.version, event, unit.owner, state.turn)

    def register_design(
        self, lineage: Lineage, player: str, path: str, design_id: str | None = None
    ) -> list[RecordedEvent]:
        """Register `player`'s home-made design file (004 L26-30), checked completely by the
        design rules; `design_id` defaults to the file's name without `.toml`.

        Raises:
            InvalidInputError: the file cannot be read, or the design is not sound (every
                problem named), or the id is taken.
        """
        text = read_text(path, "design file")
        state = self.load(lineage)
        core.require_running(state)
        name = design_id if design_id is not None else PurePath(path).name.removesuffix(".toml")
        batch = design_rules.decide_register(state, player, name, text, printable(path))
        batch = [msgspec.structs.replace(new, actor=UMPIRE) for new in batch]
        return self.store.append(lineage, state.version, batch)

    def designs(self, lineage: Lineage, viewer: str = UMPIRE) -> tuple[RegisteredDesign, ...]:
        """Return the home-made designs `viewer` may see: the umpire all, a player his own and
        the public ones (his view holds no other)."""
        self._check_viewer(lineage, viewer)
        state = self.load(lineage, viewer=viewer)
        return tuple(state.designs[d] for d in sorted(state.designs))

    def split_unit(
        self, lineage: Lineage, unit_id: str, count: int, reason: str
    ) -> list[RecordedEvent]:
        """By ruling, split `count` transports or scouts off a unit as a new unit (004 L67);
        its owner is told why. The new unit takes the next free number of its kind."""
        state = self.load(lineage)
        unit = state.units.get(unit_id)
        if unit is None:
            raise InvalidInputError(f"no unit {unit_id!r} in this campaign")
        regroup = regroup_rules.plan_regroup(state, unit.owner, (Move(unit=unit_id, count=count),))
        if regroup.problems:
            raise InvalidInputError("; ".join(regroup.problems))
        event = UnitsSplit(player=unit.owner, parts=regroup.splits, reason=_reason(reason))
        return self._ruling(lineage, state.version, event, unit.owner, state.turn)

    def adjust_colony(
        self,
        lineage: Lineage,
        colony_id: str,
        reason: str,
        population: int | None = None,
        factories: int | None = None,
        pdus: int | None = None,
    ) -> list[RecordedEvent]:
        """By ruling, set a colony's population or buildings; its owner is told why."""
        state = self.load(lineage)
        colony = state.colonies.get(colony_id)
        if colony is None:
            raise InvalidInputError(f"no colony {colony_id!r} in this campaign")
        changes = {
            k: v
            for k, v in (("population", population), ("factories", factories), ("pdus", pdus))
            if v is not None
        }
        if not changes:
            raise InvalidInputError("say what to set: --population, --factories or --pdus")
        if any(v < 0 for v in changes.values()):
            raise InvalidInputError("a colony cannot hold fewer than none")
        if changes.get("population", 0) > colony.capacity:
            raise InvalidInputError(
                f"{colony_id} holds at most {colony.capacity} million (its planet's capacity)"
            )
        adjusted = msgspec.structs.replace(colony, **changes)
        event = ColonyAdjusted(colony=adjusted, reason=_reason(reason))
        return self._ruling(lineage, state.version, event, colony.owner, state.turn)

    def reroll_dice(
        self, lineage: Lineage, keys: Sequence[str], reason: str
    ) -> list[RecordedEvent]:
        """By ruling, have dice of the turn in progress rolled again (issue 6).

        Each die must be one the turn's next step rolls (`umpire turn resolve --dry-run --dice`
        lists them; while battles wait, the step is fighting them with the engine) and not one
        rolled already this turn. That step rolls it at its next generation. The ruling is
        addressed to whoever will read the die in his news: one event per audience, in one
        batch.

        Raises:
            InvalidInputError: no reason or no dice; a malformed key; a die of another turn,
                named twice, or not at its latest generation.
            IllegalCommandError: physical dice; a die rolled already this turn, or one the next
                step does not roll.
        """
        why = _reason(reason)
        state = self.load(lineage)
        core.require_running(state)
        if state.dice_mode == "manual":
            raise IllegalCommandError(
                "this campaign rolls physical dice: a re-roll is rolled at the table "
                "(record why with `umpire note`)"
            )
        if not keys:
            raise InvalidInputError("name the dice to roll again by their keys")
        generations = self._rerolls(lineage, state)
        wanted: list[DiceKey] = []
        for text in keys:
            key = DiceKey.parse(text.strip())
            if key.turn != state.turn:
                raise InvalidInputError(
                    f"die {text} is of turn {key.turn}, not of the turn in progress "
                    f"({state.turn}): to roll it again, rewind to before it was rolled"
                )
            current = generations.get(str(key.first), 1)
            if key.generation not in (1, current):
                latest = msgspec.structs.replace(key, generation=current)
                raise InvalidInputError(f"die {text} is not the die's latest roll ({latest})")
            if key.first in wanted:
                raise InvalidInputError(f"die {key.first} is named twice")
            wanted.append(key.first)
        rolled: dict[str, int] = {}
        for recorded in self.store.read(lineage, turn=state.turn, upto_version=state.version):
            for roll in rolls_of(recorded.event):
                rolled.setdefault(roll.key.partition("#")[0], recorded.position)
        for key in wanted:
            if str(key) in rolled:
                raise IllegalCommandError(
                    f"die {key} was rolled already this turn (position {rolled[str(key)]}): "
                    "to roll it again, rewind to before it was rolled (`umpire rewind "
                    "--to-version`) and rule there"
                )
        seen: dict[str, Audience] = {}  # each die the next step rolls: who reads it
        for new in self._next_step(lineage, state):
            for roll in rolls_of(new.event):
                seen.setdefault(roll.key, new.audience)
        by_audience: dict[Audience, list[str]] = {}
        for key in wanted:
            current = generations.get(str(key), 1)
            audience = seen.get(str(msgspec.structs.replace(key, generation=current)))
            if audience is None:
                raise IllegalCommandError(
                    f"the turn's next step does not roll die {key} "
                    "(`umpire turn resolve --dry-run --dice` lists the dice it rolls)"
                )
            again = msgspec.structs.replace(key, generation=current + 1)
            by_audience.setdefault(audience, []).append(str(again))
        batch = [
            NewEvent(
                DiceRerollRuled(turn=state.turn, keys=tuple(ruled), reason=why),
                audience,
                state.turn,
                actor=UMPIRE,
            )
            for audience, ruled in by_audience.items()
        ]
        return self.store.append(lineage, state.version, batch)

    def unrolled_rerolls(
        self, lineage: Lineage, turn_number: int, preview: Sequence[RecordedEvent] = ()
    ) -> tuple[str, ...]:
        """Return the dice ruled rolled again in a turn that none of its events rolled (yet).

        `preview` adds the events of a dry run, which are stored nowhere. A die ruled rolled
        again twice counts at its latest generation only.
        """
        latest: dict[str, str] = {}
        rolled: set[str] = set()
        for recorded in [*self.store.read(lineage, turn=turn_number), *preview]:
            if isinstance(recorded.event, DiceRerollRuled):
                for text in recorded.event.keys:
                    latest[str(DiceKey.parse(text).first)] = text
            rolled.update(roll.key for roll in rolls_of(recorded.event))
        return tuple(key for key in latest.values() if key not in rolled)

    def _next_step(self, lineage: Lineage, state: CampaignState) -> list[NewEvent]:
        """Decide the turn's next step from the same dice, and store nothing.

        While battles wait, the step fights them with the engine, in order, as
        `resolve_battles` does; otherwise it is the turn's resolution, as its dry run shows.
        A held turn is decided as if released: a ruling may come while it waits.
        """
        starmap = self.starmap(lineage)
        dice = self._dice(lineage, state, None, None)
        if not state.pending_battles:
            released = msgspec.structs.replace(state, held=None)
            return self._turn_batch(lineage, released, starmap, dice)
        batch: list[NewEvent] = []
        for bid in sorted(state.pending_battles, key=battle_order):
            step = _fight(state, starmap, bid, dice)
            batch += step
            state = evolve_all(state, (new.event for new in step))
        return batch

    def _ruling(
        self, lineage: Lineage, version: int, event: Event, player: str, turn_number: int
    ) -> list[RecordedEvent]:
        new = NewEvent(event, Audience.players_([player]), turn_number, actor=UMPIRE)
        return self.store.append(lineage, version, [new])
