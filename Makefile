# The two commands a newcomer needs: `make run` and `make test`. `make help` lists the others.
SHELL := /bin/bash
# uv runs as a module of the system Python, so it works wherever pip put it.
UV := python3 -m uv
VENV := .venv
PY := $(VENV)/bin/python
LINTED := src packages tests bench
LINT_IMPORTS := $(VENV)/bin/lint-imports --no-cache --no-logo
# Debian packages the suite starts for real; installed only when missing and only as root.
# chromium drives the dashboard tests (Playwright); fonts-noto-cjk renders their Korean. The sandbox
# starts prometheus-alertmanager itself (the package's own service is not used); victoria-metrics stands in
# for Prometheus in the tests that run on both engines (started by the tests, not as a service).
# libkrb5-dev is for code-server's kerberos addon, built when code-server is installed (below).
DEBIAN_PACKAGES := prometheus prometheus-alertmanager victoria-metrics postgresql chromium fonts-noto-cjk libkrb5-dev
# The pinned code-server and Node 24 a VS Code lab runs, from the npm registry, installed once per machine
# into a cache outside the clone (NUFI_CODE_SERVER_CACHE, default ~/.cache/nufi); see docs/sandbox.md.
CODE_SERVER_INSTALL := packages/nufi-sandbox/src/nufi_sandbox/code_server/install.sh
# Each benchmark with the arguments `make bench` gives it; their defaults are the sizes the results in
# bench/README.md were measured at (a few minutes in all). Override one with e.g.
# `make bench BENCH_ARGS_check_resource_key="--nodes 500"`. A benchmark is a module of bench/ or a
# package of it with a __main__.py; bench/load is `make load`, bench/common what they share.
BENCH_MODULES := $(filter-out bench/__init__.py bench/dashboard_server.py bench/reliability_report.py,$(wildcard bench/*.py))
BENCH_PACKAGES := $(filter-out bench/load/__main__.py,$(wildcard bench/*/__main__.py))
BENCHMARKS := $(sort $(basename $(notdir $(BENCH_MODULES))) $(patsubst bench/%/__main__.py,%,$(BENCH_PACKAGES)))

.PHONY: help setup debian-packages code-server run test test-vm unit fuzz crash lint-imports lint typecheck bench load reliability docs protos clean

setup: $(VENV)/.synced debian-packages code-server ## Install uv, the locked .venv (all three distributions), the Debian packages the tests start and the pinned code-server

help: ## List the targets
	@grep -E '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)$$/\1\t\2/' | \
	  while IFS=$$'\t' read -r target text; do printf '  make %-13s %s\n' "$$target" "$$text"; done

# Re-synced whenever the metadata of any workspace member or the lock changes.
$(VENV)/.synced: pyproject.toml packages/nufi-mock/pyproject.toml packages/nufi-sandbox/pyproject.toml uv.lock
	@$(UV) --version >/dev/null 2>&1 || python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore uv
	@$(UV) sync --frozen --quiet
	@touch $@

debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages:$$missing (run 'sudo make setup' or install them with apt)"; \
	  fi; \
	fi

# After the Debian packages: its native addons are built against libkrb5-dev.
code-server: debian-packages
	@bash $(CODE_SERVER_INSTALL)

# The sandbox's own options pass through ARGS, e.g. `make run ARGS="--port 18080 --state-dir /tmp/nufi"`;
# `.venv/bin/nufi-sandbox --help` lists them.
ARGS ?=

run: setup ## Start the one-command sandbox: NuFi, dev cluster, mock LPU, Prometheus, dev login; its options in ARGS="--port 18080 --state-dir DIR"
	@$(VENV)/bin/nufi-sandbox $(ARGS)

# `make test` runs pytest on TEST_WORKERS processes (pytest-xdist); each starts its own PostgreSQL and
# Prometheus. Two by default: CI's machine has two cores, and the slow tests mostly wait. Override with
# e.g. `make test TEST_WORKERS=4`; TEST_WORKERS=0 runs serially. --dist loadfile keeps a module on one
# worker (module fixtures start a sandbox or a browser once); --no-loadscope-reorder keeps collection
# order, so the long e2e modules (tests/e2e sorts first) start at once instead of ending the run alone.
TEST_WORKERS ?= 2
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
# What `make test` runs a second time on VictoriaMetrics instead of Prometheus (tests/support/engines.py):
# monitoring and its ranges, the live checks of metric expressions, thermal control and its dry run.
BOTH_ENGINES := tests/integration/monitoring tests/integration/thermal tests/integration/catalog \
  tests/integration/devices/test_devices_prometheus.py
# Catalog modules that never reach the metrics engine (access rules, concurrent saves, an unreadable
# database) run once.
ENGINE_FREE := $(addprefix --ignore=tests/integration/catalog/,test_catalog_access.py \
  test_catalog_concurrency.py test_catalog_unreadable.py)
ON_VICTORIAMETRICS := $(PYTEST_PARALLEL) --metrics-engine victoriametrics $(ENGINE_FREE) $(BOTH_ENGINES)

test: setup ## What CI runs: ruff, ruff format --check, mypy, import contracts, the whole pytest suite on two workers, then its metrics tests again on VictoriaMetrics
	@$(VENV)/bin/ruff check $(LINTED)
	@$(VENV)/bin/ruff format --check $(LINTED)
	@$(VENV)/bin/mypy
	@$(LINT_IMPORTS)
	@$(VENV)/bin/pytest $(PYTEST_PARALLEL)
	@$(VENV)/bin/pytest $(ON_VICTORIAMETRICS)

test-vm: setup ## Only what `make test` runs on both engines, on VictoriaMetrics (a few minutes)
	@$(VENV)/bin/pytest $(ON_VICTORIAMETRICS)

unit: $(VENV)/.synced ## The fast tests only: pure logic, no I/O (pytest -m unit)
	@$(VENV)/bin/pytest -m unit

fuzz: setup ## Long schemathesis run against the real server: NUFI_FUZZ_EXAMPLES random cases per operation (default 1000)
	@NUFI_FUZZ_EXAMPLES=$${NUFI_FUZZ_EXAMPLES:-1000} $(VENV)/bin/pytest -p no:cacheprovider -s tests/integration/catalog/test_catalog_schemathesis.py

crash: setup ## kill -9 loop: nufi serve killed mid-write NUFI_CRASH_ROUNDS times (default 20), restarted, settled
	@NUFI_CRASH_ROUNDS=$${NUFI_CRASH_ROUNDS:-20} $(VENV)/bin/pytest -p no:cacheprovider tests/integration/faults/test_faults_crash.py

lint-imports: $(VENV)/.synced ## Check the layering contracts in pyproject.toml ([tool.importlinter])
	@$(LINT_IMPORTS)

lint: $(VENV)/.synced ## Fix what ruff can fix, and format
	@$(VENV)/bin/ruff check --fix $(LINTED) && $(VENV)/bin/ruff format $(LINTED)

typecheck: $(VENV)/.synced ## Type-check with mypy
	@$(VENV)/bin/mypy

bench: setup ## Run every benchmark in bench/; each prints ratios and never fails on time
	@$(foreach name,$(BENCHMARKS),echo "== bench.$(name) $(BENCH_ARGS_$(name))" && \
	  $(PY) -m bench.$(name) $(BENCH_ARGS_$(name)) && ) true

load: setup ## A minute of readers, dashboard sessions and admin writers against the sandbox (LOAD_ARGS=...)
	@$(VENV)/bin/python -m bench.load $(LOAD_ARGS)

reliability: setup ## make fuzz, the fault tests, make load and make bench, then their figures into docs/reliability.md (about an hour on two cores)
	@$(PY) -m bench.reliability_report

docs: $(VENV)/.synced ## Regenerate the generated parts of the docs: docs/messages.md and the tables of docs/ARCHITECTURE.md
	@$(PY) -m nufi.messages.document > docs/messages.md
	@$(PY) tests/support/architecture_doc.py --write

protos: $(VENV)/.synced ## Regenerate the kubelet gRPC modules of nufi-mock from their .proto files
	@$(PY) -m nufi_mock.kubelet_api.generate

clean: ## Remove the .venv and the tool caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
