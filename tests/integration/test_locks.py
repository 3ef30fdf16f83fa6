"""Lease locks on DynamoDB Local: one holder at a time, renew and release by owner only,
takeover once a lease has expired, and exactly one winner among concurrent acquirers."""

from __future__ import annotations

import threading

import pytest

from kakeibo import errors
from kakeibo.store import Lease, Store


class Clock:
    """A settable clock (seconds since the epoch) so leases can expire without sleeping."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def timed(store: Store, clock: Clock) -> Store:
    return Store(store.core.client, store.core.table, clock=clock)


def test_a_held_lock_refuses_others_with_retry_after(timed: Store, user: str, clock: Clock) -> None:
    # Given a lease of 30 s
    lease = timed.locks.acquire_lock(user, "ledger", ttl=30)
    assert lease.expires_at == int(clock.now * 1000) + 30_000
    # When someone else tries 10 s later
    clock.now += 10
    with pytest.raises(errors.Locked) as refused:
        timed.locks.acquire_lock(user, "ledger", ttl=30)
    # Then they are told to come back when it ends
    assert refused.value.headers["Retry-After"] == "20"
    # And another ledger's lock of the same name is independent
    assert timed.locks.acquire_lock(f"{user}-other", "ledger", ttl=30).name == "ledger"


def test_release_by_owner_only(timed: Store, user: str) -> None:
    lease = timed.locks.acquire_lock(user, "ledger", ttl=30)
    impostor = Lease(user, "ledger", "not-the-owner", lease.expires_at)
    # When someone who does not hold the token releases: nothing happens
    assert timed.locks.release_lock(impostor) is False
    with pytest.raises(errors.Locked):
        timed.locks.acquire_lock(user, "ledger", ttl=30)
    # When the owner releases: the lock is free at once
    assert timed.locks.release_lock(lease) is True
    assert timed.locks.release_lock(lease) is False
    assert timed.locks.acquire_lock(user, "ledger", ttl=30).owner != lease.owner


def test_takeover_after_expiry_and_the_old_owner_loses_renew_and_release(timed: Store, user: str, clock: Clock) -> None:
    # Given a lease that its holder renews in time
    first = timed.locks.acquire_lock(user, "rebuild", ttl=10)
    clock.now += 8
    renewed = timed.locks.renew_lock(first, ttl=10)
    assert renewed is not None and renewed.expires_at == int(clock.now * 1000) + 10_000
    clock.now += 8
    with pytest.raises(errors.Locked):
        timed.locks.acquire_lock(user, "rebuild", ttl=10)
    # When the holder stops renewing and the lease expires, another process takes over
    clock.now += 3
    second = timed.locks.acquire_lock(user, "rebuild", ttl=10)
    assert second.owner != first.owner
    # Then the old holder can neither renew nor release it
    assert timed.locks.renew_lock(renewed, ttl=10) is None
    assert timed.locks.release_lock(renewed) is False
    # And the new holder still owns it
    assert timed.locks.renew_lock(second, ttl=10) is not None
    assert timed.locks.release_lock(second) is True


def test_an_expired_lease_cannot_be_renewed(timed: Store, user: str, clock: Clock) -> None:
    lease = timed.locks.acquire_lock(user, "ledger", ttl=5)
    clock.now += 6
    assert timed.locks.renew_lock(lease, ttl=5) is None


@pytest.mark.parametrize("expired", [False, True], ids=["free", "after-expiry"])
def test_concurrent_acquirers_exactly_one_wins(timed: Store, user: str, clock: Clock, expired: bool) -> None:
    # Given a free lock, or one whose holder's lease has run out
    if expired:
        timed.locks.acquire_lock(user, "ledger", ttl=1)
        clock.now += 2
    # When 8 threads try to take it at the same moment
    start = threading.Barrier(8)
    won: list[Lease] = []
    refused: list[errors.Locked] = []

    def contend() -> None:
        start.wait()
        try:
            won.append(timed.locks.acquire_lock(user, "ledger", ttl=30))
        except errors.Locked as exc:
            refused.append(exc)

    threads = [threading.Thread(target=contend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # Then exactly one holds it, and the item names that one
    assert len(won) == 1 and len(refused) == 7
    item = timed.core.get(user, "LOCK#ledger")
    assert item is not None and item["owner"] == won[0].owner
