"""The machine a run measured: results mean little without it."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from kakeibo.local.dynamodb import find_jar

ROOT = Path(__file__).resolve().parents[1]


def _first(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _run(*args: str) -> str:
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=20, check=False, cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr) else "unknown"


def _dirty() -> bool | None:
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
            cwd=ROOT,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip())


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load: other work on the machine skews latencies, so it is recorded."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def info() -> dict[str, Any]:
    mem_kb = _first("/proc/meminfo", "MemTotal").split()[0]
    jar = find_jar()
    package = jar.parents[1].parent / "package.json"
    npm_version = json.loads(package.read_text(encoding="utf-8")).get("version") if package.exists() else None
    return {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu": _first("/proc/cpuinfo", "model name"),
        "memory_gib": round(int(mem_kb) / 1024 / 1024, 1) if mem_kb.isdigit() else None,
        "os": platform.platform(),
        "load_average_at_end": load_average(),
        "python": sys.version.split()[0],
        "java": _run("java", "-version"),
        "dynamodb_local": jar.parent.name.removeprefix("dynamodb_local_"),
        "dynamodb_local_npm": npm_version,
        "packages": {name: _version(name) for name in ("boto3", "botocore", "aws-lambda-powertools", "pydantic")},
        "commit": _run("git", "rev-parse", "--short", "HEAD"),
        "uncommitted_changes": _dirty(),
    }
