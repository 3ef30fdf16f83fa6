"""Properties of a slip's pure rules (core/slip.py), checked with hypothesis."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import reconcile, slip
from kakeibo.core.posting import UNCATEGORIZED
from kakeibo.core.slip import SlipValue
from kakeibo.models.slips import SlipIn
from kakeibo.services.slips import new_slip_item

MEDICAL = {"patient": "太郎", "provider": "市立病院", "kind": "treatment", "reimbursed": 0, "otc": False}


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A valid request body for a slip of a personal ledger (nobody pays from their own pocket)."""
    kind = draw(st.sampled_from(["expense", "income", "transfer"]))
    amount = draw(st.integers(2, 10**6))
    body: dict[str, Any] = {
        "date": draw(st.sampled_from(["2026-11-03", "2026-12-31"])),
        "kind": kind,
        "amount": amount,
        "account": draw(st.sampled_from(["cash", "bank"])),
    }
    if kind == "transfer":
        body["to_account"] = "suica"
        if draw(st.booleans()):
            body["to_cleared"] = "cleared"
    elif draw(st.booleans()):  # a split
        first = draw(st.integers(1, amount - 1))
        body["lines"] = [
            {"amount": first, "category": "食費", **draw(st.sampled_from([{}, {"subcategory": "外食"}]))},
            {"amount": amount - first, "category": "医療", **draw(st.sampled_from([{}, {"memo": "薬"}]))},
        ]
        if kind == "expense" and draw(st.booleans()):
            body["lines"][1]["medical"] = MEDICAL
    else:
        body["category"] = draw(st.sampled_from(["食費", "医療", UNCATEGORIZED]))
        if draw(st.booleans()):
            body["subcategory"] = "外食"
        if kind == "expense" and draw(st.booleans()):
            body["medical"] = MEDICAL
    optional = {
        "memo": st.sampled_from(["ランチ", "薬局"]),
        "payee": st.sampled_from(["ｽｰﾊﾟｰ", "ドラッグストア"]),
        "receipts": st.lists(st.sampled_from(["a" * 64, "b" * 64]), min_size=1, max_size=2, unique=True),
        "tags": st.lists(st.sampled_from(["旅行", "帰省"]), min_size=1, max_size=2, unique=True),
        "cleared": st.just("cleared"),
    }
    for name, values in optional.items():
        if draw(st.booleans()):
            body[name] = draw(values)
    return body


def said(body: dict[str, Any]) -> SlipValue:
    return SlipValue.of_request(SlipIn.model_validate(body).model_dump())


LUNCH = {
    "date": "2026-11-03",
    "kind": "expense",
    "amount": 1200,
    "account": "cash",
    "category": "食費",
    "memo": "ランチ",
}
SPLIT = {
    "date": "2026-11-03", "kind": "expense", "amount": 3000, "account": "cash", "payee": "薬局", "cleared": "cleared",
    "tags": ["旅行"], "receipts": ["a" * 64], "paid_by": "hanako", "shares": {"taro": 1000, "hanako": 2000},
    "lines": [{"amount": 1000, "category": "医療", "medical": {"patient": "太郎", "kind": "medicine"}},
              {"amount": 2000, "category": "日用品", "memo": "洗剤"}],
}  # fmt: skip
TRANSFER = {
    "date": "2026-11-03", "kind": "transfer", "amount": 500, "account": "bank", "to_account": "suica",
    "to_cleared": "uncleared", "receipts": [],
}  # fmt: skip


def test_a_slip_says_every_field_a_request_has_in_its_order() -> None:
    # Given the request model of a slip, When the value's fields are read
    # Then they are the request's, every one, in its order: a field added to requests is the value's too
    assert tuple(SlipIn.model_fields) == slip.FIELDS


@pytest.mark.parametrize(
    ("body", "known"),
    [
        (LUNCH, "be9b8f8cf55dafd0af23901aa0d74269802788dfd96e1d78271a3c5c4992562a"),
        (SPLIT, "27c1a3da481260b72ebb9f1a6a67f31eef8b6222a3483fbd8796d85e6a9b3bbf"),
        (TRANSFER, "d5e1ca9232dd5a6dd3c4534ba398d9467c52f9f4a77fb0e00f0ee6530ab85852"),
    ],
)
def test_a_request_keeps_the_fingerprint_its_identity_has_stored(body: dict[str, Any], known: str) -> None:
    # Given a request whose fingerprint an identity item already holds (a simple slip, a shared split
    # with a medical line, a transfer naming an uncleared side and no receipts)
    # When its fingerprint is made, Then it is that value: a replay of it is still the same request
    assert slip.fingerprint(said(body)) == known


@settings(deadline=None, max_examples=80)
@given(body=requests(), order=st.randoms(use_true_random=False))
def test_a_fingerprint_is_the_same_whatever_the_order_of_the_request(body: dict[str, Any], order: Any) -> None:
    # Given a request, and the same request with its fields (and its shares) in another order
    names = list(body)
    order.shuffle(names)
    reordered = {name: body[name] for name in names}
    shared = {**body, "paid_by": "hanako", "shares": {"hanako": 1, "taro": body["amount"] - 1}}
    shared_reordered = {**shared, "shares": dict(reversed(list(shared["shares"].items())))}
    # When their fingerprints are made, Then they are the same
    assert slip.fingerprint(said(reordered)) == slip.fingerprint(said(body))
    value = SlipValue.of_request(shared)
    assert slip.fingerprint(value) == slip.fingerprint(SlipValue.of_request(shared_reordered))


@settings(deadline=None, max_examples=80)
@given(body=requests(), more=st.integers(1, 1000))
def test_a_fingerprint_differs_when_the_amount_does(body: dict[str, Any], more: int) -> None:
    # Given a request, When its amount (and so a line's, or its yen) is another
    value = said(body)
    changed = replace(value, amount=value.amount + more)
    # Then its fingerprint is another
    assert slip.fingerprint(changed) != slip.fingerprint(value)
    # And saying nothing of a side's state, of receipts or of tags is the same as saying none
    states = ("cleared", "to_cleared") if body["kind"] == "transfer" else ("cleared",)
    bare = {k: v for k, v in body.items() if k not in ("receipts", "tags", *states)}
    plain = {**bare, "receipts": [], "tags": [], **dict.fromkeys(states, "uncleared")}
    assert slip.fingerprint(said(plain)) == slip.fingerprint(said(bare))
    assert slip.fingerprint(said({**bare, "tags": ["旅行"]})) != slip.fingerprint(said(bare))


@settings(deadline=None, max_examples=80)
@given(body=requests())
def test_a_slip_as_a_request_says_itself_again(body: dict[str, Any]) -> None:
    # Given what a request says, When it is sent again as a request and read back
    value = said(body)
    again = said(value.request())
    # Then it says the same, to its fingerprint
    assert again == value
    assert slip.fingerprint(again) == slip.fingerprint(value)


@settings(deadline=None, max_examples=80)
@given(body=requests())
def test_an_item_made_of_a_slip_and_read_back_is_the_same_slip(body: dict[str, Any]) -> None:
    # Given what a request says (its category named), When its item is made (its core by core/slip,
    # the rest by the facets) and read back
    value = said(body)
    item = new_slip_item(SlipIn.model_validate(body), "s1", stamp="2026-11-03T00:00:00Z", no=1, by="hanako")
    # Then the item says what the request said, and its core is what core/slip stores of it
    assert SlipValue.of_item(item) == value
    assert slip.stored(value, item["category"]).items() <= item.items()
    # And the stored core alone reads back as the slip's core
    core = SlipValue.of_item(slip.stored(value, value.category))
    assert core == SlipValue(value.date, value.kind, value.amount, value.account, value.to_account, value.category,
                             value.subcategory, value.memo, lines=value.lines)  # fmt: skip


@settings(deadline=None, max_examples=80)
@given(body=requests(), derived=st.booleans())
def test_an_empty_merge_patch_is_the_slip_itself(body: dict[str, Any], derived: bool) -> None:
    # Given a slip, When it is patched with nothing
    value = said(body)
    merged = slip.merge_patch(value, {}, derived=derived)
    # Then the patched slip is the slip as a request says it (a yen that follows its amount left to it)
    expected = {k: v for k, v in value.request().items() if not (derived and k == "jpy_amount")}
    assert merged == expected
    assert said(merged) == value or derived


@settings(deadline=None, max_examples=80)
@given(body=requests(), memo=st.sampled_from(["夕食", None]), amount=st.integers(1, 10**6))
def test_a_merge_patch_sets_what_it_names_and_null_removes(body: dict[str, Any], memo: str | None, amount: int) -> None:
    # Given a slip, When a patch names its memo (or nulls it) and its amount
    value = said(body)
    merged = slip.merge_patch(value, {"memo": memo, "amount": amount}, derived=False)
    # Then the memo is the patch's (or gone) and so is the amount; what it does not name stays
    assert merged.get("memo") == memo
    assert merged["amount"] == amount
    assert {k: v for k, v in merged.items() if k not in ("memo", "amount")} == {
        k: v for k, v in value.request().items() if k not in ("memo", "amount")
    }


def test_what_a_merge_patch_takes_with_it() -> None:
    # Given a slip in a category and subcategory, split lines, a transfer and a shared slip
    lunch = said({**LUNCH, "subcategory": "外食"})
    split = said({k: v for k, v in SPLIT.items() if k not in ("paid_by", "shares")})
    transfer = said(TRANSFER)
    shared = SlipValue.of_request({**LUNCH, "paid_by": "hanako", "shares": "equal"})
    # When each is patched, Then what belongs to what the patch changes goes with it
    assert "subcategory" not in slip.merge_patch(lunch, {"category": "医療"}, derived=False)
    assert slip.merge_patch(lunch, {"category": "食費"}, derived=False)["subcategory"] == "外食"
    lines = [{"amount": 600, "category": "a"}, {"amount": 600, "category": "b"}]
    assert "category" not in slip.merge_patch(lunch, {"lines": lines}, derived=False)
    assert "lines" not in slip.merge_patch(split, {"category": "食費"}, derived=False)
    to_transfer = slip.merge_patch(lunch, {"kind": "transfer", "to_account": "suica"}, derived=False)
    assert "category" not in to_transfer and "subcategory" not in to_transfer
    from_transfer = slip.merge_patch(transfer, {"kind": "expense"}, derived=False)
    assert "to_account" not in from_transfer and "to_cleared" not in from_transfer
    assert "shares" not in slip.merge_patch(shared, {"paid_by": None}, derived=False)
    assert slip.merge_patch(shared, {}, derived=False)["shares"] == "equal"


def test_a_reconciled_side_is_sent_again_as_cleared() -> None:
    # Given a stored transfer whose both sides a reconciliation summed, and a points slip's yen
    item = {**TRANSFER, "id": "s1", "cleared": "reconciled", "to_cleared": "reconciled", "jpy_amount": 5}
    # When it is patched with nothing, or its view is sent again as a request
    merged = slip.merge_patch(SlipValue.of_item(item), {}, derived=True)
    again = slip.request_of(item, derived=True)
    # Then each side is cleared (the write keeps it reconciled) and the yen is left to the amount
    for body in (merged, again):
        assert (body["cleared"], body["to_cleared"]) == ("cleared", "cleared")
        assert "jpy_amount" not in body
    assert slip.request_of(item, derived=False)["jpy_amount"] == 5
    assert "id" not in again  # only what a request says


VIEW_VALUES = st.sampled_from(["a", "b", 1, 2, None, ["x"], {"k": 1}])


@settings(deadline=None, max_examples=100)
@given(
    view=st.dictionaries(st.sampled_from(["memo", "amount", "payee", "tags", "lines", "version", "id"]), VIEW_VALUES),
    name=st.sampled_from(["memo", "amount", "payee", "tags", "lines", "id"]),
    other=VIEW_VALUES,
    bookkeeping=st.fixed_dictionaries({"version": st.integers(1, 9), "updated_at": st.text(max_size=3)}),
)
def test_nothing_changed_is_what_says_the_same(
    view: dict[str, Any], name: str, other: Any, bookkeeping: dict[str, Any]
) -> None:
    # Given a slip's view, Then it says the same as itself, and as itself with other bookkeeping
    assert slip.says_the_same(view, dict(view))
    assert slip.says_the_same(view, {**view, **bookkeeping, "updated_by": "taro"})
    # And a view in which any field the slip says is another (absent counting as null) is a change
    changed = {**view, name: other}
    assert slip.says_the_same(view, changed) == (view.get(name) == other)
    assert slip.says_the_same(changed, view) == (view.get(name) == other)


SIDES = st.sampled_from([None, reconcile.CLEARED, reconcile.RECONCILED])


@settings(deadline=None, max_examples=150)
@given(
    state=SIDES,
    to_state=SIDES,
    change=st.sampled_from(["amount", "date", "account", "to_account", "memo", "uncleared", "nothing"]),
)
def test_a_reconciled_side_keeps_what_its_reconciliation_summed(
    state: str | None, to_state: str | None, change: str
) -> None:
    # Given a stored transfer whose sides are each uncleared, cleared or reconciled
    item = {**TRANSFER, "cleared": state, "to_cleared": to_state, "reconciled_by": "r1", "to_reconciled_by": "r2"}
    current = SlipValue.of_item(item)
    asked = replace(current, cleared=current.cleared and "cleared", to_cleared=current.to_cleared and "cleared")
    # When a change asks for another amount, date, an account, a memo, one side uncleared, or nothing
    new = {
        "amount": replace(asked, amount=asked.amount + 1),
        "date": replace(asked, date="2026-11-04"),
        "account": replace(asked, account="cash"),
        "to_account": replace(asked, to_account="pasmo"),
        "memo": replace(asked, memo="新しいメモ"),
        "uncleared": replace(asked, cleared="uncleared", to_cleared="uncleared"),
        "nothing": asked,
    }[change]
    broken = slip.broken_sides(item, new)
    reconciled = tuple(r for r, s in (("account", state), ("to_account", to_state)) if s == reconcile.RECONCILED)
    # Then a reconciled side breaks when its amount, date, own account or state changes; a memo, or
    # nothing, breaks none; an unreconciled side never breaks; a deletion breaks every reconciled side
    if change in ("amount", "date", "uncleared"):
        assert broken == reconciled
    elif change == "account":
        assert broken == tuple(r for r in reconciled if r == "account")
    elif change == "to_account":
        assert broken == tuple(r for r in reconciled if r == "to_account")
    else:
        assert broken == ()
    assert slip.broken_sides(item, None) == reconciled
    # And the new item keeps each reconciled side the change left by the same reconciliation; a broken
    # one is as asked (cleared, or uncleared) and names no reconciliation; other sides are not touched
    states = {"cleared": new.cleared, "to_cleared": new.to_cleared}
    kept = slip.kept_sides(item, states, broken)
    for role in reconciled:
        _, field, by = reconcile.side_fields(role)
        if role in broken:
            assert kept[field] == states[field] and kept[by] is None
        else:
            assert (kept[field], kept[by]) == (reconcile.RECONCILED, item[by])
    assert set(kept) == {name for role in reconciled for name in reconcile.side_fields(role)[1:]}


@settings(deadline=None, max_examples=60)
@given(
    marked=st.booleans(),
    before=st.sampled_from(["食費", "医療", UNCATEGORIZED]),
    after=st.sampled_from(["食費", "医療", UNCATEGORIZED, None]),
    chosen=st.booleans(),
)
def test_a_category_chosen_by_hand_stays_marked_while_it_stays(
    marked: bool, before: str, after: str | None, chosen: bool
) -> None:
    # Given a stored slip in a category (marked as chosen by hand, or not)
    current = {"category": before, **({slip.BY_HAND: True} if marked else {})}
    # When it changes into `after`, the caller choosing the category or not
    mark = slip.by_hand(current, after, chosen=chosen)
    # Then a category the caller chose is marked (not uncategorized); otherwise a mark stays only on
    # the same category
    if chosen:
        assert mark == (after not in (None, UNCATEGORIZED))
    else:
        assert mark == (marked and after == before)


@settings(deadline=None, max_examples=60)
@given(body=requests())
def test_a_stored_slip_moves_what_its_core_says(body: dict[str, Any]) -> None:
    # Given a stored slip, When its posting entry is made with what its facets add
    item = new_slip_item(SlipIn.model_validate(body), "s1", stamp="2026-11-03T00:00:00Z", no=1, by="hanako")
    entry = slip.entry_of(item, {"tags": ("旅行",), "cleared": True})
    # Then its core is the slip's, what the facets add is theirs, and it is what the request would move
    request = SlipIn.model_validate(body).entry()
    assert (entry.date, entry.kind, entry.amount, entry.account, entry.to_account) == (
        request.date, request.kind, request.amount, request.account, request.to_account,
    )  # fmt: skip
    assert (entry.category, entry.subcategory, entry.lines) == (request.category, request.subcategory, request.lines)
    assert entry.tags == ("旅行",) and entry.cleared is True


CORE_SHOWN = ["date", "kind", "amount", "account", "to_account", "category", "subcategory", "memo"]


def test_a_stored_slips_core_is_shown_in_whole_numbers() -> None:
    # Given a stored split slip (its numbers as a store may give them) and a slip not split
    item = {**SPLIT, "id": "s1", "lines": [{"amount": 1000.0, "category": "医療", "medical": MEDICAL},
                                           {"amount": 2000, "category": "日用品", "memo": "洗剤"}]}  # fmt: skip
    # When its core is shown
    shown = slip.view(item)
    # Then its fields are in their order, its lines whole numbers with every field (a medical
    # payment only on the line that has one), and a slip not split shows no lines
    assert list(shown) == [*CORE_SHOWN, "lines"]
    assert shown["lines"] == [
        {"amount": 1000, "category": "医療", "subcategory": None, "memo": None, "medical": MEDICAL},
        {"amount": 2000, "category": "日用品", "subcategory": None, "memo": "洗剤"},
    ]
    assert type(shown["lines"][0]["amount"]) is int
    assert slip.view(LUNCH)["lines"] is None
