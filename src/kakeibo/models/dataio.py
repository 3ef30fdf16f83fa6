"""Request and response models: a ledger's data as a whole (its exports, and restoring one)."""

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from kakeibo.models.base import Model, Name, Strict
from kakeibo.models.ledgers import Ledger
from kakeibo.models.receipts import Download, Sha256, Upload

MAX_ARCHIVE_BYTES = 100 * 1024 * 1024


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


class RestoreIn(Strict):
    sha256: Sha256
    size: Annotated[StrictInt, Field(ge=1, le=MAX_ARCHIVE_BYTES, description="bytes of the archive, at most 100 MB")]
    name: Name | None = Field(default=None, description="the new ledger's name (default: the exported ledger's)")


class LedgerRestore(Model):
    id: str = Field(description="the sha256 of the archive")
    state: Literal["pending", "restoring", "restored"] = Field(
        description="pending: PUT the archive to `upload`, then POST again; restoring: POST again to carry "
        "on; restored: `ledger` is the new ledger"
    )
    size: int
    upload: Upload | None = Field(default=None, description="pending: where to PUT the archive, once")
    expires_at: str | None = Field(default=None, description="pending: when the upload URL ends")
    ledger: Ledger | None = Field(default=None, description="restored: the new ledger (you are its owner)")
    items: int = Field(default=0, description="items of the archive written into the new ledger so far")
    receipts: int = Field(default=0, description="receipts of the archive stored for the new ledger so far")


class LedgerDeletion(Model):
    id: str = Field(description="the deleted ledger's id (never used again)")
    state: Literal["deleting", "deleted"] = Field(
        description="deleting: not every item is gone yet (DELETE again to carry on); deleted: all gone"
    )
    deleted_by: str
    requested_at: str
    deleted_at: str | None = None
    items: int = Field(description="items of the ledger removed so far")
