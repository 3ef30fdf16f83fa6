"""Use cases: what each API operation does, in terms of ledger.py (pure) and store.py (DynamoDB).

No HTTP here: routes parse requests and format responses; this module decides and writes.
"""

from __future__ import annotations

import datetime as dt
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from kakeibo import errors, ledger
from kakeibo.idempotency import derived_id
from kakeibo.ledger import Entry, ItemKey
from kakeibo.models import ACCOUNT_ID_RE, AccountCreate, AccountPatch, BudgetIn, SlipIn, check_month, parse_date
from kakeibo.store import (
    LEDGER_LOCK,
    Item,
    Store,
    TxOp,
    account_sk,
    day_sk,
    decode_cursor,
    derived_key,
    encode_cursor,
    month_prefix,
    slip_sk,
)

MAX_ACCOUNTS = 100
MAX_HISTORY_DAYS = 1830
SLIP_FIELDS = ("date", "kind", "amount", "account", "to_account", "category", "subcategory", "memo")


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_slip_id() -> str:
    """A ULID: 26 characters, time-ordered, so slips of one day list in creation order."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def new_token() -> str:
    return str(uuid.uuid4())


# ---- accounts ---------------------------------------------------------------------------------


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
    count = sum(1 for _ in store.query(who, begins_with="ACCOUNT#", projection="SK"))
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
        # Never while a rebuild holds the ledger: slips on an account it has not fenced could interleave.
        store.transact(
            [
                store.put_op(
                    who,
                    item,
                    "attribute_not_exists(SK)",
                    lambda old: errors.AlreadyExists(f"account '{body.id}' already exists", id=body.id),
                ),
                store.lock_free_op(who, LEDGER_LOCK),
            ]
        )
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
    return [account_view(i) for i in store.query(who, begins_with="ACCOUNT#", consistent=True)]


def patch_account(store: Store, who: str, account: str, patch: AccountPatch, expected: int | None) -> dict[str, Any]:
    current = get_account(store, who, account)
    version = current["version"] if expected is None else expected
    if current["version"] != version:
        raise errors.VersionMismatch(current=current["version"], expected=version)
    changes = patch.model_dump(exclude_unset=True)
    if all(current[k] == v for k, v in changes.items()):
        return current

    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound(f"account '{account}' not found")
        return errors.VersionMismatch(current=int(old["version"]), expected=version)

    updated = store.update_versioned(who, account_sk(account), {**changes, "updated_at": now_iso()}, version, fail)
    return account_view(updated)


# ---- slips ------------------------------------------------------------------------------------


def slip_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "no": int(item["no"]),
        "date": item["date"],
        "kind": item["kind"],
        "amount": int(item["amount"]),
        "account": item["account"],
        "to_account": item.get("to_account"),
        "category": item.get("category"),
        "subcategory": item.get("subcategory"),
        "memo": item.get("memo"),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def entry_of(item: Item) -> Entry:
    return Entry(
        date=item["date"],
        kind=item["kind"],
        amount=int(item["amount"]),
        account=item["account"],
        to_account=item.get("to_account"),
        category=item.get("category"),
        subcategory=item.get("subcategory"),
    )


def _account_refusal(entry: Entry, problem: str) -> Callable[[str], errors.ApiError]:
    """The 422 for an account a slip names that does not exist or is archived, on the right field."""

    def fail(account: str) -> errors.ApiError:
        field = "to_account" if account == entry.to_account and account != entry.account else "account"
        message = f"account '{account}' {problem}"
        return errors.ValidationFailed(message, errors=[{"loc": ["body", field], "msg": message}])

    return fail


def _missing_account(entry: Entry) -> Callable[[str], errors.ApiError]:
    return _account_refusal(entry, "does not exist")


def _archived_account(entry: Entry) -> Callable[[str], errors.ApiError]:
    return _account_refusal(entry, "is archived")


def _slip_item(body: SlipIn, entry: Entry, **meta: Any) -> Item:
    item: Item = {
        "SK": slip_sk(body.date, meta["id"]),
        "type": "slip",
        "date": body.date,
        "kind": body.kind,
        "amount": body.amount,
        "account": body.account,
        "to_account": body.to_account,
        "category": entry.category,
        "memo": body.memo,
    }
    if body.subcategory is not None:  # absent, not null: slips written before subcategories look alike
        item["subcategory"] = body.subcategory
    item.update(meta)
    return item


def create_slip(
    store: Store,
    who: str,
    body: SlipIn,
    *,
    slip_id: str | None = None,
    request_token: str | None = None,
) -> dict[str, Any]:
    """One transaction: the slip and every balance it moves.

    With a request token (from an Idempotency-Key) the slip id derives from it, and the token goes to
    DynamoDB: a repeat of this very request finds its slip instead of making a second one.
    """
    entry = body.entry()
    plan = ledger.plan(None, entry)
    if request_token:
        slip_id = slip_id or derived_id(request_token)
    slip_id = slip_id or new_slip_id()
    stamp = now_iso()
    item = _slip_item(
        body,
        entry,
        id=slip_id,
        no=store.next_number(who),
        version=1,
        created_at=stamp,
        updated_at=stamp,
        request_token=request_token,
    )
    ops = [
        store.put_op(
            who,
            item,
            "attribute_not_exists(SK)",
            lambda old: errors.AlreadyExists(f"slip '{slip_id}' already exists", id=slip_id),
        )
    ]
    ops += store.balance_ops(
        who,
        plan,
        active_accounts=frozenset(ledger.accounts_touched(entry)),
        missing_account=_missing_account(entry),
        archived_account=_archived_account(entry),
    )
    try:
        store.transact(ops, request_token or new_token())
    except (errors.AlreadyExists, errors.IdempotencyKeyReused):
        if not request_token:
            raise
        existing = store.get(who, slip_sk(body.date, slip_id))
        if existing is not None and existing.get("request_token") == request_token:
            return slip_view(existing)  # committed by an earlier attempt whose answer was lost
        if existing is not None:
            raise
        # the token was spent on an attempt that did not commit: this one goes under a fresh token
        store.transact(ops, new_token())
    return slip_view(item)


def get_slip(store: Store, who: str, date: str, slip_id: str) -> dict[str, Any]:
    return slip_view(_read_slip(store, who, date, slip_id))


def _read_slip(store: Store, who: str, date: str, slip_id: str) -> Item:
    item = store.get(who, slip_sk(date, slip_id)) if _valid_key(date, slip_id) else None
    if item is None:
        raise errors.NotFound("slip not found")
    return item


def _valid_key(date: str, slip_id: str) -> bool:
    try:
        parse_date(date)
    except ValueError:
        return False
    return 1 <= len(slip_id) <= 64 and slip_id.isascii() and slip_id.isalnum()


def merge_patch(current: Item, patch: dict[str, Any]) -> SlipIn:
    """RFC 7396 over the slip's fields, then validated as a whole slip."""
    merged = {k: current.get(k) for k in SLIP_FIELDS}
    merged.update(patch)
    if merged.get("kind") == "transfer" and "kind" in patch and "category" not in patch:
        merged["category"] = None  # turning into a transfer drops the category
    if "category" in patch and "subcategory" not in patch and patch["category"] != current.get("category"):
        merged["subcategory"] = None  # a subcategory belongs to its category
    if merged.get("category") is None:
        merged["subcategory"] = None
    if merged.get("kind") != "transfer" and "kind" in patch and "to_account" not in patch:
        merged["to_account"] = None
    clean = {k: v for k, v in merged.items() if v is not None}
    try:
        return SlipIn.model_validate(clean)
    except ValidationError as exc:
        raise errors.ValidationFailed(
            "the patched slip is not valid", errors=validation_errors(exc, prefix="body")
        ) from exc


def validation_errors(exc: ValidationError, prefix: str) -> list[dict[str, Any]]:
    return [
        {"loc": [prefix, *[str(p) for p in e["loc"]]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


def update_slip(
    store: Store,
    who: str,
    date: str,
    slip_id: str,
    *,
    expected: int | None,
    body: SlipIn | None = None,
    patch: dict[str, Any] | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """PUT (body) or PATCH (patch): one transaction; a new date moves the slip to a new key."""
    current = _read_slip(store, who, date, slip_id)
    version = int(current["version"])
    expect = version if expected is None else expected
    if version != expect:
        raise errors.VersionMismatch(
            f"the slip is at version {version}, not {expect}", current=version, expected=expect
        )
    new = body if body is not None else merge_patch(current, patch or {})
    old_entry, new_entry = entry_of(current), new.entry()
    unchanged = old_entry == new_entry and current.get("memo") == new.memo
    if unchanged:
        return slip_view(current)
    plan = ledger.plan(old_entry, new_entry)
    item = _slip_item(
        new,
        new_entry,
        id=slip_id,
        no=current["no"],
        version=version + 1,
        created_at=current["created_at"],
        updated_at=now_iso(),
    )
    for extra in ("import_id", "request_token"):
        if extra in current:
            item[extra] = current[extra]

    def stale(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound("slip not found")
        return errors.VersionMismatch(current=int(old["version"]), expected=expect)

    version_cond = {"names": {"#ver": "version"}, "values": {":expected": expect}}
    ops: list[TxOp]
    if plan.op == "update":
        ops = [store.put_op(who, item, "#ver = :expected", stale, **version_cond)]
    else:
        ops = [
            store.delete_op(who, current["SK"], "#ver = :expected", stale, **version_cond),
            store.put_op(
                who,
                item,
                "attribute_not_exists(SK)",
                lambda old: errors.AlreadyExists("a slip already exists at the new key"),
            ),
        ]
    newly_named = set(ledger.accounts_touched(new_entry)) - set(ledger.accounts_touched(old_entry))
    ops += store.balance_ops(
        who,
        plan,
        active_accounts=frozenset(newly_named),
        missing_account=_missing_account(new_entry),
        archived_account=_archived_account(new_entry),
    )
    store.transact(ops, token or new_token())
    return slip_view(item)


def delete_slip(
    store: Store, who: str, date: str, slip_id: str, *, expected: int | None, token: str | None = None
) -> None:
    current = _read_slip(store, who, date, slip_id)
    version = int(current["version"])
    expect = version if expected is None else expected
    if version != expect:
        raise errors.VersionMismatch(
            f"the slip is at version {version}, not {expect}", current=version, expected=expect
        )
    old_entry = entry_of(current)
    plan = ledger.plan(old_entry, None)

    def stale(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound("slip not found")
        return errors.VersionMismatch(current=int(old["version"]), expected=expect)

    ops = [
        store.delete_op(
            who,
            current["SK"],
            "#ver = :expected",
            stale,
            names={"#ver": "version"},
            values={":expected": expect},
        )
    ]
    ops += store.balance_ops(
        who,
        plan,
        missing_account=_missing_account(old_entry),
        archived_account=_archived_account(old_entry),
    )
    store.transact(ops, token or new_token())


def slip_range(date_from: str | None, date_to: str | None, cursor: str | None) -> tuple[str, str, str | None]:
    """The SK range of the slips dated from..to, and where a cursor resumes inside it."""
    for name, value in (("from", date_from), ("to", date_to)):
        if value is not None:
            query_date(name, value)
    lo = f"SLIP#{date_from or '0000-00-00'}#"
    hi = f"SLIP#{date_to or '9999-99-99'}#~"
    if lo > hi:
        raise errors.BadRequest("'from' is after 'to'")
    start = None
    if cursor:
        payload = decode_cursor(cursor)
        start = payload.get("sk")
        if not (isinstance(start, str) and start.startswith("SLIP#") and lo <= start <= hi):
            raise errors.BadRequest("invalid cursor")
    return lo, hi, start


def list_slips(
    store: Store,
    who: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    account: str | None = None,
    category: str | None = None,
    kind: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    lo, hi, start = slip_range(date_from, date_to, cursor)
    filters, names, values = [], {}, {}
    if account:
        filters.append("(#acc = :acc OR #to = :acc)")
        names.update({"#acc": "account", "#to": "to_account"})
        values[":acc"] = account
    if category:
        filters.append("#cat = :cat")
        names["#cat"] = "category"
        values[":cat"] = category
    if kind:
        filters.append("#kind = :kind")
        names["#kind"] = "kind"
        values[":kind"] = kind
    items: list[Item] = []
    for item in store.query(
        who,
        between=(lo, hi),
        forward=False,
        filter_expression=" AND ".join(filters) or None,
        names=names or None,
        values=values or None,
        start_sk=start,
        page_size=100 if filters else limit + 1,
    ):
        items.append(item)
        if len(items) > limit:
            break
    next_cursor = None
    if len(items) > limit:
        items = items[:limit]
        next_cursor = encode_cursor({"sk": items[-1]["SK"]})
    return [slip_view(i) for i in items], next_cursor


# ---- balances and reports ---------------------------------------------------------------------


def _account_ids(store: Store, who: str) -> list[str]:
    return [i["SK"].removeprefix("ACCOUNT#") for i in store.query(who, begins_with="ACCOUNT#", projection="SK")]


def balances(store: Store, who: str, as_of: str | None = None) -> dict[str, Any]:
    if as_of is None:
        ids = _account_ids(store, who)
        snapshot = store.transact_get(who, [account_sk(a) for a in ids])
        items = [{"account": item["id"], "balance": int(item.get("balance", 0))} for item in snapshot if item]
        return {"date": None, "items": items}
    out = []
    # One Query gives every account's opening balance; then one Query of day totals per account.
    names = {"#ob": "opening_balance"}
    accounts = store.query(who, begins_with="ACCOUNT#", projection="SK, #ob", names=names)
    for acct in accounts:
        account = acct["SK"].removeprefix("ACCOUNT#")
        total = int(acct["opening_balance"])
        for day in store.query(
            who,
            between=(day_sk(account, "0000-00-00"), day_sk(account, as_of)),
            projection="#d",
            names={"#d": "delta"},
        ):
            total += int(day.get("delta", 0))
        out.append({"account": account, "balance": total})
    return {"date": as_of, "items": out}


def history(store: Store, who: str, account: str, date_from: str, date_to: str) -> dict[str, Any]:
    start, end = query_date("from", date_from), query_date("to", date_to)
    if start > end:
        raise errors.BadRequest("'from' is after 'to'")
    if (end - start).days >= MAX_HISTORY_DAYS:
        raise errors.BadRequest(f"at most {MAX_HISTORY_DAYS} days per request")
    acct = get_account(store, who, account)
    balance = acct["opening_balance"]
    deltas: dict[str, int] = {}
    for day in store.query(
        who,
        between=(day_sk(account, "0000-00-00"), day_sk(account, date_to)),
        projection="#d, #dt",
        names={"#d": "delta", "#dt": "date"},
    ):
        if day["date"] < date_from:
            balance += int(day.get("delta", 0))
        else:
            deltas[day["date"]] = int(day.get("delta", 0))
    series = []
    day_ = start
    while day_ <= end:
        iso = day_.isoformat()
        delta = deltas.get(iso, 0)
        balance += delta
        series.append({"date": iso, "delta": delta, "balance": balance})
        day_ += dt.timedelta(days=1)
    return {
        "account": account,
        "from": date_from,
        "to": date_to,
        "opening_balance": acct["opening_balance"],
        "items": series,
    }


def monthly_report(store: Store, who: str, month: str) -> dict[str, Any]:
    totals: dict[ItemKey, dict[str, int]] = {}
    for item in store.query(who, begins_with=month_prefix(month)):  # categories and subcategories
        key = derived_key(item["SK"])
        if key is not None:
            totals[key] = {"income": int(item.get("income", 0)), "expense": int(item.get("expense", 0))}
    by_category = ledger.by_category(totals)
    by_account = []
    for account in _account_ids(store, who):
        income = expense = net = 0
        for day in store.query(who, between=(day_sk(account, f"{month}-01"), day_sk(account, f"{month}-31"))):
            income += int(day.get("income", 0))
            expense += int(day.get("expense", 0))
            net += int(day.get("delta", 0))
        if income or expense or net:
            by_account.append({"account": account, "income": income, "expense": expense, "net": net})
    income = sum(c["income"] for c in by_category)
    expense = sum(c["expense"] for c in by_category)
    return {
        "month": month,
        "income": income,
        "expense": expense,
        "net": income - expense,
        "by_category": by_category,
        "by_account": by_account,
    }


def query_date(name: str, value: str) -> dt.date:
    try:
        return parse_date(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'{name}' {exc}") from None


def query_month(value: str) -> str:
    try:
        return check_month(value)
    except ValueError as exc:
        raise errors.BadRequest(f"'month' {exc}") from None


def days_before(date: str, days: int) -> str:
    return (query_date("to", date) - dt.timedelta(days=days)).isoformat()


# ---- budgets ----------------------------------------------------------------------------------


def budget_view(item: Item) -> dict[str, Any]:
    limit = int(item.get("limit", 0))
    spent = int(item.get("spent", 0))
    return {
        "month": item["month"],
        "category": item["category"],
        "limit": limit,
        "spent": spent,
        "remaining": limit - spent,
        "strict": bool(item.get("strict", False)),
        "version": int(item.get("budget_version", 0)),
    }


def valid_category(category: str) -> str:
    try:
        return (
            SlipIn.model_validate(
                {"date": "2000-01-01", "kind": "expense", "amount": 1, "account": "a", "category": category}
            ).category
            or ""
        )
    except ValidationError as exc:
        raise errors.ValidationFailed(
            "invalid category", errors=[{"loc": ["path", "category"], "msg": "invalid category", "type": "value_error"}]
        ) from exc


def put_budget(
    store: Store,
    who: str,
    month: str,
    category: str,
    *,
    body: BudgetIn,
    expected: int | None,
    if_match: bool,
) -> tuple[dict[str, Any], bool]:
    """Create (no If-Match) or change (If-Match) a budget. Returns (budget, created)."""
    try:
        check_month(month)
    except ValueError as exc:
        raise errors.ValidationFailed(
            f"month {exc}", errors=[{"loc": ["path", "month"], "msg": str(exc), "type": "value_error"}]
        ) from None
    category = valid_category(category)

    def fail(old: Item | None) -> errors.ApiError:
        if old is None or "limit" not in old:
            return errors.VersionMismatch("there is no budget to change yet", current=None, expected=expected)
        current = int(old.get("budget_version", 0))
        if not if_match:
            return errors.PreconditionRequired(
                "this budget exists: send If-Match with its ETag to change it", current=current
            )
        return errors.VersionMismatch(
            f"the budget is at version {current}, not {expected}", current=current, expected=expected
        )

    item = store.put_budget(
        who,
        month,
        category,
        limit=body.limit,
        strict=body.strict,
        expected=expected,
        must_exist=if_match,
        on_fail=fail,
    )
    return budget_view(item), not if_match


def list_budgets(store: Store, who: str, month: str) -> dict[str, Any]:
    items = [
        budget_view(item)
        for item in store.query(who, begins_with=f"MONTH#{month}#CAT#", consistent=True)
        if "limit" in item
    ]
    return {"month": month, "items": items}
