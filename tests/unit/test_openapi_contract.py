"""The OpenAPI document says what the API does: every example it shows is accepted as it is, every
status a route answers is declared, and the details a generated client relies on are there."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.events import Client, Reply

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    from kakeibo.handler import openapi_json

    document: dict[str, Any] = json.loads(openapi_json())
    return document


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, path, op) for path, ops in spec["paths"].items() for m, op in ops.items() if m in METHODS]


def body_examples(op: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(media type, example name, value) of each example of an operation's request body."""
    found = []
    for media, content in op.get("requestBody", {}).get("content", {}).items():
        for name, example in (content.get("examples") or {}).items():
            found.append((media, name, example["value"]))
        if "example" in content:
            found.append((media, "example", content["example"]))
    return found


def send(api: Client, method: str, path: str, media: str, value: Any, headers: dict[str, str] | None = None) -> Reply:
    raw = value if isinstance(value, str) else json.dumps(value)
    return api.request(method.upper(), path, raw=raw, headers={"Content-Type": media, **(headers or {})})


def test_the_document_is_what_generated_clients_need(spec: dict[str, Any]) -> None:
    ids = [op["operationId"] for _, _, op in operations(spec)]
    # short, stable operationIds: camelCase verbs, unique
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)+", i) for i in ids), ids
    assert {"createSlip", "listSlips", "getSlip", "replaceSlip", "patchSlip", "deleteSlip", "createAccount"} <= set(ids)
    for method, path, op in operations(spec):
        where = f"{method.upper()} {path}"
        responses = op["responses"]
        # no Powertools HTTPValidationError: validation problems are problem+json
        assert "HTTPValidationError" not in json.dumps(responses), where
        for status, response in responses.items():
            if status == "204":
                assert "content" not in response, where
            elif status == "401":  # the function's problem, or API Gateway's own answer to no token
                assert list(response["content"]) == ["application/problem+json", "application/json"], where
            elif int(status) >= 400:
                assert list(response["content"]) == ["application/problem+json"], where
        # public routes need no token, the others a bearer token
        assert op.get("security", spec["security"]) == ([] if path == "/health" else [{"bearer": []}]), where
        headers = {p["name"]: p for p in op.get("parameters", []) if p["in"] == "header"}
        # (a budget is created by PUT without If-Match; a webhook has no versions: made, then deleted;
        # nor has a person, whose data DELETE /me deletes, nor a personal token: made, then revoked)
        if (
            method in ("put", "patch", "delete")
            and path.removeprefix("/ledgers/{ledger}") != "/budgets/{month}/{category}"
            and not path.startswith("/ledgers/{ledger}/webhooks")
            and path != "/me"
            and not path.startswith("/me/tokens")
        ):
            assert headers["if-match"]["required"] is True, where
        if where in ("POST /slips", "POST /accounts", "POST /imports"):
            assert headers["idempotency-key"]["required"] is False, where
        if method == "patch":
            assert list(op["requestBody"]["content"]) == ["application/merge-patch+json"], where
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    # every reference resolves
    refs = set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(spec)))
    assert refs <= set(spec["components"]["schemas"]), refs - set(spec["components"]["schemas"])
    imports = spec["paths"]["/imports"]["post"]["requestBody"]["content"]
    assert list(imports) == ["text/csv"]
    slip = spec["paths"]["/slips"]["post"]["responses"]["201"]["headers"]
    assert slip["ETag"]["required"] and slip["Location"]["required"]
    stale = spec["paths"]["/slips/{date}/{id}"]["put"]["responses"]["412"]["content"]["application/problem+json"]
    assert stale["schema"] == {"$ref": "#/components/schemas/VersionMismatchProblem"}
    typed = spec["components"]["schemas"]["InsufficientFundsProblem"]["properties"]
    assert {"account", "account_name", "balance", "needed", "code"} <= set(typed)
    assert "Retry-After" in spec["paths"]["/slips"]["post"]["responses"]["423"]["headers"]


def test_every_documented_example_is_accepted(api: Client, spec: dict[str, Any]) -> None:
    ops = {(m, path): op for m, path, op in operations(spec)}
    with_body = [key for key, op in ops.items() if "requestBody" in op and key != ("post", "/ledger/rebuild")]
    for key in with_body:
        if key[1] not in ("/ledger/verify",):
            assert body_examples(ops[key]), f"{key} shows no example"
    # Given the accounts POST /accounts shows
    for media, name, value in body_examples(ops["post", "/accounts"]):
        reply = send(api, "POST", "/accounts", media, value)
        assert reply.status == 201, (name, reply)
    accepted = {("post", "/accounts")}

    def fresh_slip() -> Reply:
        media, _, value = body_examples(ops["post", "/slips"])[0]
        made = send(api, "POST", "/slips", media, value)
        assert made.status == 201, made
        return made

    # When every other example is sent as it is, Then each is accepted
    for media, name, value in body_examples(ops["post", "/slips"]):
        assert send(api, "POST", "/slips", media, value).status == 201, name
    accepted.add(("post", "/slips"))
    for method in ("put", "patch"):
        for media, name, value in body_examples(ops[method, "/slips/{date}/{id}"]):
            made = fresh_slip()
            reply = send(api, method, made.header("Location") or "", media, value, {"If-Match": made.etag or ""})
            assert reply.status == 200, (method, name, reply)
        accepted.add((method, "/slips/{date}/{id}"))
    for media, name, value in body_examples(ops["post", "/slips/bulk"]):
        # (the example's slips are a sample's: a fresh slip of this ledger is named instead)
        made = fresh_slip().json
        named = [{"date": made["date"], "id": made["id"], "version": made["version"]}]
        reply = send(api, "POST", "/slips/bulk", media, {**value, "slips": named})
        assert reply.status == 200 and [c["id"] for c in reply.json["changed"]] == [made["id"]], (name, reply)
    accepted.add(("post", "/slips/bulk"))
    for media, name, value in body_examples(ops["put", "/budgets/{month}/{category}"]):
        reply = send(api, "PUT", f"/budgets/2026-11/{name}", media, value)
        assert reply.status == 201, (name, reply)
    accepted.add(("put", "/budgets/{month}/{category}"))
    for media, name, value in body_examples(ops["post", "/imports"]):
        reply = send(api, "POST", "/imports", media, value)
        assert reply.status == 200 and reply.json["created"] >= 1 and reply.json["failed"] == 0, (name, reply)
    accepted.add(("post", "/imports"))
    for media, name, value in body_examples(ops["patch", "/accounts/{id}"]):
        etag = api.get("/accounts/card").etag or ""
        reply = send(api, "PATCH", "/accounts/card", media, value, {"If-Match": etag})
        assert reply.status == 200, (name, reply)
    accepted.add(("patch", "/accounts/{id}"))
    for n, (media, name, value) in enumerate(body_examples(ops["post", "/accounts/{id}/reconciliations"])):
        # an account whose opening balance is the statement's (the adjusting example: 500 more, counted short)
        opening = value["balance"] + (500 if value.get("adjust") else 0)
        api.post("/accounts", {"id": f"rc{n}", "name": f"照合{n}", "type": "bank", "opening_balance": opening})
        reply = send(api, "POST", f"/accounts/rc{n}/reconciliations", media, value)
        assert reply.status == 201 and reply.json["holds"] is True, (name, reply)
    accepted.add(("post", "/accounts/{id}/reconciliations"))
    for media, name, value in body_examples(ops["post", "/recurrences"]):
        reply = send(api, "POST", "/recurrences", media, value)
        assert reply.status == 201, (name, reply)
    accepted.add(("post", "/recurrences"))
    for media, name, value in body_examples(ops["post", "/receipts"]):
        reply = send(api, "POST", "/receipts", media, value)
        assert reply.status == 201 and reply.json["upload"]["method"] == "PUT", (name, reply)
    accepted.add(("post", "/receipts"))
    for media, name, value in body_examples(ops["patch", "/recurrences/{id}"]):
        _, _, rent = body_examples(ops["post", "/recurrences"])[0]
        made = send(api, "POST", "/recurrences", "application/json", rent)
        reply = send(api, "PATCH", made.header("Location") or "", media, value, {"If-Match": made.etag or ""})
        assert reply.status == 200, (name, reply)
    accepted.add(("patch", "/recurrences/{id}"))
    for media, name, value in body_examples(ops["post", "/ledgers"]):
        reply = send(api, "POST", "/ledgers", media, value)
        assert reply.status == 201, (name, reply)
    accepted.add(("post", "/ledgers"))
    for media, name, value in body_examples(ops["post", "/ledgers/restore"]):
        reply = send(api, "POST", "/ledgers/restore", media, value)
        assert reply.status == 202 and reply.json["upload"]["method"] == "PUT", (name, reply)
    accepted.add(("post", "/ledgers/restore"))
    for media, name, value in body_examples(ops["patch", "/ledgers/{ledger}"]):
        made = send(api, "POST", "/ledgers", "application/json", {"name": "山田家"})
        renamed = send(api, "PATCH", made.header("Location") or "", media, value, {"If-Match": made.etag or ""})
        assert renamed.status == 200, (name, renamed)
    accepted.add(("patch", "/ledgers/{ledger}"))
    for media, name, value in body_examples(ops["post", "/ledgers/{ledger}/invitations"]):
        made = send(api, "POST", "/ledgers", "application/json", {"name": "山田家"})
        invited = send(api, "POST", f"{made.header('Location')}/invitations", media, value)
        assert invited.status == 201, (name, invited)
    accepted.add(("post", "/ledgers/{ledger}/invitations"))
    for media, name, value in body_examples(ops["put", "/ledgers/{ledger}/members/{user}"]):
        made = send(api, "POST", "/ledgers", "application/json", {"name": "山田家"})
        token = send(api, "POST", f"{made.header('Location')}/invitations", "application/json", {"role": "editor"})
        guest = Client(f"{api.user}-guest")
        assert send(guest, "POST", f"/invitations/{token.json['token']}/accept", "application/json", {}).status == 200
        where = f"{made.header('Location')}/members/{guest.user}"
        reply = send(api, "PUT", where, media, value, {"If-Match": '"1"'})
        assert reply.status == 200, (name, reply)
    accepted.add(("put", "/ledgers/{ledger}/members/{user}"))
    for media, name, value in body_examples(ops["post", "/ledgers/{ledger}/webhooks"]):
        made = send(api, "POST", "/ledgers", "application/json", {"name": "山田家"})
        hooked = send(api, "POST", f"{made.header('Location')}/webhooks", media, value)
        assert hooked.status == 201, (name, hooked)
    accepted.add(("post", "/ledgers/{ledger}/webhooks"))
    for media, name, value in body_examples(ops["post", "/ledgers/{ledger}/settlements"]):
        # Given Hanako and Taro in a ledger, Taro having paid for both
        made = send(api, "POST", "/ledgers", "application/json", {"name": "山田家"})
        base = made.header("Location") or ""
        members = {who: Client(value[who]) for who in ("from", "to")}
        for member in members.values():
            token = send(api, "POST", f"{base}/invitations", "application/json", {"role": "editor"}).json["token"]
            assert send(member, "POST", f"/invitations/{token}/accept", "application/json", {}).status == 200
        etag = api.get(f"{base}/settlement").etag or ""
        reply = send(members["to"], "POST", f"{base}/settlements", media, value, {"If-Match": etag})
        assert reply.status == 201, (name, reply)
    accepted.add(("post", "/ledgers/{ledger}/settlements"))
    for media, name, value in body_examples(ops["post", "/rules"]):
        reply = send(api, "POST", "/rules", media, value)
        assert reply.status == 201, (name, reply)
    accepted.add(("post", "/rules"))
    for media, name, value in body_examples(ops["patch", "/rules/{id}"]):
        _, _, first = body_examples(ops["post", "/rules"])[0]
        made = send(api, "POST", "/rules", "application/json", first)
        reply = send(api, "PATCH", made.header("Location") or "", media, value, {"If-Match": made.etag or ""})
        assert reply.status == 200, (name, reply)
    accepted.add(("patch", "/rules/{id}"))
    for media, name, value in body_examples(ops["put", "/rules/order"]):
        # (the example's ids are a sample's: the ledger's own rules are named, last first)
        listed = api.get("/rules")
        ids = [rule["id"] for rule in listed.json["items"]][::-1]
        reply = send(api, "PUT", "/rules/order", media, {**value, "ids": ids}, {"If-Match": listed.etag or ""})
        assert reply.status == 200 and [r["id"] for r in reply.json["items"]] != ids[::-1], (name, reply)
    accepted.add(("put", "/rules/order"))
    for media, name, value in body_examples(ops["post", "/me/tokens"]):
        reply = send(api, "POST", "/me/tokens", media, value)
        assert reply.status == 201 and reply.json["token"].startswith("kk_"), (name, reply)
    accepted.add(("post", "/me/tokens"))
    api.post("/accounts", {"id": "savings", "name": "貯金", "type": "bank"})
    for media, name, value in body_examples(ops["post", "/goals"]):
        reply = send(api, "POST", "/goals", media, {**value, "account": "savings"})  # (the sample's account)
        assert reply.status == 201, (name, reply)
    accepted.add(("post", "/goals"))
    for media, name, value in body_examples(ops["patch", "/goals/{id}"]):
        _, _, trip = body_examples(ops["post", "/goals"])[0]
        made = send(api, "POST", "/goals", "application/json", {**trip, "account": "savings"})
        reply = send(api, "PATCH", made.header("Location") or "", media, value, {"If-Match": made.etag or ""})
        assert reply.status == 200, (name, reply)
    accepted.add(("patch", "/goals/{id}"))
    # And no operation's examples were left out
    # (a route repeated under /ledgers/{ledger} shows the same examples)
    repeated = {
        (m, p): (m, p.removeprefix("/ledgers/{ledger}"))
        for m, p in ops
        if (m, p.removeprefix("/ledgers/{ledger}")) in ops
    }
    assert {repeated.get(key, key) for key in with_body if body_examples(ops[key])} <= accepted


# ---- every status a route can answer is declared ---------------------------------------------------

Probe = Callable[[Client, str, str, dict[str, Any]], Reply | None]


def _concrete(path: str, slip: Reply) -> str:
    """A path of the operation naming things that exist (the slip, the cash account, a budget)."""
    where = (slip.header("Location") or "").split("/")
    return (
        path.replace("{date}", where[2])
        .replace("{id}", where[3] if "/slips/" in path else "cash")
        .replace("{month}", "2026-11")
        .replace("{category}", "食費")
        .replace("{ledger}", "me")
        .replace("{user}", "someone")
    )


def _body(op: dict[str, Any]) -> tuple[str, Any] | None:
    found = body_examples(op)
    return (found[0][0], found[0][2]) if found else None


def _if_match(op: dict[str, Any]) -> dict[str, Any] | None:
    return next((p for p in op.get("parameters", []) if p["name"] == "if-match"), None)


def test_every_status_a_route_answers_is_declared(api: Client, spec: dict[str, Any]) -> None:
    # Given the receipts bucket (exports are written there), a ledger with accounts, a slip and a budget
    import boto3

    from kakeibo.settings import get_settings

    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket=get_settings().receipts_bucket)
    api.account("cash", 20000)
    api.account("bank", 300000, type="bank")
    api.account("card", 0, type="credit")
    slip = api.slip(date="2026-11-03", kind="expense", amount=1200, account="cash", category="食費")
    assert api.put("/budgets/2026-11/食費", {"limit": 30000}).status == 201
    seen: dict[str, set[int]] = {}
    # (DELETE /me last: a probe of it deletes the caller's data, and every route answers 404 after)
    for method, path, op in sorted(operations(spec), key=lambda found: found[1] == "/me"):
        where = f"{method.upper()} {path}"
        target = _concrete(path, slip)
        body = _body(op)
        matches = _if_match(op)
        etag = api.get(target).etag if matches else None
        current = {"If-Match": etag or '"1"'} if matches else {}
        replies: list[Reply] = []

        def probe(reply: Reply, *, where: str = where, replies: list[Reply] = replies) -> None:
            replies.append(reply)
            assert reply.status < 500, (where, reply)

        # no identity
        probe(api.request(method.upper(), target, user=None))
        if path.startswith(("/slips/", "/accounts/")):
            missing = target.replace(target.rsplit("/", 1)[1], "nope")
            if body and method in ("put", "patch"):
                probe(send(api, method, missing, body[0], body[1], {"If-Match": '"1"'}))
            else:
                probe(api.request(method.upper(), missing, headers={"If-Match": '"1"'} if matches else None))
        for parameter in op.get("parameters", []):
            if parameter["in"] == "query":
                probe(api.request(method.upper(), target, query={parameter["name"]: "not valid!"}, headers=current))
        if method in ("post", "put", "patch"):
            media = body[0] if body else "application/json"
            probe(api.request(method.upper(), target, raw="{not json", headers={"Content-Type": "application/json"}))
            probe(api.request(method.upper(), target, raw="x", headers={"Content-Type": "application/xml"}))
            big = "x" * (6 * 1024 * 1024 if media == "text/csv" else 70 * 1024)
            probe(api.request(method.upper(), target, raw=big, headers={"Content-Type": media, **current}))
            if body:
                empty = "" if media == "text/csv" else "{}"
                probe(api.request(method.upper(), target, raw=empty, headers={"Content-Type": media, **current}))
                wrong = "date\n2026-11-01\n" if media == "text/csv" else json.dumps({"unknown": 1})
                probe(api.request(method.upper(), target, raw=wrong, headers={"Content-Type": media, **current}))
        if matches:
            payload = {"raw": json.dumps(body[1]) if body and not isinstance(body[1], str) else None}
            sent = {"Content-Type": body[0]} if body else {}
            for header in ({}, {"If-Match": "2"}, {"If-Match": '"999"'}, {"If-Match": 'W/"1"'}):
                if not header and not matches["required"]:
                    continue
                probe(api.request(method.upper(), target, headers={**sent, **header}, **payload))
        # a malformed Idempotency-Key: refused where it is declared, ignored elsewhere
        probe(api.request(method.upper(), target, raw="{}", headers={"Idempotency-Key": "k" * 300, **current}))
        declared = {int(s) for s in op["responses"]}
        answered = {r.status for r in replies}
        seen[where] = answered
        # Then every status it answered is one the document declares for it
        assert answered <= declared, (where, answered - declared, [r for r in replies if r.status not in declared])
    # And the probes reached the refusals they aim at
    assert {400, 401, 404, 412, 413, 415, 422, 428} <= set().union(*seen.values())
