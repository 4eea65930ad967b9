"""Players' secrets for remote play: issued once, stored only as a salted scrypt hash.

`umpire player add NAME` issues a player's secret and `umpire player rotate NAME` replaces it;
the umpire hands it over privately, and the player signs in to the web page with it. The
database holds the key-derivation parameters, a random per-secret salt and the derived key,
never the secret. Checking a secret always derives a key, even for a player or campaign that
does not exist, and compares in constant time, so neither the answer nor its timing says
whether the player exists.

Issuing or rotating a secret also stores the public half of the player's orders-signing key
(`campaign/signing.py`), derived from the secret: the inbox checks signed orders files with it,
and the private half exists only where the secret is. Secrets issued before migration 0004
have no such key until they are rotated.

The `player_secrets` table is declared in `campaign/store.py` with the others (the schema
test compares them all with the migrations); secrets are not events and never enter the hash
chain. migrations/versions/0003 creates it; 0004 adds `signing_key`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from campaign import signing
from campaign.errors import IllegalCommandError, InvalidInputError
from campaign.events import check_player_name
from campaign.playeraccess import PlayerAccess, campaign_players, player_access
from campaign.signing import SignatureError, SignedOrders
from campaign.store import campaigns, player_secrets
from campaign.storetypes import Store

# Mirrors migrations/versions/0003_player_secrets.py and 0004_signing_keys.py
# (tests/test_migrations.py compares them).

# scrypt with RFC 7914's interactive-login cost (16 MiB, some tens of milliseconds): slow
# enough to make guessing a stolen table expensive, fast enough for a sign-in. Stored per row,
# so the cost can be raised later without invalidating issued secrets.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
KDF = f"scrypt:n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}"
SALT_BYTES = 16
KEY_BYTES = 32
SECRET_BYTES = 24  # 192 bits of randomness, 32 URL-safe characters

# Derived for unknown players so that a miss costs as much as a wrong secret.
_DUMMY_SALT = bytes(SALT_BYTES).hex()

# One answer for a bad signature, an unknown player and a player without a secret, so that the
# inbox's answer does not say which players hold secrets.
DOES_NOT_VERIFY = "signature does not verify"
NO_SIGNING_KEY = "no signing key on record: rotate the player's secret"


class _Stored(msgspec.Struct, frozen=True):
    """A stored secret: how its key was derived, the salt, and the key."""

    kdf: str
    salt: str
    digest: str
    signing_key: str | None = None


def derive(secret: str, salt_hex: str, kdf: str = KDF) -> str:
    """Return the hex key `kdf` derives from `secret` and the salt.

    >>> len(derive("s3cret", bytes(16).hex()))
    64
    """
    n, r, p = _kdf_params(kdf)
    key = hashlib.scrypt(
        secret.encode(), salt=bytes.fromhex(salt_hex), n=n, r=r, p=p, dklen=KEY_BYTES
    )
    return key.hex()


def _kdf_params(kdf: str) -> tuple[int, int, int]:
    name, _, params = kdf.partition(":")
    if name != "scrypt":
        raise ValueError(f"unknown key derivation {kdf!r}")
    values = dict(part.split("=", 1) for part in params.split(","))
    return int(values["n"]), int(values["r"]), int(values["p"])


class PlayerSecrets:
    """Issue, rotate and check players' secrets in an event store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def players(self, campaign: str) -> tuple[str, ...]:
        """Return the campaign's players, from its creation event.

        Raises:
            CampaignNotFoundError: no such campaign.
        """
        return campaign_players(self.store, campaign)

    def issue(self, campaign: str, player: str) -> str:
        """Issue `player`'s first secret and return it (the only time it is shown).

        Raises:
            InvalidInputError: `player` is not a player of the campaign.
            IllegalCommandError: the player holds a secret already (rotate it instead).
        """
        campaign_id = self._campaign_id(campaign, player)
        secret, row = self._new_secret(campaign, player)
        try:
            with self.store.engine.begin() as conn:
                conn.execute(
                    player_secrets.insert(),
                    {**row, "campaign_id": campaign_id, "player": player, "rotations": 0},
                )
        except IntegrityError:
            raise IllegalCommandError(
                f"{player} of {campaign!r} holds a secret already: "
                f"`umpire player rotate {player}` replaces it"
            ) from None
        return secret

    def rotate(self, campaign: str, player: str) -> str:
        """Replace `player`'s secret and return the new one; the old one stops working.

        Raises:
            InvalidInputError: `player` is not a player of the campaign.
            IllegalCommandError: the player holds no secret yet (add him first).
        """
        campaign_id = self._campaign_id(campaign, player)
        secret, row = self._new_secret(campaign, player)
        with self.store.engine.begin() as conn:
            updated = conn.execute(
                player_secrets.update()
                .where(
                    player_secrets.c.campaign_id == campaign_id,
                    player_secrets.c.player == player,
                )
                .values(**row, rotations=player_secrets.c.rotations + 1)
            ).rowcount
        if updated != 1:
            raise IllegalCommandError(
                f"{player} of {campaign!r} holds no secret yet: `umpire player add {player}` "
                "issues one"
            )
        return secret

    def verify(self, campaign: str, player: str, secret: str) -> bool:
        """Return whether `secret` is `player`'s in `campaign`, in constant time.

        Unknown campaigns and players derive a key all the same and answer False. White
        space around the secret is dropped (`signing.typed_secret`), as the web page does.
        """
        row = self._row(campaign, player)
        kdf, salt, digest = (row.kdf, row.salt, row.digest) if row else (KDF, _DUMMY_SALT, "")
        candidate = derive(signing.typed_secret(secret), salt, kdf)
        return hmac.compare_digest(candidate, digest) and row is not None

    def names_typed(self, campaign: str, player: str) -> tuple[str, str]:
        """Return the campaign and player a person typed into a sign-in form, as the database
        names them: white space around them dropped, and any case taken (docs/rulings.md,
        "Signing in: names and secrets as typed"). Player names are lower case, so a player's
        is lower-cased; a campaign's is the one campaign whose name matches but for case, if
        there is exactly one (an exact match first). A name that matches nothing comes back as
        typed, to be refused with the one answer every miss gets.
        """
        campaign, player = campaign.strip(), player.strip().lower()
        names = [c.name for c in self.store.campaigns()]
        if campaign not in names:
            folded = [name for name in names if name.casefold() == campaign.casefold()]
            if len(folded) == 1:
                campaign = folded[0]
        return campaign, player

    def holds_secret(self, campaign: str, player: str) -> bool:
        """Return whether `player` of `campaign` has been issued a secret."""
        return self._row(campaign, player) is not None

    def require(self, campaign: str, player: str, secret: str | None) -> None:
        """Check that an act in `player`'s name carries his secret, if he holds one.

        A player without a secret (a table-top campaign) needs none.

        Raises:
            IllegalCommandError: he holds a secret and `secret` is missing or not his.
        """
        if not self.holds_secret(campaign, player):
            return
        if not secret or not signing.typed_secret(secret):
            raise IllegalCommandError(
                f"{player} holds a secret: orders in his name need it "
                "(the umpire hands orders in for him by ruling)"
            )
        if not self.verify(campaign, player, secret):
            raise IllegalCommandError(f"that is not {player}'s secret: nothing was recorded")

    def check_signature(self, signed: SignedOrders) -> None:
        """Check that a signed orders file verifies with its player's public signing key.

        A bad signature, an unknown campaign or player, and a player without a secret get the
        same answer; only a player whose secret predates signing keys is told to rotate it.

        Raises:
            SignatureError: the signature does not verify, or the player has no signing key.
        """
        row = self._row(signed.campaign, signed.player)
        if row is not None and row.signing_key is None:
            raise SignatureError([NO_SIGNING_KEY])
        if not signing.verifies(signed, row.signing_key if row else None):
            raise SignatureError([DOES_NOT_VERIFY])

    def session_tag(self, campaign: str, player: str) -> str | None:
        """Return a tag that changes whenever the player's secret does (None: no secret).

        A web session keeps the tag it signed in with; after a rotation it no longer matches,
        so every session opened with the old secret ends.
        """
        row = self._row(campaign, player)
        if row is None:
            return None
        return hashlib.sha256(f"{row.salt}:{row.digest}".encode()).hexdigest()[:32]

    def access(self, campaign: str) -> list[PlayerAccess]:
        """Return every player of the campaign, with or without a secret, in creation order."""
        return player_access(self.store, campaign)

    # ------------------------------------------------------------ internals

    def _campaign_id(self, campaign: str, player: str) -> int:
        check_player_name(player)
        players = self.players(campaign)
        if player not in players:
            raise InvalidInputError(
                f"{player!r} is not a player of {campaign!r} "
                f"(players: {', '.join(players) or 'none'})"
            )
        with self.store.engine.connect() as conn:
            campaign_id: int = conn.execute(
                sa.select(campaigns.c.id).where(campaigns.c.name == campaign)
            ).scalar_one()
        return campaign_id

    def _new_secret(self, campaign: str, player: str) -> tuple[str, dict[str, object]]:
        secret = secrets.token_urlsafe(SECRET_BYTES)
        salt = secrets.token_bytes(SALT_BYTES).hex()
        row = {
            "kdf": KDF,
            "salt": salt,
            "digest": derive(secret, salt),
            "signing_key": signing.public_key(secret, campaign, player),
            "issued_at": self.store.clock(),
        }
        return secret, row

    def _row(self, campaign: str, player: str) -> _Stored | None:
        row = self.store.credentials(campaign, player)
        if row is None:
            return None
        return _Stored(kdf=row.kdf, salt=row.salt, digest=row.digest, signing_key=row.signing_key)
