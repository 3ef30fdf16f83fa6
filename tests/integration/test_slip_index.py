"""Filtered slip lists read the slip index: about one page's worth of items, whatever the ledger's
size, in the same order and with the same cursors as an unfiltered list; the index follows every
create, change, move and delete in the slip's own transaction."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.store import Store
from kakeibo.store.keys import is_index_sk, item_entries
from tests.conftest import WITH_FIXTURES
from tests.events import Client

ACCOUNTS = ("cash", "bank", "card")
CATEGORIES = ("食費", "日用品", "交通")
DAYS = tuple(f"2026-11-{d:02d}" for d in (1, 2, 2, 3, 5))


def pages(api: Client, query: dict[str, Any], base: str = "") -> Iterator[dict[str, Any]]:
    cursor = None
    for _ in range(500):
        reply = api.get(f"{base}/slips", query={**query, **({"cursor": cursor} if cursor else {})})
        assert reply.status == 200, reply
        yield reply.json
        cursor = reply.json["next_cursor"]
        if not cursor:
            return
    raise AssertionError("the cursor never ended")


def listed(api: Client, query: dict[str, Any], base: str = "") -> list[str]:
    return [s["id"] for page in pages(api, query, base) for s in page["items"]]


def matches(slip: dict[str, Any], query: dict[str, Any]) -> bool:
    return (
        query.get("account") in (None, slip["account"], slip["to_account"])
        and query.get("category") in (None, slip["category"])
        and query.get("kind") in (None, slip["kind"])
        and query.get("by") in (None, slip["created_by"], slip["updated_by"])
    )


def slip_body(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(("expense", "income", "transfer")))
    account = draw(st.sampled_from(ACCOUNTS))
    body: dict[str, Any] = {"date": draw(st.sampled_from(DAYS)), "kind": kind, "amount": 100, "account": account}
    if kind == "transfer":
        body["to_account"] = draw(st.sampled_from([a for a in ACCOUNTS if a != account]))
    else:
        body["category"] = draw(st.sampled_from(CATEGORIES))
    return body


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Creates, then changes (any field, the date too) and deletes of the slips created."""
    created = draw(st.integers(3, 12))
    steps: list[tuple[str, Any]] = [("create", slip_body(draw)) for _ in range(created)]
    for _ in range(draw(st.integers(0, 6))):
        target = draw(st.integers(0, created - 1))
        steps.append(draw(st.sampled_from([("change", (target, slip_body(draw))), ("delete", (target, None))])))
    return steps


FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "account": st.sampled_from(ACCOUNTS),
        "category": st.sampled_from(CATEGORIES),
        "kind": st.sampled_from(("expense", "income", "transfer")),
    },
).filter(bool)


@settings(max_examples=8, deadline=None, suppress_health_check=WITH_FIXTURES)
@given(history=histories(), queries=st.lists(FILTERS, min_size=1, max_size=4), limit=st.integers(1, 4))
def test_a_filtered_list_is_the_unfiltered_list_filtered_in_the_same_order(
    local_env: str, history: list[tuple[str, Any]], queries: list[dict[str, Any]], limit: int
) -> None:
    # Given a fresh ledger whose slips were created, changed (moved, re-categorised, turned into
    # transfers) and deleted
    api = Client(f"ix-{uuid.uuid4().hex[:12]}")
    for account in ACCOUNTS:
        api.account(account, 1_000_000, allow_negative=True)
    made: list[dict[str, Any] | None] = []
    for step, arg in history:
        if step == "create":
            reply = api.post("/slips", arg)
            assert reply.status == 201, reply
            made.append(reply.json)
            continue
        target, body = arg
        slip = made[target]
        if slip is None:
            continue
        where, match = f"/slips/{slip['date']}/{slip['id']}", {"If-Match": f'"{slip["version"]}"'}
        if step == "delete":
            assert api.delete(where, headers=match).status == 204
            made[target] = None
        else:
            reply = api.put(where, body, headers=match)
            assert reply.status == 200, reply
            made[target] = reply.json
    whole = [s for page in pages(api, {"limit": 100}) for s in page["items"]]
    for query in queries:
        # When the list is read with filters, `limit` at a time
        got = listed(api, {**query, "limit": limit})
        # Then it is the whole list with only the matching slips, in the same order, each once
        assert got == [s["id"] for s in whole if matches(s, query)], query


def test_a_filtered_page_reads_its_page_not_the_ledger(api: Client, store: Store) -> None:
    # Given 200 cash slips over 100 days and, older than all of them, three bank slips
    api.account("cash", 1_000_000)
    api.account("bank", 1_000_000, type="bank")
    for day in ("2026-01-01", "2026-01-02", "2026-01-02"):
        api.slip(date=day, kind="expense", amount=999, account="bank", category="家賃")
    for i in range(200):
        api.slip(date=f"2026-{3 + i // 60:02d}-{1 + (i // 2) % 28:02d}", kind="expense", amount=10, account="cash",
                 category="食費")  # fmt: skip
    calls: list[tuple[str, int]] = []

    def count(parsed: dict[str, Any], model: Any, **kwargs: Any) -> None:
        returned = parsed.get("Count", len(next(iter(parsed.get("Responses", {}).values()), [])))
        calls.append((model.name, int(returned)))

    store.core.client.meta.events.register("after-call.dynamodb", count)
    try:
        # When the bank's slips are listed two at a time, and 食費 ten at a time
        bank = list(pages(api, {"account": "bank", "limit": 2}))
        bank_calls = list(calls)
        calls.clear()
        food = api.get("/slips", query={"category": "食費", "limit": 10})
    finally:
        store.core.client.meta.events.unregister("after-call.dynamodb", count)
    # Then each request is one Query of the index (the items of the page and one more) and one read of the
    # page's slips (with the ledger's slip counter, which says the index is complete): nothing is
    # read of the 200 other slips
    assert [len(p["items"]) for p in bank] == [2, 1]
    assert bank[0]["next_cursor"] and bank[1]["next_cursor"] is None
    # (each after the person's tombstone, a GetItem every personal ledger's request meets first)
    assert [op for op, _ in bank_calls] == ["GetItem", "Query", "BatchGetItem"] * 2
    # (index items: the first page's two days; then the day the cursor is in and the one before it)
    assert [n for _, n in bank_calls] == [0, 2, 3, 0, 2, 2]
    assert food.status == 200 and len(food.json["items"]) == 10
    assert [op for op, _ in calls] == ["GetItem", "Query", "BatchGetItem"]
    assert [n for _, n in calls] == [0, 11, 11]


def test_index_items_follow_each_change_in_its_transaction(api: Client, store: Store, user: str) -> None:
    # Given an expense
    api.account("cash", 100_000)
    api.account("bank", 100_000, type="bank")
    slip = api.slip(date="2026-11-03", kind="expense", amount=500, account="cash", category="食費").json

    def index() -> set[str]:
        return {entry for i in store.core.query(user) if is_index_sk(i["SK"]) for entry in item_entries(i)}

    first = index()
    assert len(first) == 4  # its account, category, kind and author
    # When its amount and memo change (same author)
    where = f"/slips/{slip['date']}/{slip['id']}"
    changed = api.patch(where, {"amount": 700, "memo": "昼"}, headers={"If-Match": '"1"'})
    # Then no index item changes
    assert changed.status == 200 and index() == first
    # When it becomes a transfer on another day
    moved = api.put(where, {"date": "2026-11-04", "kind": "transfer", "amount": 700, "account": "cash",
                            "to_account": "bank"}, headers={"If-Match": '"2"'})  # fmt: skip
    assert moved.status == 200, moved
    # Then its items are those of the transfer only: both accounts, its kind, its author
    now = index()
    assert len(now) == 4 and not now & first
    assert sum(sk.startswith("YA#") for sk in now) == 2 and all("2026-11-04" in sk for sk in now)
    # When it is deleted, Then none is left
    assert api.delete(f"/slips/2026-11-04/{slip['id']}", headers={"If-Match": '"3"'}).status == 204
    assert index() == set()


def test_a_member_id_or_category_that_looks_like_a_key_reaches_no_other_value(api: Client) -> None:
    # Given a household with two members, one whose id is the other's followed by '#' and a date
    household = api.post("/ledgers", {"name": "山田家"}).header("Location") or ""
    plain, tricky = Client(f"{api.user}-m"), Client(f"{api.user}-m#2026-11-03#")
    for member in (plain, tricky):
        token = api.post(f"{household}/invitations", {"role": "editor"}).json["token"]
        assert member.post(f"/invitations/{token}/accept").status == 200
    assert api.post(f"{household}/accounts", {"id": "cash", "name": "現金", "type": "cash",
                                              "opening_balance": 10_000}).status == 201  # fmt: skip
    lunch = {"date": "2026-11-03", "kind": "expense", "amount": 100, "account": "cash", "category": "食費"}
    mine = plain.post(f"{household}/slips", lunch).json["id"]
    theirs = tricky.post(f"{household}/slips", lunch).json["id"]
    # When each member's slips are listed
    # Then each list holds that member's slip only
    assert listed(api, {"by": plain.user}, household) == [mine]
    assert listed(api, {"by": tricky.user}, household) == [theirs]
    # And a category asked for with '#' in it (none can be stored) lists nothing, not 食費's slips
    assert listed(api, {"category": "食費#2026-11-03#"}, household) == []


def test_a_shared_ledger_import_keeps_each_transaction_within_100_items(api: Client, store: Store) -> None:
    # Given a household with three accounts and a file of 300 rows over many days and categories,
    # transfers among them
    household = api.post("/ledgers", {"name": "山田家"}).header("Location") or ""
    for account in ACCOUNTS:
        body = {"id": account, "name": account, "type": "bank", "opening_balance": 10_000_000}
        assert api.post(f"{household}/accounts", body).status == 201
    lines = ["date,kind,amount,account,to_account,category,memo"]
    for i in range(300):
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        if i % 5 == 0:
            lines.append(f"{day},transfer,10,{ACCOUNTS[i % 3]},{ACCOUNTS[(i + 1) % 3]},,")
        else:
            lines.append(f"{day},expense,10,{ACCOUNTS[i % 3]},,cat{i % 40},")
    sizes: list[int] = []

    def size(params: dict[str, Any], **kwargs: Any) -> None:
        sizes.append(len(params["TransactItems"]))

    store.core.client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", size)
    try:
        # When it is imported (sent again while the answer is 202: short of time on a loaded machine)
        created, reply = 0, None
        while reply is None or reply.status == 202:
            raw = "\n".join(lines) + "\n"
            reply = api.post(f"{household}/imports", raw=raw, headers={"Content-Type": "text/csv"})
            assert reply.status in (200, 202), reply
            created += reply.json["created"]
    finally:
        store.core.client.meta.events.unregister("provide-client-params.dynamodb.TransactWriteItems", size)
    # Then every row is in, through transactions that never exceed DynamoDB's 100 items (the
    # member's check included), most of them nearly full
    assert created == 300, reply
    assert max(sizes) <= 100 and sorted(sizes)[len(sizes) // 2] >= 80, sizes
    assert listed(api, {"category": "cat7", "limit": 100}, household) == [
        s["id"] for s in (p for page in pages(api, {"limit": 100}, household) for p in page["items"])
        if s["category"] == "cat7"
    ]  # fmt: skip


def test_an_import_of_one_day_writes_each_index_item_once(api: Client, store: Store, user: str) -> None:
    # Given a file of 20 expenses of one day in two categories
    api.account("cash", 100_000)
    lines = ["date,kind,amount,account,to_account,category,memo"]
    lines += [f"2026-11-03,expense,{100 + i},cash,,{'食費' if i % 2 else '日用品'},row {i}" for i in range(20)]
    sent: list[dict[str, Any]] = []

    def seen(params: dict[str, Any], **kwargs: Any) -> None:
        sent.extend(params["TransactItems"])

    store.core.client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", seen)
    try:
        # When it is imported
        reply = api.post("/imports", raw="\n".join(lines).encode(), headers={"Content-Type": "text/csv; charset=utf-8"})
    finally:
        store.core.client.meta.events.unregister("provide-client-params.dynamodb.TransactWriteItems", seen)
    assert reply.status == 200 and reply.json["created"] == 20, reply
    # Then each index item was written once, by one update holding all its slips of that day: the
    # account, each category, the kind and the author, in one or two buckets of slip numbers
    written = [
        op["Update"]["Key"]["SK"]["S"] for op in sent if "Update" in op and is_index_sk(op["Update"]["Key"]["SK"]["S"])
    ]
    stored = [i for i in store.core.query(user) if is_index_sk(i["SK"])]
    assert len(written) == len(set(written)) == len(stored) <= 10
    assert sum(len(item_entries(i)) for i in stored) == 20 * 4
