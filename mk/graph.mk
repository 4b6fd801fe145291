# Graph analytics (crates/smartarrays-graph, `smartarrays graph ...`).
#   make setup-graph   create .venv if missing and pip-install networkx + scipy (the test references)
#   make test-graph    cargo tests of the graph crate, the networkx comparison through the CLI,
#                      and a short randomized fuzz run of the three loaders
#   make demo-graph    PageRank on a generated Kronecker graph (scale 20, ~16 M edges), V+E variant
#   make bench-graph   the benchmarks at scale 22 against a plain Rust CSR (a few minutes)
#   make bench-graph-reload  the timings only, on a scale-22 graph saved once as .sag and
#                      reloaded (no generation, build or I/O measurements; about 2.5 minutes)
#   make fuzz-graph    a long fuzz run (GRAPH_FUZZ_SECONDS, default 300)
#   make bench-graph-libraries  PageRank of networkit and igraph (pip-installed into .venv) on the
#                      same Kronecker graph (GRAPH_LIBRARIES_SCALE, default 22; 2 threads), after
#                      bench-graph-reference
#   make bench-graph-reference  our PageRank against a small C++/OpenMP Jacobi pull PageRank
#                      (GAPBS-style, scripts/reference/pagerank_reference.cpp, built with g++) on
#                      $(GRAPH_BENCH_FILE), threads 1,2, and a rank-by-rank correctness check
#                      (about 3 minutes once the graph file exists)
#   make bench-gapbs [GAPBS_DIR=DIR]  our BFS, SSSP, PageRank (Jacobi and Gauss-Seidel), CC, BC
#                      and TC against the GAP Benchmark Suite built in DIR (not part of this
#                      repository; without it the script says how to get it and times our side
#                      alone) on the same Kronecker graph (GAPBS_SCALE, default 18), threads
#                      GAPBS_THREADS (1,2), medians of GAPBS_REPETITIONS (3) runs, ratios printed;
#                      GAPBS_VARIANTS=u,v+e also times our V+E layout (default u)

GRAPH_PYTHON ?= python3
GRAPH_VENV := .venv
GRAPH_PY := $(GRAPH_VENV)/bin/python
GRAPH_STAMP := $(GRAPH_VENV)/.smartarrays-graph-requirements
GRAPH_TARGET_DIR = $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),$(CURDIR)/target)
GRAPH_BIN = $(GRAPH_TARGET_DIR)/release/smartarrays
GRAPH_FUZZ_SECONDS ?= 300
DEMO_DIR ?= demo-output

SETUP_TARGETS += setup-graph
TEST_TARGETS += test-graph
DEMO_TARGETS += demo-graph

GRAPH_BENCH_FILE ?= $(GRAPH_TARGET_DIR)/kron22.sag

.PHONY: setup-graph test-graph demo-graph bench-graph bench-graph-reload fuzz-graph graph-cli bench-graph-libraries bench-graph-reference bench-gapbs

setup-graph: $(GRAPH_STAMP)

$(GRAPH_STAMP): mk/graph.mk
	@command -v $(GRAPH_PYTHON) >/dev/null || { echo "error: $(GRAPH_PYTHON) is required for the networkx comparison" >&2; exit 1; }
	@test -x $(GRAPH_PY) || { echo "setup-graph: creating $(GRAPH_VENV)"; $(GRAPH_PYTHON) -m venv $(GRAPH_VENV); }
	@echo "setup-graph: installing networkx and scipy into $(GRAPH_VENV)"
	@$(GRAPH_PY) -m pip install --quiet --disable-pip-version-check "networkx>=3.2" "scipy>=1.11"
	@touch $@

graph-cli: setup-rust
	@$(CARGO) build --quiet --release -p smartarrays-cli

# The graph crate's cargo tests run once, in test-rust (cargo test --workspace).
test-graph: setup-graph graph-cli
	@echo "test-graph: networkx comparison"
	@$(GRAPH_PY) crates/smartarrays-graph/scripts/compare_networkx.py $(GRAPH_BIN)
	@echo "test-graph: 20 s fuzz run of the loaders"
	@$(CARGO) run --quiet --release -p smartarrays-graph --features adapt --example fuzz_loaders -- 20 $$RANDOM

demo-graph: graph-cli
	@mkdir -p $(DEMO_DIR)
	$(GRAPH_BIN) graph generate --kind kronecker --scale 20 --seed 1 --duplicates drop --self-loops drop --variant v+e -o $(DEMO_DIR)/kron20.sag
	$(GRAPH_BIN) graph stats $(DEMO_DIR)/kron20.sag --variant v+e
	$(GRAPH_BIN) graph pagerank $(DEMO_DIR)/kron20.sag --variant v+e --top 5 --output $(DEMO_DIR)/kron20-pagerank.txt

bench-graph: graph-cli
	$(GRAPH_BIN) graph bench --scale 22 --threads 1,2 --repetitions 3 --json $(DEMO_DIR)/graph-bench.json

$(GRAPH_BENCH_FILE):
	$(MAKE) graph-cli
	$(GRAPH_BIN) graph generate --kind kronecker --scale 22 --seed 1 --duplicates drop --self-loops drop -o $@ --no-progress

bench-graph-reload: graph-cli $(GRAPH_BENCH_FILE)
	@mkdir -p $(DEMO_DIR)
	@uptime
	$(GRAPH_BIN) graph bench --graph $(GRAPH_BENCH_FILE) --threads 1,2 --repetitions 3 --json $(DEMO_DIR)/graph-bench-reload.json

fuzz-graph:
	$(CARGO) run --release -p smartarrays-graph --features adapt --example fuzz_loaders -- $(GRAPH_FUZZ_SECONDS)

GRAPH_LIBRARIES_SCALE ?= 22

GRAPH_REFERENCE_CXX ?= g++
GRAPH_REFERENCE_CXXFLAGS ?= -std=c++17 -O3 -fopenmp -Wall -Wextra
GRAPH_REFERENCE_SOURCE := crates/smartarrays-graph/scripts/reference/pagerank_reference.cpp
GRAPH_REFERENCE_BIN = $(GRAPH_TARGET_DIR)/reference/pagerank_reference
GRAPH_REFERENCE_THREADS ?= 1,2
GRAPH_REFERENCE_REPETITIONS ?= 3

$(GRAPH_REFERENCE_BIN): $(GRAPH_REFERENCE_SOURCE) mk/graph.mk
	@command -v $(GRAPH_REFERENCE_CXX) >/dev/null || { echo "error: $(GRAPH_REFERENCE_CXX) (with OpenMP) is required for the C++ reference" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(GRAPH_REFERENCE_CXX) $(GRAPH_REFERENCE_CXXFLAGS) -o $@ $(GRAPH_REFERENCE_SOURCE)

bench-graph-reference: graph-cli $(GRAPH_REFERENCE_BIN) $(GRAPH_BENCH_FILE)
	@mkdir -p $(DEMO_DIR)
	@uptime
	$(GRAPH_PYTHON) crates/smartarrays-graph/scripts/reference/compare_reference.py $(GRAPH_BIN) $(GRAPH_REFERENCE_BIN) $(GRAPH_BENCH_FILE) \
		--threads $(GRAPH_REFERENCE_THREADS) --repetitions $(GRAPH_REFERENCE_REPETITIONS) --json $(DEMO_DIR)/graph-reference.json
	@uptime

bench-graph-libraries: setup-graph graph-cli bench-graph-reference
	@$(GRAPH_PY) -m pip install --quiet --disable-pip-version-check "networkit>=11" "igraph>=0.11"
	@$(GRAPH_PY) crates/smartarrays-graph/scripts/networkit_pagerank.py $(GRAPH_BIN) --scale $(GRAPH_LIBRARIES_SCALE) --threads 2

GAPBS_DIR ?=
GAPBS_SCALE ?= 18
GAPBS_THREADS ?= 1,2
GAPBS_VARIANTS ?= u

bench-gapbs: graph-cli
	@mkdir -p $(DEMO_DIR)
	$(GRAPH_PYTHON) crates/smartarrays-graph/scripts/compare_gapbs.py $(GRAPH_BIN) $(if $(GAPBS_DIR),--gapbs $(GAPBS_DIR)) \
		--scale $(GAPBS_SCALE) --threads $(GAPBS_THREADS) --repetitions $(GAPBS_REPETITIONS) --variants $(GAPBS_VARIANTS) --json $(DEMO_DIR)/graph-gapbs.json
