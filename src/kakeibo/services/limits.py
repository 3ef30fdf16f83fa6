"""Request budgets (§25): every request of a caller spends one of their person's budget for the
minute and, with a personal access token, one of that token's lower budget. Over either: 429
`rate_limited` with Retry-After and the RateLimit fields, and the request goes no further.

Counted outside any transaction of the request, before it runs, in one conditional write: a refused
request was counted by none of its budgets. A person's budget is theirs alone (keyed by their `sub`), in
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
    """Spend one request from each of the caller's budgets, all at once (a request over one spends
    none of the others): their standing after it, for the answer's RateLimit fields; RateLimited,
    naming the first one over (the token's before the person's), when one is spent already."""
    found = budgets(settings, caller)
    if not found:
        return []
    seconds = found[0][0].window  # every budget is per minute (limits.WINDOW): one window, one counter item
    window = limits.window_start(now, seconds)
    spent = store.spend(caller.sub, window, [(scope, budget.limit) for budget, scope in found], seconds=seconds)
    standings = [limits.standing(budget, n, now) for (budget, _), n in zip(found, spent, strict=True)]
    over = next((s for s in standings if s.exhausted), None)
    if over is None:
        return standings
    seconds_left, limit = over.reset, over.budget.limit
    if over.budget.name == "token":
        said = f"over this token's budget of {limit} requests a minute: retry after {seconds_left} s"
    else:
        said = f"over the person's budget of {limit} requests a minute: retry after {seconds_left} s"
    error = errors.RateLimited(said, retry_after=seconds_left, budget=over.budget.name, limit=limit)
    error.headers.update(limits.headers(standings[: standings.index(over) + 1]))
    raise error
