"""statements: GET /accounts/{id}/statements of a credit card 1 month and 10 years old.

Each ledger is the ages section's household (its card buys something every Saturday), imported
through POST /imports; the card then gets its billing (closing on the 15th, paid on the 10th of the
next month from the bank). The six cycles closing in the history's last six months are read through
the handler (p50) beside the floor, the least DynamoDB work that answers them, straight through
boto3 on the same ledger: the card (GetItem); its year items up to the first cycle's year and its
month items of the cycles' months (the balance at each closing date); its day items of the periods
(charges, refunds); and the cycles' payment identities (BatchGetItem). Target: 10 years within 1.5x
of 1 month; the ratio to the floor is reported.
"""

from __future__ import annotations

from typing import Any

from bench.context import Context
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.sections.ages import _measure, by_age, fill_ledger
from bench.stats import ratio
from kakeibo.core import billing
from kakeibo.services.accounts import card_billing
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import account_months_range, account_sk, account_years_range, day_sk, identity_sk, pk

BILLING = {"closing_day": 15, "payment_day": 10, "pay_from": "bank"}
CARD = "card"
LAST = HISTORY_END.strftime("%Y-%m")
FIRST = f"{HISTORY_END.year}-{HISTORY_END.month - 5:02d}" if HISTORY_END.month > 5 else f"{HISTORY_END.year - 1}-07"


def _build(ctx: Context, days: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"cards{days}")
    slips = history_slips(days)
    fill_ledger(ctx, ledger, slips)
    ctx.request("PATCH", f"/accounts/{CARD}", user=ledger, body={"billing": BILLING}, headers={"If-Match": '"1"'},
                expect=200)  # fmt: skip
    return {"who": ledger, "days": days, "slips": len(slips)}


def _floor(ctx: Context, ledger: str) -> list[tuple[str, dict[str, Any]]]:
    rule = card_billing({**BILLING})
    wanted = billing.cycles(rule, FIRST, LAST)
    earliest = wanted[0]
    for _ in range(billing.LOOKBACK):
        earliest = billing.preceding(rule, earliest)
    start, end = earliest.closing_date.isoformat(), wanted[-1].closing_date.isoformat()
    table, partition = ctx.store.core.table, pk(ledger)
    only_card: dict[str, Any] = {"FilterExpression": "#a = :a", "ExpressionAttributeNames": {"#a": "account"}}

    def between(lo: str, hi: str, **extra: Any) -> dict[str, Any]:
        values = {":pk": partition, ":lo": lo, ":hi": hi, **({":a": CARD} if extra else {})}
        return {"TableName": table, "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": to_ddb(values), "ConsistentRead": True, **extra}  # fmt: skip

    years, months = account_years_range("0000", start[:4]), account_months_range(start[:7], end[:7])
    everything = billing.with_lookback(rule, wanted)
    identities = [billing.payment_slip_id(CARD, c) for c in sorted(billing.payment_closings(rule, everything, ()))]
    keys = [to_ddb({"PK": partition, "SK": identity_sk(i)}) for i in identities]
    card = {"TableName": table, "Key": to_ddb({"PK": partition, "SK": account_sk(CARD)}), "ConsistentRead": True}
    return [
        ("GetItem", card),
        ("Query", between(*years, **only_card)),
        ("Query", between(*months, **only_card)),
        ("Query", between(day_sk(CARD, wanted[0].period_from.isoformat()), day_sk(CARD, end))),
        ("BatchGetItem", {"RequestItems": {table: {"Keys": keys, "ConsistentRead": True}}}),
    ]


def render(r: dict[str, Any]) -> list[str]:
    return by_age(f"Card statements by ledger age (six cycles {FIRST}..{LAST}", r)


@register("statements", "card statements by ledger age: 1 month, 10 years", order=64, render=render)
def run(ctx: Context) -> dict[str, Any]:
    sizes = []
    days_of = (ctx.sizes.age_days[0], ctx.sizes.age_days[-1])
    for label, days in zip(("1 month", "10 years"), days_of, strict=True):
        data = _build(ctx, days)
        target = f"/accounts/{CARD}/statements?from={FIRST}&to={LAST}"
        read = _measure(ctx, data["who"], "statements", target, _floor(ctx, data["who"]))
        sizes.append({"label": label, "days": days, "slips": data["slips"], "read": read})
    first = sizes[0]["read"]["ours"]["p50_ms"]
    for size in sizes:
        size["read"]["vs_first"] = ratio(size["read"]["ours"]["p50_ms"], first)
    flat = sizes[-1]["read"]["vs_first"] <= 1.5
    return {"kind": "statements", "sizes": sizes, "targets": {"oldest_within_1_5x": flat}}
