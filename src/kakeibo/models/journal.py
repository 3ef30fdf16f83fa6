"""Request and response models: journal."""

from typing import Any, Literal

from pydantic import (
    Field,
)

from kakeibo.models.base import Model

ChangeType = Literal[
    "slip",
    "account",
    "budget",
    "recurrence",
    "member",
    "ledger",
    "invitation",
    "webhook",
    "settlement",
    "rule",
    "reconciliation",
]


class EntityChange(Model):
    type: ChangeType
    id: str = Field(description="The entity's id (a budget's is `{month}/{category}`; a member's their user id)")
    op: Literal["create", "update", "delete"]
    version: int | None = Field(description="The entity's version after the change (a delete: its tombstone's)")
    before: dict[str, Any] | None = Field(description="Its public view before (null: it did not exist)")
    after: dict[str, Any] | None = Field(description="Its public view after (null: deleted)")


class JournalEntry(Model):
    seq: int = Field(description="Commit order in the ledger: 1, 2, 3... without gaps")
    at: str
    by: str | None = Field(description="The member whose change it is")
    origin: Literal["api", "import", "recurrence", "card_payment", "undo", "job", "point_lapse"]
    request_id: str | None = None
    changes: list[EntityChange]
    undone_by: int | None = Field(default=None, description="The seq of the entry that undid this one")
    undoes: int | None = Field(default=None, description="The seq of the entry this one undid (origin undo)")
    bulk: str | None = Field(
        default=None, description="The bulk edit (POST /slips/bulk) this entry is a batch of: undone with its others"
    )


class ChangeList(Model):
    changes: list[JournalEntry]
    knowledge: int = Field(description="Send it as `since` next time: the last seq answered (the head when none)")
    has_more: bool


class SlipHistoryItem(Model):
    seq: int
    at: str
    by: str | None
    origin: str
    op: Literal["create", "update", "delete"]
    version: int | None
    date: str | None
    changed: dict[str, list[Any]] = Field(description="field -> [old, new]")


class SlipHistory(Model):
    id: str
    items: list[SlipHistoryItem]


class UndoResult(Model):
    undone: int
    entry: JournalEntry | None
    entries: list[int] | None = Field(
        default=None, description="A bulk edit undone: the entries that undid each of its batches"
    )
