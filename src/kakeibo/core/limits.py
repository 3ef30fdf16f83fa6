"""Request budgets (§25): how many requests a caller may make in a window, and how that is told.

A budget is `limit` requests per fixed window of `window` seconds (the windows start at multiples of
it, in epoch seconds). Every request spends one from each budget it falls under: its person's, and,
with a personal access token, that token's lower one. The first request over a budget is refused
until its window ends. The answer names the budgets in the IETF RateLimit fields
(draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "person";q=300;w=60` and
`RateLimit: "person";r=12;t=34` (r: what is left, t: seconds until the window resets).
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW = 60  # seconds: budgets are per minute


@dataclass(frozen=True, slots=True)
class Budget:
    """`limit` requests per `window` seconds, under a name the RateLimit fields use."""

    name: str
    limit: int
    window: int = WINDOW


@dataclass(frozen=True, slots=True)
class Standing:
    """A budget after one request: what is left of it and when its window resets."""

    budget: Budget
    remaining: int
    reset: int  # seconds until the window ends (at least 1)

    @property
    def exhausted(self) -> bool:
        return self.remaining < 0


def window_start(now: float, window: int = WINDOW) -> int:
    """The start of the window `now` falls in (epoch seconds)."""
    return int(now) // window * window


def seconds_left(now: float, window: int = WINDOW) -> int:
    """Whole seconds until the window `now` falls in ends, at least 1 (what Retry-After says)."""
    return max(1, window_start(now, window) + window - int(now))


def standing(budget: Budget, spent: int | None, now: float) -> Standing:
    """The budget once this request is counted: `spent` requests in the window including it, or None
    when it was refused for being over (remaining -1)."""
    remaining = -1 if spent is None else max(0, budget.limit - spent)
    return Standing(budget, remaining, seconds_left(now, budget.window))


def policy_field(budgets: list[Budget]) -> str:
    """The `RateLimit-Policy` field's value."""
    return ", ".join(f'"{b.name}";q={b.limit};w={b.window}' for b in budgets)


def limit_field(standings: list[Standing]) -> str:
    """The `RateLimit` field's value: each budget with what is left (0 once over) and its reset."""
    return ", ".join(f'"{s.budget.name}";r={max(0, s.remaining)};t={s.reset}' for s in standings)


def headers(standings: list[Standing]) -> dict[str, str]:
    """The RateLimit fields of an answer (nothing when no budget applies)."""
    if not standings:
        return {}
    return {"RateLimit-Policy": policy_field([s.budget for s in standings]), "RateLimit": limit_field(standings)}
