"""One function instance: a process that imports a Lambda handler once and answers events over a pipe.

Standard library only, so that it can run a function as Lambda's /var/task holds it:

    python -I -S task.py FD --task DIR [--handler kakeibo.handler.lambda_handler]
                               [--function LedgerFunction] [--timeout SECONDS]

imports the handler from DIR (a `sam build` directory, e.g. build/sam-x86_64/LedgerFunction) with
nothing else but the standard library on sys.path (-I -S: no venv, no sources, no PYTHONPATH), as
the Lambda runtime does. Without --task (`python -m kakeibo.local.task FD`) the handler comes from
wherever this interpreter finds it: the source tree, for `make run` and the tests. Each invocation's
context counts down from the function's timeout (the template's), as Lambda's does.

The pipe carries ("ready", pid, cold start ms) once, then one event in -> ("ok", result) or
("error", "Type: message") out, until it closes or brings None (kakeibo.local.instances).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import time
import traceback
import uuid
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

DEFAULT_HANDLER = "kakeibo.handler.lambda_handler"


DEFAULT_FUNCTION = "LedgerFunction"
DEFAULT_TIMEOUT = 10.0  # seconds: the LedgerFunction's Timeout in template.yaml


@dataclass
class LambdaContext:
    aws_request_id: str
    function_name: str = DEFAULT_FUNCTION
    timeout: float = DEFAULT_TIMEOUT
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    log_stream_name: str = "local"

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.timeout

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:local:123456789012:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


def load(handler: str = DEFAULT_HANDLER, task: str | None = None) -> Any:
    """The handler function named `module.function`, imported from `task` when given (first on sys.path)."""
    if task is not None:
        sys.path.insert(0, os.path.abspath(task))
    module, _, name = handler.rpartition(".")
    return getattr(importlib.import_module(module), name)


def serve(
    conn: Connection,
    handler: str = DEFAULT_HANDLER,
    task: str | None = None,
    *,
    function: str = DEFAULT_FUNCTION,
    timeout: float = DEFAULT_TIMEOUT,
) -> None:
    """Import the handler (the cold start), then answer events until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the front, which then closes us
    t0 = time.perf_counter()
    entry = load(handler, task)
    conn.send(("ready", os.getpid(), (time.perf_counter() - t0) * 1000))
    while True:
        try:
            event = conn.recv()
        except (EOFError, OSError):
            return  # the front is gone
        if event is None:
            return
        try:
            request = (event.get("requestContext") or {}).get("requestId")  # a schedule's event has none
            context = LambdaContext(str(request or uuid.uuid4()), function, timeout)
            conn.send(("ok", entry(event, context)))
        except Exception as exc:  # an unhandled function error: reported, the instance lives on
            traceback.print_exc()
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def main(argv: list[str]) -> None:
    fd, options = int(argv[0]), dict(zip(argv[1::2], argv[2::2], strict=True))
    serve(
        Connection(fd),
        options.get("--handler", DEFAULT_HANDLER),
        options.get("--task"),
        function=options.get("--function", DEFAULT_FUNCTION),
        timeout=float(options.get("--timeout", DEFAULT_TIMEOUT)),
    )


if __name__ == "__main__":
    main(sys.argv[1:])
