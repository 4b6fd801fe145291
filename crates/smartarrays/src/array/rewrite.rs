//! In-place parallel rewriting of an existing [`SmartArray`]: new values are produced a batch at
//! a time, checked against the array's width and packed into every replica, reusing the array's
//! memory (no allocation, no fresh page faults). Added for graph analytics, whose kernels write
//! a result array of the same shape on every iteration (degree centrality, PageRank's
//! out-degrees); it shares the batch writer of [`SmartArray::from_batches`].

use std::ops::Range;

use super::smart_array::SmartArray;
use crate::error::Result;

impl SmartArray {
    /// Overwrites every value in place: `produce(range, out)` writes the new values of `range`
    /// into a buffer of `range.len()` decoded values, for consecutive ranges of at most 1024
    /// values starting at multiples of 1024, in parallel on the array's runtime. Each replica is
    /// packed by the workers of its own node, so `produce` must be pure: it runs once per range
    /// and replica. Length, width and placement stay as they are and nothing is allocated.
    ///
    /// # Errors
    /// A value wider than the array's bits is an [`Error::ValueTooWide`](crate::Error::ValueTooWide)
    /// naming the lowest such index. The array then keeps its length and width, its replicas
    /// stay equal, and every value holds its new value cut to the width (the misfits keep only
    /// their low bits). Check the widest value first (or size the array for it) where that
    /// matters.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, Error, SmartArray};
    /// let mut array = SmartArray::from_fn(1000, &ArrayOptions::new().bits(12), |i| i as u64).unwrap();
    /// array
    ///     .rewrite_batches(|range, out| {
    ///         for (slot, i) in out.iter_mut().zip(range) {
    ///             *slot = 4 * i as u64;
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!(array.get(999).unwrap(), 3996);
    /// assert_eq!(array.bits(), 12);
    /// let misfit = array.rewrite_batches(|range, out| {
    ///     for (slot, i) in out.iter_mut().zip(range) {
    ///         *slot = if i == 500 { 1 << 12 } else { 0 };
    ///     }
    /// });
    /// assert!(matches!(misfit, Err(Error::ValueTooWide { index: 500, .. })));
    /// ```
    pub fn rewrite_batches(
        &mut self,
        produce: impl Fn(Range<usize>, &mut [u64]) + Sync,
    ) -> Result<()> {
        self.fill_batches(&produce)
    }
}
