"""Webhooks: their items, the seq each has been delivered up to, and the record of each delivery.

`WEBHOOK#{id}` holds the URL, the signing secret and `delivered` — the seq of the last journal
entry it has received (set to its own creation entry's seq when it is made, so it receives what
follows). `DELIVERY#{id}#{seq}` records the attempts at one entry. Creating and deleting a webhook
are changes (journaled); delivering is bookkeeping of the sender: never journaled (a journal entry
for a delivery would be delivered in turn).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kakeibo import errors
from kakeibo.store.codec import Item, to_ddb
from kakeibo.store.core import TxOp
from kakeibo.store.journal import Change
from kakeibo.store.keys import delivery_sk, pk, webhook_sk
from kakeibo.store.write import WriteContext, WriteOps

MAX_WEBHOOKS = 10  # per ledger: every entry is sent to each


class WebhookOps(WriteOps):
    """A ledger's webhooks and their deliveries."""

    def create_webhook(self, ctx: WriteContext, item: Item, *, changes: Sequence[Change], count: int) -> int:
        """One transaction: the webhook (delivered up to its own entry's seq) and the journal entry."""

        def ops(seq: int) -> list[TxOp]:
            return [
                self.put_op(
                    ctx.ledger,
                    {**item, "SK": webhook_sk(item["id"]), "delivered": seq},
                    "attribute_not_exists(SK)",
                    lambda old: errors.AlreadyExists("a webhook with this id already exists"),
                )
            ]

        if count >= MAX_WEBHOOKS:
            raise errors.Conflict(f"a ledger has at most {MAX_WEBHOOKS} webhooks", limit=MAX_WEBHOOKS)
        return self.commit(ctx, ops, changes, at=item["created_at"])

    def delete_webhook(self, ctx: WriteContext, webhook_id: str, *, changes: Sequence[Change], at: str) -> int:
        op = self.delete_op(
            ctx.ledger,
            webhook_sk(webhook_id),
            "attribute_exists(SK)",
            lambda old: errors.NotFound("webhook not found"),
        )
        return self.commit(ctx, [op], changes, at=at)

    def webhooks(self, ledger: str) -> list[Item]:
        return list(self.query(ledger, begins_with=webhook_sk("")))

    def webhook(self, ledger: str, webhook_id: str) -> Item | None:
        return self.get(ledger, webhook_sk(webhook_id))

    def deliveries(self, ledger: str, webhook_id: str, *, limit: int) -> list[Item]:
        """The latest deliveries of a webhook, newest entry first."""
        found = self.query(ledger, begins_with=delivery_sk(webhook_id, 0)[:-12], forward=False, page_size=limit)
        out = []
        for item in found:
            out.append(item)
            if len(out) >= limit:
                break
        return out

    def record_attempt(self, ledger: str, webhook_id: str, seq: int, attempt: dict[str, Any], *, done: bool) -> None:
        """One more attempt at delivering entry `seq` (its outcome; `done`: delivered)."""
        self._call(
            self.client.update_item,
            TableName=self.table,
            Key=to_ddb({"PK": pk(ledger), "SK": delivery_sk(webhook_id, seq)}),
            UpdateExpression="SET #type = :type, #wh = :wh, #seq = :seq, #last = :last, #done = :done,"
            " #first = if_not_exists(#first, :at) ADD #n :one",
            ExpressionAttributeNames={
                "#type": "type",
                "#wh": "webhook",
                "#seq": "seq",
                "#last": "last",
                "#done": "delivered",
                "#first": "first_at",
                "#n": "attempts",
            },
            ExpressionAttributeValues=to_ddb(
                {
                    ":type": "delivery",
                    ":wh": webhook_id,
                    ":seq": seq,
                    ":last": json.dumps(attempt, separators=(",", ":")),
                    ":done": done,
                    ":at": attempt["at"],
                    ":one": 1,
                }
            ),
        )

    def advance_delivered(self, ledger: str, webhook_id: str, seq: int) -> bool:
        """The webhook has received everything up to `seq`; never moves back. False if it is gone
        or already further."""
        return self._conditional(
            self.client.update_item,
            Key=to_ddb({"PK": pk(ledger), "SK": webhook_sk(webhook_id)}),
            UpdateExpression="SET #d = :seq",
            ConditionExpression="attribute_exists(SK) AND #d < :seq",
            ExpressionAttributeNames={"#d": "delivered"},
            ExpressionAttributeValues=to_ddb({":seq": seq}),
        )
