"""Tax season: a year's medical payments and donations, one item per ledger and year (`TAXYEAR#`,
posting.TaxYearItem), moved by the slip transactions themselves (store/balances.py). A report reads
that one item, whatever the number of slips."""

from __future__ import annotations

from kakeibo.core.tax import is_tax_field
from kakeibo.store.keys import tax_year_sk
from kakeibo.store.transactions import StoreCore


class TaxOps:
    def __init__(self, core: StoreCore) -> None:
        self.core = core

    def tax_year(self, ledger: str, year: str) -> dict[str, int]:
        """The year's fields (core.tax names them): one consistent GetItem."""
        item = self.core.get(ledger, tax_year_sk(year))
        return {name: int(value) for name, value in (item or {}).items() if is_tax_field(name)}
