//! The Jacobi PageRank pull over 32-bit neighbour ids read in place with `f32` contributions,
//! as an AVX2 gather (x86-64 only, chosen at run time through the core's kernel level, so
//! `SMARTARRAYS_KERNEL=scalar` turns it off). Each vertex sums its in-neighbours' contributions
//! eight at a time (`vgatherdps` into `f32` lanes, widened to two `f64` accumulators of four
//! lanes), and its last 0 to 7 ids through a masked load and a masked gather: one loop exit per
//! vertex and no read past its list, where the scalar gather (`crate::access::sum_one_exit`)
//! reads up to three ids ahead and multiplies them by 0. Sums stay `f64` over `f32` values;
//! only the order of the additions inside a vertex differs from the scalar gather's. The
//! Gauss-Seidel sweep uses the same sum on a one-worker runtime, where no other thread stores
//! into the cells it reads as plain `f32`.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::sync::atomic::AtomicU32;

/// Whether [`pull_u32_f32`] runs the AVX2 gather on this CPU (and kernel level setting).
#[inline]
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use smartarrays::codec::{detected_level, KernelLevel};
        detected_level() >= KernelLevel::Avx2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the gather runs over `len` values here: AVX2 is available and every index fits the
/// gather's signed 32-bit lanes.
#[inline]
fn usable(len: usize) -> bool {
    available() && len <= i32::MAX as usize
}

/// New ranks of a batch (`offsets` one more than `ranks`, indexing `ids`), as the scalar pull:
/// `rank = base + damping * sum of contributions[id]` over the vertex's ids; returns the sum of
/// absolute changes. `None` when the AVX2 gather is not available (see [`available`]) or the
/// contributions are too many for its signed 32-bit indices.
///
/// # Safety
/// Every id in `ids[offsets[0]..offsets[last]]` must be below `contributions.len()`.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
#[inline]
pub(crate) unsafe fn pull_u32_f32(
    ids: &[u32],
    offsets: &[u64],
    contributions: &[f32],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> Option<f64> {
    if !usable(contributions.len()) {
        return None;
    }
    assert_eq!(offsets.len(), ranks.len() + 1);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 is available (checked above); ids are in range by the caller's
        // contract and below 2^31 (`contributions.len()` is).
        Some(unsafe { pull_avx2(ids, offsets, contributions, ranks, base, damping) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!()
    }
}

/// The loop of [`pull_u32_f32`].
///
/// # Safety
/// AVX2 must be available; every id of the batch's lists must be below `contributions.len()`,
/// which is at most `i32::MAX`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pull_avx2(
    ids: &[u32],
    offsets: &[u64],
    contributions: &[f32],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    let values = contributions.as_ptr();
    let mut change = 0.0;
    for (rank, ends) in ranks.iter_mut().zip(offsets.windows(2)) {
        // SAFETY: AVX2 is enabled here; the ids are below `contributions.len()` (the caller's
        // contract) and nothing writes `contributions` during the call (a shared slice).
        let sum = unsafe { sum_list(&ids[ends[0] as usize..ends[1] as usize], values) };
        let new = base + damping * sum;
        change += (new - *rank).abs();
        *rank = new;
    }
    change
}

/// One batch of a Gauss-Seidel sweep over 32-bit ids read in place and `f32` cells, as
/// `crate::algo::pagerank::sweep_batch` (vertices from `first` on, `offsets` and `degrees`
/// the batch's): each vertex's new rank from the cells of its in-neighbours (summed by the AVX2
/// gather), its cell rewritten at once; returns the change and, with `SPREAD`, the rank of
/// vertices without out-edges. `None` where the gather is not available (see [`available`]).
///
/// # Safety
/// Every id of the batch's lists must be below `cells.len()`, and no other thread may read or
/// write `cells` during the call (a sweep on a one-worker runtime): the gather reads them as
/// plain `f32`, which would race with another worker's stores.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
#[inline]
pub(crate) unsafe fn sweep_u32_f32<const SPREAD: bool>(
    ids: &[u32],
    offsets: &[u64],
    degrees: &[u64],
    cells: &[AtomicU32],
    first: usize,
    ranks: &mut [f64],
    base: f64,
    d: f64,
) -> Option<(f64, f64)> {
    if !usable(cells.len()) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 is available (checked above); the ids and the exclusive use of
        // `cells` are the caller's contract.
        Some(unsafe { sweep_avx2::<SPREAD>(ids, offsets, degrees, cells, first, ranks, base, d) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!()
    }
}

/// The loop of [`sweep_u32_f32`].
///
/// # Safety
/// As [`sweep_u32_f32`], and AVX2 must be available.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sweep_avx2<const SPREAD: bool>(
    ids: &[u32],
    offsets: &[u64],
    degrees: &[u64],
    cells: &[AtomicU32],
    first: usize,
    ranks: &mut [f64],
    base: f64,
    d: f64,
) -> (f64, f64) {
    // `AtomicU32` has the size and layout of `u32`, so the cells read as `f32` bits in place.
    let values = cells.as_ptr().cast::<f32>();
    let mut totals = (0.0, 0.0);
    let n = ranks.len();
    let (ends, degrees, mine) = (&offsets[1..=n], &degrees[..n], &cells[first..first + n]);
    let mut s = offsets[0] as usize;
    for (((rank, &end), &degree), cell) in ranks.iter_mut().zip(ends).zip(degrees).zip(mine) {
        let t = end as usize;
        // SAFETY: AVX2 is enabled here; the ids are below `cells.len()` and no other thread
        // touches `cells` (the caller's contract); this thread's own stores below are
        // sequenced before the next vertex's reads.
        let sum = unsafe { sum_list(&ids[s..t], values) };
        s = t;
        crate::algo::pagerank::finish_vertex::<SPREAD, _>(
            base + d * sum,
            rank,
            degree,
            cell,
            &mut totals,
        );
    }
    totals
}

/// The sum of `values[id]` over `list`, in `f64`: eight ids at a time, then the last 0 to 7
/// through a masked load and gather (one loop exit).
///
/// # Safety
/// AVX2 must be available; every id of `list` must index a value readable at `values` (below
/// the length of the slice `values` points into, and below 2^31), and nothing may write those
/// values during the call.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sum_list(list: &[u32], values: *const f32) -> f64 {
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let mut low = _mm256_setzero_pd();
    let mut high = _mm256_setzero_pd();
    let mut eights = list.chunks_exact(8);
    for eight in &mut eights {
        // SAFETY: `eight` holds 8 ids (32 bytes, unaligned load); each indexes a readable
        // value (the caller's contract), so every gathered lane reads inside the values.
        let got = unsafe {
            let index = _mm256_loadu_si256(eight.as_ptr().cast());
            _mm256_i32gather_ps::<4>(values, index)
        };
        low = _mm256_add_pd(low, _mm256_cvtps_pd(_mm256_castps256_ps128(got)));
        high = _mm256_add_pd(high, _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(got)));
    }
    let rest = eights.remainder();
    // Lanes below the number of ids left (0 to 7) are on; the others are neither loaded nor
    // gathered, and their lanes stay 0.
    let on = _mm256_cmpgt_epi32(_mm256_set1_epi32(rest.len() as i32), lanes);
    // SAFETY: the masked load reads only the `rest.len()` ids of `rest` (masked-off lanes are
    // not accessed and cannot fault); the masked gather reads only those lanes' values, which
    // are readable by the caller's contract.
    let got = unsafe {
        let index = _mm256_maskload_epi32(rest.as_ptr().cast(), on);
        _mm256_mask_i32gather_ps::<4>(_mm256_setzero_ps(), values, index, _mm256_castsi256_ps(on))
    };
    low = _mm256_add_pd(low, _mm256_cvtps_pd(_mm256_castps256_ps128(got)));
    high = _mm256_add_pd(high, _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(got)));
    let both = _mm256_add_pd(low, high);
    let pair = _mm_add_pd(
        _mm256_castpd256_pd128(both),
        _mm256_extractf128_pd::<1>(both),
    );
    _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar reference: `base + damping * sum` per vertex, the sum in `f64` in list order.
    fn plain(
        ids: &[u32],
        offsets: &[u64],
        values: &[f32],
        ranks: &mut [f64],
        base: f64,
        damping: f64,
    ) -> f64 {
        let mut change = 0.0;
        for (rank, ends) in ranks.iter_mut().zip(offsets.windows(2)) {
            let sum: f64 = ids[ends[0] as usize..ends[1] as usize]
                .iter()
                .map(|&id| f64::from(values[id as usize]))
                .sum();
            let new = base + damping * sum;
            change += (new - *rank).abs();
            *rank = new;
        }
        change
    }

    #[test]
    fn the_gather_pull_agrees_with_a_plain_sum_at_edge_lengths() {
        if !available() {
            return;
        }
        let lengths = [
            0usize, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, 0, 3,
        ];
        let n = 1500;
        let values: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.5)).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        // Ids before the batch's first list, so the offsets do not start at 0.
        let mut ids: Vec<u32> = vec![7; 5];
        let mut offsets = vec![ids.len() as u64];
        for &len in &lengths {
            for _ in 0..len {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                ids.push(((state >> 33) % n as u64) as u32);
            }
            offsets.push(ids.len() as u64);
        }
        // The largest id, so a gather reading the last value is covered.
        ids.push(n as u32 - 1);
        *offsets.last_mut().unwrap() += 1;
        let start: Vec<f64> = (0..lengths.len()).map(|i| 0.25 * i as f64).collect();
        let (mut expected, mut got) = (start.clone(), start);
        let want = plain(&ids, &offsets, &values, &mut expected, 0.01, 0.85);
        // SAFETY: every id is below `n = values.len()`.
        let change = unsafe { pull_u32_f32(&ids, &offsets, &values, &mut got, 0.01, 0.85) };
        let change = change.expect("AVX2 is available");
        for (i, (a, b)) in expected.iter().zip(&got).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * a.abs().max(1.0),
                "vertex {i}: {a} vs {b}"
            );
        }
        assert!((want - change).abs() <= 1e-12 * want.max(1.0));
        // Empty lists get exactly `base`.
        assert_eq!(got[0], 0.01);
        assert_eq!(got[15], 0.01);
    }

    #[test]
    fn an_empty_batch_changes_nothing() {
        // SAFETY: no ids are read.
        let change = unsafe { pull_u32_f32(&[], &[0], &[1.0], &mut [], 0.1, 0.85) };
        assert!(change.is_none_or(|c| c == 0.0));
    }
}
