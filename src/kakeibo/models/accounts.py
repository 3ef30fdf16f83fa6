"""Request and response models: accounts."""

from typing import Annotated, Any, Literal, Self

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    WithJsonSchema,
    model_validator,
)

from kakeibo.models.base import AccountId, AccountType, Model, Name, SignedAmount, Strict

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
    cleared_balance: int = Field(
        description="The opening balance and every cleared or reconciled slip's effect: what the statement has"
    )
    uncleared_balance: int = Field(description="balance - cleared_balance: what the statement does not have yet")
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
