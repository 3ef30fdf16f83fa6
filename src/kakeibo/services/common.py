"""What every use case shares: timestamps, request tokens, the version pre-check, query values."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from kakeibo import deadline, errors, messages
from kakeibo.models.base import check_month, parse_date

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
            if not deadline.allows():  # the request's time is up: 409, retry later
                raise
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


# The limits pydantic reports with a field error that a client (and the wording) may use.
ERROR_LIMITS = ("ge", "gt", "le", "lt", "min_length", "max_length", "expected", "total", "amount")


def error_item(err: Mapping[str, Any], loc: list[str]) -> dict[str, Any]:
    """One pydantic error as a problem's `errors` item: where, what, and the limits it names."""
    item: dict[str, Any] = {"loc": loc, "msg": err.get("msg", ""), "type": err.get("type", "")}
    ctx = {k: v for k, v in (err.get("ctx") or {}).items() if k in ERROR_LIMITS and isinstance(v, int | str)}
    if ctx:
        item["ctx"] = ctx
    return item


def validation_errors(exc: ValidationError, prefix: str) -> list[dict[str, Any]]:
    return [
        error_item(e, [prefix, *[str(p) for p in e["loc"]]]) for e in exc.errors(include_url=False, include_input=False)
    ]


def invalid(exc: ValidationError, detail: str) -> errors.ValidationFailed:
    """A body that became invalid once merged with what is stored: 422 naming each field, as a
    request body is refused (lines that do not sum to the amount under their own code)."""
    found = validation_errors(exc, prefix="body")
    if any(e["type"] == "lines_sum_mismatch" for e in found):
        return errors.LinesSumMismatch(messages.field_errors(found, "en"), errors=found)
    return errors.ValidationFailed(detail, errors=found)


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
