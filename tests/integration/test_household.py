"""A household's month on DynamoDB Local: balances checked after every step.

Cash 20,000 / Suica 10,000 / nanaco 5,000; expenses, an amount change, a date change, an account
change, a transfer, a delete, stale and missing If-Match, an overdraft.
"""

from __future__ import annotations

from tests.events import Client


def test_household_month(api: Client) -> None:
    # Given three payment methods
    api.account("cash", 20000)
    api.account("suica", 10000, type="emoney")
    api.account("nanaco", 5000, type="emoney")
    assert api.balances() == {"cash": 20000, "nanaco": 5000, "suica": 10000}

    # When lunch is paid in cash
    lunch = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    assert lunch.status == 201
    assert api.balances()["cash"] == 18800
    where, etag = lunch.header("Location"), lunch.etag
    assert where == f"/slips/2026-11-03/{lunch.json['id']}" and etag == '"1"'

    # And a train ride on Suica
    train = api.slip(date="2026-11-03", kind="expense", amount=220, account="suica", category="交通費")
    assert api.balances() == {"cash": 18800, "nanaco": 5000, "suica": 9780}

    # When the lunch amount is corrected (PATCH, with the ETag)
    fixed = api.patch(where, {"amount": 1350}, headers={"If-Match": etag})
    assert fixed.status == 200 and fixed.etag == '"2"'
    assert api.balances()["cash"] == 18650

    # When its date changes, the slip moves to a new key and Location
    moved = api.patch(where, {"date": "2026-11-04"}, headers={"If-Match": fixed.etag})
    assert moved.status == 200
    new_where = moved.header("Location")
    assert new_where == f"/slips/2026-11-04/{lunch.json['id']}"
    assert api.get(where).status == 404
    assert api.get(new_where).json["amount"] == 1350
    assert api.balances()["cash"] == 18650
    assert api.balances("2026-11-03")["cash"] == 20000
    assert api.balances("2026-11-04")["cash"] == 18650

    # When it turns out it was paid with nanaco (account change, PUT)
    replaced = api.put(
        new_where,
        {"date": "2026-11-04", "kind": "expense", "amount": 1350, "account": "nanaco", "category": "食費"},
        headers={"If-Match": moved.etag},
    )
    assert replaced.status == 200
    assert api.balances() == {"cash": 20000, "nanaco": 3650, "suica": 9780}

    # When Suica is charged from cash (transfer)
    charge = api.slip(date="2026-11-05", kind="transfer", amount=3000, account="cash", to_account="suica")
    assert charge.status == 201
    assert api.balances() == {"cash": 17000, "nanaco": 3650, "suica": 12780}

    # When an update comes with a stale ETag: 412, nothing changes
    stale = api.patch(new_where, {"amount": 1}, headers={"If-Match": '"1"'})
    assert stale.status == 412 and stale.json["current"] == 4
    # And without If-Match: 428, nothing changes
    assert api.patch(new_where, {"amount": 1}).status == 428
    assert api.delete(new_where).status == 428
    assert api.balances() == {"cash": 17000, "nanaco": 3650, "suica": 12780}

    # When a purchase would overdraw nanaco: 409 insufficient_funds, nothing changes
    over = api.slip(date="2026-11-06", kind="expense", amount=4000, account="nanaco", category="日用品")
    assert over.status == 409 and over.json["code"] == "insufficient_funds"
    assert over.json["balance"] == 3650
    assert api.balances() == {"cash": 17000, "nanaco": 3650, "suica": 12780}

    # When the train ride is deleted, its effect is reversed
    deleted = api.delete(train.header("Location"), headers={"If-Match": train.etag})
    assert deleted.status == 204
    assert api.balances() == {"cash": 17000, "nanaco": 3650, "suica": 13000}

    # Then the month report and the history agree
    report = api.get("/reports/monthly", query={"month": "2026-11"}).json
    assert report["expense"] == 1350 and report["income"] == 0
    assert report["by_category"] == [{"category": "食費", "category_label": "食費", "income": 0, "expense": 1350}]
    history = api.get("/accounts/cash/history", query={"from": "2026-11-03", "to": "2026-11-05"}).json
    assert [(p["date"], p["balance"]) for p in history["items"]] == [
        ("2026-11-03", 20000),
        ("2026-11-04", 20000),
        ("2026-11-05", 17000),
    ]
    # And the list shows the two remaining slips, newest first
    listed = api.get("/slips").json
    assert [s["kind"] for s in listed["items"]] == ["transfer", "expense"]
    assert listed["next_cursor"] is None
