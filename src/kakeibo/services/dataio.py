"""A ledger's data as a whole: its export into one archive (core/archive.py) on S3, and an archive
restored into a new ledger.

An export is built batch by batch under the ledger's `export` lease: a page of items at a time is
written into the current part (a receipt's bytes right after its item); a part is uploaded and
recorded (store/exports.py) once it is large enough for S3's multipart upload, the last one with
the archive's end line, and then the upload is completed. Time running out, or the function
stopping, loses at most the part being written: the next run (POST .../exports again, which takes
up the export still building rather than starting another) continues after the last recorded part
and writes the same bytes again. Each part number is written and recorded once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from typing import Any

from kakeibo import blobs, errors
from kakeibo.core import archive
from kakeibo.core.ids import new_slip_id
from kakeibo.models.dataio import RestoreIn
from kakeibo.services.access import OWNERS, PERSONAL, SHARED_ID_RE, open_ledger
from kakeibo.services.common import TimeLeft
from kakeibo.services.receipts import LEASE_SECONDS as RECEIPT_LINK_SECONDS
from kakeibo.settings import get_settings, utc_now
from kakeibo.store import Bookkeeping, Change, Item, SharedLedger, Store, WriteContext, get_token_store
from kakeibo.store.exports import BUILDING, READY, ExportUnderWay
from kakeibo.store.ledgers import listed_invitation
from kakeibo.store.locks import Lease
from kakeibo.store.receipts import receipt_of
from kakeibo.store.restores import ArchiveItemsRefused, restorable

LOCK = "export"
LEASE_SECONDS = 120.0
PAGE = 200  # items read per query
MIN_PART = 5 * 1024 * 1024  # S3's smallest part of a multipart upload (all but the last)
MARGIN = 8.0  # seconds kept back when the runtime says how many are left
DOWNLOAD_SECONDS = 900


def _iso(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def export_view(ledger: str, item: Item) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item["id"],
        "state": item["state"],
        "requested_at": item["requested_at"],
        "requested_by": item["requested_by"],
        "updated_at": item.get("updated_at"),
        "items": int(item.get("items", 0)),
        "receipts": int(item.get("receipts", 0)),
        "parts": len(json.loads(item["parts"])),
        "download": None,
    }
    if item["state"] == READY:
        expires = utc_now() + dt.timedelta(seconds=DOWNLOAD_SECONDS)
        url = blobs.download_url(item["key"], expires=DOWNLOAD_SECONDS)
        view["download"] = {"url": url, "expires_at": _iso(expires)}
    return view


def get_export(store: Store, ledger: str, export_id: str) -> dict[str, Any]:
    found = store.exports.read_export(ledger, export_id) if _valid(export_id) else None
    if found is None:
        raise errors.NotFound("not found")
    return export_view(ledger, found)


def _valid(export_id: str) -> bool:
    return 1 <= len(export_id) <= 64 and export_id.isascii() and export_id.isalnum()


def start_export(
    store: Store, ctx: WriteContext, *, time_left: TimeLeft | None = None, export_id: str | None = None
) -> dict[str, Any]:
    """Build the ledger's archive, as far as time allows: the export still building if there is one
    (so that running it again resumes it), else a new one. Owners only (the route's scope)."""
    book = Bookkeeping(ctx.ledger, ctx.guard)
    building = store.exports.exports_building(ctx.ledger)
    if building:
        export = building[0]
    else:
        export_id = export_id or uuid.uuid4().hex
        export = {
            "id": export_id,
            "requested_at": _iso(utc_now()),
            "requested_by": ctx.actor,
            "key": blobs.export_key(str(ctx.ledger), export_id),
        }
        try:
            store.exports.export_started(book, export)
        except ExportUnderWay as other:  # a racing request started one first: that one is built
            export = {"id": other.export_id}
        else:
            export = store.exports.read_export(ctx.ledger, export_id) or export
    return export_view(ctx.ledger, build(store, book, export["id"], time_left=time_left))


def build(store: Store, book: Bookkeeping, export_id: str, *, time_left: TimeLeft | None = None) -> Item:
    """Continue the export `export_id` under the ledger's export lease: the export as it is after.
    Another process holding the lease is building it: then it is left to them."""
    try:
        lease = store.locks.acquire_lock(book.ledger, LOCK, LEASE_SECONDS)
    except errors.Locked:
        return _read(store, book.ledger, export_id)
    try:
        return _build(store, book, lease, export_id, time_left)
    finally:
        store.locks.release_lock(lease)


def _read(store: Store, ledger: str, export_id: str) -> Item:
    found = store.exports.read_export(ledger, export_id)
    if found is None:
        raise errors.NotFound("not found")
    return found


def _build(store: Store, book: Bookkeeping, lease: Lease, export_id: str, time_left: TimeLeft | None) -> Item:
    ledger = book.ledger
    export = _read(store, ledger, export_id)
    if export["state"] != BUILDING:
        return export
    key = str(export["key"])
    if not export.get("upload_id"):
        upload_id = blobs.open_upload(key)
        store.exports.export_upload_opened(book, lease, export_id, upload_id)
        export = {**export, "upload_id": upload_id}
    upload_id = str(export["upload_id"])
    stored: list[dict[str, Any]] = json.loads(export["parts"])
    if stored and (done := blobs.read(key)) is not None:  # completed by a run that stopped before recording it
        return _completed_before(store, book, lease, export, done)
    number = len(stored) + 1
    items, receipts = int(export.get("items", 0)), int(export.get("receipts", 0))
    after: str | None = export.get("cursor")
    writer = archive.PartWriter(number)
    if number == 1:
        writer.add(archive.header(str(ledger), str(export["requested_at"])))
    while True:
        if time_left is not None and time_left() < MARGIN:
            return export  # the part being written is written again by the next run
        page, after = store.exports.data_page(ledger, after=after, limit=PAGE)
        for item in page:
            writer.add(archive.item_line(item))
            items += 1
            sha = receipt_of(str(item["SK"]["S"]))
            if sha is not None and item.get("state") == {"S": "stored"}:
                data = blobs.read(blobs.key_of(str(ledger), sha))
                if data is not None:
                    writer.add(archive.receipt_line(sha, data))
                    receipts += 1
        last = after is None
        if not last and writer.size < MIN_PART:
            continue
        body = writer.finish() + (archive.encode_end(number, items, receipts) if last else b"")
        etag = blobs.upload_part(key, upload_id, number, body)
        if etag is None:  # completed by a run that stopped before recording it
            return _completed_before(store, book, lease, export, blobs.read(key))
        if last:
            parts = [*stored, {"PartNumber": number, "ETag": etag}]
            blobs.complete_upload(key, upload_id, parts)
        export = store.exports.export_part_stored(
            book, lease, export, etag=etag, cursor=after, items=items, receipts=receipts, at=_iso(utc_now()), ready=last
        )
        if last:
            return export
        stored = json.loads(export["parts"])
        number += 1
        writer = archive.PartWriter(number)
        lease = store.locks.renew_lock(lease, LEASE_SECONDS) or _lost()


def _lost() -> Lease:
    raise errors.Conflict("the export lock was lost before the work was done; retry", retry_after=1)


def _completed_before(store: Store, book: Bookkeeping, lease: Lease, export: Item, data: bytes | None) -> Item:
    """The upload was completed but not recorded: the archive it made is read back, and recorded
    with the parts it was sealed in."""
    if data is None:
        raise errors.Conflict("the export's upload is gone; start another export", retry_after=1)
    found = archive.read(data)
    return store.exports.export_part_stored(
        book,
        lease,
        export,
        etag="",
        cursor=None,
        count=found.parts,
        items=len(found.items),
        receipts=len(found.receipts),
        at=_iso(utc_now()),
        ready=True,
    )


# ---- restoring an archive into a new ledger -----------------------------------------------------

RESTORE_UPLOAD_SECONDS = 900
RESTORED_NAME = "復元した家計簿"
PROGRESS_EVERY = 500  # items written between two records of how far a restore got


def restore_view(item: Item, *, upload: dict[str, Any] | None = None, expires: str | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item["id"],
        "state": item["state"],
        "size": int(item["size"]),
        "upload": upload,
        "expires_at": expires,
        "ledger": None,
        "items": int(item.get("items", 0)),
        "receipts": int(item.get("receipts", 0)),
    }
    if item["state"] == "restored":
        view["ledger"] = {"id": item["ledger"], "name": item["name"], "role": "owner", "version": 1}
    return view


def restore(
    store: Store, user: str, body: RestoreIn, *, time_left: TimeLeft | None = None, request_id: str | None = None
) -> tuple[int, dict[str, Any]]:
    """POST /ledgers/restore: the caller's restore of the archive `body.sha256`, as far as it gets.
    (202, pending with an upload) until the archive is uploaded; then it is checked whole (422
    naming what is wrong, nothing created) and written into a new ledger of which the caller is the
    owner: (201, restored with the ledger), or (202, restoring) when time ran out (POST again). A
    restore already done answers (200, restored): one archive makes one ledger while that ledger is
    the caller's. Once it is deleted (or they are no longer in it), the archive is restored anew, as
    the first time: (202, pending) with an upload, then into another new ledger (an id is never used
    again)."""
    record = store.restores.read_restore(user, body.sha256)
    key = blobs.restore_key(user, body.sha256)
    if (
        record is not None
        and record["state"] == "restored"
        and store.ledgers.member(str(record["ledger"]), user) is None
    ):
        store.restores.restore_reopened(user, body.sha256, ledger=str(record["ledger"]))  # the ledger it made is gone
        record = None
    if record is None:
        fresh = {"id": body.sha256, "size": body.size, "created_at": _iso(utc_now())}
        if store.restores.restore_claimed(user, fresh):  # nothing can be uploaded yet
            return 202, _upload(key, {**fresh, "state": "pending"})
        record = store.restores.read_restore(user, body.sha256) or {**fresh, "state": "pending"}
    if record["state"] == "restored":
        return 200, restore_view(record)
    data = blobs.read(key)
    if record["state"] == "pending":
        if data is None:
            return 202, _upload(key, record)
        found, items, name = _checked(store, user, record, data)
        ledger_id = new_slip_id()
        name = body.name or name or RESTORED_NAME
        if not store.restores.restore_begun(user, body.sha256, ledger_id=ledger_id, name=name, at=_iso(utc_now())):
            record = store.restores.read_restore(user, body.sha256) or record
            if record["state"] == "restored":
                return 200, restore_view(record)
        else:
            record = {**record, "state": "restoring", "ledger": ledger_id, "name": name}
    else:
        if data is None:  # restored already by a request that had not yet recorded it: it is read back
            record = store.restores.read_restore(user, body.sha256) or record
            if record["state"] == "restored":
                return 200, restore_view(record)
            raise errors.Conflict("the archive being restored is gone; restore it again", retry_after=1)
        found, items, _ = _checked(store, user, record, data)
    return _write_restore(store, user, record, found, items, time_left=time_left, request_id=request_id)


def _upload(key: str, record: Item) -> dict[str, Any]:
    url, headers = blobs.upload_url(
        key,
        size=int(record["size"]),
        content_type=blobs.ARCHIVE_TYPE,
        sha256=str(record["id"]),
        expires=RESTORE_UPLOAD_SECONDS,
    )
    expires = _iso(utc_now() + dt.timedelta(seconds=RESTORE_UPLOAD_SECONDS))
    return restore_view(record, upload={"url": url, "method": "PUT", "headers": headers}, expires=expires)


def _checked(
    store: Store, user: str, record: Item, data: bytes
) -> tuple[archive.Archive, list[dict[str, Any]], str | None]:
    """The archive read and checked whole, with the items a new ledger takes from it and the ledger's
    name. A refused archive is deleted with its pending restore (nothing is kept) and answered 422."""
    try:
        if len(data) != int(record["size"]) or hashlib.sha256(data).hexdigest() != record["id"]:
            raise archive.ArchiveProblem("the uploaded file is not the one declared (its size or sha256 differ)")
        found = archive.read(data)
        items, name = restorable(found.ledger, found.items)
    except (archive.ArchiveProblem, ArchiveItemsRefused) as problem:
        if record["state"] == "pending":
            blobs.delete(blobs.restore_key(user, str(record["id"])))
            store.restores.restore_forgotten(user, str(record["id"]))
        raise errors.ArchiveRefused(problem.reason, reason=problem.reason) from None
    return found, items, name


def _write_restore(
    store: Store,
    user: str,
    record: Item,
    found: archive.Archive,
    items: list[dict[str, Any]],
    *,
    time_left: TimeLeft | None,
    request_id: str | None,
) -> tuple[int, dict[str, Any]]:
    """The archive's receipts and items written into the restore's ledger after what earlier requests
    recorded, then the ledger made the caller's with its first journal entry."""
    sha, ledger = str(record["id"]), SharedLedger(str(record["ledger"]))
    done_items, done_receipts = int(record.get("items", 0)), int(record.get("receipts", 0))
    kept = {held for i in items if (held := receipt_of(str(i["SK"]["S"]))) is not None}
    receipts = sorted(r for r in found.receipts if r in kept)
    for number, receipt in enumerate(receipts[done_receipts:], done_receipts + 1):
        if time_left is not None and time_left() < MARGIN:
            store.restores.restore_progress(user, sha, items=done_items, receipts=number - 1)
            return 202, restore_view({**record, "items": done_items, "receipts": number - 1})
        blobs.write(
            blobs.key_of(str(ledger), receipt), found.receipts[receipt], content_type="application/octet-stream"
        )
    done_receipts = len(receipts)
    while done_items < len(items):
        if time_left is not None and time_left() < MARGIN:
            store.restores.restore_progress(user, sha, items=done_items, receipts=done_receipts)
            return 202, restore_view({**record, "items": done_items, "receipts": done_receipts})
        batch = items[done_items : done_items + PROGRESS_EVERY]
        store.restores.restore_items(ledger, found.ledger, batch)
        done_items += len(batch)
    at = _iso(utc_now())
    name = str(record["name"])
    ctx = WriteContext.founding(str(ledger), user, request_id=request_id)
    origin = {"ledger": found.ledger, "exported_at": found.exported_at, "archive": sha}
    changes = [
        Change.between(
            "ledger", str(ledger), None, {"id": str(ledger), "name": name, "version": 1, "restored_from": origin}
        ),
        Change.between("member", user, None, {"user": user, "role": "owner", "version": 1}),
    ]
    try:
        store.restores.restore_finished(
            ctx, sha, name=name, at=at, changes=changes, items=done_items, receipts=done_receipts
        )
    except errors.Conflict:
        again = store.restores.read_restore(user, sha)
        if again is not None and again["state"] == "restored":
            return 200, restore_view(again)
        raise
    blobs.delete(blobs.restore_key(user, sha))
    return 201, restore_view({**record, "state": "restored", "items": done_items, "receipts": done_receipts})


# ---- deleting a shared ledger -------------------------------------------------------------------

DELETE_LOCK = "delete"
# How long after a deletion an object of it may still reach the bucket: the longest-lived upload
# link (an archive to restore, RESTORE_UPLOAD_SECONDS; a receipt's is shorter), and then the longest
# a function runs (Lambda's 15 minutes: an export's builder completing its last part).
LATE_SECONDS = max(RESTORE_UPLOAD_SECONDS, RECEIPT_LINK_SECONDS) + 900
DELETE_PAGE = 100  # items removed between two records of how far a deletion got
RECORDS_PAGE = 1000  # Idempotency-Key records read between two records of how far the search got


def tombstone_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["ledger"],
        "state": item["state"],
        "deleted_by": item["deleted_by"],
        "requested_at": item["requested_at"],
        "deleted_at": item.get("deleted_at"),
        "items": int(item.get("items", 0)),
    }


def delete_ledger(
    store: Store, user: str, ledger: str, *, expected: int | None, time_left: TimeLeft | None = None
) -> dict[str, Any]:
    """DELETE /ledgers/{ledger} (owners): at once every member loses the ledger (404 from then on),
    then every item of it and every receipt and export object goes, page by page under the ledger's
    delete lease, as far as time allows. The same owner's DELETE again carries on a deletion that
    stopped; a tombstone (who, when) is all that stays."""
    tomb = store.deletion.read_tombstone(ledger) if SHARED_ID_RE.match(ledger) else None
    if tomb is not None:
        if tomb["state"] == "deleting" and tomb["deleted_by"] == user:
            return tombstone_view(_purge(store, ledger, tomb, time_left))
        raise errors.NotFound("not found")
    if ledger == PERSONAL:
        raise errors.PersonalLedger("your personal ledger is removed with DELETE /me, not here")
    access = open_ledger(store, user, ledger, OWNERS)
    members = store.ledgers.members(str(access.key))
    tomb = store.deletion.deletion_started(ledger, user, members=members, expected=expected, at=_iso(utc_now()))
    return tombstone_view(_purge(store, ledger, tomb, time_left))


def _tombstone(store: Store, ledger: str) -> Item | None:
    """The tombstone of `ledger`: a SharedLedger's, or a person's (a plain `sub`)."""
    if isinstance(ledger, SharedLedger):
        return store.deletion.read_tombstone(str(ledger))
    return store.deletion.read_person_tombstone(ledger)


def _purge(store: Store, ledger_id: str, tomb: Item, time_left: TimeLeft | None, *, personal: bool = False) -> Item:
    """Every item of the ledger and every object of it gone, page by page under its delete lease,
    as far as time allows: `ledger_id` a shared ledger's id, or (`personal`) the `sub` whose
    personal ledger it is. The tombstone as it is after."""
    ledger: str = ledger_id if personal else SharedLedger(ledger_id)
    try:
        lease = store.locks.acquire_lock(ledger, DELETE_LOCK, LEASE_SECONDS)
    except errors.Locked:
        return _tombstone(store, ledger) or tomb  # another request is deleting it
    removed = 0
    try:
        while True:
            if time_left is not None and time_left() < MARGIN:
                return {**(_tombstone(store, ledger) or tomb)}
            page = store.deletion.deletion_page(ledger, limit=DELETE_PAGE)
            if not page:
                break
            for item in page:  # the objects first: an item is never gone while its object stays
                if (sha := receipt_of(str(item["SK"]))) is not None:
                    blobs.delete(blobs.key_of(ledger_id, sha))
                elif item.get("type") == "export" and item.get("key"):
                    blobs.delete(str(item["key"]))
                elif (token := listed_invitation(item)) is not None:  # the invitation, wherever listed
                    store.ledgers.invitation_removed(token, ledger=ledger)
            store.deletion.delete_items(ledger, [str(item["SK"]) for item in page])
            store.deletion.deletion_progress(ledger, lease, items=len(page))
            removed += len(page)
            lease = store.locks.renew_lock(lease, LEASE_SECONDS) or _lost_deletion()
        store.deletion.other_leases_removed(lease)  # a lease left behind is no data, but it would stay
        if personal:
            store.deletion.fence_emptied(ledger)
        now = utc_now()
        store.deletion.deletion_finished(
            ledger, at=_iso(now), sweep_after=_iso(now + dt.timedelta(seconds=LATE_SECONDS))
        )
    finally:
        store.locks.release_lock(lease)
    return _tombstone(store, ledger) or tomb


def finish_deletion(store: Store, ledger: str, *, time_left: TimeLeft | None = None) -> str:
    """The daily job's part: a deletion whose run stopped (its lease expired, no request carrying
    it on) carried on and finished, once, as far as time allows; and, once every upload link signed
    before a deletion has expired, the objects that still reached the bucket removed
    (`_sweep_late`). `ledger` a SharedLedger (DELETE /ledgers/{ledger}), or a person's `sub`
    (DELETE /me, every step of it). A run still holding the lease is left to it. The deletion's
    state after."""
    shared = isinstance(ledger, SharedLedger)
    tomb = store.deletion.read_tombstone(str(ledger)) if shared else store.deletion.read_person_tombstone(ledger)
    if tomb is None:
        return "deleted"
    if tomb["state"] == "deleted":
        if "sweep_after" in tomb and _sweep_late(ledger, str(tomb["sweep_after"]), time_left):
            store.deletion.late_objects_swept(ledger, at=_iso(utc_now()))
        return "deleted"
    if shared:
        return str(_purge(store, str(ledger), tomb, time_left)["state"])
    return str(delete_me(store, ledger, time_left=time_left)["state"])


def _sweep_late(ledger: str, after: str, time_left: TimeLeft | None) -> bool:
    """The objects of a deleted ledger that reached the bucket after its purge (a receipt PUT
    through a link signed before, an export's last part completed by a builder that had not yet
    noticed, a person's archive to restore), and the uploads still open under it, gone: once it is
    `after`, when no such link or builder can write any more. True when nothing of it is left;
    False when it is not yet time, or time ran out (the next run goes on)."""
    if utc_now() < dt.datetime.fromisoformat(after):
        return False
    name = str(ledger)
    prefixes = [blobs.receipts_of(name), blobs.exports_of(name)]
    if not isinstance(ledger, SharedLedger):
        prefixes.append(blobs.restores_of(name))
    for prefix in prefixes:
        if not blobs.delete_under(prefix, enough=lambda: time_left is not None and time_left() < MARGIN):
            return False
    return True


def _lost_deletion() -> Lease:
    raise errors.Conflict("the delete lock was lost before the work was done; retry", retry_after=1)


# ---- deleting a person's data (DELETE /me) ------------------------------------------------------


def delete_me(store: Store, user: str, *, time_left: TimeLeft | None = None) -> dict[str, Any]:
    """DELETE /me: the caller's data deleted (個人情報保護法). Refused (409 naming the ledgers) while
    they are the only owner of a shared ledger others are members of. Otherwise their person's
    tombstone is written once, naming the shared ledgers they are the only member of; they leave
    every other shared ledger (their webhooks there disabled, as any removal does); those ledgers
    are deleted as DELETE /ledgers/{ledger} deletes one; then their personal ledger goes, every
    item and receipt object of it, by the same machinery. As far as time allows: DELETE /me again
    carries on where a run stopped, and finishes once."""
    from kakeibo.services.ledgers import remove_member  # noqa: PLC0415

    tomb = store.deletion.read_person_tombstone(user)
    if tomb is not None and tomb["state"] == "deleted":
        return tombstone_view(tomb)
    alone, leaving, blocking = _memberships_of(store, user)
    if blocking:
        names = "、".join(f"{b['name']} ({b['id']})" for b in blocking)
        raise errors.SoleOwner(f"you are the only owner of {names}: hand it over or delete it first",
                               ledgers=blocking)  # fmt: skip
    if tomb is None:
        tomb = store.deletion.person_deletion_started(user, ledgers=alone, at=_iso(utc_now()))
    store.deletion.person_fenced(user, at=str(tomb["requested_at"]))  # no change is written into it again
    for ledger in leaving:
        try:
            remove_member(store, user, ledger, user, expected=None)
        except errors.NotFound:  # left meanwhile
            continue
    for ledger in tomb.get("ledgers") or []:
        try:
            gone = delete_ledger(store, user, str(ledger), expected=None, time_left=time_left)
        except errors.NotFound:  # deleted before
            continue
        if gone["state"] != "deleted":
            return tombstone_view(store.deletion.read_person_tombstone(user) or tomb)
    if not _forget_person(store, user, tomb, time_left):
        return tombstone_view(store.deletion.read_person_tombstone(user) or tomb)
    return tombstone_view(_purge(store, user, tomb, time_left, personal=True))


def _forget_person(store: Store, user: str, tomb: Item, time_left: TimeLeft | None) -> bool:
    """What a person's data also is, outside their ledgers: their restores (the records, and any
    archive still uploaded), the invitations they made or used (in the ledgers they left, before or
    now: each names them) and their Idempotency-Key records (which keep the answers they were
    given), read page by page from their own partition of the records' table, how far recorded in
    the tombstone. Gone, as far as time allows: False when it ran out (the next run goes on). Their
    personal access tokens go first: none of them works again."""
    get_token_store().delete_all_of(user)
    for sha in store.deletion.restores_of(user):
        blobs.delete(blobs.restore_key(user, sha))
        store.deletion.restore_removed(user, sha)
    for token in store.ledgers.person_invitations(user):  # those they made or used, in whichever ledger
        store.ledgers.invitation_removed(token, person=user)
    recorded = (store.deletion.read_person_tombstone(user) or tomb).get("records_after")
    if recorded == "done":
        return True
    after: dict[str, Any] | None = json.loads(recorded) if recorded else None
    table = get_settings().idempotency_table_name
    while True:
        if time_left is not None and time_left() < MARGIN:
            return False
        _, after = store.deletion.idempotency_records_forgotten(table, user, after=after, limit=RECORDS_PAGE)
        store.deletion.person_records_progress(user, after)
        if after is None:
            return True


def _memberships_of(store: Store, user: str) -> tuple[list[str], list[str], list[dict[str, str]]]:
    """The caller's shared ledgers: (those they are the only member of, those they leave, those they
    are the only owner of while others are members)."""
    alone: list[str] = []
    leaving: list[str] = []
    blocking: list[dict[str, str]] = []
    for membership in store.ledgers.memberships(user):
        ledger = str(membership["ledger"])
        members = store.ledgers.members(ledger)
        others = [m for m in members if m["user"] != user]
        owners = [m for m in others if m["role"] == "owner"]
        if not others:
            alone.append(ledger)
        elif membership["role"] == "owner" and not owners:
            meta = store.ledgers.ledger_meta(ledger) or {}
            blocking.append({"id": ledger, "name": str(meta.get("name", ""))})
        else:
            leaving.append(ledger)
    return alone, leaving, blocking
