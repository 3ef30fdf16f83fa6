"""Net worth, pure (core/networth.py): each month's end is the running balance, valued, split by sign."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import networth
from kakeibo.core.networth import Valuation

ACCOUNTS = ("bank", "card", "pts", "usd")
VALUATIONS = st.one_of(
    st.none(), st.just(Valuation()), st.builds(Valuation, st.just(1), st.integers(1, 10)),
    st.builds(Valuation, st.integers(2, 200), st.integers(1, 30_000)),
)  # fmt: skip


@settings(deadline=None)
@given(
    st.integers(2000, 2030),
    st.integers(1, 12),
    st.integers(0, 30),
    st.dictionaries(st.sampled_from(ACCOUNTS), st.integers(-(10**7), 10**7), min_size=4),
    st.dictionaries(st.tuples(st.sampled_from(ACCOUNTS), st.integers(0, 30)), st.integers(-(10**6), 10**6)),
    st.fixed_dictionaries(dict.fromkeys(ACCOUNTS, VALUATIONS)),
)
def test_each_month_end_is_the_running_balance_valued_and_split_by_sign(
    year: int, month: int, count: int, before: dict[str, int], moves: dict[tuple[str, int], int],
    valuations: dict[str, Valuation | None],
) -> None:  # fmt: skip
    first = f"{year:04d}-{month:02d}"
    index = year * 12 + month - 1 + count
    span = networth.months(first, f"{index // 12:04d}-{index % 12 + 1:02d}")
    assert len(span) == count + 1 and span == sorted(span) and span[0] == first
    changes = {(a, span[n]): v for (a, n), v in moves.items() if n < len(span)}
    found = networth.net_worth(span, before, changes, valuations)
    for n, point in enumerate(found):
        values = []
        for account, opening in before.items():
            balance = opening + sum(changes.get((account, m), 0) for m in span[: n + 1])
            valuation = valuations[account]
            if valuation is not None:
                values.append(valuation.of(balance))
        assert point.month == span[n]
        assert point.assets == sum(v for v in values if v > 0)
        assert point.liabilities == -sum(v for v in values if v < 0)
        assert point.net == point.assets - point.liabilities == sum(values)
