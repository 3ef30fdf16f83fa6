"""Idempotency-Key over HTTP: which answers are kept under a key, and what the original request gets
when it is sent again after each — with the key's Powertools record present, and after it expired
(then the slip's identity item answers). A key is kept only by a request that was carried out: a
refusal of the key, of the body or of the caller never takes the key from the original request."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
import requests

from kakeibo.store import get_store
from tests.api.conftest import Http
from tests.idempotency_records import ExpiredKeys

LUNCH = {"date": "2026-11-03", "kind": "expense", "amount": 1200, "account": "cash", "category": "食費"}
RECORD = ["present", "expired"]


@pytest.fixture
def cash(http: Http) -> Http:
    made = http.post("/accounts", json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 20000})
    assert made.status_code == 201, made.text
    return http


@pytest.fixture
def records() -> ExpiredKeys:
    return ExpiredKeys(get_store())


def post(http: Http, body: dict[str, Any], key: str, path: str = "/slips") -> requests.Response:
    return http.post(path, json=body, headers={"Idempotency-Key": key})


def slips(http: Http) -> list[dict[str, Any]]:
    reply = http.get("/slips", params={"limit": 100})
    assert reply.status_code == 200 and reply.json()["next_cursor"] is None, reply.text
    return reply.json()["items"]  # type: ignore[no-any-return]


def balance(http: Http) -> int:
    items = http.get("/balances").json()["items"]
    return int(next(i["balance"] for i in items if i["account"] == "cash"))


def code(reply: requests.Response) -> tuple[int, str | None]:
    return reply.status_code, reply.json().get("code")


# ---- kept: a slip created, a refusal its transaction decided ------------------------------------


@pytest.mark.parametrize("record", RECORD)
def test_a_created_slip_is_kept_and_the_same_request_gets_it(cash: Http, records: ExpiredKeys, record: str) -> None:
    # Given a slip created with a key
    first = post(cash, LUNCH, "k-created")
    assert first.status_code == 201, first.text
    assert records.made(), "the answer is kept under the key"
    if record == "expired":
        records.expire()
    # When the same request is sent again
    again = post(cash, LUNCH, "k-created")
    # Then it gets the one slip, and nothing more is written
    assert again.status_code == 201, again.text
    assert again.json()["id"] == first.json()["id"] and again.headers["Location"] == first.headers["Location"]
    assert [s["id"] for s in slips(cash)] == [first.json()["id"]]
    assert balance(cash) == 18800


def test_insufficient_funds_is_kept_while_the_record_lives(cash: Http, records: ExpiredKeys) -> None:
    # Given a slip refused by its transaction for want of funds
    over = {**LUNCH, "amount": 30000}
    first = post(cash, over, "k-funds")
    assert code(first) == (409, "insufficient_funds")
    assert records.made(), "the refusal is the outcome of a request carried out: kept"
    # And money arrives since
    assert cash.post("/slips", json={**LUNCH, "kind": "income", "amount": 50000}).status_code == 201
    # When the same request is sent again, its answer is the one kept
    assert post(cash, over, "k-funds").content == first.content
    # And once the record has expired the request is carried out anew
    records.expire()
    later = post(cash, over, "k-funds")
    assert later.status_code == 201, later.text
    assert balance(cash) == 20000 + 50000 - 30000


# ---- not kept: a refusal of the key itself -------------------------------------------------------


@pytest.mark.parametrize("record", RECORD)
def test_a_mismatched_body_never_takes_the_key_from_the_original(cash: Http, records: ExpiredKeys, record: str) -> None:
    # Given a slip created with a key, then moved to another day
    first = post(cash, LUNCH, "k-mismatch")
    assert first.status_code == 201, first.text
    moved = cash.patch(first.headers["Location"], json={"date": "2026-11-09"}, headers={"If-Match": '"1"'})
    assert moved.status_code == 200, moved.text
    if record == "expired":
        records.expire()
    # When the key comes back with another body, twice
    for amount in (701, 702):
        reused = post(cash, {**LUNCH, "amount": amount}, "k-mismatch")
        assert code(reused) == (422, "idempotency_key_reused"), reused.text
    # Then no refusal was kept in the original's place
    if record == "expired":
        assert records.made() == set()
    # And the original request still gets its slip: as kept while the record lives, as it is now after
    again = post(cash, LUNCH, "k-mismatch")
    assert again.status_code == 201, again.text
    assert again.json() == (first.json() if record == "present" else moved.json())
    assert [(s["id"], s["amount"]) for s in slips(cash)] == [(first.json()["id"], 1200)]
    assert balance(cash) == 18800


# ---- not kept: validation ------------------------------------------------------------------------


def test_an_invalid_body_does_not_take_a_new_key(cash: Http, records: ExpiredKeys) -> None:
    # Given a request refused for its body (a zero amount) under a fresh key
    invalid = post(cash, {**LUNCH, "amount": 0}, "k-invalid")
    assert code(invalid) == (422, "validation_error"), invalid.text
    # Then the key has no record
    assert records.made() == set()
    # And the corrected request under that key is carried out
    fixed = post(cash, LUNCH, "k-invalid")
    assert fixed.status_code == 201, fixed.text
    assert balance(cash) == 18800


def test_an_account_missing_in_the_transaction_is_not_kept(cash: Http, records: ExpiredKeys) -> None:
    # Given a slip refused because the account it names does not exist (decided in its transaction)
    wallet = {**LUNCH, "account": "wallet"}
    refused = post(cash, wallet, "k-wallet")
    assert code(refused) == (422, "validation_error"), refused.text
    assert records.made() == set()
    # When the account is created and the same request sent again with the same key
    made = cash.post("/accounts", json={"id": "wallet", "name": "Wallet", "type": "cash", "opening_balance": 5000})
    assert made.status_code == 201, made.text
    again = post(cash, wallet, "k-wallet")
    # Then it is carried out
    assert again.status_code == 201, again.text
    assert [s["account"] for s in slips(cash)] == ["wallet"]


@pytest.mark.parametrize("record", RECORD)
def test_an_invalid_body_under_a_used_key_leaves_the_original_its_slip(
    cash: Http, records: ExpiredKeys, record: str
) -> None:
    first = post(cash, LUNCH, "k-used")
    assert first.status_code == 201, first.text
    if record == "expired":
        records.expire()
    # When an invalid body comes with the key
    refused = post(cash, {**LUNCH, "amount": -5}, "k-used")
    # Then it is refused (for the key while its record lives, for the body after) and nothing is kept
    expected = "idempotency_key_reused" if record == "present" else "validation_error"
    assert code(refused) == (422, expected), refused.text
    if record == "expired":
        assert records.made() == set()
    # And the original request still gets its slip
    again = post(cash, LUNCH, "k-used")
    assert again.status_code == 201 and again.json()["id"] == first.json()["id"], again.text


def test_a_bad_query_does_not_take_the_key(cash: Http, records: ExpiredKeys) -> None:
    csv = "date,kind,amount,account,to_account,category,memo\n2026-11-07,expense,300,cash,,食費,coffee\n"
    headers = {"Idempotency-Key": "k-query", "Content-Type": "text/csv"}
    # Given an import refused for its query
    bad = cash.post("/imports", params={"dry_run": "perhaps"}, data=csv.encode(), headers=headers)
    assert code(bad) == (400, "bad_request"), bad.text
    assert records.made() == set()
    # When the file is sent again with the key and no query
    done = cash.post("/imports", data=csv.encode(), headers=headers)
    # Then it is imported
    assert done.status_code == 200 and done.json()["created"] == 1, done.text
    assert balance(cash) == 19700


# ---- not kept: authorization ---------------------------------------------------------------------


class Household:
    """A shared ledger with 20,000 yen in cash, its owner, and how people join and leave it."""

    def __init__(self, owner: Http, front_url: str) -> None:
        self.owner = owner
        self.front_url = front_url
        made = owner.post("/ledgers", json={"name": "家計"})
        assert made.status_code == 201, made.text
        self.base = f"/ledgers/{made.json()['id']}"
        cash = {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 20000}
        assert owner.post(f"{self.base}/accounts", json=cash).status_code == 201

    def stranger(self) -> Http:
        return Http(self.front_url, f"guest-{uuid.uuid4().hex[:10]}")

    def join(self, guest: Http, role: str) -> None:
        invited = self.owner.post(f"{self.base}/invitations", json={"role": role})
        assert invited.status_code == 201, invited.text
        assert guest.post(f"/invitations/{invited.json()['token']}/accept").status_code == 200

    def member(self, guest: Http) -> str:
        return f"{self.base}/members/{guest.headers['Authorization'].removeprefix('Bearer ')}"

    def set_role(self, guest: Http, role: str) -> None:
        version = self._version(guest)
        changed = self.owner.put(self.member(guest), json={"role": role}, headers={"If-Match": f'"{version}"'})
        assert changed.status_code == 200, changed.text

    def remove(self, guest: Http) -> None:
        version = self._version(guest)
        removed = self.owner.delete(self.member(guest), headers={"If-Match": f'"{version}"'})
        assert removed.status_code == 204, removed.text

    def _version(self, guest: Http) -> int:
        user = guest.headers["Authorization"].removeprefix("Bearer ")
        members = self.owner.get(self.base).json()["members"]
        return int(next(m["version"] for m in members if m["user"] == user))

    def slips(self) -> list[dict[str, Any]]:
        return self.owner.get(f"{self.base}/slips").json()["items"]  # type: ignore[no-any-return]


@pytest.fixture
def household(http: Http, front_url: str) -> Household:
    return Household(http, front_url)


def test_no_identity_is_refused_before_the_key(cash: Http, anonymous: Http, records: ExpiredKeys) -> None:
    # Given a request without a token, refused by the authorizer (API Gateway's answer, not a problem)
    refused = post(anonymous, LUNCH, "k-anon")
    assert refused.status_code == 401, refused.text
    assert records.made() == set()
    assert post(cash, LUNCH, "k-anon").status_code == 201


@pytest.mark.parametrize(("start", "refusal"), [(None, (404, "not_found")), ("viewer", (403, "forbidden"))])
def test_a_caller_refused_then_made_editor_gets_the_request_carried_out(
    household: Household, records: ExpiredKeys, start: str | None, refusal: tuple[int, str]
) -> None:
    # Given a request refused for who sent it: a stranger (404, as if the ledger did not exist) or a viewer
    guest = household.stranger()
    if start is not None:
        household.join(guest, start)
    refused = post(guest, LUNCH, "k-later", f"{household.base}/slips")
    assert code(refused) == refusal, refused.text
    assert records.made() == set()
    # When they become an editor and send it again with the same key
    if start is None:
        household.join(guest, "editor")
    else:
        household.set_role(guest, "editor")
    again = post(guest, LUNCH, "k-later", f"{household.base}/slips")
    # Then it is carried out
    assert again.status_code == 201, again.text
    assert [s["id"] for s in household.slips()] == [again.json()["id"]]


@pytest.mark.parametrize(("change", "refusal"), [("remove", (404, "not_found")), ("viewer", (403, "forbidden"))])
def test_a_member_removed_or_made_viewer_gets_no_replay(
    household: Household, change: str, refusal: tuple[int, str]
) -> None:
    # Given an editor who made a slip with a key
    editor = household.stranger()
    household.join(editor, "editor")
    made = post(editor, LUNCH, "k-editor", f"{household.base}/slips")
    assert made.status_code == 201, made.text
    # When they are removed, or made a viewer, and send the key again
    if change == "remove":
        household.remove(editor)
    else:
        household.set_role(editor, "viewer")
    replay = post(editor, LUNCH, "k-editor", f"{household.base}/slips")
    # Then they are refused as they are now, never given the kept answer, and nothing more is written
    assert code(replay) == refusal, replay.text
    assert [s["id"] for s in household.slips()] == [made.json()["id"]]


# ---- concurrently: a mismatched request and the original racing ----------------------------------


def race(url: str, headers: dict[str, str], bodies: list[dict[str, Any]]) -> list[requests.Response]:
    """POST each body from a thread of its own, on a connection of its own, released together."""
    barrier = threading.Barrier(len(bodies))
    replies: list[requests.Response | BaseException | None] = [None] * len(bodies)

    def client(index: int) -> None:
        with requests.Session() as session:
            try:
                barrier.wait(timeout=120)
                replies[index] = session.post(url, json=bodies[index], headers=headers, timeout=120)
            except BaseException as exc:  # reported below, with the others
                replies[index] = exc

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    done = [r for r in replies if isinstance(r, requests.Response)]
    assert len(done) == len(bodies), replies
    return done


@pytest.mark.parametrize("record", RECORD)
def test_a_mismatched_request_racing_the_original_never_takes_its_key(
    cash: Http, front_url: str, user: str, records: ExpiredKeys, record: str
) -> None:
    # Given a slip created with a key
    first = post(cash, LUNCH, "k-race")
    assert first.status_code == 201, first.text
    headers = {"Authorization": f"Bearer {user}", "Idempotency-Key": "k-race"}
    mismatched = {**LUNCH, "amount": 701}
    for _ in range(4):
        if record == "expired":
            records.expire()
        # When a mismatched request and the original (twice) are sent at the same moment
        replies = race(f"{front_url}/slips", headers, [mismatched, LUNCH, LUNCH])
        # Then the mismatched one is refused for the key or told to wait, never given a slip
        assert code(replies[0]) in {(422, "idempotency_key_reused"), (409, "request_in_progress")}, replies[0].text
        # And the original gets its slip or is told to wait
        for reply in replies[1:]:
            if reply.status_code != 201:
                assert code(reply) == (409, "request_in_progress"), reply.text
            else:
                assert reply.json()["id"] == first.json()["id"]
        # And the original, sent again, gets its slip
        again = post(cash, LUNCH, "k-race")
        assert again.status_code == 201 and again.json()["id"] == first.json()["id"], again.text
    assert [s["id"] for s in slips(cash)] == [first.json()["id"]]
    assert balance(cash) == 18800
