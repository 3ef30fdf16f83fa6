"""The webhook sender on a laptop: DynamoDB Local's stream read as Lambda's event source mapping
reads DynamoDB Streams, and handed to the same `kakeibo.sender` code.

DynamoDB Local serves the Streams API at its own endpoint (a table created with a
StreamSpecification has a LatestStreamArn; describe_stream / get_shard_iterator / get_records).
Each shard is read in order, in batches; a batch's records go to the handler as the event Lambda
sends (`Records[]` with `eventName`, `dynamodb` — `Keys`, `NewImage` in DynamoDB JSON,
`SequenceNumber` — and `eventSourceARN`), with the same filter (only new journal items). A record
reported in `batchItemFailures` is read again from there after a backoff, as Lambda retries, at
most the template's MaximumRetryAttempts times; then it is dead-lettered as the mapping's OnFailure
destination would be (a description of it on the dead-letter queue) and reading goes on after it.
A batch done is checkpointed to a file in DATA_DIR, so a reader killed and started again goes on
where it was (the webhooks' own cursors keep anything from being sent twice but for the entry in
flight).

`python -m kakeibo.local.streams` runs it alone, with the delivery queue's poller when the
environment names the queue (the tests kill it with -9 and start it again); `make run` runs both in
threads next to the HTTP front.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

from kakeibo.local import template
from kakeibo.services.webhooks.delivery import is_entry

Handler = Callable[[dict[str, Any]], dict[str, Any]]

IDLE_SECONDS = 0.5
MAX_BACKOFF = 30.0


class StreamReader:
    """Reads a table's stream shard by shard and feeds the sender, with a checkpoint file."""

    def __init__(
        self,
        endpoint: str,
        table: str,
        checkpoint: Path,
        *,
        handler: Handler | None = None,
        dead_letter: Callable[[dict[str, Any]], None] | None = None,
        backoff: float = 1.0,
    ) -> None:
        kwargs: dict[str, Any] = {"endpoint_url": endpoint, "region_name": os.environ.get("AWS_REGION", "us-east-1")}
        self.dynamodb = boto3.client("dynamodb", **kwargs)
        self.streams = boto3.client("dynamodbstreams", **kwargs)
        self.table = table
        self.checkpoint = checkpoint
        self.backoff = backoff
        self._handler = handler
        self._dead_letter = dead_letter
        self.max_retries = retry_attempts()
        self.tries: dict[tuple[str, str], int] = {}  # (shard, sequence number) -> times reported
        self.done: dict[str, str] = self._load()  # shard id -> last sequence number handled

    def handler(self, event: dict[str, Any]) -> dict[str, Any]:
        if self._handler is None:
            from kakeibo.sender import lambda_handler

            self._handler = lambda e: lambda_handler(e, None)
        return self._handler(event)

    def dead_letter(self, body: dict[str, Any]) -> None:
        if self._dead_letter is None:
            from kakeibo.queues import Queues

            self._dead_letter = Queues().dead_letter
        self._dead_letter(body)

    def _load(self) -> dict[str, str]:
        try:
            loaded: dict[str, str] = json.loads(self.checkpoint.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return loaded

    def _save(self) -> None:
        self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.checkpoint.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.done), encoding="utf-8")
        temporary.replace(self.checkpoint)  # atomic: a kill leaves the old or the new one

    def stream_arn(self) -> str | None:
        table = self.dynamodb.describe_table(TableName=self.table)["Table"]
        arn = table.get("LatestStreamArn")
        return str(arn) if arn else None

    def run(self, stop: threading.Event) -> None:
        """Until `stop`: every shard read to its current end, again and again."""
        failures = 0
        while not stop.is_set():
            try:
                moved, failed = self.poll()
            except Exception as exc:
                print(f"webhook sender: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                moved, failed = False, True
            failures = failures + 1 if failed else 0
            if failed:
                stop.wait(min(MAX_BACKOFF, self.backoff * 2 ** min(failures - 1, 6)))
            elif not moved:
                stop.wait(IDLE_SECONDS)

    def poll(self) -> tuple[bool, bool]:
        """One pass over the shards: (any record handled, a record failed)."""
        arn = self.stream_arn()
        if arn is None:
            return False, False
        moved = failed = False
        for shard in self._shards(arn):
            shard_moved, shard_failed = self._read_shard(arn, shard)
            moved, failed = moved or shard_moved, failed or shard_failed
        return moved, failed

    def _shards(self, arn: str) -> list[dict[str, Any]]:
        shards: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"StreamArn": arn}
        while True:
            described = self.streams.describe_stream(**kwargs)["StreamDescription"]
            shards += described.get("Shards", [])
            last = described.get("LastEvaluatedShardId")
            if not last:
                return shards
            kwargs["ExclusiveStartShardId"] = last

    def _read_shard(self, arn: str, shard: dict[str, Any]) -> tuple[bool, bool]:
        shard_id = shard["ShardId"]
        after = self.done.get(shard_id)
        if after:
            where: dict[str, Any] = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
        else:
            where = {"ShardIteratorType": "TRIM_HORIZON"}
        iterator = self.streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, **where).get("ShardIterator")
        moved = False
        while iterator:
            page = self.streams.get_records(ShardIterator=iterator, Limit=100)
            records = page.get("Records", [])
            if not records:
                return moved, False
            event = {"Records": [r for r in (_as_lambda(r, arn) for r in records) if is_entry(r)]}
            if event["Records"]:
                failures = self.handler(event).get("batchItemFailures") or []
                if failures:
                    return self._failed(arn, shard_id, records, str(failures[0]["itemIdentifier"]), moved)
            self.done[shard_id] = records[-1]["dynamodb"]["SequenceNumber"]
            self._save()
            moved = True
            iterator = page.get("NextShardIterator")
        return moved, False

    def _failed(
        self, arn: str, shard_id: str, records: list[dict[str, Any]], failed: str, moved: bool
    ) -> tuple[bool, bool]:
        """A reported record: what came before it is done; it is read again (a backoff later), or —
        reported 1 + MaximumRetryAttempts times — dead-lettered, and reading goes on after it."""
        before = [r for r in records if int(r["dynamodb"]["SequenceNumber"]) < int(failed)]
        if before:
            self.done[shard_id] = before[-1]["dynamodb"]["SequenceNumber"]
        key = (shard_id, failed)
        self.tries[key] = self.tries.get(key, 0) + 1
        if self.tries[key] <= self.max_retries:
            self._save()
            return moved or bool(before), True
        del self.tries[key]
        record = next((r for r in records if r["dynamodb"]["SequenceNumber"] == failed), None)
        self.dead_letter(_on_failure(arn, shard_id, failed, record, self.max_retries + 1))
        self.done[shard_id] = failed
        self._save()
        return True, False


def retry_attempts() -> int:
    """The stream mapping's MaximumRetryAttempts in template.yaml (what Lambda would do)."""
    function = template.load()["Resources"]["WebhookSenderFunction"]["Properties"]
    for event in function["Events"].values():
        if event.get("Type") == "DynamoDB":
            return int(event["Properties"].get("MaximumRetryAttempts", 0))
    return 0


def _on_failure(arn: str, shard_id: str, sequence: str, record: dict[str, Any] | None, invokes: int) -> dict[str, Any]:
    """What Lambda's OnFailure destination receives for a stream batch it gave up on."""
    now = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    arrival = _epoch((record or {}).get("dynamodb", {}).get("ApproximateCreationDateTime"))
    arrived = dt.datetime.fromtimestamp(arrival, dt.UTC).isoformat().replace("+00:00", "Z") if arrival else now
    return {
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "functionArn": "arn:aws:lambda:local:000000000000:function:WebhookSenderFunction",
            "condition": "RetryAttemptsExhausted",
            "approximateInvokeCount": invokes,
        },
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": None},
        "version": "1.0",
        "timestamp": now,
        "DDBStreamBatchInfo": {
            "shardId": shard_id,
            "startSequenceNumber": sequence,
            "endSequenceNumber": sequence,
            "approximateArrivalOfFirstRecord": arrived,
            "approximateArrivalOfLastRecord": arrived,
            "batchSize": 1,
            "streamArn": arn,
        },
    }


def _epoch(value: Any) -> float | None:
    if isinstance(value, dt.datetime):
        return value.timestamp()
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _as_lambda(record: dict[str, Any], arn: str) -> dict[str, Any]:
    """A Streams API record as Lambda's event source mapping hands it to a function."""
    dynamodb = dict(record.get("dynamodb", {}))
    created = _epoch(dynamodb.get("ApproximateCreationDateTime"))
    if created is not None:  # boto3 parses it; Lambda's event carries epoch seconds
        dynamodb["ApproximateCreationDateTime"] = int(created)
    return {
        "eventID": record.get("eventID"),
        "eventName": record.get("eventName"),
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": record.get("awsRegion", "local"),
        "dynamodb": dynamodb,
        "eventSourceARN": arn,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Send journal entries to webhooks from DynamoDB Local's stream")
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--table", default="LedgerTable")
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--backoff", type=float, default=1.0)
    parser.add_argument("--visibility-timeout", type=int, default=None, help="of the delivery queue's messages")
    args = parser.parse_args(argv)
    os.environ.setdefault("DYNAMODB_ENDPOINT_URL", args.endpoint)
    os.environ.setdefault("TABLE_NAME", args.table)
    os.environ.setdefault("AWS_REGION", "us-east-1")
    os.environ.setdefault("AWS_DEFAULT_REGION", os.environ["AWS_REGION"])
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    reader = StreamReader(args.endpoint, args.table, args.checkpoint, backoff=args.backoff)
    stop = threading.Event()
    if os.environ.get("WEBHOOK_QUEUE_URL") and os.environ.get("SQS_ENDPOINT_URL"):  # and the deliveries
        from kakeibo.local.sqs import QueuePoller
        from kakeibo.sender import lambda_handler

        poller = QueuePoller(
            os.environ["SQS_ENDPOINT_URL"], os.environ["WEBHOOK_QUEUE_URL"], lambda e: lambda_handler(e, None)
        )
        poller.start(stop)
    with contextlib.suppress(KeyboardInterrupt):
        reader.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
