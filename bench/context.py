"""What every section shares: DynamoDB Local, the local S3 server, the function's environment, the
handler, a recorder."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from bench.api import Api, Reply
from bench.recorder import Call, CallRecorder, Replay, replay
from kakeibo.local import template
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.s3 import S3Local, create_buckets
from kakeibo.store.keys import index_head

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

# Never reach a real AWS account, whatever the shell has.
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
}


@contextmanager
def setting(name: str, value: str) -> Iterator[None]:
    """The function's environment variable `name` set to `value` for a while (its settings read
    anew), then as it was."""
    from kakeibo.settings import get_settings  # noqa: PLC0415 - the function reads its environment late

    before = os.environ.get(name)
    os.environ[name] = value
    get_settings.cache_clear()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
        get_settings.cache_clear()


@dataclass(frozen=True)
class Sizes:
    """How much to measure: the full run, or a smoke run (`--quick`) that only proves the runner."""

    iterations: int  # timed iterations per operation
    warmup: int  # untimed iterations first (DynamoDB Local's JIT, our caches)
    read_iterations: int  # for the heavier reads (balances over years of history)
    history_days: int  # daily history behind list / balances-as-of
    cold_runs: int  # fresh processes per kind
    cold_warmup_rounds: int  # rounds run first and discarded (file cache, bytecode)
    writers: int  # concurrent writers (naive vs ours)
    writer_ops: int  # operations per writer
    global_warmup: int  # requests to warm DynamoDB Local before anything is timed
    import_rows: int  # rows of the CSV file imported in one go
    import_per_row: int  # of those, how many are also written one transaction per row
    age_days: tuple[int, int, int]  # days of slips of the young, middle and old ledgers (ages)
    due_ledgers: int  # ledgers with 10 due recurrences each, for the daily job (job)
    job_seconds: float  # how long the job posts before its posting rate is taken
    webhooks: int  # webhooks, one ledger each, a tenth of them down (webhooks)
    webhook_entries: int  # new journal entries per webhook's ledger (webhooks)
    budget_categories: int  # categories with a budget in every month of the year (budgets)

    @classmethod
    def full(cls) -> Sizes:
        return cls(
            iterations=400,
            warmup=40,
            read_iterations=150,
            history_days=3 * 365 + 1,
            cold_runs=9,
            cold_warmup_rounds=1,
            writers=8,
            writer_ops=40,
            global_warmup=600,
            import_rows=10_000,
            import_per_row=1_000,
            age_days=(31, 3 * 365 + 1, 10 * 365 + 2),
            due_ledgers=2_000,
            job_seconds=60.0,
            webhooks=100,
            webhook_entries=20,
            budget_categories=8,
        )

    @classmethod
    def quick(cls) -> Sizes:
        return cls(
            iterations=5,
            warmup=1,
            read_iterations=3,
            history_days=20,
            cold_runs=1,
            cold_warmup_rounds=0,
            writers=2,
            writer_ops=5,
            global_warmup=3,
            import_rows=40,
            import_per_row=10,
            age_days=(5, 20, 40),
            due_ledgers=20,
            job_seconds=5.0,
            webhooks=10,
            webhook_entries=2,
            budget_categories=2,
        )


@dataclass(frozen=True)
class Twin:
    """Two ledgers kept identical: the handler works on `ours`, the floor replays on `floor`.

    Ledger ids have the same length so items, and so capacity, are the same size on both.
    """

    ours: str
    floor: str

    @property
    def rename(self) -> dict[str, str]:
        # the partition, the user id slips record as their author (created_by / updated_by), and the
        # prefix of that author's slip index items
        return {
            f"LEDGER#{self.ours}": f"LEDGER#{self.floor}",
            self.ours: self.floor,
            index_head("by", self.ours): index_head("by", self.floor),
        }


class Context:
    def __init__(self, sizes: Sizes, *, profile: bool = False, out_dir: Path = RESULTS) -> None:
        self.sizes = sizes
        self.profile = profile
        self.out_dir = out_dir
        self.results: dict[str, dict[str, Any]] = {}
        self.env: dict[str, str] = {}
        self._ddb: DynamoDBLocal | None = None
        self._s3: S3Local | None = None
        self._cache: dict[str, Any] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> Context:
        self._ddb = DynamoDBLocal(free_port()).start()
        self._s3 = S3Local(free_port()).start()
        # No request budgets (§25): each section's reads and writes are compared with their floors, which
        # the budget's counter (one conditional UpdateItem per request, outside its work) is not part of;
        # the bench sends hundreds of requests a minute as one person besides.
        overrides = {"DynamoDbEndpointUrl": self._ddb.endpoint, "S3EndpointUrl": self._s3.endpoint,
                     "RequestsPerMinute": "0", "TokenRequestsPerMinute": "0"}  # fmt: skip
        self.env = {
            **AWS_ENV,
            **template.environment(overrides=overrides),
            "POWERTOOLS_DEV": "false",
        }
        for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
            os.environ.pop(var, None)
        os.environ.update(self.env)
        create_tables(boto3.client("dynamodb", endpoint_url=self._ddb.endpoint))
        create_buckets(self._s3.endpoint)
        # Imported only now: the function reads its environment when first used, as in Lambda.
        from kakeibo import store  # noqa: PLC0415
        from kakeibo.handler import lambda_handler  # noqa: PLC0415 - its Logger reads the environment

        self.store = store.get_store()
        self.client = self.store.core.client  # the handler's own client: the floor uses it too
        self.recorder = CallRecorder(self.client)
        self.api = Api(lambda_handler)
        return self

    def close(self) -> None:
        if self._s3 is not None:
            self._s3.stop()
            self._s3 = None
        if self._ddb is not None:
            self._ddb.stop()
            self._ddb = None

    @property
    def s3_endpoint(self) -> str:
        """The local S3 server's endpoint (moto's: it serves the user pool too, as in `make run`)."""
        if self._s3 is None:
            raise RuntimeError("the bench's servers are not started")
        return self._s3.endpoint

    def shown(self, path: Path) -> str:
        """A path as the report shows it: relative to the project when inside it."""
        return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)

    # -- ledgers --------------------------------------------------------------------------------

    def ledger(self, label: str) -> str:
        return f"bench-{label}-{uuid.uuid4().hex[:10]}"

    def twin(self, label: str) -> Twin:
        suffix = uuid.uuid4().hex[:10]
        return Twin(f"bench-{label}-{suffix}-a", f"bench-{label}-{suffix}-b")

    def cached(self, key: str, build: Any) -> Any:
        """A fixture shared by sections (e.g. the years of history), built once per run."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    # -- requests -------------------------------------------------------------------------------

    def request(self, method: str, target: str, *, user: str, **kw: Any) -> Reply:
        return self.api.request(method, target, user=user, **kw)

    def mirrored(self, twin: Twin, method: str, target: str, **kw: Any) -> Reply:
        """An untimed request on `twin.ours`, and the same DynamoDB calls replayed on `twin.floor`."""
        self.recorder.clear()
        reply = self.api.request(method, target, user=twin.ours, **kw)
        calls = self.recorder.take()
        self.replay(calls, twin).run()
        return reply

    def replay(self, calls: list[Call], twin: Twin | None) -> Replay:
        return replay(self.client, calls, twin.rename if twin else None)

    def account(self, twin: Twin, account: str, opening: int, type: str = "cash", **extra: Any) -> None:
        body = {"id": account, "name": account.title(), "type": type, "opening_balance": opening, **extra}
        self.mirrored(twin, "POST", "/accounts", body=body, expect=201)
