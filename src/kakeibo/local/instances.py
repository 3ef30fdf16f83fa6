"""Function instances for the local front: worker processes, each one Lambda execution environment.

Lambda runs a function in as many execution environments as there are requests in flight, up to
the function's concurrency; each environment handles one request at a time, keeps its module
state (cached settings, clients, Powertools' resolver) between requests, and pays its own cold
start (importing the handler). A `Pool` does the same with processes: `size` instances, started
at once; a request takes the idle one that finished last (waiting for one to be free when all are
busy, where Lambda would throttle), and a crashed instance costs only the request it was handling —
the caller gets `FunctionFailed` for it and a new instance starts in its place.

Each instance is kakeibo.local.task: the handler from the source tree, or, given `task` (a `sam
build` directory, `make run ARTIFACT=1`), from that directory alone with the standard library, as
Lambda's /var/task.

The environment an instance is given is the function's as the Lambda runtime gives it, pointed at the
local servers (local_environment); `make run` and `make invoke` make this process's the same
(prepare_process_env) for the clients they make themselves.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kakeibo.local import task, template
from kakeibo.local.front import FunctionFailed

DEFAULT_CONCURRENCY = 4

Log = Callable[[str], None]


def concurrency(environ: dict[str, str] | os._Environ[str] | None = None) -> int:
    """`FUNCTION_CONCURRENCY` (default 4): how many instances serve requests at the same time."""
    raw = (environ if environ is not None else os.environ).get("FUNCTION_CONCURRENCY", "").strip()
    if not raw:
        return DEFAULT_CONCURRENCY
    if not raw.isdigit() or not 1 <= int(raw) <= 64:
        raise ValueError(f"FUNCTION_CONCURRENCY must be a whole number from 1 to 64, not {raw!r}")
    return int(raw)


def local_environment(endpoint: str, s3_endpoint: str = "", *, allow_loopback: bool | None = None) -> dict[str, str]:
    """The function's environment as the Lambda runtime gives it, pointed at the local servers: the
    template's variables (table, bucket and queue names, the endpoints), the region under both of its
    names (AWS_REGION, which the runtime sets, and AWS_DEFAULT_REGION, which botocore reads) and
    credentials (the shell's, else dummy ones: the local servers take any). `allow_loopback`: whether
    webhooks may call http://127.0.0.1 (WEBHOOK_ALLOW_LOOPBACK's setting unless given)."""
    if allow_loopback is None:
        allow_loopback = os.environ.get("WEBHOOK_ALLOW_LOOPBACK", "") in ("1", "true")
    # moto's server answers for S3 and SQS alike: the webhook queues live on the receipts' server
    overrides = {"DynamoDbEndpointUrl": endpoint, "WebhookAllowLoopback": "1" if allow_loopback else "0",
                 "S3EndpointUrl": s3_endpoint, "SqsEndpointUrl": s3_endpoint}  # fmt: skip
    env = template.environment(overrides=overrides)
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    env["AWS_REGION"] = env["AWS_DEFAULT_REGION"] = region
    if not (os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY")):
        env.update(dict.fromkeys(("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"), "local"))
    return env


def prepare_process_env(endpoint: str, s3_endpoint: str = "", *, allow_loopback: bool | None = None) -> dict[str, str]:
    """The one preparation of `make run` and `make invoke`: this process's environment made the
    function's (for the clients it makes itself: tables, buckets, queues, the webhook sender), and
    that environment returned, for the function instances it starts."""
    env = local_environment(endpoint, s3_endpoint, allow_loopback=allow_loopback)
    os.environ.update(env)
    return env


def _ended(process: subprocess.Popen[bytes]) -> str:
    try:
        code = process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return "stopped answering"
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with status {code}"


@dataclass
class Instance:
    number: int
    process: subprocess.Popen[bytes]
    conn: Connection
    cold_start_ms: float
    label: str = "function"  # what the log calls it: the function's, or the authorizer's instance

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        """The function's answer; `InstanceDied` when the process ends before answering."""
        try:
            self.conn.send(event)
            kind, payload = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise InstanceDied(f"{self.label} instance {self.number} (pid {self.pid}) {_ended(self.process)}") from exc
        if kind != "ok":
            raise FunctionFailed(f"the function raised {payload}")
        result: dict[str, Any] = payload
        return result

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.conn.close()


class InstanceDied(FunctionFailed):
    """The instance's process ended while it held a request."""


@dataclass
class _Slot:
    """A place for one instance; whoever holds the slot may use the instance in it."""

    number: int
    instance: Instance | None = None


class Pool:
    """`size` function instances; `invoke(event)` runs the event on a free one."""

    def __init__(
        self,
        size: int,
        env: dict[str, str] | None = None,
        *,
        log: Log | None = None,
        task: Path | None = None,
        stdout: int | None = None,
        handler: str = task.DEFAULT_HANDLER,
        function: str = task.DEFAULT_FUNCTION,
        timeout: float = task.DEFAULT_TIMEOUT,
        label: str = "function",
    ) -> None:
        if size < 1:
            raise ValueError("a pool needs at least one instance")
        self.size = size
        self.env = dict(env or {})
        self.log: Log = log or (lambda message: None)
        self.task = task
        self.stdout = stdout  # where the instances' own output goes (None: this process's stdout)
        # which handler each instance imports, and the function its context names and times
        self.label = label  # what the log calls its instances
        self.options = ["--handler", handler, "--function", function, "--timeout", str(timeout)]
        self._slots = [_Slot(number) for number in range(1, size + 1)]
        # LIFO: a request takes the instance that finished last, as requests one after another to a
        # Lambda function are mostly served by one warm environment. They then meet the caches the
        # last request left: the ledger's journal head above all (an instance whose head another one
        # moved sends its change's transaction twice, the first refused). Requests at once still spread.
        self._idle: queue.LifoQueue[_Slot] = queue.LifoQueue()
        self._closed = False

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> Pool:
        """Start every instance at once (their cold starts overlap) and wait until all are ready."""
        errors: list[str] = []

        def launch(slot: _Slot) -> None:
            try:
                slot.instance = self._launch(slot.number)
            except FunctionFailed as exc:
                errors.append(exc.detail)

        threads = [threading.Thread(target=launch, args=(slot,), daemon=True) for slot in self._slots]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            self.close()
            raise FunctionFailed(errors[0])
        for slot in reversed(self._slots):  # instance 1 on top
            self._idle.put(slot)
        return self

    def close(self) -> None:
        """Stop every instance (each finishes the request it holds, if it can within a few seconds)."""
        self._closed = True
        stoppers = [threading.Thread(target=slot.instance.stop, daemon=True) for slot in self._slots if slot.instance]
        for thread in stoppers:
            thread.start()
        for thread in stoppers:
            thread.join(timeout=15)

    def pids(self) -> list[int]:
        """The process ids of the running instances (for logs and tests; not served over HTTP)."""
        return [slot.instance.pid for slot in self._slots if slot.instance and slot.instance.alive]

    # -- requests -------------------------------------------------------------------------------

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        if self._closed:
            raise FunctionFailed("the local front is stopping")
        taken = self._idle.get()  # waits while every instance is busy
        slot: _Slot | None = taken
        try:
            instance = self._ready(taken)
            try:
                return instance.invoke(event)
            except InstanceDied as exc:
                self.log(f"{exc.detail} during {event.get('routeKey', 'a request')}: answered 502")
                instance.conn.close()
                taken.instance = None
                threading.Thread(target=self._replace_later, args=(taken,), daemon=True).start()
                slot = None  # the replacing thread puts the slot back when its instance is ready
                raise
        finally:
            if slot is not None:
                self._idle.put(slot)

    def _ready(self, slot: _Slot) -> Instance:
        """The slot's instance; a new one (a cold start on this request) if it ended while idle."""
        if slot.instance is not None and slot.instance.alive:
            return slot.instance
        if slot.instance is not None:
            self.log(f"{self.label} instance {slot.number} (pid {slot.instance.pid}) {_ended(slot.instance.process)}")
            slot.instance.conn.close()
            slot.instance = None
        slot.instance = self._launch(slot.number)
        return slot.instance

    def _replace_later(self, slot: _Slot) -> None:
        try:
            if not self._closed:
                slot.instance = self._launch(slot.number)
        except FunctionFailed as exc:
            self.log(exc.detail)  # the next request on this slot tries again
        finally:
            self._idle.put(slot)

    def _launch(self, number: int) -> Instance:
        parent, child = multiprocessing.Pipe()
        if self.task is None:  # the handler from the sources this interpreter imports
            command = [sys.executable, "-m", task.__name__, str(child.fileno()), *self.options]
        else:  # the built function alone, with the standard library: no venv, no sources
            command = [sys.executable, "-I", "-S", str(task.__file__), str(child.fileno()), "--task", str(self.task)]
            command += self.options
        process = subprocess.Popen(  # a fresh interpreter: the instance's own cold start
            command,
            env={**os.environ, **self.env},
            pass_fds=[child.fileno()],
            stdout=self.stdout,
        )
        child.close()
        try:
            _, pid, cold_ms = parent.recv()
        except (EOFError, OSError) as exc:
            parent.close()
            raise FunctionFailed(
                f"{self.label} instance {number} could not start: it {_ended(process)} (see its output above)"
            ) from exc
        self.log(f"{self.label} instance {number} ready: pid {pid}, cold start {cold_ms:.0f} ms")
        return Instance(number, process, parent, cold_ms, self.label)


def authorizer_pool(
    size: int, env: dict[str, str], *, task: Path | None = None, log: Log | None = None, stdout: int | None = None
) -> Pool:
    """Instances of template.yaml's authorizer function (its handler, its timeout): from the sources,
    or, given the ledger function's built directory, from its neighbour that sam build made for it."""
    logical, _ = template.lambda_authorizer()
    built = task.parent / logical if task is not None else None
    return Pool(
        size,
        env,
        log=log,
        task=built,
        stdout=stdout,
        handler=template.function_handler(logical),
        function=logical,
        timeout=template.function_timeout(logical),
        label="authorizer",
    )
