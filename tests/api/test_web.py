"""The web page (web/), served by the local front: its logic in Node's test runner, and a household's
flow in a real browser (Debian's Chromium driven by playwright-core, tests/web/e2e.mjs).

`make test` installs what these need (npm ci, scripts/ensure-chromium.sh); run alone, they fail with
what to install rather than skip, so a missing browser can never pass for a green run.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args

import pytest

from kakeibo.core.reconcile import ADJUSTMENT_CATEGORY
from kakeibo.local.cognito import UserPool
from kakeibo.local.s3 import S3Local
from kakeibo.models.journal import ChangeType, EntityChange, JournalEntry
from kakeibo.services.lapses import LAPSE_CATEGORY
from tests.api.conftest import Http
from tests.users import tokens

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = ROOT / "test-output" / "web"


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("Node.js is required for the web page tests (it also runs DynamoDB Local's launcher)")
    return found


@pytest.fixture(scope="module")
def browser() -> str:
    if not (ROOT / "node_modules" / "playwright-core").is_dir():
        pytest.fail("playwright-core is missing: run `npm ci` (or `make test`, which does it)")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"no Chromium at {CHROMIUM}: run `bash scripts/ensure-chromium.sh` (or `make test`)")
    return CHROMIUM


def test_the_front_serves_the_page_beside_the_api(anonymous: Http) -> None:
    # When a browser asks for / and the page's files
    page = anonymous.get("/")
    script = anonymous.get("/app.js")
    view = anonymous.get("/views/slips.js")  # a view's module, in a folder of its own
    # Then they come from web/, with types a browser runs as a module
    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert '<html lang="ja">' in page.text
    assert '<script type="module" src="app.js"></script>' in page.text
    assert script.status_code == 200
    assert script.headers["Content-Type"].startswith("text/javascript")
    assert view.status_code == 200
    assert view.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "export function mount" in view.text
    assert anonymous.get("/views/../../pyproject.toml").status_code == 404
    # And the API's own routes are untouched by them
    assert anonymous.get("/health").json()["status"] == "ok"
    assert anonymous.get("/accounts").status_code == 401


def test_the_page_loads_nothing_from_elsewhere() -> None:
    # Given every text file of the page (its icons are pictures)
    web = ROOT / "web"
    sources = {
        p.relative_to(web).as_posix(): p.read_text(encoding="utf-8")
        for p in web.rglob("*")
        if p.is_file() and p.suffix != ".png"
    }
    assert {"index.html", "app.js", "api.js", "format.js", "chart.js", "style.css", "views/slips.js"} <= set(sources)
    # Then none of them pulls a script, style or font from another host (no CDN)
    for name, text in sources.items():
        assert not re.search(r"""(src|href)=["']https?://""", text), name
        assert not re.search(r"""(import\s[^;]*from\s*|@import\s*(url\()?)["']https?://""", text), name


# A view finds its elements under the root app.js hands it (ui.js's `within`), never anywhere in the page
# (ui.js's `$` is document.getElementById).
DOCUMENT_QUERY = re.compile(r"\bdocument\s*\.\s*(?:getElementById|getElementsBy\w+|querySelector(?:All)?)\b")
UI_IMPORT = re.compile(
    r"""import\s*(?:\{(?P<names>[^}]*)\}|\*\s*as\s+(?P<space>[\w$]+))\s*from\s*['"](?:\.\.?/)+ui\.js['"]"""
)


def document_queries(source: str) -> list[str]:
    """Where a module finds elements in the whole document: document.getElementById, getElementsBy…,
    querySelector(All), or ui.js's `$` (document.getElementById) imported, by name or through its namespace."""
    found = [m.group(0) for m in DOCUMENT_QUERY.finditer(source)]
    for m in UI_IMPORT.finditer(source):
        if m.group("names") is not None:
            names = {part.split(" as ")[0].strip() for part in m.group("names").split(",")}
            found += ["$ from ui.js"] if "$" in names else []
        elif re.search(rf"\b{re.escape(m.group('space'))}\s*\.\s*\$", source):
            found.append(f"{m.group('space')}.$ from ui.js")
    return found


def test_every_view_finds_its_elements_under_its_root() -> None:
    # Given every module of the page's views (a view's parts in a folder of its own too)
    views = ROOT / "web" / "views"
    sources = {p.relative_to(views).as_posix(): p.read_text(encoding="utf-8") for p in views.rglob("*.js")}
    assert {"slips.js", "slips/fetch.js", "slips/state.js", "slips/view.js", "ledgers.js", "payer.js"} <= set(sources)
    # And the scan sees a query of the whole document in each of its forms
    assert document_queries("const a = document.getElementById('x');") == ["document.getElementById"]
    assert document_queries("import { $, h } from '../ui.js';") == ["$ from ui.js"]
    assert document_queries("import * as ui from '../ui.js'; ui.$('x');") == ["ui.$ from ui.js"]
    assert document_queries("import { h, within } from '../ui.js'; const $ = within(root);") == []
    # When each is read for a query of the document as a whole (app.js hands each view its root, and
    # the page's elements outside it that it acts on; a view hands another the part of its own it needs)
    reaching = {name: found for name, text in sources.items() if (found := document_queries(text))}
    # Then none of them reaches the whole page: every view finds its elements under what it is handed
    assert not reaching, reaching


def test_page_logic_in_node(node: str) -> None:
    # When Node's test runner checks the page's pure logic (money, dates, patches, the API client)
    result = subprocess.run(
        [node, "--test", "tests/web/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # Then every test ran and passed
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", output, re.MULTILINE)
    assert passed and int(passed.group(1)) >= 20, output[-2000:]
    assert failed and failed.group(1) == "0", output[-2000:]


def page_constants(node: str, *names: str) -> dict[str, Any]:
    """Exported constants of the page's web/format.js, read by Node as the page does."""
    wanted = ", ".join(f"{name}: m.{name}" for name in names)
    script = f"const m = await import('./web/format.js'); console.log(JSON.stringify({{{wanted}}}));"
    result = subprocess.run(
        [node, "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    assert set(found) == set(names) and all(v is not None for v in found.values()), found
    return found


def test_the_journal_is_said_in_words_for_every_change_the_api_records(node: str) -> None:
    # Given every type of change, operation and origin the API's journal entries can carry
    types = set(get_args(ChangeType))
    ops = set(get_args(EntityChange.model_fields["op"].annotation))
    origins = set(get_args(JournalEntry.model_fields["origin"].annotation))
    assert {"slip", "rule", "reconciliation"} <= types and "point_lapse" in origins  # the models were read
    # When the page's words for them are read
    page = page_constants(node, "CHANGE_TYPE_LABELS", "CHANGE_OP_LABELS", "ORIGIN_LABELS")
    # Then each has its words: a type in Japanese, never its API name ("あなたがruleを追加しました")
    assert types <= set(page["CHANGE_TYPE_LABELS"]), sorted(types - set(page["CHANGE_TYPE_LABELS"]))
    assert all(page["CHANGE_TYPE_LABELS"][t] and page["CHANGE_TYPE_LABELS"][t] != t for t in types)
    assert ops <= set(page["CHANGE_OP_LABELS"]), sorted(ops - set(page["CHANGE_OP_LABELS"]))
    # And every origin is known (a person's own change and an undo are said by the verb, the rest before it)
    assert origins <= set(page["ORIGIN_LABELS"]), sorted(origins - set(page["ORIGIN_LABELS"]))
    assert all(page["ORIGIN_LABELS"][o] for o in origins - {"api", "undo"})


def api_system_categories() -> set[str]:
    """The categories the API books by itself: every `<NAME>_CATEGORY = "..."` constant of src/kakeibo."""
    found: set[str] = set()
    for source in (ROOT / "src" / "kakeibo").rglob("*.py"):
        for stmt in ast.parse(source.read_text(encoding="utf-8")).body:
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign):
                targets = [stmt.target]
            value = getattr(stmt, "value", None)
            named = any(isinstance(t, ast.Name) and t.id.endswith("_CATEGORY") for t in targets)
            if named and isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(value.value)
    return found


def test_the_quick_entry_knows_every_category_the_api_books_by_itself(node: str) -> None:
    # Given the categories the API books itself: a points lot's lapse and a reconciliation's adjustment
    system = api_system_categories()
    assert {LAPSE_CATEGORY, ADJUSTMENT_CATEGORY} <= system
    # When the page's list of those it never offers as a usual category is read
    page = page_constants(node, "SYSTEM_CATEGORIES")
    # Then it is the API's, no more and no less
    assert set(page["SYSTEM_CATEGORIES"]) == system


def run_page_script(node: str, browser: str, script: str, url: str, user: str) -> tuple[int, dict[str, Any], str]:
    """A short browser script of tests/web/ against the front: its exit code, its last JSON summary
    line and the tail of its output (the views' own tests use it; the household flow has its own)."""
    result = subprocess.run(
        [node, script, "--url", url, "--user", user, "--out", str(SCREENSHOTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "CHROMIUM": browser or CHROMIUM},
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    summary = json.loads(lines[-1]) if lines else {}
    return result.returncode, summary, result.stdout[-6000:] + result.stderr[-3000:]


def _run_e2e(node: str, browser: str, url: str, user: str) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [node, "tests/web/e2e.mjs", "--url", url, "--user", user, "--out", str(SCREENSHOTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={**os.environ, "CHROMIUM": browser},
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    summary = json.loads(lines[-1]) if lines else {}
    return result.returncode, summary, result.stdout[-6000:] + result.stderr[-3000:]


def signed_in(url: str, pool: UserPool, summary: dict[str, Any], name: str) -> Http:
    """The API as the person a browser script named `name` (its summary's `people`: their email), with
    an ID token of theirs from the pool."""
    email = summary["people"][name]["email"]
    return Http(url, tokens(pool, email)["IdToken"])


def test_household_flow_in_a_real_browser(
    node: str, browser: str, strict_front_url: str, user_pool: UserPool, user: str
) -> None:
    # Given a new person of the user pool, signed in, with an empty ledger of their own, the page in
    # headless Chromium against the strict front (the pool's tokens only) creates an account, adds a
    # slip, moves its date, provokes a 412 from a second tab, re-applies, deletes (tests/web/e2e.mjs)
    code, summary, output = _run_e2e(node, browser, strict_front_url, user)

    # Then every step passed in the browser
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert code == 0 and summary.get("ok") is True, f"failed steps: {failed}\n{output}"
    names = [s["name"] for s in summary["steps"]]
    assert len(names) >= 13, names
    assert any("412" in n for n in names), names
    # And it left screenshots to look at
    shots = [Path(p) for p in summary["screenshots"]]
    assert {p.name for p in shots} >= {
        "1-slip-added.png",
        "2-date-changed.png",
        "3-conflict-412.png",
        "4-phone.png",
        "5-budgets.png",
        "6-import.png",
        "8-import-long-id-390.png",
        "9-moved-390.png",
        "10-bad-token-390.png",
        "11-accounts-budgets-390.png",
        "12-filters-trends-history-390.png",
        "14-ledger-created-390.png",
        "15-invited-390.png",
        "18-viewer-390.png",
        "19-members-390.png",
        "21-budget-removed-390.png",
    }
    assert all(p.stat().st_size > 10_000 for p in shots), shots

    # And the ledger, read through the API as the same person, is what the page did: the first slip
    # created, moved, edited from two tabs and deleted; a strict 食費 budget raised to 4,000 with one
    # 2,000 slip under it (the 1,500 one past it refused); the other tab's 9,000 not written over it
    http = signed_in(strict_front_url, user_pool, summary, user)
    accounts = http.get("/accounts").json()["items"]
    assert [(a["id"], a["name"], a["type"], a["balance"]) for a in accounts] == [("wallet", "財布", "cash", 8000)]
    slips = http.get("/slips", params={"from": "2026-11-01", "to": "2026-11-30"}).json()["items"]
    assert [(s["date"], s["amount"], s["category"], s["memo"]) for s in slips] == [("2026-11-05", 2000, "食費", "米")]
    budgets = http.get("/budgets", params={"month": "2026-11"}).json()["items"]
    assert [(b["category"], b["limit"], b["spent"], b["remaining"], b["strict"]) for b in budgets] == [
        ("食費", 4000, 2000, 2000, True)
    ]
    balances = http.get("/balances", params={"date": "2026-11-04"}).json()["items"]
    assert [(b["account"], b["balance"], b["unit"], b["jpy_value"]) for b in balances] == [
        ("wallet", 10000, "JPY", 10000)
    ]
    # And of the two budgets a page removed one from (after a stale attempt on the other was refused),
    # only the other is left, at the limit another screen gave it; the spending under the removed one stays
    budgeted = signed_in(strict_front_url, user_pool, summary, f"{user}-budget")
    left = budgeted.get("/budgets", params={"month": "2026-11"}).json()["items"]
    assert [(b["category"], b["limit"]) for b in left] == [("日用品", 4000)]
    assert budgeted.delete("/budgets/2026-11/食費", headers={"If-Match": "*"}).status_code == 404
    report = budgeted.get("/reports/monthly", params={"month": "2026-11"}).json()
    assert report["expense"] == 500

    # And the household the page shared is what its three people did: Hanako created 山田家 and is its
    # only member left (Jiro removed by her, Taro demoted to viewer and then gone by his own choice);
    # the API names each person by their `sub` in the pool
    sub = {name: summary["people"][f"{user}-{name}"]["sub"] for name in ("hanako", "taro", "jiro")}
    hanako, taro, jiro = (signed_in(strict_front_url, user_pool, summary, f"{user}-{name}") for name in sub)
    shared = [lg for lg in hanako.get("/ledgers").json()["items"] if lg["id"] != "me"]
    assert [(lg["name"], lg["role"]) for lg in shared] == [("山田家", "owner")]
    ledger = shared[0]["id"]
    members = hanako.get(f"/ledgers/{ledger}").json()["members"]
    assert [(m["user"], m["role"]) for m in members] == [(sub["hanako"], "owner")]
    for gone in (taro, jiro):
        assert [lg["id"] for lg in gone.get("/ledgers").json()["items"]] == ["me"]
        assert gone.get(f"/ledgers/{ledger}").status_code == 404
    # And where the API serves a ledger's routes under /ledgers/{ledger}, the slips went there, not to
    # anyone's personal ledger: Hanako's (edited by Taro, then her change re-applied) and Taro's
    if "/ledgers/{ledger}/slips" in http.get("/openapi.json").json()["paths"]:
        month = {"from": "2026-11-01", "to": "2026-11-30"}
        slips = sorted(hanako.get(f"/ledgers/{ledger}/slips", params=month).json()["items"], key=lambda s: s["date"])
        assert [(s["amount"], s["memo"], s["created_by"], s["updated_by"]) for s in slips] == [
            (2600, "八百屋と魚屋", sub["hanako"], sub["hanako"]),
            (800, "バス", sub["taro"], sub["taro"]),
        ]
        assert hanako.get("/slips", params=month).json()["items"] == []
        assert taro.get("/slips", params=month).json()["items"] == []
        assert {"16-shared-slips-390.png", "17-shared-conflict-390.png"} <= {p.name for p in shots}


def test_a_person_signs_up_signs_in_and_out_in_a_real_browser(
    node: str, browser: str, strict_front_url: str, s3_local: S3Local
) -> None:
    # Given the front as `LOCAL_AUTH=strict make run` serves it: the user pool's tokens only, no names
    assert s3_local.codes is not None
    # When a new person signs up, confirms, signs in, records a slip and signs out, and someone new
    # opens an invitation link; then the browser's clock moves past the ID token's expiry, a slip
    # waits while the refresh is refused and the pool cannot be reached, a wrong password is
    # refused, and two-step verification is turned on and used (tests/web/signin.mjs)
    result = subprocess.run(
        [node, "tests/web/signin.mjs", "--url", strict_front_url, "--out", str(SCREENSHOTS)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "CHROMIUM": browser, "KAKEIBO_CODES": str(s3_local.codes)},
    )  # fmt: skip
    # Then every step passed, with its screenshots
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    summary = json.loads(lines[-1]) if lines else {}
    failed = [s for s in summary.get("steps", []) if not s.get("ok")]
    assert result.returncode == 0 and summary.get("ok") is True, (
        f"failed: {failed}\n{result.stdout[-6000:]}{result.stderr[-3000:]}"
    )
    assert len(summary["steps"]) == 9, summary["steps"]
    assert {Path(p).name for p in summary["screenshots"]} >= {
        "signin-signed-in-390.png",
        "signin-signed-out-390.png",
        "signin-invited-390.png",
        "signin-pool-down-390.png",
        "signin-totp-390.png",
    }
