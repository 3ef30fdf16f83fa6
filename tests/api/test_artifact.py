"""The local front serving the function as built (`make run ARTIFACT=1`, KAKEIBO_TASK): its instances
import the sam build directory alone, with the standard library, as Lambda's /var/task."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import time
from pathlib import Path

import pytest
import requests

from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.front import Front, FunctionFailed
from kakeibo.local.instances import Pool, local_environment
from kakeibo.local.s3 import S3Local
from tests.api.conftest import serving
from tests.api.test_run import running
from tests.integration.test_webhooks import Receiver

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "build" / f"sam-{platform.machine().replace('aarch64', 'arm64')}" / "LedgerFunction"


@pytest.fixture(scope="module")
def built() -> Path:
    done = subprocess.run(["make", "--no-print-directory", "host-package"], cwd=ROOT, capture_output=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return TASK


def test_an_instance_imports_nothing_but_its_task_directory(
    tmp_path: Path, dynamodb_local: DynamoDBLocal, s3_local: S3Local
) -> None:
    # Given an empty directory as the function's /var/task (the sources are installed in this venv)
    env = local_environment(dynamodb_local.endpoint, s3_local.endpoint)
    # Then its instance cannot start: it finds no handler, the venv's copy is not on its path
    with pytest.raises(FunctionFailed, match="could not start"):
        Pool(1, env, task=tmp_path).start()


def test_the_built_function_stores_a_receipt(
    built: Path, dynamodb_local: DynamoDBLocal, s3_local: S3Local, user: str
) -> None:
    # Given the front on one instance of the built LedgerFunction
    pool = Pool(1, local_environment(dynamodb_local.endpoint, s3_local.endpoint), task=built).start()
    try:
        with serving(Front(pool)) as url:
            auth = {"Authorization": f"Bearer {user}"}
            # When a receipt is claimed (a presigned PUT, signed with S3's model), uploaded and completed
            data = b"a receipt from the built function"
            digest = hashlib.sha256(data).hexdigest()
            claim = {"sha256": digest, "size": len(data), "content_type": "image/jpeg"}
            claimed = requests.post(f"{url}/receipts", json=claim, headers=auth, timeout=30)
            assert claimed.status_code == 201, claimed.text
            upload = claimed.json()["upload"]
            put = requests.request(upload["method"], upload["url"], data=data, headers=upload["headers"], timeout=30)
            assert put.status_code == 200, put.text
            completed = requests.post(f"{url}/receipts/{digest}/complete", headers=auth, timeout=30)
            # Then it is stored: no 500 for a botocore model missing from the package
            assert completed.status_code == 200, completed.text
    finally:
        pool.close()


def test_make_run_artifact_delivers_webhooks_from_the_built_sender(built: Path, tmp_path: Path) -> None:
    # Given `make run ARTIFACT=1` (the front on the built LedgerFunction, the sender on the built
    # WebhookSenderFunction) and a receiver on this machine
    receiver = Receiver()
    port = free_port()
    auth = {"Authorization": "Bearer hanako"}
    try:
        with running(
            tmp_path, port, free_port(), "--task", str(built), WEBHOOK_ALLOW_LOOPBACK="1", FUNCTION_CONCURRENCY="1"
        ) as (_, output):
            output.wait_for(rf"the webhook sender as built: {built.parent / 'WebhookSenderFunction'}")
            url = f"http://127.0.0.1:{port}"
            made = requests.post(f"{url}/ledgers/me/webhooks", json={"url": receiver.url}, headers=auth, timeout=30)
            assert made.status_code == 201, made.text
            # When a slip is written
            account = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 1000}
            assert requests.post(f"{url}/accounts", json=account, headers=auth, timeout=30).status_code == 201
            slip = {"date": "2026-11-27", "kind": "expense", "amount": 480, "account": "cash", "category": "food"}
            assert requests.post(f"{url}/slips", json=slip, headers=auth, timeout=30).status_code == 201
            # Then the built sender POSTs both entries to the receiver, in order, from the stream and the queue
            deadline = time.monotonic() + 60
            while len(set(receiver.seqs())) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            bodies = [json.loads(body) for _, body in receiver.received]
            assert [b["seq"] for b in bodies][:2] == sorted({b["seq"] for b in bodies})[:2], bodies
            assert any(c["type"] == "slip" for b in bodies for c in b["changes"]), bodies
    finally:
        receiver.close()
