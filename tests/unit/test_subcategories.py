"""Subcategories (e.g. 食費 > 外食) through the handler (moto): on slips, in reports, in CSV."""

from __future__ import annotations

import pytest

from tests.events import Client

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
CSV = {"Content-Type": "text/csv"}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 20000)
    api.account("bank", 100000, type="bank")
    return api


def report(api: Client, month: str = "2026-11") -> list[dict[str, object]]:
    """The month's totals by category (without their labels, which are the categories here)."""
    items = api.get("/reports/monthly", query={"month": month}).json["by_category"]
    return [{k: v for k, v in item.items() if k != "category_label"} for item in items]


def test_report_breaks_a_category_down_and_the_rest_is_null(cash: Client) -> None:
    # Given lunches out, groceries, and one 食費 slip without a subcategory
    assert cash.slip(**LUNCH, subcategory="外食").json["subcategory"] == "外食"
    cash.slip(**{**LUNCH, "amount": 800}, subcategory="外食")
    cash.slip(**{**LUNCH, "amount": 3000}, subcategory="食料品")
    cash.slip(**{**LUNCH, "amount": 500})
    cash.slip(date="2026-11-04", kind="expense", amount=400, account="cash", category="交通費")
    # Then the month's 食費 is 5500, of which 2000 外食, 3000 食料品 and 500 in no subcategory
    assert report(cash) == [
        {"category": "交通費", "income": 0, "expense": 400},
        {
            "category": "食費",
            "income": 0,
            "expense": 5500,
            "subcategories": [
                {"subcategory": "外食", "income": 0, "expense": 2000},
                {"subcategory": "食料品", "income": 0, "expense": 3000},
                {"subcategory": None, "income": 0, "expense": 500},
            ],
        },
    ]


@pytest.mark.parametrize(
    "body",
    [
        {**LUNCH, "category": None, "subcategory": "外食"},
        {
            "date": "2026-11-03",
            "kind": "transfer",
            "amount": 1,
            "account": "bank",
            "to_account": "cash",
            "subcategory": "x",
        },
        {**LUNCH, "subcategory": "a#b"},
        {**LUNCH, "subcategory": "x" * 51},
    ],
)
def test_a_subcategory_without_category_or_with_a_bad_name_is_422(cash: Client, body: dict[str, object]) -> None:
    reply = cash.slip(**{k: v for k, v in body.items() if v is not None})
    assert reply.status == 422, reply
    assert report(cash) == []


def test_moving_a_slip_moves_its_subcategory_totals_and_a_new_category_drops_it(cash: Client) -> None:
    slip = cash.slip(**LUNCH, subcategory="外食")
    # When its date moves to December
    moved = cash.patch(
        f"/slips/2026-11-03/{slip.json['id']}", {"date": "2026-12-01"}, headers={"If-Match": slip.etag or ""}
    )
    assert moved.status == 200 and moved.json["subcategory"] == "外食"
    # Then November is empty and December has it
    assert report(cash) == []
    assert report(cash, "2026-12")[0]["subcategories"] == [{"subcategory": "外食", "income": 0, "expense": 1200}]
    # When its category changes, Then the subcategory (which belonged to 食費) goes
    changed = cash.patch(
        f"/slips/2026-12-01/{slip.json['id']}", {"category": "交際費"}, headers={"If-Match": moved.etag or ""}
    )
    assert changed.status == 200 and changed.json["subcategory"] is None
    assert report(cash, "2026-12") == [{"category": "交際費", "income": 0, "expense": 1200}]


def test_our_csv_takes_an_optional_subcategory_column_and_exports_it_when_used(cash: Client) -> None:
    # Given a CSV with the subcategory column
    text = (
        "date,kind,amount,account,to_account,category,memo,subcategory\n"
        "2026-11-03,expense,1200,cash,,食費,ランチ,外食\n"
        "2026-11-04,expense,300,cash,,食費,,\n"
    )
    reply = cash.post("/imports", raw=text, headers=CSV)
    assert (reply.status, reply.json["created"], reply.json["format"]) == (200, 2, "kakeibo"), reply
    # Then the export carries the column, and importing the export creates nothing
    export = cash.get("/slips.csv").raw.decode()
    header = "date,kind,amount,account,to_account,category,memo,external_id,subcategory,cleared,to_cleared"
    assert export.splitlines()[0] == header
    assert export.splitlines()[1].endswith(",外食,uncleared,")
    again = cash.post("/imports", raw=export, headers=CSV).json
    assert (again["created"], again["skipped"]) == (0, 2)
