"""A card's file checked against the card's own statement (§13): the import says whether the file's
total equals the cycle's amount_due, and which rows differ (edited here, dated in another cycle,
typed by hand and not in the file)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from tests.events import Client

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "statements"
CSV = {"Content-Type": "text/csv"}


@pytest.fixture
def on_day(monkeypatch: pytest.MonkeyPatch) -> Any:
    def set_day(day: dt.date) -> None:
        for module in ("kakeibo.services.accounts", "kakeibo.services.cards"):
            monkeypatch.setattr(f"{module}.today", lambda day=day: day)

    return set_day


def jcb_card(api: Client, on_day: Any) -> None:
    """A JCB card closing on the 15th, paid on the 10th of the next month, set before its uses."""
    on_day(dt.date(2026, 7, 1))
    api.account("bank", 100_000, type="bank")
    made = api.post("/accounts", {"id": "jcb", "name": "JCBカード", "type": "credit", "allow_negative": True,
                                  "billing": {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}})  # fmt: skip
    assert made.status == 201, made


def send(api: Client, data: bytes | None = None, **query: str) -> Any:
    data = (SAMPLES / "jcb.csv").read_bytes() if data is None else data
    reply = api.post("/imports", raw=data, headers=CSV, query={"account": "jcb", **query})
    assert reply.status == 200, reply
    return reply.json


def without_the_installment() -> bytes:
    """MyJCB's sample without its August installment row, its total 16,240 - 10,475."""
    lines = (SAMPLES / "jcb.csv").read_bytes().decode("cp932").split("\r\n")
    kept = [line.replace('"16240"', '"5765"') for line in lines if "エディオン" not in line]
    return "\r\n".join(kept).encode("cp932")


def test_a_card_file_equal_to_the_cards_statement(api: Client, on_day: Any) -> None:
    # Given the card with nothing on it, and MyJCB's statement paid on 10 December (total 5,765)
    jcb_card(api, on_day)
    data = without_the_installment()
    # When it is previewed, then imported
    dry = send(api, data, dry_run="true")["statement"]
    done = send(api, data)["statement"]
    # Then the preview says the ledger does not hold it yet, and the import that it now equals the cycle
    assert (dry["amount_due"], dry["equal"], dry["differing"]) == (0, False, 4)
    assert {d["reason"] for d in dry["differences"]} == {"not_in_ledger"}
    assert {k: done[k] for k in ("closing_date", "payment_date", "period", "file_total", "rows_total")} == {
        "closing_date": "2026-11-15",
        "payment_date": "2026-12-10",
        "period": {"from": "2026-10-16", "to": "2026-11-15"},
        "file_total": 5765,
        "rows_total": 5765,
    }
    assert (done["amount_due"], done["equal"], done["difference"], done["differences"]) == (5765, True, 0, [])


def test_a_row_dated_in_another_cycle_is_named(api: Client, on_day: Any) -> None:
    # Given the statement with the 2nd payment of an installment bought in August
    jcb_card(api, on_day)
    check = send(api)["statement"]
    # Then the ledger bills that row in August's cycle (by its 利用日): the totals differ by it, and it is named
    assert (check["file_total"], check["amount_due"], check["equal"], check["difference"]) == (
        16240,
        5765,
        False,
        10475,
    )
    assert [(d["reason"], d["line"], d["date"], d["file_amount"]) for d in check["differences"]] == [
        ("outside_period", 9, "2026-08-02", 10475)
    ]


def test_the_rows_that_differ_from_the_ledger_are_named(api: Client, on_day: Any) -> None:
    # Given the statement imported, then a slip edited here and another typed by hand in the cycle
    jcb_card(api, on_day)
    data = without_the_installment()
    send(api, data)
    slips = {s["payee"]: s for s in api.get("/slips", query={"account": "jcb", "limit": "100"}).json["items"]}
    eneos = slips["ＥＮＥＯＳ\u3000ＳＳ"]
    edited = api.patch(f"/slips/{eneos['date']}/{eneos['id']}", {"amount": 4000}, headers={"If-Match": '"1"'})
    assert edited.status == 200, edited
    typed = api.slip(date="2026-11-01", kind="expense", amount=500, account="jcb", category="食費", payee="書店")
    assert typed.status == 201, typed
    # When the same file is sent again
    check = send(api, data)["statement"]
    # Then the file's total no longer equals what the ledger says is due, and both differences are named
    assert (check["file_total"], check["amount_due"], check["equal"], check["difference"]) == (
        5765,
        5765 - 175 + 500,
        False,
        175 - 500,
    )
    named = {(d["reason"], d["line"], d["file_amount"], d["ledger_amount"], d["payee"]) for d in check["differences"]}
    assert named == {("amount", 8, 4175, 4000, "ＥＮＥＯＳ\u3000ＳＳ"), ("not_in_file", None, None, 500, "書店")}


def test_a_card_without_billing_or_a_bank_file_has_no_check(api: Client) -> None:
    api.account("card", 0, type="credit", allow_negative=True)
    reply = api.post("/imports", raw=(SAMPLES / "jcb.csv").read_bytes(), headers=CSV, query={"account": "card"})
    assert reply.json["statement"] is None
    api.account("bank", 100_000, type="bank")
    bank = api.post("/imports", raw=(SAMPLES / "yucho.csv").read_bytes(), headers=CSV, query={"account": "bank"})
    assert bank.json["statement"] is None
