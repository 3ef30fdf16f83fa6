"""Rules run over the slips a ledger already has (自動分類を既存の明細に): preview and apply.

`preview` writes nothing: the slips a rule (or all of the ledger's rules) would change, each with
its fields before and after and the rules that would change it. `apply` makes those changes in
batches: each batch is ONE transaction and ONE journal entry (so `POST /changes/{seq}/undo` takes a
batch back), each slip written only if it is still at the version read.

What counts as set on an existing slip (and is never overwritten, as on a new one): a category other
than "none" (uncategorized, 未分類) with its subcategory, a payee other than the one its file wrote
(imported_payee), and a side that is cleared or reconciled (so a rule may mark an uncleared slip
cleared, and never takes back what a member or a reconciliation cleared). So applying twice changes
nothing the second time (what the first set is set), and an edit racing an apply wins: the apply,
finding the slip changed, reads it again and leaves what the edit set alone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kakeibo import errors
from kakeibo.core import posting
from kakeibo.core import rules as core
from kakeibo.core.batching import batches
from kakeibo.core.posting import AccountItem
from kakeibo.services import rules as rules_service
from kakeibo.services.common import now_iso
from kakeibo.services.slips import changed_item, entry_of, merge_patch, slip_range, write_slips
from kakeibo.store import GUARD_ITEMS, JOURNAL_ITEMS, Dates, Item, Store, WriteContext, index_items_changed

MAX_LISTED = 500  # slips an answer lists (the counts cover every slip)
MAX_BATCH = 25  # slips per transaction at most (fewer when their items would pass 100)
MAX_TX_ITEMS = 100 - GUARD_ITEMS - JOURNAL_ITEMS
MIN_SECONDS_LEFT = 3.0  # stop starting batches when the invocation has less than this left
ATTEMPTS = 4  # a batch read again when a slip of it changed meanwhile

TimeLeft = Callable[[], float]


@dataclass
class Run:
    """What a preview or an apply found and did."""

    examined: int = 0
    changes: list[dict[str, Any]] = field(default_factory=list)  # listed (up to MAX_LISTED)
    changed: int = 0
    entries: list[int] = field(default_factory=list)  # the journal entries of the batches applied
    failed: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = True

    def listed(self, change: dict[str, Any]) -> None:
        self.changed += 1
        if len(self.changes) < MAX_LISTED:
            self.changes.append(change)


def rule_set_of(store: Store, ledger: str, rule_id: str | None) -> core.RuleSet:
    """The rule `rule_id` alone (404 when it is not the ledger's), or every rule of the ledger."""
    if rule_id is None:
        return rules_service.load(store, ledger)
    rule = rules_service.get_rule(store, ledger, rule_id)
    return core.RuleSet([core.rule_of(rule)])


MAX_PASSES = 5  # the rules run again on what they left until it settles (each pass sets more fields)


def planned(rule_set: core.RuleSet, item: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """What `rule_set` changes on the existing slip `item` (field -> new value; empty: nothing), and
    the rules that change it. What is set on the slip is left alone (see the module's doc); a split
    slip keeps its lines. The rules run again on what they left (a payee renamed by a later rule may
    match an earlier one) until nothing more changes, so that what is applied is where the rules
    settle: a second apply changes nothing."""
    current = dict(item)
    update: dict[str, Any] = {}
    touched: list[str] = []
    for _ in range(MAX_PASSES):
        step, rules = _one_pass(rule_set, current)
        if not step:
            break
        update.update(step)
        current.update(step)
        touched += [r for r in rules if r not in touched]
    update = {name: value for name, value in update.items() if _stated(item, name) != value}
    return update, (tuple(touched) if update else ())


def _stated(item: Mapping[str, Any], name: str) -> Any:
    """A field of the slip as a rule's change states it (an uncleared side is stored as none)."""
    if name == "cleared":
        return item.get(name) or rules_service.UNCLEARED
    return item.get(name)


def _one_pass(rule_set: core.RuleSet, item: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    if item.get("lines") or not len(rule_set):
        return {}, ()
    category = item.get("category")
    unset = category is None or category in rules_service.UNSET_CATEGORIES
    payee, imported = item.get("payee"), item.get("imported_payee")
    fields = {
        "kind": item["kind"],
        "amount": int(item["amount"]),
        "account": item["account"],
        "memo": item.get("memo"),
        "payee": payee,
        "imported_payee": imported,
        "category": None if unset else category,
        "subcategory": None if unset else item.get("subcategory"),
        "cleared": rules_service.is_cleared(item.get("cleared")),
    }
    explicit = set() if unset else {"category", "subcategory"}
    if payee and payee != imported:
        explicit.add("payee")
    if fields["cleared"]:
        explicit.add("cleared")
    outcome = rule_set.run(fields, explicit)
    update = rules_service.ruled_fields(outcome)
    if not update:
        return {}, ()
    if "category" in update and "subcategory" not in update:
        update["subcategory"] = None
    changed = {outcome.set_by[name] for name in update if name in outcome.set_by}
    return update, tuple(r for r in outcome.touched if r in changed)


def _change(item: Mapping[str, Any], update: Mapping[str, Any], rules: tuple[str, ...]) -> dict[str, Any]:
    return {
        "id": item["id"],
        "date": item["date"],
        "rules": list(rules),
        "before": {name: _stated(item, name) for name in update},
        "after": dict(update),
    }


Span = Dates  # the days of the slips a run covers (from..to), both ends included


def _span(date_from: str | None, date_to: str | None) -> Span:
    window, _ = slip_range(date_from, date_to, None)
    return window


def _slips(store: Store, ledger: str, span: Span) -> Iterator[Item]:
    return store.slips.slips_within(ledger, span)


def preview(
    store: Store, ledger: str, rule_id: str | None, *, date_from: str | None = None, date_to: str | None = None
) -> dict[str, Any]:
    """The slips dated from..to the rule (or every rule) would change, and how; nothing is written."""
    rule_set = rule_set_of(store, ledger, rule_id)
    run = Run()
    for item in _slips(store, ledger, _span(date_from, date_to)):
        run.examined += 1
        update, touched = planned(rule_set, item)
        if update:
            run.listed(_change(item, update, touched))
    return _answer(run, dry_run=True)


def apply(
    store: Store,
    ctx: WriteContext,
    rule_id: str | None,
    *,
    date_from: str | None = None,
    date_to: str | None = None,
    time_left: TimeLeft | None = None,
) -> dict[str, Any]:
    """Make the changes `preview` lists, in batches (one transaction and one journal entry each),
    under each slip's version. `complete` false: time ran out; run it again (what is done is done)."""
    span = _span(date_from, date_to)
    rule_set = rule_set_of(store, ctx.ledger, rule_id)
    run = Run()
    due: list[Item] = []
    for item in _slips(store, ctx.ledger, span):
        run.examined += 1
        if planned(rule_set, item)[0]:
            due.append(item)
    for batch in _batches(rule_set, due):
        if _short_of_time(time_left, run):
            break
        _apply_batch(store, ctx, rule_set, batch, run, span=span, time_left=time_left)
        if not run.complete:
            break
    return _answer(run, dry_run=False)


def _short_of_time(time_left: TimeLeft | None, run: Run) -> bool:
    """Whether the invocation has too little time left to start another transaction (the run is then
    marked incomplete: the caller sends it again, and what is done is not done twice)."""
    if time_left is not None and time_left() < MIN_SECONDS_LEFT:
        run.complete = False
    return not run.complete


def _answer(run: Run, *, dry_run: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "dry_run": dry_run,
        "examined": run.examined,
        "changed": run.changed,
        "items": run.changes,
    }
    if not dry_run:
        out.update(complete=run.complete, entries=run.entries, failed=run.failed)
    return out


def _items_of(rule_set: core.RuleSet, item: Item) -> set[Hashable]:
    """The table items changing `item` as the rules would touches (a bound: its keys, both sides)."""
    update, _ = planned(rule_set, item)
    new = {**item, **update}
    before, after = entry_of(item), entry_of(new)
    keys: set[Hashable] = {("slip", item["date"], item["id"]), ("identity", item["id"])}
    keys |= set(posting.effects(before)) | set(posting.effects(after))
    keys |= {AccountItem(a) for a in posting.accounts_touched(before)}
    keys |= {("index", name) for name in index_items_changed(item, new)}
    return keys


def _batches(rule_set: core.RuleSet, due: list[Item]) -> Iterator[list[Item]]:
    """The slips to change, as many per batch as fit in one transaction (at most MAX_BATCH)."""
    return batches(due, lambda item: _items_of(rule_set, item), most=MAX_BATCH, room=MAX_TX_ITEMS)


def _apply_batch(
    store: Store,
    ctx: WriteContext,
    rule_set: core.RuleSet,
    batch: list[Item],
    run: Run,
    *,
    span: Span,
    time_left: TimeLeft | None = None,
) -> None:
    """One batch in one transaction; a slip changed meanwhile makes it read the batch again (an edit
    that set a field wins); a batch refused for another reason (a strict budget, an archived
    account) is tried slip by slip while time is left, and a slip still refused is reported."""
    current = batch
    for attempt in range(ATTEMPTS):
        at = now_iso()
        pairs: list[tuple[Item, Item]] = []
        listed: list[dict[str, Any]] = []
        for item in current:
            update, touched = planned(rule_set, item)
            if not update:
                continue
            new = changed_item(store, ctx, item, merge_patch(item, update), at=at)
            if new is not None:
                pairs.append((item, new))
                listed.append(_change(item, update, touched))
        if not pairs:
            return
        try:
            seq = write_slips(store, ctx, pairs, stale=_read_again)
        except errors.ReadAgain:
            if attempt == ATTEMPTS - 1:
                run.failed += [{"id": i["id"], "message": "it kept changing; run again"} for i, _ in pairs]
                return
            current = _read_again_all(store, ctx.ledger, [i for i, _ in pairs], span)
            continue
        except errors.ApiError as exc:
            if len(pairs) == 1:
                run.failed.append({"id": pairs[0][0]["id"], "message": exc.detail})
                return
            for item, _ in pairs:
                if _short_of_time(time_left, run):
                    return
                _apply_batch(store, ctx, rule_set, [item], run, span=span)
            return
        run.entries.append(seq)
        for change in listed:
            run.listed(change)
        return


def _read_again(old: Item | None) -> errors.ApiError:
    return errors.ReadAgain()


def _read_again_all(store: Store, ledger: str, items: list[Item], span: Span) -> list[Item]:
    """The slips as they are now: those deleted meanwhile left out, and one an edit moved to another
    day found there through its identity (left out only when that day is outside the run's span)."""
    found = store.slips.slips_read_again(ledger, items)
    gone = [i for i in items if (str(i["date"]), str(i["id"])) not in found]
    if gone:
        identities = store.slips.slip_identities(ledger, [str(i["id"]) for i in gone])
        moved = []
        for item in gone:
            identity = identities.get(str(item["id"]))
            if identity is not None and not identity.get("deleted"):
                ref = (str(identity["date"]), str(item["id"]))
                if span.holds(*ref):
                    moved.append(ref)
        if moved:
            found.update(store.slips.slips_at(ledger, moved))
    now = {str(f["id"]): f for f in found.values()}
    return [now[str(i["id"])] for i in items if str(i["id"]) in now]
