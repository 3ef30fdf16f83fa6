"""The Lambda packages as they would be deployed: `sam build` of every function (`make host-package`:
the template's functions for this machine), then loaded alone (no venv, no sources) in a fresh
interpreter that handles real requests on DynamoDB Local and creates every AWS client it calls."""

from __future__ import annotations

import json
import platform
import re
import subprocess
import sys
from importlib.util import source_hash
from pathlib import Path
from typing import Any

import pytest

from kakeibo.local.front import Front

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
import target_platform  # src/target_platform.py, a script beside the package

ROOT = Path(__file__).resolve().parents[2]
ARCH = platform.machine().replace("aarch64", "arm64")
BUILD = ROOT / "build" / f"sam-{ARCH}"
PACKAGE = BUILD / "LedgerFunction"
FUNCTIONS = ("LedgerFunction", "WebhookSenderFunction")
UNCHECKED_HASH = 0b01  # PEP 552 flags: hash-based, source not checked

# Runs in `python -I -S`: the standard library and the package directory, nothing else.
CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from kakeibo.handler import lambda_handler

class Context:
    function_name = "LedgerFunction"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:LedgerFunction"
    aws_request_id = "package-test"
    def get_remaining_time_in_millis(self):
        return 10_000

replies = [lambda_handler(event, Context()) for event in json.load(sys.stdin)]
loaded = sorted({m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)})
print(json.dumps({"replies": replies, "files": loaded}))
"""


@pytest.fixture(scope="module")
def package() -> Path:
    built = subprocess.run(
        ["make", "--no-print-directory", "host-package"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return PACKAGE


# Every client the function's code creates, made by the code's own factories (their settings and
# config), then used for one thing that needs the service's model without a network call.
CLIENTS_CHILD = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from kakeibo import blobs, queues
from kakeibo.store import dynamodb_client

made = {}
made["dynamodb"] = dynamodb_client().meta.service_model.service_name
made["s3"] = blobs._client().meta.service_model.service_name
blobs._client().generate_presigned_url("put_object", Params={"Bucket": "b", "Key": "receipts/k"})
made["sqs"] = queues._client().meta.service_model.service_name
print(json.dumps(sorted(made.values())))
"""
CLIENT_CALL = re.compile(r"""\bclient\(\s*["']([a-z0-9-]+)["']""")


def services_called() -> set[str]:
    """The AWS services the shipped code creates clients for (boto3.client("...") in kakeibo, not local/)."""
    sources = [p for p in (ROOT / "src" / "kakeibo").rglob("*.py") if "local" not in p.parts]
    return {name for path in sources for name in CLIENT_CALL.findall(path.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_aws_client_the_code_calls_is_created_from_the_built_function(package: Path, function: str) -> None:
    # Given a function as sam build built it, and the services the code makes clients for
    called = services_called()
    assert {"dynamodb", "s3", "sqs"} <= called
    # When a fresh interpreter with only that directory on its path creates every one of them
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CLIENTS_CHILD, str(BUILD / function)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "x",
            "AWS_SECRET_ACCESS_KEY": "x",
            "PATH": "/usr/bin",
        },
    )
    # Then each is made (botocore's model of each service ships in the package)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == sorted(called)


def event(method: str, path: str, user: str, body: Any) -> dict[str, Any]:
    front = Front(lambda event, context: {})
    matched = front.match(method, path)
    assert matched is not None
    route, params = matched
    headers = {"authorization": f"Bearer {user}", "content-type": "application/json"}
    return front.event(
        route,
        params=params,
        target=path,
        headers=headers,
        body=json.dumps(body).encode(),
        context={"sub": user, "via": "jwt", "scope": "write", "token_id": ""},
    )


def test_the_package_alone_handles_requests_on_dynamodb_local(package: Path, local_env: str, user: str) -> None:
    # Given an account and a slip sent as API Gateway events
    events = [
        event("POST", "/accounts", user, {"id": "cash", "name": "Cash", "type": "cash", "opening_balance": 1000}),
        event("POST", "/slips", user, {"date": "2026-04-01", "kind": "expense", "amount": 300, "account": "cash"}),
        event("GET", "/accounts/cash", user, None),
    ]
    # When a fresh interpreter with only the package on its path handles them
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CHILD, str(package)],
        input=json.dumps(events),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # Then the slip is created and the balance moved
    statuses = [reply["statusCode"] for reply in out["replies"]]
    assert statuses == [201, 201, 200], out["replies"]
    assert json.loads(out["replies"][2]["body"])["balance"] == 700
    # And every module it ran came from the package or the standard library, never from the venv
    stdlib = Path(json.__file__).parents[1]
    outside = [f for f in out["files"] if not (Path(f).is_relative_to(package) or Path(f).is_relative_to(stdlib))]
    assert outside == [], outside
    # And Powertools' resolvers the function does not use were not loaded (AppSync and its asyncio)
    unused = [f for f in out["files"] if "/asyncio/" in f or "/event_handler/appsync" in f]
    assert unused == [], unused


# Every name the package's Powertools re-exports, looked up in a fresh interpreter: (module, name) ->
# the module the value comes from.
EXPORTS_CHILD = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
out = {}
for package in json.loads(sys.argv[2]):
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        out[f"{package}:{name}"] = getattr(value, "__module__", None)
print(json.dumps(out))
"""
LAZY = ("aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.data_classes")


def test_the_trimmed_powertools_exports_every_name_it_exported(package: Path) -> None:
    # Given Powertools' package __init__ files the package rewrites to load their exports on first use
    rewritten = [package / (name.replace(".", "/") + "/__init__.py") for name in LAZY]
    assert all("trim_package.py" in path.read_text(encoding="utf-8") for path in rewritten)

    def exports(path: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", EXPORTS_CHILD, path, json.dumps(LAZY)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return dict(json.loads(done.stdout))

    # When every exported name is looked up in the package and in the installed, untouched Powertools
    site = Path(__import__("aws_lambda_powertools").__file__).parents[1]
    # Then the same names give the same objects (by the module that defines them)
    assert exports(str(package)) == exports(str(site))


def test_the_package_holds_no_dev_code_and_a_trusted_pyc_for_every_module(package: Path) -> None:
    # Given the built package
    sources = sorted(package.rglob("*.py"))
    assert (package / "kakeibo" / "handler.py") in sources
    # Then it ships no dev-only code: no local front, no MCP server (a client of the API), no tests, no console scripts
    assert not (package / "kakeibo" / "local").exists()
    assert not (package / "kakeibo_mcp").exists() and not (package / "mcp").exists()
    assert not [p for p in package.rglob("*") if p.is_dir() and p.name in ("tests", "test", "bin")]
    # And of botocore's models only those of the services the code calls
    assert {p.name for p in (package / "botocore" / "data").iterdir() if p.is_dir()} == services_called()
    # And every module has its bytecode for the runtime's Python (3.13), trusted without a source check
    tag = "cpython-313"
    missing, checked = [], []
    for source in sources:
        compiled = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        if not compiled.exists():
            missing.append(source)
            continue
        flags = int.from_bytes(compiled.read_bytes()[4:8], "little")
        if flags != UNCHECKED_HASH:
            checked.append(compiled)
    assert missing == [] and checked == []
    # And the bytecode is exactly what compiling the sources gives (no stale .pyc from an old build)
    handler = package / "kakeibo" / "handler.py"
    pyc = (package / "kakeibo" / "__pycache__" / f"handler.{tag}.pyc").read_bytes()
    assert pyc[8:16] == source_hash(handler.read_bytes())


ELF_MACHINE = {"x86_64": 0x3E, "arm64": 0xB7}  # e_machine of an ELF header: EM_X86_64, EM_AARCH64


@pytest.mark.parametrize("arch", ["arm64", "x86_64"])
def test_sam_build_builds_every_function_for_either_architecture(arch: str) -> None:
    # Given the template as it is (arm64) or with its Architectures switched
    # When `make package ARCH=...` runs sam build of it
    built = subprocess.run(
        ["make", "--no-print-directory", "package", f"ARCH={arch}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    build = ROOT / "build" / f"sam-{arch}"
    # Then the built template deploys every function on that architecture from its own directory
    template = (build / "template.yaml").read_text(encoding="utf-8")
    for function in FUNCTIONS:
        assert target_platform.architecture(template, function) == arch
        root = build / function
        # with the shipped code, precompiled, and no dev-only code
        assert (root / "kakeibo" / "__pycache__" / "handler.cpython-313.pyc").is_file()
        assert not (root / "kakeibo" / "local").exists()
        # and native code built for that architecture only
        native = list(root.rglob("*.so"))
        assert native, function
        machines = {int.from_bytes(path.read_bytes()[18:20], "little") for path in native}
        assert machines == {ELF_MACHINE[arch]}, (function, [p.name for p in native])
