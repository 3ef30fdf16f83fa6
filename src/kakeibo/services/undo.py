"""Undo of one journal entry: the inverse of its changes in one transaction, through the same
create, change and delete paths every other write uses, conditioned on every entity still being
where that entry left it (POST /changes/{seq}/undo)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from kakeibo import errors
from kakeibo.core import reconcile
from kakeibo.models.accounts import AccountPatch
from kakeibo.models.budgets import BudgetIn
from kakeibo.models.slips import SlipIn
from kakeibo.services import accounts as account_service
from kakeibo.services import budgets as budget_service
from kakeibo.services import recurrences as recurrence_service
from kakeibo.services import slips as slip_service
from kakeibo.services.common import now_iso
from kakeibo.services.journal import UNDOABLE, entry_view
from kakeibo.store import Item, Store, WriteContext, entry_changes

ACCOUNT_FIELDS = ("name", "allow_negative", "archived", "billing", "low_balance")


def undo(store: Store, ctx: WriteContext, seq: int) -> dict[str, Any]:
    """POST /changes/{seq}/undo: the inverse of entry `seq`, in one transaction (an import batch or a
    recurring post as a whole), conditioned on every entity being where that entry left it."""
    entry = store.journal.journal_entry(ctx.ledger, seq) if seq >= 1 else None
    if entry is None:
        raise errors.NotFound("change not found")
    if entry.get("bulk"):  # a batch of a bulk edit: the whole bulk edit is undone
        return _undo_bulk(store, ctx, entry, seq)
    if "undone_by" in entry:
        raise errors.AlreadyUndone("this change was already undone", undone_by=int(entry["undone_by"]))
    found = entry_changes(entry)
    if any(c["type"] == "alert" for c in found):
        raise errors.NotUndoable("an alert is not undone; dismiss it instead")
    if any(c["type"] == "settlement" for c in found):
        raise errors.NotUndoable("a settlement is not undone; record the opposite settlement instead")
    if len(found) == 1 and found[0]["type"] == "reconciliation":  # its slips back to cleared, in batches
        from kakeibo.services import reconciliations  # noqa: PLC0415

        reconciliations.undo(store, ctx.as_origin("undo"), found[0], seq)
        return _undone(store, ctx, seq)
    if any(c["type"] not in UNDOABLE for c in found):
        raise errors.NotUndoable(
            "changes to members, invitations, webhooks, rules and the ledger are not undone; make them again instead"
        )
    undo_ctx = ctx.as_origin("undo")
    try:
        if len(found) == 1:
            try:
                _undo_one(store, undo_ctx, found[0], seq)
            except errors.UndoRefused:
                raise
            except errors.VersionMismatch as exc:  # it moved between the read and the write
                current, expected = exc.context.get("current"), exc.context.get("expected")
                raise _moved_on(found[0]["type"], str(found[0]["id"]), current, expected) from exc
        else:
            _undo_batch(store, undo_ctx, found, seq)
    except ValidationError as exc:  # read before anything is written: the undo writes nothing
        raise errors.NotUndoable(NO_LONGER_VALID) from exc
    return _undone(store, ctx, seq)


# What the entry left is validated as a request before the undo writes: a state the API no longer
# accepts (a slip, account or budget written under other rules) is refused, never half put back.
NO_LONGER_VALID = "what this entry changed is no longer valid as it was before it; change it again instead"


def _undone(store: Store, ctx: WriteContext, seq: int) -> dict[str, Any]:
    # the undo's own transaction marked the entry it undid with its seq
    undone = store.journal.journal_entry(ctx.ledger, seq) or {}
    made = store.journal.journal_entry(ctx.ledger, int(undone.get("undone_by", 0)))
    return {"undone": seq, "entry": entry_view(made) if made else None}


def _moved_on(kind: str, entity: str, current: int | None, expected: int | None, **more: Any) -> errors.ApiError:
    return errors.UndoRefused(
        f"{kind} '{entity}' changed since that entry",
        entity=kind,
        id=entity,
        current=current,
        expected=expected,
        **more,
    )


def _undo_one(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    kind = change["type"]
    if kind == "slip":
        _undo_slip(store, ctx, change, seq)
    elif kind == "account":
        _undo_account(store, ctx, change, seq)
    elif kind == "budget":
        _undo_budget(store, ctx, change, seq)
    else:
        _undo_recurrence(store, ctx, change, seq)


def _current_slip(store: Store, ledger: str, slip_id: str, expected: int, left: dict[str, Any] | None = None) -> Item:
    """The slip as it is now, if it is still at `expected` (the version the entry left, `left`)."""
    identity = store.slips.slip_identity(ledger, slip_id)
    if identity is None or identity.get("deleted"):
        raise _moved_on("slip", slip_id, int(identity["version"]) if identity else None, expected)
    current = store.slips.slip(ledger, identity["date"], slip_id)
    if current is None or int(current["version"]) != expected:
        since = _reconciled_since(current, left) if current is not None else None
        more = {"reconciled_by": since} if since else {}
        raise _moved_on("slip", slip_id, int(current["version"]) if current else None, expected, **more)
    return current


def _reconciled_since(current: Item, left: dict[str, Any] | None) -> str | None:
    """The reconciliation that reconciled a side of slip `current` that the entry (`left`: the slip
    as it left it) did not show reconciled: what moved the slip on, to be undone first."""
    for role in ("account", "to_account"):
        _, state, by = reconcile.side_fields(role)
        if current.get(state) == reconcile.RECONCILED and (left or {}).get(state) != reconcile.RECONCILED:
            return str(current.get(by)) if current.get(by) else None
    return None


def _undo_slip(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    slip_id, after, before = change["id"], change.get("after"), change.get("before")
    if change["op"] == "create" and after is not None:
        current = _current_slip(store, ctx.ledger, slip_id, int(after["version"]), after)
        slip_service.remove_slip(store, ctx, current, slip_service.SlipWrite(int(after["version"]), undoes=seq))
        return
    if change["op"] == "update" and after is not None and before is not None:
        current = _current_slip(store, ctx.ledger, slip_id, int(after["version"]), after)
        body = SlipIn.model_validate(slip_service.request_of(before, current))
        how = slip_service.SlipWrite(int(after["version"]), undoes=seq, shares_mode=before.get("shares_mode"))
        slip_service.write_slip(store, ctx, current, body, how)
        return
    if change["op"] == "delete" and before is not None:
        slip_service.restore_slip(store, ctx, before, tombstone=int(change["version"]), undoes=seq)
        return
    raise errors.NotUndoable("this entry undid nothing that can be undone")


def _undo_account(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    after, before = change.get("after"), change.get("before")
    if change["op"] != "update" or after is None or before is None:
        raise errors.NotUndoable("an account's creation is not undone; archive the account instead")
    account = str(change["id"])
    current = store.accounts.account(ctx.ledger, account)
    expected = int(after["version"])
    if current is None or int(current["version"]) != expected:
        raise _moved_on("account", account, int(current["version"]) if current else None, expected)
    fields = AccountPatch.model_validate({k: before[k] for k in ACCOUNT_FIELDS if k in before}).model_dump(
        exclude_unset=True
    )
    account_service.change_account(store, ctx, current, fields, expected=expected, undoes=seq)


def _undo_budget(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    after, before = change.get("after"), change.get("before")
    month, category = str(change["id"]).split("/", 1)
    current = store.budgets.budget_item(ctx.ledger, month, category)
    seen = int(current.get("budget_version", 0)) if current else 0
    expected = int(change["version"])
    if seen != expected:
        raise _moved_on("budget", change["id"], seen, expected)
    if before is None:
        budget_service.delete_budget(store, ctx, month, category, expected=expected, undoes=seq)
    else:
        body = BudgetIn(
            limit=int(before["limit"]), strict=bool(before["strict"]), rollover=bool(before.get("rollover", False))
        )
        budget_service.put_budget(
            store, ctx, month, category, body=body, expected=expected, if_match=after is not None, undoes=seq
        )


def _undo_recurrence(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    before = change.get("before")
    recurrence_id = str(change["id"])
    current = store.recurrences.read_recurrence(ctx.ledger, recurrence_id)
    expected = int(change["version"])
    found = int(current["version"]) if current else None
    if change["op"] == "delete":
        if current is not None:
            raise _moved_on("recurrence", recurrence_id, found, None)
        recurrence_service.restore_recurrence(store, ctx, before or {}, undoes=seq)
    elif found != expected:
        raise _moved_on("recurrence", recurrence_id, found, expected)
    elif change["op"] == "create":
        recurrence_service.remove_recurrence(store, ctx, recurrence_id, version=expected, undoes=seq)
    else:
        patch = {"slip": (before or {})["slip"], "rule": (before or {})["rule"], "shift": (before or {})["shift"]}
        recurrence_service.redefine(store, ctx, recurrence_id, patch, version=expected, undoes=seq)


def _undo_batch(store: Store, ctx: WriteContext, found: list[dict[str, Any]], seq: int) -> None:
    """An import batch or a recurring post: slip creations undone together, in one transaction; a
    batch of rules applied: its slips back as they were, together, in one transaction."""
    if all(c["type"] == "slip" and c["op"] == "update" and c.get("after") and c.get("before") for c in found):
        _undo_slip_changes(store, ctx, found, seq)
        return
    if any(c["type"] != "slip" or c["op"] != "create" or c.get("after") is None for c in found):
        raise errors.NotUndoable("this entry undid nothing that can be undone")
    current = [_current_slip(store, ctx.ledger, c["id"], int(c["after"]["version"]), c["after"]) for c in found]
    slip_service.remove_slips(store, ctx, current, undoes=seq, at=now_iso())


def _undo_slip_changes(store: Store, ctx: WriteContext, found: list[dict[str, Any]], seq: int) -> None:
    """Slip changes of one entry (rules applied to a batch) reversed in one transaction, each slip
    only if it is still at the version that entry left."""
    at = now_iso()
    pairs = []
    for change in found:
        before, expected = change["before"], int(change["after"]["version"])
        current = _current_slip(store, ctx.ledger, change["id"], expected, change["after"])
        body = SlipIn.model_validate(slip_service.request_of(before, current))
        new = slip_service.changed_item(store, ctx, current, body, at=at)
        if new is not None:
            pairs.append((current, new))
    if not pairs:
        raise errors.NotUndoable("this entry undid nothing that can be undone")

    def moved_on(old: Item | None) -> errors.ApiError:
        slip_id = str((old or {}).get("id", ""))
        return _moved_on("slip", slip_id, int(old["version"]) if old else None, None)

    slip_service.write_slips(store, ctx, pairs, undoes=seq, stale=moved_on)


def _undo_bulk(store: Store, ctx: WriteContext, entry: Item, seq: int) -> dict[str, Any]:
    """Every batch of the bulk edit `entry` is one of, undone: each in one transaction, the last batch
    first, conditioned as every undo on its slips being where the batch left them; every slip of every
    batch not yet undone is checked before anything is written (412 naming the first that moved)."""
    record = store.bulk.bulk_record(ctx.ledger, str(entry["bulk"])) or {}
    seqs = sorted({int(s) for s in record.get("entries") or []} | {seq})
    pending = [e for e in store.journal.entries_of(ctx.ledger, seqs) if "undone_by" not in e]
    if not pending:
        raise errors.AlreadyUndone("this change was already undone", undone_by=int(entry.get("undone_by", 0)))
    for batch in pending:
        for change in entry_changes(batch):
            _still_as_left(store, ctx.ledger, change)
    undo_ctx = ctx.as_origin("undo")
    made = []
    for batch in reversed(pending):
        found, batch_seq = entry_changes(batch), int(batch["seq"])
        if all(c["op"] == "delete" and c.get("before") for c in found):
            views = [(c["before"], int(c["version"])) for c in found]
            slip_service.restore_slips(store, undo_ctx, views, undoes=batch_seq)
        else:
            _undo_slip_changes(store, undo_ctx, found, batch_seq)
        made.append(int((store.journal.journal_entry(ctx.ledger, batch_seq) or {}).get("undone_by", 0)))
    result = _undone(store, ctx, seq)
    return {**result, "entries": sorted(made)}


def _still_as_left(store: Store, ledger: str, change: dict[str, Any]) -> None:
    """The slip of a bulk edit's change is still where the change left it (412 otherwise)."""
    slip_id = str(change["id"])
    if change["op"] == "delete":
        identity = store.slips.slip_identity(ledger, slip_id)
        if identity is None or not identity.get("deleted") or int(identity["version"]) != int(change["version"]):
            current = int(identity["version"]) if identity else None
            raise _moved_on("slip", slip_id, current, int(change["version"]))
        return
    _current_slip(store, ledger, slip_id, int(change["after"]["version"]), change["after"])
