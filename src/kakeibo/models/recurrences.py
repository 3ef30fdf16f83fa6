"""Request and response models: recurrences."""

from typing import Annotated, Literal, Self

from pydantic import (
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from kakeibo.core.posting import Kind
from kakeibo.models.accounts import ShiftName
from kakeibo.models.base import AccountId, Amount, Category, Date, Memo, Model, Strict
from kakeibo.models.slips import (
    JPY_AMOUNT_DESCRIPTION,
    TO_AMOUNT_DESCRIPTION,
    Lines,
    SlipIn,
    SlipTemplatePatch,
)

Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
# "last" is described as a one-value enum, not a const: openapi-python-client 0.29 parses a const
# member of a union without trying the others, so its models refused by_month_day 27.
MonthDay = (
    Annotated[StrictInt, Field(ge=-1, le=31, description="1-31, or -1 for the month's last day")]
    | Annotated[Literal["last"], WithJsonSchema({"type": "string", "enum": ["last"]})]
)
MAX_RECURRENCE_COUNT = 10_000


class SlipTemplate(Strict):
    """What every occurrence posts: a POST /slips body without its date."""

    kind: Kind
    amount: Amount
    account: AccountId
    to_account: AccountId | None = None
    category: Category | None = None
    subcategory: Category | None = None
    memo: Memo | None = None
    lines: Lines | None = None
    jpy_amount: Amount | None = Field(default=None, description=JPY_AMOUNT_DESCRIPTION)
    to_amount: Amount | None = Field(default=None, description=TO_AMOUNT_DESCRIPTION)

    @model_validator(mode="after")
    def _shape(self) -> Self:
        try:
            SlipIn.model_validate({"date": "2000-01-01", **self.model_dump(exclude_none=True)})
        except ValidationError as exc:  # the same rules as a slip: transfers, categories, lines
            first = exc.errors()[0]
            if first["type"] == "lines_sum_mismatch":
                raise PydanticCustomError("lines_sum_mismatch", first["msg"], first.get("ctx")) from None
            raise ValueError(first["msg"].removeprefix("Value error, ")) from None
        return self


class RuleIn(Strict):
    freq: Literal["daily", "weekly", "monthly", "yearly"]
    interval: Annotated[StrictInt, Field(ge=1, le=1000)] = 1
    by_weekday: Annotated[list[Weekday], Field(min_length=1, max_length=7)] | None = Field(
        default=None, description="weekly only; default: the start's weekday"
    )
    by_month_day: MonthDay | Annotated[list[MonthDay], Field(min_length=1, max_length=31)] | None = Field(
        default=None,
        description="monthly / yearly; default: the start's day. A day the month lacks is its last day",
    )
    start: Date
    until: Date | None = None
    count: Annotated[StrictInt, Field(ge=1, le=MAX_RECURRENCE_COUNT)] | None = Field(
        default=None, description="how many occurrences are scheduled in all, counted from start"
    )

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.until is not None and self.count is not None:
            raise ValueError("give until or count, not both")
        if self.until is not None and self.until < self.start:
            raise ValueError("until is before start")
        if self.by_weekday is not None and self.freq != "weekly":
            raise ValueError("by_weekday is for weekly rules")
        if self.by_month_day is not None and self.freq not in ("monthly", "yearly"):
            raise ValueError("by_month_day is for monthly and yearly rules")
        days = self.by_month_day if isinstance(self.by_month_day, list) else [self.by_month_day]
        if any(day == 0 for day in days):
            raise ValueError("by_month_day is 1-31, -1 or 'last'")
        return self


class RecurrenceIn(Strict):
    slip: SlipTemplate
    rule: RuleIn
    shift: ShiftName = "none"


class RulePatch(Strict):
    freq: Literal["daily", "weekly", "monthly", "yearly"] | None = None
    interval: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None
    by_weekday: Annotated[list[Weekday], Field(min_length=1, max_length=7)] | None = None
    by_month_day: MonthDay | Annotated[list[MonthDay], Field(min_length=1, max_length=31)] | None = None
    start: Date | None = None
    until: Date | None = None
    count: Annotated[StrictInt, Field(ge=1, le=MAX_RECURRENCE_COUNT)] | None = None


class RecurrencePatch(Strict):
    """JSON merge patch (RFC 7396): nested objects merge, null removes an optional field."""

    slip: SlipTemplatePatch | None = None
    rule: RulePatch | None = None
    shift: ShiftName | None = None


class Rule(Model):
    freq: str
    interval: int
    by_weekday: list[str] | None = None
    by_month_day: int | str | list[int | str] | None = None
    start: str
    until: str | None = None
    count: int | None = None


class OccurrenceError(Model):
    date: str = Field(description="the day the occurrence posts on")
    scheduled: str
    code: str = Field(examples=["insufficient_funds"])
    detail: str
    at: str


class RecurringSlip(Model):
    kind: Kind
    amount: int
    account: str
    to_account: str | None = None
    category: str | None = None
    subcategory: str | None = None
    memo: str | None = None


class Recurrence(Model):
    id: str
    slip: RecurringSlip
    rule: Rule
    shift: ShiftName
    next_due: str | None = Field(description="the day the next occurrence posts on; null: the rule has ended")
    next_scheduled: str | None
    posted_through: str | None = Field(description="scheduled date of the last occurrence posted")
    last_error: OccurrenceError | None = Field(description="why the occurrence at next_due could not be posted")
    version: int
    created_at: str
    updated_at: str


class RecurrenceList(Model):
    items: list[Recurrence]


class OccurrenceView(Model):
    scheduled: str
    date: str
    shifted: bool
    status: Literal["posted", "deleted", "failed", "pending"] = Field(
        description="posted: its slip is in the ledger; deleted: it was posted, then its slip was deleted or its "
        "post undone (it is never posted again); failed: the last run could not write it (last_error), the next "
        "tries again; pending: not due yet"
    )
    slip_id: str = Field(
        description="The id its slip has (posted), had (deleted) or will have (failed, pending): "
        "GET /slips/{id}/history follows it"
    )


class OccurrenceList(Model):
    id: str
    from_: str = Field(alias="from")
    to: str
    items: list[OccurrenceView]

    model_config = ConfigDict(populate_by_name=True)


class RunFailure(Model):
    recurrence: str | None = Field(default=None, description="The recurrence whose occurrence failed")
    card: str | None = Field(default=None, description="The credit card whose payment failed")
    points: str | None = Field(default=None, description="The points account whose lapse (ポイント失効) failed")
    date: str
    scheduled: str
    code: str
    detail: str


class RunResult(Model):
    until: str
    complete: bool = Field(description="false: time ran out; run it again to post the rest")
    posted: int = Field(description="slips this run created")
    failed: list[RunFailure]
