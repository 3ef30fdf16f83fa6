"""authorizer: the Lambda authorizer (§25) and the request budget's counter.

- Cold: a fresh interpreter imports kakeibo.auth.authorizer and decides one event — a JWT (the
  standard library's RSA check, the JWKS given in the process: no network) and, in another process,
  a personal token (the store and boto3's client imported on its first use, one GetItem). Medians of
  `cold_runs` fresh processes each, interleaved.
- Warm: one instance's decide() p50 for a JWT (its keys cached) and for a personal token (one
  GetItem on DynamoDB Local).
- The counter: what spending a person's budget adds to a request, in process: one conditional
  UpdateItem, p50 (the target: <= 1 ms, one UpdateItem).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.context import Context
from bench.registry import register
from bench.stats import summary
from kakeibo.auth.authorizer import Authorizer, personal_token_grant
from kakeibo.auth.jwt import JwtAuthorizer
from kakeibo.event import Caller
from kakeibo.services import limits
from kakeibo.settings import Settings
from kakeibo.store import get_limit_store

CHILD = r"""
import json, sys, time
start = time.perf_counter_ns()
from kakeibo.auth.authorizer import Authorizer, personal_token_grant
from kakeibo.auth.jwt import JwtAuthorizer
kind, credential, jwks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
jwt = JwtAuthorizer("https://issuer.example", ["client"], "http://127.0.0.1:9/jwks", fetch=lambda url: jwks)
answer = Authorizer(jwt, personal_token_grant).decide({"identitySource": ["Bearer " + credential]})
assert answer["context"]["sub"], answer
print((time.perf_counter_ns() - start) / 1e6)
"""


def _signed() -> tuple[str, dict[str, Any], Any]:
    from joserfc import jwk, jwt  # noqa: PLC0415 - a test signer, for this section only

    key = jwk.RSAKey.generate_key(2048, parameters={"kid": "bench"})
    now = int(time.time())
    claims = {"iss": "https://issuer.example", "sub": "bench", "aud": "client", "token_use": "id", "iat": now,
              "exp": now + 3600}  # fmt: skip
    token = str(jwt.encode({"alg": "RS256", "kid": "bench"}, claims, key))
    return token, {"keys": [key.as_dict(private=False)]}, key


def _cold(kind: str, credential: str, jwks: dict[str, Any], env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, credential, json.dumps(jwks)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    return float(done.stdout.strip().splitlines()[-1])


def render(r: dict[str, Any]) -> list[str]:
    return [
        "The Lambda authorizer and the request budget's counter",
        f"  cold (import + first decide, median of {r['cold_runs']}): JWT {r['cold_jwt_ms']:.1f} ms, "
        f"personal token {r['cold_token_ms']:.1f} ms",
        f"  warm decide p50: JWT {r['warm_jwt']['p50_ms']:.3f} ms, personal token {r['warm_token']['p50_ms']:.3f} ms",
        f"  the counter (one UpdateItem) p50 {r['counter']['p50_ms']:.3f} ms, a bare UpdateItem "
        f"{r['counter_floor']['p50_ms']:.3f} ms (ours over it: {r['counter_over_floor_ms']:.3f} ms); "
        f"target <= 1 ms {r['targets']['counter_within_1_ms']}",
    ]


@register("authorizer", "the Lambda authorizer cold and warm, and the budget counter's cost", order=67, render=render)
def run(ctx: Context) -> dict[str, Any]:
    who = ctx.ledger("authorizer")
    token = ctx.request("POST", "/me/tokens", user=who, body={"name": "bench", "scope": "read"}, expect=201)
    secret = str(token.json["token"])
    signed, jwks, _ = _signed()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    cold_jwt, cold_token = [], []
    for _ in range(ctx.sizes.cold_runs):  # interleaved: the machine's drift falls on both alike
        cold_jwt.append(_cold("jwt", signed, jwks, env))
        cold_token.append(_cold("token", secret, jwks, env))
    jwt = JwtAuthorizer("https://issuer.example", ["client"], "http://127.0.0.1:9/jwks", fetch=lambda url: jwks)
    decide = Authorizer(jwt, personal_token_grant).decide
    for _ in range(ctx.sizes.warmup):
        decide({"identitySource": [f"Bearer {signed}"]})
        decide({"identitySource": [f"Bearer {secret}"]})

    def timed(credential: str) -> int:
        start = time.perf_counter_ns()
        decide({"identitySource": [f"Bearer {credential}"]})
        return time.perf_counter_ns() - start

    warm_jwt = summary([timed(signed) for _ in range(ctx.sizes.iterations)])
    warm_token = summary([timed(secret) for _ in range(ctx.sizes.iterations)])
    store, budgets = get_limit_store(), Settings.model_validate({"RATE_LIMIT_PERSON": "1000000"})
    caller, spent = Caller(f"{who}-counter"), []
    for _ in range(ctx.sizes.warmup + ctx.sizes.iterations):
        start = time.perf_counter_ns()
        limits.spend(store, budgets, caller, time.time())
        spent.append(time.perf_counter_ns() - start)
    counter = summary(spent[ctx.sizes.warmup :])
    # the floor: one UpdateItem of a counter, straight through boto3 (what DynamoDB itself costs here)
    bare = []
    for n in range(ctx.sizes.warmup + ctx.sizes.iterations):
        start = time.perf_counter_ns()
        ctx.client.update_item(
            TableName=store.core.table, Key={"id": {"S": f"floor-{who}"}, "sk": {"S": f"LIMIT#{n // 1000}"}},
            UpdateExpression="ADD #c :one", ExpressionAttributeNames={"#c": "count"},
            ExpressionAttributeValues={":one": {"N": "1"}},
        )  # fmt: skip
        bare.append(time.perf_counter_ns() - start)
    floor = summary(bare[ctx.sizes.warmup :])
    return {
        "kind": "authorizer",
        "cold_runs": ctx.sizes.cold_runs,
        "cold_jwt_ms": round(statistics.median(cold_jwt), 1),
        "cold_token_ms": round(statistics.median(cold_token), 1),
        "warm_jwt": warm_jwt,
        "warm_token": warm_token,
        "counter": counter,
        "counter_floor": floor,
        "counter_over_floor_ms": round(counter["p50_ms"] - floor["p50_ms"], 3),
        "targets": {"counter_within_1_ms": counter["p50_ms"] <= 1.0},
    }
