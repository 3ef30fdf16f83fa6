"""front_create: POST /slips through the local front over HTTP against the same request to the
handler in-process (§31: within 1.5x), GET /health through the front beside them.

The front is served as `make run` serves it: `FUNCTION_CONCURRENCY` function instances (default 4)
and template.yaml's Lambda authorizer on instances of its own (AUTHORIZER_INSTANCES), checking a
personal access token against the user pool and the token's item in the table; strict (no
`Bearer <name>`), so every request's Authorization goes through the authorizer's answer, cached
per header for the template's TTL as API Gateway does. Without request budgets, as the rest of the
bench: the counter's own cost (one UpdateItem) is the authorizer section's. Two ledgers alike, one
body per iteration sent to each, one through the front and one in-process, in turns (which goes
first alternates), then /health; sequential.

The hops of each POST through the front are timed in this process: the HTTP request and answer
(the client's time less the front's handling), the front's own work (route, event, the authorizer's
cached answer), and the function instance's round trip (the pipe both ways and its handling),
beside the handler's own time in-process.

`make run` keeps its data on disk, where the bench's DynamoDB Local is in memory: the DynamoDB calls
of the in-process POSTs (and of the ledger's set-up before them) are sent again, as recorded, to a
DynamoDB Local on a data dir of its own as `make run` starts it, and to the bench's, in turns; each
POST's calls are timed on both.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import boto3
import requests

from bench.api import BenchError
from bench.context import Context, Twin
from bench.recorder import Call, replay
from bench.registry import register
from bench.scenario import OPENING, slip_body
from bench.sections.front import serving
from bench.stats import ratio, summary
from bench.targets import MAX_FRONT
from kakeibo.local.__main__ import AUTHORIZER_INSTANCES
from kakeibo.local.bootstrap import create_tables
from kakeibo.local.cognito import create_user_pool
from kakeibo.local.dynamodb import DynamoDBLocal, free_port
from kakeibo.local.front import Front, Function
from kakeibo.local.instances import Pool, authorizer_pool, concurrency


class Timed:
    """A function as the front invokes it, each call's time kept."""

    def __init__(self, function: Function) -> None:
        self.function = function
        self.ns: list[int] = []

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter_ns()
        try:
            return self.function.invoke(event)
        finally:
            self.ns.append(time.perf_counter_ns() - start)


class TimedFront(Front):
    """The front, each request's handling timed (from its parsed request to its answer's parts)."""

    handled_ns: list[int]

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        start = time.perf_counter_ns()
        try:
            return super().handle(method, target, headers, body)
        finally:
            self.handled_ns.append(time.perf_counter_ns() - start)


def render(r: dict[str, Any]) -> list[str]:
    hops, stored = r["hops_p50_ms"], r["calls_replayed"]
    return [
        f"POST /slips through the local front over HTTP ({r['instances']} function instances, the Lambda "
        f"authorizer on {r['authorizer_instances']}, a personal token; no request budgets) vs in-process",
        f"  through the front   p50 {r['front']['p50_ms']:7.2f} ms  p95 {r['front']['p95_ms']:7.2f}  "
        f"p99 {r['front']['p99_ms']:7.2f}  n {r['front']['n']}",
        f"  handler in-process  p50 {r['in_process']['p50_ms']:7.2f} ms  p95 {r['in_process']['p95_ms']:7.2f}  "
        f"p99 {r['in_process']['p99_ms']:7.2f}",
        f"  GET /health through the front p50 {r['health']['p50_ms']:.2f} ms",
        f"  front / in-process at p50: x{r['ratio']['p50']} (target <= {MAX_FRONT})",
        f"  hops of a POST (p50 ms): HTTP {hops['http']:.2f}, the front's own {hops['front']:.2f}, the instance's "
        f"round trip {hops['instance']:.2f} (the handler in-process {r['in_process']['p50_ms']:.2f}); "
        f"authorizer calls {r['authorizer_calls']} (its round trip p50 {hops['authorizer']:.2f} ms)",
        f"  the in-process POSTs' DynamoDB calls sent again (p50 ms): to a DynamoDB Local on a data dir, as "
        f"make run keeps it, {stored['data_dir']['p50_ms']:.2f}; in memory, as the bench's, "
        f"{stored['in_memory']['p50_ms']:.2f}",
    ]


def _on_disk(ctx: Context, twin: Twin, setup: list[Call], posts: list[list[Call]]) -> dict[str, Any]:
    """Each POST's DynamoDB calls, as the handler made them on `twin.ours`, sent to a DynamoDB Local on
    a data dir (as `make run` keeps it) and to the bench's in memory (on `twin.floor`), in turns; the
    ledger's set-up first."""
    with tempfile.TemporaryDirectory(prefix="kakeibo-bench-") as data:
        server = DynamoDBLocal(free_port(), Path(data) / "dynamodb").start()
        try:
            disk = boto3.client("dynamodb", endpoint_url=server.endpoint)
            create_tables(disk)
            replay(disk, setup).run()
            # the bench's server already holds the ledger's items: there they go to its twin
            replay(ctx.client, setup, twin.rename).run()
            on_disk: list[int] = []
            in_memory: list[int] = []
            for n, calls in enumerate(posts):
                runs = [(replay(disk, calls), on_disk), (replay(ctx.client, calls, twin.rename), in_memory)]
                for run, times in runs if n % 2 == 0 else reversed(runs):
                    start = time.perf_counter_ns()
                    run.run()
                    times.append(time.perf_counter_ns() - start)
        finally:
            server.stop()
    return {"data_dir": summary(on_disk), "in_memory": summary(in_memory)}


def _median_of_differences(a: list[int], b: list[int]) -> float:
    return summary([x - y for x, y in zip(a, b, strict=True)])["p50_ms"] if a else 0.0


@register("front_create", "POST /slips through the local front vs in-process", order=86, render=render)
def run(ctx: Context) -> dict[str, Any]:
    # two people, each with a ledger of their own, sent the same requests: one through the front, the
    # other to the handler in-process (whose DynamoDB calls are recorded, to be sent again below)
    twin, sender = ctx.twin("front-create"), ctx.ledger("front-create-http")
    who = twin.ours
    cash = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": OPENING}
    ctx.request("POST", "/accounts", user=sender, body=cash, expect=201)
    token = ctx.request("POST", "/me/tokens", user=sender, body={"name": "bench", "scope": "write"}, expect=201)
    authorization = {"Authorization": f"Bearer {token.json['token']}"}
    ctx.recorder.clear()
    ctx.request("POST", "/accounts", user=who, body=cash, expect=201)
    setup, recorded = ctx.recorder.take(), []
    users = create_user_pool(ctx.s3_endpoint, ctx.env["AWS_REGION"])
    size = concurrency()
    pool = Pool(size, ctx.env).start()
    gate = authorizer_pool(AUTHORIZER_INSTANCES, {**ctx.env, **users.authorizer_environment()})
    try:
        gate.start()
        instance, authorizer = Timed(pool), Timed(gate)
        front = TimedFront(instance, authorizer=authorizer, names=False)
        front.handled_ns = []
        with serving(front) as base:
            session = requests.Session()
            sent: list[int] = []
            local: list[int] = []
            health: list[int] = []

            def through_front(i: int) -> None:
                data = json.dumps(slip_body(i), ensure_ascii=False).encode()
                headers = {**authorization, "Content-Type": "application/json"}
                start = time.perf_counter_ns()
                got = session.post(base + "/slips", data=data, headers=headers, timeout=120)
                sent.append(time.perf_counter_ns() - start)
                if got.status_code != 201:
                    raise BenchError(f"POST /slips through the front: {got.status_code} {got.text[:300]}")

            def in_process(i: int) -> None:
                event = ctx.api.event("POST", "/slips", user=who, body=slip_body(i))
                ctx.recorder.clear()
                start = time.perf_counter_ns()
                reply = ctx.api.invoke(event)
                local.append(time.perf_counter_ns() - start)
                recorded.append(ctx.recorder.take())
                if reply.status != 201:
                    raise BenchError(f"POST /slips in-process: {reply.status} {reply.body[:300]}")

            def checked_health() -> None:
                start = time.perf_counter_ns()
                got = session.get(base + "/health", timeout=120)
                health.append(time.perf_counter_ns() - start)
                if got.status_code != 200:
                    raise BenchError(f"GET /health through the front: {got.status_code}")

            # every instance warm (its first requests import what the handler imports late) before timing
            warmup, count = max(ctx.sizes.warmup, 4 * size), ctx.sizes.iterations
            for i in range(warmup + count):
                if i == warmup:  # the warm-up's times dropped (not the authorizer's: its few calls all count)
                    for kept in (sent, local, health, front.handled_ns, instance.ns):
                        kept.clear()
                    setup += [call for calls in recorded for call in calls]
                    recorded.clear()
                first, second = (through_front, in_process) if i % 2 == 0 else (in_process, through_front)
                first(i)
                second(i)
                checked_health()
        posts = front.handled_ns[0::2]  # each iteration: its POST, then /health
        calls = instance.ns[0::2]
    finally:
        gate.close()
        pool.close()
    ours, inside = summary(sent), summary(local)
    stored = _on_disk(ctx, twin, setup, recorded)
    return {
        "kind": "front_create",
        "instances": size,
        "authorizer_instances": AUTHORIZER_INSTANCES,
        "front": ours,
        "in_process": inside,
        "health": summary(health),
        "ratio": {q: ratio(ours[f"{q}_ms"], inside[f"{q}_ms"]) for q in ("p50", "p95", "p99")},
        "hops_p50_ms": {
            "http": _median_of_differences(sent, posts),
            "front": _median_of_differences(posts, calls),
            "instance": summary(calls)["p50_ms"],
            "authorizer": summary(authorizer.ns)["p50_ms"] if authorizer.ns else 0.0,
        },
        "authorizer_calls": len(authorizer.ns),
        "calls_replayed": stored,
        "targets": {"front_within_1_5x": ours["p50_ms"] <= MAX_FRONT * inside["p50_ms"]},
    }
