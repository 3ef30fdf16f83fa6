"""Every code block of the README runs as it is written, against the local front: the curl
walk-through from "Use it with curl" on as one shell session (as a reader pastes it, block after
block), the Python and JavaScript snippets with the services they need (the MCP section's
configuration and conversation: tests/api/test_mcp.py). A block that needs AWS,
Docker or a server of its own is listed in NOT_RUN with the reason, and a new block must be one or
the other: a block nobody runs is a block that can go wrong unseen."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kakeibo.local.cognito import UserPool
from kakeibo.local.dynamodb import DynamoDBLocal
from kakeibo.local.front import Front
from kakeibo.local.instances import Pool, authorizer_pool, local_environment
from kakeibo.local.s3 import S3Local
from tests.api.conftest import serving
from tests.api.test_generated_clients import python_client, served_spec  # noqa: F401 - fixtures
from tests.api.test_mcp import readme_blocks as mcp_blocks

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
# The people of the walk-through, made unique per run (ledgers are per user)
PEOPLE = ("hanako", "taro", "jiro", "grandma")
# Blocks not run here, by how their first line starts: why, and what runs them instead
NOT_RUN = {
    "make run": "starts the API itself: what this test runs against (tests/api/test_run.py runs make run)",
    "make test": "runs this very suite",
    "make deploy": "deploys to AWS (tests/unit/test_template_deploy.py checks the template and package; make smoke "
    "is run against the local front)",
    "sam build && sam local start-api --config-env local": "needs Docker",
    "STACK=kakeibo-api": "needs a deployed stack and AWS credentials",
    "DDB_PORT=${DDB_PORT:-8000}": "starts a table browser that serves until stopped",
    ".venv/bin/pip install -q -e '.[mcp]'": "installs the MCP SDK, which `make test` installs with the dev tools",
    ".venv/bin/pip install -q -e '.[dev]'": (
        "generates both clients: tests/api/test_generated_clients.py runs the same generators on the served document"
    ),
    "import createClient from 'openapi-fetch';": (
        "compiled with tsc and run by tests/api/test_generated_clients.py (the README's TypeScript example)"
    ),
    "template.yaml        SAM:": "the layout: not code",
}


def blocks() -> list[tuple[str, str, int]]:
    """(language, code, offset in the README) of every fenced block, in order."""
    return [(m.group(1), m.group(2), m.start()) for m in BLOCK.finditer(README)]


def _first_line(code: str) -> str:
    return code.split("\n", 1)[0]


def _not_run(code: str) -> str | None:
    """The NOT_RUN entry a block is, if any."""
    first = _first_line(code)
    starts = [start for start in NOT_RUN if first == start or first.startswith(start + " ")]
    return max(starts, key=len) if starts else None


def _walkthrough() -> list[str]:
    """The shell blocks from "Use it with curl" on that a reader pastes into one terminal."""
    start = README.index("## Use it with curl")
    return [code for lang, code, at in blocks() if lang == "bash" and at > start and _not_run(code) is None]


@pytest.fixture(scope="module")
def readme_front(dynamodb_local: DynamoDBLocal, s3_local: S3Local, user_pool: UserPool) -> Iterator[str]:
    """The front as `WEBHOOK_ALLOW_LOOPBACK=1 make run` serves it (the README's webhook receiver is
    on 127.0.0.1), on two function instances, with the user pool's authorizer."""
    env = {**local_environment(dynamodb_local.endpoint, s3_local.endpoint), "WEBHOOK_ALLOW_LOOPBACK": "1"}
    pool = Pool(2, env).start()
    gate = authorizer_pool(1, {**env, **user_pool.authorizer_environment()})
    try:
        with serving(Front(pool, authorizer=gate.start())) as url:
            yield url
    finally:
        gate.close()
        pool.close()


@pytest.fixture(scope="module")
def people() -> dict[str, str]:
    run = uuid.uuid4().hex[:8]
    return {name: f"{name}-{run}" for name in PEOPLE}


def _as(text: str, people: dict[str, str]) -> str:
    return re.sub(r"\b(" + "|".join(PEOPLE) + r")\b", lambda m: people[m.group(1)], text)


def test_every_block_is_run_or_says_why_not() -> None:
    # Given the README's code blocks
    found = blocks()
    # Then each one is run by this test, or listed with the reason it is not
    runnable = set(_walkthrough()) | {c for lang, c, _ in found if lang in ("python", "js")}
    runnable |= set(mcp_blocks())  # the MCP client's configuration and first conversation: tests/api/test_mcp.py
    unaccounted = [_first_line(c) for _, c, _ in found if c not in runnable and _not_run(c) is None]
    assert not unaccounted, unaccounted
    # And nothing is listed that is no longer there
    assert set(NOT_RUN) <= {_not_run(c) for _, c, _ in found}


@pytest.fixture(scope="module")
def walked(
    readme_front: str,
    people: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    user_pool: UserPool,
    s3_local: S3Local,
) -> str:
    """The curl walk-through, run once as one shell session: its output."""
    script = "set -euo pipefail\n" + "\n".join(_as(code, people) for code in _walkthrough())
    script = script.replace("API=http://127.0.0.1:3000", f"API={readme_front}")
    work = tmp_path_factory.mktemp("readme")
    (work / "walkthrough.sh").write_text(script, encoding="utf-8")
    # what make run leaves in DATA_DIR (.kakeibo) for the sign-in: run.json and the codes it printed
    (work / ".kakeibo").mkdir()
    (work / ".kakeibo" / "run.json").write_text(json.dumps({"user_pool": user_pool.describe()}), encoding="utf-8")
    assert s3_local.codes is not None
    (work / ".kakeibo" / "confirmation-codes.txt").symlink_to(s3_local.codes)
    log = work / "walkthrough.log"
    with log.open("w", encoding="utf-8") as sink:  # a file: the receiver left in the background keeps it open
        shell = subprocess.Popen(
            ["bash", str(work / "walkthrough.sh")],
            cwd=work,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the webhook receiver it starts in the background goes with it
        )
        try:
            shell.wait(timeout=600)
        finally:
            os.killpg(shell.pid, signal.SIGTERM)  # the process group this test started, receiver included
    out = log.read_text(encoding="utf-8")
    assert shell.returncode == 0, out[-6000:]
    return out


def test_the_curl_walkthrough_runs_as_written(walked: str) -> None:
    # Then no command met a route that does not exist, a failing function or a server error
    for sign in ('{"message":"Not Found"}', '"code": "internal_error"', '"code":"internal_error"', "bad_gateway"):
        assert sign not in walked, walked[-6000:]
    # And the steps whose answers the README shows answered so
    assert '"code":"insufficient_funds"' in walked.replace(" ", "")
    assert "lines_sum_mismatch" in walked
    assert re.search(r'"state":\s*"stored"', walked), "the receipt was stored"
    # And the person signed in with the local pool reached her own (empty) ledger; a token altered is refused
    signed_in = (
        r'"UserConfirmed":\s*false.{0,400}?\{\}\s*\{"items":\s*\[\]\}\s*'
        r'www-authenticate: Bearer realm="kakeibo", error="invalid_token", '
        r'error_description="the token\'s signature is invalid"'
    )
    assert re.search(signed_in, walked, re.DOTALL | re.IGNORECASE), walked[:3000]
    # And her read token read her ledger, was refused a write, and is listed without its secret
    assert '"code":"token_scope"' in walked.replace(" ", ""), walked[:4000]
    assert re.search(r'"name":\s*"家計簿シート",\s*"scope":\s*"read"', walked), walked[:4000]
    attached = re.findall(r'"slips":\s*\[("[^"]+")\]', walked)
    assert attached, "the receipt is on the slip it was attached to"
    # the bank's row debiting the card company on the card's payment date is that card's payment
    assert re.search(r'"card_payments":\s*\[\{"line":\s*2,\s*"card":\s*"card"', walked), "the card's payment"


def test_the_python_journal_client_snippet_runs(
    walked: str,
    python_client: ModuleType,  # noqa: F811 - the fixture imported above
    readme_front: str,
    people: dict[str, str],
) -> None:
    # Given the README's Python client loop, pointed at this server, after the walk-through
    (code,) = [c for lang, c, _ in blocks() if lang == "python" and "kakeibo_client" in c]
    code = _as(code.replace("http://127.0.0.1:3000", readme_front), people)
    # When it runs with the generated client
    printed = io.StringIO()
    with redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own code
    # Then it prints every journal entry of the walk-through, each with its changes
    lines = printed.getvalue().splitlines()
    assert len(lines) > 10 and all(re.match(r"\d+ \S+ \[", line) for line in lines), lines[:5]
    assert any("('slip', 'create'" in line for line in lines), lines[:5]


def test_the_webhook_signature_snippet_verifies_a_delivery() -> None:
    # Given the README's verification function
    (code,) = [c for lang, c, _ in blocks() if lang == "python" and "def verified" in c]
    scope: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own code
    verified = scope["verified"]
    # When a body is signed as the sender signs it
    secret, body, t = "whsec_test", b'{"seq":1}', str(int(time.time()))
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    # Then it is verified, and neither another body nor an old timestamp is
    assert verified(secret, body, f"t={t},v1={mac}")
    assert not verified(secret, b'{"seq":2}', f"t={t},v1={mac}")
    old = str(int(t) - 3600)
    stale = hmac.new(secret.encode(), f"{old}.".encode() + body, hashlib.sha256).hexdigest()
    assert not verified(secret, body, f"t={old},v1={stale}")


def test_the_javascript_save_snippet_saves_once(
    readme_front: str, people: dict[str, str], tmp_path: Path, walked: str
) -> None:
    # Given the README's save() for a web client, with fetch as Node has it
    (code,) = [c for lang, c, _ in blocks() if lang == "js"]
    user = people["hanako"]
    slip = {"date": "2026-11-09", "kind": "expense", "amount": 120, "account": "cash", "category": "食費"}
    script = (
        f"const API = {json.dumps(readme_front)};\nconst token = {json.dumps(user)};\n{code}\n"
        f"const res = await save({json.dumps(slip)});\n"
        "console.log(res.status, (await res.json()).amount);\n"
    )
    (tmp_path / "save.mjs").write_text(script, encoding="utf-8")
    # When it saves a slip
    ran = subprocess.run(["node", str(tmp_path / "save.mjs")], capture_output=True, text=True, timeout=120, check=False)
    # Then the slip is created
    assert ran.returncode == 0 and ran.stdout.split() == ["201", "120"], ran.stdout + ran.stderr


def test_the_python_token_snippet_reads_the_ledger_with_a_token(
    readme_front: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a person with an account and a read token of theirs
    import requests

    who = {"Authorization": f"Bearer script-{uuid.uuid4().hex[:8]}"}  # a person of their own
    wallet = {"id": "wallet", "name": "財布", "type": "cash", "opening_balance": 1200}
    made = requests.post(f"{readme_front}/accounts", json=wallet, headers=who, timeout=30)
    assert made.status_code == 201, made.text
    sent = {"name": "script", "scope": "read"}
    token = requests.post(f"{readme_front}/me/tokens", json=sent, headers=who, timeout=30)
    assert token.status_code == 201, token.text
    (code,) = [c for lang, c, _ in blocks() if lang == "python" and "def kakeibo" in c]
    # When the README's snippet runs with the API's URL and the token
    monkeypatch.setenv("KAKEIBO_API", readme_front)
    monkeypatch.setenv("KAKEIBO_TOKEN", token.json()["token"])
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own code
    # Then it printed the person's account with its balance
    assert capsys.readouterr().out.splitlines() == ["財布 1200"]
