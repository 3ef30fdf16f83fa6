"""One cold start in a fresh interpreter; prints its timings as JSON. Run by sections/cold.py as

    python -I -S bench/cold_child.py ours SPEC.json DIR    import the handler, handle SPEC's event
    python -I -S bench/cold_child.py boto3 SPEC.json DIR   import boto3, create a DynamoDB client,
                                                           then make SPEC's calls (if any)
    python -I -S bench/cold_child.py stack SPEC.json DIR   the design's stack and nothing of ours:
                                                           boto3 + client, Powertools' resolver and
                                                           Logger, pydantic validating one model

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


def stack(spec: dict[str, Any], start: tuple[float, float]) -> dict[str, Any]:
    import boto3  # noqa: PLC0415 - the imports are what is timed
    from aws_lambda_powertools import Logger  # noqa: PLC0415
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver  # noqa: PLC0415
    from pydantic import BaseModel, ConfigDict  # noqa: PLC0415

    imported = now()

    class Body(BaseModel):
        model_config = ConfigDict(extra="forbid")
        date: str
        kind: str
        amount: int
        account: str

    Body.model_validate({"date": "2026-04-01", "kind": "expense", "amount": 300, "account": "cash"})
    APIGatewayHttpResolver(enable_validation=True)
    Logger(service="stack")
    boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"] or None)
    created = now()
    return phases([("start", start), ("import", imported), ("first_use", created)])


def main() -> None:
    mode, spec_path, package = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, package)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    start = now()
    out = {"ours": ours, "boto3": bare, "stack": stack}[mode](spec, start)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
