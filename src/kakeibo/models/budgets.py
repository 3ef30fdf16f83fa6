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
