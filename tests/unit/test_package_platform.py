"""The Lambda package's wheels are for the architecture the template deploys the function on:
`sam build` runs src/Makefile with nothing but ARTIFACTS_DIR, so the Makefile reads the template."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kakeibo.local import template

ROOT = Path(__file__).resolve().parents[2]
GLOBAL_ARCH = "    Architectures: [arm64]\n"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("target_platform", ROOT / "src" / "target_platform.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sam_build_platform(project: Path) -> str:
    """The --platform src/Makefile hands pip when run as sam build runs it (make -n: nothing is installed)."""
    done = subprocess.run(
        ["make", "-n", "--makefile", str(project / "src" / "Makefile"), "build-LedgerFunction"],
        env={"ARTIFACTS_DIR": str(project / "artifacts"), "PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        check=True,
        cwd=project / "src",
    )
    found = re.findall(r"--platform (\S+)", done.stdout)
    assert len(found) == 1, done.stdout
    return found[0]


def _project(tmp_path: Path, template_text: str) -> Path:
    """A copy of the project as sam build sees it: template.yaml next to src/ and its Makefile."""
    (tmp_path / "src").mkdir()
    for name in ("Makefile", "target_platform.py"):
        shutil.copy(ROOT / "src" / name, tmp_path / "src" / name)
    (tmp_path / "template.yaml").write_text(template_text, encoding="utf-8")
    return tmp_path


def test_the_templates_own_architecture_is_the_packages() -> None:
    # Given the template as it is
    declared = template.load()
    function = declared["Resources"]["LedgerFunction"]["Properties"].get("Architectures")
    (arch,) = function or declared["Globals"]["Function"]["Architectures"]
    # Then the script reads the same architecture from it
    assert _script().architecture((ROOT / "template.yaml").read_text(encoding="utf-8")) == arch


@pytest.mark.parametrize(
    ("change", "platform"),
    [
        (lambda t: t, "manylinux2014_aarch64"),
        (lambda t: t.replace(GLOBAL_ARCH, "    Architectures: [x86_64]\n"), "manylinux2014_x86_64"),
        (lambda t: t.replace(GLOBAL_ARCH, "    Architectures:\n      - x86_64\n"), "manylinux2014_x86_64"),
        (lambda t: t.replace(GLOBAL_ARCH, ""), "manylinux2014_x86_64"),  # Lambda's default
        (
            lambda t: t.replace(
                "      CodeUri: src/\n", "      CodeUri: src/\n      Architectures: [x86_64]  # this one only\n"
            ),
            "manylinux2014_x86_64",
        ),
    ],
    ids=["arm64", "x86_64 in Globals", "x86_64 as a block list", "none named", "x86_64 on the function"],
)
def test_sam_build_ships_wheels_for_the_templates_architecture(tmp_path: Path, change: object, platform: str) -> None:
    # Given the template with its architecture set one way or another
    text = (ROOT / "template.yaml").read_text(encoding="utf-8")
    assert GLOBAL_ARCH in text and "      CodeUri: src/\n" in text
    changed = change(text)  # type: ignore[operator]
    # When sam build runs src/Makefile for the function (ARTIFACTS_DIR only, as SAM sets it)
    found = _sam_build_platform(_project(tmp_path, changed))
    # Then pip is asked for wheels of that architecture
    assert found == platform


def test_an_architecture_lambda_does_not_have_is_refused() -> None:
    text = (
        (ROOT / "template.yaml")
        .read_text(encoding="utf-8")
        .replace(GLOBAL_ARCH, "    Architectures: [arm64, x86_64]\n")
    )
    with pytest.raises(ValueError, match="must be"):
        _script().architecture(text)


@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_a_switched_copy_deploys_every_function_on_the_other_architecture(arch: str) -> None:
    # Given the template as it is
    text = (ROOT / "template.yaml").read_text(encoding="utf-8")
    # When a copy one directory down is switched to an architecture
    copy = _script().switched(text, arch, "..")
    # Then every function reads that architecture, and its code from the same sources
    for function in ("LedgerFunction", "WebhookSenderFunction"):
        assert _script().architecture(copy, function) == arch
    assert "CodeUri: ../src/" in copy
    assert "CodeUri: src/" not in copy


def test_a_template_it_cannot_switch_is_refused() -> None:
    # Given a template whose architecture is a block list
    text = (
        (ROOT / "template.yaml").read_text(encoding="utf-8").replace(GLOBAL_ARCH, "    Architectures:\n      - arm64\n")
    )
    # Then switching it is an error, never a template still on arm64
    with pytest.raises(ValueError, match="could not switch"):
        _script().switched(text, "x86_64", "..")
