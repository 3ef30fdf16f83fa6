"""The key layout of the ledger table: one builder per item kind.

Every user-supplied part is validated before it gets here (models.py): account ids are slugs,
categories cannot contain '#', dates and months have a fixed shape. The PK comes from the
caller's identity only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from kakeibo.core.posting import (
    AccountItem,
    AccountMonthItem,
    AccountYearItem,
    CategoryMonthItem,
    DayItem,
    ItemKey,
    NetsItem,
    SubcategoryMonthItem,
    TaxYearItem,
)
from kakeibo.core.reconcile import CLEARED
from kakeibo.core.rules import normalise


class SharedLedger(str):
    """A shared ledger's id as the store takes it: its items live under `HOUSEHOLD#{id}`.

    It only says which partition; who writes and with which role travels in the write context
    (store/journal.py), never on the id. A plain `str` is a personal ledger: the JWT `sub` of its
    only owner.
    """

    __slots__ = ()


def pk(ledger: str) -> str:
    if isinstance(ledger, SharedLedger):
        return household_pk(ledger)
    return f"LEDGER#{ledger}"


def ledger_of_pk(partition: str) -> str | None:
    """The ledger (personal `sub` or SharedLedger) whose items sit under `partition`, if any."""
    if partition.startswith("LEDGER#"):
        return partition.removeprefix("LEDGER#")
    if partition.startswith("HOUSEHOLD#"):
        return SharedLedger(partition.removeprefix("HOUSEHOLD#"))
    return None


def account_sk(account: str) -> str:
    return f"ACCOUNT#{account}"


def account_id(sk: str) -> str:
    return sk.removeprefix("ACCOUNT#")


SLIP_PREFIX = "SLIP#"
FIRST_DAY, LAST_DAY = "0000-00-00", "9999-99-99"  # before and after every date a slip can have


def slip_sk(date: str, slip_id: str) -> str:
    return f"{SLIP_PREFIX}{date}#{slip_id}"


def slip_date(sk: str) -> str:
    """The date of the slip a slip's SK names."""
    return sk.split("#")[1]


def identity_sk(slip_id: str) -> str:
    """A slip's identity: one item per slip id, whatever its date, kept (as a tombstone) after delete."""
    return f"ID#{slip_id}"


def day_sk(account: str, date: str) -> str:
    return f"DAY#{account}#{date}"


def category_sk(month: str, category: str) -> str:
    return f"MONTH#{month}#CAT#{category}"


def subcategory_sk(month: str, category: str, subcategory: str) -> str:
    """Neither name may contain '#' (models.Category), so the SK splits back unambiguously."""
    return f"MONTH#{month}#SUB#{category}#{subcategory}"


def month_prefix(month: str) -> str:
    """Every month x category and month x subcategory item of a month."""
    return f"MONTH#{month}#"


# Account rollups are keyed period first, so one Query reads every account's items of a span of
# months (or years): a balance as of any date is the accounts, their years before it and their
# months of its year. A range ends at "$", the character after "#": past every id of its last period.
RANGE_END = "$"


def account_month_sk(month: str, account: str) -> str:
    return f"AMONTH#{month}#{account}"


def account_year_sk(year: str, account: str) -> str:
    return f"AYEAR#{year}#{account}"


def account_months_range(first: str, last: str) -> tuple[str, str]:
    """The SK range of every account's month items from month `first` to `last` (inclusive)."""
    return f"AMONTH#{first}#", f"AMONTH#{last}{RANGE_END}"


def account_years_range(first: str, last: str) -> tuple[str, str]:
    """The SK range of every account's year items from year `first` to `last` (inclusive)."""
    return f"AYEAR#{first}#", f"AYEAR#{last}{RANGE_END}"


def months_range(first: str, last: str) -> tuple[str, str]:
    """The SK range of the month x category and month x subcategory items of months `first` to
    `last` (inclusive)."""
    return f"MONTH#{first}#", f"MONTH#{last}{RANGE_END}"


# Slip index: the slips that answer to a (filter, value), a day's slips in a few items. The item
# `YA#{account}#{date}#{bucket}` holds, as attributes named by slip number, the ids of the slips of
# that date that touch the account (a transfer: both) and whose numbers fall in the bucket (no // 32,
# 10 digits); `YC#{category}#...`, `YK#{kind}#...`, `YB#{user}#...` for each of created_by/updated_by.
# Items sort by date, then bucket, so that slips come in date, then number order, as lists are ordered.
# A bucket keeps an item small (32 slips at most) and its writes cheap; a batch of slips of one day
# shares its items. Account ids are slugs and stored categories hold no '#', but a user id (any
# printable ASCII) may, and so may a category asked for in a query: every value has '%' and '#'
# escaped, so that no value's range can hold another value's items.
#
# An index *entry* (one slip in one item) is written as the string `{item SK}#{no}#{slip_id}`, so
# that a slip's entries are a set the write paths can compare (slip_index_sks) and turn into item
# updates (store.index_ops).
# `YP#{payee}#...` holds the slips of a payee in its normalised form (core.rules.normalise), so that
# ?payee=ｽｰﾊﾟｰ finds the slips of スーパー.
# `YR#{account}#...` holds the slips whose side on that account is cleared and not yet reconciled:
# what a reconciliation of the account marks. The entry comes when the side becomes cleared and goes
# when it is reconciled, uncleared again or the slip deleted, so a reconciliation reads only what it
# can still mark, however long the account's history.
INDEX_FIELDS = {"account": "YA", "category": "YC", "kind": "YK", "by": "YB", "payee": "YP", "cleared": "YR"}
# One key-only item per slip and value, before slips were grouped by day: a rebuild deletes them.
LEGACY_INDEX_FIELDS = ("XA", "XC", "XK", "XB")
INDEX_BUCKET = 32

NO_DIGITS = 10


def _index_value(value: str) -> str:
    return value.replace("%", "%25").replace("#", "%23")


def index_head(field: str, value: str) -> str:
    """The SK prefix every index item of `field` = `value` starts with."""
    return f"{INDEX_FIELDS[field]}#{_index_value(value)}#"


def index_item_sk(field: str, value: str, date: str, no: int) -> str:
    """The index item that holds slip number `no` of `date` under `field` = `value`."""
    return f"{index_head(field, value)}{date}#{no // INDEX_BUCKET:0{NO_DIGITS}d}"


def index_sk(field: str, value: str, date: str, no: int, slip_id: str) -> str:
    """A slip's index entry under `field` = `value` (see above)."""
    return f"{index_item_sk(field, value, date, no)}#{no:0{NO_DIGITS}d}#{slip_id}"


def index_range(
    field: str, value: str, date_from: str | None, date_to: str | None, below: tuple[str, int | None] | None = None
) -> tuple[str, str]:
    """The SK range of the index items of `field` = `value` dated date_from..date_to (inclusive) and,
    with `below` = (day, no), only those up to the item holding that day's slip number `no` (the
    whole day if None). That item may also hold later slips: entries_before() leaves them out."""
    head = index_head(field, value)
    hi = f"{head}{date_to or '9999-99-99'}#~"
    if below is not None:
        day, no = below
        hi = min(hi, f"{head}{day}#~" if no is None else f"{head}{day}#{no // INDEX_BUCKET:0{NO_DIGITS}d}")
    return f"{head}{date_from or '0000-00-00'}#", hi


def index_entry(entry: str) -> tuple[str, int, str]:
    """(date, no, slip_id) of an index entry (the value part may not be split on, so from the right)."""
    _, date, _bucket, no, slip_id = entry.rsplit("#", 4)
    return date, int(no), slip_id


def entry_parts(entry: str) -> tuple[str, str, str]:
    """(item SK, attribute name, slip id) of an index entry: where it is stored and as what."""
    item_sk, no, slip_id = entry.rsplit("#", 2)
    return item_sk, str(int(no)), slip_id


def item_entries(item: Mapping[str, Any]) -> list[str]:
    """The entries an index item holds, latest slip number first."""
    sk = item["SK"]
    numbers = sorted((int(name) for name in item if name.isdigit()), reverse=True)
    return [f"{sk}#{no:0{NO_DIGITS}d}#{item[str(no)]}" for no in numbers]


def entries_before(entries: list[str], below: tuple[str, int | None] | None) -> list[str]:
    """The entries that come after the cursor `below` = (day, no) in a newest-first list."""
    if below is None:
        return entries
    day, no = below
    out = []
    for entry in entries:
        date, number, _ = index_entry(entry)
        if date < day or (date == day and (no is None or number < no)):
            out.append(entry)
    return out


def slip_index_sks(slip: Mapping[str, Any]) -> frozenset[str]:
    """The index entries a slip has: a pure function of the slip item."""
    date, no, slip_id = slip["date"], int(slip["no"]), slip["id"]
    values: set[tuple[str, str]] = {("kind", slip["kind"]), ("account", slip["account"])}
    optional = (("account", "to_account"), ("category", "category"), ("by", "created_by"), ("by", "updated_by"))
    for field, name in optional:
        if slip.get(name):
            values.add((field, slip[name]))
    for line in slip.get("lines") or ():  # a split slip is listed under each of its lines' categories
        values.add(("category", line["category"]))
    if slip.get("payee"):
        values.add(("payee", normalise(slip["payee"])))
    if slip.get("cleared") == CLEARED:
        values.add(("cleared", slip["account"]))
    if slip["kind"] == "transfer" and slip.get("to_account") and slip.get("to_cleared") == CLEARED:
        values.add(("cleared", slip["to_account"]))
    return frozenset(index_sk(field, value, date, no, slip_id) for field, value in values)


def is_index_sk(sk: str) -> bool:
    return sk[:3] in _INDEX_HEADS


def is_legacy_index_sk(sk: str) -> bool:
    return sk[:3] in _LEGACY_HEADS


_INDEX_HEADS = frozenset(f"{head}#" for head in INDEX_FIELDS.values())
_LEGACY_HEADS = frozenset(f"{head}#" for head in LEGACY_INDEX_FIELDS)


def is_card_sk(sk: str) -> bool:
    """An account's item: what the due index names for a card's next payment."""
    return sk.startswith(account_sk(""))


def import_sk(sha256: str) -> str:
    return f"IMPORT#{sha256}"


SLIP_SEQ_SK = "SEQ#slip"

ACCOUNT_COUNT_SK = "SEQ#accounts"  # how many accounts the ledger holds (the limit is checked on it)

LEDGER_LOCK = "ledger"  # held by a rebuild: no slip or account may change meanwhile


# Who paid, who owes (shared ledgers): one item holds every member's totals (ledger.NetsItem); each
# recorded settlement is an item of its own, so verify recomputes the settled totals.
NETS_SK = "OWE"
DEPARTURES = "departures"  # on a shared ledger's META: how many members have been removed so far


SETTLEMENT_PREFIX = "SETTLE#"


def settlement_sk(settlement_id: str) -> str:
    return f"{SETTLEMENT_PREFIX}{settlement_id}"


# A year's medical payments and donations (tax season): one item per ledger and year.
TAX_YEAR_PREFIX = "TAXYEAR#"


def tax_year_sk(year: str) -> str:
    return f"{TAX_YEAR_PREFIX}{year}"


def lock_sk(name: str) -> str:
    return f"LOCK#{name}"


def derived_sk(key: ItemKey) -> str:
    """The SK of a balance item (account, day total, month x category or subcategory, account month
    or year)."""
    if isinstance(key, AccountItem):
        return account_sk(key.account)
    if isinstance(key, DayItem):
        return day_sk(key.account, key.date)
    if isinstance(key, AccountMonthItem):
        return account_month_sk(key.month, key.account)
    if isinstance(key, AccountYearItem):
        return account_year_sk(key.year, key.account)
    if isinstance(key, SubcategoryMonthItem):
        return subcategory_sk(key.month, key.category, key.subcategory)
    if isinstance(key, NetsItem):
        return NETS_SK
    if isinstance(key, TaxYearItem):
        return tax_year_sk(key.year)
    return category_sk(key.month, key.category)


_DAY_SK_RE = re.compile(r"^DAY#([^#]+)#(\d{4}-\d{2}-\d{2})$")

_CATEGORY_SK_RE = re.compile(r"^MONTH#(\d{4}-\d{2})#CAT#([^#]+)$")

_ACCOUNT_MONTH_SK_RE = re.compile(r"^AMONTH#(\d{4}-\d{2})#([^#]+)$")

_ACCOUNT_YEAR_SK_RE = re.compile(r"^AYEAR#(\d{4})#([^#]+)$")

_SUBCATEGORY_SK_RE = re.compile(r"^MONTH#(\d{4}-\d{2})#SUB#([^#]+)#([^#]+)$")


def derived_key(sk: str) -> ItemKey | None:
    """The balance item an SK names, or None for any other item (slip, lock, counter...)."""
    if sk == NETS_SK:
        return NetsItem()
    if sk.startswith(TAX_YEAR_PREFIX) and re.fullmatch(r"\d{4}", sk.removeprefix(TAX_YEAR_PREFIX)):
        return TaxYearItem(sk.removeprefix(TAX_YEAR_PREFIX))
    if sk.startswith("ACCOUNT#"):
        return AccountItem(sk.removeprefix("ACCOUNT#"))
    if found := _DAY_SK_RE.match(sk):
        return DayItem(found.group(1), found.group(2))
    if found := _CATEGORY_SK_RE.match(sk):
        return CategoryMonthItem(found.group(1), found.group(2))
    if found := _ACCOUNT_MONTH_SK_RE.match(sk):
        return AccountMonthItem(found.group(2), found.group(1))
    if found := _ACCOUNT_YEAR_SK_RE.match(sk):
        return AccountYearItem(found.group(2), found.group(1))
    if found := _SUBCATEGORY_SK_RE.match(sk):
        return SubcategoryMonthItem(found.group(1), found.group(2), found.group(3))
    return None


def recurrence_sk(recurrence_id: str) -> str:
    return f"RECUR#{recurrence_id}"


# Shared household ledgers live in a partition namespace of their own: a personal ledger's PK is
# built from a JWT `sub`, which may be any printable string, so no `sub` can ever name one of these.
META_SK = "META"


def household_pk(ledger_id: str) -> str:
    return f"HOUSEHOLD#{ledger_id}"


def member_sk(user: str) -> str:
    return f"MEMBER#{user}"


def user_pk(user: str) -> str:
    """The partition listing the shared ledgers a user belongs to (one item per ledger)."""
    return f"USER#{user}"


def membership_sk(ledger_id: str) -> str:
    return f"LEDGER#{ledger_id}"


def token_pk(digest: str) -> str:
    """A personal access token, found by its SHA-256 alone (the one request it authorizes knows no more)."""
    return f"TOKEN#{digest}"


def user_token_sk(token_id: str) -> str:
    """A person's token as they list it (in their `USER#` partition): its name, scope and digest."""
    return f"TOKEN#{token_id}"


USER_TOKENS_SK = "TOKENS"  # a person's tokens head: its version serialises their creations (at most 20 live)


def invitation_pk(token: str) -> str:
    """An invitation, found by its token alone (the one who accepts it is not yet a member)."""
    return f"INVITE#{token}"


INVITATION_REFS = "INVITE#"


def invitation_ref_sk(token: str) -> str:
    """Where an invitation is listed besides its own item: in its ledger's partition, and in the USER#
    partitions of the people it names (who made it; who used it, once used). A ledger's deletion and a
    person's (DELETE /me) find it there and remove it with every item that lists it."""
    return f"{INVITATION_REFS}{token}"


def invitation_of_ref(sk: str) -> str | None:
    """The token of the invitation an item listing one (`invitation_ref_sk`) names; None for any other."""
    return sk.removeprefix(INVITATION_REFS) if sk.startswith(INVITATION_REFS) else None


def alert_sk(alert_id: str) -> str:
    """An alert raised in a ledger (store/alerts.py): once per identity (kind, subject, period)."""
    return f"ALERT#{alert_id}"


def goal_sk(goal_id: str) -> str:
    """A savings goal (目標貯金): its name, target, day and account."""
    return f"GOAL#{goal_id}"


def webhook_sk(webhook_id: str) -> str:
    return f"WEBHOOK#{webhook_id}"


def delivery_sk(webhook_id: str, seq: int) -> str:
    """One journal entry's delivery to one webhook: its attempts (newest first by seq in a Query)."""
    return f"DELIVERY#{webhook_id}#{seq:012d}"


RULES_SK = "RULES"  # the ledger's rule set: its order and version (the rules are RULES#{id}, read with it)


def rule_sk(rule_id: str) -> str:
    return f"{RULES_SK}#{rule_id}"


JOURNAL_SK = "JOURNAL"  # the ledger's journal head: the seq of its last entry
CHANGE_DIGITS = 12
CHANGE_PREFIX = "CHG#"


def change_sk(seq: int) -> str:
    """A journal entry: zero-padded, so key order is seq order."""
    return f"{CHANGE_PREFIX}{seq:0{CHANGE_DIGITS}d}"


def change_seq(sk: str) -> int:
    return int(sk.removeprefix(CHANGE_PREFIX))


def prefix_range(prefix: str) -> tuple[str, str]:
    """The SK range (inclusive) of the keys that start with `prefix`: up to the first string past all
    of them, which a reader drops if an item has exactly that key. A key range rather than
    begins_with: the same index range on DynamoDB, and DynamoDB Local serves begins_with by reading
    the whole partition."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def export_sk(export_id: str) -> str:
    """A ledger's export: its state and how far its archive is built (store/exports.py)."""
    return f"EXPORT#{export_id}"


RECONCILIATIONS = "RECON#"  # every account's assertions (§17)


def reconciliation_sk(account: str, reconciliation_id: str) -> str:
    """An account's assertion: account ids are slugs (no '#'), so one prefix holds one account's."""
    return f"{RECONCILIATIONS}{account}#{reconciliation_id}"


def reconciliations_prefix(account: str) -> str:
    return f"{RECONCILIATIONS}{account}#"


def reconciliation_run_sk(account: str, reconciliation_id: str) -> str:
    """A reconciliation (or its undo) under way: written before its first write, gone with its last.
    Under the account's prefix ("run" is lowercase: no id is), so one Query reads both."""
    return f"{RECONCILIATIONS}{account}#run#{reconciliation_id}"


EXPORTING_SK = "EXPORTING"  # the one export a ledger is building: its id (store/exports.py)


def tombstone_pk(ledger_id: str) -> str:
    """What stays of a deleted shared ledger: who deleted it and when (store/deletion.py)."""
    return f"GONE#{ledger_id}"


def gone_pk(ledger: str) -> str:
    """The tombstone of a ledger being deleted: a shared ledger's, or (a plain `sub`) the personal
    ledger of a person who had their data deleted (DELETE /me)."""
    return tombstone_pk(ledger) if isinstance(ledger, SharedLedger) else f"GONE#USER#{ledger}"


def idempotency_person(user: str) -> str:
    """The partition of `user`'s Idempotency-Key records in the IdempotencyTable (its `id`; each
    record's own key is its `sk`): a digest, not the `sub` itself. A person's records are found with
    one Query of it, and removed with their data (DELETE /me)."""
    return "P" + hashlib.sha256(user.encode()).hexdigest()[:24]


def limit_sk(window: int) -> str:
    """A person's request budgets' counters for one window, in their partition of the IdempotencyTable
    (store/limits.py): theirs and each of their tokens'."""
    return f"LIMIT#{window}"


def idempotency_tag(user: str) -> str:
    """What every Idempotency-Key record of `user`'s carries in its key (store/idempotency_layer.py):
    their partition, between two `#`."""
    return f"#{idempotency_person(user)}#"


_IDEMPOTENCY_TAG = re.compile(r"#(P[0-9a-f]{24})#")


def idempotency_partition(record_key: str) -> str:
    """The partition a record's key (with its person's tag) is stored in: its person's; a key without
    a tag (no person: never made by the API) is a partition of its own."""
    found = _IDEMPOTENCY_TAG.search(record_key)
    return found.group(1) if found else record_key


GONE_PREFIX = "GONE#"
DELETION_WORK = "GONE"  # the daily job's name for a tombstone's unfinished deletion (due index)


def ledger_of_gone_pk(partition: str) -> str | None:
    """The ledger (a SharedLedger, or a personal `sub`) a tombstone's partition names, if it is one."""
    if not partition.startswith(GONE_PREFIX):
        return None
    rest = partition.removeprefix(GONE_PREFIX)
    return rest.removeprefix("USER#") if rest.startswith("USER#") else SharedLedger(rest)


def restore_sk(sha256: str) -> str:
    """An archive a user restores (in their USER# partition): its state and the ledger it makes."""
    return f"RESTORE#{sha256}"


def bulk_sk(bulk_id: str) -> str:
    """A bulk edit of slips (§28): how far it got (its batches' entries, the slips they changed)."""
    return f"BULK#{bulk_id}"


def lots_sk(account: str) -> str:
    """A points account's lots (store/points.py)."""
    return f"LOTS#{account}"


def is_lots_sk(sk: str) -> bool:
    return sk.startswith("LOTS#")


RECEIPT = "RECEIPT#"


def receipt_sk(sha256: str) -> str:
    """A receipt (store/receipts.py), by the SHA-256 of its object."""
    return f"{RECEIPT}{sha256}"


def is_receipt_sk(sk: str) -> bool:
    return sk.startswith(RECEIPT)
