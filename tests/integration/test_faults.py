"""Faults between the function and DynamoDB: after each, every invariant holds, nothing answered
5xx, and a retry with the same Idempotency-Key has exactly one effect."""

from __future__ import annotations

import pytest

from kakeibo.store import Store
from tests import invariants
from tests.events import Client
from tests.faults import injected

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
KINDS = ["fail_before_send", "lose_response", "conflict", "throttle", "slow"]


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 20000)
    api.account("suica", 5000, type="emoney")
    return api


def _one_effect(api: Client, store: Store, user: str, cash_balance: int) -> None:
    assert api.balances()["cash"] == cash_balance
    assert invariants.check(store, user) == []


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("times", [1, 99], ids=["once", "every-attempt"])
def test_create_under_faults_then_retry_with_the_key(
    cash: Client, store: Store, user: str, kind: str, times: int
) -> None:
    # Given the transaction call fails in this way (once, or on every attempt)
    with injected(store.core.client, "TransactWriteItems", kind, times) as faults:
        first = cash.post("/slips", LUNCH, headers={"Idempotency-Key": f"fault-{kind}"})
    # Then the answer is a success or a retryable 409 — never a server error
    assert first.status in (201, 409), first
    if first.status == 409:
        assert first.json["code"] == "conflict" and first.header("Retry-After")
    assert faults.injected >= 1
    # When the client retries with the same key (after the fault is gone)
    again = cash.post("/slips", LUNCH, headers={"Idempotency-Key": f"fault-{kind}"})
    # Then there is exactly one slip and the money moved once
    assert again.status == 201, again
    assert len(cash.get("/slips").json["items"]) == 1
    _one_effect(cash, store, user, 18800)


@pytest.mark.parametrize("kind", KINDS)
def test_update_and_delete_under_faults(cash: Client, store: Store, user: str, kind: str) -> None:
    made = cash.post("/slips", LUNCH)
    where = made.header("Location") or ""
    # An update (a date move with an account change) while the transaction call misbehaves every time
    with injected(store.core.client, "TransactWriteItems", kind, 99):
        moved = cash.patch(where, {"date": "2026-11-09", "account": "suica"}, headers={"If-Match": '"1"'})
    assert moved.status in (200, 409), moved
    if kind == "lose_response":
        # every answer was lost, but the first attempt committed: the slip moved, once
        assert cash.get("/slips").json["items"][0]["date"] == "2026-11-09"
    invariants_after = invariants.check(store, user)
    assert invariants_after == []
    # A delete under the same fault, once
    current = cash.get("/slips").json["items"][0]
    location = f"/slips/{current['date']}/{current['id']}"
    with injected(store.core.client, "TransactWriteItems", kind, 1):
        deleted = cash.delete(location, headers={"If-Match": f'"{current["version"]}"'})
    assert deleted.status in (204, 409), deleted
    assert invariants.check(store, user) == []
    if deleted.status == 204:
        assert cash.get("/slips").json["items"] == []
        _one_effect(cash, store, user, 20000)


@pytest.mark.parametrize("kind", ["fail_before_send", "throttle", "slow", "lose_response"])
def test_reads_under_faults_answer_or_refuse_cleanly(cash: Client, store: Store, kind: str) -> None:
    cash.post("/slips", LUNCH)
    for operation in ("Query", "GetItem", "TransactGetItems"):
        with injected(store.core.client, operation, kind, 99):
            replies = [cash.get("/slips"), cash.get("/balances"), cash.get("/accounts/cash")]
        assert all(r.status in (200, 409) for r in replies), replies
    assert cash.balances()["cash"] == 18800
