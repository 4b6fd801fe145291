# TPC-H through smartarrays-query (issue 14): SQL over smart-array tables against DuckDB and
# Polars (pip, in the .venv) on the same rows, generated once by `smartarrays tpch generate`.
#   make test-tpch        every supported query, with the default and with other substitution
#                         parameters, equals DuckDB's result at SF $(TPCH_SF) and at SF 0.01, and
#                         equals the official SF 1 answers tpchgen ships (part of `make test`;
#                         a few minutes: SF 1 is generated and compressed once, about 3 GB)
#   make test-tpch-sf1    the SF 1 answers again, through the query crate's own (ignored) test
#   make bench-tpch       times us, DuckDB 1.5.5 and Polars at SF $(TPCH_BENCH_SF) on 1 and 2 threads
#                         (in .venv-tpch-bench, which pins DuckDB 1.5.5): median of
#                         $(TPCH_REPETITIONS) runs after a warm-up, ratios, ns per row, MB read,
#                         GB/s against the memory floor, parallel efficiency and the probe, load,
#                         and which targets are met (TPCH_QUERIES=1,6 for fewer queries)
# Results and the commands used: docs/benchmarks.md, section "TPC-H".

TPCH_SF ?= 0.1
TPCH_BENCH_SF ?= 1
TPCH_THREADS ?= 1,2
TPCH_REPETITIONS ?= 5
TPCH_QUERIES ?=
TPCH_SCRIPT := crates/smartarrays-query/scripts/tpch_vs_duckdb_polars.py
TPCH_BENCH_REQUIREMENTS := crates/smartarrays-query/scripts/requirements-bench.txt
TPCH_BENCH_VENV := .venv-tpch-bench
TPCH_BENCH_PY := $(TPCH_BENCH_VENV)/bin/python
TPCH_BENCH_STAMP := $(TPCH_BENCH_VENV)/.requirements-installed

TEST_TARGETS += test-tpch

.PHONY: test-tpch test-tpch-sf1 bench-tpch

test-tpch: setup-python setup-rust
	$(CARGO) build --release --quiet -p smartarrays-cli
	$(PY) $(TPCH_SCRIPT) --check --sf $(TPCH_SF)
	$(PY) $(TPCH_SCRIPT) --check --sf 0.01
	@# The exit status says whether every answer matched; the lines say which did.
	$(RELEASE_BIN) tpch run --sf 1 --verify --quiet | grep -E '^Q[0-9]+: '

test-tpch-sf1: setup-rust
	$(CARGO) test --release -p smartarrays-query --test tpch_reference -- --ignored

$(TPCH_BENCH_STAMP): $(TPCH_BENCH_REQUIREMENTS)
	@test -x $(TPCH_BENCH_PY) || $(PYTHON) -m venv $(TPCH_BENCH_VENV)
	@$(TPCH_BENCH_PY) -m pip install --quiet --disable-pip-version-check -r $(TPCH_BENCH_REQUIREMENTS)
	@touch $@

bench-tpch: $(TPCH_BENCH_STAMP) setup-rust
	$(CARGO) build --release --quiet -p smartarrays-cli
	$(TPCH_BENCH_PY) $(TPCH_SCRIPT) --bench --sf $(TPCH_BENCH_SF) --threads $(TPCH_THREADS) \
		--repetitions $(TPCH_REPETITIONS) $(if $(TPCH_QUERIES),--queries $(TPCH_QUERIES))
