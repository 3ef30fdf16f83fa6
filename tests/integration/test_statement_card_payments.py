"""A bank's row that pays one of the ledger's own cards (the card company's name in its 摘要, on the
card's payment date) is the very transfer the daily job posts for that cycle (§13): whichever comes
first, the import or the job, the payment is one slip — never a second debit of the bank."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kakeibo.store import Store
from tests import invariants
from tests.events import Client

CSV = {"Content-Type": "text/csv"}
RAKUTEN_BANK = "取引日,入出金(円),取引後残高(円),入出金内容\n"


@pytest.fixture
def on_day(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make "today" a given day for the services that ask (the card's schedule, a statement's state)."""

    def set_day(day: dt.date) -> None:
        for module in ("kakeibo.services.accounts", "kakeibo.services.cards"):
            monkeypatch.setattr(f"{module}.today", lambda day=day: day)

    return set_day


def household(api: Client, on_day: Any) -> None:
    """A bank, and a 楽天カード closing at the month's end, paid on the 27th of the next from the bank."""
    on_day(dt.date(2026, 10, 1))
    api.account("bank", 100_000, type="bank")
    billing = {"closing_day": "last", "payment_day": 27, "pay_from": "bank"}
    card = api.post(
        "/accounts",
        {"id": "rakuten", "name": "楽天カード", "type": "credit", "allow_negative": True, "billing": billing},
    )
    assert card.status == 201, card
    spent = api.slip(date="2026-10-12", kind="expense", amount=3_086, account="rakuten", category="食費")
    assert spent.status == 201, spent


def bank_file(*rows: str) -> bytes:
    return (RAKUTEN_BANK + "".join(f"{r}\n" for r in rows)).replace("\n", "\r\n").encode("cp932")


def payments(api: Client) -> list[dict[str, Any]]:
    items = api.get("/slips", query={"limit": "100", "kind": "transfer"}).json["items"]
    return [s for s in items if s["to_account"] == "rakuten"]


def test_the_bank_row_is_the_cards_payment_and_the_job_posts_no_second(
    api: Client, store: Store, user: str, on_day: Any
) -> None:
    # Given October's charges on the card, paid on 27 November
    household(api, on_day)
    # When the bank's November download, with the card company's debit that day, is imported
    data = bank_file("20261107,3146,,振込　ヤマダ　タロウ", "20261127,-3086,,ラクテンカ－ド　サ－ビス")
    done = api.post("/imports", raw=data, headers=CSV, query={"account": "bank"})
    # Then the row is recognised as the card's payment of the cycle closing 31 October
    assert done.status == 200, done
    assert done.json["card_payments"] == [
        {"line": 3, "card": "rakuten", "closing_date": "2026-10-31", "payment_date": "2026-11-27",
         "slip_id": done.json["card_payments"][0]["slip_id"], "amount": 3086, "posted_amount": None, "action": "post"}
    ]  # fmt: skip
    paid = payments(api)
    assert [(p["date"], p["amount"], p["account"], p["payee"]) for p in paid] == [
        ("2026-11-27", 3086, "bank", "ラクテンカ－ド\u3000サ－ビス")
    ]
    assert paid[0]["id"] == done.json["card_payments"][0]["slip_id"]  # the cycle's own payment identity
    # And when the daily job runs past the payment date, it posts nothing more
    on_day(dt.date(2026, 11, 30))
    ran = api.post("/jobs/run", query={"until": "2026-11-30"})
    assert (ran.status, ran.json["posted"]) == (200, 0), ran.json
    assert len(payments(api)) == 1
    assert api.balances() == {"bank": 100_000 + 3146 - 3086, "rakuten": 0}
    statement = api.get("/accounts/rakuten/statements", query={"from": "2026-10", "to": "2026-10"}).json["items"][0]
    assert (statement["amount_due"], statement["paid"], statement["state"]) == (3086, 3086, "paid")
    assert invariants.check(store, user) == []


def test_a_payment_the_job_posted_first_is_not_imported_again(
    api: Client, store: Store, user: str, on_day: Any
) -> None:
    # Given the daily job has paid October's cycle on 27 November
    household(api, on_day)
    on_day(dt.date(2026, 11, 30))
    assert api.post("/jobs/run", query={"until": "2026-11-30"}).json["posted"] == 1
    # When the bank's download with that debit is imported (dry run first)
    data = bank_file("20261127,-3086,,ラクテンカ－ド　サ－ビス")
    dry = api.post("/imports", raw=data, headers=CSV, query={"account": "bank", "dry_run": "true"})
    done = api.post("/imports", raw=data, headers=CSV, query={"account": "bank"})
    # Then it is the payment already posted: nothing is written, the bank is debited once
    assert dry.json["card_payments"][0]["action"] == "already_posted"
    assert [o["action"] for o in dry.json["outcomes"]] == ["duplicate"]
    assert done.json["card_payments"][0]["posted_amount"] == 3086
    assert (done.json["created"], done.json["skipped"]) == (0, 1)
    assert len(payments(api)) == 1
    assert api.balances()["bank"] == 100_000 - 3086
    assert invariants.check(store, user) == []


def test_a_debit_on_another_day_or_of_another_company_is_an_expense(api: Client, on_day: Any) -> None:
    # Given the card, and rows that are not its payment: the company's name on another day, another
    # company on the payment date
    household(api, on_day)
    data = bank_file("20261126,-3086,,ラクテンカ－ド　サ－ビス", "20261127,-5000,,ＮＨＫ")
    done = api.post("/imports", raw=data, headers=CSV, query={"account": "bank"})
    # Then both are expenses of the bank
    assert (done.json["card_payments"], done.json["created"]) == ([], 2)
    assert payments(api) == []


def test_a_card_paid_from_another_bank_is_not_this_banks_payment(api: Client, on_day: Any) -> None:
    household(api, on_day)
    api.account("other", 50_000, type="bank")
    data = bank_file("20261127,-3086,,ラクテンカ－ド　サ－ビス")
    done = api.post("/imports", raw=data, headers=CSV, query={"account": "other"})
    assert (done.json["card_payments"], done.json["created"]) == ([], 1)


def test_a_second_debit_of_the_card_that_day_is_an_expense(api: Client, on_day: Any) -> None:
    # Given two debits naming the card company on its payment date
    household(api, on_day)
    data = bank_file("20261127,-3086,,ラクテンカ－ド　サ－ビス", "20261127,-1000,,ラクテンカ－ド　サ－ビス")
    done = api.post("/imports", raw=data, headers=CSV, query={"account": "bank"})
    # Then the first is the cycle's payment and the second an expense (one payment per cycle)
    assert [p["line"] for p in done.json["card_payments"]] == [2]
    assert (done.json["created"], done.json["failed"]) == (2, 0)
    assert [p["amount"] for p in payments(api)] == [3086]
