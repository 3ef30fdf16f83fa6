"""The webhook sender: journal entries POSTed to each webhook of their ledger — per webhook, in seq
order, at least once — so that one receiver down delays only itself.

One function, two event sources (template.yaml, WebhookSenderFunction):
- DynamoDB Streams (AWS's event: `Records[]` with `eventName`, `dynamodb.NewImage` in DynamoDB JSON,
  `SequenceNumber`, `eventSourceARN`). For each new journal entry it wakes every active webhook of
  the entry's ledger that is behind it — one message on the delivery queue each — and returns at
  once: no POST is made here, so no receiver can hold up the shard. A record that is not a journal
  entry is skipped; one that cannot be read is reported in `batchItemFailures` (the event source
  mapping tries it MaximumRetryAttempts more times, then describes its batch in the dead-letter
  queue: never forever).
- SQS (the delivery queue). For each webhook woken it takes the webhook's lease (one sender at a
  time per webhook), then POSTs the entries after its cursor (`delivered`) in seq order, read from
  the journal, checking before each send that the webhook's creator is still an owner of the
  ledger. A failed POST ends the run: the webhook's next attempt is scheduled with backoff (the
  same message, delayed) and its entries wait for it, in order; after its retry budget the webhook
  is `failing` (its entry dead-lettered, `deliveries` says so) until an owner resumes it.

The Lambda entry point is kakeibo/sender.py. Locally `make run` (and the tests) read DynamoDB
Local's stream and the local SQS server's queue and hand this same `handle` the same events
(kakeibo/local/streams.py, kakeibo/local/sqs.py).
A crash between a POST and the cursor's update sends that entry again (at least once: receivers
drop repeats by `Kakeibo-Event-Id`).
"""

from __future__ import annotations

import json
import random
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kakeibo.queues import Queues
from kakeibo.services.webhooks import outbound
from kakeibo.settings import get_settings
from kakeibo.store import Item, SharedLedger, Store, entry_of_image, from_ddb, is_entry_record
from kakeibo.store.webhooks import ACTIVE, DISABLED, FAILING, ledger_address, ledger_at

EVENT_ID = "Kakeibo-Event-Id"
SIGNATURE = "Kakeibo-Signature"
LEASE_SECONDS = 30  # renewed with each entry delivered; a sender that died frees it within this
INVOCATION_SECONDS = 60.0  # what an invocation may take locally (the template's Timeout)
MIN_SECONDS_LEFT = outbound.TIMEOUT_SECONDS + 5  # no POST is started with less left
ENTRIES_PER_READ = 25
BUSY_DELAY = 1  # seconds: a webhook another sender is delivering to is looked at again after this
CREATOR_GONE = "its creator is no longer an owner of the ledger"


def _message(ledger: str, webhook_id: str, seq: int, **more: Any) -> dict[str, Any]:
    """A queue message that wakes (or gives up on) the webhook `webhook_id` of `ledger` at `seq`."""
    return {"ledger": ledger_address(ledger), "webhook": webhook_id, "seq": seq, **more}


class Malformed(ValueError):
    """A stream record that names a journal entry but cannot be read as one."""


def is_entry(record: dict[str, Any]) -> bool:
    """A stream record of a new journal entry (the only ones the sender acts on)."""
    return is_entry_record(record)


def entry_of(record: dict[str, Any]) -> tuple[str, int]:
    """The ledger (personal `sub` or SharedLedger) and seq of a journal entry's stream record."""
    try:
        found = entry_of_image(from_ddb(record["dynamodb"]["NewImage"]))
        if found is None:
            raise Malformed("not a journal entry of a ledger")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Malformed(f"{type(exc).__name__}: {exc}") from None
    return found


def ledger_naming(ledger: str) -> dict[str, Any]:
    """How a webhook body and its Event-Id name the ledger: its id (a shared ledger's id; a personal
    ledger's is its owner's user id, which the API calls `me` for that owner alone) and whether it
    is personal."""
    return {"ledger": str(ledger), "personal": not isinstance(ledger, SharedLedger)}


def payload(ledger: str, entry: Item) -> bytes:
    """The body a webhook receives: the entry as GET /changes answers it, with its ledger."""
    from kakeibo.services.journal import entry_view  # noqa: PLC0415 - the journal's one view

    body = {**ledger_naming(ledger), **entry_view(entry)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _log(message: str) -> None:
    print(f"webhook sender: {message}", file=sys.stderr, flush=True)


@dataclass
class Sender:
    store: Store
    queues: Queues = field(default_factory=Queues)
    time_left: Callable[[], float] | None = None  # None: INVOCATION_SECONDS from each event
    clock: Callable[[], float] = time.time
    post: Callable[..., outbound.Outcome] = outbound.post

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """One event of either source -> the partial batch response."""
        if self.time_left is None:
            deadline = time.monotonic() + INVOCATION_SECONDS
            self._left: Callable[[], float] = lambda: deadline - time.monotonic()
        else:
            self._left = self.time_left
        records = event.get("Records") or []
        if records and records[0].get("eventSource") == "aws:sqs":
            return self.handle_queue(records)
        return self.handle_stream(records)

    # ---- the stream: wake the webhooks ---------------------------------------------------------

    def handle_stream(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Each webhook behind a new entry woken; the first record that cannot be read is reported
        (the mapping gives it and those after it again), and only those before it are acted on."""
        due: dict[str, int] = {}
        first: str | None = None
        failed: str | None = None
        for record in records:
            if not is_entry(record):
                continue  # the filter keeps these out in AWS; the local reader drops them too
            sequence = str((record.get("dynamodb") or {}).get("SequenceNumber", ""))
            try:
                ledger, seq = entry_of(record)
            except Malformed as exc:
                _log(f"record {sequence} of {record.get('eventSourceARN')} cannot be read: {exc}")
                failed = sequence
                break
            first = first or sequence
            due[ledger] = max(due.get(ledger, 0), seq)
        try:
            for ledger, seq in due.items():
                self._wake(ledger, seq)
        except Exception as exc:  # DynamoDB or SQS did not answer: the batch comes again
            _log(f"could not wake webhooks: {type(exc).__name__}: {exc}")
            failed = first
        return {"batchItemFailures": [{"itemIdentifier": failed}] if failed else []}

    def _wake(self, ledger: str, seq: int) -> None:
        now_ms = int(self.clock() * 1000)
        messages = [
            _message(ledger, str(hook["id"]), seq)
            for hook in self.store.webhooks.webhooks(ledger)
            if hook.get("state", ACTIVE) == ACTIVE
            and int(hook.get("delivered", 0)) < seq
            and int(hook.get("retry_at_ms", 0)) <= now_ms  # else its scheduled retry brings this too
        ]
        if messages:
            self.queues.wake(messages)

    # ---- the queue: deliver to one webhook -----------------------------------------------------

    def handle_queue(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Each webhook woken by the batch delivered to, side by side (a hanging receiver holds only
        its own); the messages of a webhook that could not be worked on are reported."""
        woken: dict[tuple[str, str], tuple[int, list[str]]] = {}
        for record in records:
            try:
                body = json.loads(record["body"])
                ledger = ledger_at(str(body["ledger"]))
                key = (str(body["ledger"]), str(body["webhook"]))
                seq = int(body.get("seq", 0))
                if ledger is None:
                    raise ValueError("no ledger")
            except (KeyError, TypeError, ValueError) as exc:
                _log(f"message {record.get('messageId')} cannot be read ({exc}): dropped")
                continue
            latest, ids = woken.get(key, (0, []))
            woken[key] = (max(latest, seq), [*ids, str(record.get("messageId"))])
        failures: list[dict[str, str]] = []
        if not woken:
            return {"batchItemFailures": failures}
        with ThreadPoolExecutor(max_workers=min(10, len(woken))) as pool:
            futures = {
                key: pool.submit(self.deliver, ledger_at(key[0]) or "", key[1], seq) for key, (seq, _) in woken.items()
            }
            for key, future in futures.items():
                try:
                    future.result()
                except Exception as exc:
                    _log(f"webhook {key[1]}: {type(exc).__name__}: {exc}")
                    failures += [{"itemIdentifier": i} for i in woken[key][1]]
        return {"batchItemFailures": failures}

    def deliver(self, ledger: str, webhook_id: str, seq: int = 0) -> None:
        """Whatever the webhook has not received, in order, under its lease."""
        token = uuid.uuid4().hex
        now_ms = int(self.clock() * 1000)
        until_ms = now_ms + LEASE_SECONDS * 1000
        hook = self.store.webhooks.lease_webhook(ledger, webhook_id, token, now_ms=now_ms, until_ms=until_ms)
        if hook is None:  # gone, or another sender is delivering to it: it may miss `seq`, so look again
            current = self.store.webhooks.webhook(ledger, webhook_id)
            if current is not None and current.get("state", ACTIVE) == ACTIVE and int(current["delivered"]) < seq:
                self.queues.wake([_message(ledger, webhook_id, seq)], delay=BUSY_DELAY)
            return
        try:
            self._run(ledger, hook, token)
        except BaseException:
            self.store.webhooks.release_webhook(ledger, webhook_id, token)
            raise

    def _run(self, ledger: str, hook: Item, token: str) -> None:
        webhook_id = str(hook["id"])
        if hook.get("state", ACTIVE) != ACTIVE:
            self.store.webhooks.release_webhook(ledger, webhook_id, token)
            return
        if int(hook.get("retry_at_ms", 0)) > self.clock() * 1000 + 500:  # its scheduled retry will come
            self.store.webhooks.release_webhook(ledger, webhook_id, token)
            return
        delivered = int(hook.get("delivered", 0))
        while True:
            entries = list(self.store.journal.journal_entries(ledger, after=delivered, limit=ENTRIES_PER_READ))
            if not entries:
                self.store.webhooks.release_webhook(ledger, webhook_id, token)
                return
            for entry in entries:
                if self._left() < MIN_SECONDS_LEFT:  # the next invocation goes on from the cursor
                    self.store.webhooks.release_webhook(ledger, webhook_id, token)
                    self.queues.wake([_message(ledger, webhook_id, int(entry["seq"]))])
                    return
                # read after the entries: an entry committed after a removal is only read once the
                # removal is committed too, and this sees it
                if not self._creator_is_owner(ledger, hook):
                    self.store.webhooks.release_webhook(
                        ledger, webhook_id, token, state=DISABLED, last_error=CREATOR_GONE
                    )
                    return
                outcome, attempt = self._post(ledger, hook, entry)
                if not outcome.ok:
                    self._failed(ledger, hook, token, int(entry["seq"]), outcome=outcome, attempt=attempt)
                    return
                until_ms = int(self.clock() * 1000) + LEASE_SECONDS * 1000
                self.store.webhooks.advance_delivered(ledger, webhook_id, int(entry["seq"]), token, until_ms=until_ms)
                delivered = int(entry["seq"])
                hook.pop("failing_since_ms", None)
                hook["failures"] = 0

    def _creator_is_owner(self, ledger: str, hook: Item) -> bool:
        if not isinstance(ledger, SharedLedger):
            return True  # a personal ledger has one owner, for good
        creator = hook.get("created_by")
        member = self.store.ledgers.member(str(ledger), str(creator)) if creator else None
        return member is not None and member.get("role") == "owner"

    def _post(self, ledger: str, hook: Item, entry: Item) -> tuple[outbound.Outcome, dict[str, Any]]:
        """One POST of the entry, and the attempt as `deliveries` keeps it (kept here when it succeeded)."""
        seq, body = int(entry["seq"]), payload(ledger, entry)
        timestamp = int(self.clock())
        headers = {
            "Content-Type": "application/json",
            EVENT_ID: f"{ledger!s}:{seq}",
            SIGNATURE: outbound.sign(str(hook["secret"]), body, timestamp),
        }
        outcome = self.post(str(hook["url"]), body, headers)
        attempt = {
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp)),
            "status": outcome.status,
            "error": outcome.error,
            "ms": outcome.millis,
        }
        if outcome.ok:
            self.store.webhooks.record_attempt(ledger, str(hook["id"]), seq, attempt, done=True)
        return outcome, attempt

    def _failed(
        self, ledger: str, hook: Item, token: str, seq: int, *, outcome: outbound.Outcome, attempt: dict[str, Any]
    ) -> None:
        """A failed POST: the next attempt scheduled with backoff, or — the budget spent — the webhook
        failing and its entry dead-lettered."""
        settings = get_settings()
        webhook_id, now_ms = str(hook["id"]), int(self.clock() * 1000)
        failures = int(hook.get("failures", 0)) + 1
        since = int(hook.get("failing_since_ms") or now_ms)
        error = str(outcome.error or f"HTTP {outcome.status}")
        spent = now_ms - since >= settings.webhook_retry_budget_seconds * 1000
        self.store.webhooks.record_attempt(ledger, webhook_id, seq, attempt, done=False, dead=spent)
        state: dict[str, Any] = {"failures": failures, "failing_since_ms": since, "last_error": error}
        if spent:
            self.store.webhooks.release_webhook(ledger, webhook_id, token, state=FAILING, retry_at_ms=0, **state)
            self.queues.dead_letter(_message(ledger, webhook_id, seq, error=error, failures=failures))
            return
        delay = min(settings.webhook_retry_max_seconds, settings.webhook_retry_seconds * 2 ** min(failures - 1, 20))
        delay *= random.uniform(0.8, 1.0)  # noqa: S311 - jitter, not secrecy
        self.store.webhooks.release_webhook(ledger, webhook_id, token, retry_at_ms=now_ms + int(delay * 1000), **state)
        self.queues.wake([_message(ledger, webhook_id, seq)], delay=delay)
