//! Saved tables: a versioned, checksummed file (`.sat`) that is read back through a memory
//! map. Version 2 (written) keeps every column packed, as it sits in memory
//! ([`Column::to_parts`]): saving writes the packed words and heap buffers out, loading checks
//! them and copies them into new smart arrays ([`Column::from_parts`]); nothing is decoded or
//! compressed again. Version 1 files (plain values, compressed on load) are still read.
//!
//! # Format, version 2
//!
//! All integers little-endian. The file is a 64-byte header, then the sections (each starts at
//! a multiple of 64 bytes, zero-padded), then the directory.
//!
//! Header:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `SATABLE\0` |
//! | 8 | 4 | version (2) |
//! | 12 | 4 | number of columns |
//! | 16 | 8 | number of rows |
//! | 24 | 8 | directory offset |
//! | 32 | 8 | directory length in bytes |
//! | 40 | 4 | CRC-32 of the directory |
//! | 44 | 4 | CRC-32 of bytes 64 up to the directory (sections and padding) |
//! | 48 | 8 | zero |
//! | 56 | 4 | CRC-32 of bytes 0..56 |
//! | 60 | 4 | zero |
//!
//! Directory, per column: name length (u16) and name (UTF-8); type (u8: 0 UInt64, 1 Int64,
//! 2 Float64, 3 Decimal, 4 Date32, 5 Utf8, 6 Bool); decimal scale (u8); the column's encoding
//! (u8: 0 bitpacked, 1 frame, 2 dictionary, 3 run_end, 4 delta, 5 constant, 6 alp, 7 fsst;
//! 255 none), for readers that only list the file; the number of sections (u16); then each
//! section as offset (u64), length (u64) and CRC-32 (u32). The first section is the column's
//! parts header (type, encoding and its parameters, buffer descriptors, checksummed itself, see
//! `smartarrays_encodings::parts`), the others its buffers in the header's order.
//!
//! Version 1 differs in three places: bytes 44..48 are zero, the directory has no section
//! count, and a column has one section of values (8 bytes per row for UInt64, Int64, Float64
//! as IEEE bits and Decimal as the unscaled integer, 4 for Date32, 1 for Bool) or, for Utf8,
//! two: `rows + 1` u64 offsets, then the concatenated UTF-8 bytes; its encoding byte is
//! reused on load so the compressor need not choose again.
//!
//! A file is written to `PATH.tmp` and renamed over `PATH` only when complete. Loading checks
//! the magic, the checksums of the header, the data and the directory, every section's bounds,
//! alignment and CRC-32, and every column's parts (widths, lengths, codes, offsets, UTF-8: what
//! [`Column::from_parts`] validates) against the header's row count: a truncated or corrupted
//! file is a [`QueryError::Load`] saying what is wrong, never a half-built table. Tables have
//! no nulls yet, so nothing here carries validity.
//!
//! # Example
//! ```
//! use smartarrays_query::{encodings::ColumnOptions, store, tpch};
//! let nation = tpch::table("nation", 0.01, &ColumnOptions::new()).unwrap();
//! let dir = std::env::temp_dir().join(format!("store-example-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("nation.sat");
//! store::save(&nation, &path).unwrap();
//! let back = store::load(&path, &ColumnOptions::new()).unwrap(); // named after the file
//! assert_eq!((back.name(), back.rows()), ("nation", 25));
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use smartarrays_encodings::{Column, ColumnOptions, DataType, EncodingKind};

use crate::error::{QueryError, Result};
use crate::table::{Table, TableColumn};

/// The first 8 bytes of a saved table.
pub const MAGIC: [u8; 8] = *b"SATABLE\0";
/// The version this build writes (it reads this one and version 1).
pub const VERSION: u32 = 2;
/// The first version, whose columns are saved as plain values (still read).
const VERSION_VALUES: u32 = 1;
const HEADER: usize = 64;
const ALIGN: u64 = 64;
const ENCODINGS: [EncodingKind; 8] = [
    EncodingKind::BitPacked,
    EncodingKind::Frame,
    EncodingKind::Dictionary,
    EncodingKind::RunEnd,
    EncodingKind::Delta,
    EncodingKind::Constant,
    EncodingKind::Alp,
    EncodingKind::Fsst,
];

/// A section being written: its offset, its length so far and its running CRC-32.
struct Section {
    offset: u64,
    length: u64,
    crc: crc32fast::Hasher,
}

struct Writer {
    out: BufWriter<File>,
    position: u64,
    /// CRC-32 of every byte written after the header (sections and padding).
    data_crc: crc32fast::Hasher,
}

impl Writer {
    fn pad(&mut self) -> std::io::Result<()> {
        let pad = (ALIGN - self.position % ALIGN) % ALIGN;
        let zeros = vec![0u8; pad as usize];
        self.out.write_all(&zeros)?;
        self.data_crc.update(&zeros);
        self.position += pad;
        Ok(())
    }

    fn begin(&mut self) -> std::io::Result<Section> {
        self.pad()?;
        Ok(Section {
            offset: self.position,
            length: 0,
            crc: crc32fast::Hasher::new(),
        })
    }

    fn write(&mut self, section: &mut Section, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        section.crc.update(bytes);
        self.data_crc.update(bytes);
        section.length += bytes.len() as u64;
        self.position += bytes.len() as u64;
        Ok(())
    }
}

/// Saves `table` at `path` (see the module for the format); the file appears only when
/// complete.
pub fn save(table: &Table, path: &Path) -> Result<()> {
    let source = path.display().to_string();
    let fail = |e: std::io::Error| QueryError::load(&source, e.to_string());
    let temporary = path.with_extension("sat.tmp");
    let written = write_file(table, &temporary).map_err(fail);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    std::fs::rename(&temporary, path).map_err(fail)
}

fn write_file(table: &Table, path: &Path) -> std::io::Result<()> {
    let mut writer = Writer {
        out: BufWriter::with_capacity(1 << 20, File::create(path)?),
        position: 0,
        data_crc: crc32fast::Hasher::new(),
    };
    writer.out.write_all(&[0u8; HEADER])?;
    writer.position = HEADER as u64;
    let mut directory = Vec::new();
    for c in table.columns() {
        let column = &c.column;
        let name = c.name.as_bytes();
        let name_len = u16::try_from(name.len())
            .map_err(|_| std::io::Error::other(format!("column name {} is too long", c.name)))?;
        directory.extend_from_slice(&name_len.to_le_bytes());
        directory.extend_from_slice(name);
        let (code, scale) = column.data_type().code();
        let encoding = ENCODINGS
            .iter()
            .position(|&k| k == column.encoding_kind())
            .map_or(255, |i| i as u8);
        directory.extend_from_slice(&[code, scale, encoding]);
        let sections = write_parts(&mut writer, column)?;
        let count = u16::try_from(sections.len())
            .map_err(|_| std::io::Error::other(format!("column {} has too many parts", c.name)))?;
        directory.extend_from_slice(&count.to_le_bytes());
        for section in sections {
            directory.extend_from_slice(&section.offset.to_le_bytes());
            directory.extend_from_slice(&section.length.to_le_bytes());
            directory.extend_from_slice(&section.crc.finalize().to_le_bytes());
        }
    }
    writer.pad()?;
    let directory_offset = writer.position;
    let data_crc = writer.data_crc.clone().finalize();
    writer.out.write_all(&directory)?;
    let mut header = [0u8; HEADER];
    header[0..8].copy_from_slice(&MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    let columns = u32::try_from(table.columns().len())
        .map_err(|_| std::io::Error::other("too many columns"))?;
    header[12..16].copy_from_slice(&columns.to_le_bytes());
    header[16..24].copy_from_slice(&(table.rows() as u64).to_le_bytes());
    header[24..32].copy_from_slice(&directory_offset.to_le_bytes());
    header[32..40].copy_from_slice(&(directory.len() as u64).to_le_bytes());
    header[40..44].copy_from_slice(&crc32fast::hash(&directory).to_le_bytes());
    header[44..48].copy_from_slice(&data_crc.to_le_bytes());
    let header_crc = crc32fast::hash(&header[..56]);
    header[56..60].copy_from_slice(&header_crc.to_le_bytes());
    writer.out.seek(std::io::SeekFrom::Start(0))?;
    writer.out.write_all(&header)?;
    let file = writer.out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// Writes a column's sections: its packed parts ([`Column::to_parts`]), the header first,
/// then every buffer as it sits in memory.
fn write_parts(writer: &mut Writer, column: &Column) -> std::io::Result<Vec<Section>> {
    let parts = column.to_parts();
    let mut sections = Vec::with_capacity(1 + parts.buffers.len());
    for bytes in std::iter::once(parts.header.as_slice()).chain(parts.buffers.iter().map(|b| &**b))
    {
        let mut section = writer.begin()?;
        writer.write(&mut section, bytes)?;
        sections.push(section);
    }
    Ok(sections)
}

/// Reads fields of the directory with bounds checks.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                "the directory ends in the middle of a column (corrupted)".to_string()
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self) -> std::result::Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> std::result::Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().unwrap_or_default(),
        ))
    }

    fn u32(&mut self) -> std::result::Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }

    fn u64(&mut self) -> std::result::Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}

/// Maps the file at `path` read-only.
fn map(path: &Path) -> std::io::Result<memmap2::Mmap> {
    let file = File::open(path)?;
    // SAFETY: the map is read-only and private to this load; the format's checksums are verified
    // before any value is used, and the map is dropped before `load` returns (every column is
    // built from copies the compressors make). A file truncated or rewritten by another process
    // during the load is outside this function's contract (as for every memory-mapped reader).
    unsafe { memmap2::Mmap::map(&file) }
}

/// Loads a table saved by [`save`], named after the file's stem (`lineitem.sat`: `lineitem`),
/// each column rebuilt with `options` (and the encoding it was saved with, unless `options` asks
/// for one).
pub fn load(path: &Path, options: &ColumnOptions) -> Result<Table> {
    let source = path.display().to_string();
    let fail = |message: String| QueryError::load(&source, message);
    let data = map(path).map_err(|e| fail(e.to_string()))?;
    let bytes: &[u8] = &data;
    if bytes.len() < HEADER {
        return Err(fail(format!(
            "truncated: {} bytes, a saved table's header alone has {HEADER}",
            bytes.len()
        )));
    }
    if bytes[0..8] != MAGIC {
        return Err(fail("not a saved table (wrong magic bytes)".into()));
    }
    if crc32fast::hash(&bytes[..56]) != le_u32(bytes, 56) {
        return Err(fail(
            "the header's checksum does not match (corrupted)".into(),
        ));
    }
    let version = le_u32(bytes, 8);
    if version != VERSION && version != VERSION_VALUES {
        return Err(fail(format!(
            "format version {version} (this build reads versions {VERSION_VALUES} and {VERSION})"
        )));
    }
    let packed = version == VERSION;
    let columns = le_u32(bytes, 12) as usize;
    let rows = usize::try_from(le_u64(bytes, 16))
        .map_err(|_| fail("row count does not fit this machine".into()))?;
    let dir_offset = le_u64(bytes, 24);
    let dir_len = le_u64(bytes, 32);
    let dir_end = dir_offset
        .checked_add(dir_len)
        .filter(|&end| end <= bytes.len() as u64)
        .ok_or_else(|| {
            fail(format!(
                "truncated: the directory ends at byte {}, the file has {}",
                dir_offset.saturating_add(dir_len),
                bytes.len()
            ))
        })?;
    if packed {
        let data = &bytes[HEADER.min(dir_offset as usize)..dir_offset as usize];
        if crc32fast::hash(data) != le_u32(bytes, 44) {
            return Err(fail(
                "the checksum of the data before the directory does not match (corrupted)".into(),
            ));
        }
    }
    let directory = &bytes[dir_offset as usize..dir_end as usize];
    if crc32fast::hash(directory) != le_u32(bytes, 40) {
        return Err(fail(
            "the directory's checksum does not match (corrupted)".into(),
        ));
    }
    let mut cursor = Cursor {
        bytes: directory,
        at: 0,
    };
    let mut specs = Vec::with_capacity(columns);
    for _ in 0..columns {
        let spec = (|| -> std::result::Result<_, String> {
            let name_len = cursor.u16()? as usize;
            let name = std::str::from_utf8(cursor.take(name_len)?)
                .map_err(|_| "a column name is not UTF-8".to_string())?
                .to_string();
            let (code, scale, encoding) = (cursor.u8()?, cursor.u8()?, cursor.u8()?);
            let data_type = DataType::from_code(code, scale)
                .ok_or_else(|| format!("column {name}: unknown type code {code}"))?;
            let count = if packed {
                cursor.u16()? as usize
            } else if data_type == DataType::Utf8 {
                2
            } else {
                1
            };
            if packed && count == 0 {
                return Err(format!("column {name}: no parts (corrupted)"));
            }
            let mut sections = Vec::with_capacity(count);
            for _ in 0..count {
                sections.push((cursor.u64()?, cursor.u64()?, cursor.u32()?));
            }
            Ok((
                name,
                data_type,
                ENCODINGS.get(encoding as usize).copied(),
                sections,
            ))
        })()
        .map_err(&fail)?;
        specs.push(spec);
    }
    // Every section in bounds, aligned and intact before any column is built.
    let mut sliced = Vec::with_capacity(columns);
    for (name, data_type, encoding, sections) in specs {
        let mut parts: Vec<&[u8]> = Vec::with_capacity(sections.len());
        for (i, &(offset, length, crc)) in sections.iter().enumerate() {
            let what = match (packed, i) {
                (true, 0) => "parts header".to_string(),
                (true, i) => format!("buffer {i}"),
                (false, 0) if data_type == DataType::Utf8 => "offsets".to_string(),
                (false, _) => "values".to_string(),
            };
            let end = offset
                .checked_add(length)
                .filter(|&end| end <= dir_offset)
                .ok_or_else(|| {
                    fail(format!(
                        "truncated: column {name}'s {what} end at byte {}, the data ends at {dir_offset}",
                        offset.saturating_add(length)
                    ))
                })?;
            if offset % ALIGN != 0 {
                return Err(fail(format!(
                    "column {name}: {what} not aligned (corrupted)"
                )));
            }
            let part = &bytes[offset as usize..end as usize];
            if crc32fast::hash(part) != crc {
                return Err(fail(format!(
                    "column {name}: the checksum of its {what} does not match (corrupted)"
                )));
            }
            parts.push(part);
        }
        sliced.push((name, data_type, encoding, parts));
    }
    let built = crate::load::par_map(sliced, |_, (name, data_type, encoding, parts)| {
        let mut options = options.clone();
        if options.encoding.is_none() {
            options.encoding = encoding;
        }
        let built = if packed {
            unpack_parts(data_type, rows, &parts, &options)
        } else {
            build_column(&name, data_type, rows, &parts, &options)
        };
        let column = built
            .map_err(|message| QueryError::load(&source, format!("column {name}: {message}")))?;
        Ok(TableColumn::new(&name, column))
    })?;
    drop(data);
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("table");
    Table::new(name, built)
}

fn fixed<T: bytemuck::Pod>(part: &[u8], rows: usize) -> std::result::Result<&[T], String> {
    let width = size_of::<T>();
    if part.len() != rows * width {
        return Err(format!(
            "{} bytes of values, {rows} rows of {width} bytes need {} (corrupted)",
            part.len(),
            rows * width
        ));
    }
    if cfg!(target_endian = "big") {
        return Err("saved tables are little-endian; this machine is big-endian".into());
    }
    bytemuck::try_cast_slice(part).map_err(|e| format!("values not aligned: {e}"))
}

/// A column from its saved packed parts (validated by [`Column::from_parts`]), checked
/// against the directory's type and the header's row count; rebuilt in the encoding `options`
/// asks for when that is not the saved one.
fn unpack_parts(
    data_type: DataType,
    rows: usize,
    parts: &[&[u8]],
    options: &ColumnOptions,
) -> std::result::Result<Column, String> {
    let encoding = |e: smartarrays_encodings::EncodingError| e.to_string();
    let column = Column::from_parts(parts[0], &parts[1..], options).map_err(encoding)?;
    if column.data_type() != data_type || column.len() != rows {
        return Err(format!(
            "its parts hold {} rows of {}, the directory says {rows} of {data_type} (corrupted)",
            column.len(),
            column.data_type()
        ));
    }
    match options.encoding {
        Some(kind) if kind != column.encoding_kind() => {
            let values = column.unpack(0..rows).map_err(encoding)?.values;
            crate::table::column_from_values(values, options).map_err(|e| e.to_string())
        }
        _ => Ok(column),
    }
}

fn build_column(
    _name: &str,
    data_type: DataType,
    rows: usize,
    parts: &[&[u8]],
    options: &ColumnOptions,
) -> std::result::Result<Column, String> {
    let encoding = |e: smartarrays_encodings::EncodingError| e.to_string();
    match data_type {
        DataType::UInt64 => Column::from_u64(fixed::<u64>(parts[0], rows)?, options),
        DataType::Int64 => Column::from_i64(fixed::<i64>(parts[0], rows)?, options),
        DataType::Float64 => Column::from_f64(fixed::<f64>(parts[0], rows)?, options),
        DataType::Decimal { scale } => {
            Column::from_decimal(fixed::<i64>(parts[0], rows)?, scale, options)
        }
        DataType::Date32 => Column::from_dates(fixed::<i32>(parts[0], rows)?, options),
        DataType::Bool => {
            let raw = fixed::<u8>(parts[0], rows)?;
            let mut flags = Vec::with_capacity(rows);
            for (row, &b) in raw.iter().enumerate() {
                match b {
                    0 => flags.push(false),
                    1 => flags.push(true),
                    other => return Err(format!("row {row}: boolean byte {other} (corrupted)")),
                }
            }
            Column::from_bool(&flags, options)
        }
        DataType::Utf8 => {
            let offsets = fixed::<u64>(parts[0], rows + 1)?;
            let text = parts[1];
            if offsets[0] != 0 || offsets[rows] != text.len() as u64 {
                return Err("text offsets do not span the text (corrupted)".into());
            }
            let mut strs = Vec::with_capacity(rows);
            for row in 0..rows {
                let (start, end) = (offsets[row], offsets[row + 1]);
                if start > end {
                    return Err(format!("row {row}: text offsets decrease (corrupted)"));
                }
                let s = std::str::from_utf8(&text[start as usize..end as usize])
                    .map_err(|_| format!("row {row}: text is not UTF-8 (corrupted)"))?;
                strs.push(s);
            }
            Column::from_strs(&strs, options)
        }
    }
    .map_err(encoding)
}
