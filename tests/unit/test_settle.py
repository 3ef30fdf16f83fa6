"""Who paid, who owes: equal shares, the fewest transfers (against brute force), and the nets a slip moves."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import posting, settle
from kakeibo.core.posting import Entry, NetsItem, Settlement


def _partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every partition of `items` into non-empty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in _partitions(rest):
        for i in range(len(smaller)):
            yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1 :]]
        yield [[first], *smaller]


def brute_force_fewest(nets: dict[str, int]) -> int:
    """The fewest transfers, by trying every partition into zero-sum groups (k members: k - 1 each)."""
    values = [v for v in nets.values() if v]
    if not values:
        return 0
    best = 0
    for groups in _partitions(list(range(len(values)))):
        if all(sum(values[i] for i in g) == 0 for g in groups):
            best = max(best, len(groups))
    return len(values) - best


def zero_sum_nets(size: int, bound: int) -> st.SearchStrategy[dict[str, int]]:
    def close(values: list[int]) -> dict[str, int]:
        return {f"u{i}": v for i, v in enumerate([*values, -sum(values)])}

    return st.lists(st.integers(-bound, bound), min_size=0, max_size=size - 1).map(close)


def _applied(nets: dict[str, int], transfers: list[settle.Transfer]) -> dict[str, int]:
    out = dict(nets)
    for t in transfers:
        out[t.payer] += t.amount
        out[t.payee] -= t.amount
    return out


@settings(deadline=None, max_examples=300)
@given(zero_sum_nets(7, 6))
def test_the_suggested_transfers_settle_everything_in_the_fewest_there_are(nets: dict[str, int]) -> None:
    # Given nets summing to 0 (small values: many zero-sum groups to find)
    # When the transfers are suggested
    transfers = settle.fewest_transfers(nets)
    # Then they bring every net to 0, each from someone who owes to someone owed, a positive amount
    assert all(v == 0 for v in _applied(nets, transfers).values())
    assert all(t.amount > 0 and nets[t.payer] < 0 < nets[t.payee] for t in transfers)
    # And there are as few as brute force finds, and the same nets give the same answer
    assert len(transfers) == brute_force_fewest(nets)
    assert settle.fewest_transfers(dict(reversed(nets.items()))) == transfers


@settings(deadline=None, max_examples=50)
@given(zero_sum_nets(settle.EXACT_LIMIT + 6, 10**6))
def test_many_members_are_settled_greedily_in_at_most_n_minus_one(nets: dict[str, int]) -> None:
    transfers = settle.fewest_transfers(nets)
    assert all(v == 0 for v in _applied(nets, transfers).values())
    assert len(transfers) <= max(0, sum(1 for v in nets.values() if v) - 1)


def test_two_pairs_that_cancel_are_two_transfers_not_three() -> None:
    # Given a owes 5 to b, c owes 7 to d (a greedy pairing of the largest would use three)
    nets = {"a": -5, "b": 5, "c": -7, "d": 7, "e": 0}
    # Then the fewest is two, within each pair
    assert settle.fewest_transfers(nets) == [settle.Transfer("a", "b", 5), settle.Transfer("c", "d", 7)]


@given(st.integers(1, 10**9), st.sets(st.text("abcdef", min_size=1, max_size=3), min_size=1, max_size=9))
def test_equal_shares_sum_to_the_amount_and_differ_by_at_most_one_yen(amount: int, users: set[str]) -> None:
    shares = settle.equal_shares(amount, users)
    assert sum(shares.values()) == amount and set(shares) == users
    assert max(shares.values()) - min(shares.values()) <= 1
    # the yen that do not divide go to the first in user order
    ordered = [shares[u] for u in sorted(users)]
    assert ordered == sorted(ordered, reverse=True)


def test_a_slip_paid_by_one_moves_the_nets_item_and_an_edit_moves_it_back() -> None:
    # Given 3,001 yen paid by taro, shared equally by taro, hanako and jiro
    shares = tuple(sorted(settle.equal_shares(3001, ["taro", "hanako", "jiro"]).items()))
    paid = Entry("2026-11-03", "expense", 3001, "cash", category="食費", paid_by="taro", shares=shares)
    # Then the nets item has taro's payment and each one's share, one item whatever the members
    nets = posting.effects(paid)[NetsItem()]
    assert nets == {"p#taro": 3001, "s#hanako": 1001, "s#jiro": 1000, "s#taro": 1000}
    assert posting.nets_of(nets)["taro"]["net"] == 2001 and posting.nets_total(nets) == 0
    # When the slip no longer says who paid, Then the plan moves the nets exactly back
    plain = Entry("2026-11-03", "expense", 3001, "cash", category="食費")
    change = posting.plan(paid, plain).change_for(NetsItem())
    assert change is not None and {k: -v for k, v in change.deltas.items()} == nets
    # And a settlement moves only the settled totals
    after = posting.recompute([paid], {}, [Settlement("hanako", "taro", 1001)])[NetsItem()]
    assert posting.nets_of(after)["hanako"]["net"] == 0 and posting.nets_total(after) == 0


def test_verify_compares_every_member_field_either_side_has() -> None:
    expected = {NetsItem(): {"p#taro": 100, "s#taro": 100}}
    stored = {NetsItem(): {"p#taro": 100, "s#taro": 100, "s#ghost": 5}}
    found = posting.diff(expected, stored)
    assert [(m.field, m.expected, m.actual) for m in found] == [("s#ghost", 0, 5)]
