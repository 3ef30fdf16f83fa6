"""front: throughput of the local front (`make run`) over HTTP, 1 writer against many at once.

The front and its function instances (FUNCTION_CONCURRENCY, default 4, as `make run` starts
them) serve real HTTP on a free port. Writers are client threads, each with its own connection,
running the same mix as the naive section's writers (creates, amount changes, date moves,
deletes on one shared ledger, retrying 409 conflicts); all start together. Three runs: one
writer; `sizes.writers` writers; the same writers with one request at a time through the front
(how it ran before it had instances). Afterwards each ledger is recomputed from its slips
(bench/verify.py). Throughput is reported, not asserted: the machine's cores bound it.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import requests

from bench.api import BenchError, Reply
from bench.context import Context
from bench.registry import register
from bench.scenario import OPENING
from bench.stats import summary
from bench.verify import verify
from bench.writers import OursDriver, Tally, run_plan
from kakeibo.local.dynamodb import free_port
from kakeibo.local.front import Front, Function, serve
from kakeibo.local.instances import Pool, concurrency


class Http:
    """A client of the front: one connection of its own, the bench's Reply back."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()

    def request(
        self,
        method: str,
        target: str,
        *,
        user: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        expect: int | None = None,
    ) -> Reply:
        sent = {"Authorization": f"Bearer {user}", **(headers or {})}
        data = None
        if body is not None:
            sent["Content-Type"] = "application/json"
            data = json.dumps(body, ensure_ascii=False).encode()
        got = self.session.request(method, self.base + target, data=data, headers=sent, timeout=120)
        reply = Reply(got.status_code, dict(got.headers), got.text)
        if expect is not None and reply.status != expect:
            raise BenchError(f"{method} {target}: expected {expect}, got {reply.status}: {reply.body[:300]}")
        return reply


class OneAtATime:
    """The front as it was before it had instances: one request in the function at a time."""

    def __init__(self, function: Function) -> None:
        self.function = function
        self._lock = threading.Lock()

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return self.function.invoke(event)


@contextmanager
def serving(front: Front) -> Iterator[str]:
    """`front` served over HTTP on a free port for the block: its base URL."""
    server = serve(front, "127.0.0.1", free_port())
    server.quiet = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _writers(ctx: Context, base: str, count: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"front-{count}")
    for account in ("cash", "bank"):
        body = {"id": account, "name": account.title(), "type": "cash", "opening_balance": OPENING}
        Http(base).request("POST", "/accounts", user=ledger, body=body, expect=201)
    ops = ctx.sizes.writer_ops
    barrier = threading.Barrier(count + 1)
    tallies = [Tally() for _ in range(count)]

    def writer(index: int) -> None:
        try:
            driver = OursDriver(ledger, Http(base))
            driver.warm()
            barrier.wait(timeout=120)
            run_plan(driver, index, ops, tallies[index])
        except Exception:
            tallies[index].errors.append(traceback.format_exc(limit=3))
            barrier.abort()

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    with suppress(threading.BrokenBarrierError):
        barrier.wait(timeout=240)
    t0 = time.perf_counter()
    for thread in threads:
        thread.join(timeout=600)
    wall = time.perf_counter() - t0
    errors = [e for t in tallies for e in t.errors]
    if errors:
        raise BenchError(f"front writer failed: {errors[0]}")
    done = sum(t.ops for t in tallies)
    checked = verify(ctx.store, ledger)
    return {
        "writers": count,
        "ops": done,
        "wall_s": round(wall, 2),
        "ops_per_s": round(done / wall, 1) if wall else None,
        "retried_409": sum(t.retried_409 for t in tallies),
        "latency": summary([ns for t in tallies for ns in t.latencies_ns]),
        "verify": {k: checked[k] for k in ("mismatched_items", "balance_drift_yen", "day_total_drift_yen")},
    }


def render(r: dict[str, Any]) -> list[str]:
    lines = [f"Local front over HTTP ({r['instances']} function instances), writers on one ledger"]
    for label, key in (
        ("1 writer", "one"),
        (f"{r['many']['writers']} writers", "many"),
        (f"{r['serial']['writers']} writers, one request at a time", "serial"),
    ):
        x = r[key]
        v = x["verify"]
        lines.append(
            f"  {label:38} {x['ops_per_s']:>7} ops/s  p50 {x['latency']['p50_ms']:7.1f} ms  "
            f"p99 {x['latency']['p99_ms']:7.1f} ms  409 retried {x['retried_409']}  "
            f"mismatched items {v['mismatched_items']}"
        )
    lines.append(f"  {r['many']['writers']} writers / 1 writer: x{r['speedup']['many_vs_one']}")
    return lines


@register("front", "local front over HTTP: 1 writer vs many", order=85, render=render)
def run(ctx: Context) -> dict[str, Any]:
    size = concurrency()
    pool = Pool(size, ctx.env).start()
    try:
        with serving(Front(pool)) as base:
            one = _writers(ctx, base, 1)
            many = _writers(ctx, base, ctx.sizes.writers)
        with serving(Front(OneAtATime(pool))) as base:
            serial = _writers(ctx, base, ctx.sizes.writers)
    finally:
        pool.close()
    return {
        "kind": "front",
        "instances": size,
        "one": one,
        "many": many,
        "serial": serial,
        "speedup": {
            "many_vs_one": round(many["ops_per_s"] / one["ops_per_s"], 2) if one["ops_per_s"] else None,
            "many_vs_serial": round(many["ops_per_s"] / serial["ops_per_s"], 2) if serial["ops_per_s"] else None,
        },
    }
