# The two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
# uv runs as a module of the system Python, so it works wherever pip put it.
UV := python3 -m uv
VENV := .venv
PY := $(VENV)/bin/python
# Debian packages the suite starts for real; installed only when missing and only as root.
DEBIAN_PACKAGES := prometheus postgresql

.PHONY: setup run test lint typecheck protos clean

setup: $(VENV)/.synced debian-packages

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

run: setup
	@$(VENV)/bin/nufi-sandbox

test: setup
	@$(VENV)/bin/ruff check src packages tests bench
	@$(VENV)/bin/ruff format --check src packages tests bench
	@$(VENV)/bin/mypy
	@$(VENV)/bin/pytest

lint:
	@$(VENV)/bin/ruff check --fix src packages tests bench && $(VENV)/bin/ruff format src packages tests bench

typecheck:
	@$(VENV)/bin/mypy

protos:
	@$(PY) -m nufi_mock.kubelet_api.generate

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
