"""Request and response models: a ledger's data as a whole (its exports)."""

from typing import Literal

from pydantic import Field

from kakeibo.models.base import Model
from kakeibo.models.receipts import Download


class LedgerExport(Model):
    id: str
    state: Literal["building", "ready"] = Field(
        description="building: not done yet (POST .../exports again resumes it); ready: download it"
    )
    requested_at: str
    requested_by: str
    updated_at: str | None = None
    items: int = Field(description="items of the ledger written so far")
    receipts: int = Field(description="receipts whose bytes were written so far")
    parts: int = Field(description="parts of the archive stored so far")
    download: Download | None = Field(
        default=None, description="ready: a presigned GET of the gzip JSON Lines archive, valid for minutes"
    )
