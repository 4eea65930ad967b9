"""Battles: those awaiting an outcome, fought with the tactical engine or recorded by hand,
and those fought, replayed as a viewer saw them. The engine is imported only where a battle
is fought or replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from campaign.battlenames import BattleNames, internal_turn
from campaign.battletold import battle_names
from campaign.dice import DiceSource
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import UMPIRE, BattleFought, NewEvent, RecordedEvent, StarChartPublished
from campaign.ft2 import service as ft2
from campaign.ft2.events import Ft2BattleFought
from campaign.inputs import printable
from campaign.news import place_name
from campaign.projections import CampaignState, fold
from campaign.rules import battles, combat, decoys
from campaign.service.base import AskDie, ServiceCore, _chart_names, battle_order
from campaign.storetypes import Lineage
from campaign.strategic import Battle, ShipResult
from maps import StarMap


class _FoughtBattles:
    """The battles a viewer fought, each with its id as he knows it
    (`campaign.battlenames`), the events' own ids left internal until one is `told`: naming
    an event renames its whole journal, and a battle report needs one battle of them all."""

    def __init__(self, battles: list[tuple[str, BattleFought]], names: BattleNames | None):
        self.battles = battles
        self._names = names

    def told(self, fought: BattleFought) -> BattleFought:
        """The battle's event as the viewer reads it, his battles named."""
        if self._names is None:
            return fought
        told = self._names.told(fought)
        assert isinstance(told, BattleFought)
        return told


if TYPE_CHECKING:  # the battle reports replay the engine's journals: imported when asked
    from campaign.battlereport import BattleReport


def _fight(
    state: CampaignState, starmap: StarMap, battle_id: str, dice: DiceSource
) -> list[NewEvent]:
    """Fight a waiting battle with the Full Thrust engine and decide its result's events,
    the decoy drones lost among them."""
    battle = state.pending_battles[battle_id]
    fought = battles.fight(state, starmap, battle, dice)
    batch = combat.decide_battle_result(
        state,
        starmap,
        battle_id,
        fought.results,
        source="engine",
        journal=fought.journal,
        rolls=fought.rolls,
        dice=dice,
        knowledge=fought.knowledge,
    )
    if fought.decoys_kept is not None:  # the drones of the ships at its table (004 5.3.6)
        at_table = battles.as_fought(state, battle)
        batch += decoys.decide_decoys_lost(state, at_table, fought.results, fought.decoys_kept)
    return batch


class BattleCommands(ServiceCore):
    """List, fight, record and report the campaign's battles."""

    def battles(self, lineage: Lineage, viewer: str = UMPIRE) -> list[Battle]:
        """Return the battles awaiting an outcome (a player sees only his own, as they were
        announced to him). The umpire sees each as it stands (`rules.battles.as_fought`): the
        ships an earlier battle of the turn left at its table (004 5.3.6), the ones an
        outcome may name.

        Raises:
            IllegalCommandError: an FT2 campaign, whose battles await in its encounters.
        """
        self._check_viewer(lineage, viewer)
        state = self.load(lineage, viewer=viewer)
        if state.ft2 is not None:
            raise IllegalCommandError(
                "this campaign plays FT2's campaign rules: `umpire encounters list` lists its "
                "battles awaiting an outcome, `umpire battles show ID` one fought"
            )
        waiting = [state.pending_battles[k] for k in sorted(state.pending_battles)]
        if viewer == UMPIRE:
            return [battles.as_fought(state, battle) for battle in waiting]
        return waiting

    def battle_decoys(self, lineage: Lineage, viewer: str = UMPIRE) -> dict[str, dict[str, int]]:
        """Return, by battle awaiting an outcome, the decoy drones each side carries into it
        (`rules.decoys`): to the umpire every side's, of the ships at its table as it stands
        (`battles`), to a player only his own."""
        self._check_viewer(lineage, viewer)
        state = self.load(lineage, viewer=viewer)
        at_table = battles.as_fought if viewer == UMPIRE else (lambda _state, b: b)
        return {
            bid: {
                side.player: len(decoys.carriers(state, side.units))
                for side in at_table(state, battle).sides
                if viewer in (UMPIRE, side.player)
            }
            for bid, battle in sorted(state.pending_battles.items())
        }

    def record_battle(
        self,
        lineage: Lineage,
        battle_id: str,
        results: tuple[ShipResult, ...],
        ask: AskDie | None = None,
        decoys_lost: Mapping[str, int] | None = None,
    ) -> list[RecordedEvent]:
        """Record a battle's outcome by hand (a battle fought on a real table), with the decoy
        drones each side lost there (`rules.decoys`)."""
        state = self._decisive_state(lineage)
        ft2.refuse_in_ft2(state, "umpire battles record")
        drones = []
        if decoys_lost and battle_id in state.pending_battles:
            # The drones of the ships still at its table (004 5.3.6).
            battle = battles.as_fought(state, state.pending_battles[battle_id])
            drones = decoys.decide_decoys_recorded(state, battle, decoys_lost)
        dice = self._dice(lineage, state, None, ask)
        batch = combat.decide_battle_result(
            state, self.starmap(lineage), battle_id, results, source="umpire", dice=dice
        )
        return self.store.append(lineage, state.version, batch + drones)

    def resolve_battles(
        self, lineage: Lineage, battle_id: str | None = None, ask: AskDie | None = None
    ) -> list[RecordedEvent]:
        """Fight one waiting battle (or all of them, in order) with the tactical engine."""
        state = self._decisive_state(lineage)
        ft2.refuse_in_ft2(state, "umpire battles resolve")
        waiting = sorted(state.pending_battles, key=battle_order)
        if battle_id is not None:
            if battle_id not in state.pending_battles:
                known = ", ".join(waiting) or "none"
                raise IllegalCommandError(
                    f"no battle {battle_id!r} awaits an outcome (waiting: {known})"
                )
            waiting = [battle_id]
        if not waiting:
            raise IllegalCommandError("no battles await an outcome")
        starmap = self.starmap(lineage)
        dice = self._dice(lineage, state, None, ask)
        recorded: list[RecordedEvent] = []
        for bid in waiting:
            # Each battle sees the damage the ones before it did (004 5.3.6).
            batch = _fight(state, starmap, bid, dice)
            recorded += self.store.append(lineage, state.version, batch)
            state = fold(recorded[-len(batch) :], state)
        return recorded

    def battle_report(self, lineage: Lineage, battle_id: str, viewer: str = UMPIRE) -> BattleReport:
        """Return a fought battle as `viewer` saw it (the umpire: as it was).

        A player may see only a battle his ships fought: any other id, whether a battle of
        others or none at all, gets the same refusal, naming his own battles.
        """
        from campaign.battlereport import battle_report  # the engine's replay

        self._check_viewer(lineage, viewer)
        fought = self._battles_fought(lineage, viewer)
        found = [ev for told_id, ev in fought.battles if told_id == battle_id]
        if not found:
            view = self.load(lineage, viewer=viewer)
            waiting = view.ft2.battles if view.ft2 is not None else view.pending_battles
            if battle_id in waiting:
                raise IllegalCommandError(
                    f"battle {battle_id} has not been fought yet: "
                    + (
                        "`umpire encounters list` shows it waiting (`umpire encounters fight` "
                        "or `encounters record` gives its outcome)"
                        if view.ft2 is not None
                        else "`umpire battles list` shows it waiting (`umpire battles resolve` "
                        "or `battles record` gives its outcome)"
                    )
                )
            ids = ", ".join(told_id for told_id, _ in fought.battles) or "none yet"
            whose = "fought in this campaign" if viewer == UMPIRE else f"{viewer} fought in"
            raise InvalidInputError(
                f"no battle {printable(battle_id)!r} among the battles {whose} ({ids})"
            )
        told = fought.told(found[-1])
        names = self._star_names(lineage, viewer)
        return battle_report(told, viewer, place_name(told.battle.hex, names, told.battle.system))

    def battle_known_as(self, lineage: Lineage, battle_id: str, player: str) -> str:
        """The umpire's id of a battle (`t3-b1`) as `player` knows it (`t3-0503`), for the
        umpire's commands that show a battle as a player saw it; any other id as it is, so a
        battle he did not fight is refused like a made-up one. Never for a player's own input:
        he gives only the names he knows."""
        self._check_viewer(lineage, player)
        if player == UMPIRE or internal_turn(battle_id) is None:
            return battle_id
        return battle_names(self.store, lineage, player).name(battle_id) or battle_id

    def fought_battles(self, lineage: Lineage, viewer: str, turn: int | None = None) -> list[str]:
        """Return the ids of the battles `viewer` fought (all, for the umpire), oldest first."""
        self._check_viewer(lineage, viewer)
        return [told_id for told_id, _ in self._battles_fought(lineage, viewer, turn).battles]

    def _battles_fought(
        self, lineage: Lineage, viewer: str, turn: int | None = None
    ) -> _FoughtBattles:
        """The battles `viewer` fought (all, for the umpire), oldest first; an FT2 campaign's
        in the same shape (`campaign.ft2.battle.as_battle_fought`, issue 20)."""
        from campaign.battlereport import participants
        from campaign.ft2.battle import as_battle_fought  # the engine's shapes: only for battles

        kinds = [BattleFought.TYPE, Ft2BattleFought.TYPE]
        read = list(self.store.read(lineage, turn=turn, types=kinds, visible_to=viewer))
        names = None if viewer == UMPIRE else battle_names(self.store, lineage, viewer)
        fought = []
        for recorded in read:
            ev = recorded.event
            if isinstance(ev, Ft2BattleFought):
                ev = as_battle_fought(ev)
            if isinstance(ev, BattleFought) and (viewer == UMPIRE or viewer in participants(ev)):
                told_id = names.name(ev.battle.id) if names is not None else None
                fought.append((told_id or ev.battle.id, ev))
        return _FoughtBattles(fought, names)

    def _star_names(self, lineage: Lineage, player: str) -> dict[str, str]:
        """Return the public star chart's names by hex, as `player` received it."""
        return _chart_names(
            self.store.read(lineage, types=[StarChartPublished.TYPE], visible_to=player)
        )
