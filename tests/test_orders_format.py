"""The orders format as `campaign.rules.orders` documents it: the example decodes."""

from __future__ import annotations

import msgspec

from campaign.rules import orders
from campaign.strategic import ShipOrder


def test_the_documented_example_decodes() -> None:
    assert orders.__doc__ is not None
    example = orders.__doc__.split("\n\n", 1)[1]
    document = msgspec.toml.decode(example, type=orders.OrdersDocument)
    assert document.player == "red"
    assert document.scorch == ("Alpha/3",)
    (production,) = document.production
    assert production.ships == (ShipOrder("destroyer", 2), ShipOrder("fleet_tender"))
    assert production.fighters == 12
    assert document.treasury is not None
    assert document.treasury.research == 10
    # Issue 12's fields: waypoints, a split, a merge, the colony attacked.
    assert document.moves[0].via == ("0303",)
    assert (document.moves[1].unit, document.moves[1].count) == ("red-T1", 10)
    assert document.merges[0].units == ("red-T3", "red-T4")
    assert document.attacks[0].colony == "Beta/2"
    assert (document.posts, document.landings[0].post) == (("Gamma/1",), False)
    assert (document.battle_sites[0].world, document.battle_sites[0].gravity) == ("near", 6)


def test_the_template_of_a_production_turn_shows_each_colony_commented() -> None:
    """004 5.7: after every fourth turn the template lists the player's colonies as
    commented `[[production]]` entries; uncommented, they decode."""
    from tests.test_regressions import state_with

    text = orders.template(state_with(), "red", "0101")
    assert '# colony = "Alpha/1"  # 10M, 0 factories' in text
    keys = ("# [[production]]", "# colony", "# factories", "# ships", "# fighters")
    uncommented = "\n".join(
        line[2:] if line.startswith(keys) else line for line in text.splitlines()
    )
    (entry,) = msgspec.toml.decode(uncommented, type=orders.OrdersDocument).production
    assert (entry.colony, entry.fighters) == ("Alpha/1", 6)
    later = orders.template(msgspec.structs.replace(state_with(), turn=5), "red", "0101")
    assert "[[production]]" not in later
