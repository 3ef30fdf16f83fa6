"""Read your writes: every read the handler sends to the ledger table is strongly consistent.

DynamoDB Local always answers consistently, so the difference cannot be seen there: the requests
themselves are recorded (botocore's before-call event) and each Query / GetItem / BatchGetItem must
carry ConsistentRead=true. (TransactGetItems is always consistent.)
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from kakeibo import csvio, settings
from kakeibo.local import template
from kakeibo.store import SharedLedger, Store
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk, webhook_sk
from tests.events import Client
from tests.receipts import receipt_body, uploaded_receipt

READS = {"Query", "GetItem", "Scan", "BatchGetItem"}
RENAME = "RENAME"  # in a path: the seq of the ledger's account rename, looked up when the request is sent
GOAL = "GOAL"  # in a path: the id of the ledger's goal, looked up when the request is sent
FRESH = "FRESH"  # an If-Match: the settlement's ETag, read when the request is sent
LUNCH = {"kind": "expense", "amount": 500, "account": "cash", "category": "食費"}
RENT = {
    "slip": {"kind": "expense", "amount": 800, "account": "bank", "category": "家賃"},
    "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
    "shift": "previous_business_day",
}


@dataclass
class Recorder:
    table: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, model: Any, params: dict[str, Any], **kwargs: Any) -> None:
        if model.name not in READS:
            return
        body = json.loads(params.get("body") or b"{}")
        if model.name == "BatchGetItem":  # ConsistentRead is asked per table
            body = body.get("RequestItems", {}).get(self.table, {"TableName": None})
            body["TableName"] = body.get("TableName", self.table)
        if body.get("TableName") == self.table:
            self.calls.append((model.name, body))


@pytest.fixture
def recorder(store: Store) -> Iterator[Recorder]:
    seen = Recorder(store.core.table)
    store.core.client.meta.events.register("before-call.dynamodb", seen)
    yield seen
    store.core.client.meta.events.unregister("before-call.dynamodb", seen)


def _budget_alert(api: Client, base: str) -> str:
    """An open alert: this month's budget for 日用品 spent past 80%."""
    month = settings.today().strftime("%Y-%m")
    assert api.put(f"{base}/budgets/{month}/日用品", {"limit": 100}).status in (200, 201)
    spent = {"date": f"{month}-01", "kind": "expense", "amount": 90, "account": "cash", "category": "日用品"}
    assert api.post(f"{base}/slips", spent).status == 201
    return str(api.get(f"{base}/alerts").json["items"][0]["id"])


def _ledger_requests(api: Client, base: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every ledger route of the ledger at `base` ("" or /ledgers/{ledger}), with what it needs."""
    # Given a ledger with accounts, slips, a budget and an import
    for account, kind, opening in (("cash", "cash", 20_000), ("bank", "bank", 100_000)):
        made = api.post(f"{base}/accounts", {"id": account, "name": account, "type": kind, "opening_balance": opening})
        assert made.status == 201, made
    made = api.post(f"{base}/slips", {"date": "2026-11-03", **LUNCH})
    api.post(f"{base}/slips", {"date": "2026-11-04", "kind": "transfer", "amount": 1000, "account": "bank",
                               "to_account": "cash"})  # fmt: skip
    slip = made.json
    where = f"{base}/slips/{slip['date']}/{slip['id']}"
    csv = "date,kind,amount,account,to_account,category,memo\n2026-11-05,expense,100,cash,,食費,\n"
    rent = api.post(f"{base}/recurrences", RENT).header("Location") or ""
    uploaded = uploaded_receipt(api, base)
    export = api.post(f"{base}/exports").json["id"]
    billing = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
    visa = api.post(f"{base}/accounts", {"id": "visa", "name": "Visa", "type": "credit", "billing": billing})
    assert visa.status == 201, visa
    marue = {"conditions": [{"field": "payee", "op": "contains", "value": "ﾏﾙｴﾂ"}], "actions": {"category": "食費"}}
    ruled = api.post(f"{base}/rules", marue)
    assert ruled.status == 201, ruled
    rule = ruled.header("Location") or ""
    for day in ("2026-11-07", "2026-11-08"):  # one shop given one category by hand twice: a suggestion
        hand = {**LUNCH, "date": day, "payee": "八百屋", "category": "食費"}
        assert api.post(f"{base}/slips", hand).status == 201
    (suggested,) = api.get(f"{base}/rules/suggestions").json["items"]
    alert = _budget_alert(api, base)
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("GET /accounts", f"{base}/accounts", {}),
        ("GET /accounts/{id}", f"{base}/accounts/cash", {}),
        (
            "GET /accounts/{id}/history",
            f"{base}/accounts/cash/history",
            {"query": {"from": "2026-11-01", "to": "2026-11-30"}},
        ),
        ("PATCH /accounts/{id}", f"{base}/accounts/cash", {"body": {"name": "財布"}, "headers": {"If-Match": '"1"'}}),
        ("POST /accounts", f"{base}/accounts", {"body": {"id": "card", "name": "Card", "type": "credit"}}),
        ("POST /slips", f"{base}/slips", {"body": {"date": "2026-11-06", **LUNCH}}),
        ("GET /slips", f"{base}/slips", {}),
        ("GET /slips", f"{base}/slips", {"query": {"account": "cash", "kind": "expense"}}),
        ("GET /slips", f"{base}/slips", {"query": {"tag": "trip"}}),
        ("GET /slips", f"{base}/slips", {"query": {"q": "ランチ", "from": "2026-01-01", "to": "2026-12-31"}}),
        (
            "POST /slips/bulk",
            f"{base}/slips/bulk",
            {
                "body": {
                    "slips": [{"date": "2026-11-06", "id": "01KAJ0000000000000000000ZZ", "version": 1}],
                    "set": {"tags_add": ["trip"]},
                }
            },
        ),
        ("GET /slips/{id}", f"{base}/slips/{slip['id']}", {}),
        ("GET /slips/{date}/{id}", where, {}),
        ("PATCH /slips/{date}/{id}", where, {"body": {"amount": 600}, "headers": {"If-Match": '"1"'}}),
        (
            "PUT /slips/{date}/{id}",
            where,
            {"body": {**LUNCH, "date": slip["date"], "amount": 700}, "headers": {"If-Match": '"2"'}},
        ),
        ("GET /balances", f"{base}/balances", {}),
        ("GET /balances", f"{base}/balances", {"query": {"date": "2026-11-03"}}),
        ("GET /reports/monthly", f"{base}/reports/monthly", {"query": {"month": "2026-11"}}),
        ("GET /reports/yearly", f"{base}/reports/yearly", {"query": {"year": "2026"}}),
        ("GET /reports/medical", f"{base}/reports/medical", {"query": {"year": "2026"}}),
        ("GET /reports/medical.csv", f"{base}/reports/medical.csv", {"query": {"year": "2026"}}),
        ("GET /reports/medical.xlsx", f"{base}/reports/medical.xlsx", {"query": {"year": "2026"}}),
        ("GET /reports/donations", f"{base}/reports/donations", {"query": {"year": "2026"}}),
        ("PUT /budgets/{month}/{category}", f"{base}/budgets/2026-11/食費", {"body": {"limit": 30000}}),
        ("GET /budgets", f"{base}/budgets", {"query": {"month": "2026-11"}}),
        ("POST /budgets/{month}/copy-from/{source}", f"{base}/budgets/2026-12/copy-from/2026-11", {}),
        ("DELETE /budgets/{month}/{category}", f"{base}/budgets/2026-11/食費", {"headers": {"If-Match": '"1"'}}),
        ("POST /imports", f"{base}/imports", {"raw": csv, "headers": {"Content-Type": "text/csv"}}),
        ("GET /imports/{id}", f"{base}/imports/{csvio.parse(csv.encode()).sha256}", {}),
        ("GET /imports/formats", f"{base}/imports/formats", {}),
        ("GET /slips.csv", f"{base}/slips.csv", {}),
        ("POST /recurrences", f"{base}/recurrences", {"body": RENT}),
        ("GET /recurrences", f"{base}/recurrences", {}),
        ("GET /recurrences/{id}", rent, {}),
        ("GET /recurrences/{id}/occurrences", f"{rent}/occurrences", {"query": {"from": "2026-11-01"}}),
        ("POST /recurrences/run", f"{base}/recurrences/run", {"query": {"until": "2026-12-31"}}),
        ("GET /accounts/{id}/statements", f"{base}/accounts/visa/statements", {"query": {"from": "2026-10"}}),
        ("GET /accounts/{id}/expiring", f"{base}/accounts/cash/expiring", {"query": {"within": "30"}}),
        ("GET /forecast", f"{base}/forecast", {}),
        ("GET /alerts", f"{base}/alerts", {}),
        ("POST /alerts/{id}/dismiss", f"{base}/alerts/{alert}/dismiss", {}),
        (
            "POST /goals",
            f"{base}/goals",
            {"body": {"name": "旅行", "target": 90_000, "by": "2027-01-31", "account": "cash"}},
        ),
        ("GET /goals", f"{base}/goals", {}),
        ("GET /reports/net-worth", f"{base}/reports/net-worth", {"query": {"from": "2026-10", "to": "2026-11"}}),
        ("GET /reports/tags", f"{base}/reports/tags", {"query": {"from": "2026-10", "to": "2026-11"}}),
        ("GET /goals/{id}", f"{base}/goals/{GOAL}", {}),
        ("PATCH /goals/{id}", f"{base}/goals/{GOAL}", {"body": {"target": 80_000}, "headers": {"If-Match": '"1"'}}),
        ("DELETE /goals/{id}", f"{base}/goals/{GOAL}", {"headers": {"If-Match": '"2"'}}),
        ("GET /accounts/{id}/reconciliations", f"{base}/accounts/cash/reconciliations", {}),
        (
            "POST /accounts/{id}/reconciliations",
            f"{base}/accounts/cash/reconciliations",
            {"body": {"date": "2026-11-20", "balance": 0}, "query": {"dry_run": "true"}},
        ),
        ("POST /jobs/run", f"{base}/jobs/run", {"query": {"until": "2026-12-31"}}),
        ("POST /receipts", f"{base}/receipts", {"body": receipt_body(uuid.uuid4().bytes)}),
        ("POST /receipts/{id}/complete", f"{base}/receipts/{uploaded}/complete", {}),
        ("GET /receipts/{id}", f"{base}/receipts/{uploaded}", {}),
        ("POST /exports", f"{base}/exports", {}),
        ("GET /exports/{id}", f"{base}/exports/{export}", {}),
        ("PATCH /recurrences/{id}", rent, {"body": {"slip": {"amount": 900}}, "headers": {"If-Match": '"1"'}}),
        ("DELETE /recurrences/{id}", rent, {"headers": {"If-Match": '"2"'}}),
        ("POST /ledger/verify", f"{base}/ledger/verify", {}),
        ("DELETE /slips/{date}/{id}", where, {"headers": {"If-Match": '"3"'}}),
        ("POST /ledger/rebuild", f"{base}/ledger/rebuild", {}),
        ("GET /changes", f"{base}/changes", {"query": {"since": "0"}}),
        ("GET /slips/{id}/history", f"{base}/slips/{slip['id']}/history", {}),
        ("POST /changes/{seq}/undo", f"{base}/changes/{RENAME}/undo", {}),  # the account's rename
        ("GET /rules", f"{base}/rules", {}),
        ("GET /rules/{id}", rule, {}),
        (
            "PUT /rules/order",
            f"{base}/rules/order",
            {"body": {"ids": [ruled.json["id"]]}, "headers": {"If-Match": '"1"'}},
        ),
        ("POST /rules/{id}/preview", f"{rule}/preview", {"query": {"from": "2026-11-01"}}),
        ("POST /rules/{id}/apply", f"{rule}/apply", {}),
        ("PATCH /rules/{id}", rule, {"body": {"stage": "post"}, "headers": {"If-Match": '"1"'}}),
        ("DELETE /rules/{id}", rule, {"headers": {"If-Match": '"2"'}}),
        ("POST /rules", f"{base}/rules", {"body": marue}),
        ("POST /rules/preview", f"{base}/rules/preview", {}),
        ("POST /rules/apply", f"{base}/rules/apply", {}),
        ("GET /rules/suggestions", f"{base}/rules/suggestions", {}),
        ("POST /rules/suggestions/{id}/accept", f"{base}/rules/suggestions/{suggested['id']}/accept", {}),
    ]
    if base:
        return [(f"{r.split(' ', 1)[0]} /ledgers/{{ledger}}{r.split(' ', 1)[1]}", path, kw) for r, path, kw in requests]
    restore = {"body": {"sha256": "a" * 64, "size": 10}}
    return [
        *requests,
        ("POST /ledgers", "/ledgers", {"body": {"name": "山田家"}}),
        ("GET /ledgers", "/ledgers", {}),
        ("POST /ledgers/restore", "/ledgers/restore", restore),
    ]


def test_every_route_reads_consistently(api: Client, store: Store, recorder: Recorder) -> None:
    # Given a personal ledger and a household, each with accounts, slips, a budget and an import
    household = api.post("/ledgers", {"name": "山田家"}).header("Location") or ""
    # When every route is called, one at a time, for both ledgers
    requests = _ledger_requests(api, "") + _ledger_requests(api, household)
    reads: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    requests += [
        ("GET /ledgers/{ledger}", household, {}),
        ("PATCH /ledgers/{ledger}", household, {"body": {"name": "山田家（実家）"}, "headers": {"If-Match": '"1"'}}),
    ]
    invitation = api.post(household + "/invitations", {"role": "viewer"}).json["token"]
    requests += [
        ("POST /ledgers/{ledger}/invitations", f"{household}/invitations", {"body": {"role": "editor"}}),
        ("POST /invitations/{token}/accept", f"/invitations/{invitation}/accept", {"user": f"{api.user}-guest"}),
        (
            "PUT /ledgers/{ledger}/members/{user}",
            f"{household}/members/{api.user}-guest",
            {"body": {"role": "editor"}, "headers": {"If-Match": '"1"'}},
        ),
        ("GET /ledgers/{ledger}/settlement", f"{household}/settlement", {}),
        (
            "POST /ledgers/{ledger}/settlements",
            f"{household}/settlements",
            {"body": {"from": f"{api.user}-guest", "to": api.user, "amount": 100}, "headers": {"If-Match": FRESH}},
        ),
        (
            "DELETE /ledgers/{ledger}/members/{user}",
            f"{household}/members/{api.user}-guest",
            {"headers": {"If-Match": '"2"'}},
        ),
    ]
    hook = api.post(f"{household}/webhooks", {"url": "https://93.184.215.14/hook"}).json["id"]
    failing = {"PK": pk(SharedLedger(household.rsplit("/", 1)[1])), "SK": webhook_sk(hook)}  # past its retry budget
    store.core.client.update_item(
        TableName=store.core.table, Key=to_ddb(failing), UpdateExpression="SET #s = :failing",
        ExpressionAttributeNames={"#s": "state"}, ExpressionAttributeValues=to_ddb({":failing": "failing"}),
    )  # fmt: skip
    token_id = api.post("/me/tokens", {"name": "夜のスクリプト", "scope": "write"}).json["id"]
    requests += [
        ("POST /ledgers/{ledger}/webhooks", f"{household}/webhooks", {"body": {"url": "https://93.184.215.14/h2"}}),
        ("GET /ledgers/{ledger}/webhooks", f"{household}/webhooks", {}),
        ("GET /ledgers/{ledger}/webhooks/{id}/deliveries", f"{household}/webhooks/{hook}/deliveries", {}),
        ("POST /ledgers/{ledger}/webhooks/{id}/resume", f"{household}/webhooks/{hook}/resume", {}),
        ("DELETE /ledgers/{ledger}/webhooks/{id}", f"{household}/webhooks/{hook}", {}),
        # the person's tokens (the one revoked made before)
        ("POST /me/tokens", "/me/tokens", {"body": {"name": "家計簿シート", "scope": "read"}}),
        ("GET /me/tokens", "/me/tokens", {}),
        ("GET /me", "/me", {}),
        ("DELETE /me/tokens/{id}", f"/me/tokens/{token_id}", {}),
        ("DELETE /ledgers/{ledger}", household, {"headers": {"If-Match": "*"}}),  # last: the household goes
        ("DELETE /me", "/me", {}),  # and then the person: their personal ledger goes
    ]
    for route, asked, kw in requests:
        path = asked
        if RENAME in path:
            changes = api.get(path.split("/changes/")[0] + "/changes").json["changes"]
            renamed = [
                e["seq"] for e in changes if e["changes"][0]["type"] == "account" and e["changes"][0]["op"] == "update"
            ]
            path = path.replace(RENAME, str(renamed[0]))
        if GOAL in path:
            goals = api.get(path.split("/goals/")[0] + "/goals").json["items"]
            path = path.replace(GOAL, goals[0]["id"])
        if kw.get("headers", {}).get("If-Match") == FRESH:
            kw["headers"] = {"If-Match": api.get(path.removesuffix("s")).etag or ""}
        recorder.calls.clear()
        method = route.split()[0]
        reply = api.request(method, path, kw.pop("body", None), **kw)
        assert reply.status < 300, (route, reply)
        reads.setdefault(route, []).extend(recorder.calls)
    # Then every route that reads the ledger was exercised, and every Query and GetItem it sent
    # asked for a strongly consistent read
    covered = {route.key for route in template.routes()} - {"GET /health", "GET /openapi.json", "GET /swagger"}
    covered -= {"POST /slips", "POST /ledgers"}  # creates: they read nothing back (a slip, only its counter)
    # (under a shared ledger every route reads the caller's membership first)
    assert covered <= set(reads), covered - set(reads)
    for route, calls in reads.items():
        for operation, params in calls:
            assert params.get("ConsistentRead") is True, (route, operation, params)
    assert any(calls for calls in reads.values())
    assert reads["GET /slips"] and reads["GET /balances"] and reads["GET /reports/monthly"]
    assert any(operation == "BatchGetItem" for operation, _ in reads["GET /slips"])  # a filtered list
