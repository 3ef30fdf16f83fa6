"""Accounts in other units on DynamoDB Local: a dollar account for the trip, a points account, the
yen their slips count as in reports and budgets, transfers between units, balances valued in yen,
and the input refused (nothing written)."""

from __future__ import annotations

from urllib.parse import quote

from kakeibo.store import Store
from kakeibo.store.codec import to_ddb
from tests import invariants
from tests.events import Client

DINNER = {"date": "2026-08-03", "kind": "expense", "amount": 1234, "account": "usd", "category": "食費"}
EXCHANGE = {"date": "2026-08-01", "kind": "transfer", "amount": 20000, "account": "bank", "to_account": "usd"}


def _trip(api: Client) -> None:
    """Given a yen bank account and a dollar account holding $130.00 bought for ¥20,000."""
    api.account("bank", 100_000, type="bank")
    made = api.account("usd", 0, unit="USD")
    assert (made["unit"], made["point_value"], made["program"]) == ("USD", None, None)
    reply = api.slip(**EXCHANGE, to_amount=13000)
    assert reply.status == 201, reply
    assert reply.json["to_amount"] == 13000


def _field(reply: object) -> list[str]:
    return [e["loc"][-1] for e in reply.json["errors"]]  # type: ignore[attr-defined]


def test_a_foreign_expense_is_in_cents_on_its_account_and_in_yen_in_reports_and_budgets(
    api: Client, store: Store, user: str
) -> None:
    _trip(api)
    # When a dinner of $12.34 that the card charged ¥1,900 is recorded
    dinner = api.slip(**DINNER, jpy_amount=1900)
    assert dinner.status == 201, dinner
    assert (dinner.json["amount"], dinner.json["jpy_amount"]) == (1234, 1900)
    # Then the dollar account holds $117.66 and the bank ¥80,000
    assert api.balances() == {"bank": 80_000, "usd": 11766}
    # And the month's report and budget count ¥1,900 of food
    report = api.get("/reports/monthly", query={"month": "2026-08"}).json
    assert (report["expense"], report["by_category"][0]["expense"]) == (1900, 1900)
    food = "/budgets/2026-08/" + quote("食費")
    assert api.put(food, {"limit": 5000}).status in {200, 201}
    budget = api.get("/budgets", query={"month": "2026-08"}).json["items"][0]
    assert (budget["spent"], budget["remaining"]) == (1900, 3100)
    # And the ledger verifies
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_strict_budget_is_kept_in_yen_whatever_the_foreign_amount(api: Client, store: Store, user: str) -> None:
    _trip(api)
    food = "/budgets/2026-08/" + quote("食費")
    assert api.put(food, {"limit": 2000, "strict": True}).status in {200, 201}
    # Given ¥1,900 of the ¥2,000 spent abroad
    assert api.slip(**DINNER, jpy_amount=1900).status == 201
    # When $1.00 that came to ¥150 is spent (100 in the account's unit, under the ¥100 left)
    over = api.slip(**{**DINNER, "amount": 100}, jpy_amount=150)
    # Then the strict budget refuses it in yen, and nothing is written
    assert over.status == 409 and over.json["code"] == "budget_exceeded", over
    assert api.balances()["usd"] == 11766
    # And ¥100 fits
    assert api.slip(**{**DINNER, "amount": 60}, jpy_amount=100).status == 201
    assert invariants.check(store, user) == []


def test_edits_and_moves_keep_the_yen_right(api: Client, store: Store, user: str) -> None:
    _trip(api)
    made = api.slip(**DINNER, jpy_amount=1900)
    # When the yen is corrected and the slip moves to September
    patched = api.patch(
        made.header("Location") or "", {"jpy_amount": 1950, "date": "2026-09-01"}, headers={"If-Match": made.etag or ""}
    )
    assert patched.status == 200, patched
    # Then August has no food and September ¥1,950
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 0
    assert api.get("/reports/monthly", query={"month": "2026-09"}).json["expense"] == 1950
    # And a patch of the memo alone keeps the yen it had
    memo = api.patch(patched.header("Location") or "", {"memo": "屋台"}, headers={"If-Match": patched.etag or ""})
    assert memo.status == 200 and memo.json["jpy_amount"] == 1950, memo
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_new_amount_of_a_foreign_slip_needs_its_yen_and_a_transfers_what_arrived(
    api: Client, store: Store, user: str
) -> None:
    # Given the trip: $130.00 bought for ¥20,000 and a $12.34 dinner charged ¥1,900
    _trip(api)
    dinner = api.slip(**DINNER, jpy_amount=1900)
    where, etag = dinner.header("Location") or "", dinner.etag or ""
    # When the dinner's amount is patched to $20.00 alone
    refused = api.patch(where, {"amount": 2000}, headers={"If-Match": etag})
    # Then it is refused naming jpy_amount, in words in the caller's language, and nothing changes
    assert refused.status == 422 and _field(refused) == ["jpy_amount"], refused
    assert "jpy_amount" in refused.json["detail"] and "old amount" in refused.json["detail"], refused
    ja = api.patch(where, {"amount": 2000}, headers={"If-Match": etag, "Accept-Language": "ja"})
    assert ja.status == 422 and "金額を変えるときは" in ja.json["detail"], ja
    assert "円換算額" in ja.json["errors"][0]["msg"], ja
    assert api.get(where).json["version"] == 1
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 1900
    # When the new amount comes with the yen it came to
    both = api.patch(where, {"amount": 2000, "jpy_amount": 3100}, headers={"If-Match": etag})
    # Then both change, and the report counts the new yen
    assert both.status == 200 and (both.json["amount"], both.json["jpy_amount"]) == (2000, 3100), both
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 3100
    assert api.balances()["usd"] == 11000
    # And the same holds for a transfer between units: a new amount needs what arrived
    exchange = api.get("/slips", query={"kind": "transfer"}).json["items"][0]
    at, version = f"/slips/{exchange['date']}/{exchange['id']}", f'"{exchange["version"]}"'
    refused = api.patch(at, {"amount": 30000}, headers={"If-Match": version})
    assert refused.status == 422 and _field(refused) == ["to_amount"], refused
    moved = api.patch(at, {"amount": 30000, "to_amount": 19500}, headers={"If-Match": version})
    assert moved.status == 200 and (moved.json["amount"], moved.json["to_amount"]) == (30000, 19500), moved
    assert api.balances() == {"bank": 70_000, "usd": 17500}
    # And a patch that sends the amount it already has keeps the yen
    same = api.patch(where, {"amount": 2000, "memo": "屋台"}, headers={"If-Match": both.etag or ""})
    assert same.status == 200 and same.json["jpy_amount"] == 3100, same
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_new_amount_of_a_foreign_recurring_slip_needs_its_yen(api: Client) -> None:
    # Given a $10.00 subscription the card charges ¥1,500 every month
    api.account("usd", 100_000, unit="USD")
    slip = {"kind": "expense", "amount": 1000, "account": "usd", "category": "サブスク", "jpy_amount": 1500}
    made = api.post(
        "/recurrences", {"slip": slip, "rule": {"freq": "monthly", "by_month_day": 5, "start": "2026-09-01"}}
    )
    assert made.status == 201, made
    where = f"/recurrences/{made.json['id']}"
    # When its price goes up to $12.00 without the yen
    refused = api.patch(where, {"slip": {"amount": 1200}}, headers={"If-Match": made.etag or ""})
    # Then it is refused naming the template's jpy_amount, and the recurrence stays as it was
    assert refused.status == 422 and refused.json["errors"][0]["loc"][-2:] == ["slip", "jpy_amount"], refused
    assert api.get(where).json["slip"]["amount"] == 1000
    # And with the yen, the price changes
    both = api.patch(where, {"slip": {"amount": 1200, "jpy_amount": 1800}}, headers={"If-Match": made.etag or ""})
    assert both.status == 200 and (both.json["slip"]["amount"], both.json["slip"]["jpy_amount"]) == (1200, 1800)


def test_what_a_unit_needs_is_refused_when_missing_naming_the_field_and_nothing_is_written(
    api: Client, store: Store, user: str
) -> None:
    _trip(api)
    before = invariants.ledger_items(store, user)
    # A foreign expense without its yen
    reply = api.slip(**DINNER)
    assert reply.status == 422 and _field(reply) == ["jpy_amount"], reply
    # The same, in Japanese
    ja = api.post("/slips", DINNER, headers={"Accept-Language": "ja"})
    assert ja.status == 422 and "円換算額" in ja.json["detail"], ja
    # A yen expense with a yen amount of its own
    reply = api.slip(**{**DINNER, "account": "bank"}, jpy_amount=1900)
    assert reply.status == 422 and _field(reply) == ["jpy_amount"], reply
    # A transfer between units without what arrived
    reply = api.slip(**EXCHANGE)
    assert reply.status == 422 and _field(reply) == ["to_amount"], reply
    assert "to_amount" in reply.json["detail"]
    # A transfer within one unit that says what arrived
    api.account("wallet", 0)
    reply = api.slip(**{**EXCHANGE, "to_account": "wallet"}, to_amount=5)
    assert reply.status == 422 and _field(reply) == ["to_amount"], reply
    # A jpy_amount on a transfer, a to_amount on an expense
    assert api.slip(**EXCHANGE, jpy_amount=1, to_amount=2).status == 422
    assert api.slip(**DINNER, jpy_amount=1900, to_amount=2).status == 422
    # Then nothing was written but the wallet
    after = [i for i in invariants.ledger_items(store, user) if "wallet" not in i["SK"] and i["SK"] != "ACCOUNTS"]
    assert [i["SK"] for i in after if i["SK"].startswith(("SLIP#", "ID#"))] == [
        i["SK"] for i in before if i["SK"].startswith(("SLIP#", "ID#"))
    ]
    assert api.balances() == {"bank": 80_000, "usd": 13000, "wallet": 0}


def test_a_unit_is_iso_4217_or_points_and_changes_only_while_the_account_has_no_slips(api: Client) -> None:
    # A unit that is neither ISO 4217 nor points: 422 naming unit, no account made
    for unit in ("XXX", "usd", "ポイント"):
        reply = api.post("/accounts", {"id": "odd", "name": "Odd", "type": "cash", "unit": unit})
        assert reply.status == 422 and _field(reply) == ["unit"], reply
    ja = api.post(
        "/accounts", {"id": "odd", "name": "Odd", "type": "cash", "unit": "XXX"}, headers={"Accept-Language": "ja"}
    )
    # and says once, in either language, what a unit may be (the field's name does not repeat it)
    assert ja.json["detail"] == "単位（unit）は JPY、ISO 4217 の通貨コード（USD など）か points にしてください", ja
    en = api.post("/accounts", {"id": "odd", "name": "Odd", "type": "cash", "unit": "XXX"})
    assert en.json["detail"] == (
        "unit (what the account's amounts are in) must be JPY, an ISO 4217 currency code (such as USD) or points"
    ), en
    # A point value on a yen account
    reply = api.post("/accounts", {"id": "odd", "name": "Odd", "type": "cash", "point_value": 2})
    assert reply.status == 422, reply
    assert api.get("/accounts/odd").status == 404
    # Given an account made in yen by mistake, with no slips yet: its unit changes
    made = api.account("trip", 0)
    assert made["unit"] == "JPY"
    changed = api.patch("/accounts/trip", {"unit": "EUR"}, headers={"If-Match": '"1"'})
    assert changed.status == 200 and changed.json["unit"] == "EUR", changed
    # Once it has a slip, its unit does not change: 409 unit_in_use
    assert api.slip(date="2026-08-01", kind="income", amount=500, account="trip", jpy_amount=80).status == 201
    refused = api.patch("/accounts/trip", {"unit": "USD"}, headers={"If-Match": changed.etag or ""})
    assert refused.status == 409 and refused.json["code"] == "unit_in_use", refused
    assert api.get("/accounts/trip").json["unit"] == "EUR"
    # But its name still does
    renamed = api.patch("/accounts/trip", {"name": "Paris"}, headers={"If-Match": changed.etag or ""})
    assert renamed.status == 200 and renamed.json["unit"] == "EUR", renamed


def test_the_unit_of_an_account_with_an_opening_balance_does_not_change(api: Client) -> None:
    # Given a dollar wallet opened with $12.34 and no slips
    made = api.account("usd", 1234, unit="USD")
    # When its unit is patched to euros
    refused = api.patch("/accounts/usd", {"unit": "EUR"}, headers={"If-Match": '"1"'})
    # Then it is refused naming the opening balance, in words in the caller's language
    assert refused.status == 409 and refused.json["code"] == "unit_in_use", refused
    assert refused.json["opening_balance"] == 1234 and "opening balance" in refused.json["detail"], refused
    ja = api.patch("/accounts/usd", {"unit": "EUR"}, headers={"If-Match": '"1"', "Accept-Language": "ja"})
    assert ja.status == 409 and "開始残高" in ja.json["detail"], ja
    # And the account is as it was: still $12.34, at its version
    kept = api.get("/accounts/usd").json
    assert (kept["unit"], kept["opening_balance"], kept["balance"], kept["version"]) == ("USD", 1234, 1234, 1)
    assert made["version"] == 1
    # And a change to the unit it already has, or of its name, is fine
    assert api.patch("/accounts/usd", {"unit": "USD", "name": "旅行"}, headers={"If-Match": '"1"'}).status == 200


def test_points_pay_at_their_point_value_and_balances_are_valued_in_yen(api: Client, store: Store, user: str) -> None:
    _trip(api)
    # Given a points account worth ¥2 a point holding 1,500 points
    made = api.account("rakuten", 1500, type="other", unit="points", point_value=2, program="楽天ポイント")
    assert (made["unit"], made["point_value"], made["program"]) == ("points", 2, "楽天ポイント")
    # When 300 points pay for groceries
    spent = api.slip(date="2026-08-05", kind="expense", amount=300, account="rakuten", category="食費")
    assert spent.status == 201, spent
    # Then the report counts ¥600 and the slip says so
    assert spent.json["jpy_amount"] == 600
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 600
    # And an edit of the points follows in yen
    edited = api.patch(spent.header("Location") or "", {"amount": 400}, headers={"If-Match": spent.etag or ""})
    assert edited.status == 200 and edited.json["jpy_amount"] == 800, edited
    # And a dinner abroad gives the dollar account its latest rate
    assert api.slip(**DINNER, jpy_amount=1900).status == 201
    items = {i["account"]: i for i in api.get("/balances").json["items"]}
    bank = items["bank"]
    assert (bank["unit"], bank["balance"], bank["jpy_value"], bank["valued_by"]) == ("JPY", 80_000, 80_000, "yen")
    assert (items["rakuten"]["balance"], items["rakuten"]["jpy_value"]) == (1100, 2200)
    assert items["rakuten"]["valued_by"] == "point_value"
    # $117.66 at the dinner's ¥1,900 / $12.34
    usd = items["usd"]
    assert (usd["unit"], usd["balance"], usd["jpy_value"]) == ("USD", 11766, 18116)
    assert (usd["valued_by"], usd["rate_date"]) == ("latest_slip", "2026-08-03")
    # As of the exchange day: the exchange's own rate (¥20,000 for $130.00)
    then = {i["account"]: i for i in api.get("/balances", query={"date": "2026-08-01"}).json["items"]}
    assert (then["usd"]["jpy_value"], then["usd"]["rate_date"]) == (20_000, "2026-08-01")
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_a_foreign_account_without_a_rate_has_no_yen_value(api: Client) -> None:
    api.account("eur", 5000, unit="EUR")
    item = api.get("/balances").json["items"][0]
    assert (item["unit"], item["balance"], item["jpy_value"], item["valued_by"]) == ("EUR", 5000, None, None)


def test_an_import_does_not_write_a_foreign_account(api: Client) -> None:
    api.account("usd", 0, unit="USD")
    csv = "date,kind,amount,account,to_account,category,memo\n2026-08-03,income,100,usd,,給与,\n"
    reply = api.post("/imports", raw=csv.encode(), headers={"Content-Type": "text/csv"})
    assert reply.status in {200, 201}, reply
    assert reply.json["created"] == 0
    assert "USD" in reply.json["errors"][0]["message"]


def _set_unit_elsewhere(store: Store, user: str, account: str, **fields: object) -> None:
    """Another process changes the account's unit: this one still remembers the old one."""
    item = store.core.get(user, f"ACCOUNT#{account}")
    assert item is not None
    store.core.client.put_item(TableName=store.core.table, Item=to_ddb({**item, **fields}))


def test_a_slip_is_never_written_in_a_unit_its_account_no_longer_has(api: Client, store: Store, user: str) -> None:
    # Given a yen account and a points account at ¥1 a point, as this process saw them made
    api.account("trip", 0)
    api.account("pts", 1000, type="other", unit="points")
    # When another process makes the first a euro account and the points worth ¥3
    _set_unit_elsewhere(store, user, "trip", unit="EUR")
    _set_unit_elsewhere(store, user, "pts", point_value=3)
    # Then an income without its yen is refused for the euro account (its transaction checked the unit)
    reply = api.slip(date="2026-08-01", kind="income", amount=500, account="trip", category="給与")
    assert reply.status == 422 and _field(reply) == ["jpy_amount"], reply
    # And 100 points count at ¥3 each
    spent = api.slip(date="2026-08-01", kind="expense", amount=100, account="pts", category="食費")
    assert spent.status == 201 and spent.json["jpy_amount"] == 300, spent
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 300
    assert invariants.check(store, user) == []


def test_a_foreign_recurring_slip_posts_with_its_yen_and_one_without_is_refused(api: Client) -> None:
    # Given a dollar account paying a $10.00 subscription that the card charges ¥1,500 every month
    api.account("usd", 100_000, unit="USD")
    slip = {"kind": "expense", "amount": 1000, "account": "usd", "category": "サブスク"}
    rule = {"freq": "monthly", "by_month_day": 5, "start": "2026-09-01"}
    made = api.post("/recurrences", {"slip": {**slip, "jpy_amount": 1500}, "rule": rule})
    assert made.status == 201, made
    assert made.json["slip"]["jpy_amount"] == 1500
    # When its occurrences are posted
    reply = api.post("/recurrences/run", query={"until": "2026-10-31"})
    assert reply.status in {200, 202}, reply
    while not reply.json["complete"]:
        reply = api.post("/recurrences/run", query={"until": "2026-10-31"})
    # Then each slip is $10.00 on the account and ¥1,500 in the month's report
    posted = api.get("/slips", query={"account": "usd"}).json["items"]
    assert [(s["date"], s["amount"], s["jpy_amount"]) for s in posted] == [
        ("2026-10-05", 1000, 1500),
        ("2026-09-05", 1000, 1500),
    ]
    assert api.get("/reports/monthly", query={"month": "2026-09"}).json["expense"] == 1500
    # And a recurrence of the dollar account without its yen is refused naming the field, nothing written
    refused = api.post("/recurrences", {"slip": slip, "rule": rule})
    assert refused.status == 422 and refused.json["errors"][0]["loc"][-2:] == ["slip", "jpy_amount"], refused
    assert len(api.get("/recurrences").json["items"]) == 1


def test_the_csv_export_carries_the_yen_and_what_arrived_and_our_import_reads_them_back(
    api: Client, other_api: Client
) -> None:
    # Given the trip: $130.00 bought for ¥20,000 and a $12.34 dinner charged ¥1,900
    _trip(api)
    assert api.slip(**DINNER, jpy_amount=1900).status == 201
    # When the slips are exported
    text = api.get("/slips.csv").raw.decode("utf-8-sig")
    header, *rows = text.strip().splitlines()
    assert header.endswith("jpy_amount,to_amount,cleared,to_cleared")  # the sides' states always last
    assert rows[0].endswith(",,13000,uncleared,uncleared") and rows[1].endswith(",1900,,uncleared,")
    # And imported into another ledger with the same accounts
    other_api.account("bank", 100_000, type="bank")
    other_api.account("usd", 0, unit="USD")
    reply = other_api.post("/imports", raw=text.encode(), headers={"Content-Type": "text/csv"})
    # Then both slips come back with their yen and what arrived
    assert reply.status in {200, 201} and reply.json["created"] == 2, reply
    assert other_api.balances() == {"bank": 80_000, "usd": 11766}
    assert other_api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 1900
    slips = {s["kind"]: s for s in other_api.get("/slips").json["items"]}
    assert (slips["expense"]["jpy_amount"], slips["transfer"]["to_amount"]) == (1900, 13000)
    # And a foreign row without its yen is a row error naming it
    csv = "date,kind,amount,account,to_account,category,memo\n2026-08-03,expense,100,usd,,食費,\n"
    refused = other_api.post("/imports", raw=csv.encode(), headers={"Content-Type": "text/csv"})
    assert refused.json["created"] == 0 and "jpy_amount" in refused.json["errors"][0]["message"], refused


def test_a_zaim_export_writes_its_dollar_rows_in_dollars_into_the_dollar_account(
    api: Client, store: Store, user: str
) -> None:
    # Given a dollar account named as Zaim names it
    api.account("bank", 100_000, type="bank")
    api.post("/accounts", {"id": "usd", "name": "ドル財布", "type": "cash", "unit": "USD", "opening_balance": 5000})
    header = (
        "日付,方法,カテゴリ,カテゴリの内訳,支払元,入金先,品目,メモ,お店,通貨,収入,支出,振替,残高調整,"
        "通貨変換前の金額,集計の設定"
    )
    row = "2026-08-03,payment,食費,外食,ドル財布,-,,,,USD,0,1900,0,0,12.34,常に集計に含める"
    changed = "2026-08-01,transfer,,,bank,ドル財布,,,,USD,0,0,15000,0,100.00,常に集計に含める"
    back = "2026-08-05,transfer,,,ドル財布,bank,,,,USD,0,0,2900,0,20.00,常に集計に含める"
    text = ("\r\n".join((header, row, changed, back)) + "\r\n").encode("utf-8")
    # When the Zaim export is imported
    reply = api.post("/imports", raw=text, headers={"Content-Type": "text/csv"})
    # Then the dinner is $12.34 on the dollar account and ¥1,900 in the month's report
    assert reply.status in {200, 201} and reply.json["created"] == 3, reply
    slips = {s["kind"] + s["date"]: s for s in api.get("/slips", query={"account": "usd"}).json["items"]}
    slip = slips["expense2026-08-03"]
    assert (slip["amount"], slip["jpy_amount"]) == (1234, 1900)
    # And ¥15,000 changed into $100.00, and $20.00 back into ¥2,900, move each account in its own unit
    assert (slips["transfer2026-08-01"]["amount"], slips["transfer2026-08-01"]["to_amount"]) == (15000, 10000)
    assert (slips["transfer2026-08-05"]["amount"], slips["transfer2026-08-05"]["to_amount"]) == (2000, 2900)
    assert api.balances()["usd"] == 5000 - 1234 + 10000 - 2000
    assert api.balances()["bank"] == 100_000 - 15000 + 2900
    assert api.get("/reports/monthly", query={"month": "2026-08"}).json["expense"] == 1900
    assert invariants.check(store, user) == []


def test_medical_payments_and_donations_in_other_units_count_in_yen(api: Client, store: Store, user: str) -> None:
    _trip(api)
    # Given a points account worth ¥2 a point
    api.account("rakuten", 5000, type="other", unit="points", point_value=2, program="楽天ポイント")
    clinic = {"patient": "taro", "provider": "Honolulu Clinic", "kind": "treatment"}
    # When a clinic abroad is paid $12.34 (¥1,850 on the card), ¥1,500 of it reimbursed (more than 1,234
    # but less than the yen paid), and a split pharmacy bill paid $20.00 (¥3,000) has a medicine line of $5.00
    bill = api.slip(**{**DINNER, "category": "医療費"}, jpy_amount=1850, medical={**clinic, "reimbursed": 1500})
    assert bill.status == 201, bill
    lines = [{"amount": 1500, "category": "日用品"},
             {"amount": 500, "category": "医療費", "medical": {"patient": "taro", "kind": "medicine"}}]  # fmt: skip
    pharmacy = {"date": "2026-08-04", "kind": "expense", "amount": 2000, "account": "usd", "memo": "ABC Stores"}
    assert api.slip(**pharmacy, jpy_amount=3000, lines=lines).status == 201
    # And 500 points pay a doctor's bill (¥1,000) and 1,000 points a ふるさと納税 donation (¥2,000)
    doctor = {**clinic, "provider": "山田医院"}
    paid = {"date": "2026-08-05", "kind": "expense", "account": "rakuten"}
    assert api.slip(**paid, amount=500, category="医療費", medical=doctor).status == 201
    assert api.slip(**paid, amount=1000, category="寄附金", donation={"municipality": "北海道紋別市"}).status == 201
    # Then the year's medical report counts each in yen: the clinic ¥1,850 less ¥1,500, the medicine
    # line its share of ¥3,000 (¥750), the doctor ¥1,000
    report = api.get("/reports/medical", query={"year": "2026"}).json
    rows = {r["provider"]: (r["paid"], r["reimbursed"]) for r in report["items"]}
    assert rows == {"Honolulu Clinic": (1850, 1500), "ABC Stores": (750, 0), "山田医院": (1000, 0)}, rows
    # And the donation counts ¥2,000
    donations = api.get("/reports/donations", query={"year": "2026"}).json
    assert donations["total"] == 2000, donations
    # And what is reimbursed beyond the yen paid is refused, naming medical, nothing written
    over = api.slip(**{**DINNER, "category": "医療費"}, jpy_amount=1850, medical={**clinic, "reimbursed": 1900})
    assert over.status == 422 and "medical.reimbursed (1900)" in over.json["errors"][0]["msg"], over
    too_much = api.slip(**paid, amount=500, category="医療費", medical={**doctor, "reimbursed": 1200})
    assert too_much.status == 422 and "medical.reimbursed (1200)" in too_much.json["errors"][0]["msg"], too_much
    assert len(api.get("/slips").json["items"]) == 5
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True
