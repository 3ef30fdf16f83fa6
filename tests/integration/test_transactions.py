"""Transaction conditions on DynamoDB Local: races between the read and the write of an update
are caught by the conditions inside the transaction, mapped to precise errors, and change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo.store import Store
from tests import invariants
from tests.events import Client
from tests.faults import before_next_transaction

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1000, "account": "cash", "category": "食費"}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 5000)
    api.account("suica", 0, type="emoney")
    return api


def test_concurrent_edit_between_read_and_write_is_412(cash: Client, store: Store, user: str) -> None:
    made = cash.slip(**LUNCH)
    where = made.header("Location") or ""
    # Given another writer changes the slip after our read, before our transaction
    rival = Client(user)
    before_next_transaction(store, lambda: rival.patch(where, {"amount": 2000}, headers={"If-Match": '"1"'}))
    # When our update (also based on version 1) is sent
    reply = cash.patch(where, {"amount": 3000}, headers={"If-Match": '"1"'})
    # Then the transaction's version condition refuses it: 412 with the current version
    assert reply.status == 412 and reply.json["current"] == 2
    assert cash.get(where).json["amount"] == 2000
    assert cash.balances()["cash"] == 3000
    assert invariants.check(store, user) == []


def test_concurrent_delete_during_a_date_move_is_404(cash: Client, store: Store, user: str) -> None:
    made = cash.slip(**LUNCH)
    where = made.header("Location") or ""
    rival = Client(user)
    before_next_transaction(store, lambda: rival.delete(where, headers={"If-Match": '"1"'}))
    reply = cash.patch(where, {"date": "2026-11-09"}, headers={"If-Match": '"1"'})
    assert reply.status == 404
    assert cash.get("/slips").json["items"] == []
    assert cash.balances()["cash"] == 5000
    assert invariants.check(store, user) == []


def test_money_spent_meanwhile_is_insufficient_funds(cash: Client, store: Store, user: str) -> None:
    rival = Client(user)
    before_next_transaction(store, lambda: rival.slip(**{**LUNCH, "amount": 4500}))
    reply = cash.slip(**{**LUNCH, "amount": 1000})
    assert reply.status == 409 and reply.json["code"] == "insufficient_funds"
    assert reply.json["balance"] == 500 and reply.json["needed"] == 1000
    assert cash.balances()["cash"] == 500
    assert invariants.check(store, user) == []


def test_account_change_checks_funds_of_the_new_account_only(cash: Client, store: Store, user: str) -> None:
    made = cash.slip(**LUNCH)
    # moving a 1000 expense to an empty Suica is refused; cash keeps its 4000
    moved = cash.patch(made.header("Location") or "", {"account": "suica"}, headers={"If-Match": '"1"'})
    assert moved.status == 409 and moved.json["account"] == "suica"
    assert cash.balances() == {"cash": 4000, "suica": 0}
    assert invariants.check(store, user) == []


def test_transfer_overdraft_is_refused_whole(cash: Client, store: Store, user: str) -> None:
    reply = cash.slip(date="2026-11-03", kind="transfer", amount=9999, account="cash", to_account="suica")
    assert reply.status == 409 and reply.json["code"] == "insufficient_funds"
    assert cash.balances() == {"cash": 5000, "suica": 0}
    assert invariants.check(store, user) == []


def test_duplicate_slip_id_is_already_exists(cash: Client, store: Store, user: str) -> None:
    from kakeibo import errors
    from kakeibo.models.slips import SlipIn
    from kakeibo.services import slips as service
    from kakeibo.store import WriteContext

    body = SlipIn.model_validate(LUNCH)
    service.create_slip(store, WriteContext.personal(user), body, slip_id="01KAJ0000000000000000000AB")
    with pytest.raises(errors.AlreadyExists):
        service.create_slip(store, WriteContext.personal(user), body, slip_id="01KAJ0000000000000000000AB")
    assert cash.balances()["cash"] == 4000
    assert invariants.check(store, user) == []


def test_client_request_token_makes_a_replayed_transaction_a_no_op(cash: Client, store: Store, user: str) -> None:
    from kakeibo.models.slips import SlipIn
    from kakeibo.services import slips as service

    # Given a transaction committed with a token, whose response we pretend was lost
    body = SlipIn.model_validate(LUNCH)
    sent: list[dict[str, Any]] = []
    store.core.client.meta.events.register(
        "provide-client-params.dynamodb.TransactWriteItems", lambda params, **kw: sent.append(params)
    )
    from kakeibo.store import WriteContext

    made = WriteContext.personal(user)
    service.create_slip(store, made, body, slip_id="01KAJ0000000000000000000CD", request_token="tok-123")
    # When exactly the same request is sent again within DynamoDB's window
    store.core.client.transact_write_items(**sent[-1])
    # Then DynamoDB treats it as the same transaction: the money moved once
    assert cash.balances()["cash"] == 4000
    assert invariants.check(store, user) == []
