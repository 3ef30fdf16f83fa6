"""Webhooks: their items, how far each has been delivered, and the record of each delivery.

`WEBHOOK#{id}` holds the URL, the signing secret, who made it and the webhook's own delivery state:
- `delivered`: the seq of the last journal entry it has received (set to its own creation entry's
  seq when it is made, so it receives what follows): its cursor;
- `state`: `active`, `failing` (its retry budget ran out; `resume` makes it active again, from its
  cursor) or `disabled` (its creator is no longer an owner of the ledger: for good);
- while a receiver fails: `failures` (in a row), `failing_since_ms`, `retry_at_ms` (the next
  attempt) and `last_error` (`failures` back to 0 and the others gone once an entry is delivered);
- `lease`/`lease_until_ms`: the one sender delivering to it now (so its entries go in seq order).
`DELIVERY#{id}#{seq}` records every attempt at one entry. Creating, deleting, resuming and disabling
a webhook are changes (journaled); delivering is bookkeeping of the sender: never journaled (a
journal entry for a delivery would be delivered in turn).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, from_ddb, to_ddb
from kakeibo.store.journal import Change
from kakeibo.store.keys import delivery_sk, ledger_of_pk, pk, webhook_sk
from kakeibo.store.transactions import ConditionFailed, StoreCore, TxOp
from kakeibo.store.write import WriteContext, WriteOps

MAX_WEBHOOKS = 10  # per ledger: every entry is sent to each
ACTIVE, FAILING, DISABLED = "active", "failing", "disabled"


def _gone(_: Item | None) -> errors.ApiError:
    return errors.NotFound("webhook not found")


def ledger_address(ledger: str) -> str:
    """How a queue message (a webhook woken, a delivery given up) names a ledger: its partition."""
    return pk(ledger)


def ledger_at(address: str) -> str | None:
    """The ledger (personal `sub` or SharedLedger) a queue message's `ledger_address` names, if any."""
    return ledger_of_pk(address)


class WebhookOps:
    """A ledger's webhooks and their deliveries."""

    def __init__(self, core: StoreCore, write: WriteOps) -> None:
        self.core = core
        self.write = write

    def create_webhook(self, ctx: WriteContext, item: Item, *, changes: Sequence[Change], count: int) -> int:
        """One transaction: the webhook (delivered up to its own entry's seq) and the journal entry."""

        def ops(seq: int) -> list[TxOp]:
            return [
                self.core.put_op(
                    ctx.ledger,
                    {**item, "SK": webhook_sk(item["id"]), "delivered": seq, "state": ACTIVE, "version": 1},
                    "attribute_not_exists(SK)",
                    lambda old: errors.AlreadyExists("a webhook with this id already exists"),
                )
            ]

        if count >= MAX_WEBHOOKS:
            raise errors.LimitReached(f"a ledger has at most {MAX_WEBHOOKS} webhooks", limit=MAX_WEBHOOKS)
        return self.write.commit(ctx, ops, changes, at=item["created_at"])

    def delete_webhook(self, ctx: WriteContext, webhook_id: str, *, changes: Sequence[Change], at: str) -> int:
        op = self.core.delete_op(ctx.ledger, webhook_sk(webhook_id), "attribute_exists(SK)", _gone)
        return self.write.commit(ctx, [op], changes, at=at)

    def disable_webhook_op(self, ledger: str, webhook: Item, reason: str) -> TxOp:
        """The webhook disabled for good (its creator left or was demoted), in the caller's transaction."""
        return self.core.update_op(
            ledger,
            webhook_sk(str(webhook["id"])),
            "SET #state = :off, #error = :why ADD #ver :one",
            _gone,
            "attribute_exists(SK)",
            names={"#state": "state", "#error": "last_error", "#ver": "version"},
            values={":off": DISABLED, ":why": reason, ":one": 1},
        )

    def resume_webhook(self, ctx: WriteContext, webhook: Item, *, changes: Sequence[Change], at: str) -> int:
        """A failing webhook active again, from its cursor: one transaction with the journal entry
        (which wakes the sender for it) and a check that its creator is still an owner."""

        def refused(found: Item | None) -> errors.ApiError:
            if found is None:
                return errors.NotFound("webhook not found")
            return errors.NotResumable("this webhook was disabled: its creator is no longer an owner of the ledger")

        op = self.core.update_op(
            ctx.ledger,
            webhook_sk(str(webhook["id"])),
            "SET #state = :on, #failures = :zero ADD #ver :one REMOVE #since, #retry",
            refused,
            "attribute_exists(SK) AND #state <> :off",
            names={
                "#state": "state",
                "#failures": "failures",
                "#ver": "version",
                "#since": "failing_since_ms",
                "#retry": "retry_at_ms",
            },
            values={":on": ACTIVE, ":off": DISABLED, ":zero": 0, ":one": 1},
        )
        ops = [op]
        creator = webhook.get("created_by")
        if ctx.shared and creator and creator != ctx.actor:
            ops.append(self.core.role_check(str(ctx.ledger), str(creator), ("owner",), refused))
        return self.write.commit(ctx, ops, changes, at=at)

    def webhooks(self, ledger: str) -> list[Item]:
        return list(self.core.query(ledger, begins_with=webhook_sk("")))

    def webhook(self, ledger: str, webhook_id: str) -> Item | None:
        return self.core.get(ledger, webhook_sk(webhook_id))

    def deliveries(self, ledger: str, webhook_id: str, *, limit: int) -> list[Item]:
        """The latest deliveries of a webhook, newest entry first."""
        found = self.core.query(ledger, begins_with=delivery_sk(webhook_id, 0)[:-12], forward=False, page_size=limit)
        out = []
        for item in found:
            out.append(item)
            if len(out) >= limit:
                break
        return out

    def record_attempt(
        self, ledger: str, webhook_id: str, seq: int, attempt: dict[str, Any], *, done: bool, dead: bool = False
    ) -> None:
        """One more attempt at delivering entry `seq`, kept with those before it (`done`: delivered;
        `dead`: the webhook's retry budget ran out on it)."""
        self.core.call(
            self.core.client.update_item,
            TableName=self.core.table,
            Key=to_ddb({"PK": pk(ledger), "SK": delivery_sk(webhook_id, seq)}),
            UpdateExpression="SET #type = :type, #wh = :wh, #seq = :seq, #last = :last, #done = :done, #dead = :dead,"
            " #first = if_not_exists(#first, :at), #tries = list_append(if_not_exists(#tries, :none), :try)"
            " ADD #n :one",
            ExpressionAttributeNames={
                "#type": "type",
                "#wh": "webhook",
                "#seq": "seq",
                "#last": "last",
                "#done": "delivered",
                "#dead": "dead_lettered",
                "#first": "first_at",
                "#tries": "tries",
                "#n": "attempts",
            },
            ExpressionAttributeValues=to_ddb(
                {
                    ":type": "delivery",
                    ":wh": webhook_id,
                    ":seq": seq,
                    ":last": json.dumps(attempt, separators=(",", ":")),
                    ":done": done,
                    ":dead": dead,
                    ":at": attempt["at"],
                    ":none": [],
                    ":try": [json.dumps(attempt, separators=(",", ":"))],
                    ":one": 1,
                }
            ),
        )

    # ---- the sender's lease and cursor ---------------------------------------------------------

    def lease_webhook(self, ledger: str, webhook_id: str, token: str, *, now_ms: int, until_ms: int) -> Item | None:
        """The webhook, leased to `token` until `until_ms` if no one else holds it: None otherwise
        (or if it is gone). Only the lease holder delivers: a webhook's entries go in seq order."""
        try:
            answer = self.core.write_one(
                self.core.client.update_item,
                Key=to_ddb({"PK": pk(ledger), "SK": webhook_sk(webhook_id)}),
                UpdateExpression="SET #lease = :token, #until = :until",
                ConditionExpression="attribute_exists(SK) AND (attribute_not_exists(#until) OR #until < :now)",
                ExpressionAttributeNames={"#lease": "lease", "#until": "lease_until_ms"},
                ExpressionAttributeValues=to_ddb({":token": token, ":until": until_ms, ":now": now_ms}),
                ReturnValues="ALL_NEW",
            )
        except ConditionFailed:
            return None
        return from_ddb(answer["Attributes"])

    def advance_delivered(self, ledger: str, webhook_id: str, seq: int, token: str, *, until_ms: int) -> bool:
        """The webhook has received everything up to `seq` (its failures, if any, are over: their
        count, start, next retry and last error go) and its lease runs until `until_ms`; never moves
        back, and only its lease holder moves it. False if it is gone, further or not leased."""
        return self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": pk(ledger), "SK": webhook_sk(webhook_id)}),
            UpdateExpression="SET #d = :seq, #failures = :zero, #until = :until REMOVE #since, #retry, #error",
            ConditionExpression="attribute_exists(SK) AND #d < :seq AND #lease = :token",
            ExpressionAttributeNames={
                "#d": "delivered",
                "#failures": "failures",
                "#since": "failing_since_ms",
                "#retry": "retry_at_ms",
                "#error": "last_error",
                "#lease": "lease",
                "#until": "lease_until_ms",
            },
            ExpressionAttributeValues=to_ddb({":seq": seq, ":zero": 0, ":token": token, ":until": until_ms}),
        )

    def release_webhook(self, ledger: str, webhook_id: str, token: str, **state: Any) -> bool:
        """The lease given back, with the delivery state the holder leaves (`failures`, `retry_at_ms`,
        `failing_since_ms`, `last_error`, `state`: only those given). False if it was not ours."""
        names = {"#until": "lease_until_ms", "#lease": "lease"}
        values: dict[str, Any] = {":zero": 0, ":token": token}
        sets = ["#until = :zero"]
        for n, (field, value) in enumerate(sorted(state.items())):
            names[f"#f{n}"], values[f":v{n}"] = field, value
            sets.append(f"#f{n} = :v{n}")
        return self.core.conditional(
            self.core.client.update_item,
            Key=to_ddb({"PK": pk(ledger), "SK": webhook_sk(webhook_id)}),
            UpdateExpression="SET " + ", ".join(sets),
            ConditionExpression="attribute_exists(SK) AND #lease = :token",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_ddb(values),
        )
