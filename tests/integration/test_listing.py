"""Slip lists on DynamoDB Local: within a day the latest slip number comes first, across pages too;
a filtered list over a large ledger reads a bounded number of slips per request and continues by
cursor."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo.services import slips as service
from kakeibo.store import Store
from tests.events import Client
from tests.legacy import unindex


def all_pages(api: Client, query: dict[str, Any]) -> Iterator[dict[str, Any]]:
    cursor = None
    while True:
        page = api.get("/slips", query={**query, **({"cursor": cursor} if cursor else {})})
        assert page.status == 200, page
        yield page.json
        cursor = page.json["next_cursor"]
        if not cursor:
            return


def test_same_day_slips_list_by_number_across_pages(api: Client) -> None:
    # Given slips of two days posted with Idempotency-Keys (their ids are hashes, in no order)
    api.account("cash", 100_000)
    for i in range(7):
        day = "2026-11-03" if i % 3 else "2026-11-04"
        reply = api.post(
            "/slips",
            {"date": day, "kind": "expense", "amount": 100 + i, "account": "cash"},
            headers={"Idempotency-Key": f"order-{i}"},
        )
        assert reply.status == 201
    # When they are listed whole, and two at a time
    whole = next(all_pages(api, {"limit": 100}))["items"]
    paged = [s for page in all_pages(api, {"limit": 2}) for s in page["items"]]
    # Then the newest day comes first and, within a day, the latest number first
    keys = [(s["date"], s["no"]) for s in whole]
    assert keys == sorted(keys, reverse=True) and len(keys) == 7
    assert [s["id"] for s in paged] == [s["id"] for s in whole]


def test_a_filtered_list_on_a_ledger_not_yet_indexed_reads_a_bounded_number_of_slips_per_request(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 40 cash slips over 20 days, and one bank slip older than all of them, written before
    # the slip index (no rebuild since)
    api.account("cash", 100_000)
    api.account("bank", 100_000, type="bank")
    api.slip(date="2026-10-01", kind="expense", amount=999, account="bank")
    for i in range(40):
        api.slip(date=f"2026-11-{1 + i // 2:02d}", kind="expense", amount=10, account="cash")
    assert unindex(store, user) > 0
    monkeypatch.setattr(service, "MAX_LIST_READ", 10)
    queries: Counter[str] = Counter()
    read: list[int] = []

    def count(parsed: dict[str, Any], **kwargs: Any) -> None:
        read.append(int(parsed.get("ScannedCount", 0)))

    store.core.client.meta.events.register("after-call.dynamodb.Query", count)
    # When the bank's slips are listed
    pages = []
    for page in all_pages(api, {"account": "bank", "limit": 50}):
        pages.append(page)
        queries[len(pages)] = len(read)
    # Then no request read more than the cap and one day's rest (plus one look at the index, which
    # finds the ledger not indexed yet); a cursor carried on each time
    assert len(pages) >= 4
    assert all(not page["items"] for page in pages[:-1])
    assert [s["amount"] for s in pages[-1]["items"]] == [999]
    assert sum(read) <= 41 + 2 * len(pages)
    steps = [queries[1], *(queries[i + 1] - queries[i] for i in range(1, len(pages)))]
    assert max(steps) <= 3


def test_a_forged_cursor_is_400(api: Client) -> None:
    import base64
    import json

    api.account("cash", 100)
    for payload in ({"day": "2026-02-30"}, {"day": "2026-11-01", "below": -1}, {"day": 7}, {"sk": "SLIP#x"}):
        cursor = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
        reply = api.get("/slips", query={"cursor": cursor})
        assert reply.status == 400 and reply.json["code"] == "bad_request", (payload, reply)
    outside = base64.urlsafe_b64encode(b'{"day":"2026-12-01"}').decode().rstrip("=")
    assert api.get("/slips", query={"cursor": outside, "to": "2026-11-30"}).status == 400


def test_an_unfiltered_page_is_usually_one_query(api: Client, store: Store) -> None:
    # Given 30 slips, three a day over ten days
    api.account("cash", 100_000)
    for i in range(30):
        api.slip(date=f"2026-11-{1 + i // 3:02d}", kind="expense", amount=10 + i, account="cash")
    queries: list[str] = []
    store.core.client.meta.events.register("before-call.dynamodb.Query", lambda **kw: queries.append("Query"))
    # When it is listed ten at a time
    pages = list(all_pages(api, {"limit": 10}))
    # Then each page took one Query, and together they are the ledger, newest first, each once
    assert [len(p["items"]) for p in pages] == [10, 10, 10]
    assert len(queries) == 3
    listed = [(s["date"], s["no"]) for p in pages for s in p["items"]]
    assert listed == sorted(listed, reverse=True) and len(set(listed)) == 30
