"""Rules run over existing slips (services.rule_runs.planned): what is set stays, and a second
apply changes nothing. Pure: no table."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import rules
from kakeibo.core.rules import Condition, Rule, RuleSet
from kakeibo.services.rule_runs import planned

PAYEES = ["A", "B", "マルエツ", "ｽｰﾊﾟｰ", "スーパー"]
CATEGORIES = ["食費", "日用品", "外食"]

rule_strategy = st.builds(
    lambda i, field, value, op, actions, stage: Rule(f"r{i}", (Condition(field, op, value),), actions, stage=stage),
    st.integers(0, 9),
    st.sampled_from(["payee", "imported_payee", "memo"]),
    st.sampled_from(PAYEES),
    st.sampled_from(["is", "contains", "starts_with"]),
    st.fixed_dictionaries(
        {},
        optional={
            "category": st.sampled_from(CATEGORIES),
            "payee": st.sampled_from(PAYEES),
            "memo_append": st.sampled_from(["#家族", "#仕事"]),
        },
    ).filter(bool),
    st.sampled_from(rules.STAGES),
)
slip_strategy = st.fixed_dictionaries(
    {
        "id": st.just("s1"),
        "date": st.just("2026-11-10"),
        "kind": st.sampled_from(["expense", "income", "transfer"]),
        "amount": st.integers(1, 10**6),
        "account": st.just("cash"),
        "category": st.sampled_from(["uncategorized", "未分類", *CATEGORIES]),
    },
    optional={
        "payee": st.sampled_from(PAYEES),
        "imported_payee": st.sampled_from(PAYEES),
        "memo": st.sampled_from(["昼", "#家族", "ｽｰﾊﾟｰで"]),
    },
)


@settings(deadline=None)
@given(st.lists(rule_strategy, max_size=8), slip_strategy)
def test_a_second_apply_changes_nothing(listed: list[Rule], slip: dict[str, Any]) -> None:
    """Given any rules and an existing slip,
    when the rules are applied and then applied again to what they left,
    then the second changes nothing (apply is exactly once)."""
    rule_set = RuleSet(listed)
    update, touched = planned(rule_set, slip)
    assert bool(update) == bool(touched)
    after = {**slip, **update}
    assert planned(rule_set, after) == ({}, ())


@settings(deadline=None)
@given(st.lists(rule_strategy, max_size=8), slip_strategy)
def test_what_is_set_on_a_slip_stays(listed: list[Rule], slip: dict[str, Any]) -> None:
    """Given any rules and an existing slip,
    then a category other than "none" is never changed, nor a payee other than the file's own,
    and a transfer never gets a category."""
    update, _ = planned(RuleSet(listed), slip)
    if slip["category"] not in ("uncategorized", "未分類") or slip["kind"] == "transfer":
        assert "category" not in update and "subcategory" not in update
    if slip.get("payee") and slip.get("payee") != slip.get("imported_payee"):
        assert "payee" not in update
