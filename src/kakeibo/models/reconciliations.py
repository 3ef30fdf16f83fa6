"""Request and response models: reconciliation (照合) — an account's balance as a statement, the
bankbook or the counted wallet says it at the end of a date."""

from typing import Annotated

from pydantic import Field, StrictBool

from kakeibo.models.base import Amount, Category, Date, Model, SignedAmount, Strict
from kakeibo.models.slips import Slip

ReconciliationId = Annotated[str, Field(min_length=1, max_length=64, examples=["01KAJ0000000000000000000RC"])]


class ReconciliationIn(Strict):
    """What the statement says: the account held `balance` at the end of `date`."""

    date: Date = Field(description="The statement's date (not after today in the ledger's time zone)")
    balance: SignedAmount = Field(
        description="What the statement, the bankbook or the counted wallet says, in the account's unit (yen; "
        "a foreign currency's minor unit, e.g. USD cents; points) (a card owing: negative)"
    )
    adjust: StrictBool = Field(
        default=False, description="Post the difference as an adjustment slip (cleared) instead of refusing"
    )
    category: Category | None = Field(default=None, description="The adjustment's category (default 使途不明金)")
    jpy_amount: Amount | None = Field(
        default=None,
        description="With adjust, on an account in a foreign currency: the yen the difference came to (the "
        "adjustment's jpy_amount). Left out, it is the difference at the rate of the account's latest slip dated up "
        "to `date` that gives one, as GET /balances values the account (rounded, at least 1); 422 naming it when "
        "no slip gives one. Not for yen or points accounts (points count at their point_value).",
    )


class ReconciliationPreview(Model):
    """A dry run: what reconciling as of the date would meet."""

    date: str
    balance: int = Field(description="The statement's balance, in the account's unit")
    cleared_balance: int = Field(description="The opening balance and the cleared sides dated up to the date")
    difference: int = Field(description="balance - cleared_balance: 0 balances; > 0 the ledger is short")
    uncleared: list[Slip] = Field(description="The account's slips dated up to the date whose side is not cleared")


class Reconciliation(Model):
    """A stored assertion: the account held `balance` at the end of `date`."""

    id: str
    account: str
    date: str
    balance: int
    difference: int = Field(description="What the cleared balance lacked when it was reconciled (0, or adjusted)")
    adjustment_slip: str | None = Field(description="The adjustment slip's id, when the difference was posted")
    reconciled: int = Field(description="The slips' sides it made reconciled")
    holds: bool = Field(
        description="The cleared balance as of the date is still the asserted one, and no slip it summed was unlocked"
    )
    at: str
    by: str | None
    version: int


class ReconciliationList(Model):
    items: list[Reconciliation] = Field(description="The account's reconciliations, newest date first")
