"""Rules (自動分類): made, read, changed, ordered and removed under ETags; bad rules refused with
nothing written; at most 200 per ledger."""

from __future__ import annotations

from typing import Any

from kakeibo.models import SlipRuleIn
from kakeibo.services import rules as service
from kakeibo.store import Store, WriteContext
from tests.events import Client

MARUETSU = {
    "name": "マルエツは食費",
    "conditions": [{"field": "imported_payee", "op": "contains", "value": "ﾏﾙｴﾂ"}],
    "actions": {"payee": "マルエツ", "category": "食費"},
}
RENAME = {
    "conditions": [{"field": "imported_payee", "op": "starts_with", "value": "ｽｰﾊﾟｰ"}],
    "actions": {"payee": "スーパー"},
    "stage": "pre",
}


def test_a_rule_is_made_read_changed_ordered_and_removed(api: Client) -> None:
    # Given a ledger without rules
    assert api.get("/rules").json == {"items": [], "version": 0}
    # When two rules are made, one in the pre stage
    food = api.post("/rules", MARUETSU)
    rename = api.post("/rules", RENAME)
    assert food.status == rename.status == 201, (food, rename)
    assert food.etag == '"1"' and food.header("Location") == f"/rules/{food.json['id']}"
    # Then the list shows them in the order they run (pre first), with the rule set's version
    listed = api.get("/rules")
    assert [r["id"] for r in listed.json["items"]] == [rename.json["id"], food.json["id"]]
    assert listed.etag == '"2"' and listed.json["version"] == 2
    assert api.get(food.header("Location") or "").json["conditions"] == MARUETSU["conditions"]
    # When one is changed under a stale version, Then 412 and nothing changes
    where = food.header("Location") or ""
    stale = api.patch(where, {"stage": "post"}, headers={"If-Match": '"7"'})
    assert stale.status == 412 and stale.json["current"] == 1
    # When it is changed under its version, Then it runs after the other stages' rules
    moved = api.patch(where, {"stage": "post", "actions": {"category": "日用品"}}, headers={"If-Match": '"1"'})
    assert moved.status == 200 and moved.etag == '"2"', moved
    assert moved.json["actions"] == {"category": "日用品"}
    # When the rule set is reordered under a stale set version, Then 412
    ids = [rename.json["id"], food.json["id"]]
    assert api.put("/rules/order", {"ids": ids[::-1]}, headers={"If-Match": '"2"'}).status == 412
    # And an order that misses a rule is refused, naming ids
    missing = api.put("/rules/order", {"ids": ids[:1]}, headers={"If-Match": '"3"'})
    assert missing.status == 422 and missing.json["errors"][0]["loc"] == ["body", "ids"]
    ordered = api.put("/rules/order", {"ids": ids[::-1]}, headers={"If-Match": '"3"'})
    assert ordered.status == 200 and ordered.etag == '"4"', ordered
    # When a rule is removed, Then it is gone and the set moves on
    assert api.delete(where, headers={"If-Match": '"2"'}).status == 204
    assert api.get(where).status == 404
    after = api.get("/rules").json
    assert [r["id"] for r in after["items"]] == [rename.json["id"]] and after["version"] == 5
    # And every change is in the journal as a rule change
    kinds = [(e["changes"][0]["type"], e["changes"][0]["op"]) for e in api.get("/changes").json["changes"]]
    assert kinds == [("rule", "create"), ("rule", "create"), ("rule", "update"), ("rule", "update"), ("rule", "delete")]


def _bad(conditions: list[dict[str, Any]] | None = None, actions: Any = None) -> dict[str, Any]:
    return {"conditions": conditions or MARUETSU["conditions"], "actions": actions or {"category": "食費"}}


def test_bad_rules_are_refused_naming_what_is_wrong_and_nothing_is_written(api: Client) -> None:
    # Given a ledger with one rule
    assert api.post("/rules", MARUETSU).status == 201
    cases = [
        # an unknown field, an unknown op
        (_bad([{"field": "date", "op": "is", "value": "x"}]), ["body", "conditions", "0", "field"]),
        (_bad([{"field": "payee", "op": "regex", "value": "x"}]), ["body", "conditions", "0", "op"]),
        # a value that reads like a pattern where the op takes text; an op the field does not take
        (_bad([{"field": "payee", "op": "contains", "value": "^セブン.*"}]), ["body", "conditions", "0", "value"]),
        (_bad([{"field": "memo", "op": "between", "value": [1, 2]}]), ["body", "conditions", "0", "op"]),
        (_bad([{"field": "amount", "op": "between", "value": [900, 100]}]), ["body", "conditions", "0", "value"]),
        # a category that is not text; an action a rule does not take
        (_bad(actions={"category": 5}), ["body", "actions", "category"]),
        (_bad(actions={"colour": "red"}), ["body", "actions", "colour"]),
    ]
    for body, loc in cases:
        # When it is sent, in English and in Japanese
        reply = api.post("/rules", body)
        ja = api.post("/rules", body, headers={"Accept-Language": "ja"})
        # Then 422 names the field in words, never a type name
        assert reply.status == ja.status == 422, (body, reply)
        assert [str(p) for p in reply.json["errors"][0]["loc"]] == loc, (body, reply.json)
        assert "SlipRule" not in reply.json["detail"] and "Slip" not in ja.json["detail"]
        assert ja.json["detail"] != reply.json["detail"], ja.json
    # And nothing was written
    assert len(api.get("/rules").json["items"]) == 1 and api.get("/rules").json["version"] == 1


def test_the_201st_rule_is_refused(api: Client, store: Store, user: str) -> None:
    # Given a ledger with 200 rules
    ctx = WriteContext.personal(user)
    body = SlipRuleIn.model_validate(MARUETSU)
    for _ in range(200):
        service.create_rule(store, ctx, body)
    # When one more is made, Then 409 limit_reached and the ledger still has 200
    reply = api.post("/rules", MARUETSU)
    assert reply.status == 409 and reply.json["code"] == "limit_reached", reply
    listed = api.get("/rules").json
    assert len(listed["items"]) == 200 and listed["version"] == 200

