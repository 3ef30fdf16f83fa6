"""Receipts stored once (docs/receipts.md): a photo or PDF uploaded straight to S3 under its sha256,
exactly once however often the upload is retried or raced, then attached to slips.

- claim: the receipt item is the lock. A caller takes it with a lease (LEASE_SECONDS) and gets a
  presigned PUT that only writes those bytes (size, type and checksum signed) and only once
  (If-None-Match: *). Another caller meanwhile gets 409 upload_in_progress until the lease ends;
  the holder asking again (a retry whose answer was lost) gets its upload again, under a fresh
  lease; a stored receipt is answered as it is (200), with nothing to upload.
- complete: the object is checked (it exists, its size, its sha256) before the receipt counts as
  stored. Bytes that are not the ones declared are deleted and refused (422): the receipt stays
  pending and its lease can be taken over.
- A stored receipt on no slip for SWEEP_AFTER is deleted by the daily job: first retired (no slip
  can take it up from then on), then its object, then its item, so a crash between them leaves a
  retired item the next run finishes, never an object nobody can find nor a slip whose receipt has
  no bytes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import blobs, errors
from kakeibo.models.receipts import ReceiptIn
from kakeibo.settings import get_settings, utc_now
from kakeibo.store import Bookkeeping, Item, Store, WriteContext
from kakeibo.store.receipts import RETIRED, Claimed

LEASE_SECONDS = 300
DOWNLOAD_SECONDS = 300
SWEEP_AFTER = dt.timedelta(hours=24)
SHA256_CHARS = frozenset("0123456789abcdef")


def _iso(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sweep_day(instant: dt.datetime) -> str:
    """The day whose daily run (00:05 in the ledger's time zone) may sweep a receipt on no slip
    since `instant`: the day after the one SWEEP_AFTER later, so that at least that long has passed."""
    later = (instant + SWEEP_AFTER).astimezone(get_settings().time_zone).date()
    return (later + dt.timedelta(days=1)).isoformat()


def receipt_view(ledger: str, item: Item, *, upload: dict[str, Any] | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item["id"],
        "state": item["state"],
        "size": int(item["size"]),
        "content_type": item["content_type"],
        "slips": sorted(item.get("slips") or []),
        "created_at": item["created_at"],
        "stored_at": item.get("stored_at"),
    }
    if upload is not None:
        view["upload"] = upload
        view["expires_at"] = _iso(dt.datetime.fromtimestamp(int(item["lease_until"]) / 1000, dt.UTC))
    if item["state"] == "stored":
        expires = utc_now() + dt.timedelta(seconds=DOWNLOAD_SECONDS)
        url = blobs.download_url(blobs.key_of(str(ledger), item["id"]), expires=DOWNLOAD_SECONDS)
        view["download"] = {"url": url, "expires_at": _iso(expires)}
    return view


def claim(store: Store, ctx: WriteContext, body: ReceiptIn) -> tuple[int, dict[str, Any]]:
    """POST /receipts: (201, the receipt with its upload) for the caller who takes the lease; (200,
    the receipt) when it is stored already."""
    now = utc_now()
    lease_until = now + dt.timedelta(seconds=LEASE_SECONDS)
    item: Item = {
        "type": "receipt",
        "id": body.sha256,
        "state": "pending",
        "size": body.size,
        "content_type": body.content_type,
        "lease_until": int(lease_until.timestamp() * 1000),
        "created_at": _iso(now),
        "created_by": ctx.actor,
        "refs": 0,
    }
    try:
        store.receipts.claim_receipt(
            Bookkeeping(ctx.ledger, ctx.guard), item, now_ms=int(now.timestamp() * 1000), sweep_after=sweep_day(now)
        )
    except Claimed as taken:
        current = taken.item
        if current is not None and current.get("state") == "stored":
            return 200, receipt_view(ctx.ledger, current)
        wait = max(1, (int((current or {}).get("lease_until", 0)) - int(now.timestamp() * 1000)) // 1000 + 1)
        raise errors.UploadInProgress(
            "another upload of this receipt is in progress; retry when its lease ends", retry_after=wait
        ) from None
    url, headers = blobs.upload_url(
        blobs.key_of(str(ctx.ledger), body.sha256),
        size=body.size,
        content_type=body.content_type,
        sha256=body.sha256,
        expires=LEASE_SECONDS,
    )
    return 201, receipt_view(ctx.ledger, item, upload={"url": url, "method": "PUT", "headers": headers})


def _read(store: Store, ledger: str, receipt_id: str) -> Item:
    found = store.receipts.read_receipt(ledger, receipt_id) if _valid(receipt_id) else None
    if found is None or found["state"] == RETIRED:  # a retired receipt is being swept: gone
        raise errors.NotFound("receipt not found")
    return found


def _valid(receipt_id: str) -> bool:
    return len(receipt_id) == 64 and set(receipt_id) <= SHA256_CHARS


def complete(store: Store, ctx: WriteContext, receipt_id: str) -> dict[str, Any]:
    """POST /receipts/{id}/complete: the object checked, the receipt stored. Idempotent."""
    item = _read(store, ctx.ledger, receipt_id)
    if item["state"] == "stored":
        return receipt_view(ctx.ledger, item)
    key = blobs.key_of(str(ctx.ledger), receipt_id)
    found = blobs.find(key, int(item["size"]))
    if found is None:
        raise errors.UploadMissing("the receipt's bytes are not uploaded yet: PUT them to its upload URL first")
    if found.size != int(item["size"]) or found.sha256 != receipt_id:
        blobs.delete(key)  # not the bytes declared: gone, so that the right ones can be written
        raise errors.ChecksumMismatch(
            "the uploaded bytes are not the ones declared (size or sha256); upload the file again",
            size=found.size,
        )
    at = _iso(utc_now())
    if store.receipts.mark_stored(Bookkeeping(ctx.ledger, ctx.guard), receipt_id, at=at):
        return receipt_view(ctx.ledger, {**item, "state": "stored", "stored_at": at})
    return receipt_view(ctx.ledger, _read(store, ctx.ledger, receipt_id))  # completed by another call


def get_receipt(store: Store, ledger: str, receipt_id: str) -> dict[str, Any]:
    return receipt_view(ledger, _read(store, ledger, receipt_id))


def sweep(store: Store, ledger: str, receipt_id: str, until: dt.date) -> bool:
    """The daily job's turn for one receipt the due index lists: deleted (True) if it is on no slip
    and was due by `until`; kept out of the index if a slip holds it."""
    item = store.receipts.read_receipt(ledger, receipt_id)
    if item is None:
        return False
    due = str(item.get("DueSK", "")).split("#", 1)[0]
    if not due or due > until.isoformat():
        return False
    if int(item.get("refs", 0)) > 0:
        store.receipts.keep_receipt(Bookkeeping(ledger), receipt_id)
        return False
    # retired first (no slip can take it up from then on), then the object, then the item: a crash
    # anywhere leaves a retired item the next run finishes, never an attached receipt without bytes
    if not store.receipts.retire_receipt(Bookkeeping(ledger), receipt_id):
        return False  # a slip took it up meanwhile
    blobs.delete(blobs.key_of(str(ledger), receipt_id))
    return store.receipts.forget_receipt(Bookkeeping(ledger), receipt_id)
