"""The local servers `make run` and the tests start keep answering however much they log."""

from __future__ import annotations

import urllib.error
import urllib.request

from kakeibo.local.dynamodb import free_port
from kakeibo.local.s3 import S3Local


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:  # noqa: S310 - our own local server
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def test_the_s3_server_keeps_answering_after_logging_more_than_a_pipe_holds() -> None:
    # Given a local S3 server as `make run` starts it
    server = S3Local(free_port()).start()
    try:
        # When it is asked for 200 missing objects with long names: it logs each request line, about
        # 800 KB in all, far more than an unread pipe holds (64 KB)
        long_key = "r" * 4_000
        answers = [_status(f"{server.endpoint}/no-such-bucket/{long_key}{n}") for n in range(200)]
        # Then every request is answered (404: no such bucket), the last as the first
        assert answers == [404] * 200
    finally:
        server.stop()
