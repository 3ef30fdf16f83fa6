"""Properties of the pure domain logic (core/posting.py), checked with hypothesis."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.posting import (
    MAX_LINES,
    RESERVED_ITEMS,
    ROLLUP_FIELDS,
    AccountItem,
    AccountMonthItem,
    AccountYearItem,
    CategoryMonthItem,
    DayItem,
    Entry,
    ItemKey,
    Line,
    SubcategoryMonthItem,
    by_category,
    effects,
    merge,
    plan,
    recompute,
    worst_case_items,
)

ACCOUNTS = ["cash", "suica", "bank", "card"]
CATEGORIES = ["食費", "交通費", "日用品", "給与"]
SUBCATEGORIES = [None, None, "外食", "食料品"]

dates = st.dates(min_value=dt.date(2025, 12, 25), max_value=dt.date(2026, 2, 5)).map(dt.date.isoformat)
amounts = st.integers(min_value=1, max_value=10**12)


@st.composite
def entries(draw: st.DrawFn) -> Entry:
    kind = draw(st.sampled_from(["expense", "income", "transfer"]))
    account = draw(st.sampled_from(ACCOUNTS))
    if kind == "transfer":
        to = draw(st.sampled_from([a for a in ACCOUNTS if a != account]))
        return Entry(draw(dates), "transfer", draw(amounts), account, to, None)
    category = draw(st.sampled_from(CATEGORIES))
    return Entry(draw(dates), kind, draw(amounts), account, None, category, draw(st.sampled_from(SUBCATEGORIES)))


def apply(state: dict[ItemKey, Counter[str]], changes: tuple) -> None:  # type: ignore[type-arg]
    for change in changes:
        state[change.key].update(change.deltas)


@settings(max_examples=300, deadline=None)
@given(st.lists(entries(), min_size=1, max_size=8))
def test_create_then_any_updates_then_delete_nets_zero_on_every_item(history: list[Entry]) -> None:
    # Given a slip created as history[0], updated through the rest, then deleted
    state: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    apply(state, plan(None, history[0]).changes)
    for old, new in itertools.pairwise(history):
        apply(state, plan(old, new).changes)
    apply(state, plan(history[-1], None).changes)
    # Then every item is back to zero
    assert all(v == 0 for counts in state.values() for v in counts.values())


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), entries()), st.one_of(st.none(), entries()))
def test_no_plan_names_an_item_twice_or_carries_a_zero(old: Entry | None, new: Entry | None) -> None:
    if old is None and new is None:
        return
    changes = plan(old, new).changes
    keys = [c.key for c in changes]
    assert len(keys) == len(set(keys))
    assert all(c.deltas and all(v != 0 for v in c.deltas.values()) for c in changes)


@settings(max_examples=300, deadline=None)
@given(entries(), entries())
def test_a_key_change_exactly_when_the_date_changes(old: Entry, new: Entry) -> None:
    op = plan(old, new).op
    assert (op == "move") == (old.date != new.date)
    assert op in ("move", "update")
    assert plan(None, new).op == "create" and plan(old, None).op == "delete"


@settings(max_examples=300, deadline=None)
@given(entries())
def test_transfers_conserve_money_and_touch_no_category(entry: Entry) -> None:
    changes = plan(None, entry).changes
    balance_moves = [c.deltas.get("balance", 0) for c in changes if isinstance(c.key, AccountItem)]
    if entry.kind == "transfer":
        assert sum(balance_moves) == 0
        assert not any(isinstance(c.key, CategoryMonthItem) for c in changes)
        day_moves = [c.deltas.get("delta", 0) for c in changes if isinstance(c.key, DayItem)]
        assert sum(day_moves) == 0
    else:
        sign = -1 if entry.kind == "expense" else 1
        assert balance_moves == [sign * entry.amount]


@settings(max_examples=200, deadline=None)
@given(entries(), entries())
def test_an_update_equals_delete_plus_create(old: Entry, new: Entry) -> None:
    combined: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    apply(combined, plan(old, None).changes)
    apply(combined, plan(None, new).changes)
    direct: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    apply(direct, plan(old, new).changes)
    norm = lambda s: {k: {f: v for f, v in c.items() if v} for k, c in s.items() if any(c.values())}  # noqa: E731
    assert norm(combined) == norm(direct)


@settings(max_examples=200, deadline=None)
@given(st.lists(entries(), max_size=20))
def test_recompute_matches_the_sum_of_creates(slips: list[Entry]) -> None:
    opening = dict.fromkeys(ACCOUNTS, 1000)
    state: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    for account, amount in opening.items():
        state[AccountItem(account)]["balance"] += amount
    for entry in slips:
        apply(state, plan(None, entry).changes)
    expected = recompute(slips, opening)
    got = {k: {f: v for f, v in c.items() if v} for k, c in state.items()}
    want = {k: {f: v for f, v in d.items() if v} for k, d in expected.items()}
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}


def test_funds_and_budget_guards_follow_the_net_change() -> None:
    # Given an expense of 500 from cash in 食費, raised to 800
    old = Entry("2026-01-10", "expense", 500, "cash", None, "食費")
    new = Entry("2026-01-10", "expense", 800, "cash", None, "食費")
    changes = {c.key: c for c in plan(old, new).changes}
    # Then only the extra 300 needs funds and budget room
    assert changes[AccountItem("cash")].funds_needed == 300
    assert changes[CategoryMonthItem("2026-01", "食費")].budget_needed == 300
    # And lowering it needs neither
    lowered = {c.key: c for c in plan(new, old).changes}
    assert lowered[AccountItem("cash")].funds_needed == 0
    assert lowered[CategoryMonthItem("2026-01", "食費")].budget_needed == 0


def test_merge_drops_items_that_net_to_zero() -> None:
    a = {AccountItem("cash"): {"balance": 5}}
    b = {AccountItem("cash"): {"balance": -5}, DayItem("cash", "2026-01-01"): {"delta": 1}}
    assert [c.key for c in merge([a, b])] == [DayItem("cash", "2026-01-01")]


@settings(max_examples=200, deadline=None)
@given(st.lists(entries(), max_size=20), st.lists(entries(), max_size=5))
def test_month_and_year_totals_are_the_sums_of_their_day_totals(slips: list[Entry], edits: list[Entry]) -> None:
    # Given slips, and some of them then changed (moved, re-amounted) and others deleted, change by change
    state: dict[ItemKey, Counter[str]] = defaultdict(Counter)
    for entry in slips:
        apply(state, plan(None, entry).changes)
    for old, new in zip(slips, edits, strict=False):
        apply(state, plan(old, new).changes)
    for gone in slips[len(edits) : len(edits) + 2]:
        apply(state, plan(gone, None).changes)
    days = {k: v for k, v in state.items() if isinstance(k, DayItem)}
    # Then each account month holds its days' sums and each day's delta in that day's field
    for key, value in state.items():
        if isinstance(key, AccountMonthItem):
            mine = [(d, v) for d, v in days.items() if d.account == key.account and d.date[:7] == key.month]
            for name in ROLLUP_FIELDS:
                assert value[name] == sum(v[name] for _, v in mine)
            for day, v in mine:
                assert value[f"d{day.date[8:]}"] == v["delta"]
        if isinstance(key, AccountYearItem):
            mine = [(d, v) for d, v in days.items() if d.account == key.account and d.date[:4] == key.year]
            for name in ROLLUP_FIELDS:
                assert value[name] == sum(v[name] for _, v in mine)
            for month in range(1, 13):
                assert value[f"m{month:02d}"] == sum(v["delta"] for d, v in mine if int(d.date[5:7]) == month)
    # And a balance as of any date, from years before + its year's month fields + its month's day fields,
    # is the sum of the day totals up to it
    for account in ACCOUNTS:
        for date in ("2025-12-24", "2025-12-31", "2026-01-01", "2026-01-15", "2026-01-31", "2026-02-05"):
            by_days = sum(v["delta"] for d, v in days.items() if d.account == account and d.date <= date)
            years = sum(
                v["delta"]
                for k, v in state.items()
                if isinstance(k, AccountYearItem) and k.account == account and k.year < date[:4]
            )
            year = state.get(AccountYearItem(account, date[:4]), Counter())
            months = sum(year[f"m{n:02d}"] for n in range(1, int(date[5:7])))
            this = state.get(AccountMonthItem(account, date[:7]), Counter())
            fields = sum(this[f"d{n:02d}"] for n in range(1, int(date[8:]) + 1))
            assert years + months + fields == by_days


@settings(max_examples=300, deadline=None)
@given(st.lists(entries(), max_size=12))
def test_subcategory_totals_are_their_slips_and_the_report_parts_add_up(slips: list[Entry]) -> None:
    # Given any slips, some with a subcategory
    state = recompute(slips, {})
    # Then each month x subcategory item holds exactly its slips' income and expense
    for key, value in state.items():
        if isinstance(key, SubcategoryMonthItem):
            mine = [
                e for e in slips if (e.month, e.category, e.subcategory) == (key.month, key.category, key.subcategory)
            ]
            assert value.get("income", 0) == sum(e.amount for e in mine if e.kind == "income")
            assert value.get("expense", 0) == sum(e.amount for e in mine if e.kind == "expense")
            assert value.get("count", 0) == len(mine)
    # And in the report of every month, a category's subcategories add up to the category
    for month in {e.month for e in slips}:
        totals = {k: v for k, v in state.items() if getattr(k, "month", None) == month}
        for line in by_category(totals):
            parts = line.get("subcategories", [])
            if parts:
                assert sum(p["income"] for p in parts) == line["income"]
                assert sum(p["expense"] for p in parts) == line["expense"]
                assert len({p["subcategory"] for p in parts}) == len(parts)
            else:  # no breakdown only when none of the category's slips that month has a subcategory
                assert all(e.subcategory is None for e in slips if e.month == month and e.category == line["category"])


@st.composite
def splits(draw: st.DrawFn) -> Entry:
    parts = draw(
        st.lists(
            st.tuples(st.integers(1, 10**9), st.sampled_from(CATEGORIES), st.sampled_from(SUBCATEGORIES)),
            min_size=2,
            max_size=MAX_LINES,
        )
    )
    lines = tuple(Line(amount, category, sub) for amount, category, sub in parts)
    kind = draw(st.sampled_from(["expense", "income"]))
    return Entry(draw(dates), kind, sum(line.amount for line in lines), draw(st.sampled_from(ACCOUNTS)), lines=lines)


@given(splits())
def test_a_split_moves_its_account_once_and_each_line_as_a_slip_of_its_own_would(split: Entry) -> None:
    # Given a split slip, and the same lines as separate slips of the same day and account
    alone = [
        Entry(split.date, split.kind, line.amount, split.account, category=line.category, subcategory=line.subcategory)
        for line in split.lines
    ]
    together = effects(split)
    apart = recompute(alone, {})
    # Then the account, its day, month and year move by the whole amount, once (one slip: count 1)
    for key in (AccountItem(split.account), DayItem(split.account, split.date)):
        assert {k: v for k, v in together[key].items() if k != "count"} == {
            k: v for k, v in apart[key].items() if k != "count"
        }
    assert together[DayItem(split.account, split.date)]["count"] == 1
    # And every category and subcategory month item gets exactly what the lines as slips would give
    categories = [k for k in apart if isinstance(k, CategoryMonthItem | SubcategoryMonthItem)]
    assert {k: together[k] for k in categories} == {k: apart[k] for k in categories}
    assert {k for k in together if isinstance(k, CategoryMonthItem | SubcategoryMonthItem)} == set(categories)


@given(splits(), splits())
def test_changing_a_split_into_another_leaves_nothing_behind(old: Entry, new: Entry) -> None:
    # Given a split changed into another (lines, amount, date, account)
    changed = plan(old, new)
    # Then applying the change to what the old one made gives what the new one makes alone
    total: dict[ItemKey, dict[str, int]] = defaultdict(dict)
    for key, deltas in effects(old).items():
        for name, value in deltas.items():
            total[key][name] = total[key].get(name, 0) + value
    for change in changed.changes:
        for name, value in change.deltas.items():
            total[change.key][name] = total[change.key].get(name, 0) + value
    cleaned = {k: {n: v for n, v in d.items() if v} for k, d in total.items()}
    assert {k: v for k, v in cleaned.items() if v} == {
        k: {n: v for n, v in d.items() if v} for k, d in effects(new).items() if any(d.values())
    }


def test_the_line_limit_keeps_the_worst_case_within_one_transaction() -> None:
    # The documented bound: at least 10 lines, and their worst-case change within 100 items
    assert MAX_LINES >= 10
    assert worst_case_items(MAX_LINES) + RESERVED_ITEMS <= 100 < worst_case_items(MAX_LINES + 1) + RESERVED_ITEMS


def test_a_slips_receipts_fit_the_items_its_transaction_keeps_for_them() -> None:
    # A change of a slip's receipts lets go of every old one and takes up every new one: one item each
    from kakeibo.core.posting import RESERVED_ITEMS
    from kakeibo.models.receipts import MAX_RECEIPTS

    assert 2 * MAX_RECEIPTS <= RESERVED_ITEMS
