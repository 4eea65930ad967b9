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
