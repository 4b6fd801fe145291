# The Spark scale-up study's jobs (crates/smartarrays-jobs, `smartarrays jobs ...`; issue 16).
#   make test-jobs    every job's output file equals a plain Python reference (standard library
#                     only) on small generated and hand-made inputs, 1 and 2 threads (seconds;
#                     part of `make test`; the crate's cargo tests run in test-rust)
#   make demo-jobs    the five jobs on small generated data (16 MB each), outputs in demo-output/
#   make bench-jobs   side by side with pyspark (local mode), Polars, DuckDB, ripgrep,
#                     scikit-learn and numpy on the same files and threads: times, ratios, peak
#                     RSS, and a check that the outputs agree. The peers go into a venv of their
#                     own under target/ (never part of `make test`). JOBS_BENCH_SIZE (default
#                     64MB), JOBS_BENCH_THREADS (2), JOBS_BENCH_REPETITIONS (3), JOBS_BENCH_PEERS
#                     (all) choose the run. Results and commands: docs/benchmarks.md, "Spark jobs".
#   make bench-jobs-study  the study's protocol on our jobs alone: MB/s at JOBS_STUDY_SIZES
#                     (0.5GB,1GB,2GB) on JOBS_STUDY_THREADS (1,2) with the efficiency probe,
#                     modelled memory traffic against the bandwidth measured in the same run,
#                     peak RSS, the I/O share, and one plot per job (PNG and SVG) in
#                     $(DEMO_DIR)/jobs-study. Inputs go to JOBS_STUDY_DIR and are deleted as it
#                     goes; JOBS_STUDY_REPETITIONS (2), JOBS_STUDY_JOBS (all). Not in `make test`.

JOBS_TARGET_DIR = $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),$(CURDIR)/target)
JOBS_BIN = $(JOBS_TARGET_DIR)/release/smartarrays
JOBS_DEMO_SIZE ?= 16MB
JOBS_BENCH_SIZE ?= 64MB
JOBS_BENCH_THREADS ?= 2
JOBS_BENCH_REPETITIONS ?= 3
JOBS_BENCH_PEERS ?= spark,polars,duckdb,ripgrep,sklearn,numpy
JOBS_BENCH_DIR ?= $(JOBS_TARGET_DIR)/jobs-bench
JOBS_BENCH_VENV := $(JOBS_TARGET_DIR)/jobs-bench-venv
JOBS_BENCH_PY := $(JOBS_BENCH_VENV)/bin/python
JOBS_BENCH_STAMP := $(JOBS_BENCH_VENV)/.requirements
JOBS_SCRIPTS := crates/smartarrays-jobs/scripts
DEMO_DIR ?= demo-output
JOBS_STUDY_SIZES ?= 0.5GB,1GB,2GB
JOBS_STUDY_THREADS ?= 1,2
JOBS_STUDY_REPETITIONS ?= 2
JOBS_STUDY_JOBS ?= wordcount,grep,sort,sort-numeric,bayes,kmeans
JOBS_STUDY_DIR ?= $(JOBS_TARGET_DIR)/jobs-study

TEST_TARGETS += test-jobs
DEMO_TARGETS += demo-jobs

.PHONY: jobs-cli test-jobs demo-jobs bench-jobs bench-jobs-study setup-jobs-bench

jobs-cli: setup-rust
	@$(CARGO) build --quiet --release -p smartarrays-cli

test-jobs: jobs-cli
	@command -v python3 >/dev/null || { echo "error: python3 is required for the jobs' reference check" >&2; exit 1; }
	python3 $(JOBS_SCRIPTS)/check_reference.py $(JOBS_BIN)

demo-jobs: jobs-cli
	@mkdir -p $(DEMO_DIR)/jobs
	$(JOBS_BIN) jobs generate text -o $(DEMO_DIR)/jobs/text.txt --size $(JOBS_DEMO_SIZE) --no-progress
	$(JOBS_BIN) jobs generate reviews -o $(DEMO_DIR)/jobs/train.txt --size $(JOBS_DEMO_SIZE) --no-progress
	$(JOBS_BIN) jobs generate reviews -o $(DEMO_DIR)/jobs/reviews.txt --size $(JOBS_DEMO_SIZE) --seed 2 --no-progress
	$(JOBS_BIN) jobs generate vectors -o $(DEMO_DIR)/jobs/vectors.txt --size $(JOBS_DEMO_SIZE) --no-progress
	$(JOBS_BIN) jobs generate keys -o $(DEMO_DIR)/jobs/keys.txt --size $(JOBS_DEMO_SIZE) --key-bits 20 --no-progress
	$(JOBS_BIN) jobs wordcount $(DEMO_DIR)/jobs/text.txt -o $(DEMO_DIR)/jobs/wordcount.txt
	$(JOBS_BIN) jobs grep $(DEMO_DIR)/jobs/text.txt -o $(DEMO_DIR)/jobs/grep.txt
	$(JOBS_BIN) jobs sort $(DEMO_DIR)/jobs/vectors.txt -o $(DEMO_DIR)/jobs/sorted.txt
	$(JOBS_BIN) jobs sort --numeric $(DEMO_DIR)/jobs/keys.txt -o $(DEMO_DIR)/jobs/sorted-keys.txt
	$(JOBS_BIN) jobs bayes --train $(DEMO_DIR)/jobs/train.txt $(DEMO_DIR)/jobs/reviews.txt -o $(DEMO_DIR)/jobs/predictions.txt
	$(JOBS_BIN) jobs kmeans $(DEMO_DIR)/jobs/vectors.txt -o $(DEMO_DIR)/jobs/centroids.txt

# The peers of the side-by-side: a venv of their own, so `make test` never installs Spark.
setup-jobs-bench: $(JOBS_BENCH_STAMP)

$(JOBS_BENCH_STAMP): $(JOBS_SCRIPTS)/requirements-bench.txt
	@command -v python3 >/dev/null || { echo "error: python3 is required for bench-jobs" >&2; exit 1; }
	@command -v java >/dev/null || { echo "error: java (17 or newer) is required for pyspark" >&2; exit 1; }
	@test -x $(JOBS_BENCH_PY) || python3 -m venv $(JOBS_BENCH_VENV)
	$(JOBS_BENCH_PY) -m pip install --quiet --disable-pip-version-check -r $(JOBS_SCRIPTS)/requirements-bench.txt
	@command -v rg >/dev/null || { echo "setup-jobs-bench: installing ripgrep (Debian package)"; \
		(apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null) || echo "setup-jobs-bench: no ripgrep; grep is compared with the others only"; }
	@touch $@

bench-jobs: jobs-cli setup-jobs-bench
	@mkdir -p $(JOBS_BENCH_DIR) $(DEMO_DIR)
	$(JOBS_BENCH_PY) $(JOBS_SCRIPTS)/compare.py $(JOBS_BIN) --dir $(JOBS_BENCH_DIR) --size $(JOBS_BENCH_SIZE) \
		--threads $(JOBS_BENCH_THREADS) --repetitions $(JOBS_BENCH_REPETITIONS) --peers $(JOBS_BENCH_PEERS) \
		--json $(DEMO_DIR)/jobs-bench.json

bench-jobs-study: jobs-cli setup-jobs-bench
	@mkdir -p $(DEMO_DIR)/jobs-study
	$(JOBS_BENCH_PY) $(JOBS_SCRIPTS)/study.py $(JOBS_BIN) --dir $(JOBS_STUDY_DIR) --sizes $(JOBS_STUDY_SIZES) \
		--threads $(JOBS_STUDY_THREADS) --repetitions $(JOBS_STUDY_REPETITIONS) --jobs $(JOBS_STUDY_JOBS) \
		--out $(DEMO_DIR)/jobs-study
