//! The measurements behind `smartarrays bench aggregate | kernels | random-get` and
//! `smartarrays graph bench`: each times smart arrays next to a plain baseline
//! ([`crate::baselines`]) in the same run, checks that both computed the same result, and
//! returns rows of figures; the command line formats and plots them.

pub mod aggregate;
pub mod graph;
pub mod kernels;
pub mod random_get;

use smartarrays::codec;

/// `count` deterministic values below 2^`bits`, spread over the whole range (a xorshift
/// sequence seeded by the width).
pub fn values(count: usize, bits: u32) -> Vec<u64> {
    let mut state = 0x2545_F491_4F6C_DD1Du64 ^ bits as u64;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state & codec::max_value(bits)
        })
        .collect()
}
