"""The webhook sender on a laptop: DynamoDB Local's stream read as Lambda's event source mapping
reads DynamoDB Streams, and handed to the same `kakeibo.sender` code.

DynamoDB Local serves the Streams API at its own endpoint (a table created with a
StreamSpecification has a LatestStreamArn; describe_stream / get_shard_iterator / get_records).
Each shard is read in order, in batches; a batch's records go to `Sender.handle` as Lambda would
send them, with the same filter (only new journal items). A reported failure is read again from
that record after a backoff (as Lambda retries); a batch done is checkpointed to a file in
DATA_DIR, so a reader killed and started again goes on where it was (and the webhooks' own
`delivered` seq keeps anything from being sent twice but for the entry in flight).

`python -m kakeibo.local.streams` runs it alone (the tests kill it with -9 and start it again);
`make run` runs it in a thread next to the HTTP front.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import boto3

from kakeibo.sender import Sender, is_entry

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
        sender: Sender | None = None,
        backoff: float = 1.0,
    ) -> None:
        kwargs: dict[str, Any] = {"endpoint_url": endpoint, "region_name": os.environ.get("AWS_REGION", "us-east-1")}
        self.dynamodb = boto3.client("dynamodb", **kwargs)
        self.streams = boto3.client("dynamodbstreams", **kwargs)
        self.table = table
        self.checkpoint = checkpoint
        self.backoff = backoff
        self._sender = sender
        self.done: dict[str, str] = self._load()  # shard id -> last sequence number handled

    @property
    def sender(self) -> Sender:
        if self._sender is None:
            from kakeibo.store import get_store

            self._sender = Sender(get_store())
        return self._sender

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
            event = {"Records": [_as_lambda(r, arn) for r in records if is_entry(_as_lambda(r, arn))]}
            if event["Records"]:
                failures = self.sender.handle(event).get("batchItemFailures") or []
                if failures:
                    return moved, True  # read again from the last checkpoint, after a backoff
            self.done[shard_id] = records[-1]["dynamodb"]["SequenceNumber"]
            self._save()
            moved = True
            iterator = page.get("NextShardIterator")
        return moved, False


def _as_lambda(record: dict[str, Any], arn: str) -> dict[str, Any]:
    """A Streams API record as Lambda's event source mapping hands it to a function."""
    return {
        "eventID": record.get("eventID"),
        "eventName": record.get("eventName"),
        "eventSource": "aws:dynamodb",
        "awsRegion": record.get("awsRegion", "local"),
        "dynamodb": record.get("dynamodb", {}),
        "eventSourceARN": arn,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Send journal entries to webhooks from DynamoDB Local's stream")
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--table", default="LedgerTable")
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--backoff", type=float, default=1.0)
    args = parser.parse_args(argv)
    os.environ.setdefault("DYNAMODB_ENDPOINT_URL", args.endpoint)
    os.environ.setdefault("TABLE_NAME", args.table)
    os.environ.setdefault("AWS_REGION", "us-east-1")
    os.environ.setdefault("AWS_DEFAULT_REGION", os.environ["AWS_REGION"])
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    reader = StreamReader(args.endpoint, args.table, args.checkpoint, backoff=args.backoff)
    stop = threading.Event()
    with contextlib.suppress(KeyboardInterrupt):
        reader.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
