"""`make smoke API=https://... TOKEN=...`: a bounded check of a deployed stack, each step printed.

Health, then a scratch ledger (named "smoke <time>") with an account and a slip, read back; then the
slip is deleted, the account archived and the scratch ledger deleted (DELETE /ledgers/{ledger}), and
the ledger is checked to be gone: the smoke leaves nothing behind but the ledger's tombstone. Standard
library only; every request is cut at 10 seconds. Exit 0 when every step passed; otherwise 1 with one line saying what
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
        raise SmokeFailed(
            f"{step}: 401 Unauthorized: TOKEN is neither a valid ID token of the stack's user pool nor a live "
            "personal access token (kk_...) with the write scope"
        )
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
    try:
        exercise(api, token, base)
    except SmokeFailed:
        clean_up(api, token, base)
        raise
    delete_ledger(api, token, base)


def exercise(api: str, token: str, base: str) -> None:
    """An account and a slip in the scratch ledger, read back, then the slip deleted and the account archived."""
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


DELETE_TRIES = 5  # a deletion cut short by the request's time carries on when DELETE is sent again


def _state(deletion: Any) -> Any:
    return deletion.get("state") if isinstance(deletion, dict) else deletion


def delete_ledger(api: str, token: str, base: str) -> None:
    """The scratch ledger deleted (as far as one request gets, then again until it is done) and gone."""
    headers, _ = expect("read the scratch ledger", call(api, token, "GET", base), 200)
    etag = {k.lower(): v for k, v in headers.items()}.get("etag", "")
    _, deletion = expect("delete the scratch ledger", call(api, token, "DELETE", base, headers={"If-Match": etag}), 202)
    for _ in range(DELETE_TRIES):
        if _state(deletion) == "deleted":
            break
        again = call(api, token, "DELETE", base, headers={"If-Match": "*"})
        _, deletion = expect("carry on deleting the scratch ledger", again, 202)
    if _state(deletion) != "deleted":
        state, tries = _state(deletion), DELETE_TRIES + 1
        raise SmokeFailed(f"delete the scratch ledger: still {state!r} after {tries} requests")
    expect("the scratch ledger is gone", call(api, token, "GET", base), 404)


def clean_up(api: str, token: str, base: str) -> None:
    """After a failed step: the scratch ledger deleted all the same, or said to be left (never raises)."""
    for _ in range(DELETE_TRIES):
        try:
            status, _, deletion = call(api, token, "DELETE", base, headers={"If-Match": "*"})
        except SmokeFailed:
            break
        if status != 202:
            break
        if _state(deletion) == "deleted":
            print(f"the scratch ledger {base.rsplit('/', 1)[1]} was deleted after the failure", flush=True)
            return
    print(f"the scratch ledger {base.rsplit('/', 1)[1]} is left: DELETE {base} removes it", flush=True)


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
