"""Request and response models: imports."""

from typing import Any, Literal

from pydantic import (
    Field,
)

from kakeibo.models.base import AccountType, Model


class ImportRowError(Model):
    line: int = Field(description="line of the file where the row starts (the header is line 1)")
    message: str


ImportFormat = Literal[
    "kakeibo",
    "mf",
    "zaim",
    # card and bank statements (importformats/issuers: GET /imports/formats)
    "rakuten_card",
    "vpass",
    "jcb",
    "paypay_card",
    "epos",
    "saison",
    "view_card",
    "nicos",
    "aeon_card",
    "amex",
    "yucho",
    "mufg_bank",
    "smbc_bank",
    "sbi_sumishin",
    "rakuten_bank",
    "sbi_shinsei",
    "paypay_bank",
    "ja_bank",
    "sfcard_viewer",
]


class FormatLayout(Model):
    id: str = Field(description="the layout version (an issuer's file has had several)")
    header: str = Field(description="its header line as the issuer writes it (a file without one: its first line)")
    preamble: str | None = Field(default=None, description="the lines before the header, described")
    encoding: str = Field(description="as the issuer writes the file (every file is read in Shift_JIS or UTF-8)")
    source: str = Field(description="the public source the layout was taken from")


class ImportFormatInfo(Model):
    id: ImportFormat = Field(description="the value of ?format= that forces it")
    name: str
    name_en: str
    kind: Literal["app", "card", "bank", "ic"] = Field(
        description="app: another household-ledger app's export (or this API's own CSV); card, bank, ic: the "
        "statement of one account, imported with ?account={id}"
    )
    layouts: list[FormatLayout]
    notes: str = ""


class ImportFormats(Model):
    items: list[ImportFormatInfo]


SkipReason = Literal["blank", "preamble", "header", "section", "note", "total", "payment", "zero"]


class SkippedLine(Model):
    line: int
    reason: SkipReason = Field(
        description="blank; preamble (before the header: account, period, totals); header; section (a heading "
        "within the rows: a card's holder); note (a line about the row before it, or the file); total; payment "
        "(the card's own payment, as the card received it: the daily job posts it from the bank); zero (0 yen)"
    )
    text: str = Field(description="the line's first cells")


class CardPaymentRow(Model):
    line: int = Field(description="the bank row's line")
    card: str = Field(description="the card account it pays")
    closing_date: str
    payment_date: str
    slip_id: str = Field(description="the payment's identity: the slip the daily job posts for that cycle (§13)")
    amount: int = Field(description="what the bank debited")
    posted_amount: int | None = Field(description="already_posted: the amount of the payment the ledger holds")
    action: Literal["post", "already_posted"] = Field(
        description="post: the row becomes the card's payment of that cycle (the daily job then posts nothing); "
        "already_posted: the ledger has it (the daily job, or an earlier import): nothing is written"
    )


class StatementDifference(Model):
    reason: Literal["not_in_ledger", "amount", "outside_period", "not_in_file"] = Field(
        description="not_in_ledger: a row of the file the ledger does not hold (not imported, refused or "
        "deleted); amount: the ledger's slip has another amount (edited here); outside_period: dated outside "
        "the cycle, so the ledger bills it in another one; not_in_file: a slip of the cycle on the card that "
        "the file lacks"
    )
    line: int | None
    slip_id: str
    date: str
    file_amount: int | None = Field(description="what the file says the row adds to the bill (a refund negative)")
    ledger_amount: int | None
    payee: str | None = None


class StatementCheck(Model):
    """A card's file against the card's own statement of its cycle (§13)."""

    account: str
    closing_date: str
    payment_date: str
    period: dict[str, str]
    file_total: int = Field(description="the file's total: the issuer's stated one, else the sum of its rows")
    rows_total: int = Field(description="the sum of the file's rows (charges less refunds)")
    amount_due: int = Field(description="what the ledger says the cycle owes (GET /accounts/{id}/statements)")
    equal: bool = Field(description="file_total == amount_due")
    difference: int = Field(description="file_total - amount_due")
    differing: int = Field(description="rows and slips that differ (all of them; up to 200 listed)")
    differences: list[StatementDifference]


class UnknownAccount(Model):
    name: str = Field(description="as the file names it (matched after NFKC normalisation and trimming)")
    id: str = Field(description="the id it is (or would be) created with")
    type: AccountType = Field(description="guessed from the name")
    rows: int = Field(description="rows naming it")


ImportAction = Literal[
    "create",
    "not_counted",
    "duplicate",
    "error",
    "changed",
    "conflict",
    "stale",
    "missing_in_file",
    "possibly_replaced",
    "deleted",
]


class PreviewRow(Model):
    line: int | None = Field(
        description="line where the row starts (a Money Forward transfer pair: its outgoing side); null for a "
        "slip the file lacks"
    )
    action: ImportAction = Field(
        description="create; not_counted: created as a transfer against a clearing account, the app did not "
        "count it as income or expense; duplicate: imported before, unchanged; error: refused (message says "
        "why); changed: imported before and changed in the app, applied as an update; conflict: changed in "
        "the app and edited here since, left as it is; stale: an older version of the row than the one "
        "already imported (an earlier download sent again), left as it is; missing_in_file: imported from an "
        "earlier download and not in this one (deleted with apply_deletions=true: deleted); possibly_replaced: "
        "a new Zaim row on the day of one no longer in the file (written with apply_deletions=true, which "
        "deletes the old)"
    )
    message: str | None = None
    slip_id: str | None = None
    slip: dict[str, Any] | None = Field(
        default=None, description="the slip the row describes (create: as the ledger's rules make it)"
    )
    rules: list[str] | None = Field(
        default=None, description="create: the ids of the rules that would change its slip, in the order they run"
    )
    current: dict[str, Any] | None = Field(
        default=None,
        description="the ledger's slip as it is after this request (changed: as updated; in a dry run, as it "
        "is now; conflict, stale, missing, replaced: as it is)",
    )
    changes: dict[str, list[Any]] | None = Field(
        default=None, description="changed / conflict: field -> [the ledger's value, the app's value]"
    )


class RuledRow(Model):
    line: int = Field(description="The row's line in the file")
    rules: list[str] = Field(description="The ids of the rules that changed its slip, in the order they ran")


class ImportResult(Model):
    import_id: str = Field(description="sha256 of the file's normalised content")
    status: Literal["complete", "partial"] = Field(
        description="partial: time ran out; send the same file again to import the rest"
    )
    encoding: Literal["utf-8", "shift_jis"]
    rows: int
    created: int = Field(description="slips created by this request")
    skipped: int = Field(description="rows imported before (by this file or another)")
    failed: int
    pending: int = Field(description="rows left for the next request (partial only)")
    errors: list[ImportRowError] = Field(
        description="the first 100 refused rows, by line (all of them, up to 1000: GET /imports/{import_id})"
    )
    format: ImportFormat = Field(description="the file's format, detected from its header or forced with ?format=")
    unknown_accounts: list[UnknownAccount] = Field(
        description="accounts the file names that the ledger did not have (created with create_accounts=true)"
    )
    accounts_created: list[str] = Field(description="ids of the accounts this request created")
    changed: int = Field(description="slips updated because the app changed their row (Money Forward ME)")
    conflicts: int = Field(description="rows the app changed whose slip was edited here since: left as they are")
    stale: int = Field(description="rows older than what was already imported (an earlier download): left as they are")
    missing_in_file: int = Field(description="slips of earlier downloads, in this file's dates, that it lacks")
    deleted: int = Field(description="of those, deleted by this request (apply_deletions=true)")
    possibly_replaced: int = Field(description="Zaim rows that may replace a vanished one (see outcomes)")
    repeated_ids: int = Field(description="Money Forward rows refused because their ID repeats an earlier row's")
    notices: list[str] = Field(description="what the file as a whole needs the reader to know")
    outcomes: list[PreviewRow] = Field(
        description="rows changed, in conflict, possibly replacing another, and slips missing in the file or "
        "deleted (up to 1000)"
    )
    layout: str | None = Field(default=None, description="a statement: the version of its issuer's layout")
    account: str | None = Field(default=None, description="a statement: the account its rows are on")
    skipped_lines: list[SkippedLine] = Field(
        default_factory=list, description="a statement's lines that are no slip, and why (up to 200)"
    )
    card_payments: list[CardPaymentRow] = Field(
        default_factory=list, description="a bank's rows that are payments of the ledger's own cards"
    )
    statement: StatementCheck | None = Field(
        default=None, description="a card's statement: checked against the card's statement of its cycle"
    )
    ruled: list[RuledRow] = Field(
        default_factory=list,
        description="rows the ledger's rules (GET /rules) categorised or added to, with the rules that did "
        "(up to 1000); a category, subcategory or memo the file set is never overwritten",
    )


class ImportPreview(Model):
    """What importing the file would do, counted and listed under the names an import's answer uses."""

    import_id: str
    dry_run: Literal[True]
    format: ImportFormat
    encoding: Literal["utf-8", "shift_jis"]
    rows: int
    created: int = Field(description="slips the import would create (rows whose action is create or not_counted)")
    not_counted: int = Field(description="of those, rows the app did not count as income or expense")
    skipped: int = Field(description="rows imported before (action duplicate)")
    failed: int = Field(description="rows that would be refused (action error)")
    changed: int
    conflicts: int = Field(description="rows the app changed whose slip was edited here since (action conflict)")
    stale: int
    missing_in_file: int
    possibly_replaced: int
    unknown_accounts: list[UnknownAccount]
    accounts_created: list[str] = Field(description="always empty: a dry run creates nothing")
    repeated_ids: int = Field(description="Money Forward rows whose ID repeats an earlier row's")
    notices: list[str] = Field(description="what the file as a whole needs the reader to know")
    layout: str | None = Field(default=None, description="a statement: the version of its issuer's layout")
    account: str | None = Field(default=None, description="a statement: the account its rows are on")
    skipped_lines: list[SkippedLine] = Field(
        default_factory=list, description="a statement's lines that are no slip, and why (up to 200)"
    )
    card_payments: list[CardPaymentRow] = Field(
        default_factory=list, description="a bank's rows that are payments of the ledger's own cards"
    )
    statement: StatementCheck | None = Field(
        default=None, description="a card's statement: checked against the card's statement of its cycle"
    )
    ruled: list[RuledRow] = Field(
        default_factory=list,
        description="rows the ledger's rules (GET /rules) would categorise, rename or add to, with those rules (up "
        "to 1000)",
    )
    outcomes: list[PreviewRow] = Field(
        description="every row, by line: up to 2000, fewer when long memos would pass 300 KB; "
        "the counts cover every row"
    )


class ImportReport(Model):
    import_id: str
    status: Literal["running", "complete", "partial", "interrupted"]
    encoding: Literal["utf-8", "shift_jis"]
    rows: int
    created: int = Field(description="slips created by every run of this file")
    skipped: int = Field(description="rows found imported before, in the last run")
    failed: int
    pending: int
    errors: list[ImportRowError] = Field(description="the first 1000 refused rows of the last run, by line")
    runs: int
    created_at: str | None
    updated_at: str | None


class LedgerMismatch(Model):
    item: str = Field(examples=["DAY#cash#2026-11-03"])
    field: str
    expected: int
    actual: int | None = Field(description="null: the account item itself is missing")


class JournalMismatch(Model):
    type: str
    id: str
    journal: dict[str, Any] | None = Field(description="The entity as its last journal entry left it")
    actual: dict[str, Any] | None = Field(description="The entity as the ledger holds it")


class JournalCheck(Model):
    entries: int
    head: int
    mismatches: list[JournalMismatch] = Field(description="Entities the journal, replayed, does not match")


class BrokenReconciliation(Model):
    """A reconciliation whose asserted balance the ledger no longer has as of its date."""

    account: str
    id: str
    date: str
    balance: int


class LedgerCheck(Model):
    ok: bool
    mismatch_count: int
    mismatches: list[LedgerMismatch]
    journal: JournalCheck | None = None
    reconciliations: list[BrokenReconciliation] = Field(
        default_factory=list, description="Reconciliations that no longer hold (a slip they summed was unlocked)"
    )


class LedgerRebuild(Model):
    complete: bool = Field(description="false: time ran out; run it again to finish")
    written: int = Field(description="balance items rewritten")
    identities: int = Field(default=0, description="identity items written for slips that had none")
    index: int = Field(default=0, description="slip index items written or removed (filtered lists read them)")
    mismatch_count: int
    mismatches: list[LedgerMismatch] = Field(description="what was found (and rewritten)")


class Health(Model):
    status: Literal["ok"]
    version: str
    time_zone: str = Field(
        description="The ledgers' time zone (IANA name): the day a slip, a balance or 'today' falls on",
        examples=["Asia/Tokyo"],
    )
