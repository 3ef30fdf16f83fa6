"""Lambda SnapStart: what is prepared before the snapshot, and refreshed after every restore.

With SnapStart, Lambda runs the initialisation once when a version is published, snapshots the
process, and starts every new instance of that version from the snapshot. Whatever the process
holds at that moment is shared by all of them:
- ids, request tokens and lock owners come from the kernel (`os.urandom`, `uuid.uuid4`) each time
  one is made, never from state kept in memory, so restored instances cannot repeat each other's;
- the `random` module's generator (retry jitter) is state in memory: reseeded after each restore,
  or every instance would back off in step with the others;
- settings and the DynamoDB client are created before the snapshot (no request needs to build
  them); no connection is opened before it, so none is carried stale into a restored instance.

Lambda's Python runtime ships `snapshot_restore_py`; elsewhere (tests, `make run`) nothing calls
the hooks, and registering them does nothing.
"""

from __future__ import annotations

__all__ = ["prepare", "refresh", "register_after_restore", "register_before_snapshot"]

import random
from collections.abc import Callable
from typing import Any

try:
    from snapshot_restore_py import register_after_restore, register_before_snapshot
except ImportError:  # pragma: no cover - outside Lambda, without the package: no snapshots either

    def register_before_snapshot(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return func

    def register_after_restore(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        return func


def prepare() -> None:
    """Read the settings and create the DynamoDB client now, so that restored instances have them."""
    from kakeibo.settings import get_settings  # noqa: PLC0415 - run once, before the snapshot
    from kakeibo.store import dynamodb_client, get_store  # noqa: PLC0415

    get_settings()
    dynamodb_client()
    get_store()


def refresh() -> None:
    """Give this instance its own pseudo-random sequence (from the kernel's entropy)."""
    random.seed()


register_before_snapshot(prepare)
register_after_restore(refresh)
