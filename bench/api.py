"""Call the Lambda handler in-process with real API Gateway HTTP API (payload 2.0) events.

Events are built with the local front's own route table and event builder, separately from the
call, so that a timed call measures the handler and nothing else.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from kakeibo.local.front import Front, InProcess, LambdaContext

Event = dict[str, Any]
Handler = Callable[[Event, Any], dict[str, Any]]


class BenchError(RuntimeError):
    """The bench could not do what it measures (a request failed, data did not verify)."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: str

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def etag(self) -> str:
        return self.headers.get("ETag", "")

    @property
    def location(self) -> str:
        return self.headers.get("Location", "")

    @classmethod
    def of(cls, result: dict[str, Any]) -> Reply:
        headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
        return cls(int(result["statusCode"]), headers, str(result.get("body") or ""))


def lambda_context() -> Any:
    """A Lambda context object, as the handler receives one (duck-typed, like Lambda's own)."""
    return LambdaContext(aws_request_id=str(uuid.uuid4()))


class Api:
    """Builds events (untimed) and invokes the handler with them (timed by the caller)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.front = Front(InProcess(handler))

    def event(
        self,
        method: str,
        target: str,
        *,
        user: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Event:
        split = urlsplit(target)
        matched = self.front.match(method, split.path)
        if matched is None:
            raise BenchError(f"no route for {method} {split.path}")
        route, params = matched
        sent = {"authorization": f"Bearer {user}", **{k.lower(): v for k, v in (headers or {}).items()}}
        payload = b""
        if body is not None:
            sent["content-type"] = "application/json"
            payload = json.dumps(body, ensure_ascii=False).encode()
        caller = {"sub": user, "via": "jwt", "scope": "write", "token_id": ""}  # as the authorizer passes it
        return self.front.event(route, params=params, target=target, headers=sent, body=payload, context=caller)

    def invoke(self, event: Event) -> Reply:
        return Reply.of(self.handler(event, lambda_context()))

    def request(self, method: str, target: str, *, expect: int | None = None, **event: Any) -> Reply:
        """Build the event and invoke the handler; with `expect`, any other status is an error."""
        reply = self.invoke(self.event(method, target, **event))
        if expect is not None and reply.status != expect:
            raise BenchError(f"{method} {target}: expected {expect}, got {reply.status}: {reply.body[:300]}")
        return reply
