"""Request and response models: tags' totals and bulk edits of slips (§28)."""

from typing import Annotated, Literal, Self

from pydantic import Field, StrictInt, model_validator

from kakeibo.models.base import AccountId, Category, Date, Model, Strict, checked_text
from kakeibo.models.slips import ClearedIn, Payee, Tags

MAX_BULK = 500


class TagTotal(Model):
    tag: str
    income: int
    expense: int
    net: int = Field(description="income - expense")
    count: int = Field(description="How many slips carry the tag (transfers too: they count no income or expense)")


class TagReport(Model):
    from_: str = Field(alias="from")
    to: str
    items: list[TagTotal] = Field(description="Each tag carried by a slip of those months, in tag order")


SlipRefId = Annotated[str, Field(min_length=1, max_length=64), checked_text()]


class BulkSlip(Strict):
    """A slip as the caller read it: where it is and the version the change applies to."""

    date: Date
    id: SlipRefId
    version: Annotated[StrictInt, Field(ge=1)]


class BulkSet(Strict):
    """What every slip named becomes (absent: as it is). `category` on a split slip or a transfer is
    refused for that slip; `account` moves each slip's own side."""

    category: Category | None = None
    subcategory: Category | None = None
    payee: Payee | None = None
    account: AccountId | None = None
    cleared: ClearedIn | None = None
    tags_add: Tags | None = Field(default=None, description="Tags each slip gains (those it has stay)")
    tags_remove: Tags | None = Field(default=None, description="Tags each slip loses")

    @model_validator(mode="after")
    def _something(self) -> Self:
        if all(getattr(self, name) is None for name in type(self).model_fields):
            raise ValueError("nothing to change")
        return self


class BulkIn(Strict):
    slips: Annotated[list[BulkSlip], Field(min_length=1, max_length=MAX_BULK)]
    set: BulkSet | None = None
    delete: Literal[True] | None = Field(default=None, description="true: delete every slip named")

    @model_validator(mode="after")
    def _one(self) -> Self:
        if (self.set is None) == (self.delete is None):
            raise ValueError("send either set or delete: true")
        return self


class BulkRefusal(Model):
    id: str
    date: str
    reason: Literal["stale", "reconciled", "forbidden", "not_found", "invalid"]
    current: int | None = Field(default=None, description="stale: the version the slip is at now")
    detail: str | None = Field(default=None, description="invalid: why the slip cannot take the change")


class BulkChanged(Model):
    id: str
    date: str
    version: int | None = Field(description="The version it is at now (null: deleted)")
    seq: int = Field(description="The journal entry of its batch")


class BulkResult(Model):
    bulk: str = Field(description="The bulk edit's id: every entry of it names it; undoing one of them undoes all")
    changed: list[BulkChanged]
    unchanged: list[BulkSlip] = Field(description="Slips that already said what the change sets")
    refused: list[BulkRefusal]
    entries: list[int] = Field(description="The journal entries of its batches, in order")
