"""budgets: GET /budgets for December of a year whose every month rolls over, against January.

One household with `budget_categories` of CATEGORIES (all eight in the full run, two in the quick
one), each with a budget in every month of the year that rolls over, and SLIPS_PER_MONTH expenses
per category and month. December's carry depends on the eleven
months before it; reading it costs one Query of the year's month x category items up to December
(never a slip), January's one Query of its own month. Both reads are timed through the handler,
interleaved (p50 over the iterations). December's figures are checked against a recomputation from
the months first.
Target: December within 1.5x of January.

What the ratio is made of is reported beside it, per read (p50s of the same interleaved samples):
the bench process's CPU time (the handler and botocore: what the function itself spends) and the
wall time outside DynamoDB Local's round trips. December reads 12x the items of January, and each
costs three things: DynamoDB Local serving it (tens of µs an item: an emulator's, not DynamoDB's),
botocore parsing it, and ours; the constant part of every request (the tombstone's GetItem, the
resolver, validation) sets how much the same per-item difference weighs. Figures from before a
request's constant work grew (1.72x at 5.3 ms for January, 1.43x at 8.1 ms, the same ~3.6 ms
difference) are not comparable with today's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from bench.api import BenchError, Reply
from bench.context import Context
from bench.registry import register
from bench.scenario import household
from bench.stats import ratio, summary

YEAR = 2026
CATEGORIES = ("食費", "日用品", "交通費", "外食", "趣味", "衣服", "医療費", "光熱費")
SLIPS_PER_MONTH = 2
LIMIT = 30_000
TARGET = 1.5


@contextmanager
def round_trips(ctx: Context) -> Iterator[list[int]]:
    """The nanoseconds of each HTTP round trip the handler's client makes, while the block runs."""
    endpoint = ctx.client._endpoint  # type: ignore[attr-defined]
    send = endpoint._send
    trips: list[int] = []

    def timed(request: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return send(request)
        finally:
            trips.append(time.perf_counter_ns() - t0)

    endpoint._send = timed
    try:
        yield trips
    finally:
        endpoint._send = send


def _amount(category: int, month: int, n: int) -> int:
    return 1_000 + 137 * category + 211 * month + 53 * n  # varied, so carries differ by category


def _expected_december(category: int) -> int:
    """December's available: every month's limit, less what the eleven months before it spent."""
    spent = sum(_amount(category, m, n) for m in range(1, 12) for n in range(SLIPS_PER_MONTH))
    return 12 * LIMIT - spent


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"GET /budgets on a year of rolled-over budgets ({r['categories']} categories, {r['slips']} slips; "
        "p50 ms through the handler)",
        f"  January  {r['january']['p50_ms']:8.2f}",
        f"  December {r['december']['p50_ms']:8.2f}  ({', '.join(r['december_calls'])})",
        f"  December / January {r['december_vs_january']:.2f}; target within {TARGET}x: "
        f"{r['targets']['december_within_1_5x']}",
        *(
            f"  {label}: January {r['split'][part]['01']:.2f}, December {r['split'][part]['12']:.2f} -> "
            f"{r['split'][part]['december_vs_january']:.2f}x"
            for part, label in (
                ("cpu", "CPU time of the bench's process (handler + botocore)"),
                ("outside_dynamodb_local", "wall time outside DynamoDB Local's round trips"),
            )
            if "split" in r
        ),
    ]


@register("budgets", "budgets that carry over: December of a rolled-over year vs January", order=61, render=render)
def run(ctx: Context) -> dict[str, Any]:
    who = household(ctx, "budgets").ours
    categories = CATEGORIES[: ctx.sizes.budget_categories]
    for c, category in enumerate(categories):
        for month in range(1, 13):
            body = {"limit": LIMIT, "rollover": True}
            ctx.request("PUT", f"/budgets/{YEAR}-{month:02d}/{quote(category)}", user=who, body=body, expect=201)
            for n in range(SLIPS_PER_MONTH):
                slip = {
                    "date": f"{YEAR}-{month:02d}-{10 + n:02d}",
                    "kind": "expense",
                    "amount": _amount(c, month, n),
                    "account": "cash",
                    "category": category,
                }
                ctx.request("POST", "/slips", user=who, body=slip, expect=201)
    events = {month: ctx.api.event("GET", f"/budgets?month={YEAR}-{month}", user=who) for month in ("01", "12")}

    def read(month: str) -> Reply:
        reply = ctx.api.invoke(events[month])
        if reply.status != 200:
            raise BenchError(f"GET /budgets {month}: {reply.status} {reply.body[:300]}")
        return reply

    december = {item["category"]: item for item in read("12").json["items"]}
    for c, category in enumerate(categories):
        if december[category]["available"] != _expected_december(c):
            raise BenchError(f"December {category}: available {december[category]['available']}, "
                             f"expected {_expected_december(c)}")  # fmt: skip
    ctx.recorder.clear()
    read("12")
    december_calls = [c.operation for c in ctx.recorder.take()]
    samples: dict[str, list[int]] = {"01": [], "12": []}
    cpu: dict[str, list[int]] = {"01": [], "12": []}
    outside: dict[str, list[int]] = {"01": [], "12": []}
    with round_trips(ctx) as trips:
        for i in range(ctx.sizes.warmup + ctx.sizes.read_iterations):
            for which in ("01", "12") if i % 2 else ("12", "01"):  # taking turns: both see the same load
                trips.clear()
                c0, t0 = time.process_time_ns(), time.perf_counter_ns()
                read(which)
                elapsed, spent = time.perf_counter_ns() - t0, time.process_time_ns() - c0
                if i >= ctx.sizes.warmup:
                    samples[which].append(elapsed)
                    cpu[which].append(spent)
                    outside[which].append(elapsed - sum(trips))
    january, dec = summary(samples["01"]), summary(samples["12"])
    vs = ratio(dec["p50_ms"], january["p50_ms"])
    split = {
        "cpu": {month: summary(values)["p50_ms"] for month, values in cpu.items()},
        "outside_dynamodb_local": {month: summary(values)["p50_ms"] for month, values in outside.items()},
    }
    for part in split.values():
        part["december_vs_january"] = ratio(part["12"], part["01"])
    return {
        "kind": "budgets",
        "categories": len(categories),
        "slips": len(categories) * 12 * SLIPS_PER_MONTH,
        "january": january,
        "december": dec,
        "december_calls": december_calls,
        "december_vs_january": vs,
        "split": split,
        "targets": {"december_within_1_5x": vs <= TARGET},
    }
