"""Request and response models: reports."""

from pydantic import (
    Field,
)

from kakeibo.models.base import Model


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
