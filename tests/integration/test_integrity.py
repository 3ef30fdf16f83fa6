"""Verify and rebuild on DynamoDB Local: corruption is named and repaired, budgets survive, and no
slip change can interleave with a rebuild (423 + Retry-After while it holds the ledger)."""

from __future__ import annotations

import copy
import threading
import time
from typing import Any
from urllib.parse import quote

import pytest

from kakeibo import errors
from kakeibo.services import integrity
from kakeibo.store import Bookkeeping, Store, WriteContext
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import LEDGER_LOCK, entry_parts, pk, slip_index_sks
from kakeibo.store.transactions import StoreCore
from tests import invariants
from tests.events import Client
from tests.legacy import unindex


def corrupt(store: Store, user: str, sk: str, expression: str, **values: Any) -> None:
    """Change a stored item behind the API's back, as a bug or a manual edit would."""
    names = {f"#{name}": name for name in values}
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": pk(user), "SK": sk}),
        UpdateExpression=expression,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=to_ddb({f":{name}": value for name, value in values.items()}),
    )


def november(api: Client) -> None:
    api.account("cash", 20000)
    api.account("suica", 5000, type="emoney")
    api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    api.slip(date="2026-11-03", kind="expense", amount=800, account="cash", category="食費")
    api.slip(date="2026-11-04", kind="transfer", amount=3000, account="cash", to_account="suica")
    api.slip(date="2026-11-05", kind="expense", amount=220, account="suica", category="交通費")
    api.slip(date="2026-11-06", kind="income", amount=1000, account="cash", category="臨時収入")


def test_verify_is_ok_on_a_consistent_ledger(api: Client) -> None:
    november(api)
    reply = api.post("/ledger/verify")
    assert reply.status == 200
    body = reply.json
    journal = body.pop("journal")
    assert body == {"ok": True, "mismatch_count": 0, "mismatches": [], "reconciliations": []}
    # And the journal, replayed, is the ledger: one entry per account and slip written
    assert journal["mismatches"] == [] and journal["entries"] == journal["head"] > 0


def test_verify_names_each_corrupted_item_and_rebuild_repairs_them(api: Client, store: Store, user: str) -> None:
    # Given a consistent ledger whose derived items are then damaged in four ways
    november(api)
    before = {"now": api.balances(), "nov4": api.balances("2026-11-04")}
    corrupt(store, user, "DAY#cash#2026-11-03", "SET #delta = :delta", delta=-1999)
    corrupt(store, user, "ACCOUNT#suica", "SET #balance = :balance", balance=1)
    corrupt(store, user, "MONTH#2026-11#CAT#食費", "SET #count = :count", count=7)
    corrupt(store, user, "DAY#suica#2026-11-20", "SET #delta = :delta", delta=500)  # no slip that day
    store.core.client.delete_item(
        TableName=store.core.table, Key=to_ddb({"PK": pk(user), "SK": "DAY#suica#2026-11-05"})
    )
    # When the ledger is verified
    reply = api.post("/ledger/verify")
    # Then each damaged field is named with what the slips say and what is stored
    assert reply.status == 200 and reply.json["ok"] is False
    found = {(m["item"], m["field"]): (m["expected"], m["actual"]) for m in reply.json["mismatches"]}
    assert found == {
        ("ACCOUNT#suica", "balance"): (7780, 1),
        ("DAY#cash#2026-11-03", "delta"): (-2000, -1999),
        ("DAY#suica#2026-11-05", "delta"): (-220, 0),
        ("DAY#suica#2026-11-05", "count"): (1, 0),
        ("DAY#suica#2026-11-05", "expense"): (220, 0),
        ("DAY#suica#2026-11-20", "delta"): (0, 500),
        ("MONTH#2026-11#CAT#食費", "count"): (2, 7),
    }
    assert reply.json["mismatch_count"] == 7
    assert api.balances() != before["now"]

    # When it is rebuilt
    rebuilt = api.post("/ledger/rebuild")
    # Then the damaged items, and only those, were rewritten
    assert rebuilt.status == 200
    assert (rebuilt.json["complete"], rebuilt.json["written"], rebuilt.json["mismatch_count"]) == (True, 5, 7)
    assert api.post("/ledger/verify").json["ok"] is True
    assert api.balances() == before["now"] and api.balances("2026-11-04") == before["nov4"]
    # And the lock and the marks are gone: the ledger takes slips again
    assert store.core.get(user, "LOCK#ledger") is None
    assert "rebuild" not in (store.core.get(user, "ACCOUNT#cash") or {})
    assert api.slip(date="2026-11-07", kind="expense", amount=100, account="cash").status == 201
    # And a second rebuild has nothing to do
    assert api.post("/ledger/rebuild").json["written"] == 0


def test_rebuild_keeps_budgets_and_sets_spent_and_remaining(api: Client, store: Store, user: str) -> None:
    # Given budgets (one for a month without slips), a refund in a budgeted category, and a damaged total
    november(api)
    api.slip(date="2026-11-07", kind="income", amount=300, account="cash", category="食費", memo="返品")
    food = "/budgets/2026-11/" + quote("食費")
    assert api.put(food, {"limit": 5000, "strict": True}).status == 201
    assert api.put("/budgets/2026-12/" + quote("食費"), {"limit": 3000}).status == 201
    sk = "MONTH#2026-11#CAT#食費"
    corrupt(store, user, sk, "SET #expense = :expense, #spent = :spent, #remaining = :remaining",
            expense=9999, spent=9999, remaining=-4999)  # fmt: skip
    found = api.post("/ledger/verify").json["mismatches"]
    assert {(m["item"], m["field"]): (m["expected"], m["actual"]) for m in found} == {
        (sk, "expense"): (2000, 9999),
        (sk, "spent"): (1700, 9999),
        (sk, "remaining"): (3300, -4999),
    }
    # When the ledger is rebuilt
    assert api.post("/ledger/rebuild").json["written"] == 1
    # Then the budget stays, spent = expense - income, remaining = limit - spent
    item = store.core.get(user, sk)
    assert item is not None
    assert (item["limit"], item["strict"], item["expense"], item["income"]) == (5000, True, 2000, 300)
    assert (item["spent"], item["remaining"]) == (1700, 3300)
    listed = {b["category"]: b for b in api.get("/budgets", query={"month": "2026-11"}).json["items"]}
    assert (listed["食費"]["spent"], listed["食費"]["remaining"], listed["食費"]["strict"]) == (1700, 3300, True)
    december = store.core.get(user, "MONTH#2026-12#CAT#食費")
    assert december is not None and (december["limit"], december["remaining"]) == (3000, 3000)
    assert api.post("/ledger/verify").json["ok"] is True
    # And the strict budget still holds: 3300 left, 3301 is refused
    over = api.slip(date="2026-11-20", kind="expense", amount=3301, account="cash", category="食費")
    assert over.status == 409 and over.json["code"] == "budget_exceeded"


class Paused:
    """A client whose first transaction (the rebuild marking the accounts) is followed by a pause
    until the test says go: the window in which a rebuild holds the ledger."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.marked = threading.Event()
        self.go = threading.Event()
        self.calls = 0

    def transact_write_items(self, **request: Any) -> Any:
        result = self._client.transact_write_items(**request)
        self.calls += 1
        if self.calls == 1:
            self.marked.set()
            assert self.go.wait(timeout=60)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_slip_changes_during_a_rebuild_get_423_and_never_interleave(api: Client, store: Store, user: str) -> None:
    # Given a ledger with a damaged day total, and a slip to edit
    november(api)
    lunch = api.slip(date="2026-11-08", kind="expense", amount=900, account="cash", category="食費")
    where = lunch.header("Location")
    assert where is not None
    corrupt(store, user, "DAY#cash#2026-11-03", "SET #delta = :delta", delta=0)
    # When a rebuild has marked the accounts and is about to read the slips
    paused = Paused(store.core.client)
    result: dict[str, Any] = {}
    rebuild = threading.Thread(
        target=lambda: result.update(integrity.rebuild(Store(paused, store.core.table), WriteContext.personal(user)))  # type: ignore[arg-type]
    )
    rebuild.start()
    try:
        assert paused.marked.wait(timeout=60)
        # Then every kind of slip change is refused with 423 and a Retry-After
        refused = [
            api.slip(date="2026-11-09", kind="expense", amount=100, account="cash"),
            api.slip(date="2026-11-09", kind="transfer", amount=100, account="suica", to_account="cash"),
            api.patch(where, {"category": "外食"}, headers={"If-Match": '"1"'}),  # moves no money
            api.patch(where, {"memo": "memo only"}, headers={"If-Match": '"1"'}),
            api.patch(where, {"amount": 950}, headers={"If-Match": '"1"'}),
            api.delete(where, headers={"If-Match": '"1"'}),
            api.post("/accounts", {"id": "nanaco", "name": "nanaco", "type": "emoney"}),
            api.post(
                "/imports",
                raw="date,kind,amount,account,to_account,category,memo\n2026-11-09,expense,100,cash,,,\n",
                headers={"Content-Type": "text/csv"},
            ),
            api.post("/ledger/rebuild"),
        ]
        for reply in refused:
            assert reply.status == 423, reply
            assert reply.json["code"] == "locked"
            assert 1 <= int(reply.header("Retry-After") or 0) <= 60
        # And reads still work
        assert api.get("/balances").status == 200
    finally:
        paused.go.set()
        rebuild.join(timeout=60)
    # Then the rebuild saw none of them and repaired the ledger; nothing was half-applied
    assert result["complete"] is True and result["written"] == 1
    assert api.get(where).json["version"] == 1
    assert [a["id"] for a in api.get("/accounts").json["items"]] == ["cash", "suica"]
    assert api.post("/ledger/verify").json["ok"] is True
    # And once it is done, the same changes go through
    assert api.patch(where, {"category": "外食"}, headers={"If-Match": '"1"'}).status == 200
    assert api.slip(date="2026-11-09", kind="expense", amount=100, account="cash").status == 201
    assert api.post("/ledger/verify").json["ok"] is True


def test_marks_of_a_rebuild_that_died_expire_and_the_next_rebuild_takes_over(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the store's clock standing still (leases run out when the test says, however slow the machine)
    november(api)
    frozen = [store.core.now_ms()]
    monkeypatch.setattr(StoreCore, "now_ms", lambda self: frozen[0])
    # and a rebuild that marked the accounts and died without cleaning up (short lease)
    lease = store.locks.acquire_lock(user, LEDGER_LOCK, ttl=1.5)
    store.write.record(Bookkeeping(user), [store.rebuild.mark_op(lease, "cash"), store.rebuild.mark_op(lease, "suica")])
    blocked = api.slip(date="2026-11-09", kind="expense", amount=100, account="cash")
    assert blocked.status == 423 and blocked.header("Retry-After") == "2"  # 1.5 s left, in whole seconds
    assert api.post("/ledger/rebuild").status == 423
    # When its lease has run out
    frozen[0] += 1600
    # Then slips are taken again, and a new rebuild takes over (and clears the stale marks)
    assert api.slip(date="2026-11-09", kind="expense", amount=100, account="cash").status == 201
    assert api.post("/ledger/rebuild").status == 200
    assert "rebuild" not in (store.core.get(user, "ACCOUNT#suica") or {})
    assert store.core.get(user, "LOCK#ledger") is None


def test_a_rebuild_that_lost_its_lease_writes_nothing(api: Client, store: Store, user: str) -> None:
    # Given a damaged ledger, and a rebuild that stalls for a whole lease after reading the slips
    november(api)
    corrupt(store, user, "DAY#cash#2026-11-03", "SET #delta = :delta", delta=0)
    now = [time.time()]
    late = Store(store.core.client, store.core.table, clock=lambda: now[0])
    original = late.rebuild.set_balance_op

    def stall_then_write(lease: Any, key: Any, values: Any) -> Any:
        now[0] += integrity.LEASE_SECONDS
        return original(lease, key, values)

    late.rebuild.set_balance_op = stall_then_write  # type: ignore[method-assign]
    # When it tries to write: refused, it says why, and it cleaned up after itself
    with pytest.raises(errors.Conflict, match="lock was lost"):
        integrity.rebuild(late, WriteContext.personal(user))
    assert store.core.get(user, "DAY#cash#2026-11-03")["delta"] == 0  # type: ignore[index]
    assert store.core.get(user, "LOCK#ledger") is None
    assert api.slip(date="2026-11-09", kind="expense", amount=100, account="cash").status == 201


def test_verify_does_not_report_what_a_concurrent_write_showed_only_once(store: Store, user: str) -> None:
    # Given a ledger with one real fault
    api = Client(user)
    november(api)
    corrupt(store, user, "ACCOUNT#suica", "SET #balance = :balance", balance=1)

    class HalfApplied:
        """The first full read sees a day total that a transaction had changed but not its slip."""

        def __init__(self, client: Any) -> None:
            self._client = client
            self.reads = 0

        def query(self, **request: Any) -> Any:
            result = self._client.query(**request)
            self.reads += 1
            if self.reads == 1:
                result = copy.deepcopy(result)
                for item in result["Items"]:
                    if item["SK"]["S"] == "DAY#cash#2026-11-06":
                        item["delta"] = {"N": "1500"}
            return result

        def __getattr__(self, name: str) -> Any:
            return getattr(self._client, name)

    # When it is verified, the first read seeing the half-applied change
    client = HalfApplied(store.core.client)
    report = integrity.verify(Store(client, store.core.table), user)  # type: ignore[arg-type]
    # Then only the real fault is reported, confirmed by a second read (the third reads the journal,
    # the fourth the reconciliations that may no longer hold)
    assert client.reads == 4
    assert [(m["item"], m["field"]) for m in report["mismatches"]] == [("ACCOUNT#suica", "balance")]


def test_a_failing_unmark_still_frees_the_other_accounts_and_the_lock(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a ledger, and a rebuild whose first unmark fails (DynamoDB busy)
    november(api)
    real = store.rebuild.unmark
    calls: list[str] = []

    def flaky(lease: Any, account: str) -> bool:
        calls.append(account)
        if len(calls) == 1:
            raise errors.Conflict("busy")
        return real(lease, account)

    monkeypatch.setattr(store.rebuild, "unmark", flaky)
    # When it runs
    integrity.rebuild(store, WriteContext.personal(user))
    # Then every other account was unmarked and the lock released: the next rebuild can start
    assert calls == ["cash", "suica"]
    assert store.core.get(user, "ACCOUNT#suica", consistent=True).get("rebuild") is None  # type: ignore[union-attr]
    monkeypatch.setattr(store.rebuild, "unmark", real)
    assert integrity.rebuild(store, WriteContext.personal(user))["complete"] is True


def test_a_ledger_written_before_the_slip_index_is_indexed_by_rebuild(api: Client, store: Store, user: str) -> None:
    # Given a ledger whose slips were written before the slip index (no index entries, an unmarked
    # counter), a stray entry that no slip has, and an item of the index's former one-item-per-slip
    # layout
    november(api)
    assert unindex(store, user) == 20
    stray = {"PK": pk(user), "SK": "YC#食費#2026-11-09#0000000003", "99": "X"}
    store.core.client.put_item(TableName=store.core.table, Item=to_ddb(stray))
    store.core.client.put_item(
        TableName=store.core.table, Item=to_ddb({"PK": pk(user), "SK": "XC#食費#2026-11-09#0000000099#X"})
    )
    before = [s["id"] for s in api.get("/slips", query={"category": "食費"}).json["items"]]
    # When it is verified
    found = api.post("/ledger/verify").json
    # Then each missing entry, the stray one, the former layout's item and the counter's marks are named
    problems = {(m["item"].split("#")[0], m["field"], m["expected"], m["actual"]) for m in found["mismatches"]}
    assert not found["ok"] and found["mismatch_count"] == 24
    assert {(item, expected, actual) for item, _, expected, actual in problems} == {
        ("YA", 1, 0), ("YC", 1, 0), ("YK", 1, 0), ("YB", 1, 0), ("YC", 0, 1), ("XC", 0, 1), ("SEQ", 2, 0),
        ("SEQ", 1, 0),
    }  # fmt: skip
    assert {field for item, field, _, _ in problems if item == "SEQ"} == {"indexed", "cleared_indexed"}
    # And filtered lists still answer right meanwhile, from the slips themselves
    assert len(before) == 2
    # When it is rebuilt
    rebuilt = api.post("/ledger/rebuild")
    # Then the index is what the slips say, the ledger verifies, and lists read the index
    # (one write per index item: those of the slips' entries, the stray entry's, the former item's delete)
    slips = [i for i in store.core.query(user) if i["SK"].startswith("SLIP#")]
    items = {entry_parts(e)[0] for s in slips for e in slip_index_sks(s)}
    assert rebuilt.status == 200 and rebuilt.json["index"] == len(items) + 2 and rebuilt.json["complete"], rebuilt
    assert not any(i["SK"].startswith("XC#") for i in store.core.query(user, projection="SK"))
    verified = api.post("/ledger/verify").json
    assert verified["ok"] is True and verified["mismatches"] == [] and verified["journal"]["mismatches"] == []
    assert invariants.check(store, user) == []
    operations: list[str] = []

    def seen(model: Any, **kwargs: Any) -> None:
        operations.append(model.name)

    store.core.client.meta.events.register("before-call.dynamodb", seen)
    try:
        after = [s["id"] for s in api.get("/slips", query={"category": "食費"}).json["items"]]
    finally:
        store.core.client.meta.events.unregister("before-call.dynamodb", seen)
    assert after == before and operations == ["GetItem", "Query", "BatchGetItem"]  # GetItem: the person's tombstone


def test_a_ledger_indexed_one_item_per_slip_lists_from_its_slips_until_rebuilt(
    api: Client, store: Store, user: str
) -> None:
    # Given a ledger whose slip counter says it was indexed in the former layout (`indexed: true`),
    # whose slips have no entries in the present one
    november(api)
    unindex(store, user)
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": pk(user), "SK": "SEQ#slip"}),
        UpdateExpression="SET #ix = :true",
        ExpressionAttributeNames={"#ix": "indexed"},
        ExpressionAttributeValues={":true": {"BOOL": True}},
    )
    everything = api.get("/slips").json["items"]
    # When its slips are listed by category, Then the list is still right (read from the slips)
    food = [s["id"] for s in api.get("/slips", query={"category": "食費"}).json["items"]]
    assert food == [s["id"] for s in everything if s["category"] == "食費"] and len(food) == 2
    # And verify names the counter's mark: the present layout's number is expected
    found = api.post("/ledger/verify").json
    assert {"item": "SEQ#slip", "field": "indexed", "expected": 2, "actual": 0} in found["mismatches"]
    # When it is rebuilt, Then the counter says the present layout and the list reads the index
    assert api.post("/ledger/rebuild").json["complete"] is True
    assert store.core.get(user, "SEQ#slip", consistent=True)["indexed"] == 2  # type: ignore[index]
    assert [s["id"] for s in api.get("/slips", query={"category": "食費"}).json["items"]] == food
    assert api.post("/ledger/verify").json["ok"] is True and invariants.check(store, user) == []
