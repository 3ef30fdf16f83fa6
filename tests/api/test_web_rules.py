"""自動分類 in a real browser (tests/web/rules.mjs, one Chromium, 390 px): 「この店はいつも○○」 from a
slip makes a payee rule, the preview counts, apply changes and offers 取り消す, a suggestion is made a
rule with one tap; axe-core clean. Like tests/api/test_web.py, a missing browser fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_rules_from_a_slip_previewed_applied_undone_and_suggested_in_a_real_browser(
    node: str, browser: str, front_url: str, user: str
) -> None:
    # Given an empty ledger of its own, the page in headless Chromium at 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/rules.mjs", front_url, user)
    # Then every step passed: a payee rule from a slip, preview, apply, undo, a suggestion accepted
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 2, summary["steps"]
    # And it left a screenshot
    assert {Path(p).name for p in summary["screenshots"]} >= {"rules-390.png"}
