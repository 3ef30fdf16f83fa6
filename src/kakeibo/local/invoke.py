"""`make invoke EVENT=events/create_slip.json`: one API Gateway event through the built handler against
the local tables, the response printed. What `sam local invoke -e` does, without Docker.

The handler is the LedgerFunction as sam build builds it for this machine, run in a fresh
interpreter with its directory and the standard library alone (kakeibo.local.task), on the
environment template.yaml gives it, prepared as `make run` prepares its own (prepare_process_env:
region, credentials, endpoints, table names). The tables are `make run`'s: while one runs on the
same DATA_DIR (its run.json names its endpoints and its webhook setting) the event goes to its
DynamoDB Local and S3 server; otherwise DynamoDB Local and the S3-compatible server are started on
DATA_DIR for the invocation and stopped after it. Several events run in order on the same instance (a warm function).
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from kakeibo.local.bootstrap import create_tables
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.front import FunctionFailed
from kakeibo.local.instances import Pool, prepare_process_env
from kakeibo.local.s3 import S3Local, create_buckets
from kakeibo.local.sqs import create_queues

RUN_FILE = "run.json"  # written by `make run` beside run.pid: its endpoints and webhook setting


@dataclass(frozen=True)
class Running:
    """The `make run` serving a data directory, as its run.json tells: its DynamoDB Local's and S3
    server's endpoints, and whether its webhooks may call loopback."""

    dynamodb: str
    s3: str
    allow_loopback: bool


def running_stack(data_dir: Path) -> Running | None:
    """The `make run` serving `data_dir`, if one is running."""
    try:
        found = json.loads((data_dir / RUN_FILE).read_text(encoding="utf-8"))
        os.kill(int(found["pid"]), 0)
        return Running(str(found["dynamodb"]), str(found["s3"]), bool(found.get("webhook_allow_loopback", False)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _reply(result: dict[str, Any]) -> dict[str, Any]:
    """The function's result as printed: a JSON body shown as JSON."""
    shown = dict(result)
    body = result.get("body")
    if isinstance(body, str) and not result.get("isBase64Encoded"):
        with suppress(ValueError):
            shown["body"] = json.loads(body)
    return shown


def invoke(events: list[Path], task: Path, data_dir: Path) -> int:
    """Run each event file through the function from `task`; print each response. 1 when the function
    raised or an event cannot be read."""
    if not (task / "kakeibo" / "handler.py").is_file():
        print(f"error: {task} is not a built LedgerFunction (make host-package builds it)", file=sys.stderr)
        return 1
    try:
        loaded = [(path, json.loads(path.read_text(encoding="utf-8"))) for path in events]
    except (OSError, ValueError) as exc:
        print(f"error: cannot read the event: {exc}", file=sys.stderr)
        return 1
    with ExitStack() as stack:
        running = running_stack(data_dir)
        if running is not None:  # make run's tables, and its function's environment
            env = prepare_process_env(running.dynamodb, running.s3, allow_loopback=running.allow_loopback)
        else:  # no make run on these tables: start them for this invocation
            data_dir.mkdir(parents=True, exist_ok=True)
            ddb = DynamoDBLocal(free_port(), data_dir / "dynamodb").start()
            stack.callback(ddb.stop)
            s3 = S3Local(free_port(), data_dir / "s3").start()
            stack.callback(s3.stop)
            env = prepare_process_env(ddb.endpoint, s3.endpoint)
            create_tables(boto3.client("dynamodb", endpoint_url=ddb.endpoint))
            create_buckets(s3.endpoint)
            create_queues(s3.endpoint)
        # the function's logs on stderr, as sam local invoke prints them: stdout is the responses'
        pool = Pool(1, env, task=task, stdout=sys.stderr.fileno()).start()
        stack.callback(pool.close)
        failed = 0
        for path, event in loaded:
            try:
                result = pool.invoke(event)
            except FunctionFailed as exc:
                print(f"{path}: {exc.detail}", file=sys.stderr)
                failed = 1
                continue
            print(json.dumps({"event": str(path), "response": _reply(result)}, ensure_ascii=False, indent=2))
            sys.stdout.flush()
        return failed
