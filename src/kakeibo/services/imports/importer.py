"""CSV import (exactly once per row) and export.

What "exactly once" rests on:
- every row has a slip id that is the same each time that row is imported (csvio.slip_id_for),
  in a namespace of its own, and counts as imported when a slip has that id or the id the row had
  before (csvio.legacy_slip_id);
- each slip is created through the one create path (store.create_slips): with its identity item
  ID#{slip_id}, both Put with `attribute_not_exists(SK)`, in the same transaction as the slip's
  balance effects. The identity does not depend on the date and outlives a delete (tombstone), so
  a re-import skips a row whose slip has since been edited, moved to another date, or deleted;
- so re-running a file, or resuming after a crash, creates only what is missing, and two runs
  racing each other cannot both create a row. (ROW#{slip_id} items, which marked imported rows
  before slips had identities, still count as imported.)

Rows are written in batches: one TransactWriteItems of many slips, their identity items, the index
items of their entries (the rows of a day share them), the IMPORT item's counter and their balance
effects merged per item (posting.merge), at most 100 items. Slip numbers are taken from the counter
for NUMBER_AHEAD rows at a time. A batch refused because some of its rows already exist is retried
without them. A batch refused for a reason that belongs to a row (insufficient funds, a budget, an
archived account) is retried one row per transaction, so only that row is refused. Rows that would
overdraw an account are held back and retried after the rest of the file (money may arrive later in
the file); those that still cannot be covered become row errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from kakeibo import csvio, errors, messages
from kakeibo.core import posting
from kakeibo.core import rules as rules_core
from kakeibo.core.posting import AccountItem
from kakeibo.core.units import POINTS, is_yen
from kakeibo.csvio import Row, RowError
from kakeibo.services import rules as rules_service
from kakeibo.services.common import TimeLeft, now_iso
from kakeibo.services.imports import sync as import_sync
from kakeibo.services.imports.prepare import Options, as_arrived, as_ruled, compare, prepare, preview, statement_check
from kakeibo.services.slips import fingerprint, new_slip_item, slip_change, slip_range, slip_view
from kakeibo.services.units import Unit, checked
from kakeibo.store import (
    GUARD_ITEMS,
    JOURNAL_ITEMS,
    Item,
    NewSlip,
    SlipCommit,
    SlipIdTaken,
    Store,
    WriteContext,
    encode_cursor,
    index_items_changed,
    slip_position,
)

# TransactWriteItems' limit, less a shared ledger's check on the importing member and the journal's head and entry
MAX_TX_ITEMS = 100 - GUARD_ITEMS - JOURNAL_ITEMS
MAX_LISTED_ERRORS = 1000  # kept with the import (GET /imports/{id})
MAX_ANSWERED_ERRORS = 100  # in the POST answer, which Powertools stores with its Idempotency-Key
MAX_MESSAGE = 200  # characters kept of a row's message: 1000 of them fit in the import's item
MAX_PASSES = 5  # first pass + retries of the rows held back for funds
MIN_SECONDS_LEFT = 3.0  # stop starting batches when the invocation has less than this left
NUMBER_AHEAD = 1000  # rows numbered in one counter call (an import stopped short leaves that gap at most)
MAX_EXPORT_BYTES = 2 * 1024 * 1024  # per page; JSON-escaped in the Lambda response it stays < 6 MB


@dataclass
class Tally:
    created: int = 0
    skipped: int = 0
    synced: int = 0  # rows the comparison with earlier downloads settled (changed, conflict, replacing)
    errors: list[RowError] = field(default_factory=list)
    held: list[tuple[Row, str]] = field(default_factory=list)  # insufficient funds, for a later pass
    ruled: dict[int, list[str]] = field(default_factory=dict)  # line -> the rules that changed its slip


def import_csv(
    store: Store,
    ctx: WriteContext,
    data: bytes,
    charset: str | None = None,
    *,
    time_left: TimeLeft | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """Import a CSV file (ours, or another app's: importformats). Returns counts; status 'partial'
    if time ran out (send it again). A dry run answers what each row would do and writes nothing."""
    options = options or Options()
    ctx = ctx.as_origin("import")
    ledger = ctx.ledger
    prepared = prepare(store, ctx, data, charset, options)
    if options.dry_run:
        return preview(store, ledger, prepared, _account_problem)
    parsed, accounts = prepared.file, prepared.accounts
    tally = Tally(errors=list(parsed.errors))
    queue = []
    for row in parsed.valid:
        problem = _account_problem(row, accounts)
        if problem:
            tally.errors.append(RowError(row.line, problem))
        else:
            queue.append(row)
    _started(store, ctx, parsed)
    known = store.imports.used_slip_ids(ledger)  # identities (live or deleted), legacy ROW# marks
    # rows imported before whose content changed in the app, rows it no longer has
    sync = compare(store, ledger, prepared, queue, used=known)
    written: dict[str, dict[str, Any]] = {}
    done = import_sync.apply(store, ctx, sync, apply_deletions=options.apply_deletions, written=written)
    waiting = {sid for sid in sync.replacing if not done.get(sid, "").startswith("replaced")}
    settled = set(sync.changed) | set(sync.conflicts) | set(sync.stale) | waiting
    for row in queue:
        if row.slip_id in settled:
            refusal = done.get(row.slip_id)
            if row.slip_id in sync.changed and refusal not in import_sync.CHANGE_OUTCOMES:
                tally.errors.append(RowError(row.line, str(refusal)))
            else:
                tally.synced += 1
    queue = [row for row in queue if row.slip_id not in settled]
    queue.sort(key=lambda r: (r.slip.date, r.line))
    writer = _Writer(
        store,
        ctx,
        parsed.sha256,
        known,
        tally,
        marked=prepared.format in import_sync.SYNCED_FORMATS,
        rule_set=rules_service.load(store, ledger),  # one read: every rule of the ledger
        accounts=accounts,
    )
    try:
        for _ in range(MAX_PASSES):
            before = tally.created
            if writer.run(queue, time_left) or not tally.held or tally.created == before:
                break  # out of time, or nothing held back, or nothing new to pay for it with
            queue = [row for row, _ in tally.held]
            tally.held.clear()
    except errors.Locked as exc:
        _finished(store, ctx, parsed, tally, status="partial")
        raise errors.Locked(
            f"{exc.detail}; {tally.created} rows were imported so far: send the file again later",
            retry_after=int(exc.headers.get("Retry-After", "1")),
            import_id=parsed.sha256,
            created=tally.created,
        ) from exc
    except Exception:
        with suppress(errors.ApiError):  # the failure the caller must see is the one that stopped us
            _finished(store, ctx, parsed, tally, status="interrupted")
        raise
    if _pending(parsed, tally) == len(tally.held):  # every row was tried: held ones are refused
        tally.errors += [RowError(row.line, reason) for row, reason in tally.held]
        tally.held.clear()
    pending = _pending(parsed, tally)
    status = "partial" if pending else "complete"
    report = _finished(store, ctx, parsed, tally, status=status)
    return {
        "import_id": parsed.sha256,
        "status": status,
        "encoding": parsed.encoding,
        "rows": parsed.rows,
        "created": tally.created,
        "skipped": tally.skipped,
        "failed": len(report),
        "pending": pending,
        "errors": report[:MAX_ANSWERED_ERRORS],
        **_synced(sync, done, written),
        **prepared.summary(),
        "statement": statement_check(store, ledger, prepared, writer.written),
        "ruled": [{"line": n, "rules": ids} for n, ids in sorted(tally.ruled.items())][: rules_service.MAX_RULED_ROWS],
    }


def _synced(sync: import_sync.Sync, done: dict[str, str], written: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What the comparison with earlier downloads found and did, counted and listed (a slip it
    updated as it is now)."""
    listed = import_sync.outcomes(sync, applied=done, written=written)
    deleted = sum(1 for item in sync.missing if done.get(str(item["id"])) == import_sync.DELETED)
    return {
        "changed": sum(1 for sid in sync.changed if done.get(sid) == import_sync.CHANGED),
        "conflicts": len(sync.conflicts),
        "stale": len(sync.stale),
        "missing_in_file": len(sync.missing) - deleted,
        "deleted": deleted,
        "possibly_replaced": len(sync.replacing),
        "outcomes": listed,
    }


def get_import(store: Store, ledger: str, import_id: str) -> dict[str, Any]:
    """The full report of an import (its refused rows, up to MAX_LISTED_ERRORS), as last run."""
    found = store.imports.get_import(ledger, import_id) if _is_sha256(import_id) else None
    if found is None:
        raise errors.NotFound(f"import '{import_id}' not found")
    return {
        "import_id": found["import_id"],
        "status": found.get("status", "running"),
        "encoding": found.get("encoding", csvio.UTF8),
        "rows": int(found.get("rows", 0)),
        "created": int(found.get("created", 0)),
        "skipped": int(found.get("skipped", 0)),
        "failed": int(found.get("failed", 0)),
        "pending": int(found.get("pending", 0)),
        "errors": [{"line": int(e["line"]), "message": str(e["message"])} for e in found.get("errors") or []],
        "runs": int(found.get("runs", 0)),
        "created_at": found.get("created_at"),
        "updated_at": found.get("updated_at"),
    }


def _is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _pending(parsed: csvio.CsvFile, tally: Tally) -> int:
    """Rows not yet settled (created, skipped, settled by the comparison or refused); rows held back
    for funds count here."""
    return parsed.rows - tally.created - tally.skipped - tally.synced - len(tally.errors)


def _account_problem(row: Row, accounts: dict[str, Item]) -> str | None:
    """Why the row cannot be written to its accounts: one missing or archived, a points account (its
    lots are kept by the slip path alone), or what a foreign account's unit needs missing (jpy_amount,
    to_amount: the same rules as a POST /slips body's)."""
    names = posting.accounts_touched(row.slip.entry())
    for name in names:
        account = accounts.get(name)
        if account is None:
            return f"account '{name}' does not exist"
        if account.get("archived"):
            return f"account '{name}' is archived"
        if account.get("unit") == POINTS:
            return f"account '{name}' is in points: imports write no points accounts"
    if all(is_yen(accounts[name].get("unit")) for name in names) and row.slip.jpy_amount is None:
        return (
            None
            if row.slip.to_amount is None
            else "to_amount is only for a transfer between accounts of different units"
        )
    to = Unit.of(accounts[row.slip.to_account]) if row.slip.to_account else None
    try:
        checked(row.slip, Unit.of(accounts[row.slip.account]), to)
    except errors.ValidationFailed as exc:
        return exc.detail
    return None


def _started(store: Store, ctx: WriteContext, parsed: csvio.CsvFile) -> None:
    store.imports.import_started(ctx, parsed.sha256, rows=parsed.rows, encoding=parsed.encoding, now=now_iso())


def _finished(
    store: Store, ctx: WriteContext, parsed: csvio.CsvFile, tally: Tally, *, status: str
) -> list[dict[str, Any]]:
    """Record the outcome of this run (`created` is not here: each batch ADDs its own, atomically).
    Returns the refused rows as listed: at most MAX_LISTED_ERRORS, messages cut to MAX_MESSAGE."""
    listed = [{"line": e.line, "message": e.message[:MAX_MESSAGE]} for e in sorted(tally.errors)[:MAX_LISTED_ERRORS]]
    store.imports.import_finished(
        ctx,
        parsed.sha256,
        status=status,
        skipped=tally.skipped,
        failed=len(tally.errors),
        pending=_pending(parsed, tally),
        errors=listed,
        now=now_iso(),
    )
    return listed


class _Writer:
    """Writes rows in batches and sorts each into created / skipped / held / errors."""

    def __init__(
        self,
        store: Store,
        ctx: WriteContext,
        sha256: str,
        known: set[str],
        tally: Tally,
        *,
        marked: bool,
        rule_set: rules_core.RuleSet | None = None,
        accounts: dict[str, Item] | None = None,
    ) -> None:
        self.accounts = accounts or {}  # by id: a bank's or card's rows arrive cleared (as_arrived)
        self.marked = marked  # slips keep what they were imported as (import_sync)
        self.store = store
        self.ctx = ctx
        self.ledger = ctx.ledger
        self.sha256 = sha256
        self.known = known  # slip ids already imported (ROW items seen), by any file
        self.tally = tally
        self.numbers: dict[str, int] = {}
        self.rule_set = rule_set or rules_core.RuleSet(())
        self.filed: dict[str, Row] = {}  # slip id -> the row as the file wrote it, when rules changed it
        self.written: dict[str, Item] = {}  # slip id -> the slip item this request created

    def run(self, rows: Sequence[Row], time_left: TimeLeft | None) -> int:
        """Write `rows`; the number left unwritten because time ran out (0 when done)."""
        done = 0
        # the rules first: the items a batch touches (its rows' categories) are counted from the rows
        rows = [self._ruled(row) for row in rows]
        for start in range(0, len(rows), NUMBER_AHEAD):
            chunk = rows[start : start + NUMBER_AHEAD]
            self._number([r for r in chunk if not already_imported(r, self.known)])  # re-imports take none
            for batch in batches(chunk, self.ctx.actor, self.numbers, self.accounts):
                if time_left is not None and time_left() < MIN_SECONDS_LEFT:
                    return len(rows) - done
                self.write(batch)
                done += len(batch)
        return 0

    def _ruled(self, row: Row) -> Row:
        """`row` as the rules make it (the file's own row kept for what later downloads compare with)."""
        if already_imported(row, self.known):
            return row
        written, touched = as_ruled(self.rule_set, row, self.accounts)
        if touched:
            self.filed.setdefault(row.slip_id, row)
            self.tally.ruled[row.line] = list(touched)
        return written

    def write(self, rows: Sequence[Row]) -> None:
        rows = self._drop(rows, {r.slip_id for r in rows if already_imported(r, self.known)})
        for _ in range(4):
            if not rows:
                return
            try:
                created = self._create(rows)
            except SlipIdTaken:
                # Some of them exist (a concurrent run, or a slip with that id): drop those, retry.
                existing = self._existing(rows)
                if not existing:
                    continue
                rows = self._drop(rows, existing)
                continue
            except (errors.InsufficientFunds, errors.BudgetExceeded, errors.ValidationFailed) as exc:
                if len(rows) == 1:
                    self._refused(rows[0], exc)
                    return
                for row in rows:  # find the row(s) it was about: one transaction each
                    self.write([row])
                return
            self.tally.created += len(rows)
            self.known.update(r.slip_id for r in rows)
            self.written.update((str(item["id"]), item) for item in created)
            return
        raise errors.Conflict("the import kept colliding with concurrent changes; send the file again")

    def _drop(self, rows: Sequence[Row], existing: set[str]) -> list[Row]:
        kept = [r for r in rows if r.slip_id not in existing]
        self.tally.skipped += len(rows) - len(kept)
        self.known.update(existing)
        return kept

    def _refused(self, row: Row, exc: errors.ApiError) -> None:
        # worded as the problem's detail is (by the catalogue, in English: the report is shown in
        # the caller's language by messages.row_message)
        detail = messages.detail(exc.code, exc.detail, exc.context, "en")
        if isinstance(exc, errors.InsufficientFunds):
            self.tally.held.append((row, f"insufficient funds: {detail}"))
        elif isinstance(exc, errors.BudgetExceeded):
            self.tally.errors.append(RowError(row.line, f"budget exceeded: {detail}"))
        else:
            self.tally.errors.append(RowError(row.line, detail))

    def _existing(self, rows: Sequence[Row]) -> set[str]:
        """Slip ids among `rows` already used (an identity) or taken by an older slip at that key."""
        return self.store.imports.ids_taken(self.ledger, [(r.slip.date, r.slip_id) for r in rows])

    def _number(self, rows: Sequence[Row]) -> None:
        """Slip numbers for the rows that have none yet: one counter call for all of them (a number
        is kept for its row through retries; one of a row not written is never used)."""
        missing = list(dict.fromkeys(r.slip_id for r in rows if r.slip_id not in self.numbers))
        self.numbers.update(zip(missing, self.store.slips.reserve_numbers(self.ledger, len(missing)), strict=True))

    def _create(self, rows: Sequence[Row]) -> list[Item]:
        """The rows' slips in one transaction, through the one create path; their items as written."""
        self._number(rows)
        stamp = now_iso()
        accounts: set[str] = set()
        slips = []
        for row in rows:
            filed = self.filed.get(row.slip_id, row)
            slip = as_arrived(row.slip, self.accounts)
            accounts.update(posting.accounts_touched(slip.entry()))
            item = new_slip_item(
                slip,
                row.slip_id,
                stamp=stamp,
                no=self.numbers[row.slip_id],
                by=self.ctx.actor,
                import_id=self.sha256,
            )
            if self.marked:  # what the file wrote, as the file wrote it: later downloads compare with it
                item["imported"] = import_sync.imported_mark(filed, 1)
            slips.append(NewSlip(item, origin="import", fingerprint=fingerprint(filed.slip)))
        plan = posting.Plan(
            "create",
            posting.merge(posting.effects(as_arrived(r.slip, self.accounts).entry()) for r in rows),
            tuple(sorted(accounts)),
        )
        self.store.slips.create_slips(
            self.ctx, slips, plan, SlipCommit([slip_change(None, new.item) for new in slips]), import_id=self.sha256
        )
        return [new.item for new in slips]


def already_imported(row: Row, used: set[str]) -> bool:
    """Whether the row's slip exists (or did): under its id, or under the id it had before
    external_ids were namespaced (csvio.legacy_slip_id)."""
    return row.slip_id in used or (row.legacy_id is not None and row.legacy_id in used)


def batches(
    rows: Sequence[Row], author: str | None, numbers: dict[str, int], accounts: dict[str, Item] | None = None
) -> Iterator[list[Row]]:
    """Consecutive rows, as many per batch as fit in one transaction: the IMPORT counter, a slip and
    its identity item per row, the index items their entries are in (rows of one day share them;
    `numbers`: the rows' slip numbers; `accounts`: by id, whose statement rows arrive cleared, with
    an entry of their cleared side) and every balance item the batch touches (counted before
    merging)."""
    batch: list[Row] = []
    keys: set[posting.ItemKey] = set()
    index: set[str] = set()
    own = 0  # items of the batch's rows themselves: slips and identities
    for row in rows:
        entry = row.slip.entry()
        touched = set(posting.effects(entry)) | {AccountItem(a) for a in posting.accounts_touched(entry)}
        # a row already imported has no number: it is counted in bucket 0 of its day (it is dropped
        # before the write, so the batch can only be smaller than it could have been)
        arrived = as_arrived(row.slip, accounts or {})
        item = new_slip_item(arrived, row.slip_id, stamp="", no=numbers.get(row.slip_id, 0), by=author)
        items = index_items_changed(None, item)
        if batch and 1 + own + 2 + len(index | items) + len(keys | touched) > MAX_TX_ITEMS:
            yield batch
            batch, keys, index, own = [], set(), set(), 0
        batch.append(row)
        keys |= touched
        index |= items
        own += 2
    if batch:
        yield batch


# ---- export -----------------------------------------------------------------------------------


def export_csv(
    store: Store,
    ledger: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    by: str | None = None,
    cursor: str | None = None,
) -> tuple[str, str | None]:
    """(CSV text, cursor of the next page or None), oldest first, in the import format; with `by`,
    only the slips that member created or changed last."""
    window, start = slip_range(date_from, date_to, cursor)
    slips: list[dict[str, Any]] = []
    longest = {"subcategory": True, "lines": True, "tax": True, "payees": True, "units": True, "tags": True}
    size = len(csvio.header_line(**longest))
    next_cursor: str | None = None
    last: str | None = None  # where the slips listed end: the next page goes on after it
    for item in store.slips.slips_within(ledger, window, after=start):
        if by and by not in (item.get("created_by"), item.get("updated_by")):
            continue
        slip = slip_view(item)
        line = csvio.slip_line(slip, **longest)  # the longest
        if slips and size + len(line.encode("utf-8")) > MAX_EXPORT_BYTES:
            next_cursor = encode_cursor({"sk": last})
            break
        slips.append(slip)
        last = slip_position(item)
        size += len(line.encode("utf-8"))
    subcategory = any(s.get("subcategory") for s in slips)
    split = any(s.get("lines") for s in slips)  # one row per line, numbered
    tax = any(csvio.has_tax(s) for s in slips)  # medical and donation columns
    payees = any(s.get("payee") or s.get("imported_payee") for s in slips)
    units = any(csvio.has_units(s) for s in slips)  # jpy_amount and to_amount (accounts in other units)
    tags = any(s.get("tags") for s in slips)  # the tags column
    shape = {"subcategory": subcategory, "lines": split, "tax": tax, "payees": payees, "units": units, "tags": tags}
    lines = [csvio.slip_line(s, **shape) for s in slips]
    header = csvio.header_line(**shape)
    return header + "".join(lines), next_cursor
