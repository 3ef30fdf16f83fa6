"""What the deletion tests (a ledger's, a person's) watch of a deletion run."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo.services import dataio
from kakeibo.store import Store


def count_finishes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """From now on, every time a deletion is recorded as finished: True when this call finished it
    (False: it was finished already)."""
    finished: list[bool] = []
    real_finish = Store.deletion_finished

    def counting(self: Store, *args: Any, **kwargs: Any) -> bool:
        done = real_finish(self, *args, **kwargs)
        finished.append(done)
        return done

    monkeypatch.setattr(Store, "deletion_finished", counting)
    return finished


def expire_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's clock moved past a deletion's lease: a run that stopped no longer holds it."""
    later = Store.now_ms
    monkeypatch.setattr(Store, "now_ms", lambda self: later(self) + int(dataio.LEASE_SECONDS * 1000) + 1000)
