"""The targets, checked against a run's results and reported (never asserted)."""

from __future__ import annotations

from typing import Any

MAX_OVERHEAD = 1.10  # ours / floor at p50
MAX_COLD = 1.15  # ours / the floor: fresh process, import + first request (sections/cold.py; §31)
MAX_RESTORE = 1.15  # a restored (forked, primed) instance's first POST /slips / its second (§31)
MIN_IMPORT_SPEEDUP = 5.0  # batched import rows/s / one transaction per row
MAX_RULES_OVERHEAD = 1.10  # an import with 200 rules / the same import without rules
MAX_STATEMENT_IMPORT = 1.20  # a card's statement (CP932, its issuer's layout) / the plain CSV of its rows
MAX_FRONT = 1.5  # POST /slips through the local front over HTTP / the handler in-process, p50 (§31)


def evaluate(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for name, result in results.items():
        if result.get("kind") == "op" and "ratio" in result:
            value = result["ratio"]["p50"]
            out.append(_target(f"{name}: ours/floor at p50", f"<= {MAX_OVERHEAD}", value, value <= MAX_OVERHEAD))
    cold = results.get("cold", {})
    if "ratio" in cold:
        value = cold["ratio"]["vs_floor"]
        out.append(_target("cold start: ours / floor", f"<= {MAX_COLD}", value, value <= MAX_COLD))
    if "restored_first_vs_second" in cold.get("ratio", {}):
        value = cold["ratio"]["restored_first_vs_second"]
        target = f"<= {MAX_RESTORE}"
        out.append(_target("SnapStart restore: first / second request", target, value, value <= MAX_RESTORE))
    imports = results.get("imports", {})
    if "ratio" in imports:
        value = imports["ratio"]
        target = f">= {MIN_IMPORT_SPEEDUP}"
        out.append(_target("import: batched / per row (rows/s)", target, value, value >= MIN_IMPORT_SPEEDUP))
        drift = sum(imports["drift"].values())
        out.append(_target("import: drift after both imports", "== 0", drift, drift == 0))
    ruled = results.get("rules", {})
    if "ratio" in ruled:
        value = ruled["ratio"]
        target = f"<= {MAX_RULES_OVERHEAD}"
        out.append(_target("import: with 200 rules / without (time)", target, value, value <= MAX_RULES_OVERHEAD))
    card = results.get("card_import", {})
    if "ratio" in card:
        value = card["ratio"]
        target = f"<= {MAX_STATEMENT_IMPORT}"
        name = "import: a card's statement / its plain CSV (time)"
        out.append(_target(name, target, value, value <= MAX_STATEMENT_IMPORT))
    front = results.get("front_create", {})
    if "ratio" in front:
        value = front["ratio"]["p50"]
        name = "POST /slips: through the local front / in-process at p50"
        out.append(_target(name, f"<= {MAX_FRONT}", value, value <= MAX_FRONT))
    naive = results.get("naive", {}).get("concurrent")
    if naive:
        drift = naive["naive"]["verify"]["balance_drift_yen"] + naive["naive"]["verify"]["day_total_drift_yen"]
        out.append(_target("naive: drift under concurrent writers", "> 0", drift, drift > 0))
        ours = naive["ours"]["verify"]
        mismatched = ours["mismatched_items"]
        out.append(_target("ours: mismatched items after concurrent writers", "== 0", mismatched, mismatched == 0))
    return out


def _target(name: str, target: str, value: Any, met: bool) -> dict[str, Any]:
    return {"name": name, "target": target, "value": value, "met": met}
