"""The architecture a function of template.yaml deploys on, and the wheel platform it needs.

`sam build` runs src/Makefile with ARTIFACTS_DIR set and nothing about the architecture, so the
Makefile asks this script: the function's own `Properties.Architectures`, else the template's
`Globals.Function.Architectures`, else Lambda's default (x86_64). Standard library only: sam build
runs it with the bare python3.13 that builds the package. The template is CloudFormation YAML
(with tags such as !Ref), read only as far as these two keys, in block or flow style.

    python3 target_platform.py TEMPLATE [FUNCTION]          -> manylinux2014_aarch64
    python3 target_platform.py --arch TEMPLATE [FUNCTION]   -> arm64
    python3 target_platform.py --switch ARCH TEMPLATE OUT    -> OUT: the template deploying every
                                                               function on ARCH, its CodeUri paths
                                                               leading to the same sources

Without a readable template (a container build mounts only src/), the build machine's own
architecture is the answer: SAM's build image for a function is of the function's architecture.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from pathlib import Path

PLATFORMS = {"arm64": "manylinux2014_aarch64", "x86_64": "manylinux2014_x86_64"}
DEFAULT = "x86_64"  # Lambda's, when a template names none
_KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.-]+):(?:\s+(?P<value>.*?))?\s*(?:#.*)?$")
_ITEM = re.compile(r"^(?P<indent> *)-\s+(?P<value>[^#]*?)\s*(?:#.*)?$")


def _value(lines: list[str], path: tuple[str, ...]) -> list[str] | None:
    """The list at `path` (keys from the top), or None when the template does not set it."""
    stack: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        found = _KEY.match(line)
        if not found or line.lstrip().startswith("#"):
            continue
        indent = len(found["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, found["key"]))
        if tuple(key for _, key in stack) != path:
            continue
        value = (found["value"] or "").strip()
        if value:
            return [part.strip().strip("'\"") for part in value.strip("[]").split(",") if part.strip()]
        items = []
        for following in lines[number + 1 :]:
            item = _ITEM.match(following)
            if not item or len(item["indent"]) < indent:
                break
            items.append(item["value"].strip("'\""))
        return items
    return None


def architecture(template: str, function: str = "LedgerFunction") -> str:
    """arm64 or x86_64: what `function` of the template text deploys on."""
    lines = template.splitlines()
    for path in (("Resources", function, "Properties", "Architectures"), ("Globals", "Function", "Architectures")):
        found = _value(lines, path)
        if found is not None:
            if len(found) != 1 or found[0] not in PLATFORMS:
                raise ValueError(f"{'.'.join(path)} must be [arm64] or [x86_64], not {found}")
            return found[0]
    return DEFAULT


_ARCHITECTURES = re.compile(r"^(?P<head> *Architectures:)\s*\[[^\]]*\]\s*(?:#.*)?$", re.MULTILINE)
_CODE_URI = re.compile(r"^(?P<head> *CodeUri:)\s*(?P<path>[^\s#!{]+)\s*$", re.MULTILINE)


def switched(template: str, arch: str, code_root: str) -> str:
    """`template` with every function on `arch` (each `Architectures: [...]` set to it) and each
    CodeUri prefixed with `code_root` (the copy's way back to the sources). ValueError when the
    template sets an architecture in another form (a block list), which this does not rewrite."""
    if arch not in PLATFORMS:
        raise ValueError(f"the architecture must be arm64 or x86_64, not {arch!r}")
    out = _ARCHITECTURES.sub(lambda m: f"{m['head']} [{arch}]", template)
    out = _CODE_URI.sub(lambda m: f"{m['head']} {code_root.rstrip('/')}/{m['path']}", out)
    functions = re.findall(r"^  (\w+):\n(?:    .*\n)*?    Type: AWS::Serverless::Function", out, re.MULTILINE)
    wrong = [name for name in functions if architecture(out, name) != arch]
    if wrong or not functions:
        raise ValueError(f"could not switch {', '.join(wrong) or 'any function'} to {arch}")
    return out


def this_machine() -> str:
    return "arm64" if platform.machine().lower() in ("arm64", "aarch64") else "x86_64"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--switch"] and len(argv) == 4:
        arch, source, target = argv[1], Path(argv[2]), Path(argv[3])
        back = os.path.relpath(source.resolve().parent, target.resolve().parent)
        target.write_text(switched(source.read_text(encoding="utf-8"), arch, back), encoding="utf-8")
        return 0
    arch_only = bool(argv) and argv[0] == "--arch"
    args = argv[1:] if arch_only else argv
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(args[0])
    if path.is_file():
        found = architecture(path.read_text(encoding="utf-8"), *args[1:2])
    else:
        found = this_machine()
        print(f"{path} not found: building for this machine ({found})", file=sys.stderr)
    print(found if arch_only else PLATFORMS[found])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
