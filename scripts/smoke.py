"""`make smoke API=https://... TOKEN=...`: a bounded check of a deployed stack, each step printed.

Health, then a scratch ledger with an account and a slip, read back, then removed as far as the API
allows: the slip is deleted and the account archived; the scratch ledger itself stays (the API has
no DELETE /ledgers/{ledger}), named "smoke <time>" so it is recognised. Standard library only; every
request is cut at 10 seconds. Exit 0 when every step passed; otherwise 1 with one line saying what
failed (a wrong URL or token is told as such).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any

TIMEOUT = 10


class SmokeFailed(Exception):
    pass


def call(
    api: str, token: str, method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None
) -> Any:
    """(status, headers, JSON body) of one request; SmokeFailed on no answer at all."""
    data = json.dumps(body).encode() if body is not None else None
    sent = {"Authorization": f"Bearer {token}", **(headers or {})}
    if data is not None:
        sent["Content-Type"] = "application/json"
    request = urllib.request.Request(api + path, data=data, method=method, headers=sent)  # noqa: S310 - http(s) checked
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:  # noqa: S310
            status, raw, got = reply.status, reply.read(), dict(reply.headers)
    except urllib.error.HTTPError as exc:
        status, raw, got = exc.code, exc.read(), dict(exc.headers)
    except (urllib.error.URLError, OSError) as exc:
        raise SmokeFailed(f"no answer from {api} ({getattr(exc, 'reason', exc)}): is API the stack's ApiUrl?") from exc
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = None
    return status, got, parsed


def expect(step: str, answer: Any, status: int) -> Any:
    got, headers, body = answer
    if got == 401:
        raise SmokeFailed(f"{step}: 401 Unauthorized: TOKEN is not a valid ID token of the stack's user pool")
    if got != status:
        raise SmokeFailed(f"{step}: expected {status}, got {got}: {json.dumps(body, ensure_ascii=False)[:300]}")
    print(f"ok  {step} ({got})", flush=True)
    return headers, body


def smoke(api: str, token: str) -> None:
    api = api.rstrip("/")
    if not api.startswith(("https://", "http://")):
        raise SmokeFailed(f"API must be the stack's URL (https://...), not {api!r}")
    _, health = expect("GET /health", call(api, token, "GET", "/health"), 200)
    if not isinstance(health, dict) or health.get("status") != "ok":
        raise SmokeFailed(f"GET /health: {api} answered, but not as this API does: {health!r}")
    name = f"smoke {time.strftime('%Y-%m-%d %H:%M:%S')}"
    _, ledger = expect("create a scratch ledger", call(api, token, "POST", "/ledgers", {"name": name}), 201)
    base = f"/ledgers/{ledger['id']}"
    cash = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 1000}
    expect("create an account", call(api, token, "POST", f"{base}/accounts", cash), 201)
    slip = {"date": time.strftime("%Y-%m-%d"), "kind": "expense", "amount": 300, "account": "cash", "memo": "smoke"}
    _, created = expect("create a slip", call(api, token, "POST", f"{base}/slips", slip), 201)
    where = f"{base}/slips/{created['date']}/{created['id']}"
    headers, read = expect("read the slip back", call(api, token, "GET", where), 200)
    if read.get("amount") != 300:
        raise SmokeFailed(f"read the slip back: amount {read.get('amount')!r}, not 300")
    _, account = expect("read the balance", call(api, token, "GET", f"{base}/accounts/cash"), 200)
    if account.get("balance") != 700:
        raise SmokeFailed(f"read the balance: {account.get('balance')!r}, not 700")
    etag = {k.lower(): v for k, v in headers.items()}.get("etag", "")
    expect("delete the slip", call(api, token, "DELETE", where, headers={"If-Match": etag}), 204)
    headers, _ = expect("read the account", call(api, token, "GET", f"{base}/accounts/cash"), 200)
    etag = {k.lower(): v for k, v in headers.items()}.get("etag", "")
    archive = call(api, token, "PATCH", f"{base}/accounts/cash", {"archived": True}, headers={"If-Match": etag})
    expect("archive the account", archive, 200)
    print(f"the scratch ledger {ledger['id']} ({name!r}) stays: the API has no DELETE /ledgers/{{ledger}}")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0] or not argv[1]:
        print("usage: make smoke API=https://<api-id>.execute-api.<region>.amazonaws.com TOKEN=<ID token>")
        return 2
    try:
        smoke(argv[0], argv[1])
    except SmokeFailed as exc:
        print(f"smoke failed: {exc}", file=sys.stderr)
        return 1
    print("smoke passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
