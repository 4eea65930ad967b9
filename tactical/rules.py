"""Battle rule options: where FT2, Project Continuum and FT Lite differ, one flag each.

Like a python-chess variant, a :class:`BattleRules` names a preset and carries the options; the
battle engine reads only these flags, never the preset name. ``ft2`` follows Full Thrust 2nd
edition (001), ``continuum`` Project Continuum (000, the campaign default), ``lite`` Full Thrust
Lite (002) with FT2-built ships and ``lite_continuum`` the same rules with Continuum-built ones;
every default is argued in ``docs/rulings.md`` ("Tactical: battles", "Tactical: FT Lite").

>>> BATTLE_RULES["ft2"].turn_rounding, BATTLE_RULES["continuum"].turn_rounding
('up', 'down')
>>> BATTLE_RULES["lite"].turn_limit(6), BATTLE_RULES["lite"].turn_limit(5)  # 002 L39: "up to half"
(3, 2)
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import Struct

from tactical.ramming import RAM_ON
from tactical.ship import CONTINUUM_ARCS, FT2_ARCS, RulesName

__all__ = ["BATTLE_RULES", "BattleRules", "Movement", "rules_named"]


Movement = Literal["cinematic", "vector", "spatial"]
MoraleTies = Literal["both", "worse"]
"""When both sides reach their fleet morale share in the same turn: ``both`` withdraw, or the
``worse`` off withdraws and the other holds the field (:func:`tactical.phases.end.worse_off`)."""
"""How a battle's ships move (:attr:`BattleRules.movement`)."""


class BattleRules(Struct, frozen=True, kw_only=True, gc=False):
    """The options of one rules preset for battles."""

    name: str
    ships: RulesName
    """Which construction rules the ships are built to (their design files' ``rules``)."""
    arcs: tuple[str, ...]
    """The fire arcs, clockwise from the bow: FT2's four 90° quadrants (001 L398-421) or
    Continuum's six 60° sectors (000 L2483-2679)."""
    turn_rounding: Literal["up", "down"]
    """Course-change limit: half the thrust rounded up (001 L330) or down (000 L1605-1688)."""
    split_velocity: Literal["halves", "floor_first"]
    """Distance before and after the mid-move turn: v/2 each (001 L348, digest 1.5) or
    floor(v/2) then ceil(v/2) (000 L1842-1932)."""
    pivot_any_course: bool
    """A stationary ship may pivot to any course (001 L372); Continuum limits it to the normal
    turn (000 L1934-2037), which an ordinary ``P``/``S`` order already gives."""
    beam_reroll: bool
    """A natural 6 on a beam die earns a re-roll that ignores screens and armour (000
    L2864-2968; FT Lite 002 L53). FT2 has none (001 L466-470; digest B1)."""
    threshold_timing: Literal["immediate", "end_of_fire"]
    """FT2 checks at once, one check per row crossed (001 L264, 002 L57); Continuum checks
    ship-fire damage at the end of the phase, once, at the last row's level with +1 per
    extra row (000 L3194-3397, phase 13)."""
    destroyed_fire: bool
    """Continuum: a ship reduced to 0 hull in the fire phase still fires when its turn comes
    and is removed at the end of the phase (000 L1053-1472). FT2 removes it at once (001 L476)."""
    initiative: Literal["most_ships", "roll"]
    """Who fires first: the side with most ships in play, D6 on a tie (001 L262), or a D6
    each, ties re-rolled (000 L1053-1472, phase 2)."""
    leave_table: Literal["gone", "return_roll"] = "gone"
    """A ship that leaves the table: gone for good (000 L2348-2386, leaving is retreating), or
    FT2's D6: 1-3 gone, 4-6 back after that many turns on the same edge (001 L536-538)."""
    ftl_threshold: bool = True
    """Roll for the FTL drive at thresholds like any system (digest A8)."""
    damage_control: Literal["none", "continuum", "lite"] = "none"
    """Damage control parties repair damaged systems at the end of the turn (000 10.4, phase
    14), succeeding on a D6 no higher than the parties (``continuum``, 000 L11364-11368) or on
    a D6 + 1 per extra party of 6 or more (``lite``, 002 L63), where a ship whose design has no
    crew factor (FT2-built) has one party per 20 mass or part in its hull boxes (002 L23; see
    docs/rulings.md). FT2 has no repair in battle (digest B4)."""
    aft_fire: Literal["never", "unthrusted"] = "never"
    """Offensive fire through the aft arc: never (001 L404; 000 L2591-2597), or by a weapon
    whose arcs include the aft arc when its ship used no thrust this turn (002 L51)."""
    lost_status: Literal["destroyed", "damaged"] = "destroyed"
    """What a failed threshold check leaves: FT2 systems are lost for the battle (001 L516);
    Continuum's are damaged, repairable by damage control (000 L10909-11000)."""

    fighter_move: int = 12
    """How far a fighter group moves in a turn: 12" (001 L763) or 24 MU (000 L8745-8748)."""
    fighter_endurance: int | None = None
    """Combat endurance (CEF) a group launches with, one spent per attack run or dogfight
    round: FT2 has no limit (digest 3.1); Continuum 6 (000 L8482-8484)."""
    fighter_reroll: bool = False
    """A 6 of a fighter, PD or dogfight die earns a re-roll: Continuum (000 L9142-9148,
    L9160-9166, L9219-9222); FT2 has none (001 L779, L789)."""
    graser_fighters: Literal["beam_dice", "one_hit_each"] = "beam_dice"
    """How a graser wing's "6 BD* hits with the Graser against ships, with each hit inflicting
    1d3 damage, semi-AP" (000 L9700-9706) is read: each fighter rolls a BD* die against the
    screens as a Graser-1 does, every hit it scores doing 1d3 semi-armour-piercing, a natural
    6 re-rolling (000 L3966-3994); or each fighter makes one hit of 1d3 semi-armour-piercing,
    with no to-hit die and past screens."""
    fighter_rearming: bool = False
    """Fleet Book 1's re-arming (000 8.16, L10102-10129; named by the campaign, 004 L45-46): a
    group landed rolls a D6, 1 it may not relaunch this battle, 2-5 it may from the second
    turn after, 6 from the next. FT2 has no such rule: a group lands and may relaunch at once
    (001 L757-761)."""
    fighter_scramble: bool = False
    """Fleet Book 1's scrambling (000 8.3, L8572-8685): a carrier with the standing order
    ``/scramble`` that applied no thrust, attacked by enemy fighters, rolls a D6 to launch
    groups at them. FT2 has nothing like it (001 L757-761)."""
    fighter_secondary_move: bool = False
    """Continuum's secondary move (000 L8760-8786): a flight order written with ``+`` lets the
    group fly up to 12 MU beyond its move for 1 CEF; a robot group's secondary move is flown
    first, towards where its objective stood before the ships moved (L10070-10078). FT2 has
    one move (001 L763)."""
    launch_tubes: bool = False
    """Continuum's launch tubes (000 8.1, L8536-8538; 13.12, L14846-14858, L14935-14940): a
    ship launches, and recovers, as many groups a turn from its hangar bays as it has working
    launch tubes, none without one (000 L10967-10979), and all its combined bays' groups, which
    recover only half their number a turn (rounded up). FT2's carriers launch two groups a
    turn, other ships one, and recover one (001 L759-761): off in ``ft2``."""
    launch_half_move: bool = False
    """A group flies half its move on the turn it launches (000 L8526-8528): Continuum. FT2
    does not say so (001 L757-763): off in ``ft2``."""
    carrier_bays: int = 3
    """Bays that make a ship a carrier, which launches two groups a turn, others one (001
    L759): FT2 3 (no non-carrier class carries more than 2 groups, 001 L749-755); Continuum
    2 (a carrier is any ship with 2 or more bays, 000 L772-960)."""

    torpedo_to_hit: tuple[int, ...] = (3, 4, 5, 6)
    """The face a pulse torpedo needs in each 6" band: FT2's 3+ to 6 out to 24" (001 L833-838)
    or Continuum's projectile table, 2+ to 6 out to 30 MU (000 L20332-20436)."""
    needle_range: int = 9
    """How far a needle beam reaches: 9" (001 L848) or FB1's 12 MU, the version Continuum's
    campaign names (index 5.13, Ambiguity 28)."""
    needle_hull: bool = False
    """FB1's needle: a 5 does 1 hull damage and a 6 adds it to the system kill, past screens
    and armour (index 5.13); FT2's does nothing but the kill on a 6 (001 L848)."""
    mine_dice: int = 2
    """The beam dice a mine fires at an enemy ship within 3", screens applying: FT2's 2D6,
    "a close-range hit from a 'B' class Beam Battery" (001 L870-872), or Continuum's 4D6
    (000 L6737-6739)."""

    ftl_dropout_extreme: bool = False
    """FT2's OPTION for FTL dropouts (001 L1064): a 6 on the scatter's distance D6 rolls a
    second D6 and multiplies, and a ship that would appear off the table never enters. An
    option of the battle's set-up (``ftl_dropout_extreme = true``), off in every preset."""
    bogeys: bool = False
    """Sensors and bogeys: ships start as bogeys that the enemy sees only as a class, revealed
    by passive sensors at 36" or an active scan to 54" (001 L933-951; 000 12.1). An option
    of the battle's set-up (``bogeys = true``), off in every preset."""
    core_systems: bool = False
    """Core systems (000 10.3, L11053-11312): every ship's Command Bridge, Power Core and Life
    Support are rolled at each threshold with 1 off the die; a bridge hit puts the ship out of
    control, a power core hit may explode it at the end of each turn, a life support hit makes
    the crew abandon ship after D6 turns. An option of the battle's set-up (``core_systems =
    true``), off in every preset; campaign battles turn it on (004 L44)."""
    reactor_breach: bool = False
    """With core systems, a ship its power core destroys deals 1D6 per 25 mass to every ship
    within 3 MU, semi-armour-piercing, past screens (000 L11217-11254). An option of the
    set-up (``reactor_breach = true``), off in every preset and in campaign battles."""
    morale: int | None = None
    """Fleet morale (000 12.8, L13214-13273): a side that has lost this percentage of its
    force, by mass of ships destroyed, struck or abandoned, withdraws at the end of the turn.
    An option of the set-up (``morale = 50``, the text's figure for a simple engagement),
    off in every preset; campaign battles turn it on (004 L42)."""
    morale_ties: MoraleTies = "both"
    """When both sides reach their ``morale`` share in the same turn, which the text does not
    settle (000 L13214-13273 says when a commander withdraws, not who breaks first): ``both``
    withdraw and nobody wins, or the side ``worse`` off withdraws and the other holds the
    field, worse off meaning the greater share of its mass lost, then of its mass in hull boxes
    lost (a lost ship all of them), then of its mass in hull boxes crossed off (a struck ship as
    it lies), each against its own share (an exact tie on all three: both withdraw;
    :func:`tactical.phases.end.morale_losses`, docs/rulings.md). An option of the set-up,
    ``both`` in every preset; campaign battles play ``worse`` unless the campaign chose
    ``both``."""
    strike_colours: bool = False
    """Striking the colours (000 12.9, L13275-13343): at each threshold check one more die for
    the ship itself at the systems' target; on a failure its captain surrenders and the ship
    is out of the battle. An option of the set-up, off in every preset; campaign battles turn
    it on (004 L42)."""
    strike_as_core: bool = False
    """With ``strike_colours``, roll that die as a core system, 1 off (never at the first
    threshold): the text's variant, off by default as the index recommends."""
    sensors_ecm: bool = False
    """Continuum's ECM and advanced sensors (000 7.18-7.19, 12.4, 13.13): ECM switched on in
    a ship's orders (``/ecm``) takes 6 MU a level off enemy sensors' identifying range and 1
    MU a level off enemy missiles' and fighters' lock-on range, area ECM doing so for allies
    within 6 MU, at most 3 levels in all; a ship whose area ECM is on cannot use its FireCons;
    enhanced and superior sensors are fragile at threshold checks. FT2's sensors have no ECM
    (001 L933-971): off in ``ft2``, on in ``continuum``."""
    beam_point_defence: bool = False
    """Continuum's Beam-1 point defence (000 L9105-9109, L5859-5861, L5901-5903): a ship whose
    orders put its Beam-1s on point defence (``/pd``) rolls a die a Beam-1 at missiles and
    fighters attacking it, never for another ship, and those Beam-1s do not fire in the ship
    fire phase. FT2's ship guns never fire at fighters (001 L783): off in ``ft2``, on in
    ``continuum``."""
    enemy_sheets: Literal["open", "sensed"] = "open"
    """What a side sees of an identified enemy ship while the sensors and bogeys rules are
    played: ``open``, its record sheet and damage, as FT2 replaces a bogey with the model and
    has no advanced sensors (001 L945); ``sensed``, Continuum's closed books, "Players do not
    have access to enemy SSDs when using the optional Sensors and ECM rules" (000
    L1462-1466): its class, place and motion, and what its side's advanced scans have learned
    (000 L12648-12660, :data:`~tactical.sensors.LEARNED`). Without ``bogeys`` every battle is
    open-book (000 L1442-1458). ``open`` in ``ft2``, ``sensed`` in ``continuum``."""
    active_scans: Literal["class", "firecon"] = "class"
    """Bogeys one active scan identifies a turn: FT2's escort 1, cruiser 2, capital 3 (001
    L949), or Continuum's one per working FireCon (000 12.1); the Continuum preset keeps FT2's,
    the campaign's named source (index, Ambiguity 39)."""
    movement: Movement = "cinematic"
    """How ships move: FT2's cinematic movement, course and facing one (001 L300-372), Fleet
    Book 1's vector movement, a velocity vector apart from the facing (000 12.12, L13411-13986;
    the campaign's, 004 L43), or spatial movement, course and facing apart in clock points
    (003, :mod:`tactical.spatial`). An option of the set-up (``movement = "vector"``,
    ``"spatial"``); every preset keeps cinematic."""
    spatial_turn_rounding: Literal["exact", "down"] = "exact"
    """Under spatial movement, how a course change's thrust is weighed against half and a
    quarter of the velocity: ``exact`` (half and a quarter as they are, which keeps the worked
    example of 003 L192-207 true) or ``down`` (rounded down, the words of L183-190); see
    docs/rulings.md. An option of the set-up."""
    death_blossom: bool = False
    """Under spatial movement, the optional "Death Blossom": a ship spinning at rate 12 or
    more fires any weapon at any target in range, whatever its arcs (003 L266-271). An
    option of the set-up (``death_blossom = true``), off by default."""
    vector_rounding: bool = True
    """Under vector movement, round the new velocity to the nearest whole MU (FB1, 000
    L13411-13986); ``False`` keeps it exact to 0.001 MU (the index's recommended switch)."""
    advanced_vector_thrusters: Literal["full", "half"] = "full"
    """Under vector movement, an advanced drive's manoeuvre points: the whole thrust rating,
    as it may turn with all of it under cinematic movement (000 L1713-1721), or half, as any
    drive's (FB1's vector text, 000 12.12, is silent); see docs/rulings.md."""
    party_attack_on: int = 4
    """The face a boarding party (a DCP acting as a boarder) engaging the defending marines
    needs to kill one: 4+ as a marine, the index's reading of Step 2 (000 L13073-13081), or 6
    as a single DCP's damage-control roll (000 L12997-12999); see docs/rulings.md."""
    ram_on: int = RAM_ON
    """The D6 face a ship that means to ram needs before the attempt may go on: a 6 (001
    L979). The text's special option lowers it for a scenario or a race; a battle's set-up
    does that per side (``ram_on = {red = 4}``)."""

    def turn_limit(self, thrust: int) -> int:
        """Return how many course points a ship with this thrust may turn in one move.

        >>> BATTLE_RULES["ft2"].turn_limit(5), BATTLE_RULES["continuum"].turn_limit(5)
        (3, 2)
        """
        return (thrust + 1) // 2 if self.turn_rounding == "up" else thrust // 2


_FT2 = BattleRules(
    name="ft2",
    ships="ft2",
    arcs=FT2_ARCS,
    turn_rounding="up",
    split_velocity="halves",
    pivot_any_course=True,
    beam_reroll=False,
    threshold_timing="immediate",
    destroyed_fire=False,
    initiative="most_ships",
    leave_table="return_roll",
)
# Full Thrust Lite (002): FT2-built ships (see docs/rulings.md, "Tactical: FT Lite").
_LITE = BattleRules(
    name="lite",
    ships="ft2",
    arcs=FT2_ARCS,
    turn_rounding="down",  # 002 L39: "up to half a ship's thrust points"
    split_velocity="halves",  # 002 L45: "travels six inches (half its movement)"
    pivot_any_course=False,  # 002 L37: "Ships must always face in the direction of travel"
    beam_reroll=True,  # 002 L53
    threshold_timing="immediate",  # 002 L31, L57: "check for each row"
    destroyed_fire=False,  # 002 L31: "Damage effects take place immediately"
    initiative="roll",  # 002 L31: "Players roll for initiative"
    ftl_threshold=False,  # 002 L59: "fire control, weapon, and drive"
    damage_control="lite",  # 002 L61-65
    lost_status="damaged",  # 002 L59: "disabled ... must be repaired"
    aft_fire="unthrusted",  # 002 L51
)

BATTLE_RULES: dict[str, BattleRules] = {
    "ft2": _FT2,
    "continuum": BattleRules(
        name="continuum",
        ships="continuum",
        arcs=CONTINUUM_ARCS,
        turn_rounding="down",
        split_velocity="floor_first",
        pivot_any_course=False,
        beam_reroll=True,
        threshold_timing="end_of_fire",
        destroyed_fire=True,
        initiative="roll",
        damage_control="continuum",
        lost_status="damaged",
        fighter_move=24,
        fighter_endurance=6,
        fighter_reroll=True,
        fighter_rearming=True,
        fighter_scramble=True,
        fighter_secondary_move=True,
        carrier_bays=2,
        launch_tubes=True,
        launch_half_move=True,
        torpedo_to_hit=(2, 3, 4, 5, 6),
        needle_range=12,
        needle_hull=True,
        mine_dice=4,
        sensors_ecm=True,
        beam_point_defence=True,
        enemy_sheets="sensed",
    ),
    # FT2 ships and movement with FT Lite's beam re-roll (002 L53; digest B1 "optional toggle").
    "ft2_reroll": msgspec.structs.replace(_FT2, name="ft2_reroll", beam_reroll=True),
    "lite": _LITE,
    # The same rules with Continuum-built ships, whose six arcs may include the aft one.
    "lite_continuum": msgspec.structs.replace(
        _LITE, name="lite_continuum", ships="continuum", arcs=CONTINUUM_ARCS
    ),
}


def rules_named(name: str) -> BattleRules:
    """Return the battle rules preset with this name.

    Raises:
        KeyError: there is none; the message lists the presets.
    """
    try:
        return BATTLE_RULES[name]
    except KeyError:
        raise KeyError(
            f"no battle rules {name!r}; presets are {', '.join(sorted(BATTLE_RULES))}"
        ) from None
