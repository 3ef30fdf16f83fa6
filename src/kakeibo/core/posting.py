"""Pure domain logic: what a slip change does to which ledger items.

No boto3, no HTTP. Given the money-relevant part of a slip before and after a change, `plan()`
says which slip write it is (create / update in place / move to a new key / delete) and the net
numeric change to every balance item, merged per item (one transaction may name an item once)
with zero nets dropped. The store (`kakeibo.store`) turns a plan into one TransactWriteItems call.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from kakeibo.core.tags import is_tag_field, tag_effects
from kakeibo.core.tax import is_tax_field
from kakeibo.core.units import in_yen

Kind = Literal["expense", "income", "transfer"]
KINDS: tuple[Kind, ...] = ("expense", "income", "transfer")
UNCATEGORIZED = "uncategorized"


@dataclass(frozen=True, slots=True, order=True)
class Line:
    """One line of a split slip: its share of the amount, in a category of its own."""

    amount: int
    category: str
    subcategory: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """The part of a slip that moves money. Memo and the like do not matter here."""

    date: str  # YYYY-MM-DD
    kind: Kind
    amount: int  # > 0, minor currency unit
    account: str
    to_account: str | None = None  # transfers only
    category: str | None = None  # not for transfers; None for a split slip (its lines have them)
    subcategory: str | None = None  # within category; not for transfers
    lines: tuple[Line, ...] = ()  # a split slip's lines (2 or more, summing to amount): never a transfer
    # who paid from their own pocket (a member of a shared ledger; expenses only), and each member's
    # burden: (user, amount) pairs in user order, summing to amount. Both or neither.
    paid_by: str | None = None
    shares: tuple[tuple[str, int], ...] = ()
    # the statement has it (cleared or reconciled, §17): on `account`'s side, and on `to_account`'s
    cleared: bool = False
    to_cleared: bool = False
    # what the slip (or its lines) adds to its year's tax item: medical payments and donations, as
    # the fields core.tax names, in name order
    tax: tuple[tuple[str, int], ...] = ()
    # an account in another unit than yen (core.units): the yen an income or expense counts as in
    # categories, reports and budgets, and what a transfer between units brought to `to_account`
    jpy_amount: int | None = None
    to_amount: int | None = None
    # its tags (core.tags, normalised): their totals are kept on the month item of `account`
    tags: tuple[str, ...] = ()

    @property
    def month(self) -> str:
        return self.date[:7]


@dataclass(frozen=True, slots=True, order=True)
class AccountItem:
    account: str


@dataclass(frozen=True, slots=True, order=True)
class DayItem:
    account: str
    date: str


@dataclass(frozen=True, slots=True, order=True)
class CategoryMonthItem:
    month: str
    category: str


@dataclass(frozen=True, slots=True, order=True)
class SubcategoryMonthItem:
    """A month's totals of one subcategory of a category (the category's own item has them all)."""

    month: str
    category: str
    subcategory: str


@dataclass(frozen=True, slots=True, order=True)
class AccountMonthItem:
    """An account's totals over a month, and its net change on each day of it (d01..d31): one
    item answers every day of the month, so a balance as of any date reads a handful of items."""

    account: str
    month: str  # YYYY-MM


@dataclass(frozen=True, slots=True, order=True)
class AccountYearItem:
    """An account's totals over a year, and its net change in each month of it (m01..m12)."""

    account: str
    year: str  # YYYY


@dataclass(frozen=True, slots=True, order=True)
class NetsItem:
    """A shared ledger's IOUs: one item per ledger, whatever the number of members, with each member's
    total paid (`p#{user}`), total share (`s#{user}`) and total settled (`t#{user}`). A member's net
    is paid - share + settled; the nets of a ledger sum to 0."""


@dataclass(frozen=True, slots=True, order=True)
class TaxYearItem:
    """A year's medical payments (per patient, provider and kind) and ふるさと納税 donations (per
    municipality): one item per ledger and year, with the fields core.tax names."""

    year: str  # YYYY


ItemKey = (
    AccountItem
    | DayItem
    | CategoryMonthItem
    | SubcategoryMonthItem
    | AccountMonthItem
    | AccountYearItem
    | NetsItem
    | TaxYearItem
)
Rollup = AccountMonthItem | AccountYearItem

# Numeric fields each item kind carries, all maintained with ADD.
# cleared: the part of the balance's change the bank, the card or the wallet has confirmed (the
# signed effects of the cleared sides of slips); the opening balance counts as cleared besides.
ACCOUNT_FIELDS = ("balance", "cleared")
# transfers_in / transfers_out: what transfers brought and took (a card's payments and its charges
# to other accounts, such as an IC card's automatic top-up), apart from income and expense.
DAY_FIELDS = ("delta", "count", "income", "expense", "transfers_in", "transfers_out", "cleared")
CATEGORY_FIELDS = ("income", "expense", "count")
SUBCATEGORY_FIELDS = CATEGORY_FIELDS
ROLLUP_FIELDS = DAY_FIELDS
DAY_OF_MONTH_FIELDS = tuple(f"d{day:02d}" for day in range(1, 32))
MONTH_OF_YEAR_FIELDS = tuple(f"m{month:02d}" for month in range(1, 13))


def day_field(date: str) -> str:
    """The field of an account month item that holds the net change of `date` (YYYY-MM-DD)."""
    return f"d{date[8:10]}"


def month_field(date: str) -> str:
    """The field of an account year item that holds the net change of `date`'s month."""
    return f"m{date[5:7]}"


@dataclass(frozen=True, slots=True)
class ItemChange:
    key: ItemKey
    deltas: Mapping[str, int]

    @property
    def funds_needed(self) -> int:
        """Money leaving an account: the balance must cover it unless negatives are allowed."""
        if isinstance(self.key, AccountItem):
            return max(0, -self.deltas.get("balance", 0))
        return 0

    @property
    def spending(self) -> int:
        """Net spending change of a month x category: expenses less refunds (income there)."""
        if isinstance(self.key, CategoryMonthItem):
            return self.deltas.get("expense", 0) - self.deltas.get("income", 0)
        return 0

    @property
    def budget_needed(self) -> int:
        """Spending added to a month x category: a strict budget must have this much left."""
        return max(0, self.spending)


SlipOp = Literal["create", "update", "move", "delete"]


@dataclass(frozen=True, slots=True)
class Plan:
    op: SlipOp
    changes: tuple[ItemChange, ...] = field(default_factory=tuple)
    # Every account the change involves, before and after, even where its net change is zero
    # (e.g. only the category changed): the store fences each of them against a rebuild.
    accounts: tuple[str, ...] = ()
    # The unit each account was priced in (account, unit, point_value or 0; core.units): the store
    # checks it on the account in the same transaction, so a slip is never written in a unit its
    # account no longer has. Empty: not checked.
    units: tuple[tuple[str, str, int], ...] = ()

    def change_for(self, key: ItemKey) -> ItemChange | None:
        return next((c for c in self.changes if c.key == key), None)


PAID, SHARE, SETTLED = "p#", "s#", "t#"
NET_PREFIXES = (PAID, SHARE, SETTLED)


@dataclass(frozen=True, slots=True, order=True)
class Settlement:
    """`payer` paid `payee` back `amount` outside the ledger: the payer's net rises, the payee's falls."""

    payer: str
    payee: str
    amount: int


def settlement_effects(settlement: Settlement, sign: int = 1) -> dict[ItemKey, dict[str, int]]:
    """What a recorded settlement moves: the two members' settled totals, nothing else."""
    part = sign * settlement.amount
    return {NetsItem(): {SETTLED + settlement.payer: part, SETTLED + settlement.payee: -part}}


def effects(entry: Entry, sign: int = 1) -> dict[ItemKey, dict[str, int]]:
    """The signed contribution of one slip to every item it touches."""
    out: dict[ItemKey, dict[str, int]] = defaultdict(dict)
    amount = sign * entry.amount
    if entry.tags:  # a tag's totals: on the account's month item, which the slip moves in any case
        yen = entry.amount if entry.jpy_amount is None else entry.jpy_amount
        _add(out[AccountMonthItem(entry.account, entry.month)], **tag_effects(entry.tags, entry.kind, yen, sign))
    if entry.tax:  # medical payments and donations: the year's tax item, in the same transaction
        _add(out[TaxYearItem(entry.date[:4])], **{name: sign * value for name, value in entry.tax})
    if entry.paid_by is not None:  # who paid for whom: the ledger's nets (in yen), in the same transaction
        nets = out[NetsItem()]
        _add(nets, **{PAID + entry.paid_by: amount if entry.jpy_amount is None else sign * entry.jpy_amount})
        for user, share in entry.shares:
            _add(nets, **{SHARE + user: sign * share})
    if entry.kind == "transfer":
        if entry.to_account is None:
            raise ValueError("a transfer needs to_account")
        arrived = amount if entry.to_amount is None else sign * entry.to_amount
        _add(out[AccountItem(entry.account)], balance=-amount)
        _add(out[AccountItem(entry.to_account)], balance=arrived)
        _add(out[DayItem(entry.account, entry.date)], delta=-amount, count=sign, transfers_out=amount)
        _add(out[DayItem(entry.to_account, entry.date)], delta=arrived, count=sign, transfers_in=arrived)
        _clear(out, entry.account, entry.date, -amount if entry.cleared else 0)
        _clear(out, entry.to_account, entry.date, arrived if entry.to_cleared else 0)
        return _with_rollups(out)
    signed = -amount if entry.kind == "expense" else amount
    _add(out[AccountItem(entry.account)], balance=signed)
    _add(out[DayItem(entry.account, entry.date)], delta=signed, count=sign, **{entry.kind: amount})
    _clear(out, entry.account, entry.date, signed if entry.cleared else 0)
    # the account moves once; each line counts in its own category (a plain slip is one line)
    lines = entry.lines or (Line(entry.amount, entry.category or UNCATEGORIZED, entry.subcategory),)
    for line, yen in zip(lines, in_yen(entry.amount, entry.jpy_amount, [x.amount for x in lines]), strict=True):
        part = sign * yen
        _add(out[CategoryMonthItem(entry.month, line.category)], count=sign, **{entry.kind: part})
        if line.subcategory is not None:
            sub = SubcategoryMonthItem(entry.month, line.category, line.subcategory)
            _add(out[sub], count=sign, **{entry.kind: part})
    return _with_rollups(out)


def _clear(out: dict[ItemKey, dict[str, int]], account: str, date: str, signed: int) -> None:
    """A cleared side's effect also counts in its account's and its day's `cleared`."""
    if signed:
        _add(out[AccountItem(account)], cleared=signed)
        _add(out[DayItem(account, date)], cleared=signed)


def _with_rollups(out: dict[ItemKey, dict[str, int]]) -> dict[ItemKey, dict[str, int]]:
    """Each day total's change, also on its account's month item (with the day's own field) and
    year item (with the month's own field): the same transaction keeps all three."""
    for key, deltas in list(out.items()):
        if isinstance(key, DayItem):
            _add(out[AccountMonthItem(key.account, key.date[:7])], **deltas, **{day_field(key.date): deltas["delta"]})
            _add(out[AccountYearItem(key.account, key.date[:4])], **deltas, **{month_field(key.date): deltas["delta"]})
    return dict(out)


def _add(target: dict[str, int], **deltas: int) -> None:
    for name, value in deltas.items():
        target[name] = target.get(name, 0) + value


def merge(parts: Iterable[Mapping[ItemKey, Mapping[str, int]]]) -> tuple[ItemChange, ...]:
    """Sum effects per item; drop zero fields and items left with nothing to change."""
    total: dict[ItemKey, dict[str, int]] = defaultdict(dict)
    for part in parts:
        for key, deltas in part.items():
            _add(total[key], **deltas)
    changes = []
    for key in sorted(total, key=_sort_key):
        nonzero = {k: v for k, v in total[key].items() if v != 0}
        if nonzero:
            changes.append(ItemChange(key, nonzero))
    return tuple(changes)


def _sort_key(key: ItemKey) -> tuple[str, ...]:
    if isinstance(key, AccountItem):
        return ("0", key.account)
    if isinstance(key, DayItem):
        return ("1", key.account, key.date)
    if isinstance(key, AccountMonthItem):
        return ("4", key.month, key.account)
    if isinstance(key, AccountYearItem):
        return ("5", key.year, key.account)
    if isinstance(key, SubcategoryMonthItem):
        return ("3", key.month, key.category, key.subcategory)
    if isinstance(key, NetsItem):
        return ("6",)
    if isinstance(key, TaxYearItem):
        return ("7", key.year)
    return ("2", key.month, key.category)


def plan(old: Entry | None, new: Entry | None, *, old_date: str | None = None) -> Plan:
    """What changing a slip from `old` to `new` does. `None` means absent (create / delete)."""
    if old is None and new is None:
        raise ValueError("nothing to plan")
    parts = []
    if old is not None:
        parts.append(effects(old, -1))
    if new is not None:
        parts.append(effects(new, +1))
    changes = merge(parts)
    accounts = tuple(sorted({a for e in (old, new) if e is not None for a in accounts_touched(e)}))
    if old is None:
        return Plan("create", changes, accounts)
    if new is None:
        return Plan("delete", changes, accounts)
    return Plan("move" if old.date != new.date else "update", changes, accounts)


def by_category(totals: Mapping[ItemKey, Mapping[str, int]]) -> list[dict[str, Any]]:
    """A month's report by category, each broken down by subcategory, from its month x category
    and month x subcategory items (`{"income", "expense"}` each). The category's slips without a
    subcategory appear as subcategory None, so the parts always add up to the category's total.
    A category none of whose slips has a subcategory has no breakdown."""
    out: list[dict[str, Any]] = []
    subs: dict[str, list[SubcategoryMonthItem]] = defaultdict(list)
    for key in totals:
        if isinstance(key, SubcategoryMonthItem):
            subs[key.category].append(key)
    for key in sorted(k for k in totals if isinstance(k, CategoryMonthItem)):
        income, expense = totals[key].get("income", 0), totals[key].get("expense", 0)
        if not (income or expense):
            continue
        parts: list[dict[str, Any]] = []
        rest_income, rest_expense = income, expense
        for sub in sorted(subs[key.category]):
            sub_income, sub_expense = totals[sub].get("income", 0), totals[sub].get("expense", 0)
            if sub_income or sub_expense:
                parts.append({"subcategory": sub.subcategory, "income": sub_income, "expense": sub_expense})
                rest_income, rest_expense = rest_income - sub_income, rest_expense - sub_expense
        if parts and (rest_income or rest_expense):
            parts.append({"subcategory": None, "income": rest_income, "expense": rest_expense})
        line: dict[str, Any] = {"category": key.category, "income": income, "expense": expense}
        if parts:  # only categories whose slips use subcategories carry the breakdown
            line["subcategories"] = parts
        out.append(line)
    return out


# The most lines a split slip may have: what keeps the largest transaction a slip change can make
# within DynamoDB's 100 items. The worst case is a change of a split slip to another account, date
# (month and year) and author with every line in new categories and subcategories:
#   slip delete + put, identity                                       3
#   old and new account, day, account month, account year            8
#   per line, old and new: category month, subcategory month         4 per line
#   slip index: kind, account, created_by, updated_by, old and new    8
#   slip index: its cleared side's account (not reconciled), old and new  2
#   per line, old and new: its category's index item                 2 per line
#   the journal head and entry, the writer's role check              3
#   a recurrence's version check (a recurring post)                  1
#   the ledger's nets (who paid, who owes: one item for every member)  1
#   the check that paid_by and the share holders are still members   1
#   the old and new year's tax item (medical payments, donations)      2
# 29 + 6 x lines <= 100 - RESERVED_ITEMS (room kept for the slip's receipts).
MAX_TX_ITEMS = 100
FIXED_ITEMS = 29
ITEMS_PER_LINE = 6
RESERVED_ITEMS = 11


def worst_case_items(lines: int) -> int:
    return FIXED_ITEMS + ITEMS_PER_LINE * lines


MAX_LINES = (MAX_TX_ITEMS - RESERVED_ITEMS - FIXED_ITEMS) // ITEMS_PER_LINE


def accounts_touched(entry: Entry) -> tuple[str, ...]:
    if entry.kind == "transfer" and entry.to_account is not None:
        return (entry.account, entry.to_account)
    return (entry.account,)


def recompute(
    entries: Iterable[Entry], opening: Mapping[str, int], settlements: Iterable[Settlement] = ()
) -> dict[ItemKey, dict[str, int]]:
    """Every derived item's expected value from the slips (and recorded settlements) alone (for
    verify and rebuild)."""
    total: dict[ItemKey, dict[str, int]] = defaultdict(dict)
    for account, amount in opening.items():
        _add(total[AccountItem(account)], balance=amount)
    parts = [effects(entry) for entry in entries] + [settlement_effects(s) for s in settlements]
    for part in parts:
        for key, deltas in part.items():
            _add(total[key], **deltas)
    return dict(total)


def is_net_field(name: str) -> bool:
    return name[:2] in NET_PREFIXES and len(name) > 2


def nets_total(fields: Mapping[str, int]) -> int:
    """The sum of every member's net (paid - share + settled): 0 in a ledger that is right."""
    return sum(member["net"] for member in nets_of(fields).values())


def nets_of(fields: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """Each member's paid, share, settled and net (= paid - share + settled) from a nets item's fields."""
    out: dict[str, dict[str, int]] = {}
    names = {PAID: "paid", SHARE: "share", SETTLED: "settled"}
    for name, value in fields.items():
        if is_net_field(name):
            member = out.setdefault(name[2:], {"paid": 0, "share": 0, "settled": 0})
            member[names[name[:2]]] += int(value)
    for member in out.values():
        member["net"] = member["paid"] - member["share"] + member["settled"]
    return dict(sorted(out.items()))


# Fields each derived item kind carries, as `recompute` and the slip transactions maintain them.
# A month x category item also keeps `spent` (expense - income: refunds count against spending)
# and `remaining` = budget limit (0 without one) - spent, so that a strict budget is one condition.
FIELDS: dict[type, tuple[str, ...]] = {
    AccountItem: ACCOUNT_FIELDS,
    DayItem: DAY_FIELDS,
    CategoryMonthItem: (*CATEGORY_FIELDS, "spent", "remaining"),
    AccountMonthItem: (*ROLLUP_FIELDS, *DAY_OF_MONTH_FIELDS),
    AccountYearItem: (*ROLLUP_FIELDS, *MONTH_OF_YEAR_FIELDS),
    SubcategoryMonthItem: SUBCATEGORY_FIELDS,
    NetsItem: (),  # its fields are per member: see fields_of
    TaxYearItem: (),  # its fields are per group of payments and per municipality: see fields_of
}


def fields_of(key: ItemKey, *values: Mapping[str, int]) -> tuple[str, ...]:
    """The fields verify compares on an item: its kind's, or for the nets every member field either
    side has."""
    if isinstance(key, NetsItem):
        return tuple(sorted({name for value in values for name in value if is_net_field(name)}))
    if isinstance(key, TaxYearItem):
        return tuple(sorted({name for value in values for name in value if is_tax_field(name)}))
    if isinstance(key, AccountMonthItem):  # and the month's tag totals (core.tags)
        tags = sorted({name for value in values for name in value if is_tag_field(name)})
        return (*FIELDS[AccountMonthItem], *tags)
    return FIELDS[type(key)]


def with_budgets(
    expected: Mapping[ItemKey, Mapping[str, int]], limits: Mapping[CategoryMonthItem, int]
) -> dict[ItemKey, dict[str, int]]:
    """`expected` plus each month x category item's `spent` and `remaining`, given the limits set."""
    out = {key: dict(value) for key, value in expected.items()}
    for key in set(limits) | {k for k in expected if isinstance(k, CategoryMonthItem)}:
        if isinstance(key, CategoryMonthItem):
            item = out.setdefault(key, {})
            item["spent"] = item.get("expense", 0) - item.get("income", 0)
            item["remaining"] = limits.get(key, 0) - item["spent"]
    return out


@dataclass(frozen=True, slots=True, order=True)
class Mismatch:
    """A derived value that disagrees with what the slips say it should be."""

    key: ItemKey
    field: str
    expected: int
    actual: int | None  # None: the item itself is missing and cannot be derived (an account)


def diff(
    expected: Mapping[ItemKey, Mapping[str, int]],
    actual: Mapping[ItemKey, Mapping[str, int]],
) -> list[Mismatch]:
    """Every field whose stored value differs from the recomputed one. Absent fields count as 0,
    as they do for ADD; an item that should not exist must hold only zeros (what deleting every
    slip of a day leaves behind is fine). A missing account item is reported with actual None."""
    out = []
    for key in sorted(set(expected) | set(actual), key=_sort_key):
        want, have = expected.get(key, {}), actual.get(key)
        if have is None and isinstance(key, AccountItem):
            out.append(Mismatch(key, "balance", want.get("balance", 0), None))
            continue
        for name in fields_of(key, want, have or {}):
            value = (have or {}).get(name, 0)
            if want.get(name, 0) != value:
                out.append(Mismatch(key, name, want.get(name, 0), value))
    return out
