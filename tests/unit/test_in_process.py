"""The handler called in this process (`InProcess`, what the tests' clients and the bench use) answers
one request at a time whichever front calls it: its module is one Lambda instance, whose resolver
holds the request it is answering, so two at once would answer one with the other's caller."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kakeibo.local.front import InProcess


def test_two_fronts_of_one_handler_never_run_it_at_once() -> None:
    # Given one handler that waits (up to 5 s) for a second call to be inside it too
    together = threading.Barrier(2)

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            together.wait(timeout=5)
        except threading.BrokenBarrierError:
            return {"met": False}
        return {"met": True}

    fronts = [InProcess(handler), InProcess(handler)]
    event = {"requestContext": {"requestId": "r"}}
    # When two fronts (two clients) call it at the same moment
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda front: front.invoke(event), fronts))
    # Then neither call ever found the other inside the handler
    assert answers == [{"met": False}, {"met": False}]
