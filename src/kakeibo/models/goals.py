"""Request and response models: savings goals (目標貯金, §27)."""

from typing import Self

from pydantic import Field, model_validator

from kakeibo.models.base import AccountId, Amount, Date, Model, Name, Strict


class GoalIn(Strict):
    name: Name = Field(examples=["旅行の積立"])
    target: Amount = Field(description="The balance to reach, in the account's unit", examples=[300000])
    by: Date | None = Field(default=None, description="The day to reach it by (without it: no monthly amount)")
    account: AccountId = Field(description="The account the savings are kept in: its balance is what is saved")


class GoalPatch(Strict):
    """JSON merge patch (RFC 7396): null removes `by`."""

    name: Name | None = None
    target: Amount | None = None
    by: Date | None = None
    account: AccountId | None = None

    @model_validator(mode="after")
    def _not_null(self) -> Self:
        for name in self.model_fields_set - {"by"}:
            if getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        if not self.model_fields_set:
            raise ValueError("nothing to change")
        return self


class Goal(Model):
    id: str
    name: str
    target: int
    by: str | None
    account: str
    saved: int = Field(description="The account's balance now")
    remaining: int = Field(description="target - saved, never below 0")
    months_left: int | None = Field(description="This month and by's, and those between (0 once by has passed)")
    monthly_needed: int | None = Field(
        description="What to put aside each month to reach the target by `by` (all that remains once it passed)"
    )
    projected: int | None = Field(
        description="The forecast's balance of the account on `by` (GET /forecast; past a year ahead, "
        "its year's pace carried on)"
    )
    on_track: bool | None = Field(description="Whether `projected` reaches the target; null without `by`")
    version: int
    created_at: str
    updated_at: str


class GoalList(Model):
    items: list[Goal]
