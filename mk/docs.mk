# docs: the README's Python and command-line examples run as written (its Rust example is a
# doctest of the core crate, run by test-rust).
#   make test-readme

TEST_TARGETS += test-readme

.PHONY: test-readme

test-readme: build-python graph-cli
	@python3 tools/check_readme.py --python $(PY) --bin-dir $(GRAPH_TARGET_DIR)/release README.md
