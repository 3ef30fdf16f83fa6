"""Response models: net worth month by month (資産推移, §27)."""

from pydantic import ConfigDict, Field

from kakeibo.models.base import Model


class NetWorthMonth(Model):
    month: str
    assets: int = Field(description="What the accounts in credit hold at the month's end, in yen")
    liabilities: int = Field(description="What the accounts below zero owe then (a card's debt), in yen")
    net: int = Field(description="assets - liabilities")


class NetWorth(Model):
    from_: str = Field(alias="from")
    to: str
    items: list[NetWorthMonth] = Field(description="Each month from..to, oldest first")
    unvalued: list[str] = Field(
        description="Accounts in a foreign currency with no slip that gives a rate: left out of the sums"
    )

    model_config = ConfigDict(populate_by_name=True)
