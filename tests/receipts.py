"""A stored receipt for tests that need one: claimed, its bytes PUT to the local S3 server, completed."""

from __future__ import annotations

import hashlib
import uuid

import requests

from tests.events import Client


def receipt_body(data: bytes) -> dict[str, object]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "content_type": "image/jpeg"}


def uploaded_receipt(api: Client, base: str = "", data: bytes | None = None) -> str:
    """A receipt claimed and uploaded (not yet completed) in the ledger at `base`: its id."""
    data = data or uuid.uuid4().bytes * 8
    claimed = api.post(f"{base}/receipts", receipt_body(data))
    assert claimed.status == 201, claimed
    upload = claimed.json["upload"]
    put = requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30)
    assert put.status_code == 200, put.text
    return str(claimed.json["id"])


def stored_receipt(api: Client, data: bytes | None = None, base: str = "") -> str:
    receipt = uploaded_receipt(api, base, data)
    done = api.post(f"{base}/receipts/{receipt}/complete")
    assert done.status == 200, done
    return receipt
