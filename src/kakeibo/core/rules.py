"""Pure rules of payees and rules (自動分類): what a rule matches, and what a set of rules does to a slip.

No boto3, no HTTP. A rule has conditions on a slip's fields (`payee`, `imported_payee`, `memo`,
`account`, `amount`, `kind`), joined by `all` or `any`, and actions (`category`, `subcategory`,
`payee`, `memo_append`, `cleared`). Rules run stage by stage (`pre`, `default`, `post`), in their
order within a stage; each sees the slip as the rules before it left it, and a later rule's action
wins. A field the caller or the file set explicitly is never overwritten.

Text compares normalised: NFKC (half-width katakana become full-width, full-width Latin letters and
digits become ASCII, ｶﾞ becomes ガ), then case folded. Long-vowel marks and spaces stay as written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kakeibo.core.text import code_point, refused_character

STAGES = ("pre", "default", "post")
MATCHES = ("all", "any")
TEXT_FIELDS = ("payee", "imported_payee", "memo", "account", "kind")
FIELDS = (*TEXT_FIELDS, "amount")
TEXT_OPS = ("is", "contains", "starts_with", "ends_with", "one_of")
AMOUNT_OPS = ("is", "one_of", "between")
OPS = ("is", "contains", "starts_with", "ends_with", "one_of", "between")
ACTIONS = ("category", "subcategory", "payee", "memo_append", "cleared")
KINDS = ("expense", "income", "transfer")
MAX_RULES = 200
MAX_CONDITIONS = 20
MAX_ONE_OF = 50
MAX_TEXT = 100
MAX_AMOUNT = 10**12
MAX_MEMO = 500  # a memo a rule appends to never grows past what a slip's memo may hold

# What marks a value as a pattern rather than text: rules compare text, they take no regular
# expressions, and a value that reads like one would silently never match.
_PATTERN = re.compile(r"\.[*+?]|\\[a-zA-Z\\.]|^\^|\$$|\[[^\]]*\]|\(\?|\|")


def normalise(text: str) -> str:
    """The form text is compared in: NFKC, then case folded (ｽｰﾊﾟｰ and スーパー are one)."""
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with a rule: where (a path of names and indices), a message code and what the
    message names (the character refused)."""

    loc: tuple[str | int, ...]
    code: str
    context: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Condition:
    field: str
    op: str
    value: Any


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    conditions: tuple[Condition, ...]
    actions: Mapping[str, Any]
    match: str = "all"
    stage: str = "default"


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_TEXT


def _is_amount(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_AMOUNT


def check_condition(condition: Mapping[str, Any], at: tuple[str | int, ...] = ()) -> list[Problem]:
    """What is wrong with one condition `{field, op, value}` (nothing: it is good)."""
    name, op, value = condition.get("field"), condition.get("op"), condition.get("value")
    if name not in FIELDS:
        return [Problem((*at, "field"), "rule_unknown_field")]
    if op not in OPS:
        return [Problem((*at, "op"), "rule_unknown_op")]
    if op not in (AMOUNT_OPS if name == "amount" else TEXT_OPS):
        return [Problem((*at, "op"), "rule_op_not_for_field")]
    scalar = _is_amount if name == "amount" else _is_text
    where = (*at, "value")
    if op == "one_of":
        if not isinstance(value, list) or not 0 < len(value) <= MAX_ONE_OF:
            return [Problem(where, "rule_value_list")]
        values = value
    elif op == "between":
        if not isinstance(value, list) or len(value) != 2 or not all(_is_amount(v) for v in value):
            return [Problem(where, "rule_value_range")]
        if value[0] > value[1]:
            return [Problem(where, "rule_value_range")]
        return []
    else:
        values = [value]
    for v in values:
        if not scalar(v):
            return [Problem(where, "rule_value_amount" if name == "amount" else "rule_value_text")]
        memo = name == "memo"  # a memo's value may hold what a memo holds (line breaks, joiners)
        refused = None if name == "amount" else refused_character(v, allow_newlines=memo, allow_format=memo)
        if refused is not None:  # what the field itself could never hold (NUL, BEL, a bidi override)
            return [Problem(where, "rule_value_character", {"ch": code_point(refused)})]
        if name != "amount" and _PATTERN.search(v):
            return [Problem(where, "rule_value_pattern")]
        if name == "kind" and v not in KINDS:
            return [Problem(where, "rule_value_kind")]
    return []


def check_actions(actions: Mapping[str, Any], at: tuple[str | int, ...] = ("actions",)) -> list[Problem]:
    """What is wrong with a rule's actions (nothing: they are good)."""
    problems: list[Problem] = []
    for name, value in actions.items():
        if name not in ACTIONS:
            problems.append(Problem((*at, name), "rule_unknown_action"))
        elif name == "cleared":
            if not isinstance(value, bool):
                problems.append(Problem((*at, name), "rule_action_bool"))
        elif not _is_text(value):
            problems.append(Problem((*at, name), "rule_action_text"))
    if not problems and not actions:
        problems.append(Problem(at, "rule_no_action"))
    if not problems and "subcategory" in actions and "category" not in actions:
        problems.append(Problem((*at, "subcategory"), "rule_subcategory_alone"))
    return problems


def check_rule(conditions: Sequence[Mapping[str, Any]], actions: Mapping[str, Any]) -> list[Problem]:
    """Every problem of a rule's conditions and actions, each with where it is."""
    problems: list[Problem] = []
    if not conditions or len(conditions) > MAX_CONDITIONS:
        problems.append(Problem(("conditions",), "rule_conditions_count"))
    for i, condition in enumerate(conditions):
        problems += check_condition(condition, ("conditions", i))
    return problems + check_actions(actions)


# ---- matching ------------------------------------------------------------------------------------


class _Texts:
    """A slip's text fields in their normalised form, each computed once."""

    __slots__ = ("_cache", "_slip")

    def __init__(self, slip: Mapping[str, Any]) -> None:
        self._slip = slip
        self._cache: dict[str, str | None] = {}

    def get(self, name: str) -> str | None:
        if name not in self._cache:
            raw = self._slip.get(name)
            self._cache[name] = normalise(raw) if isinstance(raw, str) else None
        return self._cache[name]


@dataclass(frozen=True, slots=True)
class _Test:
    field: str
    op: str
    value: Any  # normalised text, a frozenset of them, an int, a frozenset of ints, or (low, high)

    def holds(self, slip: Mapping[str, Any], texts: _Texts) -> bool:
        if self.field == "amount":
            amount = slip.get("amount")
            if not isinstance(amount, int):
                return False
            if self.op == "is":
                return bool(amount == self.value)
            if self.op == "one_of":
                return amount in self.value
            low, high = self.value
            return bool(low <= amount <= high)
        text = texts.get(self.field)
        if text is None:
            return False
        if self.op == "is":
            return bool(text == self.value)
        if self.op == "one_of":
            return text in self.value
        if self.op == "contains":
            return self.value in text
        if self.op == "starts_with":
            return text.startswith(self.value)
        return text.endswith(self.value)


def _test(condition: Condition) -> _Test:
    value = condition.value
    if condition.field == "amount":
        if condition.op == "one_of":
            value = frozenset(value)
        elif condition.op == "between":
            value = (value[0], value[1])
    elif condition.op == "one_of":
        value = frozenset(normalise(v) for v in value)
    else:
        value = normalise(value)
    return _Test(condition.field, condition.op, value)


@dataclass(frozen=True, slots=True)
class _Compiled:
    rule: Rule
    tests: tuple[_Test, ...]

    def matches(self, slip: Mapping[str, Any], texts: _Texts) -> bool:
        if self.rule.match == "any":
            return any(t.holds(slip, texts) for t in self.tests)
        return all(t.holds(slip, texts) for t in self.tests)


def matches(rule: Rule, slip: Mapping[str, Any]) -> bool:
    """Whether `rule`'s conditions hold for `slip` (its fields as a slip has them)."""
    return _Compiled(rule, tuple(_test(c) for c in rule.conditions)).matches(slip, _Texts(slip))


@dataclass(frozen=True)
class Outcome:
    """What the rules did to a slip: its fields after them, which rules matched and changed something
    (in the order they ran), and which rule set each changed field."""

    slip: dict[str, Any]
    touched: tuple[str, ...]
    set_by: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.set_by)


def in_stages(rules: Iterable[Rule]) -> list[Rule]:
    """`rules` in the order they run: stage by stage, keeping their order within a stage."""
    listed = list(rules)
    return sorted(listed, key=lambda r: STAGES.index(r.stage))


def _key(tests: tuple[_Test, ...], match: str) -> _Test | None:
    """A text test that must hold for a rule to match (None: the rule has none to offer)."""
    if match == "any" and len(tests) != 1:
        return None
    return next((t for t in tests if t.field != "amount"), None)


class _Index:
    """Which rules may match a slip, found by their key tests grouped by field and op, so that a slip
    is compared with 200 rules in a few tight loops rather than rule by rule: every rule whose key
    test holds, and every rule without one, in the order they run."""

    def __init__(self, compiled: Sequence[_Compiled]) -> None:
        self.always: list[int] = []
        self.equal: dict[str, dict[str, list[int]]] = {}  # field -> text -> rules (is, one_of)
        self.scanned: dict[tuple[str, str], list[tuple[str, int]]] = {}  # (field, op) -> (text, rule)
        for i, c in enumerate(compiled):
            key = _key(c.tests, c.rule.match)
            if key is None:
                self.always.append(i)
            elif key.op in ("is", "one_of"):
                for text in [key.value] if key.op == "is" else sorted(key.value):
                    self.equal.setdefault(key.field, {}).setdefault(text, []).append(i)
            else:
                self.scanned.setdefault((key.field, key.op), []).append((key.value, i))

    def candidates(self, texts: _Texts, start: int) -> list[int]:
        found = [i for i in self.always if i >= start]
        for name, by_text in self.equal.items():
            text = texts.get(name)
            if text is not None:
                found += by_text.get(text, ())
        for (name, op), listed in self.scanned.items():
            text = texts.get(name)
            if text is None:
                continue
            if op == "contains":
                found += [i for value, i in listed if value in text]
            elif op == "starts_with":
                found += [i for value, i in listed if text.startswith(value)]
            else:
                found += [i for value, i in listed if text.endswith(value)]
        return sorted({i for i in found if i >= start})


class RuleSet:
    """A ledger's rules, prepared once (their values normalised) and run on any number of slips."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = in_stages(rules)
        self._compiled = [_Compiled(r, tuple(_test(c) for c in r.conditions)) for r in self.rules]
        self._index = _Index(self._compiled)

    def __len__(self) -> int:
        return len(self.rules)

    def run(self, slip: Mapping[str, Any], explicit: Iterable[str] = ()) -> Outcome:
        """`slip` after every rule, stage by stage, in order; a later rule's action wins, and no field
        in `explicit` (set by the caller or the file) is ever changed. Each rule that may match (see
        `_Index`) is tested in turn; after one changes the slip, those after it are found again."""
        fixed = frozenset(explicit)
        current = dict(slip)
        texts = _Texts(current)
        touched: list[str] = []
        set_by: dict[str, str] = {}
        start = 0
        while start < len(self._compiled):
            for i in self._index.candidates(texts, start):
                compiled = self._compiled[i]
                if not compiled.matches(current, texts):
                    continue
                changes = _effects(compiled.rule.actions, current, fixed)
                if not changes:
                    continue
                touched.append(compiled.rule.id)
                for name, value in changes.items():
                    current[name] = value
                    set_by[name] = compiled.rule.id
                texts = _Texts(current)
                start = i + 1
                break
            else:
                break
        # a field that came back to what it was (renamed there and back) was not changed
        set_by = {name: rule for name, rule in set_by.items() if current.get(name) != slip.get(name)}
        return Outcome(current, tuple(touched), set_by)


def _effects(actions: Mapping[str, Any], slip: Mapping[str, Any], fixed: frozenset[str]) -> dict[str, Any]:
    """The fields `actions` change on `slip` (only those whose value differs), leaving `fixed` alone."""
    out: dict[str, Any] = {}
    transfer = slip.get("kind") == "transfer"
    category = actions.get("category")
    if category is not None and not transfer and "category" not in fixed:
        if slip.get("category") != category:
            out["category"] = category
        sub = actions.get("subcategory")
        if "subcategory" not in fixed and slip.get("subcategory") != sub and (sub is not None or "category" in out):
            out["subcategory"] = sub
    payee = actions.get("payee")
    if payee is not None and "payee" not in fixed and slip.get("payee") != payee:
        out["payee"] = payee
    cleared = actions.get("cleared")
    if cleared is not None and "cleared" not in fixed and slip.get("cleared") is not cleared:
        out["cleared"] = cleared
    tail = actions.get("memo_append")
    if tail is not None:
        memo = slip.get("memo") or ""
        if tail not in memo:  # appended once: running the rule again adds nothing
            joined = f"{memo} {tail}" if memo else tail
            if len(joined) <= MAX_MEMO:
                out["memo"] = joined
    return out


def rule_of(item: Mapping[str, Any]) -> Rule:
    """A rule from its stored or requested form `{id, match, stage, conditions, actions}`."""
    return Rule(
        id=str(item["id"]),
        conditions=tuple(Condition(c["field"], c["op"], c["value"]) for c in item["conditions"]),
        actions={k: v for k, v in dict(item["actions"]).items() if v is not None},
        match=item.get("match") or "all",
        stage=item.get("stage") or "default",
    )
