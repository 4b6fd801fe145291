# numa-vm: placement proven page by page on a kernel that sees several NUMA nodes.
#   make setup-numa-vm   install qemu/busybox and fetch the VM kernel (only when missing)
#   make test-numa-vm    build crates/smartarrays-numa-tests statically and run it in a 2-node
#                        and a 4-node QEMU VM (shared/numa-vm/run-in-numa-vm.sh, beside the repo)
# The VM's shape is given to the test binary too, so it can check the topology exactly.

NUMA_VM_SCRIPT := $(CURDIR)/../shared/numa-vm/run-in-numa-vm.sh
NUMA_VM_TARGET_DIR ?= $(CURDIR)/target/numa-vm
NUMA_VM_TRIPLE := x86_64-unknown-linux-gnu
NUMA_VM_BIN := $(NUMA_VM_TARGET_DIR)/$(NUMA_VM_TRIPLE)/release/smartarrays-numa-tests
NUMA_VM_TIMEOUT ?= 240
# nodes:cpus-per-node:mib-per-node for each VM run
NUMA_VM_SHAPES ?= 2:2:512 4:1:256

SETUP_TARGETS += setup-numa-vm
TEST_TARGETS += test-numa-vm

.PHONY: setup-numa-vm test-numa-vm build-numa-vm

setup-numa-vm:
	@test -x "$(NUMA_VM_SCRIPT)" || { echo "error: $(NUMA_VM_SCRIPT) is missing: shared/ must sit beside the repository" >&2; exit 1; }
	@missing=""; \
	command -v qemu-system-x86_64 >/dev/null || missing="$$missing qemu-system-x86"; \
	command -v file >/dev/null || missing="$$missing file"; \
	command -v xz >/dev/null || missing="$$missing xz-utils"; \
	{ [ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q static; } || missing="$$missing busybox-static"; \
	[ -e "$$(gcc -print-file-name=libc.a 2>/dev/null)" ] || missing="$$missing libc6-dev"; \
	cache="$${NUMA_VM_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/numa-vm}"; \
	if [ -n "$$missing" ]; then \
		echo "setup-numa-vm: installing$$missing"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi; \
	if [ -n "$$missing" ] || ! ls "$$cache"/vmlinux-* >/dev/null 2>&1; then \
		"$(NUMA_VM_SCRIPT)" --setup; \
	fi

build-numa-vm: setup-rust
	RUSTFLAGS="-C target-feature=+crt-static" CARGO_TARGET_DIR="$(NUMA_VM_TARGET_DIR)" \
		$(CARGO) build --release --quiet -p smartarrays-numa-tests --target $(NUMA_VM_TRIPLE)

test-numa-vm: setup-numa-vm build-numa-vm
	@failed=""; \
	for shape in $(NUMA_VM_SHAPES); do \
		IFS=: read -r n c m <<<"$$shape"; \
		echo "== numa-vm: $$n nodes x $$c CPUs x $$m MiB"; \
		"$(NUMA_VM_SCRIPT)" -n $$n -c $$c -m $$m -t $(NUMA_VM_TIMEOUT) "$(NUMA_VM_BIN)" \
			--nodes $$n --cpus-per-node $$c --mib-per-node $$m \
			|| failed="$$failed $$n-node(exit $$?)"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-numa-vm: FAILED in VM:$$failed" >&2; exit 1; fi
	@echo "test-numa-vm: placement checks passed on every VM shape"
