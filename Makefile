# Every target sets up what it needs: a fresh clone needs only python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench,clickhouse]'
	touch $(STAMP)

.PHONY: setup demo test test-long test-defects bench clean readme
setup: $(STAMP)

demo: $(STAMP)
	TABULAR_HOME=$${TABULAR_HOME:-.tabular-demo} $(BIN)/tabular demo fixtures/demo.json

# Two processes, a test file each at a time (module fixtures stay in one process): the suite
# takes half the time it takes in one.
test: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/pytest -q -n 2 --dist loadfile

test-long: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile -m 'not known_defect'

test-defects: $(STAMP)
	$(BIN)/pytest -q -m known_defect

bench: $(STAMP)
	$(BIN)/python bench/ingest_csv.py --scale-factor 1

# docs/cli.md's generated section, from each command's help and examples (tests/test_cli_surface.py checks it).
readme: $(STAMP)
	$(BIN)/python -c 'from tabular.cli.usage import write_usage; write_usage("docs/cli.md")'

clean:
	rm -rf $(VENV) .tabular-demo .pytest_cache
