"""list: GET /slips?limit=100, newest first, over years of history."""

from __future__ import annotations

from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import history


@register("list", "list 100 slips", order=50)
def run(ctx: Context) -> dict[str, Any]:
    data = history(ctx)
    op = Op(
        request="GET /slips?limit=100",
        event=lambda i: ctx.api.event("GET", "/slips?limit=100", user=data["who"]),
        expect=200,
        twin=None,
        minimum=Minimum({"Query": 1}, 0, "one Query of the newest slips"),
        after=lambda reply: _check(reply.json, min(100, data["slips"])),
    )
    result = measure(ctx, "list", op)
    result["dataset"] = {k: v for k, v in data.items() if k != "who"}
    return result


def _check(body: dict[str, Any], expected: int) -> None:
    if len(body["items"]) != expected:
        raise BenchError(f"GET /slips returned {len(body['items'])} items, not {expected}")
