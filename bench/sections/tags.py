"""tags: the tag report and search (§28) on ledgers of 1 month and 10 years of a family's tagged slips.

Each ledger is the ages section's household with tags on every slip (lunch 昼食, on weekends also
週末; the withdrawal ATM; salary 固定収入; rent 固定費; the card's Saturday buy 買い物, in August also
夏休み{year}), imported through POST /imports with a tags column, so the tag totals on the accounts'
month items are the ones the import's own transactions write. Every answer is checked first: the
report's totals against the slips' own (summed here from the slips imported), the search's slips
against the slips that hold the word.

Timed through the handler, the requests taking turns iteration by iteration (p50):
- GET /reports/tags over the last month on both ledgers, and over the last 12 months and the last
  10 years on the 10-year ledger, each beside its floor (its own Query of the month items, sent
  again straight through boto3). Stated cost: one Query of accounts x months items (the months'
  rollups), never a slip. Targets: the last month on the 10-year ledger within 1.5x of the same on
  the 1-month ledger (flat over the history), and every report reads exactly its window's accounts
  x months items. Each window against the last month on the 10-year ledger, and its time per month,
  are figures: a window of 120 months reads 120 months' items.
- GET /slips?q=住居 (the rent's category: 12 slips a year, fewer than a page) over the default window,
  the 12 months up to the history's last day, on the 10-year ledger: every slip of the window is read
  once, and no other. Beside it the floor: the window's slips read straight through boto3 (one
  paged, consistent Query). Target: the slips read are exactly the window's. A common word (ランチ,
  every lunch's memo) is timed too: it stops once its page is full.
The items read are counted from the calls the handler made, sent again once with
ReturnConsumedCapacity=TOTAL: a Query's ScannedCount, a GetItem's item.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from bench.api import BenchError, Reply
from bench.context import Context
from bench.recorder import READS, Call, consumed_units
from bench.registry import register
from bench.scenario import HISTORY_END, history_slips
from bench.sections.ages import fill_ledger
from bench.stats import ratio, summary
from bench.verify import verify
from kakeibo.core.tags import normalise_tags
from kakeibo.services.search import matches_words, search_window, words_of
from kakeibo.store.codec import to_ddb
from kakeibo.store.keys import pk, slip_sk

LAST_MONTH = HISTORY_END.strftime("%Y-%m")
WINDOWS = {
    "1 month": (LAST_MONTH, LAST_MONTH),
    "12 months": (f"{HISTORY_END.year}-01", LAST_MONTH),
    "10 years": (f"{HISTORY_END.year - 9}-01", LAST_MONTH),
}
SEARCH_TO = HISTORY_END.isoformat()
SEARCH_FROM, _ = search_window(None, SEARCH_TO)  # the default window: the 12 months up to `to`
RARE, COMMON = "住居", "ランチ"
LIMIT = 50  # GET /slips's default page
WITHIN = 1.5  # a window's report on 10 years / on 1 month


def tagged(slips: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The household's slips with the tags a family would give them."""
    out = []
    for slip in slips:
        day = dt.date.fromisoformat(slip["date"])
        if slip["kind"] == "transfer":
            tags = ["ATM"]
        elif slip["kind"] == "income":
            tags = ["固定収入"]
        elif slip["account"] == "bank":
            tags = ["固定費"]
        elif slip["account"] == "card":
            tags = ["買い物", *([f"夏休み{day.year}"] if day.month == 8 else [])]
        else:
            tags = ["昼食", *(["週末"] if day.weekday() >= 5 else [])]
        out.append({**slip, "tags": tags})
    return out


def expected_report(slips: list[dict[str, Any]], first: str, last: str) -> list[dict[str, Any]]:
    """Each tag's totals over months first..last, summed from the slips themselves."""
    sums: dict[str, dict[str, int]] = {}
    for slip in slips:
        if not first <= slip["date"][:7] <= last:
            continue
        for tag in normalise_tags(slip["tags"]):
            total = sums.setdefault(tag, {"income": 0, "expense": 0, "count": 0})
            total["count"] += 1
            if slip["kind"] in ("income", "expense"):
                total[slip["kind"]] += slip["amount"]
    return [{"tag": tag, **t, "net": t["income"] - t["expense"]} for tag, t in sorted(sums.items())]


def month_items(slips: list[dict[str, Any]], first: str, last: str) -> int:
    """How many accounts x months items months first..last hold: each side's account, each month."""
    held = set()
    for slip in slips:
        if first <= slip["date"][:7] <= last:
            held.add((slip["date"][:7], slip["account"]))
            if slip.get("to_account"):
                held.add((slip["date"][:7], slip["to_account"]))
    return len(held)


def _build(ctx: Context, label: str, days: int) -> dict[str, Any]:
    ledger = ctx.ledger(f"tags{days}")
    slips = tagged(history_slips(days))
    fill_ledger(ctx, ledger, slips)
    checked = verify(ctx.store, ledger)
    if checked["mismatched_items"] or checked["slips"] != len(slips):
        raise BenchError(f"the {days}-day tagged ledger does not verify: {checked['mismatches']}")
    return {"label": label, "who": ledger, "days": days, "slips": slips}


def _reads(ctx: Context, calls: list[Call]) -> dict[str, Any]:
    """What the calls read: each sent again once, as recorded, asking for the capacity."""
    if any(c.operation not in READS for c in calls):
        raise BenchError(f"a read wrote: {[c.operation for c in calls]}")
    by: dict[str, int] = {}
    items = queried = slip_items = 0
    units = 0.0
    for call in calls:
        by[call.operation] = by.get(call.operation, 0) + 1
        method = getattr(ctx.client, {"GetItem": "get_item", "Query": "query"}[call.operation])
        params = {k: v for k, v in call.params.items() if k != "ReturnConsumedCapacity"}
        response = method(**params, ReturnConsumedCapacity="TOTAL")
        units += consumed_units(response)
        if call.operation == "Query":
            items += int(response.get("ScannedCount", 0))
            queried += int(response.get("ScannedCount", 0))
            values = params.get("ExpressionAttributeValues", {}).values()
            if any(str(v.get("S", "")).startswith("SLIP#") for v in values):
                slip_items += int(response.get("ScannedCount", 0))
        else:
            items += 1 if response.get("Item") else 0
    return {"calls": len(calls), "by_operation": dict(sorted(by.items())), "items_read": items,
            "queried": queried, "slips_read": slip_items, "rcu": round(units, 2)}  # fmt: skip


def _once(ctx: Context, ledger: str, target: str) -> tuple[Reply, dict[str, Any]]:
    ctx.recorder.clear()
    reply = ctx.request("GET", target, user=ledger, expect=200)
    return reply, _reads(ctx, ctx.recorder.take())


def _floor_steps(ctx: Context, ledger: str, first: str, last: str) -> list[dict[str, Any]]:
    """The window's slips straight through boto3: one consistent Query, newest first, its pages."""
    base = {"TableName": ctx.store.core.table, "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": slip_sk(first, ""),
                                                  ":hi": slip_sk(last, "~")}),
            "ScanIndexForward": False, "ConsistentRead": True}  # fmt: skip
    client: Any = ctx.client
    steps, request = [], dict(base)
    while True:
        steps.append(dict(request))
        page = client.query(**request)
        if "LastEvaluatedKey" not in page:
            return steps
        request = {**base, "ExclusiveStartKey": page["LastEvaluatedKey"]}


def _interleaved(ctx: Context, timed: dict[str, Callable[[], Any]]) -> dict[str, dict[str, Any]]:
    """Each callable's latency, the callables taking turns iteration by iteration."""
    samples: dict[str, list[int]] = {name: [] for name in timed}
    for i in range(ctx.sizes.warmup + ctx.sizes.read_iterations):
        for name, fn in timed.items():
            t0 = time.perf_counter_ns()
            fn()
            elapsed = time.perf_counter_ns() - t0
            if i >= ctx.sizes.warmup:
                samples[name].append(elapsed)
    return {name: summary(times) for name, times in samples.items()}


def _ok(ctx: Context, ledger: str, target: str) -> Callable[[], Any]:
    event = ctx.api.event("GET", target, user=ledger)

    def send() -> None:
        reply = ctx.api.invoke(event)
        if reply.status != 200:
            raise BenchError(f"GET {target} answered {reply.status}: {reply.body[:300]}")

    return send


def _report_target(first: str, last: str) -> str:
    return f"/reports/tags?from={first}&to={last}"


def _search_target(word: str) -> str:
    return f"/slips?q={quote(word)}&to={SEARCH_TO}"


def _tag_reports(ctx: Context, ledgers: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of the last month on both ledgers and of each window on the old one: checked, its
    reads counted, then timed in turns, each beside its floor (its Query of the month items alone,
    sent again straight through boto3)."""
    measured: dict[str, dict[str, Any]] = {}
    timed: dict[str, Callable[[], Any]] = {}
    young, old = ledgers
    runs = [(young, "1 month"), *((old, window) for window in WINDOWS)]
    for data, window in runs:
        first, last = WINDOWS[window]
        ctx.recorder.clear()
        reply = ctx.request("GET", _report_target(first, last), user=data["who"], expect=200)
        calls = ctx.recorder.take()
        want = expected_report(data["slips"], first, last)
        if reply.json["items"] != want:
            raise BenchError(f"the tag report {first}..{last} of {data['label']} differs from its slips'")
        key = f"{data['label']} / {window}"
        slips_in = sum(1 for s in data["slips"] if first <= s["date"][:7] <= last)
        measured[key] = {"ledger": data["label"], "window": window, "tags": len(want), "slips_in_window": slips_in,
                         "month_items": month_items(data["slips"], first, last), **_reads(ctx, calls)}  # fmt: skip
        timed[key] = _ok(ctx, data["who"], _report_target(first, last))
        timed[f"{key} floor"] = ctx.replay([c for c in calls if c.operation == "Query"], None).run
    latency = _interleaved(ctx, timed)
    for key, m in measured.items():
        m["ours"], m["floor"] = latency[key], latency[f"{key} floor"]
        m["ratio"] = ratio(m["ours"]["p50_ms"], m["floor"]["p50_ms"])
    month = measured[f"{old['label']} / 1 month"]
    flat = ratio(month["ours"]["p50_ms"], measured[f"{young['label']} / 1 month"]["ours"]["p50_ms"])

    def per_month(window: str, months: int) -> float:
        return round(float(measured[f"{old['label']} / {window}"]["ours"]["p50_ms"]) / months, 3)

    by_window = {
        w: ratio(measured[f"{old['label']} / {w}"]["ours"]["p50_ms"], month["ours"]["p50_ms"]) for w in WINDOWS
    }
    return {
        "reads": measured,
        "old_vs_young": flat,
        "window_vs_month_on_old": by_window,
        "per_month_ms_on_old": {w: per_month(w, n) for w, n in (("1 month", 1), ("12 months", 12), ("10 years", 120))},
        "targets": {
            "flat_over_history": flat <= WITHIN,
            "reads_the_months_items": all(m["queried"] == m["month_items"] for m in measured.values()),
        },
    }


def _search(ctx: Context, data: dict[str, Any]) -> dict[str, Any]:
    """The search on the old ledger over the default window: checked, its reads counted, timed in
    turns with the floor (the window's slips through boto3) and a common word's."""
    ledger, slips = data["who"], data["slips"]
    window = [s for s in slips if SEARCH_FROM <= s["date"] <= SEARCH_TO]
    out: dict[str, Any] = {"from": SEARCH_FROM, "to": SEARCH_TO, "window_slips": len(window), "words": {}}
    timed: dict[str, Callable[[], Any]] = {}
    for word in (RARE, COMMON):
        reply, reads = _once(ctx, ledger, _search_target(word))
        matching = [s for s in window if matches_words(s, words_of(word))]
        found = reply.json["items"]
        if len(found) != min(len(matching), LIMIT) or not all(SEARCH_FROM <= s["date"] <= SEARCH_TO for s in found):
            raise BenchError(f"the search for {word} found {len(found)} slips, not {min(len(matching), LIMIT)}")
        out["words"][word] = {"matching": len(matching), "found": len(found),
                              "next_cursor": reply.json.get("next_cursor") is not None, **reads}  # fmt: skip
        timed[word] = _ok(ctx, ledger, _search_target(word))
    steps = _floor_steps(ctx, ledger, SEARCH_FROM, SEARCH_TO)
    floor_read = 0
    floor_units = 0.0
    client: Any = ctx.client
    for request in steps:
        response = client.query(**request, ReturnConsumedCapacity="TOTAL")
        floor_read += int(response.get("ScannedCount", 0))
        floor_units += consumed_units(response)
    out["floor"] = {"calls": len(steps), "slips_read": floor_read, "rcu": round(floor_units, 2)}
    timed["floor"] = lambda: [client.query(**request) for request in steps]
    latency = _interleaved(ctx, timed)
    for word in (RARE, COMMON):
        out["words"][word]["ours"] = latency[word]
    out["floor"].update(latency["floor"])
    rare = out["words"][RARE]
    rare["ratio"] = ratio(rare["ours"]["p50_ms"], latency["floor"]["p50_ms"])
    out["targets"] = {"reads_the_window_only": rare["slips_read"] == len(window) == floor_read}
    return out


def render(r: dict[str, Any]) -> list[str]:
    reports = r["reports"]
    lines = [
        "Tag report (GET /reports/tags) by ledger and window, p50 ms through the handler, in turns; floor = its Query",
        f"  {'ledger':>9} {'window':>10} {'slips in it':>11} {'tags':>4} {'p50 ms':>8} {'calls':>5} {'items':>5} "
        f"{'months x accts':>14} {'RCU':>6} {'floor ms':>8} {'x floor':>7}",
    ]
    for m in reports["reads"].values():
        lines.append(
            f"  {m['ledger']:>9} {m['window']:>10} {m['slips_in_window']:11} {m['tags']:4} {m['ours']['p50_ms']:8.2f} "
            f"{m['calls']:5} {m['items_read']:5} {m['month_items']:14} {m['rcu']:6.1f} {m['floor']['p50_ms']:8.2f} "
            f"{m['ratio']:7.2f}"
        )
    by = ", ".join(f"{w} {v:.2f}" for w, v in reports["window_vs_month_on_old"].items())
    per = ", ".join(f"{w} {v:.3f}" for w, v in reports["per_month_ms_on_old"].items())
    lines.append(f"  the last month, 10 years of history / 1 month: {reports['old_vs_young']:.2f}")
    lines.append(f"  on 10 years, each window / the last month: {by}; ms per month of the window: {per}")
    lines.append(f"  targets: {reports['targets']}")
    s = r["search"]
    lines.append(f"Search (GET /slips?q=) over {s['from']}..{s['to']} of the 10-year ledger: {s['window_slips']} slips")
    for word, m in s["words"].items():
        lines.append(
            f"  q={word}: p50 {m['ours']['p50_ms']:.2f} ms, {m['calls']} calls {m['by_operation']}, "
            f"{m['slips_read']} slips read ({m['rcu']:.1f} RCU), {m['found']} found of {m['matching']}"
        )
    floor = s["floor"]
    lines.append(
        f"  floor (the window's slips, one paged Query): p50 {floor['p50_ms']:.2f} ms, {floor['calls']} calls, "
        f"{floor['slips_read']} slips ({floor['rcu']:.1f} RCU); q={RARE} x floor {s['words'][RARE]['ratio']:.2f}"
    )
    lines.append(f"  targets: {s['targets']}")
    return lines


@register("tags", "tag report and search by ledger age: 1 month, 10 years", order=67, render=render)
def run(ctx: Context) -> dict[str, Any]:
    days_of = (ctx.sizes.age_days[0], ctx.sizes.age_days[-1])
    ledgers = [_build(ctx, label, days) for label, days in zip(("1 month", "10 years"), days_of, strict=True)]
    reports = _tag_reports(ctx, ledgers)
    search = _search(ctx, ledgers[-1])
    built = [{"label": d["label"], "days": d["days"], "slips": len(d["slips"])} for d in ledgers]
    return {"kind": "tags", "ledgers": built, "reports": reports, "search": search,
            "targets": {**reports["targets"], **search["targets"]}}  # fmt: skip
