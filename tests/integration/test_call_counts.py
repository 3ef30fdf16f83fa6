"""The cost of each operation in DynamoDB calls: create = the ledger's rules (one Query) + counter +
1 transaction;
update / delete = 1 consistent read + 1 transaction. Balance and index items ride in that
transaction. The slips here are dated in a month that is not today's (the API's clock is fixed in
December): an expense of today's month also reads its year's budgets once, for the alerts it may raise
(tests/integration/test_alerts.py counts that one)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from kakeibo import settings
from kakeibo.store import Store
from tests.events import Client


@pytest.fixture(autouse=True)
def _december(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today is in December: the November slips below are not this month's."""
    monkeypatch.setattr(settings, "utc_now", lambda: dt.datetime(2026, 12, 10, 3, 0, tzinfo=dt.UTC))


@pytest.fixture
def calls(store: Store) -> Iterator[Counter[str]]:
    seen: Counter[str] = Counter()

    def count(event_name: str, **kwargs: Any) -> None:
        seen[event_name.rsplit(".", 1)[-1]] += 1

    store.core.client.meta.events.register("before-call.dynamodb.*", count)
    yield seen
    store.core.client.meta.events.unregister("before-call.dynamodb.*", count)


def _transaction_sizes(store: Store) -> list[int]:
    sizes: list[int] = []

    def size(params: dict[str, Any], **kwargs: Any) -> None:
        sizes.append(len(params["TransactItems"]))

    store.core.client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", size)
    return sizes


# Every change transaction also advances the journal head and puts its entry. The head's seq is
# remembered by the process that wrote last, so a write reads it only when it does not know it.
JOURNAL = 2


def test_calls_per_operation(api: Client, store: Store, calls: Counter[str]) -> None:
    # Given two accounts
    api.account("cash", 10_000)
    api.account("suica", 1_000, type="emoney")
    sizes = _transaction_sizes(store)

    # When the ledger's first slip is created: its rules (one Query loads them all), the counter, its
    # mark (a new ledger's slips are all indexed), then one transaction
    calls.clear()
    first = api.slip(date="2026-11-02", kind="expense", amount=100, account="cash", category="食費")
    assert first.status == 201
    assert calls == Counter({"Query": 1, "UpdateItem": 2, "TransactWriteItems": 1})

    # When a slip is created: the rules, the counter, then one transaction (slip + identity + account + day +
    # category + the account's month and year + 4 index items: account, category, kind, author)
    calls.clear()
    made = api.slip(date="2026-11-03", kind="expense", amount=500, account="cash", category="食費")
    assert made.status == 201
    assert calls == Counter({"Query": 1, "UpdateItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 11 + JOURNAL

    # When its amount changes: one read, one transaction (slip + identity + account + day + category
    # + month + year; its index items stay as they are)
    calls.clear()
    where = made.header("Location") or ""
    changed = api.patch(where, {"amount": 700}, headers={"If-Match": made.etag or ""})
    assert calls == Counter({"GetItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 7 + JOURNAL

    # When its date changes: one read, one transaction (delete + put + identity + 2 days + the
    # account's month, whose day fields move; account, year and category net 0, the account still
    # checked: no slip change may interleave with a ledger rebuild; its 4 index items deleted and
    # put under the new date)
    calls.clear()
    moved = api.patch(where, {"date": "2026-11-04"}, headers={"If-Match": changed.etag or ""})
    assert calls == Counter({"GetItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 15 + JOURNAL

    # When only the memo changes: one read, one transaction with the slip, its identity (version) and
    # its account's rebuild check
    calls.clear()
    where = moved.header("Location") or ""
    memo = api.patch(where, {"memo": "ランチ"}, headers={"If-Match": moved.etag or ""})
    assert calls == Counter({"GetItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 3 + JOURNAL

    # When it is deleted: one read, one transaction (slip + tombstone identity + account + day +
    # category + month + year + its 4 index items)
    calls.clear()
    assert api.delete(where, headers={"If-Match": memo.etag or ""}).status == 204
    assert calls == Counter({"GetItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 11 + JOURNAL

    # When a transfer is made: the rules + counter + one transaction (slip + identity + 2 x (account + day +
    # month + year) + index items: both accounts, its kind, its author)
    calls.clear()
    api.slip(date="2026-11-05", kind="transfer", amount=100, account="cash", to_account="suica")
    assert calls == Counter({"Query": 1, "UpdateItem": 1, "TransactWriteItems": 1})
    assert sizes[-1] == 14 + JOURNAL

    # When a request is refused by validation, DynamoDB is not called at all
    calls.clear()
    assert api.slip(date="2026-11-05", kind="expense", amount=1.5, account="cash").status == 422
    assert calls == Counter()
