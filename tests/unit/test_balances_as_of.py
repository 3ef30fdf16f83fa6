"""GET /balances?date=D (moto): every account's balance at the end of D, from its day totals."""

from __future__ import annotations

from tests.events import Client


def test_balances_as_of_a_date_over_several_accounts(api: Client) -> None:
    # Given three accounts, one never used, and slips on three days (a transfer on the second)
    api.account("cash", 20000)
    api.account("bank", 100000, type="bank")
    api.account("card", type="credit")
    for slip in (
        {"date": "2026-03-01", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"},
        {"date": "2026-03-02", "kind": "transfer", "amount": 5000, "account": "bank", "to_account": "cash"},
        {"date": "2026-03-03", "kind": "income", "amount": 300, "account": "cash"},
    ):
        assert api.slip(**slip).status == 201

    # Then before anything happened every account has its opening balance
    assert api.balances("2026-02-28") == {"bank": 100000, "card": 0, "cash": 20000}
    # And each day's end counts that day and none after it
    assert api.balances("2026-03-01") == {"bank": 100000, "card": 0, "cash": 18800}
    assert api.balances("2026-03-02") == {"bank": 95000, "card": 0, "cash": 23800}
    # And as of the last day the balances are the current ones
    assert api.balances("2026-03-03") == api.balances() == {"bank": 95000, "card": 0, "cash": 24100}


def test_balances_as_of_a_date_for_an_empty_ledger(api: Client) -> None:
    # Given no accounts
    # Then there is nothing to report, for any date
    reply = api.get("/balances", query={"date": "2026-03-01"})
    assert reply.status == 200
    assert reply.json == {"date": "2026-03-01", "items": []}
