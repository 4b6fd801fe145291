//! Rendering benchmark rows as an aligned text table, CSV or JSON.

use std::fmt::Write as _;

/// Output format of a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// A JSON array of objects.
    Json,
}

/// A table: column names and rows of already formatted cells, plus the raw JSON rows.
pub struct Table {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub json: Vec<serde_json::Value>,
}

impl Table {
    pub fn new(columns: Vec<&'static str>) -> Table {
        Table {
            columns,
            rows: Vec::new(),
            json: Vec::new(),
        }
    }

    /// Adds a row: the cells in column order and the same row as JSON.
    pub fn push(&mut self, cells: Vec<String>, json: serde_json::Value) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
        self.json.push(json);
    }

    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.text(),
            Format::Csv => self.csv(),
            Format::Json => serde_json::to_string_pretty(&self.json).unwrap_or_default() + "\n",
        }
    }

    fn text(&self) -> String {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].len())
                    .chain([self.columns[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let line = |cells: Vec<&str>, out: &mut String| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, &w)| format!("{cell:>w$}"))
                .collect();
            let _ = writeln!(out, "{}", padded.join("  "));
        };
        line(self.columns.clone(), &mut out);
        for row in &self.rows {
            line(row.iter().map(String::as_str).collect(), &mut out);
        }
        out
    }

    fn csv(&self) -> String {
        let mut out = self.columns.join(",") + "\n";
        for row in &self.rows {
            let cells: Vec<String> = row
                .iter()
                .map(|c| {
                    if c.contains(',') || c.contains('"') {
                        format!("\"{}\"", c.replace('"', "\"\""))
                    } else {
                        c.clone()
                    }
                })
                .collect();
            out += &(cells.join(",") + "\n");
        }
        out
    }
}

/// Checks, before any work starts, that an output file can be created at `path`: its folder
/// exists and `path` is not itself a folder. `what` names the option in the error.
pub fn check_output_path(path: &std::path::Path, what: &str) -> crate::CliResult {
    if path.is_dir() {
        return Err(format!("{what} {}: is a folder, not a file", path.display()).into());
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    match std::fs::metadata(folder) {
        Ok(m) if m.is_dir() && !m.permissions().readonly() => Ok(()),
        Ok(m) if m.is_dir() => Err(format!(
            "{what} {}: folder {} is read-only",
            path.display(),
            folder.display()
        )
        .into()),
        Ok(_) => Err(format!(
            "{what} {}: {} is not a folder",
            path.display(),
            folder.display()
        )
        .into()),
        Err(e) => Err(format!(
            "{what} {}: folder {}: {e}",
            path.display(),
            folder.display()
        )
        .into()),
    }
}

/// [`check_output_path`] for a plot, whose extension chooses the format (.svg or .png).
pub fn check_plot_path(path: &std::path::Path) -> crate::CliResult {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(extension.as_deref(), Some("svg" | "png")) {
        return Err(format!(
            "--plot {}: the extension chooses the format and must be .svg or .png",
            path.display()
        )
        .into());
    }
    check_output_path(path, "--plot")
}

/// Seconds as milliseconds with three decimals.
pub fn millis(duration: std::time::Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1e3)
}
