"""Deleting a shared ledger: its owner's DELETE removes every item and every receipt object of it,
page by page under a lease, resumably and once; from then on it answers 404 to everyone, and the
members' other ledgers are untouched. A tombstone (who, when) is all that stays."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from kakeibo import blobs
from kakeibo.services import daily, dataio
from kakeibo.store import SharedLedger, Store
from kakeibo.store.deletion import DeletionOps
from kakeibo.store.keys import META_SK, tombstone_pk
from tests.deletions import count_finishes, expire_leases, naming, table_items
from tests.events import Client, Reply
from tests.receipts import stored_receipt

PHOTO = b"\xff\xd8\xff\xe0" + b"receipt: bread 320 yen " * 40


def _household(api: Client) -> tuple[str, Client]:
    """A shared ledger with an account, slips, a stored receipt, a webhook and an editor: (its id, the editor)."""
    made = api.post("/ledgers", {"name": "山田家"})
    assert made.status == 201, made
    base = f"/ledgers/{made.json['id']}"
    assert (
        api.post(f"{base}/accounts", {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 9_000}).status
        == 201
    )
    receipt = stored_receipt(api, PHOTO, base)
    for n in range(6):
        body = {"date": f"2026-04-{n + 1:02d}", "kind": "expense", "amount": 100 + n, "account": "cash"}
        if n == 0:
            body["receipts"] = [receipt]
        assert api.post(f"{base}/slips", body).status == 201
    invited = api.post(f"{base}/invitations", {"role": "editor"})
    editor = Client(f"editor-{uuid.uuid4().hex[:8]}")
    assert editor.post(f"/invitations/{invited.json['token']}/accept").status == 200
    return made.json["id"], editor


def _deleted(api: Client, path: str, headers: dict[str, str]) -> Reply:
    """DELETE `path`, sent again (as its owner does) while a loaded machine's request ran out of time."""
    reply = api.delete(path, headers=headers)
    while reply.status == 202 and reply.json["state"] == "deleting":
        reply = api.delete(path, headers={"If-Match": "*"})
    return reply


def _etag(api: Client, ledger: str) -> dict[str, str]:
    return {"If-Match": api.get(f"/ledgers/{ledger}").etag or ""}


def _gone(api: Client, editor: Client, store: Store, ledger: str) -> None:
    """Nothing of the ledger answers, and nothing of it is stored but its tombstone."""
    for who in (api, editor):
        assert who.get(f"/ledgers/{ledger}").status == 404
        assert who.get(f"/ledgers/{ledger}/slips").status == 404
        assert ledger not in [i["id"] for i in who.get("/ledgers").json["items"]]
    assert list(store.core.query(SharedLedger(ledger))) == []
    assert blobs.read(blobs.key_of(ledger, hashlib.sha256(PHOTO).hexdigest())) is None
    tomb = store.core.get_at(tombstone_pk(ledger), META_SK)
    assert tomb is not None and tomb["state"] == "deleted" and tomb["deleted_by"] == api.user and tomb["deleted_at"]


def test_an_owner_deletes_a_shared_ledger_and_everything_in_it(api: Client, store: Store) -> None:
    # Given a household with slips, a receipt and an editor, who keeps a ledger of their own too
    ledger, editor = _household(api)
    assert editor.account("cash", 500)["id"] == "cash"
    other = api.post("/ledgers", {"name": "実家"}).json["id"]
    assert api.post(f"/ledgers/{other}/accounts", {"id": "bank", "name": "銀行", "type": "bank"}).status == 201
    # When its owner deletes it
    deleted = _deleted(api, f"/ledgers/{ledger}", _etag(api, ledger))
    # Then 202, it is gone for everyone, its receipt's object too, and a tombstone says who and when
    assert deleted.status == 202 and deleted.json["state"] == "deleted", deleted
    assert deleted.json["items"] > 10 and deleted.json["deleted_by"] == api.user
    _gone(api, editor, store, ledger)
    # And the members' other ledgers are untouched
    assert editor.balances() == {"cash": 500}
    assert api.get(f"/ledgers/{other}/accounts").json["items"][0]["id"] == "bank"
    # And deleting it again finds nothing
    assert api.delete(f"/ledgers/{ledger}", headers={"If-Match": "*"}).status == 404


def test_nothing_names_a_deleted_ledger_but_its_tombstone_not_even_its_invitations(api: Client, store: Store) -> None:
    # Given a household its editor joined by an invitation, with another invitation nobody used yet
    ledger, _ = _household(api)
    used = api.post(f"/ledgers/{ledger}/invitations", {"role": "viewer"}).json["token"]
    viewer = Client(f"viewer-{uuid.uuid4().hex[:8]}")
    assert viewer.post(f"/invitations/{used}/accept").status == 200
    unused = api.post(f"/ledgers/{ledger}/invitations", {"role": "editor"}).json["token"]
    assert naming(table_items(store), used, unused), "the invitations are stored"
    # When its owner deletes it
    deleted = _deleted(api, f"/ledgers/{ledger}", _etag(api, ledger))
    assert deleted.status == 202 and deleted.json["state"] == "deleted", deleted
    # Then a scan of the whole table finds nothing that names the ledger but its tombstone
    left = naming(table_items(store), ledger)
    assert [(i["PK"], i["SK"]) for i in left] == [(tombstone_pk(ledger), META_SK)], left
    # And nothing holds its invitations' tokens any more (the invitations, and wherever they were listed)
    assert naming(table_items(store), used, unused) == []
    # And the one nobody used is unknown now, not merely spent
    assert Client(f"late-{uuid.uuid4().hex[:8]}").post(f"/invitations/{unused}/accept").status == 404


def test_only_its_owner_may_delete_a_ledger_and_only_at_its_version(
    api: Client, other_api: Client, store: Store
) -> None:
    # Given a household with an editor
    ledger, editor = _household(api)
    before = list(store.core.query(SharedLedger(ledger)))
    # When the editor, a stranger, a stale version and no version at all try to delete it
    # Then 403, 404, 412 and 428, and nothing is gone
    assert editor.delete(f"/ledgers/{ledger}", headers=_etag(api, ledger)).status == 403
    assert other_api.delete(f"/ledgers/{ledger}", headers={"If-Match": "*"}).status == 404
    assert api.delete(f"/ledgers/{ledger}", headers={"If-Match": '"7"'}).status == 412
    assert api.delete(f"/ledgers/{ledger}").status == 428
    assert api.delete("/ledgers/me", headers={"If-Match": "*"}).status == 409
    assert list(store.core.query(SharedLedger(ledger))) == before
    assert store.core.get_at(tombstone_pk(ledger), META_SK) is None


def test_a_deletion_that_stops_between_batches_is_resumed_and_finished_once(
    api: Client, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a household, and a deletion that removes ten items a batch and stops after the second
    ledger, editor = _household(api)
    monkeypatch.setattr(dataio, "DELETE_PAGE", 10)
    real = DeletionOps.delete_items
    batches: list[int] = []

    def crashing(self: DeletionOps, led: str, sks: Any) -> None:
        if len(batches) == 2:
            raise RuntimeError("the function stopped")
        batches.append(len(sks))
        real(self, led, sks)

    monkeypatch.setattr(DeletionOps, "delete_items", crashing)
    with pytest.raises(RuntimeError):
        dataio.delete_ledger(store, str(api.user), ledger, expected=None)
    # Then the ledger already answers 404 to its members, and its tombstone says it is being deleted
    assert editor.get(f"/ledgers/{ledger}/slips").status == 404
    tomb = store.core.get_at(tombstone_pk(ledger), META_SK)
    assert tomb is not None and (tomb["state"], tomb["items"]) == ("deleting", 20)
    # When its owner deletes it again
    monkeypatch.setattr(DeletionOps, "delete_items", real)
    finished = count_finishes(monkeypatch)
    again = _deleted(api, f"/ledgers/{ledger}", {"If-Match": "*"})
    # Then the deletion carries on after what was removed, finishes once, and nothing is left
    assert again.status == 202 and again.json["state"] == "deleted", again
    assert finished == [True]
    _gone(api, editor, store, ledger)


# A deletion run in a process of its own: ten items a batch, and after the second batch it says so
# and waits (for the kill) before removing more.
_STALLING_DELETION = """
import sys, time
from kakeibo.services import dataio
from kakeibo.store import get_store
from kakeibo.store.deletion import DeletionOps
dataio.DELETE_PAGE = 10
real, batches = DeletionOps.delete_items, []
def stalling(self, ledger, sks):
    if len(batches) == 2:
        print("purging", flush=True)
        time.sleep(600)
    batches.append(len(sks))
    real(self, ledger, sks)
DeletionOps.delete_items = stalling
dataio.delete_ledger(get_store(), sys.argv[1], sys.argv[2], expected=None)
"""


def test_a_deletion_killed_mid_purge_is_finished_once_by_the_daily_job(
    api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = own_store
    # Given a household whose deletion runs in a process of its own
    ledger, editor = _household(api)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    command = [sys.executable, "-c", _STALLING_DELETION, str(api.user), ledger]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    # When that process is killed with -9 in the middle of the purge (two batches removed)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "purging"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    tomb = store.core.get_at(tombstone_pk(ledger), META_SK)
    assert tomb is not None and (tomb["state"], tomb["items"]) == ("deleting", 20)
    assert editor.get(f"/ledgers/{ledger}/slips").status == 404
    # Then while its lease runs, the daily job leaves it to the run that holds it
    daily.post_due(store)
    assert (store.core.get_at(tombstone_pk(ledger), META_SK) or {})["state"] == "deleting"
    # When the lease has expired and nobody came back to it, the daily job runs (twice)
    expire_leases(monkeypatch)
    finished = count_finishes(monkeypatch)
    daily.post_due(store)
    daily.post_due(store)
    # Then it carried the deletion on after what was removed and finished it once: nothing is left
    assert finished == [True]
    _gone(api, editor, store, ledger)
    assert (store.core.get_at(tombstone_pk(ledger), META_SK) or {})["items"] > 20
