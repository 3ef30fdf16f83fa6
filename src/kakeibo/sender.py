"""The webhook sender: journal entries, read from the table's stream, POSTed to each webhook of
their ledger — in seq order per webhook, at least once.

In AWS it is a function of its own fed by DynamoDB Streams (template.yaml: a filter lets only
journal entries through, failures are reported per record and a batch that keeps failing goes to
an SQS dead-letter queue); locally `make run` reads DynamoDB Local's stream and calls this same
`handle` (kakeibo/local/streams.py).

Each webhook keeps `delivered`, the seq of the last entry it received. For an entry with seq N, a
webhook behind N first gets what it missed (read from the journal), then N: so nothing is skipped
and the order holds even when a batch was dropped to the dead-letter queue or records come again.
A failed POST is retried with backoff while the invocation has time; then the record is reported
as failed, and the stream (Lambda, or the local reader) brings it — and what follows — again.
A crash between a POST and the `delivered` update sends that entry again (at least once: receivers
drop repeats by `Kakeibo-Event-Id`).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kakeibo import webhooks
from kakeibo.store import Item, Store, from_ddb, get_store
from kakeibo.store.keys import change_seq, ledger_of_pk

EVENT_ID = "Kakeibo-Event-Id"
SIGNATURE = "Kakeibo-Signature"
ATTEMPTS_PER_RECORD = 3  # in one invocation, with backoff, before the record is reported as failed
MAX_BACKOFF = 30.0
MIN_SECONDS_LEFT = 8.0  # stop starting POSTs with less than this left (each may take TIMEOUT_SECONDS)


def is_entry(record: dict[str, Any]) -> bool:
    """A stream record of a new journal entry (the only ones the sender acts on)."""
    keys = (record.get("dynamodb") or {}).get("Keys") or {}
    sk = (keys.get("SK") or {}).get("S", "")
    return record.get("eventName") == "INSERT" and sk.startswith("CHG#")


def payload(ledger: str, entry: Item) -> bytes:
    """The body a webhook receives: the entry as GET /changes answers it, with its ledger."""
    from kakeibo.services.journal import entry_view  # noqa: PLC0415 - the journal's one view

    body = {"ledger": str(ledger), **entry_view(entry)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass
class Sender:
    store: Store
    time_left: Callable[[], float] = lambda: 900.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """A batch of stream records -> the partial batch response (the first record that failed)."""
        self._hooks: dict[str, list[Item]] = {}  # each ledger's webhooks, read once per batch
        for record in event.get("Records") or []:
            if not is_entry(record):
                continue  # the filter keeps these out in AWS; locally every record comes
            if not self._record(record):
                sequence = (record.get("dynamodb") or {}).get("SequenceNumber")
                return {"batchItemFailures": [{"itemIdentifier": sequence}]}
        return {"batchItemFailures": []}

    def _record(self, record: dict[str, Any]) -> bool:
        image = from_ddb(record["dynamodb"]["NewImage"])
        ledger = ledger_of_pk(str(image["PK"]))
        if ledger is None:
            return True
        seq = change_seq(str(image["SK"]))
        ok = True
        if ledger not in self._hooks:
            self._hooks[ledger] = self.store.webhooks(ledger)
        for hook in self._hooks[ledger]:
            if int(hook.get("delivered", 0)) >= seq:
                continue
            ok = self._catch_up(ledger, hook, seq, image) and ok
        return ok

    def _catch_up(self, ledger: str, hook: Item, seq: int, image: Item) -> bool:
        """Everything the webhook has not received up to `seq`, in order; False at the first failure."""
        delivered = int(hook.get("delivered", 0))
        if delivered == seq - 1:
            entries = [image]
        else:
            entries = list(self.store.journal_entries(ledger, after=delivered, limit=seq - delivered))
        for entry in entries:
            if int(entry["seq"]) > seq:
                break
            if not self._deliver(ledger, hook, entry):
                return False
            self.store.advance_delivered(ledger, str(hook["id"]), int(entry["seq"]))
            hook["delivered"] = int(entry["seq"])
        return True

    def _deliver(self, ledger: str, hook: Item, entry: Item) -> bool:
        """POST one entry, retried with backoff while there is time. True once delivered."""
        seq, body = int(entry["seq"]), payload(ledger, entry)
        for attempt in range(ATTEMPTS_PER_RECORD):
            if self.time_left() < MIN_SECONDS_LEFT:
                return False
            timestamp = int(self.clock())
            headers = {
                "Content-Type": "application/json",
                EVENT_ID: f"{ledger!s}:{seq}",
                SIGNATURE: webhooks.sign(str(hook["secret"]), body, timestamp),
            }
            outcome = webhooks.post(str(hook["url"]), body, headers)
            at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))
            result = {"at": at, "status": outcome.status, "error": outcome.error, "ms": outcome.millis}
            self.store.record_attempt(ledger, str(hook["id"]), seq, result, done=outcome.ok)
            if outcome.ok:
                return True
            if attempt + 1 < ATTEMPTS_PER_RECORD:
                self.sleep(min(MAX_BACKOFF, random.uniform(0.5, 1.0) * 2**attempt))  # noqa: S311
        return False


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The stream's function: ReportBatchItemFailures (template.yaml)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)

    def time_left() -> float:
        return remaining() / 1000 if remaining else 900.0

    return Sender(get_store(), time_left=time_left).handle(event)
