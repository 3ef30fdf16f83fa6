"""Cleared slips (§17) on DynamoDB Local: PATCH sets each side's state, accounts answer their cleared
and uncleared balances."""

from __future__ import annotations

from kakeibo.store import Store
from tests import invariants
from tests.events import Client


def test_clearing_sides_moves_the_cleared_balance_and_nothing_else(api: Client, store: Store, user: str) -> None:
    # Given a bank account of 100,000 and cash, a withdrawal and an expense, none cleared
    api.account("bank", 100_000, type="bank")
    api.account("cash", 0)
    withdrawal = api.slip(date="2026-11-03", kind="transfer", amount=30_000, account="bank", to_account="cash")
    rent = api.slip(date="2026-11-05", kind="expense", amount=50_000, account="bank", category="住居")
    assert withdrawal.status == 201 and rent.status == 201, (withdrawal, rent)
    assert withdrawal.json["cleared"] == "uncleared" and withdrawal.json["to_cleared"] == "uncleared"
    assert rent.json["to_cleared"] is None
    bank = api.get("/accounts/bank").json
    assert (bank["balance"], bank["cleared_balance"], bank["uncleared_balance"]) == (20_000, 100_000, -80_000)
    # When the bankbook shows the withdrawal: its bank side is cleared (under If-Match)
    where = withdrawal.header("Location") or ""
    cleared = api.patch(where, {"cleared": "cleared"}, headers={"If-Match": withdrawal.etag or ""})
    # Then the slip says so, the bank's cleared balance counts it, and the balance is unchanged
    assert cleared.status == 200, cleared
    assert (cleared.json["cleared"], cleared.json["to_cleared"]) == ("cleared", "uncleared")
    bank = api.get("/accounts/bank").json
    assert (bank["balance"], bank["cleared_balance"], bank["uncleared_balance"]) == (20_000, 70_000, -50_000)
    cash = api.get("/accounts/cash").json
    assert (cash["cleared_balance"], cash["uncleared_balance"]) == (0, 30_000)
    # When the wallet's side is cleared too, then cash counts it
    both = api.patch(where, {"to_cleared": "cleared"}, headers={"If-Match": cleared.etag or ""})
    assert both.status == 200, both
    assert api.get("/accounts/cash").json["cleared_balance"] == 30_000
    # And uncleared again: back as it was, the list of accounts agreeing
    back = api.patch(where, {"cleared": None}, headers={"If-Match": both.etag or ""})
    assert back.status == 200 and back.json["cleared"] == "uncleared", back
    listed = {a["id"]: a for a in api.get("/accounts").json["items"]}
    assert listed["bank"]["cleared_balance"] == 100_000 and listed["cash"]["cleared_balance"] == 30_000
    # And every derived total still agrees with the slips
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_cleared_states_a_request_cannot_set_are_refused_naming_the_field(api: Client) -> None:
    # Given an expense
    api.account("cash", 10_000)
    made = api.slip(date="2026-11-03", kind="expense", amount=500, account="cash", category="食費")
    where, etag = made.header("Location") or "", made.etag or ""
    # When a request makes it reconciled by hand, gives an expense a receiving side, or sends a number
    refused = [
        api.patch(where, {"cleared": "reconciled"}, headers={"If-Match": etag}),
        api.patch(where, {"to_cleared": "cleared"}, headers={"If-Match": etag}),
        api.slip(date="2026-11-03", kind="expense", amount=500, account="cash", cleared=True),
        api.patch(where, {"cleared": "済"}, headers={"If-Match": etag, "Accept-Language": "ja"}),
    ]
    # Then each is a 422 naming the field, and nothing changed
    for reply in refused:
        assert reply.status == 422, reply
        assert "cleared" in str(reply.json), reply
    assert api.get(where).json["version"] == 1
    assert api.get("/accounts/cash").json["cleared_balance"] == 10_000
    assert len(api.get("/slips").json["items"]) == 1


def test_imported_bank_and_card_rows_arrive_cleared(api: Client, store: Store, user: str) -> None:
    # Given a bank account, a credit card and a wallet
    api.account("bank", 100_000, type="bank")
    api.account("card", 0, type="credit")
    api.account("cash", 0)
    # When a file with a bank expense, a card expense, a cash expense and a withdrawal is imported
    text = (
        "date,kind,amount,account,to_account,category,memo\n"
        "2026-11-02,expense,3000,bank,,光熱費,電気\n"
        "2026-11-03,expense,1200,card,,食費,スーパー\n"
        "2026-11-04,expense,500,cash,,食費,パン\n"
        "2026-11-05,transfer,20000,bank,cash,,引き出し\n"
    )
    reply = api.post("/imports", raw=text.encode(), headers={"Content-Type": "text/csv"})
    assert reply.status == 200 and reply.json["created"] == 4, reply
    # Then each bank or card side is cleared, the wallet's are not
    slips = {s["memo"]: s for s in api.get("/slips").json["items"]}
    assert slips["電気"]["cleared"] == "cleared" and slips["スーパー"]["cleared"] == "cleared"
    assert slips["パン"]["cleared"] == "uncleared"
    assert (slips["引き出し"]["cleared"], slips["引き出し"]["to_cleared"]) == ("cleared", "uncleared")
    # And the accounts' cleared balances count them
    bank, card, cash = (api.get(f"/accounts/{a}").json for a in ("bank", "card", "cash"))
    assert (bank["cleared_balance"], bank["uncleared_balance"]) == (77_000, 0)
    assert (card["cleared_balance"], card["uncleared_balance"]) == (-1_200, 0)
    assert (cash["cleared_balance"], cash["uncleared_balance"]) == (0, 19_500)
    # And every derived total still agrees with the slips
    assert invariants.check(store, user) == []
