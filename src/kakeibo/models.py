"""Request and response models. Requests forbid unknown fields and never coerce types.

No `from __future__ import annotations` here: with it, pydantic evaluates each of the ~500 field
annotations from its string (one `compile` each), about 20 ms of every cold start."""

import datetime as dt
import re
import unicodedata
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from kakeibo.core.posting import MAX_LINES, UNCATEGORIZED, Entry, Kind, Line

MAX_AMOUNT = 10**12
MIN_YEAR, MAX_YEAR = 1900, 2999

ACCOUNT_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ACCOUNT_ID_PATTERN = ACCOUNT_ID_RE.pattern
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DATE_PATTERN = DATE_RE.pattern
MONTH_RE = re.compile(r"^\d{4}-\d{2}$")
MONTH_PATTERN = MONTH_RE.pattern
YEAR_RE = re.compile(r"^\d{4}$")
YEAR_PATTERN = YEAR_RE.pattern


def parse_date(value: str) -> dt.date:
    """A real calendar date, YYYY-MM-DD, within the years the ledger accepts."""
    if not DATE_RE.match(value):
        raise ValueError("must be a date YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError("is not a real calendar date") from None
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise ValueError(f"year must be between {MIN_YEAR} and {MAX_YEAR}")
    return day


def _check_date(value: str) -> str:
    parse_date(value)
    return value


def check_month(value: str) -> str:
    if not MONTH_RE.match(value):
        raise ValueError("must be a month YYYY-MM")
    year, month = int(value[:4]), int(value[5:])
    if not (1 <= month <= 12 and MIN_YEAR <= year <= MAX_YEAR):
        raise ValueError("is not a real month")
    return value


# Unicode categories never accepted: controls, surrogates, private use, unassigned.
_REJECTED = {"Cc", "Cs", "Co", "Cn"}
# Bidirectional embeddings, overrides and isolates: they make text display other than it reads
# ("Trojan Source"), so no field takes them, not even a memo, which takes other format characters.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _text(*, allow_newlines: bool = False, allow_format: bool = False, forbid: str = "") -> Any:
    def check(value: str) -> str:
        value = unicodedata.normalize("NFC", value).strip()
        for ch in value:
            cat = unicodedata.category(ch)
            if allow_newlines and ch in "\n\t":
                continue
            if ch in BIDI_CONTROLS:
                raise ValueError(f"contains a bidirectional control character U+{ord(ch):04X}")
            if cat in _REJECTED or (cat == "Cf" and not allow_format):
                raise ValueError(f"contains a disallowed character U+{ord(ch):04X}")
            if ch in forbid:
                raise ValueError(f"must not contain {ch!r}")
        if not value:
            raise ValueError("must not be blank")
        return value

    return AfterValidator(check)


Date = Annotated[str, Field(pattern=DATE_PATTERN, examples=["2026-11-21"]), AfterValidator(_check_date)]
Month = Annotated[str, Field(pattern=MONTH_PATTERN, examples=["2026-11"]), AfterValidator(check_month)]
AccountId = Annotated[str, Field(pattern=ACCOUNT_ID_PATTERN, examples=["cash"])]
Amount = Annotated[StrictInt, Field(ge=1, le=MAX_AMOUNT, examples=[1200])]
SignedAmount = Annotated[StrictInt, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Name = Annotated[str, Field(min_length=1, max_length=100), _text()]
Category = Annotated[str, Field(min_length=1, max_length=50, examples=["食費"]), _text(forbid="#")]
Memo = Annotated[str, Field(max_length=500), _text(allow_newlines=True, allow_format=True)]
AccountType = Literal["cash", "bank", "emoney", "credit", "other"]


class Model(BaseModel):
    """Every model here. Validators are built on first use, not at import: most models only describe
    responses in the OpenAPI document, and building them all cost a cold start tens of ms."""

    model_config = ConfigDict(defer_build=True)


class Strict(Model):
    model_config = ConfigDict(extra="forbid")


# ---- accounts ---------------------------------------------------------------------------------


# 1-31 or "last" (a one-value enum, see MonthDay): a day the month lacks is its last day
BillingDay = (
    Annotated[StrictInt, Field(ge=1, le=31, description="1-31 (a day the month lacks is its last day)")]
    | Annotated[Literal["last"], WithJsonSchema({"type": "string", "enum": ["last"]})]
)
ShiftName = Literal["none", "previous_business_day", "next_business_day"]


class BillingIn(Strict):
    """When a credit card's charges close (締め日) and are debited (引き落とし日), and from where."""

    closing_day: BillingDay
    payment_day: BillingDay
    payment_month_offset: Literal[1, 2] = Field(
        default=1, description="1: paid the month after the closing month; 2: the month after that"
    )
    pay_from: AccountId = Field(description="The bank account the payment is debited from")
    shift: ShiftName = Field(
        default="none",
        description="Moves a payment due on a weekend or Japanese public holiday (the calendar recurring slips use)",
    )


class AccountCreate(Strict):
    id: AccountId
    name: Name
    type: AccountType
    opening_balance: SignedAmount = 0
    allow_negative: StrictBool | None = Field(
        default=None, description="May the balance go below zero? Default: true for credit, else false."
    )
    billing: BillingIn | None = Field(default=None, description="Credit cards only: closing and payment days")

    @property
    def negative_allowed(self) -> bool:
        return self.allow_negative if self.allow_negative is not None else self.type == "credit"

    @model_validator(mode="after")
    def _opening(self) -> Self:
        if self.opening_balance < 0 and not self.negative_allowed:
            raise ValueError("opening_balance below zero needs allow_negative (or a credit account)")
        return self


class AccountPatch(Strict):
    name: Name | None = None
    allow_negative: StrictBool | None = None
    archived: StrictBool | None = None
    billing: BillingIn | None = Field(default=None, description="Credit cards only; null removes it")

    @model_validator(mode="after")
    def _not_null(self) -> Self:
        for name in self.model_fields_set - {"billing"}:
            if getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        if not self.model_fields_set:
            raise ValueError("nothing to change")
        return self


class Billing(Model):
    closing_day: int | Literal["last"]
    payment_day: int | Literal["last"]
    payment_month_offset: int
    pay_from: str
    shift: ShiftName


class CardPayments(Model):
    """Where the daily job is with a card's payments."""

    next_closing: str = Field(description="Closing date of the next cycle to be paid")
    next_payment: str = Field(description="The day that payment is debited (shifted onto a business day)")
    paid_through: str | None = Field(description="Closing date of the last cycle whose payment was posted")
    last_error: dict[str, Any] | None = Field(
        description="Why the next payment could not be posted (tried again next run)"
    )


class Account(Model):
    id: str
    name: str
    type: AccountType
    opening_balance: int
    balance: int
    allow_negative: bool
    archived: bool
    billing: Billing | None = None
    payments: CardPayments | None = None
    version: int
    created_at: str
    updated_at: str


class AccountList(Model):
    items: list[Account]


class HistoryPoint(Model):
    date: str
    delta: int
    balance: int


class AccountHistory(Model):
    account: str
    from_: str = Field(alias="from")
    to: str
    opening_balance: int
    items: list[HistoryPoint]

    model_config = ConfigDict(populate_by_name=True)


class Period(Model):
    from_: str = Field(alias="from")
    to: str

    model_config = ConfigDict(populate_by_name=True)


class Statement(Model):
    """One billing cycle of a credit card, named by its closing date."""

    closing_date: str
    payment_date: str = Field(description="Shifted onto a business day where the billing says so")
    period: Period = Field(description="The days whose slips the cycle holds (after the previous closing date)")
    state: Literal["open", "closed", "paid"] = Field(
        description="paid: its payment slip is posted; open: not, and the closing date is today or later; "
        "closed: not, and the cycle has closed"
    )
    charges: int = Field(description="Expenses and transfers out of the card in the period")
    refunds: int = Field(description="Income to the card in the period (refunds, cashback)")
    payments: int = Field(description="Transfers into the card in the period (any payments made then)")
    amount_due: int = Field(
        description="What the card owes at the closing date less what earlier cycles' payments still to "
        "come settle: a slip moved into a cycle after its payment is owed with the next"
    )
    paid: int = Field(description="The amount of this cycle's payment slip (0 until it is posted)")
    payment_slip_id: str = Field(description="The id this cycle's payment is (or will be) posted under")
    slips_count: int


class StatementList(Model):
    account: str
    items: list[Statement] = Field(description="Cycles whose closing date falls in from..to, oldest first")


# ---- receipts ---------------------------------------------------------------------------------

RECEIPT_TYPES = ("image/jpeg", "image/png", "image/webp", "image/heic", "application/pdf")
MAX_RECEIPT_BYTES = 10 * 1024 * 1024
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="hex sha256 of the file's bytes (lowercase)")]


MAX_RECEIPTS = 5  # per slip: old and new ones fit the items a slip's transaction keeps for them (ledger)


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("a receipt is attached once")
    return sorted(values)


Receipts = Annotated[
    list[Sha256],
    Field(max_length=MAX_RECEIPTS, description=f"ids of stored receipts (at most {MAX_RECEIPTS})"),
    AfterValidator(_distinct),
]


class ReceiptIn(Strict):
    sha256: Sha256
    size: Annotated[StrictInt, Field(ge=1, le=MAX_RECEIPT_BYTES, description="bytes, at most 10 MB")]
    content_type: Literal["image/jpeg", "image/png", "image/webp", "image/heic", "application/pdf"]


class Upload(Model):
    url: str
    method: Literal["PUT"]
    headers: dict[str, str] = Field(description="send exactly these with the bytes")


class Download(Model):
    url: str
    expires_at: str


class Receipt(Model):
    id: str = Field(description="the sha256 of its bytes")
    state: Literal["pending", "stored"]
    size: int
    content_type: str
    upload: Upload | None = Field(default=None, description="pending: where to PUT the bytes, once")
    expires_at: str | None = Field(default=None, description="pending: when the upload URL and its lease end")
    slips: list[str] = Field(default_factory=list, description="ids of the slips it is attached to")
    download: Download | None = Field(default=None, description="stored: a presigned GET, valid for minutes")
    created_at: str
    stored_at: str | None = None


# ---- slips ------------------------------------------------------------------------------------


class LineIn(Strict):
    """One line of a split slip: part of its amount in a category of its own."""

    amount: Amount
    category: Category
    subcategory: Category | None = None
    memo: Memo | None = None


Lines = Annotated[
    list[LineIn],
    Field(
        min_length=2,
        max_length=MAX_LINES,
        description=f"A split: 2 to {MAX_LINES} lines whose amounts sum exactly to the slip's amount "
        "(the slip then has no category of its own). Expense and income only.",
    ),
]


def check_lines(kind: str, amount: int | None, category: str | None, lines: list[LineIn] | None) -> None:
    """A split slip's rules (the same for a slip, a recurring slip's template and an import row)."""
    if lines is None:
        return
    if kind == "transfer":
        raise ValueError("a transfer has no lines")
    if category is not None:
        raise ValueError("a split slip has no category of its own: its lines have them")
    total = sum(line.amount for line in lines)
    if amount is not None and total != amount:
        raise PydanticCustomError(
            "lines_sum_mismatch",
            "the lines sum to {total}, not the slip's amount {amount}",
            {"total": total, "amount": amount},
        )


UserId = Annotated[str, Field(min_length=1, max_length=128, examples=["hanako"]), _text()]
ShareAmount = Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT)]
Shares = Annotated[
    Literal["equal"] | dict[UserId, ShareAmount],
    Field(
        description="Each member's burden of the amount: \"equal\" (split among the ledger's members, the yen "
        "that do not divide to the first in user order), or `{user: amount}` summing to the amount. Shared "
        "ledgers, expenses with `paid_by` only.",
        examples=["equal", {"taro": 2000, "hanako": 1000}],
    ),
]
PAID_BY_DESCRIPTION = (
    "The member who paid from their own pocket (立替; shared ledgers, expenses only): the slip moves the "
    "ledger's nets (GET /ledgers/{ledger}/settlement). Without `shares` the amount is shared equally."
)


class SlipIn(Strict):
    date: Date
    kind: Kind
    amount: Amount
    account: AccountId
    to_account: AccountId | None = None
    category: Category | None = None
    subcategory: Category | None = Field(
        default=None, description="Within category (e.g. 食費 > 外食); reports break categories down by it"
    )
    memo: Memo | None = None
    lines: Lines | None = None
    paid_by: UserId | None = Field(default=None, description=PAID_BY_DESCRIPTION)
    shares: Shares | None = None
    receipts: Receipts | None = None

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.subcategory is not None and self.category is None:
            raise ValueError("a subcategory needs a category")
        if self.kind == "transfer":
            if self.to_account is None:
                raise ValueError("a transfer needs to_account")
            if self.to_account == self.account:
                raise ValueError("to_account must differ from account")
            if self.category is not None:
                raise ValueError("a transfer has no category")
        elif self.to_account is not None:
            raise ValueError(f"to_account is only for transfers, not {self.kind}")
        check_lines(self.kind, self.amount, self.category, self.lines)
        return self

    def entry(self) -> Entry:
        if self.lines:
            parts = tuple(Line(line.amount, line.category, line.subcategory) for line in self.lines)
            return Entry(self.date, self.kind, self.amount, self.account, None, None, None, parts)
        category = None if self.kind == "transfer" else (self.category or UNCATEGORIZED)
        return Entry(self.date, self.kind, self.amount, self.account, self.to_account, category, self.subcategory)


ExternalId = Annotated[str, Field(min_length=1, max_length=128, examples=["smbc-20261103-0001"]), _text()]


class ImportRow(SlipIn):
    """One CSV row: exactly a POST /slips body (same rules), plus the source's own transaction id.
    A row with `line` is one line of a split slip: the rows sharing its external_id are the slip
    (amount, category, subcategory and memo the line's; `slip_memo` the slip's own memo)."""

    external_id: ExternalId | None = None
    line: Annotated[StrictInt, Field(ge=1, le=MAX_LINES)] | None = None
    slip_memo: Memo | None = None


class SlipTemplatePatch(Strict):
    """JSON merge patch (RFC 7396) of a slip's fields but its date (a recurring slip's template):
    absent = unchanged, null = remove (optional fields)."""

    kind: Kind | None = None
    amount: Amount | None = None
    account: AccountId | None = None
    to_account: AccountId | None = None
    category: Category | None = None
    subcategory: Category | None = None
    memo: Memo | None = None
    lines: Lines | None = None


class SlipPatch(SlipTemplatePatch):
    """JSON merge patch (RFC 7396) of a slip: absent = unchanged, null = remove (optional fields)."""

    date: Date | None = None
    paid_by: UserId | None = Field(default=None, description=PAID_BY_DESCRIPTION + " null: nobody (shares go too).")
    shares: Shares | None = None
    receipts: Receipts | None = Field(default=None, description="the receipts it has, whole; null: none")


class SlipLine(Model):
    """A split slip's line as the API answers it."""

    amount: int
    category: str
    category_label: str | None = Field(default=None, description="The category in words, in your language")
    subcategory: str | None = None
    memo: str | None = None


class Slip(Model):
    id: str
    no: int
    date: str
    kind: Kind
    amount: int
    account: str
    to_account: str | None = None
    category: str | None = None
    category_label: str | None = Field(
        default=None,
        description="the category in words, in the language asked for (Accept-Language): "
        "未分類 / Uncategorized for the key uncategorized, the category itself otherwise",
    )
    subcategory: str | None = None
    memo: str | None = None
    lines: list[SlipLine] | None = Field(default=None, description="A split slip's lines (null: not split)")
    receipts: list[str] = Field(default_factory=list, description="ids of the receipts attached to it")
    version: int
    created_at: str
    updated_at: str
    created_by: str | None = Field(description="Who recorded it (a user id; null on older slips)")
    updated_by: str | None = Field(description="Who changed it last (a user id; null on older slips)")
    paid_by: str | None = Field(default=None, description="Who paid from their own pocket (null: nobody)")
    shares: dict[str, int] | None = Field(default=None, description="Each member's burden, in yen (null: none)")
    shares_mode: Literal["equal", "custom"] | None = Field(
        default=None, description='"equal": the shares are split again among the members when the amount changes'
    )


class SlipList(Model):
    items: list[Slip]
    next_cursor: str | None


# ---- balances and reports ---------------------------------------------------------------------


class BalanceItem(Model):
    account: str
    balance: int


class Balances(Model):
    date: str | None = Field(description="null for current balances, else the day they are as of")
    items: list[BalanceItem]


class SubcategoryTotal(Model):
    subcategory: str | None = Field(description="null: the category's slips without a subcategory")
    income: int
    expense: int


class CategoryTotal(Model):
    category: str
    category_label: str | None = Field(
        default=None,
        description="the category in words, in the language asked for (Accept-Language): "
        "未分類 / Uncategorized for the key uncategorized, the category itself otherwise",
    )
    income: int
    expense: int
    subcategories: list[SubcategoryTotal] | None = Field(
        default=None, description="the category broken down by subcategory; absent when none of its slips has one"
    )


class AccountTotal(Model):
    account: str
    income: int
    expense: int
    net: int


class MonthlyReport(Model):
    month: str
    income: int
    expense: int
    net: int
    by_category: list[CategoryTotal]
    by_account: list[AccountTotal]


class YearlyReport(Model):
    year: str
    income: int
    expense: int
    net: int
    by_category: list[CategoryTotal] = Field(description="the year's totals per category")
    by_account: list[AccountTotal] = Field(description="the year's totals per account")
    months: list[MonthlyReport] = Field(description="the twelve months, January first, each as its monthly report")


# ---- budgets ----------------------------------------------------------------------------------


class BudgetIn(Strict):
    limit: Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT, examples=[30000])]
    strict: StrictBool = Field(
        default=False, description="Refuse writes that would push the month's spending past the limit"
    )


class Budget(Model):
    month: str
    category: str
    category_label: str | None = Field(
        default=None,
        description="the category in words, in the language asked for (Accept-Language): "
        "未分類 / Uncategorized for the key uncategorized, the category itself otherwise",
    )
    limit: int
    spent: int = Field(description="expenses less refunds (income) in this category and month")
    remaining: int
    strict: bool
    version: int


class BudgetList(Model):
    month: str
    items: list[Budget]


# ---- imports and ledger maintenance ------------------------------------------------------------


class ImportRowError(Model):
    line: int = Field(description="line of the file where the row starts (the header is line 1)")
    message: str


ImportFormat = Literal["kakeibo", "mf", "zaim"]


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
    slip: dict[str, Any] | None = Field(default=None, description="the slip the row describes")
    current: dict[str, Any] | None = Field(
        default=None, description="the ledger's slip as it is (changed, conflict, missing, replaced)"
    )
    changes: dict[str, list[Any]] | None = Field(
        default=None, description="changed / conflict: field -> [the ledger's value, the app's value]"
    )


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


class ImportPreview(Model):
    import_id: str
    dry_run: Literal[True]
    format: ImportFormat
    encoding: Literal["utf-8", "shift_jis"]
    rows: int
    create: int
    not_counted: int
    duplicate: int
    error: int
    changed: int
    conflict: int
    stale: int
    missing_in_file: int
    possibly_replaced: int
    unknown_accounts: list[UnknownAccount]
    accounts_created: list[str] = Field(description="always empty: a dry run creates nothing")
    repeated_ids: int = Field(description="Money Forward rows whose ID repeats an earlier row's")
    notices: list[str] = Field(description="what the file as a whole needs the reader to know")
    items: list[PreviewRow] = Field(
        description="the first rows, by line: up to 2000, fewer when long memos would pass 300 KB; "
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


class LedgerCheck(Model):
    ok: bool
    mismatch_count: int
    mismatches: list[LedgerMismatch]
    journal: JournalCheck | None = None


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


# ---- recurrences ------------------------------------------------------------------------------

Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
# "last" is described as a one-value enum, not a const: openapi-python-client 0.29 parses a const
# member of a union without trying the others, so its models refused by_month_day 27.
MonthDay = (
    Annotated[StrictInt, Field(ge=-1, le=31, description="1-31, or -1 for the month's last day")]
    | Annotated[Literal["last"], WithJsonSchema({"type": "string", "enum": ["last"]})]
)
MAX_RECURRENCE_COUNT = 10_000


class SlipTemplate(Strict):
    """What every occurrence posts: a POST /slips body without its date."""

    kind: Kind
    amount: Amount
    account: AccountId
    to_account: AccountId | None = None
    category: Category | None = None
    subcategory: Category | None = None
    memo: Memo | None = None
    lines: Lines | None = None

    @model_validator(mode="after")
    def _shape(self) -> Self:
        try:
            SlipIn.model_validate({"date": "2000-01-01", **self.model_dump(exclude_none=True)})
        except ValidationError as exc:  # the same rules as a slip: transfers, categories, lines
            first = exc.errors()[0]
            if first["type"] == "lines_sum_mismatch":
                raise PydanticCustomError("lines_sum_mismatch", first["msg"], first.get("ctx")) from None
            raise ValueError(first["msg"].removeprefix("Value error, ")) from None
        return self


class RuleIn(Strict):
    freq: Literal["daily", "weekly", "monthly", "yearly"]
    interval: Annotated[StrictInt, Field(ge=1, le=1000)] = 1
    by_weekday: Annotated[list[Weekday], Field(min_length=1, max_length=7)] | None = Field(
        default=None, description="weekly only; default: the start's weekday"
    )
    by_month_day: MonthDay | Annotated[list[MonthDay], Field(min_length=1, max_length=31)] | None = Field(
        default=None,
        description="monthly / yearly; default: the start's day. A day the month lacks is its last day",
    )
    start: Date
    until: Date | None = None
    count: Annotated[StrictInt, Field(ge=1, le=MAX_RECURRENCE_COUNT)] | None = Field(
        default=None, description="how many occurrences are scheduled in all, counted from start"
    )

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.until is not None and self.count is not None:
            raise ValueError("give until or count, not both")
        if self.until is not None and self.until < self.start:
            raise ValueError("until is before start")
        if self.by_weekday is not None and self.freq != "weekly":
            raise ValueError("by_weekday is for weekly rules")
        if self.by_month_day is not None and self.freq not in ("monthly", "yearly"):
            raise ValueError("by_month_day is for monthly and yearly rules")
        days = self.by_month_day if isinstance(self.by_month_day, list) else [self.by_month_day]
        if any(day == 0 for day in days):
            raise ValueError("by_month_day is 1-31, -1 or 'last'")
        return self


class RecurrenceIn(Strict):
    slip: SlipTemplate
    rule: RuleIn
    shift: ShiftName = "none"


class RulePatch(Strict):
    freq: Literal["daily", "weekly", "monthly", "yearly"] | None = None
    interval: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None
    by_weekday: Annotated[list[Weekday], Field(min_length=1, max_length=7)] | None = None
    by_month_day: MonthDay | Annotated[list[MonthDay], Field(min_length=1, max_length=31)] | None = None
    start: Date | None = None
    until: Date | None = None
    count: Annotated[StrictInt, Field(ge=1, le=MAX_RECURRENCE_COUNT)] | None = None


class RecurrencePatch(Strict):
    """JSON merge patch (RFC 7396): nested objects merge, null removes an optional field."""

    slip: SlipTemplatePatch | None = None
    rule: RulePatch | None = None
    shift: ShiftName | None = None


class Rule(Model):
    freq: str
    interval: int
    by_weekday: list[str] | None = None
    by_month_day: int | str | list[int | str] | None = None
    start: str
    until: str | None = None
    count: int | None = None


class OccurrenceError(Model):
    date: str = Field(description="the day the occurrence posts on")
    scheduled: str
    code: str = Field(examples=["insufficient_funds"])
    detail: str
    at: str


class RecurringSlip(Model):
    kind: Kind
    amount: int
    account: str
    to_account: str | None = None
    category: str | None = None
    subcategory: str | None = None
    memo: str | None = None


class Recurrence(Model):
    id: str
    slip: RecurringSlip
    rule: Rule
    shift: ShiftName
    next_due: str | None = Field(description="the day the next occurrence posts on; null: the rule has ended")
    next_scheduled: str | None
    posted_through: str | None = Field(description="scheduled date of the last occurrence posted")
    last_error: OccurrenceError | None = Field(description="why the occurrence at next_due could not be posted")
    version: int
    created_at: str
    updated_at: str


class RecurrenceList(Model):
    items: list[Recurrence]


class OccurrenceView(Model):
    scheduled: str
    date: str
    shifted: bool
    status: Literal["posted", "failed", "pending"]
    slip_id: str


class OccurrenceList(Model):
    id: str
    from_: str = Field(alias="from")
    to: str
    items: list[OccurrenceView]

    model_config = ConfigDict(populate_by_name=True)


class RunFailure(Model):
    recurrence: str | None = Field(default=None, description="The recurrence whose occurrence failed")
    card: str | None = Field(default=None, description="The credit card whose payment failed")
    date: str
    scheduled: str
    code: str
    detail: str


class RunResult(Model):
    until: str
    complete: bool = Field(description="false: time ran out; run it again to post the rest")
    posted: int = Field(description="slips this run created")
    failed: list[RunFailure]


# ---- shared ledgers ---------------------------------------------------------------------------

Role = Literal["owner", "editor", "viewer"]
LEDGER_ID_PATTERN = r"^(me|[0-9A-HJKMNP-TV-Z]{26})$"


class LedgerIn(Strict):
    name: Name


class LedgerPatch(Strict):
    name: Name


class Ledger(Model):
    id: str = Field(description='"me" for your personal ledger, else the shared ledger\'s id')
    name: str | None = Field(description="null for the personal ledger")
    role: Role
    version: int | None = Field(default=None, description="the ledger's version (shared ledgers)")


class LedgerList(Model):
    items: list[Ledger]


class Member(Model):
    user: str
    role: Role
    version: int | None = Field(default=None, description="the member's version: If-Match of a role change")


class MemberIn(Strict):
    role: Role


class LedgerDetail(Model):
    id: str
    name: str | None
    role: Role = Field(description="your role")
    members: list[Member]
    version: int


class MemberNet(Model):
    user: str
    member: bool = Field(description="false: no longer a member; their net stays until it is settled")
    paid: int = Field(description="What they paid for the household from their own pocket")
    share: int = Field(description="Their burden of those slips")
    settled: int = Field(description="Paid back by them, less paid back to them (recorded settlements)")
    net: int = Field(description="paid - share + settled: > 0 they are owed, < 0 they owe; the nets sum to 0")


class SuggestedTransfer(Model):
    from_: str = Field(alias="from")
    to: str
    amount: int

    model_config = ConfigDict(populate_by_name=True)


class SettlementView(Model):
    members: list[MemberNet]
    suggested: list[SuggestedTransfer] = Field(description="The fewest transfers that bring every net to 0")
    version: int = Field(description="The nets' version: If-Match of POST /ledgers/{ledger}/settlements")


class SettlementIn(Strict):
    from_: UserId = Field(alias="from", description="Who paid (their net rises by amount)")
    to: UserId = Field(description="Who was paid (their net falls by amount)")
    amount: Amount

    model_config = ConfigDict(extra="forbid", populate_by_name=False)


class SettlementRecord(Model):
    id: str
    from_: str = Field(alias="from")
    to: str
    amount: int
    at: str
    by: str
    version: int = Field(description="The nets' version after it")

    model_config = ConfigDict(populate_by_name=True)


class InvitationIn(Strict):
    role: Role


class Invitation(Model):
    token: str = Field(description="send it to the person invited: POST /invitations/{token}/accept, once")
    ledger: str
    role: Role
    expires_at: str


class Acceptance(Model):
    ledger: str
    role: Role


# ---- the journal ------------------------------------------------------------------------------

ChangeType = Literal[
    "slip", "account", "budget", "recurrence", "member", "ledger", "invitation", "webhook", "settlement"
]


class EntityChange(Model):
    type: ChangeType
    id: str = Field(description="The entity's id (a budget's is `{month}/{category}`; a member's their user id)")
    op: Literal["create", "update", "delete"]
    version: int | None = Field(description="The entity's version after the change (a delete: its tombstone's)")
    before: dict[str, Any] | None = Field(description="Its public view before (null: it did not exist)")
    after: dict[str, Any] | None = Field(description="Its public view after (null: deleted)")


class JournalEntry(Model):
    seq: int = Field(description="Commit order in the ledger: 1, 2, 3... without gaps")
    at: str
    by: str | None = Field(description="The member whose change it is")
    origin: Literal["api", "import", "recurrence", "card_payment", "undo", "job"]
    request_id: str | None = None
    changes: list[EntityChange]
    undone_by: int | None = Field(default=None, description="The seq of the entry that undid this one")
    undoes: int | None = Field(default=None, description="The seq of the entry this one undid (origin undo)")


class ChangeList(Model):
    changes: list[JournalEntry]
    knowledge: int = Field(description="Send it as `since` next time: the last seq answered (the head when none)")
    has_more: bool


class SlipHistoryItem(Model):
    seq: int
    at: str
    by: str | None
    origin: str
    op: Literal["create", "update", "delete"]
    version: int | None
    date: str | None
    changed: dict[str, list[Any]] = Field(description="field -> [old, new]")


class SlipHistory(Model):
    id: str
    items: list[SlipHistoryItem]


class UndoResult(Model):
    undone: int
    entry: JournalEntry | None


# ---- webhooks ---------------------------------------------------------------------------------


class WebhookIn(Strict):
    url: str = Field(min_length=8, max_length=2048, description="https, to a public address")
    description: str | None = Field(default=None, max_length=200)


class Webhook(Model):
    id: str
    url: str
    description: str | None
    created_at: str
    created_by: str | None
    delivered: int = Field(description="The seq of the last journal entry it has received")
    state: str = Field(
        description="active; failing (its retry budget ran out: POST .../resume sends what it missed, "
        "from `delivered` on); disabled (its creator is no longer an owner of the ledger)"
    )
    last_error: str | None = Field(default=None, description="Why the last attempt (or the webhook) failed")
    failing_since: str | None = Field(default=None, description="The first failure of the current run of them")
    next_attempt_at: str | None = Field(default=None, description="When the sender tries again (backoff)")


class WebhookCreated(Webhook):
    secret: str = Field(description="Shown once: verify each delivery's Kakeibo-Signature with it")


class WebhookList(Model):
    items: list[Webhook]


class DeliveryAttempt(Model):
    at: str
    status: int | None = Field(description="The receiver's HTTP status (null: no answer)")
    error: str | None
    ms: int


class Delivery(Model):
    seq: int
    attempts: int
    delivered: bool
    dead_lettered: bool = Field(description="The retry budget ran out on this entry: the webhook is failing")
    first_at: str
    last: DeliveryAttempt
    tries: list[DeliveryAttempt] = Field(description="Every attempt at this entry, oldest first")


class DeliveryList(Model):
    items: list[Delivery]
