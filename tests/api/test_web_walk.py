"""This round's capabilities on a phone, as a new user would use them (tests/web/walk.mjs, one
Chromium, 390 px): a ledger restored from its exported archive on the settings view, budgets that
carry over with 繰越 and 1日あたり, a dollar account reconciled in dollars, every view no wider than
the phone and axe-core clean. Like tests/api/test_web.py, a missing browser fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_this_rounds_capabilities_on_a_phone(node: str, browser: str, front_url: str, user: str) -> None:
    # Given a new person's ledger with three slips, the page in headless Chromium at 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/walk.mjs", front_url, user)
    # Then every step passed: restored, carried over, reconciled in dollars, every view fits
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 5, summary["steps"]
    # And it left screenshots
    assert {Path(p).name for p in summary["screenshots"]} >= {
        "walk-restored-390.png",
        "walk-budgets-390.png",
        "walk-reconcile-usd-390.png",
    }
