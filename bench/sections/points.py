"""points: POST /slips of a points spend on an account with 100 open lots, against a yen spend.

One household with a yen cash account and a points account holding LOTS earnings, each with its own
expiry (all still open). Each timed write is a 1-point spend (the lots are re-planned in the slip's
own transaction: the lots item put back under its version) or a ¥1 spend of cash, taking turns, so
both see the same load; p50 over the iterations, through the handler. The lots are checked after
the run: every spend taken from the lot expiring first.
Target: the points write within 1.1x of the yen write.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import household
from bench.stats import ratio, summary

LOTS = 100
EARNED = 1_000
TARGET = 1.1


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"POST /slips: a points spend with {r['lots']} open lots vs a yen spend (p50 ms through the handler)",
        f"  yen    {r['yen']['p50_ms']:8.2f}  ({', '.join(r['yen_calls'])})",
        f"  points {r['points']['p50_ms']:8.2f}  ({', '.join(r['points_calls'])})",
        f"  points / yen {r['points_vs_yen']:.2f}; target within {TARGET}x: {r['targets']['points_within_1_1x']}",
    ]


@register("points", f"a write to a points account with {LOTS} open lots vs a yen write", order=62, render=render)
def run(ctx: Context) -> dict[str, Any]:
    who = household(ctx, "points").ours
    body = {"id": "pts", "name": "Points", "type": "other", "unit": "points", "program": "楽天ポイント"}
    ctx.request("POST", "/accounts", user=who, body=body, expect=201)
    start = dt.date(2026, 1, 1)
    for n in range(LOTS):
        earned = {
            "date": start.isoformat(), "kind": "income", "amount": EARNED, "account": "pts",
            "expires_on": (start + dt.timedelta(days=400 + n)).isoformat(),
        }  # fmt: skip
        ctx.request("POST", "/slips", user=who, body=earned, expect=201)
    day = (start + dt.timedelta(days=30)).isoformat()
    spends = {
        "points": {"date": day, "kind": "expense", "amount": 1, "account": "pts", "category": "食費"},
        "yen": {"date": day, "kind": "expense", "amount": 1, "account": "cash", "category": "食費"},
    }

    def write(which: str) -> None:
        reply = ctx.api.invoke(ctx.api.event("POST", "/slips", user=who, body=spends[which]))
        if reply.status != 201:
            raise BenchError(f"POST /slips ({which}): {reply.status} {reply.body[:300]}")

    calls = {}
    for which in ("points", "points", "yen", "yen"):  # the second of each: what a write costs once warm
        ctx.recorder.clear()
        write(which)
        calls[which] = [c.operation for c in ctx.recorder.take()]
    samples: dict[str, list[int]] = {"points": [], "yen": []}
    for i in range(ctx.sizes.warmup + ctx.sizes.iterations):
        for which in ("points", "yen") if i % 2 else ("yen", "points"):  # taking turns: both see the same load
            t0 = time.perf_counter_ns()
            write(which)
            elapsed = time.perf_counter_ns() - t0
            if i >= ctx.sizes.warmup:
                samples[which].append(elapsed)
    spent = 2 + ctx.sizes.warmup + ctx.sizes.iterations
    expiring = ctx.request("GET", "/accounts/pts/expiring?within=3650", user=who, expect=200).json
    first = min(expiring["items"], key=lambda lot: lot["lapses_on"])
    if expiring["points"] != LOTS * EARNED - spent or first["points"] != EARNED - spent:
        raise BenchError(f"lots after {spent} spends: {expiring['points']} left, the first lot {first['points']}")
    yen, pts = summary(samples["yen"]), summary(samples["points"])
    vs = ratio(pts["p50_ms"], yen["p50_ms"])
    return {
        "kind": "points",
        "lots": LOTS,
        "yen": yen,
        "points": pts,
        "points_calls": calls["points"],
        "yen_calls": calls["yen"],
        "points_vs_yen": vs,
        "targets": {"points_within_1_1x": vs <= TARGET},
    }
