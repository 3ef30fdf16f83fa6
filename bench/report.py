"""The printed report: one latency table and one cost table for the operations, then each section's own."""

from __future__ import annotations

from typing import Any

from bench.registry import Section


def _ms(s: dict[str, Any]) -> str:
    return f"{s['p50_ms']:7.2f} {s['p95_ms']:7.2f} {s['p99_ms']:7.2f}"


def table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i < 2 else f"{{:>{w}}}" for i, w in enumerate(widths))
    line = fmt.format(*header)
    return [line, "-" * len(line), *(fmt.format(*r) for r in rows)]


def ops_latency(results: dict[str, dict[str, Any]]) -> list[str]:
    rows = []
    for name, r in results.items():
        if r.get("kind") != "op" or "ours" not in r:
            continue
        rows.append(
            [
                name,
                r["request"],
                _ms(r["ours"]),
                _ms(r["floor"]),
                f"{r['ratio']['p50']:.3f}",
                f"{r['overhead_ms']['p50']:+.2f}",
                str(r["ours"]["n"]),
            ]
        )
    if not rows:
        return []
    header = ["op", "request", "ours p50 p95 p99 ms", "floor p50 p95 p99 ms", "ours/floor", "+ms p50", "n"]
    return [
        "Latency: handler in-process vs the same DynamoDB calls straight through boto3",
        *table(rows, header),
    ]


def ops_cost(results: dict[str, dict[str, Any]]) -> list[str]:
    rows = []
    for name, r in results.items():
        if r.get("kind") != "op" or "cost" not in r:
            continue
        cost, least = r["cost"], r.get("minimum", {})
        priced = cost.get("priced", {})
        local = priced.get("dynamodb_local_reported", {})
        rows.append(
            [
                name,
                " + ".join(f"{n}x{op}" if n != 1 else op for op, n in cost["by_operation"].items()),
                f"{cost['calls']:g} | {least.get('calls', '-')}",
                f"{_items(cost)} | {least.get('transactional_writes', '-')}",
                f"{priced.get('wcu', 0):g} | {least.get('wcu', '-')}",
                f"{priced.get('largest_item_bytes', 0)}",
                f"{local.get('wcu', 0):g} / {local.get('rcu', 0):g}",
            ]
        )
    if not rows:
        return []
    header = [
        "op",
        "DynamoDB calls",
        "calls ours|min",
        "items ours|min",  # writes, + condition checks
        "WCU ours|min",
        "max item B",
        "Local says WCU/RCU",
    ]
    return [
        "Cost per operation (min: slip + balance in one transaction; WCU: 2 per item-KB in a transaction;"
        " +Nc: condition checks, priced as writes)",
        *table(rows, header),
    ]


def _items(cost: dict[str, Any]) -> str:
    """Items written, and condition checks (e.g. 4+1c): a check is priced like a write here."""
    checks = cost.get("condition_checks", 0)
    return f"{cost['items_written']:g}" + (f"+{checks:g}c" if checks else "")


def render(doc: dict[str, Any], sections: list[Section]) -> str:
    results = doc["sections"]
    lines = [f"kakeibo bench ({doc['mode']}) on {_machine(doc['machine'])}", ""]
    for block in (ops_latency(results), ops_cost(results)):
        if block:
            lines += [*block, ""]
    for section in sections:
        result = results.get(section.name)
        if result is None:
            continue
        if "error" in result:
            lines += [f"{section.name}: FAILED: {result['error']}", ""]
        elif section.render is not None:
            lines += [*section.render(result), ""]
    if doc["targets"]:
        lines.append("Targets (reported, not asserted)")
        for t in doc["targets"]:
            mark = "met   " if t["met"] else "MISSED"
            lines.append(f"  {mark} {t['name']}: {t['value']} (target {t['target']})")
    lines.append(f"\n{doc['duration_s']:.0f} s; JSON: {doc['output']}")
    return "\n".join(lines)


def _machine(m: dict[str, Any]) -> str:
    return (
        f"{m['nproc']} cores {m['cpu']}, {m['memory_gib']} GiB, Python {m['python']}, "
        f"DynamoDB Local {m['dynamodb_local']}, load {m.get('load_average_at_start')} -> "
        f"{m.get('load_average_at_end')}"
    )
