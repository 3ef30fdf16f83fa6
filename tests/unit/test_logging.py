"""Logs: the request id is the correlation id; memos and amounts never appear at INFO; every
refusal is logged once, with its code."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from tests.events import Client

SECRET_MEMO = "病院 — 秘密のメモ 4242"
AMOUNT = 987_654


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    """What the function logs at INFO, as JSON lines, through the Logger's own formatter."""
    from kakeibo.handler import logger

    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logger.registered_formatter)
    previous = logger.log_level
    logger.addHandler(handler)
    logger.setLevel("INFO")
    yield buffer
    logger.removeHandler(handler)
    logger.setLevel(previous)


def _records(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.startswith("{")]


def test_no_memo_or_amount_in_logs_and_one_line_per_refusal(api: Client, log: io.StringIO) -> None:
    api.account("cash", 1_000_000)
    log.truncate(0)
    log.seek(0)
    # When a slip with a private memo is created, then refused twice in different ways
    body = {"date": "2026-11-03", "kind": "expense", "amount": AMOUNT, "account": "cash", "memo": SECRET_MEMO}
    assert api.post("/slips", body).status == 201
    assert api.post("/slips", {**body, "amount": AMOUNT * 10}).status == 409
    assert api.post("/slips", {**body, "amount": 1.5}).status == 422
    records = _records(log)
    text = json.dumps(records, ensure_ascii=False)
    # Then neither the memo nor the amounts were written to the log
    assert SECRET_MEMO not in text and "秘密" not in text
    assert str(AMOUNT) not in text and str(AMOUNT * 10) not in text
    # And each refusal is one line with its code, carrying the request id as correlation id
    refusals = [r for r in records if r.get("message") == "request refused"]
    assert [r["code"] for r in refusals] == ["insufficient_funds", "validation_error"]
    assert all(r["correlation_id"] == r["function_request_id"] for r in refusals)
