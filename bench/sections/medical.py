"""medical: GET /reports/medical on a personal ledger of 1 year and of 10 years.

Each ledger has the ages section's accounts and slips, imported through POST /imports, then two
medical payments a month for every month of its life (two patients, three providers, OTC purchases
among them, some partly reimbursed; paid by card), posted through POST /slips so that the write
path keeps each year's tax item. The report of the last year is timed through the handler (p50) beside its floor,
the least DynamoDB work that answers it: one consistent GetItem of that year's item. Target: on
10 years within 1.5x of 1 year; the ratio to the floor is reported.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.sections.ages import _measure, by_age, fill_ledger
from bench.stats import ratio
from bench.verify import verify
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk, tax_year_sk

PATIENTS = ("taro", "hanako")
PROVIDERS = (("中央病院", "treatment", False), ("さくら薬局", "medicine", True), ("山田歯科", "treatment", False))


def medical_slips(days: int) -> list[dict[str, Any]]:
    """Two medical payments on the 5th and the 20th of every month of the last `days` days."""
    start = HISTORY_END - dt.timedelta(days=days - 1)
    out: list[dict[str, Any]] = []
    day = start
    while day <= HISTORY_END:
        if day.day in (5, 20):
            n = len(out)
            provider, kind, otc = PROVIDERS[n % len(PROVIDERS)]
            amount = 1500 + 250 * (n % 7)
            medical = {"patient": PATIENTS[n % 2], "provider": provider, "kind": kind, "otc": otc}
            if n % 5 == 0:
                medical["reimbursed"] = amount // 3
            out.append(
                {
                    "date": day.isoformat(),
                    "kind": "expense",
                    "amount": amount,
                    "account": "card",
                    "category": "医療費",
                    "medical": medical,
                }
            )
        day += dt.timedelta(days=1)
    return out


def _build(ctx: Context, days: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"medical{days}")
    slips = history_slips(days)
    fill_ledger(ctx, ledger, slips)
    payments = medical_slips(days)
    for body in payments:
        ctx.request("POST", "/slips", user=ledger, body=body, expect=201)
    checked = verify(ctx.store, ledger)
    if checked["mismatched_items"] or checked["slips"] != len(slips) + len(payments):
        raise BenchError(f"the {days}-day ledger does not verify: {checked['mismatches']}")
    return {"ledger": ledger, "days": days, "slips": len(slips) + len(payments)}


def _floor(ctx: Context, ledger: str, year: str) -> list[tuple[str, dict[str, Any]]]:
    """The year's tax item: one consistent GetItem."""
    item = {
        "TableName": ctx.store.core.table,
        "Key": to_ddb({"PK": pk(ledger), "SK": tax_year_sk(year)}),
        "ConsistentRead": True,
    }
    return [("GetItem", item)]


def render(r: dict[str, Any]) -> list[str]:
    lines = by_age("Medical report by ledger age (GET /reports/medical", r)
    return [line.replace("x 1 month", "x 1 year ").replace("of 1 month", "of 1 year") for line in lines]


@register("medical", "medical report (医療費控除) by ledger age: 1 year, 10 years", order=64, render=render)
def run(ctx: Context) -> dict[str, Any]:
    sizes = []
    old = ctx.sizes.age_days[-1]
    year = str(HISTORY_END.year)
    for label, days in (("1 year", old // 10), ("10 years", old)):
        data = _build(ctx, days)
        target = f"/reports/medical?year={year}&income=4000000"
        read = _measure(ctx, data["ledger"], "medical", target, _floor(ctx, data["ledger"], year))
        sizes.append({"label": label, "days": days, "slips": data["slips"], "read": read})
    first = sizes[0]["read"]["ours"]["p50_ms"]
    for size in sizes:
        size["read"]["vs_first"] = ratio(size["read"]["ours"]["p50_ms"], first)
    return {
        "kind": "medical",
        "sizes": sizes,
        "targets": {"oldest_within_1_5x": sizes[-1]["read"]["vs_first"] <= 1.5},
    }
