"""Tags on DynamoDB Local (§28): stored normalised, kept through every change, undo and rebuild; a
tag's slips listed without reading the months it is not in; its totals from the rollups the slips'
own transactions keep, equal to a recomputation after any sequence of changes."""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.services import integrity
from kakeibo.store import Store
from tests import invariants
from tests.conftest import WITH_FIXTURES
from tests.events import Client

LUNCH = {"date": "2026-08-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
JA = {"Accept-Language": "ja"}


def report(api: Client, first: str = "2026-01", last: str = "2026-12", **query: str) -> dict[str, Any]:
    reply = api.get("/reports/tags", query={"from": first, "to": last, **query})
    assert reply.status == 200, reply
    return {row["tag"]: (row["income"], row["expense"], row["count"]) for row in reply.json["items"]}


def test_tags_are_kept_normalised_each_once_and_counted_in_their_month(api: Client, store: Store, user: str) -> None:
    # Given a wallet and two slips of a trip, their tags written in other widths and cases
    api.account("cash", 100_000)
    made = api.slip(**LUNCH, tags=["ﾎｯｶｲﾄﾞｳ", "北海道旅行", "ＴＲＩＰ", "trip"])
    assert made.status == 201, made
    # Then the slip keeps them normalised, each once, in the order first named
    assert made.json["tags"] == ["ホッカイドウ", "北海道旅行", "trip"]
    api.slip(**{**LUNCH, "date": "2026-09-01", "kind": "income", "amount": 500}, tags=["Trip"])
    api.slip(**{**LUNCH, "amount": 300})  # untagged: shows no tags at all, as before
    assert (
        "tags" not in api.get("/slips", query={"limit": 1, "from": "2026-08-03", "to": "2026-08-03"}).json["items"][0]
    )
    # Then the tag report sums each tag over the months asked for, from the rollups
    assert report(api) == {"trip": (500, 1200, 2), "ホッカイドウ": (0, 1200, 1), "北海道旅行": (0, 1200, 1)}
    assert report(api, "2026-09", "2026-09") == {"trip": (500, 0, 1)}
    assert report(api, tag="ＴＲＩＰ") == {"trip": (500, 1200, 2)}
    # And the rollups verify
    assert integrity.verify(store, user)["ok"] and invariants.check(store, user) == []


def test_a_tag_change_moves_its_totals_and_undo_takes_it_back(api: Client, store: Store, user: str) -> None:
    # Given a tagged lunch
    api.account("cash", 100_000)
    api.account("bank", 100_000, type="bank")
    made = api.slip(**LUNCH, tags=["trip"])
    where = made.header("Location") or ""
    # When its tags, amount, date and account change in one PATCH
    patched = api.patch(
        where,
        {"tags": ["family", "trip"], "amount": 2000, "date": "2026-10-05", "account": "bank"},
        headers={"If-Match": '"1"'},
    )
    assert patched.status == 200, patched
    # Then the totals followed it, month and account
    assert report(api) == {"family": (0, 2000, 1), "trip": (0, 2000, 1)}
    assert report(api, "2026-08", "2026-08") == {}
    # When that change is undone
    seq = api.get("/changes", query={"since": 0}).json["knowledge"]
    assert api.post(f"/changes/{seq}/undo").status == 200
    # Then the slip has its tags back and so do the totals
    slip = api.get("/slips", query={"tag": "trip"}).json["items"]
    assert [s["tags"] for s in slip] == [["trip"]] and slip[0]["date"] == "2026-08-03"
    assert report(api) == {"trip": (0, 1200, 1)}
    # When the tags are removed (null), Then the slip shows none and the report is empty
    where = f"/slips/2026-08-03/{slip[0]['id']}"
    gone = api.patch(where, {"tags": None}, headers={"If-Match": f'"{slip[0]["version"]}"'})
    assert gone.status == 200 and "tags" not in gone.json
    assert report(api) == {}
    assert integrity.verify(store, user)["ok"]


def test_a_tags_slips_are_listed_newest_first_and_paged(api: Client, store: Store, user: str) -> None:
    # Given slips across three months, some tagged trip
    api.account("cash", 1_000_000)
    for day in ("2026-03-01", "2026-03-02", "2026-05-10", "2026-07-20", "2026-07-21"):
        api.slip(**{**LUNCH, "date": day}, tags=["trip"])
        api.slip(**{**LUNCH, "date": day}, memo="untagged")
    api.slip(**{**LUNCH, "date": "2026-07-21", "category": "交通費"}, tags=["Trip", "family"])
    # When the tag's slips are listed two at a time
    seen: list[tuple[str, str | None]] = []
    cursor = None
    while True:
        query = {"tag": "TRIP", "limit": "2", **({"cursor": cursor} if cursor else {})}
        page = api.get("/slips", query=query)
        assert page.status == 200, page
        seen += [(s["date"], s["category"]) for s in page.json["items"]]
        cursor = page.json["next_cursor"]
        if not cursor:
            break
    # Then every tagged slip comes once, newest first, and no untagged one
    assert [d for d, _ in seen] == ["2026-07-21", "2026-07-21", "2026-07-20", "2026-05-10", "2026-03-02", "2026-03-01"]
    # And with another filter and a window, only those
    both = api.get("/slips", query={"tag": "trip", "category": "交通費", "from": "2026-07-01", "to": "2026-07-31"})
    assert [s["category"] for s in both.json["items"]] == ["交通費"]
    assert api.get("/slips", query={"tag": "nothing"}).json == {"items": [], "next_cursor": None}


def test_too_many_or_too_long_tags_are_refused_in_words(api: Client) -> None:
    api.account("cash", 10_000)
    # When a slip names eleven tags
    many = api.slip(**LUNCH, tags=[f"t{i}" for i in range(11)])
    # Then 422 says how many it may have, in English and in Japanese
    assert many.status == 422, many
    assert many.json["detail"] == "tags may have at most 10 items"
    ja = api.post("/slips", {**LUNCH, "tags": [f"t{i}" for i in range(11)]}, headers=JA)
    assert ja.json["detail"] == "タグは 10 件までにしてください"
    # But eleven that are ten once normalised are fine
    assert api.slip(**LUNCH, tags=[*(f"t{i}" for i in range(10)), "Ｔ0"]).status == 201
    # When a tag is longer than 30 characters once normalised (ｶﾞ is one character: ガ)
    long = api.post("/slips", {**LUNCH, "tags": ["ａ" * 31]}, headers=JA)
    assert long.status == 422 and long.json["detail"] == "タグは 1 つ 30 文字以内にしてください", long
    assert api.slip(**LUNCH, tags=["ｶﾞ" * 30]).status == 201
    # And a blank tag, or one with a control character, is refused naming the field
    blank = api.slip(**LUNCH, tags=["  "])
    assert blank.status == 422 and blank.json["detail"] == "tags must not be blank", blank
    assert api.slip(**LUNCH, tags=["a\u0007"]).status == 422
    # And a tag report over a span that is not one refuses in words
    bad = api.get("/reports/tags", query={"from": "2026-09", "to": "2026-08"}, headers=JA)
    assert bad.status == 422
    assert bad.json["detail"] == "開始月（from: 2026-09）が終了月（to: 2026-08）より後になっています"
    assert api.get("/reports/tags", query={"from": "2016-01", "to": "2026-08"}).status == 422
    assert api.get("/reports/tags", query={"from": "2026-13", "to": "2026-14"}).status == 422


# ---- the property: tag totals equal a recomputation from the slips ----------------------------

TAGS = ("trip", "family", "旅行")
DAYS = ("2026-08-03", "2026-08-30", "2026-09-01", "2026-10-15")
ACCOUNTS = ("cash", "bank")

tag_lists = st.lists(st.sampled_from(TAGS), max_size=3)
steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("create"),
            st.sampled_from(DAYS),
            st.sampled_from(("expense", "income", "transfer")),
            st.integers(1, 5000),
            tag_lists,
        ),
        st.tuples(
            st.just("patch"),
            st.integers(0, 10),
            st.fixed_dictionaries(
                {},
                optional={
                    "tags": tag_lists,
                    "amount": st.integers(1, 5000),
                    "date": st.sampled_from(DAYS),
                    "account": st.sampled_from(ACCOUNTS),
                },
            ),
        ),
        st.tuples(st.just("delete"), st.integers(0, 10)),
    ),
    min_size=1,
    max_size=8,
)


def _recomputed(slips: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for slip in slips:
        for tag in slip.get("tags") or ():
            row = totals[tag]
            row[0] += slip["amount"] if slip["kind"] == "income" else 0
            row[1] += slip["amount"] if slip["kind"] == "expense" else 0
            row[2] += 1
    return {tag: (i, e, c) for tag, (i, e, c) in totals.items()}


@settings(max_examples=15, suppress_health_check=WITH_FIXTURES)
@given(steps=steps)
def test_tag_totals_equal_a_recomputation_after_any_changes(local_env: str, store: Store, steps: list[Any]) -> None:
    # Given a fresh ledger with two accounts that allow any balance
    user = f"user-{uuid.uuid4().hex[:12]}"
    api = Client(user)
    api.account("cash", allow_negative=True)
    api.account("bank", type="bank", allow_negative=True)
    live: list[dict[str, Any]] = []
    # When slips are created, patched (tags, amount, date, account) and deleted in any order
    for step in steps:
        if step[0] == "create":
            _, date, kind, amount, tags = step
            body = {"date": date, "kind": kind, "amount": amount, "account": "cash", "tags": tags}
            body |= {"to_account": "bank"} if kind == "transfer" else {"category": "食費"}
            made = api.slip(**body)
            assert made.status == 201, made
            live.append(made.json)
        elif step[0] == "patch" and live:
            slip = live[step[1] % len(live)]
            patch = dict(step[2])
            if slip["kind"] == "transfer" and patch.get("account") == slip["to_account"]:
                patch.pop("account")
            reply = api.patch(
                f"/slips/{slip['date']}/{slip['id']}", patch, headers={"If-Match": f'"{slip["version"]}"'}
            )
            assert reply.status == 200, reply
            live[live.index(slip)] = reply.json
        elif step[0] == "delete" and live:
            slip = live.pop(step[1] % len(live))
            gone = api.delete(f"/slips/{slip['date']}/{slip['id']}", headers={"If-Match": f'"{slip["version"]}"'})
            assert gone.status == 204, gone
    # Then the tag report equals the totals recomputed from the slips, and the rollups verify
    assert report(api, "2026-08", "2026-10") == _recomputed(live)
    for tag in TAGS:
        listed = api.get("/slips", query={"tag": tag, "limit": "100"}).json["items"]
        assert sorted(s["id"] for s in listed) == sorted(s["id"] for s in live if tag in (s.get("tags") or ()))
    assert integrity.verify(store, user)["ok"]


def test_tags_go_out_in_the_csv_export_and_come_back_in_with_it(api: Client, other_api: Client) -> None:
    # Given tagged slips, one split
    for who in (api, other_api):
        who.account("cash", 100_000)
    api.slip(**LUNCH, tags=["trip", "家族"])
    split = {**LUNCH, "category": None, "amount": 900, "lines": [{"amount": 400, "category": "食費"},
                                                                  {"amount": 500, "category": "日用品"}]}  # fmt: skip
    assert api.slip(**{k: v for k, v in split.items() if v is not None}, tags=["trip"]).status == 201
    # When the ledger is exported, Then the tags column holds each slip's tags
    exported = api.get("/slips.csv")
    assert exported.status == 200
    header = exported.raw.decode("utf-8-sig").splitlines()[0].split(",")
    assert "tags" in header and header[-2:] == ["cleared", "to_cleared"]
    # When the export is imported into another ledger, Then the slips come with their tags
    imported = other_api.post("/imports", raw=exported.raw, headers={"Content-Type": "text/csv"})
    assert imported.status == 200 and imported.json["created"] == 2, imported
    assert report(other_api) == report(api) == {"trip": (0, 2100, 2), "家族": (0, 1200, 1)}
    # And a tag holding the separator is refused in words
    assert api.slip(**LUNCH, tags=["a;b"]).json["detail"] == "tags must not contain ';'"
