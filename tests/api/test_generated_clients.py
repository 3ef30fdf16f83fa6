"""Clients generated from the served /openapi.json, as a new user would make them, drive the main
flow of the README: accounts, a slip created, read, patched, moved to another date, a stale
If-Match (412, typed), a list page by page, balances as of a date, a budget, a CSV import, a delete
(204). Python: openapi-python-client. TypeScript: openapi-typescript types + openapi-fetch, the flow
type-checked with tsc and run with node. Nothing in the generated code is edited."""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
FLOW_TS = Path(__file__).with_name("client_flow.mjs")
PACKAGE = "kakeibo_client"
# openapi-python-client sends a body it knows as bytes; CSV is such a body
PY_CONFIG = (
    "content_type_overrides:\n  text/csv: application/octet-stream\n"
    "  application/vnd.openxmlformats-officedocument.spreadsheetml.sheet: application/octet-stream\n"
)
CSV_FILE = (
    "date,kind,amount,account,to_account,category,memo,external_id\n"
    "2026-11-06,expense,480,cash,,食費,コンビニ,shop-0001\n"
    "2026-11-07,expense,2200,bank,,日用品,ドラッグストア,shop-0002\n"
)


@pytest.fixture(scope="module")
def served_spec(front_url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    reply = requests.get(f"{front_url}/openapi.json", timeout=30)
    assert reply.status_code == 200
    path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_bytes(reply.content)
    return path


@pytest.fixture(scope="module")
def python_client(served_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("python-client")
    config = out / "config.yaml"
    config.write_text(PY_CONFIG, encoding="utf-8")
    venv_bin = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [
            str(venv_bin / "openapi-python-client"),
            "generate",
            "--path",
            str(served_spec),
            "--output-path",
            str(out / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    # Then it generates every operation, without a warning
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _generated(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_python_client_runs_the_main_flow(python_client: ModuleType, front_url: str, user: str) -> None:
    m, types = _generated("models"), _generated("types")
    # one module per operation, named after its operationId
    create_account, get_health = _generated("api.accounts.create_account"), _generated("api.meta.get_health")
    create_slip, get_slip = _generated("api.slips.create_slip"), _generated("api.slips.get_slip")
    patch_slip, delete_slip = _generated("api.slips.patch_slip"), _generated("api.slips.delete_slip")
    list_slips, get_balances = _generated("api.slips.list_slips"), _generated("api.balances.get_balances")
    put_budget, list_budgets = _generated("api.budgets.put_budget"), _generated("api.budgets.list_budgets")
    import_slips = _generated("api.imports.import_slips")

    # Given a client for the caller, and one with no identity for the public health check
    public = python_client.Client(base_url=front_url)
    client = python_client.AuthenticatedClient(base_url=front_url, token=user)
    health = get_health.sync(client=public)
    assert isinstance(health, m.Health) and health.status == "ok"

    # When two accounts are created (with an Idempotency-Key each)
    for account_id, name, kind, opening in (
        ("cash", "財布", m.AccountCreateType.CASH, 20000),
        ("bank", "ゆうちょ銀行", m.AccountCreateType.BANK, 300000),
    ):
        made = create_account.sync_detailed(
            client=client,
            body=m.AccountCreate(id=account_id, name=name, type_=kind, opening_balance=opening),
            idempotency_key=str(uuid.uuid4()),
        )
        assert made.status_code == 201 and isinstance(made.parsed, m.Account), made.content
        assert made.headers["ETag"] == '"1"' and made.headers["Location"] == f"/accounts/{account_id}"

    # When a slip is created, Then 201 with its ETag and Location
    lunch = m.SlipIn(
        date="2026-11-03", kind=m.SlipInKind.EXPENSE, amount=1200, account="cash", category="食費", memo="ランチ"
    )
    created = create_slip.sync_detailed(client=client, body=lunch, idempotency_key=str(uuid.uuid4()))
    assert created.status_code == 201 and isinstance(created.parsed, m.Slip), created.content
    slip_id, etag = created.parsed.id, created.headers["ETag"]
    assert created.headers["Location"] == f"/slips/2026-11-03/{slip_id}"

    # When it is read, Then the same slip and ETag
    read = get_slip.sync_detailed("2026-11-03", slip_id, client=client)
    assert read.status_code == 200 and read.parsed.amount == 1200 and read.headers["ETag"] == etag

    # When it is patched with If-Match, Then the new version
    patched = patch_slip.sync_detailed(
        "2026-11-03", slip_id, client=client, body=m.SlipPatch(amount=1350), if_match=etag
    )
    assert patched.status_code == 200 and patched.parsed.amount == 1350, patched.content
    etag = patched.headers["ETag"]

    # When it is moved to another date, Then Location names where it is now
    moved = patch_slip.sync_detailed(
        "2026-11-03", slip_id, client=client, body=m.SlipPatch(date="2026-11-05"), if_match=etag
    )
    assert moved.status_code == 200 and moved.headers["Location"] == f"/slips/2026-11-05/{slip_id}"
    assert moved.parsed.date == "2026-11-05"

    # When a stale If-Match is sent, Then 412 parsed as the typed problem
    stale = patch_slip.sync_detailed("2026-11-05", slip_id, client=client, body=m.SlipPatch(amount=1), if_match=etag)
    assert stale.status_code == 412 and isinstance(stale.parsed, m.VersionMismatchProblem), stale.content
    assert stale.parsed.code == "version_mismatch" and stale.parsed.current == 3 and stale.parsed.expected == 2
    etag = moved.headers["ETag"]

    # And an expense the wallet cannot pay is a typed 409, worded in Japanese when asked
    japanese = client.with_headers({"Accept-Language": "ja"})
    refused = create_slip.sync_detailed(
        client=japanese,
        body=m.SlipIn(date="2026-11-06", kind=m.SlipInKind.EXPENSE, amount=50000, account="cash"),
    )
    assert refused.status_code == 409 and isinstance(refused.parsed, m.InsufficientFundsProblem), refused.content
    assert refused.parsed.account_name == "財布" and refused.parsed.balance == 18650
    assert refused.parsed.detail == "財布の残高 ¥18,650 では ¥50,000 を支払えません"

    # When a CSV file is imported (bytes, as they are)
    imported = import_slips.sync_detailed(
        client=client,
        body=types.File(payload=io.BytesIO(CSV_FILE.encode()), mime_type="text/csv"),
        idempotency_key=str(uuid.uuid4()),
    )
    assert imported.status_code == 200 and isinstance(imported.parsed, m.ImportResult), imported.content
    assert (imported.parsed.created, imported.parsed.failed) == (2, 0)

    # When the slips are listed two at a time, Then the cursor walks through all of them, newest first
    seen, cursor, pages = [], types.UNSET, 0
    while True:
        page = list_slips.sync(client=client, limit=2, cursor=cursor)
        assert isinstance(page, m.SlipList), page
        seen += [(s.date, s.id) for s in page.items]
        pages += 1
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert len(seen) == 3 and pages == 2 and seen == sorted(seen, reverse=True)

    # When balances are asked as of a date, Then they are the end of that day's
    before = get_balances.sync(client=client, date="2026-11-04")
    assert isinstance(before, m.Balances) and before.date == "2026-11-04"
    assert {i.account: i.balance for i in before.items} == {"cash": 20000, "bank": 300000}
    now = get_balances.sync(client=client)
    assert {i.account: i.balance for i in now.items} == {"cash": 20000 - 1350 - 480, "bank": 300000 - 2200}

    # When a strict budget is set, Then it is created and counts the month's food
    budget = put_budget.sync_detailed("2026-11", "食費", client=client, body=m.BudgetIn(limit=30000, strict=True))
    assert budget.status_code == 201 and budget.headers["ETag"] == '"1"', budget.content
    listed = list_budgets.sync(client=client, month="2026-11")
    assert isinstance(listed, m.BudgetList)
    assert [(b.category, b.spent, b.remaining) for b in listed.items] == [("食費", 1830, 30000 - 1830)]

    # When the year's e-Tax 医療費集計フォーム is downloaded, Then the workbook's bytes, as they are
    get_medical_xlsx = _generated("api.tax.get_medical_xlsx")
    form = get_medical_xlsx.sync_detailed(client=client, year="2026")
    assert form.status_code == 200 and form.content[:2] == b"PK", form.content[:200]
    assert isinstance(form.parsed, types.File) and form.parsed.payload.read()[:2] == b"PK"

    # When the moved slip is deleted, Then 204 with nothing to parse, and it is gone
    deleted = delete_slip.sync_detailed("2026-11-05", slip_id, client=client, if_match=etag)
    assert deleted.status_code == 204 and deleted.content == b"" and deleted.parsed is None
    gone = get_slip.sync_detailed("2026-11-05", slip_id, client=client)
    assert gone.status_code == 404 and isinstance(gone.parsed, m.NotFoundProblem)


def _request_examples(spec: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(where, schema name, example) for every JSON request-body example of the document."""
    found = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                ref = content.get("schema", {}).get("$ref", "")
                if "json" not in media or not ref:
                    continue
                for name, example in (content.get("examples") or {}).items():
                    found.append((f"{method.upper()} {path} {name}", ref.rsplit("/", 1)[-1], example["value"]))
    return found


MONTH_DAYS = [27, -1, "last", [1, 15, "last"]]


def test_python_models_read_every_request_example(python_client: ModuleType, served_spec: Path) -> None:
    m = _generated("models")
    spec = json.loads(served_spec.read_text(encoding="utf-8"))
    examples = _request_examples(spec)
    assert {name for _, name, _ in examples} >= {"RecurrenceIn", "RecurrencePatch", "SlipIn"}
    # Given every example the document shows for a JSON request body, When the generated model reads
    # it, Then it reads without an error and writes back the same JSON
    for where, name, example in examples:
        model = getattr(m, name)
        assert model.from_dict(example).to_dict() == example, where
    # And each form of by_month_day (a day, -1, "last", a list) reads in a rule and in a rule's patch
    for day in MONTH_DAYS:
        rule = {"freq": "monthly", "by_month_day": day, "start": "2026-11-01"}
        assert m.RuleIn.from_dict(rule).to_dict() == rule
        assert m.RulePatch.from_dict({"by_month_day": day}).to_dict() == {"by_month_day": day}


def _node_tools() -> None:
    for tool in ("openapi-typescript", "tsc"):
        if not (BIN / tool).exists():
            pytest.fail(f"{tool} is missing: run `make setup` (npm ci installs it from package-lock.json)")
    if shutil.which("node") is None:
        pytest.fail("node is missing (Node.js 20+ is a prerequisite)")


def test_typescript_client_runs_the_main_flow(served_spec: Path, front_url: str, user: str, tmp_path: Path) -> None:
    _node_tools()
    # Given types generated from the served spec, next to the flow and the project's node_modules
    generated = subprocess.run(
        [str(BIN / "openapi-typescript"), str(served_spec), "-o", str(tmp_path / "schema.d.ts")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    shutil.copy(FLOW_TS, tmp_path / "flow.mjs")
    (tmp_path / "config.mjs").write_text(
        f"export const base = {json.dumps(front_url)};\nexport const user = {json.dumps(user)};\n"
        "/** @type {import('./schema.js').components['schemas']['RecurrenceIn']} */\n"
        f"export const readmeRecurrence = {json.dumps(readme_recurrence(), ensure_ascii=False)};\n",
        encoding="utf-8",
    )
    (tmp_path / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    # When the flow is type-checked against the generated types, Then tsc finds nothing wrong
    checked = subprocess.run(
        [str(BIN / "tsc"), "-p", str(tmp_path / "tsconfig.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # When it runs against the API, Then every step answers as the spec says
    ran = subprocess.run(
        ["node", str(tmp_path / "flow.mjs")], capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(ran.stdout.strip().splitlines()[-1]) == {"ok": True, "steps": TS_STEPS}


def test_the_readme_typescript_example_type_checks_and_runs(
    served_spec: Path, front_url: str, user: str, tmp_path: Path
) -> None:
    _node_tools()
    # Given the README's TypeScript example, pointed at this server and this user, who has a wallet
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"With TypeScript and \[openapi-fetch\].*?```ts\n(.*?)```", readme, re.DOTALL)
    assert found, "the README's TypeScript example"
    code = found.group(1).replace("http://127.0.0.1:3000", front_url).replace("Bearer hanako", f"Bearer {user}")
    made = requests.post(
        f"{front_url}/accounts",
        json={"id": "cash", "name": "財布", "type": "cash", "opening_balance": 10000},
        headers={"Authorization": f"Bearer {user}"},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    # And kakeibo.d.ts generated as the README says, next to it
    generated = subprocess.run(
        [str(BIN / "openapi-typescript"), str(served_spec), "-o", str(tmp_path / "kakeibo.d.ts")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    (tmp_path / "readme.ts").write_text(code, encoding="utf-8")
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    options = {**TSCONFIG["compilerOptions"], "module": "esnext", "moduleResolution": "bundler"}
    options.update(noEmit=False, allowJs=False, checkJs=False, outDir="out")
    (tmp_path / "tsconfig.json").write_text(json.dumps({"compilerOptions": options, "files": ["readme.ts"]}))
    # When it is compiled with tsc (strict), Then it type-checks as it is
    compiled = subprocess.run(
        [str(BIN / "tsc"), "-p", str(tmp_path / "tsconfig.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    # When it runs, Then the CSV is imported as a file (not JSON) and the stale write narrows to its problem
    ran = subprocess.run(
        ["node", str(tmp_path / "out" / "readme.js")], capture_output=True, text=True, timeout=300, check=False
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    *imported, stale = ran.stdout.strip().splitlines()
    assert imported[0].startswith("200 ") and "  created: 1," in imported, ran.stdout
    assert stale == "changed meanwhile: it is at version 1", ran.stdout


TSCONFIG = {
    "compilerOptions": {
        "allowJs": True,
        "checkJs": True,
        "noEmit": True,
        "strict": True,
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "lib": ["es2022", "dom"],
        "skipLibCheck": True,
    },
    "files": ["flow.mjs"],
}
TS_STEPS = [
    "health",
    "accounts",
    "create",
    "read",
    "patch",
    "move",
    "stale",
    "insufficient",
    "import",
    "list",
    "balances",
    "budget",
    "recurrence",
    "delete",
]


def readme_recurrence() -> Any:
    """The body the README posts to /recurrences, as it is written there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"-X POST \$API/recurrences .*?\n  -d '(\{.*?\})'", readme, re.DOTALL)
    assert found, "the README's POST /recurrences example"
    return json.loads(found.group(1))
