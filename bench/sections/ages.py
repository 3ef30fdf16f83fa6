"""ages: reads on ledgers of 1 month, 3 years and 10 years of a family's slips.

Each ledger is built through the importer (POST /imports of the household's CSV, resent while the
answer is `partial`) and verified. For each size and each read — balances as of a date, an
account's history over a year, the yearly report, a filtered slip list page (an account's 50
latest slips, a category's 50 latest) — the handler is timed (p50 over the iterations)
with the DynamoDB calls it made and the read capacity they consumed (the calls sent again once with
ReturnConsumedCapacity=TOTAL). The floor is the least DynamoDB work that answers the question,
timed straight through boto3 on the same ledger — not a replay of our calls:
- as of D: one GetItem (an account, with its balance) + one Query (a month's day totals of it);
- history over a year: one GetItem + one Query of the account's day totals over the year;
- yearly report: one Query of the year's month x category items;
- a filtered list page: one Query of the slip index returning the page's keys (no more) and one
  consistent BatchGetItem of those slips.
Targets: each read on 10 years within 1.5x of the same read on 1 month; as-of on 10 years within
2x of the floor.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from bench.api import BenchError, Reply
from bench.context import Context
from bench.recorder import READS, consumed_units
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.stats import ratio, summary
from bench.verify import verify
from kakeibo.store import from_ddb
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import account_sk, change_sk, day_sk, index_entry, index_range, item_entries, pk, slip_sk

ACCOUNTS = (("cash", "cash", 50_000), ("bank", "bank", 1_000_000), ("card", "credit", 0))
COLUMNS = ("date", "kind", "amount", "account", "to_account", "category", "memo")
AS_OF = HISTORY_END.isoformat()
YEAR_FROM = (HISTORY_END - dt.timedelta(days=364)).isoformat()
READ_NAMES = ("asof", "history", "yearly", "list_account", "list_category", "changes")
PAGE = 50
LISTS = {"list_account": ("account", "cash"), "list_category": ("category", "食費")}
CHANGES = 500  # entries of a delta sync from nothing


def _csv(slips: list[dict[str, Any]]) -> str:
    """The slips as the importer reads them; a `tags` column (';' between tags) when some slip has tags."""
    columns = (*COLUMNS, "tags") if any(s.get("tags") for s in slips) else COLUMNS

    def cell(slip: dict[str, Any], column: str) -> str:
        value = slip.get(column)
        return ";".join(value) if column == "tags" and value else str(value or "")

    lines = [",".join(columns)]
    lines += [",".join(cell(s, c) for c in columns) for s in slips]
    return "\n".join(lines) + "\n"


def fill_ledger(ctx: Context, ledger: str, slips: list[dict[str, Any]], base: str = "") -> int:
    """The history's accounts, then its slips imported through the handler (sent again while it answers
    202, as a client does); how many sends it took. `base`: a shared ledger's `/ledgers/{id}`."""
    for account, kind, opening in ACCOUNTS:
        body = {"id": account, "name": account.title(), "type": kind, "opening_balance": opening}
        if kind == "credit":
            body["allow_negative"] = True
        ctx.request("POST", f"{base}/accounts", user=ledger, body=body, expect=201)
    text = _csv(slips)
    sends = 0
    while True:
        event = ctx.api.event(
            "POST", f"{base}/imports", user=ledger, headers={"content-type": "text/csv; charset=utf-8"}
        )
        event["body"] = text
        reply = ctx.api.invoke(event)
        sends += 1
        if reply.status not in (200, 201, 202) or sends > 100:
            raise BenchError(f"POST {base}/imports answered {reply.status}: {reply.body[:300]}")
        if reply.json["status"] == "complete":
            return sends


def _build(ctx: Context, days: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"age{days}")
    slips = history_slips(days)
    ctx.recorder.clear()
    sends = fill_ledger(ctx, ledger, slips)
    sizes = [len(c.params["TransactItems"]) for c in ctx.recorder.take() if c.operation == "TransactWriteItems"]
    checked = verify(ctx.store, ledger)
    if checked["mismatched_items"] or checked["slips"] != len(slips):
        raise BenchError(f"the {days}-day ledger does not verify: {checked['mismatches']}")
    return {
        "who": ledger,
        "days": days,
        "slips": len(slips),
        "first": slips[0]["date"],
        "sends": sends,
        "import_transactions": len(sizes),
        "largest_transaction_items": max(sizes, default=0),
        "rows_per_transaction": round(len(slips) / len(sizes), 1) if sizes else 0,
    }


def _get(ctx: Context, ledger: str, sk: str) -> dict[str, Any]:
    return {
        "TableName": ctx.store.core.table,
        "Key": to_ddb({"PK": pk(ledger), "SK": sk}),
        "ConsistentRead": True,
    }


def _query(ctx: Context, ledger: str, lo: str, hi: str) -> dict[str, Any]:
    return {
        "TableName": ctx.store.core.table,
        "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
        "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": lo, ":hi": hi}),
        "ConsistentRead": True,
    }


def _floors(ctx: Context, ledger: str) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """The least DynamoDB work for each read: (operation, request) round trips."""
    month_start = AS_OF[:8] + "01"
    year = AS_OF[:4]
    return {
        "asof": [
            ("GetItem", _get(ctx, ledger, account_sk("cash"))),
            ("Query", _query(ctx, ledger, day_sk("cash", month_start), day_sk("cash", AS_OF))),
        ],
        "history": [
            ("GetItem", _get(ctx, ledger, account_sk("cash"))),
            ("Query", _query(ctx, ledger, day_sk("cash", YEAR_FROM), day_sk("cash", AS_OF))),
        ],
        "yearly": [("Query", _query(ctx, ledger, f"MONTH#{year}-01#CAT#", f"MONTH#{year}-12#CAT$"))],
        **{name: _list_floor(ctx, ledger, field, value) for name, (field, value) in LISTS.items()},
        "changes": _changes_floor(ctx, ledger),
    }


def _changes_floor(ctx: Context, ledger: str) -> list[tuple[str, dict[str, Any]]]:
    """Delta sync from nothing: the Query pages that hold the journal's first CHANGES entries (an
    import batch is one entry of many slips, so a page of entries can pass 1 MB: several pages)."""
    base = {**_query(ctx, ledger, change_sk(1), "CHG#~"), "Limit": CHANGES}
    steps: list[tuple[str, dict[str, Any]]] = []
    request, seen = dict(base), 0
    while seen < CHANGES:
        steps.append(("Query", dict(request)))
        page = ctx.client.query(**request)
        seen += len(page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        request = {**base, "ExclusiveStartKey": page["LastEvaluatedKey"], "Limit": CHANGES - seen}
    return steps


def _list_floor(ctx: Context, ledger: str, field: str, value: str) -> list[tuple[str, dict[str, Any]]]:
    """The index items that hold the page's entries (one Query, newest first, exactly those items),
    then its slips (one consistent BatchGetItem): the keys are looked up once here, so the floor is
    the two calls."""
    lo, hi = index_range(field, value, None, None)
    entries: list[str] = []
    needed = 0
    for raw in ctx.client.query(**_query(ctx, ledger, lo, hi), ScanIndexForward=False, Limit=PAGE)["Items"]:
        if len(entries) >= PAGE:
            break
        needed += 1
        entries += item_entries(from_ddb(raw))
    query = {**_query(ctx, ledger, lo, hi), "ScanIndexForward": False, "Limit": max(needed, 1)}
    keys = []
    for entry in entries[:PAGE]:
        date, _, slip_id = index_entry(entry)
        keys.append(to_ddb({"PK": pk(ledger), "SK": slip_sk(date, slip_id)}))
    batch = {"RequestItems": {ctx.store.core.table: {"Keys": keys, "ConsistentRead": True}}}
    return [("Query", query), ("BatchGetItem", batch)]


def _targets() -> dict[str, str]:
    return {
        "asof": f"/balances?date={AS_OF}",
        "history": f"/accounts/cash/history?from={YEAR_FROM}&to={AS_OF}",
        "yearly": f"/reports/yearly?year={AS_OF[:4]}",
        **{name: f"/slips?{field}={quote(value)}&limit={PAGE}" for name, (field, value) in LISTS.items()},
        "changes": f"/changes?since=0&limit={CHANGES}",
    }


def _send(ctx: Context, steps: list[tuple[str, dict[str, Any]]], **extra: Any) -> float:
    units = 0.0
    for operation, params in steps:
        units += consumed_units(getattr(ctx.client, _method(operation))(**params, **extra))
    return units


def _method(operation: str) -> str:
    return {
        "GetItem": "get_item",
        "Query": "query",
        "TransactGetItems": "transact_get_items",
        "BatchGetItem": "batch_get_item",
    }[operation]


def _timed(fn: Callable[[], Any]) -> int:
    start = time.perf_counter_ns()
    fn()
    return time.perf_counter_ns() - start


def _measure(
    ctx: Context, ledger: str, name: str, target: str, floor: list[tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    event = ctx.api.event("GET", target, user=ledger)

    def ours() -> Reply:
        reply = ctx.api.invoke(event)
        if reply.status != 200:
            raise BenchError(f"GET {target} answered {reply.status}: {reply.body[:300]}")
        return reply

    for _ in range(ctx.sizes.warmup):
        ours()
        _send(ctx, floor)
    ctx.recorder.clear()
    ours()
    calls = ctx.recorder.take()
    reads = [c for c in calls if c.operation in READS]
    if len(reads) != len(calls):
        raise BenchError(f"GET {target} wrote: {[c.operation for c in calls]}")
    # what our calls consumed: sent once more, as recorded, asking for the capacity
    ours_rcu = 0.0
    for call in reads:
        method = getattr(ctx.client, _method(call.operation))
        params = {k: v for k, v in call.params.items() if k != "ReturnConsumedCapacity"}
        ours_rcu += consumed_units(method(**params, ReturnConsumedCapacity="TOTAL"))
    floor_rcu = _send(ctx, floor, ReturnConsumedCapacity="TOTAL")
    ours_ns, floor_ns = [], []
    for _ in range(ctx.sizes.read_iterations):
        ours_ns.append(_timed(ours))
        floor_ns.append(_timed(lambda: _send(ctx, floor)))
    mine, least = summary(ours_ns), summary(floor_ns)
    return {
        "ours": mine,
        "floor": least,
        "ratio": ratio(mine["p50_ms"], least["p50_ms"]),
        "calls": len(reads),
        "by_operation": _count(c.operation for c in reads),
        "rcu": round(ours_rcu, 2),
        "floor_calls": len(floor),
        "floor_rcu": round(floor_rcu, 2),
    }


def by_age(title: str, r: dict[str, Any]) -> list[str]:
    """A one-read section's table: each ledger age's p50 through the handler beside its floor."""
    lines = [
        f"{title}, p50 ms through the handler; floor = least work)",
        f"  {'ledger':>10} {'slips':>6} {'p50 ms':>8} {'calls':>5} {'RCU':>6} {'floor ms':>8} {'floor RCU':>9} "
        f"{'x floor':>7} {'x 1 month':>9}",
    ]
    for size in r["sizes"]:
        m = size["read"]
        lines.append(
            f"  {size['label']:>10} {size['slips']:6} {m['ours']['p50_ms']:8.2f} {m['calls']:5} {m['rcu']:6.1f} "
            f"{m['floor']['p50_ms']:8.2f} {m['floor_rcu']:9.1f} {m['ratio']:7.2f} {m['vs_first']:9.2f}"
        )
    lines.append(f"  target: 10 years within 1.5x of 1 month {r['targets']['oldest_within_1_5x']}")
    return lines


def _count(operations: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for operation in operations:
        out[operation] = out.get(operation, 0) + 1
    return out


def render(r: dict[str, Any]) -> list[str]:
    lines = [
        "Reads by ledger age (p50 ms through the handler; DynamoDB calls and RCU per request; floor = least work)",
        f"  {'read':13} {'ledger':>10} {'slips':>6} {'p50 ms':>8} {'calls':>5} {'RCU':>6} "
        f"{'floor ms':>8} {'floor RCU':>9} {'x floor':>7} {'x 1 month':>9}",
    ]
    for name in READS_SHOWN:
        for size in r["sizes"]:
            m = size["reads"][name]
            lines.append(
                f"  {name:13} {size['label']:>10} {size['slips']:6} {m['ours']['p50_ms']:8.2f} {m['calls']:5} "
                f"{m['rcu']:6.1f} {m['floor']['p50_ms']:8.2f} {m['floor_rcu']:9.1f} {m['ratio']:7.2f} "
                f"{m['vs_first']:9.2f}"
            )
    checks = r["targets"]
    lines.append(
        f"  targets: 10 years within 1.5x of 1 month {checks['oldest_within_1_5x']}; "
        f"as-of on 10 years within 2x of the floor {checks['asof_within_2x_floor']}"
    )
    for size in r["sizes"]:
        lines.append(
            f"  built {size['label']}: {size['slips']} slips imported in {size['import_transactions']} transactions "
            f"({size['rows_per_transaction']} rows each on average, largest {size['largest_transaction_items']} items)"
        )
    return lines


READS_SHOWN = READ_NAMES


@register("ages", "reads by ledger age: 1 month, 3 years, 10 years", order=62, render=render)
def run(ctx: Context) -> dict[str, Any]:
    sizes = []
    for label, days in zip(("1 month", "3 years", "10 years"), ctx.sizes.age_days, strict=True):
        data = _build(ctx, days)
        floors = _floors(ctx, data["who"])
        reads = {name: _measure(ctx, data["who"], name, target, floors[name]) for name, target in _targets().items()}
        sizes.append({"label": label, **{k: v for k, v in data.items() if k != "who"}, "reads": reads})
    for size in sizes:
        for name in READ_NAMES:
            first = sizes[0]["reads"][name]["ours"]["p50_ms"]
            size["reads"][name]["vs_first"] = ratio(size["reads"][name]["ours"]["p50_ms"], first)
    oldest = sizes[-1]["reads"]
    return {
        "kind": "ages",
        "sizes": sizes,
        "targets": {
            "oldest_within_1_5x": {name: oldest[name]["vs_first"] <= 1.5 for name in READ_NAMES},
            "asof_within_2x_floor": oldest["asof"]["ratio"] <= 2.0,
            "changes_within_2x_floor": oldest["changes"]["ratio"] <= 2.0,
        },
    }
