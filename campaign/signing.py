"""Signed orders files (issue 6): signed on the player's machine, checked by the umpire's inbox.

A player's orders-signing key is an Ed25519 key pair derived from his secret, the campaign's
name and his own name alone, so `umpire orders sign` needs no database:

    seed = scrypt(secret, salt="stellar-umpire/orders-signing/v1/<campaign>/<player>",
                  n=2**14, r=8, p=1, dklen=32)

and the seed is the Ed25519 private key. The umpire's database stores only the public half
(`player_secrets.signing_key`, written when the secret is issued or rotated), so a leaked
database cannot forge orders. Campaign and player names never contain `/` or white space
(`check_campaign_name`, `check_player_name`), so the salt and the signature line below are
unambiguous.

A signed file is the orders file followed by one last line,

    # umpire-signature: v3 campaign=<campaign> player=<player> turn=<turn> seq=<n> sig=<base64>

a TOML comment, so the signed file is still a valid orders file. The signature covers

    b"stellar-umpire/orders/v3\\n" + campaign + b"\\n" + player + b"\\n" + turn + b"\\n"
    + seq + b"\\n" + normalised(body)

where `body` is every byte of the file above that line and `normalised` drops a leading UTF-8
byte-order mark and makes every CRLF or lone CR line end LF: a mail client or a Windows editor
that changes line endings, or adds a mark, on the way changes nothing signed (a trial of remote
play lost files so; docs/rulings.md, "Signed orders in transit"). The orders recorded are the
normalised text, the very text signed (a star's name written where a hex is wanted is
recorded as its hex). `turn` is the body's own `turn`;
`seq` is a number the player makes larger each time he signs (by default the time of signing
in microseconds): the umpire records it with the orders and refuses a file whose sequence is
not larger than the latest he accepted from that player for the turn, so an older signed file
dropped back into the inbox cannot replace newer orders (issue 13). Format v2 signed the body's
bytes as they were, under the prefix `stellar-umpire/orders/v2`: it is still accepted,
verified over the bytes as they are or as normalised (the line endings may have changed since
it was signed). Format v1 had neither turn nor sequence and is refused. Ed25519 signatures are
deterministic: the same secret, names, turn, sequence and body always give the same line.
Everything in this module is pure: bytes in, bytes out.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from campaign.errors import InvalidInputError
from campaign.events import check_player_name
from campaign.rules.core import check_campaign_name

VERSION = "v3"
_READ = ("v2", VERSION)  # v2 signed the body's bytes as they were (see above)
SIGNATURE_PREFIX = "# umpire-signature:"
# The signing key's derivation is still that of v1: a new format of the line needs no new keys.
_KEY_SALT = "stellar-umpire/orders-signing/v1/"
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1
_MESSAGE_PREFIX = "stellar-umpire/orders/{version}\n"
_BOM = b"\xef\xbb\xbf"
_SIGNATURE_BYTES = 64
_FIELDS = ("campaign", "player", "turn", "seq", "sig")
_MAX_NUMBER = 2**63 - 1  # turn and sequence fit the database's BIGINT


class _Turn(msgspec.Struct):
    """The fields of an orders file the signature line repeats: its turn, and whose orders
    they are (which must be the signer's)."""

    turn: int
    player: str | None = None


# Checked against when a player has no key, so that a miss does the same work as a bad
# signature (the private half is public knowledge: it signs nothing anyone accepts).
_NOBODY = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()


class SignatureError(InvalidInputError):
    """A file's signature is missing, malformed or does not verify; `problems` lists each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class SignedOrders(msgspec.Struct, frozen=True):
    """An orders file's signature line, read but not yet verified, and the body it covers."""

    campaign: str
    player: str
    turn: int
    sequence: int
    body: bytes
    signature: bytes
    version: str = VERSION

    def text(self) -> str:
        """Return the body as text (orders files are UTF-8), normalised as v3 signs it: no
        byte-order mark, LF line ends (for v2, the TOML it reads is the same either way).

        Raises:
            SignatureError: the body is not UTF-8.
        """
        try:
            return normalised(self.body).decode("utf-8")
        except UnicodeDecodeError:
            raise SignatureError(["the orders are not UTF-8 text"]) from None


def private_key(secret: str, campaign: str, player: str) -> Ed25519PrivateKey:
    """Derive a player's orders-signing key from his secret and the two names.

    Raises:
        InvalidInputError: a name is not a valid campaign or player name.
    """
    check_campaign_name(campaign)
    check_player_name(player)
    seed = hashlib.scrypt(
        typed_secret(secret).encode(),
        salt=f"{_KEY_SALT}{campaign}/{player}".encode(),
        n=_SCRYPT_N,
        r=_SCRYPT_R,
        p=_SCRYPT_P,
        dklen=32,
    )
    return Ed25519PrivateKey.from_private_bytes(seed)


def public_key(secret: str, campaign: str, player: str) -> str:
    """Return the hex public key that checks what `secret` signs for `player` of `campaign`.

    >>> len(public_key("s3cret", "g", "red"))
    64
    """
    raw = private_key(secret, campaign, player).public_key()
    return raw.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def sign(data: bytes, secret: str, campaign: str, player: str, sequence: int) -> bytes:
    """Return the orders file `data` signed for `player` of `campaign` as number `sequence`.

    An existing signature line is replaced, so signing twice gives the same file. A body that
    does not end with a newline gets one before the signature line. The turn signed is the
    body's own `turn`.

    Raises:
        InvalidInputError: the secret is empty, a name is invalid, `data` is not UTF-8, it
            names no turn, or the sequence is not a positive number.
    """
    secret = typed_secret(secret)
    if not secret:
        raise InvalidInputError(f"signing needs {player}'s secret")
    if not 1 <= sequence <= _MAX_NUMBER:
        raise InvalidInputError(f"sequence {sequence} must be a number from 1 to {_MAX_NUMBER}")
    body = unsigned(data)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("an orders file must be UTF-8 text") from None
    if body and not body.endswith(b"\n"):
        body += b"\n"
    turn = _body_turn(body)
    if turn is None:
        raise InvalidInputError("an orders file names its turn (`turn = N`) before it is signed")
    message = _message(VERSION, campaign, player, turn, sequence, normalised(body))
    signature = private_key(secret, campaign, player).sign(message)
    encoded = base64.b64encode(signature).decode("ascii")
    line = (
        f"{SIGNATURE_PREFIX} {VERSION} campaign={campaign} player={player} turn={turn} "
        f"seq={sequence} sig={encoded}\n"
    )
    return body + line.encode("ascii")


def check_own(data: bytes, player: str) -> None:
    """Refuse to sign for `player` an orders file that names another player's orders: the
    inbox would refuse it ("the file is blue's orders, not red's"), so say it now.

    Raises:
        InvalidInputError: the file says `player = "blue"` and `player` is not blue.
    """
    named = _named(unsigned(data))
    if named is not None and named.player is not None and named.player != player:
        raise InvalidInputError(
            f"the file holds {named.player}'s orders (player = {named.player!r}), not "
            f"{player}'s: sign your own orders, or correct the file's player"
        )


def unsigned(data: bytes) -> bytes:
    """Return `data` without its signature line, if it has one.

    A line written after the signature (the player edited a signed file) is kept: signing the
    file again signs his edit, not the text before it.
    """
    index = _last_line(data)
    if index is not None:
        return data[:index]
    stale = _stale_line(data)
    if stale is None:
        return data
    start, end = stale
    return data[:start] + data[end:]


def read(data: bytes) -> SignedOrders:
    """Read a signed file's last line: who signed it, for which campaign, and the body.

    Raises:
        SignatureError: no signature line, or one that does not read; names every problem.
    """
    index = _last_line(data)
    if index is None and _stale_line(data) is not None:
        raise SignatureError(
            [
                "the file changed after it was signed: lines follow the signature line "
                "(sign it again with `umpire orders sign`)"
            ]
        )
    if index is None:
        raise SignatureError(
            [f"not signed: no `{SIGNATURE_PREFIX}` last line (sign it with `umpire orders sign`)"]
        )
    try:
        line = data[index:].decode("ascii")
    except UnicodeDecodeError:
        raise SignatureError(["malformed signature line: not ASCII"]) from None
    version, *tokens = line[len(SIGNATURE_PREFIX) :].split() or [""]
    if version == "v1":
        raise SignatureError(
            [
                "signature format v1 carries no turn or sequence, so it could be replayed: "
                "sign the file again with `umpire orders sign`"
            ]
        )
    if version not in _READ:
        raise SignatureError(
            [f"unknown signature format {version!r} (this umpire reads {' and '.join(_READ)})"]
        )
    fields: dict[str, str] = {}
    problems = []
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or key not in _FIELDS:
            problems.append(f"malformed signature line: unexpected {token!r}")
        elif key in fields:
            problems.append(f"malformed signature line: {key} given twice")
        else:
            fields[key] = value
    problems += [f"malformed signature line: no {key}=" for key in _FIELDS if key not in fields]
    for key, check in (("campaign", check_campaign_name), ("player", check_player_name)):
        try:
            if key in fields:
                check(fields[key])
        except InvalidInputError as exc:
            problems.append(f"malformed signature line: {exc}")
    numbers = {key: _number(key, fields[key], problems) for key in ("turn", "seq") if key in fields}
    if numbers.get("seq") == 0:
        problems.append("malformed signature line: seq starts at 1")
    signature = _decode_signature(fields["sig"], problems) if "sig" in fields else b""
    body = data[:index]
    said = _body_turn(body)
    if said is not None and "turn" in numbers and said != numbers["turn"]:
        problems.append(f"the signature line is for turn {numbers['turn']}, the orders for {said}")
    if problems:
        raise SignatureError(problems)
    return SignedOrders(
        fields["campaign"],
        fields["player"],
        numbers["turn"],
        numbers["seq"],
        body,
        signature,
        version,
    )


def verifies(signed: SignedOrders, key: str | None) -> bool:
    """Return whether `signed` verifies with the hex public `key` (None: nobody's key).

    v3 is checked over the normalised body; v2 over the body as it is and as normalised
    (both, always: the work does not depend on the answer). A missing key is checked against
    a key nobody holds, so it costs the same and says False.
    """
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)) if key else _NOBODY
    bodies = [normalised(signed.body)]
    if signed.version != VERSION:
        bodies.insert(0, signed.body)
    verified = False
    for body in bodies:
        message = _message(
            signed.version, signed.campaign, signed.player, signed.turn, signed.sequence, body
        )
        try:
            public.verify(signed.signature, message)
            verified = True
        except InvalidSignature:
            pass
    return verified and key is not None


def normalised(body: bytes) -> bytes:
    """Return `body` as v3 signs it: no leading byte-order mark, every line ending LF.

    >>> normalised(b"\\xef\\xbb\\xbfturn = 1\\r\\nplayer = 'red'\\r")
    b"turn = 1\\nplayer = 'red'\\n"
    """
    return body.removeprefix(_BOM).replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def typed_secret(secret: str) -> str:
    """Return a secret as typed or pasted, without the white space around it: issued secrets
    are URL-safe characters only, and a copy often brings a space or a line end along. The
    one rule for the command line, the web page and signing (docs/rulings.md).

    >>> typed_secret(" s3cret\\n")
    's3cret'
    """
    return secret.strip()


def _message(
    version: str, campaign: str, player: str, turn: int, sequence: int, body: bytes
) -> bytes:
    prefix = _MESSAGE_PREFIX.format(version=version).encode()
    return prefix + f"{campaign}\n{player}\n{turn}\n{sequence}\n".encode() + body


def _body_turn(body: bytes) -> int | None:
    """Return the turn an orders file names, or None if it names none it can be read for."""
    named = _named(body)
    return None if named is None else named.turn


def _named(body: bytes) -> _Turn | None:
    try:
        return msgspec.toml.decode(normalised(body), type=_Turn)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


def _number(key: str, text: str, problems: list[str]) -> int:
    if not text.isdigit() or not 0 <= int(text) <= _MAX_NUMBER:
        problems.append(f"malformed signature line: {key} is not a number")
        return 0
    return int(text)


def _last_line(data: bytes) -> int | None:
    """Return where the signature line starts: the last line that is not blank, if it is one."""
    stripped = data.rstrip()
    start = max(stripped.rfind(b"\n"), stripped.rfind(b"\r")) + 1  # CR: an old Mac's line end
    if stripped[start:].startswith(SIGNATURE_PREFIX.encode()):
        return start
    return None


def _stale_line(data: bytes) -> tuple[int, int] | None:
    """Return where a signature line that is not the last line starts and ends, if there is
    one: the file was edited after it was signed."""
    prefix = SIGNATURE_PREFIX.encode()
    start = data.rfind(b"\n" + prefix) + 1  # 0: none after the first line
    if start == 0 and not data.startswith(prefix):
        return None
    end = data.find(b"\n", start)
    return start, len(data) if end < 0 else end + 1


def _decode_signature(text: str, problems: list[str]) -> bytes:
    try:
        signature = base64.b64decode(text, validate=True)
    except binascii.Error:
        problems.append("malformed signature line: sig is not base64")
        return b""
    if len(signature) != _SIGNATURE_BYTES:
        problems.append(f"malformed signature line: sig is {len(signature)} bytes, not 64")
    return signature
