"""The webhook sender's queues on a laptop: template.yaml's SQS queues on the local moto server (the
one that serves S3 for receipts: moto's server speaks every AWS protocol it knows on one port), and
a poller that hands their messages to the sender as Lambda's SQS event source mapping would.

The poller runs several threads, each receiving a batch and calling the same `handle` with Lambda's
SQS event (`Records[]` with `messageId`, `receiptHandle`, `body`, `eventSource: aws:sqs`, ...);
the messages not reported in `batchItemFailures` are deleted, the others come back after the
queue's visibility timeout (and to the dead-letter queue past the template's maxReceiveCount)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from kakeibo.local import template

POLL_SECONDS = 1  # a receive waits this long for a message
THREADS = 4


def sqs_client(endpoint: str) -> Any:
    import boto3

    region = os.environ.get("AWS_REGION", "us-east-1")
    return boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - the local server's dummy credentials
    )


def _arn(name: str) -> str:
    return f"arn:aws:sqs:{os.environ.get('AWS_REGION', 'us-east-1')}:{template.LOCAL_ACCOUNT}:{name}"


def _attributes(logical: str, props: dict[str, Any], endpoint: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds"):
        if name in props:
            out[name] = str(props[name])
    redrive = props.get("RedrivePolicy")
    if redrive:
        target = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
        arn = _arn(template.queue_name(target))
        out["RedrivePolicy"] = json.dumps(
            {"deadLetterTargetArn": arn, "maxReceiveCount": int(redrive["maxReceiveCount"])}
        )
    return out


def create_queues(endpoint: str, suffix: str = "") -> dict[str, str]:
    """Every queue of template.yaml on the local server (dead-letter targets first): logical id -> URL.
    With `suffix`, queues of one's own (a test's), each name ending with it."""
    client = sqs_client(endpoint)
    queues = template.queues()
    ordered = sorted(queues, key=lambda name: "RedrivePolicy" in queues[name])
    urls = {}
    for logical in ordered:
        if suffix:
            name = template.queue_name(logical) + suffix
            attributes = _attributes(logical, queues[logical], endpoint)
            if "RedrivePolicy" in attributes:
                policy = json.loads(attributes["RedrivePolicy"])
                policy["deadLetterTargetArn"] += suffix
                attributes["RedrivePolicy"] = json.dumps(policy)
            urls[logical] = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
            continue
        client.create_queue(
            QueueName=template.queue_name(logical), Attributes=_attributes(logical, queues[logical], endpoint)
        )
        urls[logical] = template.queue_url(endpoint, logical)
    return urls


class QueuePoller:
    """Lambda's SQS event source mapping, locally: `handler` gets each batch as Lambda's event."""

    def __init__(
        self,
        endpoint: str,
        queue_url: str,
        handler: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        visibility_timeout: int | None = None,
    ) -> None:
        self.client = sqs_client(endpoint)
        self.visibility = {"VisibilityTimeout": visibility_timeout} if visibility_timeout else {}
        self.url = queue_url
        self.handler = handler
        self.arn = _arn(queue_url.rsplit("/", 1)[-1])

    def start(self, stop: threading.Event, threads: int = THREADS) -> None:
        for n in range(threads):
            threading.Thread(target=self.run, args=(stop,), daemon=True, name=f"webhook-queue-{n}").start()

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.poll()
            except Exception as exc:
                print(f"webhook queue: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                stop.wait(1.0)

    def poll(self) -> int:
        """One receive and its batch handled: how many messages it had."""
        answer = self.client.receive_message(
            QueueUrl=self.url, MaxNumberOfMessages=10, WaitTimeSeconds=POLL_SECONDS,
            AttributeNames=["All"], MessageAttributeNames=["All"], **self.visibility,
        )  # fmt: skip
        messages = answer.get("Messages") or []
        if not messages:
            return 0
        event = {"Records": [self._record(m) for m in messages]}
        failed = {f["itemIdentifier"] for f in self.handler(event).get("batchItemFailures") or []}
        done = [
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
            for n, m in enumerate(messages)
            if m["MessageId"] not in failed
        ]
        if done:
            self.client.delete_message_batch(QueueUrl=self.url, Entries=done)
        return len(messages)

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": message.get("MessageAttributes", {}),
            "md5OfBody": message.get("MD5OfBody"),
            "eventSource": "aws:sqs",
            "eventSourceARN": self.arn,
            "awsRegion": os.environ.get("AWS_REGION", "us-east-1"),
        }
