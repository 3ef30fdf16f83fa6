"""Request budgets (§25) through the handler against DynamoDB Local: a person's per minute, a token's
lower one within it, 429 `rate_limited` with Retry-After and the RateLimit fields in the caller's
language, a refused request changing nothing, and one person never spending another's budget. The
API's one clock (`settings.utc_now`) is fixed: which minute a request falls in is the test's to say.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo import settings as kakeibo_settings
from kakeibo.core import limits
from tests.conftest import reset_caches
from tests.events import Client

# A window's start (epoch seconds divisible by 60), far ahead of any day the tests run on: a counter
# expires at its window's end (TTL), and DynamoDB Local deletes an item whose `expiration` has passed
# within seconds, so a window in the past would lose its counts between two requests.
MINUTE = dt.datetime(2099, 12, 1, 3, 0, 0, tzinfo=dt.UTC)


@pytest.fixture
def budgets(local_env: str, monkeypatch: pytest.MonkeyPatch) -> list[dt.datetime]:
    """Budgets of 3 requests a minute per person and 2 per token; the clock the test moves."""
    monkeypatch.setenv("RATE_LIMIT_PERSON", "3")
    monkeypatch.setenv("RATE_LIMIT_TOKEN", "2")
    reset_caches()
    clock = [MINUTE + dt.timedelta(seconds=15)]
    monkeypatch.setattr(kakeibo_settings, "utc_now", lambda: clock[0])
    return clock


def _token(api: Client) -> str:
    made = api.post("/me/tokens", {"name": "sheet", "scope": "write"})
    assert made.status == 201, made
    return str(made.json["token"])


def test_a_persons_fourth_request_in_a_minute_is_429_and_changes_nothing(budgets: list[dt.datetime], user: str) -> None:
    api = Client(user)
    # When a person makes three requests in one minute
    answers = [api.get("/accounts") for _ in range(3)]
    # Then each is answered, saying what is left of the budget and when the minute resets (45 s)
    assert [a.status for a in answers] == [200, 200, 200]
    assert [a.header("RateLimit") for a in answers] == [f'"person";r={n};t=45' for n in (2, 1, 0)]
    assert answers[0].header("RateLimit-Policy") == '"person";q=3;w=60'
    # When the fourth, a write, comes in the same minute, asking in Japanese
    refused = api.post("/accounts", {"id": "wallet", "name": "財布", "type": "cash"},
                       headers={"Accept-Language": "ja"})  # fmt: skip
    # Then it is 429 rate_limited, in Japanese, with Retry-After and the RateLimit fields
    assert refused.status == 429, refused
    body = refused.json
    assert (body["code"], body["budget"], body["limit"], body["retry_after"]) == ("rate_limited", "person", 3, 45)
    assert body["detail"] == "1 分あたり 3 回までのリクエストを使い切りました。45 秒後にもう一度お試しください"
    assert refused.header("Retry-After") == "45" and refused.header("RateLimit") == '"person";r=0;t=45'
    # And nothing was written: in the next minute the account is not there
    budgets[0] = MINUTE + dt.timedelta(seconds=61)
    assert api.get("/accounts/wallet").status == 404
    assert api.get("/accounts").header("RateLimit") == '"person";r=1;t=59'  # the 404 spent one too


def test_one_persons_budget_is_never_anothers(budgets: list[dt.datetime], user: str, other_user: str) -> None:
    # Given a person who spent their minute
    for _ in range(3):
        assert Client(user).get("/accounts").status == 200
    assert Client(user).get("/accounts").status == 429
    # Then another person's requests in the same minute are answered, from a budget of their own
    assert Client(other_user).get("/accounts").header("RateLimit") == '"person";r=2;t=45'


def test_a_token_has_a_lower_budget_within_its_persons(budgets: list[dt.datetime], user: str) -> None:
    # Given a person with a write token, made in an earlier minute
    budgets[0] = MINUTE - dt.timedelta(seconds=30)
    token = _token(Client(user))
    budgets[0] = MINUTE + dt.timedelta(seconds=15)
    program = Client(token)
    # When the token makes two requests, then a third, in one minute
    first, second, third = (program.get("/accounts") for _ in range(3))
    # Then two are answered, telling both budgets; the third is over the token's
    assert first.header("RateLimit-Policy") == '"token";q=2;w=60, "person";q=3;w=60'
    assert second.header("RateLimit") == '"token";r=0;t=45, "person";r=1;t=45'
    assert third.status == 429 and third.json["budget"] == "token", third
    assert third.json["detail"] == "over this token's budget of 2 requests a minute: retry after 45 s"
    # And the request over the token's budget spent nothing of the person's: one is left for them
    assert Client(user).get("/accounts").header("RateLimit") == '"person";r=0;t=45'
    assert Client(user).get("/accounts").status == 429


def test_a_public_route_spends_no_budget(budgets: list[dt.datetime], user: str) -> None:
    for _ in range(5):
        reply = Client(user).get("/health")
        assert reply.status == 200 and reply.header("RateLimit") is None


@settings(max_examples=50)
@given(st.integers(min_value=0, max_value=10**10), st.integers(min_value=1, max_value=3600))
def test_a_windows_reset_is_within_it_and_ends_it(now: int, window: int) -> None:
    # Given any instant and window length
    start, left = limits.window_start(now, window), limits.seconds_left(now, window)
    # Then the instant is in its window, and the reset is when the next one starts (at least 1 s away)
    assert start <= now < start + window and start % window == 0
    assert 1 <= left <= window and start + window - now == left


def test_the_fields_name_each_budget_in_order() -> None:
    person, token = limits.Budget("person", 300), limits.Budget("token", 60)
    standings = [limits.standing(token, 61 - 60, 30.0), limits.standing(person, None, 30.0)]
    fields: dict[str, Any] = limits.headers(standings)
    assert fields == {"RateLimit-Policy": '"token";q=60;w=60, "person";q=300;w=60',
                      "RateLimit": '"token";r=59;t=30, "person";r=0;t=30'}  # fmt: skip
    assert standings[1].exhausted and not standings[0].exhausted and limits.headers([]) == {}


def test_a_burst_from_8_threads_admits_exactly_the_budget(budgets: list[dt.datetime], user: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from kakeibo.event import Caller
    from kakeibo.services import limits as service
    from kakeibo.settings import get_settings
    from kakeibo.store import get_limit_store

    # Given a person's budget of 3 a minute and 8 requests spent at the same instant, from 8 threads
    store, config, now = get_limit_store(), get_settings(), MINUTE.timestamp() + 15
    barrier = threading.Barrier(8)

    def one(_: int) -> bool:
        barrier.wait()
        try:
            service.spend(store, config, Caller(user), now)
        except Exception as exc:
            assert type(exc).__name__ == "RateLimited", exc
            return False
        return True

    with ThreadPoolExecutor(8) as pool:
        admitted = list(pool.map(one, range(8)))
    # Then exactly the budget was admitted, and the rest refused
    assert admitted.count(True) == 3 and admitted.count(False) == 5


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "AccessDeniedException"])
def test_a_counter_that_cannot_be_written_lets_the_request_through(
    budgets: list[dt.datetime], user: str, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    from botocore.exceptions import ClientError

    from kakeibo.store import get_limit_store

    # Given the counters' table refusing every write (throttled past botocore's retries, or denied)
    class Refusing:
        def update_item(self, **kwargs: Any) -> Any:
            raise ClientError({"Error": {"Code": code, "Message": "no"}}, "UpdateItem")

    monkeypatch.setattr(get_limit_store().core, "client", Refusing())
    # Then requests are served (failing open: the stage's throttling stays the backstop), without RateLimit fields
    for _ in range(5):
        reply = Client(user).get("/accounts")
        assert reply.status == 200 and reply.header("RateLimit") is None, reply


def test_a_tokens_request_counts_both_its_budgets_in_one_write(
    budgets: list[dt.datetime], user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kakeibo.store import get_limit_store

    # Given a person's write token, and the counters' client counting its writes
    budgets[0] = MINUTE - dt.timedelta(seconds=30)
    program = Client(_token(Client(user)))
    budgets[0] = MINUTE + dt.timedelta(seconds=15)
    core = get_limit_store().core
    real, writes = core.client, []

    class Counting:
        def __getattr__(self, name: str) -> Any:
            if name == "update_item":
                writes.append(name)
            return getattr(real, name)

    monkeypatch.setattr(core, "client", Counting())
    # When the token makes a request
    answer = program.get("/accounts")
    # Then both budgets were spent, in one conditional write
    assert answer.header("RateLimit") == '"token";r=1;t=45, "person";r=2;t=45', answer
    assert writes == ["update_item"]


def test_a_request_over_its_persons_budget_spends_none_of_its_tokens(budgets: list[dt.datetime], user: str) -> None:
    # Given a person's write token, and the person's minute spent by the person themselves
    budgets[0] = MINUTE - dt.timedelta(seconds=30)
    program = Client(_token(Client(user)))
    budgets[0] = MINUTE + dt.timedelta(seconds=15)
    for _ in range(3):
        assert Client(user).get("/accounts").status == 200
    # When the token makes a request in that minute
    refused = program.get("/accounts")
    # Then it is over the person's budget, and the token's is untouched: both of its requests are left
    assert refused.status == 429 and refused.json["budget"] == "person", refused
    assert refused.header("RateLimit") == '"token";r=2;t=45, "person";r=0;t=45'
