# Every target sets up what it needs: a fresh clone needs only python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The set-up says one line; pip's own output (warnings, resolver notes) goes to a log, its last
# lines shown only when the install fails.
INSTALL_LOG := $(VENV)/install.log

$(STAMP): pyproject.toml
	@echo "setting up $(VENV) (pip's output: $(INSTALL_LOG)) ..."
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip >$(INSTALL_LOG) 2>&1 \
		|| { tail -n 40 $(INSTALL_LOG); exit 1; }
	@$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,bench,clickhouse]' >>$(INSTALL_LOG) 2>&1 \
		|| { tail -n 40 $(INSTALL_LOG); exit 1; }
	@touch $(STAMP)

.PHONY: setup demo test typecheck test-long test-defects bench clean readme
setup: $(STAMP)

demo: $(STAMP)
	@TABULAR_HOME=$${TABULAR_HOME:-.tabular-demo} $(BIN)/tabular demo fixtures/demo.json

# Two processes that take tests as they free up (worksteal: a slow file no longer holds one process
# while the other idles; a module's fixtures are built once in each process that runs its tests).
# mypy runs beside pytest (about 30 s of one core on a fresh cache, as CI has): its errors per
# package may only go down (tests/mypy_ratchet.py, tests/mypy_baseline.json); its verdict is
# printed after pytest's and either failing fails the target.
TYPING_LOG := $(VENV)/mypy-ratchet.log

test: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	@$(BIN)/python tests/mypy_ratchet.py >$(TYPING_LOG) 2>&1 & typing=$$!; \
	echo "$(BIN)/pytest -q -n 2 --dist worksteal  (mypy beside it: $(TYPING_LOG))"; \
	$(BIN)/pytest -q -n 2 --dist worksteal; tests=$$?; \
	wait $$typing; typed=$$?; cat $(TYPING_LOG); \
	if [ $$tests -ne 0 ]; then exit $$tests; fi; exit $$typed

typecheck: $(STAMP)
	$(BIN)/python tests/mypy_ratchet.py

test-long: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist worksteal -m 'not known_defect'

test-defects: $(STAMP)
	$(BIN)/pytest -q -m known_defect

bench: $(STAMP)
	$(BIN)/python bench/ingest_csv.py --scale-factor 1

# docs/cli.md's generated section, from each command's help and examples (tests/test_cli_surface.py checks it).
readme: $(STAMP)
	$(BIN)/python -c 'from tabular.cli.usage import write_usage; write_usage("docs/cli.md")'

clean:
	rm -rf $(VENV) .tabular-demo .pytest_cache
