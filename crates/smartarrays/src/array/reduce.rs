//! Whole-array reductions with a choice of threads: sum, min, max, minmax, mean (from the exact
//! 128-bit sum), count of non-zero values and a general fold over decoded chunks. The bindings
//! only translate these; none assembles its own reduction.

use std::sync::Arc;

use super::{ArrayView, SmartArray, PARALLEL_BATCH};
use crate::codec;
use crate::runtime::Runtime;

/// Which threads run a reduction.
#[derive(Clone, Debug, Default)]
pub enum Threads {
    /// The array's own runtime, in parallel (each worker reads its node's replica).
    #[default]
    Array,
    /// The calling thread only, reading the replica local to it.
    Calling,
    /// Another runtime's workers (for instance one of a chosen size), in parallel.
    Runtime(Arc<Runtime>),
}

/// Reductions of one array on chosen threads; made by [`SmartArray::reduce`].
///
/// # Example
/// ```
/// use smartarrays::array::Threads;
/// use smartarrays::{ArrayOptions, SmartArray};
/// let array = SmartArray::from_fn(1000, &ArrayOptions::new(), |i| i as u64).unwrap();
/// let parallel = array.reduce(Threads::Array);
/// assert_eq!(parallel.sum(), 499_500);
/// assert_eq!(parallel.minmax(), Some((0, 999)));
/// assert_eq!(parallel.mean(), Some(499.5));
/// assert_eq!(array.reduce(Threads::Calling).count_nonzero(), 999);
/// ```
#[derive(Clone, Debug)]
pub struct Reductions<'a> {
    array: &'a SmartArray,
    threads: Threads,
}

impl SmartArray {
    /// Reductions of this array on `threads`.
    pub fn reduce(&self, threads: Threads) -> Reductions<'_> {
        Reductions {
            array: self,
            threads,
        }
    }
}

impl Reductions<'_> {
    /// Folds consecutive decoded chunks of the whole array: each thread folds the chunks of
    /// the batches it claims into its own accumulator, and the accumulators are combined.
    pub fn fold_chunks<T: Send>(
        &self,
        identity: impl Fn() -> T + Sync,
        fold: impl Fn(T, &[u64]) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        let array = self.array;
        let fold_range = |accumulator: T, view: ArrayView<'_>, range: std::ops::Range<usize>| {
            let mut accumulator = Some(accumulator);
            let visited = view.for_each_chunk(range, |_, values| {
                accumulator = accumulator.take().map(|a| fold(a, values));
            });
            debug_assert!(visited.is_ok());
            accumulator.unwrap_or_else(&identity)
        };
        match &self.threads {
            Threads::Calling => fold_range(identity(), array.local(), 0..array.len()),
            Threads::Array => array.runtime().map_reduce(
                0..array.len(),
                PARALLEL_BATCH,
                &identity,
                |a, worker, range| fold_range(a, array.for_worker(worker), range),
                combine,
            ),
            Threads::Runtime(runtime) => runtime.map_reduce(
                0..array.len(),
                PARALLEL_BATCH,
                &identity,
                |a, worker, range| fold_range(a, array.for_worker(worker), range),
                combine,
            ),
        }
    }

    /// Sum of all values, wrapping modulo 2^64, with the fused unpack-and-sum kernel.
    pub fn sum(&self) -> u64 {
        let array = self.array;
        let batch_sum = |sum: u64, view: ArrayView<'_>, range: std::ops::Range<usize>| {
            sum.wrapping_add(codec::sum_range(
                view.packed_words(),
                array.bits(),
                range.start,
                range.end,
            ))
        };
        match &self.threads {
            Threads::Calling => batch_sum(0, array.local(), 0..array.len()),
            Threads::Array => array.par_sum(),
            Threads::Runtime(runtime) => runtime.map_reduce(
                0..array.len(),
                PARALLEL_BATCH,
                || 0u64,
                |sum, worker, range| batch_sum(sum, array.for_worker(worker), range),
                u64::wrapping_add,
            ),
        }
    }

    /// Exact sum of all values (no wrap-around: 2^64 values of 2^64 - 1 fit in 128 bits).
    pub fn exact_sum(&self) -> u128 {
        self.fold_chunks(
            || 0u128,
            |total, values| total + values.iter().map(|&v| u128::from(v)).sum::<u128>(),
            |a, b| a + b,
        )
    }

    /// Smallest and largest value in one scan; `None` when the array is empty.
    pub fn minmax(&self) -> Option<(u64, u64)> {
        self.fold_chunks(
            || None,
            |found, values| {
                let chunk = values.iter().fold(None, |m: Option<(u64, u64)>, &v| {
                    Some(m.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
                });
                merge_minmax(found, chunk)
            },
            merge_minmax,
        )
    }

    /// Smallest value; `None` when the array is empty.
    pub fn min(&self) -> Option<u64> {
        self.fold_chunks(
            || None,
            |found, values| {
                let chunk = values.iter().copied().min();
                found.into_iter().chain(chunk).min()
            },
            |a: Option<u64>, b| a.into_iter().chain(b).min(),
        )
    }

    /// Largest value; `None` when the array is empty.
    pub fn max(&self) -> Option<u64> {
        self.fold_chunks(
            || None,
            |found, values| found.into_iter().chain(values.iter().copied().max()).max(),
            |a: Option<u64>, b| a.into_iter().chain(b).max(),
        )
    }

    /// Arithmetic mean from the exact sum; `None` when the array is empty.
    pub fn mean(&self) -> Option<f64> {
        let len = self.array.len();
        (len > 0).then(|| self.exact_sum() as f64 / len as f64)
    }

    /// Number of values that are not zero.
    pub fn count_nonzero(&self) -> usize {
        self.fold_chunks(
            || 0usize,
            |count, values| count + values.iter().filter(|&&v| v != 0).count(),
            |a, b| a + b,
        )
    }
}

fn merge_minmax(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> Option<(u64, u64)> {
    match (a, b) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ArrayOptions, Placement, Topology};

    fn every_threads() -> Vec<Threads> {
        let topology = Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap());
        let two_nodes = Runtime::on_described(topology, 3).unwrap();
        vec![
            Threads::Array,
            Threads::Calling,
            Threads::Runtime(Arc::new(Runtime::with_threads(3).unwrap())),
            Threads::Runtime(Arc::new(two_nodes)),
        ]
    }

    #[test]
    fn reductions_match_a_vec_at_edge_lengths_widths_and_threads() {
        for bits in [1u32, 7, 33, 63, 64] {
            let max = codec::max_value(bits);
            for len in [0usize, 1, 63, 64, 65, 1023, 1025, 70_001] {
                let reference: Vec<u64> = (0..len as u64)
                    .map(|i| match i % 7 {
                        0 => max,
                        1 => 0,
                        _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & max,
                    })
                    .collect();
                let array =
                    SmartArray::from_slice(&reference, &ArrayOptions::new().bits(bits)).unwrap();
                let exact: u128 = reference.iter().map(|&v| u128::from(v)).sum();
                for threads in every_threads() {
                    let r = array.reduce(threads.clone());
                    let what = format!("bits {bits} len {len} {threads:?}");
                    assert_eq!(r.sum(), exact as u64, "{what}");
                    assert_eq!(r.exact_sum(), exact, "{what}");
                    assert_eq!(r.min(), reference.iter().copied().min(), "{what}");
                    assert_eq!(r.max(), reference.iter().copied().max(), "{what}");
                    let minmax = r.min().zip(r.max());
                    assert_eq!(r.minmax(), minmax, "{what}");
                    let mean = (len > 0).then(|| exact as f64 / len as f64);
                    assert_eq!(r.mean(), mean, "{what}");
                    let nonzero = reference.iter().filter(|&&v| v != 0).count();
                    assert_eq!(r.count_nonzero(), nonzero, "{what}");
                }
            }
        }
    }

    #[test]
    fn the_mean_of_maximal_values_is_exact_where_a_wrapping_sum_is_not() {
        let array = SmartArray::from_slice(&[u64::MAX; 5], &ArrayOptions::new()).unwrap();
        let r = array.reduce(Threads::Array);
        assert_eq!(r.mean(), Some(u64::MAX as f64));
        assert_eq!(r.sum(), u64::MAX.wrapping_mul(5));
        assert_eq!(r.exact_sum(), u128::from(u64::MAX) * 5);
    }

    #[test]
    fn replicated_arrays_reduce_alike_on_every_threads_choice() {
        let topology = Arc::new(Topology::uniform(2, 1, 8 << 30).unwrap());
        let runtime = Arc::new(Runtime::on_described(topology, 2).unwrap());
        let options = ArrayOptions::new()
            .placement(Placement::Replicated)
            .runtime(runtime);
        let array = SmartArray::from_fn(5000, &options, |i| (i % 17) as u64).unwrap();
        for threads in every_threads() {
            assert_eq!(array.reduce(threads).minmax(), Some((0, 16)));
        }
    }
}
