# docs: the Python and command-line examples of every Markdown page (README, docs/, each crate's
# and binding's README) run as written: Python and `smartarrays` commands as they stand; C, C++
# and Java blocks compiled against the built library and jar as the body of `main`. Rust examples
# are doctests of their crates (run by test-rust).
#   make test-readme

TEST_TARGETS += test-readme

.PHONY: test-readme

test-readme: build-python graph-cli ffi-library java-jar
	@python3 tools/check_readme.py --python $(PY) --bin-dir $(GRAPH_TARGET_DIR)/release \
		--library $(FFI_LIBRARY) --include crates/smartarrays-ffi/include --include bindings/cpp/include \
		--java-home $(JAVA25_HOME) --java-jar $(JAVA_JAR) \
		README.md $(wildcard docs/*.md crates/*/README.md bindings/*/README.md)
