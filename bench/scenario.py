"""The data the sections work on: a household's accounts, its slips, and years of daily history."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bench.api import BenchError
from bench.context import Context, Twin
from bench.verify import verify
from kakeibo.models.accounts import AccountCreate
from kakeibo.models.slips import SlipIn
from kakeibo.services import accounts
from kakeibo.services import slips as slip_service
from kakeibo.store import WriteContext

DAY = "2025-06-10"
NEXT_DAY = "2025-06-11"
CATEGORIES = ("食費", "交通費", "日用品", "娯楽")
OPENING = 10**9  # so no expense is ever refused for funds


def slip_body(i: int, *, date: str = DAY, amount: int | None = None) -> dict[str, Any]:
    """An ordinary expense: cash, a category, a short memo (items well under 1 KB)."""
    return {
        "date": date,
        "kind": "expense",
        "amount": amount if amount is not None else 300 + (i * 37) % 2000,
        "account": "cash",
        "category": CATEGORIES[i % len(CATEGORIES)],
        "memo": "ランチ",
    }


def spread(i: int, days: int = 120) -> str:
    """The i-th slip's date when slips are spread over `days` days (a few slips a day)."""
    return (dt.date(2025, 1, 1) + dt.timedelta(days=i % days)).isoformat()


def household(ctx: Context, label: str) -> Twin:
    """Twin ledgers with the same cash account, ready for writes."""
    twin = ctx.twin(label)
    ctx.account(twin, "cash", OPENING)
    return twin


# ---- years of daily history (list, balances as of a date) -------------------------------------

HISTORY_END = dt.date(2025, 12, 31)


def history_slips(days: int) -> list[dict[str, Any]]:
    """A household's life, one or more slips a day for `days` days ending HISTORY_END.

    Cash: lunch every day. Bank: salary on the 25th, rent on the 27th, cash withdrawal on the 1st.
    Card: a purchase every Saturday (allowed to go negative).
    """
    start = HISTORY_END - dt.timedelta(days=days - 1)
    out: list[dict[str, Any]] = []
    for n in range(days):
        day = start + dt.timedelta(days=n)
        iso = day.isoformat()
        out.append(slip_body(n, date=iso))
        if day.day == 1:
            out.append({"date": iso, "kind": "transfer", "amount": 40000, "account": "bank", "to_account": "cash"})
        if day.day == 25:
            out.append({"date": iso, "kind": "income", "amount": 280000, "account": "bank", "category": "給与"})
        if day.day == 27:
            out.append({"date": iso, "kind": "expense", "amount": 85000, "account": "bank", "category": "住居"})
        if day.weekday() == 5:
            out.append(
                {
                    "date": iso,
                    "kind": "expense",
                    "amount": 3000 + n % 5000,
                    "account": "card",
                    "category": "買い物",
                }
            )
    return out


def history(ctx: Context) -> dict[str, Any]:
    """One ledger with `sizes.history_days` of daily history, built once per run and verified."""

    def build() -> dict[str, Any]:
        ledger = ctx.ledger("history")
        for account, kind, opening in (
            ("cash", "cash", 50000),
            ("bank", "bank", 1_000_000),
            ("card", "credit", 0),
        ):
            body = AccountCreate(id=account, name=account.title(), type=kind, opening_balance=opening)
            accounts.create_account(ctx.store, WriteContext.personal(ledger), body)
        slips = history_slips(ctx.sizes.history_days)
        for slip in slips:
            slip_service.create_slip(ctx.store, WriteContext.personal(ledger), SlipIn.model_validate(slip))
        checked = verify(ctx.store, ledger)
        if checked["mismatched_items"] or checked["slips"] != len(slips):
            raise BenchError(f"history ledger does not verify: {checked['mismatches']}")
        return {
            "who": ledger,
            "days": ctx.sizes.history_days,
            "first": slips[0]["date"],
            "last": slips[-1]["date"],
            "slips": len(slips),
            "accounts": 3,
        }

    built: dict[str, Any] = ctx.cached("history", build)
    return built


def warm_up(ctx: Context) -> None:
    """Requests nobody times, so DynamoDB Local's JIT and our first-call paths are warm before timing."""
    twin = household(ctx, "warmup")
    for i in range(ctx.sizes.global_warmup // 3):
        created = ctx.mirrored(twin, "POST", "/slips", body=slip_body(i), expect=201)
        ctx.request("GET", created.location, user=twin.ours, expect=200)
        ctx.request("GET", "/balances", user=twin.ours, expect=200)
