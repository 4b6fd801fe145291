# smartarrays: the two contracts and their parts.
#   make demo   build in release mode and run the main job on built-in data
#   make test   install what is missing, build, and run every test in every language
# Each language or subsystem adds its own setup and test targets in mk/<name>.mk
# (appending to SETUP_TARGETS and TEST_TARGETS), so this file stays short.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
RELEASE_BIN := target/release/smartarrays
RUST_VERSION := $(shell sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
DEMO_DIR ?= demo-output

SETUP_TARGETS :=
TEST_TARGETS :=
DEMO_TARGETS :=

include $(sort $(wildcard mk/*.mk))

.PHONY: all build demo test setup setup-rust setup-fonts lint check-msrv doc test-rust demo-core
all: build

setup-rust:
	@command -v $(CARGO) >/dev/null || { echo "error: cargo (Rust $(RUST_VERSION) or newer) is required; install it with rustup" >&2; exit 1; }
	@have=$$(rustc --version | cut -d' ' -f2); \
	[ "$$(printf '%s\n%s\n' "$(RUST_VERSION)" "$$have" | sort -V | head -1)" = "$(RUST_VERSION)" ] || \
	{ echo "error: rustc $$have is older than the Rust $(RUST_VERSION) this workspace needs: rustup update stable" >&2; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || { echo "error: rustfmt is missing: rustup component add rustfmt" >&2; exit 1; }
	@$(CARGO) clippy --version >/dev/null 2>&1 || { echo "error: clippy is missing: rustup component add clippy" >&2; exit 1; }

# Plots need a TrueType font for their text.
FONT := /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
setup-fonts:
	@test -f $(FONT) || { echo "installing fonts-dejavu-core (plot text)"; apt-get update -qq && apt-get install -y -qq fonts-dejavu-core >/dev/null; }

setup: setup-rust setup-fonts $(SETUP_TARGETS)

build: setup-rust
	$(CARGO) build --release --workspace

lint: setup-rust
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# The declared rust-version covers what the lockfile needs (tools/check_msrv.py).
check-msrv: setup-rust
	python3 tools/check_msrv.py

# API docs build without warnings (broken links, missing docs).
doc: setup-rust
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --quiet

test-rust: setup-rust
	$(CARGO) test --workspace

test: setup lint check-msrv doc test-rust $(TEST_TARGETS)
	@echo "make test: every suite passed"

demo-core: build setup-fonts
	@mkdir -p $(DEMO_DIR)
	$(RELEASE_BIN) info
	$(RELEASE_BIN) bench aggregate --elements 50000000 --warmups 2 --repetitions 5 \
		--csv $(DEMO_DIR)/aggregate.csv --plot $(DEMO_DIR)/aggregate.svg --plot $(DEMO_DIR)/aggregate.png

demo: demo-core $(DEMO_TARGETS)
	@echo "demo: results in $(DEMO_DIR)/"
