"""What each view reads, in a real browser (tests/web/loads.mjs, one Chromium, 390 px): the API calls
of the slips view and of each tab tapped, counted — each view reads only what it shows (the quick
entry's chips from three months' totals, the slip form's accounts without their balances), nothing
twice, the journal followed from where the page got to; a ledger switch reads no settings while they
are not shown. Like tests/api/test_web.py, a missing browser fails rather than skips."""

from __future__ import annotations

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_each_view_reads_only_what_it_shows(node: str, browser: str, front_url: str, user: str) -> None:
    # Given a household's two months of slips and a budget, the page in headless Chromium at 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/loads.mjs", front_url, user)
    # Then every step passed: the calls of each view as expected, no settings read on a ledger switch
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 3, summary["steps"]
