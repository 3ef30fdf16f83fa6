"""Every ledger route under /ledgers/{ledger}, for every kind of caller: the owner and an editor
may change the ledger (only the owner rebuilds it), a viewer reads and every change is 403, and a
removed member or somebody who never was one gets 404 for everything, as if it did not exist.

The route table below is checked against template.yaml: a new ledger route without a line here fails.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from kakeibo import settings
from kakeibo.local import template
from kakeibo.store import SharedLedger, Store
from tests import invariants
from tests.events import Client, Reply
from tests.receipts import receipt_body, stored_receipt, uploaded_receipt

PREFIX = "/ledgers/{ledger}"
CSV = "date,kind,amount,account,to_account,category,memo\n2026-11-07,expense,300,cash,,食費,coffee\n"
RENT = {
    "slip": {"kind": "expense", "amount": 500, "account": "cash", "category": "家賃"},
    "rule": {"freq": "monthly", "by_month_day": 27, "start": "2026-11-01"},
}
MARUETSU = {"conditions": [{"field": "payee", "op": "contains", "value": "ﾏﾙｴﾂ"}], "actions": {"category": "食費"}}
_serial = itertools.count()


@dataclass
class Household:
    base: str
    owner: Client
    slip: Reply
    import_id: str
    recurrence: Reply

    def lunch(self) -> Reply:
        """A fresh slip for a change to act on (made by the owner)."""
        made = self.owner.post(f"{self.base}/slips", _lunch())
        assert made.status == 201, made
        return made

    def rule(self) -> Reply:
        made = self.owner.post(f"{self.base}/rules", MARUETSU)
        assert made.status == 201, made
        return made

    def goal(self) -> Reply:
        made = self.owner.post(f"{self.base}/goals", {"name": "旅行", "target": 100_000, "by": "2027-03-31",
                                                      "account": "bank"})  # fmt: skip
        assert made.status == 201, made
        return made

    def alert(self) -> str:
        """An open alert of the ledger: its food budget (set this month) spent past 80%."""
        month, category = settings.today().strftime("%Y-%m"), f"予備費{uuid.uuid4().hex[:6]}"  # a budget of its own
        assert self.owner.put(f"{self.base}/budgets/{month}/{category}", {"limit": 1_000}).status in (200, 201)
        slip = {"date": f"{month}-01", "kind": "expense", "amount": 900, "account": "cash", "category": category}
        assert self.owner.post(f"{self.base}/slips", slip).status == 201
        found = self.owner.get(f"{self.base}/alerts").json["items"]
        return str(next(a["id"] for a in found if a["kind"] == "budget_80" and a["subject"] == category))

    def rent(self) -> Reply:
        made = self.owner.post(f"{self.base}/recurrences", RENT)
        assert made.status == 201, made
        return made


def _lunch(**extra: Any) -> dict[str, Any]:
    return {"date": "2026-11-03", "kind": "expense", "amount": 120, "account": "cash", "category": "食費", **extra}


Call = Callable[[Household, Client], Reply]


def _patch_slip(h: Household, c: Client) -> Reply:
    slip = h.lunch()
    return c.patch(slip.header("Location") or "", {"amount": 130}, headers={"If-Match": slip.etag or ""})


def _bulk_slips(h: Household, c: Client) -> Reply:
    slip = h.lunch().json
    named = [{"date": slip["date"], "id": slip["id"], "version": slip["version"]}]
    return c.post(f"{h.base}/slips/bulk", {"slips": named, "set": {"tags_add": ["trip"]}})


def _put_slip(h: Household, c: Client) -> Reply:
    slip = h.lunch()
    return c.put(slip.header("Location") or "", _lunch(amount=140), headers={"If-Match": slip.etag or ""})


def _delete_slip(h: Household, c: Client) -> Reply:
    slip = h.lunch()
    return c.delete(slip.header("Location") or "", headers={"If-Match": slip.etag or ""})


def _patch_recurrence(h: Household, c: Client) -> Reply:
    rent = h.rent()
    return c.patch(rent.header("Location") or "", {"slip": {"amount": 600}}, headers={"If-Match": rent.etag or ""})


def _delete_recurrence(h: Household, c: Client) -> Reply:
    rent = h.rent()
    return c.delete(rent.header("Location") or "", headers={"If-Match": rent.etag or ""})


def _patch_goal(h: Household, c: Client) -> Reply:
    goal = h.goal()
    return c.patch(goal.header("Location") or "", {"target": 120_000}, headers={"If-Match": goal.etag or ""})


def _delete_goal(h: Household, c: Client) -> Reply:
    goal = h.goal()
    return c.delete(goal.header("Location") or "", headers={"If-Match": goal.etag or ""})


def _patch_rule(h: Household, c: Client) -> Reply:
    rule = h.rule()
    return c.patch(rule.header("Location") or "", {"stage": "post"}, headers={"If-Match": rule.etag or ""})


def _delete_rule(h: Household, c: Client) -> Reply:
    rule = h.rule()
    return c.delete(rule.header("Location") or "", headers={"If-Match": rule.etag or ""})


def _order_rules(h: Household, c: Client) -> Reply:
    h.rule()
    listed = h.owner.get(f"{h.base}/rules")
    ids = [r["id"] for r in listed.json["items"]][::-1]
    return c.put(f"{h.base}/rules/order", {"ids": ids}, headers={"If-Match": listed.etag or ""})


def _accept_suggestion(h: Household, c: Client) -> Reply:
    shop = f"店{next(_serial)}"  # a shop of its own, given one category by hand twice: one suggestion
    for _ in range(2):
        assert h.owner.post(f"{h.base}/slips", _lunch(payee=shop, category="日用品")).status == 201
    found = h.owner.get(f"{h.base}/rules/suggestions").json["items"]
    (suggestion,) = [s for s in found if s["payee"] == shop]
    return c.post(f"{h.base}/rules/suggestions/{suggestion['id']}/accept")


def _patch_account(h: Household, c: Client) -> Reply:
    etag = h.owner.get(f"{h.base}/accounts/cash").etag or ""
    return c.patch(f"{h.base}/accounts/cash", {"name": f"現金{next(_serial)}"}, headers={"If-Match": etag})


def _create_account(h: Household, c: Client) -> Reply:
    return c.post(f"{h.base}/accounts", {"id": f"a{next(_serial)}", "name": "口座", "type": "bank"})


def _put_budget(h: Household, c: Client) -> Reply:
    return c.put(f"{h.base}/budgets/2026-11/cat{next(_serial)}", {"limit": 1000})


def _delete_budget(h: Household, c: Client) -> Reply:
    made = _put_budget(h, h.owner)
    assert made.status == 201, made
    where = f"{h.base}/budgets/2026-11/{made.json['category']}"
    return c.delete(where, headers={"If-Match": made.etag or ""})


def _reconcile(h: Household, c: Client) -> Reply:
    cleared = h.owner.get(f"{h.base}/accounts/cash").json["cleared_balance"]
    return c.post(f"{h.base}/accounts/cash/reconciliations", {"date": "2026-11-20", "balance": cleared})


def _undo(h: Household, c: Client) -> Reply:
    slip = h.lunch()
    seq = h.owner.get(f"{h.base}/slips/{slip.json['id']}/history").json["items"][-1]["seq"]
    return c.post(f"{h.base}/changes/{seq}/undo")


# unprefixed route -> (a request of it, whether it only reads)
ROUTES: dict[str, tuple[Call, bool]] = {
    "POST /accounts": (_create_account, False),
    "GET /accounts": (lambda h, c: c.get(f"{h.base}/accounts"), True),
    "GET /accounts/{id}": (lambda h, c: c.get(f"{h.base}/accounts/cash"), True),
    "PATCH /accounts/{id}": (_patch_account, False),
    "GET /accounts/{id}/history": (lambda h, c: c.get(f"{h.base}/accounts/cash/history"), True),
    "POST /slips": (lambda h, c: c.post(f"{h.base}/slips", _lunch()), False),
    "GET /slips": (lambda h, c: c.get(f"{h.base}/slips"), True),
    "GET /slips/{id}": (lambda h, c: c.get(f"{h.base}/slips/{h.slip.json['id']}"), True),
    "GET /slips/{date}/{id}": (lambda h, c: c.get(h.slip.header("Location") or ""), True),
    "PUT /slips/{date}/{id}": (_put_slip, False),
    "PATCH /slips/{date}/{id}": (_patch_slip, False),
    "DELETE /slips/{date}/{id}": (_delete_slip, False),
    "POST /slips/bulk": (_bulk_slips, False),
    "GET /balances": (lambda h, c: c.get(f"{h.base}/balances"), True),
    "GET /reports/monthly": (lambda h, c: c.get(f"{h.base}/reports/monthly", query={"month": "2026-11"}), True),
    "GET /reports/yearly": (lambda h, c: c.get(f"{h.base}/reports/yearly", query={"year": "2026"}), True),
    "GET /reports/medical": (lambda h, c: c.get(f"{h.base}/reports/medical", query={"year": "2026"}), True),
    "GET /reports/medical.csv": (lambda h, c: c.get(f"{h.base}/reports/medical.csv", query={"year": "2026"}), True),
    "GET /reports/medical.xlsx": (lambda h, c: c.get(f"{h.base}/reports/medical.xlsx", query={"year": "2026"}), True),
    "GET /reports/donations": (lambda h, c: c.get(f"{h.base}/reports/donations", query={"year": "2026"}), True),
    "PUT /budgets/{month}/{category}": (_put_budget, False),
    "DELETE /budgets/{month}/{category}": (_delete_budget, False),
    "GET /budgets": (lambda h, c: c.get(f"{h.base}/budgets", query={"month": "2026-11"}), True),
    "POST /budgets/{month}/copy-from/{source}": (
        lambda h, c: c.post(f"{h.base}/budgets/2026-{10 + next(_serial) % 2}/copy-from/2026-11"),
        False,
    ),
    "POST /imports": (lambda h, c: c.post(f"{h.base}/imports", raw=CSV, headers={"Content-Type": "text/csv"}), False),
    "GET /imports/{id}": (lambda h, c: c.get(f"{h.base}/imports/{h.import_id}"), True),
    "GET /imports/formats": (lambda h, c: c.get(f"{h.base}/imports/formats"), True),
    "GET /slips.csv": (lambda h, c: c.get(f"{h.base}/slips.csv"), True),
    "POST /ledger/verify": (lambda h, c: c.post(f"{h.base}/ledger/verify"), True),
    "POST /ledger/rebuild": (lambda h, c: c.post(f"{h.base}/ledger/rebuild"), False),
    "POST /recurrences": (lambda h, c: c.post(f"{h.base}/recurrences", RENT), False),
    "GET /recurrences": (lambda h, c: c.get(f"{h.base}/recurrences"), True),
    "GET /recurrences/{id}": (lambda h, c: c.get(h.recurrence.header("Location") or ""), True),
    "PATCH /recurrences/{id}": (_patch_recurrence, False),
    "DELETE /recurrences/{id}": (_delete_recurrence, False),
    "GET /recurrences/{id}/occurrences": (lambda h, c: c.get(f"{h.recurrence.header('Location')}/occurrences"), True),
    "POST /recurrences/run": (lambda h, c: c.post(f"{h.base}/recurrences/run", query={"until": "2026-11-30"}), False),
    "GET /accounts/{id}/statements": (lambda h, c: c.get(f"{h.base}/accounts/card/statements"), True),
    "GET /accounts/{id}/expiring": (lambda h, c: c.get(f"{h.base}/accounts/cash/expiring"), True),
    "GET /forecast": (lambda h, c: c.get(f"{h.base}/forecast", query={"account": "cash"}), True),
    "GET /alerts": (lambda h, c: c.get(f"{h.base}/alerts"), True),
    "POST /alerts/{id}/dismiss": (lambda h, c: c.post(f"{h.base}/alerts/{h.alert()}/dismiss"), False),
    "POST /goals": (
        lambda h, c: c.post(f"{h.base}/goals", {"name": "車", "target": 500_000, "account": "bank"}),
        False,
    ),
    "GET /goals": (lambda h, c: c.get(f"{h.base}/goals"), True),
    "GET /reports/net-worth": (lambda h, c: c.get(f"{h.base}/reports/net-worth", query={"from": "2026-10"}), True),
    "GET /reports/tags": (
        lambda h, c: c.get(f"{h.base}/reports/tags", query={"from": "2026-10", "to": "2026-11"}),
        True,
    ),
    "GET /goals/{id}": (lambda h, c: c.get(h.goal().header("Location") or ""), True),
    "PATCH /goals/{id}": (_patch_goal, False),
    "DELETE /goals/{id}": (_delete_goal, False),
    "POST /accounts/{id}/reconciliations": (_reconcile, False),
    "GET /accounts/{id}/reconciliations": (lambda h, c: c.get(f"{h.base}/accounts/cash/reconciliations"), True),
    "POST /receipts": (lambda h, c: c.post(f"{h.base}/receipts", receipt_body(uuid.uuid4().bytes)), False),
    "POST /receipts/{id}/complete": (
        lambda h, c: c.post(f"{h.base}/receipts/{uploaded_receipt(h.owner, h.base)}/complete"),
        False,
    ),
    "GET /receipts/{id}": (lambda h, c: c.get(f"{h.base}/receipts/{stored_receipt(h.owner, base=h.base)}"), True),
    "POST /jobs/run": (lambda h, c: c.post(f"{h.base}/jobs/run", query={"until": "2026-11-30"}), False),
    "GET /changes": (lambda h, c: c.get(f"{h.base}/changes"), True),
    "GET /slips/{id}/history": (lambda h, c: c.get(f"{h.base}/slips/{h.slip.json['id']}/history"), True),
    "POST /changes/{seq}/undo": (_undo, False),
    "POST /exports": (lambda h, c: c.post(f"{h.base}/exports"), False),
    "GET /exports/{id}": (lambda h, c: c.get(f"{h.base}/exports/{h.owner.post(f'{h.base}/exports').json['id']}"), True),
    "POST /rules": (lambda h, c: c.post(f"{h.base}/rules", MARUETSU), False),
    "GET /rules": (lambda h, c: c.get(f"{h.base}/rules"), True),
    "GET /rules/{id}": (lambda h, c: c.get(h.rule().header("Location") or ""), True),
    "PATCH /rules/{id}": (_patch_rule, False),
    "DELETE /rules/{id}": (_delete_rule, False),
    "PUT /rules/order": (_order_rules, False),
    "POST /rules/preview": (lambda h, c: c.post(f"{h.base}/rules/preview"), True),
    "POST /rules/apply": (lambda h, c: c.post(f"{h.base}/rules/apply"), False),
    "POST /rules/{id}/preview": (lambda h, c: c.post(f"{h.rule().header('Location')}/preview"), True),
    "POST /rules/{id}/apply": (lambda h, c: c.post(f"{h.rule().header('Location')}/apply"), False),
    "GET /rules/suggestions": (lambda h, c: c.get(f"{h.base}/rules/suggestions"), True),
    "POST /rules/suggestions/{id}/accept": (_accept_suggestion, False),
}
# Owners alone, even to read: an export holds the whole ledger
OWNER_ONLY = {"POST /ledger/rebuild", "POST /exports", "GET /exports/{id}"}


def test_every_ledger_route_is_served_under_a_ledger_and_listed_here() -> None:
    keys = {route.key for route in template.routes()}
    prefixed = {key.replace(PREFIX, "", 1) for key in keys if key.split(" ", 1)[1].startswith(PREFIX + "/")}
    ledger_management = {"POST /invitations", "PUT /members/{user}", "DELETE /members/{user}"}
    ledger_management |= {
        "POST /webhooks",
        "GET /webhooks",
        "DELETE /webhooks/{id}",
        "GET /webhooks/{id}/deliveries",
        "POST /webhooks/{id}/resume",
    }
    ledger_management |= {"GET /settlement", "POST /settlements"}  # shared ledgers only
    assert prefixed - ledger_management == set(ROUTES)
    assert set(ROUTES) <= keys  # and each is also served unprefixed, for the caller's personal ledger


@pytest.fixture
def household(api: Client) -> Household:
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    base = f"/ledgers/{made.json['id']}"
    for account, kind, opening in (("cash", "cash", 1_000_000), ("bank", "bank", 1_000_000)):
        assert api.post(f"{base}/accounts", {"id": account, "name": account, "type": kind,
                                             "opening_balance": opening}).status == 201  # fmt: skip
    billing = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
    card = api.post(f"{base}/accounts", {"id": "card", "name": "カード", "type": "credit", "billing": billing})
    assert card.status == 201, card
    slip = api.post(f"{base}/slips", _lunch())
    imported = api.post(f"{base}/imports", raw=CSV, headers={"Content-Type": "text/csv"})
    rent = api.post(f"{base}/recurrences", RENT)
    assert slip.status == 201 and imported.status == 200 and rent.status == 201, (slip, imported, rent)
    return Household(base, api, slip, imported.json["import_id"], rent)


def _member(household: Household, role: str) -> Client:
    invited = household.owner.post(f"{household.base}/invitations", {"role": role})
    guest = Client(f"{role}-{uuid.uuid4().hex[:8]}")
    assert guest.post(f"/invitations/{invited.json['token']}/accept").status == 200
    return guest


def _expected(role: str, route: str, reads: bool) -> set[int]:
    if role in ("removed", "stranger"):
        return {404}
    if role == "owner" or (route not in OWNER_ONLY and (reads or role == "editor")):
        return {200, 201, 202, 204}
    return {403}


@pytest.mark.parametrize("role", ["stranger", "removed", "viewer", "editor", "owner"])
def test_what_each_caller_may_do_on_every_ledger_route(
    household: Household, other_api: Client, role: str, store: Store
) -> None:
    # Given a caller of this kind
    if role == "owner":
        caller = household.owner
    elif role == "stranger":
        caller = other_api
    elif role == "removed":
        caller = _member(household, "editor")
        assert household.owner.delete(f"{household.base}/members/{caller.user}",
                                      headers={"If-Match": '"1"'}).status == 204  # fmt: skip
    else:
        caller = _member(household, role)
    before = household.owner.get(f"{household.base}/balances").json
    refused = []
    # When they call every ledger route of the household
    for route, (call, reads) in ROUTES.items():
        reply = call(household, caller)
        expected = _expected(role, route, reads)
        # Then each answers as their role allows, never with a server error
        assert reply.status < 500, (route, reply)
        if reply.status not in expected:
            refused.append((route, reply))
        elif reply.status in (403, 404):
            assert reply.json["code"] == ("forbidden" if reply.status == 403 else "not_found"), (route, reply)
    assert not refused, refused
    # And a refused caller changed nothing (the owner's own fresh slips aside, balances stand)
    ledger_id = household.base.rsplit("/", 1)[1]
    if role in ("removed", "stranger", "viewer"):
        slips = household.owner.get(f"{household.base}/slips", query={"limit": 100}).json["items"]
        assert all(s["created_by"] == household.owner.user and s["updated_by"] == household.owner.user for s in slips)
        accounts = household.owner.get(f"{household.base}/accounts").json["items"]
        assert [a["id"] for a in accounts] == ["bank", "card", "cash"]
    else:
        assert household.owner.get(f"{household.base}/balances").json != before
    assert invariants.check(store, SharedLedger(ledger_id)) == []


def test_forged_ledgers_and_cursors_reach_nothing(household: Household, other_api: Client, user: str) -> None:
    # Given Bob's own household, with a slip
    bobs = other_api.post("/ledgers", {"name": "ボブ家"}).json["id"]
    other_api.post(f"/ledgers/{bobs}/accounts", {"id": "cash", "name": "c", "type": "cash", "opening_balance": 9})
    assert other_api.post(f"/ledgers/{bobs}/slips", _lunch(amount=1)).status == 201
    hanako = household.owner
    hanakos = household.base.rsplit("/", 1)[1]
    # When Bob names Hanako's ledger by her id, her personal ledger by her user id, or keys of the table
    for ledger in (hanakos, user, f"LEDGER%23{user}", f"HOUSEHOLD%23{hanakos}", hanakos.lower(), "ME", "*"):
        # Then there is nothing there
        assert other_api.get(f"/ledgers/{ledger}/slips").status == 404, ledger
        assert other_api.post(f"/ledgers/{ledger}/slips", _lunch()).status == 404, ledger
    # And a cursor from Hanako's ledger pages Bob's own ledger only
    for _ in range(3):
        hanako.post(f"{household.base}/slips", _lunch())
    cursor = hanako.get(f"{household.base}/slips", query={"limit": 1}).json["next_cursor"]
    assert cursor
    seen = other_api.get(f"/ledgers/{bobs}/slips", query={"cursor": cursor})
    assert seen.status in (200, 400), seen
    if seen.status == 200:
        assert all(s["created_by"] == other_api.user for s in seen.json["items"])
    # And Hanako's "me" is her personal ledger, not the household
    assert hanako.get("/ledgers/me/slips").json["items"] == []
    assert other_api.get("/ledgers/me/slips").json["items"] == []
