"""Credit cards' statements, per billing cycle, from the rollups (`core/billing.py` has the cycle
arithmetic; card_payments.py posts what they say is due, payment_basis.py reports spending when it
is paid).

A statement's reads do not grow with the card's age: the card, its year items up to the first
cycle's year and its month items of the cycles' months (for its balance at each closing date), its
day items of the cycles' periods (charges, refunds, payments) and the payment slips of the cycles
(two BatchGetItems). The first three are sent at once.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core import billing, forecast
from kakeibo.core.billing import Cycle
from kakeibo.models.base import check_month
from kakeibo.services.accounts import account_item, card_billing, card_eras, card_managed
from kakeibo.services.balances import Rollups, changes, rollup_reads, together
from kakeibo.settings import today
from kakeibo.store import (
    Item,
    Store,
)

MAX_MONTHS = 24
DEFAULT_MONTHS = 6


@dataclass(frozen=True)
class Cycles:
    """The cycles asked for and the ones before them whose payments may still be outstanding."""

    earlier: list[Cycle]
    wanted: list[Cycle]

    @property
    def all(self) -> list[Cycle]:
        return [*self.earlier, *self.wanted]


def _month(name: str, value: str) -> str:
    try:
        return check_month(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'{name}' {exc}") from None


def _card(store: Store, ledger: str, account: str) -> tuple[Item, billing.Billing]:
    item = account_item(store, ledger, account)
    if not item.get("billing"):
        raise errors.NotACard(f"account '{account}' has no billing: set its closing and payment days first")
    return item, card_billing(dict(item["billing"]))


def _cycles(rule: billing.Billing, first: str, last: str) -> Cycles:
    everything = billing.with_lookback(rule, billing.cycles(rule, first, last))
    return Cycles(everything[: billing.LOOKBACK], everything[billing.LOOKBACK :])


def statements(store: Store, ledger: str, account: str, first: str | None, last: str | None) -> dict[str, Any]:
    """GET /accounts/{id}/statements: the cycles closing in the months first..last (YYYY-MM)."""
    item, rule = _card(store, ledger, account)
    if last is None:
        last = billing.cycle_of(rule, today()).month
    last = _month("to", last)
    if first is None:
        first = months_before(last, DEFAULT_MONTHS - 1)
    first = _month("from", first)
    if first > last:
        raise errors.BadRequest("'from' is after 'to'")
    if _months_between(first, last) >= MAX_MONTHS:
        raise errors.BadRequest(f"at most {MAX_MONTHS} months per request")
    return {"account": account, "items": _statements(store, ledger, item, _cycles(rule, first, last))}


def months_before(month: str, count: int) -> str:
    index = int(month[:4]) * 12 + int(month[5:7]) - 1 - count
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _months_between(first: str, last: str) -> int:
    return (int(last[:4]) * 12 + int(last[5:7])) - (int(first[:4]) * 12 + int(first[5:7]))


def _statements(store: Store, ledger: str, item: Item, cycles: Cycles) -> list[dict[str, Any]]:
    account = str(item["id"])
    everything = cycles.all
    start, end = everything[0].closing_date.isoformat(), everything[-1].closing_date.isoformat()
    period_start = cycles.wanted[0].period_from.isoformat()
    years, months, days = together(
        *rollup_reads(store, ledger, start, end, account),
        lambda: list(
            store.balances.day_totals(
                ledger,
                account,
                period_start,
                end,
                "delta",
                "count",
                "income",
                "expense",
                "transfers_in",
                "transfers_out",
            )
        ),
    )
    owed = _owed(store, ledger, item, everything, Rollups(years, months))
    payments, deleted = _payments(store, ledger, item, everything)
    due = billing.amounts_due(everything, owed, payments, card_managed(item), deleted)
    today_ = today()
    out = []
    for current in cycles.wanted:
        lo, hi = current.period_from.isoformat(), current.closing_date.isoformat()
        within = [d for d in days if lo <= d["date"] <= hi]

        def total(name: str, within: list[Item] = within) -> int:
            return sum(int(d.get(name, 0)) for d in within)

        payment = payments.get(current.closing_date)
        paid = payment.amount if payment is not None else None
        state = "paid" if paid is not None else ("open" if current.closing_date >= today_ else "closed")
        out.append(
            {
                "closing_date": hi,
                "payment_date": current.payment_date.isoformat(),
                "period": {"from": lo, "to": hi},
                "state": state,
                "charges": total("expense") + total("transfers_out"),
                "refunds": total("income"),
                "payments": total("transfers_in"),
                "amount_due": due[current.closing_date],
                "paid": paid or 0,
                "payment_slip_id": billing.payment_slip_id(account, current.closing_date),
                "slips_count": total("count"),
            }
        )
    return out


def _owed(store: Store, ledger: str, item: Item, everything: list[Cycle], rollups: Rollups) -> dict[dt.date, int]:
    """What the card owes at the end of each cycle's closing date (minus its balance then), from
    its rollups of everything's span."""
    account = str(item["id"])
    start, end = everything[0].closing_date.isoformat(), everything[-1].closing_date.isoformat()
    moved = changes(store, ledger, [item], (start, end), rollups)
    owed, balance, running = (
        {},
        int(item["opening_balance"]) + moved.before[account],
        sorted(moved.days[account].items()),
    )
    index = 0
    for current in everything:  # the balance at the end of each closing date
        closing = current.closing_date.isoformat()
        while index < len(running) and running[index][0] <= closing:
            balance += running[index][1]
            index += 1
        owed[current.closing_date] = -balance
    return owed


def forecast_card(store: Store, ledger: str, item: Item, until: dt.date) -> forecast.Card | None:
    """What the forecast needs of a card with billing (core/forecast.py): the cycles whose payments
    the daily job posts by `until` (with their lookback), what it owes at each closing date and the
    payments posted. The card's year items, its month items of those cycles and the payments'
    identities and slips: the window's items, not the card's history."""
    if not item.get("billing") or not item.get("next_closing"):
        return None
    rule = card_billing(dict(item["billing"]))
    first = billing.cycle_of(rule, dt.date.fromisoformat(str(item["next_closing"])))
    wanted = forecast.cycles_to_pay(rule, first, until)
    if not wanted:
        return None
    everything = billing.with_lookback(rule, wanted)
    start, end = everything[0].closing_date.isoformat(), everything[-1].closing_date.isoformat()
    years, months = together(*rollup_reads(store, ledger, start, end, str(item["id"])))
    owed = _owed(store, ledger, item, everything, Rollups(years, months))
    payments, deleted = _payments(store, ledger, item, everything)
    return forecast.Card(
        id=str(item["id"]),
        pay_from=str(dict(item["billing"])["pay_from"]),
        rule=rule,
        first=first,
        cycles=tuple(everything),
        owed=owed,
        payments=payments,
        managed=card_managed(item),
        deleted=deleted,
    )


def _payments(
    store: Store, ledger: str, item: Item, cycles: list[Cycle]
) -> tuple[dict[dt.date, billing.Payment], frozenset[dt.date]]:
    """The payment slips posted for the closing dates around `cycles` (those of the current billing
    and those paid under former ones), as they stand, and the closing dates whose payment was deleted."""
    account = str(item["id"])
    closings = billing.payment_closings(card_billing(dict(item["billing"])), cycles, card_eras(item))
    ids = {billing.payment_slip_id(account, closing): closing for closing in closings}
    read = store.slips.slips_by_id(ledger, ids)
    deleted = frozenset(ids[slip_id] for slip_id in read.deleted())
    payments = {
        ids[slip_id]: billing.Payment(ids[slip_id], dt.date.fromisoformat(str(slip["date"])), int(slip["amount"]))
        for slip_id, slip in read.live.items()
    }
    return payments, deleted


def statement_of(store: Store, ledger: str, item: Item, cycle: Cycle) -> dict[str, Any]:
    """One cycle's statement (what its payment is to debit)."""
    rule = card_billing(dict(item["billing"]))
    (statement,) = _statements(store, ledger, item, _cycles(rule, cycle.month, cycle.month))
    return statement
