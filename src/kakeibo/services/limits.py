"""Request budgets (§25): every request of a caller spends one of their person's budget for the
minute and, with a personal access token, one of that token's lower budget. Over either: 429
`rate_limited` with Retry-After and the RateLimit fields, and the request goes no further.

Counted outside any transaction of the request, before it runs: a refused request was counted by
nothing but the budget it was over. A person's budget is theirs alone (keyed by their `sub`), in
every ledger they use; the stage's throttling stays the backstop for the whole API.
"""

from __future__ import annotations

from kakeibo import errors
from kakeibo.core import limits
from kakeibo.event import Caller
from kakeibo.settings import Settings
from kakeibo.store.limits import LimitStore


def budgets(settings: Settings, caller: Caller) -> list[tuple[limits.Budget, str]]:
    """The budgets a caller's request falls under, each with the scope its counter is kept under."""
    found = []
    if caller.via == "token" and caller.token_id and settings.rate_limit_token:
        found.append((limits.Budget("token", settings.rate_limit_token), caller.token_id))
    if settings.rate_limit_person:
        found.append((limits.Budget("person", settings.rate_limit_person), ""))
    return found


def spend(store: LimitStore, settings: Settings, caller: Caller, now: float) -> list[limits.Standing]:
    """Spend one request from each of the caller's budgets (the token's first: a request over it does
    not spend the person's): their standing after it, for the answer's RateLimit fields; RateLimited
    when one is spent already."""
    standings = []
    for budget, scope in budgets(settings, caller):
        window = limits.window_start(now, budget.window)
        spent = store.spend(caller.sub, scope, window, limit=budget.limit, seconds=budget.window)
        standing = limits.standing(budget, spent, now)
        standings.append(standing)
        if standing.exhausted:
            seconds, limit = standing.reset, budget.limit
            if budget.name == "token":
                said = f"over this token's budget of {limit} requests a minute: retry after {seconds} s"
            else:
                said = f"over the person's budget of {limit} requests a minute: retry after {seconds} s"
            error = errors.RateLimited(said, retry_after=seconds, budget=budget.name, limit=limit)
            error.headers.update(limits.headers(standings))
            raise error
    return standings
