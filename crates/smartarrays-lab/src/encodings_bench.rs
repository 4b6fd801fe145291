//! The encodings benchmark of issue 13: typed columns (TPC-H lineitem, built by the example
//! `encodings` with the `tpchgen` crate, and the synthetic distributions of [`synthetic`])
//! compressed by the encodings crate's sampling compressor, with per column the chosen encoding,
//! its width, bits and bytes per value, the compressor's reason, and the single-thread
//! throughput of a typical filter (evaluated in code space) and of a full decode, next to a
//! plain scan of `u64`s larger than the caches ([`raw_scan`]).
//!
//! [`write_report`] writes the columns in a plain binary form (little-endian values; strings as
//! 64-bit offsets plus UTF-8 bytes) and a JSON report that names them, so that
//! `scripts/encodings_vs_duckdb.py` loads exactly the same values into DuckDB and Parquet.

use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use smartarrays_encodings::{
    Column, ColumnOptions, DataType, Explanation, Predicate, Scalar, Values,
};

use crate::Result;

/// One column to measure: its values in their stored type and a typical predicate.
#[derive(Clone, Debug)]
pub struct BenchColumn {
    /// The column's name (`l_quantity`, `zipf`, ...).
    pub name: String,
    /// The values (Int64, Decimal, Date32, Float64, Utf8, UInt64 or Bool).
    pub values: Values,
    /// The filter measured on it.
    pub predicate: Predicate,
    /// The filter in SQL words, for the report.
    pub predicate_sql: String,
}

impl BenchColumn {
    /// A column named `name` with its values and filter.
    pub fn new(
        name: &str,
        values: Values,
        predicate: Predicate,
        predicate_sql: &str,
    ) -> BenchColumn {
        BenchColumn {
            name: name.to_string(),
            values,
            predicate,
            predicate_sql: predicate_sql.to_string(),
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.values.len()
    }
}

/// A named group of columns of equal length (`lineitem`, `synthetic`).
#[derive(Clone, Debug)]
pub struct BenchTable {
    /// The table's name.
    pub name: String,
    /// Its columns.
    pub columns: Vec<BenchColumn>,
}

/// What one column measured.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnResult {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub data_type: DataType,
    /// Rows.
    pub rows: usize,
    /// The encoding the compressor chose.
    pub encoding: String,
    /// Bit width of the part that holds one entry per row (codes, offsets, digits), when the
    /// encoding has one (run-end and constant have none).
    pub width_bits: Option<u32>,
    /// Bytes of the encoded column, densely packed, all parts (dictionaries included).
    pub packed_bytes: usize,
    /// Bytes of the plain values (8 per integer, decimal and double, 4 per date, string bytes
    /// plus 8-byte offsets).
    pub plain_bytes: usize,
    /// The compressor's reason, in one line.
    pub reason: String,
    /// The filter measured, in SQL words.
    pub predicate_sql: String,
    /// Rows that passed it.
    pub selected: usize,
    /// Seconds to compress (sample, build, measure), one run.
    pub build_seconds: f64,
    /// Fastest filter run, seconds.
    pub filter_seconds: f64,
    /// Fastest full decode (1024-row chunks to the canonical form), seconds.
    pub decode_seconds: f64,
}

impl ColumnResult {
    /// Packed bits per row.
    pub fn bits_per_value(&self) -> f64 {
        self.packed_bytes as f64 * 8.0 / self.rows.max(1) as f64
    }

    /// Packed bytes per row.
    pub fn bytes_per_value(&self) -> f64 {
        self.packed_bytes as f64 / self.rows.max(1) as f64
    }

    /// Rows filtered per second.
    pub fn filter_values_per_second(&self) -> f64 {
        self.rows as f64 / self.filter_seconds
    }

    /// Packed bytes filtered per second, in GB (1e9).
    pub fn filter_gb_per_second(&self) -> f64 {
        self.packed_bytes as f64 / self.filter_seconds / 1e9
    }

    /// Rows decoded per second.
    pub fn decode_values_per_second(&self) -> f64 {
        self.rows as f64 / self.decode_seconds
    }

    /// Packed bytes decoded per second, in GB (1e9).
    pub fn decode_gb_per_second(&self) -> f64 {
        self.packed_bytes as f64 / self.decode_seconds / 1e9
    }
}

/// The plain scan of this machine: a single-thread sum over a `u64` array larger than the
/// caches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawScan {
    /// Values summed.
    pub values: usize,
    /// Fastest run, seconds.
    pub seconds: f64,
}

impl RawScan {
    /// Values summed per second.
    pub fn values_per_second(&self) -> f64 {
        self.values as f64 / self.seconds
    }

    /// Bytes read per second, in GB (1e9).
    pub fn gb_per_second(&self) -> f64 {
        (self.values * 8) as f64 / self.seconds / 1e9
    }
}

/// The fastest of `repeats` runs of `task`, in seconds.
pub fn fastest<T>(repeats: usize, mut task: impl FnMut() -> T) -> f64 {
    (0..repeats.max(1))
        .map(|_| {
            let started = Instant::now();
            black_box(task());
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Sums `values` consecutive `u64`s (`values * 8` bytes; pick more than the last-level cache)
/// `repeats` times on this thread and keeps the fastest.
pub fn raw_scan(values: usize, repeats: usize) -> RawScan {
    let data: Vec<u64> = (0..values as u64).map(|v| v.wrapping_mul(31)).collect();
    let seconds = fastest(repeats, || {
        black_box(&data)
            .iter()
            .fold(0u64, |sum, &v| sum.wrapping_add(v))
    });
    RawScan { values, seconds }
}

/// Builds the column of `values` with the sampling compressor (`options` says placement).
pub fn build_column(values: &Values, options: &ColumnOptions) -> Result<Column> {
    Ok(match values {
        Values::UInt64(v) => Column::from_u64(v, options)?,
        Values::Int64(v) => Column::from_i64(v, options)?,
        Values::Float64(v) => Column::from_f64(v, options)?,
        Values::Decimal { unscaled, scale } => Column::from_decimal(unscaled, *scale, options)?,
        Values::Date32(v) => Column::from_dates(v, options)?,
        Values::Utf8(v) => Column::from_strs(v, options)?,
        Values::Bool(v) => Column::from_bool(v, options)?,
    })
}

/// Whether `chunk` equals `values[start..start + chunk.len()]`.
fn chunk_matches(values: &Values, start: usize, chunk: &Values) -> bool {
    let end = start + chunk.len();
    match (values, chunk) {
        (Values::UInt64(a), Values::UInt64(b)) => a[start..end] == b[..],
        (Values::Int64(a), Values::Int64(b)) => a[start..end] == b[..],
        (Values::Float64(a), Values::Float64(b)) => a[start..end]
            .iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits()),
        (
            Values::Decimal {
                unscaled: a,
                scale: s,
            },
            Values::Decimal {
                unscaled: b,
                scale: t,
            },
        ) => s == t && a[start..end] == b[..],
        (Values::Date32(a), Values::Date32(b)) => a[start..end] == b[..],
        (Values::Utf8(a), Values::Utf8(b)) => a[start..end] == b[..],
        (Values::Bool(a), Values::Bool(b)) => a[start..end] == b[..],
        _ => false,
    }
}

/// Bytes of the plain values.
fn plain_bytes(values: &Values) -> usize {
    match values {
        Values::Date32(v) => v.len() * 4,
        Values::Bool(v) => v.len(),
        Values::Utf8(v) => v.iter().map(|s| s.len() + 8).sum(),
        other => other.len() * 8,
    }
}

/// The compressor's reason and its three smallest estimates, in one line.
pub fn summary(explanation: &Explanation) -> String {
    let estimates: Vec<String> = explanation
        .candidates
        .iter()
        .filter_map(|c| {
            c.estimated_bytes_per_value
                .map(|e| format!("{} {e:.3}", c.kind.name()))
        })
        .take(3)
        .collect();
    format!(
        "{} (estimated B/v: {}; sampled {} rows)",
        explanation.reason,
        estimates.join(", "),
        explanation.sample_rows
    )
}

/// Compresses `column`, checks that it decodes to its values and that the filter selects what
/// plain evaluation selects (an error otherwise), then times the filter (fastest of
/// `repeats`) and a full decode (fastest of `repeats`, at least 1).
pub fn measure(column: &BenchColumn, repeats: usize) -> Result<ColumnResult> {
    let started = Instant::now();
    let encoded = build_column(&column.values, &ColumnOptions::new())?;
    let build_seconds = started.elapsed().as_secs_f64();
    let rows = column.rows();

    let mut same = true;
    encoded.for_each_chunk(0..rows, |start, chunk| {
        same &= chunk.validity.is_none() && chunk_matches(&column.values, start, &chunk.values);
    })?;
    if !same {
        return Err(format!("{}: the column does not decode to its values", column.name).into());
    }
    let selection = encoded.filter(&column.predicate)?;
    let mut expected = 0usize;
    for row in 0..rows {
        let value = column.values.scalar(row).unwrap_or(Scalar::Null);
        expected += usize::from(column.predicate.matches(&value)?);
    }
    if selection.count() != expected {
        return Err(format!(
            "{}: the filter selected {} rows, plain evaluation {expected}",
            column.name,
            selection.count()
        )
        .into());
    }

    let filter_seconds = fastest(repeats, || encoded.filter(&column.predicate));
    let decode_seconds = fastest(repeats, || {
        let mut decoded = 0usize;
        encoded
            .for_each_chunk(0..rows, |_, chunk| decoded += black_box(chunk).len())
            .map(|()| decoded)
    });

    let report = encoded.memory_report();
    let width_bits = report
        .parts
        .iter()
        .filter(|part| part.values == rows && rows > 0)
        .max_by_key(|part| part.packed_bytes)
        .and_then(|part| part.bits);
    Ok(ColumnResult {
        name: column.name.clone(),
        data_type: encoded.data_type(),
        rows,
        encoding: encoded.encoding_kind().name().to_string(),
        width_bits,
        packed_bytes: report.packed_bytes(),
        plain_bytes: plain_bytes(&column.values),
        reason: summary(encoded.explanation()),
        predicate_sql: column.predicate_sql.clone(),
        selected: selection.count(),
        build_seconds,
        filter_seconds,
        decode_seconds,
    })
}

/// A small, fast generator (SplitMix64) so the synthetic columns are the same on every run.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound > 0`; the slight modulo bias is irrelevant here).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Zipf-distributed ranks `1..=n` with exponent `s`, by inverting the cumulative weights.
pub fn zipf(rows: usize, n: usize, s: f64, rng: &mut SplitMix) -> Vec<i64> {
    let mut cumulative = Vec::with_capacity(n);
    let mut total = 0.0;
    for rank in 1..=n {
        total += 1.0 / (rank as f64).powf(s);
        cumulative.push(total);
    }
    (0..rows)
        .map(|_| {
            let target = rng.unit() * total;
            let rank = cumulative.partition_point(|&c| c <= target).min(n - 1);
            rank as i64 + 1
        })
        .collect()
}

/// The synthetic distributions, `rows` each: uniform small integers (0..1000), Zipf (s = 1 over
/// 100,000 values), sorted runs (mean length 100), a constant, doubles with 2 decimals
/// (0.00..100000.00), random doubles in [0, 1), low-cardinality strings (12 words) and
/// high-cardinality strings (`user-` and a 16-digit hexadecimal hash of an id below `rows`,
/// about 63% distinct).
pub fn synthetic(rows: usize, seed: u64) -> BenchTable {
    let mut rng = SplitMix::new(seed);
    let uniform: Vec<i64> = (0..rows).map(|_| rng.below(1000) as i64).collect();
    let zipf_values = zipf(rows, 100_000, 1.0, &mut rng);
    let mut value = 0i64;
    let mut left = 0u64;
    let runs: Vec<i64> = (0..rows)
        .map(|_| {
            if left == 0 {
                value += 1;
                left = 1 + rng.below(199);
            }
            left -= 1;
            value
        })
        .collect();
    let runs_cut = runs.get(rows / 10).copied().unwrap_or(0);
    let cents: Vec<f64> = (0..rows)
        .map(|_| rng.below(10_000_001) as f64 / 100.0)
        .collect();
    let random: Vec<f64> = (0..rows).map(|_| rng.unit()).collect();
    const WORDS: [&str; 12] = [
        "red", "green", "blue", "yellow", "black", "white", "orange", "purple", "brown", "pink",
        "grey", "cyan",
    ];
    let low: Vec<String> = (0..rows)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize].to_string())
        .collect();
    let high: Vec<String> = (0..rows)
        .map(|_| {
            let id = SplitMix::new(rng.below(rows.max(1) as u64)).next_u64();
            format!("user-{id:016x}")
        })
        .collect();
    let columns = vec![
        BenchColumn::new(
            "uniform_small",
            Values::Int64(uniform),
            Predicate::range(..100i64),
            "uniform_small < 100",
        ),
        BenchColumn::new(
            "zipf",
            Values::Int64(zipf_values),
            Predicate::range(..=10i64),
            "zipf <= 10",
        ),
        BenchColumn::new(
            "sorted_runs",
            Values::Int64(runs),
            Predicate::range(..=runs_cut),
            &format!("sorted_runs <= {runs_cut}"),
        ),
        BenchColumn::new(
            "constant",
            Values::Int64(vec![42; rows]),
            Predicate::eq(42i64),
            "constant = 42",
        ),
        BenchColumn::new(
            "doubles_2dp",
            Values::Float64(cents),
            Predicate::range(..10_000.0),
            "doubles_2dp < 10000.0",
        ),
        BenchColumn::new(
            "random_doubles",
            Values::Float64(random),
            Predicate::range(..0.5),
            "random_doubles < 0.5",
        ),
        BenchColumn::new(
            "strings_low_card",
            Values::Utf8(low),
            Predicate::eq("red"),
            "strings_low_card = 'red'",
        ),
        BenchColumn::new(
            "strings_high_card",
            Values::Utf8(high),
            Predicate::prefix("user-0"),
            "strings_high_card like 'user-0%'",
        ),
    ];
    BenchTable {
        name: "synthetic".to_string(),
        columns,
    }
}

/// The report's text table: one line per column, then the compressor's reasons.
pub fn render_text(table: &str, results: &[ColumnResult], raw: &RawScan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{table}: {} rows; raw scan of this machine: {:.0} Mvalues/s, {:.2} GB/s (1 thread, {} MB of u64)",
        results.first().map_or(0, |r| r.rows),
        raw.values_per_second() / 1e6,
        raw.gb_per_second(),
        raw.values * 8 / 1_000_000
    );
    let _ = writeln!(
        out,
        "{:<18} {:<11} {:<10} {:>5} {:>7} {:>7} {:>6}  {:<44} {:>9} {:>8} {:>6} {:>8} {:>6}",
        "column",
        "type",
        "encoding",
        "width",
        "bits/v",
        "B/v",
        "plain",
        "filter",
        "selected",
        "filt Mv/s",
        "GB/s",
        "dec Mv/s",
        "GB/s"
    );
    for r in results {
        let data_type = match r.data_type {
            DataType::Decimal { scale } => format!("Decimal({scale})"),
            other => other.to_string(),
        };
        let _ = writeln!(
            out,
            "{:<18} {:<11} {:<10} {:>5} {:>7.2} {:>7.3} {:>6.2}  {:<44} {:>9} {:>8.0} {:>6.2} {:>8.0} {:>6.2}",
            r.name,
            data_type,
            r.encoding,
            r.width_bits.map_or("-".to_string(), |w| w.to_string()),
            r.bits_per_value(),
            r.bytes_per_value(),
            r.plain_bytes as f64 / r.rows.max(1) as f64,
            r.predicate_sql,
            r.selected,
            r.filter_values_per_second() / 1e6,
            r.filter_gb_per_second(),
            r.decode_values_per_second() / 1e6,
            r.decode_gb_per_second()
        );
    }
    let _ = writeln!(out, "why:");
    for r in results {
        let _ = writeln!(out, "  {:<18} {}", r.name, r.reason);
    }
    out
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `value` as a JSON number (`null` when not finite).
fn json_number(value: f64) -> String {
    if value.is_finite() {
        format!("{value}")
    } else {
        "null".to_string()
    }
}

/// The type name the Python script maps to DuckDB and Arrow types.
fn type_name(values: &Values) -> &'static str {
    match values {
        Values::UInt64(_) => "uint64",
        Values::Int64(_) => "int64",
        Values::Float64(_) => "float64",
        Values::Decimal { .. } => "decimal",
        Values::Date32(_) => "date32",
        Values::Utf8(_) => "utf8",
        Values::Bool(_) => "bool",
    }
}

/// Writes `column`'s values under `dir`: `<table>.<column>.bin` (little-endian values: 8 bytes
/// for integers, decimals and doubles, 4 for dates, 1 for booleans; UTF-8 bytes for strings),
/// and for strings `<table>.<column>.offsets` (`rows + 1` little-endian `i64` offsets).
/// Returns the file names.
pub fn write_values(
    dir: &Path,
    table: &str,
    column: &BenchColumn,
) -> Result<(String, Option<String>)> {
    let data = format!("{table}.{}.bin", column.name);
    let mut bytes = Vec::new();
    let mut offsets_file = None;
    match &column.values {
        Values::UInt64(v) => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
        Values::Int64(v) => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
        Values::Float64(v) => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
        Values::Decimal { unscaled, .. } => {
            unscaled.iter().for_each(|x| bytes.extend(x.to_le_bytes()))
        }
        Values::Date32(v) => v.iter().for_each(|x| bytes.extend(x.to_le_bytes())),
        Values::Bool(v) => bytes.extend(v.iter().map(|&b| u8::from(b))),
        Values::Utf8(v) => {
            let mut offsets = Vec::with_capacity((v.len() + 1) * 8);
            offsets.extend(0i64.to_le_bytes());
            for s in v {
                bytes.extend(s.as_bytes());
                offsets.extend((bytes.len() as i64).to_le_bytes());
            }
            let name = format!("{table}.{}.offsets", column.name);
            fs::write(dir.join(&name), offsets)?;
            offsets_file = Some(name);
        }
    }
    fs::write(dir.join(&data), bytes)?;
    Ok((data, offsets_file))
}

/// One measured table: its columns (for their values and types) and their results.
#[derive(Clone, Copy, Debug)]
pub struct TableReport<'a> {
    /// The table.
    pub table: &'a BenchTable,
    /// One result per column, in the table's order.
    pub results: &'a [ColumnResult],
}

/// The JSON report; with `dir`, the columns' values are written there too and the report
/// names their files (the form `scripts/encodings_vs_duckdb.py` reads).
pub fn json_report(
    tables: &[TableReport<'_>],
    raw: &RawScan,
    scale_factor: f64,
    dir: Option<&Path>,
) -> Result<String> {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"scale_factor\": {}, \"raw_scan\": {{\"values\": {}, \"seconds\": {}, \"values_per_second\": {}, \"gb_per_second\": {}}}, \"tables\": [",
        json_number(scale_factor),
        raw.values,
        json_number(raw.seconds),
        json_number(raw.values_per_second()),
        json_number(raw.gb_per_second())
    );
    for (t, report) in tables.iter().enumerate() {
        let _ = write!(
            out,
            "{}{{\"name\": {}, \"rows\": {}, \"columns\": [",
            if t > 0 { ", " } else { "" },
            json_string(&report.table.name),
            report.table.columns.first().map_or(0, BenchColumn::rows)
        );
        for (c, (column, r)) in report.table.columns.iter().zip(report.results).enumerate() {
            let (data, offsets) = match dir {
                Some(dir) => {
                    let (data, offsets) = write_values(dir, &report.table.name, column)?;
                    (Some(data), offsets)
                }
                None => (None, None),
            };
            let file = |f: Option<String>| f.map_or("null".to_string(), |f| json_string(&f));
            let scale = match column.values {
                Values::Decimal { scale, .. } => scale.to_string(),
                _ => "null".to_string(),
            };
            let _ = write!(
                out,
                "{}{{\"name\": {}, \"type\": {}, \"scale\": {scale}, \"file\": {}, \"offsets_file\": {}, \
                 \"encoding\": {}, \"width_bits\": {}, \"packed_bytes\": {}, \"plain_bytes\": {}, \
                 \"bits_per_value\": {}, \"bytes_per_value\": {}, \"reason\": {}, \"predicate\": {}, \
                 \"selected\": {}, \"build_seconds\": {}, \"filter_seconds\": {}, \"decode_seconds\": {}, \
                 \"filter_values_per_second\": {}, \"filter_gb_per_second\": {}, \
                 \"decode_values_per_second\": {}, \"decode_gb_per_second\": {}}}",
                if c > 0 { ", " } else { "" },
                json_string(&column.name),
                json_string(type_name(&column.values)),
                file(data),
                file(offsets),
                json_string(&r.encoding),
                r.width_bits.map_or("null".to_string(), |w| w.to_string()),
                r.packed_bytes,
                r.plain_bytes,
                json_number(r.bits_per_value()),
                json_number(r.bytes_per_value()),
                json_string(&r.reason),
                json_string(&r.predicate_sql),
                r.selected,
                json_number(r.build_seconds),
                json_number(r.filter_seconds),
                json_number(r.decode_seconds),
                json_number(r.filter_values_per_second()),
                json_number(r.filter_gb_per_second()),
                json_number(r.decode_values_per_second()),
                json_number(r.decode_gb_per_second())
            );
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    Ok(out)
}

/// Measures every column of `table` (see [`measure`]).
pub fn measure_table(table: &BenchTable, repeats: usize) -> Result<Vec<ColumnResult>> {
    table
        .columns
        .iter()
        .map(|column| measure(column, repeats))
        .collect()
}

/// Writes the JSON report (and the columns' values) to `dir/encodings.json`.
pub fn write_report(
    dir: &Path,
    tables: &[TableReport<'_>],
    raw: &RawScan,
    scale_factor: f64,
) -> Result<String> {
    fs::create_dir_all(dir)?;
    let json = json_report(tables, raw, scale_factor, Some(dir))?;
    fs::write(dir.join("encodings.json"), &json)?;
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(0.5), "0.5");
    }

    #[test]
    fn zipf_favours_small_ranks() {
        let mut rng = SplitMix::new(7);
        let values = zipf(10_000, 1000, 1.0, &mut rng);
        assert!(values.iter().all(|&v| (1..=1000).contains(&v)));
        let ones = values.iter().filter(|&&v| v == 1).count();
        let hundreds = values.iter().filter(|&&v| v == 100).count();
        assert!(ones > 10 * hundreds.max(1), "{ones} vs {hundreds}");
    }
}
