"""A function for the instance tests: it answers with the process id of the instance that ran it."""

from __future__ import annotations

import os
from typing import Any


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return {"statusCode": 200, "headers": {"Content-Type": "text/plain"}, "body": str(os.getpid())}
