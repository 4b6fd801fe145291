//! # smartarrays-numa-tests
//!
//! Proof, on a kernel that really has several NUMA nodes, that smart arrays put their memory
//! where their placement says: single node, interleaved (per page and per huge page),
//! replicated (and that readers use their own node's replica), OS default first touch, the
//! pinned runtime, the topology, and clean errors without leaks.
//!
//! The checks run inside the throw-away QEMU VM of `tools/numa_vm.py`, started
//! by `make test-numa-vm` with 2 and with 4 nodes; this machine has only one node. The binary
//! prints one `PASS`/`FAIL`/`SKIP` line per check and exits non-zero on any failure. Outside the
//! VM (for instance under `cargo test --workspace`) only the unit tests of the checking code run.
//!
//! Modules: [`os`] (the suite's own `move_pages`, affinity and `getcpu` calls), [`procfs`]
//! (`smaps`, `numa_maps`, `status`, `meminfo` readers), [`expect`] (page-pattern checks) and
//! [`checks`] (the sections run in the VM).

pub mod checks;
pub mod expect;
pub mod os;
pub mod procfs;
