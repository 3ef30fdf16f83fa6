"""Finding slips (§28): a tag's slips (`GET /slips?tag=`) and slips by words (`GET /slips?q=`).

Both list as GET /slips lists (newest day first, within a day the latest number first, the same
cursor), reading the slips themselves, never the whole ledger:
- a tag's slips are read only in the months where the tag counts some slip, which the accounts'
  month items say (core.tags: one projected Query of accounts x months items); within those months
  the Query's filter keeps the tag's slips, so what is read is those months' slips;
- words are looked for in a date window (by default the last 12 months, at most 5 years), every
  slip of which is read once over the pages; each word must be in the slip's payee, memo, category
  or tags, compared as rule text is (NFKC, case folded: ｽｰﾊﾟｰ is スーパー).
A request reads at most MAX_READ slips; a page that stops short answers a cursor to go on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from kakeibo import errors
from kakeibo.core.rules import normalise
from kakeibo.core.tags import normalise_tag
from kakeibo.services.common import query_date
from kakeibo.settings import today
from kakeibo.store import Dates, Item, SlipFilter, Store, encode_cursor

MAX_READ = 1000  # slips read per request at most; a cursor continues
DEFAULT_MONTHS = 12
MAX_YEARS = 5
MAX_WORDS = 10
EARLIEST, LATEST = "0000-00-00", "9999-99-99"


def words_of(q: str) -> list[str]:
    """The words of a query, normalised as rule text is (a full-width space separates them too)."""
    return normalise(q).split()[:MAX_WORDS]


def haystack(slip: Item) -> str:
    """What words are looked for in: the slip's payees, memos, categories and tags, normalised."""
    parts = [slip.get("payee"), slip.get("imported_payee"), slip.get("memo"), slip.get("category")]
    parts.append(slip.get("subcategory"))
    for line in slip.get("lines") or ():
        parts += [line.get("category"), line.get("subcategory"), line.get("memo")]
    parts += list(slip.get("tags") or ())
    return "\n".join(normalise(str(p)) for p in parts if p)


def matches_words(slip: Item, words: Sequence[str]) -> bool:
    text = haystack(slip)
    return all(word in text for word in words)


def _months_before(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 - months
    year, month = index // 12, index % 12 + 1
    for last in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month, last)
        except ValueError:
            continue
    raise AssertionError("unreachable")


def _refuse(name: str, message: str) -> errors.ValidationFailed:
    return errors.ValidationFailed(message, errors=[{"loc": ["query", name], "msg": message}])


def search_window(date_from: str | None, date_to: str | None) -> tuple[str, str]:
    """The dates words are looked for in: from..to as given, by default the 12 months up to `to`
    (today when not given); at most 5 years (422 beyond)."""
    last = query_date("to", date_to) if date_to else today()
    if date_from is None:
        first = _months_before(last, DEFAULT_MONTHS) + dt.timedelta(days=1)
    else:
        first = query_date("from", date_from)
    if first > last:
        raise errors.BadRequest("'from' is after 'to'")
    if first < _months_before(last, 12 * MAX_YEARS) + dt.timedelta(days=1):
        raise _refuse("from", f"a search spans at most {MAX_YEARS} years: from..to is longer")
    return first.isoformat(), last.isoformat()


def find_slips(
    store: Store,
    ledger: str,
    *,
    tag: str | None,
    q: str | None,
    filters: SlipFilter,
    date_from: str | None,
    date_to: str | None,
    resume: tuple[str, int | None] | None,
    limit: int,
) -> tuple[list[Item], str | None]:
    """GET /slips with ?tag= or ?q= (and any other filter): see the module's doc."""
    words = words_of(q) if q is not None else []
    if q is not None and not words:
        raise _refuse("q", "q must hold a word")
    if q is not None:
        date_from, date_to = search_window(date_from, date_to)
        if resume and not date_from <= resume[0] <= date_to:
            raise errors.BadRequest("invalid cursor")
    key = normalise_tag(tag) if tag else None
    lo, hi = date_from or EARLIEST, date_to or LATEST
    if key is not None:
        months = store.tags.tag_months(ledger, key, lo[:7], hi[:7])
        spans = [(max(lo, f"{m}-00"), min(hi, f"{m}-99")) for m in months]
    else:
        spans = [(lo, hi)]

    def keep(slip: Item) -> bool:
        return (not filters or filters.matches(slip)) and (not words or matches_words(slip, words))

    return _read_newest(store, ledger, spans, tag=key, keep=keep, resume=resume, limit=limit)


def _read_newest(
    store: Store,
    ledger: str,
    spans: Sequence[tuple[str, str]],
    *,
    tag: str | None,
    keep: Callable[[Item], bool],
    resume: tuple[str, int | None] | None,
    limit: int,
) -> tuple[list[Item], str | None]:
    """The slips `keep` keeps of the date spans (newest first, each first..last), newest day first
    and within a day the latest number first, from where `resume` says; at most MAX_READ read."""
    found: list[Item] = []
    read = 0

    def close(day: str | None, bucket: list[Item]) -> None:
        ordered = sorted(bucket, key=lambda i: int(i["no"]), reverse=True)
        if resume and day == resume[0] and resume[1] is not None:
            ordered = [i for i in ordered if int(i["no"]) < resume[1]]
        found.extend(ordered)

    def page_of() -> tuple[list[Item], str | None]:
        if len(found) > limit or (len(found) == limit and more):
            cut = found[:limit]
            return cut, encode_cursor({"day": cut[-1]["date"], "below": int(cut[-1]["no"])})
        return found, None

    more = False
    started: str | None = None  # the first day this request reads: never stopped at (it goes on)
    for number, (first, span_last) in enumerate(spans):
        last = min(span_last, resume[0]) if resume else span_last
        if first > last:
            continue
        day: str | None = None
        bucket: list[Item] = []
        pages = store.slips.slip_pages(ledger, Dates(first, last), tag=tag, first=limit + 16, then=200)
        for page in pages:
            read += page.read
            for item in page.items:
                if item["date"] != day:
                    if day is not None:
                        close(day, bucket)
                        bucket = []
                    if len(found) >= limit:
                        more = True
                        return page_of()
                    if read > MAX_READ and started is not None:
                        return found, encode_cursor({"day": item["date"]})  # that day is not read yet
                    day = item["date"]
                    started = started or day
                if keep(item):
                    bucket.append(item)
            if not page.done and read >= MAX_READ and day is not None and day != started:
                return found, encode_cursor({"day": day})  # the day being read, read again whole
        close(day, bucket)
        if len(found) >= limit:
            more = number < len(spans) - 1 or len(found) > limit
            return page_of()
    return page_of()
