"""Request and response models: reports."""

from typing import Literal

from pydantic import (
    Field,
)

from kakeibo.models.base import Model


class BalanceItem(Model):
    account: str
    balance: int = Field(description="In the account's unit (USD in cents, points in points)")
    unit: str = Field(default="JPY", description="JPY, an ISO 4217 code or points")
    jpy_value: int | None = Field(
        default=None,
        description="The balance in yen: as it is for yen, points x point_value, a foreign currency at the rate "
        "of its latest slip that gives one (null when none does: the API never fetches rates)",
    )
    valued_by: Literal["yen", "point_value", "latest_slip"] | None = Field(
        default=None, description="How jpy_value was found (null: it is not known)"
    )
    rate_date: str | None = Field(default=None, description="latest_slip: the date of the slip whose rate was used")


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
