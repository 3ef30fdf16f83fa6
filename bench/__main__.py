"""`python -m bench`: see bench/cli.py."""

if __name__ == "__main__":  # worker processes (spawn) re-import this module: they must stay light
    from bench.cli import main

    raise SystemExit(main())
