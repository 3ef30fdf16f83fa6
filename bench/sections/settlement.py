"""settlement: GET /ledgers/{ledger}/settlement on a shared ledger of 1 month and of 10 years.

Each ledger is a household of two (the owner and an editor who accepted an invitation) with the
ages section's accounts and slips, imported through POST /ledgers/{ledger}/imports, then a few
slips one member paid for both (`paid_by`, equal `shares`), which move the ledger's nets item. The
settlement is timed through the handler (p50) beside its floor, the least DynamoDB work that
answers it, straight through boto3 on the same ledger: one GetItem of the nets item and one Query
of the members (the roster). Target: on 10 years within 1.5x of 1 month; the ratio to the floor is
reported.
"""

from __future__ import annotations

from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import history_slips
from bench.sections.ages import _measure, by_age, fill_ledger
from bench.stats import ratio
from bench.verify import verify
from kakeibo.store import SharedLedger
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import META_SK, NETS_SK, household_pk, member_sk

PAID_FOR_BOTH = 12  # slips one member paid for both


def _build(ctx: Context, days: int) -> dict[str, Any]:
    owner, partner = ctx.ledger(f"settle{days}-a"), ctx.ledger(f"settle{days}-b")
    ledger_id = ctx.request("POST", "/ledgers", user=owner, body={"name": "山田家"}, expect=201).json["id"]
    base = f"/ledgers/{ledger_id}"
    token = ctx.request("POST", f"{base}/invitations", user=owner, body={"role": "editor"}, expect=201).json["token"]
    ctx.request("POST", f"/invitations/{token}/accept", user=partner, expect=200)
    slips = history_slips(days)
    fill_ledger(ctx, owner, slips, base)
    for i in range(PAID_FOR_BOTH):
        payer = owner if i % 2 == 0 else partner
        body = {
            "date": slips[-1]["date"],
            "kind": "expense",
            "amount": 1000 + 37 * i,
            "account": "cash",
            "category": "食費",
            "paid_by": payer,
            "shares": "equal",
        }
        ctx.request("POST", f"{base}/slips", user=payer, body=body, expect=201)
    checked = verify(ctx.store, SharedLedger(ledger_id))
    if checked["mismatched_items"] or checked["slips"] != len(slips) + PAID_FOR_BOTH:
        raise BenchError(f"the {days}-day shared ledger does not verify: {checked['mismatches']}")
    return {"owner": owner, "ledger": ledger_id, "days": days, "slips": len(slips) + PAID_FOR_BOTH}


def _floor(ctx: Context, ledger_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The nets item (GetItem) and the members (the roster's Query): both consistent."""
    partition = household_pk(ledger_id)
    nets = {
        "TableName": ctx.store.core.table,
        "Key": to_ddb({"PK": partition, "SK": NETS_SK}),
        "ConsistentRead": True,
    }
    roster = {
        "TableName": ctx.store.core.table,
        "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
        "ExpressionAttributeValues": to_ddb({":pk": partition, ":lo": member_sk(""), ":hi": META_SK}),
        "ConsistentRead": True,
    }
    return [("GetItem", nets), ("Query", roster)]


def render(r: dict[str, Any]) -> list[str]:
    return by_age("Settlement by ledger age (GET /ledgers/{ledger}/settlement", r)


@register("settlement", "settlement by ledger age: 1 month, 10 years", order=63, render=render)
def run(ctx: Context) -> dict[str, Any]:
    sizes = []
    days_of = (ctx.sizes.age_days[0], ctx.sizes.age_days[-1])
    for label, days in zip(("1 month", "10 years"), days_of, strict=True):
        data = _build(ctx, days)
        target = f"/ledgers/{data['ledger']}/settlement"
        read = _measure(ctx, data["owner"], "settlement", target, _floor(ctx, data["ledger"]))
        sizes.append({"label": label, "days": days, "slips": data["slips"], "read": read})
    first = sizes[0]["read"]["ours"]["p50_ms"]
    for size in sizes:
        size["read"]["vs_first"] = ratio(size["read"]["ours"]["p50_ms"], first)
    return {
        "kind": "settlement",
        "sizes": sizes,
        "targets": {"oldest_within_1_5x": sizes[-1]["read"]["vs_first"] <= 1.5},
    }
