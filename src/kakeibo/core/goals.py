"""Savings goals (目標貯金), pure: how far a goal is, and what it needs each month. No boto3, no HTTP.

- `saved` is the goal account's balance now; `remaining` what the target still lacks (never below 0).
- `months_left` counts this month and the goal's month (`by`), and those between: a goal due this
  month has one; a goal whose day has passed has none, and needs all that remains now.
- `monthly_needed` is the least whole amount per month that reaches the target in those months
  (the remaining divided, rounded up).
- `on_track`: the forecast's balance of the account on `by` reaches the target. A goal without a
  day has neither a monthly amount nor a track.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Progress:
    saved: int
    remaining: int
    months_left: int | None
    monthly_needed: int | None
    on_track: bool | None


def months_left(today: dt.date, by: dt.date) -> int:
    """The months from today's to by's, both counted (0 once by has passed)."""
    if by < today:
        return 0
    return (by.year * 12 + by.month) - (today.year * 12 + today.month) + 1


def progress(target: int, saved: int, by: dt.date | None, today: dt.date, projected: int | None) -> Progress:
    """A goal's progress; `projected` is the forecast's balance of its account on `by` (or None)."""
    remaining = max(0, target - saved)
    if by is None:
        return Progress(saved, remaining, None, None, None)
    left = months_left(today, by)
    needed = remaining if left == 0 else -(-remaining // left)
    on_track = remaining == 0 if left == 0 or projected is None else projected >= target
    return Progress(saved, remaining, left, needed, on_track)
