"""What reaches the bucket after a ledger's deletion: a receipt PUT through a link signed before it,
an archive completed by an export's builder that had not yet noticed, an archive to restore uploaded
late. The deletion itself cannot see them (they arrive after its purge); once every such link has
expired, the daily job lists the deleted ledger's prefixes, deletes what it finds, aborts the
uploads still open, and then leaves the ledger alone for good."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import pytest
import requests

from kakeibo import blobs
from kakeibo.services import daily, dataio
from kakeibo.settings import utc_now
from kakeibo.store import Store
from kakeibo.store.keys import META_SK, gone_pk, tombstone_pk
from kakeibo.store.recurrences import DUE_SK
from tests.events import Client, Reply
from tests.receipts import receipt_body, stored_receipt

LATE = b"\xff\xd8\xff\xe0" + b"receipt: a late upload " * 30
ARCHIVE = b"an archive uploaded to be restored"


def _signed(api: Client, base: str, data: bytes) -> dict[str, Any]:
    """A receipt of `data` claimed in the ledger at `base`: its upload (link and headers), not yet used."""
    claimed = api.post(f"{base}/receipts", receipt_body(data))
    assert claimed.status == 201, claimed
    return dict(claimed.json["upload"])


def _put(upload: dict[str, Any], data: bytes) -> None:
    put = requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30)
    assert put.status_code == 200, put.text


def _open_uploads(prefix: str) -> list[str]:
    from kakeibo.settings import get_settings

    found = blobs._client().list_multipart_uploads(Bucket=get_settings().receipts_bucket, Prefix=prefix)
    return [u["Key"] for u in found.get("Uploads", [])]


def _deleted(api: Client, path: str, headers: dict[str, str] | None = None) -> Reply:
    reply = api.delete(path, headers=headers)
    while reply.status == 202 and reply.json["state"] == "deleting":
        reply = api.delete(path, headers={"If-Match": "*"} if headers else None)
    assert reply.json["state"] == "deleted", reply
    return reply


def _later(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock moved past the last moment an upload link signed before the deletion could be used."""
    moved = utc_now() + dt.timedelta(seconds=dataio.LATE_SECONDS + 60)
    monkeypatch.setattr(dataio, "utc_now", lambda: moved)


def _sweeps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, each prefix the bucket is swept under."""
    swept: list[str] = []
    real = blobs.delete_under

    def counting(prefix: str, **kwargs: Any) -> bool:
        swept.append(prefix)
        return real(prefix, **kwargs)

    monkeypatch.setattr(blobs, "delete_under", counting)
    return swept


def test_a_receipt_and_an_archive_that_reach_the_bucket_after_a_ledger_s_deletion_are_swept_once(
    api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = own_store
    # Given a shared ledger whose member was given a receipt's upload link, and the owner's own ledger
    # with a stored receipt
    ledger = api.post("/ledgers", {"name": "山田家"}).json["id"]
    upload = _signed(api, f"/ledgers/{ledger}", LATE)
    kept = hashlib.sha256(b"the owner's own receipt").hexdigest()
    stored_receipt(api, b"the owner's own receipt")
    # When the ledger is deleted, and only then the receipt is PUT through its link, an export's
    # builder completes its archive and another's upload is left open
    etag = api.get(f"/ledgers/{ledger}").etag or ""
    _deleted(api, f"/ledgers/{ledger}", {"If-Match": etag})
    late_receipt = blobs.key_of(ledger, hashlib.sha256(LATE).hexdigest())
    late_archive = blobs.export_key(ledger, "built-late")
    _put(upload, LATE)
    blobs.write(late_archive, b"the last part", content_type=blobs.ARCHIVE_TYPE)
    blobs.open_upload(blobs.export_key(ledger, "still-open"))
    # Then while the links may still be used, the daily job leaves the bucket alone
    swept = _sweeps(monkeypatch)
    daily.post_due(store)
    assert swept == [] and blobs.read(late_receipt) == LATE
    # When they have expired and the daily job runs (twice)
    _later(monkeypatch)
    daily.post_due(store)
    daily.post_due(store)
    # Then what reached the bucket late is gone, and the open upload aborted, in one sweep of the
    # ledger's prefixes
    assert swept == [blobs.receipts_of(ledger), blobs.exports_of(ledger)]
    assert blobs.read(late_receipt) is None and blobs.read(late_archive) is None
    assert _open_uploads(blobs.exports_of(ledger)) == []
    # And the tombstone says so and has left the due index; the owner's own receipt is untouched
    tomb = store.core.get_at(tombstone_pk(ledger), META_SK) or {}
    assert tomb["state"] == "deleted" and tomb["swept_at"] and DUE_SK not in tomb and "sweep_after" not in tomb
    assert blobs.read(blobs.key_of(str(api.user), kept)) == b"the owner's own receipt"


def test_what_a_person_uploads_after_deleting_their_data_is_swept_once_the_links_expire(
    api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = own_store
    # Given a person given a receipt's upload link and an archive's, to restore
    upload = _signed(api, "", LATE)
    sha = hashlib.sha256(ARCHIVE).hexdigest()
    restore = api.post("/ledgers/restore", {"sha256": sha, "size": len(ARCHIVE)})
    assert restore.status == 202, restore
    # When they delete their data, and only then both are uploaded
    _deleted(api, "/me")
    _put(upload, LATE)
    _put(restore.json["upload"], ARCHIVE)
    late_receipt = blobs.key_of(str(api.user), hashlib.sha256(LATE).hexdigest())
    assert blobs.read(late_receipt) == LATE
    # And the daily job runs once the links have expired (twice)
    swept = _sweeps(monkeypatch)
    _later(monkeypatch)
    daily.post_due(store)
    daily.post_due(store)
    # Then neither is left, the person's three prefixes were swept once, and the tombstone is done
    assert blobs.read(late_receipt) is None and blobs.read(blobs.restore_key(str(api.user), sha)) is None
    user = str(api.user)
    assert swept == [blobs.receipts_of(user), blobs.exports_of(user), blobs.restores_of(user)]
    tomb = store.core.get_at(gone_pk(user), META_SK) or {}
    assert tomb["state"] == "deleted" and tomb["swept_at"] and DUE_SK not in tomb


def test_a_sweep_the_bucket_does_not_answer_stays_due_and_is_done_by_the_next_run(
    api: Client, own_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = own_store
    # Given a deleted ledger with a receipt that arrived late, its links expired
    ledger = api.post("/ledgers", {"name": "実家"}).json["id"]
    upload = _signed(api, f"/ledgers/{ledger}", LATE)
    _deleted(api, f"/ledgers/{ledger}", {"If-Match": "*"})
    _put(upload, LATE)
    _later(monkeypatch)
    # When the bucket does not answer the daily job's sweep
    real = blobs.delete_under

    def unanswered(prefix: str, **kwargs: Any) -> bool:
        from kakeibo import errors

        raise errors.StorageUnavailable(blobs.UNAVAILABLE, retry_after=blobs.RETRY_SECONDS)

    monkeypatch.setattr(blobs, "delete_under", unanswered)
    daily.post_due(store)
    # Then the ledger stays due; the next run, answered, sweeps it
    assert DUE_SK in (store.core.get_at(tombstone_pk(ledger), META_SK) or {})
    monkeypatch.setattr(blobs, "delete_under", real)
    daily.post_due(store)
    assert blobs.read(blobs.key_of(ledger, hashlib.sha256(LATE).hexdigest())) is None
    assert DUE_SK not in (store.core.get_at(tombstone_pk(ledger), META_SK) or {})
