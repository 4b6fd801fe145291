//! `F64Array`: uncompressed `f64` values with every placement, stored as their IEEE-754 bits in
//! a 64-bit [`SmartArray`] (PageRank ranks, vertex properties).

use std::sync::Arc;

use super::smart_array::{ArrayOptions, SmartArray, PARALLEL_BATCH};
use crate::error::Result;
use crate::memory::{Placement, PlacementReport};
use crate::runtime::Runtime;

/// An array of `f64` with a placement.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, F64Array, Placement};
/// let ranks = F64Array::from_fn(4, &ArrayOptions::new().placement(Placement::Replicated), |i| i as f64 * 0.5).unwrap();
/// assert_eq!(ranks.get(3).unwrap(), 1.5);
/// assert_eq!(ranks.as_slice(), &[0.0, 0.5, 1.0, 1.5]);
/// ```
#[derive(Debug)]
pub struct F64Array {
    bits: SmartArray,
}

impl F64Array {
    /// Builds from a slice.
    pub fn from_slice(values: &[f64], options: &ArrayOptions) -> Result<F64Array> {
        F64Array::from_fn(values.len(), options, |i| values[i])
    }

    /// Builds from a pure function of the index, in parallel (each replica written on its node).
    pub fn from_fn(
        len: usize,
        options: &ArrayOptions,
        value: impl Fn(usize) -> f64 + Sync,
    ) -> Result<F64Array> {
        SmartArray::from_fn(len, &options.clone().bits(64), |i| value(i).to_bits())
            .map(|bits| F64Array { bits })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// The placement.
    pub fn placement(&self) -> &Placement {
        self.bits.placement()
    }

    /// Value `index`.
    pub fn get(&self, index: usize) -> Result<f64> {
        self.bits.get(index).map(f64::from_bits)
    }

    /// Sets value `index` in every replica.
    pub fn set(&mut self, index: usize, value: f64) -> Result<()> {
        self.bits.set(index, value.to_bits())
    }

    /// The values of the calling thread's local replica, in place.
    pub fn as_slice(&self) -> &[f64] {
        let view = self.bits.local();
        &bytemuck::cast_slice(view.packed_words())[..self.len()]
    }

    /// The values of the replica a runtime worker should read (its node's copy of a replicated
    /// array), in place.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, F64Array, Placement, Runtime};
    /// let runtime = std::sync::Arc::new(Runtime::with_threads(2).unwrap());
    /// let options = ArrayOptions::new().placement(Placement::Replicated).runtime(runtime.clone());
    /// let model = F64Array::from_slice(&[0.5, -1.0], &options).unwrap();
    /// let sums = runtime.on_each_worker(|worker| model.for_worker(worker).iter().sum::<f64>());
    /// assert_eq!(sums, [-0.5, -0.5]);
    /// ```
    pub fn for_worker(&self, worker: &crate::runtime::Worker) -> &[f64] {
        let view = self.bits.for_worker(worker);
        &bytemuck::cast_slice(view.packed_words())[..self.len()]
    }

    /// The values of replica `index`, in place.
    pub fn replica_slice(&self, index: usize) -> &[f64] {
        &bytemuck::cast_slice(self.bits.replica(index).packed_words())[..self.len()]
    }

    /// Sum of all values in parallel (floating-point addition order depends on scheduling, so
    /// the last bits may differ between runs).
    pub fn par_sum(&self) -> f64 {
        let runtime: &Arc<Runtime> = self.bits.runtime();
        runtime.map_reduce(
            0..self.len(),
            PARALLEL_BATCH,
            || 0.0f64,
            |sum, worker, range| {
                let words = self.bits.for_worker(worker).packed_words();
                sum + bytemuck::cast_slice::<u64, f64>(&words[range])
                    .iter()
                    .sum::<f64>()
            },
            |a, b| a + b,
        )
    }

    /// All values.
    pub fn to_vec(&self) -> Vec<f64> {
        self.as_slice().to_vec()
    }

    /// Where the pages are.
    pub fn placement_report(&self) -> Result<PlacementReport> {
        self.bits.placement_report()
    }

    /// Rewrites the values in place, in parallel: `body(accumulator, worker, range, values)` gets
    /// each batch `range` of the array (boundaries at multiples of `batch`) exactly once, with
    /// its current values to overwrite; replicas are brought up to date afterwards. The
    /// accumulators of the workers are combined with `combine` (e.g. a sum of changes).
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, F64Array};
    /// let mut ranks = F64Array::from_fn(1000, &ArrayOptions::new(), |i| i as f64).unwrap();
    /// let change = ranks.par_update(64, || 0.0, |change, _worker, _range, values| {
    ///     values.iter_mut().fold(change, |c, v| { *v += 1.0; c + 1.0 })
    /// }, |a, b| a + b);
    /// assert_eq!(change, 1000.0);
    /// assert_eq!(ranks.get(999).unwrap(), 1000.0);
    /// ```
    pub fn par_update<T: Send>(
        &mut self,
        batch: usize,
        identity: impl Fn() -> T + Sync,
        body: impl Fn(T, &crate::runtime::Worker, std::ops::Range<usize>, &mut [f64]) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        self.bits.par_update_words(
            batch,
            identity,
            |a, worker, range, words| body(a, worker, range, bytemuck::cast_slice_mut(words)),
            combine,
        )
    }

    /// The underlying 64-bit array.
    pub fn raw(&self) -> &SmartArray {
        &self.bits
    }
}
