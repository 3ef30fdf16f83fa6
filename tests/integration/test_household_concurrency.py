"""Two members of one household ledger, 8 writers each (separate processes, like concurrent Lambda
instances), while the owner demotes and restores one of them and finally removes him: every
invariant of docs/architecture.md holds, nothing answers 5xx, and nothing he writes commits after
his removal.

Hanako's writers create, edit, move and transfer but never delete; Taro's also delete. So whatever
differs, for Taro, between the ledger read right after his removal and the ledger at the end would
be a write of his that committed after it: the test finds none.
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from typing import Any

from kakeibo.store import SharedLedger, Store
from tests import invariants
from tests.concurrently import random_slip
from tests.events import Client

WRITERS = 8
HANAKO_OPS = 40
TARO_MAX_OPS = 80  # he stops earlier, a few refused attempts after he finds himself removed
DATES = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-12-01"]
ACCOUNTS = ["cash", "suica", "bank"]


def _fields(rng: random.Random) -> dict[str, Any]:
    return random_slip(rng, DATES, ACCOUNTS, ["食費", "日用品"])


def writer(user: str, base: str, seed: int, deletes: bool) -> Counter[str]:
    """Random creates, transfers, edits and moves with If-Match (and deletes, if `deletes`)."""
    from tests.conftest import reset_caches

    reset_caches()
    client = Client(user)
    rng = random.Random(seed)
    statuses: Counter[str] = Counter()
    known: list[str] = []
    removed_seen = 0
    for _ in range(HANAKO_OPS if not deletes else TARO_MAX_OPS):
        if deletes and client.get(f"{base}/balances").status == 404:
            removed_seen += 1  # he is no longer a member: a few more tries, all refused
            if removed_seen > 3:
                break
        op = rng.choice(["create", "edit", "move"] + (["delete"] if deletes else []))
        if op == "create" or not known:
            reply = client.post(f"{base}/slips", _fields(rng))
            if reply.status == 201:
                known.append(reply.header("Location") or "")
            statuses[str(reply.status)] += 1
            continue
        if rng.random() < 0.3:  # pick up the other members' slips too
            listed = client.get(f"{base}/slips", query={"limit": 50})
            if listed.status == 200:
                known = [f"{base}/slips/{s['date']}/{s['id']}" for s in listed.json["items"]] or known
        where = rng.choice(known)
        current = client.get(where)
        if current.status != 200:
            statuses[f"read {current.status}"] += 1
            known.remove(where)
            continue
        etag = current.etag or ""
        if op == "delete":
            reply = client.delete(where, headers={"If-Match": etag})
        elif op == "move":
            reply = client.patch(where, {"date": rng.choice(DATES)}, headers={"If-Match": etag})
        else:
            reply = client.patch(where, {"amount": rng.randint(1, 3000), "memo": user[:8]}, headers={"If-Match": etag})
        if reply.status == 200 and reply.header("Location") != where:
            known.remove(where)
            known.append(reply.header("Location") or "")
        elif reply.status in (204, 404) and where in known:
            known.remove(where)
        statuses[str(reply.status)] += 1
    return statuses


def _slips(client: Client, base: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    cursor = None
    while True:
        page = client.get(f"{base}/slips", query={"limit": 100, **({"cursor": cursor} if cursor else {})}).json
        out.update({s["id"]: s for s in page["items"]})
        cursor = page["next_cursor"]
        if not cursor:
            return out


def test_a_member_removed_while_writing_commits_nothing_after(api: Client, store: Store) -> None:
    # Given Hanako's household with Taro as editor, three accounts (bank may go negative)
    hanako = api
    ledger = hanako.post("/ledgers", {"name": "山田家"}).json["id"]
    base = f"/ledgers/{ledger}"
    for account, kind, opening, negative in (("cash", "cash", 50_000, False), ("suica", "emoney", 20_000, False),
                                             ("bank", "bank", 0, True)):  # fmt: skip
        body = {"id": account, "name": account, "type": kind, "opening_balance": opening, "allow_negative": negative}
        assert hanako.post(f"{base}/accounts", body).status == 201
    token = hanako.post(f"{base}/invitations", {"role": "editor"}).json["token"]
    taro = Client(f"taro-{ledger[-6:]}")
    assert taro.post(f"/invitations/{token}/accept").status == 200
    taro_member = f"{base}/members/{taro.user}"

    # When 8 writers of each write at once, and meanwhile Hanako demotes and restores Taro, then removes him
    ctx = multiprocessing.get_context("spawn")
    jobs = [(hanako.user, base, seed, False) for seed in range(WRITERS)]
    jobs += [(taro.user, base, 100 + seed, True) for seed in range(WRITERS)]
    with ctx.Pool(len(jobs)) as pool:
        running = pool.starmap_async(writer, jobs)
        roles: Counter[str] = Counter()
        for role in ("viewer", "editor", "viewer", "editor"):
            etag = next(m for m in hanako.get(base).json["members"] if m["user"] == taro.user)["version"]
            changed = hanako.put(taro_member, {"role": role}, headers={"If-Match": f'"{etag}"'})
            roles[str(changed.status)] += 1
        etag = next(m for m in hanako.get(base).json["members"] if m["user"] == taro.user)["version"]
        assert hanako.delete(taro_member, headers={"If-Match": f'"{etag}"'}).status == 204
        after_removal = _slips(hanako, base)
        results = running.get(timeout=900)
    hanakos: Counter[str] = sum(results[:WRITERS], Counter())
    taros: Counter[str] = sum(results[WRITERS:], Counter())

    # Then no answer was a server error; refusals were the expected ones
    assert roles == Counter({"200": 4}), roles
    everything = hanakos + taros
    assert not [s for s in everything if s.split()[-1].startswith("5")], everything
    assert set(hanakos) <= {"200", "201", "409", "412", "404", "read 404"}, hanakos
    assert set(taros) <= {"200", "201", "204", "403", "409", "412", "404", "read 404"}, taros
    # And every balance, day total and month x category total matches the slips
    assert invariants.check(store, SharedLedger(ledger)) == []
    # And nothing of Taro's committed after his removal: no slip of his appeared, none he changed
    # moved on, none disappeared (only he deletes)
    final = _slips(hanako, base)
    assert set(after_removal) <= set(final), "a slip was deleted after Taro's removal"
    for slip_id, slip in final.items():
        if slip["created_by"] == taro.user:
            assert slip_id in after_removal, slip
        if slip["updated_by"] == taro.user:
            assert after_removal[slip_id]["version"] == slip["version"], slip
    # And he is no longer a member anywhere in the ledger
    assert taro.get(f"{base}/slips").status == 404
    assert [item["id"] for item in taro.get("/ledgers").json["items"]] == ["me"]
