"""Rules (自動分類): make, change, order and remove a ledger's rules, and load them to run.

A rule's conditions and actions are checked by the pure core (`core.rules.check_rule`); every change
is one transaction under the rule set's version (store/rules.py), journaled as a `rule` change.
Everything that runs rules (a slip's create, an import) loads the whole set with one read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kakeibo import errors
from kakeibo.core import rules as core
from kakeibo.core.ids import new_slip_id
from kakeibo.core.posting import UNCATEGORIZED
from kakeibo.models.rules import SlipRuleIn
from kakeibo.models.slips import CLEARED_STATES, SlipIn
from kakeibo.services.common import check_version, now_iso, on_current, valid_id
from kakeibo.store import Change, Item, Store, WriteContext
from kakeibo.store.rules import RuleSetItems

if TYPE_CHECKING:
    from kakeibo.csvio import Row  # an import's row: only the importer's paths make one

MAX_RULES = core.MAX_RULES
# A category an app writes for "none" (Money Forward ME, Zaim): a rule may set one in its place.
UNSET_CATEGORIES = frozenset({"未分類", UNCATEGORIZED})
# What a rule changes on a slip (a new one, an imported row, one the ledger has). The file's payee is
# where an imported row's payee starts, not a choice: a rule may rename it (imported_payee keeps the
# file's text). `cleared` is the state of the slip's `account` side.
RULED_FIELDS = ("category", "subcategory", "memo", "payee", "cleared")
CLEARED, UNCLEARED = "cleared", "uncleared"
MAX_RULED_ROWS = 1000  # rows an import or its dry run answers with the rules that changed them
_MESSAGES = {
    "rule_unknown_field": "is not a field a rule looks at",
    "rule_unknown_op": "is not an op a rule takes",
    "rule_op_not_for_field": "is not an op this field takes",
    "rule_value_list": "must be a list of 1 to 50 values",
    "rule_value_range": "must be [low, high] in yen, low at most high",
    "rule_value_amount": "must be a whole number of yen",
    "rule_value_text": "must be text of 1 to 100 characters",
    "rule_value_pattern": "must be plain text, not a pattern",
    "rule_value_character": "contains a character that is not allowed",
    "rule_value_kind": "must be expense, income or transfer",
    "rule_unknown_action": "is not an action a rule takes",
    "rule_action_text": "must be text",
    "rule_action_bool": "must be true or false",
    "rule_no_action": "must hold at least one action",
    "rule_subcategory_alone": "needs a category beside it",
    "rule_conditions_count": "must hold 1 to 20 conditions",
}


def rule_view(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "name": item.get("name"),
        "match": item.get("match", "all"),
        "conditions": json.loads(item["conditions"]),
        "actions": json.loads(item["actions"]),
        "stage": item.get("stage", "default"),
        "version": int(item["version"]),
        "created_at": item["created_at"],
        "updated_at": item["updated_at"],
    }


def check(conditions: Sequence[Mapping[str, Any]], actions: Mapping[str, Any]) -> None:
    """422 naming every problem of a rule's conditions and actions; nothing is written."""
    problems = core.check_rule(conditions, actions)
    if problems:
        found = [
            {"loc": ["body", *[str(p) for p in problem.loc]], "msg": _MESSAGES[problem.code], "type": problem.code,
             **({"ctx": dict(problem.context)} if problem.context else {})}
            for problem in problems
        ]  # fmt: skip
        raise errors.ValidationFailed("the rule is not valid", errors=found)


def _stored(rule: Mapping[str, Any], *, version: int, created_at: str, at: str) -> Item:
    item: Item = {
        "type": "rule",
        "id": rule["id"],
        "name": rule.get("name"),
        "match": rule.get("match") or "all",
        "stage": rule.get("stage") or "default",
        "conditions": json.dumps(list(rule["conditions"]), ensure_ascii=False, separators=(",", ":")),
        "actions": json.dumps(
            {k: v for k, v in dict(rule["actions"]).items() if v is not None}, ensure_ascii=False, separators=(",", ":")
        ),
        "version": version,
        "created_at": created_at,
        "updated_at": at,
    }
    return {k: v for k, v in item.items() if v is not None}


def in_running_order(found: RuleSetItems) -> list[Item]:
    """The rules as they run: stage by stage, and in the set's order within each stage."""
    items = found.ordered()
    return sorted(items, key=lambda item: core.STAGES.index(str(item.get("stage", "default"))))


def list_rules(store: Store, ledger: str) -> dict[str, Any]:
    found = store.rules.rule_set(ledger)
    return {"items": [rule_view(i) for i in in_running_order(found)], "version": found.version}


def _find(found: RuleSetItems, rule_id: str) -> Item:
    item = found.rules.get(rule_id) if valid_id(rule_id) else None
    if item is None:
        raise errors.NotFound("rule not found")
    return item


def get_rule(store: Store, ledger: str, rule_id: str) -> dict[str, Any]:
    return rule_view(_find(store.rules.rule_set(ledger), rule_id))


def load(store: Store, ledger: str) -> core.RuleSet:
    """The ledger's rules, ready to run (one read)."""
    found = store.rules.rule_set(ledger)
    return core.RuleSet(core.rule_of(rule_view(item)) for item in in_running_order(found))


def create_rule(store: Store, ctx: WriteContext, body: SlipRuleIn, *, rule_id: str | None = None) -> dict[str, Any]:
    rule = body.model_dump(exclude_none=True)
    rule["actions"] = body.actions.model_dump(exclude_none=True)
    check(rule["conditions"], rule["actions"])
    rule["id"] = rule_id or new_slip_id()

    def attempt() -> dict[str, Any]:
        found = store.rules.rule_set(ctx.ledger)
        if len(found.rules) >= MAX_RULES:
            raise errors.LimitReached(f"a ledger has at most {MAX_RULES} rules", limit=MAX_RULES)
        at = now_iso()
        item = _stored(rule, version=1, created_at=at, at=at)
        view = rule_view(item)
        store.rules.change_rules(
            ctx,
            found,
            [*found.ordered_ids(), rule["id"]],
            put=item,
            changes=[Change("rule", rule["id"], "create", 1, None, view)],
            at=at,
        )
        return view

    return on_current(attempt)


def patch_rule(
    store: Store, ctx: WriteContext, rule_id: str, changes: Mapping[str, Any], *, expected: int | None
) -> dict[str, Any]:
    if any(changes.get(k, "") is None for k in ("match", "conditions", "actions", "stage")):
        found = [
            {"loc": ["body", k], "msg": "may not be removed", "type": "missing"}
            for k in ("match", "conditions", "actions", "stage")
            if k in changes and changes[k] is None
        ]
        raise errors.ValidationFailed("the rule is not valid", errors=found)

    def attempt() -> dict[str, Any]:
        found = store.rules.rule_set(ctx.ledger)
        current = _find(found, rule_id)
        version = check_version(int(current["version"]), expected)
        before = rule_view(current)
        merged = {**before, **changes}
        if "actions" in changes:
            merged["actions"] = {k: v for k, v in dict(changes["actions"]).items() if v is not None}
        check(merged["conditions"], merged["actions"])
        at = now_iso()
        item = _stored(merged, version=version + 1, created_at=before["created_at"], at=at)
        after = rule_view(item)
        store.rules.change_rules(
            ctx,
            found,
            found.ordered_ids(),
            put=item,
            put_version=version,
            changes=[Change.between("rule", rule_id, before, after)],
            at=at,
        )
        return after

    return on_current(attempt)


def delete_rule(store: Store, ctx: WriteContext, rule_id: str, *, expected: int | None) -> None:
    def attempt() -> None:
        found = store.rules.rule_set(ctx.ledger)
        current = _find(found, rule_id)
        version = check_version(int(current["version"]), expected)
        before = rule_view(current)
        store.rules.change_rules(
            ctx,
            found,
            [i for i in found.ordered_ids() if i != rule_id],
            delete=(rule_id, version),
            changes=[Change.between("rule", rule_id, before, None)],
            at=now_iso(),
        )

    on_current(attempt)


def reorder(store: Store, ctx: WriteContext, ids: Sequence[str], *, expected: int | None) -> dict[str, Any]:
    """The rules run in the order of `ids` (within each stage); `ids` must name every rule once."""

    def attempt() -> dict[str, Any]:
        found = store.rules.rule_set(ctx.ledger)
        check_version(found.version, expected)
        if len(set(ids)) != len(ids) or set(ids) != set(found.rules):
            raise errors.ValidationFailed(
                "ids must name every rule of the ledger once",
                errors=[{"loc": ["body", "ids"], "msg": "must name every rule once", "type": "rule_order_ids"}],
            )
        before = {"order": list(found.ordered_ids()), "version": found.version}
        after = {"order": list(ids), "version": found.version + 1}
        store.rules.change_rules(
            ctx,
            found,
            list(ids),
            changes=[Change("rule", "order", "update", found.version + 1, before, after)],
            at=now_iso(),
        )
        return list_rules(store, ctx.ledger)

    return on_current(attempt)


def is_cleared(state: str | None) -> bool:
    """A side's state as the rules see it (their `cleared` action is true or false): reconciled is
    cleared, and no state is uncleared."""
    return state in CLEARED_STATES


def ruled_fields(outcome: core.Outcome) -> dict[str, Any]:
    """What the rules changed (`outcome`), as the slip's own fields: a side's state as a slip states
    it (the rules' true or false as cleared or uncleared). Empty: nothing."""
    update = {name: outcome.slip[name] for name in RULED_FIELDS if name in outcome.set_by}
    if "cleared" in update:
        update["cleared"] = CLEARED if update["cleared"] else UNCLEARED
    return update


def ruled_row(rule_set: core.RuleSet, row: Row, *, arrives_cleared: bool = False) -> tuple[Row, tuple[str, ...]]:
    """`row` as the ledger's rules make it, and the rules that changed it. What the file set (a
    category other than its "none", a subcategory, a side's state) is never overwritten; a memo may
    be added to. A row whose file says nothing of its state is seen as it would arrive
    (`arrives_cleared`: a bank's or card's row) and may be marked cleared or uncleared. A split row
    is left as the file wrote it."""
    slip = row.slip
    if not len(rule_set) or slip.lines:
        return row, ()
    unset = slip.category is None or slip.category in UNSET_CATEGORIES
    fields = {
        "kind": slip.kind,
        "amount": slip.amount,
        "account": slip.account,
        "memo": slip.memo,
        "payee": slip.payee,
        "imported_payee": slip.imported_payee,
        "category": None if unset else slip.category,
        "subcategory": None if unset else slip.subcategory,
        "cleared": arrives_cleared if slip.cleared is None else is_cleared(slip.cleared),
    }
    explicit = {name for name in ("category", "subcategory") if fields[name] is not None}
    if slip.cleared is not None:
        explicit.add("cleared")
    outcome = rule_set.run(fields, explicit)
    update = ruled_fields(outcome)
    if not update:
        return row, ()
    if "category" in update and "subcategory" not in update and unset:
        update["subcategory"] = None
    changed = {outcome.set_by[name] for name in update if name in outcome.set_by}
    return replace(row, slip=slip.model_copy(update=update)), tuple(r for r in outcome.touched if r in changed)


def ruled_slip(rule_set: core.RuleSet, body: SlipIn) -> tuple[SlipIn, tuple[str, ...]]:
    """A new slip (POST /slips) as the ledger's rules make it, and the rules that changed it. What
    the caller sent (a category, with its subcategory, a payee or a side's state) is never
    overwritten; a memo may be added to. A split slip keeps its lines as sent."""
    if not len(rule_set) or body.lines:
        return body, ()
    fields = {
        "kind": body.kind,
        "amount": body.amount,
        "account": body.account,
        "memo": body.memo,
        "payee": body.payee,
        "category": body.category,
        "subcategory": body.subcategory,
        "cleared": is_cleared(body.cleared),
    }
    explicit = {name for name in ("category", "payee") if fields[name] is not None}
    if "category" in explicit:
        explicit.add("subcategory")  # a subcategory belongs to the category the caller chose
    if body.cleared is not None:
        explicit.add("cleared")
    outcome = rule_set.run(fields, explicit)
    update = ruled_fields(outcome)
    if not update:
        return body, ()
    changed = {outcome.set_by[name] for name in update}
    return body.model_copy(update=update), tuple(r for r in outcome.touched if r in changed)
