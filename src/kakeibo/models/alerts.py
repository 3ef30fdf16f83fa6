"""Request and response models: alerts (§27)."""

from typing import Any, Literal

from pydantic import Field

from kakeibo.models.base import Model


class Alert(Model):
    """Something the household is told once: raised when the change that causes it is written, or by
    the daily job; open until dismissed."""

    id: str = Field(description="The same whenever it would be raised again: its kind, subject and period")
    kind: Literal["budget_80", "budget_100", "shortfall", "points_lapsing", "card_payment"] = Field(
        description="budget_80 / budget_100: a budget at 80% / 100% of what it has this month; shortfall: "
        "the 30-day forecast falls below an account's low_balance (else 0) with a debit (残高不足の見込み); "
        "points_lapsing: points lapse within 30 days; card_payment: a card is debited within 3 days"
    )
    subject: str = Field(description="The category, account, card, or account/lot it is about")
    period: str = Field(description="The month (YYYY-MM) or the day (YYYY-MM-DD) it is about")
    facts: dict[str, Any] = Field(description="What it was raised on: amounts, dates, the cause")
    message: str = Field(description="It said in a sentence, in the caller's language")
    raised_at: str
    dismissed_at: str | None = None
    dismissed_by: str | None = None
    version: int


class AlertList(Model):
    items: list[Alert]
