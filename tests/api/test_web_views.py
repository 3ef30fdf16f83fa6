"""The page's everyday views in a real browser (tests/web/views.mjs, one Chromium for every step):
"today" is the ledger's day whatever the browser's time zone says, the memo column readable at 1280
and 390 px, a view per hash route with the back button working and each view reading only what it
shows, an expense in three taps, an entry made offline recorded exactly once, the pictures with their
tables, axe-core clean on every view. Like tests/api/test_web.py, a missing browser fails rather than skips."""

from __future__ import annotations

from pathlib import Path

from tests.api.conftest import Http
from tests.api.test_web import browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_health_names_the_ledgers_time_zone(anonymous: Http) -> None:
    # When the page asks the API which day it is in (no token needed)
    health = anonymous.get("/health").json()
    # Then it names the ledgers' time zone (Asia/Tokyo unless configured)
    assert health["status"] == "ok"
    assert health["time_zone"] == "Asia/Tokyo"


def test_everyday_views_in_a_real_browser(node: str, browser: str, front_url: str, user: str) -> None:
    # Given an empty ledger of its own, the page in headless Chromium at 1280 and 390 px
    returncode, summary, output = run_page_script(node, browser, "tests/web/views.mjs", front_url, user)
    # Then every step passed: today in Tokyo from a browser in UTC, the memo on one line
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    names = [s["name"] for s in summary["steps"]]
    assert any("today" in n for n in names) and any("memo" in n for n in names), names
    for words in ("navigation", "three taps", "offline", "pictures"):
        assert any(words in n for n in names), (words, names)
    # And it left a screenshot at each width
    assert {Path(p).name for p in summary["screenshots"]} >= {
        "views-memo-1280.png",
        "views-memo-390.png",
        "views-nav-1280.png",
        "views-nav-390.png",
        "views-quick-390.png",
        "views-offline-390.png",
        "views-charts-reports-390.png",
        "views-charts-budgets-390.png",
    }


def test_the_front_serves_an_installable_page(anonymous: Http) -> None:
    # When a browser asks for the page's manifest, service worker and icon
    manifest = anonymous.get("/manifest.webmanifest")
    worker = anonymous.get("/sw.js")
    icon = anonymous.get("/icon.svg")
    # Then they come with the types a browser installs the page from
    assert manifest.status_code == 200
    assert manifest.headers["Content-Type"] == "application/manifest+json; charset=utf-8"
    described = manifest.json()
    assert described["display"] == "standalone"
    assert described["start_url"].startswith("./")
    assert {i["src"] for i in described["icons"]} == {"icon.svg"}
    assert worker.status_code == 200
    assert worker.headers["Content-Type"].startswith("text/javascript")
    assert "addEventListener('fetch'" in worker.text
    assert icon.status_code == 200
    assert icon.headers["Content-Type"] == "image/svg+xml"
    # And the page names its manifest
    assert '<link rel="manifest" href="manifest.webmanifest">' in anonymous.get("/").text
