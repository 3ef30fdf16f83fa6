"""The webhook sender's queues: the only module that talks to SQS.

`WebhookDeliveryQueue` carries which webhook to wake ({ledger, webhook, seq}); a retry is the same
message sent with a delay. `WebhookDeadLetterQueue` receives what the sender gives up on: a webhook
whose retry budget ran out (with its entry), and — from the stream's event source mapping, or the
local stream reader in its place — a batch of stream records that could not be read."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from kakeibo.settings import get_settings

MAX_DELAY_SECONDS = 900  # SQS delays a message at most 15 minutes
BATCH = 10  # messages per SendMessageBatch


@cache
def _client() -> Any:
    import boto3  # noqa: PLC0415 - the sender only
    from botocore.config import Config  # noqa: PLC0415

    settings = get_settings()
    return boto3.client(
        "sqs",
        endpoint_url=settings.sqs_endpoint_url or None,
        config=Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 3, "mode": "standard"}),
    )


class QueueFailed(Exception):
    """SQS did not take a message (the caller reports its record as failed: it comes again)."""


class Queues:
    """Sending to the delivery queue and the dead-letter queue."""

    def __init__(self, delivery_url: str | None = None, dead_letter_url: str | None = None) -> None:
        settings = get_settings()
        self.delivery_url = delivery_url or settings.webhook_queue_url
        self.dead_letter_url = dead_letter_url or settings.webhook_dead_letter_url

    def wake(self, messages: Sequence[dict[str, Any]], *, delay: float = 0) -> None:
        """Each message on the delivery queue, visible after `delay` seconds (at most 15 minutes)."""
        seconds = max(0, min(MAX_DELAY_SECONDS, int(delay + 0.999)))
        for begin in range(0, len(messages), BATCH):
            entries = [
                {"Id": str(n), "MessageBody": json.dumps(m, separators=(",", ":")), "DelaySeconds": seconds}
                for n, m in enumerate(messages[begin : begin + BATCH])
            ]
            answer = _client().send_message_batch(QueueUrl=self.delivery_url, Entries=entries)
            if answer.get("Failed"):
                raise QueueFailed(f"SQS refused {len(answer['Failed'])} of {len(entries)} messages")

    def dead_letter(self, body: dict[str, Any]) -> None:
        _client().send_message(QueueUrl=self.dead_letter_url, MessageBody=json.dumps(body, separators=(",", ":")))
