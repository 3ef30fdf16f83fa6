"""残高を合わせる in a real browser (tests/web/reconcile.mjs, one Chromium): a tap clears a slip, the
difference shows as the statement's balance is typed, 使途不明金 books it, the reconciled slip is
locked; a transfer's receiving side toggles on its own, and the locked slip unlocks after a
confirmation, naming the reconciliation it broke. Like tests/api/test_web.py, a missing browser
fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_reconciling_an_account_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given an empty ledger of its own, the page in headless Chromium at 1280 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/reconcile.mjs", front_url, user)
    # Then every step passed: cleared by a tap, the difference shown, 使途不明金 booked, the slip locked,
    # a transfer's receiving side cleared, the slip unlocked and the broken reconciliation named
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 3, summary["steps"]
    # And it left a screenshot
    assert {Path(p).name for p in summary["screenshots"]} >= {"reconcile-1280.png", "reconcile-unlock-1280.png"}
