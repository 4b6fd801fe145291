//! Memory reports: what a collection's memory holds and what each entry costs.

use std::fmt;

use crate::table::Table;

/// Where a collection's bytes go.
///
/// # Example
/// ```
/// use smartarrays_collections::Set;
/// let set: Set<u32> = Set::from_keys(&(0..10_000).collect::<Vec<u32>>()).unwrap();
/// let report = set.memory_report();
/// assert_eq!(report.entries, 10_000);
/// assert!(report.bytes_per_entry < 4.0);
/// println!("{report}");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryReport {
    /// Keys held.
    pub entries: usize,
    /// Bytes mapped, all partitions and replicas (whole pages).
    pub bytes: usize,
    /// Bytes of the 64-byte buckets of one replica (without page rounding).
    pub bucket_bytes: usize,
    /// `bytes / entries` (0 when empty).
    pub bytes_per_entry: f64,
    /// Radix partitions.
    pub partitions: usize,
    /// Replicas per partition.
    pub replicas: usize,
    /// Buckets over all partitions.
    pub buckets: u64,
    /// Slots over all partitions.
    pub slots: u64,
    /// `entries / slots`.
    pub load: f64,
    /// Widest key hash domain of any partition, in bits.
    pub key_bits: u32,
    /// Widest remainder kept in a payload (beyond the 7 bits in the tag lane).
    pub remainder_bits: u32,
    /// Widest value field.
    pub value_bits: u32,
    /// Fewest slots per bucket of any partition.
    pub slots_per_bucket: u32,
}

impl MemoryReport {
    pub(crate) fn of(parts: &[Table]) -> MemoryReport {
        let entries: usize = parts.iter().map(Table::len).sum();
        let bytes: usize = parts.iter().map(Table::memory_bytes).sum();
        let buckets: u64 = parts.iter().map(Table::bucket_count).sum();
        let slots: u64 = parts.iter().map(Table::capacity_slots).sum();
        let live = parts.iter().filter(|t| t.bucket_count() > 0);
        MemoryReport {
            entries,
            bytes,
            bucket_bytes: buckets as usize * 64,
            bytes_per_entry: if entries == 0 {
                0.0
            } else {
                bytes as f64 / entries as f64
            },
            partitions: parts.len(),
            replicas: parts.iter().map(Table::replicas).max().unwrap_or(0),
            buckets,
            slots,
            load: if slots == 0 {
                0.0
            } else {
                entries as f64 / slots as f64
            },
            key_bits: live.clone().map(Table::key_bits).max().unwrap_or(0),
            remainder_bits: live
                .clone()
                .map(|t| t.layout().remainder_bits)
                .max()
                .unwrap_or(0),
            value_bits: live
                .clone()
                .map(|t| t.layout().value_bits)
                .max()
                .unwrap_or(0),
            slots_per_bucket: live.map(|t| t.layout().slots).min().unwrap_or(0),
        }
    }
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entries in {} bytes ({:.2} B/entry): {} partition(s) x {} replica(s), {} buckets of \
             64 B, {} slots ({} per bucket), load {:.2}; keys hashed over {} bits, {} remainder \
             bits + 7 in the tag, {} value bits",
            self.entries,
            self.bytes,
            self.bytes_per_entry,
            self.partitions,
            self.replicas,
            self.buckets,
            self.slots,
            self.slots_per_bucket,
            self.load,
            self.key_bits,
            self.remainder_bits,
            self.value_bits
        )
    }
}
