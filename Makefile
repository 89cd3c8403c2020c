# One command each: `make run` sets up and runs the referee with its panel;
# `make test` sets up and runs every test. Both work on a fresh clone.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test setup setup-test

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q -e .

setup-test: $(BIN)/python
	$(BIN)/pip install -q -e ".[test]"

run: setup
	$(BIN)/ligretto-vision serve

test: setup-test
	$(BIN)/python -m pytest
