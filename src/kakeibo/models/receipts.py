"""Request and response models: receipts."""

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    StrictInt,
)

from kakeibo.models.base import Model, Strict

RECEIPT_TYPES = ("image/jpeg", "image/png", "image/webp", "image/heic", "application/pdf")
MAX_RECEIPT_BYTES = 10 * 1024 * 1024
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="hex sha256 of the file's bytes (lowercase)")]


MAX_RECEIPTS = 5  # per slip: old and new ones fit the items a slip's transaction keeps for them (ledger)


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("a receipt is attached once")
    return sorted(values)


Receipts = Annotated[
    list[Sha256],
    Field(max_length=MAX_RECEIPTS, description=f"ids of stored receipts (at most {MAX_RECEIPTS})"),
    AfterValidator(_distinct),
]


class ReceiptIn(Strict):
    sha256: Sha256
    size: Annotated[StrictInt, Field(ge=1, le=MAX_RECEIPT_BYTES, description="bytes, at most 10 MB")]
    content_type: Literal["image/jpeg", "image/png", "image/webp", "image/heic", "application/pdf"]


class Upload(Model):
    url: str
    method: Literal["PUT"]
    headers: dict[str, str] = Field(description="send exactly these with the bytes")


class Download(Model):
    url: str
    expires_at: str


class Receipt(Model):
    id: str = Field(description="the sha256 of its bytes")
    state: Literal["pending", "stored"]
    size: int
    content_type: str
    upload: Upload | None = Field(default=None, description="pending: where to PUT the bytes, once")
    expires_at: str | None = Field(default=None, description="pending: when the upload URL and its lease end")
    slips: list[str] = Field(default_factory=list, description="ids of the slips it is attached to")
    download: Download | None = Field(default=None, description="stored: a presigned GET, valid for minutes")
    created_at: str
    stored_at: str | None = None
