"""Leave out of the Lambda package what the function never loads (run by src/Makefile).

    python trim_package.py ARTIFACTS_DIR

botocore ships the API models of every AWS service (about 27 MB of the package's 44 MB); only those
of the services the functions create clients for are kept: DynamoDB (the store, the idempotency
records), S3 (receipts: kakeibo/blobs.py) and SQS (the webhook queues: kakeibo/queues.py). A client
of any other service is an UnknownServiceError in the built function: add its name here
(tests/integration/test_package.py creates every client the code makes from the built package).
Console scripts (bin/) never run in Lambda.

Powertools' `event_handler/__init__.py` imports every resolver it offers (AppSync, whose module
imports asyncio, Bedrock agents, VPC Lattice, ...) and `utilities/data_classes/__init__.py` every
event class, only to re-export their names: some 35 ms of every cold start for an HTTP API function
that uses one resolver and one event class. The package's copies are rewritten to export the same
names lazily (PEP 562 `__getattr__`): each name imports its own module on first use.
"""

import ast
import shutil
import sys
from pathlib import Path

SERVICES_USED = {"dynamodb", "s3", "sqs"}
LAZY_PACKAGES = (
    "aws_lambda_powertools/event_handler/__init__.py",
    "aws_lambda_powertools/utilities/data_classes/__init__.py",
)

LAZY_TEMPLATE = '''"""{doc}

(Exports loaded on first use: rewritten by trim_package.py.)"""

import importlib
{eager}
_EXPORTS = {exports!r}

__all__ = {names!r}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
'''


def lazy_init(source: str, package: str) -> str:
    """The same exports as `source`, the __init__ of `package` (`from X import a, b` lines and
    `__all__`), each imported when first asked for. A file of any other shape is kept as it is. A
    name that is also its submodule's name (`from .event_source import event_source`) is imported at
    once: importing the submodule later would otherwise leave the module, not the name, in its place."""
    tree = ast.parse(source)
    exports: dict[str, str] = {}
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level in (0, 1):
            module = node.module if node.level == 0 else f"{package}.{node.module}"
            for alias in node.names:
                exports[alias.asname or alias.name] = module
        elif isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            names = list(ast.literal_eval(node.value))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        else:
            return source  # not the plain re-export file expected: leave it
    if not exports or set(names) - set(exports):
        return source
    doc = (ast.get_docstring(tree) or "").strip().replace('"""', "'''")
    same = {name: module for name, module in exports.items() if module.rsplit(".", 1)[-1] == name}
    eager = "".join(f"from {module} import {name}\n" for name, module in same.items())
    lazy = {name: module for name, module in exports.items() if name not in same}
    return LAZY_TEMPLATE.format(doc=doc, eager=eager, exports=lazy, names=names)


def trim(root: Path) -> None:
    shutil.rmtree(root / "bin", ignore_errors=True)
    data = root / "botocore" / "data"
    for service in data.iterdir():
        if service.is_dir() and service.name not in SERVICES_USED:
            shutil.rmtree(service)
    for name in LAZY_PACKAGES:
        init = root / name
        if init.exists():
            package = str(Path(name).parent).replace("/", ".")
            init.write_text(lazy_init(init.read_text(encoding="utf-8"), package), encoding="utf-8")


if __name__ == "__main__":
    trim(Path(sys.argv[1]))
