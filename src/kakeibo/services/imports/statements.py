"""Card and bank statements meeting the ledger (§26): a bank row that is one of the ledger's own card
payments becomes the very transfer the daily job posts for that cycle (§13), never a second one; a
card's file is checked against the card's statement of its cycle. The reading is importformats'
(statement.py, issuers/); the rules are core/statements.py's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from kakeibo.core import billing
from kakeibo.core import statements as rules
from kakeibo.csvio import CsvFile
from kakeibo.importformats.statement import Statement
from kakeibo.models.slips import ImportRow
from kakeibo.services.accounts import card_billing
from kakeibo.services.card_payments import PAYMENT_MEMO
from kakeibo.services.cards import statement_of
from kakeibo.services.slips import slip_range
from kakeibo.store import Item, Store

MAX_DIFFERENCES = 200  # rows listed as differing from the card's statement (the counts cover them all)


def card_payments(
    store: Store, ledger: str, account: str, statement: Statement, file: CsvFile, *, accounts: dict[str, Item]
) -> list[dict[str, Any]]:
    """The bank rows of `file` that pay one of the ledger's cards (billed from `account`): each
    replaced, in `file`, by the card's payment of that cycle (its identity, a transfer `account` ->
    card of the amount the bank debited, the daily job's memo), so that it is created once whoever
    comes first, the daily job or this import. Returns what was recognised, by line."""
    if statement.kind != "bank":
        return []
    cards = [
        a
        for a in accounts.values()
        if a.get("type") == "credit" and (a.get("billing") or {}).get("pay_from") == account and not a.get("archived")
    ]
    if not cards:
        return []
    texts = {e.line: e.texts for e in statement.entries}
    names = {str(c["id"]): rules.debit_names(str(c["name"]), str(c["id"])) for c in cards}
    found: list[tuple[int, Item, billing.Cycle]] = []
    taken: set[tuple[str, dt.date]] = set()  # a cycle is paid by one row (a second debit is an expense)
    for index, row in enumerate(file.valid):
        if row.slip.kind != "expense":
            continue
        day = dt.date.fromisoformat(row.slip.date)
        for card in cards:
            cycle = rules.paying_cycle(card_billing(dict(card["billing"])), day)
            if cycle is None or (str(card["id"]), cycle.closing_date) in taken:
                continue
            if rules.names_card(texts.get(row.line, ()), names[str(card["id"])]):
                taken.add((str(card["id"]), cycle.closing_date))
                found.append((index, card, cycle))
                break
    if not found:
        return []
    ids = [billing.payment_slip_id(str(card["id"]), cycle.closing_date) for _, card, cycle in found]
    posted = _posted(store, ledger, ids)
    out = []
    for (index, card, cycle), slip_id in zip(found, ids, strict=True):
        row = file.valid[index]
        body = {
            "date": row.slip.date,
            "kind": "transfer",
            "amount": row.slip.amount,
            "account": account,
            "to_account": str(card["id"]),
            "memo": f"{PAYMENT_MEMO} {cycle.closing_date.isoformat()}",
            "payee": row.slip.payee,
            "imported_payee": row.slip.imported_payee,
        }
        file.valid[index] = replace(
            row, slip_id=slip_id, slip=ImportRow.model_validate({k: v for k, v in body.items() if v is not None})
        )
        existing = posted.get(slip_id)
        out.append(
            {
                "line": row.line,
                "card": str(card["id"]),
                "closing_date": cycle.closing_date.isoformat(),
                "payment_date": cycle.payment_date.isoformat(),
                "slip_id": slip_id,
                "amount": row.slip.amount,
                "posted_amount": None if existing is None else existing,
                "action": "already_posted" if slip_id in posted else "post",
            }
        )
    return out


def _posted(store: Store, ledger: str, ids: list[str]) -> dict[str, int | None]:
    """The payment slips that exist (or did: a deleted one is never posted again), by id -> amount."""
    read = store.slips.slips_by_id(ledger, ids)
    out: dict[str, int | None] = dict.fromkeys(read.identities)
    out.update({slip_id: int(slip["amount"]) for slip_id, slip in read.live.items()})
    return out


def check(
    store: Store,
    ledger: str,
    card: Item | None,
    statement: Statement,
    file: CsvFile,
    *,
    written: Mapping[str, Item] | None = None,
) -> dict[str, Any] | None:
    """A card's file against the card's own statement of the cycle it is (§13): whether the file's
    total equals the cycle's amount_due, and which rows differ. None for a bank's or IC card's
    file, or a card without billing (it has no cycles). `written`: the slips the import created in
    this request, by id, as written: they are not read back."""
    if statement.kind != "card" or card is None or not card.get("billing"):
        return None
    rule = card_billing(dict(card["billing"]))
    cycle = rules.statement_cycle(
        rule,
        payment_date=statement.payment_date,
        payment_month=statement.payment_month,
        dates=[e.date for e in statement.entries],
    )
    if cycle is None:
        return None
    account = str(card["id"])
    due = int(statement_of(store, ledger, card, cycle)["amount_due"])
    rows_total = sum(e.signed for e in statement.entries)
    file_total = statement.stated_total if statement.stated_total is not None else rows_total
    signed = {e.line: e.signed for e in statement.entries}
    file_rows = [rules.FileRow(r.line, r.slip_id, r.slip.date, signed.get(r.line, 0), r.slip.payee) for r in file.valid]
    held = _slips(store, ledger, [r.slip_id for r in file_rows], account, written or {})
    window, _ = slip_range(cycle.period_from.isoformat(), cycle.closing_date.isoformat(), None)
    in_cycle = [
        rules.LedgerSlip(str(item["id"]), str(item["date"]), _signed(item, account), item.get("payee"))
        for item in store.slips.slips_within(ledger, window)
        if item.get("account") == account
    ]
    differ = rules.differences(file_rows, held, in_cycle, cycle)
    return {
        "account": account,
        "closing_date": cycle.closing_date.isoformat(),
        "payment_date": cycle.payment_date.isoformat(),
        "period": {"from": cycle.period_from.isoformat(), "to": cycle.closing_date.isoformat()},
        "file_total": file_total,
        "rows_total": rows_total,
        "amount_due": due,
        "equal": file_total == due,
        "difference": file_total - due,
        "differing": len(differ),
        "differences": differ[:MAX_DIFFERENCES],
    }


def _signed(item: Item, account: str) -> int:
    """A slip's effect on what the card owes: a charge (an expense, or money moved out of it) +, a
    refund -."""
    amount = int(item["amount"])
    return -amount if item.get("kind") == "income" else amount


def _slips(
    store: Store, ledger: str, ids: list[str], account: str, written: Mapping[str, Item]
) -> dict[str, rules.LedgerSlip]:
    """The live slips of `ids`, as they are now: those just `written` as written, the others read."""
    out = {
        i: rules.LedgerSlip(i, str(item["date"]), _signed(item, account), item.get("payee"))
        for i in ids
        if (item := written.get(i)) is not None
    }
    ids = [i for i in ids if i not in out]
    if not ids:
        return out
    read = store.slips.slips_by_id(ledger, ids)
    return out | {
        slip_id: rules.LedgerSlip(slip_id, str(slip["date"]), _signed(slip, account), slip.get("payee"))
        for slip_id, slip in read.live.items()
    }
