"""Reconciliation (照合, §17) on DynamoDB Local: the statement's balance against the cleared slips,
the reconciled slips locked, holds, adjustment, undo, a race of edits, and a large one resumed."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kakeibo.models.reconciliations import ReconciliationIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import reconciliations as service
from kakeibo.services import slips as slip_service
from kakeibo.store import CLEARED_INDEXED, Store, WriteContext
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import SLIP_SEQ_SK, pk
from tests import invariants
from tests.conftest import WITH_FIXTURES
from tests.events import Client
from tests.integration.test_journal import all_changes, comparable, current_state, replay

RECONCILIATIONS = "/accounts/{}/reconciliations"


def _slip(api: Client, **fields: Any) -> dict[str, Any]:
    reply = api.slip(**fields)
    assert reply.status == 201, reply
    return {**reply.json, "where": reply.header("Location"), "etag": reply.etag}


def _reconciliations(api: Client, account: str) -> list[dict[str, Any]]:
    reply = api.get(RECONCILIATIONS.format(account))
    assert reply.status == 200, reply
    return reply.json["items"]  # type: ignore[no-any-return]


def test_a_statement_that_agrees_reconciles_the_cleared_slips_and_locks_them(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank account of 100,000 with two cleared slips, one uncleared, and a cleared one after the date
    api.account("bank", 100_000, type="bank")
    rent = _slip(
        api, date="2026-11-03", kind="expense", amount=30_000, account="bank", category="住居", cleared="cleared"
    )
    card = _slip(api, date="2026-11-05", kind="expense", amount=5_000, account="bank", category="食費")
    pay = _slip(api, date="2026-11-10", kind="income", amount=2_000, account="bank", category="給与", cleared="cleared")
    later = _slip(
        api, date="2026-11-25", kind="expense", amount=1_000, account="bank", category="食費", cleared="cleared"
    )
    path = RECONCILIATIONS.format("bank")
    # When the bankbook's 72,000 on the 20th is tried as a dry run
    dry = api.post(path, {"date": "2026-11-20", "balance": 72_000}, query={"dry_run": "true"})
    # Then it balances, lists the uncleared slip, and writes nothing
    assert dry.status == 200, dry
    assert (dry.json["difference"], dry.json["cleared_balance"]) == (0, 72_000)
    assert [s["id"] for s in dry.json["uncleared"]] == [card["id"]]
    assert _reconciliations(api, "bank") == []
    # When a balance that does not agree is asserted
    short = api.post(path, {"date": "2026-11-20", "balance": 71_000}, headers={"Accept-Language": "ja"})
    # Then 409 with the difference, and nothing changed
    assert short.status == 409 and short.json["code"] == "reconciliation_difference", short
    assert short.json["difference"] == -1_000 and "差額" in short.json["detail"]
    assert api.get(rent["where"]).json["cleared"] == "cleared"
    # When the agreeing balance is asserted
    made = api.post(path, {"date": "2026-11-20", "balance": 72_000})
    # Then the cleared slips up to the date are reconciled, the others are not
    assert made.status == 201, made
    assert (made.json["reconciled"], made.json["difference"], made.json["holds"]) == (2, 0, True)
    states = {s["id"]: api.get(s["where"]).json["cleared"] for s in (rent, card, pay, later)}
    assert states == {
        rent["id"]: "reconciled",
        card["id"]: "uncleared",
        pay["id"]: "reconciled",
        later["id"]: "cleared",
    }
    # And the same request again answers the same reconciliation (200), once
    again = api.post(path, {"date": "2026-11-20", "balance": 72_000})
    assert again.status == 200 and again.json["id"] == made.json["id"], again
    assert [r["id"] for r in _reconciliations(api, "bank")] == [made.json["id"]]
    # When a reconciled slip's amount is changed, or it is deleted, without unlocking
    current = api.get(rent["where"])
    refused = [
        api.patch(rent["where"], {"amount": 31_000}, headers={"If-Match": current.etag or ""}),
        api.patch(rent["where"], {"date": "2026-11-04"}, headers={"If-Match": current.etag or ""}),
        api.delete(rent["where"], headers={"If-Match": current.etag or ""}),
    ]
    # Then each is 409 reconciled naming the reconciliation; a memo may still change
    for reply in refused:
        assert reply.status == 409 and reply.json["code"] == "reconciled", reply
        assert reply.json["reconciliation"] == made.json["id"]
    memo = api.patch(rent["where"], {"memo": "11月分"}, headers={"If-Match": current.etag or ""})
    assert memo.status == 200 and memo.json["cleared"] == "reconciled", memo
    assert _reconciliations(api, "bank")[0]["holds"] is True
    # When the amount is changed with ?unlock=true
    unlocked = api.patch(
        rent["where"], {"amount": 31_000}, headers={"If-Match": memo.etag or ""}, query={"unlock": "true"}
    )
    # Then it changes, its side is cleared again, and the reconciliation no longer holds
    assert unlocked.status == 200 and unlocked.json["cleared"] == "cleared", unlocked
    assert _reconciliations(api, "bank")[0]["holds"] is False
    # And every derived total still agrees with the slips
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_the_wallets_difference_goes_to_an_adjustment_and_undo_takes_the_reconciliation_back(
    api: Client, store: Store, user: str
) -> None:
    # Given a wallet of 10,000 and one cleared purchase of 3,000
    api.account("wallet", 10_000)
    lunch = _slip(
        api, date="2026-11-02", kind="expense", amount=3_000, account="wallet", category="食費", cleared="cleared"
    )
    # When the counted wallet says 6,500 and the difference is to be adjusted
    made = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-20", "balance": 6_500, "adjust": True})
    # Then a cleared 使途不明金 expense of 500 is posted and reconciled with the purchase
    assert made.status == 201, made
    assert (made.json["difference"], made.json["reconciled"]) == (-500, 2)
    adjustment = api.get(f"/slips/{made.json['adjustment_slip']}")
    assert adjustment.status == 200, adjustment
    assert (adjustment.json["kind"], adjustment.json["amount"], adjustment.json["category"]) == (
        "expense",
        500,
        "使途不明金",
    )
    assert adjustment.json["cleared"] == "reconciled"
    assert api.get("/accounts/wallet").json["balance"] == 6_500
    # When the entry that stored the reconciliation is undone
    entries = api.get("/changes", query={"since": 0, "limit": 100}).json["changes"]
    seq = next(e["seq"] for e in entries if any(c["type"] == "reconciliation" for c in e["changes"]))
    undone = api.post(f"/changes/{seq}/undo")
    # Then its slips are cleared again, the adjustment is gone, and the reconciliation with it
    assert undone.status == 200, undone
    assert api.get(lunch["where"]).json["cleared"] == "cleared"
    assert api.get(f"/slips/{made.json['adjustment_slip']}").status == 404
    assert _reconciliations(api, "wallet") == []
    assert api.get("/accounts/wallet").json["balance"] == 7_000
    assert api.post(f"/changes/{seq}/undo").json["code"] == "already_undone"
    # And reconciling again adjusts again, with a new slip
    redo = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-20", "balance": 6_500, "adjust": True})
    assert redo.status == 201 and redo.json["adjustment_slip"] != made.json["adjustment_slip"], redo
    assert invariants.check(store, user) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"date": "2999-01-01", "balance": 0}, "date"),
        ({"date": "2026-11-20", "balance": 1.5}, "balance"),
        ({"date": "2026-11-20", "balance": "1000"}, "balance"),
        ({"date": "2026-11-31", "balance": 0}, "date"),
        ({"date": "2026-11-20"}, "balance"),
    ],
    ids=["future", "float", "string", "impossible-date", "missing"],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_written(
    api: Client, body: dict[str, Any], field: str
) -> None:
    # Given a bank account with a cleared slip
    api.account("bank", 1_000, type="bank")
    slip = _slip(api, date="2026-11-03", kind="expense", amount=100, account="bank", category="食費", cleared="cleared")
    head = api.get("/changes", query={"since": 0}).json["knowledge"]
    # When a reconciliation is sent with the bad field
    reply = api.post(RECONCILIATIONS.format("bank"), body, headers={"Accept-Language": "ja"})
    # Then 422 names it, in the caller's language, and nothing was written
    assert reply.status == 422, reply
    assert field in str(reply.json["errors"]), reply
    assert api.get(slip["where"]).json["cleared"] == "cleared"
    assert api.get("/changes", query={"since": 0}).json["knowledge"] == head


def test_an_archived_account_is_not_reconciled(api: Client) -> None:
    # Given an archived account
    made = api.account("old", 0)
    archived = api.patch("/accounts/old", {"archived": True}, headers={"If-Match": f'"{made["version"]}"'})
    assert archived.status == 200, archived
    # When it is reconciled, then 422 names the account, and nothing is stored
    reply = api.post(RECONCILIATIONS.format("old"), {"date": "2026-11-20", "balance": 0})
    assert reply.status == 422 and "id" in str(reply.json["errors"]), reply
    assert _reconciliations(api, "old") == []


def _race(api: Client, account: str, edited: list[dict[str, Any]]) -> list[int]:
    """A reconciliation of `account` at -2,000 and an edit of each slip of `edited`, all at once."""
    outcomes: list[int] = []

    def edit(slip: dict[str, Any]) -> None:
        outcomes.append(api.patch(slip["where"], {"amount": 150}, headers={"If-Match": slip["etag"]}).status)

    def reconcile() -> None:
        statement = {"date": "2026-11-20", "balance": -2_000}
        outcomes.append(api.post(RECONCILIATIONS.format(account), statement).status)

    threads = [threading.Thread(target=reconcile)] + [threading.Thread(target=edit, args=(s,)) for s in edited]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_edits_racing_a_reconciliation_never_leave_a_reconciled_slip_its_assertion_did_not_sum(
    api: Client, store: Store, user: str
) -> None:
    for round_no in range(3):
        # Given an account with 20 cleared expenses of 100
        account = f"race{round_no}"
        api.account(account, 0, allow_negative=True)
        slips = [
            _slip(
                api, date="2026-11-03", kind="expense", amount=100, account=account, category="食費", cleared="cleared"
            )
            for _ in range(20)
        ]
        # When the statement's -2,000 is asserted while some of its slips are edited at once
        outcomes = _race(api, account, slips[::5])
        # Then every answer is a success or a refusal (never a 5xx)
        assert all(status in (200, 201, 409, 412, 423) for status in outcomes), outcomes
        # And every stored assertion holds, and the slips it reconciled sum to what it asserted
        stored = _reconciliations(api, account)
        assert all(r["holds"] for r in stored), stored
        now = [api.get(s["where"]).json for s in slips]
        reconciled = [s for s in now if s["cleared"] == "reconciled"]
        if stored:
            assert -sum(s["amount"] for s in reconciled) == stored[0]["balance"] == -2_000, now
        else:  # refused: no slip is left reconciled without its assertion
            assert reconciled == [], now
        assert invariants.check(store, user) == []


def test_a_large_reconciliation_goes_in_batches_and_resumes_after_a_crash_once(
    store: Store, user: str, api: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a card with 500 cleared charges of 10
    api.account("card", 0, type="credit", allow_negative=True)
    ctx = WriteContext.personal(user)
    for n in range(500):
        day = f"2026-10-{1 + n % 28:02d}"
        charge = SlipIn(date=day, kind="expense", amount=10, account="card", category="食費", cleared="cleared")
        slip_service.create_slip(store, ctx, charge)
    body = ReconciliationIn(date="2026-10-31", balance=-5_000)
    # When the reconciliation fails after its third batch
    real, calls = store.reconciliations.remark_slips, []

    def crash_after_three(*args: Any, **kwargs: Any) -> int:
        if len(calls) == 3:
            raise RuntimeError("the function was stopped")
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store.reconciliations, "remark_slips", crash_after_three)
    with pytest.raises(RuntimeError):
        service.reconcile(store, ctx, "card", body)
    monkeypatch.setattr(store.reconciliations, "remark_slips", real)
    # Then three batches are reconciled and no assertion is stored yet
    assert store.reconciliations.reconciliations(user, "card") == []
    marked = [s for s in service.account_slips(store, user, "card", "2026-10-31") if s.get("cleared") == "reconciled"]
    assert len(marked) == 3 * service.BATCH
    # When the same reconciliation is sent again
    status, made = service.reconcile(store, ctx, "card", body)
    # Then it finishes the rest, stores the assertion once, and it holds
    assert (status, made["reconciled"], made["holds"]) == (201, 500, True)
    slips = service.account_slips(store, user, "card", "2026-10-31")
    assert {s.get("cleared") for s in slips} == {"reconciled"}
    assert [r["id"] for r in _reconciliations(api, "card")] == [made["id"]]
    assert service.reconcile(store, ctx, "card", body)[0] == 200
    assert invariants.check(store, user) == []


def slips_read(store: Store) -> tuple[list[str], Callable[[], None]]:
    """The ids of the slip items DynamoDB sends back from now on, and how to stop listening."""
    read: list[str] = []

    def seen(parsed: dict[str, Any], **_: Any) -> None:
        found = [parsed.get("Item"), *parsed.get("Items", ())]
        found += [i for items in parsed.get("Responses", {}).values() for i in items]
        read.extend(i["id"]["S"] for i in found if i and i.get("SK", {}).get("S", "").startswith("SLIP#"))

    store.core.client.meta.events.register("after-call.dynamodb", seen)
    return read, lambda: store.core.client.meta.events.unregister("after-call.dynamodb", seen)


def test_a_reconciliation_reads_only_what_it_can_still_mark_a_backdated_cleared_slip_included(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank account whose 24 cleared October slips were reconciled as of October 31
    api.account("bank", 100_000, type="bank")
    ctx = WriteContext.personal(user)
    for n in range(24):
        october = SlipIn(date=f"2026-10-{1 + n:02d}", kind="expense", amount=100, account="bank", category="食費",
                         cleared="cleared")  # fmt: skip
        slip_service.create_slip(store, ctx, october)
    path = RECONCILIATIONS.format("bank")
    first = api.post(path, {"date": "2026-10-31", "balance": 97_600})
    assert first.status == 201 and first.json["reconciled"] == 24, first
    # And since then two cleared November slips, an uncleared one, and a cleared one backdated to
    # October 15, older than that reconciliation
    november = [
        _slip(api, date="2026-11-03", kind="expense", amount=300, account="bank", category="食費", cleared="cleared"),
        _slip(api, date="2026-11-09", kind="income", amount=1_000, account="bank", category="給与", cleared="cleared"),
    ]
    uncleared = _slip(api, date="2026-11-10", kind="expense", amount=50, account="bank", category="食費")
    backdated = _slip(
        api, date="2026-10-15", kind="expense", amount=200, account="bank", category="食費", cleared="cleared"
    )
    read, stop = slips_read(store)
    try:
        # When the bankbook's balance on November 25 is asserted
        made = api.post(path, {"date": "2026-11-25", "balance": 97_600 - 200 - 300 + 1_000})
    finally:
        stop()
    # Then the backdated slip and the November ones are reconciled, the uncleared one is not
    assert made.status == 201 and made.json["reconciled"] == 3, made
    states = {s["id"]: api.get(s["where"]).json["cleared"] for s in [*november, uncleared, backdated]}
    assert states == {**{s["id"]: "reconciled" for s in [*november, backdated]}, uncleared["id"]: "uncleared"}
    # And it read those three slips only, not the account's history
    assert sorted(set(read)) == sorted(s["id"] for s in [*november, backdated]), read
    # And the October reconciliation no longer holds (the backdated slip moved its balance), the new one does
    assert [(r["date"], r["holds"]) for r in _reconciliations(api, "bank")] == [
        ("2026-11-25", True),
        ("2026-10-31", False),
    ]
    assert invariants.check(store, user) == []


def test_a_ledger_from_before_the_index_of_cleared_sides_is_reconciled_from_its_slips_until_rebuilt(
    api: Client, store: Store, user: str
) -> None:
    # Given a wallet with three cleared purchases, in a ledger whose cleared sides are not indexed
    # (its slips were written before that index: no entries, and its counter does not say so)
    api.account("wallet", 10_000)
    lunches = [
        _slip(api, date=f"2026-11-0{n}", kind="expense", amount=1_000, account="wallet", category="食費",
              cleared="cleared")
        for n in (1, 2, 3)
    ]  # fmt: skip
    for item in list(store.core.query(user, begins_with="YR#")):
        store.core.client.delete_item(TableName=store.core.table, Key=to_ddb({"PK": pk(user), "SK": item["SK"]}))
    store.core.client.update_item(
        TableName=store.core.table,
        Key=to_ddb({"PK": pk(user), "SK": SLIP_SEQ_SK}),
        UpdateExpression="REMOVE #cx",
        ExpressionAttributeNames={"#cx": CLEARED_INDEXED},
    )
    assert store.slip_index.unreconciled_slips(user, "wallet", "2026-11-30") is None
    # When the counted wallet is reconciled
    made = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-20", "balance": 7_000})
    # Then its cleared slips are found through the account's slips and reconciled
    assert made.status == 201 and made.json["reconciled"] == 3, made
    assert {api.get(s["where"]).json["cleared"] for s in lunches} == {"reconciled"}
    # And verify names the counter's missing mark; a rebuild sets it, and the index is read again
    found = api.post("/ledger/verify").json
    assert {"item": SLIP_SEQ_SK, "field": CLEARED_INDEXED, "expected": 1, "actual": 0} in found["mismatches"]
    assert api.post("/ledger/rebuild").json["complete"] is True
    later = _slip(api, date="2026-11-25", kind="expense", amount=500, account="wallet", category="食費",
                  cleared="cleared")  # fmt: skip
    assert [s["id"] for s in store.slip_index.unreconciled_slips(user, "wallet", "2026-11-30") or []] == [later["id"]]
    assert api.post("/ledger/verify").json["ok"] is True and invariants.check(store, user) == []


def test_the_cleared_balance_as_of_any_date_comes_from_the_rollups_after_it(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank account with cleared and uncleared slips from 2024 to this month (a transfer's
    # receiving side cleared too)
    api.account("bank", 50_000, type="bank")
    api.account("cash", 1_000)
    ctx = WriteContext.personal(user)
    made = []
    for n, date in enumerate(["2024-01-05", "2024-06-15", "2024-06-20", "2024-12-31", "2025-03-01", "2025-12-31",
                              "2026-02-14", "2026-10-01", "2026-10-31", "2026-11-02", "2026-11-10"]):  # fmt: skip
        kind = "income" if n % 3 == 0 else "expense"
        slip = SlipIn(date=date, kind=kind, amount=100 * (n + 1), account="bank", category="食費",
                      cleared="cleared" if n % 4 else "uncleared")  # fmt: skip
        made.append(slip_service.create_slip(store, ctx, slip))
    move = SlipIn(
        date="2025-07-07", kind="transfer", amount=700, account="cash", to_account="bank", to_cleared="cleared"
    )
    made.append(slip_service.create_slip(store, ctx, move))

    def by_hand(date: str) -> int:
        total = 50_000
        for s in made:
            if s["date"] > date:
                continue
            if s["kind"] == "transfer":
                total += int(s["amount"]) if s["to_cleared"] == "cleared" else 0
            elif s["cleared"] == "cleared":
                total += int(s["amount"]) if s["kind"] == "income" else -int(s["amount"])
        return total

    # When the cleared balance is asked as of dates in every year, month ends, year ends and mid-month
    dates = ["2023-12-31", "2024-01-05", "2024-06-17", "2024-12-31", "2025-07-06", "2025-07-07", "2025-12-31",
             "2026-02-28", "2026-10-31", "2026-11-05", "2026-11-27"]  # fmt: skip
    account = store.core.get(user, "ACCOUNT#bank")
    assert account is not None
    found = service.cleared_as_of_dates(store, user, account, dates)
    # Then each is the opening balance and the cleared sides up to it
    assert found == {date: by_hand(date) for date in dates}
    # When the bankbook is reconciled at the end of October, and the reconciliations listed
    reply = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-10-31", "balance": by_hand("2026-10-31")})
    assert reply.status == 201, reply
    read: list[str] = []

    def seen(parsed: dict[str, Any], **_: Any) -> None:
        read.extend(i["SK"]["S"] for i in [parsed.get("Item"), *parsed.get("Items", ())] if i)

    store.core.client.meta.events.register("after-call.dynamodb", seen)
    try:
        listed = _reconciliations(api, "bank")
    finally:
        store.core.client.meta.events.unregister("after-call.dynamodb", seen)
    # Then it holds, read from what was cleared after the date: no rollup of the years before it
    assert [(r["date"], r["holds"]) for r in listed] == [("2026-10-31", True)]
    rollups = sorted(sk for sk in read if sk.startswith(("AYEAR#", "AMONTH#", "DAY#")))
    assert rollups == ["AMONTH#2026-11#bank"], read


# ---- undo of a reconciliation whose adjustment moved on ------------------------------------------


def _seq_of(api: Client, reconciliation: str) -> int:
    """The seq of the entry that stored `reconciliation`."""
    entries = api.get("/changes", query={"since": 0, "limit": 200}).json["changes"]
    return next(
        e["seq"]
        for e in entries
        if any(c["type"] == "reconciliation" and c["id"] == reconciliation for c in e["changes"])
    )


def _state(api: Client, store: Store, user: str, account: str) -> tuple[Any, ...]:
    """What an undo refused must leave as it was: the journal's head, the account's slips, its
    reconciliations and the runs under way (none)."""
    slips = sorted((s["id"], s["version"], s["cleared"], s["memo"]) for s in api.get("/slips").json["items"])
    runs = [r for r in store.reconciliations.reconciliation_records(user, account) if r["type"] != "reconciliation"]
    head = api.get("/changes", query={"since": 0}).json["knowledge"]
    return head, slips, [(r["id"], r["holds"]) for r in _reconciliations(api, account)], runs


def test_an_undo_whose_adjustment_was_unlocked_and_reconciled_again_is_412_and_the_account_stays_reconcilable(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank reconciled on the 20th with an adjustment A of 500
    api.account("bank", 10_000, type="bank")
    _slip(api, date="2026-11-03", kind="expense", amount=1_000, account="bank", category="食費", cleared="cleared")
    first = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-20", "balance": 8_500, "adjust": True})
    assert first.status == 201, first
    adjustment = first.json["adjustment_slip"]
    # And A unlocked and moved to the 5th, then the 10th reconciled (which reconciles A)
    read = api.get(f"/slips/{adjustment}")
    moved = api.patch(
        read.header("Content-Location") or "",
        {"date": "2026-11-05"},
        query={"unlock": "true"},
        headers={"If-Match": read.etag or ""},
    )
    assert moved.status == 200, moved
    second = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-10", "balance": 8_500})
    assert second.status == 201 and second.json["reconciled"] == 1, second
    before = _state(api, store, user, "bank")
    # When the first reconciliation is undone
    refused = api.post(f"/changes/{_seq_of(api, first.json['id'])}/undo", headers={"Accept-Language": "ja"})
    # Then 412 names the adjustment that moved on, in words that blame nobody and ask to save nothing
    assert refused.status == 412 and refused.json["code"] == "version_mismatch", refused
    assert (refused.json["entity"], refused.json["id"], refused.json["adjustment_of"]) == (
        "slip",
        adjustment,
        first.json["id"],
    )
    assert refused.json["current"] == moved.json["version"] + 1  # the second reconciliation marked it
    assert "ほかの人" not in refused.json["detail"] and "保存" not in refused.json["detail"], refused
    assert adjustment in refused.json["detail"] and "取り消していません" in refused.json["detail"], refused
    # And nothing changed: no slip, no reconciliation, no entry, no run left under way
    assert _state(api, store, user, "bank") == before
    # And the account is still reconciled as before, again and again
    third = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-25", "balance": 8_500})
    assert third.status == 201, third
    # And the second reconciliation (the one that reconciled A) is undone
    undone = api.post(f"/changes/{_seq_of(api, second.json['id'])}/undo")
    assert undone.status == 200, undone
    assert api.get(f"/slips/{adjustment}").json["cleared"] == "cleared"
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_an_undo_whose_adjustment_was_edited_since_is_412_and_keeps_the_edit(
    api: Client, store: Store, user: str
) -> None:
    # Given a wallet reconciled with an adjustment, whose memo was edited afterwards (no unlock needed)
    api.account("wallet", 10_000)
    lunch = _slip(
        api, date="2026-11-02", kind="expense", amount=3_000, account="wallet", category="食費", cleared="cleared"
    )
    made = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-20", "balance": 6_500, "adjust": True})
    assert made.status == 201, made
    adjustment = made.json["adjustment_slip"]
    read = api.get(f"/slips/{adjustment}")
    where = read.header("Content-Location") or ""
    edited = api.patch(where, {"memo": "お釣りの数え間違い"}, headers={"If-Match": read.etag or ""})
    assert edited.status == 200 and edited.json["cleared"] == "reconciled", edited
    before = _state(api, store, user, "wallet")
    seq = _seq_of(api, made.json["id"])
    # When the reconciliation is undone
    refused = api.post(f"/changes/{seq}/undo")
    # Then 412 names the adjustment and its version now, and nothing changed: the memo is kept
    assert refused.status == 412 and refused.json["code"] == "version_mismatch", refused
    assert (refused.json["id"], refused.json["current"], refused.json["adjustment_of"]) == (
        adjustment,
        edited.json["version"],
        made.json["id"],
    )
    assert "not undone" in refused.json["detail"] and "?unlock=true" in refused.json["detail"], refused
    assert _state(api, store, user, "wallet") == before
    assert api.get(f"/slips/{adjustment}").json["memo"] == "お釣りの数え間違い"
    # When the adjustment is deleted (unlocked) and the undo asked again
    current = api.get(where)
    gone = api.delete(where, headers={"If-Match": current.etag or ""}, query={"unlock": "true"})
    assert gone.status == 204, gone
    undone = api.post(f"/changes/{seq}/undo")
    # Then the reconciliation is taken back: its slip cleared again, the assertion gone
    assert undone.status == 200, undone
    assert api.get(lunch["where"]).json["cleared"] == "cleared"
    assert _reconciliations(api, "wallet") == []
    assert invariants.check(store, user) == []


def test_a_412_on_undoing_a_slip_ones_own_reconciliation_reconciled_says_so(api: Client) -> None:
    # Given a cleared slip, then reconciled by the caller
    api.account("bank", 10_000, type="bank")
    rent = _slip(
        api, date="2026-11-03", kind="expense", amount=1_000, account="bank", category="住居", cleared="cleared"
    )
    made = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-20", "balance": 9_000})
    assert made.status == 201, made
    entries = api.get("/changes", query={"since": 0, "limit": 100}).json["changes"]
    created = next(e["seq"] for e in entries if any(c["type"] == "slip" and c["op"] == "create" for c in e["changes"]))
    # When the slip's creation is undone, in Japanese and in English
    ja = api.post(f"/changes/{created}/undo", headers={"Accept-Language": "ja"})
    en = api.post(f"/changes/{created}/undo")
    # Then 412 says the slip was reconciled since and by which reconciliation, to undo first
    assert ja.status == en.status == 412, (ja, en)
    assert ja.json["reconciled_by"] == en.json["reconciled_by"] == made.json["id"]
    assert "照合されました" in ja.json["detail"] and made.json["id"] in ja.json["detail"], ja
    assert "ほかの人" not in ja.json["detail"] and "保存" not in ja.json["detail"], ja
    assert "was reconciled after this change" in en.json["detail"], en
    assert api.get(rent["where"]).json["cleared"] == "reconciled"


def test_a_difference_is_worded_in_the_accounts_unit(api: Client) -> None:
    # Given a yen bank and a dollar wallet, each short of its statement
    api.account("bank", 20_000, type="bank")
    api.account("usd", 5_000, unit="USD")
    # When each is reconciled without adjusting
    yen = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-20", "balance": 32_520})
    ja = api.post(
        RECONCILIATIONS.format("bank"), {"date": "2026-11-20", "balance": 32_520}, headers={"Accept-Language": "ja"}
    )
    usd = api.post(RECONCILIATIONS.format("usd"), {"date": "2026-11-20", "balance": 4_875})
    # Then the amounts are in the account's unit, with the unit named in the problem
    assert yen.status == ja.status == usd.status == 409, (yen, ja, usd)
    assert "¥20,000" in yen.json["detail"] and "¥32,520" in yen.json["detail"] and "¥12,520" in yen.json["detail"]
    assert "差額 ¥12,520" in ja.json["detail"], ja
    assert (usd.json["unit"], usd.json["difference"]) == ("USD", -125), usd
    assert "$50.00" in usd.json["detail"] and "$48.75" in usd.json["detail"] and "-$1.25" in usd.json["detail"], usd


# ---- accounts in other units (§21) ----------------------------------------------------------------


def test_a_dollar_account_is_adjusted_in_cents_with_its_yen_at_its_latest_rate_or_as_sent(
    api: Client, store: Store, user: str
) -> None:
    # Given a dollar account bought for ¥15,000 ($100.00) and a cleared dinner of $20.00 (¥3,100)
    api.account("bank", 100_000, type="bank")
    api.account("usd", 0, unit="USD")
    bought = api.slip(
        date="2026-11-01", kind="transfer", amount=15_000, account="bank", to_account="usd", to_amount=10_000,
        to_cleared="cleared",
    )  # fmt: skip
    assert bought.status == 201, bought
    dinner = _slip(
        api, date="2026-11-02", kind="expense", amount=2_000, account="usd", category="食費", jpy_amount=3_100,
        cleared="cleared",
    )  # fmt: skip
    # When the wallet counts $79.00 and the difference of $1.00 is adjusted
    made = api.post(RECONCILIATIONS.format("usd"), {"date": "2026-11-10", "balance": 7_900, "adjust": True})
    # Then a cleared expense of 100 cents is posted with its yen at the dinner's rate (¥155), and reconciled
    assert made.status == 201, made
    assert (made.json["difference"], made.json["reconciled"]) == (-100, 3)
    adjustment = api.get(f"/slips/{made.json['adjustment_slip']}").json
    assert (adjustment["kind"], adjustment["amount"], adjustment["jpy_amount"]) == ("expense", 100, 155)
    assert api.get(dinner["where"]).json["cleared"] == "reconciled"
    # And the account is still valued at the dinner's rate, not at one the adjustment made
    usd = next(i for i in api.get("/balances").json["items"] if i["account"] == "usd")
    assert (usd["balance"], usd["valued_by"], usd["rate_date"]) == (7_900, "latest_slip", "2026-11-02")
    # When a later count is adjusted with the yen the caller says
    said = api.post(
        RECONCILIATIONS.format("usd"), {"date": "2026-11-20", "balance": 7_850, "adjust": True, "jpy_amount": 80}
    )
    # Then that is the adjustment's yen
    assert said.status == 201, said
    assert api.get(f"/slips/{said.json['adjustment_slip']}").json["jpy_amount"] == 80
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def _adjusted_at_a_dinners_rate(api: Client) -> dict[str, Any]:
    """A dollar account bought with yen, a dinner that says its yen (2026-11-02: the account's rate), and
    the count of 2026-11-10 adjusted at that rate: the adjustment slip."""
    api.account("bank", 100_000, type="bank")
    api.account("usd", 0, unit="USD")
    bought = api.slip(
        date="2026-11-01", kind="transfer", amount=15_000, account="bank", to_account="usd", to_amount=10_000,
    )  # fmt: skip
    assert bought.status == 201, bought
    _slip(api, date="2026-11-02", kind="expense", amount=2_000, account="usd", category="食費", jpy_amount=3_100)
    made = api.post(RECONCILIATIONS.format("usd"), {"date": "2026-11-10", "balance": 7_900, "adjust": True})
    assert made.status == 201, made
    adjustment: dict[str, Any] = api.get(f"/slips/{made.json['adjustment_slip']}").json
    return adjustment


def test_an_adjustment_made_at_a_rate_keeps_giving_no_rate_after_a_bulk_edit(api: Client) -> None:
    # Given a dollar account valued at a dinner's rate, and a difference adjusted at that rate
    adjustment = _adjusted_at_a_dinners_rate(api)
    # When a bulk edit tags the adjustment
    ref = {"date": adjustment["date"], "id": adjustment["id"], "version": adjustment["version"]}
    done = api.post("/slips/bulk", {"slips": [ref], "set": {"tags_add": ["棚卸"]}})
    assert done.status == 200 and [c["id"] for c in done.json["changed"]] == [adjustment["id"]], done
    # Then its yen is still the one made at the dinner's rate: the account is still valued at the dinner's
    assert api.get(f"/slips/{adjustment['id']}").json["tags"] == ["棚卸"]
    usd = next(i for i in api.get("/balances").json["items"] if i["account"] == "usd")
    assert (usd["valued_by"], usd["rate_date"]) == ("latest_slip", "2026-11-02")


def test_a_reconciled_slip_deleted_unlocked_comes_back_cleared_when_its_deletion_is_undone(
    api: Client, store: Store, user: str
) -> None:
    # Given a bank account whose cleared rent was reconciled
    api.account("bank", 100_000, type="bank")
    rent = _slip(api, date="2026-11-01", kind="expense", amount=30_000, account="bank", category="住居",
                 cleared="cleared")  # fmt: skip
    made = api.post(RECONCILIATIONS.format("bank"), {"date": "2026-11-20", "balance": 70_000})
    assert made.status == 201 and api.get(rent["where"]).json["cleared"] == "reconciled", made
    # When the rent is deleted with ?unlock=true and that deletion is undone
    current = api.get(rent["where"])
    assert api.delete(rent["where"], query={"unlock": "true"}, headers={"If-Match": current.etag or ""}).status == 204
    head = api.get("/changes", query={"since": "0", "limit": "500"}).json["knowledge"]
    undone = api.post(f"/changes/{head}/undo", headers={"Accept-Language": "ja"})
    # Then the rent is back, cleared (not reconciled): the reconciliation its deletion broke still does not hold
    assert undone.status == 200, undone
    back = api.get(rent["where"]).json
    assert (back["amount"], back["cleared"], back["no"]) == (30_000, "cleared", rent["no"])
    assert _reconciliations(api, "bank")[0]["holds"] is False
    assert api.balances()["bank"] == 70_000
    # And every derived total agrees with the slips
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_an_adjustment_made_at_a_rate_keeps_giving_no_rate_after_its_deletion_is_undone(api: Client) -> None:
    # Given a dollar account valued at a dinner's rate, and a difference adjusted at that rate
    adjustment = _adjusted_at_a_dinners_rate(api)
    # When the adjustment is deleted (the reconciliation let go of) and its deletion undone
    where = f"/slips/{adjustment['date']}/{adjustment['id']}"
    version = f'"{adjustment["version"]}"'
    assert api.delete(where, query={"unlock": "true"}, headers={"If-Match": version}).status == 204
    head = api.get("/changes", query={"since": "0", "limit": "500"}).json["knowledge"]
    undone = api.post(f"/changes/{head}/undo")
    assert undone.status == 200, undone
    # Then it is back with the yen made at the dinner's rate, and the account is still valued at the dinner's
    assert api.get(where).json["jpy_amount"] == adjustment["jpy_amount"]
    usd = next(i for i in api.get("/balances").json["items"] if i["account"] == "usd")
    assert (usd["valued_by"], usd["rate_date"]) == ("latest_slip", "2026-11-02")


def test_an_adjustment_in_another_unit_names_what_it_needs_and_writes_nothing(api: Client) -> None:
    # Given a euro account none of whose slips says its yen, and a yen wallet
    api.account("eur", 5_000, unit="EUR")
    api.account("wallet", 1_000)
    head = api.get("/changes", query={"since": 0}).json["knowledge"]
    cases = [
        ("eur", {"date": "2026-11-20", "balance": 4_900, "adjust": True}),  # no rate to price it at
        ("eur", {"date": "2026-11-20", "balance": 4_900, "jpy_amount": 160}),  # yen of no adjustment
        ("wallet", {"date": "2026-11-20", "balance": 900, "adjust": True, "jpy_amount": 100}),  # a yen account
    ]
    for account, body in cases:
        # When it is reconciled so
        reply = api.post(RECONCILIATIONS.format(account), body, headers={"Accept-Language": "ja"})
        # Then 422 names jpy_amount, in the caller's language, and nothing was written
        assert reply.status == 422, (body, reply)
        assert [e["loc"] for e in reply.json["errors"]] == [["body", "jpy_amount"]], reply
        assert "jpy_amount" in reply.json["detail"] and "円換算額" in reply.json["detail"], reply
    assert api.get("/changes", query={"since": 0}).json["knowledge"] == head
    assert _reconciliations(api, "eur") == []
    # And with the yen it came to, the euro account is adjusted
    made = api.post(RECONCILIATIONS.format("eur"), {"date": "2026-11-20", "balance": 4_900, "adjust": True,
                                                     "jpy_amount": 160})  # fmt: skip
    assert made.status == 201, made
    assert api.get(f"/slips/{made.json['adjustment_slip']}").json["jpy_amount"] == 160


def test_a_points_account_is_adjusted_at_its_point_value(api: Client) -> None:
    # Given a points account of 1,500 points worth ¥2 each
    api.account("rakuten", 1_500, type="other", unit="points", point_value=2, program="楽天ポイント")
    # When the app says 1,450 and the difference is adjusted
    made = api.post(RECONCILIATIONS.format("rakuten"), {"date": "2026-11-20", "balance": 1_450, "adjust": True})
    # Then 50 points are posted, counting ¥100
    assert made.status == 201, made
    adjustment = api.get(f"/slips/{made.json['adjustment_slip']}").json
    assert (adjustment["amount"], adjustment["jpy_amount"]) == (50, 100)


# ---- any sequence: the accounts stay reconcilable --------------------------------------------------

SEQUENCES = st.lists(
    st.tuples(st.sampled_from(["slip", "reconcile", "unlock", "memo", "undo"]), st.integers(0, 60)),
    min_size=3,
    max_size=10,
)
ACCOUNTS = ("bank", "usd")  # yen, and dollars (cents) whose slips say their yen


def _created_seq(api: Client, reconciliation: str) -> int | None:
    """The seq of the latest entry that stored `reconciliation` (the same request after an undo
    stores it again under its id)."""
    entries, _ = all_changes(api)
    made = [
        e["seq"]
        for e in entries
        for c in e["changes"]
        if (c["type"], c["id"], c["op"]) == ("reconciliation", reconciliation, "create")
    ]
    return max(made, default=None)


def _step(api: Client, op: str, n: int, stored: list[str]) -> None:
    """One write of the sequence, with what it must answer."""
    account = ACCOUNTS[n % 2]
    slips = api.get("/slips", query={"limit": "100"}).json["items"]
    if op == "slip":
        extra = {"jpy_amount": 150 + n} if account == "usd" else {}
        reply = api.slip(date=f"2026-11-{1 + n % 20:02d}", kind="expense", amount=100 + n, account=account,
                         category="食費", cleared="cleared", **extra)  # fmt: skip
        assert reply.status == 201, reply
    elif op == "reconcile":
        date = f"2026-11-{1 + n % 25:02d}"
        dry = api.post(RECONCILIATIONS.format(account), {"date": date, "balance": 0}, query={"dry_run": "true"})
        balance = dry.json["cleared_balance"] - (n % 3) * 10  # agreeing, or short by 10 or 20
        body = {"date": date, "balance": balance, "adjust": True}
        made = api.post(RECONCILIATIONS.format(account), body)
        if made.status == 422:
            # A dollar adjustment says its yen at the rate of the account's latest slip up to the date
            # that gives one (§21: the API never fetches rates). An unlocked move may carry every such
            # slip past the date (the purchase of the dollars included); then there is no rate to price
            # it at, and the API rightly asks for the yen instead. It is refused only so: the dollars,
            # valued at no rate as of the date, 422 naming jpy_amount; with the yen sent, it is made.
            assert account == "usd" and [e["loc"] for e in made.json["errors"]] == [["body", "jpy_amount"]], made
            assert "jpy_amount" in made.json["detail"], made
            valued = api.get("/balances", query={"date": date}).json["items"]
            assert [i["valued_by"] for i in valued if i["account"] == "usd"] == [None], valued
            made = api.post(RECONCILIATIONS.format(account), {**body, "jpy_amount": 1 + n})
        assert made.status in (200, 201), made
        stored.append(made.json["id"])
    elif op in ("unlock", "memo"):
        # an adjustment first when there is one: what an undo would take back
        wanted = [s for s in slips if s["memo"] == service.ADJUSTMENT_MEMO] if n % 2 == 0 else []
        pool = wanted or ([s for s in slips if s["cleared"] == "reconciled"] if op == "unlock" else slips)
        if not pool:
            return
        slip = api.get(f"/slips/{pool[n % len(pool)]['id']}")
        patch = {"date": f"2026-11-{1 + n % 25:02d}"} if op == "unlock" else {"memo": f"memo {n}"}
        query = {"unlock": "true"} if op == "unlock" else None
        changed = api.patch(slip.header("Content-Location") or "", patch, headers={"If-Match": slip.etag or ""},
                            query=query)  # fmt: skip
        assert changed.status == 200, changed
    elif op == "undo" and stored:
        rid = stored[n % len(stored)]
        seq = _created_seq(api, rid)
        assert seq is not None
        before = sorted((s["id"], s["version"]) for s in slips)
        undone = api.post(f"/changes/{seq}/undo")
        assert undone.status in (200, 409, 412), undone
        if undone.status == 409:
            assert undone.json["code"] == "already_undone", undone
        if undone.status == 412:  # its adjustment moved on: nothing changed
            assert undone.json["adjustment_of"] == rid, undone
            after = api.get("/slips", query={"limit": "100"}).json["items"]
            assert sorted((s["id"], s["version"]) for s in after) == before


@settings(max_examples=3, deadline=None, suppress_health_check=WITH_FIXTURES)
@given(ops=SEQUENCES)
# the bank adjusted on the 3rd, its adjustment unlocked to the 1st and reconciled on the 7th, the first undone
@example(ops=[("reconcile", 2), ("unlock", 0), ("reconcile", 6), ("undo", 0), ("reconcile", 8), ("undo", 1)])
# the dollars adjusted at their rate, the adjustment's memo edited, the reconciliation undone, more dollars
@example(ops=[("reconcile", 1), ("memo", 0), ("undo", 0), ("slip", 3), ("reconcile", 5)])
# the bank reconciled on the 1st, the dollars' purchase unlocked to the 3rd, the dollars adjusted on the 2nd
# (no slip up to then says their yen: the adjustment is sent it)
@example(ops=[("reconcile", 0), ("unlock", 2), ("reconcile", 1)])
def test_any_sequence_of_reconciliations_unlocks_edits_and_undos_leaves_every_account_reconcilable(
    local_env: str, store: Store, ops: list[tuple[str, int]]
) -> None:
    # Given a yen bank and a dollar account bought for ¥15,000 ($100.00), its side cleared
    user = f"recon-{uuid.uuid4().hex[:10]}"
    api = Client(user)
    api.account("bank", 100_000, type="bank")
    api.account("usd", 0, unit="USD")
    bought = api.slip(date="2026-11-01", kind="transfer", amount=15_000, account="bank", to_account="usd",
                      to_amount=10_000, cleared="cleared", to_cleared="cleared")  # fmt: skip
    assert bought.status == 201, bought
    stored: list[str] = []
    # When any sequence of cleared slips, reconciliations (adjusted), unlocked moves, edits and undos runs
    for op, n in ops:
        _step(api, op, n, stored)
        # Then no run is ever left under way
        assert [
            r
            for a in ACCOUNTS
            for r in store.reconciliations.reconciliation_records(user, a)
            if r["type"] != "reconciliation"
        ] == []
    # And each account is still reconciled where its dry run says it agrees
    for account in ACCOUNTS:
        dry = api.post(RECONCILIATIONS.format(account), {"date": "2026-11-28", "balance": 0}, query={"dry_run": "true"})
        agreed = api.post(
            RECONCILIATIONS.format(account), {"date": "2026-11-28", "balance": dry.json["cleared_balance"]}
        )
        assert agreed.status in (200, 201), agreed
    # And the ledger verifies, and its journal replays to its slips and accounts
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True
    entries, _ = all_changes(api)
    replayed = {k: v for k, v in replay(entries).items() if k[0] in ("slip", "account")}
    assert comparable(replayed) == comparable(current_state(api, set()))
