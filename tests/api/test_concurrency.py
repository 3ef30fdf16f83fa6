"""Concurrency over real HTTP: many clients at once against the front and its function instances
(FUNCTION_CONCURRENCY, default 4), as API Gateway in front of several Lambda instances.

Every client opens its own connection and waits at a barrier, so the requests really overlap.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from urllib.parse import quote

import requests

from kakeibo.local.dynamodb import free_port
from kakeibo.local.front import Front, serve
from tests.api.conftest import Http

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}


def at_once(count: int, send: Callable[[requests.Session], requests.Response]) -> list[requests.Response]:
    """`send` from `count` threads, each on a connection of its own, released together."""
    barrier = threading.Barrier(count)
    replies: list[requests.Response | BaseException | None] = [None] * count

    def client(index: int) -> None:
        with requests.Session() as session:
            try:
                barrier.wait(timeout=120)
                replies[index] = send(session)
            except BaseException as exc:  # reported below, with the others
                replies[index] = exc

    threads = [threading.Thread(target=client, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    failures = [r for r in replies if not isinstance(r, requests.Response)]
    assert not failures, failures[:3]
    return [r for r in replies if isinstance(r, requests.Response)]


def verified(http: Http) -> None:
    check = http.post("/ledger/verify")
    assert check.status_code == 200 and check.json()["ok"] is True, check.text


def test_sixty_four_clients_at_once_are_all_served(front_url: str, user: str) -> None:
    # When 64 clients connect and ask at the same moment (more than the instances, less than the backlog)
    auth = {"Authorization": f"Bearer {user}"}
    replies = at_once(64, lambda s: s.get(f"{front_url}/accounts", headers=auth, timeout=120))
    # Then none is reset or refused: every one gets its answer
    assert [r.status_code for r in replies] == [200] * 64


def test_a_burst_waits_in_the_listen_backlog_until_the_front_accepts(front: Front) -> None:
    # Given a front that listens but does not accept yet (as when every thread is busy)
    server = serve(front, "127.0.0.1", free_port())
    server.quiet = True
    clients: list[socket.socket] = []
    serving: threading.Thread | None = None
    deadline = time.monotonic() + 180  # a connection the backlog could not hold would hang: fail instead
    try:
        # When 64 clients connect and send their request
        for _ in range(64):
            client = socket.create_connection(server.server_address[:2], timeout=max(1.0, deadline - time.monotonic()))
            client.sendall(b"GET /health HTTP/1.1\r\nHost: local\r\nConnection: close\r\n\r\n")
            clients.append(client)
        # Then every connection was taken by the backlog, and once the front accepts, each is answered
        serving = threading.Thread(target=server.serve_forever, daemon=True)
        serving.start()
        for client in clients:
            client.settimeout(max(1.0, deadline - time.monotonic()))
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    finally:
        for client in clients:
            client.close()
        if serving is not None:
            server.shutdown()
        server.server_close()


def test_the_account_limit_holds_under_concurrent_creates(http: Http, front_url: str, user: str) -> None:
    # Given a ledger with 98 accounts, two short of the limit of 100
    for n in range(98):
        made = http.post("/accounts", json={"id": f"a{n:03}", "name": f"A{n}", "type": "cash"})
        assert made.status_code == 201, made.text
    # When 8 clients each create one more account at the same moment
    auth = {"Authorization": f"Bearer {user}"}
    bodies = iter([{"id": f"new{n}", "name": f"New {n}", "type": "bank"} for n in range(8)])
    lock = threading.Lock()

    def create(session: requests.Session) -> requests.Response:
        with lock:
            body = next(bodies)
        return session.post(f"{front_url}/accounts", json=body, headers=auth, timeout=120)

    replies = at_once(8, create)
    # Then exactly two are created, the others refused, and the ledger holds exactly 100 accounts
    statuses = Counter(r.status_code for r in replies)
    assert statuses == {201: 2, 409: 6}, statuses
    assert len(http.get("/accounts").json()["items"]) == 100


def test_twenty_concurrent_posts_with_one_key_make_one_slip(http: Http, front_url: str, user: str) -> None:
    # Given an account with 20,000 yen
    made = http.post("/accounts", json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 20000})
    assert made.status_code == 201, made.text
    # When 20 clients post the same slip with the same Idempotency-Key at the same moment
    headers = {"Authorization": f"Bearer {user}", "Idempotency-Key": "k-20"}
    replies = at_once(20, lambda s: s.post(f"{front_url}/slips", json=LUNCH, headers=headers, timeout=120))
    # Then every answer is the original 201 or 409 request_in_progress, and every 201 names one slip
    statuses = Counter(r.status_code for r in replies)
    assert set(statuses) <= {201, 409} and statuses[201] >= 1, statuses
    assert all(r.json()["code"] == "request_in_progress" for r in replies if r.status_code == 409)
    assert len({r.json()["id"] for r in replies if r.status_code == 201}) == 1
    # And there is exactly one slip: the money moved once
    assert len(http.get("/slips").json()["items"]) == 1
    assert [(b["account"], b["balance"]) for b in http.get("/balances").json()["items"]] == [("cash", 18800)]
    verified(http)


def test_a_strict_budget_holds_under_ten_concurrent_writers(http: Http, front_url: str, user: str) -> None:
    # Given a strict 1,000 yen food budget
    made = http.post("/accounts", json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 100000})
    assert made.status_code == 201, made.text
    food = "/budgets/2026-11/" + quote("食費")
    assert http.put(food, json={"limit": 1000, "strict": True}).status_code == 201
    # When 10 clients each post a 300 yen food expense at the same moment
    auth = {"Authorization": f"Bearer {user}"}
    slip = {**LUNCH, "amount": 300, "date": "2026-11-10"}
    replies = at_once(10, lambda s: s.post(f"{front_url}/slips", json=slip, headers=auth, timeout=120))
    # Then exactly floor(1000 / 300) = 3 are written and the others are refused as over budget
    statuses = [r.status_code for r in replies]
    assert statuses.count(201) == 3, statuses
    assert all(r.json()["code"] == "budget_exceeded" for r in replies if r.status_code != 201)
    listed = http.get("/budgets", params={"month": "2026-11"}).json()["items"]
    assert [(b["spent"], b["remaining"]) for b in listed] == [(900, 100)]
    verified(http)
