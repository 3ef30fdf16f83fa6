"""The local front over real HTTP: template routes only, CORS, and the JWT authorizer of
template.yaml in front of the local user pool: a person signed in as the page signs in reaches their
own ledger; every token API Gateway would refuse gets its 401 before the function runs."""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kakeibo.local.cognito import UserPool
from kakeibo.local.front import Front, Function, InProcess
from kakeibo.local.instances import Pool
from kakeibo.local.s3 import S3Local
from kakeibo.local.template import ROOT
from tests.api.conftest import Http, serving
from tests.users import Person, other_client, payload, person, signed, tokens


def test_health_without_identity(anonymous: Http) -> None:
    reply = anonymous.get("/health")
    assert reply.status_code == 200 and reply.json()["status"] == "ok"


def test_protected_route_without_identity_is_401(anonymous: Http) -> None:
    assert anonymous.get("/accounts").status_code == 401
    assert anonymous.get("/accounts", headers={"Authorization": "Basic abc"}).status_code == 401


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


# -- signed in with the local user pool ---------------------------------------------------------


@pytest.fixture
def hanako(s3_local: S3Local, user_pool: UserPool) -> Person:
    """Signed up, confirmed with the code the pool printed, signed in (her ID and access tokens)."""
    return person(s3_local, user_pool)


def test_a_person_signed_in_with_the_local_pool_writes_in_their_own_ledger(
    anonymous: Http, hanako: Person, s3_local: S3Local, user_pool: UserPool
) -> None:
    # When Hanako records an account with her ID token
    made = anonymous.post("/accounts", json={"id": "cash", "name": "財布", "type": "cash"}, headers=hanako.auth)
    # Then it is made, in the ledger her `sub` names (the same one `Bearer <her sub>` reaches locally)
    assert made.status_code == 201, made.text
    assert anonymous.get("/accounts/cash", headers={"Authorization": f"Bearer {hanako.sub}"}).status_code == 200
    # And her access token reaches it too (API Gateway takes its client_id for the audience)
    assert anonymous.get("/accounts/cash", headers={"Authorization": f"Bearer {hanako.access_token}"}).ok
    # And the token alone, without `Bearer `, is read as API Gateway reads the identity source
    assert anonymous.get("/accounts/cash", headers={"Authorization": hanako.id_token}).ok
    # And another person signed in has a ledger of their own, without it
    taro = person(s3_local, user_pool)
    assert anonymous.get("/accounts", headers=taro.auth).json()["items"] == []


class Recording:
    """A function that keeps the events it is given, and answers 200."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.events.append(event)
        return {"statusCode": 200, "body": "{}"}


def test_the_caller_reaches_the_function_as_the_lambda_authorizer_passes_it(
    hanako: Person, user_pool: UserPool
) -> None:
    # Given a front in front of a function that keeps its events
    function = Recording()
    front = Front(InProcess(function), authorizer=user_pool.authorizer())
    # When Hanako calls with her ID token, then with her access token
    for token in (hanako.id_token, hanako.access_token):
        status, _, _ = front.handle("GET", "/accounts", {"Authorization": f"Bearer {token}"}, b"")
        assert status == 200
    # Then the function gets her, signed in, as the authorizer's context (no claim beyond who she is)
    for event in function.events:
        assert event["requestContext"]["authorizer"] == {
            "lambda": {"sub": hanako.sub, "via": "jwt", "scope": "write", "token_id": ""}
        }
    # And a public route is served without the authorizer: a broken token changes nothing there
    status, _, _ = front.handle("GET", "/health", {"Authorization": "Bearer x.y.z"}, b"")
    assert status == 200 and "authorizer" not in function.events[-1]["requestContext"]


def _claims(who: Person, pool: UserPool, **changed: Any) -> dict[str, Any]:
    """Her ID token's claims, with `changed` (None: left out)."""
    now = int(time.time())
    claims = {**payload(who.id_token), "iat": now, "auth_time": now, "exp": now + 3600, **changed}
    return {k: v for k, v in claims.items() if v is not None}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _tampered(who: Person, pool: UserPool, server: S3Local) -> str:
    # another person's genuine token, its payload changed to name her `sub`
    other = person(server, pool).id_token
    head, _, sig = other.split(".")
    return f"{head}.{_b64(json.dumps({**payload(other), 'sub': who.sub}).encode())}.{sig}"


def _alg_none(who: Person, pool: UserPool, server: S3Local) -> str:
    head = _b64(json.dumps({"alg": "none", "kid": "dummy"}).encode())
    return f"{head}.{who.id_token.split('.')[1]}."


def _random_signature(who: Person, pool: UserPool, server: S3Local) -> str:
    head, body, _ = who.id_token.split(".")
    return f"{head}.{body}.{_b64(os.urandom(256))}"


def _another_key(who: Person, pool: UserPool, server: S3Local) -> str:
    # signed as RS256 with kid "dummy", but by a key of someone else's
    from joserfc import jwk

    return signed(_claims(who, pool), key=jwk.RSAKey.generate_key(2048, parameters={"kid": "dummy"}))


def _hs256(who: Person, pool: UserPool, server: S3Local) -> str:
    from joserfc import jwk

    return signed(_claims(who, pool), alg="HS256", key=jwk.OctKey.import_key(os.urandom(32)))


def _other_audience(who: Person, pool: UserPool, server: S3Local) -> str:
    # a genuine ID token of the pool, for another app client
    return tokens(pool, who.email, client_id=other_client(pool))["IdToken"]


def _other_client_access(who: Person, pool: UserPool, server: S3Local) -> str:
    return tokens(pool, who.email, client_id=other_client(pool))["AccessToken"]


REFUSED: dict[str, Callable[[Person, UserPool, S3Local], str]] = {
    "tampered payload": _tampered,
    "expired": lambda p, pool, s: signed(_claims(p, pool, exp=int(time.time()) - 60, iat=int(time.time()) - 3660)),
    "without exp": lambda p, pool, s: signed(_claims(p, pool, exp=None)),
    "alg none": _alg_none,
    "random signature": _random_signature,
    "signed by another key": _another_key,
    "HS256": _hs256,
    "a kid the issuer does not have": lambda p, pool, s: signed(_claims(p, pool), kid="rotated"),
    "other audience": _other_audience,
    "access token of another client": _other_client_access,
    # an access token names its client in client_id: with aud instead, its claims are not the pool's
    "access token with the claims of an ID token": lambda p, pool, s: signed(_claims(p, pool, token_use="access")),
    "ID token naming its client in client_id": lambda p, pool, s: signed(
        _claims(p, pool, aud=None, client_id=pool.client_id)
    ),
    "another issuer": lambda p, pool, s: signed(_claims(p, pool, iss=pool.issuer + "x")),
    "nbf in the future": lambda p, pool, s: signed(_claims(p, pool, nbf=int(time.time()) + 3600)),
    "iat in the future": lambda p, pool, s: signed(_claims(p, pool, iat=int(time.time()) + 3600)),
}


class Counting:
    """The function behind a front, with a count of its invocations."""

    def __init__(self, function: Function) -> None:
        self.function = function
        self.calls = 0

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        return self.function.invoke(event)


@pytest.fixture(scope="module")
def counted(function_pool: Pool, user_pool: UserPool) -> Iterator[tuple[str, Counting]]:
    """A front of its own (the user pool's authorizer) over the function's instances, counting calls."""
    function = Counting(function_pool)
    with serving(Front(function, authorizer=user_pool.authorizer())) as url:
        yield url, function


def test_the_token_builders_make_what_the_pool_would_accept_but_for_their_one_fault(
    hanako: Person, user_pool: UserPool, counted: tuple[str, Counting]
) -> None:
    # Given a token signed with the pool's key and her claims, nothing changed
    url, _ = counted
    token = signed(_claims(hanako, user_pool))
    # Then it is let through: each refused token below differs from it in its one fault only
    assert Http(url, None).get("/accounts", headers={"Authorization": f"Bearer {token}"}).status_code == 200


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_token_api_gateway_would_refuse_is_its_401_and_the_function_never_runs(
    kind: str, hanako: Person, user_pool: UserPool, s3_local: S3Local, counted: tuple[str, Counting], anonymous: Http
) -> None:
    # Given a token naming Hanako that API Gateway's JWT authorizer would refuse (the Lambda authorizer's checks)
    url, function = counted
    token = REFUSED[kind](hanako, user_pool, s3_local)
    before = function.calls
    # When it is sent to write into her ledger
    reply = Http(url, None).post("/accounts", json={"id": "stolen", "name": "x", "type": "cash"},
                                 headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    # Then the authorizer let it through as nobody, and the function answered 401 saying why (RFC 6750)
    assert reply.status_code == 401 and reply.json()["code"] == "unauthorized", reply.text
    assert reply.headers["www-authenticate"].startswith(
        'Bearer realm="kakeibo", error="invalid_token", error_description='
    )
    assert function.calls == before + 1
    # And her ledger has no such account
    assert anonymous.get("/accounts/stolen", headers=hanako.auth).status_code == 404


def test_strict_mode_refuses_bearer_name_and_lets_the_pool_s_tokens_through(
    function_pool: Pool, user_pool: UserPool, hanako: Person
) -> None:
    # Given the front as `LOCAL_AUTH=strict make run` serves it
    with serving(Front(function_pool, authorizer=user_pool.authorizer(), names=False)) as url:
        caller = Http(url, None)
        # When someone calls with the curl shortcut `Bearer <name>`, even naming her sub
        for name in ("hanako", hanako.sub):
            reply = caller.get("/accounts", headers={"Authorization": f"Bearer {name}"})
            # Then it is a 401: the authorizer takes no names, only tokens
            assert reply.status_code == 401 and reply.json()["code"] == "unauthorized"
            assert 'error_description="the token is not a JWT"' in reply.headers["www-authenticate"]
        # And her ID token is let through, as without a token nothing is
        assert caller.get("/accounts", headers=hanako.auth).status_code == 200
        assert caller.get("/accounts").json() == {"message": "Unauthorized"}  # API Gateway's: no header


def _nobody_refused(event: dict[str, Any]) -> dict[str, Any]:
    """A function that answers 401 to a request the authorizer let through without a caller."""
    return {"statusCode": 200 if event["requestContext"]["authorizer"]["lambda"]["sub"] else 401}


def test_the_issuer_s_keys_are_read_once_and_again_for_a_kid_they_lack(user_pool: UserPool, hanako: Person) -> None:
    # Given a front of its own, not yet asked anything
    gate = user_pool.authorizer()
    front = Front(InProcess(lambda event, context: _nobody_refused(event)), authorizer=gate)
    authorizer = gate.authorizer.jwt

    def status(token: str) -> int:
        return front.handle("GET", "/accounts", {"Authorization": f"Bearer {token}"}, b"")[0]

    # When two requests come with her tokens
    assert status(hanako.id_token) == 200 and status(hanako.access_token) == 200
    # Then the JWKS was read once
    assert authorizer.fetches == 1
    # When a token names a kid the keys do not have (a key rotated in since)
    assert status(signed(_claims(hanako, user_pool), kid="rotated")) == 401
    # Then the keys were read again (and the kid is still not there: the function's 401)
    assert authorizer.fetches == 2
    # And the next token of a known kid reads nothing
    assert status(hanako.id_token) == 200 and authorizer.fetches == 2


def test_the_page_finds_the_api_and_the_user_pool_in_its_config_json(front_url: str, user_pool: UserPool) -> None:
    # When the page asks for its config.json (what `make deploy` publishes beside it)
    reply = Http(front_url, None).get("/config.json")
    # Then it names the pool, its app client, the region and where the Identity Provider API answers;
    # the API is the page's own origin; and, this front taking `Bearer <name>`, that the page may too
    assert reply.status_code == 200 and reply.headers["Cache-Control"] == "no-cache"
    assert reply.json() == {
        "api": "",
        "region": user_pool.region,
        "user_pool_id": user_pool.pool_id,
        "client_id": user_pool.client_id,
        "cognito_endpoint": user_pool.endpoint,
        "local_names": True,
    }


def test_a_strict_front_tells_the_page_to_sign_in(function_pool: Pool, user_pool: UserPool) -> None:
    # Given the front as LOCAL_AUTH=strict serves it (no `Bearer <name>`)
    strict = Front(function_pool, web_root=ROOT / "web", names=False, page_config=user_pool.page_config())
    with serving(strict) as url:
        # Then the page's config.json says the page has no user names to fall back on
        assert Http(url, None).get("/config.json").json()["local_names"] is False


def test_a_personal_token_and_a_jwt_both_pass_the_authorizer_as_run_by_the_front(
    http: Http, front_url: str, hanako: Person
) -> None:
    # Given a read token of a person (made signed in) and the person's own ID token
    made = http.post("/me/tokens", json={"name": "sheet", "scope": "read", "expires_in_days": 1})
    assert made.status_code == 201, made.text
    program = Http(front_url, None)
    token = {"Authorization": f"Bearer {made.json()['token']}"}
    # Then the token reads its person's ledger and is refused a write; the JWT reads hers
    assert program.get("/accounts", headers=token).status_code == 200
    refused = program.post("/accounts", json={"id": "x", "name": "x", "type": "cash"}, headers=token)
    assert refused.status_code == 403 and refused.json()["code"] == "token_scope", refused.text
    assert program.get("/accounts", headers=hanako.auth).status_code == 200
    # And the token mistyped by one character is refused as nobody (401, the function saying why)
    typo = {"Authorization": token["Authorization"][:-1] + ("A" if token["Authorization"][-1] != "A" else "B")}
    mistyped = program.get("/accounts", headers=typo)
    assert mistyped.status_code == 401 and "invalid_token" in mistyped.headers["www-authenticate"], mistyped.text
