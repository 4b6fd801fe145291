# Python binding (crates/smartarrays-python): the `smartarrays` package, one abi3 wheel built by
# maturin (PyO3), installed into the repository's .venv and tested with pytest + hypothesis.
#   make setup-python   create .venv (python3 -m venv) if missing; pip-install the build and
#                       test requirements (maturin, numpy, pytest, hypothesis, pyarrow, polars,
#                       duckdb) when crates/smartarrays-python/requirements-dev.txt changed
#   make build-python   build the release wheel into target/wheels-python and install it
#   make test-python    build-python, then run the pytest suite
#   make bench-python   single-threaded sum: numpy vs smartarrays (64 and 33 bits), 100M values
#                       (PY_BENCH_ELEMENTS=N for fewer)
#   make test-distributed-ray   install Ray (requirements-ray.txt) into .venv, then run the Ray
#                       tests of smartarrays.distributed (tests_ray/: PageRank on Ray actors).
#                       Not part of `make test`: Ray is about 240 MB and starts in seconds.
#   make bench-distributed   bytes on the wire against the packed size, 1 against 2 Dask
#                       workers on this machine (DIST_BENCH_ELEMENTS=N values, default 20M), the
#                       TPC-H queries single-process against Dask with 1 and 2 workers
#                       (DIST_BENCH_TPCH_SF, default 0.1), and the TPC-H traffic model for 2 to
#                       256 machines (bench/tpch_model.py at DIST_MODEL_SF, default 1)

PYTHON ?= python3
PY_VENV := .venv
PY := $(PY_VENV)/bin/python
PY_CRATE := crates/smartarrays-python
PY_WHEELS := target/wheels-python
PY_SETUP_STAMP := $(PY_VENV)/.smartarrays-python-requirements
PY_RAY_STAMP := $(PY_VENV)/.smartarrays-python-ray
DIST_BENCH_ELEMENTS ?= 20000000
DIST_BENCH_TPCH_SF ?= 0.1
DIST_MODEL_SF ?= 1
PY_BENCH_ELEMENTS ?= 100000000
PY_DEMO_ELEMENTS ?= 20000000
DEMO_DIR ?= demo-output

SETUP_TARGETS += setup-python
TEST_TARGETS += test-python
DEMO_TARGETS += demo-python

.PHONY: setup-python build-python test-python bench-python demo-python setup-python-ray test-distributed-ray bench-distributed

setup-python: $(PY_SETUP_STAMP)

# The stamp is newer than the requirements once they are installed, so a second run does nothing.
$(PY_SETUP_STAMP): $(PY_CRATE)/requirements-dev.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) (3.11 or newer) is required for the Python binding" >&2; exit 1; }
	@test -x $(PY) || { echo "setup-python: creating $(PY_VENV)"; $(PYTHON) -m venv $(PY_VENV); }
	@echo "setup-python: installing $(PY_CRATE)/requirements-dev.txt into $(PY_VENV)"
	@$(PY) -m pip install --quiet --disable-pip-version-check -r $(PY_CRATE)/requirements-dev.txt
	@touch $@

build-python: setup-python setup-rust
	@rm -f $(PY_WHEELS)/smartarrays-*.whl
	@echo "build-python: maturin build --release ($(PY_CRATE))"
	@VIRTUAL_ENV="$(CURDIR)/$(PY_VENV)" PATH="$(CURDIR)/$(PY_VENV)/bin:$$PATH" \
		maturin build --release --quiet --manifest-path $(PY_CRATE)/Cargo.toml --interpreter $(PY) --out $(PY_WHEELS)
	@$(PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(PY_WHEELS)/smartarrays-*.whl

test-python: build-python
	@echo "test-python: pytest $(PY_CRATE)/tests"
	@cd $(PY_CRATE) && $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider tests

bench-python: build-python
	$(PY) $(PY_CRATE)/bench/sum_bench.py --elements $(PY_BENCH_ELEMENTS)

demo-python: build-python
	@mkdir -p $(DEMO_DIR)
	$(PY) $(PY_CRATE)/bench/sum_bench.py --elements $(PY_DEMO_ELEMENTS) | tee $(DEMO_DIR)/python-sum.txt

setup-python-ray: $(PY_RAY_STAMP)

$(PY_RAY_STAMP): $(PY_CRATE)/requirements-ray.txt | $(PY_SETUP_STAMP)
	@echo "setup-python-ray: installing $(PY_CRATE)/requirements-ray.txt into $(PY_VENV)"
	@$(PY) -m pip install --quiet --disable-pip-version-check -r $(PY_CRATE)/requirements-ray.txt
	@touch $@

test-distributed-ray: setup-python-ray build-python
	@echo "test-distributed-ray: pytest $(PY_CRATE)/tests_ray"
	@cd $(PY_CRATE) && $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider tests_ray

bench-distributed: build-python
	$(PY) $(PY_CRATE)/bench/distributed_bench.py --elements $(DIST_BENCH_ELEMENTS) --tpch-sf $(DIST_BENCH_TPCH_SF)
	$(PY) $(PY_CRATE)/bench/tpch_model.py --sf $(DIST_MODEL_SF)
