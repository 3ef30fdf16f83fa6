"""Pure rules of who paid, who owes (立替・精算): equal shares, and the fewest transfers that settle.

No boto3, no HTTP. A net is what a member is owed (> 0) or owes (< 0); a ledger's nets sum to 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# Above this many members with a non-zero net the exact search (2^n subsets) gives way to a greedy
# pairing, which never makes more than n - 1 transfers and usually as few.
EXACT_LIMIT = 14


@dataclass(frozen=True, slots=True, order=True)
class Transfer:
    """`payer` pays `payee` `amount` (> 0)."""

    payer: str
    payee: str
    amount: int


def equal_shares(amount: int, users: Iterable[str]) -> dict[str, int]:
    """`amount` split equally among `users`; the yen that do not divide go one each to the first
    users in sorted order, so the shares always sum to the amount and the same members give the
    same split."""
    members = sorted(set(users))
    if not members:
        raise ValueError("nobody to share with")
    base, rest = divmod(amount, len(members))
    return {user: base + (1 if i < rest else 0) for i, user in enumerate(members)}


def fewest_transfers(nets: Mapping[str, int]) -> list[Transfer]:
    """The fewest transfers that bring every net to 0 (`nets` must sum to 0).

    The fewest is the number of members with a non-zero net less the most groups they can be split
    into that each sum to 0 (each group of k settles in k - 1 transfers, no fewer): found exactly by
    a search over subsets for up to EXACT_LIMIT members, greedily beyond. Deterministic: the same
    nets give the same transfers."""
    if sum(nets.values()) != 0:
        raise ValueError("nets must sum to 0")
    people = sorted((user, net) for user, net in nets.items() if net != 0)
    if not people:
        return []
    if len(people) > EXACT_LIMIT:
        return _greedy(people)
    out: list[Transfer] = []
    for group in _zero_sum_groups([net for _, net in people]):
        out += _greedy([people[i] for i in group])
    return sorted(out)


def _zero_sum_groups(values: Sequence[int]) -> list[list[int]]:
    """A partition of the indices of `values` (summing to 0, none 0) into the most zero-sum groups.

    best[mask] = the most zero-sum groups the members of `mask` can be split into when `mask` sums
    to 0 (for any mask: the most complete groups among a prefix-closed order of adding members):
    best[mask] = max over i in mask of best[mask - i], plus one if mask itself sums to 0."""
    n = len(values)
    size = 1 << n
    total = [0] * size
    best = [0] * size
    for mask in range(1, size):
        low = mask & -mask
        i = low.bit_length() - 1
        total[mask] = total[mask ^ low] + values[i]
        top = 0
        rest = mask
        while rest:
            bit = rest & -rest
            top = max(top, best[mask ^ bit])
            rest ^= bit
        best[mask] = top + (1 if total[mask] == 0 else 0)
    # walk back: peel members off until a zero-sum subset closes, which is one group
    groups: list[list[int]] = []
    mask = size - 1
    while mask:
        group: list[int] = []
        current = mask
        while True:
            # a member whose removal keeps the best count (less the group closing at `current`)
            want = best[current] - (1 if total[current] == 0 else 0)
            rest = current
            while rest:
                bit = rest & -rest
                if best[current ^ bit] == want:
                    break
                rest ^= bit
            group.append(bit.bit_length() - 1)
            current ^= bit
            if total[current] == 0:
                break
        groups.append(sorted(group))
        mask = current
    return groups


def _greedy(people: Sequence[tuple[str, int]]) -> list[Transfer]:
    """Settle a group summing to 0: the one who owes most pays the one owed most, until all are 0.
    Each transfer brings at least one member to 0, and the last two: at most k - 1 for k members."""
    owes = sorted(((-net, user) for user, net in people if net < 0), reverse=True)
    owed = sorted(((net, user) for user, net in people if net > 0), reverse=True)
    out: list[Transfer] = []
    while owes and owed:
        debt, payer = owes[0]
        credit, payee = owed[0]
        amount = min(debt, credit)
        out.append(Transfer(payer, payee, amount))
        owes[0], owed[0] = (debt - amount, payer), (credit - amount, payee)
        owes = sorted((x for x in owes if x[0]), reverse=True)
        owed = sorted((x for x in owed if x[0]), reverse=True)
    return out
