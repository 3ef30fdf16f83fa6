"""Every request within its time (§31): under throttling the retry loops share the request's deadline
and it answers 409 with Retry-After before the function's remaining time runs out. Time is a fake
clock's: each throttled attempt and each pause moves it, nothing waits."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import botocore.endpoint
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError

from kakeibo import deadline, priming
from kakeibo.local.front import Front

LEFT = 2.5  # seconds the function has left when the request starts
THROTTLED_ATTEMPT = 0.45  # seconds a throttled TransactWriteItems takes to come back


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Context:
    """A Lambda context whose remaining time runs on the fake clock."""

    function_name = "LedgerFunction"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:LedgerFunction"
    aws_request_id = "deadline-test"

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((LEFT - self.clock()) * 1000))


class Throttling(priming.LocalAnswers):
    """DynamoDB whose every transaction is cancelled by throttling (reads answered as an empty table),
    each after THROTTLED_ATTEMPT seconds; an attempt whose read timeout is shorter times out at it."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.transactions = 0

    def send(self, request: Any) -> AWSResponse:
        if b"TransactWriteItems" not in (request.headers.get("X-Amz-Target") or b""):
            self.clock.sleep(0.01)
            return super().send(request)
        self.transactions += 1
        cap = request.context.get("read_timeout")  # what the request's time left allows this attempt
        if cap is not None and cap < THROTTLED_ATTEMPT:
            self.clock.sleep(cap)
            raise ReadTimeoutError(endpoint_url=request.url)
        self.clock.sleep(THROTTLED_ATTEMPT)
        items = json.loads(request.body)["TransactItems"]
        body = {
            "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
            "message": "Transaction cancelled, please refer cancellation reasons for specific reasons",
            "CancellationReasons": [{"Code": "ThrottlingError"} for _ in items],
        }
        headers = {"x-amzn-RequestId": "throttled", "Content-Type": "application/x-amz-json-1.0"}
        return AWSResponse(request.url, 400, headers, priming._Body(json.dumps(body).encode()))  # type: ignore[arg-type]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(deadline, "clock", fake)
    monkeypatch.setattr(deadline, "sleep", fake.sleep)
    monkeypatch.setattr(botocore.endpoint, "time", SimpleNamespace(sleep=fake.sleep))  # botocore's own pauses
    return fake


@pytest.fixture
def throttling(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Throttling:
    monkeypatch.setenv("TABLE_NAME", "LedgerTable")
    monkeypatch.setenv("DYNAMODB_ENDPOINT_URL", "http://127.0.0.1:9")  # never contacted
    from kakeibo.store import dynamodb_client

    fake = Throttling(clock)
    monkeypatch.setattr(dynamodb_client()._endpoint, "http_session", fake)
    return fake


def slip_event(user: str) -> dict[str, Any]:
    front = Front(lambda event, context: {})
    matched = front.match("POST", "/slips")
    assert matched is not None
    route, params = matched
    body = {"date": "2026-04-01", "kind": "expense", "amount": 300, "account": "cash"}
    return front.event(
        route,
        params=params,
        target="/slips",
        headers={"authorization": f"Bearer {user}", "content-type": "application/json"},
        body=json.dumps(body).encode(),
        context={"sub": user, "via": "jwt", "scope": "write", "token_id": ""},
    )


def test_under_throttling_a_request_answers_409_with_retry_after_before_its_time_is_up(
    clock: Clock, throttling: Throttling, user: str
) -> None:
    from kakeibo.handler import lambda_handler

    # Given DynamoDB that throttles every transaction, and a function with 2.5 s left
    # When a slip is posted
    reply = lambda_handler(slip_event(user), Context(clock))  # type: ignore[arg-type]
    # Then it is refused as retryable, saying when to retry
    assert reply["statusCode"] in (409, 429, 503), reply
    assert int(reply["headers"]["Retry-After"]) >= 1
    # And it answered before the function's time ran out, keeping the margin to answer in: no attempt
    # started without time for it, and the last one's read timeout was cut to the time left
    assert clock() <= LEFT - deadline.MARGIN + 1e-9
    # And it did retry while there was time, but stopped short of every attempt it would make
    assert 2 <= throttling.transactions < 6


def test_without_a_deadline_the_same_retries_would_outlast_the_time(
    clock: Clock, throttling: Throttling, user: str
) -> None:
    from kakeibo.handler import lambda_handler

    # Given the same throttling DynamoDB and a context that tells no remaining time
    class Timeless(Context):
        get_remaining_time_in_millis = None  # type: ignore[assignment]

    reply = lambda_handler(slip_event(user), Timeless(clock))  # type: ignore[arg-type]
    # Then every attempt is made, and together they take longer than the 2.5 s the test above had
    assert reply["statusCode"] == 409
    assert throttling.transactions == 6
    assert clock() > LEFT


def test_botocore_s_own_retries_are_held_to_the_deadline(clock: Clock) -> None:
    def botocore_would_wait(**_: Any) -> float | None:
        return 0.8

    decide = deadline.hold_retries(botocore_would_wait)
    with deadline.within(Context(clock)):  # 2.5 s left, 0.5 kept: 2.0 s
        assert decide() == 0.8
        clock.sleep(1.2)  # 0.8 s left: a 0.8 s pause leaves none for the attempt
        assert decide() is None
    assert decide() == 0.8  # no request, no deadline


def test_each_attempt_s_read_timeout_is_cut_to_the_time_left(clock: Clock) -> None:
    class Config:
        read_timeout = 5

    class Request:
        def __init__(self) -> None:
            self.context: dict[str, Any] = {"client_config": Config()}

    request = Request()
    deadline.cap_read_timeout(request)
    assert "read_timeout" not in request.context  # no deadline: the client's own
    with deadline.within(Context(clock)):
        clock.sleep(0.7)
        deadline.cap_read_timeout(request)
        assert request.context["read_timeout"] == pytest.approx(1.3)
