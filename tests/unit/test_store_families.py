"""The store by composition, read from its source and from a store made: one object per item family
over the one transaction core; no family inherits another (or the core); a family is given, in its
constructor, the core and the families it calls, and the `Store` is a record of them that shares
one of each (one journal, so one journal head per ledger in the process); no family reaches into
another's private names."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

from kakeibo.store import Store, every_family
from kakeibo.store.transactions import StoreCore

STORE = Path(__file__).resolve().parents[2] / "src" / "kakeibo" / "store"


def _families() -> dict[str, tuple[Path, ast.ClassDef]]:
    """Every class of the store package whose name says it is a family's operations."""
    found = {}
    for path in sorted(STORE.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("Ops"):
                found[node.name] = (path, node)
    return found


def _made() -> Store:
    return Store(object(), "LedgerTable")  # type: ignore[arg-type] - nothing is called


def test_no_family_inherits_another_or_the_core() -> None:
    # Given the store package's families
    families = _families()
    assert len(families) >= 20
    # Then none has a base class
    inheriting = {name: [ast.unparse(b) for b in node.bases] for name, (_, node) in families.items() if node.bases}
    assert inheriting == {}


def test_a_family_is_given_the_core_and_the_families_it_calls() -> None:
    # Given each family's constructor
    for name, (path, node) in _families().items():
        init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        assert init is not None, f"{name} ({path.name}) has no constructor"
        params = [(a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in init.args.args[1:]]
        # Then the core comes first, then families only, each kept under its own name
        assert params[0] == ("core", "StoreCore"), name
        assert all(annotation.endswith("Ops") for _, annotation in params[1:]), (name, params)
        kept = [ast.unparse(s) for s in init.body if isinstance(s, ast.Assign | ast.AnnAssign)]
        for param, _ in params:
            assert any(line.startswith(f"self.{param} = {param}") for line in kept), (name, param)
        # And it builds no family of its own: each is passed in
        built = [ast.unparse(c.func) for c in ast.walk(init) if isinstance(c, ast.Call)]
        assert not [f for f in built if f.endswith("Ops") or f == "StoreCore"], (name, built)


def test_no_family_uses_another_familys_private_names() -> None:
    # Given every attribute read through a family a family was given (self.<family>.<name>)
    offences = []
    for path, node in _families().values():
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.value, ast.Attribute)
                and isinstance(sub.value.value, ast.Name)
                and sub.value.value.id == "self"
                and sub.attr.startswith("_")
            ):
                offences.append(f"{path.name}:{sub.lineno} {ast.unparse(sub)}")
    # Then none is private to the family it belongs to
    assert offences == []


def test_the_store_is_a_record_of_families_sharing_one_of_each() -> None:
    # When a store is made, and every family of it is used
    store = _made()
    assert set(vars(store)) == {"core"}  # none is built before it is used
    built = every_family(store)
    parts: dict[str, Any] = dict(vars(store))
    assert all(again is first for again, first in zip(every_family(store), built, strict=True))  # once each
    # Then it holds the core and one object of every family, nothing else
    assert isinstance(parts.pop("core"), StoreCore)
    assert sorted(type(p).__name__ for p in parts.values()) == sorted(_families())
    # And each family is under its module's name
    for attr, family in parts.items():
        assert type(family).__module__ == f"kakeibo.store.{attr}", attr
    # And every family holds the store's own core and the store's own families, never copies
    for attr, family in parts.items():
        for dep, given in vars(family).items():
            if dep == "core":
                assert given is store.core, attr
            elif type(given).__name__.endswith("Ops"):
                assert given is parts[dep], (attr, dep)
    # And the store adds no operation of its own but forgetting what its families learnt
    own = {n for n, v in inspect.getmembers(Store, inspect.isfunction) if not n.startswith("__")}
    assert own == {"forget"}


def test_forgetting_clears_what_the_families_learnt() -> None:
    # Given a store whose journal saw a head and whose balances found a year linked
    store = _made()
    store.journal.saw_head("ledger", 7)
    store.balances.linked_seen.add(("LEDGER#ledger", "食費", "2026"))
    # When it forgets
    store.forget()
    # Then both are forgotten, and the write path sees the same journal
    assert store.journal.heads == {} and store.balances.linked_seen == set()
    assert store.write.journal is store.journal


def test_a_family_is_built_once_and_only_when_first_used() -> None:
    # Given a store none of whose families was used
    store = _made()
    # When the slips are used
    slips = store.slips
    # Then the slips and the families they write through are built, and no other
    assert set(vars(store)) == {"core", "slips", "balances", "slip_index", "write", "journal"}
    assert store.slips is slips and slips.write is store.write and store.write.journal is store.journal
