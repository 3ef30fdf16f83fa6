"""Accounts: create (under the ledger's limit), read, list, patch."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, NoReturn

from kakeibo import errors
from kakeibo.core.billing import Billing, Era, Former, Managed, cycle_of, preceding, rebill
from kakeibo.core.recurrence import LAST_DAY
from kakeibo.models.accounts import AccountCreate, AccountPatch
from kakeibo.models.base import ACCOUNT_ID_RE
from kakeibo.services.common import check_version, now_iso, on_current
from kakeibo.services.units import remember, unit_fields
from kakeibo.settings import today
from kakeibo.store import (
    ROLLUPS_MARK,
    Change,
    Item,
    Store,
    WriteContext,
)

MAX_ACCOUNTS = 100


def billing_view(value: Any) -> dict[str, Any] | None:
    """A card's billing as stored (numbers come back as Decimal), or None."""
    if not value:
        return None
    return {k: int(v) if k in NUMBERS and v != "last" else v for k, v in dict(value).items()}


NUMBERS = ("closing_day", "payment_day", "payment_month_offset")


def payments_view(item: Item) -> dict[str, Any] | None:
    if not item.get("billing") or not item.get("next_closing"):
        return None
    error = item.get("last_error")
    return {
        "next_closing": item["next_closing"],
        "next_payment": item["next_payment"],
        "paid_through": item.get("paid_through"),
        "last_error": {k: v for k, v in json.loads(error).items() if k != "context"} if error else None,
    }


def account_view(item: Item) -> dict[str, Any]:
    balance = int(item.get("balance", 0))
    cleared = int(item["opening_balance"]) + int(item.get("cleared", 0))  # the opening counts as cleared
    return {
        "id": item["id"],
        "name": item["name"],
        "type": item["type"],
        "opening_balance": int(item["opening_balance"]),
        "balance": balance,
        "cleared_balance": cleared,
        "uncleared_balance": balance - cleared,
        "allow_negative": bool(item.get("allow_negative", False)),
        "archived": bool(item.get("archived", False)),
        "billing": billing_view(item.get("billing")),
        "payments": payments_view(item),
        **unit_fields(item),
        "low_balance": None if item.get("low_balance") is None else int(item["low_balance"]),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def account_record(item: Item | None) -> dict[str, Any] | None:
    """An account as the journal keeps it: its definition (its balance is what its slips make it)."""
    if item is None:
        return None
    view = account_view(item)
    del view["balance"], view["cleared_balance"], view["uncleared_balance"], view["payments"]
    return view


def account_change(before: Item | None, after: Item | None) -> Change:
    old, new = account_record(before), account_record(after)
    return Change.between("account", str((new or old or {})["id"]), old, new)


def create_account(
    store: Store, ctx: WriteContext, body: AccountCreate, *, request_token: str | None = None
) -> dict[str, Any]:
    ledger = ctx.ledger
    count = len(store.accounts.account_ids(ledger))
    if count >= MAX_ACCOUNTS:
        raise errors.LimitReached(f"a ledger holds at most {MAX_ACCOUNTS} accounts", limit=MAX_ACCOUNTS)
    stamp = now_iso()
    billing = body.billing.model_dump() if body.billing else None
    schedule = billing_schedule(store, ledger, body.id, body.type, billing, paid_through=None) if billing else {}
    item = {
        "type": body.type,
        "id": body.id,
        "name": body.name,
        "opening_balance": body.opening_balance,
        "balance": body.opening_balance,
        "allow_negative": body.negative_allowed,
        "archived": False,
        "billing": billing,
        "billing_by": ctx.actor if billing else None,
        **schedule,
        "unit": body.unit,
        "point_value": (body.point_value or 1) if body.unit == "points" else None,
        "program": body.program,
        "low_balance": body.low_balance,
        ROLLUPS_MARK: True,  # its month and year items hold every slip from the start
        "version": 1,
        "created_at": stamp,
        "updated_at": stamp,
        "request_token": request_token,
    }
    try:
        store.accounts.create_account(
            ctx, item, counted=count, limit=MAX_ACCOUNTS, changes=[account_change(None, item)]
        )
    except errors.AlreadyExists:
        existing = store.accounts.account(ledger, body.id)
        if request_token and existing and existing.get("request_token") == request_token:
            return account_view(existing)  # this very request, created before its answer was lost
        raise
    remember(ledger, item)
    return account_view(item)


def account_item(store: Store, ledger: str, account: str) -> Item:
    """The stored account item (404 when the ledger has none by that id)."""
    item = store.accounts.account(ledger, account) if ACCOUNT_ID_RE.match(account) else None
    if item is None:
        raise errors.NotFound(f"account '{account}' not found")
    return item


def get_account(store: Store, ledger: str, account: str) -> dict[str, Any]:
    return account_view(account_item(store, ledger, account))


def list_accounts(store: Store, ledger: str) -> list[dict[str, Any]]:
    return [account_view(i) for i in store.accounts.accounts(ledger)]


def patch_account(
    store: Store, ctx: WriteContext, account: str, patch: AccountPatch, expected: int | None
) -> dict[str, Any]:
    fields = patch.model_dump(exclude_unset=True)

    def attempt() -> dict[str, Any]:
        current = account_item(store, ctx.ledger, account)
        check_version(int(current["version"]), expected)
        return change_account(store, ctx, current, fields, expected=expected)

    return on_current(attempt)


def change_account(
    store: Store,
    ctx: WriteContext,
    current: Item,
    fields: dict[str, Any],
    *,
    expected: int | None,
    undoes: int | None = None,
) -> dict[str, Any]:
    """The one change path of an account (as read): its fields set, its version bumped, journaled."""
    view = account_view(current)
    if all(view[k] == v for k, v in fields.items()):
        return view
    account, version = str(current["id"]), int(current["version"])
    fields = _unit_change(store, ctx.ledger, current, fields)
    if fields.get("low_balance") is not None and current["type"] == "credit":
        raise errors.ValidationFailed(
            "low_balance is not for credit accounts",
            errors=[{"loc": ["body", "low_balance"], "msg": "low_balance is not for credit accounts"}],
        )
    if "billing" in fields:  # a new billing: its payments go on from the last one paid
        schedule = billing_schedule(
            store, ctx.ledger, account, current["type"], fields["billing"], paid_through=current.get("paid_through"),
            previous=current,
        )  # fmt: skip
        fields = {**fields, **schedule, "last_error": None, "billing_by": ctx.actor if fields["billing"] else None}

    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound(f"account '{account}' not found")
        if expected is None:
            return errors.ReadAgain()
        return errors.VersionMismatch(current=int(old["version"]), expected=expected)

    stamp = now_iso()
    updated = {**current, **fields, "updated_at": stamp, "version": version + 1}
    store.accounts.change_account(
        ctx,
        account,
        {**fields, "updated_at": stamp},
        expected=version,
        on_fail=fail,
        changes=[account_change(current, updated)],
        at=stamp,
        undoes=undoes,
    )
    remember(ctx.ledger, updated)
    return account_view(updated)


def _unit_change(store: Store, ledger: str, current: Item, fields: dict[str, Any]) -> dict[str, Any]:
    """A change of the account's unit, point value or program, checked against the account as
    stored: a unit changes only while the account has no opening balance and no slips (their amounts
    are in it: a new unit would read them as amounts of its own); point value and program belong to
    points accounts."""
    unit = fields.get("unit", unit_fields(current)["unit"])
    if unit != "points":
        for name in ("point_value", "program"):
            if fields.get(name) is not None:
                message = f"{name} is only for points accounts"
                raise errors.ValidationFailed(message, errors=[{"loc": ["body", name], "msg": message}])
    if "unit" not in fields or unit == unit_fields(current)["unit"]:
        return fields
    account = str(current["id"])
    opening = int(current.get("opening_balance") or 0)
    if opening:
        was = unit_fields(current)["unit"]
        raise errors.UnitInUse(
            f"the unit of account '{account}' cannot change: its opening balance ({opening}) is in {was}",
            account=account,
            opening_balance=opening,
        )
    if store.balances.account_has_slips(ledger, account):
        raise errors.UnitInUse(f"the unit of account '{account}' cannot change: it has slips", account=account)
    if unit == "points":
        return {**fields, "point_value": fields.get("point_value") or 1}
    return {**fields, "point_value": None, "program": None}


def billing_schedule(
    store: Store,
    ledger: str,
    account: str,
    kind: str,
    billing: dict[str, Any] | None,
    *,
    paid_through: str | None,
    previous: Item | None = None,
) -> dict[str, Any]:
    """The payment schedule a card's billing gives (all None when billing is removed), once the
    billing is known to be allowed: on a credit card, paid from an open bank account of the ledger.

    `previous` is the card as it was, when its billing changes: the billing it had becomes a former
    one (an era) for the closing dates paid under it, so that those payments count by their own dates
    under the new billing; `payments_from` (the first cycle ever paid here) and `outside_through`
    (what was paid before the first billing) are kept from the first billing."""
    if billing is None:
        return {"next_closing": None, "next_payment": None, "paid_through": None, "payments_from": None,
                "billing_from": None, "outside_through": None, "billing_eras": None}  # fmt: skip
    if kind != "credit":
        _refuse("billing", "billing is only for credit accounts")
    source = billing["pay_from"]
    found = store.accounts.account(ledger, source) if source != account else None
    if found is None or found.get("archived"):
        _refuse("pay_from", f"account '{source}' {'is archived' if found else 'does not exist'}")
    elif found["type"] != "bank":
        _refuse("pay_from", f"account '{source}' is not a bank account")
    rule = card_billing(billing)
    old = (previous or {}).get("billing")
    former = None
    if previous is not None and old and previous.get("next_closing"):
        former = Former(card_billing(dict(old)), card_managed(previous), tuple(card_eras(previous)))
    first, managed, eras = rebill(rule, today(), dt.date.fromisoformat(paid_through) if paid_through else None, former)
    return {
        "next_closing": first.closing_date.isoformat(),
        "next_payment": first.payment_date.isoformat(),
        "paid_through": paid_through,
        "payments_from": (previous or {}).get("payments_from") if former else first.closing_date.isoformat(),
        "billing_from": first.closing_date.isoformat(),
        "outside_through": managed.outside_through.isoformat() if managed.outside_through else None,
        "billing_eras": [_era_record(era) for era in eras] or None,
    }


def _era_record(era: Era) -> dict[str, Any]:
    rule = era.billing
    return {
        "closing_day": "last" if rule.closing_day == LAST_DAY else rule.closing_day,
        "payment_day": "last" if rule.payment_day == LAST_DAY else rule.payment_day,
        "payment_month_offset": rule.payment_month_offset,
        "shift": rule.shift,
        "first": era.first.isoformat(),
        "last": era.last.isoformat(),
    }


def card_eras(item: Item) -> list[Era]:
    """The card's former billings and the closing dates paid under each."""
    return [
        Era(card_billing(dict(era)), dt.date.fromisoformat(str(era["first"])), dt.date.fromisoformat(str(era["last"])))
        for era in item.get("billing_eras") or []
    ]


def card_managed(item: Item) -> Managed:
    """Which cycles of the card's current billing are paid here (cards stored before `billing_from`
    and `outside_through` were kept had one billing since `payments_from`)."""

    def day(name: str) -> dt.date | None:
        value = item.get(name)
        return dt.date.fromisoformat(str(value)) if value else None

    begun, outside = day("billing_from") or day("payments_from"), day("outside_through")
    if outside is None and begun is not None and item.get("billing"):
        rule = card_billing(dict(item["billing"]))
        outside = preceding(rule, cycle_of(rule, begun)).closing_date
    return Managed(billing_from=begun, outside_through=outside, paid_through=day("paid_through"))


def card_billing(billing: dict[str, Any]) -> Billing:
    """The pure billing rule of a stored or requested billing."""

    def day(value: Any) -> int:
        return LAST_DAY if value == "last" else int(value)

    return Billing(
        closing_day=day(billing["closing_day"]),
        payment_day=day(billing["payment_day"]),
        payment_month_offset=int(billing.get("payment_month_offset", 1)),
        shift=billing.get("shift", "none"),
    )


def _refuse(field: str, message: str) -> NoReturn:
    raise errors.ValidationFailed(message, errors=[{"loc": ["body", "billing", field], "msg": message}])
