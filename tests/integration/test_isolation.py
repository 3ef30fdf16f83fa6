"""Two households on every route: ids, paths, query strings, cursors and bodies from one ledger
never read, change or reveal anything of the other (404, or an empty answer)."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import quote

import openpyxl
import pytest

from kakeibo.local import template
from kakeibo.store import Store
from tests import invariants
from tests.events import Client
from tests.integration.test_ledger_roles import PREFIX, ROUTES
from tests.receipts import stored_receipt

FOOD = "/budgets/2026-11/" + quote("食費")


@pytest.fixture
def alice(api: Client) -> dict[str, Any]:
    """Alice's ledger with something on every kind of item."""
    api.account("cash", 50_000)
    api.account("suica", 3_000, type="emoney")
    api.account("bank", 100_000, type="bank")
    billing = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
    card = api.post("/accounts", {"id": "card", "name": "カード", "type": "credit", "billing": billing})
    assert card.status == 201, card
    api.slip(date="2026-10-20", kind="expense", amount=2_000, account="card", category="日用品")
    api.put(FOOD, {"limit": 30_000, "strict": True})
    made = [
        api.slip(date=f"2026-11-{day:02d}", kind="expense", amount=100 * day, account="cash", category="食費")
        for day in range(1, 6)
    ]
    api.slip(date="2026-11-06", kind="transfer", amount=1000, account="cash", to_account="suica")
    medical = {"patient": "alice", "provider": "中央病院", "kind": "treatment"}
    assert api.slip(date="2026-11-08", kind="expense", amount=700, account="cash", medical=medical).status == 201
    donation = {"municipality": "紋別市", "one_stop": True}
    assert api.slip(date="2026-11-08", kind="expense", amount=900, account="cash", donation=donation).status == 201
    csv = "date,kind,amount,account,to_account,category,memo\n2026-11-07,expense,300,cash,,食費,coffee\n"
    imported = api.post("/imports", raw=csv, headers={"Content-Type": "text/csv"})
    assert imported.status in (200, 201)
    cursor = api.get("/slips", query={"limit": 2}).json["next_cursor"]
    rent = {
        "slip": {"kind": "expense", "amount": 500, "account": "cash", "category": "家賃"},
        "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
        "shift": "previous_business_day",
    }
    recurring = api.post("/recurrences", rent)
    assert recurring.status == 201, recurring
    household = api.post("/ledgers", {"name": "山田家"})
    assert household.status == 201, household
    marue = {"conditions": [{"field": "payee", "op": "contains", "value": "マルエツ"}], "actions": {"category": "食費"}}
    rule = api.post("/rules", marue)
    assert rule.status == 201, rule
    goal = api.post("/goals", {"name": "旅行", "target": 200_000, "account": "bank"})
    assert goal.status == 201, goal
    receipt = stored_receipt(api, b"alice's receipt")
    export = api.post("/exports")
    assert export.status == 202, export
    return {
        "receipt": f"/receipts/{receipt}",
        "export": f"/exports/{export.json['id']}",
        "ledger": household.header("Location"),
        "slip": made[0].header("Location"),
        "slip_id": made[0].json["id"],
        "import": f"/imports/{imported.json['import_id']}",
        "cursor": cursor,
        "balances": api.balances(),
        "recurrence": recurring.header("Location"),
        "rule": rule.header("Location"),
        "goal": goal.header("Location"),
    }


def test_every_route_is_covered_here() -> None:
    covered = {
        "GET /health", "GET /openapi.json", "GET /swagger",  # public, hold no ledger data
        "POST /accounts", "GET /accounts", "GET /accounts/{id}", "PATCH /accounts/{id}",
        "GET /accounts/{id}/history", "POST /slips", "GET /slips", "GET /slips/{id}", "GET /slips/{date}/{id}",
        "PUT /slips/{date}/{id}", "PATCH /slips/{date}/{id}", "DELETE /slips/{date}/{id}", "POST /slips/bulk",
        "GET /balances", "GET /reports/monthly", "GET /reports/yearly", "PUT /budgets/{month}/{category}",
        "GET /reports/medical", "GET /reports/medical.csv", "GET /reports/medical.xlsx", "GET /reports/donations",
        "DELETE /budgets/{month}/{category}",
        "GET /budgets", "POST /budgets/{month}/copy-from/{source}",
        "POST /imports", "GET /imports/{id}", "GET /imports/formats", "GET /slips.csv",
        "POST /ledger/verify", "POST /ledger/rebuild",
        "POST /recurrences", "GET /recurrences", "GET /recurrences/{id}", "PATCH /recurrences/{id}",
        "DELETE /recurrences/{id}", "GET /recurrences/{id}/occurrences", "POST /recurrences/run",
        "GET /accounts/{id}/statements", "POST /jobs/run", "GET /accounts/{id}/expiring", "GET /forecast",
        "GET /reports/net-worth", "GET /reports/tags", "GET /alerts", "POST /alerts/{id}/dismiss",
        "POST /goals", "GET /goals", "GET /goals/{id}", "PATCH /goals/{id}", "DELETE /goals/{id}",
        "POST /accounts/{id}/reconciliations", "GET /accounts/{id}/reconciliations",
        "POST /rules", "GET /rules", "PUT /rules/order", "GET /rules/{id}", "PATCH /rules/{id}", "DELETE /rules/{id}",
        "POST /rules/preview", "POST /rules/apply", "POST /rules/{id}/preview", "POST /rules/{id}/apply",
        "GET /rules/suggestions", "POST /rules/suggestions/{id}/accept",
        "POST /receipts", "POST /receipts/{id}/complete", "GET /receipts/{id}",
        "POST /exports", "GET /exports/{id}",
        "POST /ledgers/restore",  # the caller's own archive into a new ledger of theirs: test_restore.py
        "DELETE /ledgers/{ledger}",  # owners only (editors 403, strangers 404): test_ledger_delete.py
        "DELETE /me",  # the caller's own data, nobody else's: test_delete_me.py
        # the caller's own personal tokens, made only when signed in, and who the caller is: test_tokens.py
        "GET /me", "POST /me/tokens", "GET /me/tokens", "DELETE /me/tokens/{id}",
        "POST /ledgers", "GET /ledgers", "GET /ledgers/{ledger}", "PATCH /ledgers/{ledger}",
        "POST /ledgers/{ledger}/invitations", "POST /invitations/{token}/accept",
        "PUT /ledgers/{ledger}/members/{user}", "DELETE /ledgers/{ledger}/members/{user}",
        "GET /changes", "GET /slips/{id}/history", "POST /changes/{seq}/undo",
        # an owner's webhooks: test_webhooks.py (editors 403, strangers 404)
        "POST /ledgers/{ledger}/webhooks", "GET /ledgers/{ledger}/webhooks", "DELETE /ledgers/{ledger}/webhooks/{id}",
        "GET /ledgers/{ledger}/webhooks/{id}/deliveries", "POST /ledgers/{ledger}/webhooks/{id}/resume",
        # who paid, who owes (shared ledgers): test_settlements.py
        "GET /ledgers/{ledger}/settlement", "POST /ledgers/{ledger}/settlements",
    }  # fmt: skip
    # and every ledger route again under /ledgers/{ledger}, for every kind of caller: test_ledger_roles.py
    repeated = {f"{key.split(' ', 1)[0]} {PREFIX}{key.split(' ', 1)[1]}" for key in ROUTES}
    assert {route.key for route in template.routes()} == covered | repeated


def test_bob_can_neither_see_nor_touch_alices_ledger(
    api: Client, other_api: Client, alice: dict[str, Any], store: Store, user: str, other_user: str
) -> None:
    bob = other_api
    slip = alice["slip"]
    # Reads: nothing of Alice's shows
    assert bob.get("/accounts").json == {"items": []}
    assert bob.get("/accounts/cash").status == 404
    assert bob.get("/accounts/cash/history").status == 404
    assert bob.get("/accounts/card/statements").status == 404
    assert bob.get("/accounts/cash/expiring").status == 404
    assert bob.get("/forecast").json["items"] == []
    assert bob.get("/forecast", query={"account": "cash"}).status == 404
    assert bob.get("/goals").json == {"items": []}
    worth = bob.get("/reports/net-worth", query={"from": "2026-10", "to": "2026-11"}).json["items"]
    assert [(m["assets"], m["liabilities"]) for m in worth] == [(0, 0), (0, 0)]
    assert bob.get("/reports/tags", query={"from": "2026-01", "to": "2026-12"}).json["items"] == []
    _, _, day, slip_id = str(slip).split("/")
    ref = {"date": day, "id": slip_id, "version": 1}
    touched = bob.post("/slips/bulk", {"slips": [ref], "set": {"memo_append": "x"}})
    assert touched.status == 422  # not a field: nothing of Alice's is even looked at
    refused = bob.post("/slips/bulk", {"slips": [ref], "set": {"category": "x"}})
    assert refused.status == 200 and [r["reason"] for r in refused.json["refused"]] == ["not_found"], refused
    assert bob.post("/slips/bulk", {"slips": [ref], "delete": True}).json["changed"] == []
    assert bob.get("/slips", query={"tag": "trip"}).json["items"] == []
    assert bob.get("/slips", query={"q": "ランチ", "from": "2026-01-01", "to": "2026-12-31"}).json["items"] == []
    assert bob.get(alice["goal"]).status == 404
    assert bob.post("/goals", {"name": "x", "target": 1, "account": "bank"}).status == 404  # Alice's account
    assert bob.patch(alice["goal"], {"target": 1}, headers={"If-Match": '"1"'}).status == 404
    assert bob.delete(alice["goal"], headers={"If-Match": '"1"'}).status == 404
    assert bob.get("/accounts/cash/reconciliations").status == 404
    assert bob.post("/accounts/cash/reconciliations", {"date": "2026-11-20", "balance": 0}).status == 404
    assert bob.get(alice["receipt"]).status == 404
    assert bob.post(alice["receipt"] + "/complete").status == 404
    assert bob.get(alice["export"]).status == 404
    assert bob.get("/slips").json == {"items": [], "next_cursor": None}
    assert bob.get("/slips", query={"cursor": alice["cursor"]}).json == {"items": [], "next_cursor": None}
    assert bob.get("/slips", query={"account": "cash", "category": "食費"}).json["items"] == []
    assert bob.get(slip).status == 404
    assert bob.get(f"/slips/{alice['slip_id']}").status == 404
    assert bob.get(alice["import"]).status == 404
    assert bob.get("/balances").json == {"date": None, "items": []}
    assert bob.get("/balances", query={"date": "2026-11-30"}).json["items"] == []
    report = bob.get("/reports/monthly", query={"month": "2026-11"}).json
    assert (report["income"], report["expense"], report["by_category"], report["by_account"]) == (0, 0, [], [])
    yearly = bob.get("/reports/yearly", query={"year": "2026"}).json
    assert (yearly["income"], yearly["expense"], yearly["by_category"], yearly["by_account"]) == (0, 0, [], [])
    assert all(m["by_category"] == m["by_account"] == [] for m in yearly["months"])
    assert bob.get("/budgets", query={"month": "2026-11"}).json == {"month": "2026-11", "items": []}
    medical = bob.get("/reports/medical", query={"year": "2026"}).json
    assert (medical["paid"], medical["items"]) == (0, [])
    assert bob.get("/reports/medical.csv", query={"year": "2026"}).raw.decode("utf-8-sig").count("\n") == 1
    form = openpyxl.load_workbook(io.BytesIO(bob.get("/reports/medical.xlsx", query={"year": "2026"}).raw))
    assert form["医療費集計フォーム"]["B9"].value is None  # no row of alice's
    donations = bob.get("/reports/donations", query={"year": "2026"}).json
    assert (donations["total"], donations["items"]) == (0, [])
    export = bob.get("/slips.csv")
    assert export.status == 200 and export.raw.decode("utf-8-sig").strip().count("\n") == 0  # header only
    assert bob.post("/ledger/verify").json["ok"] is True
    recurrence = alice["recurrence"]
    assert bob.get("/recurrences").json == {"items": []}
    assert bob.get(recurrence).status == 404
    assert bob.get(recurrence + "/occurrences").status == 404
    rule = alice["rule"]
    assert bob.get("/rules").json == {"items": [], "version": 0}
    assert bob.get(rule).status == 404
    assert [item["id"] for item in bob.get("/ledgers").json["items"]] == ["me"]
    assert bob.get("/changes").json["changes"] == []
    assert bob.get(f"/slips/{alice['slip_id']}/history").status == 404
    assert bob.post("/changes/1/undo").status == 404  # none of Bob's; Alice's first is not his
    assert bob.get(f"{alice['ledger']}/changes").status == 404
    assert bob.get(f"{alice['ledger']}/webhooks").status == 404
    assert bob.get(f"{alice['ledger']}/settlement").status == 404
    assert bob.get(alice["ledger"]).status == 404
    assert bob.get(f"/ledgers/{user}").status == 404  # Alice's personal ledger is hers alone: "me" to her
    assert bob.get("/ledgers/me").json["members"] == [{"user": other_user, "role": "owner", "version": None}]
    # Writes aimed at Alice's items: 404, or they land in Bob's own ledger
    assert bob.patch(alice["ledger"], {"name": "mine"}, headers={"If-Match": '"1"'}).status == 404
    assert bob.post("/ledgers", {"name": "ボブ家"}).status == 201  # Bob's own ledger, Alice is not in it
    assert bob.post(alice["ledger"] + "/invitations", {"role": "owner"}).status == 404
    assert bob.post(f"/invitations/{'A' * 32}/accept").status == 404  # a guessed token names nothing
    for member in (user, other_user):  # neither Alice's role nor a seat for himself
        assert (
            bob.put(f"{alice['ledger']}/members/{member}", {"role": "owner"}, headers={"If-Match": '"1"'}).status == 404
        )
        assert bob.delete(f"{alice['ledger']}/members/{member}", headers={"If-Match": '"1"'}).status == 404
    assert bob.patch("/accounts/cash", {"name": "mine"}, headers={"If-Match": '"1"'}).status == 404
    assert bob.patch(slip, {"amount": 1}, headers={"If-Match": '"1"'}).status == 404
    assert bob.put(slip, {"date": "2026-11-01", "kind": "income", "amount": 1, "account": "cash"},
                   headers={"If-Match": '"1"'}).status == 404  # fmt: skip
    assert bob.delete(slip, headers={"If-Match": '"1"'}).status == 404
    spend = {"date": "2026-11-08", "kind": "expense", "amount": 1, "account": "cash"}
    assert bob.post("/slips", spend).status == 422  # Alice's account does not exist for Bob
    csv = "date,kind,amount,account,to_account,category,memo\n2026-11-07,expense,300,cash,,食費,x\n"
    imported = bob.post("/imports", raw=csv, headers={"Content-Type": "text/csv"}).json
    assert imported["created"] == 0 and imported["errors"]
    assert bob.delete(FOOD, headers={"If-Match": "*"}).status == 404  # Alice's budget is not there for Bob
    assert bob.put(FOOD, {"limit": 1}).status == 201  # Bob's own budget, not Alice's
    assert bob.post("/ledger/rebuild").status in (200, 202)
    assert bob.patch(recurrence, {"slip": {"amount": 1}}, headers={"If-Match": '"1"'}).status == 404
    assert bob.delete(recurrence, headers={"If-Match": '"1"'}).status == 404
    assert bob.patch(rule, {"actions": {"category": "x"}}, headers={"If-Match": '"1"'}).status == 404
    assert bob.delete(rule, headers={"If-Match": '"1"'}).status == 404
    rule_id = rule.rsplit("/", 1)[1]
    assert bob.put("/rules/order", {"ids": [rule_id]}, headers={"If-Match": '"0"'}).status == 422  # not his rule
    assert bob.post(f"{rule}/preview").status == bob.post(f"{rule}/apply").status == 404
    assert bob.post("/rules/preview").json["examined"] == 0  # his own ledger's slips: none
    assert bob.post("/rules/apply").json["changed"] == 0
    assert bob.get("/rules/suggestions").json == {"items": []}
    assert bob.post("/rules/suggestions/LV2GJY4MK5JPWF2K66VGUKKQJH/accept").status == 404
    ran = bob.post("/recurrences/run", query={"until": "2027-12-31"})
    assert ran.status == 200 and ran.json["posted"] == 0  # Bob has none; Alice's are not his to run
    jobs = bob.post("/jobs/run", query={"until": "2027-12-31"})
    assert jobs.status == 200 and jobs.json["posted"] == 0  # nor are Alice's card payments
    spend_monthly = {"slip": {"kind": "expense", "amount": 1, "account": "cash"},
                     "rule": {"freq": "daily", "start": "2026-11-01"}}  # fmt: skip
    assert bob.post("/recurrences", spend_monthly).status == 422  # Alice's account does not exist for Bob
    # Then Alice's ledger is exactly as it was, and consistent
    assert api.balances() == alice["balances"]
    assert api.get(slip).json["version"] == 1
    assert api.get(recurrence).json["version"] == 1
    assert api.get(recurrence).json["posted_through"] is None
    assert api.get(rule).json["version"] == 1 and api.get("/rules").json["version"] == 1
    assert api.get(f"/slips/{alice['slip_id']}").status == 200 and api.get(alice["import"]).status == 200
    assert api.get("/budgets", query={"month": "2026-11"}).json["items"][0]["limit"] == 30_000
    assert [item["name"] for item in api.get("/ledgers").json["items"]] == [None, "山田家"]
    assert api.get(alice["ledger"]).json["members"] == [{"user": user, "role": "owner", "version": 1}]
    assert invariants.check(store, user) == []
    assert invariants.check(store, other_user) == []


@pytest.mark.parametrize("forged", ["alice", "LEDGER#alice", "../alice", "alice#ACCOUNT#cash", "*"])
def test_identity_comes_from_the_token_only(api: Client, alice: dict[str, Any], forged: str) -> None:
    # Headers, queries and bodies that name another ledger are ignored or refused
    other = Client(f"intruder-{forged}")
    reply = other.get("/accounts", headers={"X-Ledger": "alice", "X-User": api.user or ""}, query={"ledger": "x"})
    assert reply.status in (200, 401), reply  # a token that looks like a broken JWT is no identity at all
    if reply.status == 200:
        assert reply.json["items"] == []
        body = {"id": "cash", "name": "x", "type": "cash", "ledger": api.user}
        assert other.post("/accounts", body).status == 422
