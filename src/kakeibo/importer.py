"""CSV import (exactly once per row) and export.

What "exactly once" rests on:
- every row has a slip id that is the same each time that row is imported (csvio.slip_id_for);
- each slip is written with a ROW#{slip_id} item, both Put with `attribute_not_exists(SK)`, in the
  same transaction as the slip's balance effects. The ROW item does not depend on the date, so a
  re-import still skips a row whose slip has since been moved to another date, or deleted;
- so re-running a file, or resuming after a crash, creates only what is missing, and two runs
  racing each other cannot both create a row.

Rows are written in batches: one TransactWriteItems of many slips, their ROW items, the IMPORT
item's counter and their balance effects merged per item (ledger.merge), at most 100 items. A
batch refused because some of its rows already exist is retried without them. A batch refused
for a reason that belongs to a row (insufficient funds, a budget, an archived account) is retried
one row per transaction, so only that row is refused. Rows that would overdraw an account are
held back and retried after the rest of the file (money may arrive later in the file); those that
still cannot be covered become row errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from kakeibo import csvio, errors, ledger
from kakeibo.csvio import Row, RowError
from kakeibo.importformats.prepare import Options, prepare, preview
from kakeibo.ledger import AccountItem
from kakeibo.service import _slip_item, now_iso, slip_range, slip_view
from kakeibo.store import Item, Store, TxOp, encode_cursor, row_sk, slip_sk

MAX_TX_ITEMS = 100  # TransactWriteItems' limit
MAX_LISTED_ERRORS = 1000
MAX_PASSES = 5  # first pass + retries of the rows held back for funds
MIN_SECONDS_LEFT = 3.0  # stop starting batches when the invocation has less than this left
MAX_EXPORT_BYTES = 2 * 1024 * 1024  # per page; JSON-escaped in the Lambda response it stays < 6 MB
TimeLeft = Callable[[], float]


def import_sk(sha256: str) -> str:
    return f"IMPORT#{sha256}"


@dataclass
class Tally:
    created: int = 0
    skipped: int = 0
    errors: list[RowError] = field(default_factory=list)
    held: list[tuple[Row, str]] = field(default_factory=list)  # insufficient funds, for a later pass


def import_csv(
    store: Store,
    who: str,
    data: bytes,
    charset: str | None = None,
    *,
    time_left: TimeLeft | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """Import a CSV file (ours, or another app's: importformats). Returns counts; status 'partial'
    if time ran out (send it again). A dry run answers what each row would do and writes nothing."""
    options = options or Options()
    prepared = prepare(store, who, data, charset, options)
    if options.dry_run:
        return preview(store, who, prepared, _account_problem)
    parsed, accounts = prepared.file, prepared.accounts
    tally = Tally(errors=list(parsed.errors))
    queue = []
    for row in parsed.valid:
        problem = _account_problem(row, accounts)
        if problem:
            tally.errors.append(RowError(row.line, problem))
        else:
            queue.append(row)
    queue.sort(key=lambda r: (r.slip.date, r.line))
    known = {
        i["SK"].removeprefix("ROW#") for i in store.query(who, begins_with="ROW#", projection="SK", consistent=True)
    }
    writer = _Writer(store, who, parsed.sha256, known, tally)
    _started(store, who, parsed)
    try:
        for _ in range(MAX_PASSES):
            before = tally.created
            if writer.run(queue, time_left) or not tally.held or tally.created == before:
                break  # out of time, or nothing held back, or nothing new to pay for it with
            queue = [row for row, _ in tally.held]
            tally.held.clear()
    except errors.Locked as exc:
        _finished(store, who, parsed, tally, status="partial")
        raise errors.Locked(
            f"{exc.detail}; {tally.created} rows were imported so far: send the file again later",
            retry_after=int(exc.headers.get("Retry-After", "1")),
            import_id=parsed.sha256,
            created=tally.created,
        ) from exc
    except Exception:
        with suppress(errors.ApiError):  # the failure the caller must see is the one that stopped us
            _finished(store, who, parsed, tally, status="interrupted")
        raise
    if _pending(parsed, tally) == len(tally.held):  # every row was tried: held ones are refused
        tally.errors += [RowError(row.line, reason) for row, reason in tally.held]
        tally.held.clear()
    pending = _pending(parsed, tally)
    status = "partial" if pending else "complete"
    _finished(store, who, parsed, tally, status=status)
    found = sorted(tally.errors)
    return {
        "import_id": parsed.sha256,
        "status": status,
        "encoding": parsed.encoding,
        "rows": parsed.rows,
        "created": tally.created,
        "skipped": tally.skipped,
        "failed": len(found),
        "pending": pending,
        "errors": [{"line": e.line, "message": e.message} for e in found[:MAX_LISTED_ERRORS]],
        **prepared.summary(),
    }


def _pending(parsed: csvio.CsvFile, tally: Tally) -> int:
    """Rows not yet settled (created, skipped or refused); rows held back for funds count here."""
    return parsed.rows - tally.created - tally.skipped - len(tally.errors)


def _account_problem(row: Row, accounts: dict[str, Item]) -> str | None:
    for name in ledger.accounts_touched(row.slip.entry()):
        account = accounts.get(name)
        if account is None:
            return f"account '{name}' does not exist"
        if account.get("archived"):
            return f"account '{name}' is archived"
    return None


def _started(store: Store, who: str, parsed: csvio.CsvFile) -> None:
    stamp = now_iso()
    store.update(
        who,
        import_sk(parsed.sha256),
        "SET #type = :type, #id = :id, #status = :running, #rows = :rows, #enc = :enc, #upd = :now,"
        " #crt = if_not_exists(#crt, :now) ADD #runs :one",
        names={
            "#type": "type",
            "#id": "import_id",
            "#status": "status",
            "#rows": "rows",
            "#enc": "encoding",
            "#upd": "updated_at",
            "#crt": "created_at",
            "#runs": "runs",
        },
        values={
            ":type": "import",
            ":id": parsed.sha256,
            ":running": "running",
            ":rows": parsed.rows,
            ":enc": parsed.encoding,
            ":now": stamp,
            ":one": 1,
        },
    )


def _finished(store: Store, who: str, parsed: csvio.CsvFile, tally: Tally, *, status: str) -> None:
    """The outcome of this run. `created` is not here: each batch ADDs its own, atomically."""
    store.update(
        who,
        import_sk(parsed.sha256),
        "SET #status = :status, #skipped = :skipped, #failed = :failed, #pending = :pending, #upd = :now",
        names={
            "#status": "status",
            "#skipped": "skipped",
            "#failed": "failed",
            "#pending": "pending",
            "#upd": "updated_at",
        },
        values={
            ":status": status,
            ":skipped": tally.skipped,
            ":failed": len(tally.errors),
            ":pending": _pending(parsed, tally),
            ":now": now_iso(),
        },
    )


class _Writer:
    """Writes rows in batches and sorts each into created / skipped / held / errors."""

    def __init__(self, store: Store, who: str, sha256: str, known: set[str], tally: Tally) -> None:
        self.store = store
        self.who = who
        self.sha256 = sha256
        self.known = known  # slip ids already imported (ROW items seen), by any file
        self.tally = tally
        self.numbers: dict[str, int] = {}

    def run(self, rows: Sequence[Row], time_left: TimeLeft | None) -> int:
        """Write `rows`; the number left unwritten because time ran out (0 when done)."""
        done = 0
        for batch in batches(rows):
            if time_left is not None and time_left() < MIN_SECONDS_LEFT:
                return len(rows) - done
            self.write(batch)
            done += len(batch)
        return 0

    def write(self, rows: Sequence[Row]) -> None:
        rows = self._drop(rows, {r.slip_id for r in rows} & self.known)
        for _ in range(4):
            if not rows:
                return
            try:
                self.store.transact(self._ops(rows))
            except errors.AlreadyExists:
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
            return
        raise errors.Conflict("the import kept colliding with concurrent changes; send the file again")

    def _drop(self, rows: Sequence[Row], existing: set[str]) -> list[Row]:
        kept = [r for r in rows if r.slip_id not in existing]
        self.tally.skipped += len(rows) - len(kept)
        self.known.update(existing)
        return kept

    def _refused(self, row: Row, exc: errors.ApiError) -> None:
        if isinstance(exc, errors.InsufficientFunds):
            self.tally.held.append((row, f"insufficient funds: {exc.detail}"))
        elif isinstance(exc, errors.BudgetExceeded):
            self.tally.errors.append(RowError(row.line, f"budget exceeded: {exc.detail}"))
        else:
            self.tally.errors.append(RowError(row.line, exc.detail))

    def _existing(self, rows: Sequence[Row]) -> set[str]:
        """Slip ids among `rows` already imported (ROW item) or taken by a slip at that key."""
        keys = [k for r in rows for k in (row_sk(r.slip_id), slip_sk(r.slip.date, r.slip_id))]
        found = self.store.transact_get(self.who, keys)
        return {r.slip_id for i, r in enumerate(rows) if found[2 * i] is not None or found[2 * i + 1] is not None}

    def _ops(self, rows: Sequence[Row]) -> list[TxOp]:
        missing = [r.slip_id for r in rows if r.slip_id not in self.numbers]
        self.numbers.update(zip(missing, self.store.reserve_numbers(self.who, len(missing)), strict=True))
        stamp = now_iso()

        def duplicate(item: Item | None) -> errors.ApiError:
            return errors.AlreadyExists("a row of this batch was already imported")

        ops = [
            self.store.update_op(  # unconditional: this run's count, atomically with its slips
                self.who,
                import_sk(self.sha256),
                "ADD #created :n SET #upd = :now",
                lambda item: errors.Conflict("the import could not be recorded"),
                names={"#created": "created", "#upd": "updated_at"},
                values={":n": len(rows), ":now": stamp},
            )
        ]
        accounts: set[str] = set()
        for row in rows:
            entry = row.slip.entry()
            accounts.update(ledger.accounts_touched(entry))
            item = _slip_item(
                row.slip,
                entry,
                id=row.slip_id,
                no=self.numbers[row.slip_id],
                version=1,
                created_at=stamp,
                updated_at=stamp,
                import_id=self.sha256,
            )
            mark = {
                "SK": row_sk(row.slip_id),
                "type": "import_row",
                "slip_id": row.slip_id,
                "date": row.slip.date,
                "import_id": self.sha256,
                "line": row.line,
                "external_id": row.slip.external_id,
                "created_at": stamp,
            }
            ops.append(self.store.put_op(self.who, item, "attribute_not_exists(SK)", duplicate))
            ops.append(self.store.put_op(self.who, mark, "attribute_not_exists(SK)", duplicate))
        plan = ledger.Plan(
            "create",
            ledger.merge(ledger.effects(r.slip.entry()) for r in rows),
            tuple(sorted(accounts)),
        )
        ops += self.store.balance_ops(
            self.who,
            plan,
            active_accounts=frozenset(accounts),
            missing_account=_missing,
            archived_account=_archived,
        )
        return ops


def _missing(account: str) -> errors.ApiError:
    return errors.ValidationFailed(f"account '{account}' does not exist")


def _archived(account: str) -> errors.ApiError:
    return errors.ValidationFailed(f"account '{account}' is archived")


def batches(rows: Sequence[Row]) -> Iterator[list[Row]]:
    """Consecutive rows, as many per batch as fit in one transaction: the IMPORT counter, a slip
    and a ROW item per row, and every balance item the batch touches (counted before merging)."""
    batch: list[Row] = []
    keys: set[ledger.ItemKey] = set()
    for row in rows:
        entry = row.slip.entry()
        touched = set(ledger.effects(entry)) | {AccountItem(a) for a in ledger.accounts_touched(entry)}
        if batch and 1 + 2 * (len(batch) + 1) + len(keys | touched) > MAX_TX_ITEMS:
            yield batch
            batch, keys = [], set()
        batch.append(row)
        keys |= touched
    if batch:
        yield batch


# ---- export -----------------------------------------------------------------------------------


def export_csv(
    store: Store,
    who: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    cursor: str | None = None,
) -> tuple[str, str | None]:
    """(CSV text, cursor of the next page or None), oldest first, in the import format."""
    lo, hi, start = slip_range(date_from, date_to, cursor)
    slips: list[dict[str, Any]] = []
    size = len(csvio.header_line(subcategory=True))
    next_cursor: str | None = None
    for item in store.query(who, between=(lo, hi), forward=True, start_sk=start, page_size=500):
        slip = slip_view(item)
        line = csvio.slip_line(slip, subcategory=True)  # the longest the line can be
        if slips and size + len(line.encode("utf-8")) > MAX_EXPORT_BYTES:
            next_cursor = encode_cursor({"sk": slips[-1]["SK"]})
            break
        slips.append({**slip, "SK": item["SK"]})
        size += len(line.encode("utf-8"))
    subcategory = any(s.get("subcategory") for s in slips)
    lines = [csvio.slip_line(s, subcategory=subcategory) for s in slips]
    return csvio.header_line(subcategory=subcategory) + "".join(lines), next_cursor
