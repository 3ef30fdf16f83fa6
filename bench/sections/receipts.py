"""receipts: what storing a receipt once costs beyond the upload itself.

Ours: POST /receipts (the claim: one conditional PutItem of the receipt item, and a presigned PUT
signed), the PUT of the bytes to the local S3 server with the headers it names, and POST
.../complete (the receipt read, the object checked: HEAD and, on this server, a GET of the bytes to
hash them, then one conditional UpdateItem). The floor: the same bytes PUT once through a presigned
URL, nothing else. Reported: p50 of both, their ratio, and the API's own share (claim + complete).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from typing import Any

import boto3
import requests

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.stats import ratio, summary
from kakeibo.settings import get_settings

SIZE = 512 * 1024  # a phone photo, compressed
ROUNDS = 20  # each round moves 1 MiB through the local S3 server (kept in its memory): enough for a p50


def _photo() -> bytes:
    return uuid.uuid4().bytes * (SIZE // 16)


def _ours(ctx: Context, ledger: str) -> tuple[int, int]:
    """One receipt stored through the API: (total ns, ns spent in claim + complete)."""
    data = _photo()
    body = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "content_type": "image/jpeg"}
    start = time.perf_counter_ns()
    claimed = ctx.request("POST", "/receipts", user=ledger, body=body, expect=201).json
    claim_ns = time.perf_counter_ns() - start
    upload = claimed["upload"]
    put = requests.put(upload["url"], data=data, headers=upload["headers"], timeout=30)
    if put.status_code != 200:
        raise BenchError(f"PUT answered {put.status_code}")
    before_complete = time.perf_counter_ns()
    ctx.request("POST", f"/receipts/{claimed['id']}/complete", user=ledger, expect=200)
    end = time.perf_counter_ns()
    return end - start, claim_ns + (end - before_complete)


def _floor(client: Any) -> int:
    data = _photo()
    url = client.generate_presigned_url(
        "put_object", Params={"Bucket": get_settings().receipts_bucket, "Key": f"floor/{uuid.uuid4().hex}"}
    )
    start = time.perf_counter_ns()
    put = requests.put(url, data=data, timeout=30)
    if put.status_code != 200:
        raise BenchError(f"floor PUT answered {put.status_code}")
    return time.perf_counter_ns() - start


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"Receipts: claim + PUT + complete of {r['size_kib']} KiB vs a bare presigned PUT (p50 ms)",
        f"  ours {r['ours']['p50_ms']:.2f}  floor {r['floor']['p50_ms']:.2f}  x floor {r['ratio']:.2f}  "
        f"API share (claim + complete) {r['api']['p50_ms']:.2f}",
    ]


@register("receipts", "receipts: claim + complete against a bare presigned PUT", order=66, render=render)
def run(ctx: Context) -> dict[str, Any]:
    ledger = ctx.ledger("receipts")
    client = boto3.client("s3", endpoint_url=get_settings().s3_endpoint_url or None)
    for _ in range(min(3, ctx.sizes.warmup)):
        _ours(ctx, ledger)
        _floor(client)
    ours, api, floor = [], [], []
    for _ in range(min(ROUNDS, ctx.sizes.read_iterations)):
        total, own = _ours(ctx, ledger)
        ours.append(total)
        api.append(own)
        floor.append(_floor(client))
    mine, least = summary(ours), summary(floor)
    return {
        "kind": "receipts",
        "size_kib": SIZE // 1024,
        "ours": mine,
        "floor": least,
        "api": summary(api),
        "ratio": ratio(mine["p50_ms"], least["p50_ms"]),
    }
