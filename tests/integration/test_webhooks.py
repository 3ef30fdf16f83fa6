"""Webhooks on DynamoDB Local's stream: every journal entry POSTed to a local receiver, signed, in
seq order, at least once — through the same sender code AWS runs from DynamoDB Streams."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from kakeibo import webhooks
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.streams import StreamReader
from kakeibo.sender import Sender
from kakeibo.store import get_store
from tests.conftest import reset_caches
from tests.events import Client

WAIT_SECONDS = 90.0  # generous: the machine is shared; nothing here measures speed


class Receiver:
    """An HTTP receiver on 127.0.0.1 that records what it is sent and can be told to fail."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.fail_next = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    failing = receiver.fail_next > 0
                    if failing:
                        receiver.fail_next -= 1
                    else:
                        receiver.received.append((dict(self.headers.items()), body))
                self.send_response(500 if failing else 204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def seqs(self) -> list[int]:
        with self.lock:
            return [json.loads(body)["seq"] for _, body in self.received]

    def wait_for(self, count: int) -> None:
        """Until `count` different entries arrived (one may come twice: at least once)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while len(set(self.seqs())) < count and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(set(self.seqs())) >= count, self.seqs()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def own_tables(local_env: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Tables of this test's own (a stream holding only its records), loopback webhooks allowed."""
    suffix = uuid.uuid4().hex[:8]
    names = {"LedgerTable": f"LedgerTable-wh-{suffix}", "IdempotencyTable": f"IdempotencyTable-wh-{suffix}"}
    create_tables(boto3.client("dynamodb", endpoint_url=local_env), names)
    monkeypatch.setenv("TABLE_NAME", names["LedgerTable"])
    monkeypatch.setenv("IDEMPOTENCY_TABLE_NAME", names["IdempotencyTable"])
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
    reset_caches()
    yield names["LedgerTable"]
    reset_caches()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def _reader(endpoint: str, table: str, tmp_path: Path) -> tuple[StreamReader, threading.Event]:
    sender = Sender(get_store(), sleep=lambda s: time.sleep(min(s, 0.05)))
    reader = StreamReader(endpoint, table, tmp_path / "checkpoint.json", sender=sender, backoff=0.05)
    stop = threading.Event()
    threading.Thread(target=reader.run, args=(stop,), daemon=True).start()
    return reader, stop


def _household(owner: Client) -> str:
    ledger = str(owner.post("/ledgers", {"name": "山田家"}).json["id"])
    cash = {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 100_000}
    assert owner.post(f"/ledgers/{ledger}/accounts", cash).status == 201
    return ledger


def test_every_entry_is_delivered_signed_and_in_order(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path
) -> None:
    # Given a household with a webhook to a local receiver
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = _household(owner)
    made = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url, "description": "テスト"})
    assert made.status == 201 and made.json["secret"].startswith("whsec_")
    secret, hook = made.json["secret"], made.json["id"]
    assert "secret" not in owner.get(f"/ledgers/{ledger}/webhooks").json["items"][0]
    _, stop = _reader(local_env, own_tables, tmp_path)
    try:
        # When five slips are recorded
        for day in range(1, 6):
            lunch = {"date": f"2026-11-0{day}", "kind": "expense", "amount": 100 * day, "account": "cash"}
            assert owner.post(f"/ledgers/{ledger}/slips", lunch).status == 201
        # Then the receiver gets their five entries, in seq order, each signed with the secret
        receiver.wait_for(5)
    finally:
        stop.set()
    first = made.json["delivered"]  # the webhook's own creation: what follows it is sent
    assert receiver.seqs() == list(range(first + 1, first + 6))
    for headers, body in receiver.received:
        entry = json.loads(body)
        assert headers["Kakeibo-Event-Id"] == f"{ledger}:{entry['seq']}" and entry["ledger"] == ledger
        assert webhooks.verify(secret, body, headers["Kakeibo-Signature"], now=time.time())
        assert not webhooks.verify("whsec_other", body, headers["Kakeibo-Signature"], now=time.time())
        assert entry["changes"][0]["type"] == "slip" and entry["changes"][0]["op"] == "create"
    # And its deliveries say so
    deliveries = owner.get(f"/ledgers/{ledger}/webhooks/{hook}/deliveries").json["items"]
    assert sorted(d["seq"] for d in deliveries) == receiver.seqs() and all(d["delivered"] for d in deliveries)


def test_a_failing_receiver_gets_the_entry_again_and_order_is_kept(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path
) -> None:
    # Given a webhook whose receiver answers 500 to the first four POSTs
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = _household(owner)
    hook = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json
    receiver.fail_next = 4
    for day in (1, 2, 3):
        lunch = {"date": f"2026-11-0{day}", "kind": "expense", "amount": 100, "account": "cash"}
        assert owner.post(f"/ledgers/{ledger}/slips", lunch).status == 201
    # When the sender runs
    _, stop = _reader(local_env, own_tables, tmp_path)
    try:
        receiver.wait_for(3)
    finally:
        stop.set()
    # Then each entry arrived once it was accepted, in order, none skipped
    first = hook["delivered"]
    assert receiver.seqs() == [first + 1, first + 2, first + 3]
    deliveries = owner.get(f"/ledgers/{ledger}/webhooks/{hook['id']}/deliveries").json["items"]
    by_seq = {d["seq"]: d for d in deliveries}
    assert by_seq[first + 1]["attempts"] >= 2 and by_seq[first + 1]["delivered"]
    assert sum(d["attempts"] for d in deliveries) == 3 + 4


def test_records_that_are_not_journal_entries_are_ignored(own_tables: str) -> None:
    # Given a stream batch holding a slip item's insert and a journal entry's modify (undo marks)
    key = {"PK": {"S": "LEDGER#x"}, "SK": {"S": "SLIP#2026-11-01#A"}}
    slip = {"eventName": "INSERT", "dynamodb": {"Keys": key, "NewImage": key}}
    modify = {"eventName": "MODIFY", "dynamodb": {"Keys": {"PK": {"S": "LEDGER#x"}, "SK": {"S": "CHG#000000000001"}}}}

    class NoStore:
        def webhooks(self, ledger: str) -> list[Any]:
            raise AssertionError("no record of these may reach the webhooks")

    # When the sender handles it, then nothing is read or sent, and nothing fails
    assert Sender(NoStore()).handle({"Records": [slip, modify]}) == {"batchItemFailures": []}  # type: ignore[arg-type]


def test_the_sender_killed_mid_batch_delivers_everything_after_restart(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path
) -> None:
    # Given a webhook and forty entries waiting
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = _household(owner)
    first = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json["delivered"]
    for n in range(40):
        lunch = {"date": "2026-11-03", "kind": "expense", "amount": 1 + n, "account": "cash"}
        assert owner.post(f"/ledgers/{ledger}/slips", lunch).status == 201
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    command = [sys.executable, "-m", "kakeibo.local.streams", "--endpoint", local_env, "--table", own_tables,
               "--checkpoint", str(tmp_path / "checkpoint.json"), "--backoff", "0.1"]  # fmt: skip
    # When the sender process is killed with -9 while it delivers
    process = subprocess.Popen(command, env=env)
    try:
        receiver.wait_for(5)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert len(receiver.seqs()) < 40 or receiver.seqs()[-1] == first + 40
    # And started again
    process = subprocess.Popen(command, env=env)
    try:
        receiver.wait_for(40)
    finally:
        process.terminate()
        process.wait(timeout=30)
    # Then every entry arrived, in order, none skipped (one may come twice: at least once)
    seen = receiver.seqs()
    assert sorted(set(seen)) == list(range(first + 1, first + 41))
    assert seen == sorted(seen) and len(seen) - len(set(seen)) <= 1


@pytest.mark.parametrize(
    "url",
    [
        "not a url",
        "ftp://example.com/hook",
        "http://example.com/hook",
        "https://10.0.0.1/hook",
        "https://192.168.1.10/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[fd00:ec2::254]/hook",
        "https://user:pass@93.184.215.14/hook",
        "http://127.0.0.2:8080/hook",
    ],
)
def test_a_webhook_url_that_is_not_public_https_is_422(own_tables: str, url: str) -> None:
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = str(owner.post("/ledgers", {"name": "山田家"}).json["id"])
    refused = owner.post(f"/ledgers/{ledger}/webhooks", {"url": url}, headers={"Accept-Language": "ja"})
    assert refused.status == 422 and refused.json["code"] == "validation_error"
    assert owner.get(f"/ledgers/{ledger}/webhooks").json["items"] == []


def test_only_an_owner_manages_webhooks(own_tables: str, receiver: Receiver) -> None:
    # Given a household with an editor, and a stranger
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = str(owner.post("/ledgers", {"name": "山田家"}).json["id"])
    token = owner.post(f"/ledgers/{ledger}/invitations", {"role": "editor"}).json["token"]
    editor = Client(f"taro-{uuid.uuid4().hex[:8]}")
    assert editor.post(f"/invitations/{token}/accept").status == 200
    stranger = Client(f"stranger-{uuid.uuid4().hex[:8]}")
    # Then the editor is refused (403), the stranger sees nothing (404), the owner creates and deletes
    assert editor.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).status == 403
    assert stranger.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).status == 404
    hook = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json["id"]
    assert editor.delete(f"/ledgers/{ledger}/webhooks/{hook}").status == 403
    assert owner.delete(f"/ledgers/{ledger}/webhooks/{hook}").status == 204
    assert owner.delete(f"/ledgers/{ledger}/webhooks/{hook}").status == 404
    # And the journal shows both changes, without the secret
    entries = owner.get(f"/ledgers/{ledger}/changes").json["changes"]
    hooks = [c for e in entries for c in e["changes"] if c["type"] == "webhook"]
    assert [c["op"] for c in hooks] == ["create", "delete"]
    assert "secret" not in json.dumps(hooks)
