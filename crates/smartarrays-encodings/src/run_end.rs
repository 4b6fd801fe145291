//! Run-end encoding: for each run of equal neighbours, where it ends (exclusive, bit-packed in
//! a [`SmartArray`]) and its value (through [`Frame`]). Sorted and clustered columns shrink to
//! their number of runs; a row is found by binary search over the ends, and filters, sums and
//! minima touch each run once rather than each row.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::{check_indices, check_range, Result};
use crate::frame::Frame;
use crate::integer::KeyEncoding;
use crate::kernel::{self, KeyFilter, BLOCK};
use crate::selection::Selection;

/// Run ends plus run values.
///
/// # Example
/// ```
/// use smartarrays_encodings::{KeyEncoding, KeyFilter, RunEnd};
/// let runs = RunEnd::new(&[5, 5, 5, 8, 8, 5], &Default::default()).unwrap();
/// assert_eq!(runs.ends().to_vec(), vec![3, 5, 6]);
/// assert_eq!(runs.run_values().to_vec(), vec![5, 8, 5]);
/// assert_eq!(runs.get(4).unwrap(), 8);
/// assert_eq!(runs.filter(&KeyFilter::Range { lo: 5, hi: 5 }).unwrap().row_ids(), vec![0, 1, 2, 5]);
/// assert_eq!(runs.sum(), 5 * 4 + 8 * 2);
/// ```
#[derive(Debug)]
pub struct RunEnd {
    pub(crate) len: usize,
    pub(crate) ends: SmartArray,
    pub(crate) values: Frame,
}

impl RunEnd {
    /// Finds the runs of `values` and encodes them, placed by `options`.
    pub fn new(values: &[u64], options: &ArrayOptions) -> Result<RunEnd> {
        let mut ends = Vec::new();
        let mut run_values = Vec::new();
        for (i, &value) in values.iter().enumerate() {
            if run_values.last() != Some(&value) || i == 0 {
                if i > 0 {
                    ends.push(i as u64);
                }
                run_values.push(value);
            }
        }
        if !values.is_empty() {
            ends.push(values.len() as u64);
        }
        let ends = kernel::pack(ends.len(), values.len() as u64, options, |i| ends[i])?;
        Ok(RunEnd {
            len: values.len(),
            ends,
            values: Frame::new(&run_values, options)?,
        })
    }

    /// Where each run ends (exclusive).
    pub fn ends(&self) -> &SmartArray {
        &self.ends
    }

    /// The value of each run.
    pub fn run_values(&self) -> &Frame {
        &self.values
    }

    /// The run holding row `row` (< len).
    fn run_of(&self, row: usize) -> Result<usize> {
        let (mut lo, mut hi) = (0usize, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.ends.get(mid)? as usize <= row {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Calls `visit(start, end, value)` for each run, in order.
    fn for_each_run(&self, mut visit: impl FnMut(usize, usize, u64)) -> Result<()> {
        let runs = self.ends.len();
        let mut ends = vec![0u64; BLOCK];
        let mut values = vec![0u64; BLOCK];
        let mut start = 0usize;
        let mut first = 0;
        while first < runs {
            let count = (runs - first).min(BLOCK);
            self.ends.unpack(first, &mut ends[..count])?;
            self.values.unpack(first, &mut values[..count])?;
            for (&end, &value) in ends[..count].iter().zip(&values[..count]) {
                visit(start, end as usize, value);
                start = end as usize;
            }
            first += count;
        }
        Ok(())
    }
}

impl KeyEncoding for RunEnd {
    fn name(&self) -> &'static str {
        "run_end"
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> Result<u64> {
        check_indices(&[index], self.len)?;
        self.values.get(self.run_of(index)?)
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        let end = start.saturating_add(out.len());
        check_range(start, end, self.len)?;
        if out.is_empty() {
            return Ok(());
        }
        let mut run = self.run_of(start)?;
        let mut row = start;
        while row < end {
            let run_end = (self.ends.get(run)? as usize).min(end);
            out[row - start..run_end - start].fill(self.values.get(run)?);
            row = run_end;
            run += 1;
        }
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        check_indices(indices, self.len)?;
        indices
            .iter()
            .map(|&i| self.values.get(self.run_of(i)?))
            .collect()
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        let mut selection = Selection::none(self.len);
        if *filter == KeyFilter::Nothing {
            return Ok(selection);
        }
        self.for_each_run(|start, end, value| {
            if filter.matches(value) {
                selection.set_range(start, end);
            }
        })?;
        Ok(selection)
    }
    fn sum(&self) -> u128 {
        let mut total = 0u128;
        let visited = self.for_each_run(|start, end, value| {
            total += u128::from(value) * (end - start) as u128;
        });
        debug_assert!(visited.is_ok());
        total
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        self.values.min_max()
    }
    fn run_count(&self) -> usize {
        self.ends.len()
    }
    fn distinct_estimate(&self) -> u64 {
        self.values.distinct_estimate()
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![("ends", &self.ends), ("run values", self.values.offsets())]
    }
    fn heap_bytes(&self) -> usize {
        8
    }
}
