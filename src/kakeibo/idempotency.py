"""Idempotency-Key for POST requests: Powertools Idempotency on the IdempotencyTable.

A key is scoped to the ledger, the caller and the route (`scope`): two ledgers, or two members of
one shared ledger, may use the same key. `/ledgers/me/slips` is the route `/slips` repeats. The
request body is the validated payload: the same key with a different body is 422
`idempotency_key_reused`. While the first request runs, a duplicate gets 409 `request_in_progress`,
and so does another body: the request running may yet end in an answer that is not kept, and the
key then still belongs to the request it was first used for (store.idempotency_layer).

An outcome is kept under the key — status, body, ETag, Location — only when the request was carried
out: a 200/201, or a refusal the change itself decided (insufficient funds, a budget exceeded, an id
already taken, a slip since deleted: 409/410; an archive to restore read and refused: 422
`archive_refused`, its upload deleted with it). Anything else — a refusal of the key itself
(`idempotency_key_reused`), validation (400/422), authorization (401/403/404), a retryable failure
(conflict, lock, 5xx) or an import cut short by time (202) — is raised out of the idempotent
function so Powertools keeps no record of it, and the original request retried with the same key
is answered as if the refusal never happened. Membership is checked before any replay
(`authorize`): a member removed since gets 404, never the stored answer.

The same key also derives the DynamoDB ClientRequestToken (and, for slips, the slip id), so a retry
after a lost response is a no-op inside DynamoDB as well.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from kakeibo import errors
from kakeibo.event import PERSONAL, header
from kakeibo.event import ledger as event_ledger
from kakeibo.event import route as event_route
from kakeibo.event import sub as event_sub
from kakeibo.routes import properties
from kakeibo.settings import get_settings
from kakeibo.store import idempotency_persistence

if TYPE_CHECKING:
    from kakeibo.services.access import Access

Response = dict[str, Any]

KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
# Refusals decided by the change itself (its transaction, the slip identity the key names, or the
# archive a restore read), by their status
KEPT_REFUSALS: dict[int, frozenset[str]] = {
    409: frozenset({"insufficient_funds", "budget_exceeded", "already_exists"}),
    410: frozenset({"gone"}),
    422: frozenset({"archive_refused"}),
}


class _NotKept(Exception):
    """Carries a response that must not be remembered as the key's outcome."""

    def __init__(self, response: Response) -> None:
        super().__init__("retryable outcome")
        self.response = response


def scope(event: dict[str, Any]) -> tuple[str, str]:
    """(whose keys, which route) an Idempotency-Key of this request belongs to. A personal ledger's
    keys are its owner's (their `sub`, as always); a shared ledger's are each member's own; a route
    under `/ledgers/{ledger}` is the route it repeats."""
    user = event_sub(event) or ""
    ledger = event_ledger(event)
    return (user if ledger == PERSONAL else f"{ledger}\n{user}"), event_route(event)


def is_idempotent(event: dict[str, Any]) -> bool:
    """Does the request's route honour an Idempotency-Key (its module declares it: routes/properties)?"""
    return properties.of(scope(event)[1]).idempotent


def derive_token(ledger: str, route: str, key: str) -> str:
    """A ClientRequestToken (<= 36 characters) that only this ledger (+ member) + route + key produce."""
    digest = hashlib.sha256(f"{ledger}\n{route}\n{key}".encode()).digest()
    return base64.b32encode(digest).decode().rstrip("=")[:32]


def check_key(event: dict[str, Any]) -> errors.ApiError | None:
    key = header(event, "idempotency-key")
    if key is None:
        return None
    if not KEY_RE.match(key):
        return errors.BadRequest("Idempotency-Key must be 1 to 255 printable ASCII characters")
    return None


@cache
def _idempotent() -> tuple[Callable[..., Response], Any]:
    """The idempotent runner and its config, built on first use: the persistence layer needs settings
    and a client, never at import time."""
    from aws_lambda_powertools.utilities.idempotency import (  # noqa: PLC0415 - loaded on use
        IdempotencyConfig,
        idempotent_function,
    )

    config = IdempotencyConfig(
        event_key_jmespath="[ledger, route, key]",
        payload_validation_jmespath="payload",
        raise_on_no_idempotency_key=True,
        expires_after_seconds=get_settings().idempotency_expires_seconds,
    )

    def run(request: dict[str, Any], resolve: Callable[[], Response]) -> Response:
        response = resolve()
        if not kept(response):
            raise _NotKept(response)
        return response

    decorate = idempotent_function(
        data_keyword_argument="request", persistence_store=idempotency_persistence(), config=config
    )
    runner: Callable[..., Response] = decorate(run)
    return runner, config


def kept(response: Response) -> bool:
    """Is this the outcome of a request that was carried out (kept under its key, replayed)?"""
    status = int(response.get("statusCode", 200))
    if status in (200, 201):
        return True  # 202: an import or a restore cut short by time (or waiting for its upload): continued
    if status in KEPT_REFUSALS:
        try:
            code = json.loads(response.get("body") or "{}").get("code")
        except (ValueError, AttributeError):
            return False
        return code in KEPT_REFUSALS[status]
    return False


def authorize(event: dict[str, Any]) -> Access:
    """The caller may write this ledger (404 to a non-member, 403 to a viewer, 404 to a person who
    had their data deleted): checked before any stored answer is replayed; the access it resolved is
    handed on to the route, which checks its own roles on it instead of reading the membership again."""
    from kakeibo.services.access import EDITORS, open_ledger  # noqa: PLC0415 - loaded on use
    from kakeibo.store import get_store  # noqa: PLC0415

    return open_ledger(get_store(), event_sub(event) or "", event_ledger(event), EDITORS)


def _payload(event: dict[str, Any], parsed: tuple[str, Any] | None) -> Any:
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        payload: dict[str, Any] = {"base64": body}
    elif parsed is not None and parsed[0] is body:  # the precheck's parse of this very body
        payload = {"json": parsed[1]}
    else:
        try:
            payload = {"json": json.loads(body)}
        except ValueError:
            payload = {"text": body}
    # The query is part of what was asked (POST /imports?dry_run=true must never be replayed as
    # the import itself); left out when empty, so requests without one hash as they always did.
    if params := event.get("queryStringParameters"):
        payload["query"] = sorted(params.items())
    return payload


def run_once(
    event: dict[str, Any], context: Any, resolve: Callable[[], Response], parsed: tuple[str, Any] | None = None
) -> Response:
    """Resolve the request at most once per (ledger, member, route, Idempotency-Key). `parsed`: the
    JSON body as the precheck parsed it, (text, value), so it is not parsed again."""
    from aws_lambda_powertools.utilities.idempotency.exceptions import (  # noqa: PLC0415 - loaded on use
        IdempotencyAlreadyInProgressError,
        IdempotencyInconsistentStateError,
        IdempotencyPersistenceLayerError,
        IdempotencyValidationError,
    )

    from kakeibo.store.idempotency_layer import MismatchInProgress  # noqa: PLC0415 - loaded on use

    run, config = _idempotent()
    if context is not None and hasattr(context, "get_remaining_time_in_millis"):
        config.register_lambda_context(context)
    whose, route = scope(event)
    request = {
        "ledger": whose,
        "route": route,
        "key": header(event, "idempotency-key"),
        "payload": _payload(event, parsed),
    }
    try:
        return run(request=request, resolve=resolve)
    except _NotKept as refused:
        return refused.response
    except (IdempotencyAlreadyInProgressError, MismatchInProgress, IdempotencyInconsistentStateError):
        # inconsistent: the key's record changed between two reads of it (another request with the
        # key ended or failed meanwhile, many at once); Powertools tried again already: the caller may
        raise errors.RequestInProgress(
            "a request with this Idempotency-Key is still running; retry shortly", retry_after=1
        ) from None
    except IdempotencyValidationError:
        raise errors.IdempotencyKeyReused(
            "this Idempotency-Key was used with a different request body; use a new key"
        ) from None
    except IdempotencyPersistenceLayerError:
        raise errors.Conflict("the request could not be recorded; retry with the same key", retry_after=1) from None
