"""The local front over real HTTP: template routes only, the authorizer emulation, CORS."""

from __future__ import annotations

import base64
import json
import socket
from typing import Any

from tests.api.conftest import Http


def _unsigned_jwt(sub: str) -> str:
    def part(obj: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'sub': sub})}."


def test_health_without_identity(anonymous: Http) -> None:
    reply = anonymous.get("/health")
    assert reply.status_code == 200 and reply.json()["status"] == "ok"


def test_protected_route_without_identity_is_401(anonymous: Http) -> None:
    assert anonymous.get("/accounts").status_code == 401
    assert anonymous.get("/accounts", headers={"Authorization": "Basic abc"}).status_code == 401


def test_bearer_user_and_unsigned_jwt_sub_are_the_same_ledger(http: Http, anonymous: Http, user: str) -> None:
    # Given an account made with `Bearer <user>`
    assert http.post("/accounts", json={"id": "cash", "name": "Cash", "type": "cash"}).status_code == 201
    # When the same user calls with an unsigned JWT whose sub is that user
    reply = anonymous.get("/accounts/cash", headers={"Authorization": f"Bearer {_unsigned_jwt(user)}"})
    # Then it is the same ledger
    assert reply.status_code == 200 and reply.headers["ETag"] == '"1"'


def test_undeclared_routes_and_methods_are_404(http: Http) -> None:
    assert http.get("/nope").status_code == 404
    assert http.put("/accounts").status_code == 404
    assert http.get("/slips/2026-11-03").status_code == 404


UNDECLARED = [
    ("GET", "/ledgers/me/webhooks/01KAJ0000000000000000000ZZ"),  # a webhook has DELETE, resume, deliveries
    ("GET", "/ledgers/me/members/someone"),
    ("GET", "/changes/12"),
    ("GET", "/budgets/2026-11/食費"),
    ("PATCH", "/ledgers/me/webhooks/01KAJ0000000000000000000ZZ"),
    ("GET", "/nope"),
]


def test_a_request_no_route_matches_is_a_problem_json_404_in_the_callers_language(http: Http, anonymous: Http) -> None:
    for method, path in UNDECLARED:
        for caller in (http, anonymous):
            # When a path or method the API has not got is asked for, in Japanese or in English
            ja = caller.request(method, path, headers={"Accept-Language": "ja"})
            en = caller.request(method, path)
            # Then it is a problem+json 404 worded for the caller (never API Gateway's {"message":"Not Found"})
            for reply in (ja, en):
                assert reply.status_code == 404, (method, path, reply.text)
                assert reply.headers["Content-Type"] == "application/problem+json", (method, path, reply.text)
                assert reply.json()["code"] == "not_found" and reply.json()["status"] == 404
            assert ja.json()["detail"] == "この URL の API はありません", (method, path, ja.text)
            assert en.json()["detail"] == "no such route", (method, path, en.text)
            assert ja.headers["Content-Language"] == "ja"


def test_cors_preflight_and_exposed_headers(http: Http) -> None:
    origin = "http://localhost:3000"
    pre = http.options(
        "/slips",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "PATCH",
            "Access-Control-Request-Headers": "if-match",
        },
    )
    assert pre.status_code == 204
    assert pre.headers["Access-Control-Allow-Origin"] == origin
    assert "If-Match" in pre.headers["Access-Control-Allow-Headers"]
    assert "PATCH" in pre.headers["Access-Control-Allow-Methods"]
    got = http.get("/accounts", headers={"Origin": origin})
    assert "ETag" in got.headers["Access-Control-Expose-Headers"]
    assert (
        "Access-Control-Allow-Origin" not in http.get("/accounts", headers={"Origin": "https://evil.example"}).headers
    )


def test_problem_json_over_http(http: Http) -> None:
    reply = http.post("/accounts", data="{oops", headers={"Content-Type": "application/json"})
    assert reply.status_code == 400
    assert reply.headers["Content-Type"] == "application/problem+json"
    assert reply.json()["code"] == "bad_request"


def test_swagger_ui_and_spec(anonymous: Http) -> None:
    ui = anonymous.get("/swagger")
    assert ui.status_code == 200 and "text/html" in ui.headers["Content-Type"]
    spec = anonymous.get("/openapi.json").json()
    assert spec["info"]["title"] == "Kakeibo API"
    assert "bearer" in spec["components"]["securitySchemes"]


def test_path_parameters_reach_the_function_decoded_as_api_gateway_sends_them(http: Http) -> None:
    # Given a category in Japanese, which a browser or requests percent-encodes in the path
    reply = http.put("/budgets/2026-11/%E9%A3%9F%E8%B2%BB", json={"limit": 30000, "strict": False})
    assert reply.status_code == 201, reply.text
    # Then the budget is filed under the category itself, as behind API Gateway (it decodes rawPath)
    assert reply.json()["category"] == "食費"
    listed = http.get("/budgets", params={"month": "2026-11"}).json()["items"]
    assert [b["category"] for b in listed] == ["食費"]


def _raw_get(front_url: str, target: bytes, user: str) -> tuple[int, Any]:
    """A GET whose request target goes on the wire byte for byte, as curl sends `?category=日用品`."""
    host, port = front_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(
            b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\n"
            b"Authorization: Bearer " + user.encode() + b"\r\nConnection: close\r\n\r\n"
        )
        raw = b""
        while chunk := conn.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body)


def test_a_raw_utf8_query_is_read_as_utf8(http: Http, front_url: str, user: str) -> None:
    # Given two slips in 日用品 and one in 食費
    account = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10000}
    assert http.post("/accounts", json=account).status_code == 201
    for amount, category in ((100, "日用品"), (200, "日用品"), (300, "食費")):
        slip = {"date": "2026-11-03", "kind": "expense", "amount": amount, "account": "cash", "category": category}
        assert http.post("/slips", json=slip).status_code == 201
    # When the category is sent in the query as raw UTF-8 bytes (curl "$API/slips?category=日用品")
    status, body = _raw_get(front_url, "/slips?category=日用品".encode(), user)
    # Then both of its slips are found, as with the percent-encoded query
    assert status == 200, body
    assert sorted(s["amount"] for s in body["items"]) == [100, 200]
    encoded = http.get("/slips", params={"category": "日用品"}).json()["items"]
    assert sorted(s["amount"] for s in encoded) == [100, 200]


def test_a_query_that_is_not_utf8_is_a_400(front_url: str, user: str) -> None:
    # Given queries whose bytes are not UTF-8: raw (Shift_JIS) or percent-encoded
    for target in ("/slips?category=日用品".encode("shift_jis"), b"/slips?category=%93%FA%97p%95i"):
        # When they are sent, Then each is a 400 naming the query, never an empty list
        status, body = _raw_get(front_url, target, user)
        assert status == 400, (target, body)
        assert body["code"] == "bad_request" and "UTF-8" in body["detail"], body
