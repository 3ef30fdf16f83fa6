"""Keys belong to the store: outside `kakeibo/store/` no module imports a key builder or parser, and
no string in the code looks like a key (`SLIP#`, `CHG#`...). Services pass ids, dates and values;
the store alone builds and reads keys (DESIGN.md §1, §30)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "kakeibo"
KEYS = PACKAGE / "store" / "keys.py"

KEY_PREFIX = re.compile(r"[A-Z]+#")

# A string that looks like a key but is not one the code builds or reads: each entry says why.
ALLOWED_STRINGS = {
    # models/imports.py: the API's example of an item name returned to callers (ImportResult.items)
    ("kakeibo.models.imports", "DAY#cash#2026-11-03"),
}


def _key_names(source: str) -> frozenset[str]:
    """The public functions and constants of store/keys.py: its builders, parsers and key parts."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper() and t.id[0] != "_")
    return frozenset(names)


KEY_NAMES = _key_names(KEYS.read_text(encoding="utf-8"))


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes (prose about the code, not strings it uses)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _is_key_value(module: str, name: str) -> bool:
    """Whether `module`.`name` is a string that looks like a key (a key part kept outside keys.py)."""
    value = getattr(importlib.import_module(module), name, None)
    return isinstance(value, str) and KEY_PREFIX.search(value) is not None


def _looks_like_key(module: str, node: ast.AST, docstrings: set[int]) -> bool:
    """A string constant of the code (not a docstring) that looks like a key, and is not allowed."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in docstrings:
        return False
    return KEY_PREFIX.search(node.value) is not None and (module, node.value) not in ALLOWED_STRINGS


def _key_imports(node: ast.AST) -> list[str]:
    """The key builders and parsers an import statement brings in."""
    if isinstance(node, ast.Import):
        return [f"imports {a.name}" for a in node.names if a.name == "kakeibo.store.keys"]
    if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
        return []
    if node.module == "kakeibo.store.keys":
        return [f"imports {alias.name} from {node.module}" for alias in node.names]
    if node.module != "kakeibo.store" and not node.module.startswith("kakeibo.store."):
        return []
    found = []
    for alias in node.names:
        if node.module == "kakeibo.store" and alias.name == "keys":
            found.append("imports kakeibo.store.keys")
        elif alias.name in KEY_NAMES or _is_key_value(node.module, alias.name):
            found.append(f"imports {alias.name} from {node.module}")
    return found


def offences(module: str, source: str) -> list[str]:
    """What in the module's source builds or reads a key: imports of keys, key-like strings."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        found += _key_imports(node)
        if _looks_like_key(module, node, docstrings):
            found.append(f"line {node.lineno}: {node.value!r}")  # type: ignore[attr-defined]
    return found


def _outside_store() -> dict[str, str]:
    return {
        _module(path): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "store"
    }


def test_the_key_names_are_read_from_the_keys_module() -> None:
    # Given store/keys.py, When its public functions and constants are read
    # Then the builders and parsers the services used to import are among them
    assert {"pk", "slip_sk", "identity_sk", "account_sk", "entry_parts", "change_seq", "SLIP_SEQ_SK"} <= KEY_NAMES
    assert "SharedLedger" not in KEY_NAMES  # a ledger id, not a key


def test_the_scan_finds_what_it_looks_for() -> None:
    # Given a module that imports a key builder, the keys module, and spells a key in an f-string
    source = (
        "from kakeibo.store import Store, slip_sk\n"
        "from kakeibo.store.keys import change_seq\n"
        "def f(first: str) -> str:\n"
        "    '''SLIP# in a docstring is prose.'''\n"
        "    return f'SLIP#{first}#'\n"
    )
    # When it is scanned, Then each is an offence, and nothing else is
    assert offences("kakeibo.services.example", source) == [
        "imports slip_sk from kakeibo.store",
        "imports change_seq from kakeibo.store.keys",
        "line 5: 'SLIP#'",
    ]


def test_no_module_outside_the_store_builds_or_reads_a_key() -> None:
    # Given every module of kakeibo outside kakeibo/store/
    modules = _outside_store()
    assert "kakeibo.services.slips" in modules and "kakeibo.store.slips" not in modules
    # When each is scanned for key imports and key-like strings
    found = {name: bad for name, source in modules.items() if (bad := offences(name, source))}
    # Then none builds or reads a key
    assert found == {}, f"{sum(map(len, found.values()))} offences in {len(found)} modules"
