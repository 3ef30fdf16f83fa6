"""card_import: a year of one card's statement (楽天カード's e-NAVI layout, CP932) against the plain CSV of its rows.

"Through HTTP" as the imports section goes: each file is one POST /imports sent to the Lambda handler
in-process as the API Gateway HTTP API (payload 2.0) event the local front builds for it (bench/api.py),
the statement's Shift_JIS bytes base64-encoded in the event as API Gateway hands a binary body over;
no socket, no front. The statement is about 1,000 rows of one card over a year (shops written as the
issuer writes them, half-width katakana among them, every 40th a foreign-currency use with its
現地利用額 line) sent to `POST /imports?account=card`: detected, read by its layout, the ledger's
rules run, each row written once, the file checked against the card's statement. The plain file is
this API's own CSV of exactly the slips the statement's rows are (read by the importer's own reader,
untimed: date, kind, amount, account, memo, payee, imported_payee), sent to `POST /imports` onto the
same kind of account (a
credit card with the same billing) in another ledger. Each round imports both into fresh ledgers,
the two alternating which goes first; the medians are compared. Target: statement / plain <= 1.2x.
"""

from __future__ import annotations

import base64
import csv
import io
import statistics
import time
from collections import Counter
from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.verify import verify
from kakeibo.importformats import detect
from kakeibo.importformats.statement import Statement, file_rows

ROWS = 1_000
ROUNDS = 5
BILLING = {"closing_day": "last", "payment_day": 27, "pay_from": "bank"}
SHOPS = (
    "ローソン　銀座店", "AMAZON.CO.JP", "ｽｰﾊﾟｰ ﾏﾙｴﾂ", "セブン－イレブン", "楽天市場", "ENEOS　SS",
    "ﾄﾞﾗｯｸﾞｽﾄｱ ｽｷﾞ", "ユニクロ", "モバイルSuica", "東京電力エナジーパートナー", "ビックカメラ　有楽町店",
    "ｲｵﾝﾘﾃｰﾙ", "スターバックス", "楽天モバイル", "ファミリーマート", "ヨドバシカメラ",
)  # fmt: skip
HEADER = ("利用日", "利用店名・商品名", "利用者", "支払方法", "利用金額", "支払手数料", "支払総額", "12月支払金額",
          "当月請求額", "1月繰越残高", "新規サイン")  # fmt: skip
PLAIN = ("date", "kind", "amount", "account", "to_account", "category", "memo", "payee", "imported_payee")


def statement(n: int) -> bytes:
    """A year of one 楽天カード as e-NAVI writes it (every cell quoted, CRLF), in CP932."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(HEADER)
    for i in range(n):
        day = i * 365 // max(n, 1)
        month, dom = divmod(day, 28)
        amount = 100 + (i * 37) % 9_900
        shop = SHOPS[i % len(SHOPS)]
        who = "家族" if i % 7 == 0 else "本人"
        used = f"2025/{month % 12 + 1}/{dom + 1}"
        writer.writerow((used, shop, who, "1回払い", amount, 0, amount, amount, "", 0, "*"))
        if i % 40 == 39:
            writer.writerow(("", "現地利用額　　　　　　　　９．９９ＵＳＤ　変換レート　１５９．１５９円", *[""] * 9))
    return out.getvalue().encode("cp932")


def plain(slips: list[dict[str, Any]]) -> bytes:
    """This API's own CSV of the same slips (UTF-8)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PLAIN)
    for s in slips:
        writer.writerow([s.get(c) or "" for c in PLAIN])
    return out.getvalue().encode("utf-8")


def _ledger(ctx: Context, label: str) -> str:
    who = ctx.ledger(label)
    ctx.request("POST", "/accounts", user=who, body={"id": "bank", "name": "銀行", "type": "bank",
                                                     "opening_balance": 10**9}, expect=201)  # fmt: skip
    card = {"id": "card", "name": "楽天カード", "type": "credit", "allow_negative": True, "billing": BILLING}
    ctx.request("POST", "/accounts", user=who, body=card, expect=201)
    return who


def _send(ctx: Context, who: str, data: bytes, target: str) -> tuple[float, dict[str, Any]]:
    """POST /imports of `data`, sent again while the answer is 202 partial (as a client does); the
    seconds it took and the last answer, with `created` and `sends` counted over every send."""
    event = ctx.api.event("POST", target, user=who, headers={"content-type": "text/csv"})
    event["body"], event["isBase64Encoded"] = base64.b64encode(data).decode(), True
    created, sends = 0, 0
    ctx.recorder.clear()
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        reply = ctx.api.invoke(event)
        sends += 1
        if reply.status not in (200, 202):
            raise BenchError(f"POST {target} answered {reply.status}: {reply.body[:300]}")
        created += int(reply.json["created"])
        if reply.json.get("dry_run") or reply.json["status"] == "complete" or sends >= 50:
            break
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu  # this process's: not DynamoDB Local's
    calls = Counter(c.operation for c in ctx.recorder.take())
    return seconds, {**reply.json, "created": created, "sends": sends, "cpu_s": cpu, "calls": dict(calls)}


def render(r: dict[str, Any]) -> list[str]:
    s, p = r["statement"], r["plain"]
    return [
        f"A year of one card ({r['rows']} rows) through POST /imports, {r['rounds']} rounds "
        "(target: <= 1.2x the plain CSV)",
        f"  statement  {s['median_s'] * 1000:8.0f} ms median  ({r['statement_bytes']} bytes CP932, "
        f"{s['rows_per_s']:.0f} rows/s; min {s['min_s'] * 1000:.0f} ms; {s['sends']} send(s))",
        f"  plain CSV  {p['median_s'] * 1000:8.0f} ms median  ({r['plain_bytes']} bytes UTF-8, "
        f"{p['rows_per_s']:.0f} rows/s; min {p['min_s'] * 1000:.0f} ms; {p['sends']} send(s))",
        f"  ratio      {r['ratio']:.2f}x   (this process's CPU: {s['cpu_median_s']:.2f} s against "
        f"{p['cpu_median_s']:.2f} s, {r['cpu_ratio']:.2f}x)",
        f"  DynamoDB calls: statement {_calls(s['calls'])}; plain {_calls(p['calls'])}",
        f"  card check: file {r['check']['file_total']} yen, amount due {r['check']['amount_due']} yen",
    ]


def _calls(calls: dict[str, int]) -> str:
    return ", ".join(f"{n} {op}" for op, n in sorted(calls.items(), key=lambda kv: -kv[1])) or "none"


@register("card_import", "a card's statement against the plain CSV of its rows", order=66, render=render)
def run(ctx: Context) -> dict[str, Any]:
    n = ROWS if ctx.sizes.import_rows >= ROWS else ctx.sizes.import_rows
    rounds = ROUNDS if ctx.sizes.import_rows >= ROWS else 1
    data = statement(n)
    # The plain file: exactly the slips the statement's rows are (read as the importer reads them, untimed)
    read = detect.read(data)
    if not isinstance(read, Statement):
        raise BenchError("the statement was not read as one")
    rows = file_rows(read, "card")
    if len(rows.valid) != n or rows.errors:
        raise BenchError(f"the statement's rows: {len(rows.valid)} of {n} ({len(rows.errors)} refused)")
    other = plain([r.slip.model_dump(exclude_none=True) for r in rows.valid])

    times: dict[str, list[float]] = {"statement": [], "plain": []}
    cpus: dict[str, list[float]] = {"statement": [], "plain": []}
    last: dict[str, dict[str, Any]] = {}
    for i in range(rounds):
        order = ("statement", "plain") if i % 2 == 0 else ("plain", "statement")
        for kind in order:
            who = _ledger(ctx, f"card-import-{kind}-{i}")
            target = "/imports?account=card" if kind == "statement" else "/imports"
            seconds, answer = _send(ctx, who, data if kind == "statement" else other, target)
            if answer["created"] != n:
                raise BenchError(f"{kind}: created {answer['created']} of {n} rows")
            if verify(ctx.store, who)["mismatched_items"]:
                raise BenchError(f"{kind}: the ledger does not match its slips")
            times[kind].append(seconds)
            cpus[kind].append(answer["cpu_s"])
            last[kind] = answer
    sides = {
        kind: {
            "median_s": round(statistics.median(ts), 4),
            "min_s": round(min(ts), 4),
            "runs_s": [round(t, 4) for t in ts],
            "rows_per_s": round(n / statistics.median(ts), 1),
            "sends": last[kind]["sends"],
            "cpu_median_s": round(statistics.median(cpus[kind]), 4),
            "calls": last[kind]["calls"],
        }
        for kind, ts in times.items()
    }
    check = last["statement"].get("statement") or {}
    return {
        "kind": "card_import",
        "rows": n,
        "rounds": rounds,
        "statement_bytes": len(data),
        "plain_bytes": len(other),
        **sides,
        "ratio": round(sides["statement"]["median_s"] / sides["plain"]["median_s"], 3),
        "cpu_ratio": round(sides["statement"]["cpu_median_s"] / sides["plain"]["cpu_median_s"], 3),
        "check": {k: check.get(k) for k in ("file_total", "amount_due", "equal")},
    }
