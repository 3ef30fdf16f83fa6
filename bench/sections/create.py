"""create: POST /slips, an expense on cash."""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import household, slip_body


@register("create", "create a slip", order=10)
def run(ctx: Context) -> dict[str, Any]:
    twin = household(ctx, "create")
    op = Op(
        request="POST /slips",
        event=lambda i: ctx.api.event("POST", "/slips", user=twin.ours, body=slip_body(i)),
        expect=201,
        twin=twin,
        minimum=Minimum({"TransactWriteItems": 1}, 3, "slip Put + its identity Put + account Update, one transaction"),
    )
    return measure(ctx, "create", op)
