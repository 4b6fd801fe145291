//! CSV files read into tables with the `csv` crate: with a schema given, or with each column's
//! type inferred by a first pass over the whole file (the narrowest of boolean, integer,
//! decimal, date, double and text that every value of the column fits).
//!
//! A value that does not parse as its column's type is a [`QueryError::Malformed`] naming the
//! line and the column, for example
//! `lineitem.csv: line 17, column 5 (l_quantity): 'x1' is not an integer`; so is a record with
//! the wrong number of fields and an empty value in a non-text column (tables have no nulls
//! yet).
//!
//! Inference: `true`/`false` (any case) is boolean; `-?digits` integer; `-?digits.digits`
//! decimal with the column's largest number of fractional digits (when digits and scale fit 18
//! digits, otherwise double); `YYYY-MM-DD` date; anything Rust parses as an `f64` double;
//! anything else text. Empty values are ignored by inference.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use smartarrays_encodings::{date, decimal, ColumnOptions, DataType, Values};

use crate::error::{QueryError, Result};
use crate::table::{column_from_values, Table, TableColumn};

/// How to read a CSV file.
///
/// # Example
/// ```
/// use smartarrays_query::{encodings::{ColumnOptions, DataType}, load::{read_csv_bytes, CsvOptions}};
/// let data = b"l_orderkey|l_quantity\n1|17\n2|x1\n";
/// let options = CsvOptions::new().delimiter(b'|');
/// let error = read_csv_bytes("lineitem", "lineitem.tbl", data, &options.clone().schema(vec![
///     ("l_orderkey".into(), DataType::Int64), ("l_quantity".into(), DataType::Int64),
/// ]), &ColumnOptions::new()).unwrap_err();
/// assert_eq!(error.to_string(), "lineitem.tbl: line 3, column 2 (l_quantity): 'x1' is not an integer");
/// ```
#[derive(Clone, Debug)]
pub struct CsvOptions {
    delimiter: u8,
    header: bool,
    quote: Option<u8>,
    schema: Option<Vec<(String, DataType)>>,
}

impl Default for CsvOptions {
    fn default() -> CsvOptions {
        CsvOptions::new()
    }
}

impl CsvOptions {
    /// Comma-separated, a header line, `"` quotes, types inferred.
    pub fn new() -> CsvOptions {
        CsvOptions {
            delimiter: b',',
            header: true,
            quote: Some(b'"'),
            schema: None,
        }
    }

    /// The field separator.
    pub fn delimiter(mut self, delimiter: u8) -> CsvOptions {
        self.delimiter = delimiter;
        self
    }

    /// Whether the first line names the columns (without one, they are `column1`, ...
    /// unless a schema names them).
    pub fn header(mut self, header: bool) -> CsvOptions {
        self.header = header;
        self
    }

    /// The quote character (`None`: fields are never quoted).
    pub fn quote(mut self, quote: Option<u8>) -> CsvOptions {
        self.quote = quote;
        self
    }

    /// The columns' names and types (no inference pass); with a header line, the header must
    /// have as many fields.
    pub fn schema(mut self, schema: Vec<(String, DataType)>) -> CsvOptions {
        self.schema = Some(schema);
        self
    }
}

/// Reads the CSV file at `path` into a table called `name`.
pub fn read_csv(
    name: &str,
    path: &Path,
    csv: &CsvOptions,
    options: &ColumnOptions,
) -> Result<Table> {
    let source = path.display().to_string();
    let open = || -> Result<Box<dyn Read>> {
        let file = File::open(path).map_err(|e| QueryError::load(&source, e.to_string()))?;
        Ok(Box::new(std::io::BufReader::with_capacity(1 << 20, file)))
    };
    read(name, &source, open, csv, options)
}

/// Reads CSV text from memory into a table called `name` (`source_name` names it in errors).
pub fn read_csv_bytes(
    name: &str,
    source_name: &str,
    data: &[u8],
    csv: &CsvOptions,
    options: &ColumnOptions,
) -> Result<Table> {
    read(name, source_name, || Ok(Box::new(data)), csv, options)
}

fn reader<'a>(csv: &CsvOptions, input: Box<dyn Read + 'a>) -> ::csv::Reader<Box<dyn Read + 'a>> {
    ::csv::ReaderBuilder::new()
        .delimiter(csv.delimiter)
        .has_headers(false)
        .flexible(true)
        .quoting(csv.quote.is_some())
        .quote(csv.quote.unwrap_or(b'"'))
        .from_reader(input)
}

/// What the values of a column seen so far fit.
#[derive(Clone, Debug)]
struct Inferred {
    boolean: bool,
    integer: bool,
    decimal: bool,
    date: bool,
    float: bool,
    integer_digits: usize,
    scale: usize,
    seen: bool,
}

impl Inferred {
    fn new() -> Inferred {
        Inferred {
            boolean: true,
            integer: true,
            decimal: true,
            date: true,
            float: true,
            integer_digits: 0,
            scale: 0,
            seen: false,
        }
    }

    fn see(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.seen = true;
        if self.boolean {
            self.boolean = text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false");
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        let (whole, fraction) = match digits.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (digits, None),
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if self.integer {
            self.integer = fraction.is_none() && all_digits(whole);
        }
        if self.decimal {
            self.decimal = all_digits(whole) && fraction.is_none_or(all_digits);
            if self.decimal {
                self.integer_digits = self.integer_digits.max(whole.trim_start_matches('0').len());
                self.scale = self.scale.max(fraction.map_or(0, str::len));
                self.decimal = self.integer_digits + self.scale <= 18;
            }
        }
        if self.date {
            let b = text.as_bytes();
            self.date = b.len() == 10 && b[4] == b'-' && b[7] == b'-' && date::parse(text).is_ok();
        }
        if self.float {
            self.float = text.parse::<f64>().is_ok();
        }
    }

    fn data_type(&self) -> DataType {
        if !self.seen {
            DataType::Utf8
        } else if self.boolean {
            DataType::Bool
        } else if self.integer {
            DataType::Int64
        } else if self.decimal {
            DataType::Decimal {
                scale: self.scale as u8,
            }
        } else if self.date {
            DataType::Date32
        } else if self.float {
            DataType::Float64
        } else {
            DataType::Utf8
        }
    }
}

fn read<'a>(
    name: &str,
    source: &str,
    open: impl Fn() -> Result<Box<dyn Read + 'a>>,
    csv: &CsvOptions,
    options: &ColumnOptions,
) -> Result<Table> {
    let csv_error = |e: ::csv::Error| {
        let line = e.position().map_or(0, |p| p.line());
        QueryError::load(source, format!("line {line}: {e}"))
    };
    let mut records = reader(csv, open()?).into_records();
    // Names: the header line, the schema, or column1...
    let header: Option<Vec<String>> = if csv.header {
        match records.next() {
            Some(record) => Some(
                record
                    .map_err(csv_error)?
                    .iter()
                    .map(|s| s.trim().to_string())
                    .collect(),
            ),
            None => return Err(QueryError::load(source, "empty file: no header line")),
        }
    } else {
        None
    };
    let schema: Vec<(String, DataType)> = match (&csv.schema, &header) {
        (Some(schema), Some(header)) if header.len() != schema.len() => {
            return Err(QueryError::load(
                source,
                format!(
                    "the header has {} fields, the schema {} columns",
                    header.len(),
                    schema.len()
                ),
            ))
        }
        (Some(schema), _) => schema.clone(),
        (None, header) => {
            // Inference: one pass over the whole file.
            let mut seen: Vec<Inferred> = Vec::new();
            let mut fields = header.as_ref().map(Vec::len);
            for record in records {
                let record = record.map_err(csv_error)?;
                let line = record.position().map_or(0, |p| p.line());
                let expected = *fields.get_or_insert(record.len());
                if record.len() != expected {
                    return Err(field_count(source, line, record.len(), expected));
                }
                if seen.is_empty() {
                    seen = vec![Inferred::new(); expected];
                }
                for (inferred, text) in seen.iter_mut().zip(record.iter()) {
                    inferred.see(text);
                }
            }
            let count = fields.unwrap_or(0);
            seen.resize(count, Inferred::new());
            let names: Vec<String> = match header {
                Some(h) => h.clone(),
                None => (1..=count).map(|i| format!("column{i}")).collect(),
            };
            names
                .into_iter()
                .zip(seen.iter().map(Inferred::data_type))
                .collect()
        }
    };
    // The parsing pass.
    let mut columns: Vec<Values> = schema.iter().map(|(_, t)| empty_values(*t)).collect();
    let mut records = reader(csv, open()?).into_records();
    if csv.header {
        records.next().transpose().map_err(csv_error)?;
    }
    for record in records {
        let record = record.map_err(csv_error)?;
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != schema.len() {
            return Err(field_count(source, line, record.len(), schema.len()));
        }
        for (i, (text, values)) in record.iter().zip(columns.iter_mut()).enumerate() {
            push(values, text).map_err(|message| QueryError::Malformed {
                source_name: source.to_string(),
                unit: "line",
                line,
                column: i + 1,
                name: schema[i].0.clone(),
                message,
            })?;
        }
    }
    let jobs: Vec<(String, Values)> = schema.into_iter().map(|(n, _)| n).zip(columns).collect();
    let built = super::par_map(jobs, |_, (column_name, values)| {
        Ok(TableColumn::new(
            &column_name,
            column_from_values(values, options)?,
        ))
    })?;
    Table::new(name, built)
}

fn field_count(source: &str, line: u64, found: usize, expected: usize) -> QueryError {
    QueryError::load(
        source,
        format!("line {line}: {found} fields, expected {expected}"),
    )
}

fn empty_values(data_type: DataType) -> Values {
    match data_type {
        DataType::UInt64 => Values::UInt64(Vec::new()),
        DataType::Int64 => Values::Int64(Vec::new()),
        DataType::Float64 => Values::Float64(Vec::new()),
        DataType::Decimal { scale } => Values::Decimal {
            unscaled: Vec::new(),
            scale,
        },
        DataType::Date32 => Values::Date32(Vec::new()),
        DataType::Utf8 => Values::Utf8(Vec::new()),
        DataType::Bool => Values::Bool(Vec::new()),
    }
}

/// Parses `text` onto `values`, or says why it does not fit.
fn push(values: &mut Values, text: &str) -> std::result::Result<(), String> {
    if text.is_empty() && !matches!(values, Values::Utf8(_)) {
        return Err("empty value (tables have no nulls yet)".into());
    }
    match values {
        Values::Int64(v) => v.push(text.parse::<i64>().map_err(|e| match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                format!("'{text}' does not fit a 64-bit integer")
            }
            _ => format!("'{text}' is not an integer"),
        })?),
        Values::UInt64(v) => v.push(
            text.parse::<u64>()
                .map_err(|_| format!("'{text}' is not an unsigned 64-bit integer"))?,
        ),
        Values::Float64(v) => v.push(
            text.parse::<f64>()
                .map_err(|_| format!("'{text}' is not a number"))?,
        ),
        Values::Decimal { unscaled, scale } => {
            unscaled.push(decimal::parse(text, *scale).map_err(|e| {
                let why = e.to_string();
                let why = why
                    .strip_prefix(&format!("decimal {text}: "))
                    .unwrap_or(&why)
                    .to_string();
                format!("'{text}' is not a decimal of scale {scale}: {why}")
            })?)
        }
        Values::Date32(v) => {
            v.push(date::parse(text).map_err(|_| format!("'{text}' is not a date (YYYY-MM-DD)"))?)
        }
        Values::Utf8(v) => v.push(text.to_string()),
        Values::Bool(v) => v.push(if text.eq_ignore_ascii_case("true") || text == "1" {
            true
        } else if text.eq_ignore_ascii_case("false") || text == "0" {
            false
        } else {
            return Err(format!("'{text}' is not a boolean (true or false)"));
        }),
    }
    Ok(())
}
