"""Run the same kind of request from many processes at once (like concurrent Lambda instances).

The handler keeps per-request state globally (as Powertools' resolver does), so concurrency is
by process. Children come from a forkserver that has the handler imported already, and they all
wait at a barrier, so the requests really overlap.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Sequence
from typing import Any

from tests.events import Reply

_CTX = multiprocessing.get_context("forkserver")
_CTX.set_forkserver_preload(["tests.events", "kakeibo.handler"])


def _child(env: dict[str, str], barrier: Any, out: Any, index: int, user: str, request: tuple[Any, ...]) -> None:
    method, path, body, headers = request
    os.environ.update(env)
    from tests.conftest import reset_caches
    from tests.events import Client

    reset_caches()
    client = Client(user)
    barrier.wait(timeout=120)
    try:
        if isinstance(body, bytes):  # a file, sent as it is (a CSV import)
            reply = client.request(method, path, headers=headers, raw=body)
        else:
            reply = client.request(method, path, body, headers=headers)
        out.put((index, reply.status, dict(reply.headers), reply.raw))
    except Exception as exc:  # reported to the test, which fails on it
        out.put((index, 599, {}, repr(exc).encode()))


def fan_out(
    user: str,
    requests: list[tuple[str, str, Any, dict[str, str] | None]],
    timeout: float = 180,
    users: Sequence[str] | None = None,
) -> list[Reply]:
    """Send every (method, path, body, headers) at the same moment, each from its own process: as
    `user`, or as `users[i]` for the i-th request when given (members of one shared ledger)."""
    assert users is None or len(users) == len(requests)
    env = {
        k: v
        for k, v in os.environ.items()
        if k.startswith(("AWS_", "TABLE_", "IDEMPOTENCY_", "DYNAMODB_", "POWERTOOLS_"))
    }
    barrier = _CTX.Barrier(len(requests))
    out = _CTX.Queue()
    procs = [
        _CTX.Process(target=_child, args=(env, barrier, out, i, users[i] if users else user, request))
        for i, request in enumerate(requests)
    ]
    for proc in procs:
        proc.start()
    results: dict[int, Reply] = {}
    for _ in procs:
        index, status, headers, raw = out.get(timeout=timeout)
        results[index] = Reply(status, headers, raw)
    for proc in procs:
        proc.join(timeout=30)
    return [results[i] for i in range(len(requests))]


def random_slip(
    rng: random.Random, dates: Sequence[str], accounts: Sequence[str], categories: Sequence[str]
) -> dict[str, Any]:
    """A random slip body for concurrent writers: mostly expenses, some income and transfers."""
    kind = rng.choice(["expense", "expense", "income", "transfer"])
    account = rng.choice(accounts)
    fields: dict[str, Any] = {
        "date": rng.choice(dates),
        "kind": kind,
        "amount": rng.randint(1, 3000),
        "account": account,
    }
    if kind == "transfer":
        fields["to_account"] = rng.choice([a for a in accounts if a != account])
    else:
        fields["category"] = rng.choice(categories)
    return fields
