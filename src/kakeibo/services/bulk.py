"""Bulk edits of slips (§28): `POST /slips/bulk`, many slips changed (or deleted) under their versions.

Each slip is named with the version the caller read; it is changed only if it is still at that
version, and refused otherwise (stale), as are the slips a reconciliation summed when the change
would break it (reconciled), slips the ledger itself posted (forbidden: a points lapse), slips that
are gone (not_found) and slips that cannot take the change (invalid). The rest are written in
batches, each ONE transaction through the slips' own change and delete paths (every balance and
tag rollup in it) and ONE journal entry naming the bulk edit; each batch also records, in the
same transaction, which slips it changed (store/bulk.py). So the same request resent with its
Idempotency-Key carries on from what is recorded, never changing a slip twice; and one undo of any
of its entries takes back the whole bulk edit (services/undo.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core import posting
from kakeibo.core.ids import derived_id, new_slip_id
from kakeibo.core.tags import MAX_TAGS, TagProblem, edited
from kakeibo.core.units import JPY
from kakeibo.models.tags import BulkIn, BulkSlip
from kakeibo.services import slips as slip_service
from kakeibo.services.common import now_iso
from kakeibo.services.facets import reconciliation
from kakeibo.store import GUARD_ITEMS, JOURNAL_ITEMS, Item, Store, WriteContext, index_items_changed
from kakeibo.store.bulk import BulkMoved

BATCH = 25  # slips per transaction at most
TX_ITEMS = 100 - GUARD_ITEMS - JOURNAL_ITEMS - 1  # what a batch may write besides its record of progress
READ = 100  # slips read at once


@dataclass
class _Outcome:
    changed: list[dict[str, Any]]
    unchanged: list[dict[str, Any]]
    refused: dict[str, dict[str, Any]]


class _Stale(errors.Conflict):
    """A slip of the batch was not at the version read when it committed: read the batch again."""

    def __init__(self) -> None:
        super().__init__("a slip changed meanwhile")


def bulk_id_of(token: str | None) -> str:
    """The bulk edit's id: derived from its Idempotency-Key (the same request resent finds its record)."""
    return derived_id(f"bulk/{token}") if token else new_slip_id()


def bulk_edit(store: Store, ctx: WriteContext, body: BulkIn, *, token: str | None) -> dict[str, Any]:
    bulk_id = bulk_id_of(token)
    if body.set is not None and body.set.account is not None:
        _check_account(store, ctx.ledger, body.set.account)
    refs: dict[str, BulkSlip] = {}
    for ref in body.slips:  # a slip named twice is one slip
        refs.setdefault(ref.id, ref)
    record = store.bulk.bulk_record(ctx.ledger, bulk_id) or {}
    out = _Outcome([_row(row) for row in record.get("changed") or []], [], {})
    seen, entries = int(record.get("n", 0)), [int(s) for s in record.get("entries") or []]
    done = {row["id"] for row in out.changed}
    pending = [ref for ref in refs.values() if ref.id not in done]
    at = now_iso()
    for start in range(0, len(pending), READ):
        chunk = pending[start : start + READ]
        work = _prepare(store, ctx, chunk, body, at=at, out=out)
        while work:
            batch, work = _fit(work, delete=bool(body.delete))
            seq = _commit(store, ctx, bulk_id, batch, seen=seen, at=at, delete=bool(body.delete), out=out)
            if seq is None:
                continue
            seen += 1
            entries.append(seq)
    changed = [
        {"id": row["id"], "date": row["date"], "version": row.get("version"), "seq": int(row["seq"])}
        for row in out.changed
    ]
    return {
        "bulk": bulk_id,
        "changed": changed,
        "unchanged": out.unchanged,
        "refused": list(out.refused.values()),
        "entries": entries,
    }


def _row(stored: Any) -> dict[str, Any]:
    """A changed slip as the record keeps it (numbers as ints)."""
    version = stored.get("version")
    return {"id": str(stored["id"]), "date": str(stored["date"]), "version": None if version is None else int(version),
            "seq": int(stored["seq"])}  # fmt: skip


def _check_account(store: Store, ledger: str, account: str) -> None:
    """The account every slip moves to: one that exists, is open and counts in yen."""
    found = store.accounts.account(ledger, account)
    if found is None or found.get("archived") or (found.get("unit") or JPY) != JPY:
        reason = "does not exist" if found is None else "is archived" if found.get("archived") else "is not in yen"
        message = f"account '{account}' {reason}"
        raise errors.ValidationFailed(message, errors=[{"loc": ["body", "set", "account"], "msg": message}])


def _refuse(out: _Outcome, ref: BulkSlip, reason: str, **more: Any) -> None:
    out.refused[ref.id] = {"id": ref.id, "date": ref.date, "reason": reason, **more}


Work = tuple[BulkSlip, Item, Item | None]  # the slip named, as read, as it becomes (None: deleted)


def _prepare(
    store: Store, ctx: WriteContext, refs: list[BulkSlip], body: BulkIn, *, at: str, out: _Outcome
) -> list[Work]:
    """The slips of `refs` read (one consistent BatchGetItem), each refused, unchanged or made into its
    new item."""
    found = store.slips.slips_at(ctx.ledger, [(ref.date, ref.id) for ref in refs])
    work: list[Work] = []
    for ref in refs:
        current = found.get((ref.date, ref.id))
        if current is None:
            _refuse(out, ref, "not_found")
        elif int(current["version"]) != ref.version:
            _refuse(out, ref, "stale", current=int(current["version"]))
        elif current.get("lapse_of"):
            _refuse(out, ref, "forbidden", detail="a points lapse is posted and changed by the ledger itself")
        else:
            try:
                new = _changed(store, ctx, current, body, at)
            except errors.Reconciled:
                _refuse(out, ref, "reconciled")
                continue
            except errors.ApiError as exc:
                _refuse(out, ref, "invalid", detail=exc.detail)
                continue
            if body.delete or new is not None:
                work.append((ref, current, new))
            else:
                out.unchanged.append({"id": ref.id, "date": ref.date, "version": ref.version})
    return work


def _changed(store: Store, ctx: WriteContext, current: Item, body: BulkIn, at: str) -> Item | None:
    """What `current` becomes (None: deleted, or nothing changes for a `set`)."""
    wanted = body.set
    if body.delete or wanted is None:
        reconciliation.check(current, None)
        return None
    patch: dict[str, Any] = {}
    for name in ("category", "subcategory", "payee", "account", "cleared"):
        value = getattr(wanted, name)
        if value is not None:
            patch[name] = value
    if "category" in patch and current.get("lines"):
        raise errors.ValidationFailed("a split slip's categories are on its lines: change it by itself")
    if wanted.tags_add is not None or wanted.tags_remove is not None:
        try:
            tags = edited(current.get("tags") or (), wanted.tags_add or (), wanted.tags_remove or ())
        except TagProblem:
            raise errors.ValidationFailed(f"a slip holds at most {MAX_TAGS} tags") from None
        patch["tags"] = list(tags) or None
    if "account" in patch and (store.accounts.account(ctx.ledger, current["account"]) or {}).get("unit") not in (
        None,
        JPY,
    ):
        raise errors.ValidationFailed("a slip of an account in another unit is moved by itself")
    new = slip_service.merge_patch(current, patch)
    reconciliation.check(current, new)
    return slip_service.changed_item(store, ctx, current, new, at=at)


def _size(current: Item, new: Item | None) -> int:
    """About how many items a slip's change adds to a transaction: the slip and its identity, the
    balance items it moves, its index items, its receipts (a delete) and its points lots."""
    moved = len(posting.plan(slip_service.entry_of(current), slip_service.entry_of(new) if new else None).changes)
    index = len(index_items_changed(current, new))
    receipts = 0 if new is not None else len(current.get("receipts") or ())
    return 2 + moved + index + receipts + 2  # and the accounts' checks, the points lots


def _fit(work: list[Work], *, delete: bool) -> tuple[list[Work], list[Work]]:
    """The first batch of `work` that fits one transaction, and the rest."""
    size, n = 0, 0
    for _, current, new in work[:BATCH]:
        more = _size(current, new)
        if n and size + more > TX_ITEMS:
            break
        size, n = size + more, n + 1
    return work[:n], work[n:]


def _commit(
    store: Store,
    ctx: WriteContext,
    bulk_id: str,
    batch: list[Work],
    *,
    seen: int,
    at: str,
    delete: bool,
    out: _Outcome,
) -> int | None:
    """One batch in one transaction, recorded as the bulk's batch `seen + 1`: its seq. A slip of it
    that moved meanwhile is refused as stale and the rest tried again (None when none is left)."""
    while batch:
        rows = [
            {"id": ref.id, "date": ref.date, "version": None if new is None else int(new["version"])}
            for ref, _, new in batch
        ]
        more = store.bulk.bulk_progress(ctx.ledger, bulk_id, seen=seen, rows=rows, at=at)
        stale: Callable[[Item | None], errors.ApiError] = lambda old: _Stale()  # noqa: E731
        try:
            if delete:
                seq = slip_service.remove_slips(
                    store, ctx, [current for _, current, _ in batch], undoes=None, at=at, stale=stale,
                    group=bulk_id, more=more,
                )  # fmt: skip
            else:
                pairs = [(current, new) for _, current, new in batch if new is not None]
                seq = slip_service.write_slips(store, ctx, pairs, stale=stale, group=bulk_id, more=more)
        except _Stale:
            batch = _still_current(store, ctx, batch, out)
            continue
        except BulkMoved:
            raise errors.Conflict("this bulk edit is being applied by another request; retry", retry_after=1) from None
        except errors.Reconciled:
            batch = _still_current(store, ctx, batch, out, reconciled=True)
            continue
        out.changed += [{**row, "seq": seq} for row in rows]
        return seq
    return None


def _still_current(
    store: Store, ctx: WriteContext, batch: list[Work], out: _Outcome, *, reconciled: bool = False
) -> list[Work]:
    """The slips of `batch` still at the version they were read at (consistent reads); the others
    refused (stale, or gone). A batch a reconciliation refused: each reconciled slip refused."""
    found = store.slips.slips_read_again(ctx.ledger, [current for _, current, _ in batch])
    kept = []
    for ref, current, new in batch:
        now = found.get((str(current["date"]), str(current["id"])))
        if now is None:
            _refuse(out, ref, "not_found")
        elif int(now["version"]) != int(current["version"]):
            _refuse(out, ref, "stale", current=int(now["version"]))
        elif reconciled and reconciliation.is_reconciled(now):
            _refuse(out, ref, "reconciled")
        else:
            kept.append((ref, current, new))
    if len(kept) == len(batch):  # nothing of it moved: what refused it is no slip's version
        raise errors.Conflict("the slips could not be changed; retry", retry_after=1)
    return kept
