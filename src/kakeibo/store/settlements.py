"""Who paid, who owes: the ledger's nets item, the roster check that keeps them among members, and
recorded settlements.

A shared ledger's nets are ONE item (`OWE`, ledger.NetsItem) with every member's totals, moved by
the slip transactions themselves (store/balances.py) and by settlements here; its `version` rises
with every change. Whoever a slip names (paid_by, share holders) must still be a member when it
commits: one ConditionCheck on the ledger item (`META`), whose `departures` rises with every member
removed (store/ledgers.py), stands for all of them, whatever their number.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kakeibo import errors
from kakeibo.core.posting import Settlement, settlement_effects
from kakeibo.store.balances import BalanceOps
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    DEPARTURES,
    LEDGER_LOCK,
    META_SK,
    NETS_SK,
    SETTLEMENT_PREFIX,
    household_pk,
    member_sk,
    settlement_sk,
)
from kakeibo.store.locks import LockOps
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps


@dataclass(frozen=True)
class Roster:
    """A shared ledger's members as read (user -> role), and its departures count then."""

    members: dict[str, str]
    departures: int


def _roster_moved(item: Item | None) -> errors.ApiError:
    if item is None:
        return errors.NotFound("not found")
    return errors.Conflict("a member left the ledger while this was written; retry", retry_after=1)


class SettlementOps:
    """The nets item, roster checks and settlements."""

    def __init__(self, core: StoreCore, balances: BalanceOps, locks: LockOps, write: WriteOps) -> None:
        self.core = core
        self.balances = balances
        self.locks = locks
        self.write = write

    def roster(self, ledger_id: str) -> Roster:
        """Every member of a shared ledger and its departures count: one consistent Query (MEMBER#
        items sort just before META)."""
        members: dict[str, str] = {}
        departures = 0
        for item in self.core.query_at(household_pk(ledger_id), between=(member_sk(""), META_SK)):
            if item["SK"] == META_SK:
                departures = int(item.get(DEPARTURES, 0))
            elif item["SK"].startswith(member_sk("")):
                members[str(item["user"])] = str(item["role"])
        return Roster(members, departures)

    def roster_check_op(self, ledger_id: str, departures: int) -> TxOp:
        """A ConditionCheck that no member has left since the roster was read at `departures`."""
        condition = "attribute_exists(PK) AND " + (
            "(attribute_not_exists(#gone) OR #gone = :seen)" if departures == 0 else "#gone = :seen"
        )
        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": household_pk(ledger_id), "SK": META_SK}),
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {"#gone": DEPARTURES},
                "ExpressionAttributeValues": to_ddb({":seen": departures}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            _roster_moved,
        )

    def nets(self, ledger: str) -> Item | None:
        """The ledger's nets item (consistent), None before anybody paid for anybody."""
        return self.core.get(ledger, NETS_SK)

    def settlements(self, ledger: str) -> Iterator[Item]:
        return self.core.query(ledger, begins_with=SETTLEMENT_PREFIX)

    def settlement(self, ledger: str, settlement_id: str) -> Item | None:
        """The recorded settlement `settlement_id`."""
        return self.core.get(ledger, settlement_sk(settlement_id))

    def record_settlement(
        self,
        ctx: WriteContext,
        item: Item,
        settlement: Settlement,
        *,
        seen: int,
        departures: int,
        changes: Sequence[Change],
        token: str | None = None,
    ) -> int:
        """One transaction: the settlement item, the two members' settled totals moved on the nets
        item if it is still at version `seen` (the caller's If-Match), no member gone since the roster
        was read, no rebuild holding the ledger, and the journal entry (`token`: its
        ClientRequestToken, from an Idempotency-Key). Its seq."""
        item = {"SK": settlement_sk(item["id"]), **item}
        (deltas,) = settlement_effects(settlement).values()
        names = {f"#f{i}": name for i, name in enumerate(deltas)}
        values = {f":f{i}": value for i, value in enumerate(deltas.values())}
        adds = [f"#f{i} :f{i}" for i in range(len(deltas))]
        condition = "attribute_not_exists(#ver)" if seen == 0 else "#ver = :seen"
        if seen:
            values[":seen"] = seen

        def stale(found: Item | None) -> errors.ApiError:
            current = int((found or {}).get("version", 0))
            return errors.VersionMismatch("the nets changed since they were read", current=current, expected=seen)

        ops = [
            self.balances.nets_op(
                ctx.ledger, names=names, values=values, adds=adds, condition=condition, on_fail=stale
            ),
            self.core.put_op(
                ctx.ledger,
                item,
                "attribute_not_exists(SK)",
                lambda _: errors.AlreadyExists("this settlement is recorded already", id=item["id"]),
            ),
            self.locks.lock_free_op(ctx.ledger, LEDGER_LOCK),
            self.roster_check_op(str(ctx.ledger), departures),
        ]
        return self.write.commit(ctx, ops, changes, token=token, at=str(item["at"]))


__all__ = ["DEPARTURES", "Roster", "SettlementOps", "settlement_sk"]
