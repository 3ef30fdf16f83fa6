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


def test_the_csv_export_carries_each_sides_state_and_our_import_reads_it_back(
    api: Client, other_api: Client, store: Store, other_user: str
) -> None:
    # Given a bank account and a wallet: an uncleared bank expense, a cleared one reconciled, and a
    # withdrawal whose bank side is cleared and whose wallet side is not
    for client in (api, other_api):
        client.account("bank", 100_000, type="bank")
        client.account("cash", 0)
    api.slip(date="2026-11-02", kind="expense", amount=3_000, account="bank", category="光熱費", memo="電気")
    api.slip(date="2026-11-03", kind="expense", amount=50_000, account="bank", category="住居", memo="家賃",
             cleared="cleared")  # fmt: skip
    api.slip(date="2026-11-05", kind="transfer", amount=20_000, account="bank", to_account="cash", memo="引き出し",
             cleared="cleared")  # fmt: skip
    made = api.post("/accounts/bank/reconciliations", {"date": "2026-11-04", "balance": 50_000})
    assert made.status == 201 and made.json["reconciled"] == 1, made
    # When the slips are exported
    export = api.get("/slips.csv")
    # Then each row says its sides' states (a transfer's receiving side too)
    assert export.status == 200, export
    rows = export.raw.decode().splitlines()
    assert rows[0].endswith(",cleared,to_cleared"), rows[0]
    states = {r.split(",")[6]: tuple(r.split(",")[-2:]) for r in rows[1:]}
    assert states == {"電気": ("uncleared", ""), "家賃": ("reconciled", ""), "引き出し": ("cleared", "uncleared")}
    # When the file is imported into another ledger with the same accounts
    reply = other_api.post("/imports", raw=export.raw, headers={"Content-Type": "text/csv"})
    # Then each side arrives as the file says: uncleared stays so on a bank, reconciled arrives cleared
    assert reply.status == 200 and reply.json["created"] == 3, reply
    got = {s["memo"]: (s["cleared"], s["to_cleared"]) for s in other_api.get("/slips").json["items"]}
    assert got == {"電気": ("uncleared", None), "家賃": ("cleared", None), "引き出し": ("cleared", "uncleared")}
    bank = other_api.get("/accounts/bank").json
    assert (bank["cleared_balance"], bank["uncleared_balance"]) == (30_000, -3_000)
    assert invariants.check(store, other_user) == []
