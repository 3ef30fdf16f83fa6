"""SnapStart: instances restored from one snapshot never repeat each other's ids, tokens or owners.

A fork after initialisation is what a restore is: several processes continuing from the same
memory. The children play restored instances (Lambda runs the after-restore hooks in each). One
difference is undone: Python reseeds `random` in a forked child (os.register_at_fork), which a
restore from a snapshot does not do, so each child first puts back the generator's state as it
was at the fork.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest
import snapshot_restore_py

from kakeibo.core.ids import new_slip_id
from kakeibo.services.common import new_token
from kakeibo.store import Store

N = 500
# Other tests of the session may leave threads behind (DynamoDB Local's output readers); the
# children here only generate ids and write to a pipe, touching no lock those threads hold.
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


class _RecordingClient:
    """Stands in for DynamoDB: accepts every write and remembers the lock owners it was sent."""

    def __init__(self) -> None:
        self.owners: list[str] = []

    def put_item(self, **kwargs: Any) -> dict[str, Any]:
        self.owners.append(kwargs["Item"]["owner"]["S"])
        return {}


def lock_owner() -> str:
    client = _RecordingClient()
    Store(client, "LedgerTable").locks.acquire_lock("ledger", "rebuild", ttl=30)  # type: ignore[arg-type]
    return client.owners[0]


def run_hooks(registry: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]) -> None:
    for func, args, kwargs in registry:
        func(*args, **kwargs)


def generate() -> dict[str, list[Any]]:
    return {
        "slip_ids": [new_slip_id() for _ in range(N)],
        "tokens": [new_token() for _ in range(N)],
        "lock_owners": [lock_owner() for _ in range(N)],
        "jitter": [random.random() for _ in range(20)],
    }


def in_forked_child(restore: bool) -> dict[str, list[Any]]:
    """Fork; the child (after the after-restore hooks if `restore`) generates and reports back."""
    read, write = os.pipe()
    snapshot = random.getstate()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 0
        try:
            os.close(read)
            random.setstate(snapshot)
            if restore:
                run_hooks(snapshot_restore_py.get_after_restore())
            with os.fdopen(write, "w") as out:
                json.dump(generate(), out)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as got:
        text = got.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    produced: dict[str, list[Any]] = json.loads(text)
    return produced


@pytest.fixture
def initialised(local_env_free: None) -> None:
    """The function initialised as Lambda does before a snapshot: handler imported, hooks run."""
    import kakeibo.handler  # noqa: F401 - importing it registers the hooks

    run_hooks(list(reversed(snapshot_restore_py.get_before_snapshot())))
    random.seed(1234)  # whatever the generator's state is at snapshot time, every restore shares it


@pytest.fixture
def local_env_free(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_NAME", "LedgerTable")
    monkeypatch.setenv("DYNAMODB_ENDPOINT_URL", "http://127.0.0.1:9")  # never contacted


def test_the_handler_registers_hooks_for_both_sides_of_the_snapshot(initialised: None) -> None:
    from kakeibo import snapstart

    assert (snapstart.prepare, (), {}) in snapshot_restore_py.get_before_snapshot()
    assert (snapstart.refresh, (), {}) in snapshot_restore_py.get_after_restore()


def test_restored_instances_never_repeat_ids_tokens_or_lock_owners(initialised: None) -> None:
    # Given two instances restored from the same initialised process, and that process itself
    first, second = in_forked_child(restore=True), in_forked_child(restore=True)
    parent = generate()
    # Then no slip id, request token or lock owner appears twice anywhere
    for kind in ("slip_ids", "tokens", "lock_owners"):
        together = first[kind] + second[kind] + parent[kind]
        assert len(set(together)) == len(together) == 3 * N, kind
    # And each instance backs off on its own pseudo-random sequence
    assert first["jitter"] != second["jitter"]
    assert parent["jitter"] not in (first["jitter"], second["jitter"])


def test_without_the_restore_hook_the_random_generator_would_be_shared(initialised: None) -> None:
    # Given two forks that skip the after-restore hooks (what a restore would be without them)
    first, second = in_forked_child(restore=False), in_forked_child(restore=False)
    # Then their pseudo-random sequences are the same: the hook is what tells them apart
    assert first["jitter"] == second["jitter"]
    # While ids, tokens and owners still differ: they never came from state in memory
    for kind in ("slip_ids", "tokens", "lock_owners"):
        assert not set(first[kind]) & set(second[kind]), kind
