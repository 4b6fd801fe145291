//! Weakly connected components by lock-free union-find: every edge joins its endpoints' trees,
//! a root is always hooked under a smaller root with a compare-and-swap, and finds halve their
//! paths. So each component's label is its smallest vertex id, whatever the thread count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{values, with_window, AsIndex, EdgeWindow, Targets};
use crate::error::Result;
use crate::graph::property_bits;
use crate::Graph;

const BATCH: usize = 4096;

/// Component labels and sizes.
#[derive(Debug)]
pub struct Components {
    /// Label of every vertex: the smallest vertex id of its component.
    pub labels: SmartArray,
    /// Number of components (isolated vertices included).
    pub count: u64,
    /// Size of the largest component.
    pub largest: u64,
}

/// Summary of [`Components`] for reports.
#[derive(Clone, Debug, Serialize)]
pub struct ComponentSummary {
    /// Number of components.
    pub count: u64,
    /// Size of the largest component.
    pub largest: u64,
}

fn find(parents: &[AtomicU64], mut x: u64) -> u64 {
    loop {
        let parent = parents[x as usize].load(Ordering::Relaxed);
        if parent == x {
            return x;
        }
        let grandparent = parents[parent as usize].load(Ordering::Relaxed);
        if grandparent != parent {
            // Path halving; losing the race only means the path stays a bit longer.
            let _ = parents[x as usize].compare_exchange(
                parent,
                grandparent,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
        x = grandparent;
    }
}

fn union(parents: &[AtomicU64], a: u64, b: u64) {
    let (mut a, mut b) = (a, b);
    loop {
        a = find(parents, a);
        b = find(parents, b);
        if a == b {
            return;
        }
        let (high, low) = if a > b { (a, b) } else { (b, a) };
        if parents[high as usize]
            .compare_exchange(high, low, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Weakly connected components (edge directions ignored).
///
/// # Example
/// ```
/// use smartarrays_graph::{build, connected_components, EdgeList, GraphOptions};
/// let graph = build(EdgeList::from_pairs(5, true, vec![[1, 0], [2, 3], [4, 3]]), &GraphOptions::default()).unwrap();
/// let components = connected_components(&graph).unwrap();
/// assert_eq!(components.labels.to_vec(), vec![0, 0, 2, 2, 2]);
/// assert_eq!((components.count, components.largest), (2, 3));
/// ```
pub fn connected_components(graph: &Graph) -> Result<Components> {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let parents: Vec<AtomicU64> = (0..n as u64).map(AtomicU64::new).collect();
    let (begin, edge, undirected) = (graph.begin(), graph.edge(), !graph.is_directed());
    runtime.for_each_batch(0..n, BATCH, |worker, range| {
        let mut offsets_buffer = Vec::new();
        let mut edges_buffer = Vec::new();
        let offsets = values(
            begin.for_worker(worker),
            range.start..range.end + 1,
            &mut offsets_buffer,
        );
        let limit = offsets[offsets.len() - 1] as usize;
        with_window!(
            Targets::of(edge.for_worker(worker)),
            &mut edges_buffer,
            limit,
            |window| {
                for (i, u) in range.clone().enumerate() {
                    let (mut s, t) = (offsets[i] as usize, offsets[i + 1] as usize);
                    while s < t {
                        let piece = window.piece(s, t);
                        for &v in piece {
                            let v = v.at() as u64;
                            // Each undirected edge is stored twice; one copy is enough.
                            if !(undirected && v > u as u64) {
                                union(&parents, u as u64, v);
                            }
                        }
                        s += piece.len();
                    }
                }
            }
        );
    });
    let labels: Vec<u64> = (0..n as u64).map(|v| find(&parents, v)).collect();
    drop(parents);
    let mut sizes = vec![0u64; n];
    for &label in &labels {
        sizes[label as usize] += 1;
    }
    let count = sizes.iter().filter(|&&s| s > 0).count() as u64;
    let largest = sizes.iter().copied().max().unwrap_or(0);
    drop(sizes);
    let properties = graph.properties();
    let bits = property_bits(properties, n.saturating_sub(1) as u64);
    let options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .bits(bits)
        .runtime(runtime);
    let labels = SmartArray::from_batches(n, &options, |range, out| {
        out.copy_from_slice(&labels[range])
    })?;
    Ok(Components {
        labels,
        count,
        largest,
    })
}
