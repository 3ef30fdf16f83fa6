"""cold: a fresh process's import of the handler and its first request, against bare boto3.

What is measured is what would be deployed: the Lambda package `make package` builds (for this
machine's architecture), against boto3 alone packaged the same way (pinned version, precompiled,
unchecked-hash bytecode). Each run is a new interpreter (`python -I -S`: the standard library and
that one directory, as in Lambda's /var/task) timed from inside, after the interpreter itself has
started: Lambda's own runtime start is the same for both.
Three kinds, interleaved, after one discarded round that warms the file cache:
  ours        import kakeibo.handler, then handle POST /slips (creates the client, 2 DynamoDB calls)
  bare        import boto3 + create a DynamoDB client (the baseline)
  same calls  bare + the same DynamoDB calls the first request makes, pre-built
  floor       the design's floor, none of our code: boto3 + client, Powertools' resolver with
              validation and its Logger, one route answering the same event, its body validated by
              a pydantic model, making the same DynamoDB calls (from the same package as ours, so
              its botocore is trimmed exactly as ours: the same models kept)
  restore     SnapStart as it runs (§31): import the handler, run the before-snapshot hooks (the
              handler's priming), fork; the child, a restored instance, runs the after-restore hooks
              and handles POST /slips on one ledger, then on another, then on the first again: its
              first request against its second (both on a ledger new to the instance, which reads
              the ledger's journal head once), and against its third (the same ledger again)
  unprimed    the same fork with only snapstart.prepare before it (what a restore was before the
              priming): the cost the priming takes away
  floor_restore  the floor restored as ours is: its client made, one request served against a table
              answered in process, the heap collected and frozen, fork; the child's first request
              against its second, as for ours: what a restored instance's first request costs on
              this machine with none of our code (a fork copies each page a request writes)
The median of each is reported (the targets: ours within 1.15x of the floor; a restored instance's
first request within 1.15x of its second), and where ours' import time goes (`python -X importtime`).

The package is the one `make host-package` builds, or KAKEIBO_BENCH_PACKAGE=DIR: a LedgerFunction
already built (sam build's directory, e.g. a copy of another checkout's), used as it is.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from botocore import xform_name

from bench.api import BenchError
from bench.context import Context
from bench.registry import register
from bench.scenario import slip_body
from bench.stats import median
from kakeibo.core.ids import new_slip_id
from kakeibo.store.keys import change_sk

ROOT = Path(__file__).resolve().parents[2]
CHILD = ROOT / "bench" / "cold_child.py"
KINDS = ("ours", "bare", "same_calls", "floor", "restore", "unprimed", "floor_restore")
RESTORED = ("restore", "unprimed", "floor_restore")
ARCH = platform.machine().replace("aarch64", "arm64")


def packages() -> dict[str, Path]:
    """The LedgerFunction as sam build builds it for this machine ((re)built by make when stale). The
    baselines load their boto3, Powertools and pydantic from it too: trimmed exactly as ours."""
    given = os.environ.get("KAKEIBO_BENCH_PACKAGE")
    if given:
        ours = Path(given).resolve()
        if not (ours / "kakeibo" / "handler.py").is_file():
            raise BenchError(f"KAKEIBO_BENCH_PACKAGE={given}: not a built LedgerFunction")
        return dict.fromkeys(("ours", "boto3", "floor", "restore", "unprimed", "floor_restore"), ours)
    built = subprocess.run(
        ["make", "--no-print-directory", "host-package"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if built.returncode != 0:
        raise BenchError(f"make host-package failed: {(built.stdout + built.stderr)[-800:]}")
    ours = ROOT / "build" / f"sam-{ARCH}" / "LedgerFunction"
    return dict.fromkeys(("ours", "boto3", "floor", "restore", "unprimed", "floor_restore"), ours)


def _child(mode: str, spec: Path, package: Path, *flags: str) -> tuple[dict[str, Any], float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-I", "-S", *flags, str(CHILD), mode, str(spec), str(package)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise BenchError(f"cold start child ({mode}) failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), wall, done.stderr


Calls = list[tuple[str, dict[str, Any]]]


def _fresh_ids(calls: Calls, slip_id: str) -> Calls:
    """The same calls for a new slip: new id (same length), new ClientRequestToken."""
    text = json.dumps(calls).replace(slip_id, new_slip_id())
    fresh: Calls = [(operation, params) for operation, params in json.loads(text)]
    for _, params in fresh:
        if "ClientRequestToken" in params:
            params["ClientRequestToken"] = str(uuid.uuid4())
    return fresh


def _at_head(calls: Calls, head: int) -> Calls:
    """The same calls after the journal has moved to `head` (the handler's own runs advanced it): the
    head update and the entry put renumbered, so the replay commits as the handler's would."""
    for operation, params in calls:
        if operation != "transact_write_items":
            continue
        for op in params["TransactItems"]:
            if "Update" in op and op["Update"]["Key"]["SK"]["S"] == "JOURNAL":
                update = op["Update"]
                update["ExpressionAttributeValues"][":seq"] = {"N": str(head + 1)}
                if head:
                    update["ConditionExpression"] = update["ConditionExpression"].replace(
                        "attribute_not_exists(#seq)", "#seq = :seen"
                    )
                    update["ExpressionAttributeValues"][":seen"] = {"N": str(head)}
            elif "Put" in op and op["Put"]["Item"]["SK"]["S"].startswith("CHG#"):
                op["Put"]["Item"]["SK"] = {"S": change_sk(head + 1)}
                op["Put"]["Item"]["seq"] = {"N": str(head + 1)}
    return calls


def import_cost_by_package(stderr: str, top: int = 12) -> list[dict[str, Any]]:
    """Where the import time goes: `python -X importtime`'s self times summed per top-level package."""
    totals: dict[str, int] = {}
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| \s*(\S+)", line)
        if match:
            package = match.group(3).split(".")[0]
            totals[package] = totals.get(package, 0) + int(match.group(1))
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [{"package": name, "self_ms": round(us / 1000, 1)} for name, us in ranked]


def _ratio(med: dict[str, dict[str, float]], a: str, b: str, field: str) -> float:
    return round(med[a][field] / med[b][field], 3)


def _medians_ms(runs: list[dict[str, Any]]) -> dict[str, float]:
    phases = [name for name in runs[0] if name.endswith("_s")]
    return {phase.removesuffix("_s") + "_ms": round(median([run[phase] for run in runs]) * 1000, 1) for phase in phases}


def _restore(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A kind of restored instance: its first and second requests' medians, their ratio (of the
    medians, and the median of each child's own), and the modules its first request imported."""
    first, second, third = (median([run[f"{n}_request_s"] for run in runs]) for n in ("first", "second", "third"))
    first_cpu, second_cpu = (median([run[f"{n}_request_cpu_s"] for run in runs]) for n in ("first", "second"))
    own = median([run["first_request_s"] / run["second_request_s"] for run in runs])
    return {
        "init_ms": round(median([run["init_s"] for run in runs]) * 1000, 1),
        "first_request_ms": round(first * 1000, 2),
        "second_request_ms": round(second * 1000, 2),
        "third_request_ms": round(third * 1000, 2),
        "first_vs_second": round(first / second, 3),
        "first_vs_second_each": round(own, 3),
        "first_vs_third": round(first / third, 3),
        "cpu_first_vs_second": round(first_cpu / second_cpu, 3),
        "imported_by_first": max(len(run["imported"]) for run in runs),
        "faults_first": median([run["first_request_faults"] for run in runs]),
        "faults_second": median([run["second_request_faults"] for run in runs]),
        "imported_sample": runs[0]["imported"][:12],
    }


def _restore_line(kind: str, x: dict[str, Any]) -> str:
    floor = kind == "floor_restore"  # one ledger: the floor has no ledger of its own to know
    second, third = ("another slip", "a third") if floor else ("another ledger", "the first's ledger again")
    return (
        f"  {kind:11} init {x['init_ms']:.0f} ms, fork; the child's first POST /slips {x['first_request_ms']:.1f} ms, "
        f"second ({second}) "
        f"{x['second_request_ms']:.1f} ms -> {x['first_vs_second']:.2f}x "
        f"(each child's own: {x['first_vs_second_each']:.2f}x; CPU {x['cpu_first_vs_second']:.2f}x); "
        f"third ({third}) {x['third_request_ms']:.1f} ms -> first/third "
        f"{x['first_vs_third']:.2f}x; the first imported {x['imported_by_first']} modules; page faults "
        f"(pages copied on write) first {x['faults_first']:.0f}, second {x['faults_second']:.0f}"
    )


def _against_floor_restored(ratio: dict[str, Any]) -> list[str]:
    if "restored_vs_floor_restored" not in ratio:  # results from before the floor was restored too
        return []
    return [
        f"  restored, ours' first/second against the floor's: {ratio['restored_first_vs_second']:.2f}x / "
        f"{ratio['floor_restored_first_vs_second']:.2f}x = {ratio['restored_vs_floor_restored']:.2f}x"
    ]


def render(r: dict[str, Any]) -> list[str]:
    m = r["median"]
    return [
        f"Cold start: fresh process, median of {r['runs']} (timed inside the process; first request "
        f"{r['first_request']}; packages {r['packages']['ours']} vs {r['packages']['boto3']})",
        f"  ours        import handler {m['ours']['import_ms']:.0f} ms + first request "
        f"{m['ours']['first_request_ms']:.0f} ms = {m['ours']['total_ms']:.0f} ms "
        f"(whole process {r['process_wall_ms']['ours']:.0f} ms)",
        f"  bare boto3  import {m['bare']['import_ms']:.0f} ms + client {m['bare']['client_ms']:.0f} ms = "
        f"{m['bare']['total_ms']:.0f} ms -> ours/bare {r['ratio']['vs_bare_boto3']:.2f}x "
        f"(CPU time: {m['ours']['total_cpu_ms']:.0f} / {m['bare']['total_cpu_ms']:.0f} ms = "
        f"{r['ratio']['cpu_vs_bare_boto3']:.2f}x)",
        f"  boto3 + the same calls  {m['same_calls']['total_ms']:.0f} ms -> ours/that "
        f"{r['ratio']['vs_boto3_same_calls']:.2f}x (CPU {r['ratio']['cpu_vs_boto3_same_calls']:.2f}x)",
        f"  the floor (Powertools resolver with validation + Logger, pydantic, one route, the same "
        f"calls; none of ours)  import {m['floor']['import_ms']:.0f} ms + first request "
        f"{m['floor']['first_request_ms']:.0f} ms = {m['floor']['total_ms']:.0f} ms -> ours/floor "
        f"{r['ratio']['vs_floor']:.2f}x (CPU {r['ratio']['cpu_vs_floor']:.2f}x; floor/bare "
        f"{r['ratio']['floor_vs_bare_boto3']:.2f}x)",
        *(_restore_line(kind, x) for kind, x in r["restore"].items()),
        *_against_floor_restored(r["ratio"]),
        "  import time of ours by package (ms, one run under -X importtime): "
        + ", ".join(f"{i['package']} {i['self_ms']:.0f}" for i in r["import_cost_by_package"][:8]),
    ]


@register("cold", "cold start", order=70, render=render)
def run(ctx: Context) -> dict[str, Any]:
    ledger = ctx.ledger("cold")
    account = {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 10**9}
    ctx.request("POST", "/accounts", user=ledger, body=account, expect=201)
    event = ctx.api.event("POST", "/slips", user=ledger, body=slip_body(0))
    other = ctx.ledger("cold")
    ctx.request("POST", "/accounts", user=other, body=account, expect=201)
    ctx.request("POST", "/slips", user=other, body=slip_body(0), expect=201)
    others = {"events": [event, ctx.api.event("POST", "/slips", user=other, body=slip_body(1))]}
    ctx.recorder.clear()
    created = ctx.api.invoke(json.loads(json.dumps(event)))
    if created.status != 201:
        raise BenchError(f"first request failed: {created.body[:300]}")
    calls: Calls = [(xform_name(call.operation), call.params) for call in ctx.recorder.take()]

    dirs = packages()
    samples: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    walls: dict[str, list[float]] = {k: [] for k in KINDS}
    with tempfile.TemporaryDirectory(prefix="kakeibo-cold-") as tmp:
        ours_spec = Path(tmp) / "ours.json"
        ours_spec.write_text(json.dumps({"event": event}), encoding="utf-8")
        restore_spec = Path(tmp) / "restore.json"
        restore_spec.write_text(json.dumps(others), encoding="utf-8")
        bare_spec = Path(tmp) / "bare.json"
        bare_spec.write_text("{}", encoding="utf-8")
        warmup = ctx.sizes.cold_warmup_rounds
        for round_ in range(warmup + ctx.sizes.cold_runs):
            same_spec = Path(tmp) / f"same-{round_}.json"
            floor_spec = Path(tmp) / f"floor-{round_}.json"
            floor_restore_spec = Path(tmp) / f"floor-restore-{round_}.json"
            for kind, mode, spec in (
                ("ours", "ours", ours_spec),
                ("restore", "restore", restore_spec),
                ("bare", "boto3", bare_spec),
                ("same_calls", "boto3", same_spec),
                ("floor", "floor", floor_spec),
                ("unprimed", "unprimed", restore_spec),
                ("floor_restore", "floor_restore", floor_restore_spec),
            ):
                head = ctx.store.journal.journal_head(ledger)  # after the runs before it moved the journal
                if spec in (same_spec, floor_spec):
                    fresh = {"event": event, "calls": _at_head(_fresh_ids(calls, created.json["id"]), head)}
                    spec.write_text(json.dumps(fresh), encoding="utf-8")
                if spec is floor_restore_spec:  # three requests, each a new slip at the next head
                    three = [_at_head(_fresh_ids(calls, created.json["id"]), head + n) for n in range(3)]
                    spec.write_text(json.dumps({"event": event, "calls": three}), encoding="utf-8")
                out, wall, _ = _child(mode, spec, dirs[mode])
                if kind in ("ours", "floor") and out["status"] != 201:
                    raise BenchError(f"cold start request ({kind}) got {out['status']}")
                if kind in RESTORED and out["status"] != [201, 201, 201]:
                    raise BenchError(f"restored instance's requests ({kind}) got {out['status']}")
                if round_ >= warmup:  # warm-up rounds fill the page cache and compile bytecode
                    samples[kind].append(out)
                    walls[kind].append(wall)
        _, _, importtime = _child("ours", ours_spec, dirs["ours"], "-X", "importtime")

    med = {kind: _medians_ms(runs) for kind, runs in samples.items()}
    wall_ms = {k: round(median(v) * 1000, 1) for k, v in walls.items()}
    restores = {kind: _restore(samples[kind]) for kind in RESTORED}
    return {
        "kind": "cold",
        "runs": ctx.sizes.cold_runs,
        "first_request": "POST /slips",
        "packages": {mode: ctx.shown(path) for mode, path in dirs.items()},
        "median": med,
        "process_wall_ms": wall_ms,
        "ratio": {
            "vs_bare_boto3": _ratio(med, "ours", "bare", "total_ms"),
            "vs_boto3_same_calls": _ratio(med, "ours", "same_calls", "total_ms"),
            "cpu_vs_bare_boto3": _ratio(med, "ours", "bare", "total_cpu_ms"),
            "cpu_vs_boto3_same_calls": _ratio(med, "ours", "same_calls", "total_cpu_ms"),
            "vs_floor": _ratio(med, "ours", "floor", "total_ms"),
            "cpu_vs_floor": _ratio(med, "ours", "floor", "total_cpu_ms"),
            "floor_vs_bare_boto3": _ratio(med, "floor", "bare", "total_ms"),
            "restored_first_vs_second": restores["restore"]["first_vs_second"],
            "unprimed_first_vs_second": restores["unprimed"]["first_vs_second"],
            "floor_restored_first_vs_second": restores["floor_restore"]["first_vs_second"],
            "restored_vs_floor_restored": round(
                restores["restore"]["first_vs_second"] / restores["floor_restore"]["first_vs_second"], 3
            ),
        },
        "restore": restores,
        "import_cost_by_package": import_cost_by_package(importtime),
    }
