"""Reconciliations (照合): an account's assertions `RECON#{account}#{id}` and the marks that make
its cleared slips reconciled. The only module that knows how they are stored.

A reconciliation writes its marks in batches, each one transaction (the slips still at the version
read and still cleared, under the reconciliation's lease), then its assertion last, conditioned on
the account's balance and cleared total being what the marks were computed from: a slip change
that slipped in between fails the assertion, which is then computed again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kakeibo import errors
from kakeibo.core.posting import ItemKey
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    RECONCILIATIONS,
    account_sk,
    derived_sk,
    pk,
    reconciliation_run_sk,
    reconciliation_sk,
    reconciliations_prefix,
    slip_index_sks,
)
from kakeibo.store.slip_index import SlipIndexOps
from kakeibo.store.slips import SlipOps
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps

ASSERTION, RUN = "reconciliation", "reconciliation_run"  # the items under an account's prefix
KEY_ATTRIBUTES = frozenset({"PK", "SK"})
_ABSENT = object()


@dataclass(frozen=True)
class Remark:
    """A slip rewritten in place by a reconciliation: `current` as read becomes `new` (same key,
    version + 1); only its sides' states and the reconciliation they name differ."""

    current: Item
    new: Item


class SlipMoved(errors.ApiError):
    """A slip a reconciliation marks changed since it was read: the marks are computed again."""

    status, code, title = 409, "conflict", "Conflict"


def _moved(item: Item | None) -> errors.ApiError:
    return SlipMoved("a slip changed while it was reconciled; retry", retry_after=1)


class AccountMoved(errors.ApiError):
    """The account's balance or cleared total moved while a reconciliation was written."""

    status, code, title = 409, "conflict", "Conflict"


def _account_moved(item: Item | None) -> errors.ApiError:
    return AccountMoved("the account changed while it was reconciled; retry", retry_after=1)


def _exists(item: Item | None) -> errors.ApiError:
    return errors.AlreadyExists("this reconciliation was already stored")


def _run_gone(item: Item | None) -> errors.ApiError:
    return errors.Conflict("this reconciliation was let go meanwhile; retry", retry_after=1)


def _gone(item: Item | None) -> errors.ApiError:
    return errors.NotFound("reconciliation not found")


class ReconciliationOps:
    """An account's assertions and the batches of slips a reconciliation marks or lets go."""

    def __init__(self, core: StoreCore, slip_index: SlipIndexOps, slips: SlipOps, write: WriteOps) -> None:
        self.core = core
        self.slip_index = slip_index
        self.slips = slips
        self.write = write

    def reconciliations(self, ledger: str, account: str | None = None) -> list[Item]:
        """Every assertion of `account` (of every account when None): one consistent Query."""
        return [i for i in self.reconciliation_records(ledger, account) if i.get("type") == ASSERTION]

    def reconciliation_records(self, ledger: str, account: str | None = None) -> list[Item]:
        """The assertions of `account` (every account's when None) and its runs under way
        (`type` says which): one consistent Query."""
        prefix = reconciliations_prefix(account) if account is not None else RECONCILIATIONS
        return list(self.core.query(ledger, begins_with=prefix, consistent=True))

    def reconciliation_run(self, ledger: str, account: str, reconciliation_id: str) -> Item | None:
        return self.core.get(ledger, reconciliation_run_sk(account, reconciliation_id))

    def start_run(self, ctx: WriteContext, held: TxOp, run: Item) -> None:
        """A run under way (`run`: its op, account, id, date, who): written while the lease is
        `held`, before the run's first write, so that whoever takes the lease after it expired finds
        the run and finishes or releases it. Bookkeeping: no journal entry."""
        item = {**run, "SK": reconciliation_run_sk(run["account"], run["id"]), "type": RUN}
        put = self.core.put_op(
            ctx.ledger,
            item,
            "attribute_not_exists(SK) OR #op = :op",
            lambda old: errors.Conflict(
                "this reconciliation is being undone or redone meanwhile; retry", retry_after=1
            ),
            names={"#op": "op"},
            values={":op": run["op"]},
        )
        self.write.record(ctx, [held, put])

    def end_run(self, ctx: WriteContext, held: TxOp, account: str, reconciliation_id: str) -> None:
        """The run's marker gone (it was released), while the lease is `held`."""
        self.write.record(ctx, [held, self._run_gone_op(ctx.ledger, account, reconciliation_id)])

    def _run_gone_op(self, ledger: str, account: str, reconciliation_id: str) -> TxOp:
        return self.core.delete_op(
            ledger,
            reconciliation_run_sk(account, reconciliation_id),
            "attribute_not_exists(SK) OR #type = :run",
            _gone,
            names={"#type": "type"},
            values={":run": RUN},
        )

    def reconciliation(self, ledger: str, account: str, reconciliation_id: str) -> Item | None:
        return self.core.get(ledger, reconciliation_sk(account, reconciliation_id))

    def remark_slips(
        self,
        ctx: WriteContext,
        held: TxOp,
        remarks: Sequence[Remark],
        changes: Sequence[Change],
        *,
        at: str,
        tally: tuple[str, str, int] | None = None,
        listed: bool = False,
    ) -> int:
        """One transaction: each slip rewritten if still at the version read (its balance items
        do not move: a reconciled side counts as cleared already), its identity and its index
        entries following, while the reconciliation's lease is still held (`held`, the lock's
        check); one journal entry. `tally` = (account, reconciliation id, sides): the run's count of the
        sides it marked moves by that much in the same transaction (a resumed run knows how many
        it marked before without reading them). `listed`: the slips' keys are also added to the run's
        list of what it marked (what lets it go, or undoes it, reads them and no others), or else the
        run is marked `unlisted` (too many to list: letting it go reads the account's slips). Its seq."""
        ledger = ctx.ledger
        ops: list[TxOp] = [held]
        put: set[str] = set()
        gone: set[str] = set()
        if tally is not None and tally[2]:
            account, reconciliation_id, sides = tally
            names: dict[str, str] = {"#marked": "marked", "#type": "type"}
            values: dict[str, object] = {":n": sides, ":run": RUN}
            update = "ADD #marked :n"
            if sides > 0 and listed:
                update = "SET #slips = list_append(if_not_exists(#slips, :none), :slips) " + update
                names["#slips"] = "slips"
                values.update({":none": [], ":slips": [r.current["SK"] for r in remarks]})
            elif sides > 0:
                update = "SET #unlisted = :true " + update
                names["#unlisted"], values[":true"] = "unlisted", True
            ops.append(
                self.core.update_op(
                    ledger,
                    reconciliation_run_sk(account, reconciliation_id),
                    update,
                    _run_gone,
                    "attribute_exists(SK) AND #type = :run",
                    names=names,
                    values=values,
                )
            )
        for remark in remarks:
            ops.append(self._rewrite_op(ledger, remark))
            before, after = slip_index_sks(remark.current), slip_index_sks(remark.new)
            put |= after - before
            gone |= before - after
        ops += self.slip_index.index_ops(
            ledger, put=frozenset(put), delete=frozenset(gone)
        )  # one update per index item

        def with_identities(seq: int) -> list[TxOp]:
            return [
                *ops,
                *(
                    self.slips.identity_op(
                        ledger, r.current, date=r.new["date"], version=int(r.new["version"]), deleted=False, seq=seq
                    )
                    for r in remarks
                ),
            ]

        return self.write.commit(ctx, with_identities, changes, at=at)

    def _rewrite_op(self, ledger: str, remark: Remark) -> TxOp:
        """The slip as `remark.new`, if still at the version read: an update of the attributes that
        differ (its sides' states, the reconciliation they name, its version and who changed it
        when), not a put of the whole slip."""
        names, values = {"#ver": "version"}, {":expected": int(remark.current["version"])}
        sets, removes = [], []
        for n, (name, value) in enumerate(sorted(remark.new.items())):
            if name in KEY_ATTRIBUTES or remark.current.get(name, _ABSENT) == value:
                continue
            if name == "version":
                sets.append("#ver = :ver")
                values[":ver"] = value
                continue
            names[f"#s{n}"], values[f":s{n}"] = name, value
            sets.append(f"#s{n} = :s{n}")
        for n, name in enumerate(sorted(set(remark.current) - set(remark.new) - KEY_ATTRIBUTES)):
            names[f"#r{n}"] = name
            removes.append(f"#r{n}")
        update = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        return self.core.update_op(
            ledger, remark.current["SK"], update, _moved, "#ver = :expected", names=names, values=values
        )

    def store_reconciliation(
        self,
        ctx: WriteContext,
        held: TxOp,
        item: Item,
        view: dict[str, object],
        *,
        balance: int,
        cleared: int,
        cleared_after: Mapping[ItemKey, int] | None = None,
    ) -> int:
        """The assertion, last: put once, while the account's balance and cleared total are still
        `balance` and `cleared` (what its marks were computed from), each rollup item of
        `cleared_after` (balance item -> its cleared total, 0 for an item absent) still has that cleared total
        (the cleared balance as of the date is then still what was summed), and the lease is
        `held`. Its seq."""
        ledger = ctx.ledger
        item = {"SK": reconciliation_sk(item["account"], item["id"]), **item}
        held_after = sorted((derived_sk(key), value) for key, value in (cleared_after or {}).items())
        account_check = TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": pk(ledger), "SK": account_sk(item["account"])}),
                "ConditionExpression": "attribute_exists(SK) AND #bal = :bal AND #clr = :clr",
                "ExpressionAttributeNames": {"#bal": "balance", "#clr": "cleared"},
                "ExpressionAttributeValues": to_ddb({":bal": balance, ":clr": cleared}),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            },
            _account_moved,
        )
        if not cleared:  # an account none of whose slips was ever cleared has no `cleared` yet
            body = account_check.body
            body["ConditionExpression"] = (
                "attribute_exists(SK) AND #bal = :bal AND (#clr = :clr OR attribute_not_exists(#clr))"
            )
        ops = [
            held,
            account_check,
            *(self._cleared_check(ledger, sk, value) for sk, value in held_after),
            self.core.put_op(ledger, item, "attribute_not_exists(SK)", _exists),
            self._run_gone_op(ledger, item["account"], item["id"]),  # the run is done with its assertion
        ]
        change = Change.between("reconciliation", item["id"], None, view)
        return self.write.commit(ctx, ops, [change], at=item["at"])

    def _cleared_check(self, ledger: str, sk: str, value: int) -> TxOp:
        """A rollup item's cleared total is still `value` (0: it is absent, or has none)."""
        condition = "#clr = :clr" if value else "attribute_not_exists(#clr) OR #clr = :clr"
        return TxOp(
            "ConditionCheck",
            {
                "TableName": self.core.table,
                "Key": to_ddb({"PK": pk(ledger), "SK": sk}),
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {"#clr": "cleared"},
                "ExpressionAttributeValues": to_ddb({":clr": value}),
            },
            _account_moved,
        )

    def remove_reconciliation(
        self, ctx: WriteContext, held: TxOp, item: Item, view: dict[str, object], *, undoes: int | None, at: str
    ) -> int:
        """The assertion gone (its undo, last), if still at its version, with the undo's run marker,
        while the lease is `held`. Its seq."""
        op = self.core.delete_op(
            ctx.ledger,
            item["SK"],
            "#ver = :ver",
            _gone,
            names={"#ver": "version"},
            values={":ver": int(item["version"])},
        )
        change = Change.between("reconciliation", item["id"], view, None)
        ops = [held, op, self._run_gone_op(ctx.ledger, item["account"], item["id"])]
        return self.write.commit(ctx, ops, [change], at=at, undoes=undoes)

    def break_reconciliation_op(self, ledger: str, account: str, reconciliation_id: str) -> TxOp:
        """A transaction step: the assertion no longer holds (a slip it summed was unlocked and
        changed). An assertion already gone (undone) is left so."""
        return self.core.update_op(
            ledger,
            reconciliation_sk(account, reconciliation_id),
            "SET #broken = :true",
            lambda item: errors.Conflict("the reconciliation changed meanwhile; retry", retry_after=1),
            "attribute_exists(SK)",
            names={"#broken": "broken"},
            values={":true": True},
        )
