"""Card and bank statements meeting the ledger (§26): a bank row that is one of the ledger's own card
payments becomes the very transfer the daily job posts for that cycle (§13), never a second one. The
reading is importformats' (statement.py, issuers/); the rules are core/statements.py's.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from kakeibo.core import billing
from kakeibo.core import statements as rules
from kakeibo.csvio import CsvFile
from kakeibo.importformats.statement import Statement
from kakeibo.models import ImportRow
from kakeibo.services.accounts import card_billing
from kakeibo.services.card_payments import PAYMENT_MEMO
from kakeibo.store import Item, Store, identity_sk, slip_sk


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
    for index, row in enumerate(file.valid):
        if row.slip.kind != "expense":
            continue
        day = dt.date.fromisoformat(row.slip.date)
        for card in cards:
            cycle = rules.paying_cycle(card_billing(dict(card["billing"])), day)
            if cycle is not None and rules.names_card(texts.get(row.line, ()), names[str(card["id"])]):
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
    identities = store.batch_get(ledger, [identity_sk(i) for i in ids])
    found = {i: identities[identity_sk(i)] for i in ids if identity_sk(i) in identities}
    live = {slip_sk(str(v["date"]), i): i for i, v in found.items() if not v.get("deleted")}
    slips = store.batch_get(ledger, list(live)) if live else {}
    out: dict[str, int | None] = dict.fromkeys(found)
    for sk, slip_id in live.items():
        if sk in slips:
            out[slip_id] = int(slips[sk]["amount"])
    return out
