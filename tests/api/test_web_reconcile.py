"""残高を合わせる in a real browser (tests/web/reconcile.mjs, one Chromium): a tap clears a slip, the
difference shows as the statement's balance is typed, 使途不明金 books it, the reconciled slip is
locked. Like tests/api/test_web.py, a missing browser fails rather than skips."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.api.test_web import CHROMIUM, ROOT, SCREENSHOTS, browser, node

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_reconciling_an_account_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given an empty ledger of its own, the page in headless Chromium at 1280 px
    result = subprocess.run(
        [node, "tests/web/reconcile.mjs", "--url", front_url, "--user", user, "--out", str(SCREENSHOTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "CHROMIUM": browser or CHROMIUM},
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    summary = json.loads(lines[-1]) if lines else {}
    output = result.stdout[-6000:] + result.stderr[-3000:]
    # Then every step passed: cleared by a tap, the difference shown, 使途不明金 booked, the slip locked
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert result.returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == 2, summary["steps"]
    # And it left a screenshot
    assert {Path(p).name for p in summary["screenshots"]} >= {"reconcile-1280.png"}
