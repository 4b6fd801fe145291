# Encodings benchmark (issue 13): TPC-H lineitem (generated in-process by the `tpchgen` crate)
# and synthetic columns, compressed by smartarrays-encodings; bytes per value against DuckDB's
# stored size (pragma_storage_info) and Parquet with zstd (pyarrow), and filter/decode
# throughput next to this machine's raw scan. Not part of `make test` (minutes at SF 1).
#   make bench-encodings            SF 1
#   make bench-encodings SF=0.1     another scale factor
# Results and the commands used: docs/benchmarks.md, section "Encodings".

SF ?= 1
ENCODINGS_BENCH_ARGS ?=

.PHONY: bench-encodings

bench-encodings: setup-python setup-rust
	$(PY) crates/smartarrays-lab/scripts/encodings_vs_duckdb.py --sf $(SF) --markdown $(ENCODINGS_BENCH_ARGS)
