"""The webhook sender's Lambda entry point: DynamoDB Streams and SQS events handed to the delivery
(services/webhooks/delivery.py), which answers each with its partial batch response."""

from __future__ import annotations

from typing import Any

from kakeibo.services.webhooks.delivery import Sender
from kakeibo.store import get_store


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Both event sources' function: ReportBatchItemFailures on each (template.yaml)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    time_left = (lambda: remaining() / 1000) if remaining else None
    return Sender(get_store(), time_left=time_left).handle(event)
