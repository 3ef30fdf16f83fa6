"""One cold start in a fresh interpreter; prints its timings as JSON. Run by sections/cold.py as

    python -I -S bench/cold_child.py ours SPEC.json DIR    import the handler, handle SPEC's event
    python -I -S bench/cold_child.py boto3 SPEC.json DIR   import boto3, create a DynamoDB client,
                                                           then make SPEC's calls (if any)
    python -I -S bench/cold_child.py floor SPEC.json DIR   the design's floor, nothing of ours:
                                                           boto3 + client, Powertools' resolver with
                                                           validation and Logger, one route taking
                                                           SPEC's event, its body validated by
                                                           pydantic, making SPEC's calls
    python -I -S bench/cold_child.py restore SPEC.json DIR SnapStart as it runs: import the handler,
                                                           run the before-snapshot hooks, fork (the
                                                           restore), run the after-restore hooks in
                                                           the child and handle SPEC's two events,
                                                           then the first again
    python -I -S bench/cold_child.py unprimed SPEC.json DIR the same without the handler's priming
                                                           (only snapstart.prepare before the fork)
    python -I -S bench/cold_child.py floor_restore SPEC.json DIR  the floor's stack initialised and
                                                           primed as ours is (its client made, one
                                                           request served against a table answered
                                                           in process, the heap collected and
                                                           frozen), forked; the child handles SPEC's
                                                           event three times, making SPEC's three
                                                           sets of calls

DIR is a built function (build/sam-ARCH/LedgerFunction, for every mode) and the only place
imports come from besides the standard library (-S: no site-packages), as in Lambda's /var/task.
A plain script (not part of the bench package) so the measured process imports nothing else.
"""

import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


class LambdaContext:
    function_name = "LedgerFunction"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:local:123456789012:function:LedgerFunction"
    log_group_name = "/aws/lambda/LedgerFunction"
    log_stream_name = "local"
    aws_request_id = "cold-start"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def now() -> tuple[float, float]:
    """(wall, CPU) seconds: CPU time is what a busy machine disturbs least."""
    return time.perf_counter(), time.process_time()


def faults() -> int:
    """The page faults this process has taken without reading a disk (after a fork: the pages it
    wrote that it shared with its parent, each copied on its first write)."""
    import resource  # noqa: PLC0415 - only the restored child asks, before its first request

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def phases(marks: list[tuple[str, tuple[float, float]]]) -> dict[str, float]:
    out = {}
    for (_, start), (name, end) in itertools.pairwise(marks):
        out[f"{name}_s"] = end[0] - start[0]
        out[f"{name}_cpu_s"] = end[1] - start[1]
    out["total_s"] = marks[-1][1][0] - marks[0][1][0]
    out["total_cpu_s"] = marks[-1][1][1] - marks[0][1][1]
    return out


def ours(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    from kakeibo.handler import lambda_handler  # noqa: PLC0415 - the import is what is timed

    imported = now()
    result = lambda_handler(spec["event"], LambdaContext())  # type: ignore[arg-type]
    done = now()
    marks = [("start", start), ("import", imported), ("first_request", done)]
    return {"status": result["statusCode"], **phases(marks)}


def bare(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    import boto3  # noqa: PLC0415 - the import is what is timed

    imported = now()
    client = boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"] or None)
    created = now()
    for operation, params in spec.get("calls", []):
        getattr(client, operation)(**params)
    called = now()
    marks = [("start", start), ("import", imported), ("client", created)]
    if spec.get("calls"):
        marks.append(("calls", called))
    return phases(marks)


def floor(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    """The design's floor: its stack with nothing of ours, answering the same event with one route
    that validates the body with pydantic and makes the same DynamoDB calls (pre-built)."""
    from typing import Annotated  # noqa: F401, PLC0415 - the imports are what is timed

    import boto3  # noqa: PLC0415
    from aws_lambda_powertools import Logger  # noqa: F401, PLC0415
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response  # noqa: F401, PLC0415
    from aws_lambda_powertools.event_handler.openapi.params import Body  # noqa: F401, PLC0415
    from pydantic import BaseModel, ConfigDict, Field  # noqa: F401, PLC0415

    imported = now()

    def client() -> Any:
        return boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"] or None)

    handler = _floor_handler(client, lambda: spec["calls"])
    result = handler(spec["event"], LambdaContext())
    done = now()
    marks = [("start", start), ("import", imported), ("first_request", done)]
    return {"status": result["statusCode"], **phases(marks)}


def _floor_handler(client: Any, calls: Any) -> Any:
    """The floor's Lambda handler: Powertools' resolver with validation and its Logger, one route
    (POST /slips, its body validated by a pydantic model) making `calls()` on `client()`."""
    from typing import Annotated  # noqa: PLC0415

    from aws_lambda_powertools import Logger  # noqa: PLC0415
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response  # noqa: PLC0415
    from aws_lambda_powertools.event_handler.openapi.params import Body  # noqa: PLC0415
    from pydantic import BaseModel, ConfigDict, Field  # noqa: PLC0415

    class SlipIn(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
        kind: str
        amount: int = Field(gt=0)
        account: str
        category: str | None = None
        memo: str | None = None

    app = APIGatewayHttpResolver(enable_validation=True)
    logger = Logger(service="floor")

    @app.post("/slips")
    def create(slip: Annotated[SlipIn, Body()]) -> Response[str]:
        dynamodb = client()
        for operation, params in calls():
            getattr(dynamodb, operation)(**params)
        return Response(201, "application/json", json.dumps({"amount": slip.amount}))

    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return app.resolve(event, context)

    return handler


class _EmptyTable:
    """DynamoDB answered in process for the floor's priming, as ours' priming answers it: every
    call built, signed and sent through botocore, answered with an empty success."""

    def send(self, request: Any) -> Any:
        from botocore.awsrequest import AWSResponse  # noqa: PLC0415

        class Raw:
            def stream(self, **_: Any) -> Any:
                yield b"{}"

        headers = {"x-amzn-RequestId": "priming", "Content-Type": "application/x-amz-json-1.0"}
        return AWSResponse(request.url, 200, headers, Raw())  # type: ignore[arg-type]


def floor_restore(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    """The floor restored as ours is: its client made at init, one request served against a table
    answered in process (nothing written), the heap collected and frozen; then the fork."""
    import gc  # noqa: PLC0415

    import boto3  # noqa: PLC0415

    dynamodb = boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"] or None)
    pending: list[Any] = []
    handler = _floor_handler(lambda: dynamodb, lambda: pending.pop(0))
    endpoint: Any = getattr(dynamodb, "_endpoint")  # noqa: B009 - its HTTP session, swapped as our priming swaps it
    session, endpoint.http_session = endpoint.http_session, _EmptyTable()
    pending.append(spec["calls"][0])
    primed = handler(json.loads(json.dumps(spec["event"])), LambdaContext())
    endpoint.http_session = session
    if primed["statusCode"] != 201:
        raise SystemExit(f"the floor's priming got {primed['statusCode']}")
    import encodings.idna  # noqa: F401, PLC0415 - what opening the first connection imports, as ours' priming

    gc.collect()
    gc.freeze()
    initialised = now()

    def serve(n: int) -> int:
        pending.append(spec["calls"][n])
        return int(handler(json.loads(json.dumps(spec["event"])), LambdaContext())["statusCode"])

    child = _forked(lambda: None, serve)
    init = phases([("start", start), ("init", initialised)])
    return {**child, "init_s": init["init_s"], "init_cpu_s": init["init_cpu_s"], "hooks": 0}


def _hooks(registry: list[tuple[Any, tuple[Any, ...], dict[str, Any]]]) -> None:
    for func, args, kwargs in registry:
        func(*args, **kwargs)


def restore(spec: dict[str, Any], start: tuple[float, float], *, primed: bool = True) -> dict[str, Any]:
    """Initialise as Lambda does before a snapshot, then fork: the child is a restored instance. It
    handles SPEC's two events (POST /slips on two ledgers, each new to it: both read their
    ledger's journal head once), then the first again (its head known); the parent reports what
    the child timed."""
    import snapshot_restore_py  # noqa: PLC0415 - Lambda's runtime hooks, shipped in the package

    from kakeibo import handler  # noqa: PLC0415 - the import is what is timed

    hooks = reversed(snapshot_restore_py.get_before_snapshot())
    before = [hook for hook in hooks if primed or hook[0] is not handler.prime]
    _hooks(before)
    initialised = now()
    one, other = spec["events"]

    def serve(n: int) -> int:
        event = one if n != 1 else other
        return int(handler.lambda_handler(json.loads(json.dumps(event)), LambdaContext())["statusCode"])  # type: ignore[arg-type]

    child = _forked(lambda: _hooks(snapshot_restore_py.get_after_restore()), serve)
    init = phases([("start", start), ("init", initialised)])
    return {**child, "init_s": init["init_s"], "init_cpu_s": init["init_cpu_s"], "hooks": len(before)}


def _forked(restored: Any, serve: Any) -> dict[str, Any]:
    """Fork: the child, a restored instance, runs `restored()` (the after-restore hooks) and
    `serve(0)`, `serve(1)`, `serve(2)` (its first, second and third requests), timing each and counting
    the modules the first imported and each request's page faults; the parent returns what it timed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the restored instance: never returns
        code = 0
        try:
            os.close(read)
            restored()
            back = now()
            counted = [faults()]
            loaded = set(sys.modules)
            statuses = [serve(0)]
            served = now()
            counted.append(faults())
            imported = sorted(set(sys.modules) - loaded)
            statuses.append(serve(1))
            again = now()
            counted.append(faults())
            statuses.append(serve(2))
            thrice = now()
            marks = [("restore", back), ("first_request", served), ("second_request", again),
                     ("third_request", thrice)]  # fmt: skip
            paged = {"first_request_faults": counted[1] - counted[0], "second_request_faults": counted[2] - counted[1]}
            out = {"status": statuses, "imported": imported, **paged, **phases(marks)}
            with os.fdopen(write, "w") as pipe:
                json.dump(out, pipe)
        except BaseException:  # reported by the exit code
            import traceback  # noqa: PLC0415

            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not text:
        raise SystemExit("the restored child failed")
    child: dict[str, Any] = json.loads(text)
    return child


def unprimed(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    return restore(spec, start, primed=False)


def main() -> None:
    mode, spec_path, package = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, package)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    start = now()
    modes = {
        "ours": ours,
        "boto3": bare,
        "floor": floor,
        "restore": restore,
        "unprimed": unprimed,
        "floor_restore": floor_restore,
    }
    out = modes[mode](spec, start)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
