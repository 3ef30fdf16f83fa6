"""Net worth month by month (資産推移), pure: each account's balance at each month's end, in yen,
summed into what is held and what is owed. No boto3, no HTTP.

- An account's balance at the end of month M is its balance before the first month plus the net
  changes of every month up to M (its rollups': O(months)).
- In yen (`Valuation`): yen as it is, points at their point_value, a foreign currency at one rate
  (that of its latest slip that gives one, as GET /balances values it); an account with no rate
  is left out and named (`unvalued`).
- `assets` is what the accounts in credit hold, `liabilities` what those below zero owe (a card's
  debt above all), `net` = assets - liabilities: the sum of every value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kakeibo.core import units


@dataclass(frozen=True, slots=True)
class Valuation:
    """How an account's balance is worth yen: `per` units of it are worth `jpy` yen."""

    per: int = 1
    jpy: int = 1

    def of(self, balance: int) -> int:
        if self.per == 1:
            return units.points_in_yen(balance, self.jpy)
        return units.yen_value(balance, self.per, self.jpy)


@dataclass(frozen=True, slots=True)
class MonthEnd:
    month: str
    assets: int
    liabilities: int
    net: int


def months(first: str, last: str) -> list[str]:
    """The months first..last (YYYY-MM, inclusive)."""
    index, end = int(first[:4]) * 12 + int(first[5:7]) - 1, int(last[:4]) * 12 + int(last[5:7]) - 1
    return [f"{i // 12:04d}-{i % 12 + 1:02d}" for i in range(index, end + 1)]


def net_worth(
    span: Sequence[str],
    before: Mapping[str, int],
    changes: Mapping[tuple[str, str], int],
    valuations: Mapping[str, Valuation | None],
) -> list[MonthEnd]:
    """Each month's end of `span`: `before[account]` is its balance before the first month,
    `changes[(account, month)]` its net change in a month (in its unit)."""
    balances = dict(before)
    out = []
    for month in span:
        assets = liabilities = 0
        for account, balance in balances.items():
            balances[account] = now = balance + changes.get((account, month), 0)
            valuation = valuations.get(account)
            if valuation is None:
                continue
            value = valuation.of(now)
            if value >= 0:
                assets += value
            else:
                liabilities -= value
        out.append(MonthEnd(month, assets, liabilities, assets - liabilities))
    return out
