"""Rules (自動分類): make, change, order and remove a ledger's rules, and load them to run.

A rule's conditions and actions are checked by the pure core (`core.rules.check_rule`); every change
is one transaction under the rule set's version (store/rules.py), journaled as a `rule` change.
Everything that runs rules (a slip's create, an import) loads the whole set with one read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kakeibo import errors
from kakeibo.core import rules as core
from kakeibo.core.ids import new_slip_id
from kakeibo.models import SlipRuleIn
from kakeibo.services.common import check_version, now_iso, on_current, valid_id
from kakeibo.store import Change, Item, RuleSetItems, Store, WriteContext

MAX_RULES = core.MAX_RULES
_MESSAGES = {
    "rule_unknown_field": "is not a field a rule looks at",
    "rule_unknown_op": "is not an op a rule takes",
    "rule_op_not_for_field": "is not an op this field takes",
    "rule_value_list": "must be a list of 1 to 50 values",
    "rule_value_range": "must be [low, high] in yen, low at most high",
    "rule_value_amount": "must be a whole number of yen",
    "rule_value_text": "must be text of 1 to 100 characters",
    "rule_value_pattern": "must be plain text, not a pattern",
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
            {"loc": ["body", *[str(p) for p in problem.loc]], "msg": _MESSAGES[problem.code], "type": problem.code}
            for problem in problems
        ]
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
    found = store.rule_set(ledger)
    return {"items": [rule_view(i) for i in in_running_order(found)], "version": found.version}


def _find(found: RuleSetItems, rule_id: str) -> Item:
    item = found.rules.get(rule_id) if valid_id(rule_id) else None
    if item is None:
        raise errors.NotFound("rule not found")
    return item


def get_rule(store: Store, ledger: str, rule_id: str) -> dict[str, Any]:
    return rule_view(_find(store.rule_set(ledger), rule_id))


def load(store: Store, ledger: str) -> core.RuleSet:
    """The ledger's rules, ready to run (one read)."""
    found = store.rule_set(ledger)
    return core.RuleSet(core.rule_of(rule_view(item)) for item in in_running_order(found))


def create_rule(store: Store, ctx: WriteContext, body: SlipRuleIn, *, rule_id: str | None = None) -> dict[str, Any]:
    rule = body.model_dump(exclude_none=True)
    rule["actions"] = body.actions.model_dump(exclude_none=True)
    check(rule["conditions"], rule["actions"])
    rule["id"] = rule_id or new_slip_id()

    def attempt() -> dict[str, Any]:
        found = store.rule_set(ctx.ledger)
        if len(found.rules) >= MAX_RULES:
            raise errors.LimitReached(f"a ledger has at most {MAX_RULES} rules", limit=MAX_RULES)
        at = now_iso()
        item = _stored(rule, version=1, created_at=at, at=at)
        view = rule_view(item)
        store.change_rules(
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
        found = store.rule_set(ctx.ledger)
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
        store.change_rules(
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
        found = store.rule_set(ctx.ledger)
        current = _find(found, rule_id)
        version = check_version(int(current["version"]), expected)
        before = rule_view(current)
        store.change_rules(
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
        found = store.rule_set(ctx.ledger)
        check_version(found.version, expected)
        if len(set(ids)) != len(ids) or set(ids) != set(found.rules):
            raise errors.ValidationFailed(
                "ids must name every rule of the ledger once",
                errors=[{"loc": ["body", "ids"], "msg": "must name every rule once", "type": "rule_order_ids"}],
            )
        before = {"order": list(found.ordered_ids()), "version": found.version}
        after = {"order": list(ids), "version": found.version + 1}
        store.change_rules(
            ctx,
            found,
            list(ids),
            changes=[Change("rule", "order", "update", found.version + 1, before, after)],
            at=now_iso(),
        )
        return list_rules(store, ctx.ledger)

    return on_current(attempt)
