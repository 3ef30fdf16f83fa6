"""Benchmarks: what each API operation costs, beside the DynamoDB floor and a naive ledger.

Run with `make bench` (or `python -m bench --help`). Not tests: targets are reported, not asserted.
"""
