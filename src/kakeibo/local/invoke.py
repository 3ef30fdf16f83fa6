"""`make invoke EVENT=events/create_slip.json`: one API Gateway event through the built handler against
the local tables, the response printed. What `sam local invoke -e` does, without Docker.

The handler is the LedgerFunction as sam build builds it for this machine, run in a fresh
interpreter with its directory and the standard library alone (kakeibo.local.task), on the
environment template.yaml gives it. The tables are `make run`'s: while one runs on the same
DATA_DIR (its run.json names its endpoints) the event goes to its DynamoDB Local and S3 server;
otherwise DynamoDB Local and the S3-compatible server are started on DATA_DIR for the invocation
and stopped after it. Several events run in order on the same instance (a warm function).
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

from kakeibo.local.dynamodb import DynamoDBLocal, free_port

RUN_FILE = "run.json"  # written by `make run` beside run.pid: its endpoints


def running_endpoints(data_dir: Path) -> tuple[str, str] | None:
    """(DynamoDB, S3) endpoints of the `make run` serving `data_dir`, if one is running."""
    try:
        found = json.loads((data_dir / RUN_FILE).read_text(encoding="utf-8"))
        os.kill(int(found["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(found["dynamodb"]), str(found["s3"])


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
    import boto3

    from kakeibo.local.__main__ import local_environment, prepare_process_env
    from kakeibo.local.bootstrap import create_tables
    from kakeibo.local.front import FunctionFailed
    from kakeibo.local.instances import Pool
    from kakeibo.local.s3 import S3Local, create_buckets
    from kakeibo.local.sqs import create_queues

    if not (task / "kakeibo" / "handler.py").is_file():
        print(f"error: {task} is not a built LedgerFunction (make host-package builds it)", file=sys.stderr)
        return 1
    try:
        loaded = [(path, json.loads(path.read_text(encoding="utf-8"))) for path in events]
    except (OSError, ValueError) as exc:
        print(f"error: cannot read the event: {exc}", file=sys.stderr)
        return 1
    with ExitStack() as stack:
        endpoints = running_endpoints(data_dir)
        if endpoints is None:  # no make run on these tables: start them for this invocation
            data_dir.mkdir(parents=True, exist_ok=True)
            ddb = DynamoDBLocal(free_port(), data_dir / "dynamodb").start()
            stack.callback(ddb.stop)
            s3 = S3Local(free_port(), data_dir / "s3").start()
            stack.callback(s3.stop)
            endpoints = ddb.endpoint, s3.endpoint
            prepare_process_env(*endpoints)
            create_tables(boto3.client("dynamodb", endpoint_url=ddb.endpoint))
            create_buckets(s3.endpoint)
            create_queues(s3.endpoint)
        # the function's logs on stderr, as sam local invoke prints them: stdout is the responses'
        pool = Pool(1, local_environment(*endpoints), task=task, stdout=sys.stderr.fileno()).start()
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
