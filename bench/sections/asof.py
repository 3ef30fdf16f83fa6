"""asof: GET /balances?date=D, every account's balance at the end of D over years of daily history."""

from __future__ import annotations

from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import history


@register("asof", "balances as of a date", order=60)
def run(ctx: Context) -> dict[str, Any]:
    data = history(ctx)
    target = f"/balances?date={data['last']}"
    expected = ctx.request("GET", "/balances", user=data["who"], expect=200).json["items"]

    def check(reply: Any) -> None:
        if reply.json["items"] != expected:  # as of the last day == the current balances
            raise BenchError(f"balances as of {data['last']} differ from the current ones")

    op = Op(
        request="GET /balances?date=D",
        event=lambda i: ctx.api.event("GET", target, user=data["who"]),
        expect=200,
        twin=None,
        after=check,
        iterations=ctx.sizes.read_iterations,
        minimum=Minimum(
            {"GetItem": 1, "Query": 1},
            0,
            "the least that answers it: one GetItem (an account) + one Query (a month of its day totals);"
            " ours: the accounts, every account's years before D, every account's months of D's year",
        ),
    )
    result = measure(ctx, "asof", op)
    result["dataset"] = {k: v for k, v in data.items() if k != "who"}
    return result
