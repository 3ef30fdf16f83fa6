"""A slip's facets (§30): each capability's part of a slip, and the write path that runs them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core.posting import Entry
from kakeibo.models.slips import Slip, SlipIn
from kakeibo.services import facets
from kakeibo.services.slips import entry_of, new_slip_item, slip_view

WRITE_PATH = {
    "slip_view", "entry_of", "_slip_item", "new_slip_item", "_create_slip", "write_slip", "changed_item",
    "write_slips", "remove_slip", "remove_slips", "restore_slips", "_restored",
}  # fmt: skip
SLIPS = Path(__file__).resolve().parents[2] / "src" / "kakeibo" / "services" / "slips.py"

# A slip that has every field a facet adds (not every one makes sense on one slip: a view shows them
# all the same): receipts, sharing, a reconciled side, a medical payment and a donation, another
# unit's yen and what a transfer brought, the points' expiry and lapse, a payee, tags
EVERYTHING: dict[str, Any] = {
    "SK": "SLIP#2026-11-03#s1", "type": "slip", "id": "s1", "no": 7, "date": "2026-11-03", "kind": "expense",
    "amount": 1200, "account": "usd", "to_account": None, "category": "医療", "memo": "薬",
    "receipts": ["r2", "r1"], "paid_by": "hanako", "shares": {"taro": 600, "hanako": 600}, "shares_mode": "equal",
    "cleared": "reconciled",
    "medical": {"patient": "太郎", "provider": "薬局", "kind": "medicine", "reimbursed": 0, "otc": True},
    "donation": {"municipality": "北海道紋別市", "one_stop": True}, "jpy_amount": 1500, "to_amount": 10,
    "expires_on": "2027-11-30", "lapse_of": "s0", "jpy_rated": True,
    "payee": "ドラッグストア", "payee_key": "ドラッグストア", "imported_payee": "ﾄﾞﾗｯｸﾞｽﾄｱ",
    "tags": ["旅行"], "version": 3, "created_at": "2026-11-03T00:00:00Z", "updated_at": "2026-11-03T00:00:00Z",
    "created_by": "hanako", "updated_by": "hanako",
}  # fmt: skip


def test_every_field_of_a_slip_is_shown_by_its_core_or_by_one_facet() -> None:
    # Given a slip with every facet, When each facet shows it
    shown = [set(facet.view(EVERYTHING)) for facet in facets.FACETS]
    # Then no two facets show the same field
    for i, one in enumerate(shown):
        for other in shown[i + 1 :]:
            assert not one & other, (one, other)
    # And the core and the facets together show exactly the fields of the API's Slip (its category
    # in words is the HTTP layer's, in the caller's language)
    assert set(slip_view(EVERYTHING)) == set(Slip.model_fields) - {"category_label"}


def test_every_field_of_an_entry_comes_from_the_core_or_from_one_facet() -> None:
    # Given a slip with every facet, When each facet says what it adds to the slip's Entry
    added = [set(facet.entry(EVERYTHING)) for facet in facets.FACETS]
    # Then no two facets add the same field
    for i, one in enumerate(added):
        for other in added[i + 1 :]:
            assert not one & other, (one, other)
    # And the Entry is complete: the core's fields and theirs are every field of an Entry
    core = {"date", "kind", "amount", "account", "to_account", "category", "subcategory", "lines"}
    assert core | set().union(*added) == set(Entry.__dataclass_fields__)
    entry = entry_of(EVERYTHING)
    assert entry.paid_by == "hanako" and entry.shares == (("hanako", 600), ("taro", 600))
    assert entry.cleared is True and entry.jpy_amount == 1500 and entry.tags == ("旅行",)
    assert dict(entry.tax)  # the medical payment counts in its year's tax item


BODIES = st.fixed_dictionaries(
    {"date": st.just("2026-11-03"), "kind": st.just("expense"), "amount": st.integers(1, 10**6),
     "account": st.just("cash")},
    optional={
        "category": st.sampled_from(["食費", "医療"]),
        "memo": st.text(min_size=1, max_size=8).filter(str.isprintable).filter(str.strip),
        "payee": st.sampled_from(["ｽｰﾊﾟｰ", "ドラッグストア"]),
        "tags": st.lists(st.sampled_from(["旅行", "TRIP", "帰省"]), max_size=3),
        "receipts": st.lists(st.sampled_from(["a" * 64, "b" * 64]), max_size=2, unique=True),
        "cleared": st.sampled_from(["uncleared", "cleared"]),
        "medical": st.just({"patient": "太郎", "provider": "市立病院", "kind": "treatment"}),
    },
)  # fmt: skip


@settings(deadline=None, max_examples=60)
@given(body=BODIES)
def test_what_the_facets_store_of_a_request_is_what_they_show_of_it(body: dict[str, Any]) -> None:
    # Given any request for a slip, When its item is made and shown again
    request = SlipIn.model_validate(body)
    view = slip_view(new_slip_item(request, "s1", stamp="2026-11-03T00:00:00Z", no=1, by="hanako"))
    # Then what each facet stored is what the slip shows: the request's own values, or their defaults
    assert view["payee"] if "payee" in body else "payee" not in view
    assert view.get("tags", []) == list(request.tags or [])
    assert view["receipts"] == sorted(request.receipts or [])
    assert view["cleared"] == body.get("cleared", "uncleared")
    assert ("medical" in view) == ("medical" in body)
    # And a request that says the same as the slip's view makes the same item (nothing changes)
    again = SlipIn.model_validate({k: v for k, v in view.items() if k in SlipIn.model_fields and v is not None})
    assert slip_view(new_slip_item(again, "s1", stamp="2026-11-03T00:00:00Z", no=1, by="hanako")) == view


def test_the_write_path_names_no_facet_of_its_own() -> None:
    # Given the slips' write path (how a slip's item, view and entry are made, and every create,
    # change, delete and restore), When its code is read
    tree = ast.parse(SLIPS.read_text(encoding="utf-8"))
    path = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in WRITE_PATH]
    assert {node.name for node in path} == WRITE_PATH
    nodes = [node for function in path for node in ast.walk(function)]
    names = {node.attr for node in nodes if isinstance(node, ast.Attribute)}
    strings = {node.value for node in nodes if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    # Then what tags, payees, receipts and points add to a slip is theirs: the path runs the facets
    assert not {"tags", "payee", "receipts", "lot_ops", "ref_ops"} & (names | strings)
    # And so is what sharing and units make of a slip before it is written: the path prepares it
    assert not {"sharing", "priced", "paid_by", "shares", "jpy_amount", "RATED"} & (names | strings)


@settings(deadline=None, max_examples=80)
@given(body=BODIES)
def test_the_entry_a_request_gives_is_the_entry_its_stored_slip_gives(body: dict[str, Any]) -> None:
    # Given any request for a slip (the model's entry: what the write path posts)
    request = SlipIn.model_validate(body)
    # When its item is made and its entry read back from the item (core/slip and the facets)
    stored = entry_of(new_slip_item(request, "s1", stamp="2026-11-03T00:00:00Z", no=1, by="hanako"))
    # Then both say the same: what a slip posts when written is what it posts when read again
    assert stored == request.entry()
