"""naive: the same edits without transactions — latency alone, then 8 concurrent writers.

Latency: create / amount change / date move / delete on the naive ledger (bench/naive.py), timed
straight through boto3 (no handler), beside ours from the op sections of the same run.
Concurrency: `sizes.writers` processes run the same mix on one shared ledger, first through our
handler, then through the naive ledger; afterwards every balance item of both ledgers is
recomputed from the slips (bench/verify.py). Ours must show no drift at all.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.naive import NaiveLedger
from bench.recorder import mean_cost
from bench.registry import register
from bench.scenario import DAY, NEXT_DAY, OPENING, slip_body, spread
from bench.stats import summary
from bench.verify import verify
from bench.writers import writer

OPS = ("create", "update", "move", "delete")


def _latency(ctx: Context) -> dict[str, Any]:
    naive = NaiveLedger(ctx.store, ctx.ledger("naive"))
    naive.open_account("cash", OPENING)
    n, warm = ctx.sizes.iterations, ctx.sizes.warmup
    slip = naive.create(slip_body(0))
    # Spread over days as a household's slips are (a few a day): the naive ledger re-queries a
    # day's slips on every change, so piling them all onto one day would exaggerate its cost.
    doomed = [naive.create(slip_body(i, date=spread(i))) for i in range(warm + n)]
    state = {"date": DAY}

    steps: dict[str, Callable[[int], Any]] = {
        "create": lambda i: naive.create(slip_body(i, date=spread(i))),
        "update": lambda i: naive.update(state["date"], slip["id"], {"amount": 1000 + i % 2}),
        "move": lambda i: _move(naive, slip["id"], state),
        "delete": lambda i: naive.delete(doomed[i]["date"], doomed[i]["id"]),
    }
    out: dict[str, Any] = {}
    for name in OPS:
        samples, calls = [], []
        for i in range(warm + n):
            ctx.recorder.clear()
            t0 = time.perf_counter_ns()
            steps[name](i)
            t1 = time.perf_counter_ns()
            if i >= warm:
                samples.append(t1 - t0)
                calls.append(ctx.recorder.take())
        ours = ctx.results.get(name, {})
        out[name] = {
            "naive": summary(samples),
            "cost": mean_cost(calls),
            "ours_p50_ms": ours.get("ours", {}).get("p50_ms"),
            "floor_p50_ms": ours.get("floor", {}).get("p50_ms"),
        }
    return out


def _move(naive: NaiveLedger, slip_id: str, state: dict[str, str]) -> None:
    new = NEXT_DAY if state["date"] == DAY else DAY
    naive.update(state["date"], slip_id, {"date": new})
    state["date"] = new


def _race(ctx: Context, impl: str, ledger: str) -> dict[str, Any]:
    spawn = multiprocessing.get_context("spawn")
    count, ops = ctx.sizes.writers, ctx.sizes.writer_ops
    barrier = spawn.Barrier(count + 1)
    results: Any = spawn.Queue()
    procs = [
        spawn.Process(target=writer, args=(impl, ledger, i, ops, barrier, results), daemon=True) for i in range(count)
    ]
    for proc in procs:
        proc.start()
    reports: list[dict[str, Any]] = []
    try:
        barrier.wait(timeout=240)
        t0 = time.perf_counter()
        while len(reports) < count:
            reports.append(results.get(timeout=600))
        wall = time.perf_counter() - t0
    except (threading.BrokenBarrierError, queue.Empty) as exc:
        while True:
            try:
                reports.append(results.get(timeout=5))
            except queue.Empty:
                break
        errors = [e for r in reports for e in r["errors"]]
        raise BenchError(f"{impl} writers failed: {errors[:1] or exc!r}") from exc
    finally:
        for proc in procs:
            proc.join(timeout=30)
    errors = [e for r in reports for e in r["errors"]]
    if errors:
        raise BenchError(f"{impl} writer failed: {errors[0]}")
    done = sum(r["ops"] for r in reports)
    return {
        "writers": count,
        "ops": done,
        "wall_s": round(wall, 2),
        "ops_per_s": round(done / wall, 1) if wall else None,
        "retried_409": sum(r["retried_409"] for r in reports),
        "latency": summary([ns for r in reports for ns in r["latencies_ns"]]),
        "balance_updates_issued": sum(r["balance_updates_issued"] for r in reports),
    }


def _concurrent(ctx: Context) -> dict[str, Any]:
    ours_who, naive_who = ctx.ledger("race-ours"), ctx.ledger("race-naive")
    for account in ("cash", "bank"):
        body = {"id": account, "name": account.title(), "type": "cash", "opening_balance": OPENING}
        ctx.request("POST", "/accounts", user=ours_who, body=body, expect=201)
    naive = NaiveLedger(ctx.store, naive_who)
    for account in ("cash", "bank"):
        naive.open_account(account, OPENING)
    ours = _race(ctx, "ours", ours_who)
    ours["verify"] = verify(ctx.store, ours_who)
    theirs = _race(ctx, "naive", naive_who)
    theirs["verify"] = verify(ctx.store, naive_who, categories=False)
    accounts = ctx.store.core.query(naive_who, begins_with="ACCOUNT#", consistent=True)
    applied = sum(int(i.get("naive_updates", 0)) for i in accounts)
    theirs["lost_balance_updates"] = theirs["balance_updates_issued"] - applied
    return {"ours": ours, "naive": theirs}


def render(r: dict[str, Any]) -> list[str]:
    lines = ["Naive ledger (separate puts, re-query the day, read-modify-write balances) vs ours"]
    lines.append(f"  {'op':8} {'naive p50/p99 ms':>18} {'calls':>6} {'WCU':>4} {'ours p50':>9} {'floor p50':>10}")
    for name, row in r["latency"].items():
        n = row["naive"]
        ours = f"{row['ours_p50_ms']:.2f}" if row["ours_p50_ms"] is not None else "-"
        floor = f"{row['floor_p50_ms']:.2f}" if row["floor_p50_ms"] is not None else "-"
        lines.append(
            f"  {name:8} {n['p50_ms']:8.2f} / {n['p99_ms']:7.2f} {row['cost']['calls']:>6g} "
            f"{row['cost']['wcu_if_items_under_1kb']:>4g} {ours:>9} {floor:>10}"
        )
    c = r["concurrent"]
    for impl in ("ours", "naive"):
        x = c[impl]
        v = x["verify"]
        lost = f", lost balance updates {x['lost_balance_updates']}" if "lost_balance_updates" in x else ""
        lines.append(
            f"  {x['writers']} writers, {impl:5}: {x['ops']} ops in {x['wall_s']:.1f} s "
            f"({x['ops_per_s']} ops/s, p50 {x['latency']['p50_ms']:.1f} ms, "
            f"409 retried {x['retried_409']}); after: "
            f"{v['mismatched_items']} mismatched items, balance drift {v['balance_drift_yen']} yen, "
            f"day-total drift {v['day_total_drift_yen']} yen{lost}"
        )
    return lines


@register("naive", "naive ledger (no transactions) vs ours", order=80, render=render)
def run(ctx: Context) -> dict[str, Any]:
    return {"kind": "naive", "latency": _latency(ctx), "concurrent": _concurrent(ctx)}
