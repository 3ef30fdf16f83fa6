"""breakdown: where the handler's own time goes, layer by layer, with DynamoDB taken out.

The handler's DynamoDB client answers with responses recorded from one real request (no network),
so what is left is CPU in this process. Each layer is called directly and includes the ones
below it; a layer's cost is the difference of medians (the layers take turns, iteration by
iteration, so that all see the same conditions):
  transport  the recorded responses alone (subtracted)
  service    kakeibo.services: the use case, ledger.plan, store (requests, (de)serialization)
  resolver   app.resolve: Powertools routing, OpenAPI request validation (pydantic), the route
             (identity, If-Match, response), and the service
  precheck   lambda_handler without its Logger decorator: our prechecks on top
  handler    lambda_handler: Powertools Logger (Lambda context, correlation id) on top
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bench.api import BenchError, Event, lambda_context
from bench.context import Context
from bench.registry import register
from bench.scenario import history, household, slip_body
from bench.stats import percentile
from kakeibo import handler
from kakeibo.models.slips import SlipIn
from kakeibo.services import slips as service
from kakeibo.store import WriteContext


class Recorded:
    """Stands in for the client's transport: answers each operation as the real request was answered."""

    def __init__(self, responses: list[tuple[str, str]]) -> None:
        self.responses = dict(responses)
        self.calls = [operation for operation, _ in responses]

    def __call__(self, operation: str, params: dict[str, Any]) -> Any:
        return json.loads(self.responses[operation])  # a fresh copy, as a real response is


def _record(ctx: Context, event: Event) -> list[tuple[str, str]]:
    """The responses one real request gets, as JSON."""
    client: Any = ctx.client
    real = client._make_api_call
    responses: list[tuple[str, str]] = []

    def keep(operation: str, params: dict[str, Any]) -> Any:
        response = real(operation, params)
        responses.append((operation, json.dumps(response, default=str)))
        return response

    client._make_api_call = keep
    try:
        reply = ctx.api.invoke(event)
    finally:
        del client._make_api_call
    if reply.status >= 300:
        raise BenchError(f"breakdown: recording request failed: {reply.body[:300]}")
    return responses


def _p50_us(layers: dict[str, Callable[[int], Any]], count: int) -> dict[str, float]:
    """Median time of each layer; they take turns, so that all see the same conditions."""
    warmup = max(20, count // 10)
    samples: dict[str, list[int]] = {name: [] for name in layers}
    for i in range(warmup + count):
        for name, layer in layers.items():
            t0 = time.perf_counter_ns()
            layer(i)
            elapsed = time.perf_counter_ns() - t0
            if i >= warmup:
                samples[name].append(elapsed)
    return {name: round(percentile(times, 50) / 1000, 1) for name, times in samples.items()}


def _layers(
    ctx: Context, make_event: Callable[[int], Event], call_service: Callable[[int], Any], count: int
) -> dict[str, Any]:
    transport = Recorded(_record(ctx, make_event(0)))
    events = [make_event(i) for i in range(count + max(20, count // 10))]  # built before timing
    handler.include_all_routes()  # the resolver is called directly below
    inner = handler.lambda_handler.__wrapped__  # type: ignore[attr-defined]
    client: Any = ctx.client
    client._make_api_call = transport  # the transport, under the client's own request handling
    try:
        timed: dict[str, Callable[[int], Any]] = {
            "transport": lambda i: [transport(op, {}) for op in transport.calls],
            "service": call_service,
            "resolver": lambda i: handler.app.resolve(dict(events[i]), lambda_context()),
            "precheck": lambda i: inner(dict(events[i]), lambda_context()),
            "handler": lambda i: handler.lambda_handler(dict(events[i]), lambda_context()),
        }
        p50 = _p50_us(timed, count)
    finally:
        del client._make_api_call
    layers = {
        "service_and_store": round(p50["service"] - p50["transport"], 1),
        "powertools_resolver_validation_route": round(p50["resolver"] - p50["service"], 1),
        "precheck": round(p50["precheck"] - p50["resolver"], 1),
        "powertools_logger": round(p50["handler"] - p50["precheck"], 1),
    }
    return {
        "calls": transport.calls,
        "p50_us": p50,
        "layers_us": layers,
        "total_us": round(p50["handler"] - p50["transport"], 1),
    }


def render(r: dict[str, Any]) -> list[str]:
    lines = [
        f"Handler CPU per request with DynamoDB taken out (recorded responses; p50 of {r['iterations']}, us)",
        f"  {'op':8} {'service+store':>13} {'precheck':>9} {'resolver+route':>15} {'Logger':>7} {'total':>7}",
    ]
    for name, op in r["ops"].items():
        layer = op["layers_us"]
        lines.append(
            f"  {name:8} {layer['service_and_store']:>13.0f} {layer['precheck']:>9.0f} "
            f"{layer['powertools_resolver_validation_route']:>15.0f} {layer['powertools_logger']:>7.0f} "
            f"{op['total_us']:>7.0f}"
        )
    return [
        *lines,
        "  ours: service+store, precheck. Powertools: Logger; resolver+route = routing, OpenAPI request",
        "  validation, and our route code around the service (identity, If-Match, the JSON response body)",
    ]


@register("breakdown", "handler CPU by layer, without DynamoDB", order=65, render=render)
def run(ctx: Context) -> dict[str, Any]:
    count = max(50, ctx.sizes.iterations * 4)
    twin = household(ctx, "breakdown")
    created = ctx.request("POST", "/slips", user=twin.ours, body=slip_body(0), expect=201)
    date, slip_id = created.location.split("/")[2:4]
    data = history(ctx)

    def put_body(i: int) -> dict[str, Any]:
        return slip_body(0, amount=1000 + i % 2)  # never the slip's own amount: always a transaction

    def put(i: int) -> Event:
        headers = {"If-Match": '"1"'}
        return ctx.api.event("PUT", created.location, user=twin.ours, body=put_body(i), headers=headers)

    ops = {
        "create": _layers(
            ctx,
            lambda i: ctx.api.event("POST", "/slips", user=twin.ours, body=slip_body(i)),
            lambda i: service.create_slip(
                ctx.store, WriteContext.personal(twin.ours), SlipIn.model_validate(slip_body(i))
            ),
            count,
        ),
        "update": _layers(
            ctx,
            put,
            lambda i: service.update_slip(
                ctx.store,
                WriteContext.personal(twin.ours),
                date,
                slip_id,
                expected=1,
                body=SlipIn.model_validate(put_body(i)),
            ),
            count,
        ),
        "list": _layers(
            ctx,
            lambda i: ctx.api.event("GET", "/slips?limit=100", user=data["who"]),
            lambda i: service.list_slips(ctx.store, data["who"], limit=100),
            count,
        ),
    }
    return {"kind": "breakdown", "iterations": count, "ops": ops}
