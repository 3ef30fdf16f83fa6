"""webhooks: deliveries per second with 100 webhooks of which 10 are down, against none down.

100 ledgers, one webhook each (the webhook sender's real code: services/webhooks/delivery.py, its
signed POSTs over HTTP to receivers on this machine). Each ledger gets `webhook_entries` new slips
(untimed); then the clock starts, and the stream's records of those journal entries are handed to
the sender as DynamoDB Streams would hand them, and the sender's queue is worked by as many
invocations at once as `make run`'s poller runs (kakeibo/local/sqs.py THREADS) until every webhook
whose receiver is up has received every entry, in order. Down receivers: half answer 503, half
refuse the connection. The queue is kept in memory with SQS's semantics (batches of 10, delays):
what is measured is the sender, not a local queue server.

Reported per scenario (10 down, none down): deliveries per second to the up receivers, the time
until each up webhook had caught up (median and worst), and where the down webhooks stand (no
entry delivered, a retry scheduled). The two rates side by side say what the down ones cost the
others.
"""

from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.api import BenchError
from bench.context import Context, setting
from bench.registry import register
from bench.scenario import slip_body
from bench.stats import median
from kakeibo.local.dynamodb import free_port
from kakeibo.local.sqs import THREADS
from kakeibo.store.keys import change_sk, pk

DOWN_SHARE = 10  # one webhook in ten is down
STREAM_BATCH = 100  # records per stream invocation (template: BatchSize)
QUEUE_BATCH = 10  # messages per queue invocation (SQS's most)
GIVE_UP_SECONDS = 600.0


class Receivers:
    """HTTP receivers on 127.0.0.1: /up/N answers 204 and keeps each event id it gets, in order;
    /down/N answers 503. Refused connections go to a port nothing listens on."""

    def __init__(self) -> None:
        self.got: dict[str, list[tuple[str, float]]] = {}
        self.lock = threading.Lock()
        receivers = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                if self.path.startswith("/down/"):
                    self.send_response(503)
                else:
                    with receivers.lock:
                        event_id = self.headers.get("Kakeibo-Event-Id", "")
                        receivers.got.setdefault(self.path, []).append((event_id, time.monotonic()))
                    self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.refusing = free_port()  # nothing listens here
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, kind: str, name: str) -> str:
        if kind == "refused":
            return f"http://127.0.0.1:{self.refusing}/down/{name}"
        return f"http://127.0.0.1:{self.server.server_address[1]}/{kind}/{name}"

    def received(self, path: str) -> list[tuple[str, float]]:
        with self.lock:
            return list(self.got.get(path, []))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class MemoryQueues:
    """The sender's two queues with SQS's semantics that matter here: a message is visible after its
    delay; a batch holds at most 10; a message its invocation reports failed comes back later."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, dict[str, Any]]] = []
        self.dead: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.counter = itertools.count()

    def wake(self, messages: list[dict[str, Any]], *, delay: float = 0) -> None:
        visible = time.monotonic() + max(0, min(900, int(delay + 0.999)))
        with self.lock:
            for message in messages:
                heapq.heappush(self.heap, (visible, next(self.counter), dict(message)))

    def dead_letter(self, body: dict[str, Any]) -> None:
        with self.lock:
            self.dead.append(body)

    def take(self) -> list[dict[str, Any]]:
        now, batch = time.monotonic(), list[dict[str, Any]]()
        with self.lock:
            while self.heap and self.heap[0][0] <= now and len(batch) < QUEUE_BATCH:
                batch.append(heapq.heappop(self.heap)[2])
        return batch


def _stream_record(ctx: Context, ledger: str, seq: int) -> dict[str, Any]:
    """The journal entry's INSERT as DynamoDB Streams hands it to the function."""
    item = ctx.store.core.client.get_item(
        TableName=ctx.store.core.table, Key={"PK": {"S": pk(ledger)}, "SK": {"S": change_sk(seq)}}, ConsistentRead=True
    )["Item"]
    keys = {"PK": item["PK"], "SK": item["SK"]}
    return {
        "eventID": uuid.uuid4().hex,
        "eventName": "INSERT",
        "eventSource": "aws:dynamodb",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:000000000000:table/bench/stream/2026-01-01T00:00:00.000",
        "dynamodb": {"Keys": keys, "NewImage": item, "SequenceNumber": str(seq), "StreamViewType": "NEW_IMAGE"},
    }


def _prepare(ctx: Context, receivers: Receivers, down: int, entries: int) -> list[dict[str, Any]]:
    hooks, tag = [], uuid.uuid4().hex[:8]
    for n in range(ctx.sizes.webhooks):
        ledger = ctx.ledger("hook")
        kind = "up" if n >= down else ("down" if n % 2 == 0 else "refused")
        ctx.request(
            "POST",
            "/accounts",
            user=ledger,
            body={"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10**9},
            expect=201,
        )
        made = ctx.request(
            "POST", "/ledgers/me/webhooks", user=ledger, body={"url": receivers.url(kind, f"{tag}-{n}")}, expect=201
        )
        first = ctx.store.journal.journal_head(ledger) + 1
        for i in range(entries):
            ctx.request("POST", "/slips", user=ledger, body=slip_body(i), expect=201)
        hooks.append(
            {
                "ledger": ledger,
                "id": made.json["id"],
                "kind": kind,
                "path": f"/up/{tag}-{n}",
                "seqs": (first, first + entries),
            }
        )
    return hooks


def _scenario(ctx: Context, receivers: Receivers, down: int) -> dict[str, Any]:
    from kakeibo.services.webhooks.delivery import Sender  # noqa: PLC0415 - after the environment is set

    entries = ctx.sizes.webhook_entries
    hooks = _prepare(ctx, receivers, down, entries)
    queues = MemoryQueues()
    sender = Sender(ctx.store, queues=queues, time_left=lambda: 60.0)  # type: ignore[arg-type]
    records = [_stream_record(ctx, h["ledger"], seq) for h in hooks for seq in range(*h["seqs"])]
    up = [h for h in hooks if h["kind"] == "up"]
    paths = {h["id"]: h["path"] for h in up}

    def caught_up(hook: dict[str, Any]) -> bool:
        return len(receivers.received(paths[hook["id"]])) >= entries

    stop = threading.Event()
    errors: list[str] = []

    def work() -> None:
        while not stop.is_set():
            batch = queues.take()
            if not batch:
                stop.wait(0.005)
                continue
            event = {"Records": [_sqs_record(m) for m in batch]}
            try:
                failed = sender.handle(event)["batchItemFailures"]
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                return
            if failed:  # back after a visibility timeout; none is expected here
                errors.append(f"{len(failed)} messages reported failed")

    started = time.monotonic()
    workers = [threading.Thread(target=work, daemon=True) for _ in range(THREADS)]
    for worker in workers:
        worker.start()
    for begin in range(0, len(records), STREAM_BATCH):
        reply = sender.handle({"Records": records[begin : begin + STREAM_BATCH]})
        if reply["batchItemFailures"]:
            raise BenchError(f"the stream batch failed: {reply}")
    while not all(caught_up(h) for h in up):
        if errors or time.monotonic() - started > GIVE_UP_SECONDS:
            stop.set()
            raise BenchError(f"deliveries did not finish: {errors[:3] or 'gave up'}")
        time.sleep(0.01)
    elapsed = time.monotonic() - started
    stop.set()
    for worker in workers:
        worker.join(timeout=30)

    caught = [max(t for _, t in receivers.received(paths[h["id"]])) - started for h in up]
    for h in up:  # every entry once, in seq order
        got = [event_id for event_id, _ in receivers.received(paths[h["id"]])]
        expected = [f"{h['ledger']}:{seq}" for seq in range(*h["seqs"])]
        if got != expected:
            raise BenchError(f"webhook {h['id']} got {got[:3]}..., not {expected[:3]}...")
    down_state = []
    for h in hooks:
        if h["kind"] == "up":
            continue
        stored = ctx.store.webhooks.webhook(h["ledger"], h["id"]) or {}
        down_state.append(
            {
                "delivered_entries": int(stored.get("delivered", 0)) - (h["seqs"][0] - 1),
                "failures": int(stored.get("failures", 0)),
                "retry_scheduled": int(stored.get("retry_at_ms", 0)) > 0,
            }
        )
    if any(d["delivered_entries"] or not d["failures"] or not d["retry_scheduled"] for d in down_state):
        raise BenchError(f"a down webhook is not where it should be: {down_state}")
    delivered = len(up) * entries
    return {
        "webhooks": len(hooks),
        "down": down,
        "entries_per_webhook": entries,
        "delivered": delivered,
        "seconds": round(elapsed, 3),
        "deliveries_per_s": round(delivered / elapsed, 1),
        "caught_up_s": {"median": round(median(caught), 3), "worst": round(max(caught), 3)},
        "down_webhooks": {
            "count": len(down_state),
            "delivered_entries": sum(d["delivered_entries"] for d in down_state),
            "with_retry_scheduled": sum(d["retry_scheduled"] for d in down_state),
        },
    }


def _sqs_record(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "messageId": uuid.uuid4().hex,
        "receiptHandle": uuid.uuid4().hex,
        "body": json.dumps(message, separators=(",", ":")),
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:WebhookDeliveryQueue",
    }


def render(r: dict[str, Any]) -> list[str]:
    lines = [
        f"Webhook deliveries: {r['webhooks']} webhooks, {r['entries_per_webhook']} new entries each, "
        f"{THREADS} invocations at once"
    ]
    for s in r["scenarios"]:
        lines.append(
            f"  {s['down']:>3} down: {s['deliveries_per_s']:.0f} deliveries/s to the up receivers "
            f"({s['delivered']} in {s['seconds']:.2f} s); each up webhook caught up at median "
            f"{s['caught_up_s']['median']:.2f} s, worst {s['caught_up_s']['worst']:.2f} s; down webhooks: "
            f"{s['down_webhooks']['delivered_entries']} delivered, {s['down_webhooks']['with_retry_scheduled']} "
            "with their retry scheduled"
        )
    lines.append(f"  rate with {r['scenarios'][0]['down']} down / with none down: {r['ratio']:.2f}")
    return lines


@register("webhooks", "webhooks: deliveries per second, 100 webhooks of which 10 down", order=75, render=render)
def run(ctx: Context) -> dict[str, Any]:
    receivers = Receivers()
    try:
        with setting("WEBHOOK_ALLOW_LOOPBACK", "true"):  # as `make run` allows
            none_down = _scenario(ctx, receivers, 0)
            ten_down = _scenario(ctx, receivers, ctx.sizes.webhooks // DOWN_SHARE)
    finally:
        receivers.close()
    return {
        "kind": "webhooks",
        "webhooks": ctx.sizes.webhooks,
        "entries_per_webhook": ctx.sizes.webhook_entries,
        "scenarios": [ten_down, none_down],
        "ratio": round(ten_down["deliveries_per_s"] / none_down["deliveries_per_s"], 3),
    }
