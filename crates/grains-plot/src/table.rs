//! Reading the run's CSV tables line by line, with errors that name the file and line, and
//! writing the table behind each figure.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::PlotError;

/// A CSV file opened for reading: its header's names, and its lines still to read.
pub(crate) struct Csv {
    pub path: PathBuf,
    pub header: Vec<String>,
    lines: io::Lines<BufReader<File>>,
    /// The line last read (1 is the header).
    line: usize,
}

impl Csv {
    /// Opens `path` and reads its header. A missing file is [`PlotError::Missing`] with
    /// `hint`, which says what writes the file.
    pub fn open(path: &Path, hint: &str) -> Result<Csv, PlotError> {
        let file = File::open(path).map_err(|err| match err.kind() {
            io::ErrorKind::NotFound => PlotError::Missing {
                path: path.to_path_buf(),
                hint: hint.to_string(),
            },
            _ => PlotError::Read {
                path: path.to_path_buf(),
                err,
            },
        })?;
        let mut csv = Csv {
            path: path.to_path_buf(),
            header: Vec::new(),
            lines: BufReader::new(file).lines(),
            line: 0,
        };
        let first = csv.next_line()?.ok_or_else(|| PlotError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            what: "the file is empty; expected a header line".into(),
        })?;
        csv.header = first.split(',').map(|s| s.trim().to_string()).collect();
        Ok(csv)
    }

    /// The index of the header's column `name`, or an error naming the columns wanted.
    pub fn column(&self, name: &str) -> Result<usize, PlotError> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| PlotError::Malformed {
                path: self.path.clone(),
                line: 1,
                what: format!("the header has no column `{name}`"),
            })
    }

    /// The next line, without its line ending; `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<String>, PlotError> {
        match self.lines.next() {
            None => Ok(None),
            Some(Err(err)) => Err(PlotError::Read {
                path: self.path.clone(),
                err,
            }),
            Some(Ok(l)) => {
                self.line += 1;
                Ok(Some(l.trim_end_matches('\r').to_string()))
            }
        }
    }

    /// Calls `f` on each data row (blank lines are skipped), in order, stopping at its first
    /// error.
    pub fn for_each_row(
        &mut self,
        mut f: impl FnMut(&Row) -> Result<(), PlotError>,
    ) -> Result<(), PlotError> {
        while let Some(text) = self.next_line()? {
            if text.trim().is_empty() {
                continue;
            }
            let row = Row {
                path: &self.path,
                line: self.line,
                header: &self.header,
                cells: text.split(',').map(str::trim).collect(),
            };
            f(&row)?;
        }
        Ok(())
    }
}

/// One data row of a [`Csv`], for reading its cells with errors naming the file and line.
pub(crate) struct Row<'a> {
    pub path: &'a Path,
    pub line: usize,
    header: &'a [String],
    pub cells: Vec<&'a str>,
}

impl Row<'_> {
    /// An error at this row.
    pub fn error(&self, what: String) -> PlotError {
        PlotError::Malformed {
            path: self.path.to_path_buf(),
            line: self.line,
            what,
        }
    }

    /// The cell of column `col` as a number (NaN and infinities are numbers here: a run that
    /// blew up writes them, and figures leave them out).
    pub fn num(&self, col: usize) -> Result<f64, PlotError> {
        let name = self.header.get(col).map_or("?", String::as_str);
        let cell = self.cells.get(col).ok_or_else(|| {
            self.error(format!(
                "{} cells, but the header has {} (column `{name}` is missing)",
                self.cells.len(),
                self.header.len()
            ))
        })?;
        cell.parse().map_err(|_| {
            self.error(format!(
                "column `{name}` (column {}): `{cell}` is not a number",
                col + 1
            ))
        })
    }

    /// The cell of column `col` as a whole number (a step or an index).
    pub fn whole(&self, col: usize) -> Result<u64, PlotError> {
        let v = self.num(col)?;
        if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
            Ok(v as u64)
        } else {
            let name = self.header.get(col).map_or("?", String::as_str);
            Err(self.error(format!(
                "column `{name}` (column {}): `{v}` is not a whole number",
                col + 1
            )))
        }
    }
}

/// `v` as the tables behind the figures write it: shortest round-trip, so reading it back
/// gives the same bits; exponent form outside the usual range, where plain notation is long.
pub(crate) fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-4..1e7).contains(&a) || !a.is_finite() {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Writes `header` and `rows` (cells already written as text) to `path`.
pub(crate) fn write_table(
    path: &Path,
    header: &[String],
    rows: &[Vec<String>],
) -> Result<(), PlotError> {
    let mut text = header.join(",");
    text.push('\n');
    for r in rows {
        text.push_str(&r.join(","));
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|err| PlotError::Write {
        path: path.to_path_buf(),
        err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_bitwise() {
        for v in [
            0.0, -0.0, 1.0, 0.1, 1e-30, -2.5e12, 123456.789, 1e-4, 9.99e-5, 1e7,
        ] {
            let s = number(v);
            let back: f64 = s.parse().unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v} written as {s}");
            assert!(s.len() < 24, "{v} written as {s}");
        }
    }
}
