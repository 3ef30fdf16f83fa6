"""The front's failure modes over real HTTP: a function instance killed mid-request, clients that
hang up before their answer."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from kakeibo.local.dynamodb import DynamoDBLocal
from kakeibo.local.front import Front, FunctionFailed
from kakeibo.local.instances import Pool, concurrency, local_environment
from tests.api.conftest import serving


class HoldingProxy:
    """A TCP proxy to DynamoDB Local that, while holding, accepts connections and answers nothing:
    a function calling DynamoDB through it is caught in the middle of its request."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.holding = True
        self.caught = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def release(self) -> None:
        self.holding = False

    def close(self) -> None:
        for sock in [self._listener, *self._open]:
            sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._open.append(client)
            if self.holding:
                self.caught.set()
                continue
            server = socket.create_connection(self.upstream)
            self._open.append(server)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def proxy(dynamodb_local: DynamoDBLocal) -> Iterator[HoldingProxy]:
    host, port = dynamodb_local.endpoint.removeprefix("http://").split(":")
    held = HoldingProxy((host, int(port)))
    yield held
    held.close()


def test_an_instance_killed_mid_request_costs_only_that_request(proxy: HoldingProxy, user: str) -> None:
    # Given a front with one function instance, whose DynamoDB calls we can hold
    logged: list[str] = []
    pool = Pool(1, local_environment(proxy.endpoint), log=logged.append).start()
    try:
        with serving(Front(pool)) as url:
            auth = {"Authorization": f"Bearer {user}"}
            answer: dict[str, requests.Response] = {}
            thread = threading.Thread(
                target=lambda: answer.update(first=requests.get(f"{url}/accounts", headers=auth, timeout=120))
            )
            thread.start()
            # When the instance is killed while it handles a request
            assert proxy.caught.wait(timeout=120), "the request never reached DynamoDB"
            [victim] = pool.pids()
            os.kill(victim, signal.SIGKILL)
            thread.join(timeout=120)
            # Then that request gets 502, with a problem saying what happened
            first = answer["first"]
            assert first.status_code == 502
            assert first.headers["Content-Type"] == "application/problem+json"
            problem = first.json()
            assert problem["code"] == "bad_gateway" and "SIGKILL" in problem["detail"]
            # And the next request is served by a new instance
            proxy.release()
            second = requests.get(f"{url}/accounts", headers=auth, timeout=120)
            assert second.status_code == 200 and second.json()["items"] == []
            assert pool.pids() and victim not in pool.pids()
            assert any("killed by SIGKILL" in line for line in logged), logged
    finally:
        pool.close()


def _pid_event(n: int) -> dict[str, Any]:
    return {"routeKey": "GET /health", "requestContext": {"requestId": f"request-{n}"}}


def test_requests_one_after_another_are_served_by_the_instance_that_served_the_last() -> None:
    # Given a pool of three instances of a function that answers with its instance's process id
    pool = Pool(3, handler="tests.api.pid_handler.lambda_handler").start()
    try:
        # When six requests are sent one after another
        served = [pool.invoke(_pid_event(n))["body"] for n in range(6)]
        # Then one instance served them all (its caches, the ledger's journal head among them, are
        # the ones its last request left), as a Lambda function's warm environment would
        assert len(set(served)) == 1
        assert int(served[0]) in pool.pids()
    finally:
        pool.close()


def test_requests_at_once_still_spread_over_the_instances() -> None:
    # Given a pool of three instances, two of them held by requests in flight
    pool = Pool(3, handler="tests.api.pid_handler.lambda_handler").start()
    taken = [pool._idle.get(), pool._idle.get()]  # what two requests in flight hold
    try:
        # When one more request comes while they are held
        third = pool.invoke(_pid_event(0))["body"]
        # Then the free instance serves it, neither of the held ones
        held = {slot.instance.pid for slot in taken if slot.instance is not None}
        assert len(held) == 2 and int(third) not in held
    finally:
        for slot in taken:
            pool._idle.put(slot)
        pool.close()


def test_the_last_instance_dead_while_idle_is_replaced_on_the_next_request() -> None:
    # Given a pool of two instances, the one that answered last killed while idle, and ended
    pool = Pool(2, handler="tests.api.pid_handler.lambda_handler").start()
    try:
        last = int(pool.invoke(_pid_event(0))["body"])
        os.kill(last, signal.SIGKILL)
        [slot] = [s for s in pool._slots if s.instance is not None and s.instance.pid == last]
        assert slot.instance is not None
        slot.instance.process.wait(timeout=120)
        # When the next request comes (it takes that instance's place first)
        served = int(pool.invoke(_pid_event(1))["body"])
        # Then a new instance answers it, in the dead one's place
        assert served != last and served in pool.pids() and last not in pool.pids()
    finally:
        pool.close()


class Gate:
    """A function that answers only once the test opens the gate, with more than socket buffers hold
    (so writing it to a client that reset its connection fails for sure)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        self.entered.set()
        self.opened.wait(timeout=120)
        return {"statusCode": 200, "headers": {"Content-Type": "text/plain"}, "body": "x" * (16 * 1024 * 1024)}


def _raw_request(url: str, text: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(text.encode())
    return sock


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a client that gives up does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _stderr_until(capsys: pytest.CaptureFixture[str], done: Callable[[str], bool]) -> str:
    seen = ""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not done(seen):
        seen += capsys.readouterr().err
        time.sleep(0.05)
    return seen


def test_clients_hanging_up_are_one_quiet_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    gate = Gate()
    with serving(Front(gate), quiet=False) as url:
        # When a client gives up while its request is being handled
        sock = _raw_request(url, "GET /health HTTP/1.1\r\nHost: local\r\n\r\n")
        assert gate.entered.wait(timeout=60)
        _reset(sock)
        gate.opened.set()
        # And another hangs up halfway through sending its body
        half = _raw_request(url, "POST /health HTTP/1.1\r\nHost: local\r\nContent-Length: 100\r\n\r\n{")
        half.close()
        # And another gives up in the middle of its request line
        _reset(_raw_request(url, "GET /hea"))
        # Then each is one line in the log, and no traceback
        err = _stderr_until(capsys, lambda seen: seen.count("hung up") >= 3)
    assert "hung up before its 200 answer was sent" in err, err
    assert "hung up while sending its request: POST /health" in err, err
    assert "hung up: ConnectionResetError" in err, err
    assert "Traceback" not in err, err


def test_a_function_failure_is_a_502_problem() -> None:
    class Failing:
        def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
            raise FunctionFailed("the function raised RuntimeError: boom")

    # When the function raises instead of answering
    with serving(Front(Failing())) as url:
        reply = requests.get(f"{url}/accounts", headers={"Authorization": "Bearer u"}, timeout=60)
    # Then the caller gets 502 as problem+json, naming the failure
    assert reply.status_code == 502 and reply.json()["code"] == "bad_gateway"
    assert "RuntimeError: boom" in reply.json()["detail"]


def test_function_concurrency_is_a_small_whole_number() -> None:
    assert concurrency({}) == 4
    assert concurrency({"FUNCTION_CONCURRENCY": "8"}) == 8
    for bad in ("0", "-1", "two", "1.5", "65"):
        with pytest.raises(ValueError, match="FUNCTION_CONCURRENCY"):
            concurrency({"FUNCTION_CONCURRENCY": bad})
