"""An MCP server for the Kakeibo API (`python -m kakeibo_mcp`): an assistant records slips and
answers questions about a household ledger through the API, with a personal access token.

A client of the API only, over HTTP: it imports nothing of `kakeibo` and is never part of the
Lambda package (src/Makefile ships src/kakeibo alone)."""
