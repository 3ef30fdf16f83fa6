"""Slips: the one create path (`create_slip`; imports and recurrences create through the same
store operation), reads, changes, deletes and lists."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from kakeibo import errors
from kakeibo.core import posting, slip
from kakeibo.core import rules as rules_core
from kakeibo.core.ids import derived_id, new_slip_id
from kakeibo.core.posting import Entry
from kakeibo.models.base import parse_date
from kakeibo.models.slips import SlipIn
from kakeibo.services import alerts, facets, units
from kakeibo.services.access import PERSONAL, resolve
from kakeibo.services.common import (
    check_version,
    invalid,
    new_token,
    now_iso,
    on_current,
    query_date,
    valid_id,
)
from kakeibo.services.facets import Prepared, Writing, reconciliation
from kakeibo.services.facets import units as units_facet
from kakeibo.store import (
    Change,
    Dates,
    Item,
    NewSlip,
    SharedLedger,
    SlipCommit,
    SlipFilter,
    SlipIdTaken,
    Store,
    TxOp,
    WriteContext,
    decode_cursor,
    encode_cursor,
    keyed_slip,
)

SLIP_FIELDS = slip.FIELDS  # what a request says of a slip: the model's fields, every one (core/slip)
# what a slip keeps through every change: where it came from (its import, request, file row, lapsed lot)
KEPT_FIELDS = ("import_id", "request_token", "imported", *facets.KEPT)
BY_HAND = slip.BY_HAND  # on a slip whose category a member chose (not a rule, a file or a schedule)


def slip_view(item: Item) -> dict[str, Any]:
    """A stored slip as the API shows it: its id and number, its core (core/slip), its bookkeeping,
    then what each facet shows (services/facets)."""
    return {
        "id": item["id"],
        "no": int(item["no"]),
        **slip.view(item),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
        "created_by": item.get("created_by"),
        "updated_by": item.get("updated_by"),
        **facets.view(item),
    }


def slip_change(before: Item | None, after: Item | None) -> Change:
    """A slip's change as the journal keeps it: its public views before and after."""
    old = slip_view(before) if before is not None else None
    new = slip_view(after) if after is not None else None
    return Change.between("slip", str((new or old or {})["id"]), old, new)


def says_the_same(current: Item, item: Item) -> bool:
    """Whether the slip `item` says exactly what `current` says: every field of a slip as the
    API answers it, bookkeeping aside (core/slip.says_the_same). A change that says the same is
    nothing: nothing is written, the version stays."""
    return slip.says_the_same(slip_view(current), slip_view(item))


def entry_of(item: Item) -> Entry:
    """The stored slip's `Entry` (what it moves): its core (core/slip), then what each facet adds."""
    return slip.entry_of(item, facets.entry(item))


@contextmanager
def _naming_accounts(entry: Entry) -> Iterator[None]:
    """An account the slip names that does not exist or is archived: the 422 says which field."""
    try:
        yield
    except errors.AccountUnavailable as exc:
        field = "to_account" if exc.account == entry.to_account and exc.account != entry.account else "account"
        raise errors.ValidationFailed(exc.detail, errors=[{"loc": ["body", field], "msg": exc.detail}]) from None


def _slip_item(prepared: Prepared, **meta: Any) -> Item:
    """The item of the slip its facets `prepared`: its core (core/slip), what each facet stores of its
    body and of its preparing, then `meta` (its id, number, version and bookkeeping)."""
    item: Item = slip.stored(_said(prepared.body), prepared.entry.category)
    item.update(facets.stored(prepared.body))
    item.update(prepared.stored)
    item.update(meta)
    return keyed_slip(item)


def _said(body: SlipIn) -> slip.SlipValue:
    """What the request `body` says of its slip (core/slip)."""
    return slip.SlipValue.of_request(body.model_dump())


def fingerprint(body: SlipIn) -> str:
    """What an Idempotency-Key's replay compares: the same request body gives the same value (core/slip)."""
    return slip.fingerprint(_said(body))


def new_slip_item(body: SlipIn | Prepared, slip_id: str, *, stamp: str, no: int, by: str | None, **meta: Any) -> Item:
    """The item of a slip about to be created (version 1) by `by` (None: nobody known): as its facets
    prepared it, or as its `body` says (an import's row, in the units it arrived in)."""
    prepared = body if isinstance(body, Prepared) else Prepared.of(body)
    return _slip_item(
        prepared, id=slip_id, no=no, version=1, created_at=stamp, updated_at=stamp, created_by=by, updated_by=by,
        **meta,
    )  # fmt: skip


def create_slip(
    store: Store,
    ctx: WriteContext,
    body: SlipIn,
    *,
    slip_id: str | None = None,
    request_token: str | None = None,
    conditions: tuple[TxOp, ...] = (),
    run_rules: bool = False,
    marks: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`_create_slip`, priced again when an account turned out to be in another unit (services/units).
    `marks`: what the item keeps besides its body (units.RATED: its yen made at an earlier slip's rate)."""
    return on_current(
        lambda: _create_slip(
            store,
            ctx,
            body,
            slip_id=slip_id,
            request_token=request_token,
            conditions=conditions,
            run_rules=run_rules,
            marks=marks,
        )
    )


def _create_slip(
    store: Store,
    ctx: WriteContext,
    body: SlipIn,
    *,
    slip_id: str | None = None,
    request_token: str | None = None,
    conditions: tuple[TxOp, ...] = (),
    run_rules: bool = False,
    marks: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Create one slip: the one way slips come to be (POST /slips, recurrences; imports batch
    the same store operation). One transaction: the slip, its identity and every balance it moves.

    With a request token (from an Idempotency-Key) the slip id derives from it and the token goes
    to DynamoDB, so the same request at any later time finds its slip, wherever it has moved since:
    the same body gets it back, another body is refused (422), a deleted slip is gone (410). Without
    one, an id that is already used raises `SlipIdTaken`.

    `run_rules` (POST /slips): the ledger's rules (one read) fill what the caller left open; the
    request's own body is what an Idempotency-Key's replay is compared with.
    """
    sent = body
    if run_rules:
        from kakeibo.services import rules  # noqa: PLC0415 (only the paths that run rules load them)

        body, _ = rules.ruled_slip(rules.load(store, ctx.ledger), body)
    if request_token:
        slip_id = slip_id or derived_id(request_token)
    slip_id = slip_id or new_slip_id()
    ledger = ctx.ledger
    prepared = facets.prepare(store, ctx, body)
    body, entry = prepared.body, prepared.entry
    conditions = (*conditions, *prepared.checks)
    stamp, no = now_iso(), store.slips.next_number(ledger)
    item = new_slip_item(
        prepared, slip_id, stamp=stamp, no=no, by=ctx.actor, request_token=request_token, **(marks or {})
    )
    if slip.by_hand({}, sent.category, chosen=run_rules):
        item[BY_HAND] = True  # the caller chose the category: what rule suggestions learn from
    new = NewSlip(item, origin=ctx.origin, fingerprint=fingerprint(sent), request_token=request_token)
    conditions = (
        *conditions,
        *facets.writes(store, ctx, [], [item]),
    )

    def write(token: str) -> None:
        with _naming_accounts(entry), units.learning(ledger):
            store.slips.create_slips(
                ctx,
                [new],
                prepared.guard(posting.plan(None, entry)),
                SlipCommit([slip_change(None, item)], token, conditions=conditions),
            )
        alerts.after_spending(store, ctx, [item])  # a budget it takes to 80% or 100%: told once

    try:
        write(request_token or new_token())
    except (SlipIdTaken, errors.IdempotencyKeyReused) as exc:
        if not request_token:
            raise
        found = exc.identity if isinstance(exc, SlipIdTaken) else None
        found = found or store.slips.slip_identity(ledger, slip_id)
        if found is not None:
            return _replay(store, ledger, found, new)
        legacy = store.slips.slip(ledger, body.date, slip_id)  # a slip from before identities
        if legacy is not None:
            if legacy.get("request_token") == request_token:
                return slip_view(legacy)
            raise
        # the token was spent on an attempt that did not commit: this one goes under a fresh token
        write(new_token())
    return slip_view(item)


def _replay(store: Store, ledger: str, identity: Item, new: NewSlip) -> dict[str, Any]:
    """The answer to a create whose slip id (from its Idempotency-Key) is already used."""
    if identity.get("fingerprint") not in (None, new.fingerprint):
        raise errors.IdempotencyKeyReused("this Idempotency-Key was used with a different request body; use a new key")
    if identity.get("deleted"):
        raise errors.Gone(
            "the slip this Idempotency-Key created has been deleted; it is not created again",
            id=identity["slip_id"],
        )
    current = store.slips.slip(ledger, identity["date"], identity["slip_id"])
    if current is None:  # moved between our two reads
        raise errors.Conflict("the slip is being changed; retry", retry_after=1)
    return slip_view(current)


def get_slip_by_id(store: Store, ledger: str, slip_id: str) -> dict[str, Any]:
    """A slip by its id alone, wherever its date has moved it."""
    found = store.slips.slip_identity(ledger, slip_id) if valid_id(slip_id) else None
    if found is None or found.get("deleted"):
        raise errors.NotFound("slip not found")
    return get_slip(store, ledger, found["date"], slip_id)


def get_slip(store: Store, ledger: str, date: str, slip_id: str) -> dict[str, Any]:
    return slip_view(_read_slip(store, ledger, date, slip_id))


def _read_slip(store: Store, ledger: str, date: str, slip_id: str) -> Item:
    item = store.slips.slip(ledger, date, slip_id) if _valid_key(date, slip_id) else None
    if item is None:
        raise errors.NotFound("slip not found")
    return item


def _valid_key(date: str, slip_id: str) -> bool:
    try:
        parse_date(date)
    except ValueError:
        return False
    return valid_id(slip_id)


def request_of(view: dict[str, Any], current: Item) -> dict[str, Any]:
    """A slip's view (as the journal keeps it) as a request would send it for the slip now stored as
    `current`: a reconciled side as cleared (the write keeps it reconciled), a points slip's yen left
    to its amount (core/slip.request_of)."""
    return slip.request_of(view, derived=bool(current.get(units.DERIVED)))


def merge_patch(current: Item, patch: dict[str, Any]) -> SlipIn:
    """RFC 7396 over the slip's fields (core/slip.merge_patch), then validated as a whole slip."""
    merged = slip.merge_patch(slip.SlipValue.of_item(current), patch, derived=bool(current.get(units.DERIVED)))
    try:
        new = SlipIn.model_validate(merged)
    except ValidationError as exc:
        raise invalid(exc, "the patched slip is not valid") from exc
    units.check_repriced(current, patch, new.amount)
    return new


def _still_there(store: Store, ctx: WriteContext) -> None:
    """An edit that changes nothing writes nothing, so it never meets the fence of a person's ledger
    whose deletion has begun (DELETE /me): their tombstone is read instead, as that ledger's reads
    read it (`resolve`), and the edit answers 404 as everything of the ledger does."""
    if not isinstance(ctx.ledger, SharedLedger):
        resolve(store, ctx.actor, PERSONAL)


def update_slip(
    store: Store,
    ctx: WriteContext,
    date: str,
    slip_id: str,
    *,
    expected: int | None,
    body: SlipIn | None = None,
    patch: dict[str, Any] | None = None,
    token: str | None = None,
    unlock: bool = False,
) -> dict[str, Any]:
    """PUT (body) or PATCH (patch): one transaction; a new date moves the slip to a new key. Without
    a version (If-Match: *) it applies to the slip as it is when it commits. A reconciled side's
    amount, date and account change only with `unlock` (its reconciliation then no longer holds)."""

    def attempt() -> dict[str, Any]:
        current = _read_slip(store, ctx.ledger, date, slip_id)
        check_version(int(current["version"]), expected)
        new = body if body is not None else merge_patch(current, patch or {})
        reshare = "shares" in (body.model_fields_set if body is not None else (patch or {}))
        hand = body is not None or "category" in (patch or {})  # the caller chose the category
        how = SlipWrite(expected, token, unlock=unlock, reshare=reshare, by_hand=hand)
        return write_slip(store, ctx, current, new, how)

    return on_current(attempt)


@dataclass(frozen=True)
class SlipWrite:
    """How one slip's change or deletion is written (`write_slip`, `remove_slip`).

    `expected`: the version the caller read (None: If-Match: *, whatever it is when it commits);
    `token`: the request's token for the transaction (None: a new one); `undoes`: the journal entry
    this write undoes; `unlock`: a reconciled side may change (409 `reconciled` otherwise), its
    reconciliation then no longer holds. A change only: `shares_mode`, the mode of shares given as
    amounts (an undo restoring a slip as it was); `imported`, what the slip now keeps of the import
    row it comes from; `reshare`, the request sent `shares` (else "equal" stays among the slip's own
    sharers); `by_hand`, the caller chose the category (PUT, or PATCH sending one): rule suggestions
    learn from it. A deletion only: `conditions`, further checks of its transaction (a
    reconciliation's lease still held)."""

    expected: int | None
    token: str | None = None
    undoes: int | None = None
    unlock: bool = False
    shares_mode: str | None = None
    imported: dict[str, Any] | None = None
    reshare: bool = False
    by_hand: bool = False
    conditions: tuple[TxOp, ...] = ()


def write_slip(store: Store, ctx: WriteContext, current: Item, new: SlipIn, how: SlipWrite) -> dict[str, Any]:
    """The one change path of a slip: `current` (as read) becomes `new`, in one transaction, as `how` says."""
    broken = reconciliation.broken_sides(current, new, unlock=how.unlock)
    version = int(current["version"])
    slip_id = current["id"]
    prepared = facets.prepare(store, ctx, new, Writing(current, how.shares_mode, how.reshare))
    old_entry, new_entry = entry_of(current), prepared.entry
    item = _slip_item(
        prepared,
        id=slip_id,
        no=current["no"],
        version=version + 1,
        created_at=current["created_at"],
        updated_at=now_iso(),
        created_by=current.get("created_by"),
        updated_by=ctx.actor,
    )
    for extra in KEPT_FIELDS:
        if extra in current:
            item[extra] = current[extra]
    units_facet.keep_rated(current, item)
    if how.imported is not None:
        item["imported"] = how.imported
    reconciliation.keep(current, item, broken)
    _mark_hand(current, item, by_hand=how.by_hand)
    if not broken and says_the_same(current, item):
        _still_there(store, ctx)
        return slip_view(current)
    newly_named = set(posting.accounts_touched(new_entry)) - set(posting.accounts_touched(old_entry))
    commit = SlipCommit(
        [slip_change(current, item)],
        how.token or new_token(),
        how.undoes,
        prepared.checks
        + reconciliation.breaking(store, ctx.ledger, current, broken)
        + facets.writes(store, ctx, [current], [item]),
        _stale(how.expected),
    )
    with _naming_accounts(new_entry), units.learning(ctx.ledger):
        plan = prepared.guard(posting.plan(old_entry, new_entry))
        store.slips.change_slip(ctx, current, item, plan, commit, newly_named=frozenset(newly_named))
    alerts.after_spending(store, ctx, [item])  # a budget it takes to 80% or 100%: told once
    return slip_view(item)


def changed_item(store: Store, ctx: WriteContext, current: Item, new: SlipIn, *, at: str) -> Item | None:
    """The item `current` (as read) becomes as `new` at its own key (None: nothing changes), for a
    change written with others in one transaction (`write_slips`). Who paid and the shares stay as
    the slip has them (its amount does not change here, so neither do they); so do its unit's yen (and the
    mark that it was made at a rate) and its reconciled sides (neither its amount, date nor accounts change)."""
    prepared = facets.prepare(store, ctx, new, Writing(current, reshare=False))
    if prepared.body.date != current["date"]:
        raise ValueError("a batch of slip changes keeps every slip on its date")
    item = _slip_item(
        prepared, id=current["id"], no=current["no"], version=int(current["version"]) + 1,
        created_at=current["created_at"], updated_at=at, created_by=current.get("created_by"), updated_by=ctx.actor,
    )  # fmt: skip
    for extra in KEPT_FIELDS:
        if extra in current:
            item[extra] = current[extra]
    units_facet.keep_rated(current, item)
    reconciliation.keep(current, item, ())
    _mark_hand(current, item, by_hand=False)
    return None if says_the_same(current, item) else item


def _mark_hand(current: Item, item: Item, *, by_hand: bool) -> None:
    """The new item's mark of a category chosen by hand: set when the caller chose one, kept while the
    category stays what was chosen, gone when something else changes it (core/slip.by_hand)."""
    if slip.by_hand(current, item.get("category"), chosen=by_hand):
        item[BY_HAND] = True


def write_slips(
    store: Store,
    ctx: WriteContext,
    pairs: list[tuple[Item, Item]],
    *,
    undoes: int | None = None,
    stale: Callable[[Item | None], errors.ApiError] | None = None,
    group: str | None = None,
    more: Callable[[int], Sequence[TxOp]] | None = None,
) -> int:
    """Several slips (as read) changed into the items `changed_item` made, in ONE transaction and one
    journal entry (rules applied to a batch of slips; such a batch undone; a bulk edit's batch,
    `group` and `more` as SlipCommit has them): each only if still at the version read. Their dates
    stay; categories, payees, memos, tags, states and (a bulk edit) accounts may change. Its seq."""
    accounts = {a for old, new in pairs for e in (entry_of(old), entry_of(new)) for a in posting.accounts_touched(e)}
    plan = posting.Plan(
        "update",
        posting.merge(part for old, new in pairs for part in (posting.effects(entry_of(old), -1),
                                                             posting.effects(entry_of(new), +1))),
        tuple(sorted(accounts)),
    )  # fmt: skip
    written = facets.writes(store, ctx, [old for old, _ in pairs], [new for _, new in pairs])
    commit = SlipCommit(
        [slip_change(old, new) for old, new in pairs], new_token(), undoes, written, stale, group=group, more=more
    )
    with _naming_accounts(entry_of(pairs[0][0])):
        return store.slips.change_slips(ctx, pairs, plan, commit)


def _stale(expected: int | None) -> Callable[[Item | None], errors.ApiError]:
    """The slip was not at the version read when its change committed: 412 naming the version the
    caller sent, or, when they sent none (If-Match: *), read again."""

    def fail(old: Item | None) -> errors.ApiError:
        if old is None:
            return errors.NotFound("slip not found")
        if expected is None:
            return errors.ReadAgain()
        return errors.VersionMismatch(current=int(old["version"]), expected=expected)

    return fail


def delete_slip(
    store: Store,
    ctx: WriteContext,
    date: str,
    slip_id: str,
    *,
    expected: int | None,
    token: str | None = None,
    unlock: bool = False,
) -> None:
    def attempt() -> None:
        current = _read_slip(store, ctx.ledger, date, slip_id)
        check_version(int(current["version"]), expected)
        remove_slip(store, ctx, current, SlipWrite(expected, token, unlock=unlock))

    on_current(attempt)


def remove_slip(store: Store, ctx: WriteContext, current: Item, how: SlipWrite) -> None:
    """The one delete path of a slip (as read): one transaction, its identity left as a tombstone.
    A reconciled slip goes only with `how.unlock` (its reconciliation then no longer holds)."""
    broken = reconciliation.broken_sides(current, None, unlock=how.unlock)
    old_entry = entry_of(current)
    written = facets.writes(store, ctx, [current], [])
    written += reconciliation.breaking(store, ctx.ledger, current, broken) + how.conditions
    token, stale = how.token or new_token(), _stale(how.expected)
    commit = SlipCommit([slip_change(current, None)], token, how.undoes, written, stale)
    with _naming_accounts(old_entry):
        store.slips.delete_slips(ctx, [current], posting.plan(old_entry, None), commit, at=now_iso())


def remove_slips(
    store: Store,
    ctx: WriteContext,
    currents: list[Item],
    *,
    undoes: int | None,
    at: str,
    stale: Callable[[Item | None], errors.ApiError] | None = None,
    group: str | None = None,
    more: Callable[[int], Sequence[TxOp]] | None = None,
) -> int:
    """Several slips (as read) deleted in one transaction: an import batch or a recurring post undone,
    or a bulk edit's batch (`group`, `more`: as SlipCommit has them). Its seq."""
    entries = [entry_of(c) for c in currents]
    accounts = sorted({a for e in entries for a in posting.accounts_touched(e)})
    plan = posting.Plan("delete", posting.merge(posting.effects(e, -1) for e in entries), tuple(accounts))
    written = facets.writes(store, ctx, currents, [])
    commit = SlipCommit(
        [slip_change(c, None) for c in currents], None, undoes, written, stale or _stale(None), group=group, more=more
    )
    with _naming_accounts(entries[0]):
        return store.slips.delete_slips(ctx, currents, plan, commit, at=at)


def restore_slip(store: Store, ctx: WriteContext, view: dict[str, Any], *, tombstone: int, undoes: int) -> None:
    """A deleted slip back with its own id and number, as the entry that deleted it saw it."""
    restore_slips(store, ctx, [(view, tombstone)], undoes=undoes)


def restore_slips(store: Store, ctx: WriteContext, views: list[tuple[dict[str, Any], int]], *, undoes: int) -> None:
    """Deleted slips back, each with its own id and number as the entry that deleted it saw it (paired
    with the version its tombstone is at), in one transaction."""
    items: list[tuple[Item, int]] = []
    entries: list[Entry] = []
    checks: tuple[TxOp, ...] = ()
    guards = []
    for view, tombstone in views:
        item, entry, more, guard = _restored(store, ctx, view, tombstone)
        items.append((item, tombstone))
        entries.append(entry)
        checks += more
        guards.append(guard)
    accounts = tuple(sorted({a for e in entries for a in posting.accounts_touched(e)}))
    plan = posting.Plan("create", posting.merge(posting.effects(e, +1) for e in entries), accounts)
    plan = replace(plan, units=tuple(sorted({unit for guard in guards for unit in guard(plan).units})))
    commit = SlipCommit([slip_change(None, item) for item, _ in items], undoes=undoes, conditions=checks)
    with _naming_accounts(entries[0]):
        store.slips.restore_slips(ctx, items, plan, commit)


def _restored(
    store: Store, ctx: WriteContext, view: dict[str, Any], tombstone: int
) -> tuple[Item, Entry, tuple[TxOp, ...], Callable[[posting.Plan], posting.Plan]]:
    """A deleted slip's item as it comes back, its entry, what its transaction checks, and the guard
    of its unit's price. A side the slip had reconciled comes back cleared: its deletion was an unlocked
    change, after which that reconciliation no longer holds."""
    body = SlipIn.model_validate(slip.request_of(view, derived=False))
    prepared = facets.prepare(store, ctx, body, Writing(shares_mode=view.get("shares_mode")))
    stamp = now_iso()
    item = _slip_item(
        prepared, id=view["id"], no=int(view["no"]), version=tombstone + 1, created_at=view["created_at"],
        updated_at=stamp, created_by=view.get("created_by"), updated_by=ctx.actor,
    )  # fmt: skip
    for name in facets.KEPT:  # what the slip kept comes back with it (the file's text, the lot of a lapse)
        if view.get(name):
            item[name] = view[name]
    units_facet.keep_rated(view, item)  # its yen made at an earlier slip's rate still gives no rate
    checks = prepared.checks + facets.writes(store, ctx, [], [item])
    return item, prepared.entry, checks, prepared.guard


def slip_range(date_from: str | None, date_to: str | None, cursor: str | None) -> tuple[Dates, str | None]:
    """The days of the slips dated from..to, and where a cursor of an oldest-first listing of them
    (its `sk`: store.slip_position) resumes inside them."""
    for name, value in (("from", date_from), ("to", date_to)):
        if value is not None:
            query_date(name, value)
    window = Dates(date_from, date_to)
    if window.empty:
        raise errors.BadRequest("'from' is after 'to'")
    start = None
    if cursor:
        payload = decode_cursor(cursor)
        start = payload.get("sk")
        if not window.holds_position(start):
            raise errors.BadRequest("invalid cursor")
    return window, start


MAX_LIST_READ = 1000  # slips (index entries) read per request by a filtered list; a cursor continues


def list_cursor(date_from: str | None, date_to: str | None, cursor: str | None) -> tuple[str, int | None] | None:
    """Where a listing resumes: (day, below): that day's slips numbered below `below` (all of
    them if None), then the earlier days."""
    if not cursor:
        return None
    payload = decode_cursor(cursor)
    day, below = payload.get("day"), payload.get("below")
    if not isinstance(day, str):
        raise errors.BadRequest("invalid cursor")
    try:
        parse_date(day)
    except ValueError:
        raise errors.BadRequest("invalid cursor") from None
    if (date_from and day < date_from) or (date_to and day > date_to):
        raise errors.BadRequest("invalid cursor")
    if below is not None and (type(below) is not int or below < 1):
        raise errors.BadRequest("invalid cursor")
    return day, below


def list_slips(
    store: Store,
    ledger: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    account: str | None = None,
    category: str | None = None,
    kind: str | None = None,
    by: str | None = None,
    payee: str | None = None,
    tag: str | None = None,
    q: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """The slips as GET /slips lists them (list_slip_items), each as the API shows it."""
    found, after = list_slip_items(
        store, ledger, date_from=date_from, date_to=date_to, account=account, category=category, kind=kind, by=by,
        payee=payee, tag=tag, q=q, limit=limit, cursor=cursor,
    )  # fmt: skip
    return [slip_view(i) for i in found], after


def list_slip_items(
    store: Store,
    ledger: str,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    account: str | None = None,
    category: str | None = None,
    kind: str | None = None,
    by: str | None = None,
    payee: str | None = None,
    tag: str | None = None,
    q: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[Item], str | None]:
    """Newest day first; within a day, the latest slip number first. A day is listed only once
    all its slips are read, so the order holds across pages. A filtered list reads the slip index
    (about its page's worth; with several filters, at most MAX_LIST_READ entries); on a ledger not
    yet indexed it reads at most MAX_LIST_READ slips (plus the rest of a day it started). Either
    may answer fewer than `limit` items with a cursor to continue."""
    window, _ = slip_range(date_from, date_to, None)
    resume = list_cursor(date_from, date_to, cursor)
    payee_key = rules_core.normalise(payee) if payee else None  # ?payee=ｽｰﾊﾟｰ finds スーパー
    filters = SlipFilter(account=account, category=category, kind=kind, by=by, payee=payee_key)
    if tag is not None or q is not None:  # a tag's months, or a window of words (services/search)
        from kakeibo.services import search  # noqa: PLC0415

        return search.find_slips(
            store, ledger, tag=tag, q=q, filters=filters, date_from=date_from, date_to=date_to, resume=resume,
            limit=limit,
        )  # fmt: skip
    if filters:
        page = store.slip_index.indexed_slips(
            ledger, filters, date_from=date_from, date_to=date_to, below=resume, limit=limit, max_read=MAX_LIST_READ
        )
        if page is not None:
            after = page.resume and encode_cursor({"day": page.resume[0], "below": page.resume[1]})
            return list(page.items), after
    return _list_reading_slips(store, ledger, window, resume=resume, filters=filters, limit=limit)


def _list_reading_slips(
    store: Store,
    ledger: str,
    window: Dates,
    *,
    resume: tuple[str, int | None] | None,
    filters: SlipFilter,
    limit: int,
) -> tuple[list[Item], str | None]:
    """A list read from the slips themselves (unfiltered, or a ledger not yet indexed)."""
    account, category, kind, by, payee = filters.account, filters.category, filters.kind, filters.by, filters.payee
    if resume:
        window = window.until(resume[0])
    found: list[Item] = []  # the slips of the days read to their end, in order
    day: str | None = None  # the day being read
    first_day = resume[0] if resume else None
    bucket: list[Item] = []
    read = 0
    more = False  # stopped with a full page while the range goes on
    stop: str | None = None  # a day to continue at, when stopping before the range is done

    def close_day() -> None:
        ordered = sorted(bucket, key=lambda i: int(i["no"]), reverse=True)
        if resume and day == resume[0] and resume[1] is not None:
            ordered = [i for i in ordered if int(i["no"]) < resume[1]]
        found.extend(ordered)
        bucket.clear()

    if account or category or kind or by or payee:
        first = then = min(100, MAX_LIST_READ)
    else:  # a little past the page, so that its last day is usually read whole by one Query
        first, then = limit + 1 + limit // 10 + 5, 25
    pages = store.slips.slip_pages(
        ledger, window, account=account, category=category, kind=kind, by=by, payee=payee, first=first, then=then
    )
    for page in pages:
        read += page.read
        for item in page.items:
            if item["date"] != day:
                if day is not None:
                    close_day()
                day = item["date"]
                first_day = first_day or day
            bucket.append(item)
        if page.stopped_on is None:
            close_day()
            break
        if len(found) >= limit:  # a page's worth of whole days, and the range goes on
            more = True
            break
        at = page.stopped_on
        first_day = first_day or at
        if read >= MAX_LIST_READ and at != first_day:
            if day is not None and day != at:
                close_day()  # that day is behind where the page stopped: read to its end
            stop = at
            break
    if len(found) > limit or (found and more):
        found = found[:limit]
        return found, encode_cursor({"day": found[-1]["date"], "below": int(found[-1]["no"])})
    if stop is not None:
        return found, encode_cursor({"day": stop})
    return found, None
