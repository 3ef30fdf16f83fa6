"""Scheduled work: the events EventBridge Scheduler sends (template.yaml), not HTTP requests.

The daily schedule sends `{"job": "post_due_recurrences", "scheduled_time": ...}`: recurring slips
and card payments due by that day. API Gateway
never produces such an event (its events always carry `routeKey` and `requestContext`), so no
request can start a job.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from aws_lambda_powertools import Logger

from kakeibo.settings import get_settings

POST_DUE_RECURRENCES = "post_due_recurrences"
logger = Logger()


class JobIncomplete(Exception):
    """Time ran out with work left. Raised so that Lambda retries the (asynchronous) invocation, and
    the retry resumes: what was posted has left the due index."""


def is_job(event: Any) -> bool:
    return (
        isinstance(event, dict)
        and event.get("job") == POST_DUE_RECURRENCES
        and "routeKey" not in event
        and "requestContext" not in event
    )


def scheduled_day(event: dict[str, Any]) -> dt.date | None:
    """The day (in the ledger's time zone) the schedule fired for, so that a delayed or retried
    delivery posts what that day's run would have. None: today."""
    value = event.get("scheduled_time")
    if not isinstance(value, str):
        return None
    try:
        instant = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return (instant if instant.tzinfo else instant.replace(tzinfo=dt.UTC)).astimezone(get_settings().time_zone).date()


def run(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from kakeibo.services import daily  # noqa: PLC0415 - loaded when a job runs, not on every cold start
    from kakeibo.store import get_store  # noqa: PLC0415

    remaining = getattr(context, "get_remaining_time_in_millis", None)
    time_left = (lambda: float(remaining()) / 1000) if remaining is not None else None
    result = daily.post_due(get_store(), scheduled_day(event), time_left=time_left)
    if result["complete"]:  # then the alerts of the months ahead (services/alerts_ahead.py)
        from kakeibo.services import alerts_ahead  # noqa: PLC0415

        told = alerts_ahead.raise_due(get_store(), dt.date.fromisoformat(str(result["until"])), time_left=time_left)
        result = {**result, "alerts": told["alerts"], "complete": told["complete"]}
    summary = {
        "until": result["until"],
        "posted": result["posted"],
        "failed": len(result["failed"]),
        "swept": result.get("swept", 0),
        "alerts": result.get("alerts", 0),
    }
    logger.info("posted due recurrences and card payments", extra={**summary, "complete": result["complete"]})
    if not result["complete"]:
        raise JobIncomplete(f"time ran out after {result['posted']} slips; the retry resumes")
    return summary
