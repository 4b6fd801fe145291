//! Searches of a run of consecutive values of a bit-packed array (one vertex's neighbour list)
//! that stop at the first hit, for the bottom-up BFS steps. The width is checked once, when
//! the reader is made, and the run's end once per search, so each value costs one unaligned
//! 8-byte load, a shift and a mask, the bit position advancing by the width: no per-value
//! bounds check, kernel choice or multiply, as [`smartarrays::ArrayView::value`] needs for a
//! random read.

use smartarrays::codec::{max_value, storage_words};
use smartarrays::memory::prefetch::{self, CacheLevel};
use smartarrays::ArrayView;

/// The widest values read here: a value's bits then lie in the 8 bytes from the byte holding
/// its first bit (at most 7 bits into that byte).
pub(crate) const MAX_BITS: u32 = 56;

/// A bit-packed array read by runs (see the module).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackedRun<'a> {
    words: &'a [u64],
    len: usize,
    bits: u32,
    /// `max_value(bits)`, kept rather than derived per search.
    mask: u64,
}

impl<'a> PackedRun<'a> {
    /// A reader of `view`, or `None` when its values are wider than [`MAX_BITS`].
    pub(crate) fn new(view: ArrayView<'a>) -> Option<PackedRun<'a>> {
        let (words, len, bits) = (view.packed_words(), view.len(), view.bits());
        // A view holds its whole storage (the values and the codec's padding words), which
        // the unchecked reads below rely on; checked here once rather than trusted.
        let storage = storage_words(len, bits)?;
        if !(1..=MAX_BITS).contains(&bits) || storage > words.len() {
            return None;
        }
        Some(PackedRun {
            words,
            len,
            bits,
            mask: max_value(bits),
        })
    }

    /// The first value at positions `s..t` for which `hit` holds (none when `s >= t`).
    ///
    /// # Panics
    /// If `t` is past the array's end.
    #[inline(always)]
    pub(crate) fn find(&self, s: usize, t: usize, mut hit: impl FnMut(u64) -> bool) -> Option<u64> {
        assert!(t <= self.len, "run end {t} past {} values", self.len);
        let bits = self.bits as usize;
        let mask = self.mask;
        let base = self.words.as_ptr().cast::<u8>();
        // No overflow: `t * bits <= len * bits`, which `storage_words` computed without one.
        let (mut bit, end) = (s * bits, t * bits);
        while bit < end {
            // SAFETY: `bit < t * bits` marks a value at a position below `t <= len`; its first
            // byte is `bit / 8 <= (len * bits - 1) / 8`, and the 8 bytes from there end at most
            // one word past the data, inside the storage's padding words (checked in `new`:
            // `words` holds `storage_words(len, bits)` words). Unaligned reads are allowed.
            let window = unsafe { base.add(bit / 8).cast::<u64>().read_unaligned() };
            let value = (u64::from_le(window) >> (bit % 8)) & mask;
            if hit(value) {
                return Some(value);
            }
            bit += bits;
        }
        None
    }

    /// The number of values in the array.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The value at `position`, by one unaligned load, a shift and a mask.
    ///
    /// # Panics
    /// If `position` is past the array's end.
    #[inline(always)]
    pub(crate) fn get(&self, position: usize) -> u64 {
        assert!(
            position < self.len,
            "position {position} past {} values",
            self.len
        );
        let bit = position * self.bits as usize;
        // SAFETY: as in `find`: `position < len`, so the 8 bytes from the value's first byte
        // end inside the storage checked in `new`.
        let window = unsafe {
            self.words
                .as_ptr()
                .cast::<u8>()
                .add(bit / 8)
                .cast::<u64>()
                .read_unaligned()
        };
        (u64::from_le(window) >> (bit % 8)) & self.mask
    }

    /// Hints the CPU to load the line holding the first bit of the value at `position` into
    /// L1 (any position is harmless).
    #[inline(always)]
    pub(crate) fn prefetch(&self, position: usize) {
        let word = position.saturating_mul(self.bits as usize) / 64;
        prefetch::prefetch(self.words, word, CacheLevel::L1);
    }

    /// The values at positions `s..t`, written to the start of `out` by single reads (for
    /// short lists, where a bulk decode's fixed cost per call outweighs its speed per value).
    ///
    /// # Panics
    /// If `t` is past the array's end or `out` holds fewer than `t - s` values.
    #[inline(always)]
    pub(crate) fn read_into(&self, s: usize, t: usize, out: &mut [u64]) {
        assert!(t <= self.len, "run end {t} past {} values", self.len);
        let bits = self.bits as usize;
        let mask = self.mask;
        let base = self.words.as_ptr().cast::<u8>();
        let mut bit = s * bits;
        for slot in &mut out[..t.saturating_sub(s)] {
            // SAFETY: as in `find`: `bit` marks a value at a position below `t <= len`, and
            // the 8 bytes from its first byte end inside the storage checked in `new`.
            let window = unsafe { base.add(bit / 8).cast::<u64>().read_unaligned() };
            *slot = (u64::from_le(window) >> (bit % 8)) & mask;
            bit += bits;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use smartarrays::{ArrayOptions, SmartArray};

    /// Values spread over the whole range of `bits` bits, the extremes included.
    pub(crate) fn values(n: usize, bits: u32) -> Vec<u64> {
        let top = max_value(bits);
        (0..n as u64)
            .map(|i| match i % 4 {
                0 => top,
                1 => 0,
                _ => i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & top,
            })
            .collect()
    }

    #[test]
    fn finds_every_value_at_every_width_and_run_length() {
        for bits in 1..=MAX_BITS {
            let all = values(1100, bits);
            let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
            let run = PackedRun::new(array.local()).unwrap();
            for (s, n) in [
                (0, 0),
                (0, 1),
                (5, 63),
                (0, 64),
                (7, 65),
                (3, 1025),
                (1099, 1),
            ] {
                let t = s + n;
                // Every value read in order (a predicate that never hits).
                let mut seen = Vec::new();
                let none = run.find(s, t, |u| {
                    seen.push(u);
                    false
                });
                assert_eq!(none, None, "{bits} bits");
                assert_eq!(seen, all[s..t], "{bits} bits, {s}..{t}");
                // The first hit, at the last position and at a middle one.
                for at in [t.saturating_sub(1), s + n / 2] {
                    if at < t {
                        let mut k = s;
                        let found = run.find(s, t, |_| {
                            k += 1;
                            k - 1 == at
                        });
                        assert_eq!(found, Some(all[at]), "{bits} bits, hit at {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_last_value_of_an_array_is_read_at_every_width() {
        // Arrays whose data end at every offset within a word, so the last read's window
        // reaches into the padding.
        for bits in 1..=MAX_BITS {
            for len in [1, 2, 63, 64, 65] {
                let all = values(len, bits);
                let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
                let run = PackedRun::new(array.local()).unwrap();
                let mut last = None;
                run.find(0, len, |u| {
                    last = Some(u);
                    false
                });
                assert_eq!(last, all.last().copied(), "{bits} bits, {len} values");
            }
        }
    }

    #[test]
    fn single_reads_match_at_every_width_and_edge_position() {
        for bits in 1..=MAX_BITS {
            for len in [1, 2, 63, 64, 65, 1023, 1025] {
                let all = values(len, bits);
                let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
                let run = PackedRun::new(array.local()).unwrap();
                assert_eq!(run.len(), len);
                for (position, &expected) in all.iter().enumerate() {
                    run.prefetch(position);
                    assert_eq!(
                        run.get(position),
                        expected,
                        "{bits} bits, {position} of {len}"
                    );
                }
                // Hints past the end are harmless.
                run.prefetch(len);
                run.prefetch(usize::MAX);
            }
        }
    }

    #[test]
    #[should_panic]
    fn a_single_read_past_the_end_is_refused() {
        let array = SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new().bits(5)).unwrap();
        PackedRun::new(array.local()).unwrap().get(3);
    }

    #[test]
    fn wider_values_are_left_to_the_view() {
        for bits in [57, 63, 64] {
            let array =
                SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new().bits(bits)).unwrap();
            assert!(PackedRun::new(array.local()).is_none(), "{bits} bits");
        }
    }

    #[test]
    fn reads_runs_into_a_buffer_at_every_width_and_length() {
        for bits in 1..=MAX_BITS {
            let all = values(1200, bits);
            let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
            let run = PackedRun::new(array.local()).unwrap();
            for n in [0, 1, 2, 63, 64, 65, 1025] {
                for s in [0, 1, 7, 1200 - n] {
                    let mut out = vec![u64::MAX; n + 3];
                    run.read_into(s, s + n, &mut out);
                    assert_eq!(out[..n], all[s..s + n], "{bits} bits, {n} values from {s}");
                    // Nothing past the run is written.
                    assert_eq!(out[n..], [u64::MAX; 3], "{bits} bits, {n} from {s}");
                }
            }
        }
    }

    #[test]
    #[should_panic]
    fn a_read_past_the_end_is_refused() {
        let array = SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new().bits(5)).unwrap();
        PackedRun::new(array.local())
            .unwrap()
            .read_into(1, 4, &mut [0; 8]);
    }

    #[test]
    #[should_panic]
    fn a_run_past_the_end_is_refused() {
        let array = SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new().bits(5)).unwrap();
        PackedRun::new(array.local()).unwrap().find(1, 4, |_| false);
    }
}
