"""Many writers on shared slips at once (separate processes, like concurrent Lambda instances):
afterwards every invariant of docs/architecture.md holds, nothing answered 5xx, every refusal was 404/409/412."""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from typing import Any

from kakeibo.store import Store
from kakeibo.store.codec import to_ddb
from tests import invariants
from tests.concurrently import fan_out, random_slip
from tests.events import Client

WORKERS = 8
OPS_PER_WORKER = 100
DATES = ["2026-11-01", "2026-11-02", "2026-11-03"]
ACCOUNTS = ["cash", "suica", "bank"]
CATEGORIES = ["食費", "交通費"]


def _random_fields(rng: random.Random) -> dict[str, Any]:
    return random_slip(rng, DATES, ACCOUNTS, CATEGORIES)


def worker(who: str, seed: int, shared: list[str]) -> Counter[str]:
    """One writer: random creates, reads, patches (amount/date/account), replacements and deletes."""
    from tests.conftest import reset_caches

    reset_caches()
    client = Client(who)
    rng = random.Random(seed)
    known = list(shared)
    statuses: Counter[str] = Counter()
    for _ in range(OPS_PER_WORKER):
        op = rng.choice(["create", "patch", "patch", "put", "delete", "refresh"])
        if op == "create" or not known:
            reply = client.post("/slips", _random_fields(rng))
            if reply.status == 201:
                known.append(reply.header("Location") or "")
        elif op == "refresh":
            reply = client.get("/slips", query={"limit": 100})
            known = [f"/slips/{s['date']}/{s['id']}" for s in reply.json["items"]]
        else:
            where = rng.choice(known)
            current = client.get(where)
            if current.status == 404:
                statuses["404"] += 1
                known.remove(where)
                continue
            etag = current.etag or ""
            if op == "delete":
                reply = client.delete(where, headers={"If-Match": etag})
            elif op == "put":
                reply = client.put(where, _random_fields(rng), headers={"If-Match": etag})
            else:
                change = rng.choice(
                    [
                        {"amount": rng.randint(1, 3000)},
                        {"date": rng.choice(DATES)},
                        {"memo": f"w{seed}"},
                    ]
                )
                reply = client.patch(where, change, headers={"If-Match": etag})
            if reply.status == 200 and reply.header("Location") != where:
                known.remove(where)
                known.append(reply.header("Location") or "")
            if reply.status in (204, 404):
                known.remove(where)
        statuses[str(reply.status)] += 1
    return statuses


def test_concurrent_writers_keep_every_invariant(api: Client, store: Store, user: str) -> None:
    # Given three accounts (bank may go negative) and a handful of shared slips
    api.account("cash", 50_000)
    api.account("suica", 20_000, type="emoney")
    api.account("bank", 0, type="bank", allow_negative=True)
    rng = random.Random(7)
    shared = [api.post("/slips", _random_fields(rng)).header("Location") or "" for _ in range(12)]
    assert all(shared)

    # When 8 processes each make 100 random changes to those slips and their own
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS) as pool:
        results = pool.starmap(worker, [(user, seed, shared) for seed in range(WORKERS)])
    statuses: Counter[str] = sum(results, Counter())

    # Then no answer was a server error and every refusal was 404, 409 or 412
    assert sum(statuses.values()) >= WORKERS * OPS_PER_WORKER
    assert not [s for s in statuses if s.startswith("5")], statuses
    assert set(statuses) <= {"200", "201", "204", "404", "409", "412"}, statuses
    # And there really was contention
    assert statuses["412"] + statuses["404"] > 0, statuses
    # And every balance, day total and month x category total matches the slips
    assert invariants.check(store, user) == []


def _accounts(store: Store, user: str, count: int) -> None:
    """`count` accounts written straight to the table, as a ledger from before account counting."""
    for i in range(count):
        sk = f"ACCOUNT#a{i:03d}"
        item = {"SK": sk, "id": f"a{i:03d}", "name": "A", "type": "cash", "opening_balance": 0, "balance": 0}
        item.update({"allow_negative": False, "archived": False, "version": 1, "created_at": "x", "updated_at": "x"})
        store.core.client.put_item(TableName=store.core.table, Item=to_ddb({"PK": f"LEDGER#{user}", **item}))


def test_the_account_limit_holds_under_concurrent_creates(api: Client, store: Store, user: str) -> None:
    # Given a ledger with 97 accounts from before accounts were counted, and one created since
    _accounts(store, user, 97)
    api.account("cash", 0)
    # When 8 more are created at the same moment
    replies = fan_out(
        user, [("POST", "/accounts", {"id": f"new{i}", "name": "New", "type": "cash"}, None) for i in range(8)]
    )
    # Then exactly two fit: the ledger holds 100 accounts, the others were refused
    assert sorted(r.status for r in replies) == [201, 201] + [409] * 6, replies
    assert all(r.json["limit"] == 100 for r in replies if r.status == 409)
    assert len(api.get("/accounts").json["items"]) == 100
    assert api.post("/accounts", {"id": "late", "name": "Late", "type": "cash"}).status == 409
