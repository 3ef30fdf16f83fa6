"""The ledger journal's reads: changes since a seq (delta sync) and a slip's history.

Every change transaction writes one journal entry (store/journal.py), so these read it: `changes`
answers entries in seq order with the knowledge a client keeps; `slip_history` follows one slip's
identity through its entries. Undoing an entry is services/undo.py; verify's replay of the journal
is services/integrity.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from kakeibo import errors
from kakeibo.services.common import valid_id
from kakeibo.services.slips import SLIP_FIELDS
from kakeibo.store import Item, Store, entry_changes

MAX_CHANGES = 500  # entries per page of GET /changes
UNDOABLE = ("slip", "account", "budget", "recurrence")  # the entities an entry's undo restores


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
    if item.get("bulk"):
        view["bulk"] = item["bulk"]
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
    found = [entry_view(item) for item in store.journal.journal_entries(ledger, after=since, limit=limit + 1)]
    if not found:
        head = store.journal.journal_head(ledger)
        if since > head:
            raise errors.BadRequest(f"'since' is after the last change ({head})", since=since, head=head)
        return {"changes": [], "knowledge": since, "has_more": False}
    more = len(found) > limit
    found = found[:limit]
    return {"changes": found, "knowledge": found[-1]["seq"], "has_more": more}


def all_entries(store: Store, ledger: str) -> Iterator[Item]:
    """Every entry of the ledger's journal, in seq order."""
    return store.journal.journal_entries(ledger, after=0)


def slip_history(store: Store, ledger: str, slip_id: str) -> dict[str, Any]:
    """A slip's whole life across moves and deletes: who changed which fields, when. Read from the
    entries its identity lists (one read per 100); a slip whose list does not go back to its
    creation (written before identities kept one) is looked for in the whole journal."""
    identity = store.slips.slip_identity(ledger, slip_id) if valid_id(slip_id) else None
    if identity is None:
        raise errors.NotFound("slip not found")
    entries: Iterable[Item]
    if identity.get("changes_complete"):
        entries = store.journal.entries_of(ledger, [int(seq) for seq in identity.get("changes", [])])
    else:
        entries = all_entries(store, ledger)
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
