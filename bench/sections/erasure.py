"""erasure: a 10-year ledger's export and deletion, in items per second, against plain floors.

The ledger: `sizes.age_days[2]` days of a family's slips (10 years in the full run), imported
through the handler as `ages` builds its oldest ledger, and verified.

Export. Ours: `services.dataio.start_export`, as POST .../exports runs it (pages under the export
lease, gzip parts uploaded and recorded, the upload completed). The floor: the same partition read
with plain paged Queries, dumped as JSON Lines, gzipped and PUT as one object, nothing recorded.

Deletion. Two copies of the ledger's items are written into ledgers of their own (its exports
left out). Ours: `services.dataio.delete_me` on one, as DELETE /me runs it: the person's tombstone,
the fence, their restores and Idempotency-Key records looked for, then every item removed page by
page under the delete lease, each page's progress recorded and the lease renewed. The floor: the
other copy's keys read with paged Queries and removed with BatchWriteItem (25 a call), nothing
recorded. Reported: items per second of each side, and the ratio of their times.
"""

from __future__ import annotations

import time
from typing import Any

import boto3

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import history_slips
from bench.sections.ages import fill_ledger
from bench.sections.exports import _floor as export_floor
from bench.sections.exports import _ours as export_ours
from bench.verify import verify
from kakeibo.services import dataio
from kakeibo.settings import get_settings
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk

BATCH = 25


def _ledger(ctx: Context) -> dict[str, Any]:
    days = ctx.sizes.age_days[2]
    ledger = ctx.ledger("erasure")
    slips = history_slips(days)
    fill_ledger(ctx, ledger, slips)
    checked = verify(ctx.store, ledger)
    if checked["mismatched_items"] or checked["slips"] != len(slips):
        raise BenchError(f"the {days}-day ledger does not verify: {checked['mismatches']}")
    return {"who": ledger, "days": days, "slips": len(slips)}


def _raw_items(ctx: Context, ledger: str) -> list[dict[str, Any]]:
    """The ledger's items as stored (typed values), its exports and leases left out."""
    kwargs: dict[str, Any] = {
        "TableName": ctx.store.core.table,
        "KeyConditionExpression": "PK = :pk",
        "ExpressionAttributeValues": to_ddb({":pk": pk(ledger)}),
        "ConsistentRead": True,
    }
    items: list[dict[str, Any]] = []
    while True:
        res = ctx.client.query(**kwargs)
        items += [i for i in res["Items"] if not i["SK"]["S"].startswith(("EXPORT", "LOCK#"))]
        if not res.get("LastEvaluatedKey"):
            return items
        kwargs["ExclusiveStartKey"] = res["LastEvaluatedKey"]


def _batches(ctx: Context, requests: list[dict[str, Any]]) -> None:
    for start in range(0, len(requests), BATCH):
        pending: dict[str, Any] = {ctx.store.core.table: requests[start : start + BATCH]}
        while pending:
            pending = ctx.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}


def _copy(ctx: Context, items: list[dict[str, Any]]) -> str:
    """A personal ledger of its own holding `items`: its owner."""
    owner = ctx.ledger("erasure-copy")
    _batches(ctx, [{"PutRequest": {"Item": {**i, "PK": {"S": pk(owner)}}}} for i in items])
    return owner


def _delete_ours(ctx: Context, owner: str) -> tuple[int, int]:
    start = time.perf_counter_ns()
    done = dataio.delete_me(ctx.store, owner)
    elapsed = time.perf_counter_ns() - start
    if done["state"] != "deleted":
        raise BenchError(f"the deletion did not finish: {done}")
    return elapsed, int(done["items"])


def _delete_floor(ctx: Context, owner: str) -> tuple[int, int]:
    start = time.perf_counter_ns()
    kwargs: dict[str, Any] = {
        "TableName": ctx.store.core.table,
        "KeyConditionExpression": "PK = :pk",
        "ExpressionAttributeValues": to_ddb({":pk": pk(owner)}),
        "ProjectionExpression": "PK, SK",
        "ConsistentRead": True,
    }
    removed = 0
    while True:
        res = ctx.client.query(**kwargs)
        _batches(ctx, [{"DeleteRequest": {"Key": key}} for key in res["Items"]])
        removed += len(res["Items"])
        if not res.get("LastEvaluatedKey"):
            break
        kwargs["ExclusiveStartKey"] = res["LastEvaluatedKey"]
    return time.perf_counter_ns() - start, removed


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"Erasure: a {r['days']}-day ledger ({r['slips']} slips), best of {r['rounds']}",
        f"  export   ours {r['export']['ours_items_per_s']:.0f} items/s ({r['export']['items']} items)  floor (Query "
        f"+ gzip + PUT) {r['export']['floor_items_per_s']:.0f} items/s  x floor {r['export']['ratio']:.2f}",
        f"  deletion ours {r['deletion']['ours_items_per_s']:.0f} items/s ({r['deletion']['items']} items)  floor "
        f"(Query + BatchWriteItem) {r['deletion']['floor_items_per_s']:.0f} items/s  x floor "
        f"{r['deletion']['ratio']:.2f}",
    ]


def _side(ours: list[tuple[int, int]], floor: list[tuple[int, int]]) -> dict[str, Any]:
    (best, items), (best_floor, floor_items) = min(ours), min(floor)
    return {
        "items": items,
        "floor_items": floor_items,
        "ours_items_per_s": items / (best / 1e9),
        "floor_items_per_s": floor_items / (best_floor / 1e9),
        "ratio": best / best_floor,
    }


@register("erasure", "a 10-year ledger's export and deletion against Query / BatchWriteItem", order=68, render=render)
def run(ctx: Context) -> dict[str, Any]:
    built = _ledger(ctx)
    ledger = str(built["who"])
    s3 = boto3.client("s3", endpoint_url=get_settings().s3_endpoint_url or None)
    rounds = 2 if ctx.sizes.iterations > ctx.sizes.warmup * 5 else 1  # the quick run: once
    exports = [export_ours(ctx, ledger) for _ in range(rounds)]
    export_floors = [export_floor(ctx, ledger, s3) for _ in range(rounds)]
    items = _raw_items(ctx, ledger)
    deletions, deletion_floors = [], []
    for _ in range(rounds):
        deletions.append(_delete_ours(ctx, _copy(ctx, items)))
        deletion_floors.append(_delete_floor(ctx, _copy(ctx, items)))
    return {
        "kind": "erasure",
        "days": built["days"],
        "slips": built["slips"],
        "rounds": rounds,
        "export": _side(exports, export_floors),
        "deletion": _side(deletions, deletion_floors),
    }
