# Every target that needs the virtual environment depends on .venv/.installed,
# so any target works as the first command on a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed

.PHONY: install test demo conformance conformance-http conformance-wire bench bench-full e2e fuzz lint mutation clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The benchmarks run once each at their smoke sizes (every pod bound; no timing asserted; make bench runs
# the fast sizes).
# TEST_WORKERS: pytest-xdist processes (default: one per CPU; 0 runs in this process). A file's tests
# stay on one worker, in order (some share a module-scoped cluster).
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest tests volcano/conformance benchmarks --benchmark-disable -n $(TEST_WORKERS) --dist loadfile

demo: $(STAMP)
	$(BIN)/volcano demo

conformance: $(STAMP)
	$(BIN)/python -m pytest volcano/conformance --junitxml=out/conformance/junit.xml \
		--conformance-report=out/conformance/report.md

# The conformance suite over HTTP: each case against a `volcano serve` of its own shape, through the
# kubeconfig backend (the official client), paced at 50 simulated seconds per wall second.
# HTTP_WORKERS: pytest-xdist processes, each starting its own servers (0 runs in this process). A case
# spends most of its wall time waiting for its server's paced clock (the suite uses about a third of
# one CPU serially), so workers beyond the CPU count still help.
HTTP_WORKERS ?= 2
conformance-http: $(STAMP)
	$(BIN)/python -m pytest volcano/conformance --backend kubeconfig --serve --serve-speed 50 \
		-n $(HTTP_WORKERS) --dist loadfile \
		--junitxml=out/conformance-http/junit.xml --conformance-report=out/conformance-http/report.md

# The conformance suite against this project's components as processes over the wire: per case,
# volcano serve --api-only, volcano nodes, volcano controllers and volcano scheduler on loopback, through the
# kubeconfig backend, every process paced at WIRE_SPEED cluster seconds per wall second (cases that fail are
# listed with their reason in volcano/conformance/wire_failures.yaml). Not in CI: about a minute per case.
WIRE_SPEED ?= 10
conformance-wire: $(STAMP)
	$(BIN)/python -m pytest volcano/conformance --backend kubeconfig --wire --wire-speed $(WIRE_SPEED) \
		--junitxml=out/conformance-wire/junit.xml --conformance-report=out/conformance-wire/report.md

# The bench-only extra: kmock 0.8, the peer the HTTP benchmarks compare against.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	@mkdir -p out/bench
	$(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-json=out/bench/benchmark.json
	$(BIN)/python -m benchmarks.report out/bench/benchmark.json out/bench

bench-full: $(BENCH_STAMP)
	@mkdir -p out/bench-full
	BENCH_SIZE=full $(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-json=out/bench-full/benchmark.json
	$(BIN)/python -m benchmarks.report out/bench-full/benchmark.json out/bench-full

# 10,000 mutated manifests through the API server and the cluster; counts in out/fuzz/report.json.
fuzz: $(STAMP)
	@mkdir -p out/fuzz
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-10000} FUZZ_REPORT=out/fuzz/report.json \
		$(BIN)/python -m pytest tests/fuzz -q -s -p no:randomly
	@cat out/fuzz/report.json

# IMPL=upstream (default): Volcano's Helm chart; IMPL=this: this project's image and deploy/.
# E2E_MODE=conformance|bench|all, E2E_NODES=N (see scripts/e2e-kind.sh).
IMPL ?= upstream
e2e: $(STAMP)
	IMPL=$(IMPL) scripts/e2e-kind.sh

# Mutation testing (mutmut; on demand, not in CI). MUTATION_SAMPLE=N mutants (stratified, seeded by
# MUTATION_SEED), 0 for every mutant; MUTATION_MAX_MINUTES bounds the run. Report: out/mutation/report.md.
mutation: $(STAMP)
	$(BIN)/python scripts/mutation.py

lint: $(STAMP)
	$(BIN)/ruff check volcano tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache out
