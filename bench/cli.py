"""`python -m bench [--only a,b] [--quick] [--profile] [--out PATH] [--list]`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from bench import machine, targets
from bench.api import BenchError
from bench.context import RESULTS, Context, Sizes
from bench.registry import sections, select
from bench.report import render
from bench.scenario import warm_up


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", help="comma-separated sections to run (default: all); see --list")
    parser.add_argument("--quick", action="store_true", help="a short smoke run on a tiny dataset")
    parser.add_argument("--profile", action="store_true", help="also profile the handler (pyinstrument)")
    parser.add_argument("--out", type=Path, default=RESULTS / "latest.json", help="where to write the JSON")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.list:
        for section in sections():
            print(f"{section.name:10} {section.title}")
        return 0
    chosen = select(args.only)
    out: Path = args.out.resolve()
    sizes = Sizes.quick() if args.quick else Sizes.full()
    started, t0 = dt.datetime.now(dt.UTC), time.monotonic()
    ctx = Context(sizes, profile=args.profile, out_dir=out.parent)
    failed = False
    load_at_start = machine.load_average()
    try:
        _progress("starting DynamoDB Local")
        ctx.start()
        _progress(f"warming up ({sizes.global_warmup} requests)")
        warm_up(ctx)
        for section in chosen:
            _progress(f"{section.name}: {section.title}")
            s0 = time.monotonic()
            try:
                result: dict[str, Any] = section.run(ctx)
            except BenchError as exc:
                failed = True
                result = {"error": str(exc)}
                traceback.print_exc()
            result = {"title": section.title, **result, "seconds": round(time.monotonic() - s0, 1)}
            ctx.results[section.name] = result
        doc = {
            "schema": 1,
            "mode": "quick" if args.quick else "full",
            "started_at": started.isoformat(timespec="seconds"),
            "duration_s": round(time.monotonic() - t0, 1),
            "machine": {**machine.info(), "load_average_at_start": load_at_start},
            "sizes": sizes.__dict__,
            "sections": ctx.results,
            "targets": targets.evaluate(ctx.results),
            "output": ctx.shown(out),
        }
    finally:
        ctx.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(render(doc, chosen))
    return 1 if failed else 0


def _progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
