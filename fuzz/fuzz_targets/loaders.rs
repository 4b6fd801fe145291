//! Every graph loader on arbitrary bytes: a parse error is fine, a panic or an abort is not.
#![no_main]

use std::path::Path;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use smartarrays::Runtime;
use smartarrays_graph::io::{parse_binary, parse_edge_list, parse_matrix_market};
use smartarrays_graph::{build, GraphOptions};

fn runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| Arc::new(Runtime::with_threads(1).unwrap()))
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let file = Path::new("fuzz-input");
    let runtime = runtime();
    let options = GraphOptions::default().runtime(Arc::clone(&runtime));
    if let Ok(edges) = parse_edge_list(
        data,
        file,
        data.first().is_some_and(|b| b & 1 == 1),
        &runtime,
    ) {
        if edges.vertices() <= 1 << 16 {
            let _ = build(edges, &options);
        }
    }
    if let Ok(edges) = parse_matrix_market(data, file, &runtime) {
        if edges.vertices() <= 1 << 16 {
            let _ = build(edges, &options);
        }
    }
    let _ = parse_binary(data, file, &options);
});
