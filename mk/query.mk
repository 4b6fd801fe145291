# TPC-H through smartarrays-query (issue 14): SQL over smart-array tables against DuckDB and
# Polars (pip, in the .venv) on the same rows, generated once by `smartarrays tpch generate`.
#   make test-tpch        every supported query, with the default and with other substitution
#                         parameters, equals DuckDB's result at SF $(TPCH_SF) and at SF 0.01, and
#                         equals the official SF 1 answers tpchgen ships (part of `make test`;
#                         a few minutes: SF 1 is generated and compressed once, about 3 GB)
#   make test-tpch-sf1    the SF 1 answers again, through the query crate's own (ignored) test
#   make bench-tpch       times us, DuckDB and Polars at SF $(TPCH_BENCH_SF) on 1 and 2 threads:
#                         median of $(TPCH_REPETITIONS) runs after a warm-up, ratios, ns per row
# Results and the commands used: docs/benchmarks.md, section "TPC-H".

TPCH_SF ?= 0.1
TPCH_BENCH_SF ?= 1
TPCH_THREADS ?= 1,2
TPCH_REPETITIONS ?= 5
TPCH_SCRIPT := crates/smartarrays-query/scripts/tpch_vs_duckdb_polars.py

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

bench-tpch: setup-python setup-rust
	$(CARGO) build --release --quiet -p smartarrays-cli
	$(PY) $(TPCH_SCRIPT) --bench --sf $(TPCH_BENCH_SF) --threads $(TPCH_THREADS) --repetitions $(TPCH_REPETITIONS)
