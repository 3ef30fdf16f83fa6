"""The daily job's work (recurring slips, card payments and points that lapse; for every ledger, the
receipts on no slip for a day swept; and the deletions whose run stopped, finished), through the due
index, or for one ledger on demand (`POST /jobs/run`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import errors, messages
from kakeibo.services import card_payments, lapses, recurrences
from kakeibo.services.common import TimeLeft, query_date
from kakeibo.services.scheduled import RunTally, out_of_time
from kakeibo.settings import today
from kakeibo.store import Store
from kakeibo.store.journal import LedgerGone
from kakeibo.store.recurrences import CARD_PAYMENT, DELETION, LAPSES, RECEIPT_SWEEP, RECURRENCE, Due


def post_due(store: Store, until: dt.date | None = None, *, time_left: TimeLeft | None = None) -> dict[str, Any]:
    """Post what is due in every ledger, found through the due index (no scan; a ledger with nothing
    due costs nothing). Stopped by time, the next run resumes: whatever is posted has left the
    index's due range."""
    tally = RunTally(until or today())
    if out_of_time(time_left):  # started too late to read even the index: the retry does it all
        tally.complete = False
        return {**tally.result(), "swept": 0}
    bound = tally.until.isoformat()
    store.recurrences.rekey_due()  # due items from before the shards move to theirs (none left: one Query)
    swept = 0  # receipts on no slip for a day, deleted
    for due in store.recurrences.due(bound):
        if out_of_time(time_left):
            tally.complete = False
            break
        try:
            swept += _due_work(store, due, bound, tally, time_left=time_left)
        except LedgerGone:
            continue  # the ledger is being deleted: its deletion removes this work with it
    return {**tally.result(), "swept": swept}


def _due_work(store: Store, due: Due, bound: str, tally: RunTally, *, time_left: TimeLeft | None) -> int:
    """One item of due work carried out: how many receipts it swept."""
    ledger = due.ledger
    if due.kind == CARD_PAYMENT:
        item = store.accounts.account(ledger, due.subject)
        if item is not None and item.get("next_payment") and item["next_payment"] <= bound:
            card_payments.run_card(store, ledger, item, tally, time_left=time_left)
    elif due.kind == LAPSES:
        lapses.run_lapses(store, ledger, due.subject, tally, time_left=time_left)
    elif due.kind == RECURRENCE:
        recurrences.run_due(store, ledger, due.subject, tally, time_left=time_left)
    elif due.kind == DELETION:  # a deletion whose run stopped (its lease expired): finished here
        from kakeibo.services import dataio  # noqa: PLC0415 - S3's client only when there is one to finish

        try:
            dataio.finish_deletion(store, ledger, time_left=time_left)
        except errors.ApiError:
            return 0  # still refused, or the bucket did not answer: it stays due, the next run tries again
    elif due.kind == RECEIPT_SWEEP:
        from kakeibo.services import receipts  # noqa: PLC0415 - S3's client only when there is one to sweep

        try:
            return int(receipts.sweep(store, ledger, due.subject, tally.until))
        except errors.StorageUnavailable:
            return 0  # the bucket did not answer: the receipt stays due, the next run sweeps it
    return 0


def run_ledger(
    store: Store, ledger: str, until: str | None, *, time_left: TimeLeft | None = None, lang: messages.Lang = "en"
) -> dict[str, Any]:
    """POST /jobs/run: what the daily job does, for this ledger, up to `until` (default today)."""
    tally = RunTally(query_date("until", until) if until else today())
    recurrences.run_ledger_recurrences(store, ledger, tally, time_left=time_left)
    card_payments.run_ledger_cards(store, ledger, tally, time_left=time_left)
    lapses.run_ledger_lapses(store, ledger, tally, time_left=time_left)
    _ledger_alerts(store, ledger)
    return tally.result(lang)


def _ledger_alerts(store: Store, ledger: str) -> None:
    """POST /jobs/run's alerts: what the daily job would raise for this ledger today."""
    from kakeibo.services import alerts_ahead  # noqa: PLC0415 - the forecast's modules only for the job

    alerts_ahead.raise_for(store, ledger, today())
