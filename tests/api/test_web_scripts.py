"""Each view's own browser script (tests/web/*.mjs, one Chromium each) against the strict front (the
user pool's tokens only), as a new person of the pool would use their ledger: every named step passes
and leaves its screenshots. Like
tests/api/test_web.py, a missing browser fails rather than skips. What each script walks through:

- dataio.mjs: データの書き出し (progress, download); 自分のデータを削除 behind a typed phrase, refused
  while they alone own a shared ledger others are in (listed on the page), then done.
- imports.mjs (390 px): CSV 取込 of 楽天カード's e-NAVI download onto the ledger's card: the dry run
  names the format (GET /imports/formats) and shows each row, the lines skipped and the check against
  the card's statement; imported on confirmation, the slips read back through the API; MyJCB's
  Shift_JIS file recognised as sent; a file of no known layout refused with the API's 422.
- loads.mjs (390 px): the API calls of the slips view and of each tab tapped, counted: each view reads
  only what it shows (the quick entry's chips from three months' totals, the slip form's accounts
  without their balances), nothing twice, the journal followed from where the page got to; a ledger
  switch reads no settings while they are not shown.
- offline.mjs (390 px): an edit and a delete made offline wait in the outbox and go out once the
  connection returns, exactly once across lost answers, offline/online cycles and a reload (checked
  in each slip's history); an offline edit overtaken by another screen's change shown as a conflict;
  a page reloaded offline on a shared ledger fills the quick entry from what it kept and records to it.
- reconcile.mjs (1280 px): 残高を合わせる: a tap clears a slip, the difference shows as the balance is
  typed, 使途不明金 books it, the reconciled slip is locked; a transfer's receiving side toggles on its
  own; the locked slip unlocks after a confirmation naming the reconciliation it broke.
- rules.mjs (390 px): 自動分類: 「この店はいつも○○」 from a slip makes a payee rule, the preview counts,
  apply changes and offers 取り消す, a suggestion is made a rule with one tap; axe-core clean.
- units.mjs (390 px): a USD and a points account made (a refused unit shown at its field), a dollar
  expense with its yen, points earned with an expiry and shown about to lapse, a dollar expense split
  into lines in dollars, each account in another unit shown with its yen.
- walk.mjs (390 px): this round's capabilities as a new user finds them: a ledger restored from its
  exported archive, budgets that carry over with 繰越 and 1日あたり, a dollar account reconciled in
  dollars, every view no wider than the phone and axe-core clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py

SCRIPTS = {  # script: (its steps, the screenshots it leaves at least)
    "dataio": (3, {"me-delete-refused-390.png", "me-deleted-390.png"}),
    "imports": (5, {"imports-dry-run-390.png", "imports-done-390.png"}),
    "loads": (3, set()),
    "offline": (4, {"offline-writes-390.png", "offline-conflict-390.png", "offline-quick-390.png"}),
    "reconcile": (3, {"reconcile-1280.png", "reconcile-unlock-1280.png"}),
    "rules": (2, {"rules-390.png"}),
    "units": (5, {"units-slips-390.png", "units-accounts-390.png"}),
    "walk": (5, {"walk-restored-390.png", "walk-budgets-390.png", "walk-reconcile-usd-390.png"}),
}


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_view_walked_through_in_a_real_browser(
    script: str, node: str, browser: str, strict_front_url: str, user: str
) -> None:
    # Given a new person of the user pool, signed in, with a ledger of their own, the page in headless
    # Chromium against the strict front (the pool's tokens only)
    steps, screenshots = SCRIPTS[script]
    # When the view's script walks through it
    returncode, summary, output = run_page_script(node, browser, f"tests/web/{script}.mjs", strict_front_url, user)
    # Then every one of its steps passed
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    assert len(summary["steps"]) == steps, summary["steps"]
    # And it left its screenshots
    assert {Path(p).name for p in summary["screenshots"]} >= screenshots
