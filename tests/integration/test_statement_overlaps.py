"""Overlapping downloads of one period, as a property on DynamoDB Local: whatever the order a household
imports a bank's downloads in (each a run of days, its rows within a day in the bank's own order),
the ledger ends with the same slips — one per row of the days the downloads cover — and the same
balance."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import WITH_FIXTURES
from tests.events import Client

CSV = {"Content-Type": "text/csv"}
HEADER = '"日付","内容","出金金額(円)","入金金額(円)","残高(円)","メモ"'
DAYS = [dt.date(2026, 11, 1) + dt.timedelta(days=n) for n in range(20)]
PAYEES = ("ＡＴＭ　イーネット", "振込＊ヤマダ　タロウ", "ＮＨＫ")


def download(rows: list[tuple[int, int, int]], lo: int, hi: int, seed: int) -> bytes:
    """住信SBI's download of days lo..hi: newest first, each day's rows in an order of the bank's."""
    inside = [r for r in rows if lo <= r[0] <= hi]
    random.Random(seed).shuffle(inside)
    inside.sort(key=lambda r: -r[0])
    lines = [HEADER]
    for day, payee, amount in inside:
        out, into = (f'"{-amount:,}"', "") if amount < 0 else ("", f'"{amount:,}"')
        lines.append(f'"{DAYS[day]:%Y/%m/%d}","{PAYEES[payee]}",{out},{into},"","-"')
    return ("\r\n".join(lines) + "\r\n").encode("cp932")


def slips(api: Client) -> list[tuple[str, str, int, str]]:
    items: list[dict[str, Any]] = api.get("/slips", query={"limit": "100"}).json["items"]
    return sorted((s["date"], s["kind"], s["amount"], s["payee"]) for s in items)


@settings(max_examples=6, deadline=None, suppress_health_check=WITH_FIXTURES)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 19), st.integers(0, 2), st.sampled_from((-1000, -3000, 500, 20000))),
        min_size=1,
        max_size=12,
    ),
    windows=st.lists(st.tuples(st.integers(0, 19), st.integers(0, 19)), min_size=2, max_size=3),
    seed=st.integers(0, 10**6),
    order=st.randoms(use_true_random=False),
)
def test_any_order_of_overlapping_downloads_gives_the_same_slips(
    local_env: str, rows: list[tuple[int, int, int]], windows: list[tuple[int, int]], seed: int, order: random.Random
) -> None:
    periods = [(min(a, b), max(a, b)) for a, b in windows]
    files = [download(rows, lo, hi, seed + n) for n, (lo, hi) in enumerate(periods)]
    shuffled = list(files)
    order.shuffle(shuffled)
    ledgers = []
    for sequence in (files, shuffled):
        # Given a household's bank account
        api = Client(f"user-{uuid.uuid4().hex[:12]}")
        api.account("bank", 1_000_000, type="bank")
        # When its downloads are imported in this order
        for data in sequence:
            reply = api.post("/imports", raw=data, headers=CSV, query={"account": "bank"})
            assert reply.status == 200 and reply.json["failed"] == 0, reply.json
        ledgers.append((slips(api), api.balances()["bank"]))
    # Then both orders leave the same slips and balance: one slip per row of the covered days
    assert ledgers[0] == ledgers[1]
    covered = [r for r in rows if any(lo <= r[0] <= hi for lo, hi in periods)]
    expected = sorted(
        (f"{DAYS[d]:%Y-%m-%d}", "expense" if a < 0 else "income", abs(a), PAYEES[p].replace("　", "\u3000"))
        for d, p, a in covered
    )
    assert ledgers[0] == (expected, 1_000_000 + sum(a for _, _, a in covered))
