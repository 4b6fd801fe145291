//! The baselines smart arrays are measured against: plain slices ([`raw`]), the fastlanes
//! crate's bit-packing kernels ([`fastlanes`]) and a plain Rust CSR graph running the graph
//! crate's kernels ([`plain_csr`]). The benchmarks in [`crate::bench`](mod@crate::bench) time
//! them in the same run as ours and check that both compute the same result.

pub mod fastlanes;
pub mod plain_csr;
pub mod raw;
