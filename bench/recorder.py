"""Every DynamoDB call a client makes, seen by a botocore `before-call` hook, and what it costs.

The hook only keeps a reference to the serialized request (cheap enough to leave on while timing);
decoding and counting happen afterwards. The recorded requests are also what the floor replays:
the exact calls the handler made, sent again straight through boto3.
"""

from __future__ import annotations

import json
import math
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from botocore import xform_name

Params = dict[str, Any]

WRITE_ACTIONS = ("Put", "Update", "Delete")
SINGLE_WRITES = ("PutItem", "UpdateItem", "DeleteItem")
READS = ("GetItem", "Query", "Scan", "TransactGetItems", "BatchGetItem")


@dataclass(frozen=True)
class Call:
    operation: str  # e.g. "TransactWriteItems"
    params: Params  # the request as sent (DynamoDB JSON)


class CallRecorder:
    def __init__(self, client: Any) -> None:
        self.client = client
        self._raw: list[tuple[str, bytes]] = []
        client.meta.events.register("before-call.dynamodb", self._hook)

    def _hook(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        self._raw.append((model.name, params["body"]))

    def clear(self) -> None:
        self._raw = []

    def take(self) -> list[Call]:
        raw, self._raw = self._raw, []
        return [Call(op, json.loads(body) if body else {}) for op, body in raw]


# ---- cost -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """What one operation asks of DynamoDB, counted from its requests."""

    calls: dict[str, int]  # per DynamoDB operation
    items_written: int  # Put/Update/Delete, transactional or not
    transactional_writes: int
    condition_checks: int
    items_read: int  # items named by GetItem / TransactGetItems (queries: see consumed RCU)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.total_calls,
            "by_operation": dict(sorted(self.calls.items())),
            "items_written": self.items_written,
            "transactional_writes": self.transactional_writes,
            "condition_checks": self.condition_checks,
            "wcu_if_items_under_1kb": wcu(self.transactional_writes, self.items_written),
        }


# ---- item sizes and capacity, as DynamoDB prices them -----------------------------------------


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes of one DynamoDB JSON attribute value, by DynamoDB's published sizing rules."""
    (kind, raw), *_ = value.items()
    if kind == "S":
        return len(raw.encode("utf-8"))
    if kind == "N":
        digits = raw.lstrip("-").replace(".", "").lstrip("0") or "0"
        return math.ceil(len(digits.rstrip("0") or "0") / 2) + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "B":
        return len(raw) * 3 // 4
    if kind in ("SS", "NS", "BS"):
        return sum(attribute_size({kind[0]: v}) for v in raw)
    if kind == "L":
        return 3 + sum(1 + attribute_size(v) for v in raw)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + attribute_size(v) for k, v in raw.items())
    raise ValueError(f"unknown attribute type {kind}")


def item_size(item: dict[str, Any] | None) -> int:
    if not item:
        return 0
    return sum(len(name.encode("utf-8")) + attribute_size(value) for name, value in item.items())


@dataclass(frozen=True)
class Write:
    table: str
    key: dict[str, Any]
    transactional: bool
    new_item: dict[str, Any] | None  # a Put's item


def writes_of(
    operations: Sequence[str], requests: Sequence[Params], key_names: tuple[str, ...] = ("PK", "SK")
) -> list[Write]:
    """Every item the calls write (condition checks included), with its key and, for a Put, its item."""

    def write(body: Params, transactional: bool, put: bool) -> Write:
        item = body.get("Item")
        key = body.get("Key") or {k: (item or {})[k] for k in key_names}
        return Write(body["TableName"], key, transactional, item if put else None)

    out = []
    for operation, params in zip(operations, requests, strict=True):
        if operation == "TransactWriteItems":
            for action in params.get("TransactItems", []):
                (kind, body), *_ = action.items()
                out.append(write(body, True, kind == "Put"))
        elif operation in SINGLE_WRITES:
            out.append(write(params, False, operation == "PutItem"))
    return out


def priced_wcu(writes: Sequence[Write], before: Sequence[int], after: Sequence[int]) -> int:
    """Each item rounded up to whole KB (the larger of before and after), doubled in a transaction.

    A ConditionCheck is priced like a write here (a conservative reading of the pricing pages).
    """
    total = 0
    for write, old, new in zip(writes, before, after, strict=True):
        size = max(old, new, item_size(write.new_item))
        total += max(1, math.ceil(size / 1024)) * (2 if write.transactional else 1)
    return total


def wcu(transactional: int, written: int, item_kb: int = 1) -> int:
    """DynamoDB's price of a write: 1 WCU per item-KB, 2 inside a transaction (prepare + commit)."""
    return item_kb * (2 * transactional + (written - transactional))


def cost_of(calls: Sequence[Call]) -> Cost:
    ops: Counter[str] = Counter()
    written = transactional = checks = read = 0
    for call in calls:
        ops[call.operation] += 1
        if call.operation == "TransactWriteItems":
            for action in call.params.get("TransactItems", []):
                if any(kind in action for kind in WRITE_ACTIONS):
                    written += 1
                    transactional += 1
                elif "ConditionCheck" in action:
                    checks += 1
        elif call.operation in SINGLE_WRITES:
            written += 1
        elif call.operation == "BatchWriteItem":
            written += sum(len(reqs) for reqs in call.params.get("RequestItems", {}).values())
        elif call.operation == "GetItem":
            read += 1
        elif call.operation == "TransactGetItems":
            read += len(call.params.get("TransactItems", []))
    return Cost(dict(ops), written, transactional, checks, read)


def mean_cost(per_iteration: Sequence[Sequence[Call]]) -> dict[str, Any]:
    """The cost of one operation; if iterations differ (they should not), the mean and the spread."""
    costs = [cost_of(calls).as_dict() for calls in per_iteration]
    if not costs:
        return {}
    first = costs[0]
    if all(c == first for c in costs):
        return {**first, "uniform": True}
    keys = ("calls", "items_written", "transactional_writes", "condition_checks", "wcu_if_items_under_1kb")
    out: dict[str, Any] = {k: sum(c[k] for c in costs) / len(costs) for k in keys}
    out["max_calls"] = max(c["calls"] for c in costs)
    ops: Counter[str] = Counter()
    for c in costs:
        ops.update(c["by_operation"])
    out["by_operation"] = {k: v / len(costs) for k, v in sorted(ops.items())}
    out["uniform"] = False
    return out


def consumed_units(response: dict[str, Any]) -> float:
    """Capacity units DynamoDB reported for one call made with ReturnConsumedCapacity=TOTAL."""
    consumed = response.get("ConsumedCapacity")
    entries = consumed if isinstance(consumed, list) else [consumed] if consumed else []
    return sum(float(entry.get("CapacityUnits") or 0) for entry in entries)


# ---- replay (the floor) -----------------------------------------------------------------------


@dataclass
class Replay:
    """Pre-built requests, sent straight through boto3: what the handler's calls cost at the least."""

    steps: list[tuple[Callable[..., Any], Params]]
    operations: list[str]

    def run(self) -> None:
        for method, params in self.steps:
            method(**params)

    def run_measuring_capacity(self, client: Any) -> dict[str, Any]:
        """Run once more, pricing it: WCU by DynamoDB's per-item rules from the sizes of the items
        before and after, and the units DynamoDB Local itself reports (it sums a transaction's item
        sizes before rounding, so it under-counts transactions of small items)."""
        writes = writes_of(self.operations, [p for _, p in self.steps])
        before = [_size_now(client, w) for w in writes]
        read = write = 0.0
        for (method, params), operation in zip(self.steps, self.operations, strict=True):
            units = consumed_units(method(**params, ReturnConsumedCapacity="TOTAL"))
            if operation in READS:
                read += units
            else:
                write += units
        after = [_size_now(client, w) for w in writes]
        return {
            "wcu": priced_wcu(writes, before, after),
            "largest_item_bytes": max([*before, *after, *(item_size(w.new_item) for w in writes)], default=0),
            "dynamodb_local_reported": {"rcu": round(read, 2), "wcu": round(write, 2)},
        }


def _size_now(client: Any, write: Write) -> int:
    found = client.get_item(TableName=write.table, Key=write.key, ConsistentRead=True)
    return item_size(found.get("Item"))


def replay(client: Any, calls: Sequence[Call], rename: dict[str, str] | None = None) -> Replay:
    """The same calls, optionally against another ledger, with fresh tokens. A rename maps a whole
    string; one whose key ends with '#' maps a key prefix (e.g. a member's slip index items)."""
    steps = []
    for call in calls:
        params = _renamed(call.params, rename) if rename else json.loads(json.dumps(call.params))
        if "ClientRequestToken" in params:
            params["ClientRequestToken"] = str(uuid.uuid4())
        steps.append((getattr(client, xform_name(call.operation)), params))
    return Replay(steps, [c.operation for c in calls])


def _renamed(value: Any, rename: dict[str, str]) -> Any:
    if isinstance(value, str):
        if value in rename:
            return rename[value]
        for old, new in rename.items():
            if old.endswith("#") and value.startswith(old):
                return new + value[len(old) :]
        if value.startswith(("[", "{")):  # a JSON document kept as a string (a journal entry's changes)
            for old, new in rename.items():
                if not old.endswith("#"):
                    value = value.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
        return value
    if isinstance(value, dict):
        return {k: _renamed(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, rename) for v in value]
    return value


def mentions(value: Any, needle: str) -> bool:
    """Does any string inside `value` contain `needle`? (to prove a rename left nothing behind)"""
    if isinstance(value, str):
        return needle in value
    if isinstance(value, dict):
        return any(mentions(v, needle) for v in value.values())
    if isinstance(value, list):
        return any(mentions(v, needle) for v in value)
    return False
