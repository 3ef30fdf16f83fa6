"""Export -> restore -> equal, as a property: random households holding every kind of item (slips
plain, split, transferred, by card, in dollars and in points, medical and ふるさと納税, paid from a
member's pocket; payees, rules, budgets, a reconciliation, a settlement, a card's cycles, a
recurrence) restore into a ledger that verifies and reads the same: slips, balances and reports."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.local.s3 import S3Local
from tests.conftest import WITH_FIXTURES
from tests.ddb_local import s3_server
from tests.events import Client, Reply

MONTHS = ("2026-01", "2026-02", "2026-03")
CATEGORIES = ("食費", "日用品", "交際費")
PAYEES = ("マルエツ", "ローソン", "ユニクロ")


@pytest.fixture(scope="module")
def s3_local() -> Iterator[S3Local]:
    """This module's own S3 server (as test_restore.py has): its archives meet no other module's."""
    yield from s3_server()


day = st.builds(lambda m, d: f"{m}-{d:02d}", st.sampled_from(MONTHS), st.integers(1, 28))
amount = st.integers(1, 30_000)


@st.composite
def households(draw: st.DrawFn) -> dict[str, Any]:
    """What a household's ledger holds: a few of each kind of item, their amounts, days, categories
    and payees drawn."""

    def expense(account: str = "cash", **extra: Any) -> dict[str, Any]:
        body = {"date": draw(day), "kind": "expense", "amount": draw(amount), "account": account}
        return {"category": draw(st.sampled_from(CATEGORIES)), **body, **extra}

    plain = [
        expense(payee=draw(st.sampled_from(PAYEES)), memo=draw(st.sampled_from(("", "昼ごはん", "まとめ買い"))) or None)
        for _ in range(draw(st.integers(1, 4)))
    ]
    first, second = draw(amount), draw(amount)
    split = expense(lines=[{"amount": first, "category": "食費"}, {"amount": second, "category": "日用品"}])
    split.pop("category")
    split["amount"] = first + second
    slips = [
        *plain,
        split,
        {"date": draw(day), "kind": "income", "amount": draw(amount) * 10, "account": "bank", "category": "給与"},
        {"date": draw(day), "kind": "transfer", "amount": draw(amount), "account": "bank", "to_account": "cash"},
        expense("card"),
        expense("usd", jpy_amount=draw(amount)),
        expense("points", amount=draw(st.integers(1, 500))),
        expense(
            category="医療費",
            medical={
                "patient": "hanako",
                "kind": draw(st.sampled_from(("treatment", "medicine"))),
                "reimbursed": 0,
                "provider": "山田クリニック",
            },
        ),
        expense(category="寄附金", donation={"municipality": "北海道紋別市", "one_stop": draw(st.booleans())}),
    ]
    return {
        "openings": {"cash": draw(st.integers(0, 50_000)), "bank": draw(st.integers(100_000, 900_000))},
        "slips": slips,
        "paid_by": expense(),  # paid from the editor's pocket
        "budget": {"month": draw(st.sampled_from(MONTHS)), "limit": draw(amount) * 5, "strict": False},
        "counted": draw(st.integers(0, 80_000)),  # the wallet counted at the reconciliation
        "settled": draw(st.integers(1, 5_000)),
        "closing_day": draw(st.integers(1, 28)),
        "rent_day": draw(st.integers(1, 28)),
    }


def _made(reply: Reply, *statuses: int) -> Reply:
    assert reply.status in (statuses or (200, 201)), reply
    return reply


def _household(owner: Client, editor: Client, plan: dict[str, Any]) -> str:
    """The shared ledger `plan` describes, `editor` a member of it: its base path."""
    base = "/ledgers/" + _made(owner.post("/ledgers", {"name": "山田家"})).json["id"]
    token = _made(owner.post(f"{base}/invitations", {"role": "editor"})).json["token"]
    _made(editor.post(f"/invitations/{token}/accept"))
    accounts = [
        {"id": "cash", "name": "財布", "type": "cash", "opening_balance": plan["openings"]["cash"],
         "allow_negative": True},
        {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": plan["openings"]["bank"]},
        {"id": "card", "name": "楽天カード", "type": "credit",
         "billing": {"closing_day": plan["closing_day"], "payment_day": 27, "pay_from": "bank"}},
        {"id": "usd", "name": "ドル", "type": "cash", "unit": "USD", "opening_balance": 50_000},
        {"id": "points", "name": "楽天ポイント", "type": "other", "unit": "points", "point_value": 2,
         "program": "楽天ポイント", "opening_balance": 5_000},
    ]  # fmt: skip
    for account in accounts:
        _made(owner.post(f"{base}/accounts", account))
    rule = {"name": "マルエツは食費", "conditions": [{"field": "payee", "op": "contains", "value": "マルエツ"}],
            "actions": {"category": "食費"}}  # fmt: skip
    _made(owner.post(f"{base}/rules", rule))
    for slip in plan["slips"]:
        _made(owner.post(f"{base}/slips", slip))
    _made(editor.post(f"{base}/slips", {**plan["paid_by"], "paid_by": editor.user, "shares": "equal"}))
    budget = plan["budget"]
    _made(owner.put(f"{base}/budgets/{budget['month']}/{quote('食費')}", {"limit": budget["limit"], "strict": False}))
    rent = {
        "slip": {"kind": "expense", "amount": 80_000, "account": "bank", "category": "住居"},
        "rule": {"freq": "monthly", "by_month_day": plan["rent_day"], "start": "2026-01-01"},
        "shift": "none",
    }
    _made(owner.post(f"{base}/recurrences", rent))
    counted = {"date": "2026-03-31", "balance": plan["counted"], "adjust": True}
    _made(owner.post(f"{base}/accounts/cash/reconciliations", counted))
    nets = _made(owner.get(f"{base}/settlement"))
    paid = {"from": owner.user, "to": editor.user, "amount": plan["settled"]}
    _made(owner.post(f"{base}/settlements", paid, headers={"If-Match": nets.etag or ""}))
    return base


def _archive_of(owner: Client, base: str) -> bytes:
    export = _made(owner.post(f"{base}/exports"), 202)
    assert export.json["state"] == "ready", export
    got = requests.get(export.json["download"]["url"], timeout=30)
    assert got.status_code == 200, got.text
    return got.content


def _restored(owner: Client, data: bytes) -> str:
    """The archive uploaded once and restored (POSTed again while the answer is 202): the new base."""
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    upload = _made(owner.post("/ledgers/restore", body), 202).json["upload"]
    assert requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30).status_code == 200
    done = owner.post("/ledgers/restore", body)
    while done.status == 202:
        done = owner.post("/ledgers/restore", body)
    return "/ledgers/" + _made(done, 201).json["ledger"]["id"]


def _all_slips(owner: Client, base: str) -> list[dict[str, Any]]:
    slips: list[dict[str, Any]] = []
    query: dict[str, Any] = {"limit": 100}
    while True:
        page = _made(owner.get(f"{base}/slips", query=query)).json
        slips += page["items"]
        if not page.get("next_cursor"):
            return slips
        query = {"limit": 100, "cursor": page["next_cursor"]}


def _read(owner: Client, base: str) -> dict[str, Any]:
    """What a household reads of its ledger: slips, balances, reports, budgets, the card's cycles,
    the reconciliation, the recurrence, the rules and the tax reports."""
    return {
        "slips": _all_slips(owner, base),
        "balances": owner.get(f"{base}/balances").json,
        "balances_feb": owner.get(f"{base}/balances", query={"date": "2026-02-28"}).json,
        "monthly": [owner.get(f"{base}/reports/monthly", query={"month": m}).json for m in MONTHS],
        "yearly": owner.get(f"{base}/reports/yearly", query={"year": "2026"}).json,
        "budgets": [owner.get(f"{base}/budgets", query={"month": m}).json for m in MONTHS],
        "accounts": owner.get(f"{base}/accounts").json,
        "statements": owner.get(f"{base}/accounts/card/statements").json,
        "reconciliations": owner.get(f"{base}/accounts/cash/reconciliations").json,
        "recurrences": owner.get(f"{base}/recurrences").json,
        "rules": owner.get(f"{base}/rules").json,
        "medical": owner.get(f"{base}/reports/medical", query={"year": "2026"}).json,
        "donations": owner.get(f"{base}/reports/donations", query={"year": "2026"}).json,
    }


# Five households (about ten seconds each): every kind of item is in each, their amounts and days drawn.
@settings(max_examples=5, deadline=None, suppress_health_check=WITH_FIXTURES)
@given(plan=households())
def test_an_exported_household_of_every_kind_of_item_restores_equal(local_env: str, plan: dict[str, Any]) -> None:
    # Given a household's ledger holding every kind of item, an editor among its members
    owner, editor = Client(f"owner-{uuid.uuid4().hex[:10]}"), Client(f"editor-{uuid.uuid4().hex[:10]}")
    base = _household(owner, editor, plan)
    before = _read(owner, base)
    # When it is exported and its owner restores the archive
    new = _restored(owner, _archive_of(owner, base))
    # Then the new ledger verifies
    verify = owner.post(f"{new}/ledger/verify")
    assert verify.status == 200 and verify.json["ok"] is True, verify
    # And its slips, balances, reports, budgets, card cycles, reconciliation, recurrence, rules and tax
    # reports are the exported ledger's
    after = _read(owner, new)
    for part, value in before.items():
        assert after[part] == value, part
    # And who paid what, who owes what and what was settled are the same (the editor is no member of
    # the restored ledger: its members start with the one who restored it)
    nets, again = (_made(owner.get(f"{b}/settlement")).json for b in (base, new))
    assert [m["member"] for m in again["members"]] == [m["user"] == owner.user for m in again["members"]]
    assert _without_membership(again) == _without_membership(nets)


def _without_membership(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "members": [{k: v for k, v in m.items() if k != "member"} for m in view["members"]]}
