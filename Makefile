# Two entry points, each doing its own set-up in a fresh virtual environment (.venv):
#   make demo   - install pyasc and run the quickstart on the built-in default (ascend910b2)
#   make test   - install pyasc with the dev extra and run every test (pytest in two processes, and lit)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

# the environment's own pip (ensurepip's) installs the project as it is: PEP 660 editable installs need pip >= 21.3
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip --version | awk '{ split($$2, v, "."); exit !(v[1] > 21 || (v[1] == 21 && v[2] >= 3)) }' \
		|| $(BIN)/python -m pip install --quiet --upgrade pip

demo: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	$(COMPILE_SOURCES)
	$(BIN)/python examples/quickstart.py out/quickstart

# Python writes the byte code of each module it imports, whatever the environment says
# (PYTHONDONTWRITEBYTECODE would make every process of the tests compile its imports again)
export PYTHONDONTWRITEBYTECODE :=

# the dev extra, installed again when pyproject.toml changes, without byte-compiling: a test process
# imports about 15% of site-packages' 12,800 modules, and compiles each the first time (29 s on both cores
# to compile them all)
DEV_STAMP := $(VENV)/.dev-installed

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-compile -e '.[dev]'
	touch $@

# the editable install's own sources, byte-compiled once, on both cores
COMPILE_SOURCES := $(BIN)/python -m compileall -q -j 0 pyasc dialects lowering runtime

# the pytest suites run as two processes (one per core) of about equal length: the differential, kernel,
# model, autograd and reduction suites, and the rest; lit runs on the core the first of them leaves
# (bash's ``wait -n``), and each suite's log is printed when all three are done
PYTEST := $(BIN)/python -m pytest -p no:cacheprovider
SUITES_A := test/torch_diff/ test/kernel/ test/model/ test/autograd/ test/reduce/
SUITES_B := $(filter-out $(SUITES_A) test/lit/ test/fixtures/,$(sort $(dir $(wildcard test/*/))))

test: SHELL := /bin/bash
test: $(DEV_STAMP)
	$(COMPILE_SOURCES)
	$(PYTEST) $(SUITES_A) > .pytest-a.log 2>&1 & a=$$!; \
	$(PYTEST) $(SUITES_B) > .pytest-b.log 2>&1 & b=$$!; \
	wait -n $$a $$b; \
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv test/lit; l=$$?; \
	wait $$a; ra=$$?; wait $$b; rb=$$?; \
	cat .pytest-a.log .pytest-b.log; rm -f .pytest-a.log .pytest-b.log; \
	test $$ra -eq 0 && test $$rb -eq 0 && test $$l -eq 0

bench: $(DEV_STAMP)
	$(BIN)/python bench/elementwise.py

clean:
	rm -rf $(VENV) out
