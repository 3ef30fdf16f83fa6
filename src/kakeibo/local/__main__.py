"""`python -m kakeibo.local run`: DynamoDB Local + tables, the moto server (receipts, webhook queues,
the user pool) + the HTTP front, until Ctrl-C.
`python -m kakeibo.local invoke --task DIR EVENT...`: events through the built handler (kakeibo.local.invoke)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import boto3

from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.cognito import UserPool, create_user_pool
from kakeibo.local.dynamodb import DynamoDBLocal, LocalStackError, free_port, port_free
from kakeibo.local.front import Front, FunctionFailed, serve, strict_auth
from kakeibo.local.instances import Pool, authorizer_pool, concurrency, prepare_process_env
from kakeibo.local.invoke import RUN_FILE, invoke
from kakeibo.local.s3 import S3Local, create_buckets
from kakeibo.local.sqs import THREADS, QueuePoller, create_queues
from kakeibo.local.streams import StreamReader

SENDER = "WebhookSenderFunction"
SENDER_HANDLER = "kakeibo.sender.lambda_handler"


AUTHORIZER_INSTANCES = 2  # called once per Authorization header per cache TTL: a few are plenty


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


DAILY_AT = dt.time(0, 5)  # as the schedule in template.yaml: 00:05 in the ledger's time zone


def seconds_to_next_run(now: dt.datetime) -> float:
    """Seconds from `now` until the next daily run (00:05 in the ledger's time zone)."""
    from kakeibo.settings import get_settings

    zone = get_settings().time_zone
    local = now.astimezone(zone)
    target = dt.datetime.combine(local.date(), DAILY_AT, tzinfo=zone)
    if target <= local:
        target += dt.timedelta(days=1)
    return (target - local).total_seconds()


def post_due_daily(stop: threading.Event) -> None:
    """The daily job of AWS's schedule, locally: at start-up, then every day at 00:05 ledger time."""
    from kakeibo.services import daily
    from kakeibo.store import get_store

    while True:
        try:
            result = daily.post_due(get_store())
            failed = f", {len(result['failed'])} could not be written" if result["failed"] else ""
            print(f"recurring slips and card payments due by {result['until']}: {result['posted']} posted{failed}")
            from kakeibo.services import alerts_ahead

            alerts_ahead.raise_due(get_store(), dt.date.fromisoformat(str(result["until"])))
        except Exception as exc:  # the server keeps serving; tomorrow's run tries again
            print(f"the daily run failed: {exc!r}", file=sys.stderr)
        sys.stdout.flush()
        if stop.wait(seconds_to_next_run(dt.datetime.now(dt.UTC))):
            return


CODES = "confirmation-codes.txt"  # in DATA_DIR: every code the local user pool sent


def _banner(
    url: str,
    size: int,
    pids: list[int],
    *,
    ddb: str,
    s3: str,
    data_dir: Path,
    users: UserPool,
    strict: bool,
    task: Path | None = None,
) -> None:
    print(f"Kakeibo API on {url}  (Swagger UI: {url}/swagger)")
    print(f"serving with {size} function instances (FUNCTION_CONCURRENCY), pids {', '.join(map(str, pids))}")
    if task is not None:
        print(f"the function as built: {task} and the standard library only (as Lambda's /var/task)")
        print(f"the webhook sender as built: {task.parent / SENDER}")
    print(f"DynamoDB Local on {ddb}, data in {data_dir.resolve()}  -- Ctrl-C to stop")
    print(f"S3-, SQS- and Cognito-compatible server (receipts, webhook queues, users) on {s3}, data in "
          f"{(data_dir / 's3').resolve()}")  # fmt: skip
    print(f"user pool {users.pool_id}, app client {users.client_id} (template.yaml's UserPool, UserPoolClient): "
          f"sign-up codes are printed here and kept in {(data_dir / CODES).resolve()}")  # fmt: skip
    if strict:
        print("LOCAL_AUTH=strict: only the user pool's tokens and personal access tokens are let through")
    else:
        print("Authorization (template.yaml's Lambda authorizer, answers cached 60 s): the user pool's tokens, "
              "personal access tokens, or Bearer <name> for a local caller <name> "
              "(LOCAL_AUTH=strict: tokens only)")  # fmt: skip
    if os.environ.get("WEBHOOK_ALLOW_LOOPBACK") == "1":
        print("webhooks may call http://127.0.0.1 (WEBHOOK_ALLOW_LOOPBACK=1)")


def start_webhooks(
    ddb_endpoint: str, sqs_endpoint: str, data_dir: Path, stop: threading.Event, *, task: Path | None = None
) -> Pool | None:
    """The webhook sender on DynamoDB Local's stream and the local delivery queue: the same handler
    AWS runs from DynamoDB Streams and SQS. With `task` (the LedgerFunction's sam build directory)
    the sender runs as built too: its WebhookSenderFunction directory beside it, in instances of its
    own (the pool returned, for the caller to close)."""
    handler: Callable[[dict[str, Any]], dict[str, Any]]
    pool: Pool | None = None
    if task is None:
        from kakeibo.sender import lambda_handler

        def handler(event: dict[str, Any]) -> dict[str, Any]:
            return lambda_handler(event, None)
    else:
        sender = task.parent / SENDER
        if not (sender / "kakeibo" / "sender.py").is_file():
            raise FunctionFailed(f"{sender} is not a built {SENDER} (make host-package builds it)")
        timeout = template.function_timeout(SENDER)
        pool = Pool(THREADS, {}, log=_log, task=sender, handler=SENDER_HANDLER, function=SENDER, timeout=timeout)
        handler = pool.start().invoke
    reader = StreamReader(ddb_endpoint, os.environ["TABLE_NAME"], data_dir / "webhook-stream.json", handler=handler)
    threading.Thread(target=reader.run, args=(stop,), daemon=True, name="webhooks").start()
    QueuePoller(sqs_endpoint, os.environ["WEBHOOK_QUEUE_URL"], handler).start(stop)
    return pool


def _mark_running(data_dir: Path, ddb: str, s3: str, users: UserPool, *, allow_loopback: bool) -> list[Path]:
    """run.pid (`make stop` sends SIGTERM to it) and run.json (what `make invoke` prepares its function
    with while we run: our endpoints, and whether webhooks may call loopback; a client of the local user
    pool finds it there)."""
    pid_file, run_file = data_dir / "run.pid", data_dir / RUN_FILE
    pid_file.write_text(str(os.getpid()), encoding="utf-8")
    running = {"pid": os.getpid(), "dynamodb": ddb, "s3": s3, "webhook_allow_loopback": allow_loopback,
               "user_pool": users.describe()}  # fmt: skip
    run_file.write_text(json.dumps(running), encoding="utf-8")
    return [pid_file, run_file]


def _provision(ddb: DynamoDBLocal, s3: S3Local, origin: str) -> tuple[dict[str, str], UserPool]:
    """The template's tables, buckets, queues and user pool on the local servers: the function's
    environment (this process's made the same) and the pool."""
    env = prepare_process_env(ddb.endpoint, s3.endpoint)
    create_tables(boto3.client("dynamodb", endpoint_url=ddb.endpoint))
    create_buckets(s3.endpoint, origins=(origin,))
    create_queues(s3.endpoint)
    return env, create_user_pool(s3.endpoint, os.environ["AWS_REGION"])


def _web_root() -> Path | None:
    web = template.ROOT / "web"
    return web if web.is_dir() else None


def run(port: int, ddb_port: int, data_dir: Path, host: str, s3_port: int = 0, *, task: Path | None = None) -> int:
    try:
        size = concurrency()
        strict = strict_auth()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not port_free(port, host):
        print(f"error: port {port} is already in use; set PORT to another port", file=sys.stderr)
        return 1
    ddb = DynamoDBLocal(ddb_port, data_dir / "dynamodb")
    try:
        ddb.start()
    except LocalStackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    pool: Pool | None = None
    gate: Pool | None = None
    sender_pool: Pool | None = None
    s3 = S3Local(s3_port or free_port(), data_dir / "s3", codes=data_dir / CODES, echo=True)
    try:
        s3.start()
        env, users = _provision(ddb, s3, f"http://{host}:{port}")
        pool = Pool(size, env, log=_log, task=task).start()
        gate = authorizer_pool(AUTHORIZER_INSTANCES, {**env, **users.authorizer_environment()}, task=task, log=_log)
        front = Front(
            pool, web_root=_web_root(), authorizer=gate.start(), names=not strict, page_config=users.page_config()
        )
        server = serve(front, host, port)
        stop = threading.Event()
        loopback = env["WEBHOOK_ALLOW_LOOPBACK"] == "1"
        marks = _mark_running(data_dir, ddb.endpoint, s3.endpoint, users, allow_loopback=loopback)

        def on_signal(signum: int, frame: FrameType | None) -> None:
            stop.set()

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        threading.Thread(target=post_due_daily, args=(stop,), daemon=True, name="recurrences").start()
        sender_pool = start_webhooks(ddb.endpoint, s3.endpoint, data_dir, stop, task=task)
        url = f"http://{host}:{port}"
        _banner(url, size, pool.pids(), ddb=ddb.endpoint, s3=s3.endpoint, data_dir=data_dir, users=users,
                strict=strict, task=task)  # fmt: skip
        sys.stdout.flush()
        stop.wait()
        print("\nstopping...")
        server.shutdown()
        server.server_close()
        for mark in marks:
            mark.unlink(missing_ok=True)
        return 0
    except (FunctionFailed, LocalStackError) as exc:
        print(f"error: {getattr(exc, 'detail', exc)}", file=sys.stderr)
        return 1
    finally:
        for instances in (pool, gate, sender_pool):
            if instances is not None:
                instances.close()
        s3.stop()
        ddb.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kakeibo.local")
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="serve the API with DynamoDB Local")
    run_p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    run_p.add_argument("--ddb-port", type=int, default=int(os.environ.get("DDB_PORT", "8000")))
    run_p.add_argument("--data-dir", type=Path, default=Path(os.environ.get("DATA_DIR", ".kakeibo")))
    run_p.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    run_p.add_argument("--s3-port", type=int, default=int(os.environ.get("S3_PORT", "0")), help="0: any free port")
    run_p.add_argument("--task", type=Path, help="serve the function from this sam build directory alone")
    invoke_p = sub.add_parser("invoke", help="events through the built handler against the local tables")
    invoke_p.add_argument("events", type=Path, nargs="+", help="API Gateway event files (events/)")
    invoke_p.add_argument("--task", type=Path, required=True, help="the sam build directory of the function")
    invoke_p.add_argument("--data-dir", type=Path, default=Path(os.environ.get("DATA_DIR", ".kakeibo")))
    args = parser.parse_args(argv)
    if args.command == "invoke":
        return invoke(args.events, args.task, args.data_dir)
    if args.task is not None and not (args.task / "kakeibo" / "handler.py").is_file():
        print(f"error: {args.task} is not a built LedgerFunction (make host-package builds it)", file=sys.stderr)
        return 1
    return run(args.port, args.ddb_port, args.data_dir, args.host, args.s3_port, task=args.task)


if __name__ == "__main__":
    sys.exit(main())
