"""Prefix reads as key ranges: every key with the prefix is inside, nothing else but the bound."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.store.keys import prefix_range

TEXTS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(deadline=None)
@given(prefix=TEXTS.filter(bool).filter(lambda p: ord(p[-1]) < 0x10FFFF), rest=TEXTS)
def test_every_key_with_the_prefix_is_in_its_range(prefix: str, rest: str) -> None:
    # Given a prefix, When its range is taken
    lo, hi = prefix_range(prefix)
    # Then a key that starts with it lies inside (in code point order, which is UTF-8 byte order)
    assert lo <= prefix + rest <= hi


@settings(deadline=None)
@given(prefix=TEXTS.filter(bool).filter(lambda p: ord(p[-1]) < 0x10FFFF), key=TEXTS)
def test_a_key_in_the_range_has_the_prefix_or_is_the_bound(prefix: str, key: str) -> None:
    # Given a prefix's range and any key
    lo, hi = prefix_range(prefix)
    # When the key lies in the range, Then it starts with the prefix or is the upper bound itself
    if lo <= key <= hi:
        assert key.startswith(prefix) or key == hi


def test_the_accounts_prefix_ends_before_the_next_key_kind() -> None:
    # Given the accounts' prefix, Then its range ends at the first key past every account
    assert prefix_range("ACCOUNT#") == ("ACCOUNT#", "ACCOUNT$")


@given(st.text(min_size=1, max_size=40), st.integers(min_value=1, max_value=1000))
def test_a_ledgers_due_shard_is_stable_and_one_of_n(ledger: str, shards: int) -> None:
    from kakeibo.store.recurrences import due_shard

    first = due_shard(ledger, shards)
    assert first == due_shard(ledger, shards)  # the same ledger, the same partition, always
    assert first.startswith("DUE#") and 0 <= int(first.removeprefix("DUE#")) < shards


def test_due_shards_spread_ledgers_evenly() -> None:
    from collections import Counter

    from kakeibo.store.recurrences import due_shard

    counts = Counter(due_shard(f"user-{n}", 16) for n in range(16_000))
    assert len(counts) == 16 and max(counts.values()) < 1.2 * 1000 and min(counts.values()) > 0.8 * 1000
