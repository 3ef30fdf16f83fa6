"""Keeping up with the app a household still uses: a fresh download of Money Forward ME, Zaim, or a
card's or bank's statement, compared with what earlier downloads imported.

- Money Forward ME names each row by its `ID`. A row imported before whose content changed in the
  app is `changed`: applied as an update of its slip under the slip's version, through the one
  update path. Each imported slip keeps `imported` = {fingerprint of the row's slip, the slip's
  version then}; a slip edited here since (its version moved on) is `conflict` and left as it is.
  A slip imported before `imported` was kept counts as unedited while at version 1. The mark also
  keeps the fingerprints of the row's earlier contents: a row of an older download, sent again, is
  `stale` (an older version of what was applied) and changes nothing.
- Rows of earlier downloads (slips of the same app, dated within the new file's dates) that the new
  file lacks are `missing_in_file`; they are deleted, through the one delete path, only when asked
  (`apply_deletions`), and only while unedited here.
- A card's or bank's statement names each row by its identity (importformats/statement.py: the
  issuer's own id, else the row's date, payee and occurrence): compared as Money Forward's rows are,
  so a pending charge that settled at another amount is `changed`. The missing rows of a bank's or
  IC card's download are the account's; a card's statement lists none (it is a month's bill).
- Zaim has no row id: an edited row is a new row, and its old one vanishes. A new row dated the day
  of a vanished one, on the same account, is `possibly_replaced` (both shown); it is written only
  with `apply_deletions`, which then deletes the vanished one and creates the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kakeibo import errors, messages
from kakeibo.core import slip as slip_core
from kakeibo.core.posting import UNCATEGORIZED
from kakeibo.csvio import Row
from kakeibo.importformats import issuers
from kakeibo.importformats.source import identity_prefix
from kakeibo.importformats.statement import SOURCE as STATEMENT_SOURCE
from kakeibo.models.slips import SlipIn
from kakeibo.services.facets.reconciliation import STATES as CLEARED_FIELDS
from kakeibo.services.slips import (
    SLIP_FIELDS,
    SlipWrite,
    fingerprint,
    remove_slip,
    slip_range,
    slip_view,
    write_slip,
)
from kakeibo.store import Item, Store, WriteContext

STATEMENTS = tuple(issuers.BY_ID)  # card and bank statements: identified like Money Forward's rows
SYNCED_FORMATS = ("mf", "zaim", *STATEMENTS)
MAX_LISTED = 1000  # outcomes listed in an answer (the counts cover every row)
# what the other app's file says of a slip (whether the statement has it is the ledger's own)
COMPARED = tuple(
    name
    for name in SLIP_FIELDS
    if name not in ("lines", "paid_by", "shares", "receipts", "medical", "donation", *CLEARED_FIELDS)
)


@dataclass
class Sync:
    """What a file's rows are against the ledger's earlier imports of the same app."""

    changed: dict[str, tuple[Row, Item]] = field(default_factory=dict)  # slip id -> (the row, the slip now)
    conflicts: dict[str, tuple[Row, Item]] = field(default_factory=dict)
    stale: dict[str, tuple[Row, Item]] = field(default_factory=dict)  # rows older than what was applied
    missing: list[Item] = field(default_factory=list)  # slips of earlier downloads the file lacks
    replacing: dict[str, tuple[Row, Item]] = field(default_factory=dict)  # new row's slip id -> (it, vanished)

    def held(self, apply_deletions: bool) -> set[str]:
        """Slip ids the import must not create as new rows (a replacement waits for confirmation)."""
        return set() if apply_deletions else set(self.replacing)


MAX_EARLIER = 20  # earlier contents of a row an imported slip remembers


def imported_mark(row: Row, version: int, replaces: Item | None = None) -> dict[str, Any]:
    """What an imported slip keeps of the row it came from: its content's fingerprint, the slip's
    version once it was written from it, and (when it replaces the content of `replaces`, the slip as
    an earlier download left it) the fingerprints of the row's earlier contents."""
    mark: dict[str, Any] = {"fingerprint": fingerprint(as_slip(row)), "version": version}
    if replaces is not None:
        before = dict(replaces.get("imported") or {})
        earlier = [str(f) for f in before.get("earlier") or []]
        was = before.get("fingerprint") or fingerprint(_current_slip(replaces))
        mark["earlier"] = [*(f for f in earlier if f != was), was][-MAX_EARLIER:]
    return mark


def as_slip(row: Row) -> SlipIn:
    """The row's slip as it is compared and written (an expense or income without a category is
    filed under `uncategorized`, as the ledger keeps it)."""
    fields = row.slip.model_dump(exclude_none=True, exclude={"external_id", "line", "slip_memo", "imported_payee"})
    return _filed(fields)


def _filed(fields: dict[str, Any]) -> SlipIn:
    if fields["kind"] != "transfer" and not fields.get("lines") and not fields.get("category"):
        fields["category"] = UNCATEGORIZED
    return SlipIn.model_validate(fields)


def compare(
    store: Store,
    ledger: str,
    fmt: str,
    rows: list[Row],
    *,
    account: str | None = None,
    lists_missing: bool = True,
    used: set[str] | None = None,
) -> Sync:
    """The file's valid rows against the ledger: reads the rows' identities and slips (BatchGetItem)
    and the slips dated within the file's dates (one Query). A statement's rows are identified as
    Money Forward's are (changed, conflict, stale); its missing rows are those of its `account` only,
    and only where the file is a run of the account's days (a bank's or IC card's: `lists_missing`;
    a card's statement lists what is billed in a month, whatever day it was used). `used`: every slip
    id the ledger ever used (store.used_slip_ids), when the caller has read it: only those rows'
    identities are read (a row whose id was never used has none), so a file's first import reads none."""
    out = Sync()
    if fmt not in SYNCED_FORMATS or not rows:
        return out
    known = rows if used is None else [r for r in rows if r.slip_id in used]
    asked = [r.slip_id for r in known]
    if fmt == "zaim":  # its rows are matched by identity only
        identities = store.slips.slip_identities(ledger, asked) if asked else {}
    elif asked:
        read = store.slips.slips_by_id(ledger, asked)
        identities = read.identities
        for row in rows:
            current = read.live.get(row.slip_id)
            if current is not None:
                _classify(row, current, out)
    else:
        identities = {}
    window, _ = slip_range(min(r.slip.date for r in rows), max(r.slip.date for r in rows), None)
    if not lists_missing:
        return out
    ids = {r.slip_id for r in rows}
    prefix = identity_prefix(STATEMENT_SOURCE if fmt in STATEMENTS else fmt)
    vanished = [
        item
        for item in store.slips.slips_within(ledger, window)
        if item.get("import_id")
        and str(item["id"]).startswith(prefix)
        and item["id"] not in ids
        and (account is None or item.get("account") == account)
    ]
    if fmt == "zaim":
        new = [r for r in rows if r.slip_id not in identities]
        for row in new:
            match = next((v for v in vanished if v["date"] == row.slip.date and v["account"] == row.slip.account), None)
            if match is not None:
                vanished.remove(match)
                out.replacing[row.slip_id] = (row, match)
    out.missing = vanished
    return out


def _classify(row: Row, current: Item, out: Sync) -> None:
    mark = current.get("imported") or {}
    version = int(current["version"])
    imported_version = int(mark.get("version", 1))
    was = mark.get("fingerprint")
    if was is None and version == 1:  # imported before the mark was kept, and unedited since
        was = fingerprint(_current_slip(current))
    now = _read_as(row, current)
    if was is None or was in now:
        return  # the app's row is as imported (or, unknown for an older slip edited here: left alone)
    if now & set(mark.get("earlier") or []):
        out.stale[row.slip_id] = (row, current)  # an older download's row: what was applied is newer
        return
    if version == imported_version:
        out.changed[row.slip_id] = (row, current)
    else:
        out.conflicts[row.slip_id] = (row, current)


def _read_as(row: Row, current: Item) -> set[str]:
    """The fingerprints the row's slip may have been marked with: as it reads now and, for a slip
    imported before slips had payees (it has no imported_payee, its mark was taken without one), as it
    read then, without its payee: the same row read again is the same row. Such a slip is not written
    to fill its payee in (a new version and a journal entry for nothing the app changed); a row changed
    in the app brings its payee with the change. The payee comes from the cell the memo comes from,
    so no row differs in its payee alone."""
    slip = as_slip(row)
    found = {fingerprint(slip)}
    if "imported_payee" not in current and slip.payee is not None:
        found.add(fingerprint(slip.model_copy(update={"payee": None})))
    return found


def _current_slip(current: Item) -> SlipIn:
    """The stored slip as its import's request said it (a reconciled side said as cleared, as the row
    said it: only a cleared side is reconciled)."""
    view = slip_view(current)
    return _filed(slip_core.request_of({k: view.get(k) for k in SLIP_FIELDS if view.get(k) != []}, derived=False))


def changes(row: Row, current: Item) -> dict[str, list[Any]]:
    """The fields the app changed: name -> [as the ledger has it, as the file says]."""
    view, new = slip_view(current), as_slip(row).model_dump()
    return {name: [view.get(name), new.get(name)] for name in COMPARED if view.get(name) != new.get(name)}


# ---- what is listed ------------------------------------------------------------------------------


def outcomes(
    sync: Sync, *, applied: dict[str, str] | None = None, written: dict[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The rows that are neither new nor as imported, as listed in a dry run and an import's answer
    (`applied`: slip id -> what the import did to it: changed, deleted, replaced, or a refusal;
    `written`: slip id -> the slip as the import updated it, shown as `current`)."""
    applied = applied or {}
    written = written or {}
    listed: list[dict[str, Any]] = []
    for slip_id, (row, current) in sync.changed.items():
        fields = changes(row, current)
        message = "; ".join((applied.get(slip_id) or "changed in the app", *_described(fields)))
        item = _item(row.line, "changed", slip_id, row=row, current=current, message=message, changes=fields)
        if slip_id in written:
            item["current"] = written[slip_id]
        listed.append(item)
    for slip_id, (row, current) in sync.conflicts.items():
        fields = changes(row, current)
        message = "; ".join(("edited here since it was imported: left as it is, the app has", *_described(fields)))
        listed.append(_item(row.line, "conflict", slip_id, row=row, current=current, message=message, changes=fields))
    for slip_id, (row, current) in sync.stale.items():
        fields = changes(row, current)
        message = "; ".join((STALE, *_described(fields)))
        listed.append(_item(row.line, "stale", slip_id, row=row, current=current, message=message, changes=fields))
    for slip_id, (row, vanished) in sync.replacing.items():
        message = applied.get(slip_id) or (
            f"may replace the slip of {vanished['date']} no longer in the file; "
            "import with apply_deletions=true to replace it"
        )
        listed.append(_item(row.line, "possibly_replaced", slip_id, row=row, current=vanished, message=message))
    for item in sync.missing:
        slip_id = str(item["id"])
        message = applied.get(slip_id) or (
            "imported from an earlier download and not in this one; import with apply_deletions=true to delete it"
        )
        action = "deleted" if applied.get(slip_id) == DELETED else "missing_in_file"
        listed.append(_item(None, action, slip_id, row=None, current=item, message=message))
    listed.sort(key=lambda i: (i["line"] is None, i["line"] or 0, i["slip_id"]))
    return listed[:MAX_LISTED]


def _described(fields: dict[str, list[Any]]) -> list[str]:
    """Each changed field as "name: here -> in the app" (worded per field in other languages)."""
    return [
        f"{name}: {'-' if old is None else old} -> {'-' if new is None else new}" for name, (old, new) in fields.items()
    ]


DELETED = "deleted: it was not in the app's download"
STALE = "an older version of this row than the one already imported: left as it is"
CHANGED = "changed as in the app"
CONFLICTED = "edited here meanwhile: left as it is"
CHANGE_OUTCOMES = (CHANGED, CONFLICTED)


def _item(
    line: int | None,
    action: str,
    slip_id: str,
    *,
    row: Row | None,
    current: Item | None,
    message: str,
    changes: dict[str, list[Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"line": line, "action": action, "slip_id": slip_id, "message": message}
    if row is not None:
        out["slip"] = row.slip.model_dump(exclude_none=True, exclude={"external_id"})
    if current is not None:
        out["current"] = slip_view(current)
    if changes is not None:
        out["changes"] = changes
    return out


# ---- applying ------------------------------------------------------------------------------------


def apply(
    store: Store,
    ctx: WriteContext,
    sync: Sync,
    *,
    apply_deletions: bool,
    written: dict[str, dict[str, Any]] | None = None,
) -> dict[str, str]:
    """Write what the comparison found: each change as an update under the slip's version, and, when
    asked, the deletions and replacements. Slip id -> what became of it (a refusal in its words);
    each slip updated, as it now is, into `written`."""
    done: dict[str, str] = {}
    for slip_id, (row, current) in sync.changed.items():
        version = int(current["version"])
        try:
            mark = imported_mark(row, version + 1, replaces=current)
            new = as_slip(row)
            kept = {"cleared": current.get("cleared")}  # the file does not say; the ledger does
            if new.kind == "transfer":
                kept["to_cleared"] = current.get("to_cleared")
            new = new.model_copy(update=kept)
            updated = write_slip(store, ctx, current, new, SlipWrite(version, imported=mark))
            done[slip_id] = CHANGED
            if written is not None:
                written[slip_id] = updated
        except errors.VersionMismatch:
            done[slip_id] = _raced(store, ctx, row, current)
        except errors.ApiError as exc:
            done[slip_id] = messages.detail(exc.code, exc.detail, exc.context, "en")
    if not apply_deletions:
        return done
    for item in sync.missing:
        done[str(item["id"])] = _delete(store, ctx, item)
    for slip_id, (_, vanished) in sync.replacing.items():
        done[slip_id] = _delete(store, ctx, vanished)
        if done[slip_id] == DELETED:
            done[slip_id] = f"replaced the slip of {vanished['date']} no longer in the file"
    return done


def _raced(store: Store, ctx: WriteContext, row: Row, read: Item) -> str:
    """A change that met another write of its slip: another import of the same download applied
    it (the slip now keeps the row), or the slip was edited here meanwhile."""
    where = sorted({(str(read["date"]), str(read["id"])), (row.slip.date, row.slip_id)})
    now = store.slips.slips_at(ctx.ledger, where)
    mark: dict[str, Any] = next((dict(item.get("imported") or {}) for item in now.values()), {})
    return CHANGED if mark.get("fingerprint") == fingerprint(as_slip(row)) else CONFLICTED


def _delete(store: Store, ctx: WriteContext, item: Item) -> str:
    mark = item.get("imported") or {}
    if int(item["version"]) != int(mark.get("version", 1)):
        return "edited here since it was imported: not deleted"
    try:
        remove_slip(store, ctx, item, SlipWrite(int(item["version"])))
    except errors.VersionMismatch:
        return "edited here meanwhile: not deleted"
    except errors.NotFound:
        return DELETED  # another import deleted it a moment ago
    except errors.ApiError as exc:
        return messages.detail(exc.code, exc.detail, exc.context, "en")
    return DELETED
