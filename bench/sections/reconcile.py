"""reconcile: reconciling a month of a busy account, and `holds` by ledger age (§17).

Reconciling: ledgers whose bank account has a busy month (slips imported from the bank's file, so
they arrive cleared) are each reconciled once through the handler (POST
/accounts/bank/reconciliations with the balance a dry run found): milliseconds per reconciliation
and slips reconciled per second. The floor, on the same ledger just before (so on the same items):
the least DynamoDB work that marks those slips the same way — one consistent Query of the month's
slips, then TransactWriteItems of the same batches (25 slips, each an Update conditioned on the
version read), then one Put of the assertion. Ours writes more: each slip's identity follows it (its
history of entries), each batch removes the slips' entries from the index of cleared sides and
carries its lease check, the run's tally and a journal entry of the slips' before and after.

Holds: GET /accounts/bank/reconciliations on the ages section's household of 1 month and of 10 years,
the bank reconciled at the end of the history (one assertion on each). `holds` is the account's
cleared balance now less the rollups after the date (none read before it), so the 10-year ledger
should answer within 1.5x of the 1-month one. Its floor: the Query of the account's assertions, the
account (GetItem) and a Query of its day totals of that month.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.sections.ages import ACCOUNTS, _csv, _measure
from bench.stats import ratio, summary
from kakeibo.core.reconcile import batches
from kakeibo.services.reconciliations import BATCH
from kakeibo.store import from_ddb
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import account_sk, day_sk, pk, reconciliation_sk, reconciliations_prefix, slip_sk

ACCOUNT = "bank"
MONTH = HISTORY_END.strftime("%Y-%m")
END = HISTORY_END.isoformat()
CATEGORIES = ("食費", "日用品", "交通費", "光熱費", "通信費")
MAX_SENDS = 2_000  # a loaded machine imports ten years in many partial answers


def fill_ledger(ctx: Context, ledger: str, slips: list[dict[str, Any]]) -> int:
    """The ages section's accounts, then `slips` imported through the handler, sent again while it
    answers partial (as a client does, however many times a loaded machine needs). The sends."""
    for account, kind, opening in ACCOUNTS:
        body = {"id": account, "name": account.title(), "type": kind, "opening_balance": opening}
        if kind == "credit":
            body["allow_negative"] = True
        ctx.request("POST", "/accounts", user=ledger, body=body, expect=201)
    for sends in range(1, MAX_SENDS + 1):
        event = ctx.api.event("POST", "/imports", user=ledger, headers={"content-type": "text/csv; charset=utf-8"})
        event["body"] = _csv(slips)
        reply = ctx.api.invoke(event)
        if reply.status not in (200, 201, 202):
            raise BenchError(f"POST /imports answered {reply.status}: {reply.body[:300]}")
        if reply.json["status"] == "complete":
            return sends
    raise BenchError(f"POST /imports was still partial after {MAX_SENDS} sends")


def _busy_month(slips: int) -> list[dict[str, Any]]:
    """`slips` debits of the bank in the history's last month (card-like: many small ones a day)."""
    days = HISTORY_END.day
    return [
        {
            "date": dt.date(HISTORY_END.year, HISTORY_END.month, 1 + n % days).isoformat(),
            "kind": "expense",
            "amount": 100 + n % 900,
            "account": ACCOUNT,
            "category": CATEGORIES[n % len(CATEGORIES)],
            "memo": f"振替 {n}",
        }
        for n in range(slips)
    ]


def _statement(ctx: Context, ledger: str, date: str) -> int:
    """What the bankbook says: the cleared balance a dry run finds (everything imported is cleared)."""
    path = f"/accounts/{ACCOUNT}/reconciliations?dry_run=true"
    dry = ctx.request("POST", path, user=ledger, body={"date": date, "balance": 0}, expect=200)
    if dry.json["uncleared"]:
        raise BenchError(f"{len(dry.json['uncleared'])} bank slips arrived uncleared")
    return int(dry.json["cleared_balance"])


def _floor_marks(ctx: Context, ledger: str) -> int:
    """The least work that marks the month's slips reconciled, timed (ns): a Query, the batches,
    the assertion. It marks an attribute of its own, so the reconciliation after it finds them as
    they were (only their versions are left alone)."""
    table, partition = ctx.store.core.table, pk(ledger)
    start = time.perf_counter_ns()
    found: list[dict[str, Any]] = []
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
        "ExpressionAttributeValues": to_ddb({":pk": partition, ":lo": slip_sk(f"{MONTH}-01", ""),
                                             ":hi": slip_sk(f"{MONTH}-31", "~")}),
        "ConsistentRead": True,
    }  # fmt: skip
    while True:
        page = ctx.client.query(**request)
        found += [from_ddb(i) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            break
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    for batch in batches(found, BATCH):
        ctx.client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": table,
                        "Key": to_ddb({"PK": partition, "SK": s["SK"]}),
                        "UpdateExpression": "SET #mark = :mark",
                        "ConditionExpression": "#ver = :ver",
                        "ExpressionAttributeNames": {"#mark": "bench_floor_mark", "#ver": "version"},
                        "ExpressionAttributeValues": to_ddb({":mark": "reconciled", ":ver": int(s["version"])}),
                    }
                }
                for s in batch
            ]
        )
    ctx.client.put_item(
        TableName=table,
        Item=to_ddb({"PK": partition, "SK": reconciliation_sk(ACCOUNT, "~floor"), "type": "bench_floor"}),
        ConditionExpression="attribute_not_exists(SK)",
    )
    elapsed = time.perf_counter_ns() - start
    ctx.client.delete_item(TableName=table, Key=to_ddb({"PK": partition, "SK": reconciliation_sk(ACCOUNT, "~floor")}))
    return elapsed


def _reconciling(ctx: Context) -> dict[str, Any]:
    quick = ctx.sizes.iterations < 50
    slips, runs = (30, 2) if quick else (600, 5)
    ours_ns: list[int] = []
    floor_ns: list[int] = []
    reconciled = 0
    for n in range(runs):
        ledger = ctx.ledger(f"reconcile{n}")
        fill_ledger(ctx, ledger, _busy_month(slips))
        balance = _statement(ctx, ledger, END)
        floor_ns.append(_floor_marks(ctx, ledger))
        body = {"date": END, "balance": balance}
        event = ctx.api.event("POST", f"/accounts/{ACCOUNT}/reconciliations", user=ledger, body=body)
        start = time.perf_counter_ns()
        reply = ctx.api.invoke(event)
        ours_ns.append(time.perf_counter_ns() - start)
        if reply.status != 201 or not reply.json["holds"]:
            raise BenchError(f"the reconciliation answered {reply.status}: {reply.body[:300]}")
        reconciled = int(reply.json["reconciled"])
    mine, least = summary(ours_ns), summary(floor_ns)
    return {
        "slips": slips,
        "reconciled": reconciled,
        "runs": runs,
        "batch": BATCH,
        "ours": mine,
        "floor": least,
        "ratio": ratio(mine["p50_ms"], least["p50_ms"]),
        "slips_per_s": round(reconciled / (mine["p50_ms"] / 1000), 1) if mine["p50_ms"] else 0.0,
        "floor_slips_per_s": round(reconciled / (least["p50_ms"] / 1000), 1) if least["p50_ms"] else 0.0,
    }


def _holds_floor(ctx: Context, ledger: str) -> list[tuple[str, dict[str, Any]]]:
    table, partition = ctx.store.core.table, pk(ledger)

    def between(lo: str, hi: str) -> dict[str, Any]:
        return {"TableName": table, "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": to_ddb({":pk": partition, ":lo": lo, ":hi": hi}),
                "ConsistentRead": True}  # fmt: skip

    prefix = reconciliations_prefix(ACCOUNT)
    account = {"TableName": table, "Key": to_ddb({"PK": partition, "SK": account_sk(ACCOUNT)}), "ConsistentRead": True}
    return [
        ("Query", between(prefix, prefix + "~")),
        ("GetItem", account),
        ("Query", between(day_sk(ACCOUNT, f"{MONTH}-01"), day_sk(ACCOUNT, END))),
    ]


def _holds(ctx: Context) -> list[dict[str, Any]]:
    sizes = []
    days_of = (ctx.sizes.age_days[0], ctx.sizes.age_days[-1])
    for label, days in zip(("1 month", "10 years"), days_of, strict=True):
        ledger = ctx.ledger(f"holds{days}")
        slips = history_slips(days)
        fill_ledger(ctx, ledger, slips)
        balance = _statement(ctx, ledger, END)
        made = ctx.request("POST", f"/accounts/{ACCOUNT}/reconciliations", user=ledger,
                           body={"date": END, "balance": balance}, expect=201)  # fmt: skip
        read = _measure(ctx, ledger, "holds", f"/accounts/{ACCOUNT}/reconciliations", _holds_floor(ctx, ledger))
        sizes.append({"label": label, "days": days, "slips": len(slips), "reconciled": made.json["reconciled"],
                      "read": read})  # fmt: skip
    first = sizes[0]["read"]["ours"]["p50_ms"]
    for size in sizes:
        size["read"]["vs_first"] = ratio(size["read"]["ours"]["p50_ms"], first)
    return sizes


def render(r: dict[str, Any]) -> list[str]:
    rec = r["reconciling"]
    lines = [
        f"Reconciling a month of a busy account ({rec['slips']} cleared slips, batches of {rec['batch']}, "
        f"{rec['runs']} ledgers; p50 through the handler; floor = Query + the same batches + the assertion)",
        f"  ours  {rec['ours']['p50_ms']:9.1f} ms per reconciliation  {rec['slips_per_s']:9.1f} slips/s",
        f"  floor {rec['floor']['p50_ms']:9.1f} ms                     {rec['floor_slips_per_s']:9.1f} slips/s"
        f"   x floor {rec['ratio']:.2f}",
        "GET /accounts/{id}/reconciliations (holds) by ledger age, p50 ms through the handler; floor = least work",
        f"  {'ledger':>10} {'slips':>6} {'p50 ms':>8} {'calls':>5} {'floor ms':>8} {'x floor':>7} {'x 1 month':>9}",
    ]
    for size in r["holds"]:
        m = size["read"]
        lines.append(
            f"  {size['label']:>10} {size['slips']:6} {m['ours']['p50_ms']:8.2f} {m['calls']:5} "
            f"{m['floor']['p50_ms']:8.2f} {m['ratio']:7.2f} {m['vs_first']:9.2f}"
        )
    lines.append(f"  target: 10 years within 1.5x of 1 month {r['targets']['holds_oldest_within_1_5x']}")
    return lines


@register("reconcile", "reconciling a busy month; holds by ledger age: 1 month, 10 years", order=66, render=render)
def run(ctx: Context) -> dict[str, Any]:
    reconciling = _reconciling(ctx)
    holds = _holds(ctx)
    flat = holds[-1]["read"]["vs_first"] <= 1.5
    return {
        "kind": "reconcile",
        "reconciling": reconciling,
        "holds": holds,
        "targets": {"holds_oldest_within_1_5x": flat},
    }
