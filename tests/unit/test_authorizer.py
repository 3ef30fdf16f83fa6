"""The Lambda authorizer (kakeibo.auth.authorizer) and the local front running it as API Gateway
does: who a header is (a JWT of the pool, a personal token, nobody and why), its answers cached per
header for the template's TTL, API Gateway's own 401 without a header and 403 for a refusal, and the
function's 401 for a caller the authorizer let through without a `sub`."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kakeibo.auth.authorizer import Authorizer, handler, identity
from kakeibo.core.tokens import new_token
from kakeibo.local import template
from kakeibo.local.cognito import Deciding
from kakeibo.local.front import Front, InProcess
from tests.unit.test_jwt import CLIENT, ISSUER, KEY, NOW, Issuer, claims, token
from tests.unit.test_jwt import authorizer as jwt_authorizer

LIVE = new_token(b"\x01" * 32)  # a personal token the fake table knows
UNKNOWN = new_token(b"\x02" * 32)  # well formed, but in no table


def grant(credential: str) -> dict[str, str] | None:
    if credential == LIVE:
        return {"sub": "s-token", "via": "token", "scope": "read", "token_id": "t1"}
    return None


def deciding() -> Authorizer:
    return Authorizer(jwt_authorizer(Issuer(KEY)), grant)


def event(header: str | None) -> dict[str, Any]:
    return {"type": "REQUEST", "identitySource": [header] if header is not None else [], "headers": {}}


def test_a_jwt_of_the_pool_is_its_person_who_may_write() -> None:
    # When the authorizer is given an ID token of the pool for its client
    answer = deciding().decide(event(f"Bearer {token(claims())}"))
    # Then the request is authorized as that person, signed in (`jwt`), with the write scope
    assert answer == {"isAuthorized": True, "context": {"sub": "s-1", "via": "jwt", "scope": "write", "token_id": ""}}


def test_a_live_personal_token_is_its_person_with_its_scope() -> None:
    # When it is given a live personal token (the header may carry it alone or after Bearer)
    for header in (f"Bearer {LIVE}", LIVE):
        answer = deciding().decide(event(header))
        # Then it is the token's person, through the token, with the token's scope and id
        assert answer == {"isAuthorized": True, "context": {"sub": "s-token", "via": "token", "scope": "read",
                                                            "token_id": "t1"}}  # fmt: skip


def test_what_proves_nobody_is_let_through_without_a_caller_saying_why() -> None:
    cases = {
        f"Bearer {UNKNOWN}": "the token is not a live personal access token",
        f"Bearer {LIVE[:-1]}x": "the token is not a live personal access token",  # a mistyped checksum
        "Bearer abc": "the token is not a JWT",
        f"Bearer {token(claims(exp=NOW))}": "the token has expired",
        f"Bearer {token(claims(aud='other'))}": "the token does not have a valid audience",
        "Bearer ": "no bearer token",
    }
    for header, why in cases.items():
        # Then each is let through with no `sub`, and why (the function answers it 401)
        assert deciding().decide(event(header)) == {"isAuthorized": True, "context": {"sub": "", "refused": why}}


def test_without_a_pool_a_jwt_is_refused_and_a_failing_grant_is_a_refusal_not_an_error() -> None:
    def broken(credential: str) -> dict[str, str] | None:
        raise OSError("the table did not answer")

    # Given an authorizer without a pool, whose token table fails
    lone = Authorizer(None, broken)
    # Then a JWT is refused, and a token too, saying to try again: never an exception (API Gateway's 500)
    assert lone.decide(event(token(claims())))["context"]["refused"] == "no user pool to verify the token against"
    assert lone.decide(event(LIVE))["context"] == {"sub": "", "refused": "the token could not be checked; try again"}


def test_the_identity_source_is_read_as_api_gateway_sends_it() -> None:
    assert identity({"identitySource": ["Bearer x"], "headers": {"authorization": "Bearer y"}}) == "Bearer x"
    assert identity({"headers": {"Authorization": "Bearer y"}}) == "Bearer y"
    assert identity({}) is None


def test_the_lambda_entry_point_reads_its_pool_from_the_environment(monkeypatch: Any) -> None:
    # Given the authorizer's environment as template.yaml sets it, with no pool
    import kakeibo.auth.authorizer as module

    monkeypatch.setattr(module, "_AUTHORIZER", None)
    monkeypatch.delenv("USER_POOL_ISSUER", raising=False)
    # Then the handler answers an event, refusing a JWT for want of a pool
    answer = handler(event(f"Bearer {token(claims())}"), None)
    assert answer["context"]["refused"] == "no user pool to verify the token against"
    monkeypatch.setattr(module, "_AUTHORIZER", None)


# -- the front, running the authorizer as API Gateway does ----------------------------------------


class Counting(Deciding):
    def __init__(self) -> None:
        super().__init__(deciding())
        self.events: list[dict[str, Any]] = []

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        return super().invoke(event)


class Recording:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        self.events.append(event)
        return {"statusCode": 200, "body": "{}"}


def front(clock: list[float]) -> tuple[Front, Counting, Recording]:
    gate, function = Counting(), Recording()
    return Front(InProcess(function), authorizer=gate, clock=lambda: clock[0]), gate, function


def test_the_front_caches_each_headers_answer_for_the_templates_ttl() -> None:
    # Given the front, its clock at 0, and the template's TTL
    clock = [0.0]
    served, gate, function = front(clock)
    ttl = template.authorizer_ttl()
    assert ttl == 60
    sent = {"Authorization": f"Bearer {LIVE}"}
    # When one token is sent three times within the TTL, and once after it
    for at in (0.0, 1.0, ttl - 0.5):
        clock[0] = at
        assert served.handle("GET", "/accounts", sent, b"")[0] == 200
    assert len(gate.events) == 1
    clock[0] = ttl + 0.5
    served.handle("GET", "/accounts", sent, b"")
    # Then the authorizer ran once per TTL, and the function got its context every time
    assert len(gate.events) == 2
    contexts = [e["requestContext"]["authorizer"]["lambda"] for e in function.events]
    assert contexts == [{"sub": "s-token", "via": "token", "scope": "read", "token_id": "t1"}] * 4
    # And the authorizer's event is API Gateway's: payload 2.0, the identity source, the route's ARN
    first = gate.events[0]
    assert (
        first["type"] == "REQUEST" and first["version"] == "2.0" and first["identitySource"] == [sent["Authorization"]]
    )
    assert first["routeArn"].endswith("/$default/GET/accounts") and "body" not in first


def test_no_header_is_api_gateways_401_and_a_refusal_reaches_the_function_without_a_caller() -> None:
    clock = [0.0]
    served, gate, function = front(clock)
    # When a request comes without an Authorization header
    status, _, body = served.handle("GET", "/accounts", {}, b"")
    # Then API Gateway answers 401 itself; the authorizer never ran
    assert (status, json.loads(body)) == (401, {"message": "Unauthorized"}) and gate.events == []
    # When one comes with a token the authorizer refuses
    served.handle("GET", "/accounts", {"Authorization": f"Bearer {UNKNOWN}"}, b"")
    # Then the function gets it with no caller, and why
    assert function.events[-1]["requestContext"]["authorizer"]["lambda"] == {
        "sub": "",
        "refused": "the token is not a live personal access token",
    }


def test_an_authorizer_saying_no_is_api_gateways_403() -> None:
    class Saying:
        def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
            return {"isAuthorized": False}

    served = Front(InProcess(Recording()), authorizer=Saying())
    status, _, body = served.handle("GET", "/accounts", {"Authorization": "Bearer a.b.c"}, b"")
    assert (status, json.loads(body)) == (403, {"message": "Forbidden"})


def test_a_public_route_runs_no_authorizer() -> None:
    clock = [0.0]
    served, gate, _ = front(clock)
    assert served.handle("GET", "/health", {"Authorization": "Bearer x.y.z"}, b"")[0] == 200
    assert gate.events == []


segment = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/. \u00e9", max_size=60)


@given(st.one_of(st.text(max_size=200), st.builds(lambda a, b, c: f"{a}.{b}.{c}", segment, segment, segment)))
def test_whatever_header_is_sent_the_front_answers_and_the_function_refuses_it_with_a_401(sent: str) -> None:
    # Given the real handler behind the front with the authorizer (names off: no local shortcut)
    from kakeibo.handler import precheck

    served = Front(InProcess(lambda e, c: _refused_or_200(precheck, e)), authorizer=Deciding(deciding()), names=False)
    status, headers, _ = served.handle("GET", "/accounts", {"Authorization": f"Bearer {sent}"}, b"")
    # Then it is API Gateway's 401 (nothing to send) or the function's 401 saying why in a header HTTP can carry
    assert status == 401
    challenge = headers.get("WWW-Authenticate", "")
    assert challenge.isascii() and "\r" not in challenge and "\n" not in challenge


def _refused_or_200(precheck: Any, event: dict[str, Any]) -> dict[str, Any]:
    refused = precheck(event)
    if refused is None:
        return {"statusCode": 200}
    return {"statusCode": refused.status, "headers": refused.headers}


def test_issuer_and_clients_come_from_the_environment() -> None:
    made = Authorizer.from_environ({"USER_POOL_ISSUER": ISSUER, "USER_POOL_CLIENTS": f"{CLIENT}, other"})
    assert made.jwt is not None
    assert made.jwt.audiences == [CLIENT, "other"] and made.jwt.jwks_url == ISSUER + "/.well-known/jwks.json"
    assert Authorizer.from_environ({}).jwt is None


def test_a_revoked_token_works_until_the_cached_answer_expires_then_is_refused() -> None:
    # Given a token the authorizer grants, and the front at 0 s
    live = {"now": True}

    def revocable(credential: str) -> dict[str, str] | None:
        return grant(credential) if live["now"] else None

    clock, function = [0.0], Recording()
    served = Front(InProcess(function), authorizer=Deciding(Authorizer(None, revocable)), clock=lambda: clock[0])
    sent = {"Authorization": f"Bearer {LIVE}"}
    served.handle("GET", "/accounts", sent, b"")
    # When it is revoked, and used again within the TTL, then after it
    live["now"] = False
    clock[0] = template.authorizer_ttl() - 1
    served.handle("GET", "/accounts", sent, b"")
    clock[0] = template.authorizer_ttl() + 1
    served.handle("GET", "/accounts", sent, b"")
    # Then the cached answer let it through until the TTL ran out; after it, it is nobody's
    subs = [e["requestContext"]["authorizer"]["lambda"]["sub"] for e in function.events]
    assert subs == ["s-token", "s-token", ""]
