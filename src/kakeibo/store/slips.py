"""Slips: the one create path, changes, deletes, identities, numbers and listings."""

from __future__ import annotations

import dataclasses
import functools
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kakeibo import errors
from kakeibo.core.posting import Plan
from kakeibo.store.balances import BalanceOps
from kakeibo.store.codec import Item, from_ddb, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import (
    FIRST_DAY,
    LAST_DAY,
    SLIP_PREFIX,
    SLIP_SEQ_SK,
    identity_sk,
    import_sk,
    pk,
    slip_date,
    slip_index_sks,
    slip_sk,
)
from kakeibo.store.slip_index import CLEARED_INDEXED, INDEX_FORMAT, INDEXED, SlipIndexOps
from kakeibo.store.transactions import OnFail, StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps


@dataclass(frozen=True)
class Dates:
    """The days from `first` to `last` (YYYY-MM-DD), both included: the window of slips a listing
    reads. None: from the first day there is, to the last."""

    first: str | None = None
    last: str | None = None

    @property
    def span(self) -> tuple[str, str]:
        """The SK range of the slips of these days."""
        return slip_sk(self.first or FIRST_DAY, ""), slip_sk(self.last or LAST_DAY, "~")

    @property
    def empty(self) -> bool:
        """Whether the window ends before it starts (`first` after `last`)."""
        lo, hi = self.span
        return lo > hi

    def until(self, day: str) -> Dates:
        """These days, up to `day` at the latest."""
        return self if slip_sk(self.last or LAST_DAY, "~") <= slip_sk(day, "~") else Dates(self.first, day)

    def holds(self, date: str, slip_id: str) -> bool:
        """Whether the slip `slip_id` of `date` falls in the window."""
        lo, hi = self.span
        return lo <= slip_sk(date, slip_id) <= hi

    def holds_position(self, position: object) -> bool:
        """Whether `position` (where an oldest-first listing stopped, as its cursor keeps it) is a
        slip of the window."""
        lo, hi = self.span
        return isinstance(position, str) and position.startswith(SLIP_PREFIX) and lo <= position <= hi


def slip_position(slip: Item) -> str:
    """Where an oldest-first listing of slips (`SlipOps.slips_within`) goes on after `slip`: what its
    cursor keeps."""
    return str(slip["SK"])


def keyed_slip(item: Item) -> Item:
    """A slip's item as it is stored: its fields, under the key its date and id make."""
    return {"SK": slip_sk(item["date"], item["id"]), **item}


@dataclass(frozen=True)
class SlipPage:
    items: list[Item]
    read: int  # slips read, matching or not
    last_sk: str | None  # where the page stopped; None: the range is done

    @property
    def done(self) -> bool:
        """Whether the window is read to its end."""
        return self.last_sk is None

    @property
    def stopped_on(self) -> str | None:
        """The day of the slip where the page stopped (None: the window is read to its end)."""
        return None if self.last_sk is None else slip_date(self.last_sk)


@dataclass(frozen=True)
class SlipsById:
    """Slips asked for by id, read where their identities say they are: the identities found (a
    deleted slip's tombstone among them) and the live slips, each by slip id."""

    identities: dict[str, Item]
    live: dict[str, Item]

    def deleted(self) -> set[str]:
        """The ids of the slips that were deleted (a tombstone is their identity)."""
        return {slip_id for slip_id, identity in self.identities.items() if identity.get("deleted")}


@dataclass(frozen=True)
class SlipCommit:
    """What a write of slips commits besides the slips and their balance items: the journal entry's
    changes, the request's token (a retry of it is a no-op), the entry it undoes, further checks in
    the same transaction (members, receipts, a recurrence's version, points lots; checked before the
    balance items, so that a hint they guard is planned again before a balance refuses), and what a
    slip no longer at the version read answers (default: 412 with its current version)."""

    changes: Sequence[Change]
    token: str | None = None
    undoes: int | None = None
    conditions: Sequence[TxOp] = ()
    stale: OnFail | None = None
    # a batch of a bulk edit (§28): the bulk's id, on its entry, and what the batch records of its
    # progress in the same transaction (built from the entry's seq)
    group: str | None = None
    more: Callable[[int], Sequence[TxOp]] | None = None


@dataclass(frozen=True)
class NewSlip:
    """A slip to create: its item (SK included), where it comes from, and the fingerprint of the
    request that creates it (the same request later must find this slip, another one must not)."""

    item: Item
    origin: str = "api"
    fingerprint: str | None = None
    request_token: str | None = None


def _again(commit: SlipCommit, attempt: int) -> SlipCommit:
    """The commit of a write built again (attempt > 0) after it met a month linked by the carry: a
    token of its own, derived from the request's (DynamoDB refuses one token for two different
    transactions), so that a retry of the whole request still finds what it wrote."""
    if attempt == 0 or commit.token is None:
        return commit
    return dataclasses.replace(commit, token=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{commit.token}/carry/{attempt}")))


class SlipIdTaken(errors.AlreadyExists):
    """A create met a slip id already used: `identity` is its identity item (None: an older slip
    without one sits at that very key)."""

    def __init__(self, slip_id: str, identity: Item | None = None) -> None:
        super().__init__(f"slip '{slip_id}' already exists", id=slip_id)
        self.slip_id = slip_id
        self.identity = identity


class SlipOps:
    """Slip writes, each one transaction with every balance item it moves.

    Every slip has an identity item, ID#{slip_id}, written in the transaction that creates the slip
    (attribute_not_exists), updated by every change (date, version) and kept as a tombstone by a
    delete. So a slip id is one slip forever: whoever creates with an id that was ever used (a
    repeated Idempotency-Key, a row imported again, a recurrence run twice) gets SlipIdTaken with
    what that identity says today. The identity also lists the seqs of the journal entries that
    changed the slip (`changes`, appended in each change's own transaction), so a slip's history is
    read from its entries alone; `changes_complete` says the list began with the slip's creation.
    """

    def __init__(self, core: StoreCore, balances: BalanceOps, slip_index: SlipIndexOps, write: WriteOps) -> None:
        self.core = core
        self.balances = balances
        self.slip_index = slip_index
        self.write = write

    # The five slip writes: each is built again from scratch when it meets a month that the carry
    # links to a strict one (BalanceOps.carrying), then checked against that category's year
    # (`_commit_checked`, which every one of them commits through).

    def create_slips(
        self,
        ctx: WriteContext,
        slips: Sequence[NewSlip],
        plan: Plan,
        commit: SlipCommit,
        *,
        import_id: str | None = None,
    ) -> int:
        """One transaction: each slip and its identity, every balance item the slips move (`plan`,
        merged), for an import the import's count of created slips, the commit's conditions (e.g.
        that a recurrence is still at the version it posts from) and the journal entry. Its seq."""
        return self.balances.carrying(
            lambda n: self._create_slips(ctx, slips, plan, _again(commit, n), import_id=import_id)
        )

    def change_slip(
        self,
        ctx: WriteContext,
        current: Item,
        new: Item,
        plan: Plan,
        commit: SlipCommit,
        *,
        newly_named: frozenset[str],
    ) -> int:
        """One transaction: the slip rewritten if still at its version (moved when its date
        changed), its identity following it, every balance item the change moves and the journal
        entry (`undoes`: the entry it reverses). Its seq."""
        return self.balances.carrying(
            lambda n: self._change_slip(ctx, current, new, plan, _again(commit, n), newly_named=newly_named)
        )

    def delete_slips(
        self, ctx: WriteContext, currents: Sequence[Item], plan: Plan, commit: SlipCommit, *, at: str
    ) -> int:
        """One transaction: the slips deleted if still at their versions, their identities left as
        tombstones, their effects reversed, the commit's conditions and the journal entry."""
        return self.balances.carrying(lambda n: self._delete_slips(ctx, currents, plan, _again(commit, n), at=at))

    def restore_slip(
        self, ctx: WriteContext, item: Item, plan: Plan, commit: SlipCommit, *, tombstone_version: int
    ) -> int:
        """A deleted slip back, with its own id (undo of a delete), in one transaction."""
        return self.restore_slips(ctx, [(item, tombstone_version)], plan, commit)

    def restore_slips(
        self, ctx: WriteContext, items: Sequence[tuple[Item, int]], plan: Plan, commit: SlipCommit
    ) -> int:
        """Deleted slips back, each with its own id (undo of a delete, or of a bulk edit's batch of
        deletes), in one transaction: `items` pairs each slip with the version its tombstone is at."""
        return self.balances.carrying(lambda n: self._restore_slips(ctx, items, plan, _again(commit, n)))

    def _create_slips(
        self,
        ctx: WriteContext,
        slips: Sequence[NewSlip],
        plan: Plan,
        commit: SlipCommit,
        *,
        import_id: str | None = None,
    ) -> int:
        """create_slips, once (again when the carry meets a strict month)."""
        ledger = ctx.ledger
        ops: list[TxOp] = list(commit.conditions)
        stamp = slips[0].item["created_at"] if slips else ""
        if import_id is not None:
            ops.append(
                self.core.update_op(  # unconditional: this run's count, atomically with its slips
                    ledger,
                    import_sk(import_id),
                    "ADD #created :n SET #upd = :now",
                    lambda item: errors.Conflict("the import could not be recorded"),
                    names={"#created": "created", "#upd": "updated_at"},
                    values={":n": len(slips), ":now": stamp},
                )
            )
        identities = [
            _identity(new.item, origin=new.origin, fingerprint=new.fingerprint, token=new.request_token)
            for new in slips
        ]
        for new in slips:
            slip_id = new.item["id"]
            ops.append(
                self.core.put_op(ledger, new.item, "attribute_not_exists(SK)", functools.partial(_slip_at_key, slip_id))
            )
        ops += self.slip_index.index_ops(ledger, put=frozenset().union(*(slip_index_sks(new.item) for new in slips)))
        ops += self.balances.balance_ops(
            ledger,
            plan,
            active_accounts=frozenset(plan.accounts),
        )

        def with_identities(seq: int) -> list[TxOp]:
            return [
                *ops,
                *(
                    self.core.put_op(
                        ledger,
                        {**identity, "changes": [seq], "changes_complete": True},
                        "attribute_not_exists(SK)",
                        functools.partial(SlipIdTaken, identity["slip_id"]),
                    )
                    for identity in identities
                ),
            ]

        return self._commit_checked(ctx, plan, with_identities, commit, at=stamp)

    def _change_slip(
        self,
        ctx: WriteContext,
        current: Item,
        new: Item,
        plan: Plan,
        commit: SlipCommit,
        *,
        newly_named: frozenset[str],
    ) -> int:
        """change_slip, once (again when the carry meets a strict month)."""
        ledger = ctx.ledger
        expected = int(current["version"])
        stale = commit.stale or _stale_slip(expected)
        version = {"names": {"#ver": "version"}, "values": {":expected": expected}}
        if current["SK"] == new["SK"]:
            ops = [self.core.put_op(ledger, new, "#ver = :expected", stale, **version)]
        else:
            ops = [
                self.core.delete_op(ledger, current["SK"], "#ver = :expected", stale, **version),
                self.core.put_op(
                    ledger,
                    new,
                    "attribute_not_exists(SK)",
                    lambda old: errors.AlreadyExists("a slip already exists at the new key"),
                ),
            ]
        # the commit's conditions (e.g. that the members the slip names have not left, the points lots it
        # re-planned) before the balances, as in every slip transaction: the first condition that fails
        # says why, and a lots item that moved is planned again (a lapse posted meanwhile refuses as
        # points_lapsed) rather than the balance it moved refusing the change as insufficient_funds
        ops += commit.conditions
        before, after = slip_index_sks(current), slip_index_sks(new)
        ops += self.slip_index.index_ops(ledger, put=after - before, delete=before - after)
        ops += self.balances.balance_ops(
            ledger,
            plan,
            active_accounts=newly_named,
        )

        def with_identity(seq: int) -> list[TxOp]:
            version = int(new["version"])
            return [*ops, self.identity_op(ledger, current, date=new["date"], version=version, deleted=False, seq=seq)]

        return self._commit_checked(ctx, plan, with_identity, commit, at=new["updated_at"])

    def change_slips(
        self, ctx: WriteContext, pairs: Sequence[tuple[Item, Item]], plan: Plan, commit: SlipCommit
    ) -> int:
        """One transaction: several slips rewritten at their keys, each if still at the version read
        (`pairs`: as read, as they become; none changes its date), their identities following them,
        their index entries and every balance item they move (`plan`, merged), the commit's conditions
        and ONE journal entry (rules applied to a batch of slips, or such a batch undone). Its seq."""
        return self.balances.carrying(lambda n: self._change_slips(ctx, pairs, plan, _again(commit, n)))

    def _commit_checked(
        self, ctx: WriteContext, plan: Plan, build: Callable[[int], list[TxOp]], commit: SlipCommit, *, at: str
    ) -> int:
        """The commit of every slip write (`build`: its operations, given the entry's seq): the strict
        months its plan reaches through the carry are checked against their year just before each
        build (`carry_check`), so no write of slips commits past a strict budget's `available`."""
        check = self.balances.carry_check(ctx.ledger, plan)

        def checked(seq: int) -> list[TxOp]:
            check()
            return [*build(seq), *(commit.more(seq) if commit.more else ())]

        return self.write.commit(
            ctx, checked, commit.changes, token=commit.token, at=at, undoes=commit.undoes, group=commit.group
        )

    def _change_slips(
        self, ctx: WriteContext, pairs: Sequence[tuple[Item, Item]], plan: Plan, commit: SlipCommit
    ) -> int:
        """change_slips, once (again when the carry meets a strict month)."""
        ledger = ctx.ledger
        ops: list[TxOp] = list(commit.conditions)
        put: set[str] = set()
        gone: set[str] = set()
        for current, new in pairs:
            if current["SK"] != new["SK"]:
                raise ValueError("change_slips keeps every slip at its key")
            expected = int(current["version"])
            ops.append(
                self.core.put_op(
                    ledger,
                    new,
                    "#ver = :expected",
                    commit.stale or _stale_slip(expected),
                    names={"#ver": "version"},
                    values={":expected": expected},
                )
            )
            before, after = slip_index_sks(current), slip_index_sks(new)
            put |= after - before
            gone |= before - after
        ops += self.slip_index.index_ops(ledger, put=put, delete=gone - put)
        ops += self.balances.balance_ops(ledger, plan)
        at = pairs[0][1]["updated_at"] if pairs else ""

        def with_identities(seq: int) -> list[TxOp]:
            return [
                *ops,
                *(
                    self.identity_op(ledger, current, date=new["date"], version=int(new["version"]), deleted=False,
                                      seq=seq)
                    for current, new in pairs
                ),
            ]  # fmt: skip

        return self._commit_checked(ctx, plan, with_identities, commit, at=at)

    def _delete_slips(
        self,
        ctx: WriteContext,
        currents: Sequence[Item],
        plan: Plan,
        commit: SlipCommit,
        *,
        at: str,
    ) -> int:
        """One transaction: the slips deleted if still at their versions, their identities left as
        tombstones (an id is never used again), their effects (`plan`, merged) reversed, the commit's
        conditions (e.g. the receipts they let go) and the journal entry."""
        ledger = ctx.ledger
        ops: list[TxOp] = list(commit.conditions)
        tombstones: list[tuple[Item, int]] = []
        for current in currents:
            expected = int(current["version"])
            tombstones.append((current, expected + 1))
            ops += [
                self.core.delete_op(
                    ledger,
                    current["SK"],
                    "#ver = :expected",
                    commit.stale or _stale_slip(expected),
                    names={"#ver": "version"},
                    values={":expected": expected},
                ),
            ]
        ops += self.slip_index.index_ops(ledger, delete=frozenset().union(*(slip_index_sks(c) for c in currents)))
        ops += self.balances.balance_ops(ledger, plan)

        def with_tombstones(seq: int) -> list[TxOp]:
            return [
                *ops,
                *(
                    self.identity_op(ledger, slip, date=slip["date"], version=version, deleted=True, seq=seq)
                    for slip, version in tombstones
                ),
            ]

        return self._commit_checked(ctx, plan, with_tombstones, commit, at=at)

    def _restore_slips(
        self, ctx: WriteContext, items: Sequence[tuple[Item, int]], plan: Plan, commit: SlipCommit
    ) -> int:
        """Deleted slips back, with their own ids: one transaction that puts each where it was, brings
        its identity back to life if it is still the tombstone the delete left (its version paired
        with it), and moves every balance item again (`plan`, merged)."""
        ledger = ctx.ledger

        def moved_on(slip_id: str, tombstone_version: int, current: Item | None) -> errors.ApiError:
            version = int(current["version"]) if current else None
            return errors.VersionMismatch(
                f"slip '{slip_id}' changed since that entry", entity="slip", id=slip_id,
                current=version, expected=tombstone_version,
            )  # fmt: skip

        def revived(item: Item, tombstone_version: int, seq: int) -> TxOp:
            return self.core.update_op(
                ledger,
                identity_sk(item["id"]),
                "SET #date = :date, #ver = :ver, #del = :false, #chg = list_append(if_not_exists(#chg, :none), :seq)",
                functools.partial(moved_on, str(item["id"]), tombstone_version),
                "#del = :true AND #ver = :tomb",
                names={"#date": "date", "#ver": "version", "#del": "deleted", "#chg": "changes"},
                values={
                    ":date": item["date"],
                    ":ver": int(item["version"]),
                    ":false": False,
                    ":true": True,
                    ":tomb": tombstone_version,
                    ":none": [],
                    ":seq": [seq],
                },
            )

        ops = [
            self.core.put_op(ledger, item, "attribute_not_exists(SK)", functools.partial(_slip_at_key, item["id"]))
            for item, _ in items
        ]
        ops += commit.conditions  # before the balances, as in every slip transaction (`_change_slip`)
        ops += self.slip_index.index_ops(ledger, put=frozenset().union(*(slip_index_sks(item) for item, _ in items)))
        ops += self.balances.balance_ops(
            ledger,
            plan,
            active_accounts=frozenset(plan.accounts),
        )

        def with_revived(seq: int) -> list[TxOp]:
            return [*(revived(item, tomb, seq) for item, tomb in items), *ops]

        return self._commit_checked(ctx, plan, with_revived, commit, at=items[0][0]["updated_at"])

    def identity_op(self, ledger: str, slip: Item, *, date: str, version: int, deleted: bool, seq: int) -> TxOp:
        """The identity follows its slip, and lists the entry `seq`; a slip from before identities
        gets one here."""
        return self.core.update_op(
            ledger,
            identity_sk(slip["id"]),
            "SET #type = :type, #sid = :sid, #date = :date, #ver = :ver, #del = :del,"
            " #origin = if_not_exists(#origin, :origin), #crt = if_not_exists(#crt, :crt),"
            " #chg = list_append(if_not_exists(#chg, :none), :seq)",
            lambda item: errors.Conflict("the slip's identity could not be updated"),
            names={
                "#type": "type",
                "#sid": "slip_id",
                "#date": "date",
                "#ver": "version",
                "#del": "deleted",
                "#origin": "origin",
                "#crt": "created_at",
                "#chg": "changes",
            },
            values={
                ":type": "slip_id",
                ":sid": slip["id"],
                ":date": date,
                ":ver": version,
                ":del": deleted,
                ":origin": _origin_of(slip),
                ":crt": slip.get("created_at", ""),
                ":none": [],
                ":seq": [seq],
            },
        )

    def slip(self, ledger: str, date: str, slip_id: str) -> Item | None:
        """The slip `slip_id` of `date` (a consistent read)."""
        return self.core.get(ledger, slip_sk(date, slip_id))

    def slip_identity(self, ledger: str, slip_id: str) -> Item | None:
        """The identity of the slip `slip_id`: its date and version now (a tombstone once deleted)."""
        return self.core.get(ledger, identity_sk(slip_id))

    def slip_by_id(self, ledger: str, slip_id: str) -> Item | None:
        """The slip `slip_id` wherever its date has moved it (its identity, then the slip: consistent
        reads); None if there is none or it was deleted."""
        identity = self.slip_identity(ledger, slip_id)
        if identity is None or identity.get("deleted"):
            return None
        return self.slip(ledger, str(identity["date"]), slip_id)

    def slip_identities(self, ledger: str, slip_ids: Iterable[str]) -> dict[str, Item]:
        """The identities of the slips `slip_ids` that have one, by slip id (consistent reads)."""
        keys = {identity_sk(slip_id): slip_id for slip_id in slip_ids}
        return {keys[sk]: item for sk, item in self.core.batch_get(ledger, list(keys)).items()}

    def slips_by_id(self, ledger: str, slip_ids: Iterable[str]) -> SlipsById:
        """The slips `slip_ids` wherever their dates have moved them: their identities (one
        BatchGetItem), then the live ones' slips (another); consistent reads."""
        asked = list(dict.fromkeys(slip_ids))
        read = self.slip_identities(ledger, asked)
        identities = {slip_id: read[slip_id] for slip_id in asked if slip_id in read}  # in the order asked
        refs = [(str(v["date"]), slip_id) for slip_id, v in identities.items() if not v.get("deleted")]
        found = self.slips_at(ledger, refs) if refs else {}
        return SlipsById(identities, {ref[1]: found[ref] for ref in refs if ref in found})

    def slips_at(self, ledger: str, refs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Item]:
        """The slips (date, slip id) of `refs` that are there, by (date, slip id) (consistent reads)."""
        keys = {slip_sk(date, slip_id): (date, slip_id) for date, slip_id in refs}
        return {keys[sk]: item for sk, item in self.core.batch_get(ledger, list(keys)).items()}

    def slips_read_again(self, ledger: str, slips: Iterable[Item]) -> dict[tuple[str, str], Item]:
        """The slips as they are now where they were read (those still there), by (date, slip id)."""
        return self.slips_at(ledger, [(str(slip["date"]), str(slip["id"])) for slip in slips])

    def slip_pages(
        self,
        ledger: str,
        window: Dates,
        *,
        account: str | None = None,
        category: str | None = None,
        kind: str | None = None,
        by: str | None = None,
        payee: str | None = None,
        tag: str | None = None,
        first: int = 100,
        then: int = 100,
    ) -> Iterator[SlipPage]:
        """The slips of the days of `window`, newest date first, one Query page at a time: the slips
        that match the filters, how many slips the page read, and where it stopped (None: at the end).
        The first Query reads up to `first` slips, the following ones `then`."""
        lo, hi = window.span
        filters, names, values = [], {}, {}
        if account:
            filters.append("(#acc = :acc OR #to = :acc)")
            names.update({"#acc": "account", "#to": "to_account"})
            values[":acc"] = account
        if category:  # a split slip's lines' categories too
            filters.append("(#cat = :cat OR contains(#lcats, :cat))")
            names.update({"#cat": "category", "#lcats": "line_categories"})
            values[":cat"] = category
        if kind:
            filters.append("#kind = :kind")
            names["#kind"] = "kind"
            values[":kind"] = kind
        if by:
            filters.append("(#cby = :by OR #uby = :by)")
            names.update({"#cby": "created_by", "#uby": "updated_by"})
            values[":by"] = by
        if payee:  # normalised: the slip keeps its payee's normalised form beside it
            filters.append("#payee = :payee")
            names["#payee"] = "payee_key"
            values[":payee"] = payee
        if tag:  # normalised, as slips keep their tags
            filters.append("contains(#tags, :tag)")
            names["#tags"] = "tags"
            values[":tag"] = tag
        kwargs: dict[str, Any] = {
            "TableName": self.core.table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": lo, ":hi": hi, **values}),
            "ScanIndexForward": False,
            "ConsistentRead": True,
            "Limit": first,
        }
        if filters:
            kwargs["FilterExpression"] = " AND ".join(filters)
            kwargs["ExpressionAttributeNames"] = names
        yield from self._slip_pages(kwargs, then)

    def slips_marked(self, ledger: str, mark: str, *, max_read: int) -> Iterator[Item]:
        """The slips that carry the attribute `mark`, newest date first, among the latest `max_read`
        slips read (a Query with a filter: what is read is bounded, whatever matches)."""
        lo, hi = "SLIP#0000-00-00#", "SLIP#9999-99-99#~"
        read = 0
        for page in self.slip_pages_marked(ledger, lo, hi, mark):
            yield from page.items
            read += page.read
            if page.last_sk is None or read >= max_read:
                return

    def slip_pages_marked(self, ledger: str, lo: str, hi: str, mark: str) -> Iterator[SlipPage]:
        kwargs: dict[str, Any] = {
            "TableName": self.core.table,
            "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
            "FilterExpression": "attribute_exists(#mark)",
            "ExpressionAttributeNames": {"#mark": mark},
            "ExpressionAttributeValues": to_ddb({":pk": pk(ledger), ":lo": lo, ":hi": hi}),
            "ScanIndexForward": False,
            "ConsistentRead": True,
            "Limit": 500,
        }
        yield from self._slip_pages(kwargs, kwargs["Limit"])

    def _slip_pages(self, kwargs: dict[str, Any], then: int) -> Iterator[SlipPage]:
        """The Query's pages one by one (`then` items asked for after the first page)."""
        while True:
            res = self.core.call(self.core.client.query, **kwargs)
            last = res.get("LastEvaluatedKey")
            yield SlipPage(
                [from_ddb(raw) for raw in res.get("Items", [])],
                int(res.get("ScannedCount", 0)),
                last["SK"]["S"] if last else None,
            )
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last
            kwargs["Limit"] = then

    def slips_within(self, ledger: str, window: Dates, after: str | None = None) -> Iterator[Item]:
        """The slips of the days of `window`, oldest date first (one Query's pages), after the
        position `after` (slip_position) if given."""
        return self.core.query(ledger, between=window.span, forward=True, start_sk=after, page_size=500)

    def ledger_items(self, ledger: str) -> Iterator[Item]:
        """Every item of the ledger (one partition), in key order."""
        return self.core.query(ledger)

    def next_number(self, ledger: str) -> int:
        return self.reserve_numbers(ledger, 1)[0]

    def reserve_numbers(self, ledger: str, count: int, sk: str = SLIP_SEQ_SK) -> list[int]:
        """`count` consecutive numbers from the counter in one atomic ADD.

        A ledger's very first slip number also marks its slip counter `indexed` (INDEX_FORMAT): every
        slip of a new ledger has index entries. A counter from before the index (or before its
        present layout) has no such mark until a rebuild has indexed its slips (and a ledger whose
        first numbering did not get to mark it, likewise)."""
        if count <= 0:
            return []
        res = self.core.call(
            self.core.client.update_item,
            TableName=self.core.table,
            Key=to_ddb({"PK": pk(ledger), "SK": sk}),
            UpdateExpression="ADD #v :n",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues=to_ddb({":n": count}),
            ReturnValues="UPDATED_NEW",
        )
        last = int(from_ddb(res["Attributes"])["value"])
        if sk == SLIP_SEQ_SK and last == count:  # the counter was created by this ADD
            self.core.call(
                self.core.client.update_item,
                TableName=self.core.table,
                Key=to_ddb({"PK": pk(ledger), "SK": sk}),
                UpdateExpression="SET #ix = :format, #cx = :true",
                ExpressionAttributeNames={"#ix": INDEXED, "#cx": CLEARED_INDEXED},
                ExpressionAttributeValues=to_ddb({":format": INDEX_FORMAT, ":true": True}),
            )
        return list(range(last - count + 1, last + 1))


def _slip_at_key(slip_id: str, item: Item | None) -> errors.ApiError:
    return SlipIdTaken(slip_id, None)


def _identity(slip: Item, *, origin: str, fingerprint: str | None, token: str | None) -> Item:
    return {
        "SK": identity_sk(slip["id"]),
        "type": "slip_id",
        "slip_id": slip["id"],
        "date": slip["date"],
        "version": int(slip["version"]),
        "deleted": False,
        "origin": origin,
        "fingerprint": fingerprint,
        "request_token": token,
        "import_id": slip.get("import_id"),
        "created_at": slip.get("created_at"),
    }


def identity_of(slip: Item, *, deleted: bool = False) -> Item:
    """The identity item a slip written before identities should have (no fingerprint: unknown)."""
    found = _identity(slip, origin=_origin_of(slip), fingerprint=None, token=slip.get("request_token"))
    found["deleted"] = deleted
    return found


def _origin_of(slip: Item) -> str:
    return str(slip.get("origin") or ("import" if slip.get("import_id") else "api"))


def _stale_slip(expected: int) -> OnFail:
    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound("slip not found")
        return errors.VersionMismatch(current=int(old["version"]), expected=expected)

    return fail
