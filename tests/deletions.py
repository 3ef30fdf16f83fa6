"""What the deletion tests (a ledger's, a person's) watch of a deletion run."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo.services import dataio
from kakeibo.store import Store
from kakeibo.store.codec import from_ddb
from kakeibo.store.deletion import DeletionOps
from kakeibo.store.transactions import StoreCore


def count_finishes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """From now on, every time a deletion is recorded as finished: True when this call finished it
    (False: it was finished already)."""
    finished: list[bool] = []
    real_finish = DeletionOps.deletion_finished

    def counting(self: DeletionOps, *args: Any, **kwargs: Any) -> bool:
        done = real_finish(self, *args, **kwargs)
        finished.append(done)
        return done

    monkeypatch.setattr(DeletionOps, "deletion_finished", counting)
    return finished


def expire_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's clock moved past a deletion's lease: a run that stopped no longer holds it."""
    later = StoreCore.now_ms
    monkeypatch.setattr(StoreCore, "now_ms", lambda self: later(self) + int(dataio.LEASE_SECONDS * 1000) + 1000)


def table_items(store: Store) -> list[dict[str, Any]]:
    """Every item of the ledger table, as stored (a Scan: a test's look at what is left, never the API's)."""
    pages = store.core.client.get_paginator("scan").paginate(TableName=store.core.table, ConsistentRead=True)
    return [from_ddb(raw) for page in pages for raw in page.get("Items", [])]


def naming(items: list[dict[str, Any]], *values: str) -> list[dict[str, Any]]:
    """The items with one of `values` anywhere in their keys or attributes (nested ones too)."""

    def holds(value: Any) -> bool:
        if isinstance(value, str):
            return any(v in value for v in values)
        if isinstance(value, dict):
            return any(holds(k) or holds(v) for k, v in value.items())
        if isinstance(value, list | set | tuple):
            return any(holds(v) for v in value)
        return False

    return [item for item in items if holds(item)]
