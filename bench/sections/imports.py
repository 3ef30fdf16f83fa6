"""imports: CSV import rows/s, batched (POST /imports) against one transaction per row (POST /slips).

The same rows both ways, through the handler. Batched: one POST /imports of the whole file, sent
again while the answer is 202 `partial` (the importer stops short of the Lambda time limit, as a
client would resend). Per row: the first `import_per_row` rows, each one POST /slips (its own
counter call and transaction). Then the whole file again: every row is already there, so the
re-import only reads. Afterwards both ledgers are recomputed from their slips: no drift allowed.
"""

from __future__ import annotations

import time
from typing import Any

from bench.api import BenchError, Reply
from bench.context import Context
from bench.registry import register
from bench.verify import verify

CATEGORIES = ("食費", "交通費", "日用品", "外食", "医療")


def rows(n: int) -> list[dict[str, Any]]:
    """A year of a household's spending, a few slips a day, spread over five categories."""
    out = []
    for i in range(n):
        day = i * 365 // max(n, 1)
        month, dom = divmod(day, 28)
        out.append(
            {
                "date": f"2025-{month % 12 + 1:02d}-{dom + 1:02d}",
                "kind": "expense",
                "amount": 100 + i % 900,
                "account": "cash",
                "category": CATEGORIES[i % len(CATEGORIES)],
                "memo": f"row {i}",
            }
        )
    return out


def to_csv(table: list[dict[str, Any]]) -> str:
    lines = ["date,kind,amount,account,to_account,category,memo"]
    lines += [f"{r['date']},{r['kind']},{r['amount']},{r['account']},,{r['category']},{r['memo']}" for r in table]
    return "\n".join(lines) + "\n"


def _post_csv(ctx: Context, ledger: str, text: str) -> Reply:
    event = ctx.api.event("POST", "/imports", user=ledger, headers={"content-type": "text/csv; charset=utf-8"})
    event["body"] = text
    return ctx.api.invoke(event)


def _import(ctx: Context, ledger: str, text: str) -> dict[str, Any]:
    """Send the file until the import is complete; the time and number of sends it took, and the lines
    the ledger's rules changed (each send names those of the rows it wrote)."""
    sends, created = 0, 0
    ruled: set[int] = set()
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        reply = _post_csv(ctx, ledger, text)
        sends += 1
        if reply.status not in (200, 201, 202):
            raise BenchError(f"POST /imports answered {reply.status}: {reply.body[:300]}")
        body = reply.json
        created += int(body["created"])
        ruled |= {int(r["line"]) for r in body.get("ruled", [])}
        if body["status"] == "complete" or sends > 50:
            break
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu  # this process's: not DynamoDB Local's
    out = {"seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3), "sends": sends, "created": created}
    return {**out, "ruled": len(ruled), "last": body}


def render(r: dict[str, Any]) -> list[str]:
    b, p, again = r["batched"], r["per_row"], r["reimport"]
    return [
        f"CSV import of {r['rows']} rows through the handler (target: batched >= 5x per row)",
        f"  batched   {b['rows_per_s']:8.0f} rows/s  ({b['seconds']:.1f} s, {b['sends']} send(s), "
        f"{b['transactions']} transactions)",
        f"  per row   {p['rows_per_s']:8.0f} rows/s  ({p['rows']} rows one POST /slips each, {p['seconds']:.1f} s)",
        f"  ratio     {r['ratio']:.1f}x   re-import of the same file: {again['seconds']:.2f} s, "
        f"{again['created']} created, {again['skipped']} skipped",
        f"  drift after: batched {r['drift']['batched']} yen, per row {r['drift']['per_row']} yen",
    ]


@register("imports", "CSV import: batched vs per row", order=65, render=render)
def run(ctx: Context) -> dict[str, Any]:
    n, per_row_n = ctx.sizes.import_rows, min(ctx.sizes.import_per_row, ctx.sizes.import_rows)
    table = rows(n)
    text = to_csv(table)
    account = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10**11}

    batched = ctx.ledger("import-batched")
    ctx.request("POST", "/accounts", user=batched, body=account, expect=201)
    ctx.recorder.clear()
    first = _import(ctx, batched, text)
    calls = ctx.recorder.take()
    if first["created"] != n:
        raise BenchError(f"batched import created {first['created']} of {n} rows")
    transactions = sum(1 for c in calls if c.operation == "TransactWriteItems")

    single = ctx.ledger("import-per-row")
    ctx.request("POST", "/accounts", user=single, body=account, expect=201)
    start = time.perf_counter()
    for row in table[:per_row_n]:
        ctx.request("POST", "/slips", user=single, body=row, expect=201)
    per_row_s = time.perf_counter() - start

    again = _import(ctx, batched, text)
    checks = {"batched": verify(ctx.store, batched), "per_row": verify(ctx.store, single)}
    drift = {name: c["balance_drift_yen"] + c["day_total_drift_yen"] for name, c in checks.items()}
    if any(c["mismatched_items"] for c in checks.values()):
        raise BenchError(f"imported ledgers do not match their slips: {checks}")
    batched_rate = n / first["seconds"]
    per_row_rate = per_row_n / per_row_s
    return {
        "kind": "imports",
        "rows": n,
        "bytes": len(text.encode()),
        "batched": {
            "seconds": first["seconds"],
            "sends": first["sends"],
            "transactions": transactions,
            "rows_per_s": round(batched_rate, 1),
        },
        "per_row": {"rows": per_row_n, "seconds": round(per_row_s, 3), "rows_per_s": round(per_row_rate, 1)},
        "ratio": round(batched_rate / per_row_rate, 2),
        "reimport": {
            "seconds": again["seconds"],
            "created": again["created"],
            "skipped": int(again["last"]["skipped"]),
        },
        "drift": drift,
    }
