"""Accounts in other units in a real browser (tests/web/units.mjs, one Chromium, 390 px): a USD and a
points account made (a refused unit shown at its field), a dollar expense with its yen, points earned
with an expiry and shown about to lapse, a dollar expense split into lines in dollars, and each account
in another unit shown with its yen. Like tests/api/test_web.py, a missing browser fails rather
than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_accounts_in_other_units_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given a new person's personal ledger, the page in headless Chromium at 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/units.mjs", front_url, user)
    # Then every step passed: the accounts made, the slips in their units, the lapse line shown, the
    # split in dollars and the yen of each account
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 5, summary["steps"]
    # And it left screenshots
    assert {Path(p).name for p in summary["screenshots"]} >= {"units-slips-390.png", "units-accounts-390.png"}
