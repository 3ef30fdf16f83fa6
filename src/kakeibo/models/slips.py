"""Request and response models: slips."""

from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    Field,
    StrictInt,
    model_validator,
)
from pydantic_core import PydanticCustomError

from kakeibo.core.posting import MAX_LINES, UNCATEGORIZED, Entry, Kind, Line
from kakeibo.core.tags import MAX_TAG_LENGTH, MAX_TAGS, TagProblem, normalise_tags
from kakeibo.core.tax import default_provider, paid_in_yen, slip_tax_fields
from kakeibo.models.base import MAX_AMOUNT, AccountId, Amount, Category, Date, Memo, Model, Strict, checked_text
from kakeibo.models.receipts import Receipts
from kakeibo.models.tax import DonationIn, MedicalIn

MEDICAL_DESCRIPTION = (
    "A medical payment (医療費控除): who was treated, where, which kind; GET /reports/medical adds them up. "
    "Expenses only; on a split slip, on its lines."
)
DONATION_DESCRIPTION = "A ふるさと納税 donation (expenses only): GET /reports/donations adds them up."
JPY_AMOUNT_DESCRIPTION = (
    "Income and expense of an account in a foreign currency: the yen it came to (what the card or the "
    "exchange charged; the API never fetches rates). Reports and budgets count it. Required there; "
    "not for yen or points accounts (points count at their account's point_value)."
)
TO_AMOUNT_DESCRIPTION = (
    "A transfer between accounts of different units: what arrived in to_account, in its unit "
    "(`amount` is what left `account`, in that account's unit). Required there; not otherwise."
)
PAYEE_DESCRIPTION = (
    "Where the money went or came from (店名・支払先, at most 100 characters); GET /slips?payee= finds a payee's "
    "slips (compared normalised: ｽｰﾊﾟｰ is スーパー)"
)
IMPORTED_PAYEE_DESCRIPTION = (
    "The payee as the imported file wrote it (Money Forward 内容, Zaim お店); never changed (null: not imported)"
)
Payee = Annotated[str, Field(min_length=1, max_length=100, examples=["スーパーマルエツ"]), checked_text()]
TAGS_DESCRIPTION = (
    f"Tags (at most {MAX_TAGS}, each at most {MAX_TAG_LENGTH} characters): stored normalised as rule text is "
    "(NFKC, case folded: ＴＲＩＰ is trip), each once. GET /slips?tag= lists a tag's slips, GET /reports/tags "
    "sums them by tag"
)


def _tags(given: list[str]) -> list[str]:
    """A list of tags as the slip keeps them (core.tags), its problems worded as field errors."""
    try:
        return list(normalise_tags(given))
    except TagProblem as problem:
        if problem.code == "too_many":
            raise PydanticCustomError("too_long", "at most {max_length} tags", {"max_length": problem.limit}) from None
        if problem.code == "too_long":
            raise PydanticCustomError(
                "tag_too_long", "a tag of at most {max_length} characters", {"max_length": problem.limit}
            ) from None
        raise ValueError("must not be blank") from None


Tag = Annotated[str, Field(min_length=1, max_length=100, examples=["北海道旅行"]), checked_text(forbid=";")]
Tags = Annotated[
    list[Tag],
    Field(max_length=100, description=TAGS_DESCRIPTION, examples=[["北海道旅行", "家族"]]),
    AfterValidator(_tags),
]


class LineIn(Strict):
    """One line of a split slip: part of its amount in a category of its own."""

    amount: Amount
    category: Category
    subcategory: Category | None = None
    memo: Memo | None = None
    medical: MedicalIn | None = Field(default=None, description="This line's part as a medical payment")


Lines = Annotated[
    list[LineIn],
    Field(
        min_length=2,
        max_length=MAX_LINES,
        description=f"A split: 2 to {MAX_LINES} lines whose amounts sum exactly to the slip's amount "
        "(the slip then has no category of its own). Expense and income only.",
    ),
]


def check_tax(  # noqa: PLR0917 (a slip's fields, as check_lines takes them)
    kind: str,
    amount: int,
    memo: str | None,
    lines: list[LineIn] | None,
    medical: MedicalIn | None,
    donation: DonationIn | None,
    jpy_amount: int | None = None,
    *,
    payee: str | None = None,
) -> None:
    """Medical payments and donations are expenses; what is reimbursed is at most what was paid (in
    yen: a slip in another unit by its `jpy_amount`); the provider, when not given, is the slip's
    payee, else the memo (of the line, else of the slip): core.tax.default_provider."""
    if kind != "expense":
        if medical is not None or any(line.medical for line in lines or ()):
            raise ValueError(f"medical is only for expenses, not {kind}")
        if donation is not None:
            raise ValueError(f"donation is only for expenses, not {kind}")
    if medical is not None and lines:
        raise ValueError("a split slip carries medical on its lines")
    yen, in_yen = paid_in_yen(amount, jpy_amount, [(x.amount, x) for x in lines or ()])
    for paid, given, memos in [
        (yen, medical, (memo,)),
        *((paid, x.medical, (x.memo, memo)) for paid, x in in_yen),
    ]:
        if given is None:
            continue
        if given.reimbursed > paid:
            raise ValueError(f"reimbursed ({given.reimbursed}) is more than the amount paid ({paid})")
        if given.provider is None:
            provider = default_provider(payee, *memos)
            if provider is None:
                raise ValueError("provider is needed: no payee or memo names where it was paid")
            given.provider = provider


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


ClearedIn = Annotated[
    Literal["uncleared", "cleared"],
    Field(
        description="Has the bank, the card statement or the counted wallet confirmed it? (reconciled: only a "
        "reconciliation makes a slip so)"
    ),
]
ClearedState = Literal["uncleared", "cleared", "reconciled"]
CLEARED_STATES: tuple[str, ...] = ("cleared", "reconciled")  # the states a balance counts as cleared


UserId = Annotated[str, Field(min_length=1, max_length=128, examples=["hanako"]), checked_text()]
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


EXPIRES_ON_DESCRIPTION = (
    "Points earned (an income of a points account): the last day they may be spent. What is left of them "
    "then lapses the day after (ポイント失効, posted by the daily job); spends take the lots expiring first."
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
    payee: Payee | None = Field(default=None, description=PAYEE_DESCRIPTION)
    lines: Lines | None = None
    paid_by: UserId | None = Field(default=None, description=PAID_BY_DESCRIPTION)
    shares: Shares | None = None
    receipts: Receipts | None = None
    cleared: ClearedIn | None = Field(default=None, description="The state of `account`'s side (default uncleared)")
    to_cleared: ClearedIn | None = Field(
        default=None, description="A transfer's `to_account` side: its own state (default uncleared)"
    )
    medical: MedicalIn | None = Field(default=None, description=MEDICAL_DESCRIPTION)
    donation: DonationIn | None = Field(default=None, description=DONATION_DESCRIPTION)
    jpy_amount: Amount | None = Field(default=None, description=JPY_AMOUNT_DESCRIPTION)
    to_amount: Amount | None = Field(default=None, description=TO_AMOUNT_DESCRIPTION)
    expires_on: Date | None = Field(default=None, description=EXPIRES_ON_DESCRIPTION)
    tags: Tags | None = None

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.subcategory is not None and self.category is None:
            raise ValueError("a subcategory needs a category")
        if self.to_cleared is not None and self.kind != "transfer":
            raise ValueError("to_cleared is only for transfers (their to_account side)")
        if self.kind == "transfer":
            if self.to_account is None:
                raise ValueError("a transfer needs to_account")
            if self.to_account == self.account:
                raise ValueError("to_account must differ from account")
            if self.category is not None:
                raise ValueError("a transfer has no category")
        elif self.to_account is not None:
            raise ValueError(f"to_account is only for transfers, not {self.kind}")
        if self.kind == "transfer" and self.jpy_amount is not None:
            raise ValueError("a transfer has no jpy_amount (to_amount says what arrived)")
        if self.kind != "transfer" and self.to_amount is not None:
            raise ValueError(f"to_amount is only for transfers, not {self.kind}")
        check_lines(self.kind, self.amount, self.category, self.lines)
        check_tax(
            self.kind,
            self.amount,
            self.memo,
            self.lines,
            self.medical,
            self.donation,
            self.jpy_amount,
            payee=self.payee,
        )
        return self

    def tax_fields(self) -> tuple[tuple[str, int], ...]:
        """What the slip adds to its year's tax item (medical payments, donations)."""
        if self.medical is None and self.donation is None and not any(x.medical for x in self.lines or ()):
            return ()
        return slip_tax_fields(
            self.amount,
            self.medical.model_dump() if self.medical else None,
            ((x.amount, x.medical.model_dump() if x.medical else None) for x in self.lines or ()),
            self.donation.model_dump() if self.donation else None,
            self.jpy_amount,
        )

    def entry(self) -> Entry:
        tax = self.tax_fields()
        cleared, to_cleared = self.cleared in CLEARED_STATES, self.to_cleared in CLEARED_STATES
        if self.lines:
            parts = tuple(Line(line.amount, line.category, line.subcategory) for line in self.lines)
            return Entry(
                self.date, self.kind, self.amount, self.account, None, None, None, parts, tax=tax,
                jpy_amount=self.jpy_amount, cleared=cleared, to_cleared=to_cleared, tags=tuple(self.tags or ()),
            )  # fmt: skip
        category = None if self.kind == "transfer" else (self.category or UNCATEGORIZED)
        return Entry(
            self.date, self.kind, self.amount, self.account, self.to_account, category, self.subcategory, tax=tax,
            jpy_amount=self.jpy_amount, to_amount=self.to_amount, cleared=cleared, to_cleared=to_cleared,
            tags=tuple(self.tags or ()),
        )  # fmt: skip


ExternalId = Annotated[str, Field(min_length=1, max_length=128, examples=["smbc-20261103-0001"]), checked_text()]


class ImportRow(SlipIn):
    """One CSV row: exactly a POST /slips body (same rules), plus the source's own transaction id.
    A row with `line` is one line of a split slip: the rows sharing its external_id are the slip
    (amount, category, subcategory and memo the line's; `slip_memo` the slip's own memo)."""

    external_id: ExternalId | None = None
    imported_payee: Payee | None = Field(default=None, description=IMPORTED_PAYEE_DESCRIPTION)
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
    jpy_amount: Amount | None = Field(default=None, description=JPY_AMOUNT_DESCRIPTION)
    to_amount: Amount | None = Field(default=None, description=TO_AMOUNT_DESCRIPTION)


class SlipPatch(SlipTemplatePatch):
    """JSON merge patch (RFC 7396) of a slip: absent = unchanged, null = remove (optional fields)."""

    date: Date | None = None
    payee: Payee | None = Field(default=None, description=PAYEE_DESCRIPTION + " null: none.")
    paid_by: UserId | None = Field(default=None, description=PAID_BY_DESCRIPTION + " null: nobody (shares go too).")
    shares: Shares | None = None
    receipts: Receipts | None = Field(default=None, description="the receipts it has, whole; null: none")
    cleared: ClearedIn | None = Field(default=None, description="`account`'s side; null: uncleared")
    to_cleared: ClearedIn | None = Field(default=None, description="A transfer's `to_account` side; null: uncleared")
    medical: MedicalIn | None = Field(default=None, description=MEDICAL_DESCRIPTION + " null: none.")
    donation: DonationIn | None = Field(default=None, description=DONATION_DESCRIPTION + " null: none.")
    expires_on: Date | None = Field(default=None, description=EXPIRES_ON_DESCRIPTION + " null: never.")
    tags: Tags | None = Field(default=None, description="The tags it has, whole; null: none")


class SlipLine(Model):
    """A split slip's line as the API answers it."""

    amount: int
    category: str
    category_label: str | None = Field(default=None, description="The category in words, in your language")
    subcategory: str | None = None
    memo: str | None = None
    medical: MedicalIn | None = Field(default=None, description="This line's part as a medical payment")


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
    payee: str | None = Field(default=None, description=PAYEE_DESCRIPTION + "; absent: none")
    imported_payee: str | None = Field(default=None, description=IMPORTED_PAYEE_DESCRIPTION + "; absent: none")
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
    cleared: ClearedState = Field(
        default="uncleared", description="`account`'s side: uncleared, cleared (the statement has it) or reconciled"
    )
    to_cleared: ClearedState | None = Field(default=None, description="A transfer's `to_account` side (else null)")
    medical: MedicalIn | None = Field(default=None, description="A medical payment (医療費控除); absent: none")
    donation: DonationIn | None = Field(default=None, description="A ふるさと納税 donation; absent: none")
    jpy_amount: int | None = Field(
        default=None, description="The yen a foreign income or expense came to (a points slip: at point_value)"
    )
    to_amount: int | None = Field(default=None, description="A transfer between units: what arrived, in its unit")
    expires_on: str | None = Field(default=None, description="Points earned: the last day they may be spent")
    lapse_of: str | None = Field(
        default=None, description="A lapse the daily job posted (ポイント失効): the slip that earned the lot"
    )
    jpy_rated: bool | None = Field(
        default=None,
        description="True: jpy_amount was made at an earlier slip's rate (a reconciliation's adjustment), so "
        "it gives the account no rate of its own; absent otherwise",
    )
    tags: list[str] | None = Field(default=None, description="Its tags, normalised; absent: none")


class SlipList(Model):
    items: list[Slip]
    next_cursor: str | None
