"""Slips found by words (§28): GET /slips?q= looks in payee, memo, category and tags, compared as rule
text is (NFKC, case folded), within a window of dates (by default the last 12 months, at most 5
years), newest first and paged as GET /slips pages."""

from __future__ import annotations

import datetime as dt

from kakeibo.settings import today
from tests.events import Client

JA = {"Accept-Language": "ja"}


def test_words_find_slips_by_payee_memo_category_and_tags_newest_first(api: Client) -> None:
    # Given slips of this year and one of three years ago
    api.account("cash", 1_000_000)
    now = today()
    recent = [(now - dt.timedelta(days=n)).isoformat() for n in (3, 20, 40, 60)]
    old = (now - dt.timedelta(days=3 * 365)).isoformat()
    api.slip(date=recent[0], kind="expense", amount=980, account="cash", category="日用品", payee="ﾄﾞﾗｯｸﾞｽﾄｱ ﾐﾔｻﾞﾜ")
    memo = "Spring ドラッグストア receipt"
    api.slip(date=recent[1], kind="expense", amount=450, account="cash", category="食費", memo=memo)
    api.slip(date=recent[2], kind="expense", amount=300, account="cash", category="ドラッグストア")
    api.slip(date=recent[3], kind="expense", amount=700, account="cash", category="食費", tags=["ドラッグストア"])
    api.slip(date=recent[3], kind="expense", amount=100, account="cash", category="食費", memo="unrelated")
    api.slip(date=old, kind="expense", amount=200, account="cash", category="食費", payee="ドラッグストア")
    # When a word is searched (written half-width), Then the four of the last 12 months, newest first
    found = api.get("/slips", query={"q": "ﾄﾞﾗｯｸﾞｽﾄｱ"})
    assert found.status == 200, found
    assert [s["date"] for s in found.json["items"]] == recent
    # And every word must be there (full-width letters and another case match)
    both = api.get("/slips", query={"q": "ドラッグストア　ＳＰＲＩＮＧ"}).json["items"]
    assert [s["amount"] for s in both] == [450]
    # And paged with the cursor, each slip once
    first = api.get("/slips", query={"q": "ドラッグストア", "limit": "3"}).json
    rest = api.get("/slips", query={"q": "ドラッグストア", "limit": "3", "cursor": first["next_cursor"]}).json
    assert [s["date"] for s in first["items"] + rest["items"]] == recent and rest["next_cursor"] is None
    # And a window that reaches back finds the old slip too
    wide = api.get("/slips", query={"q": "ドラッグストア", "from": old, "to": now.isoformat()}).json["items"]
    assert len(wide) == 5


def test_a_window_of_more_than_five_years_is_refused_in_words(api: Client) -> None:
    too_long = api.get("/slips", query={"q": "x", "from": "2020-01-01", "to": "2026-01-01"}, headers=JA)
    assert too_long.status == 422, too_long
    words = "検索できる期間は 5 年までです。開始日（from）と終了日（to）の間を短くしてください"
    assert too_long.json["detail"] == words
    en = api.get("/slips", query={"q": "x", "from": "2020-01-01", "to": "2026-01-01"})
    assert en.json["detail"] == "a search spans at most 5 years: from..to is longer"
    assert en.json["errors"][0]["loc"] == ["query", "from"]
    assert api.get("/slips", query={"q": "x", "from": "2021-01-02", "to": "2026-01-01"}).status == 200
    blank = api.get("/slips", query={"q": "   "})
    assert blank.status == 422 and blank.json["detail"] == "q must hold a word"
