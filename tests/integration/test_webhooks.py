"""Webhooks on DynamoDB Local's stream: every journal entry POSTed to a local receiver, signed, in
seq order, at least once — through the same sender code AWS runs from DynamoDB Streams."""

from __future__ import annotations

import contextlib
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

from kakeibo.local.bootstrap import create_tables
from kakeibo.local.dynamodb import free_port
from kakeibo.local.s3 import S3Local
from kakeibo.local.sqs import QueuePoller, create_queues, sqs_client
from kakeibo.local.streams import StreamReader, retry_attempts
from kakeibo.services.webhooks import outbound
from kakeibo.services.webhooks.delivery import Sender
from kakeibo.store import get_store
from tests.conftest import reset_caches
from tests.events import Client

WAIT_SECONDS = 90.0  # generous: the machine is shared; nothing here measures speed


class Receiver:
    """An HTTP receiver on 127.0.0.1 that records what it is sent and can be told to fail."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.arrived: dict[int, float] = {}  # seq -> when it first arrived (monotonic)
        self.fail_next = 0
        self.down = False  # every POST answered 503
        self.hang = 0.0  # seconds each POST is held before its answer
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if receiver.hang:
                    time.sleep(receiver.hang)
                with receiver.lock:
                    failing = receiver.fail_next > 0 or receiver.down
                    if receiver.fail_next > 0:
                        receiver.fail_next -= 1
                    if not failing:
                        receiver.received.append((dict(self.headers.items()), body))
                        receiver.arrived.setdefault(json.loads(body)["seq"], time.monotonic())
                with contextlib.suppress(OSError):
                    self.send_response((503 if receiver.down else 500) if failing else 204)
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


@pytest.fixture(scope="module")
def own_queue_server() -> Iterator[str]:
    """A queue server of this module's own (moto's, as `make run` starts it), so that its queues and
    pollers share nothing with what earlier tests of the session left on the session's server."""
    server = S3Local(free_port()).start()
    try:
        yield server.endpoint
    finally:
        server.stop()


@pytest.fixture
def own_tables(local_env: str, own_queue_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Tables and queues of this test's own (a stream holding only its records), loopback webhooks
    allowed, a failing receiver retried within a second or so."""
    suffix = uuid.uuid4().hex[:8]
    names = {"LedgerTable": f"LedgerTable-wh-{suffix}", "IdempotencyTable": f"IdempotencyTable-wh-{suffix}"}
    create_tables(boto3.client("dynamodb", endpoint_url=local_env), names)
    monkeypatch.setenv("SQS_ENDPOINT_URL", own_queue_server)
    queues = create_queues(own_queue_server, suffix=f"-{suffix}")
    monkeypatch.setenv("TABLE_NAME", names["LedgerTable"])
    monkeypatch.setenv("IDEMPOTENCY_TABLE_NAME", names["IdempotencyTable"])
    monkeypatch.setenv("WEBHOOK_QUEUE_URL", queues["WebhookDeliveryQueue"])
    monkeypatch.setenv("WEBHOOK_DEAD_LETTER_URL", queues["WebhookDeadLetterQueue"])
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
    monkeypatch.setenv("WEBHOOK_RETRY_SECONDS", "0.2")
    monkeypatch.setenv("WEBHOOK_RETRY_MAX_SECONDS", "1")
    reset_caches()
    yield names["LedgerTable"]
    reset_caches()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def _reader(endpoint: str, table: str, tmp_path: Path) -> tuple[StreamReader, threading.Event]:
    """The sender as `make run` runs it: on the table's stream and on the delivery queue."""
    sender = Sender(get_store())
    reader = StreamReader(endpoint, table, tmp_path / "checkpoint.json", handler=sender.handle, backoff=0.05)
    stop = threading.Event()
    threading.Thread(target=reader.run, args=(stop,), daemon=True).start()
    QueuePoller(os.environ["SQS_ENDPOINT_URL"], os.environ["WEBHOOK_QUEUE_URL"], sender.handle).start(stop)
    return reader, stop


def _dead_letters() -> list[dict[str, Any]]:
    client = sqs_client(os.environ["SQS_ENDPOINT_URL"])
    found: list[dict[str, Any]] = []
    while True:
        got = client.receive_message(QueueUrl=os.environ["WEBHOOK_DEAD_LETTER_URL"], MaxNumberOfMessages=10)
        if not got.get("Messages"):
            return found
        found += [json.loads(m["Body"]) for m in got["Messages"]]


def _wait(condition: Any) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert condition()


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
        assert entry["personal"] is False
        assert outbound.verify(secret, body, headers["Kakeibo-Signature"], now=time.time())
        assert not outbound.verify("whsec_other", body, headers["Kakeibo-Signature"], now=time.time())
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
    # When the sender runs, until the webhook has caught up
    listed = f"/ledgers/{ledger}/webhooks"
    _, stop = _reader(local_env, own_tables, tmp_path)
    try:
        receiver.wait_for(3)
        _wait(lambda: owner.get(listed).json["items"][0]["delivered"] == hook["delivered"] + 3)
    finally:
        stop.set()
    # Then the webhook no longer shows the failures it got over: no last error, no retry pending
    caught_up = owner.get(listed).json["items"][0]
    assert caught_up["state"] == "active", caught_up
    assert (caught_up["last_error"], caught_up["failing_since"], caught_up["next_attempt_at"]) == (None, None, None)
    # And each entry arrived once it was accepted, in order, none skipped
    first = hook["delivered"]
    assert receiver.seqs() == [first + 1, first + 2, first + 3]
    deliveries = owner.get(f"/ledgers/{ledger}/webhooks/{hook['id']}/deliveries").json["items"]
    by_seq = {d["seq"]: d for d in deliveries}
    assert by_seq[first + 1]["attempts"] == 5 and by_seq[first + 1]["delivered"]
    assert sum(d["attempts"] for d in deliveries) == 3 + 4
    # And each attempt is kept: the four 500s before the 204
    assert [t["status"] for t in by_seq[first + 1]["tries"]] == [500, 500, 500, 500, 204]
    assert all(t["ms"] >= 0 and t["at"] for t in by_seq[first + 1]["tries"])


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
               "--checkpoint", str(tmp_path / "checkpoint.json"), "--backoff", "0.1",
               "--visibility-timeout", "5"]  # fmt: skip
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
    # Then every entry arrived (a message the killed sender held comes back after its visibility
    # timeout, its lease after LEASE_SECONDS), in order, none skipped (one may come twice: at least once)
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
    assert refused.status == 422 and refused.json["code"] == "webhook_url_refused"
    assert refused.json["reason"] in ("invalid_url", "not_https", "not_public")
    assert "Webhook" in refused.json["detail"] and refused.json["errors"][0]["loc"] == ["body", "url"]
    english = owner.post(f"/ledgers/{ledger}/webhooks", {"url": url})
    assert english.json["code"] == "webhook_url_refused" and english.json["detail"] != refused.json["detail"]
    assert owner.get(f"/ledgers/{ledger}/webhooks").json["items"] == []


@pytest.mark.parametrize(
    ("url", "reason", "says"),
    [
        ("http://example.com/hook", "not_https", "must use https (only a local server with WEBHOOK_ALLOW_LOOPBACK=1"),
        ("https://10.0.0.1/hook", "not_public", "private, loopback, link-local or metadata address"),
        ("https://169.254.169.254/latest", "not_public", "must reach a public one"),
        ("ftp://example.com/hook", "not_https", "must use https"),
        ("ws://example.com/hook", "not_https", "must use https"),
        ("mailto:hanako@example.com", "not_https", "must use https"),
        ("https:///hook", "invalid_url", "not a valid URL"),
        ("example.com/hook", "invalid_url", "not a valid URL"),
    ],
)
def test_a_refused_webhook_url_says_why(own_tables: str, url: str, reason: str, says: str) -> None:
    # Given an owner
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = str(owner.post("/ledgers", {"name": "山田家"}).json["id"])
    # When they give a URL a webhook may not call
    refused = owner.post(f"/ledgers/{ledger}/webhooks", {"url": url})
    # Then the answer names why, with its own code
    assert refused.status == 422 and refused.json["code"] == "webhook_url_refused"
    assert refused.json["reason"] == reason and says in refused.json["detail"]
    # And says the same in Japanese: a URL of another scheme than https is told to use https
    ja = owner.post(f"/ledgers/{ledger}/webhooks", {"url": url}, headers={"Accept-Language": "ja"})
    assert ja.json["reason"] == reason
    worded = {
        "not_https": "Webhook の URL は https にしてください",
        "invalid_url": "Webhook の URL が正しくありません",
        "not_public": "Webhook の URL がプライベート",
    }
    assert ja.json["detail"].startswith(worded[reason]), ja.json


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
    assert editor.post(f"/ledgers/{ledger}/webhooks/{hook}/resume").status == 403
    assert stranger.post(f"/ledgers/{ledger}/webhooks/{hook}/resume").status == 404
    assert owner.delete(f"/ledgers/{ledger}/webhooks/{hook}").status == 204
    assert owner.delete(f"/ledgers/{ledger}/webhooks/{hook}").status == 404
    # And the journal shows both changes, without the secret
    entries = owner.get(f"/ledgers/{ledger}/changes").json["changes"]
    hooks = [c for e in entries for c in e["changes"] if c["type"] == "webhook"]
    assert [c["op"] for c in hooks] == ["create", "delete"]
    assert "secret" not in json.dumps(hooks)


def test_one_receiver_down_delays_only_itself_and_gets_everything_in_order_when_back(
    own_tables: str, local_env: str, tmp_path: Path
) -> None:
    # Given two households, each with a webhook; X's receiver is down (it holds each POST 2 s, then 503)
    x_receiver, y_receiver = Receiver(), Receiver()
    x_receiver.down, x_receiver.hang = True, 2.0
    x_owner, y_owner = Client(f"x-{uuid.uuid4().hex[:8]}"), Client(f"y-{uuid.uuid4().hex[:8]}")
    x_ledger, y_ledger = _household(x_owner), _household(y_owner)
    x_first = x_owner.post(f"/ledgers/{x_ledger}/webhooks", {"url": x_receiver.url}).json["delivered"]
    y_first = y_owner.post(f"/ledgers/{y_ledger}/webhooks", {"url": y_receiver.url}).json["delivered"]
    _, stop = _reader(local_env, own_tables, tmp_path)
    latencies: list[float] = []
    try:
        # When both record slips, one after the other, while X's receiver stays down
        for n in range(8):
            lunch = {"date": "2026-11-03", "kind": "expense", "amount": 100 + n, "account": "cash"}
            assert x_owner.post(f"/ledgers/{x_ledger}/slips", lunch).status == 201
            written = time.monotonic()
            assert y_owner.post(f"/ledgers/{y_ledger}/slips", lunch).status == 201
            y_receiver.wait_for(n + 1)
            latencies.append(y_receiver.arrived[y_first + n + 1] - written)
        # Then Y's entries all arrived, in order, each within a bounded wait (the worst is printed)
        assert y_receiver.seqs() == list(range(y_first + 1, y_first + 9))
        print(f"\nY's worst delivery while X's receiver was down: {max(latencies):.2f} s ({latencies})")
        assert x_receiver.seqs() == []
        # And X's deliveries show the failed attempts, with the receiver's status
        hook = x_owner.get(f"/ledgers/{x_ledger}/webhooks").json["items"][0]
        assert hook["state"] == "active" and hook["last_error"] == "HTTP 503"
        # When X's receiver comes back
        x_receiver.down, x_receiver.hang = False, 0.0
        # Then it gets every entry it missed, in seq order
        x_receiver.wait_for(8)
    finally:
        stop.set()
        x_receiver.close()
        y_receiver.close()
    seen = x_receiver.seqs()
    assert sorted(set(seen)) == list(range(x_first + 1, x_first + 9)) and seen == sorted(seen)


@pytest.mark.parametrize("how", ["removed", "demoted"])
def test_nothing_committed_after_the_creator_leaves_is_sent(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path, how: str
) -> None:
    # Given a household with two owners and an editor; the first owner made a webhook
    creator, other = Client(f"hanako-{uuid.uuid4().hex[:8]}"), Client(f"taro-{uuid.uuid4().hex[:8]}")
    editor = Client(f"jiro-{uuid.uuid4().hex[:8]}")
    ledger = _household(creator)
    for client, role in ((other, "owner"), (editor, "editor")):
        token = creator.post(f"/ledgers/{ledger}/invitations", {"role": role}).json["token"]
        assert client.post(f"/invitations/{token}/accept").status == 200
    hook = creator.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json
    _, stop = _reader(local_env, own_tables, tmp_path)
    written: list[int] = []
    writing = threading.Event()

    def write() -> None:
        n = 0
        while not writing.is_set():
            lunch = {"date": "2026-11-03", "kind": "expense", "amount": 1 + n, "account": "cash"}
            answer = editor.post(f"/ledgers/{ledger}/slips", lunch)
            assert answer.status == 201
            written.append(n)
            n += 1

    try:
        # When the editor keeps writing while the other owner removes (or demotes) the creator
        writer = threading.Thread(target=write)
        writer.start()
        receiver.wait_for(3)
        member = other.get(f"/ledgers/{ledger}").json["members"]
        version = next(m["version"] for m in member if m["user"] == creator.user)
        if how == "removed":
            assert (
                other.delete(f"/ledgers/{ledger}/members/{creator.user}", headers={"If-Match": f'"{version}"'}).status
                == 204
            )
        else:
            changed = other.put(f"/ledgers/{ledger}/members/{creator.user}", {"role": "viewer"},
                                headers={"If-Match": f'"{version}"'})  # fmt: skip
            assert changed.status == 200
        time.sleep(1.0)
        writing.set()
        writer.join()
        time.sleep(3.0)  # what the sender would still send, it would have sent by now
    finally:
        writing.set()
        stop.set()
    # Then the journal shows the webhook disabled in the very entry of the removal
    entries: list[dict[str, Any]] = []
    more = True
    while more:
        page = other.get(f"/ledgers/{ledger}/changes?since={entries[-1]['seq'] if entries else 0}").json
        entries, more = entries + page["changes"], page["has_more"]
    gone = next(e for e in entries if any(c["type"] == "member" and c["id"] == creator.user for c in e["changes"]
                                          if c["op"] != "create"))  # fmt: skip
    disabled = [c for c in gone["changes"] if c["type"] == "webhook"]
    assert disabled and disabled[0]["id"] == hook["id"] and disabled[0]["after"]["state"] == "disabled"
    # And no entry committed after it was sent
    assert receiver.seqs() and max(receiver.seqs()) < gone["seq"], (receiver.seqs(), gone["seq"])
    assert entries[-1]["seq"] > gone["seq"]  # the editor did write after it
    assert other.get(f"/ledgers/{ledger}/webhooks").json["items"][0]["state"] == "disabled"


def test_a_webhook_past_its_retry_budget_is_failing_until_resumed_from_its_cursor(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a webhook whose receiver is down, with a retry budget of two seconds
    monkeypatch.setenv("WEBHOOK_RETRY_BUDGET_SECONDS", "2")
    reset_caches()
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = _household(owner)
    hook = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json
    receiver.down = True
    _, stop = _reader(local_env, own_tables, tmp_path)
    try:
        for n in range(3):
            lunch = {"date": "2026-11-03", "kind": "expense", "amount": 1 + n, "account": "cash"}
            assert owner.post(f"/ledgers/{ledger}/slips", lunch).status == 201
        # When its budget runs out
        listed = f"/ledgers/{ledger}/webhooks"
        _wait(lambda: owner.get(listed).json["items"][0]["state"] == "failing")
        # Then it is failing, says why, and its entry is dead-lettered (deliveries and the queue)
        failing = owner.get(listed).json["items"][0]
        assert failing["last_error"] == "HTTP 503" and failing["delivered"] == hook["delivered"]
        deliveries = owner.get(f"{listed}/{hook['id']}/deliveries").json["items"]
        assert [d["dead_lettered"] for d in deliveries] == [True]
        assert deliveries[0]["seq"] == hook["delivered"] + 1 and len(deliveries[0]["tries"]) >= 2
        letters = _dead_letters()
        assert [(m["webhook"], m["seq"]) for m in letters] == [(hook["id"], hook["delivered"] + 1)]
        # When the receiver is back and an owner resumes the webhook
        receiver.down = False
        resumed = owner.post(f"{listed}/{hook['id']}/resume")
        assert resumed.status == 200 and resumed.json["state"] == "active", resumed.json
        assert owner.post(f"{listed}/{hook['id']}/resume").status == 409  # nothing more to resume
        # Then it gets everything from its cursor on, in order: the three slips and the resume itself
        receiver.wait_for(4)
    finally:
        stop.set()
    assert receiver.seqs()[:4] == list(range(hook["delivered"] + 1, hook["delivered"] + 5))


def test_a_stream_record_that_cannot_be_read_is_reported_then_dead_lettered(
    own_tables: str, local_env: str, receiver: Receiver, tmp_path: Path
) -> None:
    # Given a webhook, and a journal item on the stream that is not a readable entry, then a real one
    owner = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = _household(owner)
    hook = owner.post(f"/ledgers/{ledger}/webhooks", {"url": receiver.url}).json
    client = boto3.client("dynamodb", endpoint_url=local_env)
    client.put_item(TableName=own_tables, Item={"PK": {"S": "LEDGER#broken"}, "SK": {"S": "CHG#000000000001"}})
    lunch = {"date": "2026-11-03", "kind": "expense", "amount": 100, "account": "cash"}
    assert owner.post(f"/ledgers/{ledger}/slips", lunch).status == 201
    sender = Sender(get_store())
    reports: list[str] = []

    def handle(event: dict[str, Any]) -> dict[str, Any]:
        answer = sender.handle(event)
        reports.extend(f["itemIdentifier"] for f in answer["batchItemFailures"])
        return answer

    # When the sender reads the stream
    reader = StreamReader(local_env, own_tables, tmp_path / "checkpoint.json", handler=handle, backoff=0.05)
    stop = threading.Event()
    threading.Thread(target=reader.run, args=(stop,), daemon=True).start()
    QueuePoller(os.environ["SQS_ENDPOINT_URL"], os.environ["WEBHOOK_QUEUE_URL"], sender.handle).start(stop)
    try:
        receiver.wait_for(1)
    finally:
        stop.set()
    # Then the bad record was reported by each of the mapping's attempts (1 + MaximumRetryAttempts),
    # then described on the dead-letter queue, and the entry after it was delivered
    assert len(reports) == 1 + retry_attempts() and len(set(reports)) == 1
    letters = _dead_letters()
    assert [m["DDBStreamBatchInfo"]["startSequenceNumber"] for m in letters] == reports[:1]
    assert letters[0]["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert receiver.seqs() == [hook["delivered"] + 1]


@pytest.mark.parametrize("first", ["either", "the socket's timeout"])
def test_a_receiver_that_hangs_is_cut_at_its_timeout(first: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a receiver that accepts the connection and never answers
    import socket

    if first == "the socket's timeout":  # and the whole exchange's watchdog comes later
        late = threading.Timer
        monkeypatch.setattr(outbound.threading, "Timer", lambda wait, act: late(wait + 3, act))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    try:
        # When a webhook POST goes to it, with a one-second timeout
        os.environ["WEBHOOK_ALLOW_LOOPBACK"] = "1"
        reset_caches()
        started = time.monotonic()
        outcome = outbound.post(url, b"{}", {}, timeout=1.0)
        took = time.monotonic() - started
    finally:
        os.environ.pop("WEBHOOK_ALLOW_LOOPBACK", None)
        reset_caches()
        listener.close()
    # Then it is cut there: a failed delivery that says so, well before any longer wait
    assert not outcome.ok and outcome.error == "no answer within 1 s" and took < WAIT_SECONDS
