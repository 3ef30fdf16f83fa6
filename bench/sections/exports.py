"""exports: a ledger's export into one archive, in items per second, against a plain floor.

Ours: `services.dataio.start_export` on the run's history ledger (`sizes.history_days` of daily
slips: the slips, their identities, day and month totals, index items and journal, every item of
the partition), as POST .../exports runs it: pages of 200 items under the export lease, written
into a gzip member, uploaded as a multipart part and recorded, the upload completed. The floor:
the same partition read with plain paged Queries (200 a page, consistent), dumped as JSON Lines,
gzipped and PUT as one object, nothing recorded. Reported: items per second of both, and the
ratio of their times.
"""

from __future__ import annotations

import gzip
import json
import time
import uuid
from typing import Any

import boto3

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import history
from kakeibo.services import dataio
from kakeibo.settings import get_settings
from kakeibo.store import WriteContext
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk

ROUNDS = 3


def _ours(ctx: Context, ledger: str) -> tuple[int, int]:
    start = time.perf_counter_ns()
    done = dataio.start_export(ctx.store, WriteContext.personal(ledger))
    elapsed = time.perf_counter_ns() - start
    if done["state"] != "ready":
        raise BenchError(f"the export did not finish: {done}")
    return elapsed, int(done["items"])


def _floor(ctx: Context, ledger: str, s3: Any) -> tuple[int, int]:
    start = time.perf_counter_ns()
    kwargs: dict[str, Any] = {
        "TableName": ctx.store.core.table,
        "KeyConditionExpression": "PK = :pk",
        "ExpressionAttributeValues": to_ddb({":pk": pk(ledger)}),
        "ConsistentRead": True,
        "Limit": 200,
    }
    lines: list[bytes] = []
    while True:
        res = ctx.store.core.client.query(**kwargs)
        lines += [json.dumps(item, ensure_ascii=False).encode() + b"\n" for item in res.get("Items", [])]
        if not res.get("LastEvaluatedKey"):
            break
        kwargs["ExclusiveStartKey"] = res["LastEvaluatedKey"]
    body = gzip.compress(b"".join(lines))
    s3.put_object(Bucket=get_settings().receipts_bucket, Key=f"floor/{uuid.uuid4().hex}.jsonl.gz", Body=body)
    return time.perf_counter_ns() - start, len(lines)


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"Exports: one archive of a {r['days']}-day ledger ({r['items']} items), best of {r['rounds']}",
        f"  ours {r['ours_items_per_s']:.0f} items/s  floor (Query + gzip + PUT) "
        f"{r['floor_items_per_s']:.0f} items/s  x floor {r['ratio']:.2f}",
    ]


@register("exports", "exports: a ledger's archive against paged Queries + one PUT", order=67, render=render)
def run(ctx: Context) -> dict[str, Any]:
    built = history(ctx)
    ledger = str(built["who"])
    s3 = boto3.client("s3", endpoint_url=get_settings().s3_endpoint_url or None)
    ours, floor, items = [], [], 0
    for _ in range(ROUNDS):
        elapsed, items = _ours(ctx, ledger)
        ours.append(elapsed)
        floor_ns, floor_items = _floor(ctx, ledger, s3)
        floor.append(floor_ns)
    best, best_floor = min(ours), min(floor)
    return {
        "kind": "exports",
        "days": built["days"],
        "items": items,
        "floor_items": floor_items,
        "rounds": ROUNDS,
        "ours_items_per_s": items / (best / 1e9),
        "floor_items_per_s": floor_items / (best_floor / 1e9),
        "ratio": best / best_floor,
    }
