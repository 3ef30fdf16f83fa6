"""`make invoke EVENT=...`: the sample events of events/ through the built handler against local tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kakeibo.local.dynamodb import DynamoDBLocal
from kakeibo.local.s3 import S3Local
from tests.api.test_artifact import ROOT, TASK, built
from tests.events import EVENTS_DIR

__all__ = ["built"]  # the fixture, shared with test_artifact


def replies(stdout: str) -> list[dict[str, Any]]:
    """The JSON documents `invoke` printed, one after another."""
    decoder, out, at = json.JSONDecoder(), [], 0
    while (at := stdout.find("{", at)) != -1:
        value, at = decoder.raw_decode(stdout, at)
        out.append(value)
    return out


def test_every_sample_event_is_answered_by_the_built_function(built: Path, tmp_path: Path) -> None:
    # Given every event of events/ (the schedule's too), and no `make run` on a new data directory
    events = sorted(str(p) for p in EVENTS_DIR.rglob("*.json"))
    # When they are invoked in turn on the built LedgerFunction, on tables started for the invocation
    done = subprocess.run(
        [sys.executable, "-m", "kakeibo.local", "invoke", "--task", str(TASK), "--data-dir", str(tmp_path), *events],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        cwd=ROOT,
    )
    # Then the function answered each one (it raised for none), and none with a server error
    assert done.returncode == 0, done.stderr[-3000:]
    answered = {reply["event"]: reply["response"] for reply in replies(done.stdout)}
    assert sorted(answered) == events
    # (the daily job's event answers with its run's summary, not an HTTP status)
    failing = {e: r.get("statusCode") for e, r in answered.items() if int(r.get("statusCode", 200)) >= 500}
    assert failing == {}, failing
    # And a route that reads what an earlier event wrote finds it (the events share the tables)
    assert answered[str(EVENTS_DIR / "get_account.json")]["statusCode"] == 200


def test_make_invoke_uses_the_tables_of_a_running_make_run(
    built: Path, tmp_path: Path, dynamodb_local: DynamoDBLocal, s3_local: S3Local
) -> None:
    # Given a `make run` on a data directory (its run.json names its DynamoDB Local and S3 server)
    run = {"pid": os.getpid(), "dynamodb": dynamodb_local.endpoint, "s3": s3_local.endpoint}
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    # When `make invoke` runs an event on that data directory
    done = subprocess.run(
        ["make", "--no-print-directory", "invoke", "EVENT=events/create_ledger.json", f"DATA_DIR={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    # Then it prints the function's response, written to those tables (nothing started of its own)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (reply,) = replies(done.stdout)
    assert reply["response"]["statusCode"] == 201, reply
    assert not (tmp_path / "dynamodb").exists()
    listed = subprocess.run(
        ["make", "--no-print-directory", "invoke", "EVENT=events/list_ledgers.json", f"DATA_DIR={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    names = [item["id"] for item in replies(listed.stdout)[0]["response"]["body"]["items"]]
    assert reply["response"]["body"]["id"] in names
