"""Slips through the handler (moto): validation, hostile input, listing, paging, isolation."""

from __future__ import annotations

from typing import Any

import pytest

from kakeibo.core import slip
from kakeibo.models.slips import SlipIn
from kakeibo.services.slips import says_the_same
from tests.events import Client

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}


@pytest.fixture
def cash(api: Client) -> Client:
    api.account("cash", 20000)
    api.account("suica", 5000, type="emoney")
    return api


def test_create_answers_201_with_etag_location_and_a_slip_number(cash: Client) -> None:
    first = cash.slip(**LUNCH, memo="ランチ 🍱")
    second = cash.slip(**LUNCH)
    assert first.status == second.status == 201
    assert first.etag == '"1"'
    assert first.header("Location") == f"/slips/2026-11-03/{first.json['id']}"
    assert first.json["memo"] == "ランチ 🍱"
    assert second.json["no"] > first.json["no"]
    assert cash.get(first.header("Location") or "").json == first.json


def test_category_defaults_to_uncategorized_and_income_adds(cash: Client) -> None:
    assert cash.slip(date="2026-11-25", kind="income", amount=300000, account="cash").status == 201
    slip = cash.slip(date="2026-11-25", kind="expense", amount=100, account="cash").json
    assert slip["category"] == "uncategorized"
    assert cash.balances()["cash"] == 20000 + 300000 - 100


HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("float amount", {**LUNCH, "amount": 12.5}),
    ("integral float", {**LUNCH, "amount": 1200.0}),
    ("string amount", {**LUNCH, "amount": "1200"}),
    ("boolean amount", {**LUNCH, "amount": True}),
    ("zero amount", {**LUNCH, "amount": 0}),
    ("negative amount", {**LUNCH, "amount": -5}),
    ("huge amount", {**LUNCH, "amount": 10**12 + 1}),
    ("enormous amount", {**LUNCH, "amount": 10**40}),
    ("impossible date", {**LUNCH, "date": "2026-02-30"}),
    ("month 13", {**LUNCH, "date": "2026-13-01"}),
    ("not a date", {**LUNCH, "date": "yesterday"}),
    ("year 0001", {**LUNCH, "date": "0001-01-01"}),
    ("unknown field", {**LUNCH, "shop": "x"}),
    ("unknown kind", {**LUNCH, "kind": "gift"}),
    ("huge memo", {**LUNCH, "memo": "あ" * 501}),
    ("category with separator", {**LUNCH, "category": "食費#CAT#x"}),
    ("category with control char", {**LUNCH, "category": "食\u0000費"}),
    ("lone surrogate memo", {**LUNCH, "memo": "\ud800"}),
    ("bidi override category", {**LUNCH, "category": "\u202e費食"}),
    *[
        (f"bidi control U+{ord(ch):04X} in memo", {**LUNCH, "memo": f"返金{ch}000,01"})
        for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ],
    ("account with separator", {**LUNCH, "account": "cash#DAY"}),
    ("account path traversal", {**LUNCH, "account": "../cash"}),
    ("transfer without to_account", {**LUNCH, "kind": "transfer", "category": None}),
    (
        "transfer to itself",
        {"date": "2026-11-03", "kind": "transfer", "amount": 1, "account": "cash", "to_account": "cash"},
    ),
    (
        "transfer with category",
        {
            "date": "2026-11-03",
            "kind": "transfer",
            "amount": 1,
            "account": "cash",
            "to_account": "suica",
            "category": "x",
        },
    ),
    ("expense with to_account", {**LUNCH, "to_account": "suica"}),
    ("array body", [LUNCH]),  # type: ignore[list-item]
    ("null body", None),  # type: ignore[list-item]
]


@pytest.mark.parametrize(("name", "body"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_input_is_a_clear_4xx_and_changes_nothing(cash: Client, name: str, body: Any) -> None:
    # When a hostile slip is posted
    reply = cash.post("/slips", raw=_json(body))
    # Then it is refused with a problem, and nothing was written
    assert 400 <= reply.status < 500, reply
    assert reply.header("Content-Type") == "application/problem+json"
    assert reply.json["code"] in ("validation_error", "bad_request")
    assert cash.get("/slips").json["items"] == []
    assert cash.balances() == {"cash": 20000, "suica": 5000}


def _json(body: Any) -> str:
    import json

    return json.dumps(body, ensure_ascii=False) if body is not None else "null"


def test_japanese_categories_are_welcome_and_normalised(cash: Client) -> None:
    # "が" as one code point and as か + combining mark are the same category
    a = cash.slip(**{**LUNCH, "category": "が"}).json
    b = cash.slip(**{**LUNCH, "category": "か\u3099"}).json
    assert a["category"] == b["category"] == "が"
    report = cash.get("/reports/monthly", query={"month": "2026-11"}).json
    assert report["by_category"] == [{"category": "が", "category_label": "が", "income": 0, "expense": 2400}]


def test_unknown_account_is_422_and_changes_nothing(cash: Client) -> None:
    reply = cash.slip(**{**LUNCH, "account": "nanaco"})
    assert reply.status == 422
    assert reply.json["errors"][0]["loc"] == ["body", "account"]
    transfer = cash.slip(date="2026-11-03", kind="transfer", amount=1, account="cash", to_account="nope")
    assert transfer.status == 422
    assert transfer.json["errors"][0]["loc"] == ["body", "to_account"]
    assert cash.balances() == {"cash": 20000, "suica": 5000}
    assert cash.get("/slips").json["items"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/slips/2026-11-03/NOPE",
        "/slips/2026-02-30/01KAJ0000000000000000000AB",
        "/slips/not-a-date/01KAJ0000000000000000000AB",
        "/slips/2026-11-03/..%2F..%2Faccounts",
        "/slips/2026-11-03/%23ACCOUNT%23cash",
        "/slips/2026-11-03/" + "A" * 300,
    ],
)
def test_forged_slip_paths_are_404(cash: Client, path: str) -> None:
    assert cash.get(path).status == 404
    assert cash.delete(path, headers={"If-Match": '"1"'}).status == 404
    assert cash.put(path, LUNCH, headers={"If-Match": '"1"'}).status == 404


def test_another_ledgers_slip_is_404_for_every_verb(cash: Client, other_api: Client) -> None:
    where = cash.slip(**LUNCH).header("Location") or ""
    assert other_api.get(where).status == 404
    assert other_api.patch(where, {"amount": 1}, headers={"If-Match": '"1"'}).status == 404
    assert other_api.put(where, LUNCH, headers={"If-Match": '"1"'}).status == 404
    assert other_api.delete(where, headers={"If-Match": '"1"'}).status == 404
    assert other_api.get("/slips").json["items"] == []
    assert cash.get(where).json["version"] == 1


def test_list_pages_newest_first_with_an_opaque_cursor(cash: Client) -> None:
    for day in range(1, 8):
        assert cash.slip(**{**LUNCH, "date": f"2026-11-{day:02d}", "amount": day}).status == 201
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        query: dict[str, Any] = {"limit": 3}
        if cursor:
            query["cursor"] = cursor
        page = cash.get("/slips", query=query).json
        seen += [s["date"] for s in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert pages == 3
    assert seen == [f"2026-11-{d:02d}" for d in range(7, 0, -1)]


def test_list_filters_by_range_account_category_and_kind(cash: Client) -> None:
    cash.slip(**LUNCH)
    cash.slip(**{**LUNCH, "date": "2026-10-31"})
    cash.slip(**{**LUNCH, "account": "suica", "category": "交通費"})
    cash.slip(date="2026-11-04", kind="transfer", amount=100, account="cash", to_account="suica")

    def dates(**query: Any) -> list[tuple[str, str]]:
        return [(s["date"], s["kind"]) for s in cash.get("/slips", query=query).json["items"]]

    assert dates(**{"from": "2026-11-01"}) == [
        ("2026-11-04", "transfer"),
        ("2026-11-03", "expense"),
        ("2026-11-03", "expense"),
    ]
    assert dates(to="2026-10-31") == [("2026-10-31", "expense")]
    assert len(dates(account="suica")) == 2  # its expense and the transfer into it
    assert dates(category="交通費") == [("2026-11-03", "expense")]
    assert dates(kind="transfer") == [("2026-11-04", "transfer")]


@pytest.mark.parametrize(
    "query",
    [
        {"cursor": "garbage!"},
        {"cursor": "eyJzayI6IkFDQ09VTlQjY2FzaCJ9"},  # {"sk":"ACCOUNT#cash"}: not a slip key
        {"limit": 0},
        {"limit": 101},
        {"limit": "ten"},
        {"from": "2026-13-01"},
        {"kind": "gift"},
        {"from": "2026-11-05", "to": "2026-11-01"},
    ],
)
def test_bad_list_queries_are_400(cash: Client, query: dict[str, Any]) -> None:
    reply = cash.get("/slips", query=query)
    assert reply.status == 400, reply
    assert reply.json["code"] == "bad_request"


def test_a_cursor_cannot_reach_another_ledger(cash: Client, other_api: Client) -> None:
    for day in range(1, 4):
        cash.slip(**{**LUNCH, "date": f"2026-11-{day:02d}"})
    cursor = cash.get("/slips", query={"limit": 1}).json["next_cursor"]
    assert other_api.get("/slips", query={"cursor": cursor}).json == {"items": [], "next_cursor": None}


def test_patch_is_a_merge_patch(cash: Client) -> None:
    made = cash.slip(**LUNCH, memo="ランチ")
    where, etag = made.header("Location") or "", made.etag or ""
    # null removes an optional field; absent fields stay
    reply = cash.patch(where, {"memo": None}, headers={"If-Match": etag})
    assert reply.status == 200
    assert reply.json["memo"] is None and reply.json["amount"] == 1200
    # turning an expense into a transfer needs to_account and drops the category
    turned = cash.patch(where, {"kind": "transfer", "to_account": "suica"}, headers={"If-Match": reply.etag})
    assert turned.status == 200, turned
    assert turned.json["category"] is None
    assert cash.balances() == {"cash": 18800, "suica": 6200}
    # a patch that leaves an invalid slip is 422 and changes nothing
    bad = cash.patch(where, {"to_account": None}, headers={"If-Match": turned.etag})
    assert bad.status == 422
    assert cash.get(where).json["version"] == 3


def test_merge_patch_content_type_is_accepted(cash: Client) -> None:
    made = cash.slip(**LUNCH)
    reply = cash.patch(
        made.header("Location") or "",
        {"amount": 1},
        headers={"If-Match": made.etag or "", "Content-Type": "application/merge-patch+json"},
    )
    assert reply.status == 200 and reply.json["amount"] == 1


def test_if_match_forms(cash: Client) -> None:
    # Given a slip at version 1
    made = cash.slip(**LUNCH)
    where = made.header("Location") or ""
    # When If-Match is a weak ETag, Then strong comparison (RFC 9110) fails the precondition
    weak = cash.patch(where, {"amount": 2}, headers={"If-Match": 'W/"1"'})
    assert weak.status == 412 and weak.json["code"] == "version_mismatch"
    # When it is `*`, Then any current version matches
    assert cash.patch(where, {"amount": 3}, headers={"If-Match": "*"}).status == 200
    # When it is a list, Then its one strong ETag counts
    assert cash.patch(where, {"amount": 4}, headers={"If-Match": 'W/"1", "2"'}).status == 200
    # When it is not an entity tag (unquoted, garbage), Then 400 says how to write one
    for sent in ("3", "nonsense", '"3'):
        bad = cash.patch(where, {"amount": 5}, headers={"If-Match": sent})
        assert bad.status == 400 and bad.json["code"] == "bad_request", bad
        assert 'If-Match: "3"' in bad.json["detail"]
    # And nothing changed
    assert cash.get(where).json["amount"] == 4


def test_unchanged_put_keeps_the_version(cash: Client) -> None:
    made = cash.slip(**LUNCH)
    again = cash.put(made.header("Location") or "", LUNCH, headers={"If-Match": made.etag or ""})
    assert again.status == 200 and again.etag == '"1"'


RECEIPT = "a" * 64
# A stored slip saying something in every field a request may set (a transfer, so that its receiving
# side shows too), and for each field another value of it.
STORED: dict[str, Any] = {
    "id": "s1", "no": 1, "version": 1, "created_at": "2026-11-03T00:00:00Z", "updated_at": "2026-11-03T00:00:00Z",
    "created_by": "hanako", "updated_by": "hanako",
    "date": "2026-11-03", "kind": "transfer", "amount": 1000, "account": "cash", "to_account": "suica",
    "category": "食費", "subcategory": "外食", "memo": "a", "payee": "店A",
    "lines": [{"amount": 600, "category": "食費"}, {"amount": 400, "category": "日用品"}],
    "paid_by": "hanako", "shares": {"hanako": 500, "taro": 500}, "shares_mode": "custom", "receipts": [RECEIPT],
    "cleared": "cleared", "to_cleared": "cleared",
    "medical": {"patient": "hanako", "provider": "A医院", "kind": "treatment", "reimbursed": 0, "otc": False},
    "donation": {"municipality": "北海道上士幌町", "one_stop": True},
    "jpy_amount": 1000, "to_amount": 900, "expires_on": "2027-01-31", "tags": ["trip"],
}  # fmt: skip
OTHER: dict[str, Any] = {
    "date": "2026-11-04", "kind": "expense", "amount": 2000, "account": "bank", "to_account": "pasmo",
    "category": "日用品", "subcategory": "洗剤", "memo": "b", "payee": "店B",
    "lines": [{"amount": 500, "category": "食費"}, {"amount": 500, "category": "日用品"}],
    "paid_by": "taro", "shares": {"hanako": 400, "taro": 600}, "receipts": ["b" * 64], "cleared": "uncleared",
    "to_cleared": "uncleared", "medical": {**STORED["medical"], "patient": "taro"},
    "donation": {**STORED["donation"], "one_stop": False}, "jpy_amount": 1001, "to_amount": 901,
    "expires_on": "2027-02-28", "shares_mode": "equal", "imported_payee": "ﾐｾB", "lapse_of": "s0",
    "tags": ["trip", "family"],
}  # fmt: skip


def test_a_change_of_any_one_field_of_a_slip_is_a_change_and_bookkeeping_alone_is_none() -> None:
    # Given a slip saying something in every field, and another value for every field a request may set
    assert set(OTHER) >= set(SlipIn.model_fields), "a new field of slips needs another value here"
    for name, value in OTHER.items():
        # When only that field differs
        changed = {**STORED, name: value}
        # Then it is a change
        assert not says_the_same(STORED, changed), name
    # And a slip differing only in what every write changes (its version, when and by whom) says the same
    rewritten = {"version": 2, "updated_at": "2026-11-05T00:00:00Z", "updated_by": "taro"}
    assert says_the_same(STORED, {**STORED, **rewritten})


def test_a_stored_slip_saying_every_field_is_read_back_saying_every_field() -> None:
    # Given a stored slip with a value in every field a request may set (OTHER has one for each)
    item = {**STORED, **OTHER}
    # When what it says is read from the item (what a merge patch and "says the same" start from)
    said = slip.SlipValue.of_item(item)
    # Then no field is lost on the way: each says something
    assert [name for name in slip.FIELDS if said.said(name) is None] == []
    assert said.said("payee") == "店B" and said.said("expires_on") == "2027-02-28"


def test_balances_as_of_a_day_carry_forward(cash: Client) -> None:
    cash.slip(**{**LUNCH, "date": "2026-11-01", "amount": 1000})
    cash.slip(**{**LUNCH, "date": "2026-11-10", "amount": 500})
    assert cash.balances("2026-10-31")["cash"] == 20000
    assert cash.balances("2026-11-05")["cash"] == 19000
    assert cash.balances("2026-11-30")["cash"] == 18500
    assert cash.get("/balances", query={"date": "2026-02-30"}).status == 400
    assert cash.get("/reports/monthly", query={"month": "2026-13"}).status == 400
    assert cash.get("/reports/monthly").status == 400


def test_history_range_rules(cash: Client) -> None:
    assert cash.get("/accounts/nope/history").status == 404
    too_long = cash.get("/accounts/cash/history", query={"from": "2000-01-01", "to": "2026-01-01"})
    assert too_long.status == 400
    backwards = cash.get("/accounts/cash/history", query={"from": "2026-02-01", "to": "2026-01-01"})
    assert backwards.status == 400
    default = cash.get("/accounts/cash/history").json
    assert len(default["items"]) == 31


def test_archived_accounts_take_no_new_slips(cash: Client) -> None:
    where = cash.slip(**LUNCH).header("Location") or ""
    cash.patch("/accounts/cash", {"archived": True}, headers={"If-Match": '"1"'})
    refused = cash.slip(**LUNCH)
    assert refused.status == 422 and "archived" in refused.json["detail"]
    # but existing slips can still be corrected or removed
    assert cash.delete(where, headers={"If-Match": '"1"'}).status == 204
    assert cash.balances()["cash"] == 20000


def test_a_memo_keeps_other_format_characters(cash: Client) -> None:
    # zero-width joiners make emoji sequences; only bidi controls are refused
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    reply = cash.post("/slips", {**LUNCH, "memo": f"家族 {family}"})
    assert reply.status == 201, reply
    assert reply.json["memo"] == f"家族 {family}"


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ('{"date":"2026-11-03","kind":"expense","amount":1,"account":"cash","amount":2}', "amount"),
        ('{"date":"2026-11-03","kind":"expense","amount":1,"account":"cash","memo":{"a":1,"a":2}}', "a"),
    ],
    ids=["top level", "nested"],
)
def test_a_body_repeating_a_key_is_400_naming_it_in_the_callers_language(cash: Client, raw: str, key: str) -> None:
    # Given a body that names a key twice (JSON parsers differ on which value wins)
    for lang, wording in (("en", f"'{key}'"), ("ja", f"「{key}」")):
        # When it is posted
        reply = cash.post("/slips", raw=raw, headers={"Accept-Language": lang})
        # Then it is refused as a bad request naming the key, in the caller's language
        assert reply.status == 400, reply
        assert reply.json["code"] == "bad_request"
        assert reply.json["key"] == key
        assert wording in reply.json["detail"]
    # And nothing was written
    assert cash.get("/slips").json["items"] == []
    assert cash.balances() == {"cash": 20000, "suica": 5000}
