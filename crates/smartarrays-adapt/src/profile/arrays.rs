//! What a profile knows of each array: its [`ArraySpec`] (length, widths, whether it is read-only
//! and adaptable, how it is decoded) and its [`ArrayProfile`] (the accesses counted or declared).

use serde::{Deserialize, Serialize};
use smartarrays::Placement;

use super::Source;
use crate::model::ArrayLoad;

/// What the profiler must know about an array before the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArraySpec {
    /// Name, e.g. "a1", "rbegin".
    pub name: String,
    /// Number of values.
    pub len: u64,
    /// Width it had while profiled.
    pub profiled_bits: u32,
    /// Its uncompressed width (32 or 64).
    pub natural_bits: u32,
    /// Fewest bits that hold its largest value.
    pub minimal_bits: u32,
    /// Whether the workload only reads it (replication needs this).
    pub read_only: bool,
    /// Whether the advisor may change its placement and width.
    pub adaptable: bool,
    /// How the workload reads it sequentially: with the fused scan kernel (`sum_range`) or by
    /// decoding windows into a buffer (`unpack`).
    #[serde(default)]
    pub decode: Decode,
}

/// How a workload decodes an array it scans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decode {
    /// Fused decode-and-consume kernels (`sum_range`).
    #[default]
    Fused,
    /// Decoded into a buffer first (`unpack`, `for_each_chunk`).
    Unpack,
}

impl ArraySpec {
    /// A read-only, adaptable array of `len` values whose largest value needs `minimal_bits`,
    /// profiled at its natural width (32 bits when the values fit, else 64).
    pub fn read_only(name: &str, len: u64, minimal_bits: u32) -> ArraySpec {
        let natural = natural_bits(minimal_bits);
        ArraySpec {
            name: name.into(),
            len,
            profiled_bits: natural,
            natural_bits: natural,
            minimal_bits,
            read_only: true,
            adaptable: true,
            decode: Decode::Fused,
        }
    }

    /// The same array with another uncompressed width (e.g. 64 for data declared as 64-bit
    /// integers, as the paper's aggregation arrays are), profiled at that width.
    pub fn with_natural(mut self, natural_bits: u32) -> ArraySpec {
        self.natural_bits = natural_bits.max(self.minimal_bits);
        self.profiled_bits = self.natural_bits;
        self
    }

    /// The same array, read by decoding windows into a buffer.
    pub fn unpacked(mut self) -> ArraySpec {
        self.decode = Decode::Unpack;
        self
    }

    /// The same array, fixed (the advisor leaves it interleaved at its profiled width).
    pub fn fixed(mut self) -> ArraySpec {
        self.adaptable = false;
        self
    }

    /// An array the workload writes (adaptable, never replicated).
    pub fn written(name: &str, len: u64, minimal_bits: u32) -> ArraySpec {
        ArraySpec {
            read_only: false,
            ..ArraySpec::read_only(name, len, minimal_bits)
        }
    }
}

pub use smartarrays::array::natural_bits;

/// One array of a profile with its measured accesses (totals over the profiled runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayProfile {
    /// The array.
    #[serde(flatten)]
    pub spec: ArraySpec,
    /// Values read by scans.
    pub sequential_reads: f64,
    /// Values read at random positions.
    pub random_reads: f64,
    /// Values written.
    pub writes: f64,
    /// Where the access counts came from.
    pub access_source: Source,
}

impl ArrayProfile {
    /// All reads.
    pub fn reads(&self) -> f64 {
        self.sequential_reads + self.random_reads
    }

    /// Share of reads at random positions (0 when there are none).
    pub fn random_share(&self) -> f64 {
        if self.reads() > 0.0 {
            self.random_reads / self.reads()
        } else {
            0.0
        }
    }

    /// Bytes one copy takes at `bits`.
    pub fn bytes_at(&self, bits: u32) -> f64 {
        self.spec.len as f64 * bits as f64 / 8.0
    }

    /// The per-run load of this array at `placement` and `bits`, from a profile of `runs` runs.
    pub fn load(&self, placement: Placement, bits: u32, runs: f64) -> ArrayLoad {
        ArrayLoad {
            name: self.spec.name.clone(),
            placement,
            bits,
            len: self.spec.len,
            sequential_reads: self.sequential_reads / runs,
            random_reads: self.random_reads / runs,
            writes: self.writes / runs,
        }
    }
}
