"""Request and response models: accounts."""

from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from kakeibo.core.units import is_unit
from kakeibo.models.base import MAX_AMOUNT, AccountId, AccountType, Model, Name, SignedAmount, Strict


def _check_unit(value: str) -> str:
    if not is_unit(value):
        raise ValueError("unit must be JPY, an ISO 4217 currency code or points")
    return value


Unit = Annotated[
    str,
    Field(
        min_length=1,
        max_length=8,
        examples=["JPY", "USD", "points"],
        description="What the account's amounts (its slips', its balance) are in: JPY (yen), another ISO 4217 "
        "currency in its minor unit (USD in cents), or points (ポイント). Set when the account is made; it "
        "changes only while the account has no slips.",
    ),
    AfterValidator(_check_unit),
]
PointValue = Annotated[
    StrictInt, Field(ge=1, le=10_000, description="Points accounts: yen per point (default 1)", examples=[1])
]
LowBalance = Annotated[
    StrictInt,
    Field(
        ge=0,
        le=MAX_AMOUNT,
        examples=[30000],
        description="The balance this account should not fall below: GET /forecast names the first day it is "
        "projected to (残高不足の見込み). Without it, the floor is 0 (a credit card has none). In the account's unit.",
    ),
]
LOW_BALANCE_ON_CARD = "low_balance is not for credit accounts"
PROGRAM_DESCRIPTION = "Points accounts: the points program (楽天ポイント, Vポイント, dポイント, ...)"

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
    unit: Unit = "JPY"
    point_value: PointValue | None = None
    program: Name | None = Field(default=None, description=PROGRAM_DESCRIPTION)
    low_balance: LowBalance | None = None

    @property
    def negative_allowed(self) -> bool:
        return self.allow_negative if self.allow_negative is not None else self.type == "credit"

    @model_validator(mode="after")
    def _opening(self) -> Self:
        if self.opening_balance < 0 and not self.negative_allowed:
            raise ValueError("opening_balance below zero needs allow_negative (or a credit account)")
        if self.unit != "points":
            for name in ("point_value", "program"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is only for points accounts")
        return self

    @field_validator("low_balance")
    @classmethod
    def _floor(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("type") == "credit":
            raise ValueError(LOW_BALANCE_ON_CARD)
        return value


class AccountPatch(Strict):
    name: Name | None = None
    allow_negative: StrictBool | None = None
    archived: StrictBool | None = None
    billing: BillingIn | None = Field(default=None, description="Credit cards only; null removes it")
    unit: Unit | None = Field(
        default=None,
        description="Only while the account has no opening balance and no slips, both being in its unit "
        "(else 409 unit_in_use)",
    )
    point_value: PointValue | None = None
    program: Name | None = Field(default=None, description=PROGRAM_DESCRIPTION + "; null removes it")
    low_balance: LowBalance | None = Field(default=None, description="null removes it")

    @model_validator(mode="after")
    def _not_null(self) -> Self:
        for name in self.model_fields_set - {"billing", "program", "low_balance"}:
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
    cleared_balance: int = Field(
        description="The opening balance and every cleared or reconciled slip's effect: what the statement has"
    )
    uncleared_balance: int = Field(description="balance - cleared_balance: what the statement does not have yet")
    allow_negative: bool
    archived: bool
    billing: Billing | None = None
    payments: CardPayments | None = None
    unit: str = Field(default="JPY", description="JPY, an ISO 4217 code (amounts in its minor unit) or points")
    point_value: int | None = Field(default=None, description="Points accounts: yen per point")
    program: str | None = Field(default=None, description="Points accounts: the points program")
    low_balance: int | None = Field(
        default=None, description="The balance it should not fall below (GET /forecast); none: 0, a card none"
    )
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


class ExpiringLot(Model):
    """Points earned by one slip (a lot) with some left that lapse soon."""

    lot: str = Field(description="The slip that earned them")
    earned_on: str
    expires_on: str | None = Field(description="The last day they may be spent")
    lapses_on: str | None = Field(description="The day what is left lapses (ポイント失効)")
    earned: int = Field(description="Points the slip earned")
    points: int = Field(description="Points left that lapse then, unless spent first")
    jpy_value: int = Field(description="Those points in yen, at the account's point_value")
    lapsed: bool = Field(description="true: the day has passed; the daily job posts the lapse")


class ExpiringPoints(Model):
    account: str
    within: int = Field(description="Days looked ahead")
    as_of: str = Field(description="Today, in the ledger's time zone")
    points: int = Field(description="Points that lapse within those days in all")
    items: list[ExpiringLot] = Field(description="Earliest lapse first")
