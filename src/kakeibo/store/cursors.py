"""Opaque pagination cursors (base64url JSON), checked on the way back in."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from kakeibo import errors


def encode_cursor(payload: Mapping[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, Any]:
    if len(cursor) > 512:
        raise errors.BadRequest("invalid cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise errors.BadRequest("invalid cursor") from None
    if not isinstance(payload, dict):
        raise errors.BadRequest("invalid cursor")
    return payload
