"""The pure rules of tags (core/tags.py): what a slip keeps of the tags given, and their totals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kakeibo.core import posting
from kakeibo.core.rules import normalise
from kakeibo.core.tags import (
    MAX_TAG_LENGTH,
    MAX_TAGS,
    TagProblem,
    edited,
    normalise_tags,
    tag_field,
    tag_of_field,
    tag_totals,
)

texts = st.text(alphabet=st.sampled_from("abAB ｶﾞガがＴt#旅行-"), min_size=1, max_size=12)


@given(st.lists(texts, max_size=14))
def test_tags_kept_are_normalised_distinct_and_within_the_limits(given_tags: list[str]) -> None:
    try:
        kept = normalise_tags(given_tags)
    except TagProblem as problem:
        # Then a refusal says why: too many distinct tags, or one blank once normalised
        distinct = {normalise(t).strip() for t in given_tags}
        assert problem.code in ("too_many", "blank")
        assert problem.code != "too_many" or len(distinct - {""}) > MAX_TAGS
        return
    # Then each tag is normalised as rule text, each once, in the order first named, and normalising
    # again changes nothing
    assert len(kept) == len(set(kept)) <= MAX_TAGS
    assert all(0 < len(t) <= MAX_TAG_LENGTH and t == normalise(t).strip() for t in kept)
    assert normalise_tags(kept) == kept
    assert list(kept) == list(dict.fromkeys(normalise(t).strip() for t in given_tags))


@given(st.lists(texts, max_size=5), st.lists(texts, max_size=5), st.lists(texts, max_size=5))
def test_an_edit_adds_what_is_missing_and_takes_away_what_is_removed(
    tags: list[str], add: list[str], remove: list[str]
) -> None:
    try:
        start = normalise_tags(tags)
        result = edited(start, add, remove)
    except TagProblem:
        return
    gone = set(normalise_tags([t for t in remove if normalise(t).strip()]) if remove else ())
    assert not gone & set(result)
    added = set(normalise_tags([t for t in add if normalise(t).strip()]) if add else ())  # a blank adds nothing
    assert set(result) == (set(start) | added) - gone


def test_too_long_a_tag_is_refused_once_normalised() -> None:
    assert normalise_tags(["ｶﾞ" * MAX_TAG_LENGTH]) == ("ガ" * MAX_TAG_LENGTH,)
    with pytest.raises(TagProblem) as refused:
        normalise_tags(["ａ" * (MAX_TAG_LENGTH + 1)])
    assert (refused.value.code, refused.value.limit) == ("too_long", MAX_TAG_LENGTH)


@given(st.sampled_from(["trip", "a#b", "#", "x#count"]), st.sampled_from(["income", "expense", "count"]))
def test_a_tag_field_names_its_tag_whatever_the_tag_holds(tag: str, what: str) -> None:
    assert tag_of_field(tag_field(tag, what)) == (tag, what)
    assert tag_of_field("delta") is None and tag_of_field("tag#x#other") is None


entries = st.builds(
    posting.Entry,
    date=st.sampled_from(["2026-08-03", "2026-09-01"]),
    kind=st.sampled_from(["expense", "income", "transfer"]),
    amount=st.integers(1, 10_000),
    account=st.just("cash"),
    to_account=st.just("bank"),
    category=st.just("食費"),
    tags=st.lists(st.sampled_from(["trip", "家族"]), unique=True, max_size=2).map(tuple),
)


@given(st.lists(entries, max_size=8))
def test_the_rollups_tag_totals_are_the_slips_own(found: list[posting.Entry]) -> None:
    # Given slips (a transfer's to_account aside), their effects summed as the transactions sum them
    found = [e if e.kind == "transfer" else posting.Entry(**{**_fields(e), "to_account": None}) for e in found]
    items = posting.recompute(found, {})
    months = [v for k, v in items.items() if isinstance(k, posting.AccountMonthItem)]
    # Then each tag's totals are the slips': income and expense by kind, and every slip counted
    totals = {t.tag: (t.income, t.expense, t.count) for t in tag_totals(months)}
    expected: dict[str, list[int]] = {}
    for e in found:
        for tag in e.tags:
            row = expected.setdefault(tag, [0, 0, 0])
            row[0] += e.amount if e.kind == "income" else 0
            row[1] += e.amount if e.kind == "expense" else 0
            row[2] += 1
    assert totals == {tag: tuple(row) for tag, row in expected.items()}
    # And a slip taken away again takes its tags' totals with it
    merged = posting.merge([*(posting.effects(e) for e in found), *(posting.effects(e, -1) for e in found)])
    assert not any(tag_of_field(name) for change in merged for name in change.deltas)


def _fields(entry: posting.Entry) -> dict[str, object]:
    return {name: getattr(entry, name) for name in entry.__slots__}  # type: ignore[attr-defined]
