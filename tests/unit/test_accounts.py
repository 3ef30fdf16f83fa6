"""Accounts through the handler (moto): create, read, list, patch with ETag / If-Match."""

from __future__ import annotations

import pytest

from tests.events import Client


def test_create_returns_201_with_location_etag_and_balance(api: Client) -> None:
    # When an account is created
    reply = api.post("/accounts", {"id": "cash", "name": "財布", "type": "cash", "opening_balance": 20000})
    # Then
    assert reply.status == 201
    assert reply.header("Location") == "/accounts/cash"
    assert reply.etag == '"1"'
    assert reply.json["balance"] == 20000
    assert reply.json["allow_negative"] is False
    assert api.get("/accounts/cash").json["name"] == "財布"


def test_credit_cards_may_go_negative_by_default(api: Client) -> None:
    assert api.account("card", type="credit")["allow_negative"] is True
    assert api.account("bank", type="bank")["allow_negative"] is False


def test_duplicate_id_is_409(api: Client) -> None:
    api.account("cash")
    reply = api.post("/accounts", {"id": "cash", "name": "again", "type": "cash"})
    assert reply.status == 409
    assert reply.json["code"] == "already_exists"
    assert reply.header("Content-Type") == "application/problem+json"


def test_another_ledger_sees_404_and_an_empty_list(api: Client, other_api: Client) -> None:
    api.account("cash", 500)
    assert other_api.get("/accounts/cash").status == 404
    assert other_api.get("/accounts").json == {"items": []}
    # and may create its own account with the same id
    assert other_api.account("cash", 7)["balance"] == 7
    assert api.get("/accounts/cash").json["balance"] == 500


def test_list_is_sorted_by_id(api: Client) -> None:
    for name in ("suica", "bank", "cash"):
        api.account(name)
    assert [a["id"] for a in api.get("/accounts").json["items"]] == ["bank", "cash", "suica"]


def test_patch_needs_if_match(api: Client) -> None:
    api.account("cash")
    reply = api.patch("/accounts/cash", {"name": "お財布"})
    assert reply.status == 428
    assert reply.json["code"] == "precondition_required"


def test_patch_with_stale_etag_is_412_and_changes_nothing(api: Client) -> None:
    api.account("cash")
    assert api.patch("/accounts/cash", {"name": "A"}, headers={"If-Match": '"1"'}).status == 200
    reply = api.patch("/accounts/cash", {"name": "B"}, headers={"If-Match": '"1"'})
    assert reply.status == 412
    assert reply.json["code"] == "version_mismatch"
    assert reply.json["current"] == 2
    assert api.get("/accounts/cash").json["name"] == "A"


def test_patch_renames_archives_and_bumps_the_etag(api: Client) -> None:
    api.account("cash")
    reply = api.patch(
        "/accounts/cash",
        {"name": "小銭", "archived": True, "allow_negative": True},
        headers={"If-Match": '"1"'},
    )
    assert reply.status == 200
    assert reply.etag == '"2"'
    assert (reply.json["name"], reply.json["archived"], reply.json["allow_negative"]) == ("小銭", True, True)


def test_patch_of_another_ledgers_account_is_404(api: Client, other_api: Client) -> None:
    api.account("cash")
    reply = other_api.patch("/accounts/cash", {"name": "mine"}, headers={"If-Match": '"1"'})
    assert reply.status == 404
    assert api.get("/accounts/cash").json["name"] == "Cash"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"id": "cash", "name": "x", "type": "cash", "extra": 1}, "extra"),
        ({"id": "cash", "name": "x", "type": "wallet"}, "type"),
        ({"id": "ca#sh", "name": "x", "type": "cash"}, "id"),
        ({"id": "cash", "name": "x", "type": "cash", "opening_balance": 1.5}, "opening_balance"),
        ({"id": "cash", "name": "x", "type": "cash", "opening_balance": "100"}, "opening_balance"),
        ({"id": "cash", "name": "x", "type": "cash", "opening_balance": True}, "opening_balance"),
        ({"id": "cash", "name": "x", "type": "cash", "opening_balance": 10**13}, "opening_balance"),
        ({"id": "cash", "name": "\u202eevil", "type": "cash"}, "name"),
        ({"id": "cash", "name": "   ", "type": "cash"}, "name"),
        ({"name": "x", "type": "cash"}, "id"),
    ],
)
def test_invalid_account_is_422_naming_the_field(api: Client, body: dict[str, object], field: str) -> None:
    reply = api.post("/accounts", body)
    assert reply.status == 422, reply
    assert reply.json["code"] == "validation_error"
    assert any(e["loc"][-1] == field or field in e["loc"] for e in reply.json["errors"]), reply.json
    assert api.get("/accounts").json["items"] == []


@pytest.mark.parametrize("raw", ["{bad", "", "[1,", "NaN", '{"id": NaN}', "[" * 50000])
def test_malformed_json_is_400(api: Client, raw: str) -> None:
    reply = api.post("/accounts", raw=raw)
    assert reply.status == 400
    assert reply.json["code"] == "bad_request"


def test_non_utf8_body_is_400(api: Client) -> None:
    assert api.post("/accounts", raw=b"\xff\xfe{}").status == 400


def test_wrong_content_type_is_415(api: Client) -> None:
    reply = api.post("/accounts", raw="id=cash", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status == 415
    assert reply.json["code"] == "unsupported_media_type"


def test_oversized_body_is_413(api: Client) -> None:
    reply = api.post("/accounts", {"id": "cash", "name": "x" * 70000, "type": "cash"})
    assert reply.status == 413
    assert reply.json["code"] == "payload_too_large"


def test_no_identity_is_401(api: Client) -> None:
    assert api.get("/accounts", user=None).status == 401
    assert api.post("/accounts", {"id": "cash", "name": "x", "type": "cash"}, user=None).status == 401


def test_health_and_docs_need_no_identity(api: Client) -> None:
    assert api.get("/health", user=None).json["status"] == "ok"
    spec = api.get("/openapi.json", user=None).json
    assert {"/accounts", "/slips", "/slips/{date}/{id}"} <= set(spec["paths"])
    swagger = api.get("/swagger", user=None)
    assert swagger.status == 200 and b"swagger" in swagger.raw.lower()


def test_undeclared_route_is_404_like_api_gateway(api: Client) -> None:
    assert api.get("/nope").status == 404
    assert api.request("DELETE", "/accounts/cash").status == 404


@pytest.mark.parametrize("body", [{"type": "cash"}, {"type": "bank"}, {"type": "credit", "allow_negative": False}])
def test_an_opening_balance_below_zero_needs_an_account_that_may_go_negative(api: Client, body: dict) -> None:
    reply = api.post("/accounts", {"id": "acct", "name": "Acct", "opening_balance": -1, **body})
    assert reply.status == 422 and reply.json["code"] == "validation_error", reply
    assert api.get("/accounts").json == {"items": []}


def test_an_opening_balance_below_zero_is_fine_where_negative_is_allowed(api: Client) -> None:
    assert api.account("card", -5000, type="credit")["balance"] == -5000
    assert api.account("loan", -100, type="other", allow_negative=True)["balance"] == -100


def test_history_ends_today_in_the_ledgers_time_zone(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    from kakeibo import settings

    # Given it is 01:00 on 2026-11-23 in Tokyo (still 2026-11-22 in UTC)
    monkeypatch.setattr(settings, "utc_now", lambda: dt.datetime(2026, 11, 22, 16, 0, tzinfo=dt.UTC))
    api.account("cash", 100)
    # When the history is asked for without `to`
    reply = api.get("/accounts/cash/history")
    # Then it runs to today in Tokyo, 31 days
    assert reply.status == 200, reply
    assert (reply.json["from"], reply.json["to"]) == ("2026-10-24", "2026-11-23")
    assert len(reply.json["items"]) == 31


def test_the_time_zone_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    from kakeibo import settings

    monkeypatch.setattr(settings, "utc_now", lambda: dt.datetime(2026, 11, 22, 16, 0, tzinfo=dt.UTC))
    monkeypatch.setenv("LEDGER_TIME_ZONE", "America/New_York")
    settings.get_settings.cache_clear()
    assert settings.today() == dt.date(2026, 11, 22)
    monkeypatch.setenv("LEDGER_TIME_ZONE", "Mars/Olympus")
    settings.get_settings.cache_clear()
    with pytest.raises(ValueError, match="unknown time zone"):
        settings.get_settings()
