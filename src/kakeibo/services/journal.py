"""The ledger journal: changes since a seq (delta sync), a slip's history, and undo.

Every change transaction writes one journal entry (store/journal.py), so these read it: `changes`
answers entries in seq order with the knowledge a client keeps; `slip_history` follows one slip's
identity through its entries; `undo` applies the inverse of one entry in one transaction, through
the same create, change and delete paths every other write uses, conditioned on every entity still
being where that entry left it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from kakeibo import errors
from kakeibo.models import AccountPatch, BudgetIn, SlipIn
from kakeibo.services import accounts as account_service
from kakeibo.services import budgets as budget_service
from kakeibo.services import recurrences as recurrence_service
from kakeibo.services import slips as slip_service
from kakeibo.services.common import now_iso, valid_id
from kakeibo.services.slips import SLIP_FIELDS
from kakeibo.store import Item, Store, WriteContext, account_sk, entry_changes, identity_sk, recurrence_sk, slip_sk

MAX_CHANGES = 500  # entries per page of GET /changes
ACCOUNT_FIELDS = ("name", "allow_negative", "archived", "billing")
UNDOABLE = ("slip", "account", "budget", "recurrence")


def entry_view(item: Item) -> dict[str, Any]:
    """A journal entry as the API answers it."""
    view: dict[str, Any] = {
        "seq": int(item["seq"]),
        "at": item["at"],
        "by": item.get("by"),
        "origin": item.get("origin", "api"),
        "request_id": item.get("request_id"),
        "changes": entry_changes(item),
    }
    if "undone_by" in item:
        view["undone_by"] = int(item["undone_by"])
    if "undoes" in item:
        view["undoes"] = int(item["undoes"])
    return view


def parse_since(value: str | None) -> int:
    """`since` as a seq: a whole number (0: from the start)."""
    if value is None:
        return 0
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise errors.BadRequest("'since' must be a whole number (a seq a previous answer gave as knowledge)")
    return int(text)


def changes(store: Store, ledger: str, *, since: int, limit: int) -> dict[str, Any]:
    """GET /changes: the entries after `since`, in order; `knowledge` is the last seq answered (the
    head when none), and `has_more` says whether more follow it. One Query; the head is read only
    when nothing follows `since` (to tell "up to date" from "beyond the head")."""
    found = [entry_view(item) for item in store.journal_entries(ledger, after=since, limit=limit + 1)]
    if not found:
        head = store.journal_head(ledger)
        if since > head:
            raise errors.BadRequest(f"'since' is after the last change ({head})", since=since, head=head)
        return {"changes": [], "knowledge": since, "has_more": False}
    more = len(found) > limit
    found = found[:limit]
    return {"changes": found, "knowledge": found[-1]["seq"], "has_more": more}


def _entries(store: Store, ledger: str) -> Iterator[Item]:
    return store.journal_entries(ledger, after=0)


def slip_history(store: Store, ledger: str, slip_id: str) -> dict[str, Any]:
    """A slip's whole life across moves and deletes: who changed which fields, when. Read from the
    entries its identity lists (one read per 100); a slip whose list does not go back to its
    creation (written before identities kept one) is looked for in the whole journal."""
    identity = store.get(ledger, identity_sk(slip_id)) if valid_id(slip_id) else None
    if identity is None:
        raise errors.NotFound("slip not found")
    entries: Iterable[Item]
    if identity.get("changes_complete"):
        entries = store.entries_of(ledger, [int(seq) for seq in identity.get("changes", [])])
    else:
        entries = _entries(store, ledger)
    items = []
    for entry in entries:
        for change in entry_changes(entry):
            if change["type"] != "slip" or change["id"] != slip_id:
                continue
            before, after = change.get("before") or {}, change.get("after") or {}
            changed = {
                name: [before.get(name), after.get(name)] for name in SLIP_FIELDS if before.get(name) != after.get(name)
            }
            items.append(
                {
                    "seq": int(entry["seq"]),
                    "at": entry["at"],
                    "by": entry.get("by"),
                    "origin": entry.get("origin", "api"),
                    "op": change["op"],
                    "version": change.get("version"),
                    "date": (after or before).get("date"),
                    "changed": changed,
                }
            )
    return {"id": slip_id, "items": items}


def check(store: Store, ledger: str) -> dict[str, Any]:
    """verify's look at the journal: replayed, every slip, account, budget and recurrence it names is
    as its last entry left it (entities from before the journal are not in it)."""
    state: dict[tuple[str, str], dict[str, Any] | None] = {}
    count = 0
    for entry in _entries(store, ledger):
        count += 1
        for change in entry_changes(entry):
            if change["type"] in UNDOABLE:
                state[(change["type"], change["id"])] = change.get("after")
    mismatches = []
    for (kind, entity), replayed in sorted(state.items()):
        actual = _record(store, ledger, kind, entity)
        if actual != replayed:
            mismatches.append({"type": kind, "id": entity, "journal": replayed, "actual": actual})
    return {"entries": count, "head": store.journal_head(ledger), "mismatches": mismatches[:100]}


def _record(store: Store, ledger: str, kind: str, entity: str) -> dict[str, Any] | None:
    """An entity's public view as the journal records it, read from the ledger now."""
    if kind == "slip":
        identity = store.get(ledger, identity_sk(entity))
        if identity is None or identity.get("deleted"):
            return None
        item = store.get(ledger, slip_sk(identity["date"], entity))
        return slip_service.slip_view(item) if item else None
    if kind == "account":
        return account_service.account_record(store.get(ledger, account_sk(entity)))
    if kind == "budget":
        month, category = entity.split("/", 1)
        return budget_service.budget_record(store.budget_item(ledger, month, category))
    return recurrence_service.recurrence_record(store.get(ledger, recurrence_sk(entity)))


# ---- undo -------------------------------------------------------------------------------------


def undo(store: Store, ctx: WriteContext, seq: int) -> dict[str, Any]:
    """POST /changes/{seq}/undo: the inverse of entry `seq`, in one transaction (an import batch or a
    recurring post as a whole), conditioned on every entity being where that entry left it."""
    entry = store.journal_entry(ctx.ledger, seq) if seq >= 1 else None
    if entry is None:
        raise errors.NotFound("change not found")
    if "undone_by" in entry:
        raise errors.AlreadyUndone("this change was already undone", undone_by=int(entry["undone_by"]))
    found = entry_changes(entry)
    if any(c["type"] == "settlement" for c in found):
        raise errors.NotUndoable("a settlement is not undone; record the opposite settlement instead")
    if any(c["type"] not in UNDOABLE for c in found):
        raise errors.NotUndoable(
            "changes to members, invitations, webhooks, rules and the ledger are not undone; make them again instead"
        )
    undo_ctx = ctx.as_origin("undo")
    if len(found) == 1:
        _undo_one(store, undo_ctx, found[0], seq)
    else:
        _undo_batch(store, undo_ctx, found, seq)
    # the undo's own transaction marked the entry it undid with its seq
    undone = store.journal_entry(ctx.ledger, seq) or {}
    made = store.journal_entry(ctx.ledger, int(undone.get("undone_by", 0)))
    return {"undone": seq, "entry": entry_view(made) if made else None}


def _moved_on(kind: str, entity: str, current: int | None, expected: int | None) -> errors.ApiError:
    return errors.VersionMismatch(
        f"{kind} '{entity}' changed since that entry", entity=kind, id=entity, current=current, expected=expected
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


def _current_slip(store: Store, ledger: str, slip_id: str, expected: int) -> Item:
    """The slip as it is now, if it is still at `expected` (the version the entry left)."""
    identity = store.get(ledger, identity_sk(slip_id))
    if identity is None or identity.get("deleted"):
        raise _moved_on("slip", slip_id, int(identity["version"]) if identity else None, expected)
    current = store.get(ledger, slip_sk(identity["date"], slip_id))
    if current is None or int(current["version"]) != expected:
        raise _moved_on("slip", slip_id, int(current["version"]) if current else None, expected)
    return current


def _undo_slip(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    slip_id, after, before = change["id"], change.get("after"), change.get("before")
    if change["op"] == "create" and after is not None:
        current = _current_slip(store, ctx.ledger, slip_id, int(after["version"]))
        slip_service.remove_slip(store, ctx, current, expected=int(after["version"]), undoes=seq)
        return
    if change["op"] == "update" and after is not None and before is not None:
        current = _current_slip(store, ctx.ledger, slip_id, int(after["version"]))
        body = SlipIn.model_validate({k: before[k] for k in SLIP_FIELDS if before.get(k) is not None})
        slip_service.write_slip(
            store, ctx, current, body, expected=int(after["version"]), undoes=seq, shares_mode=before.get("shares_mode")
        )
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
    current = store.get(ctx.ledger, account_sk(account))
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
    current = store.budget_item(ctx.ledger, month, category)
    seen = int(current.get("budget_version", 0)) if current else 0
    expected = int(change["version"])
    if seen != expected:
        raise _moved_on("budget", change["id"], seen, expected)
    if before is None:
        budget_service.delete_budget(store, ctx, month, category, expected=expected, undoes=seq)
    else:
        body = BudgetIn(limit=int(before["limit"]), strict=bool(before["strict"]))
        budget_service.put_budget(
            store, ctx, month, category, body=body, expected=expected, if_match=after is not None, undoes=seq
        )


def _undo_recurrence(store: Store, ctx: WriteContext, change: dict[str, Any], seq: int) -> None:
    before = change.get("before")
    recurrence_id = str(change["id"])
    current = store.get(ctx.ledger, recurrence_sk(recurrence_id))
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
    """An import batch or a recurring post: slip creations undone together, in one transaction."""
    if any(c["type"] != "slip" or c["op"] != "create" or c.get("after") is None for c in found):
        raise errors.NotUndoable("this entry undid nothing that can be undone")
    current = [_current_slip(store, ctx.ledger, c["id"], int(c["after"]["version"])) for c in found]
    slip_service.remove_slips(store, ctx, current, undoes=seq, at=now_iso())


__all__ = ["MAX_CHANGES", "changes", "entry_view", "parse_since", "slip_history", "undo"]
