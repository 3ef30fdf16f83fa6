"""Pure rules of a slip (§30): what a slip says, as one frozen value whether it comes from a request
or from the slip's stored item, and the rules over a slip that read no storage.

No boto3, no HTTP, no store. A slip says its core (date, kind, amount, accounts, category, memo, a
split's lines) and what its facets add (a payee, who paid and the shares, receipts, each side's
state, a medical payment or a donation, another unit's amounts, when points expire, tags): the
fields of a request, every one (`SlipValue`'s fields are the request model's, in its order). Besides
what it says, a stored slip has its bookkeeping (id, number, version, when and by whom) and what the
write path keeps (services/slips).

The rules:
- `fingerprint`: what an Idempotency-Key's replay compares: the same request, the same value;
- `merge_patch`: a slip with an RFC 7396 merge patch applied, as a request would send it;
- `request_of`: a slip's view (as the journal keeps it) as a request would send it again;
- `stored`: the core fields of the slip's stored item; `view`, `lines_view`: what the API shows of a
  stored slip's core; `entry_of`: a stored slip's posting `Entry` (core/posting);
- `says_the_same`: whether a change says nothing new (then nothing is written, the version stays);
- `broken_sides`, `kept_sides`: what a change may do to a reconciled side (core/reconcile);
- `by_hand`: whether a slip's category is marked as chosen by a member.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from kakeibo.core import reconcile
from kakeibo.core.posting import UNCATEGORIZED, Entry, Kind, Line
from kakeibo.core.tax import donation_view, medical_view

Pairs = tuple[tuple[str, Any], ...]  # a nested object, frozen: its (name, value) pairs in its own order
EQUAL = "equal"  # shares split equally among the ledger's members (core/settle), kept as said

# what every write of a slip changes, whatever it says: not what the slip says (`says_the_same`)
BOOKKEEPING = ("version", "updated_at", "updated_by")
SIDE_STATES = tuple(reconcile.side_fields(role)[1] for role in ("account", "to_account"))  # cleared, to_cleared
LIST_FIELDS = ("lines", "receipts", "tags")  # said as lists: an empty one says nothing
BY_HAND = "category_by_hand"  # on a slip whose category a member chose (not a rule, a file or a schedule)


def _pairs(value: Mapping[str, Any] | None) -> Pairs | None:
    return None if value is None else tuple(value.items())


def _object(pairs: Pairs, *, drop_none: bool = False) -> dict[str, Any]:
    return {name: value for name, value in pairs if not (drop_none and value is None)}


@dataclass(frozen=True, slots=True)
class SplitLine:
    """One line of a split slip as it says it: its part of the amount, its category, and its own
    subcategory, memo and medical payment (None: none)."""

    amount: int
    category: str
    subcategory: str | None = None
    memo: str | None = None
    medical: Pairs | None = None

    def request(self) -> dict[str, Any]:
        """The line as a request sends it: its fields that say something (a medical payment whole)."""
        out: dict[str, Any] = {"amount": self.amount, "category": self.category}
        for name, value in (("subcategory", self.subcategory), ("memo", self.memo)):
            if value is not None:
                out[name] = value
        if self.medical is not None:
            out["medical"] = _object(self.medical)
        return out

    def stored(self) -> dict[str, Any]:
        """The line as the slip's item stores it: nothing empty, not even in its medical payment."""
        out = self.request()
        if self.medical is not None:
            out["medical"] = _object(self.medical, drop_none=True)
        return out


_NUMBERS = ("jpy_amount", "to_amount")
_LISTS = ("receipts", "tags")
_CORE = ("date", "kind", "amount", "account")
# what `of_request` and `of_item` read each in their own way; every other field is read as it is (_PLAIN)
_APART = (*_CORE, *_NUMBERS, *_LISTS, "lines", "paid_by", "shares", "medical", "donation")


def _lines(source: Mapping[str, Any], medical: Any) -> tuple[SplitLine, ...]:
    """A split's lines of `source`, each line's medical payment as `medical` reads it."""
    return tuple(
        SplitLine(
            int(line["amount"]),
            str(line["category"]),
            line.get("subcategory"),
            line.get("memo"),
            medical(line["medical"]) if line.get("medical") else None,
        )
        for line in source.get("lines") or ()
    )


@dataclass(frozen=True, slots=True)
class SlipValue:
    """What a slip says: every field of a request for it, in the request model's order, each None
    (or empty) when it says nothing of it. From a request (`of_request`) it is what was sent; from a
    stored item (`of_item`) it is what a request would send for the slip as it is: its category as
    stored, a side's state as stored (reconciled included), "equal" shares as "equal"."""

    date: str
    kind: Kind
    amount: int
    account: str
    to_account: str | None = None
    category: str | None = None
    subcategory: str | None = None
    memo: str | None = None
    payee: str | None = None
    lines: tuple[SplitLine, ...] = ()  # a split's lines; () not split
    paid_by: str | None = None
    shares: str | Pairs | None = None  # EQUAL, or each member's amount
    receipts: tuple[str, ...] = ()
    cleared: str | None = None
    to_cleared: str | None = None
    medical: Pairs | None = None
    donation: Pairs | None = None
    jpy_amount: int | None = None
    to_amount: int | None = None
    expires_on: str | None = None
    tags: tuple[str, ...] = ()

    @classmethod
    def of_request(cls, body: Mapping[str, Any]) -> SlipValue:
        """What a request says: its fields as its model gives them (plain values, nested objects as
        mappings); what it does not name says nothing. Fields that are not a slip's are not read."""
        shares = body.get("shares")
        return cls._of(
            body,
            lines=_lines(body, _pairs),
            paid_by=body.get("paid_by"),
            shares=shares if shares is None or isinstance(shares, str) else tuple(shares.items()),
            medical=_pairs(body.get("medical")),
            donation=_pairs(body.get("donation")),
        )

    @classmethod
    def of_item(cls, item: Mapping[str, Any]) -> SlipValue:
        """What the stored slip `item` says, as a request would send it for the slip as it is: whole
        numbers, its medical payment and donation as the API shows them, who paid and the shares only
        when somebody did ("equal" shares stay "equal" among the slip's own sharers)."""
        paid_by = item.get("paid_by") or None
        shares: str | Pairs | None = None
        if paid_by:
            given = item.get("shares") or {}
            shares = EQUAL if item.get("shares_mode") == EQUAL else tuple((k, int(v)) for k, v in given.items())
        return cls._of(
            item,
            lines=_lines(item, lambda medical: _pairs(medical_view(medical))),
            paid_by=paid_by,
            shares=shares,
            medical=_pairs(medical_view(item.get("medical"))),
            donation=_pairs(donation_view(item.get("donation"))),
        )

    @classmethod
    def _of(cls, source: Mapping[str, Any], **read: Any) -> SlipValue:
        """A slip of `source`'s plain fields (whole numbers as ints) and what `read` made of the rest."""
        fields: dict[str, Any] = {name: source.get(name) for name in _PLAIN}
        fields.update({name: None if source.get(name) is None else int(source[name]) for name in _NUMBERS})
        fields.update({name: tuple(source.get(name) or ()) for name in _LISTS})
        fields.update(date=source["date"], kind=source["kind"], amount=int(source["amount"]), account=source["account"])
        return cls(**fields, **read)

    def said(self, name: str) -> Any:
        """The field `name` as a request body has it (None: it says nothing of it)."""
        value = getattr(self, name)
        if name == "lines":
            return [line.request() for line in value] or None
        if name in LIST_FIELDS:
            return list(value) or None
        if name == "shares" and isinstance(value, tuple):
            return _object(value)
        if name in ("medical", "donation") and value is not None:
            return _object(value)
        return value

    def request(self) -> dict[str, Any]:
        """The slip as a request body would send it: every field that says something."""
        return {name: value for name in FIELDS if (value := self.said(name)) is not None}


FIELDS = tuple(f.name for f in fields(SlipValue))  # what a request says of a slip, every field
_PLAIN = tuple(name for name in FIELDS if name not in _APART)  # read as they are: a new plain field too


def fingerprint(slip: SlipValue) -> str:
    """sha256 of what the slip says as canonical JSON: the same request gives the same value, whatever
    the order of its fields or of its shares. Nothing named, an empty list and an uncleared side are
    all the same as none named: bodies from before those fields keep their fingerprint."""
    said: dict[str, Any] = {}
    for name in FIELDS:
        value = slip.said(name)
        if value is None or (name in SIDE_STATES and value == reconcile.UNCLEARED):
            continue
        said[name] = value
    if slip.lines:
        said["lines"] = lines_stored(slip)
    canonical = json.dumps(said, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def lines_stored(slip: SlipValue) -> list[dict[str, Any]] | None:
    """A split slip's lines as its item stores them (None: not split)."""
    return [line.stored() for line in slip.lines] or None


def stored(slip: SlipValue, category: str | None) -> dict[str, Any]:
    """The core fields of the slip's stored item (its key, bookkeeping and facets aside): `category`
    as its posting entry has it (uncategorized by default; none on a split or a transfer). A
    subcategory is absent rather than null (slips from before subcategories look alike); a split has
    its lines, and their categories for a list filtered by category."""
    item: dict[str, Any] = {
        "type": "slip",
        "date": slip.date,
        "kind": slip.kind,
        "amount": slip.amount,
        "account": slip.account,
        "to_account": slip.to_account,
        "category": category,
        "memo": slip.memo,
    }
    if slip.subcategory is not None:
        item["subcategory"] = slip.subcategory
    lines = lines_stored(slip)
    if lines:
        item["lines"] = lines
        item["line_categories"] = sorted({line["category"] for line in lines})
    return item


LINE_VIEW = ("amount", "category", "subcategory", "memo")  # and a medical payment on the lines with one


def lines_view(item: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A stored split slip's lines as the API shows them (None: not split)."""
    stored_lines = item.get("lines")
    if not stored_lines:
        return None
    out = []
    for line in stored_lines:
        view = {name: line.get(name) for name in LINE_VIEW}
        view["amount"] = int(line["amount"])
        if line.get("medical"):  # absent on the lines without: their view is as before
            view["medical"] = medical_view(line["medical"])
        out.append(view)
    return out


def view(item: Mapping[str, Any]) -> dict[str, Any]:
    """What the API shows of a stored slip's core, in its order (its id and number come before,
    its bookkeeping and what its facets show after)."""
    return {
        "date": item["date"],
        "kind": item["kind"],
        "amount": int(item["amount"]),
        "account": item["account"],
        "to_account": item.get("to_account"),
        "category": item.get("category"),
        "subcategory": item.get("subcategory"),
        "memo": item.get("memo"),
        "lines": lines_view(item),
    }


def entry_of(item: Mapping[str, Any], added: Mapping[str, Any]) -> Entry:
    """The stored slip's posting `Entry` (what it moves): its core, and what its facets add (`added`)."""
    lines = tuple(
        Line(int(line["amount"]), str(line["category"]), line.get("subcategory")) for line in item.get("lines") or ()
    )
    return Entry(
        date=item["date"],
        kind=item["kind"],
        amount=int(item["amount"]),
        account=item["account"],
        to_account=item.get("to_account"),
        category=item.get("category"),
        subcategory=item.get("subcategory"),
        lines=lines,
        **added,
    )


def says_the_same(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether the slip shown as `after` says exactly what the one shown as `before` says: every field
    either view has (a field absent from one is None there), bookkeeping aside."""
    return all(before.get(name) == after.get(name) for name in before.keys() | after.keys() if name not in BOOKKEEPING)


def _as_cleared(body: dict[str, Any]) -> None:
    """A reconciled side said as cleared: a request cannot say reconciled, the write keeps it so."""
    for name in SIDE_STATES:
        if body.get(name) == reconcile.RECONCILED:
            body[name] = reconcile.CLEARED


def request_of(view: Mapping[str, Any], *, derived: bool) -> dict[str, Any]:
    """A slip's view (as the journal keeps it) as a request would send it again: a reconciled side as
    cleared; `derived`: the slip's yen follows its amount (a points slip), so none is sent."""
    body = {name: view[name] for name in FIELDS if view.get(name) is not None}
    _as_cleared(body)
    if derived:
        body.pop("jpy_amount", None)
    return body


def merge_patch(current: SlipValue, patch: Mapping[str, Any], *, derived: bool) -> dict[str, Any]:
    """RFC 7396 over what the slip `current` says (null removes), as a request would send the patched
    slip (to be validated as a whole one). `derived`: its yen follows its amount (a points slip).

    What else a patch takes with it: nobody paying takes the shares; lines take the slip's own
    category, and one category again (or a transfer) takes the lines; turning into a transfer takes
    the category, and out of one its receiving account and side; another category takes its
    subcategory. A reconciled side is said as cleared (the write keeps it reconciled)."""
    merged = current.request()
    if derived:
        merged.pop("jpy_amount", None)
    _as_cleared(merged)
    merged.update(patch)
    if "paid_by" in patch and patch["paid_by"] is None and "shares" not in patch:
        merged["shares"] = None  # nobody paid for anybody: no shares either
    if patch.get("lines") is not None:  # split: the lines have the categories
        merged["category"] = merged["subcategory"] = None
    elif (patch.get("category") is not None or merged.get("kind") == "transfer") and "lines" not in patch:
        merged["lines"] = None  # one category again (or a transfer): no lines
    if merged.get("kind") == "transfer" and "kind" in patch and "category" not in patch:
        merged["category"] = None  # turning into a transfer drops the category
    if "category" in patch and "subcategory" not in patch and patch["category"] != current.category:
        merged["subcategory"] = None  # a subcategory belongs to its category
    if merged.get("category") is None:
        merged["subcategory"] = None
    if merged.get("kind") != "transfer" and "kind" in patch and "to_account" not in patch:
        merged["to_account"] = None
    if merged.get("kind") != "transfer" and "to_cleared" not in patch:
        merged["to_cleared"] = None  # only a transfer has a receiving side
    return {name: value for name, value in merged.items() if value is not None}


def broken_sides(current: Mapping[str, Any], new: SlipValue | None) -> tuple[reconcile.Role, ...]:
    """The reconciled sides of the stored slip `current` that its change into `new` (None: its
    deletion) breaks: a reconciled side keeps its amount, date, kind, account and state (cleared is
    asked as reconciled); an unreconciled side may change anything (core/reconcile.broken_sides)."""
    return reconcile.broken_sides(current, None if new is None else {name: getattr(new, name) for name in FIELDS})


def kept_sides(
    current: Mapping[str, Any], states: Mapping[str, Any], broken: Iterable[reconcile.Role]
) -> dict[str, Any]:
    """The state and reconciliation of each side `current` has reconciled, as the new item has them
    (None: absent), given the new item's `states` as asked: a side the change leaves as summed stays
    reconciled by the same reconciliation; a broken one is cleared again (or uncleared, as asked) and
    names no reconciliation. The sides `current` has not reconciled are not named."""
    out: dict[str, Any] = {}
    broken = tuple(broken)
    for role in ("account", "to_account"):
        _, state, by = reconcile.side_fields(role)
        if current.get(state) != reconcile.RECONCILED:
            continue
        if role in broken:
            asked = states.get(state)
            out[state] = asked if asked in (None, reconcile.UNCLEARED) else reconcile.CLEARED
            out[by] = None
        else:
            out[state], out[by] = reconcile.RECONCILED, current.get(by)
    return out


def by_hand(current: Mapping[str, Any], category: str | None, *, chosen: bool) -> bool:
    """Whether the slip that `current` becomes, in `category`, is marked as categorised by hand:
    when the caller chose a category (`chosen`; not uncategorized), or, when they did not, while the
    category stays the one a member chose."""
    if chosen:
        return category not in (None, UNCATEGORIZED)
    return bool(current.get(BY_HAND)) and category == current.get("category")
