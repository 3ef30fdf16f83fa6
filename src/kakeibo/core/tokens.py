"""Personal access tokens: what a token looks like, and what it proves (pure).

A token is `kk_` + 43 base62 characters (32 random bytes) + 6 base62 characters of their CRC-32:
the checksum lets a mistyped or truncated token be refused without reading anything. The token is
shown once; the ledger keeps only its SHA-256 (`digest`), and its first characters (`prefix`) so a
person can tell their tokens apart.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import zlib
from dataclasses import dataclass

PREFIX = "kk_"
SCOPES = ("read", "write")
BODY_LENGTH = 43  # 32 bytes in base62
CHECK_LENGTH = 6  # a CRC-32 in base62
LENGTH = len(PREFIX) + BODY_LENGTH + CHECK_LENGTH
SHOWN = len(PREFIX) + 6  # the characters kept to tell tokens apart: kk_ and six more
MAX_LIVE = 20
DEFAULT_DAYS = 90
MIN_DAYS, MAX_DAYS = 1, 365

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _base62(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        value, digit = divmod(value, 62)
        out.append(_BASE62[digit])
    return "".join(reversed(out))


def _check(body: str) -> str:
    return _base62(zlib.crc32(body.encode("ascii")), CHECK_LENGTH)


def new_token(random: bytes | None = None) -> str:
    """A new token from 32 random bytes (given, for a fixed one in tests)."""
    raw = secrets.token_bytes(32) if random is None else random
    if len(raw) != 32:
        raise ValueError("a token is made of 32 bytes")
    body = _base62(int.from_bytes(raw, "big"), BODY_LENGTH)
    return f"{PREFIX}{body}{_check(body)}"


def well_formed(token: str) -> bool:
    """Whether `token` is one of ours as typed: its prefix, length, alphabet and checksum."""
    if len(token) != LENGTH or not token.startswith(PREFIX):
        return False
    rest = token[len(PREFIX) :]
    if any(c not in _BASE62 for c in rest):
        return False
    body, check = rest[:BODY_LENGTH], rest[BODY_LENGTH:]
    return _check(body) == check


def looks_like_token(credential: str) -> bool:
    """A bearer credential meant as a personal token (well formed or not), not a JWT or a name."""
    return credential.startswith(PREFIX)


def digest(token: str) -> str:
    """What the ledger keeps of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def prefix(token: str) -> str:
    return token[:SHOWN]


def expiry(created: dt.datetime, days: int) -> dt.datetime:
    return created + dt.timedelta(days=days)


@dataclass(frozen=True, slots=True)
class Grant:
    """What a live token proves: the person it acts as and what it may do."""

    sub: str
    token_id: str
    scope: str

    @property
    def may_write(self) -> bool:
        return self.scope == "write"


def live(expires_at: str, now: dt.datetime) -> bool:
    """A token is live until its expiry (an ISO-8601 instant in UTC)."""
    return dt.datetime.fromisoformat(expires_at.replace("Z", "+00:00")) > now
