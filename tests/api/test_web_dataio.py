"""データの書き出し and 自分のデータを削除 in a real browser (tests/web/dataio.mjs, one Chromium): the export's
progress and download; deleting one's own data behind a typed phrase, refused while they alone own a
shared ledger others are in (listed on the page), then done. Like tests/api/test_web.py, a missing
browser fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_exporting_and_deleting_my_data_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given a personal ledger of its own, the page in headless Chromium
    returncode, summary, output = run_page_script(node, browser, "tests/web/dataio.mjs", front_url, user)
    # Then every step passed: the export offered, the deletion refused with the ledger listed, then done
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 3, summary["steps"]
    # And it left screenshots
    assert {Path(p).name for p in summary["screenshots"]} >= {"me-delete-refused-390.png", "me-deleted-390.png"}
