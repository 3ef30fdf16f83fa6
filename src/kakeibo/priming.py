"""SnapStart's before-snapshot priming of the API's function: what a restored instance must not do again.

Without SnapStart every instance initialises itself and pays, on its first request, for the route
family and the model wing that request needs (handler.include_routes, the models package's lazy
names): a cold start imports only what it serves. With SnapStart the snapshot is taken once, when
a version is published, and every instance starts from it: whatever is not in the snapshot, every
restored instance does again on its first request. So before the snapshot (`prime`):
- every route family is included, every model wing imported and every store family built, and
  each route's validation (Powertools' dependant and body field, built on a route's first request)
  is built;
- requests are served through the handler as API Gateway sends them — POST /slips with and without
  an Idempotency-Key, then GET /slips — so that the code they run is imported and botocore has
  built, signed and parsed each call once. Their DynamoDB calls never leave the process: the
  client's HTTP session is, while priming, one that answers each call locally, as a table holding
  nothing whose every write succeeds would (no connection is opened, nothing is written; they are
  signed with credentials of the priming's own, so the function's are neither looked up nor used);
- what the requests leave behind is cleared: what the stores learnt of the priming ledger (the
  journal head they saw), the resolver's current event and context, the idempotency config's
  Lambda context, the Logger's keys (request id, correlation id) and its cold-start flag, so a
  restored instance's first request is logged as its own cold start.
Settings, the client and the store stay, as snapstart.prepare made them. Priming never fails an
initialisation: a request that does not answer as expected is logged, and the instance serves
as it would have without it.
"""

from __future__ import annotations

import datetime as dt
import gc
import importlib
import json
import logging
import re
import threading
import uuid
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.credentials import Credentials

LOG = logging.getLogger(__name__)

PRIMING_USER = "snapstart-priming"  # the caller of the priming requests: its ledger is never written
EXPECTED = (201, 201, 200)  # the priming requests' answers


class PrimingContext:
    """The Lambda context the priming requests run with (duck-typed, as Lambda's own)."""

    function_name = "snapstart-priming"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:snapstart-priming"
    log_group_name = "/aws/lambda/snapstart-priming"
    log_stream_name = "priming"
    aws_request_id = "snapstart-priming"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


class _Body:
    """A response body as urllib3 would stream it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.data


class LocalAnswers:
    """DynamoDB answered in process, as a table that holds nothing and takes every write: the HTTP
    session of a client's endpoint while priming (botocore builds, signs and parses every call as
    it would, its event handlers and their caches untouched), it answers each request with the
    response DynamoDB would send and counts the calls it answered."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def send(self, request: Any) -> AWSResponse:
        target = request.headers.get("X-Amz-Target") or b""
        operation = (target.decode() if isinstance(target, bytes) else str(target)).rsplit(".", 1)[-1]
        params = json.loads(request.body or b"{}")
        self.calls.append(operation)
        body = json.dumps(answer(operation, params)).encode()
        headers = {"x-amzn-RequestId": "snapstart-priming", "Content-Type": "application/x-amz-json-1.0"}
        return AWSResponse(request.url, 200, headers, _Body(body))  # type: ignore[arg-type]


_SET = re.compile(r"(#?\w+)\s*=\s*(?:if_not_exists\(\s*#?\w+\s*,\s*)?(:\w+)")
_ADD = re.compile(r"(#?\w+)\s+(:\w+)")


def updated(params: dict[str, Any]) -> dict[str, Any]:
    """The attributes an UpdateItem on an absent item sets, for `ReturnValues` UPDATED_NEW / ALL_NEW
    (`ADD a :v` and `SET a = :v` or `a = if_not_exists(a, :v)`: the value given)."""
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    out: dict[str, Any] = {}
    for clause in re.split(r"\b(?=SET\b|ADD\b|REMOVE\b|DELETE\b)", params.get("UpdateExpression") or ""):
        action, _, rest = clause.strip().partition(" ")
        pairs = _SET.findall(rest) if action == "SET" else _ADD.findall(rest) if action == "ADD" else []
        for name, value in pairs:
            if value in values:
                out[names.get(name, name)] = values[value]
    return out


def answer(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """What DynamoDB answers `operation` on an empty table whose every write succeeds."""
    if operation == "UpdateItem" and params.get("ReturnValues") in ("UPDATED_NEW", "ALL_NEW"):
        return {"Attributes": updated(params)}
    if operation in ("Query", "Scan"):
        return {"Items": [], "Count": 0, "ScannedCount": 0}
    if operation == "BatchGetItem":
        return {"Responses": {table: [] for table in params.get("RequestItems") or {}}, "UnprocessedKeys": {}}
    if operation == "TransactGetItems":
        return {"Responses": [{} for _ in params.get("TransactItems") or []]}
    if operation == "BatchWriteItem":
        return {"UnprocessedItems": {}}
    return {}  # GetItem of nothing; PutItem, DeleteItem, UpdateItem, TransactWriteItems applied


def event(method: str, path: str, body: dict[str, Any] | None = None, **headers: str) -> dict[str, Any]:
    """An HTTP API (payload 2.0) event for the priming caller, as API Gateway sends one after the
    Lambda authorizer let it in."""
    route = f"{method} {path}"
    sent = {"content-type": "application/json", **headers} if body is not None else dict(headers)
    now = dt.datetime.now(dt.UTC)
    out: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"host": "snapstart-priming", **sent},
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "priming",
            "domainName": "snapstart-priming",
            "domainPrefix": "priming",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "requestId": "snapstart-priming",
            "routeKey": route,
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(now.timestamp() * 1000),
            "authorizer": {"lambda": {"sub": PRIMING_USER, "via": "jwt", "scope": "write", "token_id": ""}},
        },
        "isBase64Encoded": False,
    }
    if body is not None:
        out["body"] = json.dumps(body, ensure_ascii=False)
    return out


def requests() -> list[dict[str, Any]]:
    """The requests served before the snapshot: a slip created (with and without an Idempotency-Key),
    then the month's slips listed."""
    today = dt.datetime.now(dt.UTC).date().isoformat()
    slip = {"date": today, "kind": "expense", "amount": 1, "account": "cash", "category": "食費", "memo": "priming"}
    return [
        event("POST", "/slips", slip),
        event("POST", "/slips", slip, **{"idempotency-key": f"priming-{uuid.uuid4()}"}),
        event("GET", "/slips"),
    ]


def import_everything(handler: ModuleType) -> None:
    """Every route family on the resolver, every model wing imported, every route's validation built."""
    import pkgutil  # noqa: PLC0415 - only before a snapshot

    from kakeibo import models  # noqa: PLC0415

    handler.include_all_routes()
    for wing in sorted(module.name for module in pkgutil.iter_modules(models.__path__)):
        importlib.import_module(f"kakeibo.models.{wing}")
    from kakeibo.store import every_family, get_store  # noqa: PLC0415

    every_family(get_store())  # every item family built, its module imported
    importlib.import_module("kakeibo.store.idempotency_layer")
    importlib.import_module("encodings.idna")  # what opening the first connection imports (the host's name)
    for route in [*handler.app._static_routes, *handler.app._dynamic_routes]:
        _ = route.dependant, route.body_field


def serve(handler: ModuleType) -> tuple[list[int], list[str]]:
    """The priming requests through the handler, their DynamoDB calls answered in process: their
    statuses and the calls answered."""
    lambda_handler = handler.lambda_handler
    from kakeibo.store import dynamodb_client  # noqa: PLC0415

    client = dynamodb_client()
    local = LocalAnswers()
    from kakeibo.store import get_store  # noqa: PLC0415

    # Signed with credentials of its own: the function's own are not looked up (a container's
    # credentials endpoint is not called) and no signature of theirs is made before the snapshot.
    signer: Any = getattr(client, "_request_signer")  # noqa: B009 - not in the typed client
    credentials = signer._credentials
    signer._credentials = Credentials("snapstart-priming", "snapstart-priming")
    endpoint: Any = getattr(client, "_endpoint")  # noqa: B009
    session = endpoint.http_session
    endpoint.http_session = local
    try:
        statuses = [int(lambda_handler(e, PrimingContext())["statusCode"]) for e in requests()]
    finally:
        endpoint.http_session = session
        signer._credentials = credentials
        get_store().forget()  # what it learnt of the priming ledger (its journal head, its years)
    return statuses, local.calls


def clean(handler: ModuleType) -> None:
    """What the priming requests left behind that a restored instance must not share."""
    from aws_lambda_powertools.event_handler.api_gateway import BaseRouter  # noqa: PLC0415
    from aws_lambda_powertools.logging import logger as powertools_logger  # noqa: PLC0415

    from kakeibo import idempotency  # noqa: PLC0415

    handler.app.clear_context()
    for name in ("current_event", "lambda_context"):  # class attributes the resolver set for its routers
        if name in vars(BaseRouter):
            delattr(BaseRouter, name)
    _, config = idempotency._idempotent()
    config.lambda_context = None
    handler.logger.clear_state()
    powertools_logger.is_cold_start = True


def settle() -> None:
    """Leave the heap as it is to be kept: what the initialisation and the priming made and dropped is
    collected, and every object still alive is moved out of the collector's generations
    (`gc.freeze`), so no later collection in a restored instance walks (and so writes to) the memory
    every instance shares. The collector keeps collecting what each instance makes after it; what
    was alive at the snapshot is never collected again, even once dropped (a cycle among those
    objects stays in memory: bounded by what the initialisation made)."""
    gc.collect()
    gc.freeze()


def prime(handler: ModuleType) -> dict[str, Any]:
    """Prepare the function for its snapshot (see the module's doc); what was served, for the record.
    `handler`: the function's handler module, which registers this as its before-snapshot hook (this
    module is handed it rather than importing it back)."""
    from kakeibo import snapstart  # noqa: PLC0415

    snapstart.prepare()
    threads = threading.active_count()
    statuses: list[int] = []
    calls: list[str] = []
    try:
        import_everything(handler)
        statuses, calls = serve(handler)
    except Exception:  # an instance that was not primed still serves: it imports on first use
        LOG.exception("SnapStart priming failed")
    finally:
        clean(handler)
        settle()
    if statuses != list(EXPECTED):
        LOG.warning("SnapStart priming answered %s, not %s", statuses, list(EXPECTED))
    if threading.active_count() != threads:
        LOG.warning("SnapStart priming left %d threads running", threading.active_count() - threads)
    return {"statuses": statuses, "calls": calls}
