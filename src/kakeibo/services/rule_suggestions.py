"""Rule suggestions learned from the household's own corrections (「この店はいつも食費」).

When members have given two or more slips of one payee the same category by hand (POST /slips with a
category, PUT, or PATCH sending one: the slip carries `category_by_hand`), `suggestions` offers the
rule `{payee is X -> category Y}`, unless the ledger's rules already give that payee that category.
Nothing is created until a member accepts one (`accept`, which makes it a rule like POST /rules).
A suggestion's id is derived from its payee (normalised) and category, so it stays the same while
it stands. What is read is bounded: the latest MAX_READ slips.
"""

from __future__ import annotations

from typing import Any

from kakeibo import errors
from kakeibo.core import rules as core
from kakeibo.core.ids import derived_id
from kakeibo.models.rules import SlipRuleIn
from kakeibo.services import rules as rules_service
from kakeibo.services.slips import BY_HAND
from kakeibo.store import Store, WriteContext

MAX_READ = 2000  # the latest slips a suggestion is learned from
MIN_SLIPS = 2  # slips of one payee given one category by hand
MAX_LISTED_SLIPS = 20
MAX_NAME = 100


def _suggestion_id(payee_key: str, category: str) -> str:
    return derived_id(f"rule-suggestion\n{payee_key}\n{category}")


def suggestions(store: Store, ledger: str) -> dict[str, Any]:
    """The rules the household's corrections suggest, most slips first."""
    rule_set = rules_service.load(store, ledger)
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for item in store.slips.slips_marked(ledger, BY_HAND, max_read=MAX_READ):
        payee, category = item.get("payee"), item.get("category")
        if not payee or not category or item.get("lines"):
            continue
        key = (core.normalise(payee), str(category))
        group = groups.setdefault(key, {"payee": payee, "category": category, "slips": []})
        group["slips"].append(item["id"])
    out = []
    for (payee_key, category), group in groups.items():
        if len(group["slips"]) < MIN_SLIPS or _already_ruled(rule_set, group["payee"], category):
            continue
        out.append(
            {
                "id": _suggestion_id(payee_key, category),
                "payee": group["payee"],
                "category": category,
                "count": len(group["slips"]),
                "slips": group["slips"][:MAX_LISTED_SLIPS],
                "rule": _rule(group["payee"], category),
            }
        )
    out.sort(key=lambda s: (-s["count"], s["payee"], s["category"]))
    return {"items": out}


def _already_ruled(rule_set: core.RuleSet, payee: str, category: str) -> bool:
    """Do the ledger's rules already give a new slip of this payee this category?"""
    probe = {"kind": "expense", "amount": 0, "account": "", "payee": payee, "category": None, "subcategory": None}
    return rule_set.run(probe).slip.get("category") == category


def _rule(payee: str, category: str) -> dict[str, Any]:
    name = f"{payee}はいつも{category}"
    return {
        "name": name[:MAX_NAME],
        "match": "all",
        "conditions": [{"field": "payee", "op": "is", "value": payee}],
        "actions": {"category": category},
        "stage": "default",
    }


def accept(store: Store, ctx: WriteContext, suggestion_id: str) -> dict[str, Any]:
    """The suggestion made a rule (as POST /rules makes one); 404 when it no longer stands."""
    found = next((s for s in suggestions(store, ctx.ledger)["items"] if s["id"] == suggestion_id), None)
    if found is None:
        raise errors.NotFound("suggestion not found")
    body = SlipRuleIn.model_validate(found["rule"])
    return rules_service.create_rule(store, ctx, body)
