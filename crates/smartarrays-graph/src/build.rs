//! Parallel CSR construction from an edge list: a counting pass (atomic degree counters), a
//! prefix sum, an atomic scatter of neighbours, a parallel per-vertex sort (and dedup), then
//! packing into smart arrays. Directed graphs get their reverse arrays by transposing the
//! forward lists, after the edge list has been freed, so peak memory stays near 1.5x the final
//! graph plus the input list (see `bench` for measurements). `build_from_csr` starts from CSR
//! arrays instead: a directed graph's lists are copied as its forward lists, an undirected
//! graph's are scattered into both ends' lists, and the same sort, pack and transpose follow.

use std::ops::Range;
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

/// Builds a graph from compressed sparse row arrays: vertex `v`'s neighbours are
/// `targets[offsets[v]..offsets[v + 1]]`, so `offsets` holds `vertices + 1` values, starting at
/// 0, never decreasing, and ending at `targets.len()`; every target is below `vertices`.
///
/// Directed: the lists become the forward arrays as given (each sorted if it is not), with
/// duplicates and self-loops kept or dropped per [`GraphOptions`]; the reverse arrays are their
/// transpose. No edge list is made in between.
///
/// Undirected: every `(v, w)` of the lists is one undirected edge, stored in both `v`'s and
/// `w`'s lists (the input is symmetrised), so the graph equals [`build`] of the same pairs. A
/// symmetric matrix that already holds both `(v, w)` and `(w, v)` therefore gives each edge
/// twice; drop them with [`Keep::Drop`] for `duplicates`, or pass the upper triangle only.
///
/// Ids are stored in 32 bits while the vertex count allows, as in [`build`]. Invalid arrays are
/// [`GraphError::InvalidArgument`] naming the first bad value.
///
/// # Example
/// ```
/// use smartarrays_graph::{build_from_csr, GraphOptions, Keep};
/// // 0 -> 2, 0 -> 1, 2 -> 1; vertex 1 has no out-edges.
/// let offsets = [0, 2, 2, 3];
/// let targets = [2, 1, 1];
/// let graph = build_from_csr(&offsets, &targets, true, &GraphOptions::default())?;
/// assert_eq!(graph.vertices(), 3);
/// assert_eq!(graph.out_neighbors(0)?, vec![1, 2]); // lists come out sorted
/// assert_eq!(graph.in_neighbors(1)?, vec![0, 2]);
/// // Undirected: each entry is one edge, stored in both lists.
/// let graph = build_from_csr(&offsets, &targets, false, &GraphOptions::default())?;
/// assert_eq!(graph.edges(), 3);
/// assert_eq!(graph.out_neighbors(1)?, vec![0, 2]);
/// // Bad arrays are refused with the position of the problem.
/// let error = build_from_csr(&[0, 2, 1, 3], &targets, true, &GraphOptions::default());
/// assert!(error.unwrap_err().to_string().contains("offsets[2] = 1 is below offsets[1] = 2"));
/// // A symmetric matrix lists each undirected edge twice: drop the repeats.
/// let options = GraphOptions::default().duplicates(Keep::Drop);
/// let graph = build_from_csr(&[0, 1, 2], &[1, 0], false, &options)?;
/// assert_eq!(graph.edges(), 1);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn build_from_csr(
    offsets: &[u64],
    targets: &[u64],
    directed: bool,
    options: &GraphOptions,
) -> Result<Graph> {
    let n = check_csr(offsets, targets)?;
    let runtime = options.resolve_runtime()?;
    if n as u64 <= u32::MAX as u64 + 1 {
        csr_typed::<u32>(offsets, targets, n, directed, options, &runtime)
    } else {
        csr_typed::<u64>(offsets, targets, n, directed, options, &runtime)
    }
}

/// Checks CSR arrays (see [`build_from_csr`]) and returns the vertex count.
fn check_csr(offsets: &[u64], targets: &[u64]) -> Result<usize> {
    let invalid = |message: String| Err(GraphError::InvalidArgument(message));
    let Some(&last) = offsets.last() else {
        return invalid(
            "offsets is empty: it needs vertices + 1 values (just [0] for no vertices)".into(),
        );
    };
    let n = offsets.len() - 1;
    if offsets[0] != 0 {
        return invalid(format!("offsets[0] = {} must be 0", offsets[0]));
    }
    if let Some(i) = offsets.windows(2).position(|pair| pair[1] < pair[0]) {
        return invalid(format!(
            "offsets[{}] = {} is below offsets[{i}] = {}",
            i + 1,
            offsets[i + 1],
            offsets[i]
        ));
    }
    if last != targets.len() as u64 {
        return invalid(format!(
            "the last offset, offsets[{n}] = {last}, is not the length of targets ({})",
            targets.len()
        ));
    }
    if targets
        .iter()
        .max()
        .is_some_and(|&largest| largest >= n as u64)
    {
        if let Some(i) = targets.iter().position(|&t| t >= n as u64) {
            return invalid(format!(
                "targets[{i}] = {} is not a vertex (the graph has {n} vertices)",
                targets[i]
            ));
        }
    }
    Ok(n)
}

fn csr_typed<I: Id>(
    offsets: &[u64],
    targets: &[u64],
    n: usize,
    directed: bool,
    options: &GraphOptions,
    runtime: &Arc<Runtime>,
) -> Result<Graph> {
    let progress = &options.progress;
    let drop_loops = options.self_loops == Keep::Drop;
    let forward = if directed {
        copy_lists::<I>(offsets, targets, drop_loops)
    } else {
        let pairs = CsrPairs { offsets, targets };
        scatter(&pairs, n, true, drop_loops, runtime, progress)
    };
    finish(forward, n, directed, options, runtime, progress)
}

/// The lists of checked CSR arrays in `I` ids, without self-loops when `drop_loops`.
fn copy_lists<I: Id>(offsets: &[u64], targets: &[u64], drop_loops: bool) -> Adjacency<I> {
    if !drop_loops {
        return Adjacency {
            offsets: offsets.to_vec(),
            targets: targets.iter().map(|&t| I::from_u64(t)).collect(),
            self_loops: 0,
        };
    }
    let mut kept_offsets = Vec::with_capacity(offsets.len());
    let mut kept = Vec::with_capacity(targets.len());
    kept_offsets.push(0);
    for (v, bounds) in offsets.windows(2).enumerate() {
        let list = &targets[bounds[0] as usize..bounds[1] as usize];
        kept.extend(
            list.iter()
                .filter(|&&t| t != v as u64)
                .map(|&t| I::from_u64(t)),
        );
        kept_offsets.push(kept.len() as u64);
    }
    Adjacency {
        offsets: kept_offsets,
        targets: kept,
        self_loops: 0,
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
    let forward = scatter(
        pairs.as_slice(),
        n,
        !directed,
        drop_loops,
        runtime,
        progress,
    );
    drop(pairs);
    finish(forward, n, directed, options, runtime, progress)
}

/// The rest of a build from unsorted forward lists (self-loops already dropped when asked):
/// sort (and dedup), pack, and for a directed graph transpose, sort and pack the reverse.
fn finish<I: Id>(
    forward: Adjacency<I>,
    n: usize,
    directed: bool,
    options: &GraphOptions,
    runtime: &Arc<Runtime>,
    progress: &Progress,
) -> Result<Graph> {
    let dedup = options.duplicates == Keep::Drop;
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

/// Where [`scatter`] reads its edges: the pairs of an edge list, or the lists of a CSR.
trait PairSource<I: Id>: Sync {
    /// Items (edges or vertices) split into parallel batches.
    fn items(&self) -> usize;
    /// Items per parallel batch.
    fn batch(&self) -> usize;
    /// Calls `f(source, target)` for every edge of the items in `range`.
    fn visit(&self, range: Range<usize>, f: impl FnMut(I, I));
}

impl<I: Id> PairSource<I> for [[I; 2]] {
    fn items(&self) -> usize {
        self.len()
    }

    fn batch(&self) -> usize {
        EDGE_BATCH
    }

    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(I, I)) {
        for &[s, t] in &self[range] {
            f(s, t);
        }
    }
}

/// The edges `(v, targets[i])`, `offsets[v] <= i < offsets[v + 1]`, of checked CSR arrays.
struct CsrPairs<'a> {
    offsets: &'a [u64],
    targets: &'a [u64],
}

impl<I: Id> PairSource<I> for CsrPairs<'_> {
    fn items(&self) -> usize {
        self.offsets.len() - 1
    }

    fn batch(&self) -> usize {
        VERTEX_BATCH
    }

    #[inline]
    fn visit(&self, range: Range<usize>, mut f: impl FnMut(I, I)) {
        for v in range {
            let source = I::from_u64(v as u64);
            let list = &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize];
            for &t in list {
                f(source, I::from_u64(t));
            }
        }
    }
}

/// Counting pass, prefix sum and scatter of the edges of `source` into neighbour lists
/// (unsorted).
fn scatter<I: Id, S: PairSource<I> + ?Sized>(
    source: &S,
    n: usize,
    symmetric: bool,
    drop_loops: bool,
    runtime: &Runtime,
    progress: &Progress,
) -> Adjacency<I> {
    let items = source.items();
    let bar = progress.bar(items as u64 * 2, "count+scatter");
    let counters: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    runtime.for_each_batch(0..items, source.batch(), |_, range| {
        let count = range.len() as u64;
        source.visit(range, |s, t| {
            if s == t {
                if !drop_loops {
                    counters[s.index()].fetch_add(1, Ordering::Relaxed);
                }
                return;
            }
            counters[s.index()].fetch_add(1, Ordering::Relaxed);
            if symmetric {
                counters[t.index()].fetch_add(1, Ordering::Relaxed);
            }
        });
        bar.inc(count);
    });
    let offsets = prefix_into_cursors(&counters);
    let total = offsets[n] as usize;
    let targets: Vec<I::Atomic> = (0..total).map(|_| I::atomic(I::default())).collect();
    runtime.for_each_batch(0..items, source.batch(), |_, range| {
        let count = range.len() as u64;
        source.visit(range, |s, t| {
            if s == t && drop_loops {
                return;
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
        });
        bar.inc(count);
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
