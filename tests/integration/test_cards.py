"""Credit cards: billing settings, statements from the rollups, and payments posted once by the job."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from kakeibo.core import billing
from kakeibo.store import Store
from tests import invariants
from tests.concurrently import fan_out
from tests.events import Client

BILLING = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
SET_ON = dt.date(2026, 10, 1)  # the day the card's billing is set: its first payment is on 10 October


@pytest.fixture
def on_day(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make "today" a given day for the services that ask (the schedule, a statement's state)."""

    def set_day(day: dt.date) -> None:
        for module in ("kakeibo.services.accounts", "kakeibo.services.cards"):
            monkeypatch.setattr(f"{module}.today", lambda day=day: day)

    return set_day


def _card(api: Client, bank: int = 100_000, **settings: Any) -> None:
    api.account("bank", bank, type="bank")
    api.account("suica", 0, type="emoney")
    made = api.post("/accounts", {"id": "card", "name": "楽天カード", "type": "credit",
                                  "billing": {**BILLING, **settings}})  # fmt: skip
    assert made.status == 201, made


def _spend(api: Client) -> dict[str, str]:
    """Charges over three cycles: closing 15 September, 15 October and 15 November."""
    made = {
        "sep": api.slip(date="2026-09-10", kind="expense", amount=1_000, account="card", category="日用品"),
        "late_sep": api.slip(date="2026-09-20", kind="expense", amount=3_000, account="card", category="食費"),
        "refund": api.slip(date="2026-10-05", kind="income", amount=500, account="card", category="返品"),
        "topup": api.slip(date="2026-10-12", kind="transfer", amount=2_000, account="card", to_account="suica"),
        "oct": api.slip(date="2026-10-20", kind="expense", amount=4_000, account="card", category="外食"),
    }
    return {name: reply.header("Location") or "" for name, reply in made.items()}


def _statements(api: Client, first: str = "2026-09", last: str = "2026-11") -> dict[str, dict[str, Any]]:
    got = api.get("/accounts/card/statements", query={"from": first, "to": last})
    assert got.status == 200, got
    return {item["closing_date"]: item for item in got.json["items"]}


def _balance(api: Client, account: str) -> int:
    return int(api.get(f"/accounts/{account}").json["balance"])


def test_billing_is_kept_and_schedules_the_first_payment(api: Client, on_day: Any) -> None:
    # Given a day in October
    on_day(SET_ON)
    # When a card is created with its billing
    _card(api, closing_day="last", payment_day=27, payment_month_offset=2, shift="next_business_day")
    card = api.get("/accounts/card").json
    # Then the billing is as sent and the first payment is the first debited from today on:
    # August's cycle (closing 31 August), paid 27 October (a Tuesday)
    assert card["billing"] == {"closing_day": "last", "payment_day": 27, "payment_month_offset": 2,
                               "pay_from": "bank", "shift": "next_business_day"}  # fmt: skip
    assert card["payments"] == {"next_closing": "2026-08-31", "next_payment": "2026-10-27", "paid_through": None,
                                "last_error": None}  # fmt: skip
    # And removing it removes the schedule
    removed = api.patch("/accounts/card", {"billing": None}, headers={"If-Match": f'"{card["version"]}"'})
    assert removed.status == 200, removed
    assert removed.json["billing"] is None and removed.json["payments"] is None
    assert api.get("/accounts/card/statements").status == 409


@pytest.mark.parametrize(
    ("account", "change", "field"),
    [
        ("card", {"closing_day": 0}, "closing_day"),
        ("card", {"closing_day": 32}, "closing_day"),
        ("card", {"payment_day": "first"}, "payment_day"),
        ("card", {"payment_month_offset": 3}, "payment_month_offset"),
        ("card", {"shift": "sometime"}, "shift"),
        ("card", {"pay_from": "nowhere"}, "pay_from"),
        ("card", {"pay_from": "suica"}, "pay_from"),  # not a bank account
        ("card", {"pay_from": "card"}, "pay_from"),  # itself
        ("cash", {}, "billing"),  # not a credit card
    ],
)
def test_bad_billing_is_refused_naming_the_field_and_writes_nothing(
    api: Client, account: str, change: dict[str, Any], field: str
) -> None:
    # Given a bank, an IC card, cash and a card without billing
    api.account("bank", 1_000, type="bank")
    api.account("suica", 0, type="emoney")
    api.account("cash", 0)
    api.post("/accounts", {"id": "card", "name": "カード", "type": "credit"})
    before = api.get(f"/accounts/{account}").json
    changes = api.get("/changes").json["changes"]
    # When billing is set with a bad value, by PATCH and at creation
    patched = api.patch(f"/accounts/{account}", {"billing": {**BILLING, **change}}, headers={"If-Match": '"1"'})
    kind = "credit" if account == "card" else "cash"
    created = api.post("/accounts", {"id": "new", "name": "n", "type": kind, "billing": {**BILLING, **change}})
    # Then both are 422 naming the field, in the caller's language too
    for reply in (patched, created):
        assert reply.status == 422, reply
        assert any(field in error["loc"] for error in reply.json["errors"]), reply.json
    japanese = api.patch(f"/accounts/{account}", {"billing": {**BILLING, **change}},
                         headers={"If-Match": '"1"', "Accept-Language": "ja"})  # fmt: skip
    assert japanese.status == 422 and not japanese.json["detail"].isascii(), japanese.json
    # And nothing was written
    assert api.get(f"/accounts/{account}").json == before
    assert api.get("/accounts/new").status == 404
    assert api.get("/changes").json["changes"] == changes


def test_statement_ranges_that_are_not_months_are_400(api: Client, on_day: Any) -> None:
    on_day(SET_ON)
    _card(api)
    for query in ({"from": "2026-9"}, {"to": "2026-13"}, {"from": "2026-11", "to": "2026-10"},
                  {"from": "2024-01", "to": "2026-01"}):  # fmt: skip
        assert api.get("/accounts/card/statements", query=query).status == 400, query
    assert api.get("/accounts/bank/statements").status == 409  # no billing
    assert api.get("/accounts/nope/statements").status == 404


def test_statements_and_payments_posted_once(api: Client, store: Store, user: str, on_day: Any) -> None:
    # Given a card closing on the 15th, paid on the 10th of the next month from the bank, since 1 October
    on_day(SET_ON)
    _card(api)
    _spend(api)
    on_day(dt.date(2026, 11, 30))
    # When the job runs up to the end of November
    ran = api.post("/jobs/run", query={"until": "2026-11-30"})
    # Then the September cycle (1,000) and the October cycle (3,000 + 2,000 top-up - 500 refund) are paid
    assert ran.status == 200 and ran.json["posted"] == 2 and ran.json["failed"] == [], ran.json
    assert _balance(api, "bank") == 100_000 - 1_000 - 4_500
    assert _balance(api, "card") == -4_000
    cycles = _statements(api)
    sep, oct_, nov = cycles["2026-09-15"], cycles["2026-10-15"], cycles["2026-11-15"]
    assert (sep["period"], sep["payment_date"]) == ({"from": "2026-08-16", "to": "2026-09-15"}, "2026-10-10")
    assert (sep["charges"], sep["refunds"], sep["amount_due"], sep["paid"], sep["state"]) == (1_000, 0, 1_000, 1_000,
                                                                                              "paid")  # fmt: skip
    assert (oct_["charges"], oct_["refunds"], oct_["payments"], oct_["slips_count"]) == (5_000, 500, 1_000, 4)
    assert (oct_["amount_due"], oct_["paid"], oct_["state"]) == (4_500, 4_500, "paid")
    assert (nov["charges"], nov["amount_due"], nov["paid"], nov["state"]) == (4_000, 4_000, 0, "closed")
    assert nov["payment_date"] == "2026-12-10"
    payment = api.get(f"/slips/{oct_['payment_slip_id']}").json
    assert (payment["kind"], payment["account"], payment["to_account"], payment["date"]) == (
        "transfer", "bank", "card", "2026-11-10")  # fmt: skip
    assert api.get("/accounts/card").json["payments"] == {
        "next_closing": "2026-11-15", "next_payment": "2026-12-10", "paid_through": "2026-10-15", "last_error": None
    }  # fmt: skip
    # And running it again, or the daily job for every ledger, posts nothing more
    assert api.post("/jobs/run", query={"until": "2026-11-30"}).json["posted"] == 0
    journal = api.get("/changes").json["changes"]
    assert [c["origin"] for c in journal].count("card_payment") == 2
    assert invariants.check(store, user) == []


def test_slips_moved_across_a_closing_date_after_the_payment_are_paid_once(api: Client, store: Store, user: str,
                                                                           on_day: Any) -> None:  # fmt: skip
    # Given the September and October cycles paid
    on_day(SET_ON)
    _card(api)
    slips = _spend(api)
    on_day(dt.date(2026, 11, 30))
    assert api.post("/jobs/run", query={"until": "2026-11-30"}).json["posted"] == 2
    # When a paid 3,000 moves out of the October cycle into November's, and an unpaid 4,000 into October's
    moved = api.patch(slips["late_sep"], {"date": "2026-10-25"}, headers={"If-Match": '"1"'})
    back = api.patch(slips["oct"], {"date": "2026-10-01"}, headers={"If-Match": '"1"'})
    assert moved.status == 200 and back.status == 200, (moved, back)
    # Then November's cycle owes what the card still owes: 4,000, neither 3,000 again nor 4,000 forgotten
    nov = _statements(api)["2026-11-15"]
    assert (nov["charges"], nov["amount_due"]) == (3_000, 4_000)
    # And December's payment debits exactly that, once
    assert api.post("/jobs/run", query={"until": "2026-12-31"}).json["posted"] == 1
    assert _balance(api, "card") == 0
    assert _balance(api, "bank") == 100_000 - 1_000 - 4_500 - 4_000
    assert invariants.check(store, user) == []


def test_a_payment_that_cannot_be_debited_is_kept_and_retried(api: Client, on_day: Any) -> None:
    # Given a bank holding 600, and a September cycle owing 1,000
    on_day(SET_ON)
    _card(api, bank=600)
    api.slip(date="2026-09-10", kind="expense", amount=1_000, account="card", category="日用品")
    # When the job runs on the payment day
    ran = api.post("/jobs/run", query={"until": "2026-10-10"}, headers={"Accept-Language": "ja"})
    # Then nothing is posted, the failure is reported (in the caller's language) and kept on the card
    assert ran.status == 200 and ran.json["posted"] == 0, ran.json
    (failure,) = ran.json["failed"]
    assert (failure["card"], failure["code"], failure["date"]) == ("card", "insufficient_funds", "2026-10-10")
    assert not failure["detail"].isascii()
    kept = api.get("/accounts/card").json["payments"]
    assert kept["last_error"]["code"] == "insufficient_funds" and kept["paid_through"] is None
    # And once the bank has the money, the next run pays it and forgets the failure
    api.slip(date="2026-10-01", kind="income", amount=1_000, account="bank", category="給与")
    assert api.post("/jobs/run", query={"until": "2026-10-10"}).json["posted"] == 1
    assert api.get("/accounts/card").json["payments"]["last_error"] is None
    assert _balance(api, "bank") == 600


def test_four_concurrent_jobs_post_each_payment_once(local_env: str, store: Store, on_day: Any) -> None:
    # Given a card with two cycles due
    on_day(SET_ON)
    api = Client(f"cards-{dt.datetime.now(dt.UTC).timestamp()}")
    _card(api)
    _spend(api)
    # When four runs start at the same moment, each from its own process
    run = ("POST", "/jobs/run?until=2026-11-30", None, None)
    replies = fan_out(api.user, [run] * 4)
    # Then all answer, between them the two payments were posted once
    assert all(r.status == 200 for r in replies), replies
    assert sum(r.json["posted"] for r in replies) == 2
    assert _balance(api, "bank") == 100_000 - 1_000 - 4_500
    payments = api.get("/slips", query={"account": "bank", "limit": 100}).json["items"]
    assert sorted(p["amount"] for p in payments) == [1_000, 4_500]
    assert {p["id"] for p in payments} == {billing.payment_slip_id("card", dt.date(2026, m, 15)) for m in (9, 10)}
    assert api.get("/accounts/card").json["payments"]["paid_through"] == "2026-10-15"
    assert invariants.check(store, api.user) == []


def test_the_daily_job_pays_cards_through_the_due_index(api: Client, store: Store, user: str, on_day: Any) -> None:
    # Given a card with two cycles due by the end of November
    on_day(SET_ON)
    _card(api)
    _spend(api)
    from kakeibo.services import daily

    # When the daily job runs for every ledger
    result = daily.post_due(store, dt.date(2026, 11, 30))
    # Then this card's payments are among what it posted, and it is next due in December
    assert api.get("/accounts/card").json["payments"]["paid_through"] == "2026-10-15"
    assert result["posted"] >= 2
    assert (user, "ACCOUNT#card") not in list(store.recurrences.due_work("2026-11-30"))
    assert (user, "ACCOUNT#card") in list(store.recurrences.due_work("2026-12-10"))


def test_the_monthly_report_on_the_payment_basis_counts_card_spending_when_it_is_paid(api: Client, on_day: Any) -> None:
    # Given the card's charges of September and October (and a bank salary, which no basis moves)
    on_day(SET_ON)
    _card(api)
    _spend(api)
    api.slip(date="2026-10-25", kind="income", amount=200_000, account="bank", category="給与")

    def report(month: str, basis: str) -> dict[str, Any]:
        got = api.get("/reports/monthly", query={"month": month, "basis": basis})
        assert got.status == 200, got
        return got.json

    def categories(found: dict[str, Any]) -> dict[str, tuple[int, int]]:
        return {c["category"]: (c["income"], c["expense"]) for c in found["by_category"]}

    # When October is reported on each basis
    by_date, by_payment = report("2026-10", "date"), report("2026-10", "payment")
    # Then by date it holds October's slips; by payment the September cycle debited on 10 October
    assert categories(by_date) == {"返品": (500, 0), "外食": (0, 4_000), "給与": (200_000, 0)}
    assert categories(by_payment) == {"日用品": (0, 1_000), "給与": (200_000, 0)}
    assert (by_payment["income"], by_payment["expense"]) == (200_000, 1_000)
    card = next(a for a in by_payment["by_account"] if a["account"] == "card")
    assert (card["income"], card["expense"]) == (0, 1_000)
    # And November, paying the October cycle (its refund included), though no card slip is dated in it
    november = report("2026-11", "payment")
    assert categories(november) == {"食費": (0, 3_000), "返品": (500, 0)}
    assert categories(report("2026-11", "date")) == {}
    # And an unknown basis is refused
    assert api.get("/reports/monthly", query={"month": "2026-10", "basis": "paid"}).status == 400


def test_a_billing_change_is_journaled_and_undone(api: Client, on_day: Any) -> None:
    # Given a card closing on the 15th, its billing then changed to close at the month's end
    on_day(SET_ON)
    _card(api)
    changed = api.patch("/accounts/card", {"billing": {**BILLING, "closing_day": "last", "payment_day": 27}},
                        headers={"If-Match": '"1"'})  # fmt: skip
    assert changed.status == 200, changed
    assert changed.json["payments"]["next_closing"] == "2026-09-30"  # debited 27 October
    seq = api.get("/changes").json["changes"][-1]
    assert seq["changes"][0]["type"] == "account"
    # When the change is undone
    undone = api.post(f"/changes/{seq['seq']}/undo")
    # Then the card closes on the 15th again, paid from the cycle the first billing scheduled
    assert undone.status == 200, undone
    card = api.get("/accounts/card").json
    assert card["billing"]["closing_day"] == 15
    assert card["payments"]["next_closing"] == "2026-09-15"


def test_statements_equal_a_recomputation_from_the_slips(api: Client, on_day: Any) -> None:
    # Given four months of card slips of every kind (charges, refunds, top-ups, payments made by hand)
    on_day(SET_ON)
    _card(api)
    rng = random.Random(20261125)
    start = dt.date(2026, 8, 16)  # the first day of the first cycle paid here (closing 15 September)
    for n in range(48):
        day = (start + dt.timedelta(days=rng.randrange(122))).isoformat()
        kind = rng.choice(["expense", "expense", "expense", "income", "out", "in"])
        amount = rng.randrange(1, 40) * 100 if kind in ("income", "in") else rng.randrange(10, 200) * 100
        if kind == "out":
            body = {"kind": "transfer", "account": "card", "to_account": "suica"}
        elif kind == "in":
            body = {"kind": "transfer", "account": "bank", "to_account": "card"}
        else:
            body = {"kind": kind, "account": "card", "category": f"c{n % 4}"}
        made = api.post("/slips", {"date": day, "amount": amount, **body})
        assert made.status == 201, made
    # When the statements of those four cycles are read, before any payment is posted
    cycles = _statements(api, "2026-09", "2026-12")
    slips: list[dict[str, Any]] = []
    cursor: str | None = ""
    while cursor is not None:
        page = api.get("/slips", query={"account": "card", "limit": 100, **({"cursor": cursor} if cursor else {})}).json
        slips += page["items"]
        cursor = page["next_cursor"]
    # Then each cycle's columns are its period's slips added up, and it owes exactly its own net charges
    for closing, statement in cycles.items():
        lo, hi = statement["period"]["from"], statement["period"]["to"]
        within = [s for s in slips if lo <= s["date"] <= hi]

        def total(test: Any, within: list[dict[str, Any]] = within) -> int:
            return sum(s["amount"] for s in within if test(s))

        charges = total(lambda s: s["kind"] == "expense" or (s["kind"] == "transfer" and s["account"] == "card"))
        refunds = total(lambda s: s["kind"] == "income")
        payments = total(lambda s: s["kind"] == "transfer" and s["to_account"] == "card")
        assert (statement["charges"], statement["refunds"], statement["payments"]) == (charges, refunds, payments)
        assert statement["slips_count"] == len(within), closing
        assert statement["amount_due"] == max(0, charges - refunds - payments), closing


def _run(api: Client, until: str) -> list[int]:
    """Run the job up to `until`; the amounts it paid, in order."""
    before = {s["id"] for s in api.get("/slips", query={"account": "bank", "limit": 100}).json["items"]}
    ran = api.post("/jobs/run", query={"until": until})
    assert ran.status == 200 and ran.json["failed"] == [], ran.json
    after = api.get("/slips", query={"account": "bank", "limit": 100}).json["items"]
    return [s["amount"] for s in sorted(after, key=lambda s: s["date"]) if s["id"] not in before]


def _rebill(api: Client, **settings: Any) -> None:
    version = api.get("/accounts/card").json["version"]
    changed = api.patch("/accounts/card", {"billing": {**BILLING, **settings}}, headers={"If-Match": f'"{version}"'})
    assert changed.status == 200, changed


def test_a_payment_posted_before_a_billing_change_counts_under_the_new_billing(
    api: Client, store: Store, user: str, on_day: Any
) -> None:
    # Given a card closing on the 15th, paid on the 10th, whose 700 (1,000 less a 300 refund) was paid
    on_day(SET_ON)
    _card(api)
    api.slip(date="2026-11-01", kind="expense", amount=1_000, account="card", category="日用品")
    api.slip(date="2026-11-05", kind="income", amount=300, account="card", category="返品")
    api.slip(date="2026-11-20", kind="expense", amount=2_000, account="card", category="食費")
    api.slip(date="2026-12-20", kind="expense", amount=4_000, account="card", category="外食")
    on_day(dt.date(2026, 12, 10))
    assert _run(api, "2026-12-10") == [700]
    # When its billing changes to closing on the 25th, paid on the 27th, and the job runs to March
    on_day(dt.date(2026, 12, 11))
    _rebill(api, closing_day=25, payment_day=27)
    on_day(dt.date(2027, 3, 31))
    paid = _run(api, "2027-03-31")
    # Then the 700 is not paid again: the next payments are the charges not yet paid, each once
    assert paid == [2_000, 4_000]
    assert _balance(api, "card") == 0
    assert invariants.check(store, user) == []


def test_a_closing_day_moved_earlier_after_a_payment_pays_each_charge_once(
    api: Client, store: Store, user: str, on_day: Any
) -> None:
    # Given a card closing on the 25th, paid on the 27th, whose October cycle (1,000) was paid
    on_day(SET_ON)
    _card(api, closing_day=25, payment_day=27)
    api.slip(date="2026-10-20", kind="expense", amount=1_000, account="card", category="日用品")
    api.slip(date="2026-10-30", kind="expense", amount=500, account="card", category="日用品")
    api.slip(date="2026-11-10", kind="expense", amount=4_800, account="card", category="食費")
    on_day(dt.date(2026, 11, 27))
    assert _run(api, "2026-11-27") == [1_000]
    # When the closing day moves to the 5th (paid on the 10th) and the job runs to February
    on_day(dt.date(2026, 11, 28))
    _rebill(api, closing_day=5, payment_day=10)
    on_day(dt.date(2027, 2, 28))
    paid = _run(api, "2027-02-28")
    # Then each charge is paid once: 500 (closing 5 November) and 4,800 (closing 5 December)
    assert paid == [500, 4_800]
    assert _balance(api, "card") == 0
    assert invariants.check(store, user) == []


def test_a_deleted_payment_is_paid_by_the_next(api: Client, store: Store, user: str, on_day: Any) -> None:
    # Given the September and October cycles paid (1,000 and 4,500)
    on_day(SET_ON)
    _card(api)
    _spend(api)
    on_day(dt.date(2026, 11, 30))
    assert _run(api, "2026-11-30") == [1_000, 4_500]
    # When the user deletes the October payment
    payment = billing.payment_slip_id("card", dt.date(2026, 10, 15))
    deleted = api.delete(f"/slips/2026-11-10/{payment}", headers={"If-Match": '"1"'})
    assert deleted.status == 204, deleted
    # Then the November cycle owes it beside its own 4,000, and December's payment settles both
    nov = _statements(api)["2026-11-15"]
    assert (nov["charges"], nov["amount_due"]) == (4_000, 8_500)
    assert _run(api, "2026-12-31") == [8_500]
    assert _balance(api, "card") == 0
    assert invariants.check(store, user) == []


def test_an_undone_payment_is_paid_by_the_next(api: Client, store: Store, user: str, on_day: Any) -> None:
    # Given the September cycle paid
    on_day(SET_ON)
    _card(api)
    api.slip(date="2026-09-10", kind="expense", amount=1_000, account="card", category="日用品")
    on_day(dt.date(2026, 10, 10))
    assert _run(api, "2026-10-10") == [1_000]
    # When its payment is undone from the journal
    entry = next(c for c in reversed(api.get("/changes").json["changes"]) if c["origin"] == "card_payment")
    assert api.post(f"/changes/{entry['seq']}/undo").status == 200
    # Then the next payment pays it
    on_day(dt.date(2026, 12, 31))
    assert _run(api, "2026-12-31") == [1_000]
    assert _balance(api, "card") == 0
    assert invariants.check(store, user) == []
