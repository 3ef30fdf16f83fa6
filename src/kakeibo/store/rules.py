"""Rules (自動分類): a ledger's rule set, the only module that knows how rules are stored.

`RULES` is the set's head: `order` (every rule's id, in the order they run within their stage) and
`version` (the ETag of the set: every change of a rule moves it, so a reorder under If-Match never
misses a rule made or removed meanwhile). Each rule is `RULES#{id}` (its conditions and actions as
JSON, its own `version`). The head and the rules share one key prefix: one Query, which a ledger's
at most 200 rules fit in, loads them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kakeibo import errors
from kakeibo.store.codec import Item
from kakeibo.store.journal import Change
from kakeibo.store.keys import RULES_SK, rule_sk
from kakeibo.store.transactions import StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps


@dataclass(frozen=True)
class RuleSetItems:
    """A ledger's rule set as stored: the head's version and order, and every rule by id."""

    version: int = 0
    order: tuple[str, ...] = ()
    rules: dict[str, Item] = field(default_factory=dict)

    def ordered_ids(self) -> list[str]:
        return [str(item["id"]) for item in self.ordered()]

    def ordered(self) -> list[Item]:
        """The rules in the set's order (one the order misses, after it, by id)."""
        known = [self.rules[i] for i in self.order if i in self.rules]
        rest = sorted(set(self.rules) - set(self.order))
        return known + [self.rules[i] for i in rest]


def _set_moved(found: Item | None) -> errors.ApiError:
    return errors.ReadAgain()


def _rule_moved(found: Item | None) -> errors.ApiError:
    return errors.ReadAgain()


class RuleOps:
    """A ledger's rules: read all at once, changed one transaction at a time under the set's version."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def rule_set(self, ledger: str) -> RuleSetItems:
        """The head and every rule, in one consistent Query."""
        version, order, rules = 0, (), {}
        for item in self.core.query(ledger, begins_with=RULES_SK, consistent=True):
            if item["SK"] == RULES_SK:
                version, order = int(item["version"]), tuple(item.get("order") or ())
            else:
                rules[str(item["id"])] = item
        return RuleSetItems(version, order, rules)

    def change_rules(
        self,
        ctx: WriteContext,
        seen: RuleSetItems,
        order: Sequence[str],
        *,
        put: Item | None = None,
        put_version: int | None = None,
        delete: tuple[str, int] | None = None,
        changes: Sequence[Change],
        at: str,
    ) -> int:
        """One transaction: the head moved on from the version `seen` with the new `order`, and one
        rule put (new when `put_version` is None, else over that version) or deleted at its version.
        ReadAgain when the set or the rule changed since it was read."""
        head: Item = {"SK": RULES_SK, "type": "rules", "version": seen.version + 1, "order": list(order)}
        if seen.version:
            head_op = self.core.put_op(
                ctx.ledger, head, "#ver = :seen", _set_moved, names={"#ver": "version"}, values={":seen": seen.version}
            )
        else:
            head_op = self.core.put_op(ctx.ledger, head, "attribute_not_exists(SK)", _set_moved)
        ops: list[TxOp] = [head_op]
        if put is not None:
            item = {**put, "SK": rule_sk(str(put["id"]))}
            if put_version is None:
                ops.append(self.core.put_op(ctx.ledger, item, "attribute_not_exists(SK)", _rule_moved))
            else:
                ops.append(
                    self.core.put_op(
                        ctx.ledger,
                        item,
                        "#ver = :v",
                        _rule_moved,
                        names={"#ver": "version"},
                        values={":v": put_version},
                    )
                )
        if delete is not None:
            ops.append(
                self.core.delete_op(
                    ctx.ledger,
                    rule_sk(delete[0]),
                    "#ver = :v",
                    _rule_moved,
                    names={"#ver": "version"},
                    values={":v": delete[1]},
                )
            )
        return self.write.commit(ctx, ops, changes, at=at)
