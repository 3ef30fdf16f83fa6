"""The house's walls, read from the source: the pure rules (core) touch no AWS SDK, no HTTP and no
storage; routes touch no AWS SDK; the store touches no HTTP; other apps' files are read without the
services or the store; and no module imports, at any depth, a module that imports it back (lazy
imports inside functions count: they are arrows too), the local stack's (kakeibo.local) included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "kakeibo"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module the file imports, wherever in the file (absolute names)."""
    found: set[str] = set()
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # a submodule imported by name
    return found


MODULES = {_module(p): p for p in PACKAGE.rglob("*.py")}  # the local stack's (kakeibo.local) included
IMPORTS = {name: _imports(path) for name, path in MODULES.items()}


def _ours(name: str) -> str | None:
    """The module of ours an imported name is (a name imported from a module is that module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _in(package: str) -> list[str]:
    return sorted(name for name in MODULES if name == f"kakeibo.{package}" or name.startswith(f"kakeibo.{package}."))


def _offending(modules: list[str], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    out = {}
    for name in modules:
        bad = sorted(i for i in IMPORTS[name] if any(i == f or i.startswith(f"{f}.") for f in forbidden))
        if bad:
            out[name] = bad
    return out


def test_the_walls_are_read_from_real_modules() -> None:
    # Given the source tree, Then each room the rules speak of is there and has modules in it
    for room in ("core", "routes", "services", "store", "importformats"):
        assert _in(room), room
    assert "kakeibo.core.posting" in IMPORTS["kakeibo.services.slips"]
    # And the local stack is read with its imports inside functions
    assert "kakeibo.local.front" in MODULES and "kakeibo.sender" in IMPORTS["kakeibo.local.__main__"]


@pytest.mark.parametrize(
    ("room", "forbidden"),
    [
        (
            "core",
            ("boto3", "botocore", "aws_lambda_powertools", "pydantic", "kakeibo.store", "kakeibo.services",
             "kakeibo.routes", "kakeibo.http", "kakeibo.handler", "kakeibo.models", "kakeibo.settings"),
        ),
        ("routes", ("boto3", "botocore", "kakeibo.store.transactions", "kakeibo.store.codec")),
        ("store", ("aws_lambda_powertools.event_handler", "kakeibo.http", "kakeibo.routes", "kakeibo.handler",
                   "kakeibo.services")),
        ("importformats", ("boto3", "botocore", "kakeibo.store", "kakeibo.services", "kakeibo.routes")),
    ],
)  # fmt: skip
def test_each_room_keeps_to_its_own(room: str, forbidden: tuple[str, ...]) -> None:
    # Given every module of the room, When its imports are read, Then none reaches past its walls
    assert _offending(_in(room), forbidden) == {}


def test_a_slips_pure_rules_are_the_cores() -> None:
    # Given the slips' service and the reconciliation facet, When their imports are read
    # Then they take a slip's rules from core/slip, and the service makes no fingerprint of its own
    # (no hashing, no JSON): what reads no storage is the core's, the service keeps the I/O
    for name in ("kakeibo.services.slips", "kakeibo.services.facets.reconciliation"):
        assert "kakeibo.core.slip" in IMPORTS[name], name
    assert not {"hashlib", "json"} & IMPORTS["kakeibo.services.slips"]


def _cycles() -> list[list[str]]:
    graph = {name: sorted({o for i in IMPORTS[name] if (o := _ours(i)) and o != name}) for name in MODULES}
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue  # a package and its own modules
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    return found


def test_a_circle_is_found_when_there_is_one() -> None:
    # Given two modules that import each other (as read), When the circles are looked for
    IMPORTS["kakeibo.core.billing"].add("kakeibo.core.settle")
    IMPORTS["kakeibo.core.settle"].add("kakeibo.core.billing")
    try:
        # Then that circle is among them
        assert any({"kakeibo.core.billing", "kakeibo.core.settle"} <= set(c) for c in _cycles())
    finally:
        IMPORTS["kakeibo.core.billing"].discard("kakeibo.core.settle")
        IMPORTS["kakeibo.core.settle"].discard("kakeibo.core.billing")


def test_no_module_imports_itself_back() -> None:
    # Given every module's imports, When the arrows between our modules are followed
    # Then none comes back to where it started
    assert _cycles() == []


def test_the_local_stack_imports_nothing_back() -> None:
    # Given the local stack's modules (kakeibo.local: DynamoDB Local, moto, the front, instances,
    # streams, the command line) and every import they make, at module level or in a function
    # When the arrows among them are followed
    local = [c for c in _cycles() if any(m == "kakeibo.local" or m.startswith("kakeibo.local.") for m in c)]
    # Then none comes back to where it started
    assert local == []
