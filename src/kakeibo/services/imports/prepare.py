"""Before an import writes: the file read in its format, its accounts matched (and created on
request), and — for a dry run — what each row would do, without writing anything."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from kakeibo import errors, settings
from kakeibo.core.rules import RuleSet
from kakeibo.csvio import CsvFile, Row
from kakeibo.importformats import accounts as matching
from kakeibo.importformats import detect
from kakeibo.importformats.statement import Statement
from kakeibo.importformats.statement import file_rows as statement_rows
from kakeibo.models.accounts import AccountCreate
from kakeibo.models.slips import ImportRow
from kakeibo.services import accounts as account_service
from kakeibo.services import rules as rules_service
from kakeibo.services.imports import statements as statements_service
from kakeibo.services.imports import sync as import_sync
from kakeibo.store import Item, Store, WriteContext

MAX_PREVIEW_ROWS = 2000
# The rows listed stay well inside DynamoDB's 400 KB item, where Powertools keeps the answer of a
# request sent with an Idempotency-Key: as a JSON string inside JSON, each non-ASCII character
# escaped to 6 bytes (a row with a 500-character Japanese memo takes about 3 KB there).
MAX_PREVIEW_BYTES = 300_000
MAX_SKIPPED = 200  # a statement's skipped lines listed (blank, preamble, totals, notes...)
AccountProblem = Callable[[Row, dict[str, Item]], str | None]


@dataclass(frozen=True)
class Options:
    format: str | None = None  # None: detected from the header
    create_accounts: bool = False
    dry_run: bool = False
    apply_deletions: bool = False  # delete the rows earlier downloads brought that the file lacks
    by_content: bool = False  # Money Forward rows identified by their content, not their ID
    account: str | None = None  # a card's or bank's statement: the account it is the statement of


@dataclass
class Prepared:
    format: str
    file: CsvFile
    accounts: dict[str, Item]  # the ledger's accounts by id (after any were created)
    unknown: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    repeated_ids: int = 0
    statement: Statement | None = None  # a card's or bank's statement (its rows are `file`'s)
    account: str | None = None  # the account a statement is of
    payments: list[dict[str, Any]] = field(default_factory=list)  # bank rows that are the ledger's card payments

    @property
    def payment_ids(self) -> set[str]:
        return {p["slip_id"] for p in self.payments}

    def summary(self) -> dict[str, Any]:
        notices = []
        if self.repeated_ids:
            notices.append(
                f"{self.repeated_ids} rows repeat an ID of an earlier row (a file edited by hand or anonymised): "
                "they are refused; import the file with identity=content to read its rows by their content"
            )
        statement = self.statement
        if statement is not None and statement.kind == "card" and self.account_type not in (None, "credit"):
            notices.append(f"this is a card's statement, imported onto a {self.account_type} account")
        if statement is not None and statement.kind == "bank" and self.account_type not in (None, "bank"):
            notices.append(f"this is a bank's statement, imported onto a {self.account_type} account")
        return {
            "format": self.format,
            "unknown_accounts": self.unknown,
            "accounts_created": self.created,
            "repeated_ids": self.repeated_ids,
            "notices": notices,
            "layout": statement.layout if statement is not None else None,
            "account": self.account,
            "skipped_lines": [
                {"line": s.line, "reason": s.reason, "text": s.text} for s in statement.skipped[:MAX_SKIPPED]
            ]
            if statement is not None
            else [],
            "card_payments": self.payments,
        }

    @property
    def account_type(self) -> str | None:
        item = self.accounts.get(self.account or "")
        return None if item is None else str(item.get("type"))


def prepare(store: Store, ctx: WriteContext, data: bytes, charset: str | None, options: Options) -> Prepared:
    ledger = ctx.ledger
    source = detect.read(data, charset, options.format, by_content=options.by_content, today=settings.today())
    listing = account_service.list_accounts(store, ledger)
    if isinstance(source, Statement):
        return _statement(store, ledger, source, _by_id(listing), options.account)
    if options.account is not None:
        raise errors.ValidationFailed(
            "account: names the account a card's or bank's statement is of; this file is not one (send it "
            "without ?account=)",
            errors=[{"loc": ["query", "account"], "msg": "only for a statement"}],
        )
    if isinstance(source, CsvFile):  # this API's own: its rows name accounts by id
        file, unknown, fmt, repeated = source, matching.unknown_ids(source, listing), detect.KAKEIBO, 0
    else:
        resolved = matching.resolve(source, listing, create=options.create_accounts)
        file, unknown, fmt, repeated = resolved.file, resolved.unknown, source.format, source.repeated_ids
    created: list[str] = []
    if options.create_accounts and unknown and not options.dry_run:
        created = _create(store, ctx, unknown)
        listing = account_service.list_accounts(store, ledger)
        if not isinstance(source, CsvFile):
            file = matching.resolve(source, listing, create=False).file
    accounts = _by_id(listing)
    if options.dry_run and options.create_accounts:  # as they would be once created
        accounts.update({u["id"]: {"id": u["id"], "name": u["name"], "archived": False} for u in unknown})
    return Prepared(fmt, file, accounts, unknown, created, repeated)


def _statement(
    store: Store, ledger: str, statement: Statement, accounts: dict[str, Item], account: str | None
) -> Prepared:
    """A card's or bank's statement as rows on `account` (required: the file does not name it), the
    bank rows that pay the ledger's own cards recognised as those payments."""
    if account is None:
        raise errors.ValidationFailed(
            "account: name the account this statement is of (?account={id}): the file does not say",
            errors=[{"loc": ["query", "account"], "msg": "required for a statement"}],
        )
    if account not in accounts:
        raise errors.ValidationFailed(
            f"account: '{account}' is not an account of the ledger",
            errors=[{"loc": ["query", "account"], "msg": "not an account of the ledger"}],
        )
    file = statement_rows(statement, account)
    payments = statements_service.card_payments(store, ledger, account, statement, file, accounts=accounts)
    return Prepared(statement.format, file, accounts, statement=statement, account=account, payments=payments)


def _by_id(listing: list[dict[str, Any]]) -> dict[str, Item]:
    return {a["id"]: a for a in listing}


def _create(store: Store, ctx: WriteContext, unknown: list[dict[str, Any]]) -> list[str]:
    created = []
    for account in unknown:
        body = AccountCreate(id=account["id"], name=account["name"][:100], type=account["type"], allow_negative=True)
        with suppress(errors.AlreadyExists):  # a concurrent import of the same file made it
            account_service.create_account(store, ctx, body)
            created.append(account["id"])
    return created


STATEMENT_TYPES = ("bank", "credit")  # accounts whose rows come from a statement: they arrive cleared


def as_arrived(slip: ImportRow, accounts: dict[str, Item]) -> ImportRow:
    """The row's slip as it is created: each side on a bank or card account is `cleared` (the
    bank's or the card company's file is its statement), unless the row (or a rule) says otherwise.
    Compared with later downloads as the file wrote it (the file does not say; the ledger does)."""
    update: dict[str, str] = {}
    if slip.cleared is None and _arrives_cleared(slip.account, accounts):
        update["cleared"] = "cleared"
    if slip.kind == "transfer" and slip.to_cleared is None and _arrives_cleared(slip.to_account, accounts):
        update["to_cleared"] = "cleared"
    return slip.model_copy(update=update) if update else slip


def _arrives_cleared(account: str | None, accounts: dict[str, Item]) -> bool:
    return account is not None and (accounts.get(account) or {}).get("type") in STATEMENT_TYPES


def as_ruled(rule_set: RuleSet, row: Row, accounts: dict[str, Item]) -> tuple[Row, tuple[str, ...]]:
    """`row` as the ledger's rules make it, and the rules that changed it (rules.ruled_row): the
    rules see its side in the state it would arrive in (`as_arrived`), so one may leave a statement's
    row to be checked (cleared false) or mark a wallet's row cleared."""
    return rules_service.ruled_row(rule_set, row, arrives_cleared=_arrives_cleared(row.slip.account, accounts))


def preview(store: Store, ledger: str, prepared: Prepared, problem: AccountProblem) -> dict[str, Any]:
    """What importing the file would do, row by row; writes nothing. Rows already imported (by
    this file or an overlapping one) are duplicates; rows an app did not count as income or
    expense are not_counted (imported as transfers against a clearing account). Refusals that
    depend on the money at the time of writing (insufficient funds, a strict budget) are found
    only by the import itself."""
    parsed = prepared.file
    existing = (
        store.imports.used_slip_ids(ledger) if parsed.valid else set()
    )  # identities (live or deleted), legacy ROW# marks
    items: list[dict[str, Any]] = [{"line": e.line, "action": "error", "message": e.message} for e in parsed.errors]
    writable = []
    for row in parsed.valid:
        reason = problem(row, prepared.accounts)
        if reason is not None:
            slip = row.slip.model_dump(exclude_none=True, exclude={"external_id"})
            items.append({"line": row.line, "action": "error", "message": reason, "slip": slip})
        else:
            writable.append(row)
    sync = compare(store, ledger, prepared, writable, used=existing)
    synced = import_sync.outcomes(sync)
    listed = {i["slip_id"] for i in synced}
    rule_set = rules_service.load(store, ledger) if writable else None  # one read: every rule of the ledger
    ruled: list[dict[str, Any]] = []
    for row in writable:
        if row.slip_id in listed:
            continue
        counted = "create" if row.counted else "not_counted"
        action = "duplicate" if row.slip_id in existing or row.legacy_id in existing else counted
        outcome: dict[str, Any] = {"line": row.line, "action": action, "slip_id": row.slip_id}
        if action != "duplicate" and rule_set is not None:  # as the import would write it
            written, touched = as_ruled(rule_set, row, prepared.accounts)
            if touched:
                outcome["rules"] = list(touched)
                ruled.append({"line": row.line, "rules": list(touched)})
        else:
            written = row
        outcome["slip"] = written.slip.model_dump(exclude_none=True, exclude={"external_id"})
        items.append(outcome)
    items += synced
    items.sort(key=lambda i: (i["line"] is None, i["line"] or 0))
    counts = Counter(i["action"] for i in items)
    return {
        "import_id": parsed.sha256,
        "dry_run": True,
        "encoding": parsed.encoding,
        "rows": parsed.rows,
        **{count: sum(counts[action] for action in actions) for count, actions in COUNTS.items()},
        **prepared.summary(),
        "statement": statement_check(store, ledger, prepared),
        "outcomes": _listed(items),
        "ruled": ruled[: rules_service.MAX_RULED_ROWS],
    }


def compare(
    store: Store, ledger: str, prepared: Prepared, rows: list[Row], *, used: set[str] | None = None
) -> import_sync.Sync:
    """The rows against earlier downloads (import_sync.compare); a bank row that is a card's payment
    is that payment, never compared as a row. `used`: the ledger's used slip ids, when read already."""
    statement = prepared.statement
    paying = prepared.payment_ids
    return import_sync.compare(
        store,
        ledger,
        prepared.format,
        [r for r in rows if r.slip_id not in paying],
        account=prepared.account,
        lists_missing=statement is None or statement.kind != "card",
        used=used,
    )


def statement_check(
    store: Store, ledger: str, prepared: Prepared, written: dict[str, Item] | None = None
) -> dict[str, Any] | None:
    """A card's file against the card's statement of its cycle, as the ledger holds it now (§13);
    `written`: the slips this request created, by id, as it wrote them (not read back)."""
    statement = prepared.statement
    if statement is None or statement.kind != "card" or prepared.account is None:
        return None
    card = account_service.account_item(store, ledger, prepared.account)
    return statements_service.check(store, ledger, card, statement, prepared.file, written=written)


# A dry run's counts, named as an import's answer names them: count -> the row actions it counts
COUNTS = {
    "created": ("create", "not_counted"),
    "not_counted": ("not_counted",),
    "skipped": ("duplicate",),
    "failed": ("error",),
    "changed": ("changed",),
    "conflicts": ("conflict",),
    "stale": ("stale",),
    "missing_in_file": ("missing_in_file",),
    "possibly_replaced": ("possibly_replaced",),
}


def _listed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first rows, by line: at most MAX_PREVIEW_ROWS, and no more than fit in MAX_PREVIEW_BYTES
    as they are stored (the answer's body, itself a string in the stored JSON)."""
    size = 0
    for count, item in enumerate(items[:MAX_PREVIEW_ROWS]):
        size += len(json.dumps(json.dumps(item, ensure_ascii=False, separators=(",", ":"))))
        if size > MAX_PREVIEW_BYTES:
            return items[:count]
    return items[:MAX_PREVIEW_ROWS]
