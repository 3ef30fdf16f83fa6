"""What every use case shares: timestamps, request tokens, the version pre-check, query values."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from kakeibo import errors
from kakeibo.models import check_month, parse_date

T = TypeVar("T")
CURRENT_ATTEMPTS = 4

TimeLeft = Callable[[], float]  # seconds the invocation has left (a Lambda context's clock)


def on_current(attempt: Callable[[], T]) -> T:
    """Run a read-then-write that applies to the current version: again when it changed meanwhile,
    then 409 conflict (never a 412 naming a version the caller did not send)."""
    for _ in range(CURRENT_ATTEMPTS - 1):
        try:
            return attempt()
        except errors.ReadAgain:
            continue
    return attempt()


def valid_id(value: str) -> bool:
    """An id the API makes or takes for slips, recurrences and webhooks: 1 to 64 ASCII letters and
    digits (anything else names nothing, and is never sent to the table as a key)."""
    return 1 <= len(value) <= 64 and value.isascii() and value.isalnum()


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_token() -> str:
    return str(uuid.uuid4())


def check_version(current: int, expected: int | None) -> int:
    """The If-Match pre-check of every versioned write: the version the write must find."""
    expect = current if expected is None else expected
    if current != expect:
        raise errors.VersionMismatch(f"the version is {current}, not {expect}", current=current, expected=expect)
    return expect


def validation_errors(exc: ValidationError, prefix: str) -> list[dict[str, Any]]:
    return [
        {"loc": [prefix, *[str(p) for p in e["loc"]]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


def query_date(name: str, value: str) -> dt.date:
    try:
        return parse_date(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'{name}' {exc}") from None


def query_month(value: str) -> str:
    try:
        return check_month(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'month' {exc}") from None


def days_before(date: str, days: int) -> str:
    return (query_date("to", date) - dt.timedelta(days=days)).isoformat()
