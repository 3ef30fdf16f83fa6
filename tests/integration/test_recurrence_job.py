"""The daily job (EventBridge Scheduler in AWS, a timer under `make run`): it finds what is due in
every ledger through the sparse due index, never by scanning, and posts each occurrence once.

The due index spans every ledger, so these tests run on tables of their own."""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from kakeibo import jobs
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.front import LambdaContext
from kakeibo.services import daily
from kakeibo.settings import get_settings
from kakeibo.store import SharedLedger, Store
from kakeibo.store.keys import pk
from kakeibo.store.recurrences import due_shard
from tests import invariants
from tests.concurrently import fan_out
from tests.events import EVENTS_DIR, SUITE_TIMEOUT, Client, sample
from tests.integration.test_recurrences import dates, define, rent


@pytest.fixture
def store(own_store: Store) -> Store:
    """Fresh tables from the template, for this test alone: a job run finds no other test's work."""
    return own_store


class Calls:
    """Every DynamoDB call the store's client makes (botocore before-call hook): operation and body."""

    def __init__(self, store: Store) -> None:
        self.seen: list[tuple[str, bytes]] = []
        self.client = store.core.client
        self.client.meta.events.register("before-call.dynamodb.*", self._record)

    def _record(self, event_name: str, params: dict[str, Any], **kwargs: Any) -> None:
        self.seen.append((event_name.rsplit(".", 1)[-1], params.get("body") or b""))

    def close(self) -> None:
        self.client.meta.events.unregister("before-call.dynamodb.*", self._record)

    def touching(self, ledger: str) -> list[str]:
        key = f'"{pk(ledger)}"'.encode()
        return [op for op, body in self.seen if key in body]


@pytest.fixture
def calls(store: Store) -> Iterator[Calls]:
    recorder = Calls(store)
    yield recorder
    recorder.close()


def household(name: str) -> Client:
    client = Client(f"{name}-{uuid.uuid4().hex[:8]}")
    client.account("bank", 1_000_000, type="bank")
    return client


def test_the_job_posts_every_ledgers_due_occurrences_and_never_reads_a_ledger_without_any(
    store: Store, calls: Calls
) -> None:
    # Given two households with recurrences, and one with slips but no recurrence
    alice, bob, carol = household("alice"), household("bob"), household("carol")
    define(alice, rent())
    define(bob, rent(1000, freq="weekly", by_month_day=None, by_weekday=["MO"]) | {"shift": "next_business_day"})
    assert carol.slip(date="2026-11-27", kind="expense", amount=100, account="bank").status == 201
    calls.seen.clear()
    # When the daily job runs for 2026-12-31
    result = daily.post_due(store, dt.date(2026, 12, 31))
    job_calls = list(calls.seen)
    # Then it posted what was due in both ledgers
    assert result["complete"] and result["failed"] == []
    assert dates(alice) == ["2026-11-27", "2026-12-25"]
    # weekly on Mondays from 2026-11-02; 11-23 (勤労感謝の日) moves to the 24th
    assert dates(bob)[:4] == ["2026-11-02", "2026-11-09", "2026-11-16", "2026-11-24"]
    assert len(dates(bob)) == 9
    assert result["posted"] == 2 + 9
    # And it found them with one query of the due index, never touching Carol's ledger
    assert job_calls[0][0] == "Query" and b'"DueIndex"' in job_calls[0][1]
    assert "Scan" not in {op for op, _ in job_calls}
    calls.seen = job_calls
    assert calls.touching(carol.user or "") == []
    assert calls.touching(alice.user or "") and calls.touching(bob.user or "")
    # When it runs again for the same day, it posts nothing, at the cost of the due index's queries
    calls.seen.clear()
    assert daily.post_due(store, dt.date(2026, 12, 31))["posted"] == 0
    assert [op for op, _ in calls.seen] == ["Query"] * (1 + get_settings().due_shards + 1)
    for who in (alice, bob, carol):
        assert invariants.check(store, who.user or "") == []


def test_with_no_recurrences_anywhere_the_job_costs_one_query_per_shard(store: Store, calls: Calls) -> None:
    carol = household("carol")
    calls.seen.clear()
    result = daily.post_due(store, dt.date(2026, 12, 31))
    assert {k: v for k, v in result.items() if k != "swept"} == {  # other tests' receipts may be swept
        "until": "2026-12-31", "complete": True, "posted": 0, "failed": []}  # fmt: skip
    # the items left from before the shards (none), then each shard and that old partition, once
    shards = get_settings().due_shards
    assert [op for op, _ in calls.seen] == ["Query"] * (1 + shards + 1)
    assert all(b'"DueIndex"' in body for _, body in calls.seen)
    assert calls.touching(carol.user or "") == []


def test_every_due_item_is_found_once_across_the_shards_and_old_ones_are_moved(store: Store) -> None:
    # Given forty households with rent due, and one recurrence keyed as before the shards
    homes = [household(f"home{n}") for n in range(40)]
    for home in homes:
        assert home.post("/recurrences", rent()).status == 201
    old = homes[0].get("/recurrences").json["items"][0]["id"]
    store.core.client.update_item(
        TableName=store.core.table,
        Key={"PK": {"S": pk(homes[0].user or "")}, "SK": {"S": f"RECUR#{old}"}},
        UpdateExpression="SET DuePK = :old",
        ExpressionAttributeValues={":old": {"S": "DUE"}},
    )
    # When the due index is read, then every recurrence is there exactly once, whatever its shard
    found = list(store.recurrences.due_recurrences("2026-11-30"))
    assert sorted(ledger for ledger, _ in found) == sorted(h.user or "" for h in homes)
    shards = {due_shard(h.user or "", get_settings().due_shards) for h in homes}
    assert len(shards) > 1  # spread over several partitions
    # And the old item is moved to its shard once (a second pass has nothing left to move)
    assert store.recurrences.rekey_due() == 1 and store.recurrences.rekey_due() == 0
    assert sorted(ledger for ledger, _ in store.recurrences.due_recurrences("2026-11-30")) == sorted(
        h.user or "" for h in homes
    )
    # And the job posts each one once, even run twice at once
    results: list[dict[str, object]] = []

    def job() -> None:
        results.append(daily.post_due(store, dt.date(2026, 11, 30)))

    threads = [threading.Thread(target=job) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(int(r["posted"]) for r in results) == 40  # type: ignore[call-overload]
    assert all(len(h.get("/slips").json["items"]) == 1 for h in homes)


def test_a_job_out_of_time_stops_and_the_next_resumes_where_it_stopped(store: Store) -> None:
    # Given three households with rent due
    households = [household(f"h{i}") for i in range(3)]
    for client in households:
        define(client, rent())
    # When the first run gets time to start, and then for only the first recurrence's first occurrence
    budget = iter([10.0, 10.0, 10.0])
    first = daily.post_due(store, dt.date(2026, 12, 31), time_left=lambda: next(budget, 0.0))
    # Then it reports it is not complete, and what it posted stays posted
    assert first["complete"] is False and first["posted"] == 1
    # When the next run has time
    second = daily.post_due(store, dt.date(2026, 12, 31))
    # Then it posts the rest, and nothing twice
    assert second["complete"] and second["posted"] == 5
    for client in households:
        assert dates(client) == ["2026-11-27", "2026-12-25"]


def test_a_failing_occurrence_stays_due_and_a_later_job_posts_it(store: Store) -> None:
    poor = Client(f"poor-{uuid.uuid4().hex[:8]}")
    poor.account("bank", 10_000, type="bank")
    made = define(poor, rent())
    failed = daily.post_due(store, dt.date(2026, 11, 27))
    assert [f["code"] for f in failed["failed"]] == ["insufficient_funds"]
    assert poor.get(f"/recurrences/{made['id']}").json["next_due"] == "2026-11-27"
    assert poor.slip(date="2026-11-27", kind="income", amount=100_000, account="bank").status == 201
    later = daily.post_due(store, dt.date(2026, 11, 28))
    assert later["posted"] == 1 and later["failed"] == []
    assert poor.get(f"/recurrences/{made['id']}").json["last_error"] is None


def test_the_scheduled_event_runs_the_job_through_the_handler(store: Store) -> None:
    from kakeibo.handler import lambda_handler

    # Given rent due on 2026-11-27, and the schedule's event for 00:05 that day in Tokyo
    client = household("sched")
    define(client, rent())
    event = json.loads((EVENTS_DIR / "schedule" / "post_due_recurrences.json").read_text(encoding="utf-8"))
    assert jobs.is_job(event) and not jobs.is_job(sample("run_recurrences"))
    # When the function receives it
    summary = lambda_handler(event, LambdaContext(aws_request_id="sched", timeout=SUITE_TIMEOUT))
    # Then the job ran for that day
    expected = {"until": "2026-11-27", "posted": 1, "failed": 0}
    assert {k: v for k, v in summary.items() if k not in ("swept", "alerts")} == expected  # other ledgers may be told
    assert dates(client) == ["2026-11-27"]


def test_a_scheduled_run_out_of_time_fails_so_that_lambda_retries_it(store: Store, calls: Calls) -> None:
    from kakeibo.handler import lambda_handler

    class Late(LambdaContext):
        def get_remaining_time_in_millis(self) -> int:
            return 500

    # Given rent due, and a scheduled run that starts with half a second left
    client = household("late")
    define(client, rent())
    calls.seen.clear()
    # When the function receives the schedule's event
    with pytest.raises(jobs.JobIncomplete):
        lambda_handler({"job": jobs.POST_DUE_RECURRENCES, "scheduled_time": "2026-12-01T00:00:00Z"}, Late("late"))
    # Then it fails for Lambda to retry without asking the database anything it could not wait for
    assert calls.seen == []
    # and the retry, with time, posts the rent
    assert daily.post_due(store, dt.date(2026, 12, 1))["posted"] == 1
    assert dates(client) == ["2026-11-27"]


def test_the_alerts_pass_with_no_time_left_reads_nothing_and_says_it_is_incomplete(store: Store, calls: Calls) -> None:
    from kakeibo.services import alerts_ahead

    # Given rent due within the month ahead
    define(household("ahead"), rent())
    calls.seen.clear()
    # When the alerts' pass starts with half a second left
    told = alerts_ahead.raise_due(store, dt.date(2026, 11, 20), time_left=lambda: 0.5)
    # Then it says it did not look at every ledger, having read nothing
    assert told == {"alerts": 0, "complete": False}
    assert calls.seen == []


def test_a_local_table_from_before_the_due_index_gains_it(local_env: str) -> None:
    # Given a ledger table made without the due index (make run's data from an earlier version)
    from kakeibo.local import template

    client = boto3.client("dynamodb", endpoint_url=local_env, region_name="us-east-1")
    props = template.tables()["LedgerTable"]
    name = f"LedgerTable-old-{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        AttributeDefinitions=[a for a in props["AttributeDefinitions"] if a["AttributeName"] in ("PK", "SK")],
        KeySchema=props["KeySchema"],
        BillingMode="PAY_PER_REQUEST",
    )
    names = {"LedgerTable": name, "IdempotencyTable": f"IdempotencyTable-old-{uuid.uuid4().hex[:8]}"}
    try:
        # When the tables are bootstrapped again
        create_tables(client, names)
        create_tables(client, names)  # and once more: nothing left to add
        # Then the index is there and answers
        indexes = client.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"]
        assert [i["IndexName"] for i in indexes] == ["DueIndex"]
        found = list(Store(client, name).recurrences.due_recurrences("2026-12-31"))
        assert found == []
    finally:
        for table in names.values():
            client.delete_table(TableName=table)


def household_with_an_editor() -> tuple[Client, Client, str]:
    """Hanako's household with a bank account, and Taro in it as an editor: (hanako, taro, ledger)."""
    hanako = Client(f"hanako-{uuid.uuid4().hex[:8]}")
    ledger = hanako.post("/ledgers", {"name": "山田家"}).json["id"]
    base = f"/ledgers/{ledger}"
    bank = {"id": "bank", "name": "銀行", "type": "bank", "opening_balance": 1_000_000}
    assert hanako.post(f"{base}/accounts", bank).status == 201
    token = hanako.post(f"{base}/invitations", {"role": "editor"}).json["token"]
    taro = Client(f"taro-{uuid.uuid4().hex[:8]}")
    assert taro.post(f"/invitations/{token}/accept").status == 200
    return hanako, taro, ledger


def test_the_job_posts_a_households_recurrences_as_their_authors(store: Store) -> None:
    # Given Hanako's household, where Taro (editor) defined the rent
    hanako, taro, ledger = household_with_an_editor()
    base = f"/ledgers/{ledger}"
    assert taro.post(f"{base}/recurrences", rent()).status == 201
    # When the daily job runs
    result = daily.post_due(store, dt.date(2026, 12, 31))
    # Then the household's rent is posted there, recorded as Taro's, and nowhere else
    assert result["posted"] == 2 and result["failed"] == []
    posted = hanako.get(f"{base}/slips").json["items"]
    assert sorted(s["date"] for s in posted) == ["2026-11-27", "2026-12-25"]
    assert {(s["created_by"], s["updated_by"]) for s in posted} == {(taro.user, taro.user)}
    assert hanako.get("/slips").json["items"] == [] and taro.get("/slips").json["items"] == []
    assert invariants.check(store, SharedLedger(ledger)) == []


def test_the_job_never_posts_as_a_member_who_was_removed(store: Store) -> None:
    # Given Taro (editor) defined the rent in Hanako's household, then Hanako removed him
    hanako, taro, ledger = household_with_an_editor()
    base = f"/ledgers/{ledger}"
    made = taro.post(f"{base}/recurrences", rent()).json
    assert hanako.delete(f"{base}/members/{taro.user}", headers={"If-Match": "*"}).status == 204
    # When the daily job runs
    result = daily.post_due(store, dt.date(2026, 12, 31))
    # Then nothing is posted as Taro: the recurrence keeps the reason as its last error
    assert result["posted"] == 0 and len(result["failed"]) == 1
    assert hanako.get(f"{base}/slips").json["items"] == []
    kept = hanako.get(f"{base}/recurrences/{made['id']}").json
    assert kept["last_error"]["code"] == "forbidden" and "no longer an editor" in kept["last_error"]["detail"]
    # And once an editor (Hanako) edits it, its posts are hers
    patch = {"slip": {"memo": "家賃（大家さんへ）"}}
    assert hanako.patch(f"{base}/recurrences/{made['id']}", patch, headers={"If-Match": "*"}).status == 200
    again = daily.post_due(store, dt.date(2026, 12, 31))
    assert again["posted"] == 2
    posted = hanako.get(f"{base}/slips").json["items"]
    assert {s["created_by"] for s in posted} == {hanako.user}


def test_moving_old_due_items_while_they_are_edited_moves_each_once(store: Store) -> None:
    # Given twelve households' rent keyed as before the shards
    homes = [household(f"mig{n}") for n in range(12)]
    made = []
    for home in homes:
        reply = home.post("/recurrences", rent())
        assert reply.status == 201
        made.append((home, reply.json["id"]))
    for home, rid in made:
        store.core.client.update_item(
            TableName=store.core.table,
            Key={"PK": {"S": pk(home.user or "")}, "SK": {"S": f"RECUR#{rid}"}},
            UpdateExpression="SET DuePK = :old",
            ExpressionAttributeValues={":old": {"S": "DUE"}},
        )
    # When the move runs while half of them are edited (each edit writes its own new keys)
    moved: list[int] = []

    def move() -> None:
        moved.append(store.recurrences.rekey_due())

    mover = threading.Thread(target=move)
    mover.start()
    edits = [
        ("PATCH", f"/recurrences/{rid}", {"slip": {"amount": 81_000}}, {"If-Match": '"1"'}) for _, rid in made[::2]
    ]
    replies = fan_out("", edits, users=[home.user or "" for home, _ in made[::2]])  # each its own process
    mover.join()
    assert [r.status for r in replies] == [200] * len(edits), replies
    # Then nothing is left under the old key, and every recurrence is in the index exactly once
    assert store.recurrences.rekey_due() == 0
    found = [ledger for ledger, _ in store.recurrences.due_recurrences("2026-11-30")]
    assert sorted(found) == sorted(h.user or "" for h in homes)
    assert moved[0] <= len(homes)
