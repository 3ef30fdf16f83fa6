"""The models package names every model of its wings, and imports a wing only when asked for one."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

from kakeibo import models

PACKAGE = Path(models.__file__).parent


def test_every_name_the_package_offers_is_the_wings_own() -> None:
    # Given the package's table of names and its (type-checking) imports
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name: str(node.module).rsplit(".", 1)[1]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and str(node.module).startswith("kakeibo.models.")
        for alias in node.names
    }
    # Then the table, the imports and __all__ name the same things, each in the same wing
    assert imported == models._WINGS
    assert set(models.__all__) == set(models._WINGS)
    # And each name is the wing's own object
    for name, wing in models._WINGS.items():
        assert getattr(models, name) is getattr(importlib.import_module(f"kakeibo.models.{wing}"), name)


def test_a_name_the_package_does_not_have_is_an_attribute_error() -> None:
    try:
        models.NoSuchModel  # noqa: B018 - the lookup is the test
    except AttributeError as exc:
        assert "NoSuchModel" in str(exc)
    else:
        raise AssertionError("an unknown name was found")


def test_asking_for_one_model_imports_only_its_wing() -> None:
    # Given a fresh process
    code = (
        "import sys, json\n"
        "from kakeibo.models import SlipIn\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('kakeibo.models.'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    # When it asks the package for the slip request model
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    # Then the slips wing and what it builds on are imported, and not the wings it does not need
    assert "kakeibo.models.slips" in loaded
    assert not {"kakeibo.models.imports", "kakeibo.models.webhooks", "kakeibo.models.recurrences"} & set(loaded)
