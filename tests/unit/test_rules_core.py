"""The rules core: normalised text, what a condition matches, stages and order, explicit fields kept."""

from __future__ import annotations

import unicodedata
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo.core import rules
from kakeibo.core.rules import Condition, Rule, RuleSet

# Every half-width katakana (U+FF66..U+FF9D) and the full-width letter NFKC makes of it.
HALF_WIDTH = [chr(c) for c in range(0xFF66, 0xFF9E)]
FULL_OF = {h: unicodedata.normalize("NFKC", h) for h in HALF_WIDTH}
VOICED = {"ｶ": "ガ", "ｻ": "ザ", "ﾀ": "ダ", "ﾊ": "バ"}  # with ﾞ (U+FF9E)

half_words = st.lists(st.sampled_from(HALF_WIDTH), min_size=1, max_size=12).map("".join)
shop_text = st.text(
    alphabet=st.sampled_from([*"abcXYZ 0123", *HALF_WIDTH, "ー", "ﾞ", "ﾟ", "ｽ", "ス", "Ａ", "ｂ"]),
    min_size=0,
    max_size=16,
)
CATEGORIES = ["食費", "日用品", "交通費", "外食"]


def full_width(half: str) -> str:
    return "".join(FULL_OF[c] for c in half)


def is_rule(rule_id: str, payee: str, category: str, stage: str = "default") -> Rule:
    return Rule(rule_id, (Condition("payee", "is", payee),), {"category": category}, stage=stage)


@given(half_words)
def test_half_width_katakana_matches_as_full_width(half: str) -> None:
    """Given a payee a card statement printed in half-width katakana,
    when a rule names the shop in full-width katakana,
    then it matches with every text op."""
    full = full_width(half)
    slip = {"payee": half, "kind": "expense", "amount": 1}
    for op in ("is", "contains", "starts_with", "ends_with"):
        assert rules.matches(Rule("r", (Condition("payee", op, full),), {"category": "食費"}), slip)
    assert rules.matches(Rule("r", (Condition("payee", "one_of", ["x", full]),), {"category": "食費"}), slip)


def test_voiced_marks_and_latin_width_and_case() -> None:
    """Given ｽｰﾊﾟｰﾏﾙｴﾂ, ｶﾞｽ and ＡＭＡＺＯＮ as a statement prints them,
    then スーパーマルエツ, ガス and amazon match them; a long-vowel mark and spaces stay as written."""
    assert rules.normalise("ｽｰﾊﾟｰﾏﾙｴﾂ") == "スーパーマルエツ"
    assert rules.normalise("ｶﾞｽ") == "ガス"
    assert rules.normalise("ＡＭＡＺＯＮ") == "amazon"
    assert rules.normalise("ｽｰﾊﾟｰ") != rules.normalise("スパ")
    assert rules.normalise("A B") != rules.normalise("AB")
    for half, full in VOICED.items():
        assert rules.normalise(half + "ﾞ") == full


@given(shop_text, shop_text)
def test_text_ops_agree_with_normalised_str_methods(text: str, value: str) -> None:
    """Given any payee and any condition value,
    then each text op is the plain string test on their normalised forms."""
    n, v = rules.normalise(text), rules.normalise(value)
    slip = {"payee": text}
    expected = {"is": n == v, "contains": v in n, "starts_with": n.startswith(v), "ends_with": n.endswith(v)}
    for op, want in expected.items():
        assert rules.matches(Rule("r", (Condition("payee", op, value),), {"payee": "x"}), slip) is want


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))
def test_amount_between_is_inclusive(amount: int, a: int, b: int) -> None:
    """Given an amount and a range, then between holds exactly when low <= amount <= high."""
    low, high = min(a, b), max(a, b)
    rule = Rule("r", (Condition("amount", "between", [low, high]),), {"category": "x"})
    assert rules.matches(rule, {"amount": amount}) is (low <= amount <= high)


def test_all_and_any() -> None:
    """Given two conditions of which one holds, then `any` matches and `all` does not."""
    conditions = (Condition("payee", "contains", "ｾﾌﾞﾝ"), Condition("amount", "is", 5))
    slip = {"payee": "セブン-イレブン", "amount": 300}
    assert rules.matches(Rule("r", conditions, {"category": "x"}, match="any"), slip)
    assert not rules.matches(Rule("r", conditions, {"category": "x"}, match="all"), slip)


rule_strategy = st.builds(
    lambda i, payee, category, stage: is_rule(f"r{i}", payee, category, stage),
    st.integers(0, 5),
    st.sampled_from(["A", "B", "ｴｰ"]),
    st.sampled_from(CATEGORIES),
    st.sampled_from(rules.STAGES),
)


@given(st.lists(rule_strategy, max_size=8), st.sampled_from(["A", "B", "エー"]))
def test_the_last_matching_rule_by_stage_then_order_wins(listed: list[Rule], payee: str) -> None:
    """Given any rules in any stages, all setting a category,
    when they run on a slip,
    then its category is the one of the last matching rule, stages taken pre, default, post, and the rule
    named as setting it is one that sets that category."""
    slip = {"payee": payee, "kind": "expense", "amount": 100}
    outcome = RuleSet(listed).run(slip)
    ordered = [r for stage in rules.STAGES for r in listed if r.stage == stage]
    matching = [r for r in ordered if rules.normalise(r.conditions[0].value) == rules.normalise(payee)]
    assert outcome.slip.get("category") == (matching[-1].actions["category"] if matching else None)
    if matching:
        setters = {r.id for r in matching if r.actions["category"] == outcome.slip["category"]}
        assert outcome.set_by["category"] in setters


actions_strategy = st.fixed_dictionaries(
    {},
    optional={
        "category": st.sampled_from(CATEGORIES),
        "payee": st.sampled_from(["A", "B", "マルエツ"]),
        "memo_append": st.sampled_from(["#家族", "#仕事"]),
        "cleared": st.booleans(),
    },
)
any_rule = st.builds(
    lambda i, payee, actions, stage, op: Rule(f"r{i}", (Condition("payee", op, payee),), actions, stage=stage),
    st.integers(0, 9),
    st.sampled_from(["A", "B", "ﾏﾙｴﾂ"]),
    actions_strategy,
    st.sampled_from(rules.STAGES),
    st.sampled_from(["is", "contains"]),
)
slip_strategy = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["expense", "income", "transfer"]),
        "amount": st.integers(1, 10**6),
        "payee": st.sampled_from(["A", "B", "マルエツ", "ｽｰﾊﾟｰ"]),
    },
    optional={"category": st.sampled_from(CATEGORIES), "memo": st.sampled_from(["", "昼", "#家族"])},
)


@given(st.lists(any_rule, max_size=10), slip_strategy, st.sets(st.sampled_from(["category", "payee", "cleared"])))
def test_an_explicit_field_is_never_overwritten(listed: list[Rule], slip: dict[str, Any], explicit: set[str]) -> None:
    """Given any rules and a slip whose caller set some fields explicitly,
    then those fields come out as they went in, a transfer never gets a category from a rule,
    and every field a rule changed is named with the rule that set it, among the rules that touched it."""
    outcome = RuleSet(listed).run(slip, explicit)
    for name in explicit:
        assert outcome.slip.get(name) == slip.get(name)
    if slip["kind"] == "transfer":
        assert outcome.slip.get("category") == slip.get("category")
    changed = {k for k in set(outcome.slip) | set(slip) if outcome.slip.get(k) != slip.get(k)}
    assert changed == set(outcome.set_by)
    assert set(outcome.set_by.values()) <= set(outcome.touched)


@given(any_rule, slip_strategy)
def test_one_rule_applied_twice_changes_nothing_the_second_time(rule: Rule, slip: dict[str, Any]) -> None:
    """Given one rule applied to a slip,
    when it is applied again to the result,
    then nothing changes: applying a rule is exactly once."""
    once = RuleSet([rule]).run(slip).slip
    twice = RuleSet([rule]).run(once)
    assert twice.slip == once
    assert not twice.changed


def test_a_later_stage_sees_the_renamed_payee() -> None:
    """Given a pre rule renaming ｽｰﾊﾟｰﾏﾙｴﾂ to マルエツ and a default rule on マルエツ,
    then the slip is renamed and categorised, and both rules are named as touching it."""
    rename = Rule("rename", (Condition("imported_payee", "contains", "ﾏﾙｴﾂ"),), {"payee": "マルエツ"}, stage="pre")
    food = is_rule("food", "マルエツ", "食費")
    outcome = RuleSet([food, rename]).run({"imported_payee": "ｽｰﾊﾟｰﾏﾙｴﾂ", "kind": "expense", "amount": 1})
    assert outcome.slip["payee"] == "マルエツ" and outcome.slip["category"] == "食費"
    assert outcome.touched == ("rename", "food")


@given(st.sampled_from(["a.*b", "^セブン", "イオン$", "[ab]c", "a|b", r"\d+", "(?i)x", "a.+"]))
def test_a_pattern_is_refused_where_the_op_takes_text(value: str) -> None:
    """Given a value that reads like a regular expression, then the condition is refused, naming its value."""
    problems = rules.check_condition({"field": "payee", "op": "contains", "value": value}, ("conditions", 0))
    assert [p.loc for p in problems] == [("conditions", 0, "value")]
    assert problems[0].code == "rule_value_pattern"


def test_what_check_rule_refuses() -> None:
    """Given unknown fields, ops, misplaced ops, bad values and bad actions,
    then each is refused with where it is; a good rule has no problem."""
    good = [{"field": "payee", "op": "contains", "value": "Amazon.co.jp"}]
    assert rules.check_rule(good, {"category": "日用品"}) == []
    assert rules.check_rule([{"field": "date", "op": "is", "value": "x"}], {"category": "a"})[0].code == (
        "rule_unknown_field"
    )
    assert rules.check_rule([{"field": "payee", "op": "regex", "value": "x"}], {"category": "a"})[0].code == (
        "rule_unknown_op"
    )
    assert rules.check_condition({"field": "payee", "op": "between", "value": [1, 2]})[0].code == (
        "rule_op_not_for_field"
    )
    assert rules.check_condition({"field": "amount", "op": "between", "value": [5, 1]})[0].code == "rule_value_range"
    assert rules.check_condition({"field": "amount", "op": "is", "value": True})[0].code == "rule_value_amount"
    assert rules.check_condition({"field": "kind", "op": "is", "value": "gift"})[0].code == "rule_value_kind"
    assert [p.code for p in rules.check_actions({"category": 5})] == ["rule_action_text"]
    assert [p.code for p in rules.check_actions({"colour": "red"})] == ["rule_unknown_action"]
    assert [p.code for p in rules.check_actions({})] == ["rule_no_action"]
    assert [p.code for p in rules.check_actions({"subcategory": "x"})] == ["rule_subcategory_alone"]
    assert [p.code for p in rules.check_rule([], {"category": "a"})] == ["rule_conditions_count"]


TEXTS = ["A", "ab", "ｽｰﾊﾟｰ", "スーパー", "マルエツ", "b"]
text_condition = st.builds(
    Condition,
    st.sampled_from(["payee", "imported_payee", "memo"]),
    st.sampled_from(["is", "contains", "starts_with", "ends_with"]),
    st.sampled_from(TEXTS),
) | st.builds(
    Condition,
    st.sampled_from(["payee", "memo"]),
    st.just("one_of"),
    st.lists(st.sampled_from(TEXTS), min_size=1, max_size=3),
)
amount_condition = st.builds(Condition, st.just("amount"), st.just("between"), st.just([100, 500])) | st.builds(
    Condition, st.just("kind"), st.just("is"), st.sampled_from(["expense", "income"])
)
mixed_rule = st.builds(
    lambda i, conditions, actions, stage, match: Rule(f"r{i}", tuple(conditions), actions, match=match, stage=stage),
    st.integers(0, 9),
    st.lists(text_condition | amount_condition, min_size=1, max_size=3),
    actions_strategy.filter(bool),
    st.sampled_from(rules.STAGES),
    st.sampled_from(rules.MATCHES),
)
mixed_slip = st.fixed_dictionaries(
    {"kind": st.sampled_from(["expense", "income"]), "amount": st.sampled_from([50, 100, 300, 900])},
    optional={
        "payee": st.sampled_from(TEXTS),
        "imported_payee": st.sampled_from(TEXTS),
        "memo": st.sampled_from(["", "ab ｽｰﾊﾟｰ", "マルエツ b"]),
    },
)


def _one_by_one(listed: list[Rule], slip: dict[str, Any]) -> dict[str, Any]:
    """The rules run the plain way: each in turn, tested against the slip as the ones before left it."""
    current = dict(slip)
    for rule in rules.in_stages(listed):
        if rules.matches(rule, current):
            current.update(rules._effects(rule.actions, current, frozenset()))
    return current


@settings(deadline=None, max_examples=300)
@given(st.lists(mixed_rule, max_size=12), mixed_slip)
def test_a_rule_set_does_what_its_rules_do_one_by_one(listed: list[Rule], slip: dict[str, Any]) -> None:
    """Given any rules (conditions on text, amount and kind, all or any) and a slip,
    when the rule set runs on it (finding the rules that may match by their key tests),
    then the slip comes out as running each rule in turn makes it."""
    assert RuleSet(listed).run(slip).slip == _one_by_one(listed, slip)


@given(
    st.sampled_from(["payee", "imported_payee", "memo", "account"]),
    st.sampled_from(["is", "contains", "one_of"]),
    st.sampled_from(["\x00", "\x07", "\x1b", "\u202e", "\ue000", "\ud800"]),
    st.sampled_from(["", "セブン", "ｽｰﾊﾟｰ"]),
)
def test_a_control_character_in_a_text_value_is_refused_naming_it(field: str, op: str, ch: str, text: str) -> None:
    """Given a text condition whose value holds a control, private-use, surrogate or bidirectional
    character (NUL, BEL, ESC, RLO...), alone or in a list, then the value is refused naming the character."""
    value: Any = text + ch
    if op == "one_of":
        value = ["ローソン", value]
    problems = rules.check_condition({"field": field, "op": op, "value": value}, ("conditions", 0))
    assert [(p.loc, p.code) for p in problems] == [(("conditions", 0, "value"), "rule_value_character")]
    assert problems[0].context == {"ch": f"U+{ord(ch):04X}"}


def test_a_memo_value_may_hold_what_a_memo_holds() -> None:
    """Given a memo condition on a line break or an emoji joined by a zero-width joiner (a memo takes both),
    then it is good; a payee condition on the joiner is refused (a payee takes none)."""
    assert rules.check_condition({"field": "memo", "op": "contains", "value": "立替\n"}) == []
    assert rules.check_condition({"field": "memo", "op": "contains", "value": "👨\u200d👩"}) == []
    assert rules.check_condition({"field": "payee", "op": "contains", "value": "a\u200db"})[0].code == (
        "rule_value_character"
    )
