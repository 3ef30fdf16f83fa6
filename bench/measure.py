"""Paired timing: one request through the handler, then the same DynamoDB calls straight through boto3.

Per iteration: build the event (untimed); time `lambda_handler(event, context)`; take the calls it
made from the recorder; pre-build them as the floor's requests (on the twin ledger for writes, so
both ledgers stay identical; on the same ledger for reads); time sending them with boto3. Ours and
the floor thus run the same calls with the same items and conditions, interleaved, on the same
client and the same DynamoDB Local; the difference is everything the function does besides them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.api import BenchError, Event, Reply, lambda_context
from bench.context import Context, Twin
from bench.recorder import Call, mean_cost, mentions, wcu
from bench.stats import ratio, summary
from bench.verify import verify
from kakeibo.store.keys import index_head


@dataclass(frozen=True)
class Minimum:
    """The least DynamoDB work the mission allows for an operation (items of at most 1 KB)."""

    calls: dict[str, int]
    transactional_writes: int
    what: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": sum(self.calls.values()),
            "by_operation": self.calls,
            "transactional_writes": self.transactional_writes,
            "wcu": wcu(self.transactional_writes, self.transactional_writes),
            "what": self.what,
        }


@dataclass
class Op:
    request: str  # e.g. "POST /slips", for the table
    event: Callable[[int], Event]  # iteration -> the event to send (built before the timer starts)
    expect: int  # the status every iteration must get
    twin: Twin | None  # writes: the twin ledgers; reads: None (replayed on the same ledger)
    after: Callable[[Reply], None] | None = None  # e.g. remember the new ETag
    minimum: Minimum | None = None
    iterations: int | None = None


def profile_iterations(ctx: Context) -> int:
    return max(20, ctx.sizes.iterations // 4) if ctx.profile else 0


def steps(ctx: Context, iterations: int | None = None) -> int:
    """How many events an operation will send: warm-up, timed, the capacity probe, profiling."""
    return ctx.sizes.warmup + (iterations or ctx.sizes.iterations) + 1 + profile_iterations(ctx)


def measure(ctx: Context, name: str, op: Op) -> dict[str, Any]:
    handler, recorder = ctx.api.handler, ctx.recorder
    warmup, count = ctx.sizes.warmup, op.iterations or ctx.sizes.iterations
    ours_ns: list[int] = []
    floor_ns: list[int] = []
    calls_seen: list[list[Call]] = []
    step = 0

    def once(timed: bool) -> None:
        nonlocal step
        event, context = op.event(step), lambda_context()
        step += 1
        recorder.clear()
        t0 = time.perf_counter_ns()
        result = handler(event, context)
        t1 = time.perf_counter_ns()
        calls = recorder.take()
        _checked(op, result)
        floor = ctx.replay(calls, op.twin)
        if op.twin is not None and mentions([p for _, p in floor.steps], op.twin.ours):
            raise BenchError(f"{name}: the floor's requests still name the handler's ledger")
        t2 = time.perf_counter_ns()
        floor.run()
        t3 = time.perf_counter_ns()
        if timed:
            ours_ns.append(t1 - t0)
            floor_ns.append(t3 - t2)
            calls_seen.append(calls)

    for _ in range(warmup):
        once(timed=False)
    for _ in range(count):
        once(timed=True)
    capacity = _capacity(ctx, op, step)
    step += 1
    profile = _profile(ctx, name, op, step) if ctx.profile else None

    ours, floor = summary(ours_ns), summary(floor_ns)
    result: dict[str, Any] = {
        "kind": "op",
        "request": op.request,
        "ours": ours,
        "floor": floor,
        "ratio": {q: ratio(ours[f"{q}_ms"], floor[f"{q}_ms"]) for q in ("p50", "p95", "p99")},
        "overhead_ms": {q: round(ours[f"{q}_ms"] - floor[f"{q}_ms"], 3) for q in ("p50", "p95", "p99")},
        "cost": {**mean_cost(calls_seen), "priced": capacity},
    }
    if op.minimum is not None:
        result["minimum"] = op.minimum.as_dict()
    if op.twin is not None:
        result["verified"] = _verify_twin(ctx, name, op.twin)
    if profile:
        result["profile"] = profile
    return result


def _checked(op: Op, result: dict[str, Any]) -> Reply:
    reply = Reply.of(result)
    if reply.status != op.expect:
        raise BenchError(f"{op.request}: expected {op.expect}, got {reply.status}: {reply.body[:300]}")
    if op.after is not None:
        op.after(reply)
    return reply


def _capacity(ctx: Context, op: Op, step: int) -> dict[str, Any]:
    """One more (untimed) iteration whose floor asks DynamoDB for the capacity it consumed."""
    ctx.recorder.clear()
    _checked(op, ctx.api.handler(op.event(step), lambda_context()))
    return ctx.replay(ctx.recorder.take(), op.twin).run_measuring_capacity(ctx.client)


def _profile(ctx: Context, name: str, op: Op, step: int) -> str:
    """pyinstrument over extra iterations of the handler alone (the floor's replays are not profiled)."""
    from pyinstrument import Profiler  # noqa: PLC0415 - only with --profile

    profiler = Profiler(interval=0.0002)
    for i in range(profile_iterations(ctx)):
        event, context = op.event(step + i), lambda_context()
        ctx.recorder.clear()
        profiler.start()
        result = ctx.api.handler(event, context)
        profiler.stop()
        _checked(op, result)
        ctx.replay(ctx.recorder.take(), op.twin).run()
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    path = ctx.out_dir / f"profile-{name}.txt"
    path.write_text(profiler.output_text(unicode=False, color=False, show_all=False), encoding="utf-8")
    return ctx.shown(path)


def _verify_twin(ctx: Context, name: str, twin: Twin) -> dict[str, Any]:
    """Both ledgers must be exactly right, and identical: the floor really did the same work."""
    ours, floor = verify(ctx.store, twin.ours), verify(ctx.store, twin.floor)
    if ours["mismatched_items"] or floor["mismatched_items"]:
        raise BenchError(f"{name}: balances drifted: {ours['mismatches'] or floor['mismatches']}")
    same = _items(ctx, twin.ours) == _items(ctx, twin.floor)
    if not same:
        raise BenchError(f"{name}: the floor's ledger differs from the handler's")
    return {"slips": ours["slips"], "drift_yen": ours["balance_drift_yen"], "twin_identical": same}


def _items(ctx: Context, ledger: str) -> list[dict[str, Any]]:
    """The ledger's items, less what names the ledger itself (its key, its owner as their author, the
    owner's slip index items' prefix), in key order."""
    named = ("PK", "created_by", "updated_by")
    mine = index_head("by", ledger)
    items = []
    for item in ctx.store.core.query(ledger, consistent=True):
        if item["SK"] == "JOURNAL" or item["SK"].startswith("CHG#"):
            # the journal: the same entries in the same order (who, when and the views name the ledger)
            items.append({"SK": item["SK"], "seq": item["seq"], "origin": item.get("origin")})
            continue
        kept = {k: v for k, v in item.items() if k not in named}
        if kept["SK"].startswith(mine):
            kept["SK"] = index_head("by", "") + kept["SK"][len(mine) :]
        items.append(kept)
    return sorted(items, key=lambda i: i["SK"])
