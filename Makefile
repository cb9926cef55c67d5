# Two entry points, each doing its own set-up in a fresh virtual environment (.venv):
#   make demo   - install pyasc and run the quickstart on the built-in default (ascend910b2)
#   make test   - install pyasc with the dev extra and run every test (pytest, then lit)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python examples/quickstart.py out/quickstart

test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pytest -p no:cacheprovider test
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv test/lit

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python bench/elementwise.py

clean:
	rm -rf $(VENV) out
