"""GET /reports/net-worth: assets, liabilities and net at each month's end, in yen, from the rollups."""

from __future__ import annotations

from tests.events import Client


def test_net_worth_month_by_month_counts_what_cards_owe_and_points_in_yen(api: Client) -> None:
    # Given a bank, a card and points worth 2 yen each, with slips over three months
    api.account("bank", 100_000, type="bank")
    api.account("card", 0, type="credit")
    api.account("pts", 500, type="other", unit="points", point_value=2)
    for slip in (
        {"date": "2026-09-15", "kind": "income", "amount": 50_000, "account": "bank", "category": "給与"},
        {"date": "2026-10-05", "kind": "expense", "amount": 20_000, "account": "card", "category": "家電"},
        {"date": "2026-10-20", "kind": "transfer", "amount": 20_000, "account": "bank", "to_account": "card"},
        {"date": "2026-11-03", "kind": "expense", "amount": 8_000, "account": "card", "category": "外食"},
    ):
        assert api.slip(**slip).status == 201
    # When its net worth is asked for from August to November
    got = api.get("/reports/net-worth", query={"from": "2026-08", "to": "2026-11"})
    # Then each month's end: the bank and the points (1,000 yen) held, the card's debt owed
    assert got.status == 200, got
    assert got.json == {
        "from": "2026-08",
        "to": "2026-11",
        "items": [
            {"month": "2026-08", "assets": 101_000, "liabilities": 0, "net": 101_000},
            {"month": "2026-09", "assets": 151_000, "liabilities": 0, "net": 151_000},
            {"month": "2026-10", "assets": 131_000, "liabilities": 0, "net": 131_000},
            {"month": "2026-11", "assets": 131_000, "liabilities": 8_000, "net": 123_000},
        ],
        "unvalued": [],
    }
    # And a span the wrong way round, or too long, is refused
    assert api.get("/reports/net-worth", query={"from": "2026-11", "to": "2026-08"}).status == 400
    assert api.get("/reports/net-worth", query={"from": "2000-01", "to": "2026-11"}).status == 400
