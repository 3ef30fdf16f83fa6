"""The one event builder of the tests: API Gateway HTTP API (v2.0) events seeded from events/.

`request()` turns (method, path, body, user, headers) into an event exactly as the local front
does (same route table from template.yaml, same builder), calls the handler, and returns a
`Reply`. Samples in events/ are the seeds: `sample(name)` loads one for `sam local invoke -e`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from kakeibo.local.front import Front, InProcess

EVENTS_DIR = Path(__file__).resolve().parents[1] / "events"


def sample(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return data


def samples() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(EVENTS_DIR.glob("*.json"))}


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None

    @property
    def etag(self) -> str | None:
        return self.header("etag")

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None

    def __repr__(self) -> str:
        return f"Reply({self.status}, {self.raw[:300]!r})"


# The function's time as the tests give it: Lambda's longest (900 s), so that no request of a test is
# cut short by how busy the machine is; a request's own deadline is tested on a fake clock
# (tests/unit/test_deadline.py)
SUITE_TIMEOUT = 900.0


class Client:
    """Calls the Lambda handler in-process through the same route table as the local front."""

    def __init__(self, user: str | None) -> None:
        from kakeibo.auth.authorizer import Authorizer, personal_token_grant
        from kakeibo.handler import lambda_handler
        from kakeibo.local.cognito import Deciding

        # the Lambda authorizer in this process: personal tokens of this process's table (no user pool)
        gate = Deciding(Authorizer(None, personal_token_grant))
        self.front = Front(InProcess(lambda_handler, timeout=SUITE_TIMEOUT), authorizer=gate)
        self.user = user

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        query: dict[str, Any] | None = None,
        raw: bytes | str | None = None,
        user: str | None = ...,  # type: ignore[assignment]
    ) -> Reply:
        who = self.user if user is ... else user
        sent = {"Content-Type": "application/json"} if body is not None or raw is not None else {}
        if who is not None:
            sent["Authorization"] = f"Bearer {who}"
        sent.update(headers or {})
        payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        if isinstance(payload, str):
            payload = payload.encode("utf-8", "surrogatepass")
        target = path + ("?" + urlencode(query) if query else "")
        status, out, data = self.front.handle(method, target, sent, payload)
        return Reply(status, out, data)

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, body, **kw)

    def put(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PUT", path, body, **kw)

    def patch(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("PATCH", path, body, **kw)

    def delete(self, path: str, **kw: Any) -> Reply:
        return self.request("DELETE", path, **kw)

    # -- Given helpers ------------------------------------------------------------------------

    def account(self, id: str, opening: int = 0, type: str = "cash", **extra: Any) -> dict[str, Any]:
        reply = self.post(
            "/accounts", {"id": id, "name": id.title(), "type": type, "opening_balance": opening, **extra}
        )
        assert reply.status == 201, reply
        return reply.json  # type: ignore[no-any-return]

    def slip(self, **fields: Any) -> Reply:
        return self.post("/slips", fields)

    def balances(self, date: str | None = None) -> dict[str, int]:
        reply = self.get("/balances", query={"date": date} if date else None)
        assert reply.status == 200, reply
        return {i["account"]: i["balance"] for i in reply.json["items"]}
