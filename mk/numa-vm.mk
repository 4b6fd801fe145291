# numa-vm: placement proven page by page on a kernel that sees several NUMA nodes.
#   make setup-numa-vm   install qemu/busybox and fetch the VM kernel (only when missing)
#   make test-numa-vm    build crates/smartarrays-numa-tests and run it in a 2-node
#                        and a 4-node QEMU VM (tools/numa_vm.py, this repository's own VM runner)
# The VM's shape is given to the test binary too, so it can check the topology exactly.

NUMA_VM_RUNNER := $(CURDIR)/tools/numa_vm.py
# The ordinary release build (it shares every dependency with the CLI and the libraries): the
# runner takes the loader and shared libraries along and drops the debug info.
NUMA_VM_BIN := $(CURDIR)/target/release/smartarrays-numa-tests
NUMA_VM_TIMEOUT ?= 240
# nodes:cpus-per-node:mib-per-node for each VM run
NUMA_VM_SHAPES ?= 2:2:512 4:1:512

SETUP_TARGETS += setup-numa-vm
TEST_TARGETS += test-numa-vm

.PHONY: setup-numa-vm test-numa-vm build-numa-vm

setup-numa-vm:
	@python3 "$(NUMA_VM_RUNNER)" setup

build-numa-vm: setup-rust
	$(CARGO) build --release --quiet -p smartarrays-numa-tests

test-numa-vm: setup-numa-vm build-numa-vm
	@# The runner must hand a failing program's status back, or a broken VM could pass silently.
	@status=0; python3 "$(NUMA_VM_RUNNER)" run -n 2 -t 60 /bin/busybox sh -c 'exit 7' || status=$$?; \
	[ $$status = 7 ] || { echo "test-numa-vm: the VM runner returned $$status for a program that exited 7" >&2; exit 1; }
	@failed=""; \
	for shape in $(NUMA_VM_SHAPES); do \
		IFS=: read -r n c m <<<"$$shape"; \
		echo "== numa-vm: $$n nodes x $$c CPUs x $$m MiB"; \
		python3 "$(NUMA_VM_RUNNER)" run -n $$n -c $$c -m $$m -t $(NUMA_VM_TIMEOUT) "$(NUMA_VM_BIN)" \
			--nodes $$n --cpus-per-node $$c --mib-per-node $$m \
			|| failed="$$failed $$n-node(exit $$?)"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-numa-vm: FAILED in VM:$$failed" >&2; exit 1; fi
	@echo "test-numa-vm: placement checks passed on every VM shape"
