"""The page's everyday views in a real browser (tests/web/views.mjs, one Chromium for every step):
"today" is the ledger's day whatever the browser's time zone says, the memo column readable at 1280
and 390 px, a view per hash route with the back button working and each view reading only what it
shows, an expense in three taps, an entry made offline recorded exactly once, the slips' payees, the
medical table readable on a phone, the カード tab opening on the statements, the pictures with their
tables at a readable size, axe-core clean on every view. Like tests/api/test_web.py, a missing browser
fails rather than skips."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from tests.api.conftest import Http
from tests.api.test_web import ROOT, browser, node, run_page_script

__all__ = ["browser", "node"]  # the fixtures, shared with test_web.py


def test_health_names_the_ledgers_time_zone(anonymous: Http) -> None:
    # When the page asks the API which day it is in (no token needed)
    health = anonymous.get("/health").json()
    # Then it names the ledgers' time zone (Asia/Tokyo unless configured)
    assert health["status"] == "ok"
    assert health["time_zone"] == "Asia/Tokyo"


def test_everyday_views_in_a_real_browser(node: str, browser: str, strict_front_url: str, user: str) -> None:
    # Given a new person of the user pool, signed in, with an empty ledger of their own, the page in
    # headless Chromium at 1280 and 390 px against the strict front (the pool's tokens only)
    returncode, summary, output = run_page_script(node, browser, "tests/web/views.mjs", strict_front_url, user)
    # Then every step passed: today in Tokyo from a browser in UTC, the memo on one line
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert returncode == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    names = [s["name"] for s in summary["steps"]]
    assert any("today" in n for n in names) and any("memo" in n for n in names), names
    for words in ("navigation", "three taps", "offline", "pictures", "payee", "medical", "カード tab"):
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
        "views-payee-1280.png",
        "views-payee-390.png",
        "views-medical-390.png",
        "views-cards-1280.png",
        "views-cards-390.png",
    }


def test_the_front_serves_an_installable_page(anonymous: Http) -> None:
    # When a browser asks for the page's manifest, service worker and icons
    manifest = anonymous.get("/manifest.webmanifest")
    worker = anonymous.get("/sw.js")
    icon = anonymous.get("/icon.svg")
    # Then they come with the types a browser installs the page from
    assert manifest.status_code == 200
    assert manifest.headers["Content-Type"] == "application/manifest+json; charset=utf-8"
    described = manifest.json()
    assert described["display"] == "standalone"
    assert described["start_url"].startswith("./")
    assert described["name"] and described["short_name"]
    assert worker.status_code == 200
    assert worker.headers["Content-Type"].startswith("text/javascript")
    assert "addEventListener('fetch'" in worker.text
    assert icon.status_code == 200
    assert icon.headers["Content-Type"] == "image/svg+xml"
    # And the PNG icons Chromium installs from (192 and 512 px) are served at the sizes the manifest states
    stated = {(i["src"], i["sizes"]) for i in described["icons"] if i["type"] == "image/png"}
    assert {"192x192", "512x512"} <= {sizes for _, sizes in stated}
    for src, sizes in stated:
        png = anonymous.get(f"/{src}")
        assert png.status_code == 200 and png.headers["Content-Type"] == "image/png", src
        assert png_size(png.content) == tuple(int(n) for n in sizes.split("x")), src
    # And the page names its manifest
    assert '<link rel="manifest" href="manifest.webmanifest">' in anonymous.get("/").text


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its signature and IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_service_worker_keeps_every_file_of_the_page() -> None:
    # Given every file the page loads (its HTML, scripts, views, styles, manifest and icons)
    web = ROOT / "web"
    files = {
        p.relative_to(web).as_posix()
        for p in web.rglob("*")
        if p.suffix in {".html", ".js", ".css", ".webmanifest", ".svg", ".png"} and p.name != "sw.js"
    }
    # When the service worker's shell is read
    shell = re.search(r"const SHELL = \[(.*?)\];", (web / "sw.js").read_text(encoding="utf-8"), re.S)
    assert shell is not None
    kept = set(re.findall(r"'([^']+)'", shell.group(1)))
    # Then it keeps each of them at install (so the page opens offline), and names no file that is not there
    assert files <= kept, sorted(files - kept)
    assert kept - files == {"./"}, sorted(kept - files)
