"""One cold start in a fresh interpreter; prints its timings as JSON. Run by sections/cold.py as

    python -I bench/cold_child.py ours SPEC.json     import the handler, handle SPEC's event
    python -I bench/cold_child.py boto3 SPEC.json    import boto3, create a DynamoDB client,
                                                     then make SPEC's calls (if any)

A plain script (not part of the bench package) so the measured process imports nothing else.
"""

import json
import os
import sys
import time
from pathlib import Path


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


def ours(spec: dict, t0: float) -> dict:
    from kakeibo.handler import lambda_handler  # noqa: PLC0415 - the import is what is timed

    t1 = time.perf_counter()
    result = lambda_handler(spec["event"], LambdaContext())
    t2 = time.perf_counter()
    return {
        "status": result["statusCode"],
        "import_s": t1 - t0,
        "first_request_s": t2 - t1,
        "total_s": t2 - t0,
    }


def bare(spec: dict, t0: float) -> dict:
    import boto3  # noqa: PLC0415 - the import is what is timed

    t1 = time.perf_counter()
    client = boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"] or None)
    t2 = time.perf_counter()
    for operation, params in spec.get("calls", []):
        getattr(client, operation)(**params)
    t3 = time.perf_counter()
    return {"import_s": t1 - t0, "client_s": t2 - t1, "calls_s": t3 - t2, "total_s": t3 - t0}


def main() -> None:
    mode, spec_path = sys.argv[1], sys.argv[2]
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    out = ours(spec, t0) if mode == "ours" else bare(spec, t0)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
