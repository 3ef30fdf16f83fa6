"""Credit cards: their statements (per billing cycle, from the rollups) and their payments, posted
once each by the daily job through the one slip create path (`core/billing.py` has the cycle arithmetic).

A statement's reads do not grow with the card's age: the card, its year items up to the first
cycle's year and its month items of the cycles' months (for its balance at each closing date), its
day items of the cycles' periods (charges, refunds, payments) and the payment slips of the cycles
(two BatchGetItems). The first three are sent at once.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core import billing
from kakeibo.core.billing import Cycle
from kakeibo.core.posting import UNCATEGORIZED, CategoryMonthItem, ItemKey, SubcategoryMonthItem
from kakeibo.core.recurrence import LAST_DAY, month_day
from kakeibo.models import check_month
from kakeibo.services.accounts import account_item, card_billing, card_eras, card_managed
from kakeibo.services.balances import Rollups, changes, rollup_reads, together
from kakeibo.services.common import TimeLeft
from kakeibo.services.postings import RunTally, kept_error, out_of_time, post, poster_for, same_error
from kakeibo.services.slips import list_slips
from kakeibo.settings import today
from kakeibo.store import (
    Bookkeeping,
    Item,
    ProgressConflict,
    Store,
    WriteContext,
    identity_sk,
    slip_sk,
)

MAX_MONTHS = 24
DEFAULT_MONTHS = 6
MAX_PAYMENTS_PER_RUN = 24  # cycles one run pays of one card (a card far behind catches up over runs)
PAYMENT_MEMO = "カード引き落とし"


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
        first = _months_before(last, DEFAULT_MONTHS - 1)
    first = _month("from", first)
    if first > last:
        raise errors.BadRequest("'from' is after 'to'")
    if _months_between(first, last) >= MAX_MONTHS:
        raise errors.BadRequest(f"at most {MAX_MONTHS} months per request")
    return {"account": account, "items": _statements(store, ledger, item, _cycles(rule, first, last))}


def _months_before(month: str, count: int) -> str:
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
            store.day_totals(
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
    moved = changes(store, ledger, [item], (start, end), Rollups(years, months))
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


def _payments(
    store: Store, ledger: str, item: Item, cycles: list[Cycle]
) -> tuple[dict[dt.date, billing.Payment], frozenset[dt.date]]:
    """The payment slips posted for the closing dates around `cycles` (those of the current billing
    and those paid under former ones), as they stand, and the closing dates whose payment was deleted."""
    account = str(item["id"])
    closings = billing.payment_closings(card_billing(dict(item["billing"])), cycles, card_eras(item))
    ids = {billing.payment_slip_id(account, closing): closing for closing in closings}
    identities = store.batch_get(ledger, [identity_sk(i) for i in ids])
    found = {slip_id: identities.get(identity_sk(slip_id)) for slip_id in ids}
    deleted = frozenset(ids[i] for i, identity in found.items() if identity is not None and identity.get("deleted"))
    live = {
        slip_sk(str(identity["date"]), slip_id): ids[slip_id]
        for slip_id, identity in found.items()
        if identity is not None and not identity.get("deleted")
    }
    slips = store.batch_get(ledger, list(live)) if live else {}
    payments = {
        closing: billing.Payment(closing, dt.date.fromisoformat(str(slips[sk]["date"])), int(slips[sk]["amount"]))
        for sk, closing in live.items()
        if sk in slips
    }
    return payments, deleted


# ---- payments --------------------------------------------------------------------------------


def run_card(store: Store, ledger: str, item: Item, tally: RunTally, *, time_left: TimeLeft | None = None) -> None:
    """Post the card's payments due by `tally.until`, in order, stopping at the first that fails
    (kept as last_error, tried again next run), then save how far it got."""
    if not item.get("billing") or not item.get("next_closing"):
        return
    rule = card_billing(dict(item["billing"]))
    account, version = str(item["id"]), int(item["version"])
    paid_through = item.get("paid_through")
    current = billing.cycle_of(rule, dt.date.fromisoformat(str(item["next_closing"])))
    error: dict[str, Any] | None = None
    poster = poster_for(ledger, item.get("billing_by"), "card_payment")
    for _ in range(MAX_PAYMENTS_PER_RUN):
        if current.payment_date > tally.until:
            break
        if out_of_time(time_left):
            tally.complete = False
            break
        error = _pay(store, poster, item, current, tally=tally)
        if error is not None:
            tally.failed.append(
                {"card": account, **{k: error[k] for k in ("date", "scheduled", "code", "detail", "context")}}
            )
            break
        paid_through = current.closing_date.isoformat()
        current = billing.following(rule, current)
    else:
        tally.complete = False
    old_error = json.loads(item["last_error"]) if item.get("last_error") else None
    if paid_through == item.get("paid_through") and same_error(error, old_error):
        return
    try:
        store.record_card_progress(
            Bookkeeping(ledger),
            account,
            version=version,
            paid_through=paid_through,
            next_closing=current.closing_date.isoformat(),
            next_payment=current.payment_date.isoformat(),
            last_error=json.dumps(error, ensure_ascii=False) if error else None,
        )
    except ProgressConflict:
        return  # billing edited or another run further on: the next run goes on from there


def _pay(
    store: Store, poster: WriteContext | None, item: Item, cycle: Cycle, *, tally: RunTally
) -> dict[str, Any] | None:
    """Post the cycle's payment unless it is posted; the error to keep if it cannot be written."""
    account = str(item["id"])
    if poster is None:
        return kept_error(
            cycle.payment_date,
            cycle.closing_date,
            "forbidden",
            "this card's billing has no member to pay as; set it again to pay as you",
        )
    slip_id = billing.payment_slip_id(account, cycle.closing_date)
    if store.get(poster.ledger, identity_sk(slip_id)) is not None:
        return None  # posted already (and perhaps edited or deleted since: never posted twice)
    rule = card_billing(dict(item["billing"]))
    (statement,) = _statements(store, poster.ledger, item, _cycles(rule, cycle.month, cycle.month))
    amount = statement["amount_due"]
    if amount <= 0:
        return None  # nothing owed: nothing to debit
    body = {
        "date": cycle.payment_date.isoformat(),
        "kind": "transfer",
        "amount": amount,
        "account": dict(item["billing"])["pay_from"],
        "to_account": account,
        "memo": f"{PAYMENT_MEMO} {cycle.closing_date.isoformat()}",
    }
    posted = post(
        store,
        poster,
        body,
        slip_id=slip_id,
        when=(cycle.payment_date, cycle.closing_date),
        revoked="the member this card pays as is no longer an editor; an editor can set its billing",
    )
    if posted is True:
        tally.posted += 1
        return None
    return posted or None


def run_ledger_cards(store: Store, ledger: str, tally: RunTally, *, time_left: TimeLeft | None = None) -> None:
    """Every card of the ledger with billing: its payments due by `tally.until`."""
    for item in store.accounts(ledger):
        if item.get("billing"):
            if out_of_time(time_left):
                tally.complete = False
                return
            run_card(store, ledger, item, tally, time_left=time_left)


# ---- reports on the payment basis --------------------------------------------------------------


@dataclass
class BasisShift:
    """What counting card spending in the month it is paid changes in a month's report: per category
    (and subcategory) and per card, income and expense to add (negative: to take away)."""

    categories: dict[ItemKey, dict[str, int]]
    accounts: dict[str, dict[str, int]]


def payment_basis(store: Store, ledger: str, month: str, cards: list[Item]) -> BasisShift:
    """The month's report moves each card's income and expense from the month they are dated in to
    the month of their cycle's payment: the card's slips dated in `month` leave it, those of the
    cycles paid in `month` join it. Reads each card's slips of those days (about two months)."""
    shift = BasisShift(defaultdict(lambda: {"income": 0, "expense": 0}), {})
    year, number = int(month[:4]), int(month[5:7])
    first_day = dt.date(year, number, 1)
    last_day = month_day(year, number, LAST_DAY)
    for card in cards:
        if not card.get("billing"):
            continue
        account, rule = str(card["id"]), card_billing(dict(card["billing"]))
        paid_now = [
            c for c in billing.cycles(rule, _months_before(month, 3), month) if first_day <= c.payment_date <= last_day
        ]
        ranges = [(first_day, last_day, -1)] + [(c.period_from, c.closing_date, 1) for c in paid_now]
        moved = shift.accounts.setdefault(account, {"income": 0, "expense": 0})
        for lo, hi, sign in ranges:
            for slip in _card_slips(store, ledger, account, lo, hi):
                for key, part in _category_parts(month, slip):
                    shift.categories[key][slip["kind"]] += sign * part
                moved[slip["kind"]] += sign * int(slip["amount"])
    return shift


def _card_slips(store: Store, ledger: str, account: str, lo: dt.date, hi: dt.date) -> Iterator[dict[str, Any]]:
    """The card's own income and expense slips dated lo..hi (transfers move no category)."""
    cursor: str | None = None
    while True:
        page, cursor = list_slips(
            store, ledger, date_from=lo.isoformat(), date_to=hi.isoformat(), account=account, limit=100, cursor=cursor
        )
        yield from (s for s in page if s["account"] == account and s["kind"] in ("income", "expense"))
        if not cursor:
            return


def _category_parts(month: str, slip: dict[str, Any]) -> Iterator[tuple[ItemKey, int]]:
    """Each line's (or the slip's) amount under its month x category and x subcategory keys."""
    lines = slip.get("lines") or [
        {
            "amount": slip["amount"],
            "category": slip.get("category") or UNCATEGORIZED,
            "subcategory": slip.get("subcategory"),
        }
    ]
    for line in lines:
        yield CategoryMonthItem(month, line["category"]), int(line["amount"])
        if line.get("subcategory"):
            yield SubcategoryMonthItem(month, line["category"], line["subcategory"]), int(line["amount"])
