# Two commands: `make run` starts the bot, `make test` runs every check.
# Both create .venv and install the project into it when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck unit e2e bench messages clean

# Keep bytecode caches (__pycache__/, ignored by git) even where the environment turns
# them off: the suite starts dozens of interpreters (workers, bot processes), and each
# would compile the project from source again.
export PYTHONDONTWRITEBYTECODE :=

run: $(STAMP)
	$(BIN)/python -m bot

# The suite on three workers (pytest-xdist) on two cores: the e2e tests wait on bot
# processes and the fake server while the other workers run unit tests; a worker that
# runs dry takes tests from the others (worksteal). PYTEST_WORKERS=0 runs it in one
# process.
PYTEST_WORKERS ?= 3
PYTEST := $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

test: lint typecheck
	$(PYTEST)

unit: $(STAMP)
	$(PYTEST) -m "not e2e"

e2e: $(STAMP)
	$(PYTEST) -m e2e

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict scoring seating bot handlers

bench: $(STAMP)
	$(BIN)/python bench/scoring_bench.py
	$(BIN)/python bench/standings_bench.py
	$(BIN)/python bench/seating_bench.py
	$(BIN)/python bench/bot_bench.py

# Refresh the message template after changing texts; translate the new entries in the
# feature's file of locales/ru/LC_MESSAGES/ (card.po, standings.po, seating.po, ...;
# messages.po for what the features share). tests/test_i18n.py fails on a missing one.
messages: $(STAMP)
	$(BIN)/pybabel extract -k _ -k __ -k N_ -o locales/messages.pot bot handlers scoring

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (set PYTHON=...)"; exit 1; }
	test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && \
		$(BIN)/python -m pip install -q --upgrade pip; }
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
