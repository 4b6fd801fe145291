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
