//! Parallel CSR construction from an edge list: a counting pass (atomic degree counters), a
//! prefix sum, an atomic scatter of neighbours, a parallel per-vertex sort (and dedup), then
//! packing into smart arrays. Directed graphs get their reverse arrays by transposing the
//! forward lists, after the edge list has been freed, so peak memory stays near 1.5x the final
//! graph plus the input list (see `bench` for measurements).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use smartarrays::{Runtime, SmartArray};

use crate::edges::{Id, Pairs};
use crate::error::{GraphError, Result};
use crate::graph::{Csr, Graph};
use crate::options::{array_options, GraphOptions, Keep};
use crate::progress::Progress;
use crate::EdgeList;

/// Vertices per parallel batch in vertex loops.
pub(crate) const VERTEX_BATCH: usize = 4096;
/// Edges per parallel batch in edge loops.
const EDGE_BATCH: usize = 1 << 16;

/// Sorted neighbour lists in plain vectors (the intermediate form of a build).
#[derive(Debug)]
pub(crate) struct Adjacency<I> {
    pub offsets: Vec<u64>,
    pub targets: Vec<I>,
    pub self_loops: u64,
}

impl<I: Id> Adjacency<I> {
    fn list(&self, v: usize) -> &[I] {
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

/// Builds a graph from an edge list (see [`GraphOptions`] for the duplicate and self-loop
/// policies). The list is consumed so its memory is freed as soon as it is no longer needed.
pub fn build(edges: EdgeList, options: &GraphOptions) -> Result<Graph> {
    let runtime = options.resolve_runtime()?;
    let progress = &options.progress;
    let (vertices, directed, pairs) = edges.into_parts();
    let n = usize::try_from(vertices).map_err(|_| {
        GraphError::InvalidArgument(format!("{vertices} vertices do not fit in memory"))
    })?;
    match pairs {
        Pairs::Narrow(pairs) => build_typed::<u32>(pairs, n, directed, options, &runtime, progress),
        Pairs::Wide(pairs) => build_typed::<u64>(pairs, n, directed, options, &runtime, progress),
    }
}

fn build_typed<I: Id>(
    pairs: Vec<[I; 2]>,
    n: usize,
    directed: bool,
    options: &GraphOptions,
    runtime: &Arc<Runtime>,
    progress: &Progress,
) -> Result<Graph> {
    if let Some(bad) = pairs
        .iter()
        .find(|p| p[0].index() >= n || p[1].index() >= n)
    {
        return Err(GraphError::InvalidArgument(format!(
            "edge {:?} uses a vertex id beyond the {n} vertices",
            bad
        )));
    }
    let drop_loops = options.self_loops == Keep::Drop;
    let dedup = options.duplicates == Keep::Drop;
    let forward = scatter(&pairs, n, !directed, drop_loops, runtime, progress);
    drop(pairs);
    let forward = sort_lists(forward, n, dedup, runtime, progress);
    let forward_csr = to_csr(&forward, n, options, runtime, progress)?;
    let reverse_csr = if directed {
        let reverse = transpose(&forward, n, runtime, progress);
        drop(forward);
        let reverse = sort_lists(reverse, n, false, runtime, progress);
        Some(to_csr(&reverse, n, options, runtime, progress)?)
    } else {
        drop(forward);
        None
    };
    Graph::from_parts(
        n,
        directed,
        forward_csr,
        reverse_csr,
        options,
        Arc::clone(runtime),
    )
}

/// Counting pass, prefix sum and scatter of `pairs` into neighbour lists (unsorted).
fn scatter<I: Id>(
    pairs: &[[I; 2]],
    n: usize,
    symmetric: bool,
    drop_loops: bool,
    runtime: &Runtime,
    progress: &Progress,
) -> Adjacency<I> {
    let bar = progress.bar(pairs.len() as u64 * 2, "count+scatter");
    let counters: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    runtime.for_each_batch(0..pairs.len(), EDGE_BATCH, |_, range| {
        for &[s, t] in &pairs[range.clone()] {
            if s == t {
                if !drop_loops {
                    counters[s.index()].fetch_add(1, Ordering::Relaxed);
                }
                continue;
            }
            counters[s.index()].fetch_add(1, Ordering::Relaxed);
            if symmetric {
                counters[t.index()].fetch_add(1, Ordering::Relaxed);
            }
        }
        bar.inc(range.len() as u64);
    });
    let offsets = prefix_into_cursors(&counters);
    let total = offsets[n] as usize;
    let targets: Vec<I::Atomic> = (0..total).map(|_| I::atomic(I::default())).collect();
    runtime.for_each_batch(0..pairs.len(), EDGE_BATCH, |_, range| {
        for &[s, t] in &pairs[range.clone()] {
            if s == t && drop_loops {
                continue;
            }
            I::store(
                &targets[counters[s.index()].fetch_add(1, Ordering::Relaxed) as usize],
                t,
            );
            if symmetric && s != t {
                I::store(
                    &targets[counters[t.index()].fetch_add(1, Ordering::Relaxed) as usize],
                    s,
                );
            }
        }
        bar.inc(range.len() as u64);
    });
    bar.finish_and_clear();
    Adjacency {
        offsets,
        targets: targets.into_iter().map(I::into_inner).collect(),
        self_loops: 0,
    }
}

/// Turns degree counters into start cursors (in place) and returns the offsets.
fn prefix_into_cursors(counters: &[AtomicU64]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(counters.len() + 1);
    let mut running = 0u64;
    offsets.push(0);
    for counter in counters {
        let degree = counter.load(Ordering::Relaxed);
        counter.store(running, Ordering::Relaxed);
        running += degree;
        offsets.push(running);
    }
    offsets
}

/// Splits `targets` into one mutable piece per batch of `VERTEX_BATCH` vertices.
fn vertex_pieces<'a, I>(
    offsets: &[u64],
    mut targets: &'a mut [I],
    n: usize,
) -> Vec<Mutex<&'a mut [I]>> {
    let mut pieces = Vec::with_capacity(n.div_ceil(VERTEX_BATCH));
    let mut start = 0;
    while start < n {
        let end = (start + VERTEX_BATCH).min(n);
        let (piece, rest) =
            std::mem::take(&mut targets).split_at_mut((offsets[end] - offsets[start]) as usize);
        pieces.push(Mutex::new(piece));
        targets = rest;
        start = end;
    }
    pieces
}

/// Sorts every neighbour list in parallel, drops duplicates when asked (compacting the lists),
/// and counts stored self-loops.
fn sort_lists<I: Id>(
    mut adjacency: Adjacency<I>,
    n: usize,
    dedup: bool,
    runtime: &Runtime,
    progress: &Progress,
) -> Adjacency<I> {
    let bar = progress.bar(n as u64, if dedup { "sort+dedup" } else { "sort" });
    let kept: Vec<AtomicU64> = if dedup {
        (0..n).map(|_| AtomicU64::new(0)).collect()
    } else {
        Vec::new()
    };
    let offsets = &adjacency.offsets;
    let self_loops = {
        let pieces = vertex_pieces(offsets, &mut adjacency.targets, n);
        runtime.map_reduce(
            0..n,
            VERTEX_BATCH,
            || 0u64,
            |loops, _, range| {
                let base = offsets[range.start];
                let Ok(mut piece) = pieces[range.start / VERTEX_BATCH].lock() else {
                    return loops;
                };
                let mut loops = loops;
                for v in range.clone() {
                    let list =
                        &mut piece[(offsets[v] - base) as usize..(offsets[v + 1] - base) as usize];
                    list.sort_unstable();
                    let length = if dedup {
                        dedup_sorted(list)
                    } else {
                        list.len()
                    };
                    if dedup {
                        kept[v].store(length as u64, Ordering::Relaxed);
                    }
                    loops += list[..length].iter().filter(|w| w.index() == v).count() as u64;
                }
                bar.inc(range.len() as u64);
                loops
            },
            |a, b| a + b,
        )
    };
    bar.finish_and_clear();
    adjacency.self_loops = self_loops;
    if dedup {
        let mut write = 0usize;
        let mut new_offsets = Vec::with_capacity(n + 1);
        new_offsets.push(0u64);
        for (v, length) in kept.iter().enumerate() {
            let start = adjacency.offsets[v] as usize;
            let length = length.load(Ordering::Relaxed) as usize;
            adjacency.targets.copy_within(start..start + length, write);
            write += length;
            new_offsets.push(write as u64);
        }
        adjacency.targets.truncate(write);
        adjacency.targets.shrink_to_fit();
        adjacency.offsets = new_offsets;
    }
    adjacency
}

/// Moves the distinct values of a sorted slice to its front and returns how many there are.
fn dedup_sorted<I: Id>(list: &mut [I]) -> usize {
    if list.is_empty() {
        return 0;
    }
    let mut write = 1;
    for read in 1..list.len() {
        if list[read] != list[write - 1] {
            list[write] = list[read];
            write += 1;
        }
    }
    write
}

/// The reverse lists of a directed graph (unsorted), from its forward lists.
fn transpose<I: Id>(
    forward: &Adjacency<I>,
    n: usize,
    runtime: &Runtime,
    progress: &Progress,
) -> Adjacency<I> {
    let bar = progress.bar(n as u64 * 2, "transpose");
    let counters: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    runtime.for_each_batch(0..n, VERTEX_BATCH, |_, range| {
        for v in range.clone() {
            for w in forward.list(v) {
                counters[w.index()].fetch_add(1, Ordering::Relaxed);
            }
        }
        bar.inc(range.len() as u64);
    });
    let offsets = prefix_into_cursors(&counters);
    let targets: Vec<I::Atomic> = (0..forward.targets.len())
        .map(|_| I::atomic(I::default()))
        .collect();
    runtime.for_each_batch(0..n, VERTEX_BATCH, |_, range| {
        for v in range.clone() {
            for w in forward.list(v) {
                I::store(
                    &targets[counters[w.index()].fetch_add(1, Ordering::Relaxed) as usize],
                    I::from_u64(v as u64),
                );
            }
        }
        bar.inc(range.len() as u64);
    });
    bar.finish_and_clear();
    Adjacency {
        offsets,
        targets: targets.into_iter().map(I::into_inner).collect(),
        self_loops: forward.self_loops,
    }
}

/// Packs sorted lists into a `begin`/`edge` pair of smart arrays.
fn to_csr<I: Id>(
    adjacency: &Adjacency<I>,
    n: usize,
    options: &GraphOptions,
    runtime: &Arc<Runtime>,
    progress: &Progress,
) -> Result<Csr> {
    let bar = progress.bar((n + 1 + adjacency.targets.len()) as u64, "pack");
    let entries = adjacency.targets.len() as u64;
    let offset_bits = options.offsets.width.resolve(entries, 64);
    let offsets = SmartArray::from_batches(
        n + 1,
        &array_options(&options.offsets, offset_bits, runtime),
        |range, out| {
            bar.inc(range.len() as u64);
            out.copy_from_slice(&adjacency.offsets[range]);
        },
    )?;
    let id_bits = options.edges.width.resolve(n.saturating_sub(1) as u64, 32);
    let targets = SmartArray::from_batches(
        adjacency.targets.len(),
        &array_options(&options.edges, id_bits, runtime),
        |range, out| {
            bar.inc(range.len() as u64);
            for (slot, id) in out.iter_mut().zip(&adjacency.targets[range]) {
                *slot = id.to_u64();
            }
        },
    )?;
    bar.finish_and_clear();
    Ok(Csr {
        offsets,
        targets,
        self_loops: adjacency.self_loops,
    })
}
