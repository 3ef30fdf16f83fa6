"""Writes that race a deletion leave nothing behind: a receipt's claim, an export's start, an
import's status and a slip's number (taken before its change commits) are written by a request
that passed its access check before the deletion began. Whether the write lands before the
deletion's sweep or after it, it is refused (404, as the deleted ledger answers) and, once the
deletion is finished, the ledger's partition holds nothing but what a deletion keeps: for a shared
ledger nothing (its tombstone has a partition of its own), for a person's ledger its fence."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from kakeibo import errors
from kakeibo.models.receipts import ReceiptIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import dataio, receipts, slips
from kakeibo.services.access import EDITORS, OWNERS
from kakeibo.store import SharedLedger, Store, WriteContext
from kakeibo.store.deletion import DeletionOps
from kakeibo.store.journal import GONE
from kakeibo.store.keys import JOURNAL_SK, META_SK, gone_pk
from kakeibo.store.slips import SlipOps
from tests.events import Client
from tests.receipts import receipt_body


def _claim(store: Store, ctx: WriteContext) -> None:
    receipts.claim(store, ctx, ReceiptIn(**receipt_body(uuid.uuid4().bytes)))  # type: ignore[arg-type]


def _export(store: Store, ctx: WriteContext) -> None:
    dataio.start_export(store, ctx)


def _import_status(store: Store, ctx: WriteContext) -> None:
    store.imports.import_started(ctx, uuid.uuid4().hex * 2, rows=1, encoding="utf-8", now="2026-05-01T00:00:00Z")


WRITES: dict[str, Callable[[Store, WriteContext], None]] = {
    "receipt_claim": _claim,
    "export_start": _export,
    "import_status": _import_status,
}


def _racing(monkeypatch: pytest.MonkeyPatch, ledger: str, phase: str, write: Callable[[], None]) -> list[Any]:
    """`write` run once while `ledger`'s deletion runs: before its first page is swept, or after its
    last (just before it is recorded as finished). What it raised, recorded."""
    outcome: list[Any] = []

    def attempt() -> None:
        if outcome:
            return
        try:
            write()
        except errors.ApiError as refused:
            outcome.append(refused)
        else:
            outcome.append("written")

    if phase == "before_sweep":
        real_page = DeletionOps.deletion_page

        def page(self: DeletionOps, led: str, **kwargs: Any) -> list[Any]:
            if str(led) == str(ledger):
                attempt()
            return real_page(self, led, **kwargs)

        monkeypatch.setattr(DeletionOps, "deletion_page", page)
    else:
        real_finish = DeletionOps.deletion_finished

        def finish(self: DeletionOps, led: str, **kwargs: Any) -> bool:
            if str(led) == str(ledger):
                attempt()
            return real_finish(self, led, **kwargs)

        monkeypatch.setattr(DeletionOps, "deletion_finished", finish)
    return outcome


@pytest.mark.parametrize("phase", ["before_sweep", "after_sweep"])
@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_racing_a_person_s_deletion_leaves_nothing_behind(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch, write: str, phase: str
) -> None:
    # Given a person's ledger with a wallet, and a request of theirs past its access check
    user = str(api.user)
    assert api.account("cash", 5_000)["id"] == "cash"
    ctx = WriteContext.personal(user)
    outcome = _racing(monkeypatch, user, phase, lambda: WRITES[write](store, ctx))
    # When they delete their data while the request writes
    assert dataio.delete_me(store, user)["state"] == "deleted"
    # Then the write was refused as the deleted ledger refuses everything
    assert len(outcome) == 1 and isinstance(outcome[0], errors.NotFound), outcome
    # And the partition holds nothing but the fence, the tombstone says it is deleted
    items = list(store.core.query(user))
    assert [(i["SK"], sorted(i)) for i in items] == [(JOURNAL_SK, ["PK", "SK", GONE, "type"])], items
    assert (store.core.get_at(gone_pk(user), META_SK) or {}).get("state") == "deleted"


@pytest.mark.parametrize("phase", ["before_sweep", "after_sweep"])
@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_racing_a_shared_ledger_s_deletion_leaves_nothing_behind(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch, write: str, phase: str
) -> None:
    # Given a shared ledger with a wallet, and a request of its owner's past its access check
    ledger = api.post("/ledgers", {"name": "山田家"}).json["id"]
    assert api.post(f"/ledgers/{ledger}/accounts", {"id": "cash", "name": "財布", "type": "cash",
                                                    "opening_balance": 5_000}).status == 201  # fmt: skip
    roles = OWNERS if write == "export_start" else EDITORS
    ctx = WriteContext.member(ledger, str(api.user), roles)
    outcome = _racing(monkeypatch, SharedLedger(ledger), phase, lambda: WRITES[write](store, ctx))
    # When the owner deletes the ledger while the request writes
    assert dataio.delete_ledger(store, str(api.user), ledger, expected=None)["state"] == "deleted"
    # Then the write was refused (404) and the ledger's partition is empty: its tombstone is all that stays
    assert len(outcome) == 1 and isinstance(outcome[0], errors.NotFound), outcome
    assert list(store.core.query(SharedLedger(ledger))) == []
    assert (store.core.get_at(gone_pk(SharedLedger(ledger)), META_SK) or {}).get("state") == "deleted"


@pytest.mark.parametrize("kind", ["personal", "shared"])
def test_a_slip_whose_number_is_taken_after_the_deletion_leaves_no_counter_behind(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # Given a ledger with a wallet, and a slip being created: its account read, its number not yet taken
    base = "" if kind == "personal" else f"/ledgers/{api.post('/ledgers', {'name': '山田家'}).json['id']}"
    assert api.post(f"{base}/accounts", {"id": "cash", "name": "財布", "type": "cash"}).status == 201
    user = str(api.user)
    ledger = base.rsplit("/", 1)[1] if base else user
    ctx = WriteContext.personal(user) if kind == "personal" else WriteContext.member(ledger, user, EDITORS)
    real = SlipOps.reserve_numbers
    deleted: list[str] = []

    def numbers(self: SlipOps, *args: Any, **kwargs: Any) -> list[int]:
        # When the whole deletion runs before the number is taken
        if not deleted:
            gone = (
                dataio.delete_me(store, user)
                if kind == "personal"
                else dataio.delete_ledger(store, user, ledger, expected=None)
            )
            deleted.append(gone["state"])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SlipOps, "reserve_numbers", numbers)
    body = SlipIn(date="2026-05-03", kind="expense", amount=100, account="cash")  # type: ignore[arg-type]
    # Then the slip is refused (404) after its number was taken
    with pytest.raises(errors.NotFound):
        slips.create_slip(store, ctx, body)
    assert deleted == ["deleted"]
    # And the counter it made is gone again: only what a deletion keeps stays
    if kind == "personal":
        assert [i["SK"] for i in store.core.query(user)] == [JOURNAL_SK]
    else:
        assert list(store.core.query(SharedLedger(ledger))) == []


@pytest.mark.parametrize("kind", ["personal", "shared"])
def test_a_lease_left_by_a_killed_process_goes_with_the_deletion(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # Given a ledger whose export's build was killed while it held the export lease
    user = str(api.user)
    if kind == "personal":
        ledger: str = user
        assert api.account("cash", 5_000)["id"] == "cash"
    else:
        ledger = SharedLedger(api.post("/ledgers", {"name": "山田家"}).json["id"])
    store.locks.acquire_lock(ledger, dataio.LOCK, dataio.LEASE_SECONDS)
    # When the ledger is deleted
    gone = (
        dataio.delete_me(store, user)
        if kind == "personal"
        else dataio.delete_ledger(store, user, str(ledger), expected=None)
    )
    # Then the lease went with it: only what a deletion keeps stays
    assert gone["state"] == "deleted"
    assert [i["SK"] for i in store.core.query(ledger)] == ([JOURNAL_SK] if kind == "personal" else [])


def test_an_edit_that_changes_nothing_is_refused_once_the_person_s_deletion_has_begun(
    api: Client, store: Store
) -> None:
    # Given a person's slip, and their deletion begun but stopped before any of it was swept
    assert api.account("cash", 5_000)["id"] == "cash"
    bread = {"date": "2026-05-03", "kind": "expense", "amount": 300, "account": "cash", "memo": "パン"}
    made = api.post("/slips", bread)
    assert made.status == 201, made
    etag = made.etag or ""
    assert dataio.delete_me(store, str(api.user), time_left=lambda: 0.0)["state"] == "deleting"
    # When they send an edit of it that changes nothing (it writes nothing, so meets no fence)
    same = api.patch(made.header("Location") or "", {"memo": "パン"}, headers={"If-Match": etag})
    # Then it answers 404, as everything of the ledger being deleted does
    assert same.status == 404 and same.json.get("code") == "not_found", same
