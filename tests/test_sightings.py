"""Sightings (issue 12; 004 L58-60, L92-93, L100-104): enemy ships seen every turn, by class."""

from __future__ import annotations

import msgspec

from campaign.events import ShipsSighted
from campaign.projections import evolve
from campaign.rules.colonies import command_post_hexes
from campaign.rules.sightings import decide_sightings
from campaign.strategic import ShipCount, Sighting, Unit
from tests.test_assault import colony
from tests.test_combat import DUEL, state_of, warship

HOME = colony(owner="red")  # Alpha/1 at 0201, 12M on a terran planet


def sightings_of(state: object, player: str) -> tuple[Sighting, ...]:
    for new in decide_sightings(state, DUEL):  # type: ignore[arg-type]
        if isinstance(new.event, ShipsSighted) and new.event.player == player:
            assert new.audience.players == (player,)
            return new.event.sightings
    return ()


def test_a_colony_owner_sees_the_ships_that_besiege_it_every_turn() -> None:
    """004 L104 and L212: the owner of a colony learns of enemy ships in its system; here a
    stand-off besieger he never met in battle, counted by class only (004 L102-103)."""
    besiegers = [warship("blue-W1", "stand-off"), warship("blue-W2", "stand-off")]
    scouts = Unit(id="blue-S1", owner="blue", kind="scout-troop", hex="0201", count=9)
    away = warship("red-W9", "stand-off", "0101")  # red's empire has ships elsewhere
    state = state_of(*besiegers, scouts, away, colonies={HOME.id: HOME})
    (seen,) = sightings_of(state, "red")
    assert seen == Sighting(
        hex="0201",
        system="Alpha",
        turn=3,
        ships=(ShipCount(owner="blue", cruisers=2, scouts=9),),
    )
    # Blue sees red's colony there (hidden or not), and no ships of red's.
    (theirs,) = sightings_of(state, "blue")
    assert (theirs.ships, theirs.colonies) == ((), ("red: Alpha/1",))


def test_a_ship_sees_enemy_ships_in_its_hex_and_a_hex_seen_empty_is_cleared() -> None:
    red = warship("red-W1", "stand-off")
    blue = warship("blue-W1", "stand-off")
    state = state_of(red, blue)
    (new,) = [n for n in decide_sightings(state, DUEL) if n.event.player == "red"]  # type: ignore[attr-defined]
    state = evolve(state, new.event)
    assert set(state.sightings["red"]) == {"0201"}
    # Blue leaves; red looks again and sees the hex empty: the sighting goes.
    state = msgspec.structs.replace(state, units={"red-W1": red}, turn=4)
    (again,) = sightings_of(state, "red")
    assert again.ships == ()
    state = evolve(state, ShipsSighted(player="red", sightings=(again,)))
    assert state.sightings["red"] == {}
    state = msgspec.structs.replace(state, turn=5)
    assert sightings_of(state, "red") == ()  # nothing to say: nothing seen, nothing to clear


def test_a_sighted_siege_shows_in_the_players_own_view() -> None:
    """A player's view holds no enemy units, only what he saw: his colony's besiegers make it
    no command post for his orders (004 L212-213), as at resolution."""
    view = state_of(warship("red-W1", "stand-off", "0101"), colonies={HOME.id: HOME})
    assert command_post_hexes(view, "red") == ["0201"]
    seen = Sighting(hex="0201", system="Alpha", turn=2, ships=(ShipCount("blue", escorts=1),))
    view = evolve(view, ShipsSighted(player="red", sightings=(seen,)))
    assert command_post_hexes(view, "red") == []
    stale = msgspec.structs.replace(view, turn=6)  # seen four turns ago: no longer counted
    assert command_post_hexes(stale, "red") == ["0201"]


def test_a_colony_founded_without_a_command_post_stays_hidden_until_seen() -> None:
    """Issue 12 (004 L86-89): a command post is established by choice; the post, not every
    colony, is what all players detect. A hidden colony is no command post; ships in its
    system see it, and a post established later is detected by everyone."""
    from campaign.events import ColonyDetected, CommandPostEstablished
    from campaign.rules.colonies import decide_landings, decide_posts
    from campaign.strategic import Landing
    from tests.test_strategic import TINY

    transports = Unit(id="red-T1", owner="red", kind="transports", hex="0102", count=5)
    quiet = Landing(unit="red-T1", planet="Alpha/3", colonists=5, post=False)
    state = state_of(transports, landings={"red": (quiet,)})
    events = decide_landings(state, TINY)
    assert [type(e.event).__name__ for e in events] == ["ColonistsLanded"]  # nobody detects
    state = evolve(state, events[0].event)
    assert not state.colonies["Alpha/3"].command_post
    assert command_post_hexes(state, "red") == []
    blue = warship("blue-W1", "stand-off", "0102")
    seen = state_of(blue, colonies=state.colonies)
    both = msgspec.structs.replace(seen, empires=state.empires | seen.empires)
    (new,) = [n for n in decide_sightings(both, TINY) if n.event.player == "blue"]  # type: ignore[attr-defined]
    (sighting,) = new.event.sightings  # type: ignore[attr-defined]
    assert sighting.colonies == ("red: Alpha/3",)
    known = evolve(seen, ShipsSighted(player="blue", sightings=(sighting,)))
    assert known.known_colonies == (("red", "Alpha"),)  # blue may attack it now
    posted = state_of(transports, colonies=state.colonies, posts={"red": ("Alpha/3",)})
    post, detected = decide_posts(posted)
    assert post.event == CommandPostEstablished(colony="Alpha/3")
    assert detected.event == ColonyDetected(owner="red", system="Alpha", hex="0102")
    assert detected.audience.public
    assert command_post_hexes(evolve(posted, post.event), "red") == ["0102"]
