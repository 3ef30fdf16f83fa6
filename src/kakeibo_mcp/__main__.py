"""`python -m kakeibo_mcp`: the server on stdio, configured by the environment (kakeibo_mcp.api.Config)."""

from __future__ import annotations

import sys

import anyio

from kakeibo_mcp.api import Api, Config, ConfigError
from kakeibo_mcp.server import build


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as wrong:
        print(f"kakeibo_mcp: {wrong}", file=sys.stderr)
        return 2
    anyio.run(build(Api(config)).run_stdio_async)
    return 0


if __name__ == "__main__":
    sys.exit(main())
