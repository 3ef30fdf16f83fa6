"""Pure rules of tags (§28): what a slip's tags are, and how their totals are kept.

No boto3, no HTTP. A slip carries at most MAX_TAGS tags, each normalised as rule text is
(core.rules.normalise: NFKC, then case folded, so ｽｰﾊﾟｰ and スーパー, ＴＲＩＰ and trip are one tag),
stripped, at most MAX_TAG_LENGTH characters once normalised, and each once (the first time it is
named keeps its place).

A tag's totals are kept per month as fields of the month item of the slip's account
(posting.AccountMonthItem), which every change of the slip writes in its own transaction anyway: so
tags add no item to any transaction, and a tag's income, expense and count over any months is read
from those months' items, never from the slips. A field is `tag#{tag}#{what}` (`what`: income,
expense or count); the tag itself may hold '#', so the field is split from the right.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kakeibo.core.rules import normalise

MAX_TAGS = 10
MAX_TAG_LENGTH = 30
TAG_PREFIX = "tag#"
TOTALS = ("income", "expense", "count")


class TagProblem(ValueError):
    """What is wrong with the tags given: `code` (too_many, too_long, blank) and its limit."""

    def __init__(self, code: str, limit: int = 0) -> None:
        super().__init__(code)
        self.code = code
        self.limit = limit


def normalise_tag(text: str) -> str:
    """One tag as it is stored and compared."""
    return normalise(text).strip()


def normalise_tags(given: Iterable[str]) -> tuple[str, ...]:
    """The tags a slip keeps from those given: normalised, each once, in the order first named.
    TagProblem when one is blank or too long once normalised, or more than MAX_TAGS remain."""
    out: list[str] = []
    for text in given:
        tag = normalise_tag(text)
        if not tag:
            raise TagProblem("blank")
        if len(tag) > MAX_TAG_LENGTH:
            raise TagProblem("too_long", MAX_TAG_LENGTH)
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise TagProblem("too_many", MAX_TAGS)
    return tuple(out)


def edited(tags: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> tuple[str, ...]:
    """`tags` with `add` appended (those not there yet) and `remove` taken away (all normalised)."""
    gone = {normalise_tag(t) for t in remove}
    kept = [t for t in tags if t not in gone]
    return normalise_tags([*kept, *(t for t in add if normalise_tag(t) not in gone)])


def tag_field(tag: str, what: str) -> str:
    """The field of an account month item that holds a tag's `what` (income, expense, count)."""
    return f"{TAG_PREFIX}{tag}#{what}"


def tag_of_field(name: str) -> tuple[str, str] | None:
    """(tag, what) of a tag field; None for any other field."""
    if not name.startswith(TAG_PREFIX):
        return None
    tag, _, what = name.removeprefix(TAG_PREFIX).rpartition("#")
    if not tag or what not in TOTALS:
        return None
    return tag, what


def is_tag_field(name: str) -> bool:
    return tag_of_field(name) is not None


def tag_effects(tags: Iterable[str], kind: str, yen: int, sign: int) -> dict[str, int]:
    """What a slip of `kind` and `yen` with `tags` adds (sign +1) or takes away (-1) from its month's
    tag fields: each tag counts the slip, and its income or expense (a transfer: neither)."""
    out: dict[str, int] = {}
    for tag in tags:
        out[tag_field(tag, "count")] = sign
        if kind in ("income", "expense"):
            out[tag_field(tag, kind)] = sign * yen
    return out


@dataclass(frozen=True, slots=True, order=True)
class TagTotal:
    tag: str
    income: int = 0
    expense: int = 0
    count: int = 0


def tag_totals(items: Iterable[Mapping[str, object]], only: str | None = None) -> list[TagTotal]:
    """Each tag's totals summed over the tag fields of `items` (account month items), tags that
    count no slip left out, in tag order; `only`: that tag alone."""
    sums: dict[str, dict[str, int]] = {}
    for item in items:
        for name, value in item.items():
            found = tag_of_field(name)
            if found is None or (only is not None and found[0] != only):
                continue
            tag, what = found
            sums.setdefault(tag, dict.fromkeys(TOTALS, 0))[what] += int(value)  # type: ignore[call-overload]
    return [TagTotal(tag, **totals) for tag, totals in sorted(sums.items()) if totals["count"]]
