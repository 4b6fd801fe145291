//! The Jacobi PageRank pull over 32-bit neighbour ids read in place with `f32` contributions,
//! as an AVX2 gather (x86-64 only, chosen at run time through the core's kernel level, so
//! `SMARTARRAYS_KERNEL=scalar` turns it off). Each vertex sums its in-neighbours' contributions
//! eight at a time (`vgatherdps` into `f32` lanes, widened to two `f64` accumulators of four
//! lanes), and its last 0 to 7 ids through a masked load and a masked gather: one loop exit per
//! vertex and no read past its list, where the scalar gather (`crate::access::sum_one_exit`)
//! reads up to three ids ahead and multiplies them by 0. Sums stay `f64` over `f32` values;
//! only the order of the additions inside a vertex differs from the scalar gather's. The
//! Gauss-Seidel sweep uses the same sum over its shared cells, which other workers store into
//! while it reads them: there the gather is an `asm!` block ([`gather_cells`]), whose eight
//! lanes are eight relaxed atomic loads.

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
        let sum = unsafe { sum_list::<false>(&ids[ends[0] as usize..ends[1] as usize], values) };
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
/// Other threads may load and store `cells` during the call (the other workers of the sweep):
/// the gather reads them through [`gather_cells`], as relaxed atomic loads.
///
/// # Safety
/// Every id of the batch's lists must be below `cells.len()`.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
#[inline]
pub(crate) unsafe fn sweep_u32_f32<const SPREAD: bool>(
    ids: &[u32],
    offsets: &[u64],
    degrees: &[u64],
    cells: &[AtomicU32],
    first: crate::algo::pagerank::Mine<'_>,
    ranks: &mut [f64],
    base: f64,
    d: f64,
) -> Option<(f64, f64)> {
    if !usable(cells.len()) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 is available (checked above); the ids are in range by the caller's
        // contract and below 2^31 (`cells.len()` is).
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
    mine: crate::algo::pagerank::Mine<'_>,
    ranks: &mut [f64],
    base: f64,
    d: f64,
) -> (f64, f64) {
    // `AtomicU32` has the size and layout of `u32`, so the cells read as `f32` bits in place.
    let values = cells.as_ptr().cast::<f32>();
    let mut totals = (0.0, 0.0);
    let n = ranks.len();
    let (ends, degrees) = (&offsets[1..=n], &degrees[..n]);
    let mut s = offsets[0] as usize;
    for (i, ((rank, &end), &degree)) in ranks.iter_mut().zip(ends).zip(degrees).enumerate() {
        let cell = mine.cell(cells, i);
        let t = end as usize;
        // SAFETY: AVX2 is enabled here; the ids are below `cells.len()` (the caller's
        // contract); with `SHARED` the gathers are atomic loads of the cells (see
        // `gather_cells`), so other workers' stores do not race with them.
        let sum = unsafe { sum_list::<true>(&ids[s..t], values) };
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
/// through a masked load and gather (one loop exit). With `SHARED` the values are `f32` bits in
/// atomic words that other threads may store into, read by [`gather_cells`].
///
/// # Safety
/// AVX2 must be available; every id of `list` must index a value readable at `values` (below
/// the length of the slice `values` points into, and below 2^31). Without `SHARED`, nothing
/// may write those values during the call; with it, `values` must point into `AtomicU32`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn sum_list<const SHARED: bool>(list: &[u32], values: *const f32) -> f64 {
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let mut low = _mm256_setzero_pd();
    let mut high = _mm256_setzero_pd();
    let mut eights = list.chunks_exact(8);
    for eight in &mut eights {
        // SAFETY: `eight` holds 8 ids (32 bytes, unaligned load); each indexes a readable
        // value (the caller's contract), so every gathered lane reads inside the values.
        let got = unsafe {
            let index = _mm256_loadu_si256(eight.as_ptr().cast());
            if SHARED {
                gather_cells(values, index, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))
            } else {
                _mm256_i32gather_ps::<4>(values, index)
            }
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
        if SHARED {
            gather_cells(values, index, _mm256_castsi256_ps(on))
        } else {
            _mm256_mask_i32gather_ps::<4>(
                _mm256_setzero_ps(),
                values,
                index,
                _mm256_castsi256_ps(on),
            )
        }
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

/// `values[index]` in the lanes whose `mask` lane has its top bit set, 0 in the others: one
/// `vgatherdps` in an `asm!` block, for cells that other threads store into.
///
/// Why not the intrinsic: `_mm256_mask_i32gather_ps` is a plain (non-atomic) read of the eight
/// values as far as Rust's memory model goes, so another thread's concurrent store into one of
/// them would be a data race, undefined behaviour whatever the hardware does. An `asm!` block is
/// opaque to the compiler (the Rust reference's inline-assembly chapter: the compiler must
/// assume it does what its operands and options allow and nothing else is known; see also
/// unsafe-code-guidelines issue 422 on specifying it); its effect on memory must be one that
/// Rust code could have (the RFC 2873 discussion's analogy with a call to foreign code). Here
/// that code is eight `AtomicU32::load(Relaxed)`, one per active lane: the Intel SDM (vol. 2,
/// VGATHERDPS) reads each element as a separate access, and each is an aligned 4-byte read
/// (the cells are `AtomicU32`, aligned to 4), which x86 performs atomically (vol. 3, section
/// 8.1.1 / 9.1.1, guaranteed atomic operations): exactly what a relaxed atomic load compiles to
/// on x86-64, a plain `mov`. The order between lanes is unspecified, as it is between eight
/// relaxed loads. `readonly`: the block stores nothing to memory; not `pure`, as the cells
/// may change between two gathers.
///
/// # Safety
/// AVX2 must be available; `values` must point to `f32` bits held in `AtomicU32`s, and every
/// active lane's index (0 to 2^31) must be inside them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_cells(values: *const f32, index: __m256i, mask: __m256) -> __m256 {
    let mut got = _mm256_setzero_ps();
    // SAFETY: AVX2 is enabled here (VGATHERDPS needs it); every active lane reads an aligned
    // atomic cell in bounds (the caller's contract), as a relaxed atomic load would (see
    // above); inactive lanes read nothing and keep the 0 of `got`. The instruction clears its
    // mask register, declared as clobbered (`=> _`); `got`, `index` and `mask` are distinct
    // registers (two are in-out, so no input shares them), as VGATHERDPS requires. No stack
    // use, no flags changed.
    unsafe {
        std::arch::asm!(
            "vgatherdps {got}, [{base} + {index}*4], {mask}",
            got = inout(ymm_reg) got,
            base = in(reg) values,
            index = in(ymm_reg) index,
            mask = inout(ymm_reg) mask => _,
            options(nostack, preserves_flags, readonly),
        );
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::pagerank::Mine;
    use std::sync::atomic::Ordering;

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
        // The last list ends with the largest id, so a gather reading the last value is
        // covered; five ids come before the batch's first list, so the offsets do not
        // start at 0.
        let (mut ids, mut offsets) = lists(&lengths, n, 0x9e37_79b9_7f4a_7c15);
        ids.splice(0..0, [7; 5]);
        offsets.iter_mut().for_each(|o| *o += 5);
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

    /// Neighbour lists of the given lengths over `n` vertices (pseudo-random ids, the last
    /// list ending with the largest id), and their offsets from 0.
    fn lists(lengths: &[usize], n: usize, mut state: u64) -> (Vec<u32>, Vec<u64>) {
        let mut ids = Vec::new();
        let mut offsets = vec![0u64];
        for &len in lengths {
            for _ in 0..len {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                ids.push(((state >> 33) % n as u64) as u32);
            }
            offsets.push(ids.len() as u64);
        }
        ids.push(n as u32 - 1);
        *offsets.last_mut().unwrap() += 1;
        (ids, offsets)
    }

    const LENGTHS: [usize; 12] = [0, 1, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1025];

    #[test]
    fn the_shared_sweep_matches_a_serial_gauss_seidel_step_at_edge_lengths() {
        if !available() {
            return;
        }
        // Every length twice, so later vertices read cells rewritten earlier in the batch.
        let lengths: Vec<usize> = LENGTHS.iter().chain(&LENGTHS).copied().collect();
        let n = lengths.len();
        let (ids, offsets) = lists(&lengths, n, 0x2545_f491_4f6c_dd1d);
        let degrees: Vec<u64> = (0..n as u64).map(|v| v % 5).collect();
        let start = |v: usize| 0.5 + v as f64 * 0.01;
        let share = |v: usize, rank: f64| f64::from((rank / degrees[v].max(1) as f64) as f32);
        let (base, d) = (0.01, 0.85);
        // The reference: a serial step with each cell rounded to `f32` as it is written.
        let mut want_cells: Vec<f64> = (0..n).map(|v| share(v, start(v))).collect();
        let mut want: Vec<f64> = (0..n).map(start).collect();
        let (mut delta, mut lost) = (0.0, 0.0);
        for v in 0..n {
            let list = &ids[offsets[v] as usize..offsets[v + 1] as usize];
            let new = base + d * list.iter().map(|&u| want_cells[u as usize]).sum::<f64>();
            delta += (new - want[v]).abs();
            if degrees[v] == 0 {
                lost += new;
            }
            want[v] = new;
            want_cells[v] = share(v, new);
        }
        let cells: Vec<AtomicU32> = (0..n)
            .map(|v| AtomicU32::new((share(v, start(v)) as f32).to_bits()))
            .collect();
        let mut ranks: Vec<f64> = (0..n).map(start).collect();
        // SAFETY: every id is below `n = cells.len()`.
        let got = unsafe {
            sweep_u32_f32::<true>(
                &ids,
                &offsets,
                &degrees,
                &cells,
                Mine::From(0),
                &mut ranks,
                base,
                d,
            )
        };
        let (change, dangling) = got.expect("AVX2 is available");
        let close = |a: f64, b: f64, e: f64| (a - b).abs() <= e * b.abs().max(1.0);
        for v in 0..n {
            assert!(
                close(ranks[v], want[v], 1e-6),
                "vertex {v}: {} vs {}",
                ranks[v],
                want[v]
            );
            let cell = f64::from(f32::from_bits(cells[v].load(Ordering::Relaxed)));
            assert!(
                close(cell, want_cells[v], 1e-6),
                "cell {v}: {cell} vs {}",
                want_cells[v]
            );
        }
        assert!(close(change, delta, 1e-6), "{change} vs {delta}");
        assert!(close(dangling, lost, 1e-6), "{dangling} vs {lost}");
        // Empty lists get exactly `base`.
        assert_eq!(ranks[0], base);
    }

    #[test]
    fn shared_sweeps_on_three_threads_read_old_or_new_cells() {
        if !available() {
            return;
        }
        // Three workers sweep their own vertices at once, reading every worker's cells: each
        // gathered lane is the cell's value before or after its one rewrite, so every new rank
        // lies between the sums over the smaller and the larger of the two. 200 vertices a
        // worker (about 21 000 ids each), so the sweeps overlap in time.
        let lengths: Vec<usize> = LENGTHS.iter().cycle().take(3 * 200).copied().collect();
        let n = lengths.len();
        let (ids, offsets) = lists(&lengths, n, 0x9e37_79b9_7f4a_7c15);
        let degrees: Vec<u64> = (0..n as u64).map(|v| 1 + v % 3).collect();
        let before: Vec<f32> = (0..n).map(|v| 1.0 + (v % 17) as f32 * 0.25).collect();
        let (base, d) = (0.01, 0.85);
        for round in 0..20 {
            let cells: Vec<AtomicU32> =
                before.iter().map(|x| AtomicU32::new(x.to_bits())).collect();
            let mut ranks = vec![0.0f64; n];
            let third = n / 3;
            std::thread::scope(|scope| {
                for (k, part) in ranks.chunks_mut(third).enumerate() {
                    let (first, cells, ids, degrees) = (k * third, &cells, &ids, &degrees);
                    // The batch's offsets and degrees, as the sweep passes them.
                    let offsets = &offsets[first..=first + part.len()];
                    let degrees = &degrees[first..first + part.len()];
                    scope.spawn(move || {
                        // SAFETY: every id is below `n = cells.len()`.
                        unsafe {
                            sweep_u32_f32::<false>(
                                ids,
                                offsets,
                                degrees,
                                cells,
                                Mine::From(first),
                                part,
                                base,
                                d,
                            )
                        }
                        .expect("AVX2 is available")
                    });
                }
            });
            let after: Vec<f64> = cells
                .iter()
                .map(|c| f64::from(f32::from_bits(c.load(Ordering::Relaxed))))
                .collect();
            for v in 0..n {
                let list = &ids[offsets[v] as usize..offsets[v + 1] as usize];
                let pick = |f: fn(f64, f64) -> f64| {
                    base + d * list
                        .iter()
                        .map(|&u| f(f64::from(before[u as usize]), after[u as usize]))
                        .sum::<f64>()
                };
                let (low, high) = (pick(f64::min), pick(f64::max));
                let slack = 1e-9 * high;
                assert!(
                    low - slack <= ranks[v] && ranks[v] <= high + slack,
                    "round {round} vertex {v}: {} outside {low}..{high}",
                    ranks[v]
                );
                let share = (ranks[v] / degrees[v] as f64) as f32;
                assert_eq!(after[v], f64::from(share), "round {round} cell {v}");
            }
        }
    }

    #[test]
    fn an_empty_batch_changes_nothing() {
        // SAFETY: no ids are read.
        let change = unsafe { pull_u32_f32(&[], &[0], &[1.0], &mut [], 0.1, 0.85) };
        assert!(change.is_none_or(|c| c == 0.0));
    }
}
