"""Point lots (core/points.py): every point earned is spent or lapses exactly once, whatever the order
of the edits that made the account's history, and spends take the earliest-expiring lots first."""

from __future__ import annotations

import datetime as dt
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import points
from kakeibo.core.points import Earning, Lapse, Spending

DAYS = [f"2026-0{m}-{d:02d}" for m in (1, 2, 3) for d in (1, 10, 20)]


def test_a_spend_takes_the_lot_expiring_first_and_the_rest_lapses_the_day_after_expiry() -> None:
    # Given 1,000 points expiring at the end of March and 500 expiring at the end of January
    events = [
        Earning("A", "2026-01-01", 1000, "2026-03-31"),
        Earning("B", "2026-01-05", 500, "2026-01-31"),
        Spending("S", "2026-01-10", 600),
    ]
    # When the account is planned as of April
    plan = points.plan(events, today="2026-04-01")
    # Then the spend took all of B first, then 100 of A
    assert plan.takes["S"] == (("B", 500), ("A", 100))
    # And 900 of A lapse on April 1st, once
    lot = plan.lot("A")
    assert lot is not None and (lot.pending, lot.lapses_on) == (900, "2026-04-01")
    assert [x.id for x in plan.due("2026-04-01")] == ["A"]
    posted = points.plan([*events, Lapse("L", "A", 900)], today="2026-04-01")
    assert posted.due("2026-04-01") == [] and posted.ok


def test_a_spend_moved_before_the_expiry_takes_from_the_lot_that_would_lapse() -> None:
    earned = [Earning("A", "2026-01-01", 1000, "2026-01-31"), Earning("B", "2026-01-01", 1000)]
    # Given a spend after A expired: A lapses whole
    late = points.plan([*earned, Spending("S", "2026-02-05", 300)], today="2026-03-01")
    assert (late.lot("A").pending, late.lot("B").spent) == (1000, 300)  # type: ignore[union-attr]
    # When the spend moves before A's expiry, A lapses 300 less
    early = points.plan([*earned, Spending("S", "2026-01-20", 300)], today="2026-03-01")
    assert (early.lot("A").pending, early.lot("B").spent) == (700, 0)  # type: ignore[union-attr]


def test_points_the_lots_do_not_hold_on_the_spends_date_are_uncovered() -> None:
    # Given 100 points that lapsed in January
    events = [Earning("A", "2026-01-01", 100, "2026-01-31"), Spending("S", "2026-02-01", 50)]
    # Then a spend in February is not covered, and neither is one before the points were earned
    assert points.plan(events).uncovered == (("S", 50),)
    assert points.plan([events[0], Spending("T", "2025-12-31", 1)]).uncovered == (("T", 1),)


def test_a_posted_lapse_is_not_spent_again_and_never_exceeds_its_lot() -> None:
    events = [Earning("A", "2026-01-01", 100, "2026-01-31"), Lapse("L", "A", 100)]
    # A spend back-dated into a lapsed lot cannot take what lapsed
    assert points.plan([*events, Spending("S", "2026-01-10", 10)]).uncovered == (("S", 10),)
    # And a lot shrunk below what lapsed is overlapsed
    assert points.plan([Earning("A", "2026-01-01", 50, "2026-01-31"), events[1]]).overlapsed == ("A",)


def test_spends_short_only_of_what_a_posted_lapse_took_name_its_lot() -> None:
    # Given 300 points expiring at the end of January, all of them lapsed (posted)
    lapsed = [Earning("A", "2026-01-01", 300, "2026-01-31"), Lapse("L", "A", 300)]
    # When 100 are spent on a day they were open
    plan = points.plan([*lapsed, Spending("S", "2026-01-10", 100)])
    # Then the spend is not covered, and it is the lapse of A that took its points
    assert plan.uncovered == (("S", 100),)
    assert points.lapsed_lot([*lapsed, Spending("S", "2026-01-10", 100)]) == "A"
    # And a spend after the expiry is short whatever lapsed: no lot is named
    assert points.lapsed_lot([*lapsed, Spending("S", "2026-02-05", 100)]) is None
    # And so is a spend larger than everything ever held
    assert points.lapsed_lot([*lapsed, Spending("S", "2026-01-10", 400)]) is None
    # And without a posted lapse no lot is named
    assert points.lapsed_lot([lapsed[0], Spending("S", "2026-01-10", 400)]) is None


def test_events_are_kept_as_short_texts_and_read_back() -> None:
    kept = [Earning("A", "2026-01-01", 5, "2026-02-01"), Earning("B", "2026-01-01", 5), Spending("S", "2026-01-02", 3)]
    for event in [*kept, Lapse("L", "A", 2)]:
        assert points.decode(event.id, points.encode(event)) == event


def test_a_slip_is_an_earning_a_spend_or_a_lapse_of_the_points_account() -> None:
    base = {"id": "X", "date": "2026-01-01", "amount": 10, "account": "pts"}
    assert points.slip_events({**base, "kind": "income", "expires_on": "2026-02-01"}, "pts") == [
        Earning("X", "2026-01-01", 10, "2026-02-01")
    ]
    assert points.slip_events({**base, "kind": "expense", "lapse_of": "A"}, "pts") == [Lapse("X", "A", 10)]
    moved = {**base, "kind": "transfer", "account": "bank", "to_account": "pts", "to_amount": 7}
    assert points.slip_events(moved, "pts") == [Earning("X", "2026-01-01", 7)]
    assert points.slip_events(moved, "bank") == [Spending("X", "2026-01-01", 10)]
    assert points.slip_events(moved, "cash") == []


# --- the property: any order of accepted edits, and the daily job run at any time ---------------

edit = st.tuples(
    st.sampled_from(["earn", "spend", "move", "delete", "job"]),
    st.integers(0, len(DAYS) - 1),
    st.integers(1, 400),
    st.one_of(st.none(), st.integers(0, len(DAYS) - 1)),
    st.integers(0, 10_000),
)


def _check(events: dict[str, points.Event], today: str) -> points.Plan:
    plan = points.plan(list(events.values()), today=today)
    assert plan.ok
    spends = {e.id: e.amount for e in events.values() if isinstance(e, Spending)}
    # every spend is taken whole from lots, and each lot's points are spent, lapsed, pending or open once
    assert {k: sum(p for _, p in v) for k, v in plan.takes.items()} == spends
    for lot in plan.lots:
        assert min(lot.spent, lot.lapsed, lot.pending, lot.open) >= 0
        assert lot.spent + lot.lapsed + lot.pending + lot.open == lot.amount
    posted = sum(e.amount for e in events.values() if isinstance(e, Lapse))
    assert sum(lot.lapsed for lot in plan.lots) == posted
    # the plan is the set's, not the order's
    shuffled = list(events.values())
    random.Random(len(shuffled)).shuffle(shuffled)
    assert points.plan(shuffled, today=today) == plan
    return plan


def _edited(
    events: dict[str, points.Event], edit: tuple[str, int, int, int | None, int], n: int, today: str, floor: int = 0
) -> tuple[dict[str, points.Event], str]:
    """One edit of the account's history (slips dated from DAYS[floor] on only), as a write would
    propose it; the plan decides whether it is kept."""
    op, day, amount, expiry, pick = edit
    day = max(day, floor)
    proposed = dict(events)
    movable = sorted(k for k, e in events.items() if not isinstance(e, Lapse) and e.date >= DAYS[floor])
    if op == "earn":
        expires = None if expiry is None else DAYS[max(day, expiry)]
        proposed[f"e{n}"] = Earning(f"e{n}", DAYS[day], amount, expires)
    elif op == "spend":
        proposed[f"s{n}"] = Spending(f"s{n}", DAYS[day], amount)
    elif op in {"move", "delete"} and movable:
        key = movable[pick % len(movable)]
        old = events[key]
        if op == "delete":
            del proposed[key]
        elif isinstance(old, Earning):
            moved = DAYS[day]
            proposed[key] = Earning(key, moved, old.amount, max(old.expires_on, moved) if old.expires_on else None)
        elif isinstance(old, Spending):
            proposed[key] = Spending(key, DAYS[day], old.amount)
    elif op == "job":  # the daily job: what is due, posted once; a second run finds nothing
        today = max(today, DAYS[day])
        for lot in points.plan(list(events.values()), today=today).due(today):
            proposed[f"l{n}{lot.id}"] = Lapse(f"l{n}{lot.id}", lot.id, lot.pending)
        assert points.plan(list(proposed.values()), today=today).due(today) == []
    return proposed, today


@settings(deadline=None, max_examples=300)
@given(st.lists(edit, max_size=30))
def test_every_point_earned_is_spent_or_lapses_exactly_once_whatever_the_order_of_edits(
    edits: list[tuple[str, int, int, int | None, int]],
) -> None:
    events: dict[str, points.Event] = {}
    today = DAYS[0]
    for n, one in enumerate(edits):
        proposed, today = _edited(events, one, n, today)
        if points.plan(list(proposed.values()), today=today).ok:  # what the write would refuse is not kept
            events = proposed
        _check(events, today)


def _same_for_what_is_kept(full: points.Plan, kept: points.Plan, today: str) -> None:
    """The compacted plan gives every lot and spend it keeps exactly what the whole plan gives it."""
    ids = {lot.id for lot in kept.lots}
    assert kept.lots == tuple(lot for lot in full.lots if lot.id in ids)
    assert dict(kept.takes) == {k: v for k, v in full.takes.items() if k in kept.takes}
    assert (kept.ok, kept.next_due(), kept.due(today)) == (full.ok, full.next_due(), full.due(today))
    assert kept.expiring(today, DAYS[-1]) == full.expiring(today, DAYS[-1])


# histories where lots are spent whole and lapse often (small round amounts, early expiries): folds
busy = st.tuples(
    st.sampled_from(["earn", "spend", "spend", "spend", "job", "move", "delete"]),
    st.integers(0, len(DAYS) - 1),
    st.sampled_from([10, 20]),
    st.one_of(st.none(), st.integers(0, 3)),
    st.integers(0, 10_000),
)


@settings(deadline=None, max_examples=300)
@given(st.lists(busy, min_size=5, max_size=30), st.lists(edit, max_size=12))
def test_compaction_never_changes_what_is_spent_or_what_lapses(
    history: list[tuple[str, int, int, int | None, int]], later: list[tuple[str, int, int, int | None, int]]
) -> None:
    # Given an account's history, folded: the lots spent or lapsed whole before the point left out
    events: dict[str, points.Event] = {}
    today = DAYS[0]
    for n, one in enumerate(history):
        proposed, today = _edited(events, one, n, today)
        if points.plan(list(proposed.values()), today=today).ok:
            events = proposed
    through = points.compaction_point(events.values())
    kept = {e.id: e for e in points.compacted(events.values(), through)}
    for lot in points.plan(list(events.values())).lots:
        if lot.id not in kept:  # what is folded out was spent or lapsed whole
            assert lot.spent + lot.lapsed == lot.amount
    # (every slip folded out is dated before the point: a write of one re-plans everything)
    assert all(e.date < (through or "") for e in events.values() if e.id not in kept and not isinstance(e, Lapse))
    whole, folded = points.plan(list(events.values()), today=today), points.plan(kept.values(), today=today)
    _same_for_what_is_kept(whole, folded, today)
    # When slips dated from the point on are written, edited, moved, deleted and lapsed in both
    floor = next((n for n, day in enumerate(DAYS) if day >= through), len(DAYS) - 1) if through else 0
    for n, one in enumerate(later, start=len(history)):
        whole, today = _edited(events, one, n, today, floor)
        folded = {k: v for k, v in whole.items() if k in kept or k not in events}
        full, small = points.plan(list(whole.values()), today=today), points.plan(list(folded.values()), today=today)
        # Then the folded lots plan every write exactly as the whole history does (refusals included)
        if through is not None and DAYS[floor] < through:
            break  # the history's last day is before the fold: no slip may be written after it here
        _same_for_what_is_kept(full, small, today)
        if full.ok:
            events, kept = whole, folded


def test_compaction_folds_the_lots_spent_and_lapsed_whole_and_the_spends_that_took_only_them() -> None:
    # Given a lot without expiry still open, a lot spent whole, one lapsed whole (its lapse posted), a
    # spend that took from the open lot, and a lot earned after all of them
    events = [
        Earning("e0", "2025-12-01", 500),
        Earning("e1", "2026-01-01", 100, "2026-03-31"),
        Spending("s1", "2026-01-05", 100),
        Earning("e2", "2026-01-02", 50, "2026-01-10"),
        Lapse("l2", "e2", 50),
        Spending("s0", "2026-01-20", 30),
        Earning("e3", "2026-02-01", 30, "2026-12-31"),
        Spending("s3", "2026-02-02", 10),
    ]
    # When the history is compacted
    through = points.compaction_point(events)
    # Then the closed lots, the spend that took only from them and the lapse are folded out, from the
    # day after the last of them closed; the open lots stay as they were
    assert through == "2026-01-12"  # e2 lapsed on 2026-01-11, the day after its expiry
    kept = points.compacted(events, through)
    assert [e.id for e in kept] == ["e0", "s0", "e3", "s3"]
    assert [points.plan(kept).lot(k) for k in ("e0", "e3")] == [points.plan(events).lot(k) for k in ("e0", "e3")]
    # And nothing closed after `before` is folded
    assert points.compaction_point(events, before="2026-01-05") is None


def test_a_spend_that_took_from_a_closed_lot_and_an_open_one_keeps_both() -> None:
    events = [
        Earning("e1", "2026-01-01", 100, "2026-01-31"),
        Earning("e2", "2026-01-01", 100),
        Spending("s1", "2026-01-05", 150),
    ]
    assert points.compaction_point(events) is None


# --- the common write planned without replaying the history -------------------------------------

past = st.tuples(
    st.sampled_from(["earn", "spend", "spend", "lapse"]),
    st.integers(0, len(DAYS) - 1),
    st.integers(1, 300),
    st.one_of(st.none(), st.integers(0, len(DAYS) - 1)),
)
appended = st.tuples(
    st.sampled_from(["earn", "spend", "spend"]), st.integers(-2, 3), st.integers(1, 300), st.booleans()
)


def _history(drawn: list[tuple[str, int, int, int | None]]) -> list[points.Event]:
    events: list[points.Event] = []
    for n, (kind, day, amount, expiry) in enumerate(drawn):
        if kind == "earn":
            events.append(Earning(f"H{n:02d}", DAYS[day], amount, None if expiry is None else DAYS[expiry]))
        elif kind == "spend":
            events.append(Spending(f"H{n:02d}", DAYS[day], amount))
        else:
            lots = [e.id for e in events if isinstance(e, Earning)]
            if lots:
                events.append(Lapse(f"H{n:02d}", lots[day % len(lots)], amount))
    return events


@settings(deadline=None, max_examples=200)
@given(
    st.lists(past, max_size=20),
    st.lists(appended, min_size=1, max_size=12),
    st.sampled_from(["2026-01-15", "2026-03-01", points.NEVER]),
)
def test_an_event_appended_after_everything_is_planned_exactly_as_the_whole_history(
    drawn: list[tuple[str, int, int, int | None]], added: list[tuple[str, int, int, bool]], today: str
) -> None:
    # Given a random history, planned whole
    events = _history(drawn)
    state = points.planned(events, today=today)
    for n, (kind, step, amount, expires) in enumerate(added):
        # When an earning or a spend is added (mostly dated on or after what came before)
        dates = [e.date for e in events if not isinstance(e, Lapse)]
        last = max(dates, default=DAYS[0])
        day = (dt.date.fromisoformat(last) + dt.timedelta(days=step)).isoformat()
        event: points.Event
        if kind == "earn":
            expiry = (dt.date.fromisoformat(day) + dt.timedelta(days=20)).isoformat() if expires else None
            event = Earning(f"N{n:02d}", day, amount, expiry)
            continues = all(e.date < day for e in events if isinstance(e, Spending))
        else:
            event = Spending(f"N{n:02d}", day, amount)
            continues = all(e.date <= day for e in events if not isinstance(e, Lapse))
        events.append(event)
        whole = points.planned(events, today=today)
        then = state.then(event)
        # Then whenever it comes after everything planned it is planned from the last plan alone,
        # exactly as planning the whole history (and otherwise it is not: plan it whole)
        assert (then is not None) == continues
        if then is not None:
            assert then.plan == whole.plan
            assert dict(then.plan.takes) == dict(whole.plan.takes)
        state = then if then is not None else whole


def test_a_lapse_a_spend_ordered_before_the_last_or_an_earning_on_a_spends_day_is_planned_whole() -> None:
    # Given a history planned whole
    state = points.planned([Earning("A", "2026-01-01", 100, "2026-01-31"), Spending("S", "2026-01-10", 10)])
    # Then what could change what the earlier spends took is not continued from it
    assert state.then(Lapse("L", "A", 5)) is None
    assert state.then(Spending("R", "2026-01-10", 1)) is None  # the same day, ordered before S
    assert state.then(Earning("B", "2026-01-10", 50, "2026-01-11")) is None  # S might have taken it first
    assert state.then(Spending("S", "2026-02-01", 1)) is None  # not a new event
    # And a later spend is
    later = state.then(Spending("T", "2026-01-10", 5))
    assert later is not None and later.plan.takes["T"] == (("A", 5),)
