# Two commands do all set-up: `make run` and `make test`. Both create .venv on first use.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-postgres lint format migrations-check bench clean

$(STAMP): pyproject.toml scripts/bootstrap scripts/system-packages.txt tests/e2e/ts_client/package-lock.json
	scripts/bootstrap

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py dashboard

test: $(STAMP)
	$(PY) -m pytest -n auto

# The same suite on a throwaway local PostgreSQL cluster (installed from Debian's packages when missing).
test-postgres: $(STAMP)
	scripts/test-postgres

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy workrail_site workflows_app runs exports
	$(PY) manage.py makemigrations --check --dry-run

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

migrations-check: $(STAMP)
	$(PY) manage.py makemigrations --check --dry-run

bench: $(STAMP)
	$(PY) bench/startup.py
	$(PY) bench/list_workflows.py
	$(PY) bench/execution.py
	$(PY) bench/resume.py
	$(PY) bench/dashboard.py
	$(PY) bench/cleanup.py
	$(PY) bench/reports.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
