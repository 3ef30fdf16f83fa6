"""Personal access tokens (§25): made, listed and revoked by a signed-in person; what a token proves.

A token acts as its person, in every ledger they belong to, never beyond their role there (the
ledger's own access check runs on every request as for a signed-in person). Only its SHA-256 is kept.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import errors
from kakeibo.core import tokens
from kakeibo.core.ids import new_slip_id
from kakeibo.event import Caller
from kakeibo.settings import utc_now
from kakeibo.store.codec import Item
from kakeibo.store.tokens import TokenStore

ATTEMPTS = 5  # creations racing for the last of the 20 places: each recounts


def _signed_in(caller: Caller) -> None:
    if caller.via == "token":
        raise errors.TokenScope("tokens are managed only when signed in, not with a token")


def _instant(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "name": item["name"],
        "scope": item["scope"],
        "prefix": item["prefix"],
        "created_at": item["created_at"],
        "expires_at": item["expires_at"],
        "last_used_at": item.get("last_used_on"),
    }


def me(caller: Caller) -> dict[str, Any]:
    """GET /me: who calls and what they may do (any caller, signed in or with a token)."""
    return {"user": caller.sub, "via": caller.via, "scope": caller.scope, "token_id": caller.token_id}


def create(store: TokenStore, caller: Caller, body: Any) -> dict[str, Any]:
    """POST /me/tokens: a new token, shown in this answer only."""
    _signed_in(caller)
    for _ in range(ATTEMPTS):
        found, version = store.tokens_of(caller.sub)
        now = utc_now()
        if sum(1 for t in found if tokens.live(str(t["expires_at"]), now)) >= tokens.MAX_LIVE:
            raise errors.LimitReached(
                f"a person has at most {tokens.MAX_LIVE} live tokens: revoke one first", limit=tokens.MAX_LIVE
            )
        secret = tokens.new_token()
        listed = {
            "id": new_slip_id(),
            "name": body.name,
            "scope": body.scope,
            "prefix": tokens.prefix(secret),
            "created_at": _instant(now),
            "expires_at": _instant(tokens.expiry(now, body.expires_in_days)),
        }
        if store.create(caller.sub, listed, digest=tokens.digest(secret), version=version):
            return {**view(listed), "token": secret}
    raise errors.Conflict("tokens were being made at the same time; retry", retry_after=1)


def list_tokens(store: TokenStore, caller: Caller) -> dict[str, Any]:
    """GET /me/tokens: the person's tokens, live and expired, without their secrets."""
    _signed_in(caller)
    found, _ = store.tokens_of(caller.sub)
    return {"items": [view(t) for t in found]}


def revoke(store: TokenStore, caller: Caller, token_id: str) -> None:
    """DELETE /me/tokens/{id}: the token stops working (within the authorizer's cache, 60 s, on AWS)."""
    _signed_in(caller)
    if not (token_id.isascii() and token_id.isalnum() and len(token_id) <= 64) or not store.revoke(
        caller.sub, token_id
    ):
        raise errors.NotFound(f"no token '{token_id[:64]}'")


def grant(store: TokenStore, credential: str) -> tokens.Grant | None:
    """What a bearer token proves, or None: a mistyped one is refused without a read; an unknown,
    revoked or expired one after one GetItem. Its use is recorded to the day."""
    if not tokens.well_formed(credential):
        return None
    digest = tokens.digest(credential)
    found = store.by_digest(digest)
    now = utc_now()
    if found is None or not tokens.live(str(found["expires_at"]), now):
        return None
    sub, token_id = str(found["sub"]), str(found["token_id"])
    day = now.date().isoformat()
    if found.get("last_used_on") != day:
        store.mark_used(sub, token_id, digest, day)
    return tokens.Grant(sub=sub, token_id=token_id, scope=str(found["scope"]))
