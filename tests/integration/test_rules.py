"""Rules (自動分類): made, read, changed, ordered and removed under ETags; bad rules refused with
nothing written; at most 200 per ledger."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from kakeibo.models.rules import SlipRuleIn
from kakeibo.services import rules as service
from kakeibo.store import Store, WriteContext
from tests import invariants
from tests.conftest import reset_caches
from tests.events import Client
from tests.integration.test_import_formats import CSV, mf, mf_household, report

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
        # a value holding NUL or BEL, alone or in a list
        (_bad([{"field": "payee", "op": "contains", "value": "セブン\x00"}]), ["body", "conditions", "0", "value"]),
        (_bad([{"field": "memo", "op": "one_of", "value": ["a", "\x07"]}]), ["body", "conditions", "0", "value"]),
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


def test_a_control_character_in_a_condition_value_is_refused_in_words(api: Client) -> None:
    # Given a ledger with one rule
    made = api.post("/rules", MARUETSU)
    assert made.status == 201
    nul = _bad([{"field": "payee", "op": "contains", "value": "セブン\x00"}])
    bel = {"conditions": [{"field": "imported_payee", "op": "is", "value": "\x07"}]}
    # When a rule whose condition value holds NUL is made, in English and in Japanese
    en = api.post("/rules", nul)
    ja = api.post("/rules", nul, headers={"Accept-Language": "ja"})
    # Then 422 names the condition's value and the character, in each language
    assert en.status == ja.status == 422, (en, ja)
    assert en.json["errors"][0]["type"] == "rule_value_character"
    assert "U+0000" in en.json["detail"] and "not allowed" in en.json["detail"], en.json
    assert "U+0000" in ja.json["detail"] and "使えない文字" in ja.json["detail"], ja.json
    # When the rule is changed to a value holding BEL, Then it is refused the same way
    where = f"/rules/{made.json['id']}"
    patched = api.patch(where, bel, headers={"If-Match": '"1"', "Accept-Language": "ja"})
    assert patched.status == 422 and "U+0007" in patched.json["detail"], patched
    # And nothing was written
    assert api.get(where).json == made.json


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


def test_a_money_forward_import_is_categorised_by_the_rules(api: Client, store: Store, user: str) -> None:
    # Given a household with Money Forward's accounts, and rules: ｽｰﾊﾟｰﾏﾙｴﾂ (as the card prints it) is
    # groceries, Amazon is household goods, and a later rule tags large grocery runs
    mf_household(api)
    maruetsu = api.post("/rules", {"conditions": [{"field": "memo", "op": "contains", "value": "スーパーマルエツ"}],
                                   "actions": {"category": "食費", "subcategory": "食料品"}})  # fmt: skip
    amazon = api.post("/rules", {"conditions": [{"field": "memo", "op": "starts_with", "value": "amazon"}],
                                 "actions": {"category": "日用品"}})  # fmt: skip
    big = api.post("/rules", {"match": "all", "stage": "post",
                              "conditions": [{"field": "memo", "op": "contains", "value": "ﾏﾙｴﾂ"},
                                             {"field": "amount", "op": "between", "value": [5000, 100000]}],
                              "actions": {"memo_append": "#まとめ買い"}})  # fmt: skip
    assert maruetsu.status == amazon.status == big.status == 201
    # When a file arrives whose rows Money Forward left 未分類 (and one it categorised itself)
    november = mf(
        "1|2026/11/20|ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ|-6400|楽天カード|未分類|未分類||0|mfR1",
        "1|2026/11/19|ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ|-800|楽天カード|未分類|未分類||0|mfR2",
        "1|2026/11/18|ＡＭＡＺＯＮ．ＣＯ．ＪＰ|-2980|楽天カード|未分類|未分類||0|mfR3",
        "1|2026/11/17|ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ|-1500|楽天カード|外食|外食||0|mfR4",
        "1|2026/11/16|八百屋|-1200|財布|未分類|未分類||0|mfR5",
    )
    imported = api.post("/imports", raw=november, headers=CSV)
    assert imported.status == 200 and imported.json["created"] == 5, imported
    # Then the rows the rules matched are categorised, the file's own category stands, and the result
    # names the rules that changed each row
    ids = maruetsu.json["id"], amazon.json["id"], big.json["id"]
    assert imported.json["ruled"] == [
        {"line": 2, "rules": [ids[0], ids[2]]},
        {"line": 3, "rules": [ids[0]]},
        {"line": 4, "rules": [ids[1]]},
    ]  # line 5 is Money Forward's 外食 (the file's category stands; too small for the tag), line 6 no rule's
    slips = {s["amount"]: s for s in api.get("/slips").json["items"]}
    assert (slips[6400]["category"], slips[6400]["subcategory"]) == ("食費", "食料品")
    assert slips[6400]["memo"].endswith("#まとめ買い")
    assert (slips[800]["category"], slips[2980]["category"]) == ("食費", "日用品")
    assert (slips[1500]["category"], slips[1500]["subcategory"]) == ("外食", "外食")  # Money Forward's own
    assert slips[1200]["category"] == "未分類"  # no rule matched: as the file wrote it
    # And the month's totals count the categories the rules gave, and the ledger is consistent
    by_category = {c["category"]: c["expense"] for c in report(api, "2026-11")["by_category"]}
    assert by_category["食費"] == 7200 and by_category["日用品"] == 2980
    assert invariants.check(store, user) == []
    # When the same file is imported again, Then nothing is created or changed
    again = api.post("/imports", raw=november, headers=CSV)
    assert (again.json["created"], again.json["skipped"], again.json["changed"]) == (0, 5, 0), again


def test_a_long_file_whose_rows_the_rules_spread_over_many_categories_is_imported_in_whole_batches(
    api: Client, store: Store, user: str
) -> None:
    # Given five rules that give five categories, and a year of uncategorised rows, a shop a row
    assert api.post("/accounts", {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10**9}).status == 201
    shops = ["ｼｮｯﾌﾟA", "ｼｮｯﾌﾟB", "ｼｮｯﾌﾟC", "ｼｮｯﾌﾟD", "ｼｮｯﾌﾟE"]
    for shop, category in zip(shops, ["食費", "日用品", "交通費", "外食", "医療"], strict=True):
        body = {"conditions": [{"field": "memo", "op": "is", "value": shop}], "actions": {"category": category}}
        assert api.post("/rules", body).status == 201
    lines = ["date,kind,amount,account,to_account,category,memo"]
    lines += [f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d},expense,{100 + i},cash,,,{shops[i % 5]}" for i in range(300)]
    # When it is imported (a batch's items are counted from the rows as the rules make them)
    # (run again while it answers partial: an import stops when its time runs short, whatever the machine)
    created, ruled = 0, set()
    for _ in range(20):
        imported = api.post("/imports", raw="\n".join(lines) + "\n", headers=CSV)
        assert imported.status in (200, 202), imported
        created += imported.json["created"]
        ruled |= {row["line"] for row in imported.json["ruled"]}
        if imported.status == 200:
            break
    # Then every row is created once and categorised by the rules, and the ledger is consistent
    assert imported.status == 200 and created == 300 and len(ruled) == 300, imported
    assert invariants.check(store, user) == []


def test_a_slip_posted_is_ruled_and_what_the_caller_sent_stands(api: Client, store: Store, user: str) -> None:
    # Given a rule: the convenience store (written as a card prints it) is 食費 > 間食, tagged in the memo
    api.account("cash", 10_000)
    actions = {"category": "食費", "subcategory": "間食", "memo_append": "#コンビニ"}
    seven = api.post("/rules", {"conditions": [{"field": "payee", "op": "starts_with", "value": "ｾﾌﾞﾝｲﾚﾌﾞﾝ"}],
                                "actions": actions})  # fmt: skip
    assert seven.status == 201, seven
    # When a slip is posted with the payee and no category
    made = api.slip(date="2026-11-20", kind="expense", amount=398, account="cash", payee="セブンイレブン 川口店")
    # Then the rule filled the category and subcategory and tagged the memo; the payee is as sent
    assert made.status == 201, made
    assert (made.json["category"], made.json["subcategory"], made.json["memo"]) == ("食費", "間食", "#コンビニ")
    assert made.json["payee"] == "セブンイレブン 川口店" and "imported_payee" not in made.json
    # When a slip of that payee is posted with a category of the caller's own
    own = api.slip(date="2026-11-21", kind="expense", amount=1200, account="cash", category="日用品",
                   payee="セブンイレブン", memo="電池")  # fmt: skip
    # Then the caller's category stands (no subcategory of the rule's slipped under it), the memo is added to
    assert own.status == 201, own
    assert (own.json["category"], own.json.get("subcategory"), own.json["memo"]) == ("日用品", None, "電池 #コンビニ")
    # And a slip no rule matches is as sent
    other = api.slip(date="2026-11-22", kind="expense", amount=500, account="cash", payee="八百屋")
    assert other.status == 201 and other.json["category"] == "uncategorized" and other.json.get("memo") is None
    # And the month's totals count the category the rule gave
    by_category = {c["category"]: c["expense"] for c in report(api, "2026-11")["by_category"]}
    assert by_category["食費"] == 398 and by_category["日用品"] == 1200
    assert invariants.check(store, user) == []


def test_an_idempotent_post_replays_whatever_the_rules_did_since(api: Client) -> None:
    # Given a slip posted under an Idempotency-Key, with no rules yet
    api.account("cash", 10_000)
    body = {"date": "2026-11-20", "kind": "expense", "amount": 398, "account": "cash", "payee": "ﾛｰｿﾝ"}
    key = {"Idempotency-Key": "k-lawson-1"}
    first = api.post("/slips", body, headers=key)
    assert first.status == 201 and first.json["category"] == "uncategorized"
    # When a rule for that payee is made and the same request is sent again
    assert api.post("/rules", {"conditions": [{"field": "payee", "op": "is", "value": "ローソン"}],
                               "actions": {"category": "食費"}}).status == 201  # fmt: skip
    again = api.post("/slips", body, headers=key)
    # Then it is the same slip, not refused as another body
    assert again.status == 201 and again.json["id"] == first.json["id"], again


def test_slips_are_found_by_payee_normalised_and_exported_with_it(api: Client) -> None:
    # Given slips of one shop written three ways, and one of another shop
    api.account("cash", 50_000)
    for day, payee in ((1, "スーパーマルエツ"), (2, "ｽｰﾊﾟｰﾏﾙｴﾂ"), (3, "スーパーマルエツ"), (4, "八百屋")):
        assert api.slip(date=f"2026-11-0{day}", kind="expense", amount=100 * day, account="cash",
                        payee=payee).status == 201  # fmt: skip
    # When the slips are listed by payee, as a card prints it
    found = api.get("/slips", query={"payee": "ｽｰﾊﾟｰﾏﾙｴﾂ"})
    # Then the shop's three slips come, newest first, and the other shop's do not
    assert found.status == 200, found
    assert [s["amount"] for s in found.json["items"]] == [300, 200, 100]
    # And with another filter beside it, and a page at a time
    paged = api.get("/slips", query={"payee": "スーパーマルエツ", "kind": "expense", "limit": "2"})
    assert [s["amount"] for s in paged.json["items"]] == [300, 200] and paged.json["next_cursor"]
    # When a payee is changed by PATCH, Then the list follows it
    slip = api.get("/slips", query={"payee": "八百屋"}).json["items"][0]
    where = f"/slips/{slip['date']}/{slip['id']}"
    assert api.patch(where, {"payee": "ＳＵＰＥＲマルエツ"}, headers={"If-Match": f'"{slip["version"]}"'}).status == 200
    assert [s["amount"] for s in api.get("/slips", query={"payee": "superマルエツ"}).json["items"]] == [400]
    assert api.get("/slips", query={"payee": "八百屋"}).json["items"] == []
    # And the CSV export carries the payee, and imports back onto the same slips
    exported = api.get("/slips.csv")
    header = exported.raw.decode("utf-8-sig").splitlines()[0]
    assert header.endswith(",payee,imported_payee,cleared,to_cleared"), header
    assert "ｽｰﾊﾟｰﾏﾙｴﾂ" in exported.raw.decode("utf-8-sig")
    again = api.post("/imports", raw=exported.raw, headers=CSV)
    assert (again.json["created"], again.json["skipped"]) == (0, 4), again
    # And a payee too long is refused naming the field
    long = api.slip(date="2026-11-05", kind="expense", amount=1, account="cash", payee="店" * 101)
    assert long.status == 422 and long.json["errors"][0]["loc"][-1] == "payee", long


def test_imported_rows_keep_the_file_payee_and_the_dry_run_names_the_rules(api: Client) -> None:
    # Given Money Forward's accounts and a pre-stage rule that renames what the card prints
    mf_household(api)
    rename = api.post("/rules", {"conditions": [{"field": "imported_payee", "op": "starts_with", "value": "ｽｰﾊﾟｰ"}],
                                 "actions": {"payee": "マルエツ"}, "stage": "pre"})  # fmt: skip
    food = api.post("/rules", {"conditions": [{"field": "payee", "op": "is", "value": "マルエツ"}],
                               "actions": {"category": "食費"}})  # fmt: skip
    assert rename.status == food.status == 201
    november = mf(
        "1|2026/11/20|ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ|-6400|楽天カード|未分類|未分類||0|mfP1",
        "1|2026/11/19|八百屋|-800|財布|未分類|未分類||0|mfP2",
    )
    # When the file is previewed
    dry = api.post("/imports", raw=november, headers=CSV, query={"dry_run": "true"})
    # Then the dry run names the rules that would touch each row, and shows the row as they leave it
    assert dry.status == 200, dry
    assert dry.json["ruled"] == [{"line": 2, "rules": [rename.json["id"], food.json["id"]]}]
    row = next(o for o in dry.json["outcomes"] if o["line"] == 2)
    assert row["rules"] == [rename.json["id"], food.json["id"]]
    assert (row["slip"]["payee"], row["slip"]["imported_payee"], row["slip"]["category"]) == (
        "マルエツ", "ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ", "食費",
    )  # fmt: skip
    # When it is imported, Then the slip has the renamed payee beside the file's own text
    imported = api.post("/imports", raw=november, headers=CSV)
    assert imported.status == 200 and imported.json["ruled"] == dry.json["ruled"], imported
    slips = {s["amount"]: s for s in api.get("/slips").json["items"]}
    assert (slips[6400]["payee"], slips[6400]["imported_payee"]) == ("マルエツ", "ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ")
    assert (slips[800]["payee"], slips[800]["imported_payee"]) == ("八百屋", "八百屋")
    # And a PATCH may rename the payee but the file's text stays
    where = f"/slips/{slips[800]['date']}/{slips[800]['id']}"
    patched = api.patch(where, {"payee": "八百屋さん"}, headers={"If-Match": f'"{slips[800]["version"]}"'})
    assert (patched.json["payee"], patched.json["imported_payee"]) == ("八百屋さん", "八百屋")
    # And the same file again creates and changes nothing
    again = api.post("/imports", raw=november, headers=CSV)
    assert (again.json["created"], again.json["skipped"], again.json["changed"]) == (0, 2, 0), again


SEVEN = {"conditions": [{"field": "payee", "op": "starts_with", "value": "セブン"}], "actions": {"category": "食費"}}


def _seven_slips(api: Client) -> dict[str, dict[str, Any]]:
    """Slips made before any rule: two of the convenience store uncategorised (one as a card prints
    it), one it categorised by hand, and another shop's."""
    api.account("cash", 50_000)
    made = {}
    for name, payee, category in (("a", "ｾﾌﾞﾝｲﾚﾌﾞﾝ", None), ("b", "セブンイレブン", None),
                                  ("c", "セブンイレブン", "日用品"), ("d", "八百屋", None)):  # fmt: skip
        body = {"date": "2026-11-10", "kind": "expense", "amount": 100, "account": "cash", "payee": payee}
        reply = api.post("/slips", {**body, **({"category": category} if category else {})})
        assert reply.status == 201, reply
        made[name] = reply.json
    return made


def test_a_rule_previewed_writes_nothing_and_applied_changes_each_slip_once(
    api: Client, store: Store, user: str
) -> None:
    # Given slips made before the rule, and the rule
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    before = invariants.ledger_items(store, user)
    # When the rule is previewed
    preview = api.post(f"/rules/{rule['id']}/preview")
    # Then it lists the two uncategorised slips of the shop, before and after, and writes nothing
    assert preview.status == 200, preview
    assert (preview.json["examined"], preview.json["changed"]) == (4, 2)
    listed = {i["id"]: i for i in preview.json["items"]}
    assert set(listed) == {made["a"]["id"], made["b"]["id"]}
    assert listed[made["a"]["id"]]["before"] == {"category": "uncategorized"}
    assert listed[made["a"]["id"]]["after"] == {"category": "食費"}
    assert listed[made["a"]["id"]]["rules"] == [rule["id"]]
    assert invariants.ledger_items(store, user) == before
    # And a range that holds none of them lists nothing; all the rules together list the same
    assert api.post(f"/rules/{rule['id']}/preview", query={"to": "2026-11-09"}).json["changed"] == 0
    assert api.post("/rules/preview").json["items"] == preview.json["items"]
    # When it is applied
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then those two change (in one batch: one journal entry), the one categorised by hand stays
    assert applied.status == 200 and applied.json["complete"] is True, applied
    assert applied.json["changed"] == 2 and len(applied.json["entries"]) == 1 and applied.json["failed"] == []
    slips = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert [slips[made[k]["id"]]["category"] for k in "abcd"] == ["食費", "食費", "日用品", "uncategorized"]
    by_category = {c["category"]: c["expense"] for c in report(api, "2026-11")["by_category"]}
    assert by_category["食費"] == 200 and invariants.check(store, user) == []
    # When it is applied again, Then nothing changes: no entry, no new version
    again = api.post(f"/rules/{rule['id']}/apply")
    assert (again.json["changed"], again.json["entries"]) == (0, []), again
    assert api.get("/slips").json["items"] == list(slips.values())
    # And a rule that is not the ledger's is 404
    assert api.post("/rules/01KAJ0000000000000000000ZZ/apply").status == 404


def test_undo_takes_an_applied_batch_back(api: Client, store: Store, user: str) -> None:
    # Given a rule applied to slips made before it
    made = _seven_slips(api)
    api.post("/rules", SEVEN)
    applied = api.post("/rules/apply").json
    (seq,) = applied["entries"]
    entry = api.get("/changes", query={"since": str(seq - 1)}).json["changes"][0]
    assert {c["id"] for c in entry["changes"]} == {made["a"]["id"], made["b"]["id"]}
    # When its entry is undone
    undone = api.post(f"/changes/{seq}/undo")
    # Then both slips are uncategorised again, in one entry, and the totals follow
    assert undone.status == 200, undone
    assert len(undone.json["entry"]["changes"]) == 2
    slips = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert slips[made["a"]["id"]]["category"] == slips[made["b"]["id"]]["category"] == "uncategorized"
    assert "食費" not in {c["category"] for c in report(api, "2026-11")["by_category"]}
    assert invariants.check(store, user) == []
    # And undoing it twice is refused
    assert api.post(f"/changes/{seq}/undo").status == 409


def test_an_edit_racing_an_apply_wins(api: Client, store: Store, user: str, monkeypatch: Any) -> None:
    from kakeibo.services import rule_runs, slips

    # Given slips made before a rule, and the rule
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    b = made["b"]
    real = rule_runs.write_slips
    member = WriteContext.personal(user)
    raced: list[int] = []

    def edit_first(*args: Any, **kwargs: Any) -> int:
        if not raced:  # a member categorises one of the slips by hand as the batch is about to commit
            edit = slips.update_slip(store, member, b["date"], b["id"], expected=1, patch={"category": "交際費"})
            raced.append(int(edit["version"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(rule_runs, "write_slips", edit_first)
    # When the rule is applied while that edit lands
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then the edit stands, and the apply read the batch again and changed only the other slip
    assert raced == [2] and applied.status == 200, applied
    assert [i["id"] for i in applied.json["items"]] == [made["a"]["id"]] and applied.json["failed"] == []
    listed = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert (listed[made["a"]["id"]]["category"], listed[b["id"]]["category"]) == ("食費", "交際費")
    assert listed[b["id"]]["version"] == 2  # the edit's version: the apply never wrote over it
    assert invariants.check(store, user) == []


def test_corrections_suggest_a_rule_that_is_made_only_when_accepted(api: Client, store: Store, user: str) -> None:
    # Given slips of one shop: one categorised by hand, one left uncategorised
    api.account("cash", 50_000)
    base = {"kind": "expense", "amount": 500, "account": "cash"}
    first = api.slip(date="2026-11-01", payee="ﾄﾞﾗｯｸﾞｽﾄｱ", category="日用品", **base).json
    second = api.slip(date="2026-11-02", payee="ドラッグストア", **base).json
    api.slip(date="2026-11-03", payee="八百屋", category="食費", **base)  # one slip only: no suggestion
    # Then one correction suggests nothing yet
    assert api.get("/rules/suggestions").json == {"items": []}
    # When a member gives the second slip the same category by hand
    where = f"/slips/{second['date']}/{second['id']}"
    assert api.patch(where, {"category": "日用品"}, headers={"If-Match": '"1"'}).status == 200
    # Then the rule {payee is ... -> 日用品} is suggested, naming the slips it learned from
    listed = api.get("/rules/suggestions")
    assert listed.status == 200, listed
    (suggestion,) = listed.json["items"]
    assert (suggestion["category"], suggestion["count"]) == ("日用品", 2)
    assert set(suggestion["slips"]) == {first["id"], second["id"]}
    assert suggestion["rule"]["actions"] == {"category": "日用品"}
    assert suggestion["rule"]["conditions"][0]["field"] == "payee"
    # And nothing was made without the user's word
    assert api.get("/rules").json["items"] == []
    # When it is accepted
    accepted = api.post(f"/rules/suggestions/{suggestion['id']}/accept")
    # Then it is a rule, a new slip of that shop (as the card prints it) is categorised by it, and it is
    # no longer suggested
    assert accepted.status == 201 and accepted.etag == '"1"', accepted
    assert [r["id"] for r in api.get("/rules").json["items"]] == [accepted.json["id"]]
    made = api.slip(date="2026-11-04", payee="ﾄﾞﾗｯｸﾞｽﾄｱ", **base)
    assert made.json["category"] == "日用品"
    assert api.get("/rules/suggestions").json == {"items": []}
    # And accepting it again, or an id never suggested, is 404 and makes nothing
    assert api.post(f"/rules/suggestions/{suggestion['id']}/accept").status == 404
    assert api.post("/rules/suggestions/NOSUCHSUGGESTION/accept").status == 404
    assert len(api.get("/rules").json["items"]) == 1
    # And a slip a rule categorised is not counted as a correction
    rows = [s for s in api.get("/slips", query={"payee": "ドラッグストア"}).json["items"] if s["id"] == made.json["id"]]
    assert rows and "category_by_hand" not in rows[0]
    assert invariants.check(store, user) == []


def test_a_batch_a_racing_edit_gets_refused_is_tried_slip_by_slip_and_finished_by_a_second_apply(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    from kakeibo.services import rule_runs, slips

    # Given slips made before a rule, the rule, and a strict food budget with room for both of its slips
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    food = "/budgets/2026-11/" + quote("食費")
    assert api.put(food, {"limit": 250, "strict": True}).status == 201
    real = rule_runs.write_slips
    member = WriteContext.personal(user)
    d = made["d"]
    raced: list[int] = []

    def edit_first(*args: Any, **kwargs: Any) -> int:
        if not raced:  # a member files another shop's slip under food as the batch is about to commit
            edit = slips.update_slip(store, member, d["date"], d["id"], expected=1, patch={"category": "食費"})
            raced.append(int(edit["version"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(rule_runs, "write_slips", edit_first)
    # When the rule is applied while that edit lands (the batch of two no longer fits the budget)
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then the batch is tried slip by slip: the first fits and is changed, the second is refused and named
    assert raced == [2] and applied.status == 200 and applied.json["complete"] is True, applied
    assert [i["id"] for i in applied.json["items"]] == [made["a"]["id"]] and len(applied.json["entries"]) == 1
    assert [f["id"] for f in applied.json["failed"]] == [made["b"]["id"]]
    # And the edit stands as it was made
    listed = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert (listed[d["id"]]["category"], listed[d["id"]]["version"]) == ("食費", 2)
    assert [listed[made[k]["id"]]["category"] for k in "ab"] == ["食費", "uncategorized"]
    assert invariants.check(store, user) == []
    # When the budget is raised and the rule applied again
    assert api.put(food, {"limit": 1000, "strict": True}, headers={"If-Match": '"1"'}).status == 200
    again = api.post(f"/rules/{rule['id']}/apply")
    # Then only the slip refused before changes; the one done is not written again
    assert (again.status, again.json["failed"]) == (200, []), again
    assert [i["id"] for i in again.json["items"]] == [made["b"]["id"]]
    after = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert [after[made[k]["id"]]["version"] for k in "abd"] == [2, 2, 2]
    # And a third apply changes nothing
    assert api.post(f"/rules/{rule['id']}/apply").json["changed"] == 0
    assert invariants.check(store, user) == []


def test_an_apply_short_of_time_answers_202_and_the_next_one_finishes_exactly_once(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    from kakeibo.services import rule_runs

    # Given slips made before a rule, the rule, and batches of one slip
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    monkeypatch.setattr(rule_runs, "MAX_BATCH", 1)
    real = rule_runs.write_slips

    def then_time_is_short(*args: Any, **kwargs: Any) -> int:
        seq = real(*args, **kwargs)
        monkeypatch.setattr(rule_runs, "MIN_SECONDS_LEFT", 3600.0)  # the invocation is nearly over
        return seq

    monkeypatch.setattr(rule_runs, "write_slips", then_time_is_short)
    # When the rule is applied and time runs short after the first batch
    first = api.post(f"/rules/{rule['id']}/apply")
    # Then it answers 202 with what it did: one slip, one entry
    assert first.status == 202 and first.json["complete"] is False, first
    assert (first.json["changed"], len(first.json["entries"]), first.json["failed"]) == (1, 1, [])
    (done,) = (i["id"] for i in first.json["items"])
    # And a member edits a slip of the ledger before it is sent again
    c = made["c"]
    assert api.patch(f"/slips/{c['date']}/{c['id']}", {"memo": "夜"}, headers={"If-Match": '"1"'}).status == 200
    # When it is sent again with time to spare
    monkeypatch.setattr(rule_runs, "write_slips", real)
    monkeypatch.setattr(rule_runs, "MIN_SECONDS_LEFT", 3.0)
    second = api.post(f"/rules/{rule['id']}/apply")
    # Then it finishes with the other slip only, and the edit stands
    assert second.status == 200 and second.json["complete"] is True, second
    (other,) = {made["a"]["id"], made["b"]["id"]} - {done}
    assert [i["id"] for i in second.json["items"]] == [other] and len(second.json["entries"]) == 1
    listed = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert [(listed[made[k]["id"]]["category"], listed[made[k]["id"]]["version"]) for k in "abc"] == [
        ("食費", 2), ("食費", 2), ("日用品", 2)
    ]  # fmt: skip
    assert listed[c["id"]]["memo"] == "夜"
    # And a third changes nothing
    third = api.post(f"/rules/{rule['id']}/apply")
    assert (third.status, third.json["changed"], third.json["entries"]) == (200, 0, [])
    assert invariants.check(store, user) == []


def test_a_slip_a_racing_edit_moves_to_another_day_is_still_applied(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    from kakeibo.services import rule_runs, slips

    # Given slips made before a rule, and the rule
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    b = made["b"]
    real = rule_runs.write_slips
    member = WriteContext.personal(user)
    raced: list[int] = []

    def move_first(*args: Any, **kwargs: Any) -> int:
        if not raced:  # a member moves one of the slips to the next day (its category left as it is)
            edit = slips.update_slip(store, member, b["date"], b["id"], expected=1, patch={"date": "2026-11-11"})
            raced.append(int(edit["version"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(rule_runs, "write_slips", move_first)
    # When the rule is applied while that edit lands
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then the apply finds the moved slip on its new day and categorises it there, keeping the move
    assert raced == [2] and applied.status == 200 and applied.json["failed"] == [], applied
    assert sorted(i["id"] for i in applied.json["items"]) == sorted([made["a"]["id"], b["id"]])
    moved = api.get(f"/slips/2026-11-11/{b['id']}")
    assert (moved.status, moved.json["category"], moved.json["version"]) == (200, "食費", 3), moved
    # And a second apply changes nothing
    assert api.post(f"/rules/{rule['id']}/apply").json["changed"] == 0
    assert invariants.check(store, user) == []


def test_a_refused_batch_tried_slip_by_slip_stops_when_time_runs_short(
    api: Client, store: Store, user: str, monkeypatch: Any
) -> None:
    from kakeibo.services import rule_runs

    # Given slips made before a rule, the rule, and a strict food budget with room for one of its two slips
    made = _seven_slips(api)
    rule = api.post("/rules", SEVEN).json
    assert api.put("/budgets/2026-11/" + quote("食費"), {"limit": 150, "strict": True}).status == 201
    real = rule_runs.write_slips
    tried: list[int] = []

    def refused_then_time_is_short(store: Store, ctx: WriteContext, pairs: Any, **kwargs: Any) -> int:
        tried.append(len(pairs))
        try:
            return real(store, ctx, pairs, **kwargs)
        finally:
            monkeypatch.setattr(rule_runs, "MIN_SECONDS_LEFT", 3600.0)  # the invocation is nearly over

    monkeypatch.setattr(rule_runs, "write_slips", refused_then_time_is_short)
    # When the rule is applied: the batch of both is refused, and time runs short after it
    first = api.post(f"/rules/{rule['id']}/apply")
    # Then no slip is tried on its own: it answers 202, nothing changed, nothing reported as refused
    assert tried == [2] and first.status == 202 and first.json["complete"] is False, (tried, first)
    assert (first.json["changed"], first.json["entries"], first.json["failed"]) == (0, [], [])
    # When it is sent again with time to spare
    monkeypatch.setattr(rule_runs, "write_slips", real)
    monkeypatch.setattr(rule_runs, "MIN_SECONDS_LEFT", 3.0)
    second = api.post(f"/rules/{rule['id']}/apply")
    # Then the slips are tried one by one: the first fits, the second is refused and named
    assert second.status == 200 and second.json["complete"] is True, second
    assert [i["id"] for i in second.json["items"]] == [made["a"]["id"]]
    assert [f["id"] for f in second.json["failed"]] == [made["b"]["id"]]
    assert invariants.check(store, user) == []


SUPER = {"conditions": [{"field": "payee", "op": "contains", "value": "スーパー"}], "actions": {"category": "食費"}}


def _carried_into_strict_february(api: Client, *, february_spent: int) -> dict[str, Any]:
    """January's food budget of 1,000 rolls over into a strict February of 1,000 (2,000 available)
    that has spent `february_spent`; a January slip of 400 at the supermarket, as a card prints its
    name, not yet categorised. That slip."""
    api.account("cash", 100_000)
    for month, body in (("2026-01", {"limit": 1_000, "rollover": True}),
                        ("2026-02", {"limit": 1_000, "rollover": True, "strict": True})):  # fmt: skip
        assert api.put(f"/budgets/{month}/" + quote("食費"), body).status == 201
    spent = {"date": "2026-02-10", "kind": "expense", "amount": february_spent, "account": "cash", "category": "食費"}
    assert api.post("/slips", spent).status == 201
    january = api.post("/slips", {"date": "2026-01-20", "kind": "expense", "amount": 400, "account": "cash",
                                  "payee": "ｽｰﾊﾟｰ"})  # fmt: skip
    assert january.status == 201 and january.json["category"] == "uncategorized", january
    return january.json


def _february(api: Client) -> dict[str, Any]:
    (food,) = [b for b in api.get("/budgets", query={"month": "2026-02"}).json["items"] if b["category"] == "食費"]
    return food


@pytest.mark.parametrize("process", ["same", "fresh"], ids=["after-the-edit-refused", "in-a-fresh-process"])
def test_an_apply_that_would_leave_a_carried_strict_month_over_is_refused_as_the_edit_is(
    api: Client, store: Store, user: str, process: str
) -> None:
    # Given a strict February with nothing left of what January carries into it, and a January slip
    # at the supermarket categorised by nobody
    slip = _carried_into_strict_february(api, february_spent=2_000)
    assert (_february(api)["available"], _february(api)["remaining"]) == (2_000, 0)
    # And a second supermarket slip the budget does not reach (another year)
    other = api.post("/slips", {"date": "2025-12-20", "kind": "expense", "amount": 300, "account": "cash",
                                "payee": "スーパー"})  # fmt: skip
    assert other.status == 201
    # When the slip is filed under food by hand: refused naming February
    edit = api.patch(f"/slips/{slip['date']}/{slip['id']}", {"category": "食費"}, headers={"If-Match": '"1"'})
    assert edit.status == 409 and edit.json["code"] == "budget_exceeded" and edit.json["month"] == "2026-02", edit
    if process == "fresh":
        reset_caches()  # the apply runs where no write has met the carry of this category and year yet
    rule = api.post("/rules", SUPER).json
    head = api.get("/changes", query={"since": "0"}).json["knowledge"]
    # When the rule that files the supermarket under food is applied
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then the slip the budget reaches is refused as the edit was (named, left as it is), the other changes
    assert applied.status == 200 and applied.json["complete"] is True, applied
    assert [i["id"] for i in applied.json["items"]] == [other.json["id"]]
    assert [f["id"] for f in applied.json["failed"]] == [slip["id"]]
    assert "2026-02" in applied.json["failed"][0]["message"], applied.json["failed"]
    assert len(applied.json["entries"]) == 1
    assert api.get("/changes", query={"since": "0"}).json["knowledge"] == head + 1
    # And February is never over what it makes available; the January slip stays uncategorised
    assert (_february(api)["spent"], _february(api)["remaining"]) == (2_000, 0)
    listed = api.get(f"/slips/{slip['date']}/{slip['id']}").json
    assert (listed["category"], listed["version"]) == ("uncategorized", 1)
    # And the preview still lists it (it is what the rule would do), a second apply refuses it again
    again = api.post(f"/rules/{rule['id']}/apply")
    assert (again.json["changed"], [f["id"] for f in again.json["failed"]]) == (0, [slip["id"]]), again
    assert invariants.check(store, user) == []


def test_an_apply_with_room_in_a_carried_strict_month_changes_the_slip_in_a_fresh_process(
    api: Client, store: Store, user: str
) -> None:
    # Given a strict February with 1,000 of its 2,000 left, and a January slip of 400 at the supermarket
    slip = _carried_into_strict_february(api, february_spent=1_000)
    rule = api.post("/rules", SUPER).json
    # And a process where no write has met the carry of this category and year yet
    reset_caches()
    # When the rule that files the supermarket under food is applied
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then it changes the slip at the first try, as the same edit by hand would
    assert applied.status == 200 and applied.json["failed"] == [], applied
    assert [i["id"] for i in applied.json["items"]] == [slip["id"]]
    assert api.get(f"/slips/{slip['date']}/{slip['id']}").json["category"] == "食費"
    # And February takes the 400 January no longer hands on
    assert (_february(api)["carried"], _february(api)["remaining"]) == (600, 600)
    assert invariants.check(store, user) == []


RENT_CLEARED = {"conditions": [{"field": "payee", "op": "is", "value": "家賃"}], "actions": {"cleared": True}}


def _cleared_balance(api: Client, account: str) -> int:
    return int(api.get(f"/accounts/{account}").json["cleared_balance"])


def test_a_rules_cleared_action_marks_a_posted_slip_unless_the_caller_said(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank account and a rule: the rent the bank draws is cleared
    api.account("bank", 500_000, type="bank")
    rule = api.post("/rules", RENT_CLEARED)
    assert rule.status == 201, rule
    # When the rent is posted without a state
    rent = api.slip(date="2026-11-27", kind="expense", amount=85_000, account="bank", category="住宅", payee="家賃")
    # Then it is cleared, and the account's cleared balance counts it
    assert rent.status == 201 and rent.json["cleared"] == "cleared", rent
    assert _cleared_balance(api, "bank") == 500_000 - 85_000
    # When a member posts it saying it is uncleared, Then what they said stands
    said = api.slip(date="2026-12-27", kind="expense", amount=85_000, account="bank", category="住宅", payee="家賃",
                    cleared="uncleared")  # fmt: skip
    assert said.status == 201 and said.json["cleared"] == "uncleared", said
    # And another payee's slip is as sent
    other = api.slip(date="2026-11-28", kind="expense", amount=500, account="bank", payee="八百屋")
    assert other.status == 201 and other.json["cleared"] == "uncleared"
    assert _cleared_balance(api, "bank") == 500_000 - 85_000
    assert invariants.check(store, user) == []


def test_a_rules_cleared_action_marks_imported_rows_either_way(api: Client, store: Store, user: str) -> None:
    # Given Money Forward's accounts, a rule that leaves the supermarket's card rows to be checked and
    # one that clears the greengrocer's cash rows (a cash row otherwise arrives uncleared)
    mf_household(api)
    check = api.post("/rules", {"conditions": [{"field": "imported_payee", "op": "starts_with", "value": "ｽｰﾊﾟｰ"}],
                                "actions": {"cleared": False}})  # fmt: skip
    clear = api.post("/rules", {"conditions": [{"field": "imported_payee", "op": "is", "value": "八百屋"}],
                                "actions": {"cleared": True}})  # fmt: skip
    assert check.status == clear.status == 201
    november = mf(
        "1|2026/11/20|ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ|-6400|楽天カード|未分類|未分類||0|mfC1",
        "1|2026/11/19|八百屋|-800|財布|未分類|未分類||0|mfC2",
        "1|2026/11/18|ＡＭＡＺＯＮ．ＣＯ．ＪＰ|-2980|楽天カード|未分類|未分類||0|mfC3",
    )
    # When the file is previewed, Then the dry run shows each row's state as the rules leave it
    dry = api.post("/imports", raw=november, headers=CSV, query={"dry_run": "true"})
    assert dry.status == 200, dry
    assert dry.json["ruled"] == [{"line": 2, "rules": [check.json["id"]]}, {"line": 3, "rules": [clear.json["id"]]}]
    rows = {o["line"]: o["slip"] for o in dry.json["outcomes"]}
    assert (rows[2]["cleared"], rows[3]["cleared"]) == ("uncleared", "cleared")
    # When it is imported
    imported = api.post("/imports", raw=november, headers=CSV)
    assert imported.status == 200 and imported.json["ruled"] == dry.json["ruled"], imported
    # Then the supermarket's card row is uncleared, the greengrocer's cash row cleared, and the other
    # card row arrives cleared as a statement's row does
    slips = {s["amount"]: s for s in api.get("/slips").json["items"]}
    assert [slips[a]["cleared"] for a in (6400, 800, 2980)] == ["uncleared", "cleared", "cleared"]
    assert _cleared_balance(api, "cash") == 20_000 - 800
    assert _cleared_balance(api, "card") == -60_000 - 2980
    assert invariants.check(store, user) == []


def test_a_rules_cleared_action_is_previewed_and_applied_to_the_uncleared_slips(
    api: Client, store: Store, user: str
) -> None:
    # Given two uncleared rents, one a member cleared, and another payee's, made before the rule
    api.account("bank", 500_000, type="bank")
    made = {}
    for name, day, payee, cleared in (("a", "10-27", "家賃", None), ("b", "11-27", "家賃", None),
                                      ("c", "09-27", "家賃", "cleared"), ("d", "11-28", "八百屋", None)):  # fmt: skip
        body = {"date": f"2026-{day}", "kind": "expense", "amount": 1_000, "account": "bank", "payee": payee}
        reply = api.post("/slips", {**body, **({"cleared": cleared} if cleared else {})})
        assert reply.status == 201, reply
        made[name] = reply.json
    rule = api.post("/rules", RENT_CLEARED).json
    assert _cleared_balance(api, "bank") == 500_000 - 1_000
    # When the rule is previewed
    preview = api.post(f"/rules/{rule['id']}/preview")
    # Then it counts and lists the two uncleared rents, before and after
    assert preview.status == 200 and preview.json["changed"] == 2, preview
    listed = {i["id"]: i for i in preview.json["items"]}
    assert set(listed) == {made["a"]["id"], made["b"]["id"]}
    assert (listed[made["a"]["id"]]["before"], listed[made["a"]["id"]]["after"]) == (
        {"cleared": "uncleared"}, {"cleared": "cleared"},
    )  # fmt: skip
    # When it is applied
    applied = api.post(f"/rules/{rule['id']}/apply")
    # Then those two are cleared, and the account's cleared balance counts them
    assert applied.status == 200 and applied.json["changed"] == 2 and applied.json["failed"] == [], applied
    slips = {s["id"]: s for s in api.get("/slips").json["items"]}
    assert [slips[made[k]["id"]]["cleared"] for k in "abcd"] == ["cleared", "cleared", "cleared", "uncleared"]
    assert _cleared_balance(api, "bank") == 500_000 - 3_000
    # And a second apply changes nothing; a rule that marks the rent uncleared takes back nothing cleared
    assert api.post(f"/rules/{rule['id']}/apply").json["changed"] == 0
    back = api.post("/rules", {**RENT_CLEARED, "actions": {"cleared": False}}).json
    assert api.post(f"/rules/{back['id']}/preview").json["changed"] == 0
    assert api.post(f"/rules/{back['id']}/apply").json["changed"] == 0
    assert _cleared_balance(api, "bank") == 500_000 - 3_000
    assert invariants.check(store, user) == []


# ---- a model: rule runs, edits and posts against strict budgets that receive a carry-over --------

# January rolls over into a strict February, which rolls over into a strict March: month -> (limit,
# rollover, strict) of 食費 in 2026
BUDGETS = {1: (1_000, True, False), 2: (1_000, True, True), 3: (800, False, True)}
MODEL_STEPS, MODEL_SEED = 40, 142


def _lefts(spent: dict[int, int]) -> dict[int, int]:
    """What each month has left as §19 defines it: its limit, plus what the month before hands on
    when that one rolls over, less what it spent."""
    out, carried = {}, 0
    for month, (limit, rolls, _) in BUDGETS.items():
        out[month] = limit + carried - spent[month]
        carried = out[month] if rolls else 0
    return out


def _fits(before: dict[int, int], after: dict[int, int]) -> bool:
    """Whether spending going from `before` to `after` leaves every strict month it takes from within
    what that month makes available."""
    was, now = _lefts(before), _lefts(after)
    return all(not (strict and now[m] < 0 and now[m] < was[m]) for m, (_, _, strict) in BUDGETS.items())


def _spent(slips: dict[str, dict[str, Any]]) -> dict[int, int]:
    out = dict.fromkeys(BUDGETS, 0)
    for slip in slips.values():
        if slip["category"] == "食費":
            out[int(slip["date"][5:7])] += slip["amount"]
    return out


def _agrees(api: Client, slips: dict[str, dict[str, Any]]) -> None:
    """The ledger's budgets are the model's, and no strict month is past what it makes available."""
    spent, lefts = _spent(slips), _lefts(_spent(slips))
    for month, (_, _, strict) in BUDGETS.items():
        (food,) = api.get("/budgets", query={"month": f"2026-{month:02d}"}).json["items"]
        assert (food["spent"], food["remaining"]) == (spent[month], lefts[month]), (month, food, slips)
        assert not strict or food["remaining"] >= 0, (month, food)


def test_rule_runs_edits_and_posts_keep_every_carried_strict_month_within_its_available(
    api: Client, store: Store, user: str
) -> None:
    """A seeded run of posts (the rule filing some of them), edits by hand, deletions, rule applies,
    the rule removed and made again, and fresh processes (which have met no carry yet), each compared
    with a model of the slips: every change the model says fits is made, every other one is refused
    as budget_exceeded, and an apply changes exactly the slips that fit, oldest first. (The seed is
    one whose run has applies that change slips, refuse them, and both; one of them in a fresh process.)"""
    import random

    rng = random.Random(MODEL_SEED)
    # Given the budgets, a wallet that never runs short, and the rule that files the supermarket
    api.account("cash", 10**8)
    for month, (limit, rolls, strict) in BUDGETS.items():
        body = {"limit": limit, "rollover": rolls, "strict": strict}
        assert api.put(f"/budgets/2026-{month:02d}/" + quote("食費"), body).status == 201
    rule: dict[str, Any] | None = api.post("/rules", SUPER).json
    slips: dict[str, dict[str, Any]] = {}  # id -> what the model says of the slip, in the order made
    ops = ["post"] * 4 + ["categorise", "uncategorise", "amount", "delete", "rule", "fresh"] + ["apply"] * 2
    for step in range(MODEL_STEPS):
        op = rng.choice(ops)
        before = _spent(slips)
        uncategorised = [i for i, s in slips.items() if s["category"] == "uncategorized"]
        filed = [i for i, s in slips.items() if s["category"] == "食費"]
        # When it is done
        if op == "post":
            payee = rng.choice(["ｽｰﾊﾟｰ", "八百屋"])
            body = {"date": f"2026-{rng.randint(1, 3):02d}-{rng.randint(1, 28):02d}", "kind": "expense",
                    "amount": 100 * rng.randint(1, 6), "account": "cash", "payee": payee}  # fmt: skip
            sent = rng.choice([None, "食費", "uncategorized"])  # none: the rule may file it
            if sent is not None:
                body["category"] = sent
            category = sent or ("食費" if rule is not None and payee == "ｽｰﾊﾟｰ" else "uncategorized")
            after = {**slips, "new": {"date": body["date"], "amount": body["amount"], "category": category}}
            reply = api.post("/slips", body)
            # Then it is made when it fits, else refused naming the budget
            if _fits(before, _spent(after)):
                assert reply.status == 201 and reply.json["category"] == category, (step, reply)
                slips[reply.json["id"]] = {**after["new"], "payee": payee, "version": 1}
            else:
                assert reply.status == 409 and reply.json["code"] == "budget_exceeded", (step, reply)
        elif (op == "uncategorise" and filed) or (op in ("categorise", "amount", "delete") and slips):
            pool = {"uncategorise": filed, "categorise": uncategorised or list(slips)}.get(op) or list(slips)
            slip_id = rng.choice(pool)
            slip = slips[slip_id]
            where, match = f"/slips/{slip['date']}/{slip_id}", {"If-Match": f'"{slip["version"]}"'}
            if op == "delete":
                assert api.delete(where, headers=match).status == 204, step
                del slips[slip_id]
                continue
            change: dict[str, Any] = {
                "uncategorise": {"category": "uncategorized"},
                "categorise": {"category": "食費"},
            }.get(op) or {"amount": 100 * rng.randint(1, 6)}
            after = {**slips, slip_id: {**slip, **change}}
            reply = api.patch(where, change, headers=match)
            if _fits(before, _spent(after)):
                assert reply.status == 200, (step, reply)
                slips[slip_id] = {**after[slip_id], "version": reply.json["version"]}  # the same when unchanged
            else:
                assert reply.status == 409 and reply.json["code"] == "budget_exceeded", (step, reply)
        elif op == "rule":
            if rule is None:
                rule = api.post("/rules", SUPER).json
            else:
                assert api.delete(f"/rules/{rule['id']}", headers={"If-Match": '"1"'}).status == 204
                rule = None
        elif op == "fresh":
            reset_caches()  # the next request is served by a process that has met no carry yet
        elif op == "apply" and rule is not None:
            due = sorted((i for i in uncategorised if slips[i]["payee"] == "ｽｰﾊﾟｰ"), key=lambda i: (slips[i]["date"], i))
            preview = api.post(f"/rules/{rule['id']}/preview")
            assert preview.json["changed"] == len(due), (step, preview)
            applied = api.post(f"/rules/{rule['id']}/apply")
            # Then each slip that fits, in the order the apply runs (oldest first), is filed; the others refused
            changed, refused = [], []
            for slip_id in due:
                after = {**slips, slip_id: {**slips[slip_id], "category": "食費"}}
                if _fits(_spent(slips), _spent(after)):
                    slips[slip_id] = {**after[slip_id], "version": slips[slip_id]["version"] + 1}
                    changed.append(slip_id)
                else:
                    refused.append(slip_id)
            assert applied.status == 200 and applied.json["complete"] is True, (step, applied)
            assert sorted(i["id"] for i in applied.json["items"]) == sorted(changed), (step, applied)
            assert sorted(f["id"] for f in applied.json["failed"]) == sorted(refused), (step, applied)
        # And the budgets read as the model says
        if step % 5 == 4 or op == "apply":
            _agrees(api, slips)
    _agrees(api, slips)
    assert invariants.check(store, user) == []
