"""`python -m bench`: see bench/cli.py."""

from bench.cli import main

if __name__ == "__main__":  # spawned worker processes re-import this module; they must not run it
    raise SystemExit(main())
