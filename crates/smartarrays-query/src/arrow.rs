//! Arrow in and out: tables imported from Arrow record batches (what Parquet readers, other
//! engines and the C Stream interface produce), and tables and query results exported as record
//! batches.
//!
//! Arrow types map to the encodings crate's typed columns:
//!
//! | Arrow | column |
//! |---|---|
//! | Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64 (values up to 2^63 - 1) | Int64 |
//! | Decimal32/64/128 with scale 0..=18 (values within 64 bits) | Decimal (same scale) |
//! | Date32, Date64 (whole days) | Date32 |
//! | Utf8, LargeUtf8, Utf8View, Dictionary of those | Utf8 |
//! | Boolean | Bool |
//! | Float32, Float64 | Float64 |
//!
//! Anything else (timestamps, lists, structs, Decimal256, ...) is a
//! [`QueryError::Load`] naming the column and its type; a value that does not fit (a UInt64
//! past 2^63 - 1, a decimal past 64 bits, a Date64 that is not a whole day) or a null is a
//! [`QueryError::Malformed`] naming the row and column. Tables have no nulls yet.
//!
//! Results export as: integers Int64 (Decimal128(38, 0) when a sum passes 64 bits), decimals
//! Decimal128(38, scale), dates Date32, text Utf8, truth values Boolean, doubles Float64; an
//! aggregate over no rows is a null.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use smartarrays_query::arrow::{arrow_array::{Int32Array, RecordBatch, StringArray, Array}, result_to_record_batch, table_from_record_batches};
//! use smartarrays_query::{encodings::ColumnOptions, sql, Catalog};
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int32Array::from(vec![1, 2, 3])) as _),
//!     ("name", Arc::new(StringArray::from(vec!["a", "b", "a"])) as _),
//! ]).unwrap();
//! let table = table_from_record_batches("t", batch.schema(), vec![batch], &ColumnOptions::new()).unwrap();
//! let mut catalog = Catalog::new();
//! catalog.insert(table);
//! let result = sql(&catalog, "select name, sum(id) as s from t group by name order by name").unwrap();
//! let out = result_to_record_batch(&result).unwrap();
//! assert_eq!(out.num_rows(), 2);
//! assert_eq!(out.schema().field(1).name(), "s");
//! ```

use std::sync::Arc;

pub use arrow_array;
pub use arrow_schema;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type,
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int64Array,
    RecordBatch, RecordBatchIterator, RecordBatchReader, StringArray,
};
use arrow_schema::{ArrowError, DataType as ArrowType, Field, Schema, SchemaRef};
use smartarrays_encodings::{Canonical, Column, ColumnOptions, DataType, Values};

use crate::error::{QueryError, Result};
use crate::table::{Table, TableColumn};
use crate::value::{ResultSet, Type, Value};

/// Rows per record batch of an export.
pub const BATCH_ROWS: usize = 64 * 1024;

/// What a column of an Arrow type becomes: `Ok(data type)` or `Err(why not)`.
pub fn column_type(arrow: &ArrowType) -> std::result::Result<DataType, String> {
    Ok(match arrow {
        ArrowType::Int8
        | ArrowType::Int16
        | ArrowType::Int32
        | ArrowType::Int64
        | ArrowType::UInt8
        | ArrowType::UInt16
        | ArrowType::UInt32
        | ArrowType::UInt64 => DataType::Int64,
        ArrowType::Decimal32(_, s) | ArrowType::Decimal64(_, s) | ArrowType::Decimal128(_, s) => {
            match u8::try_from(*s) {
                Ok(scale) if scale <= 18 => DataType::Decimal { scale },
                _ => return Err(format!("decimal scale {s} (0 to 18 are supported)")),
            }
        }
        ArrowType::Date32 | ArrowType::Date64 => DataType::Date32,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => DataType::Utf8,
        ArrowType::Dictionary(_, value) if column_type(value) == Ok(DataType::Utf8) => {
            DataType::Utf8
        }
        ArrowType::Boolean => DataType::Bool,
        ArrowType::Float32 | ArrowType::Float64 => DataType::Float64,
        other => {
            return Err(format!(
                "Arrow type {other} is not supported (integers, decimals of scale 0 to 18, \
                 dates, strings, booleans and floats are)"
            ))
        }
    })
}

/// A table called `name` from record batches of `schema`, each column compressed by the
/// sampling compressor (see the module's type table).
pub fn table_from_record_batches(
    name: &str,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    options: &ColumnOptions,
) -> Result<Table> {
    let mut columns: Vec<Vec<ArrayRef>> =
        vec![Vec::with_capacity(batches.len()); schema.fields().len()];
    for batch in batches {
        if batch.schema().fields().len() != schema.fields().len() {
            return Err(QueryError::load(
                name,
                "a record batch has a different number of columns than the schema",
            ));
        }
        for (i, array) in batch.columns().iter().enumerate() {
            columns[i].push(Arc::clone(array));
        }
    }
    table_from_columns(name, name, &schema, columns, options)
}

/// A table called `name` from every batch of `reader` (a Parquet reader, an imported C stream).
pub fn table_from_reader(
    name: &str,
    reader: impl RecordBatchReader,
    options: &ColumnOptions,
) -> Result<Table> {
    let schema = reader.schema();
    check_schema(name, &schema)?;
    let mut batches = Vec::new();
    for batch in reader {
        batches.push(batch.map_err(|e| QueryError::load(name, e.to_string()))?);
    }
    table_from_record_batches(name, schema, batches, options)
}

/// Fails on the first column whose type has no column type.
pub(crate) fn check_schema(source_name: &str, schema: &Schema) -> Result<()> {
    for field in schema.fields() {
        column_type(field.data_type()).map_err(|why| {
            QueryError::load(source_name, format!("column {}: {why}", field.name()))
        })?;
    }
    Ok(())
}

/// Builds the columns (the arrays of each, in order), several at a time on scoped threads; each
/// column's arrays are dropped as soon as it is built.
pub(crate) fn table_from_columns(
    name: &str,
    source_name: &str,
    schema: &Schema,
    columns: Vec<Vec<ArrayRef>>,
    options: &ColumnOptions,
) -> Result<Table> {
    check_schema(source_name, schema)?;
    let built = crate::load::par_map(columns, |i, arrays| {
        let field = &schema.fields()[i];
        let column = column_from_arrays(source_name, i, field, arrays, options)?;
        Ok(TableColumn::new(field.name(), column))
    })?;
    Table::new(name, built)
}

fn malformed(
    source_name: &str,
    row: usize,
    column: usize,
    name: &str,
    message: String,
) -> QueryError {
    QueryError::Malformed {
        source_name: source_name.to_string(),
        unit: "row",
        line: row as u64 + 1,
        column: column + 1,
        name: name.to_string(),
        message,
    }
}

/// One column from its arrays (all of the field's type), compressed.
fn column_from_arrays(
    source_name: &str,
    index: usize,
    field: &Field,
    arrays: Vec<ArrayRef>,
    options: &ColumnOptions,
) -> Result<Column> {
    let name = field.name();
    let data_type = column_type(field.data_type())
        .map_err(|why| QueryError::load(source_name, format!("column {name}: {why}")))?;
    let mut first = 0usize;
    for array in &arrays {
        if array.data_type() != field.data_type() {
            return Err(QueryError::load(
                source_name,
                format!(
                    "column {name}: an array of type {} in a column of type {}",
                    array.data_type(),
                    field.data_type()
                ),
            ));
        }
        if array.null_count() > 0 {
            let row = (0..array.len()).find(|&r| array.is_null(r)).unwrap_or(0);
            return Err(malformed(
                source_name,
                first + row,
                index,
                name,
                "null (tables have no nulls yet)".into(),
            ));
        }
        first += array.len();
    }
    let rows = first;
    let bad = |row: usize, message: String| malformed(source_name, row, index, name, message);
    macro_rules! ints {
        ($($t:ty),*) => {{
            let mut out: Vec<i64> = Vec::with_capacity(rows);
            for array in &arrays {
                match array.data_type() {
                    $(dt if dt == &<$t as arrow_array::types::ArrowPrimitiveType>::DATA_TYPE => {
                        for &v in array.as_primitive::<$t>().values().iter() {
                            match i64::try_from(v) {
                                Ok(v) => out.push(v),
                                Err(_) => return Err(bad(out.len(), format!("{v} does not fit a 64-bit signed integer"))),
                            }
                        }
                    })*
                    _ => unreachable!("checked against the field's type"),
                }
            }
            out
        }};
    }
    match data_type {
        DataType::Int64 => {
            let values = ints!(
                Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
                UInt64Type
            );
            Ok(Column::from_i64(&values, options)?)
        }
        DataType::Decimal { scale } => {
            let mut out: Vec<i64> = Vec::with_capacity(rows);
            for array in &arrays {
                match array.data_type() {
                    ArrowType::Decimal32(..) => out.extend(
                        array
                            .as_primitive::<Decimal32Type>()
                            .values()
                            .iter()
                            .map(|&v| i64::from(v)),
                    ),
                    ArrowType::Decimal64(..) => {
                        out.extend_from_slice(array.as_primitive::<Decimal64Type>().values())
                    }
                    _ => {
                        for &v in array.as_primitive::<Decimal128Type>().values().iter() {
                            match i64::try_from(v) {
                                Ok(v) => out.push(v),
                                Err(_) => {
                                    return Err(bad(
                                        out.len(),
                                        format!(
                                            "{} does not fit a decimal of 64 bits",
                                            smartarrays_encodings::decimal::format(v, scale)
                                        ),
                                    ))
                                }
                            }
                        }
                    }
                }
            }
            Ok(Column::from_decimal(&out, scale, options)?)
        }
        DataType::Date32 => {
            let mut out: Vec<i32> = Vec::with_capacity(rows);
            for array in &arrays {
                if let ArrowType::Date64 = array.data_type() {
                    for &ms in array.as_primitive::<Date64Type>().values().iter() {
                        const DAY_MS: i64 = 86_400_000;
                        let days = i32::try_from(ms / DAY_MS).ok().filter(|_| ms % DAY_MS == 0);
                        match days {
                            Some(d) => out.push(d),
                            None => {
                                return Err(bad(
                                    out.len(),
                                    format!(
                                        "Date64 {ms} ms is not a whole day in the 32-bit range"
                                    ),
                                ))
                            }
                        }
                    }
                } else {
                    out.extend_from_slice(array.as_primitive::<Date32Type>().values());
                }
            }
            Ok(Column::from_dates(&out, options)?)
        }
        DataType::Float64 => {
            let mut out: Vec<f64> = Vec::with_capacity(rows);
            for array in &arrays {
                if let ArrowType::Float32 = array.data_type() {
                    out.extend(
                        array
                            .as_primitive::<Float32Type>()
                            .values()
                            .iter()
                            .map(|&v| f64::from(v)),
                    );
                } else {
                    out.extend_from_slice(array.as_primitive::<Float64Type>().values());
                }
            }
            Ok(Column::from_f64(&out, options)?)
        }
        DataType::Bool => {
            let mut out: Vec<bool> = Vec::with_capacity(rows);
            for array in &arrays {
                out.extend(array.as_boolean().values().iter());
            }
            Ok(Column::from_bool(&out, options)?)
        }
        DataType::Utf8 => {
            // Dictionaries are expanded first; the strings are then borrowed, never copied.
            let mut expanded = Vec::new();
            for array in &arrays {
                if let ArrowType::Dictionary(..) = array.data_type() {
                    expanded.push(arrow_cast::cast(array, &ArrowType::Utf8).map_err(|e| {
                        QueryError::load(source_name, format!("column {name}: {e}"))
                    })?);
                }
            }
            let mut strs: Vec<&str> = Vec::with_capacity(rows);
            let mut next_expanded = expanded.iter();
            for array in &arrays {
                let array: &dyn Array = match array.data_type() {
                    ArrowType::Dictionary(..) => next_expanded
                        .next()
                        .map(|a| a.as_ref())
                        .unwrap_or(array.as_ref()),
                    _ => array.as_ref(),
                };
                match array.data_type() {
                    ArrowType::Utf8 => strs.extend(array.as_string::<i32>().iter().flatten()),
                    ArrowType::LargeUtf8 => strs.extend(array.as_string::<i64>().iter().flatten()),
                    _ => strs.extend(array.as_string_view().iter().flatten()),
                }
            }
            Ok(Column::from_strs(&strs, options)?)
        }
        DataType::UInt64 => unreachable!("UInt64 Arrow columns become Int64"),
    }
}

/// The Arrow type of a column of `data_type`.
pub fn arrow_type(data_type: DataType) -> ArrowType {
    match data_type {
        DataType::UInt64 => ArrowType::UInt64,
        DataType::Int64 => ArrowType::Int64,
        DataType::Float64 => ArrowType::Float64,
        DataType::Decimal { scale } => ArrowType::Decimal128(38, scale as i8),
        DataType::Date32 => ArrowType::Date32,
        DataType::Utf8 => ArrowType::Utf8,
        DataType::Bool => ArrowType::Boolean,
    }
}

/// Decoded values as an Arrow array (nulls where `validity` says so).
pub fn canonical_to_array(canonical: Canonical) -> Result<ArrayRef> {
    let nulls = canonical.validity.map(arrow_buffer::NullBuffer::from);
    let array: ArrayRef = match canonical.values {
        Values::UInt64(v) => Arc::new(arrow_array::UInt64Array::new(v.into(), nulls)),
        Values::Int64(v) => Arc::new(Int64Array::new(v.into(), nulls)),
        Values::Float64(v) => Arc::new(Float64Array::new(v.into(), nulls)),
        Values::Decimal { unscaled, scale } => Arc::new(
            Decimal128Array::new(unscaled.into_iter().map(i128::from).collect(), nulls)
                .with_precision_and_scale(38, scale as i8)
                .map_err(arrow_error)?,
        ),
        Values::Date32(v) => Arc::new(Date32Array::new(v.into(), nulls)),
        Values::Utf8(v) => {
            let mut array = StringArray::from(v);
            if let Some(nulls) = nulls {
                let data = array.into_data().into_builder().nulls(Some(nulls));
                array = StringArray::from(data.build().map_err(arrow_error)?);
            }
            Arc::new(array)
        }
        Values::Bool(v) => Arc::new(BooleanArray::new(v.into(), nulls)),
    };
    Ok(array)
}

fn arrow_error(e: ArrowError) -> QueryError {
    QueryError::load("arrow", e.to_string())
}

/// The Arrow schema of a table.
pub fn table_schema(table: &Table) -> SchemaRef {
    Arc::new(Schema::new(
        table
            .columns()
            .iter()
            .map(|c| {
                Field::new(
                    &c.name,
                    arrow_type(c.column.data_type()),
                    c.column.null_count() > 0,
                )
            })
            .collect::<Vec<_>>(),
    ))
}

/// Rows `range` of a table as one record batch (decoded).
pub fn table_batch(table: &Table, range: std::ops::Range<usize>) -> Result<RecordBatch> {
    let schema = table_schema(table);
    let mut arrays = Vec::with_capacity(table.columns().len());
    for c in table.columns() {
        arrays.push(canonical_to_array(c.column.unpack(range.clone())?)?);
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(range.len()));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(arrow_error)
}

/// The whole table as record batches of [`BATCH_ROWS`] rows, decoded one batch at a time.
pub fn table_to_reader(table: Arc<Table>) -> impl RecordBatchReader + Send + 'static {
    let schema = table_schema(&table);
    let rows = table.rows();
    let batches = (0..rows.div_ceil(BATCH_ROWS)).map(move |b| {
        let start = b * BATCH_ROWS;
        table_batch(&table, start..(start + BATCH_ROWS).min(rows))
            .map_err(|e| ArrowError::ExternalError(Box::new(e)))
    });
    RecordBatchIterator::new(batches, schema)
}

/// The Arrow type of a result column of `ty` whose values are `values`.
fn result_type(ty: Type, column: usize, rows: &[Vec<Value>]) -> ArrowType {
    match ty {
        Type::Int => {
            let wide = rows.iter().any(|r| match r[column] {
                Value::Int(v) => i64::try_from(v).is_err(),
                _ => false,
            });
            if wide {
                ArrowType::Decimal128(38, 0)
            } else {
                ArrowType::Int64
            }
        }
        Type::Decimal(s) => ArrowType::Decimal128(38, s as i8),
        Type::Date => ArrowType::Date32,
        Type::Str => ArrowType::Utf8,
        Type::Bool => ArrowType::Boolean,
        Type::Float => ArrowType::Float64,
    }
}

/// The Arrow schema of a result.
pub fn result_schema(result: &ResultSet) -> SchemaRef {
    Arc::new(Schema::new(
        result
            .names
            .iter()
            .zip(&result.types)
            .enumerate()
            .map(|(i, (name, &ty))| {
                let nullable = result.rows.iter().any(|r| r[i] == Value::Null);
                Field::new(name, result_type(ty, i, &result.rows), nullable)
            })
            .collect::<Vec<_>>(),
    ))
}

/// A query's result as one Arrow record batch (see the module for the types).
pub fn result_to_record_batch(result: &ResultSet) -> Result<RecordBatch> {
    let schema = result_schema(result);
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(result.names.len());
    for (i, field) in schema.fields().iter().enumerate() {
        let cells = result.rows.iter().map(|r| &r[i]);
        let mismatch = |v: &Value| {
            QueryError::load(
                "result",
                format!(
                    "column {}: value {v} is not of its type {}",
                    field.name(),
                    result.types[i]
                ),
            )
        };
        let array: ArrayRef = match field.data_type() {
            ArrowType::Int64 => Arc::new(
                cells
                    .map(|v| match v {
                        Value::Int(x) => Ok(Some(*x as i64)),
                        Value::Null => Ok(None),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Int64Array>>()?,
            ),
            ArrowType::Decimal128(_, s) => {
                let scale = *s as u8;
                Arc::new(
                    cells
                        .map(|v| match v.as_exact() {
                            Some((x, sx)) if sx <= scale => {
                                crate::value::rescale_i128(x, scale - sx).map(Some)
                            }
                            _ if *v == Value::Null => Ok(None),
                            _ => Err(mismatch(v)),
                        })
                        .collect::<Result<Decimal128Array>>()?
                        .with_precision_and_scale(38, *s)
                        .map_err(arrow_error)?,
                )
            }
            ArrowType::Date32 => Arc::new(
                cells
                    .map(|v| match v {
                        Value::Date(d) => Ok(Some(*d)),
                        Value::Null => Ok(None),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<Date32Array>>()?,
            ),
            ArrowType::Utf8 => Arc::new(
                cells
                    .map(|v| match v {
                        Value::Str(s) => Ok(Some(s.as_str())),
                        Value::Null => Ok(None),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<StringArray>>()?,
            ),
            ArrowType::Boolean => Arc::new(
                cells
                    .map(|v| match v {
                        Value::Bool(b) => Ok(Some(*b)),
                        Value::Null => Ok(None),
                        other => Err(mismatch(other)),
                    })
                    .collect::<Result<BooleanArray>>()?,
            ),
            _ => Arc::new(
                cells
                    .map(|v| match v {
                        Value::Null => Ok(None),
                        other => other.as_f64().map(Some).ok_or_else(|| mismatch(other)),
                    })
                    .collect::<Result<Float64Array>>()?,
            ),
        };
        arrays.push(array);
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(result.rows.len()));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(arrow_error)
}

/// A query's result as a record batch reader (one batch), e.g. for
/// `FFI_ArrowArrayStream::new`.
pub fn result_to_reader(result: &ResultSet) -> Result<impl RecordBatchReader + Send + 'static> {
    let batch = result_to_record_batch(result)?;
    let schema = batch.schema();
    Ok(RecordBatchIterator::new(vec![Ok(batch)], schema))
}
