//! The baselines smart arrays are measured against: plain slices ([`raw`]) and the fastlanes
//! crate's bit-packing kernels ([`fastlanes`]). The benchmarks in [`crate::bench`](mod@crate::bench) time them in
//! the same run as ours and check that both compute the same result.

pub mod fastlanes;
pub mod raw;
