"""Personal access tokens (§25): made once, kept as their hash, live until revoked or expired, at
most 20 per person, acting as their person within the person's role, `read` tokens reading only."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kakeibo import settings as kakeibo_settings
from kakeibo.core import tokens
from kakeibo.services import tokens as service
from kakeibo.store import get_token_store
from tests.concurrently import fan_out
from tests.events import Client


def _make(api: Client, scope: str = "write", **extra: Any) -> dict[str, Any]:
    made = api.post("/me/tokens", {"name": f"script {scope}", "scope": scope, **extra})
    assert made.status == 201, made
    return dict(made.json)


def test_a_token_is_shown_once_and_kept_only_as_its_hash(api: Client, store: Any, user: str) -> None:
    # When a signed-in person makes a token
    made = _make(api, "read", expires_in_days=30)

    # Then it is a well-formed kk_ token, shown with its prefix, scope and expiry 30 days on
    secret = made["token"]
    assert tokens.well_formed(secret) and secret.startswith(made["prefix"]) and made["scope"] == "read"
    created = dt.datetime.fromisoformat(made["created_at"].replace("Z", "+00:00"))
    expires = dt.datetime.fromisoformat(made["expires_at"].replace("Z", "+00:00"))
    assert expires - created == dt.timedelta(days=30)
    # And the list shows it without the secret, never used yet
    listed = api.get("/me/tokens").json["items"]
    assert [(t["id"], t["name"], t["last_used_at"]) for t in listed] == [(made["id"], "script read", None)]
    assert "token" not in listed[0]
    # And nothing stored holds the secret: only its SHA-256 finds it
    found = get_token_store().by_digest(tokens.digest(secret))
    assert found is not None and found["sub"] == user
    assert secret not in json.dumps(found, default=str)
    assert secret not in json.dumps(get_token_store().tokens_of(user)[0], default=str)


def test_a_token_acts_as_its_person_and_a_read_token_only_reads(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the tokens' clock at one instant (the day of use recorded is that instant's, whenever this runs)
    instant = dt.datetime(2026, 12, 1, 14, 59, 59, tzinfo=dt.UTC)  # 23:59:59 in Tokyo, still 12/1 in UTC
    monkeypatch.setattr(service, "utc_now", lambda: instant)
    # And a person with an account, a read token and a write token
    api.account("wallet", 5000)
    reader, writer = Client(_make(api, "read")["token"]), Client(_make(api, "write")["token"])

    # When each reads the person's accounts
    # Then both see the person's own ledger
    for client in (reader, writer):
        got = client.request("GET", "/accounts")
        assert got.status == 200 and [a["id"] for a in got.json["items"]] == ["wallet"], got

    # When the read token records a slip
    slip = {"date": "2026-11-03", "kind": "expense", "amount": 300, "account": "wallet", "category": "食費"}
    refused = reader.request("POST", "/slips", slip, headers={"Accept-Language": "ja"})
    # Then it is refused as beyond its scope, in the caller's language, and nothing is written
    assert refused.status == 403 and refused.json["code"] == "token_scope", refused
    assert "読み取り専用" in refused.json["detail"]
    assert api.get("/accounts/wallet").json["balance"] == 5000

    # When the write token records it
    made = writer.request("POST", "/slips", slip)
    # Then it is the person's slip
    assert made.status == 201, made
    assert api.get("/accounts/wallet").json["balance"] == 4700
    # And the token's use is recorded to the day
    used = {t["scope"]: t["last_used_at"] for t in api.get("/me/tokens").json["items"]}
    assert used == {"read": "2026-12-01", "write": "2026-12-01"}


def test_get_me_says_who_calls_and_whether_they_may_write(api: Client, user: str) -> None:
    # Given a signed-in person with a read token and a write token
    reader, writer = _make(api, "read"), _make(api, "write")

    # When each of them asks who they are
    signed_in = api.get("/me")
    read = Client(reader["token"]).request("GET", "/me")
    write = Client(writer["token"]).request("GET", "/me")

    # Then each is the person, told how they came in and what they may do
    assert signed_in.status == 200, signed_in
    assert signed_in.json == {"user": user, "via": "jwt", "scope": "write", "token_id": None}
    assert read.json == {"user": user, "via": "token", "scope": "read", "token_id": reader["id"]}
    assert write.json == {"user": user, "via": "token", "scope": "write", "token_id": writer["id"]}


def test_a_viewers_write_token_cannot_write_in_that_ledger(api: Client, other_api: Client, other_user: str) -> None:
    # Given a shared ledger where the other person is a viewer, and their write token
    ledger = api.post("/ledgers", {"name": "家族"}).json["id"]
    invite = api.post(f"/ledgers/{ledger}/invitations", {"role": "viewer"})
    assert invite.status == 201, invite
    assert other_api.post(f"/invitations/{invite.json['token']}/accept").status in (200, 201)
    opened = api.post(
        f"/ledgers/{ledger}/accounts", {"id": "wallet", "name": "財布", "type": "cash", "opening_balance": 1000}
    )
    assert opened.status == 201, opened
    token = Client(_make(other_api, "write")["token"])
    slip = {"date": "2026-11-03", "kind": "expense", "amount": 300, "account": "wallet", "category": "食費"}

    # When the token reads and writes there
    read = token.request("GET", f"/ledgers/{ledger}/accounts")
    wrote = token.request("POST", f"/ledgers/{ledger}/slips", slip)

    # Then it reads as a viewer does, and its write is refused by the role, nothing written
    assert read.status == 200, read
    assert wrote.status == 403 and wrote.json["code"] == "forbidden", wrote
    assert api.get(f"/ledgers/{ledger}/accounts/wallet").json["balance"] == 1000


def test_a_revoked_expired_or_mistyped_token_proves_nothing(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two tokens, one of which expires in a day
    kept, short = _make(api), _make(api, expires_in_days=1)
    store = get_token_store()
    assert service.grant(store, kept["token"]) is not None

    # When one character of a token is changed: refused without a read
    typo = kept["token"][:-1] + ("A" if kept["token"][-1] != "A" else "B")
    reads: list[str] = []
    monkeypatch.setattr(store, "by_digest", reads.append)
    assert service.grant(store, typo) is None and reads == []
    monkeypatch.undo()

    # When the short one's day has passed
    later = kakeibo_settings.utc_now() + dt.timedelta(days=1, seconds=1)
    monkeypatch.setattr(service, "utc_now", lambda: later)
    # Then it proves nothing, and the other still does
    assert service.grant(store, short["token"]) is None
    assert service.grant(store, kept["token"]) is not None
    monkeypatch.undo()

    # When the kept one is revoked
    assert api.delete(f"/me/tokens/{kept['id']}").status == 204
    # Then it proves nothing: its request reaches the function as nobody's, 401, and revoking it again is 404
    assert service.grant(store, kept["token"]) is None
    refused = Client(kept["token"]).get("/accounts")
    assert refused.status == 401 and refused.json["code"] == "unauthorized", refused
    assert "invalid_token" in refused.headers["WWW-Authenticate"], refused
    assert Client(typo).get("/accounts").status == 401
    again = api.delete(f"/me/tokens/{kept['id']}")
    assert again.status == 404 and again.json["code"] == "not_found", again


def test_tokens_are_managed_only_when_signed_in(api: Client) -> None:
    # Given a write token
    token = Client(_make(api)["token"])
    # When it lists, makes or revokes tokens
    answers = [
        token.request("GET", "/me/tokens"),
        token.request("POST", "/me/tokens", {"name": "x", "scope": "write"}),
        token.request("DELETE", f"/me/tokens/{api.get('/me/tokens').json['items'][0]['id']}"),
    ]
    # Then each is refused as beyond a token's scope, and the person still has their one token
    assert [(a.status, a.json["code"]) for a in answers] == [(403, "token_scope")] * 3, answers
    assert len(api.get("/me/tokens").json["items"]) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "scope": "admin"}, "scope"),
        ({"name": "x", "scope": "read", "expires_in_days": 0}, "expires_in_days"),
        ({"name": "x", "scope": "read", "expires_in_days": 366}, "expires_in_days"),
        ({"name": "", "scope": "read"}, "name"),
        ({"scope": "read"}, "name"),
    ],
)
def test_a_bad_request_for_a_token_names_the_field_and_makes_none(
    api: Client, body: dict[str, Any], field: str
) -> None:
    # When a token is asked for with a bad field
    refused = api.post("/me/tokens", body)
    # Then 422 names the field, and no token is made
    assert refused.status == 422, refused
    assert field in json.dumps(refused.json["errors"]), refused
    assert api.get("/me/tokens").json["items"] == []


def test_at_most_twenty_live_tokens_however_many_are_made_at_once(api: Client, user: str) -> None:
    # Given a person with 17 tokens
    for _ in range(17):
        _make(api)

    # When 8 more are asked for at once
    answers = fan_out(user, [("POST", "/me/tokens", {"name": "burst", "scope": "read"}, None)] * 8)

    # Then exactly 3 are made, the others refused naming the limit, and the person has 20
    statuses = sorted(a.status for a in answers)
    assert statuses == [201] * 3 + [409] * 5, statuses
    refusals = [a.json for a in answers if a.status == 409]
    assert all(r["code"] == "limit_reached" and r["limit"] == 20 for r in refusals), refusals
    assert len(api.get("/me/tokens").json["items"]) == 20
    # And a revoked one frees a place
    first = api.get("/me/tokens").json["items"][0]["id"]
    assert api.delete(f"/me/tokens/{first}").status == 204
    assert api.post("/me/tokens", {"name": "again", "scope": "read"}).status == 201


def test_deleting_ones_data_revokes_every_token(api: Client, user: str) -> None:
    # Given a person with two tokens
    secrets = [_make(api)["token"], _make(api, "read")["token"]]
    # When they delete their data
    assert api.delete("/me").status == 202
    # Then no token proves anything, and none of their token items is left
    assert [service.grant(get_token_store(), s) for s in secrets] == [None, None]
    assert get_token_store().tokens_of(user) == ([], 0)


@settings(deadline=None, max_examples=200)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=3, max_value=tokens.LENGTH - 1),
       st.sampled_from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))  # fmt: skip
def test_any_one_character_changed_is_caught_by_the_checksum(raw: bytes, at: int, other: str) -> None:
    # Given a token from any 32 bytes
    token = tokens.new_token(raw)
    assert tokens.well_formed(token) and len(token) == tokens.LENGTH
    # When one of its characters after the prefix is changed
    changed = token[:at] + other + token[at + 1 :]
    # Then it is refused as typed (a CRC-32 catches every single-character change)
    assert tokens.well_formed(changed) == (changed == token)
