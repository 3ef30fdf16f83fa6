"""Split slips on DynamoDB Local: one payment, several categories — moved once, counted per line."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import posting
from kakeibo.store import Store
from tests import invariants
from tests.concurrently import fan_out
from tests.conftest import WITH_FIXTURES
from tests.events import Client

SUPERMARKET = {
    "date": "2026-11-14",
    "kind": "expense",
    "amount": 3000,
    "account": "cash",
    "memo": "スーパー",
    "lines": [
        {"amount": 1800, "category": "食費", "subcategory": "食料品"},
        {"amount": 900, "category": "日用品"},
        {"amount": 300, "category": "食費", "subcategory": "おやつ", "memo": "アイス"},
    ],
}


def test_a_split_moves_the_account_once_and_each_line_in_its_category(api: Client, store: Store, user: str) -> None:
    # Given cash and a strict-free month
    api.account("cash", 10_000)
    # When the supermarket receipt is recorded as one split slip
    made = api.slip(**SUPERMARKET)
    # Then it is one slip with its lines and no category of its own; cash moved once
    assert made.status == 201, made
    assert made.json["category"] is None and [line["amount"] for line in made.json["lines"]] == [1800, 900, 300]
    assert made.json["lines"][2]["memo"] == "アイス"
    assert api.balances()["cash"] == 7000
    # And each line counts in its own category (and subcategory), merged where they share one
    report = api.get("/reports/monthly", query={"month": "2026-11"}).json
    by_category = {c["category"]: c for c in report["by_category"]}
    assert by_category["食費"]["expense"] == 2100 and by_category["日用品"]["expense"] == 900
    subs = {s["subcategory"]: s["expense"] for s in by_category["食費"]["subcategories"]}
    assert subs == {"食料品": 1800, "おやつ": 300}
    # And a list filtered by a line's category finds it
    for category in ("食費", "日用品"):
        found = api.get("/slips", query={"category": category}).json["items"]
        assert [s["id"] for s in found] == [made.json["id"]]
    assert api.get("/slips", query={"category": "交通費"}).json["items"] == []
    assert invariants.check(store, user) == []
    assert api.post("/ledger/verify").json["ok"] is True


def test_budgets_count_each_line_and_a_strict_one_refuses_the_whole_slip(api: Client, store: Store, user: str) -> None:
    # Given a strict budget of 1,000 for 日用品
    api.account("cash", 10_000)
    assert api.put("/budgets/2026-11/日用品", {"limit": 1000, "strict": True}).status == 201
    # When a split puts 900 there, then it fits and the budget says so
    assert api.slip(**SUPERMARKET).status == 201
    budget = api.get("/budgets", query={"month": "2026-11"}).json["items"][0]
    assert (budget["spent"], budget["remaining"]) == (900, 100)
    # When another split would put 200 more there, then the whole slip is refused: nothing moves
    refused = api.slip(**{**SUPERMARKET, "amount": 700, "lines": [
        {"amount": 500, "category": "食費"}, {"amount": 200, "category": "日用品"}]})  # fmt: skip
    assert refused.status == 409 and refused.json["code"] == "budget_exceeded"
    assert api.balances()["cash"] == 7000 and len(api.get("/slips").json["items"]) == 1
    assert invariants.check(store, user) == []


def test_lines_are_replaced_whole_and_a_move_moves_them_all(api: Client, store: Store, user: str) -> None:
    api.account("cash", 10_000)
    made = api.slip(**SUPERMARKET)
    where, etag = made.header("Location") or "", made.etag or ""
    # When PATCH replaces the lines and moves the slip to January
    lines = [{"amount": 2000, "category": "外食"}, {"amount": 1000, "category": "交際費"}]
    moved = api.patch(where, {"lines": lines, "date": "2027-01-05"}, headers={"If-Match": etag})
    assert moved.status == 200, moved
    assert [(line["category"], line["amount"]) for line in moved.json["lines"]] == [("外食", 2000), ("交際費", 1000)]
    # Then November has none of it, January all of it
    assert api.get("/reports/monthly", query={"month": "2026-11"}).json["by_category"] == []
    january = {
        c["category"]: c["expense"] for c in api.get("/reports/monthly", query={"month": "2027-01"}).json["by_category"]
    }
    assert january == {"外食": 2000, "交際費": 1000}
    # When a category is set again, the split is gone: one category, all of the amount
    plain = api.patch(moved.header("Location") or "", {"category": "外食"}, headers={"If-Match": moved.etag or ""})
    assert plain.status == 200 and plain.json["lines"] is None and plain.json["category"] == "外食"
    assert invariants.check(store, user) == []
    # And the journal recorded the lines before and after
    entries = api.get("/changes").json["changes"]
    change = entries[-2]["changes"][0]
    assert change["before"]["lines"][0]["category"] == "食費" and change["after"]["lines"][0]["category"] == "外食"


def test_a_split_slip_takes_a_patch_of_its_other_fields(api: Client, store: Store, user: str) -> None:
    # Given a split slip
    api.account("cash", 10_000)
    made = api.slip(**SUPERMARKET)
    where, etag = made.header("Location") or "", made.etag or ""
    # When only its memo changes, then its lines stay as they were
    memo = api.patch(where, {"memo": "コンビニ"}, headers={"If-Match": etag})
    assert memo.status == 200, memo
    assert (memo.json["memo"], memo.json["lines"]) == ("コンビニ", made.json["lines"])
    # When only its date changes, then it moves with its lines
    moved = api.patch(where, {"date": "2026-11-20"}, headers={"If-Match": memo.etag or ""})
    assert moved.status == 200, moved
    assert (moved.json["date"], moved.json["lines"]) == ("2026-11-20", made.json["lines"])
    where, etag = moved.header("Location") or "", moved.etag or ""
    # When only its amount changes, then the lines no longer sum to it: refused as such, in words
    for lang, detail in (("en", "the lines sum to 3,000, not the slip's amount 3,500"),
                         ("ja", "分割の明細の合計（3,000）が金額（3,500）と一致しません")):  # fmt: skip
        refused = api.patch(where, {"amount": 3500}, headers={"If-Match": etag, "Accept-Language": lang})
        assert refused.status == 422 and refused.json["code"] == "lines_sum_mismatch", refused
        assert refused.json["detail"] == detail, refused.json
    # When new lines do not sum to the amount, then the same code answers, not a nested type
    short = [{"amount": 1000, "category": "外食"}, {"amount": 1000, "category": "交際費"}]
    refused = api.patch(where, {"lines": short}, headers={"If-Match": etag})
    assert refused.status == 422 and refused.json["code"] == "lines_sum_mismatch", refused
    # And nothing of the refused changes was written
    assert api.get(where).json["version"] == moved.json["version"] and api.balances()["cash"] == 7000
    assert invariants.check(store, user) == []


def test_bad_lines_are_refused_and_nothing_is_written(api: Client) -> None:
    api.account("cash", 10_000)
    bad: list[tuple[dict[str, Any], str]] = [
        ({**SUPERMARKET, "amount": 2999}, "lines_sum_mismatch"),
        ({**SUPERMARKET, "lines": SUPERMARKET["lines"][:1], "amount": 1800}, "validation_error"),
        (
            {**SUPERMARKET, "lines": [{"amount": 3000, "category": "食費"}, {"amount": 0, "category": "日用品"}]},
            "validation_error",
        ),
        (
            {**SUPERMARKET, "lines": [{"amount": 3100, "category": "食費"}, {"amount": -100, "category": "日用品"}]},
            "validation_error",
        ),
        ({**SUPERMARKET, "category": "食費"}, "validation_error"),
        (
            {
                "date": "2026-11-14",
                "kind": "transfer",
                "amount": 3000,
                "account": "cash",
                "to_account": "bank",
                "lines": SUPERMARKET["lines"],
            },
            "validation_error",
        ),
        (
            {
                **SUPERMARKET,
                "amount": 100 * (posting.MAX_LINES + 1),
                "lines": [{"amount": 100, "category": f"c{i}"} for i in range(posting.MAX_LINES + 1)],
            },
            "validation_error",
        ),
    ]
    for body, code in bad:
        refused = api.slip(**body)
        assert refused.status == 422 and refused.json["code"] == code, (body, refused)
    too_many = api.post("/slips", bad[-1][0], headers={"Accept-Language": "ja"})
    assert too_many.json["detail"] == f"分割の明細は {posting.MAX_LINES} 件までにしてください", too_many.json["detail"]
    mismatch = api.post("/slips", bad[0][0], headers={"Accept-Language": "ja"})
    assert mismatch.json["detail"] == "分割の明細の合計（3,000）が金額（2,999）と一致しません", mismatch.json["detail"]
    assert api.get("/slips").json["items"] == [] and api.balances()["cash"] == 10_000


def test_the_largest_split_change_fits_one_transaction(local_env: str, store: Store) -> None:
    # Given a household where Taro records a split of the most lines, every one with a subcategory
    # and a medical payment (the year's tax item moves too)
    hanako = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger_id = hanako.post("/ledgers", {"name": "山田家"}).json["id"]
    base = f"/ledgers/{ledger_id}"
    for account in ("cash", "card"):
        body = {"id": account, "name": account, "type": "credit", "opening_balance": 0}
        assert hanako.post(f"{base}/accounts", body).status == 201
    token = hanako.post(f"{base}/invitations", {"role": "editor"}).json["token"]
    taro = Client(f"taro-{uuid.uuid4().hex[:8]}")
    assert taro.post(f"/invitations/{token}/accept").status == 200
    n = posting.MAX_LINES
    medical = {"patient": "taro", "provider": "中央病院", "kind": "treatment"}
    lines = [{"amount": 100, "category": f"old{i}", "subcategory": f"s{i}", "medical": medical} for i in range(n)]
    made = taro.post(f"{base}/slips", {"date": "2026-12-31", "kind": "expense", "amount": 100 * n, "account": "cash",
                                       "lines": lines})  # fmt: skip
    assert made.status == 201, made
    sizes: list[int] = []
    store.core.client.meta.events.register(
        "provide-client-params.dynamodb.TransactWriteItems",
        lambda params, **kw: sizes.append(len(params["TransactItems"])),
    )
    # When Hanako moves it to another account, day, month and year, with every line in new categories
    new_lines = [{"amount": 100, "category": f"new{i}", "subcategory": f"t{i}", "medical": medical} for i in range(n)]
    patch = {"date": "2027-01-01", "account": "card", "lines": new_lines}
    moved = hanako.patch(made.header("Location") or "", patch, headers={"If-Match": made.etag or ""})
    # Then it is one transaction within DynamoDB's 100 items, and no larger than the documented bound
    assert moved.status == 200, moved
    assert sizes and max(sizes) <= posting.worst_case_items(n) <= 100, sizes


def test_a_strict_budget_race_admits_exactly_what_fits(api: Client, store: Store, user: str) -> None:
    # Given room for three 1,000 lines in 日用品
    api.account("cash", 100_000)
    assert api.put("/budgets/2026-11/日用品", {"limit": 3000, "strict": True}).status == 201
    split = {"date": "2026-11-20", "kind": "expense", "amount": 1500, "account": "cash",
             "lines": [{"amount": 1000, "category": "日用品"}, {"amount": 500, "category": "食費"}]}  # fmt: skip

    # When six writers (each its own process) record such a split at once
    statuses = [r.status for r in fan_out(api.user or "", [("POST", "/slips", split, None)] * 6)]
    # Then exactly three are in, the others refused for the budget
    assert sorted(statuses) == [201, 201, 201, 409, 409, 409], statuses
    assert api.get("/budgets", query={"month": "2026-11"}).json["items"][0]["spent"] == 3000
    assert invariants.check(store, user) == []


LINE = st.fixed_dictionaries(
    {"amount": st.integers(1, 5000), "category": st.sampled_from(["食費", "日用品", "外食"])},
    optional={"subcategory": st.sampled_from(["a", "b"])},
)
DATES = st.sampled_from(["2026-11-30", "2026-12-01", "2026-12-31", "2027-01-01"])


@settings(max_examples=10, suppress_health_check=WITH_FIXTURES)
@given(
    first=st.lists(LINE, min_size=2, max_size=4),
    edits=st.lists(st.tuples(st.lists(LINE, min_size=2, max_size=4), DATES, st.booleans()), max_size=4),
)
def test_rollups_equal_the_slips_after_random_split_edits(
    local_env: str, store: Store, first: list[dict[str, Any]], edits: list[Any]
) -> None:
    # Given a split slip
    api = Client(f"split-{uuid.uuid4().hex[:10]}")
    api.account("cash", 10**9)
    made = api.slip(date="2026-11-30", kind="expense", amount=sum(x["amount"] for x in first), account="cash",
                    lines=first)  # fmt: skip
    assert made.status == 201, made
    where, etag = made.header("Location") or "", made.etag or ""
    # When its lines, amounts and date change again and again (sometimes to one category)
    for lines, date, plain in edits:
        patch: dict[str, Any] = {"date": date, "amount": sum(x["amount"] for x in lines)}
        patch.update({"category": "雑費", "lines": None} if plain else {"lines": lines})
        changed = api.patch(where, patch, headers={"If-Match": etag})
        assert changed.status == 200, changed
        where, etag = changed.header("Location") or "", changed.etag or ""
    # Then every balance and rollup is what the slips say
    assert invariants.check(store, api.user or "") == []


def test_export_writes_a_row_per_line_and_importing_it_restores_the_split_once(
    api: Client, other_api: Client, store: Store, other_user: str
) -> None:
    # Given a split slip and a plain one
    api.account("cash", 10_000)
    split = api.slip(**SUPERMARKET).json
    api.slip(date="2026-11-15", kind="expense", amount=500, account="cash", category="外食", memo="ランチ")
    # When the ledger is exported
    export = api.get("/slips.csv").raw.decode("utf-8-sig")
    rows = export.strip().splitlines()
    # Then the split is one row per line, numbered, with the slip's id and its own memo
    assert rows[0] == (
        "date,kind,amount,account,to_account,category,memo,external_id,subcategory,line,slip_memo,cleared,to_cleared"
    )
    assert rows[1:4] == [
        f"2026-11-14,expense,1800,cash,,食費,,{split['id']},食料品,1,スーパー,uncleared,",
        f"2026-11-14,expense,900,cash,,日用品,,{split['id']},,2,スーパー,uncleared,",
        f"2026-11-14,expense,300,cash,,食費,アイス,{split['id']},おやつ,3,スーパー,uncleared,",
    ]
    # When another ledger imports that file, twice
    other_api.account("cash", 10_000)
    replies = [other_api.post("/imports", raw=export, headers={"Content-Type": "text/csv"}) for _ in range(2)]
    assert [r.status for r in replies] == [200, 200], replies
    first, again = (r.json for r in replies)
    # Then the split is restored exactly, once, and each answer says the file is done: the rows of
    # one split are one outcome (rows = created + skipped + failed, nothing pending)
    assert (first["created"], first["failed"], again["created"]) == (2, 0, 0), first
    for answer, counts in ((first, (2, 2, 0)), (again, (2, 0, 2))):
        assert (answer["status"], answer["pending"]) == ("complete", 0), answer
        assert (answer["rows"], answer["created"], answer["skipped"]) == counts, answer
    restored = other_api.get(f"/slips/{split['id']}").json
    assert (restored["amount"], restored["memo"], restored["lines"]) == (3000, "スーパー", split["lines"])
    assert other_api.balances()["cash"] == 10_000 - 3000 - 500
    assert invariants.check(store, other_user) == []


def test_a_recurring_split_posts_split_slips(api: Client, store: Store, user: str) -> None:
    # Given a monthly split (the utilities bill: electricity and water on one payment)
    api.account("bank", 100_000, type="bank")
    bill = {"kind": "expense", "amount": 9000, "account": "bank",
            "lines": [{"amount": 6000, "category": "電気代"}, {"amount": 3000, "category": "水道代"}]}  # fmt: skip
    made = api.post(
        "/recurrences", {"slip": bill, "rule": {"freq": "monthly", "by_month_day": 10, "start": "2026-11-01"}}
    )
    assert made.status == 201, made
    # A template whose lines do not sum is refused like a slip
    bad = {**bill, "amount": 9001}
    refused = api.post("/recurrences", {"slip": bad, "rule": {"freq": "monthly", "start": "2026-11-01"}})
    assert refused.status == 422 and refused.json["code"] == "lines_sum_mismatch"
    # And so is a change of its amount alone, which its lines no longer sum to
    where = f"/recurrences/{made.json['id']}"
    refused = api.patch(where, {"slip": {"amount": 9001}}, headers={"If-Match": '"1"'})
    assert refused.status == 422 and refused.json["code"] == "lines_sum_mismatch", refused
    # When it runs, then each occurrence is a split slip
    assert api.post("/recurrences/run", query={"until": "2026-12-31"}).json["posted"] == 2
    posted = api.get("/slips").json["items"]
    assert [[line["category"] for line in s["lines"]] for s in posted] == [["電気代", "水道代"]] * 2
    assert invariants.check(store, user) == []
