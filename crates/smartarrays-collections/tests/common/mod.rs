//! Test support shared by the collections' integration tests.

use std::sync::{Arc, OnceLock};

use smartarrays::{Runtime, Topology};

/// A runtime on a described two-node machine (two cores per node, three workers: an odd count),
/// so a replicated collection really has two replicas. Built once per test binary.
pub fn two_node_runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let topology = Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap());
            Arc::new(Runtime::on_described(topology, 3).unwrap())
        })
        .clone()
}
