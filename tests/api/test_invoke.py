"""`make invoke EVENT=...`: the sample events of events/ through the built handler against local tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import requests

from kakeibo.local.dynamodb import free_port
from tests.api.test_artifact import ROOT, TASK, built
from tests.api.test_run import running
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


def users_shell() -> dict[str, str]:
    """A user's shell: this environment without the AWS settings the test session gives itself (no
    region, no credentials), as `make run` and `make invoke` meet it on a fresh machine."""
    return {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}


def make_invoke(event: Path, data_dir: Path) -> list[dict[str, Any]]:
    """`make invoke EVENT=...` from a user's shell: the responses it printed."""
    done = subprocess.run(
        ["make", "--no-print-directory", "invoke", f"EVENT={event}", f"DATA_DIR={data_dir}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
        env=users_shell(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [reply["response"] for reply in replies(done.stdout)]


def test_make_invoke_while_make_run_runs_answers_as_the_running_server(built: Path, tmp_path: Path) -> None:
    # Given `make run` started from a user's shell (no AWS region, no credentials), its webhooks
    # allowed to call loopback
    port = free_port()
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": "Bearer local"}  # the events' caller
    settings = {"WEBHOOK_ALLOW_LOOPBACK": "1", "FUNCTION_CONCURRENCY": "1"}
    with running(tmp_path, port, free_port(), environ=users_shell(), **settings):
        # When `make invoke` runs an event on its data directory, from such a shell too
        (made,) = make_invoke(EVENTS_DIR / "create_ledger.json", tmp_path)
        # Then the built function answers it (no NoRegionError), writing to the running server's tables
        assert made["statusCode"] == 201, made
        listed = requests.get(f"{base}/ledgers", headers=auth, timeout=60).json()["items"]
        assert made["body"]["id"] in [ledger["id"] for ledger in listed]
        # When an event makes a webhook to loopback, which the running server's function accepts
        event = json.loads((EVENTS_DIR / "create_webhook.json").read_text(encoding="utf-8"))
        event["rawPath"] = event["requestContext"]["http"]["path"] = "/ledgers/me/webhooks"
        event["pathParameters"] = {"ledger": "me"}
        event["body"] = json.dumps({"url": "http://127.0.0.1:9/hook"})
        (tmp_path / "loopback_webhook.json").write_text(json.dumps(event), encoding="utf-8")
        (hooked,) = make_invoke(tmp_path / "loopback_webhook.json", tmp_path)
        # Then the invoked function has the running server's setting too: the webhook is made
        assert hooked["statusCode"] == 201, hooked
        hooks = requests.get(f"{base}/ledgers/me/webhooks", headers=auth, timeout=60).json()["items"]
        assert [hook["url"] for hook in hooks] == ["http://127.0.0.1:9/hook"]
