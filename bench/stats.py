"""Latency summaries: percentiles of nanosecond samples, in milliseconds."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    if len(ordered) == 1:
        return float(ordered[0])
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (rank - low))


def summary(samples_ns: Sequence[int]) -> dict[str, Any]:
    ms = [s / 1e6 for s in samples_ns]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "min_ms": round(min(ms), 3),
    }


def ratio(ours: float, floor: float) -> float:
    return round(ours / floor, 3) if floor else float("inf")


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))
