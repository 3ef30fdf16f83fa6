"""split: POST /slips of a 10-line split (a supermarket receipt across ten categories)."""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import DAY, household

LINES = 10


def split_body(i: int) -> dict[str, Any]:
    lines = [
        {"amount": 100 + (i * 7 + n) % 300, "category": f"分類{n}", "subcategory": f"内訳{n}"} for n in range(LINES)
    ]
    return {"date": DAY, "kind": "expense", "amount": sum(x["amount"] for x in lines), "account": "cash",
            "memo": "スーパー", "lines": lines}  # fmt: skip


@register("split", f"create a {LINES}-line split slip", order=15)
def run(ctx: Context) -> dict[str, Any]:
    twin = household(ctx, "split")
    op = Op(
        request=f"POST /slips ({LINES} lines)",
        event=lambda i: ctx.api.event("POST", "/slips", user=twin.ours, body=split_body(i)),
        expect=201,
        twin=twin,
        minimum=Minimum(
            {"TransactWriteItems": 1},
            3 + 2 * LINES,
            "slip, identity, account and each line's category and subcategory month, one transaction",
        ),
    )
    return measure(ctx, "split", op)
