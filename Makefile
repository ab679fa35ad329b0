# ztwin — the two commands a new machine needs are `make demo` and `make test`.
# Everything is installed from the package registries into ./.venv and ./target.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
ZTWIN := $(VENV)/bin/ztwin
STAMP := $(VENV)/.installed
NATIVE_STAMP := $(VENV)/.native
RUST_SRC := $(shell find crates -name '*.rs' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml
FUZZ_SECONDS ?= 20

.PHONY: help venv build browser demo test test-rust test-python fuzz-smoke fuzz bench bench-quick lint typecheck clean

help:
	@echo "make demo        build everything and run the demo on a bundled example"
	@echo "make test        clippy, rustfmt and mypy --strict, Rust tests, Python tests (with the studies' short forms), fuzz smoke run"
	@echo "make bench       full benchmarks and the fidelity scoreboard (writes BENCHMARKS.md's scoreboard and bench-results.json)"
	@echo "make bench-quick reduced benchmarks (< 3 min)"
	@echo "make fuzz        long fuzzing: every target to FUZZ_RUNS executions (default 10M)"

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

# The package's bytecode, as an installed package has it: with
# PYTHONDONTWRITEBYTECODE set, every command would otherwise compile the
# modules it imports again (0.15-0.25 s of CPU per command; BENCHMARKS.md).
build: $(NATIVE_STAMP)
	$(PY) -m compileall -q python/ztwin >/dev/null

# Headless Chromium checks the HTML reports render (Debian package; needs root).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing chromium (Debian) for the HTML report test"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "chromium not installed and not root: the browser test will be skipped"; fi; }

# The main job on the bundled paging scenario: simulate study S1, report on the
# MONWRITE file it wrote (text on the terminal, HTML with charts in demo-out/),
# ask the advisor what limits the system during the re-read (15:12:30-15:13:20),
# then compare the model with the published figures.
demo: build
	@mkdir -p demo-out
	$(ZTWIN) run studies/paging-single-thread.toml -o demo-out/s1.monwrite
	$(ZTWIN) report demo-out/s1.monwrite -r SYSSUMLG -r DEVICE -r USTAT -r UPAGE --from 15:12:30 --to 15:13:20
	$(ZTWIN) report demo-out/s1.monwrite --html demo-out/html
	@echo "HTML reports: demo-out/html/index.html"
	$(ZTWIN) diagnose demo-out/s1.monwrite --from 15:12:30 --to 15:13:20
	$(ZTWIN) study run paging-single-thread --quick

test: lint typecheck test-rust test-python fuzz-smoke

test-rust:
	cargo test --workspace --exclude ztwin-py --quiet

test-python: build browser
	$(PY) -m pytest -W error -q tests/python

fuzz-smoke:
	bash fuzz/run.sh $(FUZZ_SECONDS)

# Every target to FUZZ_RUNS executions (default 10M; at most FUZZ_SECONDS
# each, default 2 h). Results: BENCHMARKS.md, "Fuzzing".
fuzz:
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} bash fuzz/run.sh $${FUZZ_SECONDS:-7200}

bench: build
	$(PY) benches/run.py
	$(PY) benches/twin.py
	$(PY) benches/diagnose.py
	$(PY) benches/fidelity.py
	$(PY) benches/sweep.py

bench-quick: build
	$(PY) benches/run.py --quick
	$(PY) benches/twin.py --quick
	$(PY) benches/diagnose.py --quick
	$(PY) benches/sweep.py --quick

lint:
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all --check

# The Python package under mypy --strict (pyproject.toml [tool.mypy]; the
# native module's types come from python/ztwin/_native.pyi).
typecheck: $(STAMP)
	$(PY) -m mypy

clean:
	rm -rf target $(VENV) demo-out bench-results.json fuzz/target
