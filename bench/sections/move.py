"""move: PUT /slips/{date}/{id} with a new date, so the slip moves to a new key (same month)."""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import DAY, NEXT_DAY, household, slip_body


@register("move", "update a slip, key change (new date)", order=30)
def run(ctx: Context) -> dict[str, Any]:
    twin = household(ctx, "move")
    created = ctx.mirrored(twin, "POST", "/slips", body=slip_body(0, amount=1000), expect=201)
    state = {"path": created.location, "etag": created.etag}

    def event(i: int) -> dict[str, Any]:
        date = NEXT_DAY if state["path"].split("/")[2] == DAY else DAY
        body = slip_body(0, date=date, amount=1000)
        return ctx.api.event("PUT", state["path"], user=twin.ours, body=body, headers={"If-Match": state["etag"]})

    op = Op(
        request="PUT /slips/{date}/{id} (new date)",
        event=event,
        expect=200,
        twin=twin,
        after=lambda reply: state.update(path=reply.location, etag=reply.etag),
        minimum=Minimum(
            {"GetItem": 1, "TransactWriteItems": 1},
            3,
            "consistent read; old key Delete + new key Put + identity Update, one transaction (the balance "
            "does not move)",
        ),
    )
    return measure(ctx, "move", op)
