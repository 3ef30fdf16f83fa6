"""Writes made without a connection in a real browser (tests/web/offline.mjs, one Chromium, 390 px):
an edit and a delete made offline wait in the outbox and go out once the connection returns, exactly
once across lost answers, offline/online cycles and a reload (checked in each slip's history); an
offline edit overtaken by another screen's change is shown as a conflict. Like tests/api/test_web.py,
a missing browser fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_offline_edits_and_deletes_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given a new person's personal ledger with a wallet, the page in headless Chromium at 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/offline.mjs", front_url, user)
    # Then every step passed: the offline edit and delete happened once, the overtaken edit shown as a conflict
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 3, summary["steps"]
    # And it left screenshots
    assert {Path(p).name for p in summary["screenshots"]} >= {"offline-writes-390.png", "offline-conflict-390.png"}
