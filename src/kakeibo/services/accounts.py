"""Accounts: create (under the ledger's limit), read, list, patch."""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.models import ACCOUNT_ID_RE, AccountCreate, AccountPatch
from kakeibo.services.common import check_version, now_iso
from kakeibo.store import (
    Item,
    Store,
    account_sk,
)

MAX_ACCOUNTS = 100


def account_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "name": item["name"],
        "type": item["type"],
        "opening_balance": int(item["opening_balance"]),
        "balance": int(item.get("balance", 0)),
        "allow_negative": bool(item.get("allow_negative", False)),
        "archived": bool(item.get("archived", False)),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def create_account(store: Store, who: str, body: AccountCreate, *, request_token: str | None = None) -> dict[str, Any]:
    count = len(store.account_ids(who))
    if count >= MAX_ACCOUNTS:
        raise errors.Conflict(f"a ledger holds at most {MAX_ACCOUNTS} accounts", limit=MAX_ACCOUNTS)
    stamp = now_iso()
    item = {
        "SK": account_sk(body.id),
        "type": body.type,
        "id": body.id,
        "name": body.name,
        "opening_balance": body.opening_balance,
        "balance": body.opening_balance,
        "allow_negative": body.negative_allowed,
        "archived": False,
        "version": 1,
        "created_at": stamp,
        "updated_at": stamp,
        "request_token": request_token,
    }
    try:
        store.create_account(who, item, counted=count, limit=MAX_ACCOUNTS)
    except errors.AlreadyExists:
        existing = store.get(who, account_sk(body.id))
        if request_token and existing and existing.get("request_token") == request_token:
            return account_view(existing)  # this very request, created before its answer was lost
        raise
    return account_view(item)


def get_account(store: Store, who: str, account: str) -> dict[str, Any]:
    item = store.get(who, account_sk(account)) if ACCOUNT_ID_RE.match(account) else None
    if item is None:
        raise errors.NotFound(f"account '{account}' not found")
    return account_view(item)


def list_accounts(store: Store, who: str) -> list[dict[str, Any]]:
    return [account_view(i) for i in store.accounts(who)]


def patch_account(store: Store, who: str, account: str, patch: AccountPatch, expected: int | None) -> dict[str, Any]:
    current = get_account(store, who, account)
    version = check_version(current["version"], expected)
    changes = patch.model_dump(exclude_unset=True)
    if all(current[k] == v for k, v in changes.items()):
        return current

    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound(f"account '{account}' not found")
        return errors.VersionMismatch(current=int(old["version"]), expected=version)

    updated = store.update_versioned(who, account_sk(account), {**changes, "updated_at": now_iso()}, version, fail)
    return account_view(updated)
