# Two commands: `make run` starts the bot, `make test` runs every check.
# Both create .venv and install the project into it when pyproject.toml changes:
# `make run` only what the bot needs at run time, `make test` the developer tools too.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp

.PHONY: venv run install check demo test lint typecheck unit e2e bench messages clean

# Keep bytecode caches (__pycache__/, ignored by git) even where the environment turns
# them off: the suite starts dozens of interpreters (workers, bot processes), and each
# would compile the project from source again.
export PYTHONDONTWRITEBYTECODE :=

run: venv $(RUN_STAMP)
	$(BIN)/python -m bot

# What `make run` sets up, without starting the bot (a server's install and upgrades).
install: venv $(RUN_STAMP)

# The bot's health as JSON (database, schema, last update, outbox, uptime); exit 1
# when unhealthy or not running.
check: venv $(RUN_STAMP)
	$(BIN)/python -m bot check

# A short tournament played through the real bot without Telegram: the tests' local
# stand-in for the Bot API on 127.0.0.1 and a made-up token (tests/demo/). It prints
# what each person sees and leaves the group's standings pictures, the exports and the
# transcript in DEMO_DIR; DEMO_LANGUAGE=ru plays it in Russian. Needs the dev extras
# (the stand-in is part of the tests).
DEMO_DIR ?= demo-output
DEMO_LANGUAGE ?= en
demo: venv $(DEV_STAMP)
	$(BIN)/python -m tests.demo --dir '$(DEMO_DIR)' --language '$(DEMO_LANGUAGE)'

# The suite on three workers (pytest-xdist) on two cores: the e2e tests wait on bot
# processes and the fake server while the other workers run unit tests; a worker that
# runs dry takes tests from the others (worksteal). PYTEST_WORKERS=0 runs it in one
# process.
PYTEST_WORKERS ?= 3
PYTEST := $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

# mypy (~6 s of CPU on a cold cache) runs beside pytest, its report printed after
# pytest's; ruff and lint-imports first (under a second). Every check runs, and the
# target fails when any of them fails.
test: venv $(DEV_STAMP)
	@typecheck_log=$$(mktemp); \
	$(BIN)/mypy --strict scoring seating bot handlers >"$$typecheck_log" 2>&1 & typecheck=$$!; \
	failed=0; \
	$(BIN)/ruff check . || failed=1; \
	$(BIN)/lint-imports --no-cache || failed=1; \
	$(PYTEST) || failed=1; \
	wait $$typecheck || failed=1; \
	cat "$$typecheck_log"; rm -f "$$typecheck_log"; \
	exit $$failed

unit: venv $(DEV_STAMP)
	$(PYTEST) -m "not e2e"

e2e: venv $(DEV_STAMP)
	$(PYTEST) -m e2e

lint: venv $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

typecheck: venv $(DEV_STAMP)
	$(BIN)/mypy --strict scoring seating bot handlers

# Every benchmark (bench/goals.py lists them), then a table of the performance goals,
# each with its figure, its limit, met or not met. It fails exactly when a goal is
# missed (a goal's benchmark that breaks counts as missed); the other benchmarks print
# figures only. About 7 minutes on two cores.
bench: venv $(DEV_STAMP)
	$(BIN)/python -m bench.goals

# Refresh the message template after changing texts; translate the new entries in the
# feature's file of locales/ru/LC_MESSAGES/ (card.po, standings.po, seating.po, ...;
# messages.po for what the features share). tests/test_i18n.py fails on a missing one.
messages: venv $(DEV_STAMP)
	$(BIN)/pybabel extract -k _ -k __ -k N_ -o locales/messages.pot bot handlers scoring

# .venv with pip in it: made when missing, made again when broken (no bin/python: the
# Python it was made from is gone; no pip: made where ensurepip is missing). Checked
# first, before make looks at the stamps inside it.
venv:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (set PYTHON=...)"; exit 1; }
	@if ! [ -x $(BIN)/python ] || ! ls -d $(VENV)/lib/python3*/site-packages/pip >/dev/null 2>&1; then \
		if [ -e $(VENV) ]; then echo "$(VENV) is broken (no python or no pip in it): making it again"; fi; \
		rm -rf $(VENV); \
		$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
			echo "$(PYTHON) cannot make a virtual environment with pip in it;" \
			     "on Debian or Ubuntu: sudo apt install python3-venv"; exit 1; }; \
		$(BIN)/python -m pip install -q --upgrade pip; \
	fi

$(RUN_STAMP): pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(DEV_STAMP): pyproject.toml
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
