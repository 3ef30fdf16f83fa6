"""Credit cards' payments: each cycle's amount due posted once, on its payment date, by the daily job
through the one slip create path, as a transfer from the card's bank account (an id derived from
(card, closing date): whatever posts it twice, it is one slip).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from kakeibo.core import billing
from kakeibo.core.billing import Cycle
from kakeibo.services.accounts import card_billing
from kakeibo.services.cards import statement_of
from kakeibo.services.common import TimeLeft
from kakeibo.services.scheduled import RunTally, kept_error, out_of_time, post, poster_for, same_error
from kakeibo.store import Bookkeeping, Item, Store, WriteContext
from kakeibo.store.recurrences import ProgressConflict

MAX_PAYMENTS_PER_RUN = 24  # cycles one run pays of one card (a card far behind catches up over runs)
PAYMENT_MEMO = "カード引き落とし"


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
        store.cards.record_card_progress(
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
    if store.slips.slip_identity(poster.ledger, slip_id) is not None:
        return None  # posted already (and perhaps edited or deleted since: never posted twice)
    amount = statement_of(store, poster.ledger, item, cycle)["amount_due"]
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
    for item in store.accounts.accounts(ledger):
        if item.get("billing"):
            if out_of_time(time_left):
                tally.complete = False
                return
            run_card(store, ledger, item, tally, time_left=time_left)
