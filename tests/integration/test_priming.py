"""SnapStart's priming as Lambda runs it: a fresh interpreter imports the function, runs its
before-snapshot hooks (snapshot_restore_py records them; the child runs them as the runtime does),
then, as a restored instance, runs the after-restore hooks and serves its first requests on
DynamoDB Local. The function is the built one when KAKEIBO_TASK names it (`python -I -S`, only that
directory on the path, as in /var/task), else the sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import boto3

from kakeibo.local.front import Front
from kakeibo.store import Store
from tests.events import Client

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, pkgutil, sys
sys.path.insert(0, sys.argv[1])
import snapshot_restore_py
from kakeibo import handler
from kakeibo.routes import MODULES
import kakeibo.models

class Context:
    function_name = "LedgerFunction"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:LedgerFunction"
    aws_request_id = "priming-test"
    def get_remaining_time_in_millis(self):
        return 10_000

def count(client, table):
    return sum(page["Count"] for page in client.get_paginator("scan").paginate(TableName=table, Select="COUNT"))

def run(registry):
    for func, args, kwargs in registry:
        func(*args, **kwargs)

events, tables = json.load(sys.stdin)
from kakeibo.store import dynamodb_client
client = dynamodb_client()
before = {table: count(client, table) for table in tables}
client._endpoint.http_session._manager.clear()  # the counting's connection: priming must open its own, if any

run(reversed(snapshot_restore_py.get_before_snapshot()))  # the snapshot is taken here
pools = len(client._endpoint.http_session._manager.pools)
primed = {table: count(client, table) for table in tables}
routes = sorted(name for name in MODULES if f"kakeibo.routes.{name}" not in sys.modules)
wings = sorted(w.name for w in pkgutil.iter_modules(kakeibo.models.__path__)
               if f"kakeibo.models.{w.name}" not in sys.modules)
from kakeibo.store import Store, family, get_store
families = sorted(name for name, value in vars(Store).items()
                  if isinstance(value, family) and name not in vars(get_store()))
run(snapshot_restore_py.get_after_restore())  # a restored instance from here on

loaded = set(sys.modules)
replies = [handler.lambda_handler(event, Context()) for event in events]
imported = sorted(set(sys.modules) - loaded)
after = {table: count(client, table) for table in tables}
print(json.dumps({
    "before": before, "primed": primed, "after": after, "pools": pools,
    "routes_missing": routes, "wings_missing": wings, "families_missing": families,
    "statuses": [reply["statusCode"] for reply in replies], "imported": imported,
}))
"""


def event(method: str, path: str, user: str, body: Any = None) -> dict[str, Any]:
    front = Front(lambda event, context: {})
    matched = front.match(method, path.split("?", maxsplit=1)[0])
    assert matched is not None
    route, params = matched
    headers = {"authorization": f"Bearer {user}"}
    if body is not None:
        headers["content-type"] = "application/json"
    return front.event(
        route,
        params=params,
        target=path,
        headers=headers,
        body=json.dumps(body).encode() if body is not None else b"",
        context={"sub": user, "via": "jwt", "scope": "write", "token_id": ""},
    )


def restored(events: list[dict[str, Any]], tables: list[str]) -> dict[str, Any]:
    task = os.environ.get("KAKEIBO_TASK")
    command = (
        [sys.executable, "-I", "-S", "-c", CHILD, task] if task else [sys.executable, "-c", CHILD, str(ROOT / "src")]
    )
    done = subprocess.run(
        command, input=json.dumps([events, tables]), capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_a_restored_instance_s_first_requests_import_nothing_and_priming_wrote_nothing(
    own_store: Store, user: str
) -> None:
    # Given a ledger with an account, on tables of the test's own
    assert (
        Client(user).post("/accounts", {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 1000}).status
        == 201
    )
    tables = [own_store.core.table, os.environ["IDEMPOTENCY_TABLE_NAME"]]
    # When a fresh instance is primed before its snapshot, restored, and serves a first POST /slips
    # (with an Idempotency-Key), another one, and GETs of the ledger's slips and of the account
    slip = {"date": "2026-04-01", "kind": "expense", "amount": 300, "account": "cash", "category": "食費"}
    events = [
        event("POST", "/slips", user, slip),
        event("POST", "/slips", user, {**slip, "amount": 200}),
        event("GET", "/slips", user),
        event("GET", "/accounts/cash", user),
    ]
    events[0]["headers"]["idempotency-key"] = "first-slip"
    out = restored(events, tables)
    # Then every route family and model wing was imported, and every store family built, before the snapshot
    assert out["routes_missing"] == [] and out["wings_missing"] == [] and out["families_missing"] == []
    # And priming opened no connection and wrote nothing (only the requests after the restore did)
    assert out["pools"] == 0
    assert out["primed"] == out["before"]
    assert out["statuses"] == [201, 201, 200, 200]
    # And the restored instance's first requests imported nothing
    assert out["imported"] == []
    # And nothing priming did is in the tables: they hold the account's items, then the two slips'
    client = boto3.client("dynamodb", endpoint_url=os.environ["DYNAMODB_ENDPOINT_URL"], region_name="us-east-1")
    priming = client.query(
        TableName=own_store.core.table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "LEDGER#snapstart-priming"}},
    )
    assert priming["Count"] == 0
    assert out["after"][tables[1]] == out["before"][tables[1]] + 1  # the first slip's idempotency record
    assert out["after"][tables[0]] > out["before"][tables[0]]
