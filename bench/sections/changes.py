"""changes: GET /changes?since=0&limit=500 (delta sync from nothing) on the history ledger, whose
every account and slip was written with its journal entry."""

from __future__ import annotations

from typing import Any

from bench.api import BenchError
from bench.context import Context
from bench.measure import Minimum, Op, measure
from bench.registry import register
from bench.scenario import history

PAGE = 500


@register("changes", "journal: GET /changes from 0, one page of 500", order=55)
def run(ctx: Context) -> dict[str, Any]:
    data = history(ctx)
    expected = min(PAGE, ctx.store.journal.journal_head(data["who"]))  # its accounts, then its slips
    op = Op(
        request=f"GET /changes?since=0&limit={PAGE}",
        event=lambda i: ctx.api.event("GET", f"/changes?since=0&limit={PAGE}", user=data["who"]),
        expect=200,
        twin=None,
        minimum=Minimum({"Query": 1}, 0, f"one Query of the first {PAGE} journal entries"),
        after=lambda reply: _check(reply.json, expected),
    )
    result = measure(ctx, "changes", op)
    result["dataset"] = {k: v for k, v in data.items() if k != "who"}
    return result


def _check(body: dict[str, Any], expected: int) -> None:
    seqs = [entry["seq"] for entry in body["changes"]]
    if seqs != list(range(1, expected + 1)):
        raise BenchError(f"GET /changes returned seqs {seqs[:3]}..{seqs[-3:]}, not 1..{expected}")
