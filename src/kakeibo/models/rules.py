"""Request and response models: payees and rules (自動分類)."""

from typing import Literal

from pydantic import Field, JsonValue, StrictBool

from kakeibo.models.base import Category, Model, Name, Strict

RuleField = Literal["payee", "imported_payee", "memo", "account", "amount", "kind"]
RuleOp = Literal["is", "contains", "starts_with", "ends_with", "one_of", "between"]
Stage = Literal["pre", "default", "post"]


class SlipRuleCondition(Strict):
    field: RuleField = Field(description="The slip's field it looks at")
    op: RuleOp = Field(
        description="Text (payee, imported_payee, memo, account, kind): is, contains, starts_with, ends_with, "
        "one_of (a list). Amount: is, one_of, between ([low, high], both included). Text compares normalised: "
        "NFKC, case folded (ｽｰﾊﾟｰ matches スーパー); no regular expressions"
    )
    value: JsonValue = Field(description="Text, a whole number of yen, or a list of them (one_of, between)")


class SlipRuleActions(Strict):
    category: Category | None = None
    subcategory: Category | None = Field(default=None, description="Only with a category")
    payee: Name | None = Field(default=None, description="The payee the slip is given (renaming it)")
    memo_append: Name | None = Field(default=None, description="Added to the end of the memo, once")
    cleared: StrictBool | None = Field(
        default=None,
        description="The state of the slip's `account` side: true cleared, false uncleared. On a new slip or an "
        "imported row that does not say (a bank's or card's row otherwise arrives cleared); on a slip the ledger "
        "has, true clears an uncleared side and false takes no clearing back",
    )


class SlipRuleIn(Strict):
    name: Name | None = None
    match: Literal["all", "any"] = "all"
    conditions: list[SlipRuleCondition] = Field(min_length=1, max_length=20)
    actions: SlipRuleActions
    stage: Stage = Field(default="default", description="Rules run pre, then default, then post; in order")


class SlipRulePatch(Strict):
    """A JSON merge patch of a rule: what is sent replaces what is stored (conditions and actions whole)."""

    name: Name | None = None
    match: Literal["all", "any"] | None = None
    conditions: list[SlipRuleCondition] | None = Field(default=None, min_length=1, max_length=20)
    actions: SlipRuleActions | None = None
    stage: Stage | None = None


class SlipRule(Model):
    id: str
    name: str | None
    match: Literal["all", "any"]
    conditions: list[SlipRuleCondition]
    actions: SlipRuleActions
    stage: Stage
    version: int
    created_at: str
    updated_at: str


class SlipRuleList(Model):
    items: list[SlipRule] = Field(description="In the order they run: stage by stage, then as ordered")
    version: int = Field(description="The rule set's version (ETag): PUT /rules/order is under it")


class SlipRuleOrder(Strict):
    ids: list[str] = Field(max_length=200, description="Every rule's id, in the order they are to run")


class SlipRuleChange(Model):
    """One slip as the rules change it: the fields they change, before and after."""

    id: str = Field(description="The slip's id")
    date: str
    rules: list[str] = Field(description="The rules that change it, in the order they run")
    before: dict[str, JsonValue] = Field(description="The fields they change, as the slip has them")
    after: dict[str, JsonValue] = Field(description="The same fields as the rules leave them")


class SlipRuleFailure(Model):
    id: str = Field(description="The slip's id")
    message: str = Field(description="Why it was left as it is")


class SlipRulePreview(Model):
    """What running rules over the ledger's slips would change; nothing is written."""

    dry_run: Literal[True]
    examined: int = Field(description="Slips of the dates asked for that were looked at")
    changed: int = Field(description="Slips the rules would change")
    items: list[SlipRuleChange] = Field(description="Those slips, oldest first (up to 500; `changed` counts all)")


class SlipRuleRun(Model):
    """What running rules over the ledger's slips changed."""

    dry_run: Literal[False]
    examined: int = Field(description="Slips of the dates asked for that were looked at")
    changed: int = Field(description="Slips changed by this request")
    items: list[SlipRuleChange] = Field(description="Those slips, oldest first (up to 500; `changed` counts all)")
    complete: bool = Field(description="false (202): time ran out; send it again (what is done stays done)")
    entries: list[int] = Field(
        description="The journal entries of the batches written: POST /changes/{seq}/undo takes one back"
    )
    failed: list[SlipRuleFailure] = Field(
        description="Slips left as they are (a strict budget, an archived account, or changing all along)"
    )


class SlipRuleSuggestion(Model):
    """A rule the household's own corrections suggest: slips of one payee given one category by hand."""

    id: str = Field(description="POST /rules/suggestions/{id}/accept makes it a rule")
    payee: str
    category: str
    count: int = Field(description="Slips of the payee given the category by hand")
    slips: list[str] = Field(description="Their ids (up to 20)")
    rule: SlipRuleIn = Field(description="The rule accepting it makes")


class SlipRuleSuggestionList(Model):
    items: list[SlipRuleSuggestion] = Field(description="Most slips first; nothing is made until one is accepted")
