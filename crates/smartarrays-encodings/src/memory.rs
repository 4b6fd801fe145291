//! Memory reports: what each part of a column takes, densely packed (what the compressor
//! compares) and as mapped (whole pages, every replica: what the machine pays).

use std::fmt;

use smartarrays::SmartArray;

/// One part of a column: a smart array by role, or bytes kept outside smart arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPart {
    /// The part's role (`codes`, `offsets`, `validity`, `heap`, ...).
    pub name: String,
    /// Bits per value (`None` outside smart arrays).
    pub bits: Option<u32>,
    /// Number of values.
    pub values: usize,
    /// Bytes densely packed, one copy.
    pub packed_bytes: usize,
    /// Bytes mapped (whole pages, every replica).
    pub mapped_bytes: usize,
    /// Copies (more than 1 when replicated).
    pub replicas: usize,
}

impl MemoryPart {
    pub(crate) fn of_array(name: &str, array: &SmartArray) -> MemoryPart {
        MemoryPart {
            name: name.to_string(),
            bits: Some(array.bits()),
            values: array.len(),
            packed_bytes: array.packed_bytes(),
            mapped_bytes: array.memory_bytes(),
            replicas: array.replica_count(),
        }
    }

    pub(crate) fn heap(name: &str, bytes: usize) -> MemoryPart {
        MemoryPart {
            name: name.to_string(),
            bits: None,
            values: 0,
            packed_bytes: bytes,
            mapped_bytes: bytes,
            replicas: 1,
        }
    }
}

/// The memory of one column, part by part.
///
/// # Example
/// ```
/// use smartarrays_encodings::Column;
/// let values: Vec<u64> = (0..1000).map(|i| i * 7 % 1000).collect(); // 0..=999, unsorted
/// let column = Column::from_u64(&values, &Default::default()).unwrap();
/// let report = column.memory_report();
/// assert_eq!(report.packed_bytes(), 1250); // 1000 values at 10 bits
/// assert!(report.mapped_bytes() >= report.packed_bytes());
/// assert!(report.to_string().contains("bitpacked"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryReport {
    /// The encoding.
    pub encoding: String,
    /// Rows in the column.
    pub rows: usize,
    /// The parts.
    pub parts: Vec<MemoryPart>,
}

impl MemoryReport {
    pub(crate) fn new(encoding: &str, rows: usize, parts: Vec<MemoryPart>) -> MemoryReport {
        MemoryReport {
            encoding: encoding.to_string(),
            rows,
            parts,
        }
    }

    /// Bytes densely packed, one copy, all parts.
    pub fn packed_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.packed_bytes).sum()
    }

    /// Bytes mapped, every replica, all parts.
    pub fn mapped_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.mapped_bytes).sum()
    }

    /// Packed bytes per row (0 for an empty column).
    pub fn bytes_per_value(&self) -> f64 {
        self.packed_bytes() as f64 / self.rows.max(1) as f64
    }
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} column of {} rows: {} bytes packed ({:.3} B/value), {} bytes mapped",
            self.encoding,
            self.rows,
            self.packed_bytes(),
            self.bytes_per_value(),
            self.mapped_bytes()
        )?;
        for p in &self.parts {
            let bits = p.bits.map_or("-".to_string(), |b| b.to_string());
            writeln!(
                f,
                "  {:<12} {:>10} values {:>3} bits {:>12} packed {:>12} mapped {} replica(s)",
                p.name, p.values, bits, p.packed_bytes, p.mapped_bytes, p.replicas
            )?;
        }
        Ok(())
    }
}
