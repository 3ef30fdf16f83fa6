"""The local servers `make run` and the tests start keep answering however much they log."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from kakeibo.local.dynamodb import free_port
from kakeibo.local.s3 import S3Local


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:  # noqa: S310 - our own local server
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def test_the_s3_server_keeps_answering_after_logging_more_than_a_pipe_holds() -> None:
    # Given a local S3 server as `make run` starts it
    server = S3Local(free_port()).start()
    try:
        # When it is asked for 200 missing objects with long names: it logs each request line, about
        # 800 KB in all, far more than an unread pipe holds (64 KB)
        long_key = "r" * 4_000
        answers = [_status(f"{server.endpoint}/no-such-bucket/{long_key}{n}") for n in range(200)]
        # Then every request is answered (404: no such bucket), the last as the first
        assert answers == [404] * 200
    finally:
        server.stop()


def test_a_restart_after_a_long_run_replays_the_queues_and_objects_but_not_the_poller_s_receives(
    tmp_path: Path,
) -> None:
    import boto3

    from kakeibo.local.s3 import RECORDING

    def client(server: S3Local, service: str) -> Any:
        return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1",
                            aws_access_key_id="local", aws_secret_access_key="local")  # fmt: skip

    # Given a server with a data directory: an object stored, a queue with a message sent, and a
    # poller's receive from an empty queue (a one-second long poll), as `make run`'s poller makes
    # several a second
    first = S3Local(free_port(), tmp_path).start()
    try:
        client(first, "s3").create_bucket(Bucket="kakeibo-receipts")
        client(first, "s3").put_object(Bucket="kakeibo-receipts", Key="receipts/x/kept", Body=b"kept")
        queue = client(first, "sqs").create_queue(QueueName="kakeibo-webhookdelivery")["QueueUrl"]
        client(first, "sqs").send_message(QueueUrl=queue, MessageBody="nudge")
        empty = client(first, "sqs").create_queue(QueueName="kakeibo-webhookdeadletter")["QueueUrl"]
        client(first, "sqs").receive_message(QueueUrl=empty, WaitTimeSeconds=1)
    finally:
        first.stop()
    # And an hour's worth of such receives in the recording (one line each, as the recorder writes them)
    recording = tmp_path / RECORDING
    lines = recording.read_text(encoding="utf-8").splitlines(keepends=True)
    receive = next(line for line in lines if "AmazonSQS.ReceiveMessage" in line)
    recording.write_text("".join(lines) + receive * 600, encoding="utf-8")
    # When a server starts again on that directory
    second = S3Local(free_port(), tmp_path).start()
    try:
        # Then the receives were taken out of the recording, not replayed
        assert "AmazonSQS.ReceiveMessage" not in recording.read_text(encoding="utf-8")
        # And the object and the queue's message are there again
        s3 = client(second, "s3")
        assert s3.get_object(Bucket="kakeibo-receipts", Key="receipts/x/kept")["Body"].read() == b"kept"
        url = client(second, "sqs").get_queue_url(QueueName="kakeibo-webhookdelivery")["QueueUrl"]
        got = client(second, "sqs").receive_message(QueueUrl=url, WaitTimeSeconds=1)
        assert [m["Body"] for m in got.get("Messages", [])] == ["nudge"]
    finally:
        second.stop()


def test_dynamodb_local_with_a_data_dir_writes_ahead_and_keeps_its_items_across_a_restart(tmp_path: Path) -> None:
    import contextlib
    import sqlite3

    import boto3

    from kakeibo.local.dynamodb import DATABASE, DynamoDBLocal

    def client(server: DynamoDBLocal) -> Any:
        return boto3.client("dynamodb", endpoint_url=server.endpoint, region_name="us-east-1",
                            aws_access_key_id="local", aws_secret_access_key="local")  # fmt: skip

    # Given DynamoDB Local on a data dir, as `make run` starts it, with a table and an item written
    server = DynamoDBLocal(free_port(), tmp_path / "dynamodb").start()
    try:
        ddb = client(server)
        ddb.create_table(TableName="kept", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")  # fmt: skip
        ddb.update_item(TableName="kept", Key={"k": {"S": "a"}}, UpdateExpression="ADD n :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})  # fmt: skip
    finally:
        server.stop()
    # When it is started again on the same data dir
    again = DynamoDBLocal(free_port(), tmp_path / "dynamodb").start()
    try:
        item = client(again).get_item(TableName="kept", Key={"k": {"S": "a"}}, ConsistentRead=True)["Item"]
    finally:
        again.stop()
    # Then the item is there, and the database file is in write-ahead-log mode
    assert item == {"k": {"S": "a"}, "n": {"N": "1"}}
    with contextlib.closing(sqlite3.connect(tmp_path / "dynamodb" / DATABASE)) as db:
        assert str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
