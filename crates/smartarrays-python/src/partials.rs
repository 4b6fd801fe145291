//! Partial results for `smartarrays.distributed`: what each Dask worker computes over its own
//! partition before the global merge (a few numbers per partition cross the network).

use pyo3::prelude::*;
use smartarrays::array::Threads;

use crate::smart_array::PySmartArray;

/// _partial_stats(array) -> (count, exact sum, min, max)
///
/// One partition's pre-aggregation on its array's runtime: the value count, the exact sum (a
/// Python int: partitions' sums are added exactly, then reduced the way `SmartArray.sum` is),
/// and the smallest and largest value (None when empty).
#[pyfunction]
#[pyo3(name = "_partial_stats")]
pub fn partial_stats(
    py: Python<'_>,
    array: PyRef<'_, PySmartArray>,
) -> (usize, u128, Option<u64>, Option<u64>) {
    let array = array.shared();
    py.detach(|| {
        let reduce = array.reduce(Threads::Array);
        let (low, high) = match reduce.minmax() {
            Some((low, high)) => (Some(low), Some(high)),
            None => (None, None),
        };
        (array.len(), reduce.exact_sum(), low, high)
    })
}

/// Registers the functions of this module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(partial_stats, module)?)?;
    Ok(())
}
