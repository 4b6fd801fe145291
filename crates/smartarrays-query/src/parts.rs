//! The serialised form of a table, for sending it to another process packed: its name, row
//! count and columns, each column in the encodings crate's serialised form
//! ([`Column::to_parts`]): the packed words of its smart arrays as they are in memory (borrowed,
//! no copy) and a small header. [`Table::from_parts`] rebuilds the table on the receiving side
//! after checking the table header (magic, version, checksum, names, counts) and every column
//! ([`Column::from_parts`] checks their encodings); anything malformed is an
//! [`EncodingError::MalformedParts`] (as [`QueryError::Encoding`]) naming the part, never a
//! panic or a half-built table.
//!
//! # Table header, version 1
//!
//! Little-endian: magic `SAtp`, version (u16), name length (u16) and name (UTF-8), rows (u64),
//! column count (u32); per column its name length (u16) and name, its column header's length
//! (u32) and bytes, and its number of buffers (u32); then an FNV-1a checksum (u64) of
//! everything before it. The buffers are every column's buffers, in column order.
//!
//! # Example
//! ```
//! use smartarrays_query::{encodings::ColumnOptions, tpch, Table};
//! let nation = tpch::table("nation", 0.01, &ColumnOptions::new()).unwrap();
//! let parts = nation.to_parts();
//! let buffers: Vec<&[u8]> = parts.buffers.iter().map(|b| b.as_ref()).collect();
//! let back = Table::from_parts(&parts.header, &buffers, &ColumnOptions::new()).unwrap();
//! assert_eq!((back.name(), back.rows()), ("nation", 25));
//! assert_eq!(back.packed_bytes(), nation.packed_bytes());
//! ```

use std::borrow::Cow;

use smartarrays_encodings::{Column, ColumnOptions, EncodingError};

use crate::error::{QueryError, Result};
use crate::table::{Table, TableColumn};

/// The first bytes of a table header.
pub const TABLE_PARTS_MAGIC: [u8; 4] = *b"SAtp";
/// The table header version this build writes and reads.
pub const TABLE_PARTS_VERSION: u16 = 1;

/// A table's serialised form: the header and every column's buffers (see the module docs).
#[derive(Debug)]
pub struct TableParts<'a> {
    /// Name, rows and each column's name, header and buffer count, checksummed.
    pub header: Vec<u8>,
    /// Every column's buffers, in column order (the packed words, borrowed).
    pub buffers: Vec<Cow<'a, [u8]>>,
}

impl TableParts<'_> {
    /// Bytes in all buffers.
    pub fn buffer_bytes(&self) -> usize {
        self.buffers.iter().map(|b| b.len()).sum()
    }

    /// Bytes in the header and all buffers.
    pub fn total_bytes(&self) -> usize {
        self.header.len() + self.buffer_bytes()
    }
}

fn malformed(part: impl Into<String>, reason: impl Into<String>) -> QueryError {
    QueryError::Encoding(EncodingError::MalformedParts {
        part: part.into(),
        reason: reason.into(),
    })
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    // Names longer than 65,535 bytes are cut at a character boundary (no SQL name is).
    let mut end = name.len().min(u16::MAX as usize);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    out.extend_from_slice(&(end as u16).to_le_bytes());
    out.extend_from_slice(&name.as_bytes()[..end]);
}

impl Table {
    /// The table's serialised form: a small header and every column's packed words (borrowed)
    /// and heap parts. See the [`parts`](crate::parts) module; [`Table::from_parts`] reads it.
    pub fn to_parts(&self) -> TableParts<'_> {
        let mut header = Vec::with_capacity(64 + 128 * self.columns().len());
        header.extend_from_slice(&TABLE_PARTS_MAGIC);
        header.extend_from_slice(&TABLE_PARTS_VERSION.to_le_bytes());
        put_name(&mut header, self.name());
        header.extend_from_slice(&(self.rows() as u64).to_le_bytes());
        header.extend_from_slice(&(self.columns().len() as u32).to_le_bytes());
        let mut buffers = Vec::new();
        for c in self.columns() {
            let parts = c.column.to_parts();
            put_name(&mut header, &c.name);
            header.extend_from_slice(&(parts.header.len() as u32).to_le_bytes());
            header.extend_from_slice(&parts.header);
            header.extend_from_slice(&(parts.buffers.len() as u32).to_le_bytes());
            buffers.extend(parts.buffers);
        }
        let sum = smartarrays_encodings::parts::checksum(&header);
        header.extend_from_slice(&sum.to_le_bytes());
        TableParts { header, buffers }
    }

    /// Rebuilds a table from [`Table::to_parts`]'s header and buffers, each column placed by
    /// `options` (the sender's encodings are kept). Everything is checked before the table is
    /// returned (see the [`parts`](crate::parts) module).
    pub fn from_parts(header: &[u8], buffers: &[&[u8]], options: &ColumnOptions) -> Result<Table> {
        if header.len() < 6 + 8 {
            return Err(malformed(
                "table header",
                format!("{} bytes, too short for a table header", header.len()),
            ));
        }
        if header[0..4] != TABLE_PARTS_MAGIC {
            return Err(malformed(
                "table header",
                format!(
                    "it starts with {:?}, not {:?}",
                    String::from_utf8_lossy(&header[0..4]),
                    String::from_utf8_lossy(&TABLE_PARTS_MAGIC)
                ),
            ));
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version != TABLE_PARTS_VERSION {
            return Err(QueryError::Encoding(EncodingError::PartsVersion {
                found: version,
                supported: TABLE_PARTS_VERSION,
            }));
        }
        let body = header.len() - 8;
        let stored = u64::from_le_bytes(header[body..].try_into().unwrap_or_default());
        let computed = smartarrays_encodings::parts::checksum(&header[..body]);
        if stored != computed {
            return Err(malformed(
                "table header",
                format!("checksum {stored:#018x} does not match its fields ({computed:#018x})"),
            ));
        }
        let mut cursor = Cursor {
            bytes: &header[..body],
            at: 6,
        };
        let name = cursor.name("table name")?;
        let rows = cursor.u64("rows")?;
        let count = cursor.u32("column count")? as usize;
        let mut columns = Vec::with_capacity(count.min(4096));
        let mut next = 0usize;
        for i in 0..count {
            let column_name = cursor.name(&format!("column {i}'s name"))?;
            let length = cursor.u32(&format!("column {column_name}'s header length"))? as usize;
            let column_header = cursor.take(length, &format!("column {column_name}'s header"))?;
            let parts = cursor.u32(&format!("column {column_name}'s buffer count"))? as usize;
            let end = next
                .checked_add(parts)
                .filter(|&end| end <= buffers.len())
                .ok_or_else(|| {
                    malformed(
                        format!("column {column_name}"),
                        format!(
                            "needs buffers {next}..{}, {} were given",
                            next.saturating_add(parts),
                            buffers.len()
                        ),
                    )
                })?;
            let column = Column::from_parts(column_header, &buffers[next..end], options).map_err(
                |e| match e {
                    EncodingError::MalformedParts { part, reason } => {
                        malformed(format!("column {column_name}: {part}"), reason)
                    }
                    other => QueryError::Encoding(other),
                },
            )?;
            if column.len() as u64 != rows {
                return Err(malformed(
                    format!("column {column_name}"),
                    format!("{} rows, the table has {rows}", column.len()),
                ));
            }
            next = end;
            columns.push(TableColumn::new(&column_name, column));
        }
        if cursor.at != cursor.bytes.len() {
            return Err(malformed(
                "table header",
                format!(
                    "{} bytes are left over after its fields",
                    cursor.bytes.len() - cursor.at
                ),
            ));
        }
        if next != buffers.len() {
            return Err(malformed(
                "buffers",
                format!("{} were given, the columns describe {next}", buffers.len()),
            ));
        }
        if count == 0 && rows != 0 {
            return Err(malformed(
                "rows",
                format!("{rows} rows in a table without columns"),
            ));
        }
        Table::new(&name, columns)
    }
}

/// Reads the table header's fields with bounds checks.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| {
                malformed(
                    what,
                    format!(
                        "the table header ends at byte {} before it",
                        self.bytes.len()
                    ),
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().unwrap_or_default(),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().unwrap_or_default(),
        ))
    }

    fn name(&mut self, what: &str) -> Result<String> {
        let length = u16::from_le_bytes(self.take(2, what)?.try_into().unwrap_or_default());
        let raw = self.take(usize::from(length), what)?;
        std::str::from_utf8(raw)
            .map(str::to_string)
            .map_err(|e| malformed(what, format!("not UTF-8: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpch;
    use smartarrays_encodings::Values;

    fn rebuild(header: &[u8], buffers: &[Vec<u8>]) -> Result<Table> {
        let slices: Vec<&[u8]> = buffers.iter().map(|b| b.as_slice()).collect();
        Table::from_parts(header, &slices, &ColumnOptions::new())
    }

    #[test]
    fn tpch_tables_round_trip_packed() {
        let catalog = tpch::generate(0.002, &ColumnOptions::new(), |_, _, _| {}).unwrap();
        for table in catalog.tables() {
            let parts = table.to_parts();
            // The wire form is the packed size, plus at most one word per array and the headers.
            assert!(
                parts.total_bytes() as f64 <= table.packed_bytes() as f64 * 1.05 + 4096.0,
                "{}: {} bytes for {} packed",
                table.name(),
                parts.total_bytes(),
                table.packed_bytes()
            );
            let buffers: Vec<Vec<u8>> = parts.buffers.iter().map(|b| b.to_vec()).collect();
            let back = rebuild(&parts.header, &buffers).unwrap();
            assert_eq!(back.name(), table.name());
            assert_eq!(back.rows(), table.rows());
            for (a, b) in table.columns().iter().zip(back.columns()) {
                assert_eq!(a.name, b.name);
                assert_eq!(a.column.encoding_kind(), b.column.encoding_kind());
                let (x, y) = (
                    a.column.unpack(0..table.rows()).unwrap().values,
                    b.column.unpack(0..table.rows()).unwrap().values,
                );
                match (&x, &y) {
                    (Values::Float64(p), Values::Float64(q)) => {
                        assert!(p.iter().zip(q).all(|(u, v)| u.to_bits() == v.to_bits()))
                    }
                    _ => assert_eq!(x, y),
                }
            }
        }
    }

    #[test]
    fn an_empty_table_and_malformed_headers() {
        let empty = Table::from_values(
            "e",
            vec![("x".to_string(), Values::Int64(Vec::new()))],
            &ColumnOptions::new(),
        )
        .unwrap();
        let parts = empty.to_parts();
        let buffers: Vec<Vec<u8>> = parts.buffers.iter().map(|b| b.to_vec()).collect();
        let back = rebuild(&parts.header, &buffers).unwrap();
        assert_eq!(
            (back.name(), back.rows(), back.columns().len()),
            ("e", 0, 1)
        );

        let nation = tpch::table("nation", 0.01, &ColumnOptions::new()).unwrap();
        let parts = nation.to_parts();
        let buffers: Vec<Vec<u8>> = parts.buffers.iter().map(|b| b.to_vec()).collect();
        let message = |r: Result<Table>| r.unwrap_err().to_string();
        assert!(message(rebuild(&parts.header, &buffers[1..])).contains("malformed"));
        let mut flipped = parts.header.clone();
        flipped[8] ^= 1;
        assert!(message(rebuild(&flipped, &buffers)).contains("checksum"));
        let mut version = parts.header.clone();
        version[4] = 2;
        assert!(message(rebuild(&version, &buffers)).contains("version 2"));
        assert!(message(rebuild(&parts.header[..20], &buffers)).contains("table header"));
        let mut short = buffers.clone();
        let keep = short[0].len().saturating_sub(8);
        short[0].truncate(keep);
        assert!(message(rebuild(&parts.header, &short)).contains("column n_nationkey"));
    }
}
