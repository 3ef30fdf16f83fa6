"""Savings goals (目標貯金): create, read, list, change, delete (ETag / If-Match), each answered with
its progress (core/goals.py) — what the account holds now and, for a goal with a day, what it needs
each month and whether the forecast (services/forecast.py) reaches it.

A read of goals costs the goals (one Query), the accounts they name and, when any has a day, one
forecast up to the latest day (at most a year ahead; past it, the year's pace is carried on).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kakeibo import errors
from kakeibo.core import goals
from kakeibo.core.ids import derived_id, new_slip_id
from kakeibo.models.goals import GoalIn, GoalPatch
from kakeibo.services import forecast
from kakeibo.services.accounts import account_item
from kakeibo.services.common import check_version, now_iso, on_current, valid_id
from kakeibo.settings import today
from kakeibo.store import Item, Store, WriteContext

MAX_GOALS = 50


def _read(store: Store, ledger: str, goal_id: str) -> Item:
    item = store.goals.goal(ledger, goal_id) if valid_id(goal_id) else None
    if item is None:
        raise errors.NotFound("goal not found")
    return item


def _account(store: Store, ledger: str, account: str) -> Item:
    """The goal's account, of this ledger (404 when it has none by that id: another's is not named)."""
    return account_item(store, ledger, account)


def create_goal(
    store: Store, ctx: WriteContext, body: GoalIn, *, goal_id: str | None = None, request_token: str | None = None
) -> dict[str, Any]:
    ledger = ctx.ledger
    if store.goals.goal_count(ledger) >= MAX_GOALS:
        raise errors.LimitReached(f"a ledger holds at most {MAX_GOALS} goals", limit=MAX_GOALS)
    _account(store, ledger, body.account)
    goal_id = goal_id or (derived_id(f"goal\n{request_token}") if request_token else new_slip_id())
    stamp = now_iso()
    item: Item = {
        "type": "goal",
        "id": goal_id,
        **body.model_dump(),
        "version": 1,
        "created_at": stamp,
        "updated_at": stamp,
        "created_by": ctx.actor,
        "request_token": request_token,
    }
    try:
        store.goals.insert_goal(ctx, item)
    except errors.AlreadyExists:
        existing = store.goals.goal(ledger, goal_id)
        if request_token and existing is not None and existing.get("request_token") == request_token:
            item = existing  # this very request, made before its answer was lost
        else:
            raise
    return _views(store, ledger, [item])[0]


def get_goal(store: Store, ledger: str, goal_id: str) -> dict[str, Any]:
    return _views(store, ledger, [_read(store, ledger, goal_id)])[0]


def list_goals(store: Store, ledger: str) -> list[dict[str, Any]]:
    return _views(store, ledger, sorted(store.goals.goals(ledger), key=lambda g: (str(g["created_at"]), str(g["id"]))))


def patch_goal(
    store: Store, ctx: WriteContext, goal_id: str, patch: GoalPatch, *, expected: int | None
) -> dict[str, Any]:
    fields = patch.model_dump(exclude_unset=True)

    def attempt() -> dict[str, Any]:
        current = _read(store, ctx.ledger, goal_id)
        version = check_version(int(current["version"]), expected)
        if all(current.get(k) == v for k, v in fields.items()):
            return _views(store, ctx.ledger, [current])[0]
        if "account" in fields:
            _account(store, ctx.ledger, str(fields["account"]))
        stamp = now_iso()
        changed = {**fields, "updated_at": stamp, "updated_by": ctx.actor}
        try:
            store.goals.change_goal(ctx, goal_id, changed, expected=version)
        except errors.VersionMismatch:
            if expected is None:
                raise errors.ReadAgain() from None
            raise
        updated = {k: v for k, v in {**current, **changed, "version": version + 1}.items() if v is not None}
        return _views(store, ctx.ledger, [updated])[0]

    return on_current(attempt)


def delete_goal(store: Store, ctx: WriteContext, goal_id: str, *, expected: int | None) -> None:
    def attempt() -> None:
        current = _read(store, ctx.ledger, goal_id)
        version = check_version(int(current["version"]), expected)
        try:
            store.goals.delete_goal(ctx, goal_id, expected=version)
        except errors.VersionMismatch:
            if expected is None:
                raise errors.ReadAgain() from None
            raise

    on_current(attempt)


def _views(store: Store, ledger: str, items: list[Item]) -> list[dict[str, Any]]:
    """The goals with their progress: the accounts' balances now, and one forecast up to the latest
    day any of them has (a year ahead at most)."""
    if not items:
        return []
    now = today()
    balances = {str(a["id"]): int(a.get("balance", 0)) for a in store.accounts.accounts(ledger)}
    days = [dt.date.fromisoformat(str(i["by"])) for i in items if i.get("by")]
    ahead = [day for day in days if day >= now]
    projected: dict[str, Any] = {}
    horizon = now
    if ahead:
        horizon = min(max(ahead), forecast.months_ahead(now, 12))
        projected = forecast.project(store, ledger, now, horizon).found
    out = []
    for item in items:
        account = str(item["account"])
        by = dt.date.fromisoformat(str(item["by"])) if item.get("by") else None
        found = projected.get(account)
        on_by = None
        if by is not None and by >= now and found is not None:
            on_by = found.balance_on(min(by, horizon))
            if by > horizon > now:  # past a year ahead: the year's pace carried on
                on_by = found.balance + (on_by - found.balance) * (by - now).days // (horizon - now).days
        state = goals.progress(int(item["target"]), balances.get(account, 0), by, now, on_by)
        out.append(
            {
                "id": item["id"],
                "name": item["name"],
                "target": int(item["target"]),
                "by": item.get("by"),
                "account": account,
                "saved": state.saved,
                "remaining": state.remaining,
                "months_left": state.months_left,
                "monthly_needed": state.monthly_needed,
                "projected": on_by,
                "on_track": state.on_track,
                "version": int(item["version"]),
                "created_at": item["created_at"],
                "updated_at": item["updated_at"],
            }
        )
    return out
