"""Slip ids: generated ones (ULIDs, time-ordered) and ids derived from what identifies a slip (an
Idempotency-Key's token, an import row, a recurrence's occurrence, a card's cycle): 26 characters
of base32 either way, so a derived id reads like a generated one."""

from __future__ import annotations

import base64
import hashlib
import os
import time

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_slip_id() -> str:
    """A ULID: 26 characters, time-ordered, so slips of one day list in creation order."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def derived_id(token: str) -> str:
    """A slip id that only this token produces (26 characters, like generated ids)."""
    digest = hashlib.sha256(f"slip\n{token}".encode()).digest()
    return base64.b32encode(digest).decode().rstrip("=")[:26]
