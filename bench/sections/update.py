"""update: PUT /slips/{date}/{id} with If-Match, same key, the amount changes every time."""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import household, slip_body


@register("update", "update a slip, same key", order=20)
def run(ctx: Context) -> dict[str, Any]:
    twin = household(ctx, "update")
    created = ctx.mirrored(twin, "POST", "/slips", body=slip_body(0), expect=201)
    state = {"path": created.location, "etag": created.etag}

    def event(i: int) -> dict[str, Any]:
        body = slip_body(0, amount=1000 + i % 2)  # a different amount from the slip's current one
        headers = {"If-Match": state["etag"]}
        return ctx.api.event("PUT", state["path"], user=twin.ours, body=body, headers=headers)

    op = Op(
        request="PUT /slips/{date}/{id}",
        event=event,
        expect=200,
        twin=twin,
        after=lambda reply: state.update(etag=reply.etag),
        minimum=Minimum(
            {"GetItem": 1, "TransactWriteItems": 1},
            3,
            "consistent read of the slip; slip Put + identity Update + account Update, one transaction",
        ),
    )
    return measure(ctx, "update", op)
