"""delete: DELETE /slips/{date}/{id} with If-Match, a different slip every time."""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.measure import Minimum, Op, measure, steps
from bench.registry import register
from bench.scenario import household, slip_body


@register("delete", "delete a slip", order=40)
def run(ctx: Context) -> dict[str, Any]:
    twin = household(ctx, "delete")
    paths = [ctx.mirrored(twin, "POST", "/slips", body=slip_body(i), expect=201).location for i in range(steps(ctx))]
    op = Op(
        request="DELETE /slips/{date}/{id}",
        event=lambda i: ctx.api.event("DELETE", paths[i], user=twin.ours, headers={"If-Match": '"1"'}),
        expect=204,
        twin=twin,
        minimum=Minimum(
            {"GetItem": 1, "TransactWriteItems": 1},
            3,
            "consistent read; slip Delete + identity tombstone + account Update, one transaction",
        ),
    )
    return measure(ctx, "delete", op)
