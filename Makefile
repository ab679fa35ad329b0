# ztwin — the two commands a new machine needs are `make demo` and `make test`.
# Everything is installed from the package registries into ./.venv and ./target.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
NATIVE_STAMP := $(VENV)/.native
RUST_SRC := $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml
FUZZ_SECONDS ?= 20

.PHONY: help venv build demo test test-rust test-python fuzz-smoke fuzz bench bench-quick lint clean

help:
	@echo "make demo        build everything and run the demo on a bundled example"
	@echo "make test        Rust tests, Python tests, fuzz smoke run"
	@echo "make bench       full benchmarks (writes BENCHMARKS figures and bench-results.json)"
	@echo "make bench-quick reduced benchmarks (< 3 min)"
	@echo "make fuzz        longer fuzzing (FUZZ_SECONDS per target, default 20)"

$(STAMP): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip==24.3.1
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

venv: $(STAMP)

# Build the Rust extension into the virtual environment (ztwin._native).
$(NATIVE_STAMP): $(STAMP) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
		$(VENV)/bin/maturin develop --release --quiet
	touch $@

build: $(NATIVE_STAMP)

demo: build
	@mkdir -p demo-out
	$(PY) examples/demo.py demo-out

test: test-rust test-python fuzz-smoke

test-rust:
	cargo test --workspace --exclude ztwin-py --quiet

test-python: build
	$(PY) -m pytest -W error -q tests/python

fuzz-smoke:
	bash fuzz/run.sh $(FUZZ_SECONDS)

fuzz:
	bash fuzz/run.sh $${FUZZ_SECONDS:-300}

bench: build
	$(PY) benches/run.py

bench-quick: build
	$(PY) benches/run.py --quick

lint:
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all --check

clean:
	rm -rf target $(VENV) demo-out bench-results.json fuzz/target
