PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck format docs oracle bench visibility fuzz sweep hostile stress stress-budgets clean release-tag

# Runtime install (for the demo) and dev install (for the tests), each redone when pyproject.toml changes.
$(VENV)/.runtime: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.runtime $@

demo: $(VENV)/.runtime
	@status=0; $(BIN)/tilecheck fixtures/examples || status=$$?; test $$status -le 1

test: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The files and strictness (strict) are [tool.mypy] in pyproject.toml: tilecheck/, rules/ and tools/.
typecheck: $(VENV)/.dev
	$(BIN)/mypy

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Generated from the rule classes and from real runs (tests fail while they are stale): after
# changing a rule's name, grade or docstring, or any output the README shows (rules/_catalogue.py:
# after changing any file under rules/).
docs: $(VENV)/.dev
	$(BIN)/python -m tilecheck.core.docs docs/rules.md
	$(BIN)/python -m tilecheck.core.catalogue rules/_catalogue.py
	$(BIN)/python tools/readme_examples.py

# Differential test against the real TileLang 0.1.15 (large; not part of `make test`).
oracle: $(VENV)/.dev
	bash tools/oracle/run.sh

bench: $(VENV)/.dev
	$(BIN)/python tools/bench.py
	$(BIN)/python tools/bench_server.py

# How many Kernel/Pipelined/Parallel bodies of the shared corpus the model sees (issue 10 §6).
visibility: $(VENV)/.runtime
	$(BIN)/python tools/visibility.py ../shared/corpus/tilelang

# Robustness evidence (issue 12; not part of `make test`): 10,000 fuzzed `check` and 2,000 `lower`
# cases, then `make hostile`'s categories (hostile state: settings, names, caches, server streams
# and documents, permissions, shadowing trees, paths); every .py of the standard library and the
# shared corpus through check and lower.
fuzz: $(VENV)/.dev
	$(BIN)/python tools/fuzz.py
	$(BIN)/python tools/hostile.py --cases $(CASES)

sweep: $(VENV)/.dev
	$(BIN)/python tools/sweep.py

# The release tag pre-commit's `rev:` names: `v` + the version of pyproject.toml, on HEAD.
release-tag:
	git tag -a "v$$($(PYTHON) -c 'import sys; toml = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli"); print(toml.load(open("pyproject.toml", "rb"))["project"]["version"])')" -m "tilecheck release"

# Hostile state and input (settings, file names, cache entries, server framing), randomized and
# seeded: 500 cases by default (`make hostile CASES=2000`).
CASES ?= 500
hostile: $(VENV)/.dev
	$(BIN)/python tools/hostile.py --cases $(CASES)

# The suite under load: two busy processes per core while `.ci/run` runs.
stress: $(VENV)/.dev
	tools/stress_run.sh

# The tests that set time or memory budgets or race a worker (every module that sets a budget is
# listed: tests/test_stress_budgets.py), under the same load; `.ci/run` runs it after `make test`.
LOAD_SENSITIVE := tests/server/test_abandon.py tests/server/test_edit_session.py \
	tests/server/test_isolation.py tests/server/test_plugins_in_worker.py tests/server/test_storm.py \
	tests/server/test_units.py tests/server/test_worker.py tests/test_cli_config_flags.py tests/test_garbage.py \
	tests/test_hostile_tree.py tests/test_hostile_workers.py tests/test_inventory.py \
	tests/test_robust_budget_config.py tests/test_robust_lower.py tests/test_robust_rewrites.py \
	tests/test_robust_runner.py
stress-budgets: $(VENV)/.dev
	tools/stress_run.sh $(BIN)/python -m pytest -p no:cacheprovider $(LOAD_SENSITIVE)

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache
