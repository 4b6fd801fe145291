# fuzz: coverage-guided fuzzing with libFuzzer on the STABLE toolchain. The coverage
# instrumentation uses stable rustc code-generation flags (SanitizerCoverage through
# -C passes / -C llvm-args), not cargo-fuzz's nightly -Z sanitizer flags; fuzz/ is its own
# workspace, so the library build never links libFuzzer.
#   make test-fuzz                    every target for FUZZ_SECONDS (default 20) each, in make test
#   make fuzz FUZZ_SECONDS=600        the long run (10 minutes per target)
# The corpus grows in fuzz/corpus/<target>; a crash leaves fuzz/artifacts/<target>/crash-* and
# fails the run.

FUZZ_TARGETS := codec loaders c_abi encodings collections
FUZZ_SECONDS ?= 20
FUZZ_TRIPLE := x86_64-unknown-linux-gnu
FUZZ_BIN := fuzz/target/$(FUZZ_TRIPLE)/release
FUZZ_RUSTFLAGS := --cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks

TEST_TARGETS += test-fuzz

.PHONY: build-fuzz test-fuzz fuzz fuzz-minimize

build-fuzz: setup-rust
	@echo "build-fuzz: libFuzzer targets ($(FUZZ_TARGETS)) with stable coverage flags"
	@cd fuzz && RUSTFLAGS="$(FUZZ_RUSTFLAGS)" $(CARGO) build --quiet --release --target $(FUZZ_TRIPLE)

test-fuzz fuzz: build-fuzz
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p fuzz/corpus/$$target fuzz/artifacts/$$target; \
		echo "== fuzz $$target for $(FUZZ_SECONDS) s"; \
		status=0; \
		$(FUZZ_BIN)/$$target -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=30 \
			-print_final_stats=1 -artifact_prefix=fuzz/artifacts/$$target/ fuzz/corpus/$$target \
			> fuzz/artifacts/$$target/last-run.log 2>&1 || status=$$?; \
		grep -E "^(Done|stat::(number_of_executed_units|new_units_added))" fuzz/artifacts/$$target/last-run.log || true; \
		if [ $$status != 0 ]; then \
			tail -30 fuzz/artifacts/$$target/last-run.log >&2; \
			echo "fuzz $$target: FAILED with status $$status (input in fuzz/artifacts/$$target)" >&2; exit 1; \
		fi; \
	done
	@echo "fuzz: every target ran $(FUZZ_SECONDS) s without a crash"

# Shrinks each corpus to the inputs that add coverage (run before committing a grown corpus).
fuzz-minimize: build-fuzz
	@for target in $(FUZZ_TARGETS); do \
		rm -rf fuzz/corpus/$$target.min && mkdir -p fuzz/corpus/$$target.min; \
		$(FUZZ_BIN)/$$target -merge=1 fuzz/corpus/$$target.min fuzz/corpus/$$target > /dev/null 2>&1; \
		rm -rf fuzz/corpus/$$target && mv fuzz/corpus/$$target.min fuzz/corpus/$$target; \
		echo "fuzz-minimize: $$target keeps $$(ls fuzz/corpus/$$target | wc -l) inputs"; \
	done
