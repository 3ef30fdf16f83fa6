"""The local front over real HTTP: template routes only, the authorizer emulation, CORS."""

from __future__ import annotations

import base64
import json

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
