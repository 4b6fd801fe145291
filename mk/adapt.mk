# adapt: automatic choice of placement and compression (issue 6, crate smartarrays-adapt, CLI
# commands `advise` and `bench adapt`). The crate's unit, property and doc tests run in
# `make test-rust`; test-adapt adds smoke tests of the two commands: the paper's machines
# (modelled, exact answers) and a tiny run on this machine with a throw-away cache.

ADAPT_CACHE ?= target/adapt-smoke-cache
ADAPT_CLI = $(CARGO) run -q -p smartarrays-cli --

TEST_TARGETS += test-adapt
DEMO_TARGETS += demo-adapt
.PHONY: test-adapt demo-adapt

test-adapt: setup-rust
	$(ADAPT_CLI) advise --machine paper-18core --bits 33 --elements 536870912 | grep "use interleaved, compressed for aggregate" >/dev/null
	$(ADAPT_CLI) advise --machine paper-8core --bits 64 --elements 536870912 | grep "use replicated, uncompressed for aggregate" >/dev/null
	$(ADAPT_CLI) advise --machine paper-8core --workload pagerank --vertices 42000000 --budget 30GiB | grep "joint choice for pagerank" >/dev/null
	$(ADAPT_CLI) bench adapt --presets-only --quiet | grep "\[reproduced\] paper-8core §5.1: replication is the best placement" >/dev/null
	SMARTARRAYS_CACHE_DIR=$(ADAPT_CACHE) $(ADAPT_CLI) advise --quick-inputs --elements 100000 --runs 1 | grep "step 2" >/dev/null
	SMARTARRAYS_CACHE_DIR=$(ADAPT_CACHE) $(ADAPT_CLI) bench adapt --quick-inputs --no-presets --quiet --elements 100000 \
		--vertices 20000 --bits 10,64 --degree-bits 0,40 --warmups 0 --repetitions 1 | grep "auto picked the fastest in" >/dev/null
	@echo "test-adapt: 6 passed, 0 failed"

demo-adapt: build
	@mkdir -p $(DEMO_DIR)
	$(RELEASE_BIN) advise --show-inputs --elements 20000000 --bits 33 | tee $(DEMO_DIR)/advise.txt
	$(RELEASE_BIN) bench adapt --json $(DEMO_DIR)/adapt.json | tee $(DEMO_DIR)/adapt.txt
