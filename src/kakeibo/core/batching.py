"""Changes grouped into transactions: as many per batch as fit, in order. Each change names the
table items its write touches; what several changes of a batch share (a day's rollup, an account,
an index item) is one item of the transaction, counted once."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def batches(changes: Iterable[T], items_of: Callable[[T], set[Hashable]], *, most: int, room: int) -> Iterator[list[T]]:
    """`changes` in order, in batches of at most `most` whose items together number at most `room`.
    A batch closes only when the next change would not fit, so no batch could have taken one more;
    a change that alone needs more than `room` goes alone (its write refuses it as it would anyway)."""
    batch: list[T] = []
    items: set[Hashable] = set()
    for change in changes:
        mine = items_of(change)
        if batch and (len(batch) >= most or len(items | mine) > room):
            yield batch
            batch, items = [], set()
        batch.append(change)
        items |= mine
    if batch:
        yield batch
