# The two commands of the README: `make demo` (main job) and `make test` (the test suite).
# Both do all set-up on a fresh machine: Java 17 + Maven check, a virtual environment with
# the package, and a local Neo4j 5.26 + GDS server resolved from Maven Central.
VENV ?= .venv
PY := $(VENV)/bin/python
KG := $(VENV)/bin/kg
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo test lint bench db-up db-down clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml scripts/setup.sh
	bash scripts/phase.sh setup bash scripts/setup.sh "$(VENV)"
	touch $@

db-up: setup
	$(KG) db up

db-down:
	$(KG) db down

demo: setup
	bash scripts/phase.sh demo bash scripts/demo.sh

test: setup
	bash scripts/phase.sh neo4j $(KG) db up
	bash scripts/phase.sh ruff $(PY) -m ruff check .
	bash scripts/phase.sh format $(PY) -m ruff format --check .
	bash scripts/phase.sh mypy $(PY) -m mypy
	bash scripts/phase.sh pytest $(PY) -m pytest -q -p no:cacheprovider --timeout=1800 tests

lint: setup
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) build dist *.egg-info out
