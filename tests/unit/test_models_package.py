"""The models package offers nothing of its own: every importer names the wing that defines a model
(`from kakeibo.models.slips import SlipIn`), the wings define each public name once, and a cold start
imports only the wings its request uses."""

from __future__ import annotations

import ast
import contextlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "kakeibo.models"
WINGS = ROOT / "src" / "kakeibo" / "models"
SCANNED = ("src", "tests", "bench", "scripts")


def _package_of(path: Path) -> str:
    """The package a file's relative imports start from (src/ is the root of `kakeibo`)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "src":
        parts.pop(0)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if path.name == "__init__.py" else parts[:-1])


def _bare_imports(source: str, package: str) -> list[str]:
    """The names `source` imports from the bare models package, `from kakeibo.models import X` or a
    relative import resolving to it; code held in a string (a child interpreter's) counts too."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module]).strip(".")
            if module == PACKAGE:
                found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and PACKAGE in node.value:
            with contextlib.suppress(SyntaxError):  # prose, not code
                found.extend(_bare_imports(node.value, ""))
    return found


def _offenders() -> dict[str, list[str]]:
    out = {}
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # its own examples below
            names = _bare_imports(path.read_text(encoding="utf-8"), _package_of(path))
            if names:
                out[str(path.relative_to(ROOT))] = names
    return out


def _defined(path: Path) -> set[str]:
    """The public names a wing defines itself (not those it imports from another wing)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.TypeAlias):
            names.add(node.name.id)
    return {name for name in names if not name.startswith("_")}


def test_no_module_imports_a_name_from_the_bare_package() -> None:
    # Given every module of the sources, the tests, the benchmarks and the scripts
    # When their imports are read
    # Then none takes a name from `kakeibo.models` itself: each names the wing
    assert _offenders() == {}


def test_an_import_from_the_bare_package_is_found() -> None:
    # Given imports from the bare package: absolute, relative from a wing, and in a child's code
    absolute = "from kakeibo.models import SlipIn\n"
    relative = "from . import Slip\n"
    child = 'CODE = "import sys; from kakeibo.models import Account; print(Account)"\n'
    # When they are read, Then each is found; a wing named in full is not
    assert _bare_imports(absolute, "kakeibo.routes") == ["SlipIn"]
    assert _bare_imports(relative, PACKAGE) == ["Slip"]
    assert _bare_imports(child, "tests.unit") == ["Account"]
    assert _bare_imports("from kakeibo.models.slips import SlipIn\n", "kakeibo.routes") == []


def test_the_package_itself_defines_nothing() -> None:
    # Given the package's own module, When its statements are read
    body = ast.parse((WINGS / "__init__.py").read_text(encoding="utf-8")).body
    # Then it holds its docstring alone: no names, no imports, no lookup of its own
    assert len(body) == 1
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def test_no_two_wings_define_the_same_public_name() -> None:
    # Given the public names each wing defines (a model's class name is its OpenAPI component's)
    defined = {path.stem: _defined(path) for path in sorted(WINGS.glob("*.py")) if path.name != "__init__.py"}
    assert {"Slip", "SlipIn"} <= defined["slips"] and "Model" in defined["base"]
    # When the wings are compared pairwise
    twice = {
        (one, other): sorted(defined[one] & defined[other])
        for one in defined
        for other in defined
        if one < other and defined[one] & defined[other]
    }
    # Then no name is defined by two of them: where a name comes from is never in doubt
    assert twice == {}


def _wings_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('{PACKAGE}.'))))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_a_cold_start_imports_no_wing_but_the_base() -> None:
    # Given a fresh interpreter (a Lambda cold start), When it imports the handler
    loaded = _wings_after("import kakeibo.handler")
    # Then no wing's models are built yet but the base every wing and the problems build on
    assert loaded == ["kakeibo.models.base"]


def test_importing_one_wing_imports_only_what_it_builds_on() -> None:
    # Given a fresh interpreter, When it imports the slip request model from its wing
    loaded = _wings_after("from kakeibo.models.slips import SlipIn")
    # Then the slips wing and what it builds on are imported, and not the wings it does not need
    assert "kakeibo.models.slips" in loaded
    assert not {"kakeibo.models.imports", "kakeibo.models.webhooks", "kakeibo.models.recurrences"} & set(loaded)
