//! The fastlanes crate as a baseline for the codec's kernels: its `unpack!` macro with a summing
//! body (fused unpack-and-sum) and its `pack`, built the same portable way as our kernels, for
//! the widths `smartarrays bench kernels` compares (u64 at 10, 31, 33, 50, 63 bits; u32 at 10,
//! 26, 31 bits). fastlanes works on blocks of 1024 values in its own transposed layout, so each
//! baseline packs its input once, in that layout, before it is timed.

use std::hint::black_box;

use fastlanes::{unpack, BitPacking, FastLanes};

/// The widths with a fastlanes baseline, as (lane type, bits).
pub const CASES: [(&str, u32); 8] = [
    ("u64", 10),
    ("u64", 31),
    ("u64", 33),
    ("u64", 50),
    ("u64", 63),
    ("u32", 10),
    ("u32", 26),
    ("u32", 31),
];

fn sum_u64<const W: usize, const B: usize>(packed: &[u64]) -> u64 {
    let mut sum = 0u64;
    for block in packed.chunks_exact(B) {
        for lane in 0..<u64 as FastLanes>::LANES {
            unpack!(u64, W, block, lane, |$_index, $value| { sum = sum.wrapping_add($value) });
        }
    }
    sum
}

fn sum_u32<const W: usize, const B: usize>(packed: &[u32]) -> u64 {
    let mut sum = 0u64;
    for block in packed.chunks_exact(B) {
        for lane in 0..<u32 as FastLanes>::LANES {
            unpack!(u32, W, block, lane, |$_index, $value| { sum = sum.wrapping_add($value as u64) });
        }
    }
    sum
}

fn pack_u64<const W: usize, const B: usize>(input: &[u64], packed: &mut [u64]) {
    for (block, out) in input.chunks_exact(1024).zip(packed.chunks_exact_mut(B)) {
        let block: &[u64; 1024] = block.try_into().expect("1024 values");
        let out: &mut [u64; B] = out.try_into().expect("B words");
        u64::pack::<W, B>(block, out);
    }
}

fn pack_u32<const W: usize, const B: usize>(input: &[u32], packed: &mut [u32]) {
    for (block, out) in input.chunks_exact(1024).zip(packed.chunks_exact_mut(B)) {
        let block: &[u32; 1024] = block.try_into().expect("1024 values");
        let out: &mut [u32; B] = out.try_into().expect("B words");
        u32::pack::<W, B>(block, out);
    }
}

/// A fastlanes baseline: a closure timed against ours (it returns a value so the work is kept).
pub type Baseline = Box<dyn FnMut() -> u64>;

/// The fastlanes baselines for one width: a summing closure over the input packed once, and a
/// packing closure (into a buffer allocated once, from the input in fastlanes' own lane type).
pub struct Fastlanes {
    /// Sums every value of the packed input (wrapping); the result equals the input's sum.
    pub sum: Baseline,
    /// Packs the input again; returns the first packed word.
    pub pack: Baseline,
}

/// The baselines for lane type `kind` ("u64" or "u32") at `bits` over `input` (a multiple of
/// 1024 values below 2^bits), or `None` for a width not in [`CASES`].
pub fn baselines(kind: &str, bits: u32, input: &[u64]) -> Option<Fastlanes> {
    macro_rules! u64_case {
        ($w:literal) => {{
            let values = input.to_vec();
            let mut packed = vec![0u64; input.len() / 1024 * 16 * $w];
            pack_u64::<$w, { 16 * $w }>(&values, &mut packed);
            let summed = packed.clone();
            Some(Fastlanes {
                sum: Box::new(move || sum_u64::<$w, { 16 * $w }>(black_box(&summed))),
                pack: Box::new(move || {
                    pack_u64::<$w, { 16 * $w }>(black_box(&values), &mut packed);
                    packed[0]
                }),
            })
        }};
    }
    macro_rules! u32_case {
        ($w:literal) => {{
            let values: Vec<u32> = input.iter().map(|&v| v as u32).collect();
            let mut packed = vec![0u32; input.len() / 1024 * 32 * $w];
            pack_u32::<$w, { 32 * $w }>(&values, &mut packed);
            let summed = packed.clone();
            Some(Fastlanes {
                sum: Box::new(move || sum_u32::<$w, { 32 * $w }>(black_box(&summed))),
                pack: Box::new(move || {
                    pack_u32::<$w, { 32 * $w }>(black_box(&values), &mut packed);
                    u64::from(packed[0])
                }),
            })
        }};
    }
    match (kind, bits) {
        ("u64", 10) => u64_case!(10),
        ("u64", 31) => u64_case!(31),
        ("u64", 33) => u64_case!(33),
        ("u64", 50) => u64_case!(50),
        ("u64", 63) => u64_case!(63),
        ("u32", 10) => u32_case!(10),
        ("u32", 26) => u32_case!(26),
        ("u32", 31) => u32_case!(31),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::values;

    #[test]
    fn every_case_sums_to_the_inputs_sum() {
        for (kind, bits) in CASES {
            let input = values(2048, bits);
            let expected = input.iter().fold(0u64, |s, &v| s.wrapping_add(v));
            let mut baseline = baselines(kind, bits, &input).expect("a listed case");
            assert_eq!((baseline.sum)(), expected, "{kind} {bits} bits");
            (baseline.pack)();
            assert_eq!(
                (baseline.sum)(),
                expected,
                "{kind} {bits} bits, packed again"
            );
        }
        assert!(baselines("u64", 7, &values(1024, 7)).is_none());
    }
}
