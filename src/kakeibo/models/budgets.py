"""Request and response models: budgets."""

from typing import Annotated

from pydantic import (
    Field,
    StrictBool,
    StrictInt,
)

from kakeibo.models.base import MAX_AMOUNT, Model, Strict


class BudgetIn(Strict):
    limit: Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT, examples=[30000])]
    strict: StrictBool = Field(
        default=False,
        description="Refuse writes that would push the month's spending past what it makes available "
        "(its limit plus what is carried into it), including edits of earlier months whose carry reaches it",
    )
    rollover: StrictBool = Field(
        default=False,
        description="Carry what is left of this month's budget (negative when overspent) into the next "
        "month's budget of the category (繰越), within the calendar year",
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
    remaining: int = Field(description="available less spent")
    strict: bool
    rollover: bool = Field(description="what is left of this month carries into the next month's budget")
    carried: int = Field(
        description="carried in from the previous month's budget when that one rolls over (negative when "
        "it was overspent); 0 in January and after a month that does not roll over"
    )
    available: int = Field(description="limit + carried")
    per_day: int | None = Field(
        default=None,
        description="for the current month (today in the ledger's time zone): what is left per day for the "
        "rest of the month, today included, floored (1日あたり); null for other months",
    )
    version: int


class BudgetList(Model):
    month: str
    items: list[Budget]


class BudgetCopyRefusal(Model):
    category: str = Field(description="the category whose budget was not created here")
    month: str = Field(description="the strict month its carry would have left over what it makes available")


class BudgetCopy(Model):
    month: str = Field(description="the month copied into")
    source: str = Field(description="the month copied from")
    copied: list[str] = Field(description="categories whose budget was created here: limit, strict and rollover")
    kept: list[str] = Field(description="categories that already had a budget here, left as they were")
    refused: list[BudgetCopyRefusal] = Field(
        default_factory=list,
        description="categories not created here: their carry would leave a later strict month over (409 alone)",
    )
    items: list[Budget] = Field(description="the month's budgets after the copy")
