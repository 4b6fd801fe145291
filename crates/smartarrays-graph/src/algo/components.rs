//! Weakly connected components by Afforest (Sutton, Ben-Nun and Barak, "Optimizing Parallel
//! Graph Connectivity Computation via Subgraph Sampling", IPDPS 2018): every vertex is first
//! linked to its first two neighbours and the trees compressed, which already
//! joins most of a skewed graph's giant component; the component most sampled vertices lie in is
//! then skipped, and only the other vertices link along their remaining edges (and, in a
//! directed graph, their in-edges). Links always hook a root under a smaller id with a
//! compare-and-swap, so each component's label is its smallest vertex id whatever the thread
//! count.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::Arc;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use smartarrays::memory::prefetch::{self, CacheLevel};
use smartarrays::{ArrayOptions, ArrayView, Placement, Runtime, SmartArray};

use crate::access::{with_window, AsIndex, EdgeWindow, Targets};
use crate::algo::cells::{self, narrow, Cell};
use crate::error::Result;
use crate::graph::property_bits;
use crate::packed_run::PackedRun;
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

/// Neighbours per vertex linked before the largest component is guessed.
const SAMPLED_NEIGHBOURS: usize = 2;
/// Vertices sampled to guess the largest component.
const SAMPLES: usize = 1024;

/// Vertices ahead of the one being linked (or compressed) whose labels are prefetched: the
/// labels of its sampled neighbours in the sampling pass, its parent's in a compress. Labels
/// are read at random ids; at scale 22 (16 MiB of labels) each such read waited for the L3
/// cache or memory, one after the other, since the compare-and-swap of a link (a locked
/// instruction) lets no later read start before it. Distances 24 to 64 measured alike; see
/// `docs/benchmarks.md`, branch `gcc3`.
const LABELS_AHEAD: usize = 32;

/// Vertices ahead whose first neighbour ids are prefetched in the sampling pass, so that the
/// id read that feeds the label prefetch [`LABELS_AHEAD`] vertices ahead does not wait either
/// (the pass reads one line of a list per vertex, a stride the hardware prefetcher does not
/// follow across lists of varying length).
const IDS_AHEAD: usize = 64;

/// Bit-packed lists of at most this many ids are read one id at a time rather than unpacked
/// (as `Decoded` does for the other kernels).
const SHORT: usize = 16;

/// Starts loading `values[index]` into L1 (a hint: any index is harmless).
#[inline(always)]
fn prefetch_at<T>(values: &[T], index: usize) {
    prefetch::prefetch(values, index, CacheLevel::L1);
}

/// Neighbour ids read one position at a time (the sampling pass reads two per list).
trait Positions: Copy + Sync {
    /// The id at `position` (below the array's length).
    fn id(self, position: usize) -> usize;
    /// How many ids there are.
    fn count(self) -> usize;
    /// The first two ids from `position` on, when both exist.
    #[inline(always)]
    fn pair(self, position: usize) -> Option<[usize; 2]> {
        if position.checked_add(2)? > self.count() {
            return None;
        }
        Some([self.id(position), self.id(position + 1)])
    }
    /// Starts loading the line holding the id at `position` (a hint: any position is harmless).
    fn prefetch(self, position: usize);
}

impl<I: AsIndex> Positions for &[I] {
    #[inline(always)]
    fn id(self, position: usize) -> usize {
        self[position].at()
    }
    #[inline(always)]
    fn count(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn pair(self, position: usize) -> Option<[usize; 2]> {
        match self.get(position..position.checked_add(2)?)? {
            &[a, b] => Some([a.at(), b.at()]),
            _ => None,
        }
    }
    #[inline(always)]
    fn prefetch(self, position: usize) {
        prefetch_at(self, position);
    }
}

impl Positions for PackedRun<'_> {
    #[inline(always)]
    fn id(self, position: usize) -> usize {
        self.get(position) as usize
    }
    #[inline(always)]
    fn count(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn prefetch(self, position: usize) {
        PackedRun::prefetch(&self, position);
    }
}

/// Ids wider than [`PackedRun`] reads (over 2^56 vertices), through the view's random reads.
impl Positions for ArrayView<'_> {
    #[inline(always)]
    fn id(self, position: usize) -> usize {
        self.value(position) as usize
    }
    #[inline(always)]
    fn count(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn prefetch(self, position: usize) {
        prefetch::packed_values(
            self.packed_words(),
            self.bits(),
            position..position.saturating_add(1),
            CacheLevel::L1,
        );
    }
}

/// Joins the trees of `u` and `v`: the larger of two roots is hooked under the smaller one.
#[inline]
fn link<C: Cell>(labels: &[C], u: usize, v: usize) {
    let (mut a, mut b) = (labels[u].get(), labels[v].get());
    while a != b {
        let (high, low) = if a > b { (a, b) } else { (b, a) };
        let above = labels[high as usize].get();
        if above == low {
            return;
        }
        if above == high && labels[high as usize].replace(high, low) {
            return;
        }
        // `high` was not a root (or lost a race): climb one step on both sides and retry.
        a = labels[labels[high as usize].get() as usize].get();
        b = labels[low as usize].get();
    }
}

/// Starts loading the label of the parent of vertex `v` (a hint: nothing when `v` is past the
/// end).
#[inline(always)]
fn prefetch_parent<C: Cell>(labels: &[C], v: usize) {
    if let Some(cell) = labels.get(v) {
        prefetch_at(labels, cell.get() as usize);
    }
}

/// Points every vertex straight at its root.
fn compress<C: Cell>(labels: &[C], runtime: &Runtime) {
    runtime.for_each_batch(0..labels.len(), BATCH, |_, range| {
        for v in range {
            prefetch_parent(labels, v + LABELS_AHEAD);
            flatten(labels, v);
        }
    });
}

/// The sampling pass: every vertex linked to its first [`SAMPLED_NEIGHBOURS`] (at most)
/// neighbours, with the labels of the neighbours of the vertex [`LABELS_AHEAD`] ahead, and the
/// ids of the one [`IDS_AHEAD`] ahead, prefetched. The hints change no result.
fn link_sampled<C: Cell, O: AsIndex, P: Positions>(
    labels: &[C],
    offsets: &[O],
    ids: P,
    runtime: &Runtime,
) {
    runtime.for_each_batch(0..labels.len(), BATCH, |_, range| {
        for u in range {
            if let Some(&start) = offsets.get(u + IDS_AHEAD) {
                ids.prefetch(start.at());
            }
            if let Some(&start) = offsets.get(u + LABELS_AHEAD) {
                // The next vertices' ids when the list is shorter than two: a wasted hint.
                if let Some([a, b]) = ids.pair(start.at()) {
                    prefetch_at(labels, a);
                    prefetch_at(labels, b);
                }
            }
            let (start, end) = (offsets[u].at(), offsets[u + 1].at());
            for position in start..end.min(start + SAMPLED_NEIGHBOURS) {
                link(labels, u, ids.id(position));
            }
        }
    });
}

/// Links every vertex `u` of `0..n` (not labelled `skip`) to its neighbours at positions
/// `offsets[u] + first .. offsets[u] + last` (clamped to its list).
fn link_lists<C: Cell, O: AsIndex>(
    labels: &[C],
    offsets: &[O],
    targets: Targets<'_>,
    (first, last): (usize, usize),
    skip: Option<u64>,
    runtime: &Runtime,
) {
    if let Targets::Packed(view) = targets {
        if skip.is_some() || last - first <= SAMPLED_NEIGHBOURS {
            return link_packed_lists(labels, offsets, view, (first, last), skip, runtime);
        }
    }
    runtime.map_reduce(
        0..labels.len(),
        BATCH,
        Vec::new,
        |mut buffer, _, range| {
            let limit = offsets[range.end].at();
            with_window!(targets, &mut buffer, limit, |window| {
                for u in range {
                    if skip == Some(labels[u].get()) {
                        continue;
                    }
                    let (start, end) = (offsets[u].at(), offsets[u + 1].at());
                    let mut s = start.saturating_add(first).min(end);
                    let t = start.saturating_add(last).min(end);
                    while s < t {
                        let piece = window.piece(s, t);
                        for &v in piece {
                            link(labels, u, v.at());
                        }
                        s += piece.len();
                    }
                }
            });
            buffer
        },
        |a, _| a,
    );
}

/// [`link_lists`] over bit-packed neighbours when only a few of each list are read (the
/// sampling rounds) or most vertices are skipped (the final pass): decoding windows there
/// would unpack every list for the one or two values, or the few lists, it needs. Lists of at
/// most [`SHORT`] ids are read one id at a time (a bulk decode's fixed cost per call outweighs
/// its speed there); longer ones are unpacked exactly.
fn link_packed_lists<C: Cell, O: AsIndex>(
    labels: &[C],
    offsets: &[O],
    view: smartarrays::ArrayView<'_>,
    (first, last): (usize, usize),
    skip: Option<u64>,
    runtime: &Runtime,
) {
    let run = PackedRun::new(view);
    runtime.map_reduce(
        0..labels.len(),
        BATCH,
        Vec::new,
        |mut buffer: Vec<u64>, _, range| {
            for u in range {
                if skip == Some(labels[u].get()) {
                    continue;
                }
                let (start, end) = (offsets[u].at(), offsets[u + 1].at());
                let s = start.saturating_add(first).min(end);
                let t = start.saturating_add(last).min(end);
                if let (Some(run), true) = (run, t - s <= SHORT) {
                    for position in s..t {
                        link(labels, u, run.get(position) as usize);
                    }
                } else if t - s <= SAMPLED_NEIGHBOURS {
                    for position in s..t {
                        link(labels, u, view.value(position) as usize);
                    }
                } else {
                    buffer.resize(t - s, 0);
                    // The range lies inside the array (positions from its offsets).
                    let _ = view.unpack(s, &mut buffer);
                    for &v in &buffer {
                        link(labels, u, v as usize);
                    }
                }
            }
            buffer
        },
        |a, _| a,
    );
}

/// The label most of [`SAMPLES`] seeded random vertices carry (after the sampling rounds,
/// almost surely the largest component).
fn most_sampled<C: Cell>(labels: &[C]) -> u64 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(27_491_095);
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for _ in 0..SAMPLES {
        let v = rng.random_range(0..labels.len());
        *counts.entry(labels[v].get()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(label, count)| (count, std::cmp::Reverse(label)))
        .map_or(0, |(label, _)| label)
}

/// The offsets of one direction as the kernel reads them: in place at 32 or 64 bits; bit-packed
/// ones that fit 32 bits as one 32-bit copy (decoded in parallel, on huge pages for large
/// graphs); else decoded once to `u64`s.
enum Offsets<'a> {
    Native32(&'a [u32]),
    Native64(&'a [u64]),
    Copy32(SmartArray),
    Copy64(Vec<u64>),
}

impl<'a> Offsets<'a> {
    fn of(array: &'a SmartArray) -> Offsets<'a> {
        let view = array.local();
        if let Some(values) = view.as_native::<u32>() {
            Offsets::Native32(values)
        } else if let Some(values) = view.as_native::<u64>() {
            Offsets::Native64(values)
        } else if let Some(copy) = cells::offsets_u32(array) {
            Offsets::Copy32(copy)
        } else {
            Offsets::Copy64(array.to_vec())
        }
    }
}

/// Runs `$body` with `$slice` bound to the offsets of `$offsets` as a slice of `u32` or `u64`.
macro_rules! with_offsets {
    ($offsets:expr, |$slice:ident| $body:expr) => {
        match &$offsets {
            Offsets::Native32($slice) => $body,
            Offsets::Native64($slice) => $body,
            Offsets::Copy32(copy) => {
                let $slice = cells::as_u32(copy);
                $body
            }
            Offsets::Copy64(values) => {
                let $slice = &values[..];
                $body
            }
        }
    };
}

/// Afforest's labels, and the component count and largest size.
fn afforest<C: Cell>(graph: &Graph, labels: &[C], runtime: &Runtime) -> (u64, u64) {
    if labels.is_empty() {
        return (0, 0);
    }
    let forward = Offsets::of(graph.begin());
    let targets = Targets::of(graph.edge().local());
    // Both sampled neighbours of a vertex are linked in one pass and the trees compressed
    // once: the labels end the same as with a compression after each round, in one pass less.
    let largest = with_offsets!(forward, |offsets| {
        match targets {
            Targets::U32(ids) => link_sampled(labels, offsets, ids, runtime),
            Targets::U64(ids) => link_sampled(labels, offsets, ids, runtime),
            Targets::Packed(view) => match PackedRun::new(view) {
                Some(run) => link_sampled(labels, offsets, run, runtime),
                None => link_sampled(labels, offsets, view, runtime),
            },
        }
        compress(labels, runtime);
        let largest = most_sampled(labels);
        link_lists(
            labels,
            offsets,
            targets,
            (SAMPLED_NEIGHBOURS, usize::MAX),
            Some(largest),
            runtime,
        );
        largest
    });
    drop(forward);
    if graph.is_directed() {
        // An edge into a skipped vertex is only seen from its target's in-list.
        let incoming = graph.incoming();
        let reverse = Offsets::of(incoming.offsets());
        let in_targets = Targets::of(incoming.targets().local());
        with_offsets!(reverse, |in_offsets| link_lists(
            labels,
            in_offsets,
            in_targets,
            (0, usize::MAX),
            Some(largest),
            runtime,
        ));
    }
    compress_and_tally(labels, largest, runtime)
}

/// The root of the tree `label` lies in.
#[inline]
fn root<C: Cell>(labels: &[C], mut label: u64) -> u64 {
    loop {
        let above = labels[label as usize].get();
        if above == label {
            return label;
        }
        label = above;
    }
}

/// Points `v` straight at its tree's root and returns the root; only a changed label is
/// written back (no cache line made dirty for nothing).
#[inline]
fn flatten<C: Cell>(labels: &[C], v: usize) -> u64 {
    let parent = labels[v].get();
    let label = root(labels, parent);
    if label != parent {
        labels[v].set(label);
    }
    label
}

/// The last [`compress`], counting on the way the roots (one per component) and the members of
/// the component `sampled` ended in. When those are at least half of all vertices no other
/// component can be larger, so the sizes of the others are only counted (by [`tally`]) when
/// the sampled component is small.
fn compress_and_tally<C: Cell>(labels: &[C], sampled: u64, runtime: &Runtime) -> (u64, u64) {
    // The links are done: the trees no longer change, only get flatter.
    let giant = root(labels, sampled);
    let (count, members) = runtime.map_reduce(
        0..labels.len(),
        BATCH,
        || (0u64, 0u64),
        |(mut count, mut members), _, range| {
            for v in range {
                prefetch_parent(labels, v + LABELS_AHEAD);
                let label = flatten(labels, v);
                count += u64::from(label == v as u64);
                members += u64::from(label == giant);
            }
            (count, members)
        },
        |a, b| (a.0 + b.0, a.1 + b.1),
    );
    let n = labels.len() as u64;
    if members >= n - members {
        (count, members)
    } else {
        tally(labels)
    }
}

/// Component count and largest size of final labels (each vertex labelled with its root).
fn tally<C: Cell>(labels: &[C]) -> (u64, u64) {
    let mut sizes = vec![0u32; labels.len()];
    let mut wide: HashMap<u64, u64> = HashMap::new();
    let (mut count, mut largest) = (0u64, 0u64);
    for cell in labels {
        let label = cell.get() as usize;
        let size = match sizes[label].checked_add(1) {
            Some(size) => {
                sizes[label] = size;
                u64::from(size)
            }
            None => {
                // Past 2^32 - 1 members (only in graphs that large): counted on in a map.
                let extra = wide.entry(label as u64).or_default();
                *extra += 1;
                u64::from(u32::MAX) + *extra
            }
        };
        if size == 1 {
            count += 1;
        }
        largest = largest.max(size);
    }
    (count, largest)
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
    if narrow(graph.vertices()) {
        components::<AtomicU32>(graph)
    } else {
        components::<AtomicU64>(graph)
    }
}

/// Runs Afforest in the cells of the result array itself when it is stored at the cells' width
/// (the U layout: no vector of cells to fill and copy; the array's identity labels are written
/// in parallel where its pages belong); else in a vector of cells packed into the result at the
/// end (minimal widths, V and V+E).
fn components<C: Cell>(graph: &Graph) -> Result<Components> {
    let runtime = Arc::clone(graph.runtime());
    let n = graph.vertices();
    let properties = graph.properties();
    let bits = property_bits(properties, n.saturating_sub(1) as u64);
    let options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .bits(bits)
        .runtime(Arc::clone(&runtime));
    let cell_bits = if C::NONE == u64::from(u32::MAX) {
        32
    } else {
        64
    };
    // The labels are linked in an array at the cells' width: the result itself when it is
    // stored at that width, else scratch (one copy, OS-default placement) packed at the end.
    // Either way filled in parallel where its pages belong (huge pages for large graphs, where
    // a vector of cells would take one page fault per 4 KiB).
    let in_place = bits == cell_bits;
    let scratch = if in_place {
        options.clone()
    } else {
        options
            .clone()
            .bits(cell_bits)
            .placement(Placement::OsDefault)
    };
    let mut cells_array = SmartArray::from_fn(n, &scratch, |v| v as u64)?;
    let linked = C::update(&mut cells_array, |cells| afforest(graph, cells, &runtime));
    let (count, largest, labels) = match linked {
        Some((count, largest)) if in_place => (count, largest, cells_array),
        Some((count, largest)) => {
            let labels = SmartArray::from_batches(n, &options, |range, out| {
                let _ = cells_array.local().unpack(range.start, out);
            })?;
            (count, largest, labels)
        }
        None => {
            // Arrays not updatable as cells (a big-endian machine): a vector of cells.
            drop(cells_array);
            let vector: Vec<C> = cells::filled(n, &runtime, |v| v as u64);
            let (count, largest) = afforest(graph, &vector, &runtime);
            let labels = SmartArray::from_batches(n, &options, |range, out| {
                for (slot, cell) in out.iter_mut().zip(&vector[range]) {
                    *slot = cell.get();
                }
            })?;
            (count, largest, labels)
        }
    };
    Ok(Components {
        labels,
        count,
        largest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Smallest id of each vertex's component over the edges `u - ids[p]` for the first
    /// `SAMPLED_NEIGHBOURS` positions `p` of each list, by a serial union-find.
    fn sampled_reference(offsets: &[u64], ids: &[u64]) -> Vec<u64> {
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                x = parent[x];
            }
            x
        }
        let n = offsets.len() - 1;
        let mut parent: Vec<usize> = (0..n).collect();
        for u in 0..n {
            let (s, t) = (offsets[u] as usize, offsets[u + 1] as usize);
            for &v in &ids[s..t.min(s + SAMPLED_NEIGHBOURS)] {
                let (a, b) = (find(&mut parent, u), find(&mut parent, v as usize));
                parent[a.max(b)] = a.min(b);
            }
        }
        (0..n).map(|v| find(&mut parent, v) as u64).collect()
    }

    /// Lists of 0, 1, 2, 3 or 17 pseudo-random neighbours, the last list of length `last`
    /// (so the id array ends on a list shorter than the pair the prefetch reads).
    fn lists(n: usize, last: usize) -> (Vec<u64>, Vec<u64>) {
        let mut offsets = vec![0u64];
        let mut ids = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
        for u in 0..n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let length = if u + 1 == n {
                last
            } else {
                [0, 1, 2, 3, 17][(state >> 33) as usize % 5]
            };
            for k in 0..length {
                ids.push((state >> 17).wrapping_add(k as u64 * 7919) % n as u64);
            }
            offsets.push(ids.len() as u64);
        }
        (offsets, ids)
    }

    fn sampled_labels<O: AsIndex, P: Positions>(
        n: usize,
        offsets: &[O],
        ids: P,
        threads: usize,
    ) -> Vec<u64> {
        let runtime = Runtime::with_threads(threads).unwrap();
        let labels: Vec<AtomicU32> = (0..n as u32).map(AtomicU32::new).collect();
        link_sampled(&labels, offsets, ids, &runtime);
        compress(&labels, &runtime);
        labels.iter().map(Cell::get).collect()
    }

    #[test]
    fn the_prefetching_sampling_pass_links_as_a_plain_union_find() {
        for n in [0usize, 1, 2, 31, 32, 33, 63, 64, 65, 97, 1025, 4097] {
            for last in [0, 1, 2, 3] {
                let (offsets, ids) = lists(n, last);
                let expected = sampled_reference(&offsets, &ids);
                let narrow: Vec<u32> = ids.iter().map(|&v| v as u32).collect();
                let bits = 64 - (n as u64).leading_zeros().min(63);
                let packed = SmartArray::from_slice(&ids, &ArrayOptions::new().bits(bits)).unwrap();
                for threads in [1, 2, 3] {
                    let label = format!("n {n}, last list {last}, {threads} threads");
                    let u32_ids = sampled_labels(n, &offsets, &narrow[..], threads);
                    assert_eq!(u32_ids, expected, "{label}: u32 ids");
                    let u64_ids = sampled_labels(n, &offsets, &ids[..], threads);
                    assert_eq!(u64_ids, expected, "{label}: u64 ids");
                    let packed_ids = sampled_labels(n, &offsets, packed.local(), threads);
                    assert_eq!(packed_ids, expected, "{label}: {bits}-bit ids");
                    let run = PackedRun::new(packed.local()).unwrap();
                    let run_ids = sampled_labels(n, &offsets, run, threads);
                    assert_eq!(run_ids, expected, "{label}: {bits}-bit ids read singly");
                    let narrow_offsets: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
                    let by_u32 = sampled_labels(n, &narrow_offsets, run, threads);
                    assert_eq!(by_u32, expected, "{label}: 32-bit offsets");
                }
            }
        }
    }

    /// Labels after linking every list in full, read through `targets`, with offsets of type `O`.
    fn linked_labels<O: AsIndex>(
        n: usize,
        offsets: &[O],
        targets: Targets<'_>,
        skip: Option<u64>,
        threads: usize,
    ) -> Vec<u64> {
        let runtime = Runtime::with_threads(threads).unwrap();
        let labels: Vec<AtomicU32> = (0..n as u32).map(AtomicU32::new).collect();
        link_lists(&labels, offsets, targets, (0, usize::MAX), skip, &runtime);
        compress(&labels, &runtime);
        labels.iter().map(Cell::get).collect()
    }

    #[test]
    fn full_lists_link_alike_through_every_reader_and_offset_width() {
        // Lists of 0..=3 and 17 ids (above `SHORT`, so unpacked), and with `skip` set (the
        // final pass) the packed lists go through the single reads and the exact unpack.
        for n in [1usize, 2, 63, 64, 65, 1025] {
            for last in [0, 1, 17] {
                let (offsets, ids) = lists(n, last);
                // Reference: a union-find over every edge.
                let mut parent: Vec<usize> = (0..n).collect();
                fn find(parent: &mut [usize], mut x: usize) -> usize {
                    while parent[x] != x {
                        x = parent[x];
                    }
                    x
                }
                for u in 0..n {
                    for &v in &ids[offsets[u] as usize..offsets[u + 1] as usize] {
                        let (a, b) = (find(&mut parent, u), find(&mut parent, v as usize));
                        parent[a.max(b)] = a.min(b);
                    }
                }
                let expected: Vec<u64> = (0..n).map(|v| find(&mut parent, v) as u64).collect();
                let narrow_ids: Vec<u32> = ids.iter().map(|&v| v as u32).collect();
                let narrow_offsets: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
                let bits = 64 - (n as u64).leading_zeros().min(63);
                let packed = SmartArray::from_slice(&ids, &ArrayOptions::new().bits(bits)).unwrap();
                // A label no vertex carries: nothing is skipped, but the packed lists take
                // the single-read path.
                let never = Some(u64::from(u32::MAX) - 1);
                for threads in [1, 3] {
                    let label = format!("n {n}, last list {last}, {threads} threads");
                    for skip in [None, never] {
                        let direct =
                            linked_labels(n, &offsets, Targets::U32(&narrow_ids), skip, threads);
                        assert_eq!(direct, expected, "{label}, skip {skip:?}: u32 ids");
                        let packed_64 = linked_labels(
                            n,
                            &offsets,
                            Targets::Packed(packed.local()),
                            skip,
                            threads,
                        );
                        assert_eq!(packed_64, expected, "{label}, skip {skip:?}: packed ids");
                        let packed_32 = linked_labels(
                            n,
                            &narrow_offsets,
                            Targets::Packed(packed.local()),
                            skip,
                            threads,
                        );
                        assert_eq!(
                            packed_32, expected,
                            "{label}, skip {skip:?}: 32-bit offsets"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pairs_stop_at_the_end_and_prefetches_accept_any_position() {
        let ids = [5u32, 6, 7];
        assert_eq!(Positions::pair(&ids[..], 0), Some([5, 6]));
        assert_eq!(Positions::pair(&ids[..], 1), Some([6, 7]));
        assert_eq!(Positions::pair(&ids[..], 2), None);
        assert_eq!(Positions::pair(&ids[..], 3), None);
        assert_eq!(Positions::pair(&ids[..], usize::MAX), None);
        let packed = SmartArray::from_slice(&[5, 6, 7], &ArrayOptions::new().bits(3)).unwrap();
        let view = packed.local();
        assert_eq!(view.pair(0), Some([5, 6]));
        assert_eq!(view.pair(1), Some([6, 7]));
        assert_eq!(view.pair(2), None);
        assert_eq!(view.pair(usize::MAX), None);
        let run = PackedRun::new(view).unwrap();
        assert_eq!(Positions::pair(run, 0), Some([5, 6]));
        assert_eq!(Positions::pair(run, 1), Some([6, 7]));
        assert_eq!(Positions::pair(run, 2), None);
        assert_eq!(Positions::pair(run, usize::MAX), None);
        for position in [0, 2, 3, 1 << 40, usize::MAX] {
            Positions::prefetch(&ids[..], position);
            view.prefetch(position);
            Positions::prefetch(run, position);
        }
        let empty: [u64; 0] = [];
        assert_eq!(Positions::pair(&empty[..], 0), None);
        Positions::prefetch(&empty[..], 0);
        let labels: Vec<AtomicU32> = Vec::new();
        prefetch_parent(&labels, 0);
        prefetch_parent(&labels, usize::MAX);
    }
}
