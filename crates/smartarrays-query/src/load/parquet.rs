//! Parquet files read into tables with the `parquet` crate's Arrow reader: the row groups are
//! split among one reader per CPU, then every column is built from its Arrow arrays (see
//! [`crate::arrow`] for the types).

use std::fs::File;
use std::path::Path;

use arrow_array::ArrayRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use smartarrays_encodings::ColumnOptions;

use crate::error::{QueryError, Result};
use crate::table::Table;

/// Rows per Arrow batch while reading.
const BATCH_ROWS: usize = 64 * 1024;

/// Reads the Parquet file at `path` into a table called `name`.
///
/// A file that is not Parquet, is truncated or corrupted is a [`QueryError::Load`] naming the
/// file; a column of a type tables do not hold, or a null, is an error naming the column (and
/// the row).
///
/// # Example
/// ```
/// use smartarrays_query::{arrow::table_to_reader, encodings::ColumnOptions, load, tpch};
/// let nation = std::sync::Arc::new(tpch::table("nation", 0.01, &ColumnOptions::new()).unwrap());
/// let path = std::env::temp_dir().join(format!("nation-{}.parquet", std::process::id()));
/// load::parquet::write_parquet(&path, table_to_reader(nation)).unwrap();
/// let back = load::read_parquet("nation", &path, &ColumnOptions::new()).unwrap();
/// assert_eq!(back.rows(), 25);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_parquet(name: &str, path: &Path, options: &ColumnOptions) -> Result<Table> {
    let source = path.display().to_string();
    let fail = |e: &dyn std::fmt::Display| QueryError::load(&source, e.to_string());
    let open = || File::open(path).map_err(|e| fail(&e));
    let builder = ParquetRecordBatchReaderBuilder::try_new(open()?).map_err(|e| fail(&e))?;
    let schema = builder.schema().clone();
    crate::arrow::check_schema(&source, &schema)?;
    let groups = builder.metadata().num_row_groups();
    drop(builder);
    let readers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(groups)
        .max(1);
    // Contiguous runs of row groups, one per reader, so the batches stay in file order.
    let parts: Vec<Vec<usize>> = (0..readers)
        .map(|r| (groups * r / readers..groups * (r + 1) / readers).collect())
        .collect();
    let read = super::par_map(parts, |_, row_groups| {
        let builder = ParquetRecordBatchReaderBuilder::try_new(open()?).map_err(|e| fail(&e))?;
        let reader = builder
            .with_row_groups(row_groups)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| fail(&e))?;
        let mut batches = Vec::new();
        for batch in reader {
            batches.push(batch.map_err(|e| fail(&e))?);
        }
        Ok(batches)
    })?;
    let mut columns: Vec<Vec<ArrayRef>> = vec![Vec::new(); schema.fields().len()];
    for batch in read.into_iter().flatten() {
        for (i, array) in batch.columns().iter().enumerate() {
            columns[i].push(std::sync::Arc::clone(array));
        }
    }
    crate::arrow::table_from_columns(name, &source, &schema, columns, options)
}

/// Writes record batches to a Parquet file at `path` (Zstd-compressed, row groups of 1 Mi
/// rows); returns the rows written.
pub fn write_parquet(path: &Path, reader: impl arrow_array::RecordBatchReader) -> Result<u64> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    let source = path.display().to_string();
    let fail = |e: &dyn std::fmt::Display| QueryError::load(&source, e.to_string());
    let file = File::create(path).map_err(|e| fail(&e))?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(1 << 20))
        .build();
    let mut writer =
        ArrowWriter::try_new(file, reader.schema(), Some(properties)).map_err(|e| fail(&e))?;
    let mut rows = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| fail(&e))?;
        rows += batch.num_rows() as u64;
        writer.write(&batch).map_err(|e| fail(&e))?;
    }
    writer.close().map_err(|e| fail(&e))?;
    Ok(rows)
}
