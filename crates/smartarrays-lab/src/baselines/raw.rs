//! Plain-slice baselines: the loops a programmer would write over a `Vec<u64>` without smart
//! arrays. Each is what a smart-array operation is timed against in the same run: a sequential
//! sum (the fused unpack-and-sum kernels), a loop of independent random reads (`get`,
//! `get_unchecked`) and a gather into a buffer (`get_many`). The aggregation's raw baseline is
//! [`RawInput`](crate::workloads::aggregate::RawInput), next to the job it mirrors.

/// The wrapping sum of `values`, one value after another.
#[inline]
pub fn sum(values: &[u64]) -> u64 {
    values.iter().fold(0u64, |s, &v| s.wrapping_add(v))
}

/// The wrapping sum of `values[i]` for every `i` of `indices`, read one by one (independent
/// reads, not pointer chasing).
///
/// # Panics
/// If an index is out of bounds.
#[inline]
pub fn read_loop(values: &[u64], indices: &[usize]) -> u64 {
    indices.iter().fold(0u64, |s, &i| s.wrapping_add(values[i]))
}

/// Gathers `values[indices[k]]` into `out[k]`, then returns the wrapping sum of `out` (so the
/// gathered values are used).
///
/// # Panics
/// If an index is out of bounds.
#[inline]
pub fn gather(values: &[u64], indices: &[usize], out: &mut [u64]) -> u64 {
    for (slot, &i) in out.iter_mut().zip(indices) {
        *slot = values[i];
    }
    sum(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loops_agree() {
        let values: Vec<u64> = (0..100).map(|i| i * 3).collect();
        let indices = [5usize, 0, 99, 5];
        let mut out = [0u64; 4];
        assert_eq!(sum(&values), 3 * 4950);
        assert_eq!(read_loop(&values, &indices), 15 + 297 + 15);
        assert_eq!(gather(&values, &indices, &mut out), 15 + 297 + 15);
        assert_eq!(out, [15, 0, 297, 15]);
    }
}
