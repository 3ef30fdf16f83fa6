"""Month x subcategory totals on DynamoDB Local: kept by every slip change, checked by verify and
repaired by rebuild like every other balance item."""

from __future__ import annotations

from kakeibo.services import integrity
from kakeibo.store import Store, WriteContext
from tests import invariants
from tests.events import Client

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
SK = "MONTH#2026-11#SUB#食費#外食"


def test_verify_finds_a_damaged_or_missing_subcategory_total_and_rebuild_repairs_it(
    api: Client, store: Store, user: str
) -> None:
    # Given two lunches out and a refund among them, every total consistent
    api.account("cash", 50_000)
    api.slip(**LUNCH, subcategory="外食")
    api.slip(**{**LUNCH, "amount": 800}, subcategory="外食")
    api.slip(**{**LUNCH, "kind": "income", "amount": 300}, subcategory="外食")
    item = store.core.get(user, SK)
    assert item is not None and (item["expense"], item["income"], item["count"]) == (2000, 300, 3)
    assert integrity.verify(store, user)["ok"]
    # When the subcategory total is damaged
    store.core.client.update_item(
        TableName=store.core.table,
        Key={"PK": {"S": f"LEDGER#{user}"}, "SK": {"S": SK}},
        UpdateExpression="SET #e = :v",
        ExpressionAttributeNames={"#e": "expense"},
        ExpressionAttributeValues={":v": {"N": "1"}},
    )
    # Then verify names it
    found = integrity.verify(store, user)
    assert found["mismatches"] == [{"item": SK, "field": "expense", "expected": 2000, "actual": 1}]
    # And rebuild writes it back
    rebuilt = integrity.rebuild(store, WriteContext.personal(user))
    assert (rebuilt["complete"], rebuilt["written"]) == (True, 1)
    assert integrity.verify(store, user)["ok"]
    # When it is lost altogether, Then verify sees every field missing and rebuild recreates it
    store.core.client.delete_item(TableName=store.core.table, Key={"PK": {"S": f"LEDGER#{user}"}, "SK": {"S": SK}})
    assert {m["field"] for m in integrity.verify(store, user)["mismatches"]} == {"income", "expense", "count"}
    integrity.rebuild(store, WriteContext.personal(user))
    assert integrity.verify(store, user)["ok"] and invariants.check(store, user) == []
    report = api.get("/reports/monthly", query={"month": "2026-11"}).json
    assert report["by_category"][0]["subcategories"] == [{"subcategory": "外食", "income": 300, "expense": 2000}]
