# fuzz: coverage-guided fuzzing with libFuzzer on the STABLE toolchain. The coverage
# instrumentation uses stable rustc code-generation flags (SanitizerCoverage through
# -C passes / -C llvm-args), not cargo-fuzz's nightly -Z sanitizer flags; fuzz/ is its own
# workspace, so the library build never links libFuzzer.
#   make test-fuzz                    every target for FUZZ_SECONDS (default 20) each, in make test
#                                     (the `smoke` profile; the Python target on the release wheel)
#   make fuzz FUZZ_SECONDS=600        the long run (10 minutes per target; `release` profile and
#                                     the instrumented Python extension)
#   make fuzz FUZZ_RUN=python_constructors FUZZ_SECONDS=600   one target only
#   FUZZ_JOBS=1                       one target at a time (default 2 at once)
# The corpus grows in fuzz/corpus/<target>; a crash leaves fuzz/artifacts/<target>/crash-* and
# fails the run.
#
# python_constructors (fuzz/python/constructors.py) drives the Python binding with atheris: the
# extension is built by maturin with the same coverage flags into its own venv
# (fuzz/.venv-python) and cargo target dir (fuzz/target/python), so the normal wheel and .venv
# are untouched; the harness loads atheris's libFuzzer globally before importing it, so the
# extension's SanitizerCoverage counters guide the fuzzer. Stamps make re-runs quick.
#
# make test keeps its fuzz step short to build: the Rust targets use the `smoke` profile
# (fuzz/Cargo.toml: opt-level 1) and instrument only this repository's crates and the targets
# (fuzz/rustc-coverage, a RUSTC_WRAPPER), so the outside dependencies compile plainly; the Python target
# runs on the release wheel that test-python builds anyway, guided by Python coverage alone (the
# harness's branches and the package's Python code, which atheris instruments). The long runs build both
# instrumented at full optimisation.

FUZZ_TARGETS := codec loaders c_abi encodings column_parts collections
FUZZ_PY_TARGETS := python_constructors
FUZZ_RUN ?= $(FUZZ_TARGETS) $(FUZZ_PY_TARGETS)
FUZZ_SECONDS ?= 20
# Targets fuzzed at once (each libFuzzer process is single-threaded).
FUZZ_JOBS ?= 2
FUZZ_TRIPLE := x86_64-unknown-linux-gnu
# release (make fuzz, fuzz-minimize) or smoke (make test-fuzz); instrumented or plain: which
# build of the Python extension the fuzz venv holds.
FUZZ_PROFILE ?= release
FUZZ_PY_EXTENSION ?= instrumented
FUZZ_BIN := fuzz/target/$(FUZZ_TRIPLE)/$(FUZZ_PROFILE)
FUZZ_RUSTFLAGS := --cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks

FUZZ_PY_VENV := fuzz/.venv-python
FUZZ_PY := $(FUZZ_PY_VENV)/bin/python
FUZZ_PY_TARGET_DIR := fuzz/target/python
FUZZ_PY_REQUIREMENTS := fuzz/python/requirements.txt
FUZZ_PY_SETUP_STAMP := $(FUZZ_PY_VENV)/.requirements-installed
FUZZ_PY_BUILD_STAMP := $(FUZZ_PY_VENV)/.extension-installed
# What the instrumented extension is built from (its tests excepted).
FUZZ_PY_SOURCES := Cargo.lock $(shell find crates/smartarrays crates/smartarrays-python crates/smartarrays-arrow \
	crates/smartarrays-adapt crates/smartarrays-encodings crates/smartarrays-collections -path '*/tests' -prune -o -type f \( -name '*.rs' -o -name '*.toml' -o -name '*.py' \
	-o -name '*.pyi' \) -print 2>/dev/null)
# A target's command and how fuzz-minimize merges its corpus: the Rust binaries keep every input
# that adds a feature (-merge=1); the Python harness runs in the fuzz venv, and its corpus keeps a
# smallest set of inputs that covers every edge (its loops over array lengths make hit-count
# features, and a feature merge, run to thousands of inputs).
FUZZ_COMMAND = case $$target in \
	python_*) run="$(FUZZ_PY) fuzz/python/$${target\#python_}.py"; merge="-set_cover_merge=1 -use_counters=0";; \
	*) run="$(FUZZ_BIN)/$$target"; merge="-merge=1";; esac

TEST_TARGETS += test-fuzz

.PHONY: build-fuzz build-fuzz-python fuzz-python-plain fuzz-python-instrumented test-fuzz fuzz fuzz-run fuzz-minimize

build-fuzz: setup-rust
	@echo "build-fuzz: libFuzzer targets ($(FUZZ_TARGETS)) with stable coverage flags, profile $(FUZZ_PROFILE)"
	@cd fuzz && if [ "$(FUZZ_PROFILE)" = smoke ]; then \
		RUSTC_WRAPPER="$(CURDIR)/fuzz/rustc-coverage" FUZZ_COVERAGE_FLAGS="$(FUZZ_RUSTFLAGS)" \
			$(CARGO) build --quiet --profile smoke --target $(FUZZ_TRIPLE); \
	else RUSTFLAGS="$(FUZZ_RUSTFLAGS)" $(CARGO) build --quiet --profile $(FUZZ_PROFILE) --target $(FUZZ_TRIPLE); fi

build-fuzz-python: setup-rust $(FUZZ_PY_BUILD_STAMP)

$(FUZZ_PY_SETUP_STAMP): $(FUZZ_PY_REQUIREMENTS)
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) (3.11) is required for the Python fuzz target" >&2; exit 1; }
	@test -x $(FUZZ_PY) || { echo "build-fuzz-python: creating $(FUZZ_PY_VENV)"; $(PYTHON) -m venv $(FUZZ_PY_VENV); }
	@echo "build-fuzz-python: installing $(FUZZ_PY_REQUIREMENTS) into $(FUZZ_PY_VENV)"
	@$(FUZZ_PY) -m pip install --quiet --disable-pip-version-check --only-binary=atheris -r $(FUZZ_PY_REQUIREMENTS)
	@touch $@

# --target keeps RUSTFLAGS off build scripts and proc macros (they must not need libFuzzer).
$(FUZZ_PY_BUILD_STAMP): $(FUZZ_PY_SETUP_STAMP) $(FUZZ_PY_SOURCES)
	@echo "build-fuzz-python: the extension with coverage flags (maturin, $(FUZZ_PY_TARGET_DIR))"
	@rm -f $(FUZZ_PY_TARGET_DIR)/wheels/smartarrays-*.whl
	@VIRTUAL_ENV="$(CURDIR)/$(FUZZ_PY_VENV)" PATH="$(CURDIR)/$(FUZZ_PY_VENV)/bin:$$PATH" \
		CARGO_TARGET_DIR="$(CURDIR)/$(FUZZ_PY_TARGET_DIR)" RUSTFLAGS="$(FUZZ_RUSTFLAGS)" \
		maturin build --release --quiet --target $(FUZZ_TRIPLE) --manifest-path crates/smartarrays-python/Cargo.toml \
		--interpreter $(FUZZ_PY) --out $(FUZZ_PY_TARGET_DIR)/wheels
	@$(FUZZ_PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
		$(FUZZ_PY_TARGET_DIR)/wheels/smartarrays-*.whl
	@touch $@

fuzz-python-instrumented: build-fuzz-python

# The release wheel of build-python in the fuzz venv; the instrumented one must be reinstalled
# before the next long run, so its stamp goes.
fuzz-python-plain: $(FUZZ_PY_SETUP_STAMP) build-python
	@echo "fuzz-python-plain: the release wheel ($(PY_WHEELS)) in $(FUZZ_PY_VENV)"
	@rm -f $(FUZZ_PY_BUILD_STAMP)
	@$(FUZZ_PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
		$(PY_WHEELS)/smartarrays-*.whl

test-fuzz:
	@$(MAKE) --no-print-directory fuzz-run FUZZ_PROFILE=smoke FUZZ_PY_EXTENSION=plain

fuzz:
	@$(MAKE) --no-print-directory fuzz-run FUZZ_PROFILE=release FUZZ_PY_EXTENSION=instrumented

fuzz-run: build-fuzz fuzz-python-$(FUZZ_PY_EXTENSION)
	@printf '%s\n' $(FUZZ_RUN) | xargs -P $(FUZZ_JOBS) -I{} bash -c 'target={}; \
		$(FUZZ_COMMAND); \
		mkdir -p fuzz/corpus/$$target fuzz/artifacts/$$target; \
		status=0; \
		$$run -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=30 \
			-print_final_stats=1 -artifact_prefix=fuzz/artifacts/$$target/ fuzz/corpus/$$target \
			> fuzz/artifacts/$$target/last-run.log 2>&1 || status=$$?; \
		{ echo "== fuzz $$target for $(FUZZ_SECONDS) s"; \
		  grep -E "^(Done|stat::(number_of_executed_units|new_units_added))" fuzz/artifacts/$$target/last-run.log || true; }; \
		if [ $$status != 0 ]; then \
			tail -30 fuzz/artifacts/$$target/last-run.log >&2; \
			echo "fuzz $$target: FAILED with status $$status (input in fuzz/artifacts/$$target; reproduce: $$run INPUT)" >&2; \
			exit 255; \
		fi' || exit 1
	@echo "fuzz: every target ($(FUZZ_RUN)) ran $(FUZZ_SECONDS) s without a crash ($(FUZZ_PROFILE) build, $(FUZZ_PY_EXTENSION) Python extension)"

# Shrinks each corpus to the inputs that add coverage (run before committing a grown corpus).
fuzz-minimize: build-fuzz build-fuzz-python
	@for target in $(FUZZ_RUN); do \
		$(FUZZ_COMMAND); \
		mkdir -p fuzz/artifacts/$$target; \
		rm -rf fuzz/corpus/$$target.min && mkdir -p fuzz/corpus/$$target.min; \
		$$run $$merge fuzz/corpus/$$target.min fuzz/corpus/$$target > fuzz/artifacts/$$target/merge.log 2>&1 || { \
			tail -5 fuzz/artifacts/$$target/merge.log >&2; rm -rf fuzz/corpus/$$target.min; \
			echo "fuzz-minimize: $$target: the merge failed, corpus left as it was" >&2; exit 1; }; \
		rm -rf fuzz/corpus/$$target && mv fuzz/corpus/$$target.min fuzz/corpus/$$target; \
		echo "fuzz-minimize: $$target keeps $$(ls fuzz/corpus/$$target | wc -l) inputs"; \
	done
