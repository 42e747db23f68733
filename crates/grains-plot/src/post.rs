//! Tables of `grains post` (or any CSV of numbers): the first column on x, every other numeric
//! column a line.
//!
//! Rows whose first cell is not a number are not plotted (the discharge table's `rate` row
//! holds its summary); an empty cell (an angle of repose a frame has none of) is a point
//! skipped. A column with any other text is not a series.

use std::path::{Path, PathBuf};

use crate::figure::{Figure, Panel, Series};
use crate::table::{number, Csv};
use crate::{Output, PlotError};

/// The `*.csv` files of `dir`, by name.
pub(crate) fn tables(dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let missing = || PlotError::Missing {
        path: dir.to_path_buf(),
        hint: format!(
            "`grains post ANALYSIS {}` writes its tables there",
            dir.parent().unwrap_or(Path::new(".")).display()
        ),
    };
    let entries = std::fs::read_dir(dir).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => missing(),
        _ => PlotError::Read {
            path: dir.to_path_buf(),
            err,
        },
    })?;
    let mut files = Vec::new();
    for e in entries {
        let e = e.map_err(|err| PlotError::Read {
            path: dir.to_path_buf(),
            err,
        })?;
        let p = e.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "csv") {
            files.push(p);
        }
    }
    if files.is_empty() {
        return Err(missing());
    }
    files.sort();
    Ok(files)
}

/// The figure of one table, `post_<file stem>`.
pub(crate) fn figure(path: &Path) -> Result<Output, PlotError> {
    let mut csv = Csv::open(
        path,
        "`grains post ANALYSIS OUTDIR` writes OUTDIR/post/<analysis>.csv",
    )?;
    let width = csv.header.len();
    // Each plotted row: x, then each other column's value (None for an empty cell, Err(())
    // for text).
    type Cells = Vec<Result<Option<f64>, ()>>;
    let mut rows: Vec<(f64, Cells)> = Vec::new();
    csv.for_each_row(|r| {
        let Some(x) = r.cells.first().and_then(|c| c.parse::<f64>().ok()) else {
            return Ok(());
        };
        let cells = (1..width)
            .map(|k| match r.cells.get(k).copied().unwrap_or("") {
                "" => Ok(None),
                c => c.parse().map(Some).map_err(|_| ()),
            })
            .collect();
        rows.push((x, cells));
        Ok(())
    })?;
    let malformed = |what: &str| PlotError::Malformed {
        path: path.to_path_buf(),
        line: 0,
        what: what.into(),
    };
    if rows.is_empty() {
        return Err(malformed("no row whose first cell is a number"));
    }
    let numeric: Vec<usize> = (0..width - 1)
        .filter(|&k| rows.iter().all(|(_, c)| c[k].is_ok()))
        .filter(|&k| rows.iter().any(|(_, c)| matches!(c[k], Ok(Some(_)))))
        .collect();
    if numeric.is_empty() {
        return Err(malformed(
            "no column of numbers besides the first to plot against it",
        ));
    }
    let stem = path
        .file_stem()
        .map_or_else(|| "table".into(), |s| s.to_string_lossy().into_owned());
    let series = numeric
        .iter()
        .map(|&k| Series {
            name: csv.header[k + 1].clone(),
            points: rows
                .iter()
                .filter_map(|(x, c)| c[k].ok().flatten().map(|y| (*x, y)))
                .collect(),
        })
        .collect();
    let mut header = vec![csv.header[0].clone()];
    header.extend(numeric.iter().map(|&k| csv.header[k + 1].clone()));
    let table = rows
        .iter()
        .map(|(x, c)| {
            let mut r = vec![number(*x)];
            r.extend(
                numeric
                    .iter()
                    .map(|&k| c[k].ok().flatten().map_or(String::new(), number)),
            );
            r
        })
        .collect();
    Ok(Output {
        figure: Figure {
            stem: format!("post_{stem}"),
            panels: vec![Panel {
                title: path
                    .file_name()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                x_label: csv.header[0].clone(),
                y_label: "value".into(),
                series,
            }],
        },
        header,
        rows: table,
    })
}
