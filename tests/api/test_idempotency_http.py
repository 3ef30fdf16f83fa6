"""Idempotency-Key over real HTTP: an answer is kept under a key only when the request was carried
out, so no refusal in between can poison the key for the original request."""

from __future__ import annotations

import threading
import uuid

import boto3
import pytest

from kakeibo.settings import get_settings
from tests.api.conftest import Http

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 700, "account": "cash", "category": "食費"}


def _forget() -> None:
    """Every key's Powertools record expires (as 24 h would have it): deleted from the table."""
    settings = get_settings()
    client = boto3.client("dynamodb", endpoint_url=settings.dynamodb_endpoint_url)
    table = settings.idempotency_table_name
    for item in client.scan(TableName=table, ProjectionExpression="id")["Items"]:
        client.delete_item(TableName=table, Key={"id": item["id"]})


@pytest.fixture
def cash(http: Http) -> Http:
    made = http.post("/accounts", json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 10_000})
    assert made.status_code == 201
    return http


@pytest.mark.parametrize("expired", [False, True])
def test_a_mismatched_retry_does_not_poison_the_key(cash: Http, expired: bool) -> None:
    # Given a slip created with a key
    key = {"Idempotency-Key": f"k-{uuid.uuid4().hex}"}
    first = cash.post("/slips", json=LUNCH, headers=key)
    assert first.status_code == 201
    if expired:
        _forget()
    # When the same key comes with another body: refused, 422
    other = cash.post("/slips", json={**LUNCH, "amount": 701}, headers=key)
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    # Then the original body with the key still answers the slip as it is now (once, never twice)
    again = cash.post("/slips", json=LUNCH, headers=key)
    assert again.status_code == 201 and again.json()["id"] == first.json()["id"], again.text
    assert cash.get("/accounts/cash").json()["balance"] == 9_300


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({**LUNCH, "amount": 1.5}, 422),  # validation
        ({**LUNCH, "account": "nowhere"}, 422),  # an account that does not exist (a field error)
        ({**LUNCH, "date": "2026-02-30"}, 422),
    ],
)
def test_a_refused_request_keeps_no_answer_under_its_key(cash: Http, body: dict[str, object], status: int) -> None:
    # Given a request refused before anything was carried out
    key = {"Idempotency-Key": f"k-{uuid.uuid4().hex}"}
    refused = cash.post("/slips", json=body, headers=key)
    assert refused.status_code == status
    # When the caller sends the corrected request with the same key, then it is carried out
    made = cash.post("/slips", json=LUNCH, headers=key)
    assert made.status_code == 201, made.text
    assert cash.get("/accounts/cash").json()["balance"] == 9_300


def test_a_refusal_decided_by_the_change_is_kept_and_replayed(cash: Http) -> None:
    # Given a payment refused for funds (decided inside the transaction)
    key = {"Idempotency-Key": f"k-{uuid.uuid4().hex}"}
    over = {**LUNCH, "amount": 50_000}
    first = cash.post("/slips", json=over, headers=key)
    assert first.status_code == 409 and first.json()["code"] == "insufficient_funds"
    # When it is retried with the key, after money came in, then the kept answer is replayed
    income = {"date": "2026-11-02", "kind": "income", "amount": 100_000, "account": "cash", "category": "給与"}
    assert cash.post("/slips", json=income).status_code == 201
    again = cash.post("/slips", json=over, headers=key)
    assert again.status_code == 409 and again.content == first.content


def test_a_stranger_and_a_viewer_are_refused_before_any_replay(front_url: str, user: str) -> None:
    # Given a household where an editor made a slip with a key, then was removed
    owner, editor = Http(front_url, user), Http(front_url, f"ed-{uuid.uuid4().hex[:8]}")
    ledger = owner.post("/ledgers", json={"name": "山田家"}).json()["id"]
    base = f"/ledgers/{ledger}"
    owner.post(f"{base}/accounts", json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 10_000})
    token = owner.post(f"{base}/invitations", json={"role": "editor"}).json()["token"]
    assert editor.post(f"/invitations/{token}/accept").status_code == 200
    key = {"Idempotency-Key": "the-editors-key"}
    assert editor.post(f"{base}/slips", json=LUNCH, headers=key).status_code == 201
    assert (
        owner.delete(f"{base}/members/{editor.headers['Authorization'][7:]}", headers={"If-Match": "*"}).status_code
        == 204
    )
    # When the removed editor replays the key, then 404 (a non-member sees nothing), not the slip
    replay = editor.post(f"{base}/slips", json=LUNCH, headers=key)
    assert replay.status_code == 404 and replay.json()["code"] == "not_found"
    # And a viewer replaying a key of theirs is 403
    token = owner.post(f"{base}/invitations", json={"role": "viewer"}).json()["token"]
    viewer = Http(front_url, f"vw-{uuid.uuid4().hex[:8]}")
    assert viewer.post(f"/invitations/{token}/accept").status_code == 200
    assert viewer.post(f"{base}/slips", json=LUNCH, headers=key).status_code == 403


def test_a_mismatched_and_the_original_retry_racing_make_one_slip(cash: Http) -> None:
    # Given a slip created with a key whose record has expired
    key = {"Idempotency-Key": f"k-{uuid.uuid4().hex}"}
    first = cash.post("/slips", json=LUNCH, headers=key)
    assert first.status_code == 201
    _forget()
    answers: list[tuple[str, int, str | None]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(6)

    def send(which: str, body: dict[str, object]) -> None:
        barrier.wait(timeout=120)
        reply = cash.post("/slips", json=body, headers=key)
        with lock:
            answers.append((which, reply.status_code, reply.json().get("id") or reply.json().get("code")))

    # When a mismatched retry and the original retry race, three of each, released together
    bodies = [("original", LUNCH), ("mismatched", {**LUNCH, "amount": 701})] * 3
    threads = [threading.Thread(target=send, args=pair) for pair in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then every original retry answered the one slip, or was asked to retry while another ran —
    # never told its own key was taken; every mismatched one was refused; the money moved once
    assert len(answers) == 6, answers
    for which, status, what in answers:
        allowed = {(201, first.json()["id"]), (409, "request_in_progress")}
        if which == "mismatched":
            allowed = {(422, "idempotency_key_reused"), (409, "request_in_progress")}
        assert (status, what) in allowed, answers
    assert cash.get("/accounts/cash").json()["balance"] == 9_300
    assert cash.post("/slips", json=LUNCH, headers=key).json()["id"] == first.json()["id"]
