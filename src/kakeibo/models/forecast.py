"""Request and response models: the forecast of every balance (§27)."""

from typing import Literal

from pydantic import ConfigDict, Field

from kakeibo.models.base import Model


class ForecastMove(Model):
    """One slip that is, or will be, written, as one account sees it."""

    kind: Literal["slip", "recurrence", "card_payment", "lapse"] = Field(
        description="slip: dated ahead, stored; recurrence: an occurrence the daily job is to post; "
        "card_payment: a card's payment it is to post (引き落とし); lapse: points it is to lapse (ポイント失効)"
    )
    date: str = Field(description="The slip's own date (one due already and not posted yet moves the balance today)")
    amount: int = Field(description="What it adds to this account's balance (negative: money out), in its unit")
    memo: str | None = None
    counterpart: str | None = Field(default=None, description="The other account of a transfer or a payment")
    slip_id: str | None = Field(default=None, description="slip: the slip")
    recurrence: str | None = Field(default=None, description="recurrence: the recurrence")
    scheduled: str | None = Field(default=None, description="recurrence: the date its rule names, before the shift")
    card: str | None = Field(default=None, description="card_payment: the card paid")
    closing_date: str | None = Field(default=None, description="card_payment: the cycle's closing date (締め日)")
    lot: str | None = Field(default=None, description="lapse: the slip that earned the points")


class ForecastDay(Model):
    date: str
    change: int = Field(description="The day's net change")
    balance: int = Field(description="The projected balance at the end of the day")
    moves: list[ForecastMove]


class Shortfall(Model):
    """The first day the balance is projected below the account's floor (残高不足の見込み)."""

    title: str = Field(description="残高不足の見込み, in the caller's language")
    date: str
    balance: int = Field(description="The projected balance at the end of that day")
    floor: int = Field(description="The account's low_balance, else 0")
    cause: ForecastMove | None = Field(
        description="The day's largest outflow (a card's payment, a recurring slip...); null: below already today"
    )


class AccountForecast(Model):
    account: str
    name: str
    type: str
    unit: str
    balance: int = Field(description="At the end of today")
    low_balance: int | None
    final_balance: int = Field(description="At the end of `until`")
    days: list[ForecastDay] = Field(description="Each day something changes the balance, in order")
    first_shortfall: Shortfall | None


class Forecast(Model):
    from_: str = Field(alias="from", description="Today, in the ledger's time zone")
    until: str
    items: list[AccountForecast] = Field(description="Per open account (or the one asked for), by id")

    model_config = ConfigDict(populate_by_name=True)
