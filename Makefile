# The two README commands (`make run`, `make test`) need only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint venv clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	ATRIUM_DATA_DIR=$${ATRIUM_DATA_DIR:-./atrium-data} $(BIN)/atrium demo --if-empty
	ATRIUM_DATA_DIR=$${ATRIUM_DATA_DIR:-./atrium-data} $(BIN)/atrium serve

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
