"""rules: an import of 3,000 rows with the ledger's 200 rules against the same import without rules.

The same file, into two ledgers with the same accounts: one without rules, one with 200 (each a
memo condition; every tenth row is matched, by a rule near the end of the set, so each row is
compared with nearly all of them). Both imports go through the handler, sent again while `partial`.
The rule set is read once per import and its values normalised once; the target is the import with
rules within 1.1x of the import without (wall clock). The CPU time of this process (the handler's
own work, not DynamoDB Local's) is reported beside it: on a loaded machine it says more about what the
rules cost than the wall clock does. Each ledger is checked against its slips afterwards.
"""

from __future__ import annotations

from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.sections.imports import _import
from bench.verify import verify

RULE_ROWS = 3_000
RULES = 200
MAX_RULES_OVERHEAD = 1.10


def _csv(n: int) -> str:
    """A card statement: half-width shop names, no categories (the rules give them)."""
    lines = ["date,kind,amount,account,to_account,category,memo"]
    for i in range(n):
        day = i * 365 // max(n, 1)
        month, dom = divmod(day, 28)
        shop = f"ｼｮｯﾌﾟ{i % 10} ﾃﾝ{i % 7}" if i % 10 else f"ｽｰﾊﾟｰﾏﾙｴﾂ ﾃﾝ{i % 7}"
        lines.append(f"2025-{month % 12 + 1:02d}-{dom + 1:02d},expense,{100 + i % 900},cash,,,{shop}")
    return "\n".join(lines) + "\n"


def _rule(i: int) -> dict[str, Any]:
    shop = "スーパーマルエツ" if i == RULES - 1 else f"店{i}"
    return {"conditions": [{"field": "memo", "op": "contains", "value": shop}], "actions": {"category": "食費"}}


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"CSV import of {r['rows']} rows with {r['rules']} rules (target: <= {MAX_RULES_OVERHEAD}x without rules)",
        f"  without rules {r['without']['seconds']:7.2f} s ({r['without']['sends']} send(s))   "
        f"with rules {r['with']['seconds']:7.2f} s ({r['with']['sends']} send(s))   ratio {r['ratio']:.3f}",
        f"  CPU of this process (the handler, not DynamoDB Local): without {r['without']['cpu_seconds']:.2f} s   "
        f"with {r['with']['cpu_seconds']:.2f} s   ratio {r['cpu_ratio']:.3f}",
        f"  rows the rules categorised: {r['ruled']}   drift after: {r['drift']} yen",
    ]


@register("rules", "CSV import with 200 rules vs without", order=66, render=render)
def run(ctx: Context) -> dict[str, Any]:
    n = RULE_ROWS if ctx.sizes.import_rows >= RULE_ROWS else ctx.sizes.import_rows
    text = _csv(n)
    account = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10**11}
    plain, ruled = ctx.ledger("rules-none"), ctx.ledger("rules-200")
    for ledger in (plain, ruled):
        ctx.request("POST", "/accounts", user=ledger, body=account, expect=201)
    for i in range(RULES):
        ctx.request("POST", "/rules", user=ruled, body=_rule(i), expect=201)
    without = _import(ctx, plain, text)
    with_rules = _import(ctx, ruled, text)
    for result in (without, with_rules):
        if result["created"] != n:
            raise BenchError(f"the import created {result['created']} of {n} rows")
    categorised = with_rules["ruled"]  # over every send: an import short of time is sent again
    if categorised != len(range(0, n, 10)):
        raise BenchError(f"the rules categorised {categorised} rows, not every tenth")
    checks = [verify(ctx.store, plain), verify(ctx.store, ruled)]
    if any(c["mismatched_items"] for c in checks):
        raise BenchError(f"imported ledgers do not match their slips: {checks}")
    return {
        "kind": "rules",
        "rows": n,
        "rules": RULES,
        "without": {k: without[k] for k in ("seconds", "cpu_seconds", "sends")},
        "with": {k: with_rules[k] for k in ("seconds", "cpu_seconds", "sends")},
        "ratio": round(with_rules["seconds"] / without["seconds"], 3),
        "cpu_ratio": round(with_rules["cpu_seconds"] / max(without["cpu_seconds"], 1e-9), 3),
        "ruled": categorised,
        "drift": sum(c["balance_drift_yen"] + c["day_total_drift_yen"] for c in checks),
    }
