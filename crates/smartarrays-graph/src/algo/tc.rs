//! Triangle counting on an undirected graph by ordered neighbour intersection: each triangle is
//! counted once, from its highest vertex `u` through its middle vertex `v`, as the common
//! neighbours of `u` and `v` below `v`. "Below" follows one of two orders:
//!
//! - [`TcOrder::Id`]: vertex ids. The sorted neighbour lists are intersected in place (read
//!   through the graph's arrays at their width), and each list scan stops at the first
//!   neighbour above the bound.
//! - [`TcOrder::Degree`] (the default): degree, then id, with each triangle counted from its
//!   lowest vertex instead: each vertex's higher neighbours are first gathered into an oriented
//!   list (one pass, about half the graph's entries), so a hub keeps only the few neighbours of
//!   higher degree and its long list is never scanned; every oriented list then has at most
//!   about sqrt(2m) entries and the work is bounded by O(m^1.5) (Schank and Wagner, "Finding,
//!   counting and listing all triangles in large graphs"). The vertices are first renamed by
//!   rank, highest degree first (the relabelling the GAP Benchmark Suite applies to skewed
//!   graphs), so the oriented lists point into a small range of ids that stays in cache.
//!
//! Self-loops and repeated edges are ignored (a triangle is three distinct vertices joined
//! pairwise), so the count is that of the simple graph underneath.

use std::sync::Arc;

use serde::Serialize;

use crate::access::{run, Run, Targets};
use crate::algo::cells;
use crate::error::{GraphError, Result};
use crate::Graph;

const VERTEX_BATCH: usize = 256;
/// Oriented lists at least this long are marked rather than merged (see `by_degree`).
const MARK_FROM: usize = 8;

/// One batch's oriented lists: its first vertex, the list lengths and the ids.
type Oriented = (usize, Vec<u64>, Vec<u32>);

/// The order that decides which vertex of a triangle counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum TcOrder {
    /// By vertex id, on the graph's lists in place.
    Id,
    /// By degree then id, on oriented lists gathered first (the default; graphs of more than
    /// 2^32 vertices use [`TcOrder::Id`], the lists holding 32-bit ids).
    #[default]
    Degree,
}

impl std::str::FromStr for TcOrder {
    type Err = GraphError;

    /// Parses `id` and `degree`.
    fn from_str(text: &str) -> Result<TcOrder> {
        match text.trim().to_ascii_lowercase().as_str() {
            "id" => Ok(TcOrder::Id),
            "degree" => Ok(TcOrder::Degree),
            _ => Err(GraphError::InvalidArgument(format!(
                "triangle order {text:?}: expected id or degree"
            ))),
        }
    }
}

/// Number of common values below `limit` of two sorted runs, each value counted once.
fn common_below(a: Run<'_>, b: Run<'_>, limit: u64) -> u64 {
    let (mut i, mut j, mut count) = (0, 0, 0);
    let (la, lb) = (a.len(), b.len());
    let mut last = u64::MAX;
    while i < la && j < lb {
        let (x, y) = (a.get(i), b.get(j));
        if x >= limit || y >= limit {
            break;
        }
        if x < y {
            i += 1;
        } else if y < x {
            j += 1;
        } else {
            if x != last {
                count += 1;
                last = x;
            }
            i += 1;
            j += 1;
        }
    }
    count
}

/// Moves the distinct values of a sorted slice to its front; returns how many there are.
fn dedup(values: &mut [u32]) -> usize {
    if values.is_empty() {
        return 0;
    }
    let mut kept = 1;
    for i in 1..values.len() {
        if values[i] != values[kept - 1] {
            values[kept] = values[i];
            kept += 1;
        }
    }
    kept
}

/// Number of common values of two sorted, duplicate-free slices.
fn common(a: &[u32], b: &[u32]) -> u64 {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        count += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    count
}

/// Counts the triangles of an undirected graph; `on_batch` sees the vertices done so far and
/// the total (for progress; called from worker threads).
///
/// # Example
/// ```
/// use smartarrays_graph::{build, tc, EdgeList, GraphOptions, TcOrder};
/// // A square 0-1-2-3 with the diagonal 0-2: two triangles.
/// let edges = EdgeList::from_pairs(4, false, vec![[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]);
/// let graph = build(edges, &GraphOptions::default())?;
/// assert_eq!(tc(&graph, TcOrder::Degree, |_, _| {})?, 2);
/// assert_eq!(tc(&graph, TcOrder::Id, |_, _| {})?, 2);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn tc(graph: &Graph, order: TcOrder, on_batch: impl Fn(u64, u64) + Sync) -> Result<u64> {
    if graph.is_directed() {
        return Err(GraphError::InvalidArgument(
            "triangle counting needs an undirected graph (build it undirected, or symmetrise it)"
                .into(),
        ));
    }
    if u32::try_from(graph.vertices()).is_err() && order == TcOrder::Degree {
        return tc(graph, TcOrder::Id, on_batch);
    }
    match order {
        TcOrder::Id => Ok(by_id(graph, &on_batch)),
        TcOrder::Degree => Ok(by_degree(graph, &on_batch)),
    }
}

fn by_id(graph: &Graph, on_batch: &(impl Fn(u64, u64) + Sync)) -> u64 {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let begin = graph.begin().local();
    let targets = Targets::of(graph.edge().local());
    let done = std::sync::atomic::AtomicU64::new(0);
    runtime
        .map_reduce(
            0..n,
            VERTEX_BATCH,
            || (0u64, Vec::new(), Vec::new()),
            |(mut count, mut mine, mut theirs), _, range| {
                for u in range.clone() {
                    let (a, b) = (begin.value(u) as usize, begin.value(u + 1) as usize);
                    let list = run(targets, a, b, &mut mine);
                    let mut last = u64::MAX;
                    for k in 0..list.len() {
                        let v = list.get(k);
                        if v >= u as u64 {
                            break;
                        }
                        if v == last {
                            continue;
                        }
                        last = v;
                        let (c, d) = (
                            begin.value(v as usize) as usize,
                            begin.value(v as usize + 1) as usize,
                        );
                        let other = run(targets, c, d, &mut theirs);
                        count += common_below(list, other, v);
                    }
                }
                let total =
                    done.fetch_add(range.len() as u64, std::sync::atomic::Ordering::Relaxed);
                on_batch(total + range.len() as u64, n as u64);
                (count, mine, theirs)
            },
            |a, b| (a.0 + b.0, a.1, a.2),
        )
        .0
}

fn by_degree(graph: &Graph, on_batch: &(impl Fn(u64, u64) + Sync)) -> u64 {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let mut offsets_buffer = Vec::new();
    let begin = cells::offsets(graph.begin(), &mut offsets_buffer);
    let targets = Targets::of(graph.edge().local());
    // Vertices renamed by rank: highest (degree, id) first. A vertex's oriented list holds its
    // neighbours of higher rank, i.e. of smaller new id, and the hubs that most lists point at
    // get the smallest ids, so the lookups crowd into a small, cache-resident range.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&v| {
        let v = v as usize;
        (
            std::cmp::Reverse(begin[v + 1] - begin[v]),
            std::cmp::Reverse(v),
        )
    });
    let mut renamed = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        renamed[old as usize] = new as u32;
    }
    let (order, renamed) = (&order, &renamed);
    // Oriented lists by new id: the distinct neighbours of higher rank, sorted.
    let mut parts: Vec<Oriented> = runtime
        .map_reduce(
            0..n,
            4096,
            || (Vec::new(), Vec::new()),
            |(mut parts, mut buffer): (Vec<Oriented>, Vec<u64>), _, range| {
                let mut counts = Vec::with_capacity(range.len());
                let mut ids = Vec::new();
                for x in range.clone() {
                    let u = order[x] as usize;
                    let list = run(
                        targets,
                        begin[u] as usize,
                        begin[u + 1] as usize,
                        &mut buffer,
                    );
                    let before = ids.len();
                    for k in 0..list.len() {
                        let w = renamed[list.get(k) as usize];
                        if (w as usize) < x {
                            ids.push(w);
                        }
                    }
                    let mine = &mut ids[before..];
                    mine.sort_unstable();
                    let kept = dedup(mine);
                    ids.truncate(before + kept);
                    counts.push(kept as u64);
                }
                parts.push((range.start, counts, ids));
                (parts, buffer)
            },
            |mut a, mut b| {
                a.0.append(&mut b.0);
                a
            },
        )
        .0;
    parts.sort_by_key(|p| p.0);
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0usize);
    let mut lower = Vec::new();
    for (_, counts, ids) in parts {
        for c in counts {
            offsets.push(offsets[offsets.len() - 1] + c as usize);
        }
        lower.extend_from_slice(&ids);
    }
    let (offsets, lower) = (&offsets, &lower);
    let list = |v: usize| &lower[offsets[v]..offsets[v + 1]];
    let done = std::sync::atomic::AtomicU64::new(0);
    // Each worker marks u's list in its own bitmap (n bits: small enough to stay in cache) and
    // clears the marks after, so a pair (u, v) costs |list(v)| lookups however long list(u)
    // is; short lists are merged.
    runtime
        .map_reduce(
            0..n,
            VERTEX_BATCH,
            || (0u64, Vec::new()),
            |(mut count, mut marks): (u64, Vec<u64>), _, range| {
                for u in range.clone() {
                    let mine = list(u);
                    if mine.len() < MARK_FROM {
                        for &v in mine {
                            count += common(mine, list(v as usize));
                        }
                        continue;
                    }
                    if marks.is_empty() {
                        marks.resize(n.div_ceil(64), 0);
                    }
                    for &w in mine {
                        marks[w as usize / 64] |= 1 << (w % 64);
                    }
                    for &v in mine {
                        count += list(v as usize)
                            .iter()
                            .map(|&w| (marks[w as usize / 64] >> (w % 64)) & 1)
                            .sum::<u64>();
                    }
                    for &w in mine {
                        marks[w as usize / 64] = 0;
                    }
                }
                let total =
                    done.fetch_add(range.len() as u64, std::sync::atomic::Ordering::Relaxed);
                on_batch(total + range.len() as u64, n as u64);
                (count, marks)
            },
            |a, b| (a.0 + b.0, a.1),
        )
        .0
}
