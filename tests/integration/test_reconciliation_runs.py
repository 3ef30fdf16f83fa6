"""Reconciliations and undos that stop midway (§17) on DynamoDB Local: a run killed between batches
(its lease left to expire) is settled by whoever next asks: the list of reconciliations, another
reconciliation, or an edit it refused. An unfinished reconciliation is released; an unfinished undo
is finished. Batches are made small here so that a few slips make several."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo import errors
from kakeibo.models.reconciliations import ReconciliationIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import reconciliations as service
from kakeibo.services import slips as slip_service
from kakeibo.store import Store, WriteContext
from kakeibo.store.reconciliations import RUN
from tests import invariants
from tests.events import Client
from tests.integration.test_reconciliations import slips_read

RECONCILIATIONS = "/accounts/{}/reconciliations"
BODY = ReconciliationIn(date="2026-11-20", balance=900, adjust=True)  # the wallet holds 100 less than cleared


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "BATCH", 4)


def _wallet(api: Client, store: Store, user: str) -> list[dict[str, Any]]:
    """A wallet of 2,000 and ten cleared purchases of 100 (cleared balance 1,000)."""
    api.account("wallet", 2_000)
    ctx = WriteContext.personal(user)
    for n in range(10):
        lunch = SlipIn(date=f"2026-11-{1 + n:02d}", kind="expense", amount=100, account="wallet", category="食費",
                       cleared="cleared")  # fmt: skip
        slip_service.create_slip(store, ctx, lunch)
    return _slips(api)


def _slips(api: Client) -> list[dict[str, Any]]:
    return sorted(api.get("/slips", query={"account": "wallet"}).json["items"], key=lambda s: s["date"])


def _killed_after(store: Store, monkeypatch: pytest.MonkeyPatch, batches: int) -> None:
    """The function is stopped after `batches` batches: nothing after runs (not even its `finally`,
    so its lease stays until it expires)."""
    real, calls = store.reconciliations.remark_slips, []

    def stop(*args: Any, **kwargs: Any) -> int:
        if len(calls) == batches:
            raise RuntimeError("the function was stopped")
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store.reconciliations, "remark_slips", stop)
    monkeypatch.setattr(store.locks, "release_lock", lambda lease: True)


def _restarted(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Functions run normally again."""
    monkeypatch.delattr(store.reconciliations, "remark_slips")
    monkeypatch.delattr(store.locks, "release_lock")


def _expired(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Time has passed beyond the stopped run's lease."""
    clock = store.core.clock
    monkeypatch.setattr(store.core, "clock", lambda: clock() + service.LOCK_TTL + 1)


def _runs(store: Store, user: str) -> list[dict[str, Any]]:
    return [r for r in store.reconciliations.reconciliation_records(user, "wallet") if r["type"] == RUN]


def test_a_reconciliation_stopped_between_batches_is_released_by_the_next_list_once_its_lease_expired(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a wallet whose reconciliation (with a 使途不明金 adjustment) was stopped after one batch
    _wallet(api, store, user)
    ctx = WriteContext.personal(user)
    _killed_after(store, monkeypatch, 1)
    with pytest.raises(RuntimeError):
        service.reconcile(store, ctx, "wallet", BODY)
    _restarted(store, monkeypatch)
    marked = [s for s in _slips(api) if s["cleared"] == "reconciled"]
    assert len(marked) == 4 and len(_runs(store, user)) == 1
    # When the reconciliations are listed, and a marked slip edited, while its lease still runs
    listed = api.get(RECONCILIATIONS.format("wallet"))
    edit = api.patch(f"/slips/{marked[0]['date']}/{marked[0]['id']}", {"amount": 150}, headers={"If-Match": "*"})
    # Then nothing is stored, the run is left alone (it may still be under way), the edit is refused
    assert listed.status == 200 and listed.json["items"] == [], listed
    assert edit.status == 409 and edit.json["code"] == "reconciled", edit
    assert len([s for s in _slips(api) if s["cleared"] == "reconciled"]) == 4
    # When the lease has expired and the reconciliations are listed again
    _expired(store, monkeypatch)
    listed = api.get(RECONCILIATIONS.format("wallet"))
    # Then the run is released: no slip reconciled, its adjustment deleted, the marker gone
    assert listed.status == 200 and listed.json["items"] == [], listed
    slips = _slips(api)
    assert {s["cleared"] for s in slips} == {"cleared"} and len(slips) == 10, slips
    wallet = api.get("/accounts/wallet").json
    assert (wallet["balance"], wallet["cleared_balance"]) == (1_000, 1_000)
    assert _runs(store, user) == []
    assert invariants.check(store, user) == []
    # And the same reconciliation sent again runs once, whole
    status, made = service.reconcile(store, ctx, "wallet", BODY)
    assert (status, made["reconciled"], made["difference"], made["holds"]) == (201, 11, -100, True)
    assert {s["cleared"] for s in _slips(api)} == {"reconciled"}
    assert api.get("/accounts/wallet").json["balance"] == 900
    assert invariants.check(store, user) == []


def test_an_edit_refused_by_a_stopped_reconciliation_releases_it_and_goes_through(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a reconciliation stopped after two batches, whose lease has expired
    _wallet(api, store, user)
    _killed_after(store, monkeypatch, 2)
    with pytest.raises(RuntimeError):
        service.reconcile(store, WriteContext.personal(user), "wallet", BODY)
    _restarted(store, monkeypatch)
    _expired(store, monkeypatch)
    marked = [s for s in _slips(api) if s["cleared"] == "reconciled"]
    assert len(marked) == 8
    where = f"/slips/{marked[0]['date']}/{marked[0]['id']}"
    # When a marked slip's amount is changed under the version it was read at
    stale = api.patch(where, {"amount": 150}, headers={"If-Match": f'"{marked[0]["version"]}"'})
    # Then the run is released first; the edit then meets the slip as it now is (412: it changed)
    assert stale.status == 412, stale
    assert {s["cleared"] for s in _slips(api)} == {"cleared"}
    assert _runs(store, user) == []
    # And sent again under the slip's version now, it goes through with nothing locked
    current = api.get(where)
    edited = api.patch(where, {"amount": 150}, headers={"If-Match": current.etag or ""})
    assert edited.status == 200 and edited.json["cleared"] == "cleared", edited
    assert len(_slips(api)) == 10  # the adjustment went with the run
    assert invariants.check(store, user) == []


def test_an_undo_stopped_between_batches_is_finished_by_whoever_next_asks(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a wallet reconciled with an adjustment (eleven slips reconciled)
    _wallet(api, store, user)
    made = api.post(RECONCILIATIONS.format("wallet"), BODY.model_dump())
    assert made.status == 201 and made.json["reconciled"] == 11, made
    entries = api.get("/changes", query={"since": 0, "limit": 100}).json["changes"]
    seq = next(e["seq"] for e in entries if any(c["type"] == "reconciliation" for c in e["changes"]))
    # When its undo is stopped after one batch
    _killed_after(store, monkeypatch, 1)
    undone = api.post(f"/changes/{seq}/undo")
    assert undone.status == 500, undone
    _restarted(store, monkeypatch)
    # Then it is half done: the adjustment deleted first, some slips cleared again, the assertion
    # still there, the undo under way
    states = [s["cleared"] for s in _slips(api)]
    assert states.count("cleared") == 4 and states.count("reconciled") == 6, states
    assert api.get(f"/slips/{made.json['adjustment_slip']}").status == 404
    assert len(store.reconciliations.reconciliations(user, "wallet")) == 1 and len(_runs(store, user)) == 1
    # And while its lease runs, another undo or reconciliation waits (423)
    assert api.post(f"/changes/{seq}/undo").status == 423
    assert api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-05", "balance": 1_500}).status == 423
    # When the lease has expired and another reconciliation of the wallet is asked for
    _expired(store, monkeypatch)
    again = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-05", "balance": 1_500})
    # Then the undo was finished first: the adjustment gone, the assertion removed, the entry undone
    assert again.status == 201 and again.json["reconciled"] == 5, again
    assert [r["id"] for r in api.get(RECONCILIATIONS.format("wallet")).json["items"]] == [again.json["id"]]
    assert api.get(f"/slips/{made.json['adjustment_slip']}").status == 404
    assert api.post(f"/changes/{seq}/undo").json["code"] == "already_undone"
    states = [s["cleared"] for s in _slips(api)]
    assert states == ["reconciled"] * 5 + ["cleared"] * 5, states
    assert _runs(store, user) == []
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


# What an edit between two batches does to the cleared balance as of the 20th without moving the
# account's cleared total: a cleared slip of the 25th moved back to the 15th; or a slip of the 12th
# cleared while the one of the 25th goes back to uncleared.
RACING_EDITS = {
    "a_cleared_date_moved_back_across_the_date": [("late", {"date": "2026-11-15"})],
    "cleared_states_swapped_across_the_date": [("early", {"cleared": "cleared"}), ("late", {"cleared": "uncleared"})],
}


@pytest.mark.parametrize("edits", list(RACING_EDITS.values()), ids=list(RACING_EDITS))
def test_an_edit_between_batches_that_moves_the_cleared_balance_as_of_the_date_fails_the_assertion(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch, edits: list[tuple[str, dict[str, Any]]]
) -> None:
    # Given a wallet whose cleared balance as of the 20th is 1,000, an uncleared purchase of 100 on
    # the 12th and a cleared one of 100 on the 25th
    _wallet(api, store, user)
    early = api.slip(date="2026-11-12", kind="expense", amount=100, account="wallet", category="食費")
    late = api.slip(date="2026-11-25", kind="expense", amount=100, account="wallet", category="食費",
                    cleared="cleared")  # fmt: skip
    where = {name: reply.header("Location") or "" for name, reply in (("early", early), ("late", late))}
    # And edits of those two go in while the reconciliation is between its first and second batch
    real, calls = store.reconciliations.remark_slips, []

    def edited_between(*args: Any, **kwargs: Any) -> int:
        if len(calls) == 1:
            for name, change in edits:
                reply = api.patch(where[name], change, headers={"If-Match": "*"})
                assert reply.status == 200, reply
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store.reconciliations, "remark_slips", edited_between)
    # When the statement's 1,000 as of the 20th is asserted
    with pytest.raises(errors.ReconciliationDifference) as refused:
        service.reconcile(
            store, WriteContext.personal(user), "wallet", ReconciliationIn(date="2026-11-20", balance=1_000)
        )
    # Then the assertion is not stored over a cleared balance that moved: computed again, it is 900
    assert refused.value.status == 409 and store.reconciliations.reconciliations(user, "wallet") == []
    # And no slip is left reconciled, no run is left under way
    assert "reconciled" not in {s["cleared"] for s in _slips(api)}
    assert _runs(store, user) == []
    wallet = api.get("/accounts/wallet").json
    assert (wallet["balance"], wallet["cleared_balance"]) == (800, 900)
    assert invariants.check(store, user) == []


def test_letting_go_of_a_stopped_reconciliation_and_undoing_one_read_only_the_slips_they_marked(
    api: Client, store: Store, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a wallet of ten cleared purchases and three uncleared ones, all before the date
    _wallet(api, store, user)
    uncleared = {
        api.slip(date=f"2026-11-1{n}", kind="expense", amount=10, account="wallet", category="食費").json["id"]
        for n in (1, 2, 3)
    }
    ctx = WriteContext.personal(user)
    body = ReconciliationIn(date="2026-11-20", balance=870, adjust=True)
    # And its reconciliation stopped after one batch, its lease since expired
    _killed_after(store, monkeypatch, 1)
    with pytest.raises(RuntimeError):
        service.reconcile(store, ctx, "wallet", body)
    _restarted(store, monkeypatch)
    marked = {s["id"] for s in _slips(api) if s["cleared"] == "reconciled"}
    assert len(marked) == 4
    _expired(store, monkeypatch)
    # When the reconciliations are listed (which lets the stopped run go)
    read, stop = slips_read(store)
    try:
        listed = api.get(RECONCILIATIONS.format("wallet"))
    finally:
        stop()
    # Then it is let go, reading the slips it marked (and its adjustment), none other
    assert listed.status == 200 and listed.json["items"] == [] and _runs(store, user) == []
    assert "reconciled" not in {s["cleared"] for s in _slips(api)}
    assert marked <= set(read) and not set(read) & uncleared, read
    assert len(set(read) - marked) <= 1, read  # the adjustment it deleted
    # When it is run again whole, and the entry that stored it undone
    status, made = service.reconcile(store, ctx, "wallet", body)
    assert (status, made["reconciled"]) == (201, 11)
    entries = api.get("/changes", query={"since": 0, "limit": 100}).json["changes"]
    seq = max(e["seq"] for e in entries if any(c["type"] == "reconciliation" for c in e["changes"]))
    read, stop = slips_read(store)
    try:
        undone = api.post(f"/changes/{seq}/undo")
    finally:
        stop()
    # Then the undo reads the slips it reconciled and no uncleared one
    assert undone.status == 200, undone
    cleared = {s["id"] for s in _slips(api) if s["cleared"] == "cleared"}
    assert len(cleared) == 10 and cleared <= set(read) and not set(read) & uncleared, read
    assert store.reconciliations.reconciliations(user, "wallet") == [] and invariants.check(store, user) == []


def test_an_undo_left_stuck_on_an_adjustment_reconciled_again_is_given_up_and_the_account_reconciles(
    api: Client, store: Store, user: str
) -> None:
    # Given a wallet reconciled with an adjustment, the adjustment unlocked, moved and reconciled again
    _wallet(api, store, user)
    first = api.post(RECONCILIATIONS.format("wallet"), BODY.model_dump())
    assert first.status == 201, first
    adjustment = api.get(f"/slips/{first.json['adjustment_slip']}")
    moved = api.patch(
        adjustment.header("Content-Location") or "",
        {"date": "2026-11-01"},
        query={"unlock": "true"},
        headers={"If-Match": adjustment.etag or ""},
    )
    assert moved.status == 200, moved
    second = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-01", "balance": 1_800})
    assert second.status == 201, second
    # And the undo of the first left under way (as one that stopped, or gave up on its adjustment, left it)
    entries = api.get("/changes", query={"since": 0, "limit": 100}).json["changes"]
    seq = next(e["seq"] for e in entries if any(c["id"] == first.json["id"] for c in e["changes"]))
    ctx = WriteContext.personal(user)
    lease = store.locks.acquire_lock(user, service.lock_name("wallet"), service.LOCK_TTL)
    run = service._run(service.UNDO, ctx, "wallet", first.json["id"], BODY.date, seq=seq, version=1)
    store.reconciliations.start_run(ctx, store.locks.lock_held_op(lease), run)
    store.locks.release_lock(lease)
    # When the wallet is reconciled again
    again = api.post(RECONCILIATIONS.format("wallet"), {"date": "2026-11-25", "balance": 900})
    # Then the undo that cannot finish is given up (nothing of it written) and the reconciliation goes through
    assert again.status == 201, again
    assert _runs(store, user) == []
    listed = {r["id"] for r in api.get(RECONCILIATIONS.format("wallet")).json["items"]}
    assert listed == {first.json["id"], second.json["id"], again.json["id"]}
    assert api.get(f"/slips/{first.json['adjustment_slip']}").json["cleared"] == "reconciled"
    # And the second reconciliation is undone
    second_seq = next(e["seq"] for e in entries if any(c["id"] == second.json["id"] for c in e["changes"]))
    assert api.post(f"/changes/{second_seq}/undo").status == 200
    assert invariants.check(store, user) == []
