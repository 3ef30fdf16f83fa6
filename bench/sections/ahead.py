"""ahead: the months-ahead reads (§27) on ledgers of 1 month and 10 years of a family's slips.

Each ledger is the ages section's household (its card buys something every Saturday), imported
through POST /imports; the card then gets its billing (closing on the 15th, paid on the 10th of the
next month from the bank) and the bank a monthly rent. Two reads, through the handler (p50):
- GET /forecast (three months on from today): its cost is the window's items, never the history;
- GET /reports/net-worth of the last 12 months of the history: from the rollups, O(months).
Beside each, the floor: the least DynamoDB work that answers it, straight through boto3 on the same
ledger (not a replay of our calls):
- forecast: the accounts (one Query), their year items and this month's month items (two Queries:
  today's balances), the slips dated ahead and the recurrences (two Queries), and the card's month
  items of its open cycles (one Query);
- net worth: the accounts, their year items up to the first month's year and their month items of
  the 12 months (three Queries).
Targets: each read on 10 years within 1.5x of the same read on 1 month; the ratio to the floor is
reported.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bench.context import Context
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.sections.ages import _measure, fill_ledger
from bench.stats import ratio
from kakeibo.settings import today
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import account_months_range, account_sk, account_years_range, pk, recurrence_sk, slip_sk

BILLING = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
RENT = {
    "slip": {"kind": "expense", "amount": 90_000, "account": "bank", "category": "家賃"},
    "rule": {"freq": "monthly", "by_month_day": 27, "start": "2020-01-01"},
    "shift": "previous_business_day",
}
NET_FROM = f"{HISTORY_END.year}-01"
NET_TO = HISTORY_END.strftime("%Y-%m")
NET_DECADE = f"{HISTORY_END.year - 9}-01"  # ten years of months on the old ledger: O(months), per month


def _build(ctx: Context, days: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"ahead{days}")
    slips = history_slips(days)
    fill_ledger(ctx, ledger, slips)
    ctx.request("PATCH", "/accounts/card", user=ledger, body={"billing": BILLING}, headers={"If-Match": '"1"'},
                expect=200)  # fmt: skip
    rent = ctx.request("POST", "/recurrences", user=ledger, body=RENT, expect=201)
    return {"who": ledger, "days": days, "slips": len(slips), "rent": rent.json["id"]}


def _clean_up(ctx: Context, data: dict[str, Any]) -> None:
    """The rent goes once measured: the job section counts every due recurrence of the table as its own."""
    ctx.request("DELETE", f"/recurrences/{data['rent']}", user=data["who"], headers={"If-Match": '"1"'}, expect=204)


def _between(ctx: Context, ledger: str, lo: str, hi: str) -> dict[str, Any]:
    values = {":pk": pk(ledger), ":lo": lo, ":hi": hi}
    return {"TableName": ctx.store.core.table, "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": to_ddb(values), "ConsistentRead": True}  # fmt: skip


def _forecast_floor(ctx: Context, ledger: str, now: dt.date, until: dt.date) -> list[tuple[str, dict[str, Any]]]:
    month = now.strftime("%Y-%m")
    first_cycle = (now - dt.timedelta(days=62)).strftime("%Y-%m")
    ahead = slip_sk((now + dt.timedelta(days=1)).isoformat(), ""), slip_sk(until.isoformat(), "~")
    return [
        ("Query", _between(ctx, ledger, account_sk(""), account_sk("~"))),
        ("Query", _between(ctx, ledger, *account_years_range("0000", now.strftime("%Y")))),
        ("Query", _between(ctx, ledger, *account_months_range(month, month))),
        ("Query", _between(ctx, ledger, *ahead)),
        ("Query", _between(ctx, ledger, recurrence_sk(""), recurrence_sk("~"))),
        ("Query", _between(ctx, ledger, *account_months_range(first_cycle, month))),
    ]


def _net_worth_floor(ctx: Context, ledger: str, first: str = NET_FROM) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("Query", _between(ctx, ledger, account_sk(""), account_sk("~"))),
        ("Query", _between(ctx, ledger, *account_years_range("0000", first[:4]))),
        ("Query", _between(ctx, ledger, *account_months_range(first, NET_TO))),
    ]


def render(r: dict[str, Any]) -> list[str]:
    lines = [
        "The months ahead by ledger age, p50 ms through the handler; floor = least work",
        f"  {'read':>10} {'ledger':>10} {'slips':>6} {'p50 ms':>8} {'calls':>5} {'floor ms':>8} {'x floor':>7} "
        f"{'x 1 month':>9}",
    ]
    for size in r["sizes"]:
        for name in ("forecast", "net_worth"):
            m = size[name]
            lines.append(
                f"  {name:>10} {size['label']:>10} {size['slips']:6} {m['ours']['p50_ms']:8.2f} {m['calls']:5} "
                f"{m['floor']['p50_ms']:8.2f} {m['ratio']:7.2f} {m['vs_first']:9.2f}"
            )
    lines.append(f"  target: 10 years within 1.5x of 1 month {r['targets']['oldest_within_1_5x']}")
    by = r["net_worth_by_months"]
    lines.append(
        f"  net worth of 120 month-ends on the 10-year ledger: p50 {by['decade']['ours']['p50_ms']:.2f} ms "
        f"(floor {by['decade']['floor']['p50_ms']:.2f}); per month {by['per_month_ms']['10 years']:.3f} ms "
        f"vs {by['per_month_ms']['1 year']:.3f} ms over 12"
    )
    return lines


@register("ahead", "forecast and net worth by ledger age: 1 month, 10 years", order=66, render=render)
def run(ctx: Context) -> dict[str, Any]:
    sizes = []
    now = today()
    until = now + dt.timedelta(days=92)
    days_of = (ctx.sizes.age_days[0], ctx.sizes.age_days[-1])
    for label, days in zip(("1 month", "10 years"), days_of, strict=True):
        data = _build(ctx, days)
        who = data["who"]
        forecast = _measure(ctx, who, "forecast", f"/forecast?until={until.isoformat()}",
                            _forecast_floor(ctx, who, now, until))  # fmt: skip
        net = _measure(ctx, who, "net_worth", f"/reports/net-worth?from={NET_FROM}&to={NET_TO}",
                       _net_worth_floor(ctx, who))  # fmt: skip
        _clean_up(ctx, data)
        sizes.append({"label": label, "days": days, "slips": data["slips"], "forecast": forecast, "net_worth": net,
                      "who": who})  # fmt: skip
    for name in ("forecast", "net_worth"):
        first = sizes[0][name]["ours"]["p50_ms"]
        for size in sizes:
            size[name]["vs_first"] = ratio(size[name]["ours"]["p50_ms"], first)
    flat = all(sizes[-1][name]["vs_first"] <= 1.5 for name in ("forecast", "net_worth"))
    # net worth by months: ten years of month-ends against one year's, on the old ledger, per month
    old = sizes[-1]
    decade = _measure(ctx, old["who"],
                      "net_worth_decade", f"/reports/net-worth?from={NET_DECADE}&to={NET_TO}",
                      _net_worth_floor(ctx, old["who"], NET_DECADE))  # fmt: skip
    months = {"1 year": 12, "10 years": 120}
    per_month = {
        "1 year": round(old["net_worth"]["ours"]["p50_ms"] / months["1 year"], 3),
        "10 years": round(decade["ours"]["p50_ms"] / months["10 years"], 3),
    }
    return {"kind": "ahead", "sizes": sizes, "net_worth_by_months": {"decade": decade, "per_month_ms": per_month},
            "targets": {"oldest_within_1_5x": flat}}  # fmt: skip
