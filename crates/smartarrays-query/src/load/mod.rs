//! Loading tables from files: Parquet ([`parquet`]) and CSV ([`csv`]). Arrow record batches
//! and C streams are in [`crate::arrow`]; the project's own saved tables in [`crate::store`].
//!
//! Every loader builds the whole table or returns an error naming the file and, for a value
//! that does not fit, its line (or row) and column; never a half-built table.

pub mod csv;
pub mod parquet;

use std::path::Path;

use smartarrays_encodings::ColumnOptions;

use crate::error::{QueryError, Result};
use crate::table::Table;

pub use self::csv::{read_csv, read_csv_bytes, CsvOptions};
pub use self::parquet::read_parquet;

/// Maps `f` over `items` on up to one scoped thread per CPU (items are taken in order, results
/// come back in order); the first error (by item order) is returned.
pub(crate) fn par_map<T: Send, U: Send>(
    items: Vec<T>,
    f: impl Fn(usize, T) -> Result<U> + Sync,
) -> Result<Vec<U>> {
    let count = items.len();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(count)
        .max(1);
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let results = std::sync::Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let job = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some((i, item)) = job else { break };
                let out = f(i, item);
                let failed = out.is_err();
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, out));
                if failed {
                    break;
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    let mut out = Vec::with_capacity(count);
    for (_, r) in results {
        out.push(r?);
    }
    if out.len() != count {
        // Workers stop only after an error, which the loop above has returned.
        return Err(QueryError::load(
            "load",
            "a worker stopped without a result",
        ));
    }
    Ok(out)
}

/// The kind of file a path names, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `.parquet` (or `.pq`).
    Parquet,
    /// `.csv`, `.tbl` (`|`-separated), `.tsv` (tab-separated).
    Csv,
    /// `.sat`: a table saved by [`crate::store::save`].
    Saved,
}

impl FileKind {
    /// The kind of `path`, from its extension (`None`: not one of the above).
    pub fn of(path: &Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "parquet" | "pq" => FileKind::Parquet,
            "csv" | "tbl" | "tsv" => FileKind::Csv,
            "sat" => FileKind::Saved,
            _ => return None,
        })
    }
}

/// Loads a table called `name` from `path`, by its extension: Parquet, CSV (`.csv` with `,`,
/// `.tbl` with `|`, `.tsv` with tabs; a header line, types inferred) or a saved table.
///
/// # Example
/// ```
/// use smartarrays_query::{load, encodings::ColumnOptions};
/// let path = std::env::temp_dir().join(format!("load-example-{}.csv", std::process::id()));
/// std::fs::write(&path, "id,price\n1,2.50\n2,0.75\n").unwrap();
/// let table = load::load_table("t", &path, &ColumnOptions::new()).unwrap();
/// assert_eq!(table.rows(), 2);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn load_table(name: &str, path: &Path, options: &ColumnOptions) -> Result<Table> {
    match FileKind::of(path) {
        Some(FileKind::Parquet) => read_parquet(name, path, options),
        Some(FileKind::Csv) => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            let delimiter = match ext.as_str() {
                "tbl" => b'|',
                "tsv" => b'\t',
                _ => b',',
            };
            read_csv(name, path, &CsvOptions::new().delimiter(delimiter), options)
        }
        Some(FileKind::Saved) => {
            let mut table = crate::store::load(path, options)?;
            table.rename(name);
            Ok(table)
        }
        None => Err(QueryError::load(
            path.display().to_string(),
            "unknown file kind (expected .parquet, .csv, .tbl, .tsv or .sat)",
        )),
    }
}
