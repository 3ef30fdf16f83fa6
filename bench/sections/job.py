"""job: the daily job over many households' due recurrences (the sharded due index).

2,000 ledgers with 10 recurrences each, due today (a bench seed: written straight to the table
with their due keys, as the API writes them). Measured: reading the due index (every shard, merged
by date) with its shards read one at a time and in parallel; and the job's posting rate over its
first minute, with the job time that rate gives for all of them.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from bench.api import BenchError
from bench.context import Context, setting
from bench.registry import register
from kakeibo.models.recurrences import RecurrenceIn
from kakeibo.services import daily
from kakeibo.services import recurrences as recurrence_service
from kakeibo.settings import get_settings
from kakeibo.store import recurrences as due_index
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk, recurrence_sk
from kakeibo.store.recurrences import DUE_PK, DUE_SK, due_shard

PER_LEDGER = 10
DAY = dt.date(2026, 11, 2)


def _seed(ctx: Context) -> list[str]:
    """Ledgers with a bank account (through the API) and recurrences due on DAY (written directly)."""
    ledgers = [ctx.ledger(f"job{n}") for n in range(ctx.sizes.due_ledgers)]
    shards = get_settings().due_shards
    body = RecurrenceIn.model_validate(
        {
            "slip": {"kind": "expense", "amount": 100, "account": "bank", "category": "固定費"},
            "rule": {"freq": "monthly", "by_month_day": 2, "start": DAY.isoformat()},
            "shift": "none",
        }
    )
    definition = recurrence_service._definition_fields(body)
    puts: list[dict[str, Any]] = []
    for ledger in ledgers:
        account = {"id": "bank", "name": "Bank", "type": "bank", "opening_balance": 10**9}
        ctx.request("POST", "/accounts", user=ledger, body=account, expect=201)
        for n in range(PER_LEDGER):
            rid = f"R{n:02d}{ledger[-10:].upper()}"
            stamp = "2026-11-01T00:00:00.000Z"
            item = {
                "PK": pk(ledger), "SK": recurrence_sk(rid), "type": "recurrence", "id": rid, **definition,
                "next_due": DAY.isoformat(), "next_scheduled": DAY.isoformat(), "version": 1,
                "created_at": stamp, "updated_at": stamp, "created_by": ledger,
                DUE_PK: due_shard(ledger, shards), DUE_SK: f"{DAY.isoformat()}#{ledger}#{rid}",
            }  # fmt: skip
            puts.append({"PutRequest": {"Item": to_ddb(item)}})
    for start in range(0, len(puts), 25):
        batch: Any = {ctx.store.core.table: puts[start : start + 25]}
        ctx.client.batch_write_item(RequestItems=batch)
    return ledgers


def _rekey(ctx: Context, ledgers: list[str], shards: int) -> None:
    """Every seeded due item moved to its shard among `shards` (as the API would have keyed it)."""
    for ledger in ledgers:
        for n in range(PER_LEDGER):
            rid = f"R{n:02d}{ledger[-10:].upper()}"
            ctx.client.update_item(
                TableName=ctx.store.core.table,
                Key=to_ddb({"PK": pk(ledger), "SK": recurrence_sk(rid)}),
                UpdateExpression="SET #d = :s",
                ExpressionAttributeNames={"#d": DUE_PK},
                ExpressionAttributeValues=to_ddb({":s": due_shard(ledger, shards)}),
            )


def _read_index(ctx: Context, parallel: int) -> tuple[float, int]:
    before = due_index.MAX_PARALLEL_SHARDS
    due_index.MAX_PARALLEL_SHARDS = parallel
    try:
        t0 = time.perf_counter()
        found = sum(1 for _ in ctx.store.recurrences.due_recurrences(DAY.isoformat()))
        return time.perf_counter() - t0, found
    finally:
        due_index.MAX_PARALLEL_SHARDS = before


def render(r: dict[str, Any]) -> list[str]:
    read = r["index_read"]
    return [
        f"Daily job: {r['ledgers']} ledgers x {PER_LEDGER} due recurrences = {r['due']}, "
        f"{r['shards']} due-index shards",
        f"  reading the due index: {read['one_shard_s']:.2f} s on one partition (as before the shards); "
        f"{read['serial_s']:.2f} s over the shards one at a time, "
        f"{read['parallel_s']:.2f} s with {read['parallel']} at a time ({r['due']} items found each time)",
        f"  posting: {r['posted']} occurrences in {r['posting_s']:.1f} s = {r['posts_per_s']:.0f}/s; "
        f"all {r['due']}: about {r['projected_job_s']:.0f} s in one invocation",
    ]


@register("job", "the daily job over many households (sharded due index)", order=70, render=render)
def run(ctx: Context) -> dict[str, Any]:
    ledgers = _seed(ctx)
    due = len(ledgers) * PER_LEDGER
    serial_s, found_serial = _read_index(ctx, 1)
    parallel_s, found = _read_index(ctx, 8)
    if found < due or found_serial != found:
        raise BenchError(f"the due index found {found} (serially {found_serial}) of {due}")
    # the same items on one index partition, as before the shards
    shards = get_settings().due_shards
    try:
        with setting("DUE_SHARDS", "1"):
            _rekey(ctx, ledgers, 1)
            one_s, found_one = _read_index(ctx, 1)
    finally:
        _rekey(ctx, ledgers, shards)
    if found_one != found:
        raise BenchError(f"one shard found {found_one} of {found}")
    deadline = time.monotonic() + ctx.sizes.job_seconds
    t0 = time.perf_counter()
    result = daily.post_due(ctx.store, DAY, time_left=lambda: deadline - time.monotonic() + 2.0)
    posting_s = time.perf_counter() - t0
    posted = int(result["posted"])
    if posted == 0:
        raise BenchError(f"the job posted nothing: {result}")
    rate = posted / posting_s
    return {
        "kind": "job",
        "ledgers": len(ledgers),
        "due": due,
        "shards": get_settings().due_shards,
        "index_read": {
            "one_shard_s": round(one_s, 3),
            "serial_s": round(serial_s, 3),
            "parallel_s": round(parallel_s, 3),
            "parallel": 8,
        },
        "posted": posted,
        "posting_s": round(posting_s, 2),
        "posts_per_s": round(rate, 1),
        "projected_job_s": round(due / rate, 1),
        "complete": bool(result["complete"]),
    }
