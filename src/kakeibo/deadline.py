"""Every request within its time (§31): one deadline per request, shared by every retry loop.

The handler sets it when a request starts: the Lambda context's remaining time less MARGIN (kept
to answer). Each retry loop asks `allows(delay)` before it sleeps and tries again, and gives up
with its retryable refusal (409 conflict with Retry-After) when the time left would not cover the
pause and one more attempt; botocore's own retries are held to it the same way (`hold_retries`),
and each HTTP attempt's read timeout is cut to the time left (`cap_read_timeout`). Without a
deadline (a script, a test that calls a service directly) nothing is cut short.

`clock` and `sleep` are the ones every loop uses: a test replaces them with a fake clock's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

MARGIN = 0.5  # seconds of the function's remaining time kept to answer (the refusal, the log line)
ATTEMPT = 0.05  # the least time left worth one more attempt, besides its pause

clock: Callable[[], float] = time.monotonic
sleep: Callable[[float], None] = time.sleep


@dataclass(frozen=True)
class Deadline:
    at: float  # on `clock`

    def left(self) -> float:
        return self.at - clock()


_current: ContextVar[Deadline | None] = ContextVar("kakeibo_deadline", default=None)


@contextmanager
def within(context: Any) -> Iterator[Deadline | None]:
    """The request's deadline while the block runs: the context's remaining time less MARGIN (none
    for a context that does not tell it)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    found = Deadline(clock() + remaining() / 1000 - MARGIN) if callable(remaining) else None
    token = _current.set(found)
    try:
        yield found
    finally:
        _current.reset(token)


def current() -> Deadline | None:
    return _current.get()


def left() -> float | None:
    """Seconds the request has left (None: no deadline)."""
    found = _current.get()
    return None if found is None else found.left()


def allows(pause: float = 0.0) -> bool:
    """Is there time to pause `pause` seconds and try once more?"""
    found = _current.get()
    return found is None or found.left() > pause + ATTEMPT


def wait(seconds: float) -> None:
    """A retry's pause, on the module's `sleep`."""
    sleep(seconds)


def hold_retries(needs_retry: Callable[..., float | None]) -> Callable[..., float | None]:
    """botocore's retry decision (`needs-retry`: the seconds to wait, or None), vetoed when the pause
    and another attempt would not fit in the request's time: the error then reaches our code."""

    def decide(**kwargs: Any) -> float | None:
        delay = needs_retry(**kwargs)
        if delay is not None and not allows(delay):
            return None
        return delay

    return decide


def cap_read_timeout(request: Any, **_: Any) -> None:
    """`request-created`: this attempt's read timeout no longer than the request's time left
    (botocore reads `read_timeout` from the request's context; none given: the client's)."""
    remaining = left()
    context = getattr(request, "context", None)
    if remaining is None or context is None:
        return
    configured = context["client_config"].read_timeout if "client_config" in context else remaining
    context["read_timeout"] = max(0.05, min(float(configured), remaining))
