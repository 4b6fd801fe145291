//! Invertible hashing over `w` bits: a bijection on `0..2^w`, so a table that keeps the bucket
//! index and the remainder of a hashed key can give the key back (quotienting). Also the fixed
//! 64-bit mix that routes keys to partitions.

/// A multiply-xorshift-multiply mixer on `bits`-bit integers and its inverse. Every step is a
/// bijection on `0..2^bits`: multiplication by an odd constant modulo `2^bits`, and
/// `x ^ (x >> s)` with `2s >= bits`.
///
/// Two multiplications are enough for a table that takes a key's home from the top bits of
/// its hash: the last multiplication carries every bit of its input upwards, and the xorshift
/// before it brings the high bits of the first product down, so the top bits depend on every
/// bit of the key (the test `key_patterns` fills tables with sequential, strided and
/// high-bit-only keys to the same size as scattered ones). A third round cost 8 of the ~110
/// instructions of a single lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mixer {
    mask: u64,
    shift: u32,
    m0: u64,
    m1: u64,
    inv0: u64,
    inv1: u64,
}

/// Multiplicative inverse of an odd `m` modulo 2^64 (Newton's iteration doubles the correct
/// low bits each step: 5 steps from 3 bits reach 96).
fn inverse(m: u64) -> u64 {
    let mut inv = m;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
    }
    inv
}

/// Mask of the low `bits` bits (all ones at 64).
#[inline(always)]
pub(crate) fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bits needed to hold `value` (0 for 0).
#[inline(always)]
pub(crate) fn bits_needed(value: u64) -> u32 {
    64 - value.leading_zeros()
}

impl Mixer {
    /// The mixer on `bits`-bit integers (1..=64).
    pub(crate) fn new(bits: u32) -> Mixer {
        let bits = bits.clamp(1, 64);
        let mask = low_mask(bits);
        let m0 = (0x9e37_79b9_7f4a_7c15 & mask) | 1;
        let m1 = (0xbf58_476d_1ce4_e5b9 & mask) | 1;
        Mixer {
            mask,
            shift: bits.div_ceil(2),
            m0,
            m1,
            inv0: inverse(m0) & mask,
            inv1: inverse(m1) & mask,
        }
    }

    /// The hash of `x` (which must be below `2^bits`).
    #[inline(always)]
    pub(crate) fn mix(&self, mut x: u64) -> u64 {
        // A multiply first, so that inputs which are themselves outputs of a xorshift mixer
        // (keys hashed by the caller) do not cancel the xorshift.
        x = x.wrapping_mul(self.m0) & self.mask;
        x ^= x >> self.shift;
        x.wrapping_mul(self.m1) & self.mask
    }

    /// The `x` whose hash is `h`.
    #[inline(always)]
    pub(crate) fn unmix(&self, mut h: u64) -> u64 {
        h = h.wrapping_mul(self.inv1) & self.mask;
        h ^= h >> self.shift;
        h.wrapping_mul(self.inv0) & self.mask
    }
}

/// The 64-bit finaliser that routes keys to partitions (independent of [`Mixer`], so the keys
/// of one partition still spread over all of its buckets).
#[inline(always)]
pub(crate) fn route(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixers_are_bijections_that_invert() {
        for bits in [1, 2, 7, 8, 13, 31, 32, 33, 63, 64] {
            let mixer = Mixer::new(bits);
            let mask = low_mask(bits);
            for x in (0..2000u64)
                .chain([mask, mask - 1, mask / 3])
                .map(|x| x & mask)
            {
                let h = mixer.mix(x);
                assert!(h <= mask, "bits {bits}");
                assert_eq!(mixer.unmix(h), x, "bits {bits} x {x}");
            }
            if bits <= 12 {
                let mut seen = vec![false; 1 << bits];
                for x in 0..(1u64 << bits) {
                    let h = mixer.mix(x) as usize;
                    assert!(!seen[h], "collision at {bits} bits");
                    seen[h] = true;
                }
            }
        }
        assert_eq!(bits_needed(0), 0);
        assert_eq!(bits_needed(u64::MAX), 64);
        assert_eq!(inverse(3).wrapping_mul(3), 1);
    }
}
