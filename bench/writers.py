"""Concurrent writers, one process each (as Lambda runs one request per instance at a time).

Each writer runs the same deterministic mix on a shared ledger — creates (some transfers),
amount changes, date moves and deletes of its own slips, all on the same two days and the same
accounts, so every write contends for the same balance items — through either the handler
("ours") or the naive ledger. A 409 from ours means nothing was written; the writer retries it,
as a client would.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bench.api import Reply

DATES = ("2025-07-01", "2025-07-02")
MAX_RETRIES = 20


@dataclass
class Handle:
    """One of the writer's slips: where it is and what it says."""

    date: str
    slip_id: str
    body: dict[str, Any]
    etag: str = '"1"'


@dataclass
class Tally:
    ops: int = 0
    retried_409: int = 0
    errors: list[str] = field(default_factory=list)
    latencies_ns: list[int] = field(default_factory=list)


def plan(index: int, ops: int) -> list[tuple[str, int]]:
    """The writer's operations: (what, n). Two creates, an amount change, a move, a delete, repeat."""
    cycle = ("create", "create", "update", "move", "delete")
    return [(cycle[j % len(cycle)], j) for j in range(ops)]


def body(index: int, j: int, date: str) -> dict[str, Any]:
    amount = 100 + 7 * index + 13 * j
    if j % 3 == 2:
        return {"date": date, "kind": "transfer", "amount": amount, "account": "cash", "to_account": "bank"}
    return {"date": date, "kind": "expense", "amount": amount, "account": "cash", "category": "食費"}


def other(date: str) -> str:
    return DATES[1] if date == DATES[0] else DATES[0]


class Transport(Protocol):
    """How a writer reaches the function: the handler in-process (bench.api.Api) or over HTTP."""

    def request(
        self, method: str, target: str, *, user: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Reply: ...


class OursDriver:
    def __init__(self, ledger: str, api: Transport | None = None) -> None:
        if api is None:
            from bench.api import Api  # noqa: PLC0415 - imported in the worker process
            from kakeibo.handler import lambda_handler  # noqa: PLC0415

            api = Api(lambda_handler)
        self.api = api
        self.ledger = ledger

    def _send(self, tally: Tally, method: str, target: str, expect: int, **kw: Any) -> Any:
        for _ in range(MAX_RETRIES):
            reply = self.api.request(method, target, user=self.ledger, **kw)
            if reply.status == 409 and reply.json.get("code") == "conflict":
                tally.retried_409 += 1
                time.sleep(0.005)
                continue
            if reply.status != expect:
                raise RuntimeError(f"{method} {target}: {reply.status} {reply.body[:200]}")
            return reply
        raise RuntimeError(f"{method} {target}: still 409 after {MAX_RETRIES} tries")

    def warm(self) -> None:
        self.api.request("GET", "/accounts/cash", user=self.ledger)

    def create(self, tally: Tally, fields: dict[str, Any]) -> Handle:
        reply = self._send(tally, "POST", "/slips", 201, body=fields)
        return Handle(fields["date"], reply.json["id"], fields, reply.etag)

    def update(self, tally: Tally, slip: Handle, changes: dict[str, Any]) -> Handle:
        new = {**slip.body, **changes}
        path = f"/slips/{slip.date}/{slip.slip_id}"
        reply = self._send(tally, "PUT", path, 200, body=new, headers={"If-Match": slip.etag})
        return Handle(new["date"], slip.slip_id, new, reply.etag)

    def delete(self, tally: Tally, slip: Handle) -> None:
        path = f"/slips/{slip.date}/{slip.slip_id}"
        self._send(tally, "DELETE", path, 204, headers={"If-Match": slip.etag})

    def issued(self) -> int:
        return 0


class NaiveDriver:
    def __init__(self, ledger: str) -> None:
        from bench.naive import NaiveLedger  # noqa: PLC0415 - imported in the worker process
        from kakeibo.store import get_store  # noqa: PLC0415

        self.ledger = NaiveLedger(get_store(), ledger)

    def warm(self) -> None:
        self.ledger.store.core.get(self.ledger.ledger, "ACCOUNT#cash")

    def create(self, tally: Tally, fields: dict[str, Any]) -> Handle:
        item = self.ledger.create(fields)
        return Handle(fields["date"], item["id"], fields)

    def update(self, tally: Tally, slip: Handle, changes: dict[str, Any]) -> Handle:
        new = self.ledger.update(slip.date, slip.slip_id, changes)
        return Handle(new["date"], slip.slip_id, {**slip.body, **changes})

    def delete(self, tally: Tally, slip: Handle) -> None:
        self.ledger.delete(slip.date, slip.slip_id)

    def issued(self) -> int:
        return self.ledger.balance_updates


Driver = OursDriver | NaiveDriver


def run_plan(driver: Driver, index: int, ops: int, tally: Tally) -> None:
    mine: list[Handle] = []
    for what, j in plan(index, ops):
        t0 = time.perf_counter_ns()
        if what == "create" or not mine:
            mine.append(driver.create(tally, body(index, j, DATES[j % 2])))
        elif what == "update":
            mine[-1] = driver.update(tally, mine[-1], {"amount": mine[-1].body["amount"] + 1})
        elif what == "move":
            mine[0] = driver.update(tally, mine[0], {"date": other(mine[0].date)})
        else:
            driver.delete(tally, mine.pop(0))
        tally.latencies_ns.append(time.perf_counter_ns() - t0)
        tally.ops += 1


def writer(  # noqa: PLR0917 - a Process target takes positional args
    impl: str, ledger: str, index: int, ops: int, barrier: Barrier, results: Queue[Any]
) -> None:
    """A worker process: set up, wait for every writer, run the plan, report."""
    tally = Tally()
    try:
        make: Callable[[str], Driver] = OursDriver if impl == "ours" else NaiveDriver
        driver = make(ledger)
        driver.warm()
        barrier.wait(timeout=180)
        t0 = time.perf_counter()
        run_plan(driver, index, ops, tally)
        elapsed = time.perf_counter() - t0
    except Exception:
        tally.errors.append(traceback.format_exc(limit=3))
        elapsed = 0.0
        barrier.abort()
    results.put(
        {
            "index": index,
            "ops": tally.ops,
            "retried_409": tally.retried_409,
            "errors": tally.errors,
            "elapsed_s": elapsed,
            "latencies_ns": tally.latencies_ns,
            "balance_updates_issued": driver.issued() if "driver" in locals() else 0,
        }
    )
