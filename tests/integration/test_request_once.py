"""What one request establishes it establishes once and hands on: the caller's membership of a
shared ledger (read once, by the idempotency check or by the route, never by both) and its JSON body
(parsed once by the handler's precheck; the idempotency record and the route's validation read that
parse)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo.store.ledgers import LedgerOps
from tests.events import Client


@pytest.fixture
def member_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    seen: list[tuple[str, str]] = []
    member = LedgerOps.member

    def counted(self: LedgerOps, ledger: str, user: str) -> Any:
        seen.append((ledger, user))
        return member(self, ledger, user)

    monkeypatch.setattr(LedgerOps, "member", counted)
    yield seen


@pytest.fixture
def body_parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    seen: list[str] = []
    loads = json.loads

    def counted(text: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(text if isinstance(text, str) else text.decode())
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    yield seen


def _shared_ledger_with_cash(api: Client) -> str:
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    ledger = str(made.json["id"])
    cash = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 5000}
    opened = api.post(f"/ledgers/{ledger}/accounts", cash)
    assert opened.status == 201, opened
    return ledger


SLIP = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}


def test_a_keyed_slip_reads_the_membership_once(api: Client, user: str, member_reads: list[tuple[str, str]]) -> None:
    # Given a shared ledger with a cash account
    ledger = _shared_ledger_with_cash(api)
    member_reads.clear()

    # When a slip is posted to it with an Idempotency-Key
    made = api.post(f"/ledgers/{ledger}/slips", SLIP, headers={"Idempotency-Key": "lunch-1"})

    # Then it is made, and the caller's member item was read once
    assert made.status == 201, made
    assert member_reads == [(ledger, user)]

    # And when the same request is sent again, it is replayed after one read as well
    member_reads.clear()
    again = api.post(f"/ledgers/{ledger}/slips", SLIP, headers={"Idempotency-Key": "lunch-1"})
    assert again.status == 201 and again.json == made.json
    assert member_reads == [(ledger, user)]


def test_a_keyed_slip_parses_its_body_once(api: Client, body_parses: list[str]) -> None:
    # Given a cash account
    api.account("cash", 5000)
    sent = json.dumps(SLIP)
    body_parses.clear()

    # When a slip is posted with an Idempotency-Key
    made = api.post("/slips", raw=sent, headers={"Idempotency-Key": "lunch-2"})

    # Then it is made, and its body was parsed once
    assert made.status == 201, made
    assert made.json["amount"] == 1200
    assert body_parses.count(sent) == 1


def test_what_one_request_resolved_is_not_handed_to_the_next(api: Client, other_user: str) -> None:
    # Given a shared ledger, and a slip posted there with an Idempotency-Key
    ledger = _shared_ledger_with_cash(api)
    assert api.post(f"/ledgers/{ledger}/slips", SLIP, headers={"Idempotency-Key": "k"}).status == 201

    # When another person, not a member, posts with the same key and then reads the ledger
    refused = api.post(f"/ledgers/{ledger}/slips", SLIP, headers={"Idempotency-Key": "k"}, user=other_user)
    read = api.get(f"/ledgers/{ledger}/slips", user=other_user)

    # Then both answer 404: nothing the owner's requests resolved reached theirs
    assert refused.status == 404, refused
    assert read.status == 404, read
