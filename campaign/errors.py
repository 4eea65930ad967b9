"""The errors the campaign core raises.

Every `UmpireError` is a user-facing condition: the CLI prints its message on one line and
exits with its `exit_code`, never with a traceback. Anything else is a bug.
"""

from __future__ import annotations


class UmpireError(Exception):
    """A condition the user can fix or must know about; its message is one line."""

    exit_code = 2


class InvalidInputError(UmpireError):
    """A name, number or expression typed by the user does not make sense."""


class CampaignNotFoundError(UmpireError):
    """No campaign of that name exists in the database."""


class CampaignExistsError(UmpireError):
    """A campaign of that name already exists."""


class AmbiguousCampaignError(UmpireError):
    """Several campaigns exist and none was named."""


class BranchNotFoundError(UmpireError):
    """No branch of that name exists in the campaign."""


class BranchExistsError(UmpireError):
    """A branch of that name already exists in the campaign."""


class IllegalCommandError(UmpireError):
    """The command is not allowed in the campaign's current state."""


class ConcurrencyError(UmpireError):
    """Another writer appended to the stream first; nothing of this batch was stored.

    Reload the state and decide again.
    """

    exit_code = 3


class SchemaError(UmpireError):
    """The database schema is not the one this version of umpire needs."""


class DatabaseError(UmpireError):
    """The database cannot be opened or is not an umpire database."""


class EventDecodeError(UmpireError):
    """A stored event has an unknown type or a payload that does not decode."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"event at position {position}: {reason}")
        self.position = position
        self.reason = reason


class DiceError(UmpireError):
    """A die could not be rolled: bad manual input or an exhausted script."""
