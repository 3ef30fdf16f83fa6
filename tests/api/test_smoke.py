"""`make smoke API=... TOKEN=...` against the local front: every step passes and its scratch ledger is
deleted; a wrong URL or token is one clear line and a non-zero exit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kakeibo.local.dynamodb import free_port
from tests.api.conftest import Http

ROOT = Path(__file__).resolve().parents[2]


def smoke(api: str, token: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "smoke", f"API={api}", f"TOKEN={token}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_smoke_passes_every_step_on_the_local_front_and_leaves_no_ledger(http: Http, front_url: str, user: str) -> None:
    # When make smoke checks the local front as a user
    done = smoke(front_url, user)
    # Then every step is printed as passed, the scratch ledger's deletion last, and it exits 0
    assert done.returncode == 0, done.stdout + done.stderr
    steps = [line for line in done.stdout.splitlines() if line.startswith("ok  ")]
    assert len(steps) == 12, done.stdout
    assert steps[-3:] == [
        "ok  read the scratch ledger (200)",
        "ok  delete the scratch ledger (202)",
        "ok  the scratch ledger is gone (404)",
    ], done.stdout
    assert done.stdout.rstrip().endswith("smoke passed")
    # And the user has no ledger left but their personal one: the scratch ledger was deleted
    ledgers = http.get("/ledgers").json()["items"]
    assert [ledger["id"] for ledger in ledgers] == ["me"], ledgers


def test_a_wrong_token_is_one_line_and_a_failure(front_url: str) -> None:
    # Given a token the authorizer refuses (an unsigned JWT without a readable payload)
    done = smoke(front_url, "not.a-valid.token")
    # Then make smoke fails after the health check, with one line naming the token
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()[:1]
    assert "401" in line and "TOKEN" in line, done.stderr


def test_a_wrong_url_is_one_line_and_a_failure() -> None:
    # Given a URL where nothing listens
    done = smoke(f"http://127.0.0.1:{free_port()}", "someone")
    # Then make smoke fails at once with one line naming the URL
    assert done.returncode != 0
    assert "no answer from" in done.stderr and "ApiUrl" in done.stderr, done.stderr


def test_smoke_passes_with_a_write_personal_token(http: Http, front_url: str) -> None:
    # Given a write token of the user (made signed in)
    made = http.post("/me/tokens", json={"name": "smoke", "scope": "write", "expires_in_days": 1})
    assert made.status_code == 201, made.text
    # When make smoke checks the local front with it
    done = smoke(front_url, made.json()["token"])
    # Then every step passes, as with a signed-in person
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("smoke passed")
